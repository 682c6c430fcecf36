//! A point's memory is estimated before anything is built: a scenario that cannot fit under
//! the limit in force (MemAvailable, `ulimit -v`, `ulimit -d`, the cgroup's memory limit) is
//! refused at once (exit 2, naming what drives it and the limit), `--force` overrides, and the
//! estimate is never below the measured peak and within 25% of it.

use super::{flitsim, ok, refused, scenario};
use crate::common::temp_dir;
use std::path::Path;
use std::time::{Duration, Instant};

mod limits;

/// A 22-cube with 32 virtual channels of 4096 flits: about 70 GiB a point (3,221,225,472
/// buffers of 21.6 bytes, 92,274,688 links of 59, 4,194,304 nodes of 26.4 and processors of
/// 86.5), 140 GiB with the copy a deadlock check makes; its source queues (one message per
/// processor) are small beside it, so the network is what the refusal names.
const HUGE: &str = "name = \"huge\"\n[topology]\nkind = \"hypercube\"\nn = 22\n\
    [router]\nvcs = 32\nbuffer_depth = 4096\n[traffic]\n\
    message_length = 16\nflit_rates = [0.01]\n[run]\nmax_backlog = 1\n";

/// Whether every memory limit of this machine leaves so much that the scenarios below would
/// fit (the least of them, the m-way network below, needs 37.4 GiB with its backlog): then the
/// refusals cannot be tested here, and the test says so.
fn roomy(test: &str) -> bool {
    let left = flitsim::experiment::limits::limits()
        .iter()
        .map(|l| l.left)
        .fold(f64::INFINITY, f64::min);
    let roomy = left > 37.0 * 1024.0 * 1024.0 * 1024.0;
    if roomy {
        eprintln!(
            "SKIPPED {test}: {left} bytes left under every limit, more than the scenarios need"
        );
    }
    roomy
}

/// The memory scenario: a 64-ary 3-cube, 262,144 nodes.
const MEMORY_SCENARIO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/scenarios/torus-64x64x64-memory.toml"
);

/// Whether GNU time is here to measure peaks; if not, the test says it is skipped.
fn can_measure(test: &str) -> bool {
    let here = std::path::Path::new("/usr/bin/time").exists();
    if !here {
        eprintln!("SKIPPED {test}: no /usr/bin/time");
    }
    here
}

/// The peak resident memory of `flitsim ARGS` that succeeded, MiB, measured with GNU time.
fn peak_mib(args: &[&str]) -> f64 {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M", env!("CARGO_BIN_EXE_flitsim")])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines().last().unwrap().trim().parse::<f64>().unwrap() / 1024.0
}

/// The figure after "about " on the line of `check`'s output with `key` (MiB).
fn about_mib(stdout: &str, key: &str) -> f64 {
    let line = stdout.lines().find(|l| l.contains(key)).unwrap();
    let figure = line
        .split("about ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    figure.parse().unwrap()
}

#[test]
fn a_scenario_that_cannot_fit_is_refused_at_once() {
    if roomy("a_scenario_that_cannot_fit_is_refused_at_once") {
        return;
    }
    let tmp = temp_dir("exp-memory");
    let d = tmp.path();
    let s = scenario(d, "huge.toml", HUGE);
    for args in [&["check", &s][..], &["run", &s, "--out", "out"]] {
        let t = Instant::now();
        let o = flitsim(d, "huge", args);
        assert!(t.elapsed() < Duration::from_secs(2), "refused at once");
        refused(
            &o,
            &["[router] vcs", "a point needs about", "left by", "--force"],
        );
    }
    assert!(!d.join("out").exists());
    let o = flitsim(d, "force", &["check", &s, "--force"]);
    ok(&o);
    assert!(
        o.stdout.contains("memory: about 70.3 GiB per point"),
        "{}",
        o.stdout
    );
}

/// The estimate against the peak resident set of the memory scenario (a 64-ary 3-cube, 262,144
/// nodes) run on one thread, as `check` assumes, measured with GNU time: never below it, and
/// within a quarter of it; skipped, saying so, where /usr/bin/time is missing.
#[test]
fn the_estimate_is_never_below_the_measured_peak_and_within_a_quarter_of_it() {
    let test = "the_estimate_is_never_below_the_measured_peak_and_within_a_quarter_of_it";
    if !can_measure(test) {
        return;
    }
    let tmp = temp_dir("exp-memory-peak");
    let (est, peak) = estimate_and_peak(tmp.path(), MEMORY_SCENARIO, "memory");
    assert!(
        est >= peak && est < 1.25 * peak,
        "estimate {est} MiB, peak {peak} MiB"
    );
}

/// Networks of other families and shapes, small enough to run in a moment: a 4-D torus, a
/// 10-cube, a 64x64 HyperX, an 8-ary 3-way mesh with its processors in the routers, a
/// unidirectional torus with 4 virtual channels and a mesh with one. Each one's estimate is at
/// least its measured peak (GNU time; the test says it is skipped without /usr/bin/time).
#[test]
fn the_estimate_is_never_below_the_measured_peak_on_any_family() {
    let test = "the_estimate_is_never_below_the_measured_peak_on_any_family";
    if !can_measure(test) {
        return;
    }
    let tmp = temp_dir("exp-memory-families");
    let d = tmp.path();
    for (name, topology, vcs, routing) in [
        ("torus", "kind = \"torus\"\nk = [16, 16, 8, 8]", 2, "dor"),
        ("hypercube", "kind = \"hypercube\"\nn = 10", 2, "dor"),
        ("hyperx", "kind = \"hyperx\"\nk = 64\nn = 2", 2, "dor"),
        (
            "mway",
            "kind = \"mway\"\nk = 8\nn = 3\nwrap = \"mesh\"\nprocessors = \"routers\"",
            2,
            "dor",
        ),
        (
            "unidirectional",
            "kind = \"torus\"\nk = 32\nn = 3\nlinks = \"unidirectional\"",
            4,
            "dor",
        ),
        ("mesh", "kind = \"mesh\"\nk = 128\nn = 2", 1, "dor"),
    ] {
        let s = scenario(
            d,
            &format!("{name}.toml"),
            &format!(
                "name = \"{name}\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\n\
                 buffer_depth = 8\n[routing]\nalgorithm = \"{routing}\"\n[traffic]\n\
                 message_length = 16\nflit_rates = [0.002]\n[run]\nwarmup_cycles = 500\n\
                 measure_cycles = 1000\n"
            ),
        );
        let (est, peak) = estimate_and_peak(d, &s, name);
        assert!(est >= peak, "{name}: estimate {est} MiB, peak {peak} MiB");
    }
}

/// The estimate `check` prints for scenario `s` and the peak resident set of a whole `flitsim
/// run` of it on one thread, MiB.
fn estimate_and_peak(d: &Path, s: &str, tag: &str) -> (f64, f64) {
    let o = flitsim(d, &format!("{tag}-check"), &["check", s]);
    ok(&o);
    let est = about_mib(&o.stdout, "memory: about ");
    let out = d.join(format!("{tag}-out"));
    let run = ["run", s, "--threads", "1", "--quiet", "--out"];
    (
        est,
        peak_mib(&[&run[..], &[out.to_str().unwrap()]].concat()),
    )
}

/// A sweep's results are held until its tables are written, so they count too: 300 points of
/// the 32-ary 4-cube (1,048,576 nodes, 8,388,608 links: about 176 MB of results each, 49 GiB in
/// all) are refused at once, naming the keys that make the points, though one point alone fits.
#[test]
fn a_sweep_whose_results_cannot_fit_is_refused_at_once() {
    if roomy("a_sweep_whose_results_cannot_fit_is_refused_at_once") {
        return;
    }
    let tmp = temp_dir("exp-results");
    let d = tmp.path();
    let rates: Vec<String> = (1..=30).map(|i| format!("0.000{i:02}")).collect();
    let s = scenario(
        d,
        "many.toml",
        &format!(
            "name = \"many\"\nseeds = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n[topology]\n\
             kind = \"torus\"\nk = 32\nn = 4\nlinks = \"bidirectional\"\n[traffic]\n\
             message_length = 16\nflit_rates = [{}]\n",
            rates.join(", ")
        ),
    );
    for args in [&["check", &s][..], &["run", &s, "--out", "out"]] {
        let t = Instant::now();
        let o = flitsim(d, "many", args);
        assert!(t.elapsed() < Duration::from_secs(2), "refused at once");
        refused(
            &o,
            &[
                "[traffic] flit_rates, seeds and the sweep",
                "300 points",
                "left by",
                "--force",
            ],
        );
    }
    assert!(!d.join("out").exists());
    let one = scenario(
        d,
        "one.toml",
        "name = \"one\"\n[topology]\nkind = \"torus\"\nk = 32\nn = 4\n\
         links = \"bidirectional\"\n[traffic]\nmessage_length = 16\nflit_rates = [0.002]\n",
    );
    let o = flitsim(d, "one", &["check", &one]);
    ok(&o);
    assert!(
        o.stdout
            .contains("results: about 168 MiB for its 1 point(s)"),
        "{}",
        o.stdout
    );
}

/// A sweep holds its points' results, never its tables nor its records: four points of the
/// memory scenario (short windows) peak within the estimate of one point's engine and four
/// points' results (an engine of about 207 MiB, results of about 34 MiB a point). Before the
/// tables were written as they were made, the 460 MB channels.csv alone was held whole, and
/// the peak was 738 MB.
#[test]
fn a_sweep_peaks_within_one_engine_and_its_results() {
    if !can_measure("a_sweep_peaks_within_one_engine_and_its_results") {
        return;
    }
    let tmp = temp_dir("exp-memory-sweep");
    let d = tmp.path();
    let sets = [
        "--set",
        "traffic.flit_rates=[0.001, 0.002, 0.003, 0.004]",
        "--set",
        "run.warmup_cycles=100",
        "--set",
        "run.measure_cycles=100",
    ];
    let o = flitsim(
        d,
        "check",
        &[&["check", MEMORY_SCENARIO][..], &sets].concat(),
    );
    ok(&o);
    let engine = about_mib(&o.stdout, "memory: about ");
    let results = about_mib(&o.stdout, "results: about ");
    let out = d.join("out");
    let run = [
        &["run", MEMORY_SCENARIO, "--threads", "1", "--quiet"][..],
        &sets,
        &["--out", out.to_str().unwrap()],
    ]
    .concat();
    let peak = peak_mib(&run);
    assert!(std::fs::metadata(out.join("channels.csv")).unwrap().len() > 400_000_000);
    assert!(
        peak < 1.1 * (engine + results),
        "peak {peak} MiB, engine {engine} MiB, results {results} MiB"
    );
    // Resumed with every point recorded, the run reads the records one at a time: it holds
    // the results (and the network its channels.csv names), less than one engine. When it read
    // every record at once and kept them beside the results, it peaked at 260 MiB.
    let resumed = peak_mib(&run);
    assert!(
        resumed < engine,
        "resumed: peak {resumed} MiB, engine {engine} MiB, results {results} MiB"
    );
}

/// Source queues are bounded in bytes too: a max_backlog whose worst case cannot fit (a 64x64
/// mesh at a flit rate of 1.0 with 1,048,576 messages per node: hundreds of GiB) is refused at
/// check, naming the key.
#[test]
fn a_backlog_that_cannot_fit_is_refused() {
    if roomy("a_backlog_that_cannot_fit_is_refused") {
        return;
    }
    let tmp = temp_dir("exp-backlog");
    let d = tmp.path();
    let s = scenario(
        d,
        "b.toml",
        "name = \"b\"\n[topology]\nkind = \"mesh\"\nk = 64\nn = 2\n[traffic]\n\
         message_length = 1\nflit_rates = [1.0]\n[run]\nmax_backlog = 1048576\n",
    );
    refused(
        &flitsim(d, "check", &["check", &s]),
        &["[run] max_backlog", "1048576 messages per processor"],
    );
    refused(
        &flitsim(d, "run", &["run", &s, "--out", "o"]),
        &["[run] max_backlog"],
    );
}

/// Networks of 2^22 nodes with default router settings (an n = 22 hypercube, a 2048x2048
/// torus, an 8-ary 7-D m-way torus) once passed `check` and aborted on a failed allocation:
/// each is now refused at once with exit 2, naming the key to change.
#[test]
fn networks_of_four_million_nodes_are_refused_not_aborted() {
    if roomy("networks_of_four_million_nodes_are_refused_not_aborted") {
        return;
    }
    let tmp = temp_dir("exp-2to22");
    let d = tmp.path();
    for (name, topology) in [
        ("hypercube", "kind = \"hypercube\"\nn = 22"),
        (
            "torus",
            "kind = \"torus\"\nk = 2048\nn = 2\nlinks = \"bidirectional\"",
        ),
        ("mway", "kind = \"mway\"\nk = 8\nn = 7\nwrap = \"torus\""),
    ] {
        let routing = if name == "mway" {
            "[routing]\nalgorithm = \"dor-ring\"\n"
        } else {
            ""
        };
        let s = scenario(
            d,
            &format!("{name}.toml"),
            &format!(
                "name = \"{name}\"\n[topology]\n{topology}\n{routing}[traffic]\nmessage_length = 5\n\
                 flit_rates = [0.01]\n"
            ),
        );
        let t = Instant::now();
        refused(
            &flitsim(d, name, &["check", &s]),
            &["a saturated point", "left by", "--force"],
        );
        assert!(t.elapsed() < Duration::from_secs(2), "{name}: at once");
    }
}

/// A 4x4 torus and a 2048x2048 one (4,194,304 nodes, 16 virtual channels: its buffers' array
/// alone is 8 GB), one load each.
const SMALL_THEN_HUGE: &str = "name = \"oom\"\n[topology]\nkind = \"torus\"\nk = 2048\nn = 2\n\
    links = \"bidirectional\"\n[router]\nvcs = 16\n[traffic]\nmessage_length = 16\n\
    rates = [0.001]\n[run]\nwarmup_cycles = 100\nmeasure_cycles = 1000\n\
    [sweep]\n\"topology.k\" = [4, 2048]\n";

/// Sets `limits` (resource, bytes) in `cmd`'s child before it runs flitsim.
fn limited(cmd: &mut std::process::Command, limits: &[(libc::__rlimit_resource_t, u64)]) {
    use std::os::unix::process::CommandExt;
    let limits = limits.to_vec();
    // SAFETY: the closure only calls setrlimit, which is async-signal-safe, on values it owns.
    unsafe {
        cmd.pre_exec(move || {
            for &(resource, bytes) in &limits {
                let l = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                if libc::setrlimit(resource, &l) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}

/// A point too large for the memory there is, run with `--force` (here under a 1 GiB limit on
/// the address space): the allocation that fails ends the run with one line naming memory, the
/// bytes asked and the fix, and exit code 4 (not an abort, no core dump), the point finished
/// before it kept on disk.
#[test]
fn out_of_memory_ends_the_run_with_exit_4_keeping_finished_points() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = temp_dir("oom");
    let dir = tmp.path();
    let s = scenario(dir, "oom.toml", SMALL_THEN_HUGE);
    let out = dir.join("out");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"));
    cmd.args(["run", &s, "--force", "--threads", "1", "--quiet", "--out"])
        .arg(&out);
    limited(
        &mut cmd,
        &[(libc::RLIMIT_AS, 1 << 30), (libc::RLIMIT_CORE, 0)],
    );
    let o = cmd.output().expect("run flitsim");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.signal(), None, "not killed by a signal: {stderr}");
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.starts_with("flitsim: error: memory: an allocation of ")
            && stderr.contains(" bytes failed, the memory is exhausted; fix: a smaller network, fewer --threads, or a machine with more memory"),
        "{stderr}"
    );
    let bytes: u64 = stderr["flitsim: error: memory: an allocation of ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(bytes > 1 << 30, "more than the limit was asked: {bytes}");
    let kept = std::fs::read_dir(out.join(".points")).unwrap().count();
    assert_eq!(kept, 1, "the 4x4 torus's point is kept");
}

/// A 16x16x8x8 torus with `--force` under address-space limits from 20 to 280 MB: whatever
/// the limit, the run ends with exit 0, or exit 4 and one line (a thread that cannot start, an
/// allocation refused, however many threads meet it at once), never a panic, an abort or a
/// signal. (Below about 19 MB, the binary with its plot renderers mapped, the standard
/// library cannot map a new thread's signal stack, or the C library register a thread's TLS
/// destructor, and says so from that thread before flitsim's code runs in it; below about 14 MB
/// the binary does not load.)
#[test]
fn under_any_address_space_limit_a_forced_run_ends_cleanly() {
    use std::os::unix::process::ExitStatusExt;
    let tmp = temp_dir("oom-sweep");
    let dir = tmp.path();
    let text = "name = \"small\"\n[topology]\nkind = \"torus\"\nk = [16, 16, 8, 8]\n\
        links = \"bidirectional\"\n[router]\nvcs = 2\n[traffic]\nmessage_length = 16\n\
        flit_rates = [0.01]\n[run]\nwarmup_cycles = 100\nmeasure_cycles = 200\nmax_backlog = 1\n";
    let s = scenario(dir, "small.toml", text);
    for mb in (20..40).step_by(2).chain((40..=280).step_by(20)) {
        let out = dir.join(format!("out{mb}"));
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"));
        cmd.args(["run", &s, "--force", "--threads", "2", "--quiet", "--out"])
            .arg(&out);
        limited(&mut cmd, &[(libc::RLIMIT_AS, mb as u64 * 1_000_000)]);
        let o = cmd.output().expect("run flitsim");
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.signal(), None, "{mb} MB: killed: {stderr}");
        match o.status.code() {
            Some(0) => {}
            Some(4) => assert_eq!(stderr.lines().count(), 1, "{mb} MB: {stderr}"),
            c => panic!("{mb} MB: exit {c:?}: {stderr}"),
        }
    }
}
