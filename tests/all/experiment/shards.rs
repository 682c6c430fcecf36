//! Shards and merge: `run --shard I/N` runs a deterministic share of the points into its own
//! directory; `merge OUT DIR...` assembles them into tables byte-identical to a single run's,
//! and refuses a missing or duplicated point or a shard of another experiment.

use super::{TORUS, flitsim, ok, refused, scenario, tables};
use crate::common::temp_dir;

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
