/**
 * Strongly connected components of a file graph (Tarjan): the import cycles of the TS
 * sources and the call cycles of the C sources.
 */
/** Every strongly connected component of more than one file (Tarjan). */
export function cycles(graph: readonly (readonly [string, readonly string[]])[]): string[][] {
  const edges = new Map(graph.map(([f, to]) => [f, to.filter((t) => graph.some(([g]) => g === t))]));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let n = 0;
  const visit = (v: string): void => {
    index.set(v, n);
    low.set(v, n);
    n++;
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      for (;;) {
        const w = stack.pop();
        if (w === undefined) break;
        on.delete(w);
        comp.push(w);
        if (w === v) break;
      }
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const [f] of graph) if (!index.has(f)) visit(f);
  return out;
}
