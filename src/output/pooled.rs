//! pooled.csv: one row per configuration and load, over its replications (one point per seed):
//! the mean of each summary figure, and 95% confidence half-widths across replications beside
//! the pooled batch-means interval.

use super::columns::Column;
use super::summary::SUMMARY;
use super::{csv_text, num};
use crate::stats::{PointResult, t975};

/// pooled.csv's columns after the experiment's coordinates, with their docs (the book's
/// column reference lists them); the figures of [`SUMMARY`] from `accepted_flits` on, except
/// `latency_ci95`, `saturated` and `stop`, follow in [`SUMMARY`]'s order, each the mean over the
/// replications, with the half-widths inserted after their figure.
pub const POOLED: &[(&str, &str)] = &[
    ("rate", "offered λ (messages/node/cycle), as in summary.csv"),
    (
        "offered_flits",
        "offered load (flits/node/cycle), as in summary.csv",
    ),
    ("replications", "R, the number of seeds pooled"),
    ("saturated", "how many of the R replications were saturated"),
    (
        "accepted_flits_ci95",
        "95% half-width of `accepted_flits` across replications: t(R − 1) · s / √R, s the sample standard deviation of the per-seed values",
    ),
    (
        "latency_ci95",
        "95% half-width of `latency_mean` across replications: t(R − 1) · s / √R over the per-seed means",
    ),
    (
        "latency_ci95_batches",
        "the pooled batch-means half-width: the batch means of all replications together (B in all), t(B − 1) · s_b / √B",
    ),
];

/// The mean of `v`, NaN when empty.
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The 95% half-width of the mean of `v`: t(n − 1) times the sample standard deviation over
/// √n; NaN with fewer than two values.
pub fn half_width(v: &[f64]) -> f64 {
    let n = v.len();
    if n < 2 {
        return f64::NAN;
    }
    let m = mean(v);
    let var = v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
    t975(n - 1) * (var / n as f64).sqrt()
}

/// A SUMMARY column's value for a point, as a number (an empty cell is NaN).
fn value(c: &Column, r: &PointResult) -> f64 {
    (c.value)(r, &()).to_string().parse().unwrap_or(f64::NAN)
}

/// The SUMMARY column named `name`.
fn column(name: &str) -> &'static Column {
    SUMMARY
        .iter()
        .find(|c| c.name == name)
        .expect("a summary column")
}

/// pooled.csv: `lead_header` (the experiment's coordinates), then the columns of [`POOLED`]
/// and the pooled figures; one row per group (the lead cells and the group's replications, in
/// seed order; every group has at least one).
pub fn pooled_csv(lead_header: &[String], groups: &[(Vec<String>, Vec<&PointResult>)]) -> String {
    let pooled: Vec<&Column> = SUMMARY
        .iter()
        .skip_while(|c| c.name != "accepted_flits")
        .filter(|c| !matches!(c.name, "latency_ci95" | "saturated" | "stop"))
        .collect();
    let mut header: Vec<&str> = lead_header.iter().map(String::as_str).collect();
    header.extend(["rate", "offered_flits", "replications", "saturated"]);
    for c in &pooled {
        header.push(c.name);
        match c.name {
            "accepted_flits" => header.push("accepted_flits_ci95"),
            "latency_mean" => header.extend(["latency_ci95", "latency_ci95_batches"]),
            _ => {}
        }
    }
    let rows = groups.iter().map(|(lead, points)| {
        let first = points[0];
        let mut row = lead.clone();
        row.push((column("rate").value)(first, &()).to_string());
        row.push((column("offered_flits").value)(first, &()).to_string());
        row.push(points.len().to_string());
        row.push(points.iter().filter(|r| r.saturated()).count().to_string());
        for c in &pooled {
            let v: Vec<f64> = points.iter().map(|r| value(c, r)).collect();
            row.push(num(mean(&v)));
            match c.name {
                "accepted_flits" => row.push(num(half_width(&v))),
                "latency_mean" => {
                    row.push(num(half_width(&v)));
                    let batches: Vec<f64> =
                        points.iter().flat_map(|r| r.stats.batch_means()).collect();
                    row.push(num(half_width(&batches)));
                }
                _ => {}
            }
        }
        row
    });
    csv_text(&header, rows)
}
