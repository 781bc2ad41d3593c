/**
 * Every mutant the run knows: the catalogue (read from its directory) and the operator
 * mutants (generated from the current sources), and the selection the flags ask for.
 */
import { generateOperatorMutants } from '../operators/index.js';
import { CATALOGUE_DIR, loadCatalogue } from './catalogue.js';
import type { MutantEntry } from './types.js';

export interface Selection {
  readonly catalogue: boolean;
  readonly operators: boolean;
  /** exact ids; empty: all */
  readonly ids: readonly string[];
  readonly catalogueDir?: string;
}

export async function allMutants(root: string, catalogueDir: string = CATALOGUE_DIR): Promise<MutantEntry[]> {
  return [...(await loadCatalogue(catalogueDir)), ...generateOperatorMutants(root)];
}

/** `sources`: where the operators read the tier's sources (the run's snapshot). */
export async function selectMutants(root: string, sel: Selection, sources: string = root): Promise<MutantEntry[]> {
  const out: MutantEntry[] = [];
  if (sel.catalogue || sel.ids.length > 0) out.push(...(await loadCatalogue(sel.catalogueDir ?? CATALOGUE_DIR)));
  if (sel.operators || sel.ids.length > 0) out.push(...generateOperatorMutants(sources));
  if (sel.ids.length === 0) return out.filter((e) => (e.kind === 'catalogue' ? sel.catalogue : sel.operators));
  const picked: MutantEntry[] = [];
  for (const id of sel.ids) {
    const e = out.find((x) => x.mutant.id === id);
    if (e === undefined) {
      const near = out
        .filter((x) => x.mutant.id.includes(id))
        .map((x) => x.mutant.id)
        .slice(0, 8);
      throw new Error(
        `no mutant '${id}'${near.length > 0 ? `; did you mean: ${near.join(', ')}` : ''} (--list shows them all)`,
      );
    }
    picked.push(e);
  }
  return picked;
}
