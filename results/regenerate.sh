#!/usr/bin/env bash
# Regenerates every results/<name>/ directory from scenarios/<name>.toml, with its plots; where
# an analytical model covers the scenario, `flitsim validate` runs it (the same simulation, plus
# model.csv, validation.csv and validation.svg); the paper002-* scenarios, which have channel-rate
# and mean-distance models but no latency model, also go through `flitsim validate`
# (validation_channels.csv, validation_distance.csv).
# Usage: bash results/regenerate.sh [SCENARIO_NAME...]   (default: every scenario except the
# memory check). Run from the repository root; about 15 minutes on two cores for all.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/flitsim
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in scenarios/*.toml; do
    n=$(basename "$f" .toml)
    [ "$n" = torus-64x64x64-memory ] || names+=("$n")
  done
fi
for n in "${names[@]}"; do
  start=$(date +%s)
  if [[ $n == paper002-* ]] ||
    "$bin" model "scenarios/$n.toml" --out "/tmp/flitsim-model-$$" > /dev/null 2>&1; then
    "$bin" validate "scenarios/$n.toml" --out "results/$n" --quiet
  else
    "$bin" run "scenarios/$n.toml" --out "results/$n" --quiet
  fi
  "$bin" plot "results/$n" > /dev/null
  echo "$n: $(( $(date +%s) - start )) s"
done
