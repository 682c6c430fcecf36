//! The on-off process (`[traffic] process = "on-off"`, `burst_length`): its long-run rate is
//! λ, its bursts' message counts are geometric of mean B, a run's sources generate at λ, and
//! what it cannot carry is refused.
//!
//! The on-off gaps are independent (a renewal process: `Arrivals::OnOff`), so the mean of G
//! gaps has the exact standard deviation σ/√G, σ² = `Burst::gap_variance`; the rate tests
//! allow 4 of them.

use crate::cli::{GOOD, edit};
use crate::common::{chi2_9999, flitsim_check};
use flitsim::Scenario;
use flitsim::engine::build_engine;
use flitsim::spec::Process;
use flitsim::traffic::{Arrivals, Burst, Source};

/// (λ messages/cycle, M̄ flits, B messages): light and heavy loads, short and long bursts.
const CASES: [(f64, f64, f64); 4] = [
    (0.01, 16.0, 8.0),
    (0.05, 16.0, 8.0),
    (0.2, 4.0, 1.0),
    (0.02, 32.0, 30.0),
];

fn burst(m: f64, b: f64) -> Burst {
    Burst {
        peak: 1.0 / m,
        length: b,
    }
}

#[test]
fn on_off_mean_gap_is_one_over_lambda() {
    const SOURCES: u32 = 200;
    const GAPS: usize = 2000;
    for (lambda, m, b) in CASES {
        let shape = burst(m, b);
        let a = Arrivals::new(Process::OnOff, lambda, shape).unwrap();
        let mut sum = 0.0;
        for node in 0..SOURCES {
            let mut s = Source::new(11, node, &a);
            let start = s.next;
            for _ in 0..GAPS {
                s.step(&a);
            }
            sum += s.next - start;
        }
        let g = (SOURCES as usize * GAPS) as f64;
        let mean = sum / g;
        let sd = (shape.gap_variance(lambda) / g).sqrt();
        assert!(
            (mean - 1.0 / lambda).abs() < 4.0 * sd,
            "λ = {lambda}, M̄ = {m}, B = {b}: mean gap {mean}, expected {} ± 4·{sd}",
            1.0 / lambda
        );
    }
}

#[test]
fn on_off_gap_variance_matches_its_formula() {
    // The sample variance of many gaps against σ² (a check of the formula the rate tests and
    // the saturation criterion use), within 5% (its own sampling error is below 1% here).
    let (lambda, m, b) = (0.05, 16.0, 8.0);
    let shape = burst(m, b);
    let a = Arrivals::new(Process::OnOff, lambda, shape).unwrap();
    let mut s = Source::new(3, 0, &a);
    let mut gaps = Vec::with_capacity(400_000);
    for _ in 0..400_000 {
        let before = s.next;
        s.step(&a);
        gaps.push(s.next - before);
    }
    let n = gaps.len() as f64;
    let mean = gaps.iter().sum::<f64>() / n;
    let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / (n - 1.0);
    let want = shape.gap_variance(lambda);
    assert!(
        (var / want - 1.0).abs() < 0.05,
        "variance {var}, formula {want}"
    );
}

#[test]
fn burst_lengths_are_geometric_with_mean_b() {
    const BURSTS: usize = 40_000;
    for b in [1.5, 4.0, 8.0] {
        let a = Arrivals::new(Process::OnOff, 0.01, burst(16.0, b)).unwrap();
        let mut s = Source::new(5, 9, &a);
        let mut counts = vec![0usize; 1];
        for _ in 0..BURSTS {
            let mut k = 1;
            while !s.step(&a) {
                k += 1;
            }
            if counts.len() <= k {
                counts.resize(k + 1, 0);
            }
            counts[k] += 1;
        }
        // P(k) = (1 − q)^(k−1) q, q = 1/B; bins of expected count ≥ 5, the tail lumped.
        let q = 1.0 / b;
        let p = |k: usize| (1.0 - q).powi(k as i32 - 1) * q;
        let n = BURSTS as f64;
        let mut last = 1;
        while n * p(last + 1) >= 5.0 && n * (1.0 - q).powi(last as i32 + 1) >= 5.0 {
            last += 1;
        }
        let mut chi2 = 0.0;
        let mut bins = 0;
        for k in 1..=last {
            let e = n * p(k);
            let o = counts.get(k).copied().unwrap_or(0) as f64;
            chi2 += (o - e).powi(2) / e;
            bins += 1;
        }
        let tail_e = n * (1.0 - q).powi(last as i32);
        if tail_e > 0.0 {
            let tail_o: usize = counts.iter().skip(last + 1).sum();
            chi2 += (tail_o as f64 - tail_e).powi(2) / tail_e;
            bins += 1;
        }
        let total: usize = counts.iter().sum();
        assert_eq!(total, BURSTS);
        let mean = counts
            .iter()
            .enumerate()
            .map(|(k, &c)| (k * c) as f64)
            .sum::<f64>()
            / n;
        let df = bins - 1;
        assert!(
            chi2 < chi2_9999(df.max(1)),
            "B = {b}: chi-square {chi2} over {bins} bins (mean burst {mean})"
        );
    }
}

/// A run's sources generate λ messages/node/cycle: the messages generated in a window after a
/// warm-up of many on-off cycles, against λ·N·T with the renewal count's variance σ²λ³ per
/// source and cycle (4 standard deviations).
#[test]
fn a_runs_on_off_sources_generate_lambda() {
    let (m, b, flits) = (4.0, 8.0, 0.3);
    let lambda: f64 = flits / m;
    let text = format!(
        "name = \"onoff\"\nseed = 3\n[topology]\nkind = \"torus\"\nk = 8\nn = 2\n\
         links = \"bidirectional\"\n[router]\nvcs = 2\nbuffer_depth = 4\n[routing]\n\
         algorithm = \"dor\"\n[traffic]\npattern = \"neighbor\"\nmessage_length = {m}\n\
         flit_rates = [{flits}]\nprocess = \"on-off\"\nburst_length = {b}\n"
    );
    let s = Scenario::from_toml(&text, "onoff.toml").unwrap();
    let mut e = build_engine(&s, lambda, 3);
    let (warm, window) = (10_000, 40_000);
    for _ in 0..warm {
        e.step();
    }
    let before = e.generated_msgs;
    for _ in 0..window {
        e.step();
    }
    let n = 64.0 * window as f64;
    let got = (e.generated_msgs - before) as f64;
    let sd = (n * burst(m, b).gap_variance(lambda) * lambda.powi(3)).sqrt();
    assert!(
        (got - lambda * n).abs() < 4.0 * sd,
        "{got} messages generated, expected {} ± 4·{sd}",
        lambda * n
    );
}

#[test]
fn on_off_refusals_name_the_key_and_fix() {
    let base = edit(GOOD, "rates = [0.005, 0.01]", "flit_rates = [0.1]");
    let cases = [
        (
            edit(&base, "[traffic]", "[traffic]\nburst_length = 4"),
            "[traffic] burst_length",
            "only the on-off process has bursts",
        ),
        (
            edit(
                &edit(&base, "[traffic]", "[traffic]\nprocess = \"on-off\""),
                "flit_rates = [0.1]",
                "flit_rates = [0.5, 1.0]",
            ),
            "[traffic] flit_rates",
            "must also spend time off",
        ),
        (
            edit(
                &base,
                "[traffic]",
                "[traffic]\nprocess = \"on-off\"\nburst_length = 0.5",
            ),
            "[traffic] burst_length",
            "out of range",
        ),
    ];
    for (text, key, problem) in cases {
        let (code, err) = flitsim_check(&text, "onoff-refused");
        assert_eq!(code, Some(2), "{key}: {err}");
        assert!(err.contains(key) && err.contains(problem), "{key}: {err}");
        assert!(err.contains("fix:"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn process_may_be_swept_against_on_off() {
    let text = edit(
        &edit(GOOD, "rates = [0.005, 0.01]", "flit_rates = [0.1, 0.3]"),
        "[topology]",
        "[sweep]\n\"traffic.process\" = [\"poisson\", \"on-off\"]\n[topology]",
    );
    let (code, err) = flitsim_check(&text, "onoff-swept");
    assert_eq!(code, Some(0), "{err}");
}

/// On-off sources and a traffic matrix's per-source rates give the same point whatever the
/// threads its cycle is split across (each source its own stream and its own arrivals).
#[test]
fn on_off_and_matrix_points_do_not_depend_on_threads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/threads.toml");
    let run = "[run]\nwarmup_cycles = 300\nmeasure_cycles = 3000\nbatches = 10\n";
    let cases = [
        format!(
            "name = \"a\"\n[topology]\nkind = \"torus\"\nk = 8\nn = 3\n\
             links = \"bidirectional\"\n[router]\nvcs = 2\n[traffic]\nmessage_length = 8\n\
             flit_rates = [0.2]\nprocess = \"on-off\"\nburst_length = 4\n{run}"
        ),
        format!(
            "name = \"b\"\n[topology]\nkind = \"mesh\"\nk = 8\nn = 2\n[router]\nvcs = 2\n\
             [traffic]\npattern = \"matrix\"\nmatrix = \"matrix-64.csv\"\nmessage_length = 8\n\
             flit_rates = [0.3]\nprocess = \"on-off\"\n{run}"
        ),
    ];
    for text in cases {
        let s = Scenario::from_toml(&text, dir).unwrap();
        let rate = s.traffic.rates[0];
        let row = |threads| {
            let r = flitsim::engine::run_point_on(&s, rate, 5, threads).unwrap();
            assert!(r.window_delivered > 1000, "{}", r.window_delivered);
            flitsim::output::summary_csv(&[r])
        };
        let one = row(1);
        assert_eq!(one, row(2), "{text}");
        assert_eq!(one, row(3), "{text}");
    }
}
