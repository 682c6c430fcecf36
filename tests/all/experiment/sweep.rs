//! `[sweep]`: the points are the product of the swept keys' values, the loads and the seeds; each
//! row is the run of its combination alone; `check` validates every combination and counts them.

use super::{TORUS, csv, flitsim, ok, refused, scenario};
use crate::common::temp_dir;

/// The study of TORUS swept over three keys: 2 x 2 x 2 configurations.
fn swept() -> String {
    TORUS.replace(
        "[topology]",
        "[sweep]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n\"router.vcs\" = [3, 4]\n\
         \"traffic.message_length\" = [8, 16]\n\n[topology]",
    )
}

/// Every table's rows of a swept run, coordinates removed, equal the rows of a run of that
/// combination alone (given with --set), byte for byte, in the sweep's order.
#[test]
fn sweep_rows_match_separate_runs_of_each_combination() {
    let tmp = temp_dir("exp-sweep");
    let d = tmp.path();
    let sweep = scenario(d, "sweep.toml", &swept());
    let single = scenario(d, "single.toml", TORUS);
    ok(&flitsim(
        d,
        "sweep",
        &["run", &sweep, "--out", "sweep", "--quiet", "--threads", "2"],
    ));
    for table in [
        "summary.csv",
        "channels.csv",
        "histogram.csv",
        "nodes.csv",
        "hops.csv",
    ] {
        let (header, rows) = csv(&d.join("sweep").join(table));
        assert_eq!(
            header[..4],
            [
                "scenario",
                "routing.algorithm",
                "router.vcs",
                "traffic.message_length"
            ],
            "{table}"
        );
        let mut at = 0;
        for algorithm in ["dor", "duato"] {
            for vcs in ["3", "4"] {
                for m in ["8", "16"] {
                    let out = format!("{algorithm}-{vcs}-{m}");
                    let sets = [
                        format!("routing.algorithm={algorithm}"),
                        format!("router.vcs={vcs}"),
                        format!("traffic.message_length={m}"),
                    ];
                    let mut args = vec!["run", &single, "--out", &out, "--quiet"];
                    for s in &sets {
                        args.extend(["--set", s]);
                    }
                    if table == "summary.csv" {
                        ok(&flitsim(d, &out, &args));
                    }
                    let (h, alone) = csv(&d.join(&out).join(table));
                    assert_eq!(h[0], "scenario");
                    assert_eq!(h[1..], header[4..], "{table}");
                    for row in &alone {
                        let swept = &rows[at];
                        assert_eq!(swept[..4], ["study", algorithm, vcs, m], "{table} row {at}");
                        assert_eq!(swept[4..], row[1..], "{table} row {at} ({out})");
                        at += 1;
                    }
                }
            }
        }
        assert_eq!(at, rows.len(), "{table}: every row accounted for");
    }
    let (_, summary) = csv(&d.join("sweep").join("summary.csv"));
    assert_eq!(summary.len(), 8 * 2, "8 configurations x 2 loads x 1 seed");
}

/// `check` refuses an invalid combination (duato with V = 2 on a torus has no adaptive
/// virtual channel) by naming it, before anything runs; `run` refuses it too.
#[test]
fn check_refuses_an_invalid_combination_by_name() {
    let tmp = temp_dir("exp-invalid");
    let d = tmp.path();
    let text = TORUS.replace(
        "[topology]",
        "[sweep]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n\"router.vcs\" = [4, 2]\n\n[topology]",
    );
    let s = scenario(d, "s.toml", &text);
    let expect = [
        "s.toml",
        "routing.algorithm = duato, router.vcs = 2",
        "[router] vcs",
    ];
    refused(&flitsim(d, "check", &["check", &s]), &expect);
    refused(&flitsim(d, "run", &["run", &s, "--out", "out"]), &expect);
    assert!(!d.join("out").exists(), "nothing written");
}

/// `check` counts the points (configurations x loads x seeds) and their cycles: each point
/// simulates at most warm-up + window + drain cap cycles.
#[test]
fn check_counts_points_and_cycles() {
    let tmp = temp_dir("exp-count");
    let d = tmp.path();
    let text = swept().replace("seed = 1", "seeds = [1, 2, 3]").replace(
        "measure_cycles = 2000",
        "measure_cycles = 2000\ndrain_cycles = 5000",
    );
    let s = scenario(d, "s.toml", &text);
    let o = flitsim(d, "check", &["check", &s]);
    ok(&o);
    let points = 8 * 2 * 3;
    let cycles = points * (200 + 2000 + 5000);
    let line = format!(
        "points: {points} (8 configuration(s) x 2 load(s) x 3 seed(s)), at most {cycles} simulated cycles in all"
    );
    assert!(o.stdout.contains(&line), "{line:?} not in\n{}", o.stdout);
    assert!(
        o.stdout.contains("sweep: router.vcs = [3, 4]"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("  run time: about "), "{}", o.stdout);
    assert!(o.stdout.contains("  memory: about "), "{}", o.stdout);
}

/// A list of pattern fractions is a sweep of `traffic.pattern_fraction`: one column, one
/// configuration per value, in the order given.
#[test]
fn a_fraction_list_is_a_sweep_of_that_key() {
    let tmp = temp_dir("exp-fraction");
    let d = tmp.path();
    let text = TORUS.replace(
        "message_length = 8",
        "pattern = \"bit-complement\"\npattern_fraction = [0.25, 1]\nmessage_length = 8",
    );
    let s = scenario(d, "s.toml", &text);
    ok(&flitsim(d, "run", &["run", &s, "--out", "out", "--quiet"]));
    let (header, rows) = csv(&d.join("out").join("summary.csv"));
    assert_eq!(header[..2], ["scenario", "traffic.pattern_fraction"]);
    let x: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    assert_eq!(x, ["0.25", "0.25", "1", "1"]);
}

/// Loads are written as the scenario gave them: flit_rates = [0.45] with M = 3 is offered
/// 0.45, not λ·M recomputed (0.45 / 3 · 3 = 0.44999999999999996 in floating point).
#[test]
fn loads_are_written_as_given() {
    assert_ne!(
        0.45_f64 / 3.0 * 3.0,
        0.45,
        "the case must be one that rounding changes"
    );
    let tmp = temp_dir("exp-loads");
    let d = tmp.path();
    let text = TORUS
        .replace("message_length = 8", "message_length = 3")
        .replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.45]");
    let s = scenario(d, "s.toml", &text);
    ok(&flitsim(d, "run", &["run", &s, "--out", "out", "--quiet"]));
    let (header, rows) = csv(&d.join("out").join("summary.csv"));
    let col = header.iter().position(|h| h == "offered_flits").unwrap();
    assert_eq!(rows[0][col], "0.45");
}

/// Keys that are dimensions of every experiment already (seeds, loads) or name its output
/// cannot be swept; an unknown key or an empty list is refused at its line.
#[test]
fn sweep_refusals_name_the_key_and_the_fix() {
    let tmp = temp_dir("exp-sweep-bad");
    let d = tmp.path();
    for (sweep, expect) in [
        (
            "\"traffic.flit_rates\" = [[0.1]]",
            "list the loads in [traffic] flit_rates",
        ),
        ("\"seeds\" = [[1]]", "seeds = [...]"),
        ("\"router.vcz\" = [2]", "unknown key"),
        ("\"router.vcs\" = []", "non-empty list"),
        ("\"router.vcs\" = [2, \"x\"]", "[sweep] router.vcs"),
        ("\"router\" = [2]", "is a table"),
    ] {
        let text = TORUS.replace("[topology]", &format!("[sweep]\n{sweep}\n\n[topology]"));
        let s = scenario(d, "s.toml", &text);
        refused(&flitsim(d, "check", &["check", &s]), &["s.toml", expect]);
    }
}

/// Each point's line is printed as it finishes, in point order: the printed table is the same
/// whatever the thread count.
#[test]
fn the_printed_table_is_the_same_whatever_the_threads() {
    let tmp = temp_dir("exp-print");
    let d = tmp.path();
    let s = scenario(d, "s.toml", &swept().replace("seed = 1", "seeds = [1, 2]"));
    let one = flitsim(d, "one", &["run", &s, "--out", "one", "--threads", "1"]);
    let three = flitsim(d, "three", &["run", &s, "--out", "three", "--threads", "3"]);
    ok(&one);
    ok(&three);
    let table = |o: &str| {
        o.lines()
            .take_while(|l| !l.contains(" points: "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(table(&one.stdout), table(&three.stdout));
    // A header, its units, then one line per point: 8 configurations x 2 loads x 2 seeds.
    assert_eq!(table(&one.stdout).len(), 1 + 2 + 32, "{}", one.stdout);
    assert!(
        one.stdout.lines().nth(1).unwrap().contains("seed"),
        "a seed column"
    );
}

/// `check` prints the channel-load bound where it is exact: on a 4x4 mesh under uniform
/// traffic and dimension-order routing the busiest link (between the middle columns) carries
/// the 2 · 2 · 4 = 16 pairs whose source is left of it in its row and whose destination is
/// right of it, of 15 destinations per source: the bound is 15/16 flits/node/cycle. Under a
/// hotspot with h = 0.5 the hot node ejects (15 · 0.5 + 0.5) = 8 times the per-node load: 1/8.
#[test]
fn check_prints_the_exact_channel_load_bound() {
    let tmp = temp_dir("exp-bound");
    let d = tmp.path();
    let mesh = "name = \"b\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\n\
        message_length = 8\nflit_rates = [0.1]\n";
    let s = scenario(d, "s.toml", mesh);
    let o = flitsim(d, "check", &["check", &s]);
    ok(&o);
    assert!(
        o.stdout.contains(&format!(
            "throughput bound: {:.4} flits/node/cycle",
            15.0 / 16.0
        )),
        "{}",
        o.stdout
    );
    let hot = mesh.replace(
        "message_length = 8",
        "pattern = \"hotspot\"\nhotspot_node = 5\nhotspot_fraction = 0.5\nmessage_length = 8",
    );
    let s = scenario(d, "h.toml", &hot);
    let o = flitsim(d, "check", &["check", &s]);
    ok(&o);
    assert!(
        o.stdout
            .contains("throughput bound: 0.1250 flits/node/cycle (the hot node's ejection channel"),
        "{}",
        o.stdout
    );
}

/// Without a terminal a run still reports progress on stderr while a long point runs
/// (`FLITSIM_REPORT_SECONDS` sets the interval, 60 s by default).
#[test]
fn a_run_without_a_terminal_reports_progress() {
    let tmp = temp_dir("exp-report");
    let d = tmp.path();
    let s = scenario(
        d,
        "s.toml",
        &TORUS
            .replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.05]")
            .replace("measure_cycles = 2000", "measure_cycles = 10000000"),
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["run", &s, "--out", "out"])
        .current_dir(d)
        .env("FLITSIM_REPORT_SECONDS", "0.1")
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("flitsim: study: 0/1 points done, "))
        .unwrap_or_else(|| panic!("no progress report in {err:?}"));
    assert!(line.contains(" cycles simulated, "), "{line}");
}
