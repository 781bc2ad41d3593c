#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .carry/gpu carried along
# (scripts/gpu/pack.sh made it): the warmstart fill of small tensors against the bus, in
# one call, for issue-sized questions that the full run (remote.sh) answers too slowly.
#   1. the piece probe: the bus's own speed for copies of one tensor's size (per piece
#      on 1-4 streams, with events, batched, three pieces as one copy), beside one big copy;
#   2. the C upload bench, CUDA staged with tensors of 0.84 and 1.97 MiB, Vulkan staged;
#   3. `bench --only upload`: CUDA with GIB (default 8) and 1 GiB of 0.84 MiB tensors,
#      Vulkan staged with 1 GiB, and the CPU backend with tiny tensors (the tier's own
#      microseconds per expert on this host's CPU, no bus behind them). The warm fills are
#      the median of three: one fill alone moved by up to 26 points between runs of one
#      build on the H200 (RUNS.md, "the landed runtime on the H200").
# BEFORE=DIR: a directory with another commit's bench.mjs (and, optionally, those of its
# libraries that differ, in lib/): every bench of step 3 runs again with it, right after
# this commit's, and the C benches with its libraries, for an A/B in the same call.
# ORACLE=1 adds the CUDA and Vulkan (staged) self-tests and the CUDA and Vulkan oracles
# (token-exact, bit-identical).
# Everything goes to $OUT/log.txt; the exit status is 0 only if every step passed.
#   bash scripts/gpu/remote_fill.sh
set -uo pipefail
. "$(dirname "$0")/unpack.sh"
# BEFORE's bundle loads koffi as this one does, from a node_modules beside it
[ -n "${BEFORE:-}" ] && [ ! -e "$BEFORE/node_modules" ] && ln -s "$PWD/$c/node_modules" "$BEFORE/node_modules"
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
step() {
  say "\$ $*"
  "$@" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
}

say "== $(date -u +%FT%TZ) commit $(cat "$c/commit.txt" 2>/dev/null || echo unknown)"
step nvidia-smi --query-gpu=index,name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
step "$lib/cuda_piece_probe" 884736 2064384
# cbench BACKEND ARGS...: the C bench, then again with BEFORE's library where it has one
cbench() {
  local backend=$1
  shift
  step "$lib/bench_upload_$backend" "$@"
  if [ -f "${BEFORE:-/none}/lib/libtierlab_$backend.so" ]; then
    say "== the same with the library in $BEFORE/lib"
    LD_LIBRARY_PATH="$PWD/$BEFORE/lib:$LD_LIBRARY_PATH" step "$lib/bench_upload_$backend" "$@"
  fi
}
for width in 768 1792; do cbench cuda --mib 1024 --width "$width"; done
TIERLAB_VK_UPLOAD=staged cbench vulkan --mib 1024

# fill NAME BUNDLE LIBDIR BACKEND GIB HIDDEN WIDTH FILLS [ENV=VALUE...]
fill() {
  local name=$1 bundle=$2 libdir=$3 backend=$4 gib=$5 hidden=$6 width=$7 fills=$8
  shift 8
  say "== $name"
  local so=$libdir/libtierlab_$backend.so
  [ -f "$so" ] || so=$lib/libtierlab_$backend.so
  env "$@" $node "$bundle" --only upload --backend "$backend" --lib "$so" \
    --experts-gib "$gib" --hidden "$hidden" --width "$width" --tokens 4 --fills "$fills" \
    --out "$work/reports/$name" 2>&1 | grep -vE '^html report|^report in' | tee -a "$log"
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
}
# ab NAME ARGS...: this commit's bench, then BEFORE's (its own lib/ where it has one)
ab() {
  local name=$1
  shift
  fill "$name" "$c/bench.mjs" "$lib" "$@"
  if [ -n "${BEFORE:-}" ]; then fill "$name-before" "$BEFORE/bench.mjs" "$BEFORE/lib" "$@"; fi
}
# the issue's size and the checks first: a call that runs out of time loses the rows
# after them
ab "cuda-${GIB:-8}gib" cuda "${GIB:-8}" 2048 768 3
ab vulkan-staged vulkan 1 2048 768 3 TIERLAB_VK_UPLOAD=staged

if [ "${ORACLE:-0}" = 1 ]; then
  step "$lib/cuda_selftest" 1
  step env TIERLAB_VK_UPLOAD=staged "$lib/vulkan_selftest" 1 --quick
  step $node "$c/oracle.mjs" --backend cuda --devices 0 --lib "$lib/libtierlab_cuda.so" --report "$work/reports/cuda-1gpu"
  step env TIERLAB_VK_UPLOAD=staged $node "$c/oracle.mjs" --backend vulkan --devices 0 \
    --lib "$lib/libtierlab_vulkan.so" --report "$work/reports/vulkan-staged"
fi
ab cpu-tiny cpu 0.25 64 64 3
ab cuda-1gib cuda 1 2048 768 3
say "== exit $status"
exit $status
