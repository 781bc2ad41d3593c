#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .carry/gpu carried along
# (scripts/gpu/pack.sh made it). Measures and checks everything in one go:
#   GPU facts, raw host-to-device bandwidth (pinned, pageable), the CUDA self-test
#   (bit-exact groups, upload bandwidth through the ABI), the CUDA oracle on one GPU and
#   on every GPU, the Vulkan oracle staged and mapped, and the tier uploader's bandwidth
#   on a larger generated model. Results go to $OUT: a log and a tarball of reports.
set -uo pipefail
c=.carry/gpu
out=${OUT:-/tmp/tierlab-gpu-out}
mkdir -p "$out" /tmp/tl/reports
log="$out/log.txt"
say() { printf '%s\n' "$*" | tee -a "$log"; }
run() { say "\$ $*"; "$@" 2>&1 | tee -a "$log"; return "${PIPESTATUS[0]}"; }

xz -dc "$c/node.xz" > /tmp/tl/node && chmod +x /tmp/tl/node
export LD_LIBRARY_PATH="$PWD/$c/vk:${LD_LIBRARY_PATH:-}"
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
node=/tmp/tl/node
ngpu=$(nvidia-smi -L | wc -l)
all=$(seq -s, 0 $((ngpu - 1)))
status=0

say "== $(date -u +%FT%TZ) commit $(cat "$c/commit.txt" 2>/dev/null || echo unknown)"
run nvidia-smi --query-gpu=index,name,driver_version,memory.total,pcie.link.gen.current,pcie.link.width.current --format=csv
run "$c/lib/cuda_h2d_probe" || status=1
run "$c/lib/cuda_selftest" "$ngpu" || status=1
run $node "$c/oracle.mjs" --backend cuda --devices 0 --lib "$c/lib/libtierlab_cuda.so" --report /tmp/tl/reports/cuda-1gpu || status=1
if [ "$ngpu" -gt 1 ]; then
  run $node "$c/oracle.mjs" --backend cuda --devices "$all" --lib "$c/lib/libtierlab_cuda.so" --report /tmp/tl/reports/cuda-${ngpu}gpu || status=1
fi
for mode in staged mapped; do
  TIERLAB_VK_UPLOAD=$mode run $node "$c/oracle.mjs" --backend vulkan --devices 0 --lib "$c/lib/libtierlab_vulkan.so" \
    --report /tmp/tl/reports/vulkan-$mode || status=1
done
# the tiny model's tensors are a few KiB (latency-bound): a larger model shows the
# uploader's bandwidth next to the raw copy numbers above
run $node "$c/generate.mjs" --seed 7 --layers 2 --hidden 512 --heads 8 --experts 8 --topk 2 --width 4096 \
  --vocab 320 --format 2 --group 16 --prompt 4 --tokens 8 --out /tmp/tl/large-moe || status=1
for backend in cuda vulkan; do
  run $node "$c/oracle.mjs" --backend $backend --devices 0 --lib "$c/lib/libtierlab_$backend.so" --fixture /tmp/tl/large-moe \
    --tokens 8 --only "everything, warmstart" --report /tmp/tl/reports/large-$backend || status=1
done
tar -C /tmp/tl -czf "$out/reports.tgz" reports
say "== exit $status"
exit $status
