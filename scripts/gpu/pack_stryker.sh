#!/usr/bin/env bash
# Packs what Stryker needs on the GPU machine's CPUs into .carry/stryker (git-ignored):
# Node itself (that machine has none) and node_modules without the linter and the browser
# driver, xz-compressed. The sources travel as the working tree. Then one device call runs
# scripts/gpu/remote_stryker.sh there. Why: a Stryker run over the tier or the reference
# takes one to two hours on 2 shared cores and minutes on 16 idle ones.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.carry/stryker
rm -rf "$out"
mkdir -p "$out"
[ -d node_modules/@stryker-mutator/core ] || npm ci --no-audit --no-fund
tar -cf - --exclude=node_modules/@biomejs --exclude=node_modules/playwright-core --exclude=node_modules/.cache \
  node_modules | xz -T2 -6 > "$out/node_modules.tar.xz"
if [ -f .carry/gpu/node.xz ]; then cp .carry/gpu/node.xz "$out/"; else xz -T2 -6 -c "$(command -v node)" > "$out/node.xz"; fi
git rev-parse --short HEAD > "$out/commit.txt"
du -sh "$out"
