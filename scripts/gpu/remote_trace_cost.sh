#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .carry/trace carried along
# (scripts/gpu/pack_trace_cost.sh made it): what the C tier's event log costs a decode.
# For each backend packed (CUDA first when a GPU is there, else the CPU engine), REPEATS
# rounds of tier_decode_rate without the log and with it (alternating, so drift falls on
# both), then check-trace on the last log (it must be consumed whole), and a table last:
# tokens/s without and with the log (medians), the cost, the log's events and bytes, and
# check-trace's verdict and speed.
#   bash scripts/gpu/remote_trace_cost.sh [REPEATS (5)] [TOKENS (400)]
# The model is tier_decode_rate's default unless TRACE_MODEL says otherwise
# (for example TRACE_MODEL="--layers 16 --experts 64 --hidden 2048 --ffn 768 --topk 8").
# Results go to $OUT: log.txt, summary.md. The exit status is 0 only if every step passed.
set -uo pipefail
c=.carry/trace
out=${OUT:-/tmp/tierlab-trace-out}
repeats=${1:-5}
tokens=${2:-400}
model=${TRACE_MODEL:-}
work=/tmp/tl-trace
mkdir -p "$out" "$work"
log="$out/log.txt"
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log"; }
xz -dc "$c/node.xz" > "$work/node" && chmod +x "$work/node"
node=$work/node
say "== $(date -u +%FT%TZ) commit $(cat "$c/commit.txt" 2>/dev/null || echo unknown)"
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
backends=cpu
[ -x "$c/lib/tier/tier_decode_rate_cuda" ] && command -v nvidia-smi > /dev/null && backends=cuda
status=0
summary="$out/summary.md"
printf '| backend | tokens/s, no log | tokens/s, log | cost | events | MB | check-trace |\n|---|---|---|---|---|---|---|\n' > "$summary"
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for b in $backends; do
  prog="$c/lib/tier/tier_decode_rate_$b"
  off="$work/$b.off" on="$work/$b.on"
  : > "$off"
  : > "$on"
  for r in $(seq "$repeats"); do
    # shellcheck disable=SC2086
    "$prog" --tokens "$tokens" $model | tee -a "$log" | sed -n 's/.*: \([0-9.]*\) tokens\/s.*/\1/p' >> "$off" || status=1
    rm -f "$work/$b.ndjson"
    # shellcheck disable=SC2086
    "$prog" --tokens "$tokens" $model --log "$work/$b.ndjson" | tee -a "$log" |
      sed -n 's/.*: \([0-9.]*\) tokens\/s.*/\1/p' >> "$on" || status=1
  done
  check=$("$node" "$c/check_trace.mjs" "$work/$b.ndjson" 2>&1)
  rc=$?
  say "$check"
  [ "$rc" -eq 0 ] || status=1
  t0=$(median < "$off") t1=$(median < "$on")
  events=$(wc -l < "$work/$b.ndjson") bytes=$(wc -c < "$work/$b.ndjson")
  cost=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f %%", 100 * (a - b) / a }')
  verdict=$(printf '%s' "$check" | head -1 | sed 's/^[^:]*: //')
  printf '| %s | %s | %s | %s | %s | %.0f | %s |\n' "$b" "$t0" "$t1" "$cost" "$events" "$((bytes / 1000000))" \
    "$verdict" >> "$summary"
done
say ""
say "$(cat "$summary")"
exit "$status"
