//! Scenario paths that are not small regular files are refused at once, and values whose
//! message once named the wrong fix now name a fix that works.

use super::{GOOD, Setup, edit};
use std::time::{Duration, Instant};

/// Asserts `flitsim check PATH` exits 2 at once with one line naming the path, containing
/// `expect`.
fn refused_at_once(setup: &Setup, path: &str, expect: &str) {
    let t = Instant::now();
    let o = setup.run(&["check", path]);
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "refused at once: {path}"
    );
    assert_eq!(o.code, Some(2), "{}", o.describe());
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.describe());
    assert!(
        o.stderr.contains(path) && o.stderr.contains(expect),
        "{}",
        o.describe()
    );
    assert!(o.stderr.contains("; fix: "), "{}", o.describe());
}

#[test]
fn a_fifo_a_device_a_directory_and_an_oversize_file_are_refused_at_once() {
    let setup = Setup::new("paths");
    let fifo = setup.work().join("fifo.toml");
    crate::common::fifo(&fifo);
    refused_at_once(&setup, "fifo.toml", "not a regular file");
    refused_at_once(&setup, "/dev/zero", "not a regular file");
    std::fs::create_dir(setup.work().join("dir.toml")).unwrap();
    refused_at_once(&setup, "dir.toml", "directory");
    let big = format!("{GOOD}# {}\n", "x".repeat(1 << 20));
    setup.write("big.toml", &big);
    refused_at_once(&setup, "big.toml", "more than the 1048576 bytes");
}

/// Each case: a line of GOOD replaced, what the message must say, and what it must not.
#[test]
fn messages_name_a_fix_that_works() {
    let long_name = format!("name = \"{}\"", "n".repeat(300));
    let cases: [(&str, &str, &str, &str); 6] = [
        (
            "k = 4",
            "k = 18446744073709551616",
            "too large",
            "any value",
        ),
        (
            "measure_cycles = 2000",
            "measure_cycles = 2000\nhistogram_bin = 18446744073709551615",
            "out of range",
            "expected a whole number;",
        ),
        ("[topology]", "[[topology]]", "[[name]]", "each item"),
        (
            "kind = \"mesh\"",
            "kind = [\"mesh\"]",
            "give `kind` as a string",
            "each item",
        ),
        (
            "rates = [0.005, 0.01]",
            "rates = [1e308]",
            "load 1e308",
            "0000000000",
        ),
        (
            "name = \"t\"",
            &long_name,
            "too long for a directory name",
            "ok",
        ),
    ];
    for (old, new, expect, never) in cases {
        let setup = Setup::new("messages");
        setup.write("s.toml", &edit(GOOD, old, new));
        let o = setup.run(&["check", "s.toml"]);
        assert_eq!(o.code, Some(2), "{new}: {}", o.describe());
        assert_eq!(o.stderr.lines().count(), 1, "{}", o.describe());
        assert!(
            o.stderr.contains(expect),
            "{new}: {expect:?} in {}",
            o.stderr
        );
        assert!(
            !o.stderr.contains(never),
            "{new}: not {never:?} in {}",
            o.stderr
        );
    }
}
