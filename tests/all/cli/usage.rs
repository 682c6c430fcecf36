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
        (&[], "no command given"),
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
        assert_eq!(o.stderr.lines().count(), 1, "one line; {context}");
        assert!(o.stderr.starts_with("flitsim: error: "), "{context}");
        assert!(o.stderr.contains("; fix: "), "a fix; {context}");
        assert_eq!(setup.state(), before, "files untouched; {context}");
    }
}

/// `--help` and `--version` still print as clap prints them, with exit code 0.
#[test]
fn help_and_version_exit_zero() {
    let setup = Setup::new("help");
    for args in [&["--help"][..], &["--version"], &["run", "--help"]] {
        let o = setup.run(args);
        assert_eq!(o.code, Some(0), "{}", o.describe());
        assert!(
            o.stdout.contains("flitsim") || o.stdout.contains("Usage"),
            "{}",
            o.describe()
        );
    }
}
