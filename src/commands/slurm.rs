//! `slurm`: the sbatch scripts that run an experiment's shards as a SLURM job array and merge
//! them in a job that depends on the array, and, with `--submit`, their submission.
//!
//! Nothing a user gives runs as a command. Three parsers read what is written: sbatch reads
//! the `#SBATCH` lines, with a syntax of its own that shell quoting does not protect; SLURM
//! reads log file names as patterns (`%a` is the array task, `%%` a `%`, and a backslash
//! anywhere turns the fields off), directory included (with SLURM 22.05 a relative name is
//! read after the job's directory is put in front: a backslash there turned off `%a`, and
//! was dropped); bash reads the rest. So the `#SBATCH` lines hold only
//! plain, checked words ([`values`]): the job name (`flitsim-` and the scenario's `name`,
//! which the scenario's own check keeps to letters, digits, `-`, `_` and `.`), the array's
//! range and the CPUs (numbers in range), the partition (SLURM partition names) and the time
//! limit (SLURM's time forms). No path goes there. The logs' names are given on sbatch's
//! command line in `submit.sh`, where bash's quoting holds: `--output=OUT/slurm/shard-%a.log`
//! and `--output=OUT/slurm/merge.log`, single-quoted, every `%` of OUT doubled, and an OUT
//! holding a backslash refused. The other paths (flitsim's binary, the scenario, OUT) and the
//! `--set` values go only into bash lines, single-quoted. A value holding a control character
//! (a newline would end a line and start a command) or a path that is not UTF-8 is refused
//! naming its flag. The merge job reads its shard directories from `OUT/slurm/shards.list`
//! (`flitsim merge --dirs-from`), so its command line does not grow with the tasks, which are
//! at most the experiment's points.

mod values;

use crate::SlurmArgs;
use flitsim::experiment::{Experiment, shard};
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

/// What the job scripts say, every value checked: the plain words of the `#SBATCH` lines and
/// the shell-quoted words of the commands.
struct Job {
    /// The scenario's name (letters, digits, `-`, `_`, `.`).
    name: String,
    /// The experiment's points.
    points: usize,
    /// Tasks of the array: the shards.
    tasks: usize,
    /// CPUs per task.
    cpus: usize,
    /// The `#SBATCH` lines of `--partition` and `--time`, both jobs'.
    options: Vec<String>,
    /// flitsim's binary, quoted.
    bin: String,
    /// The scenario file, quoted.
    scenario: String,
    /// The output directory, quoted.
    out: String,
    /// `OUT/slurm`, as written (checked).
    slurm_dir: String,
    /// The shard list, quoted.
    list: String,
    /// The ` --set='KEY=VALUE'` words.
    sets: String,
}

impl Job {
    /// An sbatch script: the job's own `#SBATCH` lines, the options both jobs share, then
    /// `command` under `set -euo pipefail`.
    fn script(&self, own: &[String], command: String) -> String {
        let mut lines = vec!["#!/bin/bash".to_string()];
        lines.extend_from_slice(own);
        lines.extend(self.options.iter().cloned());
        lines.extend(["set -euo pipefail".to_string(), command]);
        lines.join("\n") + "\n"
    }

    /// The array: task I runs shard I/N into `OUT/shards/I`.
    fn shards(&self) -> String {
        let n = self.tasks;
        self.script(
            &[
                format!("#SBATCH --job-name=flitsim-{}", self.name),
                format!("#SBATCH --array=1-{n}"),
                format!("#SBATCH --cpus-per-task={}", self.cpus),
            ],
            format!(
                "exec {} run {} --out {}/shards/\"$SLURM_ARRAY_TASK_ID\" --shard \"$SLURM_ARRAY_TASK_ID/{n}\" --threads \"${{SLURM_CPUS_PER_TASK:-1}}\"{}",
                self.bin, self.scenario, self.out, self.sets
            ),
        )
    }

    /// The merge of the shards listed in `OUT/slurm/shards.list` into OUT.
    fn merge(&self) -> String {
        self.script(
            &[
                format!("#SBATCH --job-name=flitsim-{}-merge", self.name),
                "#SBATCH --cpus-per-task=1".to_string(),
            ],
            format!(
                "exec {} merge {} --dirs-from {}",
                self.bin, self.out, self.list
            ),
        )
    }

    /// `submit.sh`: in `OUT/slurm`, submits the array, then the merge once every task has
    /// succeeded, each with its log's name (a pattern whose `%`s are SLURM's: OUT's doubled).
    fn submit(&self) -> String {
        let logs = self.slurm_dir.replace('%', "%%");
        let output = |name: &str| quoted(&format!("--output={logs}/{name}"));
        [
            "#!/bin/bash".to_string(),
            "# Submits the shards as a job array, then the merge once every task has succeeded;"
                .to_string(),
            "# the jobs start in this directory, and their logs go to it.".to_string(),
            "set -euo pipefail".to_string(),
            format!("cd {}", quoted(&self.slurm_dir)),
            format!(
                "array=$(sbatch --parsable {} shards.sbatch)",
                output("shard-%a.log")
            ),
            format!(
                "merge=$(sbatch --parsable --dependency=afterok:\"${{array%%;*}}\" {} merge.sbatch)",
                output("merge.log")
            ),
            "echo \"submitted: shards as job $array, merge as job $merge\"".to_string(),
        ]
        .join("\n")
            + "\n"
    }
}

/// The job of `args`, every value checked (see the module's doc), the experiment's output
/// directory and the experiment.
fn job(args: &SlurmArgs) -> Result<(Job, PathBuf, Experiment)> {
    let cpus = values::cpus(args.cpus)?;
    let mut options = Vec::new();
    if let Some(p) = &args.partition {
        options.push(format!("#SBATCH --partition={}", values::partition(p)?));
    }
    if let Some(t) = &args.time {
        options.push(format!("#SBATCH --time={}", values::time(t)?));
    }
    for s in &args.sets.sets {
        values::no_control(
            "--set",
            s,
            "give --set KEY=VALUE on one line, without tabs or other control characters",
        )?;
    }
    let scenario = values::script_path(
        "SCENARIO",
        &absolute(&args.scenario)?,
        "give the scenario by a path of UTF-8 characters without control characters (rename or link it)",
    )?;
    let exe = std::env::current_exe().map_err(|e| Error::Io(format!("flitsim's path: {e}")))?;
    let bin = values::script_path(
        "flitsim's own path",
        &exe,
        "install flitsim at a path of UTF-8 characters without control characters",
    )?;
    let exp = Experiment::load(&args.scenario, &args.sets.sets, None)?;
    let (n, points) = (args.tasks, exp.points().len());
    shard::check_count(&format!("--tasks {n}"), "--tasks", n, points)?;
    let out = absolute(
        &args
            .out
            .clone()
            .unwrap_or_else(|| Path::new("results").join(&exp.name)),
    )?;
    let out_text = values::script_path(
        "--out",
        &out,
        "give --out a path of UTF-8 characters without control characters (from a current directory without them)",
    )?;
    values::no_backslash("--out", &out_text)?;
    let slurm_dir = out.join("slurm");
    let list = slurm_dir.join("shards.list");
    let job = Job {
        name: exp.name.clone(),
        points,
        tasks: n,
        cpus,
        options,
        bin: quoted(&bin),
        scenario: quoted(&scenario),
        out: quoted(&out_text),
        slurm_dir: slurm_dir.display().to_string(),
        list: quoted(&list.display().to_string()),
        sets: args
            .sets
            .sets
            .iter()
            .map(|s| format!(" --set={}", quoted(s)))
            .collect(),
    };
    Ok((job, out, exp))
}

/// Writes `OUT/slurm/shards.sbatch` (the array: task I runs shard I/N into `OUT/shards/I` with
/// `--threads $SLURM_CPUS_PER_TASK`), `OUT/slurm/shards.list` (those directories, one a
/// line), `OUT/slurm/merge.sbatch` (merges the listed shards into OUT) and
/// `OUT/slurm/submit.sh` (in `OUT/slurm`, submits the array, then the merge with
/// `--dependency=afterok:<array>`); prints how to submit, or submits with `--submit`.
pub fn slurm(args: &SlurmArgs) -> Result<()> {
    let (job, out, exp) = job(args)?;
    // OUT is the merged results' directory: claimed for them now, the scripts' and shards'
    // subdirectories listed as flitsim's.
    let owner = flitsim::experiment::directory::Owner::Run(exp.hash());
    let dir = flitsim::experiment::directory::OutDir::open(
        &out,
        super::claim(&exp, owner, args.replace),
    )?;
    dir.add_dirs(&["slurm", "shards"])?;
    let slurm_dir = out.join("slurm");
    let list: String = (1..=job.tasks)
        .map(|i| format!("{}\n", out.join("shards").join(i.to_string()).display()))
        .collect();
    for (name, text) in [
        ("shards.sbatch", job.shards()),
        ("shards.list", list),
        ("merge.sbatch", job.merge()),
        ("submit.sh", job.submit()),
    ] {
        dir.write_under("slurm", name, text.as_bytes())?;
    }
    drop(dir);
    let submit = quoted(&slurm_dir.join("submit.sh").display().to_string());
    if !args.submit {
        out!(
            "{} points in {} shards; scripts in {}/; submit with: bash {submit} (it runs, in that directory, sbatch on shards.sbatch, then on merge.sbatch with --dependency=afterok:<that job>)",
            job.points,
            job.tasks,
            slurm_dir.display(),
        );
        return Ok(());
    }
    let o = std::process::Command::new("bash")
        .arg(slurm_dir.join("submit.sh"))
        .output()
        .map_err(|e| Error::Io(format!("bash {submit}: {e}")))?;
    if !o.status.success() {
        let said: Vec<String> = String::from_utf8_lossy(&o.stderr)
            .lines()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        return Err(Error::Io(format!(
            "sbatch failed: {}; fix: check that sbatch is on PATH and the cluster answers (sinfo)",
            said.join(" / ")
        )));
    }
    out!("{}", String::from_utf8_lossy(&o.stdout).trim());
    Ok(())
}
