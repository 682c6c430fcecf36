//! `saturation`: each configuration's saturation throughput by bisection.

use super::{KEPT, load_experiment, on_interrupt};
use crate::RunArgs;
use flitsim::experiment::directory::{OutDir, Owner};
use flitsim::experiment::runner::RunOptions;
use flitsim::experiment::saturation::{saturation_csv, search};
use flitsim::{Error, Result};
use std::collections::BTreeSet;
use std::path::Path;

/// Searches every configuration's saturation load to within `tolerance`, writes
/// saturation.csv (with the scenario and experiment.json) and prints a table.
pub fn saturation(args: &RunArgs, tolerance: f64) -> Result<()> {
    if !(tolerance > 0.0 && tolerance < 1.0) {
        return Err(Error::Input(format!(
            "--tolerance {}: not in (0, 1); fix: give the bracket's width in flits/node/cycle, e.g. --tolerance 0.005",
            flitsim::error::number(tolerance)
        )));
    }
    if args.shard.is_some() {
        return Err(Error::Input(
            "saturation: --shard is for `flitsim run`; fix: leave it out".into(),
        ));
    }
    let exp = load_experiment(args)?;
    super::refuse_trace(&exp, "saturation")?;
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(format!("{}-saturation", exp.name)));
    let owner = Owner::Saturation(tolerance.to_string(), exp.hash());
    let dir = OutDir::open(&path, super::claim(&exp, owner, args.replace))?;
    on_interrupt(0, dir.path());
    let opts = RunOptions {
        threads: args.threads,
        progress: false,
        fresh: args.fresh,
        report_seconds: if args.quiet {
            0.0
        } else {
            super::report_seconds()
        },
    };
    let mut keys = BTreeSet::new();
    let quiet = args.quiet;
    let on_probe = |c: usize, flits: f64, stable: bool| {
        if !quiet {
            let lead = exp.lead(c);
            out!(
                "{} {flits:.6} {}",
                lead[1..].join(" "),
                if stable { "stable" } else { "saturated" }
            );
        }
    };
    let found = search(&exp, &dir, tolerance, opts, &KEPT, &mut keys, &on_probe)?;
    let text = saturation_csv(&exp, &found);
    let argv: Vec<String> = std::env::args().collect();
    let json = flitsim::output::experiment_tables::experiment_json(&exp, &argv, None);
    dir.commit(
        &[
            ("saturation.csv".into(), text.clone().into_bytes()),
            ("scenario.toml".into(), exp.text.clone().into_bytes()),
            ("experiment.json".into(), json.into_bytes()),
        ],
        &keys,
    )?;
    if !quiet {
        for line in text.lines() {
            out!("{}", line.replace(',', "  "));
        }
        out!("written to {}/saturation.csv", dir.path().display());
    }
    Ok(())
}
