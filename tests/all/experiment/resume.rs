//! Per-point records: a run killed at any moment keeps every finished point, leaves the earlier
//! complete results alone, and resumes into tables byte-identical to an uninterrupted run's,
//! whatever the thread counts; a changed key reruns exactly the points it affects.

use super::{TORUS, finish, flitsim, ok, scenario, spawn, tables};
use crate::common::temp_dir;
use std::path::Path;
use std::time::{Duration, Instant};

/// A study of 4 configurations x 3 loads x 2 seeds on a 6-ary 2-cube, each point a few tens
/// of milliseconds.
fn study() -> String {
    TORUS
        .replace("k = 4", "k = 6")
        .replace(
            "[topology]",
            "[sweep]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n\"router.vcs\" = [3, 4]\n\n[topology]",
        )
        .replace("seed = 1", "seeds = [1, 2]")
        .replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.05, 0.1, 0.2]")
        .replace("measure_cycles = 2000", "measure_cycles = 30000")
}

/// The `N run, M kept` counts a run prints.
fn counts(stdout: &str) -> (usize, usize) {
    let line = stdout
        .lines()
        .find(|l| l.contains(" run, ") && l.contains(" kept"))
        .unwrap_or_else(|| panic!("no counts in\n{stdout}"));
    let num = |after: &str| -> usize {
        let i = line.find(after).unwrap();
        line[..i].rsplit(' ').next().unwrap().parse().unwrap()
    };
    (num(" run,"), num(" kept"))
}

/// Waits until the run has kept at least `n` points on disk (files in the output directory's
/// hidden record store), or fails after a minute.
fn wait_for_records(out: &Path, n: usize) {
    let start = Instant::now();
    loop {
        let records = std::fs::read_dir(out)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .flat_map(|e| std::fs::read_dir(e.path()).into_iter().flatten().flatten())
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .count();
        if records >= n {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no records after a minute"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// SIGKILL in the middle of a sweep: the earlier complete tables of the directory are untouched;
/// the resumed run (another thread count) keeps the finished points and ends with every table
/// byte-identical to an uninterrupted run's.
#[test]
fn a_killed_run_resumes_into_identical_tables() {
    let tmp = temp_dir("exp-kill");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &study());
    ok(&flitsim(
        d,
        "whole",
        &["run", &s, "--out", "whole", "--quiet", "--threads", "3"],
    ));
    let whole = tables(&d.join("whole"));
    // Earlier complete results in the directory: the same study at other seeds.
    ok(&flitsim(
        d,
        "earlier",
        &["run", &s, "--out", "out", "--quiet", "--seed", "9"],
    ));
    let earlier = tables(&d.join("out"));
    // Another experiment's directory: the run takes it over (--replace) only when it publishes.
    let mut child = spawn(
        d,
        "killed",
        &[
            "run",
            &s,
            "--out",
            "out",
            "--quiet",
            "--threads",
            "1",
            "--replace",
        ],
    );
    wait_for_records(&d.join("out"), 24 + 3);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(tables(&d.join("out")), earlier, "earlier results untouched");
    let o = flitsim(
        d,
        "resumed",
        &["run", &s, "--out", "out", "--threads", "2", "--replace"],
    );
    ok(&o);
    let (run, kept) = counts(&o.stdout);
    assert_eq!(run + kept, 24);
    assert!(kept >= 3 && run >= 1, "run {run}, kept {kept}");
    assert_eq!(
        tables(&d.join("out")),
        whole,
        "resumed tables = uninterrupted"
    );
}

/// A changed key makes another experiment: refused without `--replace`, nothing changed; with
/// it, it reruns exactly the points it affects: V = 3 -> 5 reruns the 12 points with V = 5 and
/// keeps the 12 with V = 3; the tables equal a fresh run's. `--fresh` reruns all.
#[test]
fn a_changed_key_reruns_only_the_points_it_affects() {
    let tmp = temp_dir("exp-change");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &study());
    let o = flitsim(d, "first", &["run", &s, "--out", "out"]);
    ok(&o);
    assert_eq!(counts(&o.stdout), (24, 0));
    let o = flitsim(d, "again", &["run", &s, "--out", "out"]);
    assert_eq!(
        counts(&o.stdout),
        (0, 24),
        "nothing changed: nothing reruns"
    );
    let set = ["--set", "sweep.router.vcs=[3, 5]"];
    let before = tables(&d.join("out"));
    let o = flitsim(
        d,
        "refused",
        &[&["run", &s, "--out", "out"][..], &set].concat(),
    );
    super::refused(&o, &["out: the directory holds", "--replace"]);
    assert_eq!(tables(&d.join("out")), before, "nothing changed");
    let o = flitsim(
        d,
        "changed",
        &[&["run", &s, "--out", "out", "--replace"][..], &set].concat(),
    );
    ok(&o);
    assert_eq!(counts(&o.stdout), (12, 12));
    ok(&flitsim(
        d,
        "fresh",
        &[&["run", &s, "--out", "fresh", "--quiet"][..], &set].concat(),
    ));
    assert_eq!(tables(&d.join("out")), tables(&d.join("fresh")));
    let o = flitsim(
        d,
        "all",
        &[&["run", &s, "--out", "out", "--fresh"][..], &set].concat(),
    );
    assert_eq!(counts(&o.stdout), (24, 0), "--fresh reruns every point");
    assert_eq!(tables(&d.join("out")), tables(&d.join("fresh")));
}

/// Ctrl-C (SIGINT) ends the run at once with exit code 130 and says how many points are kept
/// and the command that resumes.
#[test]
fn an_interrupt_says_what_is_kept_and_how_to_resume() {
    let tmp = temp_dir("exp-int");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &study());
    let child = spawn(
        d,
        "int",
        &["run", &s, "--out", "out", "--quiet", "--threads", "1"],
    );
    wait_for_records(&d.join("out"), 2);
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let o = finish(d, "int", child);
    assert_eq!(o.code, Some(130), "{}", o.stderr);
    assert!(o.stderr.contains("interrupted: "), "{}", o.stderr);
    assert!(
        o.stderr.contains("of 24 points are kept in out/"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains(&format!(
            "resume with: {} run {s} --out out --quiet --threads 1",
            env!("CARGO_BIN_EXE_flitsim")
        )),
        "{}",
        o.stderr
    );
}
