//! Saturation by search: for each configuration of an experiment, the highest offered load
//! (flits/node/cycle) whose point is stable, found by bisection between 0 (stable) and the
//! throughput bound (`model::bound::throughput_bound`, at most the injection channel's 1). A
//! load is stable when none of its replications (one per seed) is saturated by the criterion of
//! `PointResult::saturated` (the `saturated` column of the book's column reference), so that each accepted the offered
//! load to within `SHORTFALL_SIGMAS` standard deviations of the offered flit count. Every probe
//! is a point with a record, so an interrupted search resumes where it stopped.

use super::runner::{self, RunOptions};
use super::{Experiment, Point};
use crate::error::Result;
use crate::experiment::directory::OutDir;
use crate::model::bound::throughput_bound;
use crate::stats::PointResult;
use std::collections::BTreeSet;
use std::sync::atomic::AtomicUsize;

/// What the search found for one configuration.
#[derive(Clone, Debug)]
pub struct Found {
    /// The configuration's index.
    pub config: usize,
    /// The highest load probed that is stable (0 when none was).
    pub lo: f64,
    /// The lowest load probed that is saturated (the upper end of the search when none was).
    pub hi: f64,
    /// Whether `hi` was probed and found saturated (false: even the upper end is stable).
    pub hi_saturated: bool,
    /// Mean accepted load over the replications at `lo` (NaN when `lo` is 0).
    pub accepted_at_lo: f64,
    /// Points simulated or read for the search (probes × seeds).
    pub points: usize,
}

/// The experiment of one probe: configuration `c` at the single load `flits`.
fn probe(exp: &Experiment, c: usize, flits: f64) -> Experiment {
    let mut e = exp.clone();
    let mut conf = e.configurations[c].clone();
    let m = conf.scenario.traffic.mean_length();
    conf.scenario.traffic.rates = vec![flits / m];
    conf.scenario.traffic.flit_rates = Some(vec![flits]);
    e.configurations = vec![conf];
    e
}

/// Searches every configuration's saturation load to within `tolerance` (flits/node/cycle),
/// keeping each probe's records in `dir` (`keys` collects them); `on_probe` hears of each probe
/// (configuration, load, stable).
pub fn search(
    exp: &Experiment,
    dir: &OutDir,
    tolerance: f64,
    opts: RunOptions,
    kept: &AtomicUsize,
    keys: &mut BTreeSet<String>,
    on_probe: &dyn Fn(usize, f64, bool),
) -> Result<Vec<Found>> {
    let mut out = Vec::new();
    for c in 0..exp.configurations.len() {
        let s = &exp.configurations[c].scenario;
        let top = s
            .variants()
            .iter()
            .filter_map(throughput_bound)
            .map(|b| b.flits)
            .fold(1.0f64, f64::min);
        let mut run = |flits: f64| -> Result<(bool, Vec<PointResult>)> {
            let e = probe(exp, c, flits);
            let points: Vec<Point> = e.points();
            keys.extend(points.iter().map(|&p| e.key(p).0));
            let all: Vec<usize> = (0..points.len()).collect();
            let results = runner::run(&e, dir, opts, kept, &|_, _| {}, &all)?.results;
            let stable = results.iter().all(|r| !r.saturated());
            on_probe(c, flits, stable);
            Ok((stable, results))
        };
        let (mut lo, mut hi) = (0.0f64, top);
        let mut at_lo: Vec<PointResult> = Vec::new();
        let mut probes = 0;
        let (stable, r) = run(hi)?;
        probes += 1;
        let hi_saturated = !stable;
        if stable {
            lo = hi;
            at_lo = r;
        }
        while hi_saturated && hi - lo > tolerance {
            let mid = (lo + hi) / 2.0;
            let (stable, r) = run(mid)?;
            probes += 1;
            if stable {
                lo = mid;
                at_lo = r;
            } else {
                hi = mid;
            }
        }
        let accepted_at_lo = if at_lo.is_empty() {
            f64::NAN
        } else {
            at_lo.iter().map(|r| r.accepted_flits).sum::<f64>() / at_lo.len() as f64
        };
        out.push(Found {
            config: c,
            lo,
            hi,
            hi_saturated,
            accepted_at_lo,
            points: probes * s.seeds.len(),
        });
    }
    Ok(out)
}

/// saturation.csv: the experiment's coordinates, then `saturation_flits` (the last stable
/// offered load), `bracket_lo`, `bracket_hi` (the lowest saturated load probed; equal to
/// `bracket_lo` when even the upper end of the search, the throughput bound, was stable),
/// `accepted_flits_at_saturation` (mean over the seeds) and
/// `points_run`.
pub fn saturation_csv(exp: &Experiment, found: &[Found]) -> String {
    let mut header = exp.lead_header();
    header.extend(
        [
            "saturation_flits",
            "bracket_lo",
            "bracket_hi",
            "accepted_flits_at_saturation",
            "points_run",
        ]
        .map(String::from),
    );
    let rows = found.iter().map(|f| {
        let mut row = exp.lead(f.config);
        let hi = if f.hi_saturated { f.hi } else { f.lo };
        row.extend([
            crate::output::num(f.lo),
            crate::output::num(f.lo),
            crate::output::num(hi),
            crate::output::num(f.accepted_at_lo),
            f.points.to_string(),
        ]);
        row
    });
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    crate::output::csv_text(&header, rows)
}
