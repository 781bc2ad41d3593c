# Sourced by remote.sh and remote_fill.sh on the GPU machine, from the repository root:
# where the carried files are and the results go, the log and `say`, Node and the
# bundles unpacked (BEFORE's too, when set), the loader path of the carried Vulkan loader.
c=.carry/gpu
out=${OUT:-/tmp/tierlab-gpu-out}
work=/tmp/tl
mkdir -p "$out" "$work/reports"
log="$out/log.txt"
: > "$log"
say() { printf '%s\n' "$*" | tee -a "$log"; }
node=$(command -v node || true)
if [ -f "$c/node.xz" ]; then
  xz -dc "$c/node.xz" > "$work/node" && chmod +x "$work/node" && node=$work/node
fi
for z in "$c"/*.mjs.xz ${BEFORE:+"$BEFORE"/*.mjs.xz}; do xz -dc "$z" > "${z%.xz}"; done
export LD_LIBRARY_PATH="$PWD/$c/vk:${LD_LIBRARY_PATH:-}"
lib=$c/lib
status=0
