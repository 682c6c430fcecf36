//! The command line, run as a user runs it: the built `flitsim` binary on scenario files written
//! to a temporary directory.
//!
//! Bad input (a missing file, TOML syntax, unknown keys, wrong types, out-of-range values,
//! impossible combinations) must give exit code 2 and one line on stderr that starts with
//! `flitsim: error: `, names the file and the key, and says how to fix it; no panic; and earlier
//! results, in `--out` or in `results/<name>/`, must be left exactly as they were. A deadlock
//! must end the run with exit code 3 and a report of the stuck buffers, never hang.

mod deadlock;
mod input_robustness;
mod long_values;
mod outputs;
mod scenario_errors;
mod set_fuzz;
mod usage;
mod value_errors;

use crate::common::temp_dir;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

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
pub(crate) const GOOD: &str = r#"# a tiny scenario for the command-line tests
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
pub(crate) fn edit(text: &str, old: &str, new: &str) -> String {
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
/// `out/summary.csv` (the --out of the runs), each listed in a manifest as an earlier flitsim
/// writes it, plus `logs/`; all in a fresh temporary directory, removed when the `Setup` is
/// dropped, whether the test passes or fails.
struct Setup {
    tmp: TempDir,
}

impl Setup {
    fn new(test: &str) -> Setup {
        let tmp = temp_dir(&format!("cli-{test}"));
        let work = tmp.path().join("work");
        for dir in [work.join("results").join("t"), tmp.path().join("out")] {
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("summary.csv"), SENTINEL).unwrap();
            fs::write(dir.join(".flitsim-manifest"), "summary.csv\n").unwrap();
        }
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
pub(crate) fn assert_refused(test: &str, text: Option<&str>, expect: &[&str]) {
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
