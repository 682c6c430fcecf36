//! Deadlock: exit code 3, a report of the stuck buffers, never a hang.

use super::{Setup, edit};

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
