//! The command line, run as a user runs it: the built `flitsim` binary on scenario files written
//! to a temporary directory.
//!
//! Bad input (a missing file, TOML syntax, unknown keys, wrong types, out-of-range values,
//! impossible combinations) must give exit code 2 and one line on stderr that starts with
//! `flitsim: error: `, names the file and the key, and says how to fix it; no panic; and earlier
//! results, in `--out` or in `results/<name>/`, must be left exactly as they were. A deadlock
//! must end the run with exit code 3 and a report of the stuck buffers, never hang.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_flitsim");

/// A child running longer than this is killed and the test fails: the binary must never hang.
const TIMEOUT: Duration = Duration::from_secs(60);

/// What a finished `flitsim` printed and returned.
struct Outcome {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl Outcome {
    fn describe(&self) -> String {
        format!(
            "exit code {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

/// A fresh directory per test under the system temp dir, removed when the test passes.
struct TempDir(PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("flitsim-cli-{}-{test}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

/// Runs `flitsim args...` in `cwd`, capturing its output in files under `logs` (so a chatty child
/// never blocks on a full pipe), and fails the test if it runs longer than `TIMEOUT`.
fn flitsim(cwd: &Path, logs: &Path, args: &[&str]) -> Outcome {
    fs::create_dir_all(logs).expect("create log dir");
    let out_path = logs.join("stdout");
    let err_path = logs.join("stderr");
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(fs::File::create(&out_path).expect("stdout file"))
        .stderr(fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("spawn flitsim");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for flitsim") {
            break status;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flitsim {args:?} still running after {TIMEOUT:?}: killed (it must never hang)");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Outcome {
        code: status.code(),
        stdout: fs::read_to_string(&out_path).expect("read stdout"),
        stderr: fs::read_to_string(&err_path).expect("read stderr"),
    }
}

/// Every file under `dir` (relative path -> bytes), for before/after comparisons.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                walk(root, &p, files);
            } else {
                let rel = p.strip_prefix(root).expect("under root").to_path_buf();
                files.insert(rel, fs::read(&p).expect("read file"));
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(dir, dir, &mut files);
    files
}

/// A scenario that `check` accepts and `run` finishes in well under a second: a 4x4 mesh.
const GOOD: &str = r#"# a tiny scenario for the command-line tests
name = "t"
seed = 1

[topology]
kind = "mesh"
k = 4
n = 2

[router]
vcs = 2
buffer_depth = 4

[routing]
algorithm = "dor"

[traffic]
pattern = "uniform"
message_length = 8
rates = [0.005, 0.01]

[run]
warmup_cycles = 100
measure_cycles = 2000
"#;

/// `text` with the line `old` replaced by `new` (which may be several lines, or empty).
fn edit(text: &str, old: &str, new: &str) -> String {
    let mut found = false;
    let lines: Vec<&str> = text
        .lines()
        .map(|l| {
            if l == old {
                found = true;
                new
            } else {
                l
            }
        })
        .collect();
    assert!(found, "the scenario has no line {old:?}");
    lines.join("\n") + "\n"
}

/// Applies several `edit`s in turn.
fn edits(text: &str, changes: &[(&str, &str)]) -> String {
    changes
        .iter()
        .fold(text.to_string(), |t, (old, new)| edit(&t, old, new))
}

/// The sentinel results a bad run must leave alone.
const SENTINEL: &str = "rate,latency_mean\n0.001,42\n";

/// A working directory with earlier results in it: `work/` (the command's current directory,
/// holding `results/t/summary.csv`, where a run of scenario `t` without --out writes) and
/// `out/summary.csv` (the --out of the runs), plus `logs/`.
struct Setup {
    tmp: TempDir,
}

impl Setup {
    fn new(test: &str) -> Setup {
        let tmp = TempDir::new(test);
        let work = tmp.path().join("work");
        fs::create_dir_all(work.join("results").join("t")).unwrap();
        fs::write(work.join("results").join("t").join("summary.csv"), SENTINEL).unwrap();
        fs::create_dir_all(tmp.path().join("out")).unwrap();
        fs::write(tmp.path().join("out").join("summary.csv"), SENTINEL).unwrap();
        Setup { tmp }
    }

    fn work(&self) -> PathBuf {
        self.tmp.path().join("work")
    }

    fn out(&self) -> PathBuf {
        self.tmp.path().join("out")
    }

    fn write(&self, file: &str, text: &str) {
        fs::write(self.work().join(file), text).expect("write scenario");
    }

    fn run(&self, args: &[&str]) -> Outcome {
        flitsim(&self.work(), &self.tmp.path().join("logs"), args)
    }

    /// Everything but the logs: the scenario files and the earlier results.
    fn state(&self) -> (BTreeMap<PathBuf, Vec<u8>>, BTreeMap<PathBuf, Vec<u8>>) {
        (snapshot(&self.work()), snapshot(&self.out()))
    }
}

/// Asserts that `flitsim check FILE`, `flitsim run FILE --out DIR` and `flitsim run FILE` (into
/// results/<name>/) each refuse the scenario `text` (None: the file does not exist) with exit code
/// 2 and one line on stderr: `flitsim: error: FILE...` containing every string of `expect` and a
/// fix; that nothing goes to stdout; and that no file is created, changed or removed.
fn assert_refused(test: &str, text: Option<&str>, expect: &[&str]) {
    let setup = Setup::new(test);
    let file = if text.is_some() {
        "bad.toml"
    } else {
        "missing.toml"
    };
    if let Some(text) = text {
        setup.write(file, text);
    }
    let before = setup.state();
    let out = setup.out();
    let out = out.to_str().expect("utf-8 temp path");
    let commands: [&[&str]; 3] = [
        &["check", file],
        &["run", file, "--out", out],
        &["run", file, "--quiet"],
    ];
    let mut messages = Vec::new();
    for args in commands {
        let o = setup.run(args);
        let context = format!(
            "flitsim {args:?} on\n{}\n{}",
            text.unwrap_or("(no file)"),
            o.describe()
        );
        assert_eq!(o.code, Some(2), "exit code; {context}");
        assert!(o.stdout.is_empty(), "nothing on stdout; {context}");
        assert!(!o.stderr.contains("panicked"), "no panic; {context}");
        let msg = o.stderr.strip_suffix('\n').unwrap_or(&o.stderr);
        assert!(!msg.contains('\n'), "one line on stderr; {context}");
        let prefix = format!("flitsim: error: {file}");
        assert!(
            msg.starts_with(&prefix),
            "starts with {prefix:?}; {context}"
        );
        assert!(msg.contains("; fix: "), "says how to fix it; {context}");
        for e in expect {
            assert!(msg.contains(e), "message contains {e:?}; {context}");
        }
        assert_eq!(setup.state(), before, "files untouched; {context}");
        messages.push(msg.to_string());
    }
    assert!(
        messages.iter().all(|m| *m == messages[0]),
        "check and run give the same message: {messages:#?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Bad input: exit code 2, one clear line, nothing written.

#[test]
fn missing_scenario_file() {
    assert_refused(
        "missing-file",
        None,
        &[
            "missing.toml: cannot read the scenario file",
            "fix: check the path",
        ],
    );
}

#[test]
fn toml_syntax_error_gives_line_and_column() {
    // Line 10 is `[router`: the `]` is missing where the line ends, at column 8.
    let text = edit(GOOD, "[router]", "[router");
    assert_refused(
        "syntax",
        Some(&text),
        &["bad.toml:10:8: TOML syntax error", "`[router`"],
    );
    // A string without its closing quote, on line 15.
    let text = edit(GOOD, "algorithm = \"dor\"", "algorithm = \"dor");
    assert_refused(
        "syntax-string",
        Some(&text),
        &["bad.toml:15:", "TOML syntax error"],
    );
}

#[test]
fn duplicate_key() {
    let text = edit(GOOD, "vcs = 2", "vcs = 2\nvcs = 3");
    assert_refused(
        "duplicate",
        Some(&text),
        &[
            "bad.toml:12:1: TOML syntax error: duplicate key",
            "fix: give each key only once",
        ],
    );
}

#[test]
fn unknown_top_level_key() {
    let text = edit(GOOD, "seed = 1", "seed = 1\ncolour = \"red\"");
    assert_refused(
        "unknown-top",
        Some(&text),
        &[
            "bad.toml:4:1: colour: unknown key",
            "correct its spelling",
            "`seeds`",
        ],
    );
}

#[test]
fn unknown_top_level_table() {
    let text = format!("{GOOD}\n[extras]\nx = 1\n");
    assert_refused(
        "unknown-table",
        Some(&text),
        &["extras: unknown key", "`traffic`"],
    );
}

#[test]
fn unknown_key_in_table() {
    let text = edit(GOOD, "vcs = 2", "vcs = 2\nvc_count = 2");
    assert_refused(
        "unknown-router",
        Some(&text),
        &[
            "bad.toml:12:1: [router] vc_count: unknown key",
            "`vcs`, `buffer_depth`, `early_free`",
        ],
    );
    let text = edit(
        GOOD,
        "measure_cycles = 2000",
        "measure_cycles = 2000\nwatchdog = 100",
    );
    assert_refused(
        "unknown-run",
        Some(&text),
        &["[run] watchdog: unknown key", "`watchdog_cycles`"],
    );
}

#[test]
fn wrong_type() {
    let text = edit(GOOD, "vcs = 2", "vcs = \"two\"");
    assert_refused(
        "type-vcs",
        Some(&text),
        &[
            "bad.toml:11:7: [router] vcs: invalid type: string \"two\", expected a whole number",
            "fix: give `vcs` as a whole number",
        ],
    );
    let text = edit(GOOD, "k = 4", "k = \"four\"");
    assert_refused(
        "type-k",
        Some(&text),
        &["[topology] k:", "a whole number or a list of whole numbers"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = 0.01");
    assert_refused(
        "type-rates",
        Some(&text),
        &["[traffic] rates:", "expected a list"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [0.005, \"0.01\"]");
    assert_refused(
        "type-rate-item",
        Some(&text),
        &[
            "[traffic] rates:",
            "expected a number",
            "each item of `rates`",
        ],
    );
    let text = edit(
        GOOD,
        "algorithm = \"dor\"",
        "algorithm = \"dor\"\ndeadlock_check = \"no\"",
    );
    assert_refused(
        "type-bool",
        Some(&text),
        &["[routing] deadlock_check:", "true or false"],
    );
    let text = edit(GOOD, "seed = 1", "seed = -1");
    assert_refused(
        "type-seed",
        Some(&text),
        &["bad.toml:3:8: seed:", "a whole number >= 0"],
    );
}

#[test]
fn missing_key_and_table() {
    let text = edit(GOOD, "kind = \"mesh\"", "");
    assert_refused(
        "missing-kind",
        Some(&text),
        &[
            "[topology] kind: missing key",
            "add `kind = ...` to [topology]",
        ],
    );
    let text = edit(GOOD, "name = \"t\"", "");
    assert_refused(
        "missing-name",
        Some(&text),
        &["bad.toml: name: missing key", "add `name = ...`"],
    );
    let text = edits(
        GOOD,
        &[
            ("[traffic]", ""),
            ("pattern = \"uniform\"", ""),
            ("message_length = 8", ""),
            ("rates = [0.005, 0.01]", ""),
        ],
    );
    assert_refused(
        "missing-traffic",
        Some(&text),
        &["missing table [traffic]", "add a [traffic] table"],
    );
}

#[test]
fn radix_below_two() {
    let text = edit(GOOD, "k = 4", "k = 1");
    assert_refused(
        "k",
        Some(&text),
        &["[topology] k: 1 is out of range", "from 2"],
    );
    let text = edit(GOOD, "k = 4", "k = [4, 1]");
    assert_refused("k-list", Some(&text), &["[topology] k: 1 is out of range"]);
}

#[test]
fn dimensions_below_one() {
    let text = edit(GOOD, "n = 2", "n = 0");
    assert_refused(
        "n",
        Some(&text),
        &["[topology] n: 0 is out of range", "from 1"],
    );
}

#[test]
fn virtual_channels_below_one() {
    let text = edit(GOOD, "vcs = 2", "vcs = 0");
    assert_refused(
        "vcs",
        Some(&text),
        &["[router] vcs: 0 is out of range", "from 1"],
    );
}

#[test]
fn message_length_below_one() {
    let text = edit(GOOD, "message_length = 8", "message_length = 0");
    assert_refused(
        "length",
        Some(&text),
        &["[traffic] message_length: 0 is out of range", "from 1"],
    );
}

#[test]
fn buffer_depth_below_one() {
    let text = edit(GOOD, "buffer_depth = 4", "buffer_depth = 0");
    assert_refused(
        "depth",
        Some(&text),
        &["[router] buffer_depth: 0 is out of range", "from 1"],
    );
}

#[test]
fn load_not_positive() {
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [0.005, 0.0]");
    assert_refused(
        "rate-zero",
        Some(&text),
        &[
            "[traffic] rates: load 0 is not positive",
            "fix: give loads > 0",
        ],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [-0.01]");
    assert_refused(
        "rate-negative",
        Some(&text),
        &["[traffic] rates: load -0.01 is not positive"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "flit_rates = [0.0]");
    assert_refused(
        "flit-rate-zero",
        Some(&text),
        &["[traffic] flit_rates: load 0 is not positive"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = []");
    assert_refused(
        "rates-empty",
        Some(&text),
        &["[traffic] rates: the list is empty"],
    );
}

#[test]
fn flit_rate_above_one() {
    let text = edit(GOOD, "rates = [0.005, 0.01]", "flit_rates = [0.5, 1.5]");
    assert_refused(
        "flit-rate",
        Some(&text),
        &[
            "[traffic] flit_rates: load 1.5",
            "above the injection channel's 1 flit/cycle",
        ],
    );
    // 0.2 messages of 8 flits is 1.6 flits/node/cycle.
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [0.2]");
    assert_refused(
        "rate-flits",
        Some(&text),
        &[
            "[traffic] rates: load 0.2 is 1.6 flits/node/cycle",
            "at most 1",
        ],
    );
}

#[test]
fn dimension_order_on_torus_with_one_vc_deadlocks() {
    for (test, links) in [
        ("dor-torus-uni", "unidirectional"),
        ("dor-torus-bi", "bidirectional"),
    ] {
        let text = edits(
            GOOD,
            &[
                (
                    "kind = \"mesh\"",
                    &format!("kind = \"torus\"\nlinks = \"{links}\""),
                ),
                ("vcs = 2", "vcs = 1"),
            ],
        );
        assert_refused(
            test,
            Some(&text),
            &[
                "[router] vcs:",
                "dimension-order routing on a torus with 1 virtual channel deadlocks",
                "fix: set vcs = 2 or more",
            ],
        );
    }
}

#[test]
fn hypercube_given_k() {
    let text = edit(GOOD, "kind = \"mesh\"", "kind = \"hypercube\"");
    assert_refused(
        "hypercube-k",
        Some(&text),
        &["[topology] k: a hypercube has k = 2", "remove k"],
    );
}

#[test]
fn both_rates_and_flit_rates() {
    let text = edit(
        GOOD,
        "rates = [0.005, 0.01]",
        "rates = [0.005]\nflit_rates = [0.04]",
    );
    assert_refused(
        "both-rates",
        Some(&text),
        &[
            "[traffic] rates: both rates and flit_rates are given",
            "keep one",
        ],
    );
}

#[test]
fn unknown_topology_kind() {
    let text = edit(GOOD, "kind = \"mesh\"", "kind = \"ring\"");
    assert_refused(
        "kind",
        Some(&text),
        &[
            "[topology] kind: unknown topology \"ring\"",
            "\"mesh\", \"torus\", \"hypercube\" or \"mway\"",
        ],
    );
}

#[test]
fn bad_links_value() {
    let text = edit(
        GOOD,
        "kind = \"mesh\"",
        "kind = \"torus\"\nlinks = \"sideways\"",
    );
    assert_refused(
        "links",
        Some(&text),
        &[
            "[topology] links: unknown link kind \"sideways\"",
            "\"unidirectional\" or \"bidirectional\"",
        ],
    );
    let text = edit(
        GOOD,
        "kind = \"mesh\"",
        "kind = \"mesh\"\nlinks = \"unidirectional\"",
    );
    assert_refused(
        "links-mesh",
        Some(&text),
        &[
            "[topology] links: \"unidirectional\" is not possible on a mesh",
            "remove the key",
        ],
    );
}

#[test]
fn usage_errors_exit_two() {
    let setup = Setup::new("usage");
    setup.write("good.toml", GOOD);
    let before = setup.state();
    let cases: [(&[&str], &str); 5] = [
        (&["frobnicate", "good.toml"], "unrecognized subcommand"),
        (
            &["run", "good.toml", "--bogus"],
            "unexpected argument '--bogus'",
        ),
        (&["run"], "required"),
        (
            &["run", "good.toml", "--seed", "abc"],
            "invalid value 'abc'",
        ),
        (&[], "Usage"),
    ];
    for (args, expect) in cases {
        let o = setup.run(args);
        let context = format!("flitsim {args:?}: {}", o.describe());
        assert_eq!(o.code, Some(2), "exit code; {context}");
        assert!(
            o.stderr.contains(expect),
            "stderr contains {expect:?}; {context}"
        );
        assert!(!o.stderr.contains("panicked"), "no panic; {context}");
        assert_eq!(setup.state(), before, "files untouched; {context}");
    }
}

// ---------------------------------------------------------------------------------------------
// Good input.

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

// ---------------------------------------------------------------------------------------------
// Deadlock: exit code 3, a report of the stuck buffers, never a hang.

/// Dimension-order routing on unidirectional tori with one virtual channel of one or two flits,
/// long messages and a heavy load: the rings' channel dependency cycles fill up and deadlock.
const DEADLOCKING: &str = r#"name = "t"
seed = 1

[topology]
kind = "torus"
k = 4
n = 1
links = "unidirectional"

[router]
vcs = 1
buffer_depth = 1

[routing]
algorithm = "dor"
deadlock_check = false

[traffic]
message_length = 16
flit_rates = [0.5, 0.9]

[run]
warmup_cycles = 100
measure_cycles = 2000
watchdog_cycles = 200
"#;

#[test]
fn deadlock_is_reported_with_exit_code_three() {
    let variants = [
        ("ring-depth-1", DEADLOCKING.to_string()),
        (
            "ring-depth-2",
            edit(DEADLOCKING, "buffer_depth = 1", "buffer_depth = 2"),
        ),
        ("2d-depth-1", edit(DEADLOCKING, "n = 1", "n = 2")),
    ];
    for (test, text) in variants {
        let setup = Setup::new(&format!("deadlock-{test}"));
        setup.write("dl.toml", &text);

        // Allowed by check once the deadlock check is off ...
        let o = setup.run(&["check", "dl.toml"]);
        assert_eq!(o.code, Some(0), "{test}: {}", o.describe());

        // ... and refused with it on.
        setup.write(
            "checked.toml",
            &edit(&text, "deadlock_check = false", "deadlock_check = true"),
        );
        let o = setup.run(&["check", "checked.toml"]);
        assert_eq!(o.code, Some(2), "{test}: {}", o.describe());
        assert!(o.stderr.contains("deadlocks"), "{test}: {}", o.describe());

        let before = setup.state();
        let out = setup.out();
        for args in [
            &["run", "dl.toml", "--out", out.to_str().unwrap()][..],
            &["run", "dl.toml"][..],
        ] {
            let o = setup.run(args);
            let context = format!("{test}: flitsim {args:?}: {}", o.describe());
            assert_eq!(o.code, Some(3), "exit code 3 for a deadlock; {context}");
            assert!(!o.stderr.contains("panicked"), "{context}");
            let mut lines = o.stderr.lines();
            let first = lines.next().unwrap_or("");
            let rest = first
                .strip_prefix("flitsim: deadlock at cycle ")
                .unwrap_or_else(|| {
                    panic!("first line reports the deadlock and its cycle; {context}")
                });
            let cycle: String = rest.chars().take_while(char::is_ascii_digit).collect();
            let cycle: u64 = cycle
                .parse()
                .unwrap_or_else(|_| panic!("a cycle number; {context}"));
            assert!(
                cycle >= 200,
                "the watchdog waits 200 cycles first; {context}"
            );
            assert!(
                first.contains("flits had not moved for 200 cycles")
                    && first.contains("buffer(s) still cannot move"),
                "{context}"
            );
            let buffers: Vec<&str> = lines.collect();
            assert!(
                !buffers.is_empty(),
                "the stuck buffers are listed; {context}"
            );
            for b in &buffers {
                assert!(
                    b.starts_with("  router ") || b.starts_with("  ... and "),
                    "buffer line {b:?}; {context}"
                );
            }
            assert_eq!(
                setup.state(),
                before,
                "earlier results untouched; {context}"
            );
        }
    }
}
