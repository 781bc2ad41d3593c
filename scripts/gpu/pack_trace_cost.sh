#!/usr/bin/env bash
# Packs what the logging-cost run needs on the GPU machine into .carry/trace (git-ignored):
# Node itself (that machine has none), check-trace bundled into one file (esbuild), and for
# each backend built here (CPU always, CUDA when nvcc is installed) the tier library, its
# engine library and tier_decode_rate (native/tier/check/tier_decode_rate.c).
# Then one device call runs scripts/gpu/remote_trace_cost.sh there (scripts/gpu/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.carry/trace
rm -rf "$out"
mkdir -p "$out/lib/tier"
node scripts/setup.mjs --native
backends=cpu
command -v nvcc > /dev/null && backends="cpu cuda"
for b in $backends; do
  make -s -C native "build/libtierlab_$b.so" "build/libtierlab_ctier_$b.so" "build/tier/tier_decode_rate_$b"
  # the program finds its libraries one folder up ($ORIGIN/..), as in native/build
  cp "native/build/libtierlab_$b.so" "native/build/libtierlab_ctier_$b.so" "$out/lib/"
  cp "native/build/tier/tier_decode_rate_$b" "$out/lib/tier/"
done
npx esbuild apps/cli/bin/check_trace.ts --bundle --platform=node --format=esm --target=node20 \
  --log-level=warning --outfile="$out/check_trace.mjs"
xz -T2 -6 -c "$(command -v node)" > "$out/node.xz"
git rev-parse --short HEAD > "$out/commit.txt"
du -sh "$out"
