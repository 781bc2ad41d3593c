#!/usr/bin/env bash
# Runs on the GPU machine (its CPUs only), from the repository root, with .carry/search
# carried along (scripts/gpu/pack_search.sh made it): the search bench's exhaustive
# section (`npm run bench -- --only exhaustive`) pinned to two physical cores of an
# otherwise idle machine (`pinned`), and on request on all its cores (`unpinned`).
#   bash scripts/gpu/remote_search.sh [SECONDS (60)] [MODES ("pinned"; or "pinned unpinned")]
# Results go to $OUT: log.txt and a report folder per mode (bench.md, bench.json; the
# logs name only this machine's work folder, /tmp/tl-search). The exit status is 0 only
# if every mode passed.
set -uo pipefail
c=.carry/search
out=${OUT:-/tmp/tierlab-search-out}
seconds=${1:-60}
modes=${2:-pinned}
mkdir -p "$out"
log="$out/log.txt"
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log"; }
work=/tmp/tl-search
mkdir -p "$work"
xz -dc "$c/node.xz" > "$work/node" && chmod +x "$work/node"
tar -xJf "$c/node_modules.tar.xz"
node=$work/node
say "== $(date -u +%FT%TZ) commit $(cat "$c/commit.txt" 2>/dev/null || echo unknown), node $($node --version)"
say "$(lscpu | grep -E '^(Model name|CPU\(s\)|Thread\(s\) per core|Core\(s\) per socket|Socket\(s\))')"
# two logical CPUs on two different physical cores (not SMT siblings of one core)
pair=$(lscpu -p=CPU,CORE | grep -v '^#' | sort -t, -k2,2n -u | head -2 | cut -d, -f1 | paste -sd,)
say "pinned to logical CPUs $pair"
status=0
for mode in $modes; do
  pin=()
  [ "$mode" = pinned ] && pin=(taskset -c "$pair")
  say "\$ ${pin[*]} node --import tsx apps/cli/bin/bench.ts --only exhaustive --explore-seconds $seconds --out $work/$mode"
  "${pin[@]}" "$node" --import tsx apps/cli/bin/bench.ts --only exhaustive --explore-seconds "$seconds" \
    --out "$work/$mode" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  mkdir -p "$out/$mode"
  cp "$work/$mode/bench.md" "$work/$mode/bench.json" "$out/$mode/" 2>/dev/null || status=1
done
exit $status
