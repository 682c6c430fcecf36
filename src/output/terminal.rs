//! The fixed-width tables the command line prints (`run`, `model`, `validate`): pure functions
//! returning the lines, without a trailing newline, for the caller to print.

use crate::model::Outcome;
use crate::output::validation::{ModelRow, shown};
use crate::stats::PointResult;

/// A point's traffic variant in the printed tables: x and h (`-` unless hotspot), 6 wide each.
pub fn variant_cells(r: &PointResult) -> String {
    let h = r
        .hotspot_fraction
        .map(|h| format!("{h}"))
        .unwrap_or("-".into());
    format!("{:>6} {h:>6}", r.pattern_fraction)
}

/// `run`'s table: a header line, then one line per point with its variant, rate, offered and
/// accepted flits/node/cycle, mean latency, 95% confidence half-width and why it stopped
/// (`no` if not saturated).
pub fn run_table(results: &[PointResult]) -> Vec<String> {
    let mut lines = vec![format!(
        "{:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>8}  saturated",
        "x", "h", "rate", "offered", "accepted", "latency", "ci95"
    )];
    lines.extend(results.iter().map(|r| {
        format!(
            "{} {:>10.6} {:>10.4} {:>10.4} {:>10.2} {:>8.2}  {}",
            variant_cells(r),
            r.rate,
            r.offered_flits(),
            r.accepted_flits,
            r.stats.mean(),
            r.stats.ci95(),
            if r.saturated() { r.stop.name() } else { "no" }
        )
    }));
    lines
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

/// `validate`'s latency table: a header line, then per point the rate, the simulated mean
/// latency (or `saturated`), its 95% confidence half-width, the model's latency (or
/// `saturated`) and the relative error (model − simulation) / simulation, `-` where the
/// simulated point is not [`shown`] or the model is saturated. `results` and `rows` are the
/// same points in the same order.
pub fn validation_table(results: &[PointResult], rows: &[ModelRow]) -> Vec<String> {
    let mut lines = vec![format!(
        "{:>10} {:>10} {:>8} {:>10} {:>9}",
        "rate", "sim", "ci95", "model", "rel_err"
    )];
    lines.extend(results.iter().zip(rows).map(|(r, mr)| {
        let model = match &mr.outcome {
            Outcome::Stable(p) => format!("{:.2}", p.latency),
            Outcome::Saturated => "saturated".into(),
        };
        let sim = if r.saturated() {
            "saturated".to_string()
        } else {
            format!("{:.2}", r.stats.mean())
        };
        let rel = match (&mr.outcome, shown(r)) {
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
