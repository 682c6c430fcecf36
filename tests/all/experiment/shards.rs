//! Shards and merge: `run --shard I/N` runs a deterministic share of the points into its own
//! directory (N at most the points); `merge OUT DIR...` (or `--dirs-from FILE`) assembles them
//! into tables byte-identical to a single run's, and refuses a missing or duplicated point or
//! a shard of another experiment.

use super::{TORUS, flitsim, ok, refused, scenario, tables};
use crate::common::temp_dir;
use std::time::{Duration, Instant};

/// 4 configurations x 2 loads x 2 seeds.
fn study() -> String {
    TORUS
        .replace(
            "[topology]",
            "[sweep]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n\"router.vcs\" = [3, 4]\n\n[topology]",
        )
        .replace("seed = 1", "seeds = [1, 2]")
}

#[test]
fn merged_shards_equal_a_single_run_byte_for_byte() {
    let tmp = temp_dir("exp-shards");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &study());
    ok(&flitsim(
        d,
        "whole",
        &["run", &s, "--out", "whole", "--quiet", "--threads", "3"],
    ));
    let mut counts = 0;
    for (i, threads) in [(1, "1"), (2, "2"), (3, "1")] {
        let shard = format!("{i}/3");
        let out = format!("shard{i}");
        let o = flitsim(
            d,
            &out,
            &[
                "run",
                &s,
                "--out",
                &out,
                "--shard",
                &shard,
                "--threads",
                threads,
            ],
        );
        ok(&o);
        let line = o.stdout.lines().find(|l| l.starts_with("shard ")).unwrap();
        counts += line
            .split(": ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse::<usize>()
            .unwrap();
        assert!(
            !d.join(&out).join("summary.csv").exists(),
            "a shard writes no tables"
        );
    }
    assert_eq!(counts, 16, "the shards cover the 16 points");
    let o = flitsim(
        d,
        "merge",
        &["merge", "merged", "shard1", "shard2", "shard3"],
    );
    ok(&o);
    assert_eq!(tables(&d.join("merged")), tables(&d.join("whole")));
    // Idempotent, and the merged directory is a complete run: a rerun keeps every point.
    ok(&flitsim(
        d,
        "again",
        &["merge", "merged", "shard3", "shard1", "shard2"],
    ));
    assert_eq!(tables(&d.join("merged")), tables(&d.join("whole")));
    let o = flitsim(d, "rerun", &["run", &s, "--out", "merged"]);
    assert!(
        o.stdout.contains("16 points: 0 run, 16 kept"),
        "{}",
        o.stdout
    );
    // The same merge from a list file (an empty line skipped), after a directory given as an
    // argument.
    std::fs::write(d.join("list"), "shard2\n\nshard3\n").unwrap();
    let o = flitsim(
        d,
        "listed",
        &["merge", "listed", "shard1", "--dirs-from", "list"],
    );
    ok(&o);
    assert!(o.stdout.contains("from 3 directories"), "{}", o.stdout);
    assert_eq!(tables(&d.join("listed")), tables(&d.join("whole")));
}

#[test]
fn shard_counts_beyond_the_points_are_refused_at_once() {
    let tmp = temp_dir("exp-shard-count");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &study());
    for n in ["18446744073709551615", "4294967296", "100000000", "17"] {
        let shard = format!("1/{n}");
        let start = Instant::now();
        let o = flitsim(d, "huge", &["run", &s, "--out", "huge", "--shard", &shard]);
        let took = start.elapsed();
        refused(
            &o,
            &[&format!(
                "--shard 1/{n}: {n} shares of an experiment of 16 points, so a share would hold no point; fix: give N from 1 to 16"
            )],
        );
        assert!(
            took < Duration::from_secs(1),
            "--shard {shard} took {took:?}"
        );
    }
    assert!(
        !d.join("huge").exists(),
        "no output directory for a refusal"
    );
    // N = 16 is the most: the last share holds one point.
    let o = flitsim(d, "last", &["run", &s, "--out", "last", "--shard", "16/16"]);
    ok(&o);
    assert!(o.stdout.contains("shard 16/16: 1 points"), "{}", o.stdout);
}

#[test]
fn a_dir_list_that_is_a_fifo_a_link_or_missing_is_refused_at_once() {
    let tmp = temp_dir("exp-dirs-from");
    let d = tmp.path();
    crate::common::fifo(&d.join("fifo"));
    std::os::unix::fs::symlink("/dev/zero", d.join("link")).unwrap();
    for (list, what) in [
        ("fifo", "a FIFO (named pipe), not a regular file"),
        ("link", "a symbolic link, which flitsim does not follow"),
        ("absent", "No such file or directory"),
    ] {
        let start = Instant::now();
        let o = flitsim(d, list, &["merge", "m", "--dirs-from", list]);
        let took = start.elapsed();
        refused(&o, &[&format!("--dirs-from {list}: {what}")]);
        assert!(took < Duration::from_secs(1), "{list} took {took:?}");
    }
    refused(
        &flitsim(d, "none", &["merge", "m"]),
        &["merge: no shard directory given", "--dirs-from FILE"],
    );
    assert!(!d.join("m").exists(), "nothing written by a refused merge");
}

#[test]
fn merge_refuses_missing_duplicated_and_foreign_points() {
    let tmp = temp_dir("exp-merge-bad");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &study());
    for i in 1..=2 {
        let shard = format!("{i}/2");
        ok(&flitsim(
            d,
            "shard",
            &[
                "run",
                &s,
                "--out",
                &format!("shard{i}"),
                "--shard",
                &shard,
                "--quiet",
            ],
        ));
    }
    refused(
        &flitsim(d, "missing", &["merge", "m", "shard1"]),
        &[
            "points are in none of the directories",
            "routing.algorithm = ",
            "seed ",
        ],
    );
    refused(
        &flitsim(d, "twice", &["merge", "m", "shard1", "shard2", "shard1"]),
        &["points are in more than one directory"],
    );
    ok(&flitsim(
        d,
        "other",
        &[
            "run",
            &s,
            "--out",
            "other",
            "--shard",
            "2/2",
            "--quiet",
            "--set",
            "run.warmup_cycles=300",
        ],
    ));
    refused(
        &flitsim(d, "foreign", &["merge", "m", "shard1", "other"]),
        &["a shard of another experiment", "other"],
    );
    refused(
        &flitsim(d, "badshard", &["run", &s, "--shard", "3/2"]),
        &["--shard 3/2"],
    );
    assert!(!d.join("m").exists(), "nothing written by a refused merge");
}
