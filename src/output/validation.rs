//! Model and simulation side by side: model.csv, validation.csv, validation.svg,
//! validation_vc.csv, validation_channels.csv and validation_distance.csv.

use super::channels::write_link_cells;
use super::csv_text as table;
use super::plot::{Curve, Row};
use super::pooled::half_width;
use super::{decimal, num};
use crate::error::{Error, Result};
use crate::model::Outcome;
use crate::stats::PointResult;

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
                num(decimal(r.rate)),
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
                num(decimal(s.rate)),
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

/// One configuration of validation.svg: its label, its mean message length (which turns its
/// loads into flits/node/cycle), its simulated points and its model's rows (one per load).
pub struct PlotConfiguration<'a> {
    /// The swept keys' values as `flitsim plot` shows them (empty when nothing is swept).
    pub label: String,
    /// The mean message length, flits.
    pub mean_length: f64,
    /// The configuration's simulated points (every load and seed).
    pub sim: &'a [PointResult],
    /// The model's rows, one per load.
    pub model: &'a [ModelRow],
}

/// validation.svg's text: per configuration, two curves of mean latency against offered load
/// (flits/node/cycle), in increasing load, drawn as `flitsim plot` draws its curves (see
/// `output::plot`): the simulation's, a load drawn only when its point is [`shown`] for every
/// seed, at the mean over the seeds with the 95% half-width across them (with one seed, the
/// batch-means interval), and the model's, saturated loads left out. The legend names each
/// curve by the configuration's label and `simulation (95% CI)` or `model`.
pub fn validation_plot(configs: &[PlotConfiguration]) -> Result<String> {
    let named = |label: &str, what: &str| match label {
        "" => what.to_string(),
        l => format!("{l}: {what}"),
    };
    let curves: Vec<Curve> = configs
        .iter()
        .flat_map(|c| {
            [
                Curve {
                    label: named(&c.label, "simulation (95% CI)"),
                    rows: simulated_rows(c.sim, c.mean_length),
                },
                Curve {
                    label: named(&c.label, "model"),
                    rows: model_rows(c.model, c.mean_length),
                },
            ]
        })
        .collect();
    super::plot::latency_svg(&curves, "Latency: simulation and model")
        .map_err(|e| Error::Io(format!("validation.svg: {e}")))
}

/// A latency curve's point: at `offered` flits/node/cycle, `latency` with its half-width.
fn latency_row(offered: f64, latency: f64, ci95: f64, saturated: bool) -> Row {
    Row {
        rate: f64::NAN,
        offered,
        accepted: f64::NAN,
        accepted_ci: f64::NAN,
        latency,
        ci95,
        std: f64::NAN,
        traffic: f64::NAN,
        saturated,
    }
}

/// The simulation's curve of one configuration: one row per load, in increasing load, over
/// the load's seeds (not drawn unless every seed's point is shown).
fn simulated_rows(sim: &[PointResult], mean_length: f64) -> Vec<Row> {
    let mut rates: Vec<f64> = sim.iter().map(|r| r.rate).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    rates
        .iter()
        .map(|&rate| {
            let at: Vec<&PointResult> = sim.iter().filter(|r| r.rate == rate).collect();
            let means: Vec<f64> = at.iter().map(|r| r.stats.mean()).collect();
            let ci95 = match at.as_slice() {
                [one] => one.stats.ci95(),
                _ => half_width(&means),
            };
            let mean = means.iter().sum::<f64>() / means.len() as f64;
            let hidden = !at.iter().all(|r| shown(r));
            latency_row(rate * mean_length, mean, ci95, hidden)
        })
        .collect()
}

/// The model's curve of one configuration: one row per load, in increasing load.
fn model_rows(model: &[ModelRow], mean_length: f64) -> Vec<Row> {
    let mut rows: Vec<&ModelRow> = model.iter().collect();
    rows.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    rows.iter()
        .map(|m| {
            let (latency, saturated) = match &m.outcome {
                Outcome::Stable(p) => (p.latency, false),
                Outcome::Saturated => (f64::NAN, true),
            };
            latency_row(m.rate * mean_length, latency, f64::NAN, saturated)
        })
        .collect()
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
                    num(decimal(r.rate)),
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
                num(decimal(r.rate)),
                r.seed.to_string(),
                num(h),
                num(r.stats.hops_std_error()),
                num(d),
                num((d - h) / h),
            ]
        }),
    )
}
