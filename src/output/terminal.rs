//! The fixed-width tables the command line prints (`run`, `model`, `validate`): pure functions
//! returning the lines, without a trailing newline, for the caller to print.

use crate::model::Outcome;
use crate::output::SUMMARY;
use crate::output::validation::{ModelRow, outcome_at, shown};
use crate::stats::PointResult;

/// A point's traffic variant in the printed tables: x and h (`-` unless hotspot), 6 wide each.
pub fn variant_cells(r: &PointResult) -> String {
    let h = r
        .hotspot_fraction
        .map(|h| format!("{h}"))
        .unwrap_or("-".into());
    format!("{:>6} {h:>6}", r.pattern_fraction)
}

/// `run`'s per-point table, printed one line at a time as the points finish: its column widths
/// are fixed up front from the header names and every coordinate value of the experiment.
pub struct PointTable {
    /// The swept keys (the coordinates without `scenario`).
    keys: Vec<String>,
    /// The width of each swept key's column.
    widths: Vec<usize>,
    /// Whether a `seed` column is shown (several seeds).
    seeds: bool,
}

/// The fixed columns after the coordinates: name, unit, width.
const FIXED: [(&str, &str, usize); 7] = [
    ("rate", "msg/node/c", 11),
    ("offered", "flit/node/c", 11),
    ("accepted", "flit/node/c", 11),
    ("latency", "cycles", 11),
    ("ci95", "cycles", 8),
    ("saturated", "", 9),
    ("stop", "", 9),
];

impl PointTable {
    /// A table for an experiment whose coordinates are `lead_header` (`scenario`, then the
    /// swept keys) with the values `leads` (one per configuration); `several_seeds` adds a
    /// `seed` column.
    pub fn new(lead_header: &[String], leads: &[Vec<String>], several_seeds: bool) -> Self {
        let keys: Vec<String> = lead_header.iter().skip(1).cloned().collect();
        let widths = keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                leads
                    .iter()
                    .map(|l| l.get(i + 1).map_or(0, |v| v.chars().count()))
                    .max()
                    .unwrap_or(0)
                    .max(k.chars().count())
            })
            .collect();
        PointTable {
            keys,
            widths,
            seeds: several_seeds,
        }
    }

    /// One line of cells: the coordinates (left-aligned), the seed, the fixed columns.
    fn line(&self, coords: &[&str], seed: &str, fixed: &[String]) -> String {
        let mut cells: Vec<String> = coords
            .iter()
            .zip(&self.widths)
            .map(|(v, &w)| format!("{v:<w$}"))
            .collect();
        if self.seeds {
            cells.push(format!("{seed:>6}"));
        }
        cells.extend(
            FIXED
                .iter()
                .zip(fixed)
                .map(|(&(_, _, w), v)| format!("{v:>w$}")),
        );
        cells.join(" ").trim_end().to_string()
    }

    /// The header: the column names, then their units.
    pub fn header(&self) -> Vec<String> {
        let keys: Vec<&str> = self.keys.iter().map(String::as_str).collect();
        let names: Vec<String> = FIXED.iter().map(|f| f.0.to_string()).collect();
        let units: Vec<String> = FIXED.iter().map(|f| f.1.to_string()).collect();
        let blank = vec![""; keys.len()];
        vec![
            self.line(&keys, "seed", &names),
            self.line(&blank, "", &units),
        ]
    }

    /// A point's line: its coordinates (`lead` without `scenario`), seed, rate and offered load
    /// as summary.csv writes them, accepted load, mean latency (in parentheses past saturation:
    /// not a steady-state value), its 95% half-width, whether saturated, and why it stopped.
    pub fn row(&self, lead: &[String], r: &PointResult) -> String {
        let coords: Vec<&str> = lead.iter().skip(1).map(String::as_str).collect();
        let cell = |name: &str| {
            SUMMARY
                .iter()
                .find(|c| c.name == name)
                .map(|c| (c.value)(r, &()).to_string())
                .unwrap_or_default()
        };
        let latency = if r.saturated() {
            format!("({:.2})", r.stats.mean())
        } else {
            format!("{:.2} ", r.stats.mean())
        };
        let fixed = [
            cell("rate"),
            cell("offered_flits"),
            format!("{:.4}", r.accepted_flits),
            latency,
            format!("{:.2}", r.stats.ci95()),
            if r.saturated() { "yes" } else { "no" }.to_string(),
            r.stop.name().to_string(),
        ];
        self.line(&coords, &r.seed.to_string(), &fixed)
    }

    /// What follows the rows: the meaning of a latency in parentheses, if any point has one.
    pub fn footer(&self, results: &[&PointResult]) -> Vec<String> {
        if results.iter().any(|r| r.saturated()) {
            vec![
                "(latency): past saturation, not a steady-state value (the point stopped early or its source queues were growing)".to_string(),
            ]
        } else {
            Vec::new()
        }
    }
}

/// `model`'s table: a header line, then per load point the rate and the model's latency,
/// network latency and V̄ (`NaN` if the model has none), or `saturated`.
pub fn model_table(rows: &[ModelRow]) -> Vec<String> {
    let mut lines = vec![format!(
        "{:>10} {:>12} {:>12} {:>10}",
        "rate", "latency", "network", "vbar"
    )];
    lines.extend(rows.iter().map(|r| match &r.outcome {
        Outcome::Stable(p) => format!(
            "{:>10.6} {:>12.2} {:>12.2} {:>10.4}",
            r.rate,
            p.latency,
            p.network_latency,
            p.vbar.unwrap_or(f64::NAN)
        ),
        Outcome::Saturated => format!("{:>10.6} {:>12}", r.rate, "saturated"),
    }));
    lines
}

/// `validate`'s latency table: a header line, then per simulated point the rate, the
/// simulated mean latency (or `saturated`), its 95% confidence half-width, the model's latency
/// at its load (or `saturated`) and the relative error (model − simulation) / simulation, `-`
/// where the simulated point is not [`shown`] or the model is saturated. `parts` are the
/// configurations' points, each with its model's rows (one per load).
pub fn validation_table(parts: &[(&[PointResult], &[ModelRow])]) -> Vec<String> {
    let mut lines = vec![format!(
        "{:>10} {:>10} {:>8} {:>10} {:>9}",
        "rate", "sim", "ci95", "model", "rel_err"
    )];
    let points = parts
        .iter()
        .flat_map(|&(sim, rows)| sim.iter().map(move |r| (r, outcome_at(rows, r.rate))));
    lines.extend(points.map(|(r, mr)| {
        let model = match mr {
            Outcome::Stable(p) => format!("{:.2}", p.latency),
            Outcome::Saturated => "saturated".into(),
        };
        let sim = if r.saturated() {
            "saturated".to_string()
        } else {
            format!("{:.2}", r.stats.mean())
        };
        let rel = match (mr, shown(r)) {
            (Outcome::Stable(p), true) => {
                format!(
                    "{:+.1}%",
                    100.0 * (p.latency - r.stats.mean()) / r.stats.mean()
                )
            }
            _ => "-".into(),
        };
        format!(
            "{:>10.6} {:>10} {:>8.2} {:>10} {:>9}",
            r.rate,
            sim,
            r.stats.ci95(),
            model,
            rel
        )
    }));
    lines
}

/// The mean and the largest |relative error| |(sim − model) / model| of per-link rates, over
/// the links the model loads (model rate > 0); both NaN when it loads none.
pub fn link_rate_errors(sim: &[f64], model: &[f64]) -> (f64, f64) {
    let errs: Vec<f64> = sim
        .iter()
        .zip(model)
        .filter(|(_, m)| **m > 0.0)
        .map(|(s, m)| ((s - m) / m).abs())
        .collect();
    let mean = errs.iter().sum::<f64>() / errs.len() as f64;
    let max = errs.iter().copied().fold(f64::NAN, f64::max);
    (mean, max)
}

/// `validate`'s channel-rate and mean-distance table: a header line, then per point its
/// variant, rate, the mean distance simulated (`hops`) and the model's, and the
/// [`link_rate_errors`] of the simulated message rates per link (`link_msgs`) against the
/// model's `rates` of that point, in percent. `results`, `rates` and `distance` are the same
/// points in the same order.
pub fn channels_table(
    results: &[PointResult],
    rates: &[Vec<f64>],
    distance: &[f64],
) -> Vec<String> {
    let mut lines = vec![format!(
        "{:>6} {:>6} {:>10} {:>9} {:>9} {:>11} {:>11}",
        "x", "h", "rate", "hops", "model", "mean|err|", "max|err|"
    )];
    lines.extend(results.iter().zip(rates).zip(distance).map(|((r, m), d)| {
        let (mean, max) = link_rate_errors(&r.link_msgs, m);
        format!(
            "{} {:>10.6} {:>9.4} {:>9.4} {:>10.1}% {:>10.1}%",
            variant_cells(r),
            r.rate,
            r.stats.hops_mean(),
            d,
            100.0 * mean,
            100.0 * max
        )
    }));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Prediction;

    /// One drained point and one saturated point of a 4x4 mesh.
    fn points() -> (PointResult, PointResult) {
        let text = "name = \"t\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\n\
            message_length = 8\nflit_rates = [0.05, 0.9]\n[run]\nwarmup_cycles = 200\n\
            measure_cycles = 2000\nmax_backlog = 5\n";
        let s = crate::Scenario::from_toml(text, "t").unwrap();
        let run = |i: usize| crate::engine::run_point(&s, s.traffic.rates[i], 1).unwrap();
        (run(0), run(1))
    }

    #[test]
    fn point_table_rows_align_and_mark_saturation() {
        let (calm, past) = points();
        assert!(!calm.saturated() && past.saturated());
        let lead_header = ["scenario".to_string(), "routing.algorithm".to_string()];
        let leads = [
            vec!["t".to_string(), "dor".to_string()],
            vec!["t".to_string(), "duato-timeout".to_string()],
        ];
        for seeds in [false, true] {
            let t = PointTable::new(&lead_header, &leads, seeds);
            let header = t.header();
            assert_eq!(header[0].contains("seed"), seeds);
            assert!(header[0].starts_with("routing.algorithm"));
            let width = header[0].len();
            let a = t.row(&leads[0], &calm);
            let b = t.row(&leads[1], &past);
            assert_eq!(a.len(), width, "{a}\n{}", header[0]);
            assert_eq!(b.len(), width, "{b}\n{}", header[0]);
            assert!(a.ends_with("no   drained"), "{a}");
            assert!(!a.contains('('), "{a}");
            assert!(b.contains(&format!("({:.2})", past.stats.mean())), "{b}");
            assert!(b.contains(" yes "), "{b}");
            assert!(b.ends_with(past.stop.name()), "{b}");
            assert!(t.footer(&[&calm]).is_empty());
            assert_eq!(t.footer(&[&calm, &past]).len(), 1);
        }
    }

    #[test]
    fn link_rate_errors_skip_unloaded_links() {
        let (mean, max) = link_rate_errors(&[1.1, 0.5, 0.8], &[1.0, 0.0, 1.0]);
        assert!((mean - 0.15).abs() < 1e-12);
        assert!((max - 0.2).abs() < 1e-12);
        let (mean, max) = link_rate_errors(&[1.0], &[0.0]);
        assert!(mean.is_nan() && max.is_nan());
    }

    #[test]
    fn model_table_lines() {
        let rows = [
            ModelRow {
                rate: 0.001,
                outcome: Outcome::Stable(Prediction {
                    latency: 26.284,
                    network_latency: 26.06,
                    source_wait: 0.2,
                    vbar: None,
                    vc_occupancy: None,
                }),
            },
            ModelRow {
                rate: 0.01,
                outcome: Outcome::Saturated,
            },
        ];
        assert_eq!(
            model_table(&rows),
            [
                "      rate      latency      network       vbar",
                "  0.001000        26.28        26.06        NaN",
                "  0.010000    saturated",
            ]
        );
    }
}
