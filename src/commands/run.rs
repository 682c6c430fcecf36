//! `run`: the experiment's points, its tables and its terminal table.

use super::{commit, load_run, run_points};
use crate::RunArgs;
use flitsim::Result;

/// Runs the experiment (resuming from the points already in its output directory), writes its
/// files as one set and, unless `--quiet`, prints each point's line as it finishes.
pub fn run(args: &RunArgs) -> Result<()> {
    let (exp, dir) = load_run(args)?;
    let outcome = run_points(args, &exp, &dir)?;
    let written = commit(&exp, &dir, &outcome.results, Vec::new())?;
    if !args.quiet {
        let n = outcome.results.len();
        out!(
            "{} points: {} run, {} kept from an earlier run (--fresh reruns them)",
            n,
            n - outcome.reused,
            outcome.reused
        );
        out!(
            "results written to {}/ ({})",
            dir.path().display(),
            written.join(", ")
        );
    }
    Ok(())
}
