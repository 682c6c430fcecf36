//! `slurm`: the sbatch scripts that run an experiment's shards as a SLURM job array and merge
//! them in a job that depends on the array, and, with `--submit`, their submission.

use crate::SlurmArgs;
use flitsim::experiment::Experiment;
use flitsim::{Error, Result};
use std::path::{Path, PathBuf};

/// A path absolute, for scripts that run on other nodes from other directories.
fn absolute(p: &Path) -> Result<PathBuf> {
    std::path::absolute(p).map_err(|e| Error::Io(format!("{}: {e}", p.display())))
}

/// A word quoted for a POSIX shell.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// Writes `OUT/slurm/shards.sbatch` (the array: task I runs shard I/N into `OUT/shards/I` with
/// `--threads $SLURM_CPUS_PER_TASK`), `OUT/slurm/merge.sbatch` (merges the shards into OUT)
/// and `OUT/slurm/submit.sh` (submits the array, then the merge with
/// `--dependency=afterok:<array>`); prints how to submit, or submits with `--submit`.
pub fn slurm(args: &SlurmArgs) -> Result<()> {
    if args.tasks == 0 {
        return Err(Error::Input(
            "--tasks 0: no task to run; fix: give --tasks N with N >= 1".into(),
        ));
    }
    let exp = Experiment::load(&args.scenario, &args.sets.sets, None)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&exp.name));
    let out = absolute(&out)?;
    let scenario = absolute(&args.scenario)?;
    let bin = std::env::current_exe().map_err(|e| Error::Io(format!("flitsim's path: {e}")))?;
    let slurm_dir = out.join("slurm");
    let n = args.tasks;
    let q = |p: &Path| quoted(&p.display().to_string());
    let mut header = vec!["#!/bin/bash".to_string()];
    let mut options = Vec::new();
    if let Some(p) = &args.partition {
        options.push(format!("#SBATCH --partition={p}"));
    }
    if let Some(t) = &args.time {
        options.push(format!("#SBATCH --time={t}"));
    }
    let sets: String = args
        .sets
        .sets
        .iter()
        .map(|s| format!(" --set {}", quoted(s)))
        .collect();
    let mut shards = header.clone();
    shards.extend([
        format!("#SBATCH --job-name=flitsim-{}", exp.name),
        format!("#SBATCH --array=1-{n}"),
        format!("#SBATCH --cpus-per-task={}", args.cpus),
        format!("#SBATCH --output={}/shard-%a.log", slurm_dir.display()),
    ]);
    shards.extend(options.iter().cloned());
    shards.extend([
        "set -euo pipefail".to_string(),
        format!(
            "exec {} run {} --out {}/shards/\"$SLURM_ARRAY_TASK_ID\" --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\"{sets}",
            q(&bin),
            q(&scenario),
            q(&out)
        ),
    ]);
    header.extend([
        format!("#SBATCH --job-name=flitsim-{}-merge", exp.name),
        "#SBATCH --cpus-per-task=1".to_string(),
        format!("#SBATCH --output={}/merge.log", slurm_dir.display()),
    ]);
    header.extend(options);
    let dirs: String = (1..=n)
        .map(|i| format!(" {}/shards/{i}", q(&out)))
        .collect();
    header.extend([
        "set -euo pipefail".to_string(),
        format!("exec {} merge {}{dirs}", q(&bin), q(&out)),
    ]);
    let submit = [
        "#!/bin/bash".to_string(),
        "# Submits the shards as a job array, then the merge once every task has succeeded."
            .to_string(),
        "set -euo pipefail".to_string(),
        format!(
            "array=$(sbatch --parsable {})",
            q(&slurm_dir.join("shards.sbatch"))
        ),
        format!(
            "merge=$(sbatch --parsable --dependency=afterok:\"${{array%%;*}}\" {})",
            q(&slurm_dir.join("merge.sbatch"))
        ),
        "echo \"submitted: shards as job $array, merge as job $merge\"".to_string(),
    ];
    std::fs::create_dir_all(&slurm_dir)
        .map_err(|e| Error::Io(format!("{}: {e}", slurm_dir.display())))?;
    for (name, lines) in [
        ("shards.sbatch", shards),
        ("merge.sbatch", header),
        ("submit.sh", submit.to_vec()),
    ] {
        flitsim::output::write_file(&slurm_dir, name, &(lines.join("\n") + "\n"))?;
    }
    let submit_path = slurm_dir.join("submit.sh");
    if !args.submit {
        out!(
            "{} points in {n} shards; scripts in {}/; submit with: bash {} (it runs: sbatch --parsable {}, then sbatch --dependency=afterok:<that job> {})",
            exp.points().len(),
            slurm_dir.display(),
            submit_path.display(),
            slurm_dir.join("shards.sbatch").display(),
            slurm_dir.join("merge.sbatch").display()
        );
        return Ok(());
    }
    let o = std::process::Command::new("bash")
        .arg(&submit_path)
        .output()
        .map_err(|e| Error::Io(format!("bash {}: {e}", submit_path.display())))?;
    if !o.status.success() {
        return Err(Error::Io(format!(
            "sbatch failed: {}; fix: check that sbatch is on PATH and the cluster answers (sinfo)",
            String::from_utf8_lossy(&o.stderr).trim()
        )));
    }
    out!("{}", String::from_utf8_lossy(&o.stdout).trim());
    Ok(())
}
