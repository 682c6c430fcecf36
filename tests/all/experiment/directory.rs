//! The output directory holds one run's files, whole: a second run into a directory in use is
//! refused at once, a rerun that writes fewer tables leaves none of the earlier ones, a failed
//! write (a full disk) leaves the earlier complete set intact, and an unusable `--out` fails
//! before anything is simulated.

use super::{TORUS, finish, flitsim, ok, scenario, spawn, tables};
use crate::common::temp_dir;
use std::time::{Duration, Instant};

/// A study long enough to be caught running: 6-ary 2-cube, 4 loads x 2 seeds, long windows.
fn long() -> String {
    TORUS
        .replace("k = 4", "k = 6")
        .replace("seed = 1", "seeds = [1, 2]")
        .replace(
            "flit_rates = [0.05, 0.1]",
            "flit_rates = [0.05, 0.1, 0.15, 0.2]",
        )
        .replace("measure_cycles = 2000", "measure_cycles = 100000")
}

/// A second run into a directory another run is writing is refused at once (exit 4, naming
/// the directory), and the first run completes with its own tables.
#[test]
fn a_second_run_into_a_directory_in_use_is_refused_at_once() {
    let tmp = temp_dir("exp-lock");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &long());
    let first = spawn(
        d,
        "first",
        &["run", &s, "--out", "out", "--quiet", "--threads", "1"],
    );
    // The first run holds the lock once its directory exists.
    let start = Instant::now();
    while !d.join("out").exists() {
        assert!(start.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(2));
    }
    std::thread::sleep(Duration::from_millis(50));
    let t = Instant::now();
    let second = flitsim(
        d,
        "second",
        &["run", &s, "--out", "out", "--quiet", "--seed", "7"],
    );
    assert_eq!(second.code, Some(4), "{}", second.stderr);
    assert!(t.elapsed() < Duration::from_secs(5), "refused at once");
    assert!(
        second.stderr.contains("another flitsim command"),
        "{}",
        second.stderr
    );
    assert_eq!(second.stderr.lines().count(), 1, "{}", second.stderr);
    ok(&finish(d, "first", first));
    ok(&flitsim(
        d,
        "alone",
        &["run", &s, "--out", "alone", "--quiet"],
    ));
    assert_eq!(tables(&d.join("out")), tables(&d.join("alone")));
}

/// `validate` writes model.csv, validation.csv and validation.svg; a later `run` into the same
/// directory leaves none of them beside its tables.
#[test]
fn a_rerun_that_writes_fewer_tables_leaves_none_of_the_earlier() {
    let tmp = temp_dir("exp-fewer");
    let d = tmp.path();
    // Paper 003's model covers dor on the unidirectional torus with V = 2.
    let text = TORUS
        .replace("links = \"bidirectional\"", "links = \"unidirectional\"")
        .replace("vcs = 3", "vcs = 2");
    let s = scenario(d, "s.toml", &text);
    ok(&flitsim(
        d,
        "validate",
        &["validate", &s, "--out", "out", "--quiet"],
    ));
    for f in ["model.csv", "validation.csv", "validation.svg"] {
        assert!(d.join("out").join(f).exists(), "validate wrote {f}");
    }
    std::fs::write(d.join("out").join("notes.txt"), "mine").unwrap();
    ok(&flitsim(d, "run", &["run", &s, "--out", "out", "--quiet"]));
    for f in [
        "model.csv",
        "validation.csv",
        "validation.svg",
        "validation_channels.csv",
    ] {
        assert!(
            !d.join("out").join(f).exists(),
            "{f} of the earlier run is gone"
        );
    }
    assert!(d.join("out").join("summary.csv").exists());
    assert_eq!(
        std::fs::read_to_string(d.join("out").join("notes.txt")).unwrap(),
        "mine"
    );
}

/// `--out` naming a file, or a directory that cannot be created, fails in well under a second
/// with exit 4, before anything is simulated.
#[test]
fn an_unusable_out_fails_before_simulating() {
    let tmp = temp_dir("exp-out");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &long());
    std::fs::write(d.join("afile"), "x").unwrap();
    for out in ["afile", "/proc/flitsim-no/such", "afile/sub"] {
        let t = Instant::now();
        let o = flitsim(d, "out", &["run", &s, "--out", out, "--quiet"]);
        assert_eq!(o.code, Some(4), "{out}: {}", o.stderr);
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "{out}: failed at once"
        );
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
        assert!(o.stderr.contains(out), "{}", o.stderr);
    }
    assert_eq!(std::fs::read_to_string(d.join("afile")).unwrap(), "x");
}

/// A full file system: a run into a small tmpfs fails with exit 4 and leaves the earlier
/// complete set byte-identical, with no temporary file. Skipped, saying so, where a tmpfs
/// cannot be mounted (not root, or in a container without the right).
#[test]
fn a_full_disk_leaves_the_earlier_tables_intact() {
    let tmp = temp_dir("exp-full");
    let d = tmp.path();
    let mnt = d.join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let Some(_guard) =
        crate::common::small_tmpfs(&mnt, "512k", "a_full_disk_leaves_the_earlier_tables_intact")
    else {
        return;
    };
    let small = TORUS.replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.05]");
    let s = scenario(d, "s.toml", &small);
    let out = mnt.join("out");
    let out = out.to_str().unwrap();
    ok(&flitsim(d, "small", &["run", &s, "--out", out, "--quiet"]));
    let before = tables(&mnt.join("out"));
    // Sixty loads of a 64-node network: far more than 512 KiB of tables and records.
    let big = "traffic.flit_rates=[".to_string()
        + &(1..=60)
            .map(|i| format!("{}", i as f64 / 200.0))
            .collect::<Vec<_>>()
            .join(",")
        + "]";
    let o = flitsim(
        d,
        "big",
        &[
            "run",
            &s,
            "--out",
            out,
            "--quiet",
            "--set",
            &big,
            "--set",
            "topology.k=8",
            "--replace",
        ],
    );
    assert_eq!(o.code, Some(4), "{}", o.stderr);
    assert_eq!(tables(&mnt.join("out")), before, "earlier tables intact");
    let leftovers: Vec<String> = std::fs::read_dir(mnt.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}
