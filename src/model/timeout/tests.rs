use super::*;
use crate::model::enumerate;
use crate::topology::KAryNCube;
use crate::traffic::Traffic;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn scenario(n: u32, vcs: u32, m: u32, tau: u64, extra: &str) -> Scenario {
    let text = format!(
        "name = \"t\"\n[topology]\nkind = \"hypercube\"\nn = {n}\n[router]\nvcs = {vcs}\n\
         buffer_depth = 4\n[routing]\nalgorithm = \"duato-timeout\"\ntimeout = {tau}\n\
         [traffic]\nmessage_length = {m}\nrates = [0.001]\n{extra}"
    );
    Scenario::from_toml(&text, "test").unwrap()
}

/// Monte-Carlo of the M/M/1 FCFS queue with deterministic impatience τ: the virtual wait
/// V_{k+1} = max(0, V_k + B_k [V_k <= τ] − A_{k+1}).
fn simulate(lambda: f64, s: f64, tau: f64, customers: usize, seed: u64) -> (f64, f64, f64) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut exp = |rate: f64| -(1.0 - rng.r#gen::<f64>()).ln() / rate;
    let (mut v, mut timed_out, mut served_wait, mut all_wait) = (0.0f64, 0usize, 0.0, 0.0);
    for _ in 0..customers {
        if v > tau {
            timed_out += 1;
            all_wait += tau;
        } else {
            served_wait += v;
            all_wait += v;
            v += exp(1.0 / s);
        }
        v = (v - exp(lambda)).max(0.0);
    }
    let c = customers as f64;
    let served = (customers - timed_out) as f64;
    (timed_out as f64 / c, served_wait / served, all_wait / c)
}

#[test]
fn impatient_queue_matches_monte_carlo() {
    for &(lambda, s, tau) in &[
        (0.5, 1.0, 1.0),
        (0.8, 1.0, 3.0),
        (1.0, 1.0, 2.0),
        (1.5, 1.0, 0.5),
        (0.02, 40.0, 16.0),
    ] {
        let q = impatient_mm1(lambda, s, tau).unwrap();
        let (pt, wa, mw) = simulate(lambda, s, tau, 2_000_000, 7);
        // 2e6 customers: the standard errors are well under 1% (relative); 2% allows
        // for the correlation of successive waits.
        let rel = |a: f64, b: f64| (a - b).abs() / a.abs().max(b.abs());
        eprintln!(
            "λ {lambda} S {s} τ {tau}: P_t {} / {pt}, w_a {} / {wa}, E min {} / {mw}",
            q.p_t, q.w_a, q.mean_wait
        );
        assert!(rel(q.p_t, pt) < 0.02, "P_t {} vs {pt}", q.p_t);
        assert!(rel(q.w_a, wa) < 0.02, "w_a {} vs {wa}", q.w_a);
        assert!(rel(q.mean_wait, mw) < 0.02, "E min {} vs {mw}", q.mean_wait);
    }
}

#[test]
fn impatient_queue_identities_and_limits() {
    for &rho in &[0.1, 0.5, 0.9, 0.999_999_99, 1.0, 1.000_000_01, 1.5, 4.0] {
        for &tau in &[0.0, 0.3, 2.0, 10.0, 100.0] {
            let s = 2.0;
            let q = impatient_mm1(rho / s, s, tau).unwrap();
            // Served throughput λ(1 − P_t) S = busy probability 1 − P_0.
            assert!(
                close(rho * (1.0 - q.p_t), 1.0 - q.p0, 1e-9),
                "{rho} {tau} {q:?}"
            );
            assert!((0.0..=1.0).contains(&q.p_t) && q.w_a >= 0.0 && q.w_a <= tau + 1e-12);
            assert!(close(
                q.mean_wait,
                (1.0 - q.p_t) * q.w_a + q.p_t * tau,
                1e-9
            ));
        }
        // τ = 0: the M/M/1/1 loss system.
        let q = impatient_mm1(rho / 2.0, 2.0, 0.0).unwrap();
        assert!(close(q.p_t, rho / (1.0 + rho), 1e-12) && q.w_a == 0.0);
    }
    // τ → ∞ with ρ < 1: the M/M/1 queue.
    for &rho in &[0.2, 0.6, 0.9] {
        let q = impatient_mm1(rho / 3.0, 3.0, 1e4).unwrap();
        let inf = impatient_mm1(rho / 3.0, 3.0, f64::INFINITY).unwrap();
        assert!(q.p_t < 1e-12 && close(q.w_a, rho * 3.0 / (1.0 - rho), 1e-9));
        assert!(close(inf.w_a, rho * 3.0 / (1.0 - rho), 1e-12));
    }
    assert!(impatient_mm1(0.5, 2.0, f64::INFINITY).is_none());
    // Continuous across ρ = 1.
    let a = impatient_mm1(1.0 - 1e-9, 1.0, 5.0).unwrap();
    let b = impatient_mm1(1.0 + 1e-9, 1.0, 5.0).unwrap();
    assert!(close(a.p_t, b.p_t, 1e-6) && close(a.w_a, b.w_a, 1e-6));
}

#[test]
fn locality_hop_distribution_equals_enumeration() {
    for n in [3u32, 5, 6] {
        for (phi, x) in [(1.0, 1.0), (0.5, 1.0), (0.2, 1.0), (0.7, 0.4)] {
            let s = scenario(
                n,
                3,
                8,
                4,
                &format!(
                    "pattern = \"locality\"\nlocality_model = \"decreasing\"\n\
                     locality_factor = {phi}\npattern_fraction = {x}"
                ),
            );
            let topo = KAryNCube::new(Kind::Hypercube, vec![2; n as usize], true);
            let t = Traffic::new(&s.traffic, crate::traffic::Addresses::of(&topo), 1);
            let e = enumerate::hop_distribution(&topo, &t);
            let m = Model::from_scenario(&s).unwrap();
            assert_eq!(e.len(), m.p.len());
            for (a, b) in e.iter().zip(&m.p) {
                assert!(
                    close(*a, *b, 1e-12),
                    "n {n} φ {phi} x {x}: {e:?} vs {:?}",
                    m.p
                );
            }
            assert!(close(m.dbar, enumerate::mean_distance(&topo, &t), 1e-12));
        }
        // Uniform.
        let s = scenario(n, 3, 8, 4, "");
        let topo = KAryNCube::new(Kind::Hypercube, vec![2; n as usize], true);
        let t = Traffic::new(&s.traffic, crate::traffic::Addresses::of(&topo), 1);
        let e = enumerate::hop_distribution(&topo, &t);
        let m = Model::from_scenario(&s).unwrap();
        for (a, b) in e.iter().zip(&m.p) {
            assert!(close(*a, *b, 1e-12));
        }
    }
}

#[test]
fn zero_load_latency_is_m_plus_dbar() {
    for (extra, tau) in [
        ("", 0),
        ("", 16),
        (
            "pattern = \"locality\"\nlocality_model = \"decreasing\"\nlocality_factor = 0.5",
            4,
        ),
    ] {
        let s = scenario(6, 3, 32, tau, extra);
        let m = Model::from_scenario(&s).unwrap();
        for lambda in [0.0, 1e-12] {
            let Outcome::Stable(p) = m.predict(lambda) else {
                panic!("saturated at zero load")
            };
            assert!(close(p.latency, 32.0 + m.dbar, 1e-9), "{p:?}");
            assert!(close(p.network_latency, 32.0 + m.dbar, 1e-9));
            assert!(p.source_wait.abs() < 1e-6);
        }
    }
    // Uniform on the 6-cube: d̄ = 6/2 · 64/63.
    let m = Model::from_scenario(&scenario(6, 3, 32, 4, "")).unwrap();
    assert!(close(m.dbar, 3.0 * 64.0 / 63.0, 1e-12));
}

fn latency(m: &Model, lambda: f64) -> Option<f64> {
    match m.predict(lambda) {
        Outcome::Stable(p) => Some(p.latency),
        Outcome::Saturated => None,
    }
}

#[test]
fn monotone_saturating_never_nan() {
    for (n, vcs, len, tau, extra) in [
        (6, 3, 32, 4, ""),
        (6, 3, 32, 0, ""),
        (6, 2, 32, 64, ""),
        (
            5,
            4,
            16,
            8,
            "pattern = \"locality\"\nlocality_model = \"decreasing\"\nlocality_factor = 0.3",
        ),
    ] {
        let m = Model::from_scenario(&scenario(n, vcs, len, tau, extra)).unwrap();
        let sat = super::super::saturation_load(|l| m.predict(l), 1.0);
        assert!(sat > 0.0 && sat < 1.0, "saturation {sat}");
        let mut last = 0.0;
        for k in 0..=400 {
            let lambda = sat * 1.5 * k as f64 / 400.0;
            match m.predict(lambda) {
                Outcome::Stable(p) => {
                    assert!(lambda <= sat * (1.0 + 1e-3), "stable past saturation");
                    for x in [p.latency, p.network_latency, p.source_wait] {
                        assert!(x.is_finite() && x >= 0.0, "{p:?}");
                    }
                    assert!(p.vbar.unwrap() >= 1.0);
                    assert!(p.latency >= last, "not monotone at {lambda}");
                    last = p.latency;
                }
                Outcome::Saturated => assert!(lambda >= sat * (1.0 - 1e-3)),
            }
        }
        assert_eq!(m.predict(sat * 1.01), Outcome::Saturated);
        assert_eq!(m.predict(2.0), Outcome::Saturated);
        assert_eq!(m.predict(f64::NAN), Outcome::Saturated);
        assert_eq!(m.predict(-1.0), Outcome::Saturated);
    }
}

#[test]
fn tau_limits() {
    let base = |tau: u64| Model::from_scenario(&scenario(6, 3, 32, tau, "")).unwrap();
    let lambda = 0.012;
    // τ = 0: a blocked message waits P_t w_d, with P_t = ρ/(1 + ρ).
    let m0 = base(0);
    let sol = m0.solve(lambda).unwrap();
    let rho = sol.lambda_c * sol.s_bar;
    assert!(close(sol.adaptive.p_t, rho / (1.0 + rho), 1e-12));
    assert!(close(sol.w, sol.adaptive.p_t * sol.w_d, 1e-12));
    // Latency grows with τ, towards the τ = ∞ model (class a only, M/M/1 wait).
    let mut inf = base(4);
    inf.tau = f64::INFINITY;
    let l_inf = latency(&inf, lambda).unwrap();
    let mut last = 0.0;
    for tau in [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 100_000] {
        let l = latency(&base(tau), lambda).unwrap();
        assert!(
            l >= last - 1e-9 && l <= l_inf + 1e-9,
            "τ {tau}: {l} ({last}, {l_inf})"
        );
        last = l;
    }
    assert!(close(last, l_inf, 1e-9));
    let s = inf.solve(lambda).unwrap();
    let rho = s.lambda_c * s.s_bar;
    assert!(s.adaptive.p_t == 0.0 && close(s.w, rho * s.s_bar / (1.0 - rho), 1e-12));
    // A larger τ cannot saturate later.
    let sat = |m: &Model| super::super::saturation_load(|l| m.predict(l), 1.0);
    assert!(sat(&base(0)) >= sat(&base(64)) && sat(&base(64)) >= sat(&inf));
}

#[test]
fn applies_rejects_what_it_does_not_cover() {
    assert!(applies(&scenario(4, 3, 8, 4, "")).is_ok());
    assert!(applies(&scenario(4, 3, 8, 4, "pattern = \"bit-reversal\"")).is_err());
    let mut s = scenario(4, 3, 8, 4, "");
    s.routing.algorithm = Algorithm::Duato;
    assert!(applies(&s).is_err());
    let mut s = scenario(4, 3, 8, 4, "");
    s.router.buffer_depth = 1;
    assert!(applies(&s).is_err());
    let mut s = scenario(4, 3, 8, 4, "");
    s.routing.selection = Selection::MostFree;
    assert!(applies(&s).is_err());
}
