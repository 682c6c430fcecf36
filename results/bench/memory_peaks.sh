#!/usr/bin/env bash
# Regenerates results/bench/memory_peaks.csv: for each network below, a one-point scenario
# (uniform traffic at 0.002 flits/node/cycle, 16-flit messages, 8-flit buffers, 500 warm-up and
# 1,000 measured cycles; the memory scenario as it is) run whole with `flitsim run --threads 1`,
# beside the estimates `flitsim check` prints for such a run:
#   measured_peak_kib     peak resident set (GNU time's %M)
#   estimate_kib          check's "memory: about X per point"
#   measured_vm_peak_kib  peak address space (VmPeak, read as the process exits by a preloaded
#                         library built here with cc)
#   vm_estimate_kib       check's "about Y of address space"
# Estimates are read as check prints them (three significant digits).
#
# Run from the repository's top, after `cargo build --release`:
#   results/bench/memory_peaks.sh > results/bench/memory_peaks.csv
set -euo pipefail -f
bin=${FLITSIM:-target/release/flitsim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/vmpeak.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__attribute__((destructor)) static void report(void) {
    const char *to = getenv("VMPEAK_TO");
    FILE *in = fopen("/proc/self/status", "r"), *out = to ? fopen(to, "w") : NULL;
    char line[256];
    while (in && out && fgets(line, sizeof line, in))
        if (!strncmp(line, "VmPeak:", 7)) fputs(line, out);
    if (in) fclose(in);
    if (out) fclose(out);
}
EOF
cc -O2 -shared -fPIC -o "$work/vmpeak.so" "$work/vmpeak.c"

machine="$(nproc)-vCPU $(uname -m) $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
commit=$(git rev-parse --short HEAD)
date=$(date -u +%Y-%m-%d)

# label | [topology] lines, ';' between them | vcs | routing | --set options (or none)
networks='4-ary 3-cube|kind = "torus";k = 4;n = 3;links = "bidirectional"|2|dor|
8x8x4x4 torus|kind = "torus";k = [8, 8, 4, 4];n = 4;links = "bidirectional"|2|dor|
16x16x8x8 torus|kind = "torus";k = [16, 16, 8, 8];n = 4;links = "bidirectional"|2|dor|
32x32x16x16 torus|kind = "torus";k = [32, 32, 16, 16];n = 4;links = "bidirectional"|2|dor|
32-ary 4-cube|kind = "torus";k = 32;n = 4;links = "bidirectional"|2|dor|
64-ary 3-cube V=8|kind = "torus";k = 64;n = 3;links = "bidirectional"|8|dor|
64-ary 3-cube V=16|kind = "torus";k = 64;n = 3;links = "bidirectional"|16|dor|
64-ary 3-cube unidirectional V=2|kind = "torus";k = 64;n = 3;links = "unidirectional"|2|dor|
64-ary 3-cube unidirectional V=8|kind = "torus";k = 64;n = 3;links = "unidirectional"|8|dor|
8x8 mesh V=1|kind = "mesh";k = 8;n = 2|1|dor|
512x512 mesh|kind = "mesh";k = 512;n = 2|2|dor|
64x64x64 mesh V=4|kind = "mesh";k = 64;n = 3|4|dor|
10-cube|kind = "hypercube";n = 10|2|dor|
18-cube|kind = "hypercube";n = 18|2|dor|
20-cube|kind = "hypercube";n = 20|2|dor|
8x8 HyperX|kind = "hyperx";k = 8;n = 2|2|dor|
64x64 HyperX|kind = "hyperx";k = 64;n = 2|2|dor|
8-ary 6-D HyperX|kind = "hyperx";k = 8;n = 6|2|dor|
8-ary 3-way mesh|kind = "mway";k = 8;n = 3;wrap = "mesh";processors = "routers"|2|dor|
64-ary 3-way torus (channels)|kind = "mway";k = 64;n = 3;wrap = "torus";processors = "channels";processor_factor = 1|2|dor-ring|
64-ary 3-way torus (routers)|kind = "mway";k = 64;n = 3;wrap = "torus";processors = "routers"|2|dor-ring|
64-ary 3-way mesh|kind = "mway";k = 64;n = 3;wrap = "mesh";processors = "routers"|2|dor|
18-cube split 4|kind = "hypercube";n = 18|2|dor|--set run.threads_per_point=4
64-ary 3-cube V=8 split 8|kind = "torus";k = 64;n = 3;links = "bidirectional"|8|dor|--set run.threads_per_point=8
32x32x16x16 torus split 16|kind = "torus";k = [32, 32, 16, 16];n = 4;links = "bidirectional"|2|dor|--set run.threads_per_point=16
64-ary 3-cube duato V=3|kind = "torus";k = 64;n = 3;links = "bidirectional"|3|duato|
64-ary 3-cube adaptive-ring V=4|kind = "torus";k = 64;n = 3;links = "bidirectional"|4|adaptive-ring|
64-ary 3-cube per-port crossbar|kind = "torus";k = 64;n = 3;links = "bidirectional"|2|dor|--set router.crossbar="per-port"
64-ary 3-cube permutation at 0.02|kind = "torus";k = 64;n = 3;links = "bidirectional"|2|dor|--set traffic.pattern="permutation" --set traffic.flit_rates=[0.02]
18-cube pcube|kind = "hypercube";n = 18|2|pcube|
64x64x64 mesh adaptive|kind = "mesh";k = 64;n = 3|2|adaptive|
64-ary 3-way torus (4 processors a channel)|kind = "mway";k = 64;n = 3;wrap = "torus";processors = "channels";processor_factor = 4|2|dor-ring|'

# The figure (KiB) before `unit_then` in check's output.
figure() {
    sed -n "s/.*[ (]\([0-9.]*\) \([MG]iB\)$1.*/\1 \2/p" | head -1 |
        awk '{ printf "%.0f", $1 * ($2 == "GiB" ? 1048576 : 1024) }'
}

# measure LABEL SCENARIO [--set KEY=VALUE]: one CSV row.
measure() {
    local label=$1 file=$2
    shift 2
    local check nodes vcs est vm_est rss vm
    check=$("$bin" check "$file" "$@")
    nodes=$(sed -n 's/.*memory: about .* (\([0-9]*\) nodes.*/\1/p' <<<"$check")
    vcs=$(sed -n "s/.*router: \([0-9]*\) virtual channel.*/\1/p; s/.*router: buffer sets of \([0-9]*\) buffers.*/\1/p" <<<"$check")
    est=$(figure ' per point' <<<"$check")
    vm_est=$(figure ' of address space' <<<"$check")
    rss=$(VMPEAK_TO="$work/vm" /usr/bin/time -f %M -o "$work/rss" \
        env LD_PRELOAD="$work/vmpeak.so" "$bin" run "$file" "$@" --threads 1 --quiet \
        --fresh --out "$work/out" >/dev/null && tail -1 "$work/rss")
    vm=$(awk '{ print $2 }' "$work/vm")
    rm -rf "$work/out"
    echo "$machine,$commit,$date,$label,$nodes,$vcs,1,$rss,$est,$(
        awk -v a="$est" -v b="$rss" 'BEGIN { printf "%.3f", a / b }'),$vm,$vm_est,$(
        awk -v a="$vm_est" -v b="$vm" 'BEGIN { printf "%.3f", a / b }')"
}

echo "machine,commit,date,network,nodes,vcs,threads,measured_peak_kib,estimate_kib,ratio,measured_vm_peak_kib,vm_estimate_kib,vm_ratio"
while IFS='|' read -r label topology vcs routing options; do
    file="$work/scenario.toml"
    printf 'name = "peak"\nseed = 1\n[topology]\n%s\n[router]\nvcs = %s\nbuffer_depth = 8\n[routing]\nalgorithm = "%s"\n[traffic]\npattern = "uniform"\nmessage_length = 16\nflit_rates = [0.002]\n[run]\nwarmup_cycles = 500\nmeasure_cycles = 1000\n' \
        "${topology//;/$'\n'}" "$vcs" "$routing" >"$file"
    # shellcheck disable=SC2086 # the options are words without spaces
    measure "$label" "$file" $options
done <<<"$networks"
measure "memory scenario (64-ary 3-cube)" scenarios/torus-64x64x64-memory.toml
