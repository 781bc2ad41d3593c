#!/usr/bin/env bash
# Packs what the search bench needs on the GPU machine's CPUs into .carry/search
# (git-ignored): Node itself (that machine has none) and the few packages the search
# loads at run time (tsx and esbuild to load the TypeScript sources, the TypeScript
# compiler for the instrumented thread frames, fast-check, seedrandom, and koffi, which the bench
# loads for its upload section), xz-compressed.
# The sources travel as the working tree. Then one device call runs
# scripts/gpu/remote_search.sh there. Why: that machine has 16 idle cores, where this one
# has 2 shared ones, so "two jobs on two cores" can be measured on two cores that nothing
# else uses (scripts/gpu/README.md; model/explore/README.md says what the rows mean).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.carry/search
rm -rf "$out"
mkdir -p "$out"
[ -d node_modules/tsx ] || npm ci --no-audit --no-fund
tar -cJf "$out/node_modules.tar.xz" node_modules/tsx node_modules/esbuild node_modules/@esbuild \
  node_modules/typescript node_modules/fast-check node_modules/pure-rand node_modules/seedrandom \
  node_modules/koffi node_modules/@koromix/koffi-linux-x64
xz -T2 -6 -c "$(command -v node)" > "$out/node.xz"
git rev-parse --short HEAD > "$out/commit.txt"
du -sh "$out"
