#!/usr/bin/env python3
"""Prints the paper 002 model-vs-simulation tables of results/README.md from the
validation_distance.csv, validation_channels.csv and channels.csv files that `flitsim validate`
wrote into results/paper002-*/ (run from the repository root).

Mean distance: the simulated hops_mean with its standard error against the model (paper 002's
closed forms as corrected in src/model/channel_traffic.rs, equal to exact enumeration), and
against the printed eqs. 9-10 (pure bit-reversal) and 11/17 (mixtures, x·d_pattern + (1 − x)·d_u).
Channel rates: the simulated messages per cycle of every link against the model column (exact
enumeration for e-cube, the re-derived eqs. 20-21 for p-cube); z = (sim − model) / sqrt(model/T)
is the error in units of the counting noise of a Poisson stream over the T-cycle window (mean |z|
is about 0.80 and its variance 1 when the errors are that noise alone). By class: the hotspot's links grouped by
their distance j from the hot node (eq. 6, a class average), p-cube's by direction and source
weight (eqs. 20-21)."""
import csv
import glob
import math
import os
import sys
import tomllib
from collections import defaultdict

w = sys.stdout.write


def rows(d, f):
    return list(csv.DictReader(open(os.path.join(d, f))))


def binom(n, k):
    return math.comb(n, k) if 0 <= k <= n else 0


def printed_eq10(n):
    """Mean of the printed eq. 9, C(⌊n/2⌋, i/2)/2^(⌊n/2⌋ − n mod 2) over even i ≥ 2."""
    h = n // 2
    return sum(2 * j * binom(h, j) for j in range(1, h + 1)) / 2 ** (h - n % 2)


dirs = sorted(glob.glob("results/paper002-*/validation_distance.csv"))
order = {"hypercube10": 0, "hotspot": 1, "bitrev": 2, "transpose": 3}


def key(path):
    name = os.path.basename(os.path.dirname(path))
    kind = name.split("-")[1]
    n = int(name.rsplit("n", 1)[1]) if kind in ("bitrev", "transpose") else 10
    return (order[kind], n, name)


dirs.sort(key=key)

w("Mean distance (hops):\n\n")
w("| scenario | variants | model / simulated ± s.e. at x = 0 | at x = 1 (hotspot: h = 1) | max rel. error (max \\|z\\|) | printed eqs. 11/17: max rel. error (max \\|z\\|) | printed eq. 10 at x = 1 (rel. error) |\n")
w("|---|---|---|---|---|---|---|\n")
for path in dirs:
    d = os.path.dirname(path)
    name = os.path.basename(d)
    v = rows(d, "validation_distance.csv")
    scen = tomllib.load(open(os.path.join(d, "scenario.toml"), "rb"))
    n = scen["topology"]["n"]
    hotspot = scen["traffic"]["pattern"] == "hotspot"
    var = "h" if hotspot else "x"
    frac = lambda r: float(r.get("traffic.hotspot_fraction", "") if hotspot else r.get("traffic.pattern_fraction", "1"))
    cell = {}
    errs, zs, perr, pz = [], [], [], []
    by = {frac(r): r for r in v}
    for r in v:
        sim, se, model = float(r["hops_mean"]), float(r["hops_std_error"]), float(r["model_hops_mean"])
        errs.append(abs(float(r["rel_error"])))
        zs.append(abs(model - sim) / se)
        cell[frac(r)] = f"{model:.4f} / {sim:.4f} ± {se:.4f} ({100 * (model - sim) / sim:+.2f}%)"
    mixture = not hotspot and 0.0 in by and 1.0 in by and len(by) > 2
    if mixture:
        du, dp = float(by[0.0]["model_hops_mean"]), float(by[1.0]["model_hops_mean"])
        for x, r in by.items():
            if 0 < x < 1:
                sim, se = float(r["hops_mean"]), float(r["hops_std_error"])
                p = x * dp + (1 - x) * du
                perr.append(abs(p - sim) / sim)
                pz.append(abs(p - sim) / se)
    variants = ", ".join(f"{x:g}" for x in sorted(by)) if len(by) > 1 else "—"
    if len(by) > 1:
        variants = f"{var} = {variants}"
    c0 = cell.get(0.0, "") if not hotspot else ""
    c1 = cell.get(1.0, "")
    printed = f"{100 * max(perr):.2f}% ({max(pz):.1f})" if perr else ""
    eq10 = ""
    if "bitrev" in name:
        sim = float(by[1.0]["hops_mean"])
        p = printed_eq10(n)
        eq10 = f"{p:.4f} ({100 * (p - sim) / sim:+.1f}%)"
    w(f"| `{name}` | {variants} | {c0} | {c1} | {100 * max(errs):.2f}% ({max(zs):.1f}) | {printed} | {eq10} |\n")

w("\nChannel rates (messages/cycle on each link):\n\n")
w("| scenario | links × variants | model | mean \\|rel. error\\| | max \\|rel. error\\| | mean \\|z\\| | variance of z | max \\|z\\| |\n")
w("|---|---|---|---|---|---|---|---|\n")
classes = {}
for path in dirs:
    d = os.path.dirname(path)
    name = os.path.basename(d)
    vc, ch = rows(d, "validation_channels.csv"), rows(d, "channels.csv")
    assert len(vc) == len(ch)
    scen = tomllib.load(open(os.path.join(d, "scenario.toml"), "rb"))
    t = scen["run"]["measure_cycles"]
    assert all(r["stop"] == "drained" and r["saturated"] == "false" for r in rows(d, "summary.csv"))
    errs, zs, zero = [], [], 0
    groups = defaultdict(lambda: [0.0, 0.0, 0])
    for a, b in zip(vc, ch):
        assert (a["rate"], a["channel"], a.get("traffic.pattern_fraction", "1"), a.get("traffic.hotspot_fraction", "")) == (
            b["rate"], b["channel"], b.get("traffic.pattern_fraction", "1"), b.get("traffic.hotspot_fraction", ""))
        sim, model = float(a["messages_per_cycle"]), float(a["model_messages_per_cycle"])
        if "hotspot" in name:
            k = (float(a.get("traffic.hotspot_fraction", "")), int(b["hotspot_distance"]), b["toward_hotspot"])
        else:
            k = (b["bit_dir"], int(b["src_weight"]))
        g = groups[k]
        g[0] += sim
        g[1] += model
        g[2] += 1
        if model == 0:
            assert sim == 0, (name, a)
            zero += 1
            continue
        errs.append(abs(sim - model) / model)
        zs.append((sim - model) / math.sqrt(model / t))
    classes[name] = (groups, t, float(vc[0]["rate"]), scen["topology"]["n"])
    src = "eqs. 20-21 (re-derived)" if "pcube" in name else "enumeration"
    note = f" ({zero} links with model rate 0: simulated 0)" if zero else ""
    w(f"| `{name}` | {len(vc)}{note} | {src} | {100 * sum(errs) / len(errs):.1f}% | {100 * max(errs):.1f}% | {sum(map(abs, zs)) / len(zs):.2f} | {sum(z * z for z in zs) / len(zs):.2f} | {max(map(abs, zs)):.1f} |\n")


def uniform_channel(n, lam):
    return lam * n * 2 ** (n - 1) / (2 ** n - 1) / n


def eq6(n, j, lam, h):
    far = 2 ** n - sum(binom(n, k) for k in range(j))
    return (1 - h) * uniform_channel(n, lam) + lam * h * far / ((n - j + 1) * binom(n, j - 1))


groups, t, lam, n = classes["paper002-hotspot-n10"]
w("\nHotspot (Fig. 2), class means by the distance j of the link's source from the hot node, links toward it; eq. 6 (its class average), simulated, relative error:\n\n")
hs = sorted({k[0] for k in groups})
w("| j | links | " + " | ".join(f"h = {h:g}" for h in hs) + " |\n")
w("|---|---|" + "---|" * len(hs) + "\n")
for j in range(1, n + 1):
    cells = []
    for h in hs:
        sim, model, c = groups[(h, j, "true")]
        e6 = eq6(n, j, lam, h)
        assert abs(model / c - e6) < 1e-12 * e6, (h, j)
        cells.append(f"{e6:.3g} / {sim / c:.3g} ({100 * (sim / c - e6) / e6:+.1f}%)")
    w(f"| {j} | {c} | " + " | ".join(cells) + " |\n")
cells = []
for h in hs:
    sim = sum(g[0] for k, g in groups.items() if k[0] == h and k[2] == "false")
    c = sum(g[2] for k, g in groups.items() if k[0] == h and k[2] == "false")
    away = (1 - h) * uniform_channel(n, lam)
    cells.append(f"{away:.3g} / {sim / c:.3g} ({100 * (sim / c - away) / away:+.1f}%)" if away else f"0 / {sim / c:.3g}")
w(f"| away | {c} | " + " | ".join(cells) + " |\n")

groups, t, lam, n = classes["paper002-hypercube10-pcube"]
w("\np-cube (Fig. 5), class means by direction and source weight w; eqs. 20-21 (re-derived), simulated, relative error, z of the class mean:\n\n")
w("| w | 0->1 links | model / simulated (error, z) | 1->0 links | model / simulated (error, z) |\n")
w("|---|---|---|---|---|\n")
for wt in range(0, n + 1):
    cells = []
    for dirn in ("0->1", "1->0"):
        if (dirn, wt) not in groups:
            cells += ["0", "—"]
            continue
        sim, model, c = groups[(dirn, wt)]
        s, m = sim / c, model / c
        z = (s - m) / math.sqrt(m / (t * c))
        cells += [str(c), f"{m:.4g} / {s:.4g} ({100 * (s - m) / m:+.1f}%, {z:+.1f})"]
    w(f"| {wt} | " + " | ".join(cells) + " |\n")
