//! A bounded fuzz of `--set KEY=VALUE` and `[sweep]` values: thousands of random keys (real
//! ones, misspelt ones, `sweep.` ones) and values (huge and tiny numbers, NaN and infinities,
//! control characters, long strings, nested and duplicated lists, tables, broken TOML), each
//! expanded through the library as `run` and `check` do. No case panics; every refusal is bad
//! input, one line naming the `--set` or the file, with a fix, and short.

use super::GOOD;
use flitsim::Error;
use flitsim::experiment::Experiment;
use rand::{Rng, SeedableRng};
use std::time::{Duration, Instant};

/// Keys of the scenario, as `--set` names them.
const KEYS: [&str; 28] = [
    "name",
    "seed",
    "seeds",
    "topology.kind",
    "topology.k",
    "topology.n",
    "topology.links",
    "router.vcs",
    "router.buffer_depth",
    "router.delay",
    "router.link_latency",
    "router.crossbar",
    "router.early_free",
    "routing.algorithm",
    "routing.selection",
    "routing.timeout",
    "traffic.pattern",
    "traffic.message_length",
    "traffic.message_lengths",
    "traffic.rates",
    "traffic.flit_rates",
    "traffic.pattern_fraction",
    "traffic.process",
    "run.warmup_cycles",
    "run.measure_cycles",
    "run.drain_cycles",
    "run.batches",
    "run.max_backlog",
];

/// A random value: a number, a string, a list, a table or broken TOML.
fn value(rng: &mut impl Rng, depth: u32) -> String {
    match rng.gen_range(0..12) {
        0 => rng.gen_range(-5i64..70).to_string(),
        1 => [
            "1e300", "-1e300", "1e-300", "nan", "inf", "-inf", "0.0", "-0",
        ][rng.gen_range(0..8)]
        .into(),
        2 => [
            "18446744073709551616",
            "9223372036854775807",
            "-9223372036854775808",
            "4294967296",
        ][rng.gen_range(0..4)]
        .into(),
        3 => format!("{}", rng.gen_range(0.0..2.0f64)),
        4 => ["dor", "duato", "mesh", "torus", "bit-reversal", "x", "\"\""][rng.gen_range(0..7)]
            .into(),
        5 => {
            let n = rng.gen_range(0..40);
            let s: String = (0..n).map(|_| rng.gen_range(0u8..128) as char).collect();
            format!("{s:?}")
        }
        6 => format!("\"{}\"", "x".repeat(rng.gen_range(100..30_000))),
        7 if depth < 3 => {
            let n = rng.gen_range(0..6);
            let items: Vec<String> = (0..n).map(|_| value(rng, depth + 1)).collect();
            format!("[{}]", items.join(", "))
        }
        8 => {
            let v = value(rng, depth + 1);
            format!("[{v}, {v}]")
        }
        9 => format!("{{ a = {} }}", value(rng, depth + 1)),
        10 => [
            "[",
            "]",
            "=",
            "'",
            "\"",
            "[1,",
            "1 2",
            "true false",
            "\u{0}",
            "3000\nfoo",
            "a\rb",
            "\u{1b}[31m",
        ][rng.gen_range(0..12)]
        .into(),
        _ => ["true", "false", "[]", "[[]]", "{}"][rng.gen_range(0..5)].into(),
    }
}

/// A random key: a real one, a swept one, or a misspelt one.
fn key(rng: &mut impl Rng) -> String {
    let k = KEYS[rng.gen_range(0..KEYS.len())];
    match rng.gen_range(0..6) {
        0 => format!("sweep.{k}"),
        1 => format!("{k}x"),
        2 => k.replace('.', ".."),
        _ => k.to_string(),
    }
}

/// Checks one expansion: it does not panic, and a refusal is one short line of bad input.
fn expand(text: &str, sets: &[String], case: &str) {
    let case: String = case.chars().take(300).collect();
    let got = std::panic::catch_unwind(|| Experiment::from_text(text.into(), "s.toml", sets, None));
    match got {
        Err(_) => panic!("panicked: {case}"),
        Ok(Ok(_)) => {}
        Ok(Err(Error::Input(m))) => {
            assert!(!m.contains('\n'), "one line: {m:?}; {case}");
            assert!(m.contains("fix: "), "a fix: {m}; {case}");
            assert!(
                m.starts_with("--set ") || m.starts_with("s.toml"),
                "names its source: {m}; {case}"
            );
            assert!(m.len() < 1200, "{} bytes: {m:.300}; {case}", m.len());
        }
        Ok(Err(e)) => panic!("not bad input: {e}; {case}"),
    }
}

#[test]
fn random_sets_and_sweeps_are_refused_cleanly_or_accepted() {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(46);
    let start = Instant::now();
    let mut cases = 0;
    while cases < 3000 && start.elapsed() < Duration::from_secs(20) {
        let n = rng.gen_range(1..4);
        let sets: Vec<String> = (0..n)
            .map(|_| format!("{}={}", key(&mut rng), value(&mut rng, 0)))
            .collect();
        expand(GOOD, &sets, &format!("--set {sets:?}"));
        let sweep = format!(
            "[sweep]\n\"{}\" = {}\n",
            KEYS[rng.gen_range(0..KEYS.len())],
            value(&mut rng, 0)
        );
        let text = GOOD.replace("[topology]", &format!("{sweep}\n[topology]"));
        expand(&text, &[], &format!("[sweep] {sweep:?}"));
        cases += 1;
    }
    assert!(cases >= 200, "only {cases} cases in the time allowed");
}
