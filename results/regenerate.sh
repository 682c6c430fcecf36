#!/usr/bin/env bash
# Regenerates every results/<name>/ directory from scenarios/<name>.toml, with its plots; where
# an analytical model covers the scenario, `flitsim validate` runs it (the same simulation, plus
# model.csv, validation.csv and validation.svg); the paper002-* scenarios, which have channel-rate
# and mean-distance models but no latency model, also go through `flitsim validate`
# (validation_channels.csv, validation_distance.csv).
# Usage: bash results/regenerate.sh [SCENARIO_NAME...]   (default: every scenario except the
# memory check). Run from the repository root; about 10 minutes on two cores for all.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/flitsim
# `flitsim model` only answers whether a model covers the scenario; its model.csv goes to a
# directory of its own (one per scenario: a directory holds one experiment's results) under a
# temporary directory removed when the script exits (also when a command fails).
model_dir=$(mktemp -d -t flitsim-model.XXXXXX)
trap 'rm -rf "$model_dir"' EXIT
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
    "$bin" model "scenarios/$n.toml" --out "$model_dir/$n" > /dev/null 2>&1; then
    "$bin" validate "scenarios/$n.toml" --out "results/$n" --quiet --fresh --replace
  else
    "$bin" run "scenarios/$n.toml" --out "results/$n" --quiet --fresh --replace
  fi
  "$bin" plot "results/$n" > /dev/null
  # The dragonfly's routings under each pattern: a panel per pattern.
  if [ "$n" = dragonfly-1k ]; then
    "$bin" plot results/dragonfly-1k --panels traffic.pattern > /dev/null
  fi
  # The report page (docs/src/report.md) of the routing study and of one paper reproduction.
  if [ "$n" = study-torus-8x8-routing ] || [ "$n" = paper000-torus8-m32-v3 ]; then
    "$bin" report "results/$n" > /dev/null
  fi
  echo "$n: $(( $(date +%s) - start )) s"
done

# Paper 004: the overlay plots of Figs. 10-11 (topology and routing), one series per scenario,
# are redrawn whenever one of the scenarios they overlay was regenerated (Figs. 8-9 are one
# scenario, paper004-fig8-9, sweeping the buffers per set: its own plots have one curve per B).
p004_fig10_11=(paper004-mesh-dor paper004-mesh-adaptive paper004-torus-dor-ring
  paper004-torus-adaptive-ring paper004-hypercube-dor paper004-hypercube-adaptive)
regenerated() {
  local n
  for n in "${names[@]}"; do [ "$n" = "$1" ] && return 0; done
  return 1
}
p004_overlay() { # OUT SCENARIO...
  local out=$1 redo=0 n dirs=()
  shift
  for n in "$@"; do
    regenerated "$n" && redo=1
    dirs+=("results/$n")
  done
  if [ $redo = 1 ]; then
    "$bin" plot "${dirs[@]}" --out "results/$out" > /dev/null
    echo "$out: overlay plots"
  fi
}
p004_overlay paper004-fig10-11 "${p004_fig10_11[@]}"

# Saturation throughput by bisection (`flitsim saturation`) of the scenarios whose figures the
# README cites: the torus conventions and the crossbars, into results/<name>-saturation/.
for n in torus-8x8-bi-conventions crossbar-8x8; do
  if regenerated "$n"; then
    start=$(date +%s)
    "$bin" saturation "scenarios/$n.toml" --out "results/$n-saturation" --quiet --fresh --replace > /dev/null
    echo "$n-saturation: $(( $(date +%s) - start )) s"
  fi
done

# Paper 004 Fig. 3: the built networks' properties (flitsim info), a few seconds.
bash results/paper004_fig3.sh > /dev/null
echo "paper004-fig3: properties.csv"
