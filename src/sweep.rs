//! Sweeps: every (load, seed) point of a scenario is an independent simulation; points run
//! in parallel and come back in scenario order, so the output does not depend on the thread
//! count.

use crate::engine::run_point;
use crate::error::{Error, Result};
use crate::scenario::Scenario;
use crate::stats::PointResult;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

/// The points of a scenario: (traffic variant, rate, seed), variants outermost, then loads.
pub fn points(s: &Scenario) -> Vec<(Scenario, f64, u64)> {
    s.variants()
        .into_iter()
        .flat_map(|v| {
            let rates = v.traffic.rates.clone();
            let seeds = v.seeds.clone();
            rates
                .into_iter()
                .flat_map(move |r| seeds.clone().into_iter().map(move |seed| (r, seed)))
                .map(move |(r, seed)| (v.clone(), r, seed))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Runs every point on `threads` threads (0: one per core). `progress` shows a bar on stderr.
pub fn run_sweep(s: &Scenario, threads: usize, progress: bool) -> Result<Vec<PointResult>> {
    let pts = points(s);
    let bar = if progress {
        ProgressBar::with_draw_target(Some(pts.len() as u64), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} points, {elapsed_precise}")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(s.name.clone());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(crate::experiment::runner::worker_threads(
            threads,
            pts.len(),
        ))
        .build()
        .map_err(|e| Error::Io(format!("cannot start worker threads: {e}")))?;
    let results: Vec<Result<PointResult>> = pool.install(|| {
        pts.par_iter()
            .map(|(v, rate, seed)| {
                let r = run_point(v, *rate, *seed);
                bar.inc(1);
                r
            })
            .collect()
    });
    bar.finish_and_clear();
    results.into_iter().collect()
}
