//! latency_hist.svg: each configuration's latency distribution (a panel each) at each load
//! below saturation (a curve each), from histogram.csv: the fraction of the measured messages
//! per cycle of latency, count / (messages · bin width), at each bin's middle, the seeds'
//! counts summed bin by bin.

use super::table::{open_table, table_error};
use super::{Area, Drawn, Look, Scale, Series, legend, legend_width};
use crate::error::Result;
use plotters::prelude::*;
use std::path::Path;

/// A panel's size in pixels.
const PANEL: (u32, u32) = (520, 400);

/// Panels per row at most.
const COLUMNS: usize = 3;

/// One point's bins: its configuration's coordinates, its rate and its (lo, hi, count) bins.
type Binned = (Vec<String>, f64, Vec<(u64, u64, u64)>);

/// One load's distribution: its offered flits, its (latency, fraction per cycle) points and
/// the upper end of the bin where 99% of its messages are reached.
struct Load {
    offered: f64,
    points: Vec<(f64, f64)>,
    p99: f64,
}

/// One configuration's distributions: its label and its loads below saturation.
pub(super) struct Distributions {
    label: String,
    loads: Vec<Load>,
}

/// The distributions of the curves `curves` of directory `dir` (its labels, offered loads and
/// saturation) from its histogram.csv; None when there is none.
pub(super) fn read(dir: &Path, curves: &super::DirCurves) -> Result<Option<Vec<Distributions>>> {
    let path = dir.join("histogram.csv");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let bad = |m: String| table_error(&path, m);
    let names = ["rate", "latency_lo", "latency_hi", "count"];
    let (mut r, [rate, lo, hi, count]) = open_table(&path, 1 << 32, names)?;
    // Per (configuration, rate): (lo, hi) → count, the seeds summed.
    let mut bins: Vec<Binned> = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| bad(e.to_string()))?;
        let coords: Vec<String> = (1..rate).map(|i| rec[i].to_string()).collect();
        let num = |i: usize| rec[i].parse::<u64>().map_err(|e| bad(e.to_string()));
        let x: f64 = rec[rate]
            .parse()
            .map_err(|_| bad("a rate is not a number".into()))?;
        let (l, h, c) = (num(lo)?, num(hi)?, num(count)?);
        let at = match bins.iter().position(|b| b.0 == coords && b.1 == x) {
            Some(i) => i,
            None => {
                bins.push((coords, x, Vec::new()));
                bins.len() - 1
            }
        };
        match bins[at].2.iter_mut().find(|b| (b.0, b.1) == (l, h)) {
            Some(b) => b.2 += c,
            None => bins[at].2.push((l, h, c)),
        }
    }
    let mut out: Vec<Distributions> = Vec::new();
    for (curve, coords) in curves.curves.iter().zip(curves.coordinates()) {
        let mut loads = Vec::new();
        for row in curve.rows.iter().filter(|r| !r.saturated) {
            let Some(b) = bins.iter().find(|b| &b.0 == coords && b.1 == row.rate) else {
                continue;
            };
            let mut bins = b.2.clone();
            bins.sort_unstable();
            let total = bins.iter().map(|x| x.2).sum::<u64>().max(1);
            let mut seen = 0;
            let p99 = bins
                .iter()
                .find(|x| {
                    seen += x.2;
                    seen * 100 >= total * 99
                })
                .map_or(0.0, |x| x.1 as f64);
            let points = bins
                .iter()
                .map(|&(l, h, c)| {
                    let width = (h + 1 - l) as f64;
                    ((l + h) as f64 / 2.0, c as f64 / (total as f64 * width))
                })
                .collect();
            loads.push(Load {
                offered: row.offered,
                points,
                p99,
            });
        }
        if !loads.is_empty() && !out.iter().any(|d| d.label == curve.label) {
            out.push(Distributions {
                label: curve.label.clone(),
                loads,
            });
        }
    }
    Ok(Some(out))
}

/// latency_hist.svg: a panel per configuration (titled by its label), a curve per load,
/// coloured by the load's place among all the loads, under one legend of the loads; each
/// panel's latency axis ends 10% past its loads' largest 99th percentile (the tails beyond
/// are in histogram.csv).
pub(super) fn draw(svg: &mut String, dists: &[Distributions], caption: &str) -> Drawn {
    let mut loads: Vec<f64> = dists
        .iter()
        .flat_map(|d| d.loads.iter().map(|l| l.offered))
        .collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let entries: Vec<Series> = loads
        .iter()
        .enumerate()
        .map(|(i, x)| Series {
            label: format!("{} flits/node/cycle", load_label(*x)),
            rows: &[],
            look: Look::nth(i),
        })
        .collect();
    let columns = dists.len().clamp(1, COLUMNS);
    let rows = dists.len().div_ceil(columns).max(1);
    let width = PANEL.0 * columns as u32;
    let size = (width + legend_width(&entries), 40 + PANEL.1 * rows as u32);
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE)?;
    let (main, legend_area) = root.split_horizontally(width);
    let (top, grid) = main.split_vertically(40);
    top.titled(caption, ("sans-serif", 22))?;
    for (d, cell) in dists.iter().zip(grid.split_evenly((rows, columns))) {
        let xmax = d.loads.iter().map(|l| l.p99).fold(0.0, f64::max) * 1.1;
        let ymax = d
            .loads
            .iter()
            .flat_map(|l| &l.points)
            .map(|p| p.1)
            .fold(0.0, f64::max)
            * 1.1;
        let area = Area {
            on: &cell,
            caption: &d.label,
            size: 18,
        };
        let scale = Scale::default();
        let descs = ("latency (cycles)", "fraction of messages per cycle");
        let mut chart = super::axes(
            area,
            descs,
            scale.x_range(xmax),
            (scale.y_range(&[], ymax), false),
        )?;
        for l in &d.loads {
            let i = loads.iter().position(|&x| x == l.offered).unwrap_or(0);
            let shown = l.points.iter().copied().filter(|p| p.0 <= xmax);
            chart.draw_series(LineSeries::new(shown, Look::nth(i).line()))?;
        }
    }
    legend(&legend_area, &entries)?;
    root.present()?;
    Ok(())
}

/// A load as the legend shows it: at most four decimals, without trailing zeros (0.0375, 0.1).
pub(super) fn load_label(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
