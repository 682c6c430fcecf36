//! When a point stops warming up and measuring: `[run] warmup_cycles = "auto"` (MSER-5 on
//! batch means of latency and accepted load) and `[run] precision` (the window lengthened until
//! the latency's 95% half-width is at most that fraction of its mean). The automatic warm-up of
//! a nearly empty mesh ends within a stated bound; the precision is met by every point that
//! says it is, and the intervals cover a long run's mean at about their nominal rate; a
//! saturated point stops on the warm-up cap and an unmet precision on the window cap, both
//! saying so; 1 and 2 threads per point, and a resumed run, give byte-identical tables; bad
//! keys are refused.

use flitsim::Scenario;
use flitsim::engine::run_point;
use flitsim::stats::StopReason;
use std::path::Path;

/// `flitsim run FILE --out OUT --quiet` with `args`: the exit code and stderr.
fn run(file: &Path, out: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .arg("run")
        .arg(file)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// summary.csv of `dir` as rows of (column, cell) lookups.
fn summary(dir: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("summary.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(String::from).collect();
    lines
        .map(|l| {
            head.iter()
                .cloned()
                .zip(l.split(',').map(String::from))
                .collect()
        })
        .collect()
}

/// `seeds = [1, ..., n]`.
fn seeds(n: u64) -> String {
    let list: Vec<String> = (1..=n).map(|s| s.to_string()).collect();
    format!("seeds = [{}]", list.join(", "))
}

/// Runs `text` in a fresh directory and returns its summary rows.
fn run_text(text: &str, tag: &str) -> Vec<std::collections::HashMap<String, String>> {
    let tmp = crate::common::temp_dir(tag);
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let (code, err) = run(&file, &out, &[]);
    assert_eq!(code, Some(0), "{err}");
    summary(&out)
}

fn num(row: &std::collections::HashMap<String, String>, col: &str) -> f64 {
    row[col].parse().unwrap()
}

/// An 8x8 mesh at 0.01 flits/node/cycle (4-flit messages): latency about M + h̄ (network
/// latency 4 + 5.33), the network settled within a message's latency, so every batch of the
/// series is in steady state. MSER-5 judges 10 batches of 500 cycles first, so the warm-up is
/// at least 5,000 cycles; on a stationary series it ends at a later check only when the last
/// half of the batches happens to vary less than half as much as all of them (the MSER score
/// at the half-way bound, about σ²/(n/2), below the score at 0, σ²/n): about one chance in
/// five per check, so ten checks (to 10,000 cycles) all failing has probability about 1e-7.
/// Bound tested: every one of 200 seeds ends its warm-up within 10,000 cycles, at least half
/// of them at 5,000.
#[test]
fn auto_warmup_at_zero_load_ends_within_ten_thousand_cycles() {
    let text = format!(
        "name = \"zero\"\n{}\n[topology]\nkind = \"mesh\"\nk = 8\nn = 2\n[traffic]\n\
         message_length = 4\nflit_rates = [0.01]\n[run]\nwarmup_cycles = \"auto\"\n\
         measure_cycles = 2000\nbatches = 10\n",
        seeds(200)
    );
    let rows = run_text(&text, "stop-zero");
    assert_eq!(rows.len(), 200);
    let mut first = 0;
    for r in &rows {
        let w = num(r, "warmup_cycles") as u64;
        assert_eq!(r["stop"], "drained");
        assert!((5_000..=10_000).contains(&w), "{w}");
        assert_eq!(w % 500, 0, "checked at batch boundaries only");
        assert_eq!(num(r, "measure_cycles"), 2000.0);
        first += (w == 5_000) as u32;
        let zero_load = 4.0 + num(r, "hops_mean");
        let net = num(r, "network_latency_mean");
        assert!(
            (net - zero_load).abs() < 0.05 * zero_load,
            "{net} vs {zero_load}"
        );
    }
    assert!(first >= 100, "{first} of 200 at the first check");
}

/// A 4x4 mesh at 0.33 flits/node/cycle, about half its saturation throughput (0.65 accepted
/// past saturation), 4-flit messages, a first window of 2,000 cycles in 20 batches, and
/// `precision = 0.02`: almost every seed lengthens its window. Every point that stops
/// `drained` meets the precision exactly (its stop rule reads the final half-width), and at
/// least 95 of the 100 do. Against a 400,000-cycle run's mean μ (half-width about 0.3% of
/// it), each interval mean ± ci95 is a 95% interval: at least 85 of 100 must hold μ (if the
/// true coverage were 0.95, fewer than 85 has binomial probability about 2e-4; batch means
/// and sequential stopping cover a little below nominal, 93 of these 100 here).
#[test]
fn precision_is_met_and_the_intervals_cover_the_mean() {
    let body = "[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nmessage_length = 4\n\
                flit_rates = [0.33]\n[run]\n";
    let text = format!(
        "name = \"precise\"\n{}\n{body}warmup_cycles = \"auto\"\nmeasure_cycles = 2000\n\
         batches = 20\nprecision = 0.02\n",
        seeds(100)
    );
    let rows = run_text(&text, "stop-precise");
    assert_eq!(rows.len(), 100);
    let reference = format!(
        "name = \"ref\"\nseed = 1001\n{body}warmup_cycles = 5000\nmeasure_cycles = 400000\n"
    );
    let s = Scenario::from_toml(&reference, "ref.toml").unwrap();
    let r = run_point(&s, s.traffic.rates[0], 1001).unwrap();
    let mu = r.stats.mean();
    assert!(r.stats.ci95() < 0.005 * mu, "{}", r.stats.ci95());
    let (mut precise, mut covered, mut lengthened) = (0, 0, 0);
    for row in &rows {
        let (mean, ci) = (num(row, "latency_mean"), num(row, "latency_ci95"));
        match row["stop"].as_str() {
            "drained" => {
                assert!(ci <= 0.02 * mean, "{ci} of {mean}");
                precise += 1;
            }
            "measure-cap" => assert!(ci.is_nan() || ci > 0.02 * mean, "{ci} of {mean}"),
            other => panic!("stopped {other}"),
        }
        assert_eq!(row["saturated"], "false");
        covered += ((mean - mu).abs() <= ci) as u32;
        lengthened += (num(row, "measure_cycles") > 2000.0) as u32;
    }
    assert!(precise >= 95, "{precise} of 100 precise");
    assert!(covered >= 85, "{covered} of 100 cover {mu}");
    assert!(lengthened >= 50, "{lengthened} of 100 lengthened");
}

/// A saturated mesh whose backlog limit is out of reach keeps drifting: its automatic warm-up
/// stops at `max_warmup_cycles`, saturated, with no window. A precision out of reach stops at
/// `max_measure_cycles`, drained but `measure-cap`, not saturated.
#[test]
fn caps_stop_and_say_so() {
    let body = "[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nmessage_length = 4\n";
    let sat = format!(
        "name = \"sat\"\n{body}flit_rates = [1.0]\n[run]\nwarmup_cycles = \"auto\"\n\
         max_warmup_cycles = 6000\nmax_backlog = 1000000\nmeasure_cycles = 1000\n"
    );
    let s = Scenario::from_toml(&sat, "sat.toml").unwrap();
    let r = run_point(&s, s.traffic.rates[0], 1).unwrap();
    assert_eq!(r.stop, StopReason::WarmupCap);
    assert_eq!(r.stop.name(), "warmup-cap");
    assert!(r.saturated());
    assert_eq!((r.warmup_cycles, r.window_cycles), (6000, 0));
    let imprecise = format!(
        "name = \"imprecise\"\n{body}flit_rates = [0.1]\n[run]\nwarmup_cycles = 1000\n\
         measure_cycles = 500\nbatches = 10\nprecision = 0.0001\nmax_measure_cycles = 1700\n"
    );
    let s = Scenario::from_toml(&imprecise, "imprecise.toml").unwrap();
    let r = run_point(&s, s.traffic.rates[0], 1).unwrap();
    assert_eq!(r.stop, StopReason::MeasureCap);
    assert_eq!(r.stop.name(), "measure-cap");
    assert!(!r.saturated());
    assert_eq!((r.warmup_cycles, r.window_cycles), (1000, 1700));
    assert!(r.stats.ci95() > 0.0001 * r.stats.mean());
}

/// Automatic warm-up and precision on 1 and 2 threads per point: the same warm-up and window
/// lengths and byte-identical tables and point records, on a mesh at a light load, near
/// saturation and past it.
#[test]
fn one_and_two_threads_give_identical_tables() {
    let text = "name = \"threads\"\nseeds = [1, 2]\n[topology]\nkind = \"mesh\"\nk = 6\nn = 2\n\
                [router]\nvcs = 2\n[traffic]\nmessage_length = 4\n\
                flit_rates = [0.1, 0.4, 1.0]\n[run]\nwarmup_cycles = \"auto\"\n\
                measure_cycles = 1000\nbatches = 10\nprecision = 0.02\nmax_backlog = 20\n";
    let tmp = crate::common::temp_dir("stop-threads");
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, text).unwrap();
    let mut all = Vec::new();
    for threads in ["1", "2"] {
        let out = tmp.path().join(format!("out{threads}"));
        let set = format!("run.threads_per_point={threads}");
        let (code, err) = run(&file, &out, &["--set", &set]);
        assert_eq!(code, Some(0), "{err}");
        let mut files = Vec::new();
        for d in [out.clone(), out.join(".points")] {
            for entry in std::fs::read_dir(&d).unwrap() {
                let path = entry.unwrap().path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                if path.is_file() && (d != out || name.ends_with(".csv")) {
                    files.push((name, std::fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        all.push((files, summary(&out)));
    }
    let rows = &all[0].1;
    assert!(rows.iter().any(|r| r["stop"] == "drained"));
    assert!(rows.iter().any(|r| r["stop"] == "backlog"));
    assert!(rows.iter().any(|r| num(r, "measure_cycles") > 1000.0));
    assert_eq!(all[0].0.len(), all[1].0.len());
    for ((name, one), (_, two)) in all[0].0.iter().zip(&all[1].0) {
        assert!(one == two, "{name} differs between 1 and 2 threads");
    }
}

/// Each bad `[run]` stopping key is refused with one line naming the key and the fix, exit 2.
#[test]
fn bad_stopping_keys_are_refused() {
    let cases = [
        (
            "warmup_cycles = \"soon\"",
            "[run] warmup_cycles",
            "\"auto\"",
        ),
        ("warmup_cycles = -1", "[run] warmup_cycles", "fix"),
        (
            "max_warmup_cycles = 20000",
            "[run] max_warmup_cycles",
            "warmup_cycles = \"auto\"",
        ),
        (
            "warmup_cycles = \"auto\"\nmax_warmup_cycles = 4000",
            "[run] max_warmup_cycles",
            "5000",
        ),
        ("precision = 0", "[run] precision", "fraction"),
        ("precision = 1.0", "[run] precision", "fraction"),
        ("precision = -0.1", "[run] precision", "fraction"),
        (
            "max_measure_cycles = 200000",
            "[run] max_measure_cycles",
            "set [run] precision",
        ),
        (
            "precision = 0.01\nmeasure_cycles = 5000\nmax_measure_cycles = 4000",
            "[run] max_measure_cycles",
            "at least 5000",
        ),
    ];
    for (keys, key, fix) in cases {
        let text = format!(
            "name = \"bad\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\n\
             flit_rates = [0.1]\n[run]\n{keys}\n"
        );
        let (code, err) = crate::common::flitsim_check(&text, "stop-bad");
        assert_eq!(code, Some(2), "{keys}: {err}");
        assert_eq!(err.lines().count(), 1, "{keys}: {err}");
        assert!(err.contains(key), "{keys}: {err}");
        assert!(err.contains("fix") && err.contains(fix), "{keys}: {err}");
    }
}

/// A resumed run (one point's record removed, so that it alone runs again) writes tables
/// byte-identical to the first run's, with automatic warm-up and precision.
#[test]
fn a_resumed_run_gives_identical_tables() {
    let text = "name = \"resume\"\nseeds = [1, 2]\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n\
                [traffic]\nmessage_length = 4\nflit_rates = [0.1, 0.4]\n[run]\n\
                warmup_cycles = \"auto\"\nmeasure_cycles = 1000\nbatches = 10\nprecision = 0.02\n";
    let tmp = crate::common::temp_dir("stop-resume");
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, text).unwrap();
    let out = tmp.path().join("out");
    let (code, err) = run(&file, &out, &[]);
    assert_eq!(code, Some(0), "{err}");
    let first = std::fs::read(out.join("summary.csv")).unwrap();
    let records = out.join(".points");
    let mut names: Vec<_> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    names.sort();
    assert_eq!(names.len(), 4, "{names:?}");
    std::fs::remove_file(&names[1]).unwrap();
    let (code, err) = run(&file, &out, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(std::fs::read(out.join("summary.csv")).unwrap() == first);
}

/// `check`'s run-time estimate says which points may take longer than it: with a fixed
/// warm-up and one window only those that hit their drain cap, with an automatic warm-up
/// (counted at its shortest, 5,000 cycles) and a precision also those warming up longer or
/// lengthening their window.
#[test]
fn check_estimates_an_automatic_warm_up_at_its_shortest() {
    let tmp = crate::common::temp_dir("stopping-check");
    let f = tmp.path().join("s.toml");
    let base = "name = \"c\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\n\
                message_length = 4\nflit_rates = [0.1]\n[run]\nmeasure_cycles = 2000\n";
    let line = |extra: &str| {
        std::fs::write(&f, format!("{base}{extra}")).unwrap();
        let (code, out, err) = crate::common::check_file(&f, &[]);
        assert_eq!(code, Some(0), "{err}");
        out.lines()
            .find(|l| l.contains("run time"))
            .unwrap()
            .to_string()
    };
    let fixed = line("warmup_cycles = 5000\n");
    assert!(
        fixed.ends_with("points that hit their drain cap take longer)"),
        "{fixed}"
    );
    let auto = line("warmup_cycles = \"auto\"\nprecision = 0.05\n");
    assert!(
        auto.contains("warm up automatically for more than 5,000 cycles or lengthen their window for precision"),
        "{auto}"
    );
}
