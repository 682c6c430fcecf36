//! `run`: the experiment's points (or one shard of them), its tables and its terminal table.

use super::{commit, load_experiment, open_out, run_points};
use crate::RunArgs;
use flitsim::Result;
use flitsim::experiment::directory::Owner;
use flitsim::experiment::shard::Shard;

/// Runs the experiment (resuming from the points already in its output directory), writes its
/// files as one set and, unless `--quiet`, prints each point's line as it finishes. With
/// `--shard I/N`, runs only that share of the points and keeps their records for
/// `flitsim merge`; N more than the points is refused before the output directory is opened.
pub fn run(args: &RunArgs) -> Result<()> {
    let shard = args.shard.as_deref().map(Shard::parse).transpose()?;
    let exp = load_experiment(args)?;
    let wanted: Vec<usize> = match shard {
        Some(s) => s.points(&exp)?,
        None => (0..exp.points().len()).collect(),
    };
    let owner = match shard {
        Some(s) => Owner::Shard(format!("{}/{}", s.index, s.count), exp.hash()),
        None => Owner::Run(exp.hash()),
    };
    let dir = open_out(args, &exp, owner)?;
    let outcome = run_points(args, &exp, &dir, &wanted)?;
    let n = outcome.results.len();
    let counts = format!(
        "{n} points: {} run, {} kept from an earlier run (--fresh reruns them)",
        n - outcome.reused,
        outcome.reused
    );
    if let Some(s) = shard {
        let argv: Vec<String> = std::env::args().collect();
        let label = format!("{}/{}", s.index, s.count);
        let json = flitsim::output::experiment_tables::experiment_json(&exp, &argv, Some(&label));
        let keep = exp.points().into_iter().map(|p| exp.key(p).0).collect();
        dir.commit(
            &[
                ("scenario.toml".into(), exp.text.clone().into_bytes()),
                ("experiment.json".into(), json.into_bytes()),
            ],
            &keep,
        )?;
        if !args.quiet {
            out!("shard {label}: {counts}");
            out!(
                "kept in {}/; when every shard is done: flitsim merge OUT DIR... (the {} shard directories)",
                dir.path().display(),
                s.count
            );
        }
        return Ok(());
    }
    let written = commit(&exp, &dir, &outcome.results, Vec::new())?;
    if !args.quiet {
        out!("{counts}");
        out!(
            "results written to {}/ ({})",
            dir.path().display(),
            written.join(", ")
        );
    }
    Ok(())
}
