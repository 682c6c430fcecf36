//! Model and simulation side by side: model.csv, validation.csv, validation.svg,
//! validation_vc.csv, validation_channels.csv and validation_distance.csv.

use super::channels::write_link_cells;
use super::csv_text as table;
use super::num;
use crate::error::{Error, Result};
use crate::model::Outcome;
use crate::stats::PointResult;
use plotters::prelude::*;
use std::path::Path;

/// One load point of a model: the rate and what the model says there.
#[derive(Clone, Debug)]
pub struct ModelRow {
    /// Offered load λ, messages/node/cycle.
    pub rate: f64,
    /// The model's prediction at `rate`, or saturation.
    pub outcome: Outcome,
}

/// The model's figures of a row: latency, network latency, source wait, V̄ (NaN if saturated).
fn figures(o: &Outcome) -> [f64; 4] {
    match o {
        Outcome::Stable(p) => [
            p.latency,
            p.network_latency,
            p.source_wait,
            p.vbar.unwrap_or(f64::NAN),
        ],
        Outcome::Saturated => [f64::NAN; 4],
    }
}

/// The model's outcome at a simulated point's load: the row of `model` (one per load) with its
/// rate, or saturation when the model has no such row.
pub fn outcome_at(model: &[ModelRow], rate: f64) -> &Outcome {
    model
        .iter()
        .find(|m| m.rate == rate)
        .map_or(&Outcome::Saturated, |m| &m.outcome)
}

/// model.csv: `rate`, `model_latency`, `model_network_latency`, `model_source_wait`,
/// `model_vbar`, `saturated`, `model_saturation_rate`.
pub fn model_csv(rows: &[ModelRow], saturation: f64) -> String {
    super::csv_text(
        &[
            "rate",
            "model_latency",
            "model_network_latency",
            "model_source_wait",
            "model_vbar",
            "saturated",
            "model_saturation_rate",
        ],
        rows.iter().map(|r| {
            let f = figures(&r.outcome);
            vec![
                num(r.rate),
                num(f[0]),
                num(f[1]),
                num(f[2]),
                num(f[3]),
                matches!(r.outcome, Outcome::Saturated).to_string(),
                num(saturation),
            ]
        }),
    )
}

/// Whether a simulated point is shown against the model: not saturated, and its mean known to
/// within 5% (standard error by batch means under 5% of the mean: paper 003's rule, which
/// shows empirical points only where the error ratio is under 5%).
pub fn shown(r: &PointResult) -> bool {
    !r.saturated() && r.stats.std_error() < 0.05 * r.stats.mean()
}

/// validation.csv: simulation and model at each simulated point (`model`: one row per load,
/// each point compared with its load's); `rel_error` = (model − simulation) / simulation, NaN
/// where the simulated point is not shown or the model is saturated.
pub fn validation_csv(sim: &[PointResult], model: &[ModelRow]) -> String {
    super::csv_text(
        &[
            "rate",
            "seed",
            "latency_mean",
            "latency_ci95",
            "latency_std_error",
            "sim_saturated",
            "shown",
            "model_latency",
            "model_saturated",
            "rel_error",
            "vbar",
            "model_vbar",
        ],
        sim.iter().map(|s| {
            let m = outcome_at(model, s.rate);
            let f = figures(m);
            let sim_lat = s.stats.mean();
            let rel = if shown(s) {
                (f[0] - sim_lat) / sim_lat
            } else {
                f64::NAN
            };
            vec![
                num(s.rate),
                s.seed.to_string(),
                num(sim_lat),
                num(s.stats.ci95()),
                num(s.stats.std_error()),
                s.saturated().to_string(),
                shown(s).to_string(),
                num(f[0]),
                matches!(m, Outcome::Saturated).to_string(),
                num(rel),
                num(s.vbar()),
                num(f[3]),
            ]
        }),
    )
}

/// validation.svg: simulated latency (with its 95% CI, shown points only) and model latency
/// against λ.
pub fn validation_plot(path: &Path, sim: &[PointResult], model: &[ModelRow]) -> Result<()> {
    draw(path, sim, model).map_err(|e| Error::Io(format!("{}: {e}", path.display())))
}

fn draw(
    path: &Path,
    sim: &[PointResult],
    model: &[ModelRow],
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let sim_pts: Vec<(f64, f64, f64)> = sim
        .iter()
        .filter(|r| shown(r))
        .map(|r| {
            let c = r.stats.ci95();
            (r.rate, r.stats.mean(), if c.is_finite() { c } else { 0.0 })
        })
        .collect();
    let model_pts: Vec<(f64, f64)> = model
        .iter()
        .filter_map(|m| match &m.outcome {
            Outcome::Stable(p) => Some((m.rate, p.latency)),
            Outcome::Saturated => None,
        })
        .collect();
    let xmax = sim.iter().map(|r| r.rate).fold(0.0, f64::max) * 1.05;
    let ymax = sim_pts
        .iter()
        .map(|&(_, y, c)| y + c)
        .chain(model_pts.iter().map(|&(_, y)| y))
        .filter(|y| y.is_finite())
        .fold(0.0, f64::max)
        * 1.1;
    super::plot::svg_chart(
        path,
        "Latency: simulation and model",
        (
            "offered load λ (messages/node/cycle)",
            "mean latency (cycles)",
        ),
        (xmax, ymax.max(1.0)),
        |chart| {
            let blue = BLUE.to_rgba();
            chart
                .draw_series(LineSeries::new(
                    sim_pts.iter().map(|&(x, y, _)| (x, y)),
                    blue,
                ))?
                .label("simulation (95% CI)")
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], blue));
            chart.draw_series(
                sim_pts
                    .iter()
                    .map(|&(x, y, c)| ErrorBar::new_vertical(x, y - c, y, y + c, blue.filled(), 6)),
            )?;
            let red = RED.to_rgba();
            chart
                .draw_series(LineSeries::new(model_pts.iter().copied(), red))?
                .label("model")
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], red));
            chart.draw_series(model_pts.iter().map(|&p| Circle::new(p, 3, red.filled())))?;
            Ok(())
        },
    )
}

/// validation_channels.csv: per point and network link, the simulated messages per cycle and
/// the exact or model rate from `flitsim::model::link_rates`.
pub fn validation_channels_csv(
    sim: &[PointResult],
    topo: &crate::topology::Topology,
    model_rates: &[Vec<f64>],
) -> String {
    validation_channels_table(sim, topo, model_rates).text()
}

/// validation_channels.csv's table, its rows made as they are written (a row per link and
/// point).
pub fn validation_channels_table<'a>(
    sim: &'a [PointResult],
    topo: &'a crate::topology::Topology,
    model_rates: &'a [Vec<f64>],
) -> super::Table<'a> {
    super::Table::batched(
        vec![
            "rate",
            "seed",
            "channel",
            "src",
            "dst",
            "dim",
            "dir",
            "messages_per_cycle",
            "model_messages_per_cycle",
        ],
        sim.iter().zip(model_rates).flat_map(move |(r, m)| {
            topo.listed_links()
                .enumerate()
                .map(move |(c, l)| (r, m, c, l))
        }),
        |&(r, m, c, l), row| {
            write_link_cells(r, c, l, row);
            row.put(super::Cell::Num(r.link_msgs[c]));
            row.put(super::Cell::Num(m[c]));
        },
    )
}

/// validation_vc.csv: per simulated point, V + 1 rows (v = 0..=V busy virtual channels of a
/// network link): the simulated P_v (`vc_occupancy.csv`'s `probability`) and the model's at
/// the point's load (`model`: one row per load; paper 000 eqs. 28-29; NaN where the model is
/// saturated or gives no P_v).
pub fn validation_vc_csv(sim: &[PointResult], model: &[ModelRow]) -> String {
    table(
        &[
            "rate",
            "seed",
            "busy_vcs",
            "sim_probability",
            "model_probability",
        ],
        sim.iter().flat_map(|r| {
            let p_v = match outcome_at(model, r.rate) {
                Outcome::Stable(p) => p.vc_occupancy.as_deref(),
                Outcome::Saturated => None,
            };
            r.vc_occupancy.iter().enumerate().map(move |(v, &p)| {
                let model = p_v.and_then(|q| q.get(v)).copied().unwrap_or(f64::NAN);
                vec![
                    num(r.rate),
                    r.seed.to_string(),
                    v.to_string(),
                    num(p),
                    num(model),
                ]
            })
        }),
    )
}

/// validation_distance.csv: per point, the simulated mean hops with its standard error, the
/// model's mean distance (`flitsim::model::mean_distance`) and `rel_error` = (model −
/// simulation) / simulation.
pub fn validation_distance_csv(sim: &[PointResult], model_distance: &[f64]) -> String {
    table(
        &[
            "rate",
            "seed",
            "hops_mean",
            "hops_std_error",
            "model_hops_mean",
            "rel_error",
        ],
        sim.iter().zip(model_distance).map(|(r, &d)| {
            let h = r.stats.hops_mean();
            vec![
                num(r.rate),
                r.seed.to_string(),
                num(h),
                num(r.stats.hops_std_error()),
                num(d),
                num((d - h) / h),
            ]
        }),
    )
}
