//! Hop counts under uniform traffic: the simulated hop-count histogram and mean hops match the
//! exact distribution of the minimal distance over ordered pairs of distinct nodes, enumerated
//! here, within sampling error (chi-square test at the 0.9999 quantile, and a 5-sigma test of
//! the mean with the exact variance).
//!
//! Each message's source is uniform (superposed equal-rate Poisson sources) and its destination
//! uniform among the others, independently, and dimension-order routing is minimal, so each
//! measured hop count is an independent draw from the enumerated distribution.

use crate::common::{Topo, chi2_9999, scenario};
use flitsim::engine::run_point;
use flitsim::stats::StopReason;

/// Closed forms of the mean distance d̄ over distinct pairs (N nodes, N/(N-1) corrects for the
/// excluded self pairs): they cross-check the enumeration used below.
#[test]
fn enumeration_matches_closed_forms() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    let mean = |t: &Topo| -> f64 {
        t.hop_distribution()
            .iter()
            .enumerate()
            .map(|(h, p)| h as f64 * p)
            .sum()
    };
    let (k, n) = (8.0f64, 2.0f64);
    let nn = k * k;
    // Unidirectional torus: each dimension (k-1)/2 on average.
    assert!(close(
        mean(&Topo::uni_torus(8, 2)),
        n * (k - 1.0) / 2.0 * nn / (nn - 1.0)
    ));
    // Bidirectional torus, even k: k/4 per dimension.
    assert!(close(
        mean(&Topo::bi_torus(8, 2)),
        n * k / 4.0 * nn / (nn - 1.0)
    ));
    // Mesh: (k²-1)/(3k) per dimension.
    assert!(close(
        mean(&Topo::mesh(&[8, 8])),
        n * (k * k - 1.0) / (3.0 * k) * nn / (nn - 1.0)
    ));
    // Hypercube: n·2^(n-1)/(2^n - 1) (paper 002).
    assert!(close(mean(&Topo::hypercube(6)), 6.0 * 32.0 / 63.0));
    // Hypercube distribution: binomial C(n,h)/(2^n - 1).
    let p = Topo::hypercube(6).hop_distribution();
    let binom = [1.0, 6.0, 15.0, 20.0, 15.0, 6.0, 1.0];
    for h in 1..=6 {
        assert!(close(p[h], binom[h] / 63.0));
    }
}

/// Runs uniform traffic on `t` and tests the measured hop histogram against enumeration.
fn hop_histogram_matches(t: Topo, vcs: u32, rate: f64, measure: u64, seed: u64) {
    let m = 4;
    let s = scenario(&t, vcs, 4, m, rate, 2000, measure, seed);
    let r = run_point(&s, rate, seed).unwrap();
    let ctx = format!("{:?} {:?}", t.shape, t.radix);
    assert_eq!(r.stop, StopReason::Drained, "{ctx}");
    assert_eq!(r.undelivered, 0, "{ctx}");
    let hist = &r.stats.hop_hist;
    let count = r.stats.count;
    assert!(
        count >= 20_000,
        "{ctx}: only {count} messages, too few for the test"
    );
    assert_eq!(hist.iter().sum::<u64>(), count, "{ctx}");
    let p = t.hop_distribution();
    assert_eq!(p[0], 0.0);
    assert_eq!(
        hist.first().copied().unwrap_or(0),
        0,
        "{ctx}: a message went to itself"
    );
    assert!(
        hist.len() <= p.len(),
        "{ctx}: hop count {} beyond the diameter {}",
        hist.len() - 1,
        p.len() - 1
    );
    // Every possible distance shows up (each has probability >= 1/(N-1)).
    for h in 1..p.len() {
        assert!(
            hist.get(h).copied().unwrap_or(0) > 0,
            "{ctx}: no message made {h} hops"
        );
    }

    // Chi-square over bins h = 1..=diameter, merging neighbouring bins until each expects at
    // least 10 messages.
    let nf = count as f64;
    let mut chi2 = 0.0;
    let mut bins = 0;
    let (mut obs, mut exp) = (0.0, 0.0);
    for h in 1..p.len() {
        obs += hist.get(h).copied().unwrap_or(0) as f64;
        exp += nf * p[h];
        let rest: f64 = p[h + 1..].iter().sum::<f64>() * nf;
        if exp >= 10.0 && (rest >= 10.0 || h + 1 == p.len()) {
            chi2 += (obs - exp) * (obs - exp) / exp;
            bins += 1;
            obs = 0.0;
            exp = 0.0;
        }
    }
    if exp > 0.0 {
        chi2 += (obs - exp) * (obs - exp) / exp;
        bins += 1;
    }
    assert!(bins >= 4, "{ctx}: {bins} bins");
    let limit = chi2_9999(bins - 1);
    assert!(
        chi2 < limit,
        "{ctx}: chi-square {chi2:.2} over {bins} bins exceeds the 0.9999 quantile {limit:.2}\n\
         observed {hist:?}\n expected {:?}",
        p.iter().map(|q| q * nf).collect::<Vec<_>>()
    );

    // Mean hops: exact mean and variance from the enumeration, 5-sigma band.
    let mean: f64 = p.iter().enumerate().map(|(h, q)| h as f64 * q).sum();
    let var: f64 = p
        .iter()
        .enumerate()
        .map(|(h, q)| (h as f64 - mean).powi(2) * q)
        .sum();
    let got = r.stats.hops_mean();
    let z = (got - mean) / (var / nf).sqrt();
    assert!(
        z.abs() < 5.0,
        "{ctx}: mean hops {got} vs exact {mean} (z = {z:.2}, {count} messages)"
    );
}

#[test]
fn hops_uni_torus_8ary_2cube() {
    hop_histogram_matches(Topo::uni_torus(8, 2), 2, 0.02, 20_000, 11);
}

#[test]
fn hops_bi_torus_8ary_2cube() {
    hop_histogram_matches(Topo::bi_torus(8, 2), 2, 0.02, 20_000, 12);
}

#[test]
fn hops_mesh_8x8() {
    hop_histogram_matches(Topo::mesh(&[8, 8]), 1, 0.02, 20_000, 13);
}

#[test]
fn hops_hypercube_6() {
    hop_histogram_matches(Topo::hypercube(6), 1, 0.02, 20_000, 14);
}

/// Hop counts do not depend on the load: the same test near saturation (DOR stays minimal).
#[test]
fn hops_mesh_8x8_heavy_load() {
    // 0.35 flits/node/cycle, below the 8x8 mesh's DOR limit of about 0.49 (paper 003 eq. 9).
    hop_histogram_matches(Topo::mesh(&[8, 8]), 2, 0.35 / 4.0, 4_000, 15);
}
