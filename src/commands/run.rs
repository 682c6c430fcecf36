//! `run`: the sweep, its CSVs and its table.

use super::{load_run, out_lines, sweep};
use crate::RunArgs;
use flitsim::Result;

/// Runs the scenario's sweep, writes the results and, unless `--quiet`, prints the table.
pub fn run(args: &RunArgs) -> Result<()> {
    let (text, s, dir) = load_run(args)?;
    let results = sweep(args, &s)?;
    flitsim::output::write_results(&dir, &s, &text, &results)?;
    if !args.quiet {
        out_lines(flitsim::output::terminal::run_table(&results));
        out!(
            "results written to {}/ (summary.csv, channels.csv, nodes.csv, histogram.csv, hops.csv, vc_occupancy.csv{})",
            dir.display(),
            if s.topology.mway().is_some() {
                ", mway_channels.csv"
            } else {
                ""
            }
        );
    }
    Ok(())
}
