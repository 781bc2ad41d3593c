#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .carry/gpu carried along
# (scripts/gpu/pack.sh made it): Vulkan staged uploads of 0.84 MiB tensors against the
# number of lanes in flight (TIERLAB_VK_LANES), to choose the default and to show where
# the staged path stops short of Vulkan's own pinned copy. For each lane count: the C
# bench (uploads from pinned RAM copies against tl_copy_bandwidth, the caller's CPU per
# call beside the bus's time per tensor); then the tier's warmstart fill for the counts
# named second. WIDTHS (default 768) sets the C bench's expert widths (hidden 2048: 768
# makes tensors of 0.84 MiB, 7168 of 7.3 MiB); BEFORE=DIR runs each C bench a second time
# with the Vulkan library in DIR (another commit's), for an A/B in one run.
#   bash scripts/gpu/remote_vk_lanes.sh "1 2 4 8 16 32 64" "4 16 64"
set -uo pipefail
c=.carry/gpu
work=/tmp/tl
mkdir -p "$work/reports"
node=$(command -v node || true)
if [ -f "$c/node.xz" ]; then
  xz -dc "$c/node.xz" > "$work/node" && chmod +x "$work/node" && node=$work/node
fi
[ -f "$c/bench.mjs" ] || xz -dc "$c/bench.mjs.xz" > "$c/bench.mjs"
export LD_LIBRARY_PATH="$PWD/$c/vk:${LD_LIBRARY_PATH:-}"
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] &&
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
lib=$c/lib
status=0
cbench() {
  TIERLAB_VK_LANES=$1 "$lib/bench_upload_vulkan" --mib 1024 --width "$2" |
    grep -E "backend|raw copy|staged uploads|caller|ratio"
}
for width in ${WIDTHS:-768}; do
  for lanes in ${1:-1 2 4 8 16 32 64}; do
    echo "== lanes $lanes, width $width: C bench, Vulkan staged, 1 GiB"
    cbench "$lanes" "$width" || status=1
    if [ -n "${BEFORE:-}" ]; then
      echo "== the same with the library in $BEFORE"
      LD_LIBRARY_PATH="$PWD/$BEFORE:$LD_LIBRARY_PATH" cbench "$lanes" "$width" || status=1
    fi
  done
done
fill() {
  TIERLAB_VK_LANES=$1 TIERLAB_VK_UPLOAD=staged $node "$c/bench.mjs" --only upload --backend vulkan \
    --lib "$2/libtierlab_vulkan.so" --experts-gib 1 --width 768 --tokens 8 --fills 1 \
    --out "$work/reports/vk-lanes-$1" 2>&1 | tail -14
}
for lanes in ${2:-4 16 64}; do
  echo "== lanes $lanes: the tier's warmstart fill, Vulkan staged, 1 GiB"
  fill "$lanes" "$lib" || status=1
  if [ -n "${BEFORE:-}" ]; then
    echo "== the same with the library in $BEFORE"
    fill "$lanes" "$BEFORE" || status=1
  fi
done
# ORACLE=1: the oracle on Vulkan staged with this library (token-exact, bit-identical)
if [ "${ORACLE:-0}" = 1 ]; then
  [ -f "$c/oracle.mjs" ] || xz -dc "$c/oracle.mjs.xz" > "$c/oracle.mjs"
  TIERLAB_VK_UPLOAD=staged $node "$c/oracle.mjs" --backend vulkan --devices 0 --lib "$lib/libtierlab_vulkan.so" \
    --report "$work/reports/vk-lanes-oracle" 2>&1 | tail -3 || status=1
fi
exit $status
