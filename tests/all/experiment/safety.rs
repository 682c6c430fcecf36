//! Nothing lost, no one in: duplicate points are refused before anything runs; a directory
//! holding another experiment, or files flitsim did not write, is refused and left as it was;
//! links and special files in an output or shard directory are refused at once, never followed
//! or waited on; a record that cannot be saved stops the run at once with the right fix; merge
//! refuses one of its shards as its output.

use super::{TORUS, flitsim, ok, refused, scenario};
use crate::common::{fifo, temp_dir};
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant};

/// The files of `dir` and its `.points/` (name → bytes), everything flitsim could touch.
fn everything(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in [dir.to_path_buf(), dir.join(".points")] {
        for e in fs::read_dir(&sub).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() && !p.ends_with(".flitsim.lock") {
                out.push((p.display().to_string(), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Duplicate seeds, loads, swept values and fraction lists are refused by `check` and `run`
/// (with 2 and 3 threads) naming the duplicated value; nothing is written.
#[test]
fn duplicate_points_are_refused_naming_the_value() {
    let tmp = temp_dir("exp-dups");
    let d = tmp.path();
    let cases = [
        ("seed = 1", "seeds = [1, 2, 1]", "seeds: 1 is listed twice"),
        (
            "flit_rates = [0.05, 0.1]",
            "flit_rates = [0.05, 0.1, 0.05]",
            "flit_rates: 0.05 is listed twice",
        ),
        (
            "[topology]",
            "[sweep]\n\"router.vcs\" = [2, 3, 2]\n[topology]",
            "router.vcs: 2 is listed twice",
        ),
        (
            "message_length = 8",
            "message_length = 8\npattern_fraction = [0.5, 0.5]",
            "pattern_fraction: 0.5 is listed twice",
        ),
    ];
    for (old, new, expect) in cases {
        let text = TORUS.replace(old, new);
        assert_ne!(text, TORUS, "{old}");
        let s = scenario(d, "s.toml", &text);
        refused(&flitsim(d, "check", &["check", &s]), &["s.toml", expect]);
        for threads in ["2", "3"] {
            let o = flitsim(d, "run", &["run", &s, "--out", "out", "--threads", threads]);
            refused(&o, &[expect, "list each value once"]);
        }
        assert!(!d.join("out").exists(), "nothing written");
    }
    let s = scenario(d, "s.toml", TORUS);
    refused(
        &flitsim(d, "set", &["check", &s, "--set", "sweep.router.vcs=[3, 3]"]),
        &["--set sweep.router.vcs=[3, 3]", "3 is listed twice"],
    );
}

/// A smaller experiment (another `--seed`, a `--set`) into a study's directory is refused with
/// exit 2 naming both, and every record, table and plot of the study is left as it was; with
/// `--replace` it takes the directory over, reusing the records of the points it shares.
#[test]
fn another_experiment_is_refused_and_the_study_left_whole() {
    let tmp = temp_dir("exp-other");
    let d = tmp.path();
    let text = TORUS.replace("seed = 1", "seeds = [1, 2, 3]");
    let s = scenario(d, "s.toml", &text);
    ok(&flitsim(
        d,
        "study",
        &["run", &s, "--out", "study", "--quiet"],
    ));
    ok(&flitsim(d, "plot", &["plot", "study"]));
    let before = everything(&d.join("study"));
    assert_eq!(fs::read_dir(d.join("study/.points")).unwrap().count(), 6);
    for extra in [
        &["--seed", "2"][..],
        &["--set", "traffic.flit_rates=[0.05]"],
        &["--set", "router.vcs=4"],
    ] {
        let args = [&["run", &s, "--out", "study"][..], extra].concat();
        let o = flitsim(d, "smaller", &args);
        refused(
            &o,
            &[
                "study: the directory holds the results of experiment",
                "--replace",
            ],
        );
        assert_eq!(
            everything(&d.join("study")),
            before,
            "{extra:?}: nothing changed"
        );
        let o = flitsim(
            d,
            "sat",
            &[&["saturation", &s, "--out", "study"][..], extra].concat(),
        );
        refused(&o, &["study: the directory holds"]);
        assert_eq!(
            everything(&d.join("study")),
            before,
            "{extra:?}: nothing changed"
        );
    }
    let o = flitsim(
        d,
        "replace",
        &["run", &s, "--out", "study", "--seed", "2", "--replace"],
    );
    ok(&o);
    assert!(o.stdout.contains("2 points: 0 run, 2 kept"), "{}", o.stdout);
    assert_eq!(fs::read_dir(d.join("study/.points")).unwrap().count(), 2);
    assert!(
        !d.join("study/latency.svg").exists(),
        "the old study's plots went with it"
    );
}

/// `--out` into a directory flitsim never wrote: refused (exit 2) naming its files; with
/// `--replace` flitsim writes beside them; a file there under a name flitsim writes (the
/// user's own latency.svg, model.csv) is refused even then, and never touched.
#[test]
fn a_directory_flitsim_never_wrote_keeps_every_file() {
    let tmp = temp_dir("exp-foreign");
    let d = tmp.path();
    let s = scenario(d, "s.toml", TORUS);
    let mine = d.join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("latency.svg"), "my plot").unwrap();
    fs::write(mine.join("model.csv"), "my model").unwrap();
    fs::write(mine.join("paper.tex"), "my paper").unwrap();
    let o = flitsim(d, "run", &["run", &s, "--out", "mine", "--quiet"]);
    refused(&o, &["mine/", "not written by flitsim"]);
    let o = flitsim(
        d,
        "run",
        &["run", &s, "--out", "mine", "--quiet", "--replace"],
    );
    refused(&o, &["not written by flitsim", "move it away"]);
    ok(&flitsim(d, "r", &["run", &s, "--out", "r", "--quiet"]));
    let o = flitsim(d, "plot", &["plot", "r", "--out", "mine"]);
    refused(&o, &["mine/latency.svg: not written by flitsim"]);
    assert_eq!(
        fs::read_to_string(mine.join("latency.svg")).unwrap(),
        "my plot"
    );
    assert_eq!(
        fs::read_to_string(mine.join("model.csv")).unwrap(),
        "my model"
    );
    fs::remove_file(mine.join("latency.svg")).unwrap();
    fs::remove_file(mine.join("model.csv")).unwrap();
    let o = flitsim(d, "run", &["run", &s, "--out", "mine", "--quiet"]);
    refused(
        &o,
        &["files flitsim did not write (paper.tex)", "--replace"],
    );
    ok(&flitsim(
        d,
        "run",
        &["run", &s, "--out", "mine", "--quiet", "--replace"],
    ));
    assert_eq!(
        fs::read_to_string(mine.join("paper.tex")).unwrap(),
        "my paper"
    );
    assert!(mine.join("summary.csv").exists());
}

/// A `.points` link, a `.flitsim.lock` link, a FIFO or a link to /dev/zero among the records,
/// and a FIFO or a link among a merge's inputs: each refused in under a second, naming it, and
/// nothing where the links point is read, truncated or removed.
#[test]
fn links_and_special_files_are_refused_at_once() {
    let tmp = temp_dir("exp-special");
    let d = tmp.path();
    let s = scenario(d, "s.toml", TORUS);
    let victim = d.join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("unrelated"), "keep me").unwrap();
    let at_once = |tag: &str, args: &[&str], expect: &str| {
        let t = Instant::now();
        let o = flitsim(d, tag, args);
        assert!(t.elapsed() < Duration::from_secs(1), "{tag}: at once");
        assert!(matches!(o.code, Some(2) | Some(4)), "{tag}: {}", o.stderr);
        assert_eq!(o.stderr.lines().count(), 1, "{tag}: {}", o.stderr);
        assert!(
            o.stderr.contains(expect),
            "{tag}: {expect:?} in {}",
            o.stderr
        );
    };
    fs::create_dir(d.join("a")).unwrap();
    std::os::unix::fs::symlink(&victim, d.join("a/.points")).unwrap();
    at_once("points-link", &["run", &s, "--out", "a"], "a/.points");
    fs::create_dir(d.join("b")).unwrap();
    std::os::unix::fs::symlink(victim.join("unrelated"), d.join("b/.flitsim.lock")).unwrap();
    at_once("lock-link", &["run", &s, "--out", "b"], ".flitsim.lock");
    assert_eq!(
        fs::read_to_string(victim.join("unrelated")).unwrap(),
        "keep me"
    );
    // A study whose records are replaced by a FIFO and a link to /dev/zero.
    ok(&flitsim(
        d,
        "c",
        &["run", &s, "--out", "c", "--quiet", "--shard", "1/1"],
    ));
    let records: Vec<_> = fs::read_dir(d.join("c/.points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fs::remove_file(&records[0]).unwrap();
    fifo(&records[0]);
    let name = records[0]
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    at_once(
        "record-fifo",
        &["run", &s, "--out", "c", "--shard", "1/1"],
        &name,
    );
    at_once("merge-fifo", &["merge", "m1", "c"], &name);
    fs::remove_file(&records[0]).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &records[0]).unwrap();
    at_once(
        "record-zero",
        &["run", &s, "--out", "c", "--shard", "1/1"],
        &name,
    );
    at_once("merge-zero", &["merge", "m2", "c"], &name);
    fs::remove_file(&records[0]).unwrap();
    fs::rename(d.join("c/experiment.json"), d.join("c/e.json")).unwrap();
    fifo(&d.join("c/experiment.json"));
    at_once("merge-json", &["merge", "m3", "c"], "experiment.json");
    // The tables `plot` reads.
    ok(&flitsim(d, "p", &["run", &s, "--out", "p", "--quiet"]));
    fs::remove_file(d.join("p/summary.csv")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("p/summary.csv")).unwrap();
    at_once("plot-zero", &["plot", "p"], "summary.csv");
    fifo(&d.join("p/pooled.csv"));
    at_once("plot-fifo", &["plot", "p"], "pooled.csv");
    assert_eq!(fs::read_dir(&victim).unwrap().count(), 1);
}

/// A record store that cannot be written (read-only) or a disk full from the start stops the
/// run before anything is simulated, with the fix for that error; a disk that fills during the
/// run stops it at once, keeping the points saved. Skipped, saying so, where a tmpfs cannot be
/// mounted.
#[test]
fn a_save_that_fails_stops_the_run_at_once() {
    let tmp = temp_dir("exp-save");
    let d = tmp.path();
    let mnt = d.join("mnt");
    fs::create_dir(&mnt).unwrap();
    let Some(_guard) =
        crate::common::small_tmpfs(&mnt, "1m", "a_save_that_fails_stops_the_run_at_once")
    else {
        return;
    };
    // Many long points: a run that went on after its first failed save would take minutes.
    let long = TORUS
        .replace("seed = 1", "seeds = [1, 2, 3, 4, 5, 6, 7, 8]")
        .replace("k = 4", "k = 8")
        .replace("measure_cycles = 2000", "measure_cycles = 100000");
    let s = scenario(d, "s.toml", &long);
    // Read-only: the records directory remounted read-only over a tmpfs.
    let out = mnt.join("ro");
    fs::create_dir_all(out.join(".points")).unwrap();
    let ro = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs"])
        .arg(out.join(".points"))
        .status()
        .unwrap();
    assert!(ro.success());
    let t = Instant::now();
    let o = flitsim(
        d,
        "ro",
        &["run", &s, "--out", out.to_str().unwrap(), "--quiet"],
    );
    let _ = std::process::Command::new("umount")
        .arg(out.join(".points"))
        .status();
    assert_eq!(o.code, Some(4), "{}", o.stderr);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "stopped before simulating"
    );
    assert!(
        o.stderr.contains("writable") && !o.stderr.contains("free space"),
        "{}",
        o.stderr
    );
    // Full from the start: the tmpfs filled by a file of the user's.
    let fill = mnt.join("fill");
    let _ = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=4k", "count=1024"])
        .arg(format!("of={}", fill.display()))
        .output();
    let t = Instant::now();
    let o = flitsim(
        d,
        "full",
        &[
            "run",
            &s,
            "--out",
            mnt.join("full").to_str().unwrap(),
            "--quiet",
        ],
    );
    assert_eq!(o.code, Some(4), "{}", o.stderr);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "stopped before simulating"
    );
    assert!(o.stderr.contains("free space"), "{}", o.stderr);
    // Full during the run: room for two or three records (7 KiB each) only.
    fs::remove_file(&fill).unwrap();
    let _ = fs::remove_dir_all(mnt.join("full"));
    let keep = 1024 * 1024 - 28 * 1024;
    let _ = std::process::Command::new("dd")
        .args(["if=/dev/zero", "bs=1024", &format!("count={}", keep / 1024)])
        .arg(format!("of={}", fill.display()))
        .output();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["run", &s, "--threads", "2", "--out"])
        .arg(mnt.join("fills"))
        .env("FLITSIM_REPORT_SECONDS", "0.02")
        .current_dir(d)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    let last = err.lines().last().unwrap();
    assert!(
        last.contains("free space") && last.contains("kept"),
        "{err}"
    );
    let saved = fs::read_dir(mnt.join("fills/.points")).unwrap().count();
    // Points done, as the progress reports count them: never more than those saved and the
    // two running when the first save failed.
    let done = err
        .lines()
        .filter_map(|l| {
            l.split(": ")
                .nth(2)?
                .split('/')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    assert!(
        saved < 16 && done <= saved + 2,
        "saved {saved}, done {done}: {err}"
    );
}

/// `merge` refuses one of its shard directories as OUT, before reading or writing anything.
#[test]
fn merge_refuses_a_shard_as_its_output() {
    let tmp = temp_dir("exp-merge-out");
    let d = tmp.path();
    let s = scenario(d, "s.toml", TORUS);
    ok(&flitsim(
        d,
        "s1",
        &["run", &s, "--out", "s1", "--quiet", "--shard", "1/2"],
    ));
    ok(&flitsim(
        d,
        "s2",
        &["run", &s, "--out", "s2", "--quiet", "--shard", "2/2"],
    ));
    let before = everything(&d.join("s1"));
    refused(
        &flitsim(d, "merge", &["merge", "s1", "s1", "s2"]),
        &["OUT s1 is also one of the shard directories"],
    );
    refused(
        &flitsim(d, "merge", &["merge", "./s1/", "s1", "s2"]),
        &["is also one of the shard directories"],
    );
    assert_eq!(everything(&d.join("s1")), before);
    ok(&flitsim(d, "merge", &["merge", "m", "s1", "s2"]));
}

/// The README's quick start writes into a directory git ignores, never over the checkout's
/// tracked results. Skipped, saying so, outside a git checkout.
#[test]
fn the_quick_start_writes_outside_tracked_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let start = readme.split("## Quick start").nth(1).unwrap();
    let command = start
        .lines()
        .find(|l| l.starts_with("cargo run --release -- run "))
        .expect("the quick start's run command");
    let out = command
        .split("--out ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the quick start gives --out");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
    };
    match git(&["rev-parse", "--is-inside-work-tree"]) {
        Ok(o) if o.status.success() => {}
        _ => {
            eprintln!("SKIPPED the_quick_start_writes_outside_tracked_files: not a git checkout");
            return;
        }
    }
    let probe = format!("{out}/summary.csv");
    let ignored = git(&["check-ignore", "-q", &probe]).unwrap();
    assert!(ignored.status.success(), "{probe} is not ignored by git");
    let tracked = git(&["ls-files", out]).unwrap();
    assert!(tracked.stdout.is_empty(), "{out} holds tracked files");
}
