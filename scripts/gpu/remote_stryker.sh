#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .carry/stryker carried along
# (scripts/gpu/pack_stryker.sh made it): Stryker over each config named, one after the
# other, with every core but one, each under a wall-clock limit (a safety net: a run cut
# short reports nothing), and the JSON and HTML reports and the clear-text tables in $OUT.
#   bash scripts/gpu/remote_stryker.sh LIMIT_S CONFIG...
# e.g. bash scripts/gpu/remote_stryker.sh 280 mutants/stryker/protocol_ref.stryker.config.json stryker.config.json
set -uo pipefail
c=.carry/stryker
out=${OUT:-/tmp/tierlab-stryker-out}
limit=$1
shift
mkdir -p "$out" /tmp/tl-node
xz -dc "$c/node.xz" > /tmp/tl-node/node && chmod +x /tmp/tl-node/node
export PATH=/tmp/tl-node:$PATH
tar -xJf "$c/node_modules.tar.xz"
jobs=$(($(nproc) - 1))
status=0
for config in "$@"; do
  name=$(basename "$config" .json)
  echo "== $(date -u +%FT%TZ) $config, commit $(cat "$c/commit.txt"), concurrency $jobs"
  timeout "$limit" node node_modules/@stryker-mutator/core/bin/stryker.js run "$config" --concurrency "$jobs" \
    > "$out/$name.log" 2>&1 || status=1
  grep -v "Mutation testing [0-9]*%" "$out/$name.log" | tail -60
  cp -r reports/stryker "$out/$name-reports" 2>/dev/null
done
exit $status
