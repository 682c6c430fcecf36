//! Deadlock: exit code 3, a report of the stuck buffers, never a hang.

use super::{Setup, edit};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A directory's files by path.
type Tables = BTreeMap<PathBuf, Vec<u8>>;

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
        // The earlier results are of another experiment: the runs may take the directories over
        // (--replace), but only by publishing their own tables, which a deadlock stops.
        for args in [
            &[
                "run",
                "dl.toml",
                "--out",
                out.to_str().unwrap(),
                "--replace",
            ][..],
            &["run", "dl.toml", "--replace"][..],
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
            // The lock and the records of the points that finished may be added; every
            // earlier file is untouched.
            let visible = |(work, out): (Tables, Tables)| {
                let keep = |t: Tables| -> Tables {
                    t.into_iter()
                        .filter(|(p, _)| {
                            !p.components()
                                .any(|c| c.as_os_str().to_string_lossy().starts_with('.'))
                        })
                        .collect()
                };
                (keep(work), keep(out))
            };
            assert_eq!(
                visible(setup.state()),
                visible(before.clone()),
                "earlier results untouched; {context}"
            );
        }
    }
}

/// The 8-ary 2-cube with unidirectional links, DOR, V = 1, M = 32, deadlock check off, at flit
/// rates 0.2-0.5: the backlog cut-off fires before the 10,000-cycle watchdog, and the point
/// must still be reported as the deadlock it is (exit 3 with the report), never as a saturated
/// point with accepted load 0.
const FROZEN_BEFORE_WATCHDOG: &str = r#"name = "t"
seed = 1

[topology]
kind = "torus"
k = 8
n = 2
links = "unidirectional"

[router]
vcs = 1

[routing]
algorithm = "dor"
deadlock_check = false

[traffic]
message_length = 32
flit_rates = [0.2]

[run]
warmup_cycles = 1000
measure_cycles = 10000
"#;

#[test]
fn a_deadlock_that_stops_on_backlog_is_still_a_deadlock() {
    for rate in ["0.2", "0.3", "0.4", "0.5"] {
        let setup = Setup::new(&format!("frozen-{rate}"));
        let text = edit(
            FROZEN_BEFORE_WATCHDOG,
            "flit_rates = [0.2]",
            &format!("flit_rates = [{rate}]"),
        );
        setup.write("s.toml", &text);
        let o = setup.run(&["run", "s.toml", "--out", "frozen", "--quiet"]);
        assert_eq!(o.code, Some(3), "rate {rate}: {}", o.describe());
        assert!(o.stderr.contains("deadlock at cycle"), "{}", o.stderr);
        assert!(o.stderr.contains("backlog limit"), "{}", o.stderr);
        assert!(o.stderr.contains("cannot move"), "{}", o.stderr);
        assert!(
            !setup.work().join("frozen").join("summary.csv").exists(),
            "no table for a deadlocked run"
        );
    }
}

/// A deadlock-free network far past saturation still stops on its backlog as a saturated
/// point (exit 0, stop = backlog, saturated = true): the check finds it moving.
#[test]
fn a_live_network_past_saturation_still_stops_on_backlog() {
    let setup = Setup::new("live-backlog");
    let text = edit(
        &edit(
            &edit(
                FROZEN_BEFORE_WATCHDOG,
                "links = \"unidirectional\"",
                "links = \"bidirectional\"",
            ),
            "vcs = 1",
            "vcs = 2",
        ),
        "deadlock_check = false",
        "deadlock_check = true",
    );
    let text = edit(&text, "flit_rates = [0.2]", "flit_rates = [0.9]");
    let text = edit(
        &text,
        "measure_cycles = 10000",
        "measure_cycles = 10000\nmax_backlog = 3",
    );
    setup.write("s.toml", &text);
    let o = setup.run(&["run", "s.toml", "--out", "live", "--quiet"]);
    assert_eq!(o.code, Some(0), "{}", o.describe());
    let summary = std::fs::read_to_string(setup.work().join("live").join("summary.csv")).unwrap();
    let mut lines = summary.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    assert_eq!(row[col("stop")], "backlog");
    assert_eq!(row[col("saturated")], "true");
}
