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

rows = []
for path in sorted(glob.glob("results/*/validation.csv")):
    d = os.path.dirname(path)
    v = list(csv.DictReader(open(path)))
    m = list(csv.DictReader(open(os.path.join(d, "model.csv"))))
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
    rows.append((os.path.basename(d), cells, sat, model_sat))

w = sys.stdout.write
w("| scenario | error at 25% | at 50% | at 75% | saturation λ: simulated / model (error) |\n")
w("|---|---|---|---|---|\n")
for name, cells, sat, model_sat in rows:
    err = 100 * (model_sat - sat) / sat
    w(f"| `{name}` | {cells[0]} | {cells[1]} | {cells[2]} | {sat:g} / {model_sat:.5g} ({err:+.0f}%) |\n")
