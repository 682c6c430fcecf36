//! The arrival process (`[traffic] process`): per-node arrival counts have the moments of
//! each process, a Bernoulli source never makes two arrivals in one cycle, and a Bernoulli
//! load above 1 message/node/cycle is refused.
//!
//! The counts are read from the engine's delivery log (source and generation cycle of every
//! message), on a network that delivers everything: a 32x32 mesh with the neighbor pattern
//! (every channel carries λ), single-flit messages, λ = 0.3.

use crate::cli::{GOOD, assert_refused, edit};
use flitsim::Scenario;
use flitsim::engine::build_engine;
use std::collections::HashSet;

const K: u32 = 32;
const LAMBDA: f64 = 0.3;
/// Cycles of one counting window.
const T: u64 = 100;
/// Consecutive windows per node (disjoint, so independent under both processes).
const WINDOWS: u64 = 16;

fn scenario(process: &str, rate: f64) -> Scenario {
    let text = format!(
        "name = \"arrivals\"\nseed = 7\n[topology]\nkind = \"mesh\"\nk = {K}\nn = 2\n\
         [router]\nvcs = 2\nbuffer_depth = 4\n[routing]\nalgorithm = \"dor\"\n\
         [traffic]\npattern = \"neighbor\"\nmessage_length = 1\nrates = [{rate}]\n\
         process = \"{process}\"\n"
    );
    Scenario::from_toml(&text, "arrivals.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// The (source, generation cycle) of every message generated in the first `cycles` cycles,
/// each delivered: the engine runs on until all are (generation goes on meanwhile).
fn arrivals(process: &str, seed: u64, cycles: u64) -> Vec<(u32, u64)> {
    let s = scenario(process, LAMBDA);
    let mut e = build_engine(&s, LAMBDA, seed);
    e.log_deliveries = true;
    for _ in 0..cycles {
        e.step();
    }
    let generated = e.generated_msgs;
    let mut out = Vec::with_capacity(generated as usize);
    let cap = cycles + 10_000;
    while (out.len() as u64) < generated {
        assert!(
            e.cycle < cap,
            "{process}: {} of {generated} messages delivered by cycle {cap}",
            out.len()
        );
        e.step();
        out.extend(
            e.deliveries
                .drain(..)
                .filter(|d| d.created < cycles)
                .map(|d| (d.src, d.created)),
        );
    }
    assert_eq!(out.len() as u64, generated, "{process}: every message once");
    out
}

/// The sample mean and (unbiased) variance of `xs`.
fn moments(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// A count's theoretical variance σ² and central fourth moment μ4 over a window of `t`
/// cycles: Poisson(λt), or Binomial(t, λ) for Bernoulli trials.
fn theory(process: &str, t: f64) -> (f64, f64) {
    match process {
        "poisson" => {
            let m = LAMBDA * t;
            (m, m + 3.0 * m * m)
        }
        _ => {
            let pq = LAMBDA * (1.0 - LAMBDA);
            (t * pq, t * pq * (1.0 + 3.0 * (t - 2.0) * pq))
        }
    }
}

/// Standard errors of the sample mean and of the sample variance of `n` counts with
/// variance σ² and central fourth moment μ4.
fn standard_errors(n: f64, var: f64, mu4: f64) -> (f64, f64) {
    (
        (var / n).sqrt(),
        ((mu4 - var * var * (n - 3.0) / (n - 1.0)) / n).sqrt(),
    )
}

/// Per-node counts over windows of T cycles: mean λT under both processes, variance λT
/// (Poisson) and λ(1 − λ)T (Bernoulli), each within 5 standard errors of its sampling
/// distribution; and each process's sample variance more than 5 standard errors away from
/// the other's, so that the test tells them apart (λ²T = 9 against standard errors of about
/// 0.3).
#[test]
fn per_node_counts_have_each_processes_mean_and_variance() {
    let nodes = (K * K) as usize;
    let n = (nodes as u64 * WINDOWS) as f64;
    let t = T as f64;
    let mut variances = Vec::new();
    for process in ["poisson", "bernoulli"] {
        let mut counts = vec![0u64; nodes * WINDOWS as usize];
        for (src, created) in arrivals(process, 11, T * WINDOWS) {
            counts[src as usize * WINDOWS as usize + (created / T) as usize] += 1;
        }
        let xs: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
        let (mean, var) = moments(&xs);
        let (sigma2, mu4) = theory(process, t);
        let (se_mean, se_var) = standard_errors(n, sigma2, mu4);
        println!(
            "{process}: {n} counts over {T} cycles: mean {mean:.4} (λT = {:.1}, SE {se_mean:.4}), \
             variance {var:.4} (expected {sigma2:.2}, SE {se_var:.4})",
            LAMBDA * t
        );
        assert!(
            (mean - LAMBDA * t).abs() < 5.0 * se_mean,
            "{process}: mean {mean} vs λT = {} (SE {se_mean})",
            LAMBDA * t
        );
        assert!(
            (var - sigma2).abs() < 5.0 * se_var,
            "{process}: variance {var} vs {sigma2} (SE {se_var})"
        );
        variances.push(var);
    }
    // Each sample variance lies outside the other process's 5-standard-error band.
    for (i, other) in ["poisson", "bernoulli"].into_iter().enumerate() {
        let var = variances[1 - i];
        let (sigma2, mu4) = theory(other, t);
        let se = standard_errors(n, sigma2, mu4).1;
        let z = (var - sigma2) / se;
        println!(
            "the other process's variance {var:.4} is {z:.1} standard errors from {other}'s {sigma2:.2}"
        );
        assert!(
            z.abs() > 5.0,
            "{other}'s band holds the other variance: z = {z}"
        );
    }
}

/// Bernoulli sources make at most one arrival per node per cycle; Poisson sources, the control,
/// make several in some cycles: λ − (1 − e^−λ) = 0.041 arrivals per node and cycle beyond the
/// first (about 21,000 over 1024 nodes and 500 cycles).
#[test]
fn bernoulli_makes_at_most_one_arrival_per_node_per_cycle() {
    for process in ["bernoulli", "poisson"] {
        let all = arrivals(process, 3, 500);
        let distinct: HashSet<(u32, u64)> = all.iter().copied().collect();
        let repeats = all.len() - distinct.len();
        println!(
            "{process}: {} arrivals, {repeats} in a cycle that already had one at that node",
            all.len()
        );
        if process == "bernoulli" {
            assert_eq!(
                repeats, 0,
                "two Bernoulli arrivals at one node in one cycle"
            );
        } else {
            let expected = 1024.0 * 500.0 * (LAMBDA - 1.0 + (-LAMBDA).exp());
            assert!(
                (repeats as f64 - expected).abs() < 0.1 * expected,
                "Poisson control: {repeats} repeats, about {expected} expected"
            );
        }
    }
}

/// At λ = 1 every trial succeeds: exactly one arrival per node in every cycle.
#[test]
fn bernoulli_at_rate_one_arrives_every_cycle() {
    let s = scenario("bernoulli", 1.0);
    let mut e = build_engine(&s, 1.0, 5);
    let nodes = (K * K) as u64;
    for c in 1..=50 {
        e.step();
        assert_eq!(
            e.generated_msgs,
            c * nodes,
            "arrivals by the end of cycle {c}"
        );
    }
}

/// λ above 1 message/node/cycle is refused under Bernoulli, given as rates or as flit_rates,
/// with the file, the key and the fix (exit code 2, nothing written); an unknown process is
/// refused with the choices listed.
#[test]
fn bernoulli_load_above_one_and_unknown_process_are_refused() {
    let one_flit = edit(GOOD, "message_length = 8", "message_length = 1");
    let text = edit(
        &one_flit,
        "rates = [0.005, 0.01]",
        "rates = [0.5, 1.5]\nprocess = \"bernoulli\"",
    );
    assert_refused(
        "bernoulli-rates",
        Some(&text),
        &[
            "[traffic] rates: load 1.5 is λ = 1.5 messages/node/cycle",
            "Bernoulli",
            "at most 1 message/node/cycle",
        ],
    );
    let text = edit(
        &one_flit,
        "rates = [0.005, 0.01]",
        "flit_rates = [1.25]\nprocess = \"bernoulli\"",
    );
    assert_refused(
        "bernoulli-flit-rates",
        Some(&text),
        &["[traffic] flit_rates: load 1.25 is λ = 1.25", "Bernoulli"],
    );
    let text = edit(
        GOOD,
        "rates = [0.005, 0.01]",
        "rates = [0.005, 0.01]\nprocess = \"pareto\"",
    );
    assert_refused(
        "process-unknown",
        Some(&text),
        &[
            "[traffic] process: unknown arrival process \"pareto\"",
            "use \"poisson\", \"bernoulli\" or \"on-off\"",
        ],
    );
}

/// `--set traffic.process=...` and `[sweep]` go through the same checks: a Bernoulli load above
/// 1 is refused there too, and the process can be swept.
#[test]
fn process_through_set_and_sweep() {
    let tmp = crate::common::temp_dir("arrivals-set");
    let f = tmp.path().join("s.toml");
    let text = edit(GOOD, "message_length = 8", "message_length = 1");
    let text = edit(&text, "rates = [0.005, 0.01]", "rates = [0.5, 1.5]");
    std::fs::write(&f, &text).unwrap();
    let run = |args: &[&str]| {
        let (code, _, err) = crate::common::check_file(&f, args);
        (code, err)
    };
    // Poisson at λ = 1.5 with 1-flit messages is refused by the flit rate; Bernoulli by λ.
    let (code, err) = run(&["--set", "traffic.process=\"bernoulli\""]);
    println!("--set: {err}");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--set traffic.process=\"bernoulli\""), "{err}");
    assert!(
        err.contains("[traffic] rates: load 1.5 is λ = 1.5"),
        "{err}"
    );
    assert!(err.contains("; fix: "), "{err}");
    // The sweep validates each configuration in turn: Bernoulli's first here.
    let (code, err) = run(&[
        "--set",
        "sweep.traffic.process=[\"bernoulli\", \"poisson\"]",
    ]);
    println!("sweep: {err}");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("at traffic.process = bernoulli"), "{err}");
    assert!(
        err.contains("[traffic] rates: load 1.5 is λ = 1.5"),
        "{err}"
    );
    let (code, err) = run(&[
        "--set",
        "traffic.rates=[0.5, 1.0]",
        "--set",
        "sweep.traffic.process=[\"poisson\", \"bernoulli\"]",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (code, err) = run(&[
        "--set",
        "traffic.rates=[0.5, 1.0]",
        "--set",
        "sweep.traffic.process=[\"poisson\", \"pareto\"]",
    ]);
    println!("sweep unknown: {err}");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown arrival process \"pareto\""), "{err}");
    assert!(
        err.contains("use \"poisson\", \"bernoulli\" or \"on-off\""),
        "{err}"
    );
    // A [sweep] table in the file: its line is named.
    let swept = format!("{text}\n[sweep]\n\"traffic.process\" = [\"bernoulli\"]\n");
    std::fs::write(&f, &swept).unwrap();
    let (code, err) = run(&[]);
    println!("[sweep]: {err}");
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("[traffic] rates: load 1.5 is λ = 1.5"),
        "{err}"
    );
    std::fs::write(&f, swept.replace("[0.5, 1.5]", "[0.5, 1.0]")).unwrap();
    let (code, err) = run(&[]);
    assert_eq!(code, Some(0), "{err}");
}
