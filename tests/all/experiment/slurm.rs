//! `flitsim slurm` writes the job array, the merge job and the script that submits them with
//! the dependency; run here by bash as SLURM would run them (its #SBATCH lines are comments to
//! bash), with a fake `sbatch` that records what it is given, they produce the tables of a
//! single run, whatever characters the output directory and the `--set` values hold, and
//! nothing in them runs as a command. tests/slurm/e2e.sh runs them on a real cluster.

use super::{BIN, TORUS, flitsim, ok, refused, scenario, tables};
use crate::common::temp_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Characters the shell or sbatch would read otherwise (quotes, substitutions, separators,
/// globs, a `%` field of SLURM's log names), all legal in a path.
const HOSTILE: &str = r#"it's "a" $(touch MARKER1) `touch MARKER2`; * ? [ab] {c,d} ~ 100%a !x & |"#;

/// A `--set` as hostile: a TOML comment after the value.
const HOSTILE_SET: &str =
    r#"run.measure_cycles = 3000 # it's "$(touch MARKER3)" `touch MARKER4`; * ? & | \"#;

/// Every file under `dir` whose name starts with MARKER.
fn markers(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("MARKER")
        {
            found.push(p.clone());
        }
        if p.is_dir() && !p.is_symlink() {
            found.extend(markers(&p));
        }
    }
    found
}

/// A fake `sbatch` in `dir`/bin: each call writes its working directory and arguments, one a
/// line, to `dir`/calls/N, prints job id 100 + N, and runs nothing.
fn fake_sbatch(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    let calls = dir.join("calls");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&calls).unwrap();
    let script = format!(
        "#!/bin/bash\nset -eu\nn=$(ls '{c}' | wc -l)\nn=$((n + 1))\n{{ printf '%s\\n' \"$PWD\"; printf '%s\\n' \"$@\"; }} > '{c}'/\"$n\"\necho $((100 + n))\n",
        c = calls.display()
    );
    let path = bin.join("sbatch");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// Runs `bash ARGS...` in `dir` with `env`, and says whether it succeeded.
fn bash(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> bool {
    Command::new("bash")
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap()
        .success()
}

#[test]
fn hostile_paths_and_sets_reach_the_jobs_intact_and_run_nothing() {
    let tmp = temp_dir("exp-slurm");
    let d = tmp.path();
    let text = TORUS
        .replace(
            "[topology]",
            "[sweep]\n\"router.vcs\" = [3, 4]\n\n[topology]",
        )
        .replace("seed = 1", "seeds = [1, 2]");
    let s = scenario(d, "s.toml", &text);
    let out_name = format!("cluster {HOSTILE}");
    let args = [
        "slurm",
        &s,
        "--tasks",
        "3",
        "--cpus",
        "2",
        "--partition",
        "short,long",
        "--time",
        "1-00:30",
        "--out",
        &out_name,
        "--set",
        HOSTILE_SET,
    ];
    let o = flitsim(d, "slurm", &args);
    ok(&o);
    let out = d.join(&out_name);
    let dir = out.join("slurm");
    assert!(
        o.stdout.starts_with("8 points in 3 shards; "),
        "{}",
        o.stdout
    );
    let submit = dir.join("submit.sh").display().to_string();
    let submit = format!("submit with: bash '{}' (", submit.replace('\'', "'\\''"));
    assert!(o.stdout.contains(&submit), "{}", o.stdout);
    let shards = std::fs::read_to_string(dir.join("shards.sbatch")).unwrap();
    let lines: Vec<&str> = shards.lines().collect();
    assert_eq!(
        lines[..7],
        [
            "#!/bin/bash",
            "#SBATCH --job-name=flitsim-study",
            "#SBATCH --array=1-3",
            "#SBATCH --cpus-per-task=2",
            "#SBATCH --partition=short,long",
            "#SBATCH --time=1-00:30",
            "set -euo pipefail",
        ]
    );
    assert_eq!(lines.len(), 8, "{shards}");
    let merge = std::fs::read_to_string(dir.join("merge.sbatch")).unwrap();
    assert!(merge.contains(" --dirs-from "), "{merge}");
    for script in [&shards, &merge] {
        for l in script.lines().filter(|l| l.starts_with("#SBATCH")) {
            assert!(!l.contains('/'), "a path on an #SBATCH line: {l}");
        }
    }
    let list: String = (1..=3)
        .map(|i| format!("{}\n", out.join("shards").join(i.to_string()).display()))
        .collect();
    assert_eq!(
        std::fs::read_to_string(dir.join("shards.list")).unwrap(),
        list
    );
    for script in ["shards.sbatch", "merge.sbatch", "submit.sh"] {
        assert!(bash(&dir, &["-n", script], &[]), "bash -n {script}");
    }
    submit_with_a_fake_sbatch(d, &args, &dir);
    assert_eq!(markers(d), Vec::<PathBuf>::new(), "something ran");
    // As SLURM would: each array task, then the merge, in OUT/slurm; whether anything ran is
    // asked first.
    let mut done: Vec<(String, bool)> = ["1", "2", "3"]
        .map(|i| {
            let env = [("SLURM_ARRAY_TASK_ID", i), ("SLURM_CPUS_PER_TASK", "2")];
            (format!("task {i}"), bash(&dir, &["shards.sbatch"], &env))
        })
        .into();
    done.push(("merge".into(), bash(&dir, &["merge.sbatch"], &[])));
    assert_eq!(markers(d), Vec::<PathBuf>::new(), "something ran");
    assert!(markers(Path::new(".")).is_empty(), "something ran here");
    for (job, succeeded) in done {
        assert!(succeeded, "{job}");
    }
    ok(&flitsim(
        d,
        "single",
        &[
            "run",
            &s,
            "--out",
            "single",
            "--quiet",
            "--set",
            HOSTILE_SET,
        ],
    ));
    assert_eq!(tables(&out).len(), 7, "the tables of a run");
    assert_eq!(tables(&out), tables(&d.join("single")));
}

/// `flitsim slurm ... --submit` with the fake sbatch first on PATH: submit.sh calls it twice
/// from OUT/slurm with the scripts' plain names and their logs' names (OUT's `%` doubled, as
/// SLURM's log patterns read it), the merge depending on the array's job.
fn submit_with_a_fake_sbatch(d: &Path, args: &[&str], dir: &Path) {
    let bin = fake_sbatch(d);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let o = Command::new(BIN)
        .args(args)
        .arg("--submit")
        .current_dir(d)
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "submitted: shards as job 101, merge as job 102\n"
    );
    let call = |n: u32| std::fs::read_to_string(d.join("calls").join(n.to_string())).unwrap();
    let here = dir.display().to_string();
    let logs = here.replace("100%a", "100%%a");
    assert_eq!(
        call(1),
        format!("{here}\n--parsable\n--output={logs}/shard-%a.log\nshards.sbatch\n")
    );
    assert_eq!(
        call(2),
        format!(
            "{here}\n--parsable\n--dependency=afterok:101\n--output={logs}/merge.log\nmerge.sbatch\n"
        )
    );
}

#[test]
fn values_that_would_break_a_script_are_refused_naming_their_flag() {
    let tmp = temp_dir("exp-slurm-bad");
    let d = tmp.path();
    // 2 points: 2 loads, 1 seed.
    let s = scenario(d, "s.toml", TORUS);
    let nl = scenario(d, "a\nb.toml", TORUS);
    let named = scenario(d, "named.toml", &TORUS.replace("\"study\"", "\"a\\nb\""));
    let cases: [(&[&str], &str); 16] = [
        (
            &["--partition", "a\nb"],
            r#"--partition "a\nb": not a SLURM partition name"#,
        ),
        (
            &["--partition", "a b"],
            r#"--partition "a b": not a SLURM partition name"#,
        ),
        (
            &["--partition", "short,"],
            r#"--partition "short,": not a SLURM"#,
        ),
        (
            &["--time", "1:00\n#SBATCH --x"],
            r#"--time "1:00\n#SBATCH --x": not a SLURM time limit"#,
        ),
        (&["--time", "2h"], r#"--time "2h": not a SLURM time limit"#),
        (&["--cpus", "0"], "--cpus 0: not from 1 to 65533"),
        (&["--cpus", "65534"], "--cpus 65534: not from 1 to 65533"),
        (
            &["--tasks", "0"],
            "--tasks 0: 0 shares of an experiment of 2 points",
        ),
        (
            &["--tasks", "3"],
            "--tasks 3: 3 shares of an experiment of 2 points, so a share would hold no point; fix: give --tasks from 1 to 2",
        ),
        (
            &["--tasks", "100000"],
            "--tasks 100000: 100000 shares of an experiment of 2 points",
        ),
        (
            &["--set", "run.measure_cycles=3000\ntouch X"],
            r#"--set: "run.measure_cycles=3000\ntouch X" holds a control character (U+000A)"#,
        ),
        (
            &["--set", "run.seed=1\r"],
            "holds a control character (U+000D)",
        ),
        (&["--out", "o\nid"], r#"--out: ""#),
        (&["--out", "o\tx"], "holds a control character (U+0009)"),
        (
            &["--out", "o\u{1b}[2J"],
            "holds a control character (U+001B)",
        ),
        (
            &["--out", "a\\b"],
            r#"a\\b" holds a backslash, which SLURM reads in the names of the jobs' logs"#,
        ),
    ];
    for (extra, expect) in cases {
        let mut args = vec!["slurm", &s];
        if extra[0] != "--tasks" {
            args.extend(["--tasks", "2"]);
        }
        args.extend_from_slice(extra);
        refused(&flitsim(d, "bad", &args), &[expect]);
    }
    refused(
        &flitsim(d, "nl", &["slurm", &nl, "--tasks", "1"]),
        &[
            r#"SCENARIO: ""#,
            r#"a\nb.toml" holds a control character (U+000A)"#,
        ],
    );
    // The job's name is the scenario's, which the scenario's own check keeps to plain words.
    refused(
        &flitsim(d, "named", &["slurm", &named, "--tasks", "1"]),
        &["name", r#""a\nb" is not usable as a directory name"#],
    );
    use std::os::unix::ffi::OsStrExt;
    let o = Command::new(BIN)
        .args(["slurm", &s, "--tasks", "1", "--out"])
        .arg(std::ffi::OsStr::from_bytes(b"o\xff"))
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("flitsim: error: --out: ") && err.contains("is not UTF-8"),
        "{err}"
    );
    let left: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".toml") && !n.ends_with(".out") && !n.ends_with(".err"))
        .collect();
    assert!(left.is_empty(), "a refusal wrote {left:?}");
}
