//! Huge numbers and long values, in `--set`s, in the scenario file and in the command line's
//! flags: each refused with exit code 2 in one short line that shows numbers compactly (`1e300`,
//! not 301 digits), names no Rust type, and cuts what it echoes (the first 40 characters and the
//! length in bytes, never the whole 20 kB).

use super::{GOOD, Setup, edit};

/// The most characters a refusal may have, whatever was given: the longest is a swept pattern
/// of 20 kB, whose message names the `--set`, the configuration and the value (each cut) and
/// lists the twelve pattern names there are.
const MOST_CHARS: usize = 400;

/// The longest run of one character a message may echo: a value is cut to 40 characters, the
/// scenario line a message quotes to 60.
const LONGEST_RUN: usize = 60;

/// The longest run of one repeated character in `text`.
fn longest_run(text: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    let mut last = None;
    for c in text.chars() {
        run = if Some(c) == last { run + 1 } else { 1 };
        last = Some(c);
        best = best.max(run);
    }
    best
}

/// Runs `flitsim args` (the scenario `s.toml` being GOOD, or `text`) and asserts it is refused
/// in one short line.
fn assert_short_refusal(setup: &Setup, args: &[&str]) -> usize {
    let o = setup.run(args);
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.chars().take(60).collect::<String>())
        .collect();
    let context = format!("flitsim {shown:?}: {}", o.describe());
    assert_eq!(o.code, Some(2), "exit code; {context}");
    assert!(o.stdout.is_empty(), "nothing on stdout; {context}");
    let msg = o.stderr.strip_suffix('\n').unwrap_or(&o.stderr);
    assert!(!msg.contains('\n'), "one line; {context}");
    assert!(msg.starts_with("flitsim: error: "), "{context}");
    assert!(msg.contains("; fix: "), "says how to fix it; {context}");
    let chars = msg.chars().count();
    assert!(chars < MOST_CHARS, "{chars} characters; {context}");
    assert!(longest_run(msg) <= LONGEST_RUN, "a value cut; {context}");
    for word in ["i128", "u128", "i64", "u64", "f64", "usize"] {
        assert!(!msg.contains(word), "no Rust type name; {context}");
    }
    chars
}

#[test]
fn huge_numbers_and_long_values_are_refused_in_one_short_line() {
    let setup = Setup::new("long-values");
    setup.write("s.toml", GOOD);
    let x = "x".repeat(20480);
    let nines = "9".repeat(20480);
    let wide = "99999999999999999999999";
    let numbers = ["1e300", "-1e300", wide, &format!("-{wide}"), &nines];
    let keys = [
        "seed",
        "router.vcs",
        "router.buffer_depth",
        "traffic.message_length",
        "topology.k",
        "topology.n",
        "run.measure_cycles",
        "traffic.source_concurrency",
        "traffic.pattern_fraction",
    ];
    let mut sets: Vec<String> = Vec::new();
    for key in keys {
        for n in numbers {
            sets.push(format!("{key}={n}"));
            sets.push(format!("sweep.{key}=[{n}, 2]"));
        }
        sets.push(format!("{key}={x}"));
        sets.push(format!("{key}=\"{x}\""));
    }
    for n in ["1e300", "-1e300", wide, &nines] {
        sets.push(format!("traffic.rates=[{n}]"));
    }
    for key in [
        "name",
        "traffic.pattern",
        "routing.algorithm",
        "router.crossbar",
        "topology.kind",
    ] {
        sets.push(format!("{key}={x}"));
        sets.push(format!("{key}=\"a b {x}\""));
        sets.push(format!("sweep.{key}=[\"{x}\", \"uniform\"]"));
    }
    sets.extend([
        format!("{x}=1"),
        format!("router.{x}=1"),
        format!("sweep.{x}=[1]"),
        x.clone(),
        format!("router.vcs=[{x}"),
    ]);
    let mut longest = 0;
    for set in &sets {
        longest = longest.max(assert_short_refusal(
            &setup,
            &["check", "s.toml", "--set", set],
        ));
    }
    // The same in the scenario file.
    let files = [
        edit(GOOD, "vcs = 2", "vcs = 1e300"),
        edit(GOOD, "vcs = 2", &format!("vcs = {wide}")),
        edit(GOOD, "vcs = 2", &format!("vcs = {nines}")),
        edit(GOOD, "vcs = 2", &format!("vcs = \"{x}\"")),
        edit(GOOD, "vcs = 2", &format!("{x} = 2")),
        edit(GOOD, "name = \"t\"", &format!("name = \"{x}\"")),
        edit(GOOD, "algorithm = \"dor\"", &format!("algorithm = \"{x}\"")),
        format!("{GOOD}[sweep]\n\"{x}\" = [1]\n"),
        format!("{GOOD}[sweep]\n\"traffic.pattern\" = [\"{x}\"]\n"),
        format!("{GOOD}[sweep]\n\"traffic.pattern_fraction\" = [1e300]\n"),
    ];
    for text in &files {
        setup.write("f.toml", text);
        longest = longest.max(assert_short_refusal(&setup, &["check", "f.toml"]));
    }
    // The command line's own flags.
    let flags: [&[&str]; 6] = [
        &["run", "s.toml", "--seed", &nines],
        &["run", "s.toml", "--threads", &x],
        &["run", "s.toml", "--shard", &x],
        &["saturation", "s.toml", "--tolerance", "1e300"],
        &["run", "s.toml", &format!("--{x}")],
        &[&x],
    ];
    for args in flags {
        longest = longest.max(assert_short_refusal(&setup, args));
    }
    println!("longest refusal: {longest} characters");
}
