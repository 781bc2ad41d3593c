#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .carry/gpu carried along
# (scripts/gpu/pack.sh made it). Builds nothing; checks and measures everything in one go:
#   GPU facts; raw host-to-device bandwidth (pinned, pageable); the CUDA self-test
#   (bit-exact groups over direct and staged uploads, completions); the C upload bench
#   (staged uploads from page-locked RAM copies against the raw pinned copy, same run);
#   the CUDA oracle on one GPU and on every GPU (with the TypeScript tier and with the C
#   tier, native/tier/, inside the engine), and on the fp8 fixture (fp8 experts,
#   streaming through RAM LRUs, the int8 trunk resident); the Vulkan self-test, C bench
#   and oracle (both fixtures), staged and mapped; the native-defects kill table on CUDA
#   and on Vulkan (each defect's prebuilt library through the oracle); the C tier's engine
#   check (native/tier/check/: warmstart, bit-identical groups and trunk, a clean engine
#   ledger) on each library it can reach; then `bench --only upload` (the tier's warmstart fill against the
#   raw copy of the same library, per-op overheads, CPU-only and resident decodes) on
#   CUDA and on Vulkan staged and mapped with 1 GiB of experts, and on CUDA with 16 GiB
#   (tensors of 0.84 and of 1.97 MiB).
# Without a GPU (no nvidia-smi) it runs what it can on the CPU backend (and Vulkan when a
# driver is installed), with smaller sizes: the same script, checked end to end.
# Results go to $OUT: log.txt (everything), reports.tgz, and summary.md, the short table
# it prints last (scripts/gpu/summary.mjs). The exit status is 0 only if every step passed.
set -uo pipefail
. "$(dirname "$0")/unpack.sh"
steps="$work/steps.txt"
: > "$steps"
# run NAME CMD...: logs the command and its output (also to $work/NAME.out), records the
# step's exit status for the summary
run() {
  local name=$1
  shift
  say "\$ $*"
  "$@" 2>&1 | tee "$work/$name.out" | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  printf '%s %s\n' "$name" "$rc" >> "$steps"
  return "$rc"
}

gpu=0
if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then gpu=1; fi

say "== $(date -u +%FT%TZ) commit $(cat "$c/commit.txt" 2>/dev/null || echo unknown), $([ $gpu = 1 ] && echo GPU || echo 'no GPU: CPU backend')"
if [ $gpu = 1 ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  ngpu=$(nvidia-smi -L | wc -l)
  all=$(seq -s, 0 $((ngpu - 1)))
  run facts nvidia-smi --query-gpu=index,name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv || status=1
  run h2d "$lib/cuda_h2d_probe" || status=1
  run cuda-selftest "$lib/cuda_selftest" "$ngpu" || status=1
  run c-bench-cuda "$lib/bench_upload_cuda" --mib 1024 || status=1
  run oracle-cuda-1gpu $node "$c/oracle.mjs" --backend cuda --devices 0 --lib "$lib/libtierlab_cuda.so" --report "$work/reports/cuda-1gpu" || status=1
  run oracle-cuda-fp8 $node "$c/oracle.mjs" --backend cuda --devices 0 --lib "$lib/libtierlab_cuda.so" \
    --fixture fixtures/tiny-moe-fp8 --tokens 32 --report "$work/reports/cuda-fp8" || status=1
  # the same matrix with the C tier (native/tier/, libtierlab_ctier_cuda.so beside the
  # engine's) inside the engine; its event logs beside the report for the trace checker
  run oracle-ctier-cuda-1gpu $node "$c/oracle.mjs" --tier c --backend cuda --devices 0 --lib "$lib/libtierlab_cuda.so" \
    --report "$work/reports/cuda-1gpu" || status=1
  run ctier-engine-cuda-1gpu "$lib/tier/tier_engine_check_cuda" 1 || status=1
  [ "$ngpu" -gt 1 ] && { run ctier-engine-cuda-2gpu "$lib/tier/tier_engine_check_cuda" 2 || status=1; }
  if [ "$ngpu" -gt 1 ]; then
    run oracle-cuda-all $node "$c/oracle.mjs" --backend cuda --devices "$all" --lib "$lib/libtierlab_cuda.so" --report "$work/reports/cuda-${ngpu}gpu" || status=1
    run oracle-ctier-cuda-all $node "$c/oracle.mjs" --tier c --events off --backend cuda --devices "$all" \
      --lib "$lib/libtierlab_cuda.so" --report "$work/reports/cuda-${ngpu}gpu" || status=1
  fi
  vulkan=1
  big_gib=16
  gib=1
else
  run c-bench-cpu-1thread env TIERLAB_CPU_COPY_THREADS=1 "$lib/bench_upload_cpu" --mib 256 || status=1
  run c-bench-cpu "$lib/bench_upload_cpu" --mib 256 || status=1
  run ctier-engine-cpu "$lib/tier/tier_engine_check_cpu" 2 || status=1
  run oracle-cpu $node "$c/oracle.mjs" --backend cpu --devices 0,1 --lib "$lib/libtierlab_cpu.so" --report "$work/reports/cpu" || status=1
  run oracle-ctier-cpu $node "$c/oracle.mjs" --tier c --backend cpu --devices 0,1 --lib "$lib/libtierlab_cpu.so" \
    --report "$work/reports/cpu" || status=1
  run oracle-cpu-fp8 $node "$c/oracle.mjs" --backend cpu --devices 0,1 --lib "$lib/libtierlab_cpu.so" \
    --fixture fixtures/tiny-moe-fp8 --tokens 32 --report "$work/reports/cpu-fp8" || status=1
  vulkan=$(ls /usr/share/vulkan/icd.d/*.json > /dev/null 2>&1 && echo 1 || echo 0)
  big_gib=0
  gib=0.25
fi

if [ "$vulkan" = 1 ]; then
  for mode in staged mapped; do
    TIERLAB_VK_UPLOAD=$mode run "vulkan-selftest-$mode" "$lib/vulkan_selftest" 1 --quick || status=1
    TIERLAB_VK_UPLOAD=$mode run "ctier-engine-vulkan-$mode" "$lib/tier/tier_engine_check_vulkan" 1 || status=1
    TIERLAB_VK_UPLOAD=$mode run "c-bench-vulkan-$mode" "$lib/bench_upload_vulkan" --mib $([ $gpu = 1 ] && echo 1024 || echo 128) || status=1
    TIERLAB_VK_UPLOAD=$mode run "oracle-vulkan-$mode" $node "$c/oracle.mjs" --backend vulkan --devices 0 --lib "$lib/libtierlab_vulkan.so" \
      --report "$work/reports/vulkan-$mode" || status=1
    TIERLAB_VK_UPLOAD=$mode run "oracle-ctier-vulkan-$mode" $node "$c/oracle.mjs" --tier c --events off \
      --backend vulkan --devices 0 --lib "$lib/libtierlab_vulkan.so" --report "$work/reports/vulkan-$mode" || status=1
    TIERLAB_VK_UPLOAD=$mode run "oracle-vulkan-fp8-$mode" $node "$c/oracle.mjs" --backend vulkan --devices 0 --lib "$lib/libtierlab_vulkan.so" \
      --fixture fixtures/tiny-moe-fp8 --tokens 32 --report "$work/reports/vulkan-fp8-$mode" || status=1
  done
fi

# the native defects, each prebuilt library through the oracle after its unpatched control
# (the defects' own upload modes; Vulkan under synchronization validation where the layer
# is installed: lavapipe's machines, not the GPU's, so there a defect must show in the
# tokens, the hidden states or a real-run property)
defect_backends=$([ $gpu = 1 ] && echo cuda || echo "")
[ "$vulkan" = 1 ] && defect_backends=${defect_backends:+$defect_backends,}vulkan
if [ -n "$defect_backends" ]; then
  run native-defects $node "$c/native_defects.mjs" --prebuilt "$c/defects" --oracle "$c/oracle.mjs" \
    --backend "$defect_backends" $([ $gpu = 1 ] && echo --no-validation) --report "$work/reports/native-defects" || status=1
fi

# the tier's warmstart fill against the raw copy of the same library, decode ratios
# (width 768: tensors of 0.84 MiB; 1792: 1.97 MiB, the top of the issue's 0.5-2 MiB)
# bench NAME BACKEND GIB TOKENS WIDTH FILLS [ENV=VALUE...]: FILLS unchecked and warm
# checked fills each after the first (medians reported)
bench() {
  local name=$1 backend=$2 size=$3 tokens=$4 width=$5 fills=$6
  shift 6
  run "bench-$name" env "$@" $node "$c/bench.mjs" --only upload --backend "$backend" --lib "$lib/libtierlab_$backend.so" \
    --experts-gib "$size" --width "$width" --tokens "$tokens" --fills "$fills" --out "$work/reports/bench-$name"
}
if [ $gpu = 1 ]; then
  bench cuda-1gib cuda "$gib" 8 768 3 || status=1
  bench cuda-1gib-2mib cuda "$gib" 4 1792 3 || status=1
else
  bench cpu cpu "$gib" 4 768 3 || status=1
fi
if [ "$vulkan" = 1 ]; then
  bench vulkan-staged vulkan "$gib" 8 768 1 TIERLAB_VK_UPLOAD=staged || status=1
  bench vulkan-mapped vulkan "$gib" 8 768 1 TIERLAB_VK_UPLOAD=mapped || status=1
fi
if [ "$big_gib" != 0 ]; then
  bench "cuda-${big_gib}gib" cuda "$big_gib" 4 768 1 || status=1
  # the same size in 1.97 MiB tensors: a fill long enough that the JIT's warm-up is a
  # small share, with tensors the bus takes longer than the tier's work per expert
  bench "cuda-${big_gib}gib-2mib" cuda "$big_gib" 2 1792 1 || status=1
fi

(cd "$work" && tar -czf "$out/reports.tgz" reports ./*.out steps.txt)
say "== exit $status"
$node scripts/gpu/summary.mjs "$work" | tee "$out/summary.md" | tee -a "$log"
exit $status
