//! Bad command lines (unknown subcommand or option, missing or invalid argument): exit code
//! 2, no panic, nothing written.

use super::{GOOD, Setup};

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
