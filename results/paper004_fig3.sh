#!/usr/bin/env bash
# Paper 004 Fig. 3: the properties of the networks flitsim builds, from `flitsim info --csv`,
# one row per scenario, into results/paper004-fig3/properties.csv.
# Usage: bash results/paper004_fig3.sh   (from the repository root; a few seconds)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/flitsim
out=results/paper004-fig3
mkdir -p "$out"
# The table is written to a temporary file and renamed when complete; the temporary file is
# removed if the script stops before that.
trap 'rm -f "$out/properties.csv.tmp"' EXIT
keys=(topology radix processors_on m processors routers channels degree diameter mean_distance)
{
  (IFS=,; echo "scenario,${keys[*]}")
  for n in paper004-fig8-9 paper004-fig3-torus-routers paper004-mesh-dor \
           paper004-fig3-mesh-routers paper004-hypercube-dor paper004-fig3-torus5-channels \
           paper004-fig3-torus5-routers torus-8x8x8-bi-dor paper004-fig3-kary-mesh; do
    info=$("$bin" info "scenarios/$n.toml" --csv)
    row="$n"
    for k in "${keys[@]}"; do
      v=$(printf '%s\n' "$info" | awk -F, -v k="$k" '$1 == k { print $2 }')
      row="$row,${v:--}"
    done
    echo "$row"
  done
} > "$out/properties.csv.tmp"
mv "$out/properties.csv.tmp" "$out/properties.csv"
cat "$out/properties.csv"
