//! One point's cycle split across threads (`[run] threads_per_point`): every table a run
//! writes, and every point record, is byte-identical for 1, 2 and 3 threads, on a torus, a
//! mesh with Duato's routing, a mesh of two processors per router and a k-ary m-way network,
//! each at a light load and past
//! saturation; a run left to choose splits a large point by itself, to the same results; a
//! bad count is refused like any bad key; a split point stops within a second of SIGTERM or
//! SIGINT.

use flitsim::Scenario;
use flitsim::engine::{run_point, run_point_on};
use flitsim::stats::StopReason;
use std::path::Path;

/// A scenario on `topology` with `router` and `routing` keys, at a light load and far past
/// saturation (stopped on its backlog), short enough for a test.
fn scenario(topology: &str, router: &str, routing: &str) -> String {
    format!(
        "name = \"threads\"\n[topology]\n{topology}\n[router]\n{router}\n[routing]\n{routing}\n\
         [traffic]\nmessage_length = 8\nflit_rates = [0.1, 1.0]\n\
         [run]\nwarmup_cycles = 300\nmeasure_cycles = 2000\nmax_backlog = 10\nbatches = 10\n"
    )
}

/// `flitsim run FILE --out OUT --quiet --set run.threads_per_point=N`: exit code and stderr.
fn run(file: &Path, out: &Path, threads: &str) -> (Option<i32>, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .arg("run")
        .arg(file)
        .arg("--out")
        .arg(out)
        .args(["--quiet", "--set"])
        .arg(format!("run.threads_per_point={threads}"))
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every CSV table of `dir` and every point record under `dir/.points`, by name.
fn written(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for d in [dir.to_path_buf(), dir.join(".points")] {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_file() && (d != dir || name.ends_with(".csv")) {
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn tables_are_byte_identical_for_1_2_and_3_threads() {
    let cases = [
        (
            "kind = \"torus\"\nk = 8\nn = 3\nlinks = \"bidirectional\"",
            "vcs = 2\nbuffer_depth = 4",
            "algorithm = \"dor\"",
        ),
        (
            "kind = \"mesh\"\nk = [8, 6]",
            "vcs = 3\nbuffer_depth = 2",
            "algorithm = \"duato\"",
        ),
        (
            "kind = \"mesh\"\nk = 8\nn = 2\nconcentration = 2",
            "vcs = 2\nbuffer_depth = 4",
            "algorithm = \"dor\"",
        ),
        (
            "kind = \"mway\"\nk = 4\nn = 3\nwrap = \"torus\"",
            "vcs = 4\nbuffer_depth = 2",
            "algorithm = \"dor-ring\"",
        ),
    ];
    let tmp = crate::common::temp_dir("threads");
    for (i, (topology, router, routing)) in cases.into_iter().enumerate() {
        let file = tmp.path().join(format!("s{i}.toml"));
        std::fs::write(&file, scenario(topology, router, routing)).unwrap();
        let mut tables = Vec::new();
        for threads in ["1", "2", "3"] {
            let out = tmp.path().join(format!("out{i}-{threads}"));
            let (code, err) = run(&file, &out, threads);
            assert_eq!(code, Some(0), "{topology}, {threads} threads: {err}");
            tables.push(written(&out));
        }
        let summary = &tables[0]
            .iter()
            .find(|(n, _)| n == "summary.csv")
            .expect("a summary")
            .1;
        let summary = String::from_utf8_lossy(summary);
        // Both loads ran: one steady, one stopped on its backlog (past saturation).
        assert!(summary.contains(",drained,"), "{topology}: {summary}");
        assert!(summary.contains(",backlog,"), "{topology}: {summary}");
        assert!(tables[0].len() >= 6, "{topology}: {:?}", tables[0].len());
        for (threads, t) in [(2, &tables[1]), (3, &tables[2])] {
            assert_eq!(tables[0].len(), t.len(), "{topology}: the same files");
            for ((name, one), (_, split)) in tables[0].iter().zip(t.iter()) {
                assert!(
                    one == split,
                    "{topology}: {name} differs between 1 and {threads} threads"
                );
            }
        }
    }
}

/// With `threads_per_point` left at 0, a point of a network of at least `AUTO_SPLIT_BUFFERS`
/// buffers given free threads splits its cycle across them, to the same results as one thread.
#[test]
fn a_large_point_with_threads_free_splits_to_the_same_results() {
    let text = "name = \"auto\"\n[topology]\nkind = \"torus\"\nk = 32\nn = 3\n\
                links = \"bidirectional\"\n[router]\nvcs = 2\nbuffer_depth = 4\n\
                [traffic]\nmessage_length = 8\nflit_rates = [0.05]\n\
                [run]\nwarmup_cycles = 100\nmeasure_cycles = 300\nbatches = 10\n";
    let s = Scenario::from_toml(text, "auto.toml").unwrap();
    let net = flitsim::network::Network::for_scenario(&s);
    assert!(net.buffers() >= flitsim::engine::AUTO_SPLIT_BUFFERS);
    let rate = s.traffic.rates[0];
    let one = run_point(&s, rate, 3).unwrap();
    let two = run_point_on(&s, rate, 3, 2).unwrap();
    assert_eq!(one.stop, StopReason::Drained);
    let row = |r| flitsim::output::summary_csv(&[r]);
    assert!(one.window_delivered > 1000, "{}", one.window_delivered);
    assert_eq!(row(one), row(two));
}

#[test]
fn a_bad_thread_count_is_refused_naming_the_key() {
    let tmp = crate::common::temp_dir("threads-bad");
    let file = tmp.path().join("s.toml");
    std::fs::write(
        &file,
        scenario("kind = \"mesh\"\nk = 4\nn = 2", "vcs = 2", ""),
    )
    .unwrap();
    for bad in ["-1", "65", "two"] {
        let out = tmp.path().join(format!("out{bad}"));
        let (code, err) = run(&file, &out, bad);
        assert_eq!(code, Some(2), "{bad}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("threads_per_point"), "{err}");
        assert!(err.contains("fix"), "{err}");
        assert!(
            err.contains(&format!("--set run.threads_per_point={bad}")),
            "{err}"
        );
        assert!(!out.exists(), "{bad}: nothing is written");
    }
}

/// A point split across 2 threads that would run for hours: a 32x32 torus warming up for a
/// billion cycles, at a load well below saturation (so that no backlog stops it early).
const LONG_SPLIT: &str = "name = \"long-split\"\n[topology]\nkind = \"torus\"\nk = 32\nn = 2\n\
    links = \"bidirectional\"\n[router]\nvcs = 2\n[traffic]\nmessage_length = 8\n\
    flit_rates = [0.05]\n[run]\nwarmup_cycles = 1000000000\nmeasure_cycles = 1000\n\
    threads_per_point = 2\n";

/// Starts `flitsim run` on [`LONG_SPLIT`] in `dir`, waits until it reports cycles simulated
/// (its progress line, every 0.2 s), sends it `signal` and returns how long it took to exit,
/// asserting it ends with exit code 130 and the interruption's message.
fn stop_time(dir: &Path, signal: libc::c_int) -> std::time::Duration {
    use std::time::{Duration, Instant};
    let file = dir.join("s.toml");
    std::fs::write(&file, LONG_SPLIT).unwrap();
    let err_path = dir.join(format!("stderr-{signal}"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(dir.join(format!("out-{signal}")))
        .env("FLITSIM_REPORT_SECONDS", "0.2")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let simulating = |text: &str| {
        text.lines().any(|l| {
            l.split(" points done, ")
                .nth(1)
                .and_then(|rest| rest.split(' ').next())
                .is_some_and(|cycles| cycles.parse::<u64>().is_ok_and(|c| c > 0))
        })
    };
    while !simulating(&std::fs::read_to_string(&err_path).unwrap()) {
        if started.elapsed() > Duration::from_secs(60) || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!(
                "not simulating after {:?}: {}",
                started.elapsed(),
                std::fs::read_to_string(&err_path).unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let pid = child.id() as libc::pid_t;
    let sent = Instant::now();
    // SAFETY: kill sends a signal to the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("still running 30 s after signal {signal}");
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let took = sent.elapsed();
    let err = std::fs::read_to_string(&err_path).unwrap();
    assert_eq!(status.code(), Some(130), "signal {signal}: {err}");
    assert!(
        err.contains("flitsim: interrupted: 0 of 1 points are kept in "),
        "{err}"
    );
    took
}

/// A split point stops within a second of SIGTERM and of SIGINT (Ctrl-C), with exit code 130
/// and the interruption's message: its threads busy with the cycle never keep the handler
/// from running.
#[test]
fn a_split_point_stops_within_a_second_on_sigterm_and_sigint() {
    let tmp = crate::common::temp_dir("threads-stop");
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let took = stop_time(tmp.path(), signal);
        println!("signal {signal}: stopped in {took:?}");
        assert!(
            took < std::time::Duration::from_secs(1),
            "signal {signal}: {took:?}"
        );
    }
}
