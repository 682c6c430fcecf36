#!/usr/bin/env python3
"""Prints the model-vs-simulation tables of results/README.md from the validation.csv and
model.csv files that `flitsim validate` wrote (run from the repository root).

For each directory: the simulated saturation load is the highest load whose point is not
marked saturated; at the grid loads nearest 25%, 50% and 75% of it, the relative error
(model - simulation) / simulation of the mean latency (blank where the simulated point is not
shown, i.e. its standard error is not under 5% of its mean, or the model is saturated); and the
model's saturation load with its error against the simulated one."""
import csv
import glob
import os
import sys

SHORT = {"router.vcs": "V", "traffic.message_length": "M", "router.buffer_depth": "depth",
         "traffic.pattern_fraction": "x", "traffic.hotspot_fraction": "h", "routing.timeout": "τ"}


def configurations(table):
    """Rows grouped by the experiment's coordinates (the columns before `rate`), in order."""
    keys = list(table[0].keys())
    lead = keys[1:keys.index("rate")]
    groups = {}
    for r in table:
        groups.setdefault(tuple(r[k] for k in lead), []).append(r)
    return lead, groups


def label(lead, values):
    """A configuration as flitsim plot labels it: `M=20`, `τ=4`, bare strings."""
    parts = []
    for k, v in zip(lead, values):
        parts.append(f"{SHORT[k]}={v}" if k in SHORT else v)
    return " (" + ", ".join(parts) + ")" if parts else ""


rows = []
for path in sorted(glob.glob("results/*/validation.csv")):
    d = os.path.dirname(path)
    lead, sims = configurations(list(csv.DictReader(open(path))))
    _, models = configurations(list(csv.DictReader(open(os.path.join(d, "model.csv")))))
    for values, v in sims.items():
        m = models[values]
        stable = [float(r["rate"]) for r in v if r["sim_saturated"] == "false"]
        if not stable:
            continue
        sat = max(stable)
        cells = []
        for frac in (0.25, 0.5, 0.75):
            r = min(v, key=lambda r: abs(float(r["rate"]) - frac * sat))
            e = float(r["rel_error"])
            cells.append("" if e != e else f"{100 * e:+.1f}% (λ = {float(r['rate']):g})")
        model_sat = float(m[0]["model_saturation_rate"])
        rows.append((f"`{os.path.basename(d)}`{label(lead, values)}", cells, sat, model_sat))

w = sys.stdout.write
w("| scenario | error at 25% | at 50% | at 75% | saturation λ: simulated / model (error) |\n")
w("|---|---|---|---|---|\n")
for name, cells, sat, model_sat in rows:
    err = 100 * (model_sat - sat) / sat
    w(f"| {name} | {cells[0]} | {cells[1]} | {cells[2]} | {sat:g} / {model_sat:.5g} ({err:+.0f}%) |\n")
