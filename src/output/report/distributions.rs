//! The latency distribution (histogram.csv) of each configuration at a chosen offered load
//! below saturation: the histogram (fraction of the messages per cycle of latency) and the
//! cumulative distribution, the mean and the 50th, 95th and 99th percentiles marked. The
//! seeds' bins are merged (a seed's bin counted in the bin of the widest width that holds its
//! low end); a percentile is the upper end of the bin where its fraction of the messages is
//! reached, and the mean is taken at the bins' middles, both exact for bins one cycle wide.

use super::svg::{Axis, Plot, sig4};
use super::tables::Csv;
use super::{Dir, Section, esc};
use crate::error::Result;
use crate::output::num;

/// A plot's size in pixels.
const SIZE: (f64, f64) = (380.0, 250.0);

/// One configuration's distribution at one load: merged (lo, hi, count) bins in order.
pub struct Dist {
    /// The bins: lowest and highest latency (cycles, inclusive) and the messages.
    pub bins: Vec<(u64, u64, u64)>,
}

impl Dist {
    /// Merges a point's seeds' bins (lo, hi, count) into bins of the widest width.
    pub fn merge(rows: &[(u64, u64, u64)]) -> Dist {
        let w = rows.iter().map(|b| b.1 + 1 - b.0).max().unwrap_or(1).max(1);
        let mut bins: Vec<(u64, u64, u64)> = Vec::new();
        for &(lo, _, c) in rows {
            let at = lo / w * w;
            match bins.iter_mut().find(|b| b.0 == at) {
                Some(b) => b.2 += c,
                None => bins.push((at, at + w - 1, c)),
            }
        }
        bins.sort_unstable();
        Dist { bins }
    }

    /// The messages.
    fn total(&self) -> u64 {
        self.bins.iter().map(|b| b.2).sum()
    }

    /// The `q`-th percentile: the upper end of the bin where q% of the messages are reached.
    pub fn percentile(&self, q: u64) -> f64 {
        let total = self.total();
        let mut seen = 0;
        self.bins
            .iter()
            .find(|b| {
                seen += b.2;
                seen * 100 >= total * q
            })
            .map_or(f64::NAN, |b| b.1 as f64)
    }

    /// The mean latency at the bins' middles.
    pub fn mean(&self) -> f64 {
        let sum: f64 = self
            .bins
            .iter()
            .map(|b| (b.0 + b.1) as f64 / 2.0 * b.2 as f64)
            .sum();
        sum / self.total() as f64
    }
}

/// The histogram and the CDF of `dist`, with its marks, for configuration `label`.
fn figure(label: &str, dist: &Dist) -> String {
    let total = dist.total().max(1) as f64;
    let marks = [
        ("mean", dist.mean()),
        ("p50", dist.percentile(50)),
        ("p95", dist.percentile(95)),
        ("p99", dist.percentile(99)),
    ];
    let last = dist.bins.last().map_or(1.0, |b| b.1 as f64 + 1.0);
    let x_end = last.min(marks[3].1 * 1.25).max(marks[3].1 + 1.0);
    let shown: Vec<&(u64, u64, u64)> = dist.bins.iter().filter(|b| (b.0 as f64) < x_end).collect();
    let per_cycle = |b: &(u64, u64, u64)| b.2 as f64 / (total * (b.1 + 1 - b.0) as f64);
    let top = shown.iter().map(|b| per_cycle(b)).fold(0.0, f64::max);
    // From the first bin's decade (at 0 when the latencies start below 10).
    let first = dist.bins.first().map_or(0.0, |b| b.0 as f64);
    let x_start = if first < 10.0 {
        0.0
    } else {
        (first / 10.0).floor() * 10.0
    };
    let x = || Axis::range("latency (cycles)", x_start, x_end);
    let mut hist = Plot::new(SIZE.0, SIZE.1, x(), Axis::linear("fraction per cycle", top));
    let mut cdf = Plot::new(
        SIZE.0,
        SIZE.1,
        x(),
        Axis::linear("cumulative fraction", 1.0 / 1.05),
    );
    let (mut step, mut line, mut seen) = (String::new(), String::new(), 0u64);
    for b in &shown {
        let (x0, x1) = (
            hist.px((b.0 as f64 - 0.5).max(x_start)),
            hist.px(b.1 as f64 + 0.5),
        );
        let y = hist.py(per_cycle(b));
        step.push_str(&format!(
            "M{x0:.1} {:.1}V{y:.1}H{x1:.1}V{:.1}",
            hist.py(0.0),
            hist.py(0.0)
        ));
        seen += b.2;
        line.push_str(&format!(
            "{:.1},{:.1} ",
            cdf.px(b.1 as f64),
            cdf.py(seen as f64 / total)
        ));
    }
    hist.push(&format!("<path class=\"bars\" d=\"{step}\" fill=\"#56b4e9\" fill-opacity=\".6\" stroke=\"#0072b2\"/>"));
    cdf.push(&format!("<polyline class=\"cdf\" fill=\"none\" stroke=\"#0072b2\" stroke-width=\"2\" points=\"{}\"/>", line.trim_end()));
    for p in [&mut hist, &mut cdf] {
        for (i, (name, v)) in marks.iter().enumerate() {
            if !(v.is_finite() && *v <= p.x.hi) {
                continue;
            }
            let (x, y0, y1) = (p.px(*v), p.py(0.0), p.py(p.y.hi));
            p.push(&format!(
                "<g class=\"mark\" data-tip=\"{}: {} cycles\"><path d=\"M{x:.1} {y0:.1}V{y1:.1}\" stroke=\"#d55e00\" stroke-dasharray=\"3,3\"/><text x=\"{:.1}\" y=\"{:.1}\" fill=\"#d55e00\">{name}</text></g>",
                name,
                num(*v),
                x + 2.0,
                y1 + 10.0 + 11.0 * i as f64
            ));
        }
    }
    format!(
        "<figure class=\"dist\" data-config=\"{}\"><figcaption>{}: mean {}, p50 {}, p95 {}, p99 {} cycles</figcaption><div class=\"figures\">{}{}</div></figure>",
        esc(label),
        esc(label),
        sig4(marks[0].1),
        num(marks[1].1),
        num(marks[2].1),
        num(marks[3].1),
        hist.svg("plot hist", "data-plot=\"histogram\""),
        cdf.svg("plot cdf", "data-plot=\"cdf\"")
    )
}

/// A point's configuration (swept keys' values), rate and its seeds' (lo, hi, count) bins.
type PointBins = (Vec<String>, String, Vec<(u64, u64, u64)>);

/// The latency-distribution section of a directory with histogram.csv.
pub fn section(d: &Dir) -> Result<Option<Section>> {
    let Some(csv) = Csv::read(&d.path, "histogram.csv", "rate")? else {
        return Ok(None);
    };
    let f = "histogram.csv";
    let (lo, hi, count) = (
        csv.col("latency_lo", f)?,
        csv.col("latency_hi", f)?,
        csv.col("count", f)?,
    );
    // Per configuration and rate: every seed's (lo, hi, count).
    let mut points: Vec<PointBins> = Vec::new();
    for row in &csv.rows {
        let n = |i: usize| row[i].parse::<u64>().unwrap_or(0);
        let (coords, rate) = (csv.coords(row), &row[csv.lead]);
        let bin = (n(lo), n(hi), n(count));
        match points.iter_mut().find(|p| p.0 == coords && &p.1 == rate) {
            Some(p) => p.2.push(bin),
            None => points.push((coords.to_vec(), rate.clone(), vec![bin])),
        }
    }
    let figures: Vec<(Vec<String>, String, String)> = points
        .into_iter()
        .filter(|p| d.row(&p.0, &p.1).is_some_and(|r| !r.saturated))
        .map(|(coords, rate, bins)| {
            let fig = figure(&d.config_label(&coords), &Dist::merge(&bins));
            (coords, rate, fig)
        })
        .collect();
    if figures.is_empty() {
        return Ok(None);
    }
    let body = format!(
        "<p class=\"note\">Each configuration's latency distribution at the chosen offered load (histogram.csv, the seeds' messages together; loads below saturation): the fraction of the messages per cycle of latency and the cumulative fraction, with the mean and the 50th, 95th and 99th percentiles. The latency axis ends a quarter past the 99th percentile.</p>{}",
        d.load_panels(&format!("latency-loads-{}", d.index), figures)
    );
    Ok(Some(Section {
        kind: "latency-distribution",
        id: format!("latency-distribution-{}", d.index),
        title: d.title("Latency distribution"),
        body,
    }))
}

#[cfg(test)]
mod tests {
    use super::Dist;

    /// Ten messages at 10, 11, ..., 19 cycles in bins one cycle wide: p50 is 14 (the fifth
    /// message), p95 and p99 are 19, the mean 14.5; two seeds' bins of width 1 and 2 merge
    /// into bins of width 2.
    #[test]
    fn percentiles_and_mean_of_known_bins() {
        let one: Vec<(u64, u64, u64)> = (10..20).map(|l| (l, l, 1)).collect();
        let d = Dist::merge(&one);
        assert_eq!(d.percentile(50), 14.0);
        assert_eq!(d.percentile(95), 19.0);
        assert_eq!(d.percentile(99), 19.0);
        assert_eq!(d.mean(), 14.5);
        let mixed = Dist::merge(&[(10, 10, 1), (11, 11, 2), (10, 11, 4), (12, 13, 1)]);
        assert_eq!(mixed.bins, [(10, 11, 7), (12, 13, 1)]);
    }
}
