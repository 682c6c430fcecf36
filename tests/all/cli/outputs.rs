//! Good input: `check` describes the network, `run` writes the documented CSVs, `--seed`
//! changes the results and `--quiet` prints nothing.

use super::{GOOD, Setup, edits};
use std::fs;
use std::path::{Path, PathBuf};

#[test]
fn check_good_scenario_prints_network_summary() {
    let setup = Setup::new("check-good");
    setup.write("good.toml", GOOD);
    let before = setup.state();
    let o = setup.run(&["check", "good.toml"]);
    let context = o.describe();
    assert_eq!(o.code, Some(0), "{context}");
    assert!(o.stderr.is_empty(), "{context}");
    for e in [
        "good.toml: ok",
        "network: mesh [4, 4], 16 nodes, 48 links, diameter 6, mean distance 2.6667",
        "router: 2 virtual channels of 4 flits per physical channel",
        "routing: dor",
        "traffic: uniform, 8 flits/message, 2 load point(s) x 1 seed(s)",
    ] {
        assert!(o.stdout.contains(e), "stdout contains {e:?}; {context}");
    }
    assert_eq!(setup.state(), before, "check writes nothing; {context}");

    // The other kinds are described too.
    let torus = edits(
        GOOD,
        &[(
            "kind = \"mesh\"",
            "kind = \"torus\"\nlinks = \"bidirectional\"",
        )],
    );
    setup.write("torus.toml", &torus);
    let o = setup.run(&["check", "torus.toml"]);
    assert_eq!(o.code, Some(0), "{}", o.describe());
    assert!(
        o.stdout
            .contains("torus [4, 4] bidirectional, 16 nodes, 64 links, diameter 4"),
        "{}",
        o.describe()
    );
    let cube = edits(
        GOOD,
        &[
            ("kind = \"mesh\"", "kind = \"hypercube\""),
            ("k = 4", ""),
            ("n = 2", "n = 3"),
        ],
    );
    setup.write("cube.toml", &cube);
    let o = setup.run(&["check", "cube.toml"]);
    assert_eq!(o.code, Some(0), "{}", o.describe());
    assert!(
        o.stdout
            .contains("hypercube [2, 2, 2], 8 nodes, 24 links, diameter 3"),
        "{}",
        o.describe()
    );
}

/// `check` says how many threads a point's cycle is split across: as `[run]
/// threads_per_point` sets them, or by the network's buffers out of the threads free for a
/// point (with one load, every core), once per configuration of a sweep when they differ.
#[test]
fn check_prints_the_threads_per_point() {
    let setup = Setup::new("check-threads");
    let line = |file: &str, set: &[&str]| {
        let o = setup.run(&[&["check", file][..], set].concat());
        assert_eq!(o.code, Some(0), "{}", o.describe());
        let lines: Vec<String> = o
            .stdout
            .lines()
            .filter(|l| l.contains("threads per point"))
            .map(str::to_string)
            .collect();
        lines.join("\n")
    };
    setup.write("good.toml", GOOD);
    assert_eq!(
        line("good.toml", &[]),
        "  threads per point: 1 (automatic: 128 buffers, fewer than the 65,536 a split needs)"
    );
    assert_eq!(
        line("good.toml", &["--set", "run.threads_per_point=3"]),
        "  threads per point: 3 (set)"
    );
    // Router delay keeps a point on one thread, whatever is set.
    assert_eq!(
        line(
            "good.toml",
            &[
                "--set",
                "run.threads_per_point=3",
                "--set",
                "router.delay=1"
            ]
        ),
        "  threads per point: 1 (early free and router or link timing run on one thread)"
    );
    // A 16-ary 3-cube, bidirectional, V = 4: (24,576 links + 4,096 injection channels) x 4.
    let big = edits(
        GOOD,
        &[
            (
                "kind = \"mesh\"",
                "kind = \"torus\"\nlinks = \"bidirectional\"",
            ),
            ("k = 4", "k = 16"),
            ("n = 2", "n = 3"),
            ("vcs = 2", "vcs = 4"),
            ("rates = [0.005, 0.01]", "rates = [0.005]"),
        ],
    );
    setup.write("big.toml", &big);
    // The threads free for each of a run's `points` points: the cores shared among them.
    let auto = |points| {
        let free = flitsim::experiment::runner::point_threads(0, points, 0).1;
        format!(
            "threads per point: {} (automatic: 114,688 buffers, at most one thread per 2^20 buffers, {free} free)",
            free.min(2)
        )
    };
    assert_eq!(line("big.toml", &[]), format!("  {}", auto(1)));
    setup.write(
        "sweep.toml",
        &format!("{big}\n[sweep]\n\"router.vcs\" = [2, 4]\n"),
    );
    let small =
        "threads per point: 1 (automatic: 57,344 buffers, fewer than the 65,536 a split needs)";
    assert_eq!(
        line("sweep.toml", &[]),
        format!(
            "  {small} at router.vcs = 2\n  {} at router.vcs = 4",
            auto(2)
        )
    );
}

/// A CSV file as its header and rows of fields.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .expect("a header")
        .split(',')
        .map(String::from)
        .collect();
    let rows: Vec<Vec<String>> = lines
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    for r in &rows {
        assert_eq!(
            r.len(),
            header.len(),
            "{}: row {r:?} has as many fields as the header",
            path.display()
        );
    }
    (header, rows)
}

/// The value of `column` in `row`.
fn field<'a>(header: &[String], row: &'a [String], column: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column}"));
    &row[i]
}

fn number(header: &[String], row: &[String], column: &str) -> f64 {
    let v = field(header, row, column);
    v.parse()
        .unwrap_or_else(|_| panic!("{column} = {v:?} is not a number"))
}

const SUMMARY_COLUMNS: [&str; 17] = [
    "rate",
    "offered_flits",
    "accepted_flits",
    "accepted_rate",
    "latency_mean",
    "latency_ci95",
    "network_latency_mean",
    "source_wait_mean",
    "latency_std",
    "latency_min",
    "latency_max",
    "latency_p50",
    "latency_p95",
    "latency_p99",
    "hops_mean",
    "messages",
    "saturated",
];

const CHANNEL_COLUMNS: [&str; 8] = [
    "rate",
    "channel",
    "src",
    "dst",
    "dim",
    "dir",
    "flits_per_cycle",
    "messages_per_cycle",
];

#[test]
fn run_good_scenario_writes_the_documented_csvs() {
    let setup = Setup::new("run-good");
    setup.write("good.toml", GOOD);
    let out = setup.tmp.path().join("fresh-out");
    let o = setup.run(&["run", "good.toml", "--out", out.to_str().unwrap()]);
    let context = o.describe();
    assert_eq!(o.code, Some(0), "{context}");
    assert!(!o.stderr.contains("panicked"), "{context}");
    assert!(o.stdout.contains("results written to"), "{context}");
    assert!(
        !setup
            .work()
            .join("results")
            .join("t")
            .join("channels.csv")
            .exists(),
        "--out is used, not results/t"
    );

    // summary.csv: the documented columns, one row per load point, sensible values.
    let (h, rows) = read_csv(&out.join("summary.csv"));
    for c in SUMMARY_COLUMNS {
        assert!(
            h.iter().any(|x| x == c),
            "summary.csv has column {c}; header {h:?}"
        );
    }
    assert_eq!(rows.len(), 2, "one row per load point: {rows:?}");
    let m = 8.0;
    for (row, rate) in rows.iter().zip([0.005, 0.01]) {
        assert_eq!(number(&h, row, "rate"), rate);
        assert!(
            (number(&h, row, "offered_flits") - rate * m).abs() < 1e-12,
            "offered_flits = rate * M"
        );
        let accepted = number(&h, row, "accepted_flits");
        assert!(
            accepted > 0.0 && accepted < 2.0 * rate * m,
            "accepted_flits {accepted} near {}",
            rate * m
        );
        // Flits and whole messages accepted in the window differ only by the messages cut by
        // its ends.
        let accepted_msgs = number(&h, row, "accepted_rate");
        assert!(
            (accepted_msgs * m - accepted).abs() < 0.1 * accepted,
            "accepted_rate {accepted_msgs} * M near accepted_flits {accepted}"
        );
        assert!(number(&h, row, "messages") > 0.0);
        assert_eq!(field(&h, row, "saturated"), "false");
        let (min, p50, p95, p99, max) = (
            number(&h, row, "latency_min"),
            number(&h, row, "latency_p50"),
            number(&h, row, "latency_p95"),
            number(&h, row, "latency_p99"),
            number(&h, row, "latency_max"),
        );
        // The lightest message crosses one channel: M + 1 cycles at least.
        assert!(
            min >= m + 1.0 && min <= p50 && p50 <= p95 && p95 <= p99 && p99 <= max,
            "{row:?}"
        );
        let mean = number(&h, row, "latency_mean");
        assert!(mean >= min && mean <= max, "{row:?}");
        let split = number(&h, row, "network_latency_mean") + number(&h, row, "source_wait_mean");
        assert!(
            (split - mean).abs() < 1e-6 * mean,
            "latency = network latency + source wait: {row:?}"
        );
        assert!(number(&h, row, "latency_ci95") > 0.0 && number(&h, row, "latency_std") > 0.0);
        let hops = number(&h, row, "hops_mean");
        assert!(
            hops > 1.0 && hops < 6.0,
            "mean hops {hops} on a 4x4 mesh (exact 2.67 + sampling)"
        );
    }

    // channels.csv: one row per load point and channel, each channel a link of the 4x4 mesh.
    let (h, rows) = read_csv(&out.join("channels.csv"));
    for c in CHANNEL_COLUMNS {
        assert!(
            h.iter().any(|x| x == c),
            "channels.csv has column {c}; header {h:?}"
        );
    }
    assert_eq!(rows.len(), 2 * 48, "2 load points x 48 channels");
    for row in &rows {
        let (src, dst) = (number(&h, row, "src") as i64, number(&h, row, "dst") as i64);
        let dim = number(&h, row, "dim") as u32;
        assert!(
            (0..16).contains(&src) && (0..16).contains(&dst) && dim < 2,
            "{row:?}"
        );
        let step = 4i64.pow(dim);
        let dir = field(&h, row, "dir");
        assert!(
            dir == "+" && dst - src == step || dir == "-" && src - dst == step,
            "{row:?}"
        );
        let f = number(&h, row, "flits_per_cycle");
        let msgs = number(&h, row, "messages_per_cycle");
        assert!(
            (0.0..=1.0).contains(&f) && (0.0..=f).contains(&msgs),
            "{row:?}"
        );
    }

    // histogram.csv: a header and counts adding up to the messages measured.
    let (h, rows) = read_csv(&out.join("histogram.csv"));
    assert!(!rows.is_empty(), "histogram.csv has rows");
    if h.iter().any(|x| x == "count") {
        let total: f64 = rows
            .iter()
            .filter(|r| field(&h, r, "rate") == "0.005")
            .map(|r| number(&h, r, "count"))
            .sum();
        let (sh, srows) = read_csv(&out.join("summary.csv"));
        assert_eq!(
            total,
            number(&sh, &srows[0], "messages"),
            "histogram counts add up to messages"
        );
    }
}

#[test]
fn seed_changes_results_and_quiet_prints_nothing() {
    let setup = Setup::new("seed-quiet");
    setup.write("good.toml", GOOD);
    let dir = |name: &str| setup.tmp.path().join(name);
    let arg = |p: &PathBuf| p.to_str().unwrap().to_string();
    let (a, b, c) = (dir("a"), dir("b"), dir("c"));

    let o = setup.run(&["run", "good.toml", "--out", &arg(&a), "--quiet"]);
    assert_eq!(o.code, Some(0), "{}", o.describe());
    assert!(
        o.stdout.is_empty(),
        "--quiet prints nothing on stdout: {}",
        o.describe()
    );
    assert!(
        o.stderr.is_empty(),
        "--quiet prints nothing on stderr either: {}",
        o.describe()
    );

    let o = setup.run(&[
        "run",
        "good.toml",
        "--out",
        &arg(&b),
        "--seed",
        "7",
        "--quiet",
    ]);
    assert_eq!(o.code, Some(0), "{}", o.describe());
    assert!(o.stdout.is_empty(), "{}", o.describe());

    let o = setup.run(&["run", "good.toml", "--out", &arg(&c), "--seed", "1"]);
    assert_eq!(o.code, Some(0), "{}", o.describe());
    assert!(
        !o.stdout.is_empty(),
        "without --quiet a summary table is printed"
    );

    let read = |d: &PathBuf, f: &str| fs::read(d.join(f)).unwrap();
    assert_ne!(
        read(&a, "summary.csv"),
        read(&b, "summary.csv"),
        "--seed 7 changes the results"
    );
    for f in ["summary.csv", "channels.csv", "histogram.csv"] {
        assert_eq!(
            read(&a, f),
            read(&c, f),
            "--seed 1 is the scenario's own seed: same {f}"
        );
    }
}
