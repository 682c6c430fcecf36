//! Experiments from the command line: sweeps of any key, `--set` overrides, per-point records,
//! resumption after an interruption, and what every row says about where it came from.

mod directory;
mod key_messages;
mod memory;
mod overrides;
mod property;
mod publication;
mod resume;
mod safety;
mod saturation;
mod shards;
mod slurm;
mod sweep;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_flitsim");

/// A child running longer than this is killed and the test fails.
const TIMEOUT: Duration = Duration::from_secs(120);

/// What a finished `flitsim` printed and returned.
pub struct Outcome {
    /// The exit code.
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Starts `flitsim args...` in `dir`, its output going to files `<tag>.out` and `<tag>.err`.
pub fn spawn(dir: &Path, tag: &str, args: &[&str]) -> Child {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(fs::File::create(dir.join(format!("{tag}.out"))).unwrap())
        .stderr(fs::File::create(dir.join(format!("{tag}.err"))).unwrap())
        .spawn()
        .expect("spawn flitsim")
}

/// Waits for a child started by `spawn` (killing it past `TIMEOUT`) and reads its output.
pub fn finish(dir: &Path, tag: &str, mut child: Child) -> Outcome {
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("flitsim ({tag}) still running after {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Outcome {
        code: status.code(),
        stdout: fs::read_to_string(dir.join(format!("{tag}.out"))).unwrap(),
        stderr: fs::read_to_string(dir.join(format!("{tag}.err"))).unwrap(),
    }
}

/// Runs `flitsim args...` in `dir` to the end.
pub fn flitsim(dir: &Path, tag: &str, args: &[&str]) -> Outcome {
    let child = spawn(dir, tag, args);
    finish(dir, tag, child)
}

/// Asserts a run succeeded, showing its output if not.
pub fn ok(o: &Outcome) {
    assert_eq!(
        o.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        o.stdout,
        o.stderr
    );
}

/// Asserts a bad-input refusal: exit 2, one line on stderr with every string of `expect` and a
/// fix, nothing on stdout.
pub fn refused(o: &Outcome, expect: &[&str]) {
    assert_eq!(
        o.code,
        Some(2),
        "stdout:\n{}\nstderr:\n{}",
        o.stdout,
        o.stderr
    );
    assert_eq!(o.stderr.lines().count(), 1, "one line: {}", o.stderr);
    assert!(o.stderr.starts_with("flitsim: error: "), "{}", o.stderr);
    assert!(o.stderr.contains("fix: "), "{}", o.stderr);
    for e in expect {
        assert!(o.stderr.contains(e), "{e:?} not in {}", o.stderr);
    }
    assert!(o.stdout.is_empty(), "{}", o.stdout);
}

/// The tables (every `.csv`) of an output directory, by name.
pub fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, fs::read(&p).unwrap())
        })
        .collect()
}

/// A CSV's header and rows, split at commas (the tables checked here quote nothing).
pub fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let split = |l: &str| l.split(',').map(str::to_string).collect::<Vec<_>>();
    let header = split(lines.next().unwrap());
    (header, lines.map(split).collect())
}

/// Writes a scenario file into `dir` and returns its path as a string.
pub fn scenario(dir: &Path, name: &str, text: &str) -> String {
    let p: PathBuf = dir.join(name);
    fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

/// A small bidirectional 4x4 torus study: its points take a few milliseconds each.
pub const TORUS: &str = r#"name = "study"
seed = 1

[topology]
kind = "torus"
k = 4
n = 2
links = "bidirectional"

[router]
vcs = 3
buffer_depth = 4

[routing]
algorithm = "dor"

[traffic]
message_length = 8
flit_rates = [0.05, 0.1]

[run]
warmup_cycles = 200
measure_cycles = 2000
"#;
