#!/usr/bin/env bash
# Packs what the GPU machine needs into .carry/gpu (git-ignored), on this machine:
#  - Node itself (the GPU machine has none), xz-compressed;
#  - koffi and its prebuilt linux-x64 build;
#  - the oracle, the benchmark, the native-defects kill table and the fixture generator
#    bundled into single files (esbuild);
#  - every native defect's CUDA and Vulkan library, and the unpatched control, built in
#    scratch copies (npm run native-defects -- --build-into), since nothing is built there;
#  - the native libraries (CPU, CUDA for sm_90 with a static runtime, Vulkan), the CUDA
#    self-test, the same self-test against the Vulkan library, the C upload benches
#    (CUDA, Vulkan, CPU), the raw host-to-device probe and the piece probe (copies of one
#    tensor's size);
#  - the C tier's engine check (native/tier/check/) against the CPU, CUDA and Vulkan
#    libraries, with the tier libraries it links (lib/tier/, rpath $ORIGIN/..);
#  - the Vulkan loader and the libglvnd libraries the NVIDIA driver needs.
# Then one device call runs scripts/gpu/remote.sh there (scripts/gpu/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.carry/gpu
rm -rf "$out"
mkdir -p "$out/lib" "$out/node_modules/@koromix" "$out/vk"

node scripts/setup.mjs --native
make -s -C native cpu cuda cuda-selftest vulkan build/vulkan_selftest \
  build/bench_upload_cpu build/bench_upload_cuda build/bench_upload_vulkan \
  build/tier/tier_engine_check_cpu build/tier/tier_engine_check_cuda build/tier/tier_engine_check_vulkan
nvcc -O2 -arch=sm_90 -cudart static -o native/build/cuda_h2d_probe native/tests/cuda_h2d_probe.cu
nvcc -O2 -arch=sm_90 -cudart static -o native/build/cuda_piece_probe native/tests/cuda_piece_probe.cu
for f in libtierlab_cpu.so libtierlab_cuda.so libtierlab_vulkan.so cuda_selftest vulkan_selftest \
         bench_upload_cpu bench_upload_cuda bench_upload_vulkan cuda_h2d_probe cuda_piece_probe; do
  cp "native/build/$f" "$out/lib/"
done
mkdir -p "$out/lib/tier"
for b in cpu cuda vulkan; do
  cp "native/build/libtierlab_ctier_$b.so" "$out/lib/"
  cp "native/build/tier/tier_engine_check_$b" "$out/lib/tier/"
done

cp -r node_modules/koffi "$out/node_modules/"
cp -r node_modules/@koromix/koffi-linux-x64 "$out/node_modules/@koromix/"
# koffi is loaded with require(), and bundled CommonJS (the TypeScript compiler, which the
# search's instrumented frames use) reads __filename; the aliases keep clear of sources
# that import createRequire or fileURLToPath themselves
banner="import { createRequire as bundleRequire } from 'node:module'; import { fileURLToPath as bundlePath } from 'node:url'; const require = bundleRequire(import.meta.url); const __filename = bundlePath(import.meta.url); const __dirname = bundlePath(new URL('.', import.meta.url));"
for entry in apps/cli/bin/oracle.ts apps/cli/bin/bench.ts apps/cli/bin/native_defects.ts fixtures/generate.ts; do
  npx esbuild "$entry" --bundle --platform=node --format=esm --target=node20 --external:koffi \
    --banner:js="$banner" --log-level=warning --outfile="$out/$(basename "$entry" .ts).mjs"
done

npx tsx apps/cli/bin/native_defects.ts --backend cuda,vulkan --build-into "$out/defects"
# the bundles compress about 7x, and a device call carries at most 64 MiB in all
xz -T2 -6 -f "$out"/*.mjs

[ -f "$out/node.xz" ] || xz -T2 -6 -c "$(command -v node)" > "$out/node.xz"

# the Vulkan loader and libglvnd, as this machine's packages have them
for lib in libvulkan.so.1 libGLdispatch.so.0 libGLX.so.0 libEGL.so.1 libGL.so.1 libGLESv2.so.2 libOpenGL.so.0; do
  src=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ { print $NF; exit }')
  [ -n "$src" ] && cp -L "$src" "$out/vk/"
done
git rev-parse --short HEAD > "$out/commit.txt"
du -sh "$out"
