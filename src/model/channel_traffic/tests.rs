use super::*;
use crate::model::enumerate::{dor_link_rates, hop_distribution, mean_distance};
use crate::network::Network;
use crate::scenario::{Pattern, TrafficSpec};
use crate::topology::{Dir, KAryNCube, Kind};
use crate::traffic::Traffic;

const LAMBDA: f64 = 0.01;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-10 * (1.0 + b.abs())
}

fn cube(n: u32) -> KAryNCube {
    KAryNCube::new(Kind::Hypercube, vec![2; n as usize], true)
}

fn traffic(topo: &KAryNCube, pattern: Pattern, x: f64) -> Traffic {
    let spec = TrafficSpec {
        pattern,
        pattern_fraction: x,
        pattern_fractions: vec![x],
        lengths: vec![8],
        rates: vec![LAMBDA],
        ..Default::default()
    };
    Traffic::new(&spec, crate::traffic::Addresses::of(topo), 1)
}

fn assert_dist(ctx: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{ctx}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(close(*g, *w), "{ctx}: P_{i} = {g}, enumeration {w}");
    }
}

/// Brute-force source counts at each distance for a bit map of n-bit addresses.
fn counts_of(n: u32, map: impl Fn(u32) -> u32) -> Vec<f64> {
    let mut c = vec![0.0; n as usize + 1];
    for s in 0..1u32 << n {
        c[(s ^ map(s)).count_ones() as usize] += 1.0;
    }
    c
}

fn reverse(x: u32, n: u32) -> u32 {
    (0..n).fold(0, |acc, i| acc | (((x >> i) & 1) << (n - 1 - i)))
}

fn transpose(x: u32, n: u32) -> u32 {
    (0..n).fold(0, |acc, i| acc | (((x >> i) & 1) << ((i + n / 2) % n)))
}

#[test]
fn uniform_and_hotspot_hops_match_enumeration() {
    for n in 3..=8 {
        let topo = cube(n);
        let t = traffic(&topo, Pattern::Uniform, 1.0);
        let ctx = format!("uniform n={n}");
        assert_dist(&ctx, &uniform_hops(n), &hop_distribution(&topo, &t));
        assert!(close(uniform_mean_distance(n), mean_distance(&topo, &t)));
        assert!(close(uniform_mean_distance(n), mean_of(&uniform_hops(n))));
        for (hot, h) in [(0, 1.0), ((1 << n) - 3, 0.4), (5, 0.1)] {
            let t = traffic(
                &topo,
                Pattern::Hotspot {
                    node: hot,
                    fraction: h,
                },
                1.0,
            );
            let ctx = format!("hotspot n={n} node={hot} h={h}");
            assert_dist(&ctx, &hotspot_hops(n), &hop_distribution(&topo, &t));
            assert!(close(hotspot_mean_distance(n), mean_distance(&topo, &t)));
        }
    }
}

#[test]
fn permutation_hops_match_enumeration_and_eq9_printed_is_wrong() {
    for n in 3..=8u32 {
        for (pattern, lib, map) in [
            (
                Permutation::BitReversal,
                Pattern::BitReversal,
                reverse as fn(u32, u32) -> u32,
            ),
            (
                Permutation::MatrixTranspose,
                Pattern::MatrixTranspose,
                transpose,
            ),
        ] {
            let ctx = format!("{pattern:?} n={n}");
            let brute = counts_of(n, |x| map(x, n));
            for (i, &c) in brute.iter().enumerate() {
                assert_eq!(pattern.sources(n, i as u32), c, "{ctx}: sources at {i}");
            }
            let topo = cube(n);
            let t = traffic(&topo, lib, 1.0);
            let exact = hop_distribution(&topo, &t);
            let (p, d) = match pattern {
                Permutation::BitReversal => (bit_reversal_hops(n), bit_reversal_mean_distance(n)),
                Permutation::MatrixTranspose => (transpose_hops(n), transpose_mean_distance(n)),
            };
            assert_dist(&ctx, &p, &exact);
            assert!(close(d, mean_distance(&topo, &t)), "{ctx}: mean");
            let h = (n / 2) as f64;
            if pattern == Permutation::BitReversal {
                let hh = 2f64.powf(h);
                assert!(close(d, h * hh / (hh - 1.0)), "{ctx}: closed mean");
                // Printed eq. 9: C(⌊n/2⌋, i/2)/2^(⌊n/2⌋ − n mod 2) — off at i = 2 for
                // n ≥ 4 (at n = 3 both give P_2 = 1).
                let p9 = binom(n / 2, 1) / 2f64.powi((n / 2) as i32 - (n % 2) as i32);
                assert_eq!((p9 - exact[2]).abs() > 1e-3, n >= 4, "{ctx}: printed eq. 9");
            } else if n % 2 == 1 {
                let want = n as f64 * nodes(n) / 4.0 / (nodes(n) / 2.0 - 1.0);
                assert!(close(d, want), "{ctx}: odd-n closed mean");
            }
        }
    }
}

#[test]
fn mixtures_match_enumeration_and_printed_eq11_17_do_not() {
    for n in 3..=8u32 {
        for (pattern, lib) in [
            (Permutation::BitReversal, Pattern::BitReversal),
            (Permutation::MatrixTranspose, Pattern::MatrixTranspose),
        ] {
            for x in [0.0, 0.2, 0.5, 0.8, 1.0] {
                let ctx = format!("{pattern:?} n={n} x={x}");
                let topo = cube(n);
                let t = traffic(&topo, lib, x);
                assert_dist(
                    &ctx,
                    &mixture_hops(n, pattern, x),
                    &hop_distribution(&topo, &t),
                );
                let d = mixture_mean_distance(n, pattern, x);
                assert!(close(d, mean_distance(&topo, &t)), "{ctx}");
                let printed = mixture_mean_distance_printed(n, pattern, x);
                if x == 0.0 || x == 1.0 {
                    assert!(close(printed, d), "{ctx}: printed at the ends");
                } else {
                    assert!(
                        (printed - d).abs() > 1e-6,
                        "{ctx}: printed {printed} = {d}?"
                    );
                }
            }
        }
    }
}

#[test]
fn uniform_channel_rate_is_exact_on_every_ecube_link() {
    for n in 3..=8 {
        let topo = cube(n);
        let t = traffic(&topo, Pattern::Uniform, 1.0);
        let net = Network::new(topo, 1, 4);
        for r in dor_link_rates(&net, &t, LAMBDA, crate::routing::Tie::Plus) {
            assert!(close(r, uniform_channel_rate(n, LAMBDA)), "n={n}: {r}");
        }
    }
}

/// Eq. 5 and eq. 6 as class averages of the exact e-cube rates (`dor_link_rates`), links
/// away from the hot node exactly (1 − h)·λ_channel; and eq. 5 is only an average: the
/// e-cube rates within a class differ for j < n.
#[test]
fn hotspot_class_averages_match_enumeration() {
    for n in 3..=8u32 {
        let topo = cube(n);
        let net = Network::new(topo.clone(), 1, 4);
        for (hot, h) in [(0u32, 1.0), ((1 << n) - 2, 0.3), (0b101, 0.7)] {
            let ctx = format!("n={n} hot={hot} h={h}");
            let t = traffic(
                &topo,
                Pattern::Hotspot {
                    node: hot,
                    fraction: h,
                },
                1.0,
            );
            let rates = dor_link_rates(&net, &t, LAMBDA, crate::routing::Tie::Plus);
            let mut sum = vec![0.0; n as usize + 1];
            let mut cnt = vec![0usize; n as usize + 1];
            let mut spread = vec![(f64::MAX, 0.0f64); n as usize + 1];
            for (l, &r) in net.cube().links.iter().zip(&rates) {
                let (ds, dd) = ((l.src ^ hot).count_ones(), (l.dst ^ hot).count_ones());
                if dd < ds {
                    sum[ds as usize] += r;
                    cnt[ds as usize] += 1;
                    let s = &mut spread[ds as usize];
                    *s = (s.0.min(r), s.1.max(r));
                } else {
                    assert!(close(r, hotspot_channel_rate_away(n, LAMBDA, h)), "{ctx}");
                }
            }
            for j in 1..=n {
                let k = j as usize;
                assert_eq!(cnt[k] as f64, (n - j + 1) as f64 * binom(n, j - 1), "{ctx}");
                let mean = sum[k] / cnt[k] as f64;
                assert!(
                    close(mean, hotspot_channel_rate(n, j, LAMBDA, h)),
                    "{ctx}: j={j}"
                );
                // The uniform share is (1 − h)·λ_channel on every link: the rest is eq. 5.
                let hs = mean - hotspot_channel_rate_away(n, LAMBDA, h);
                assert!(
                    close(hs, hotspot_rate_toward(n, j, LAMBDA, h)),
                    "{ctx}: eq. 5"
                );
                if j < n {
                    assert!(spread[k].1 - spread[k].0 > 1e-9, "{ctx}: j={j} uniform?");
                }
            }
        }
    }
}

/// Exact p-cube link rates per unit λ, `rate[x·n + d]`, by following the route
/// distribution hop by hop with the routing of paper 002 Fig. 1b: S = C ∧ ¬D, or ¬C ∧ D
/// once that is empty, and a uniformly random dimension of S.
fn pcube_brute(n: u32) -> Vec<f64> {
    let nn = 1usize << n;
    let mask = nn - 1;
    let mut rate = vec![0.0; nn * n as usize];
    let q = 1.0 / (nn as f64 - 1.0);
    for s in 0..nn {
        for t in (0..nn).filter(|&t| t != s) {
            let mut mass = vec![0.0; nn];
            mass[s] = 1.0;
            for _ in 0..(s ^ t).count_ones() {
                let mut next = vec![0.0; nn];
                for x in (0..nn).filter(|&x| mass[x] > 0.0) {
                    let down = x & !t;
                    let set = if down != 0 { down } else { !x & t & mask };
                    let k = set.count_ones() as f64;
                    for d in (0..n as usize).filter(|&d| set >> d & 1 == 1) {
                        rate[x * n as usize + d] += q * mass[x] / k;
                        next[x ^ (1 << d)] += mass[x] / k;
                    }
                }
                mass = next;
            }
            assert!(close(mass[t], 1.0));
        }
    }
    rate
}

#[test]
fn pcube_rates_match_brute_force_route_enumeration() {
    for n in 3..=6u32 {
        let brute = pcube_brute(n);
        let topo = cube(n);
        for x in 0..1u32 << n {
            let w = x.count_ones();
            for d in 0..n {
                let up = x >> d & 1 == 0;
                let want = LAMBDA * brute[(x * n + d) as usize];
                let got = pcube_link_rate(n, w, up, LAMBDA);
                assert!(close(got, want), "n={n} x={x} d={d}: {got} vs {want}");
            }
        }
        // The network's links agree on the direction (Plus is 0 → 1).
        for l in &topo.links {
            assert_eq!(l.dir == Dir::Plus, l.src >> l.dim & 1 == 0);
        }
        // Route reversal: a 1 → 0 link from weight w carries what a 0 → 1 link from w − 1
        // does; and the total is N·λ·d_u (every route is minimal).
        let mut total = 0.0;
        for w in 0..=n {
            if w >= 1 {
                let down = pcube_down_rate(n, w, LAMBDA);
                assert!(close(down, pcube_up_rate(n, w - 1, LAMBDA)));
                total += binom(n, w) * w as f64 * down;
            }
            if w < n {
                total += binom(n, w) * (n - w) as f64 * pcube_up_rate(n, w, LAMBDA);
            }
        }
        assert!(close(total, nodes(n) * LAMBDA * uniform_mean_distance(n)));
    }
    // The printed eqs. 20-21 (summand as printed; m read as in the paper). Eq. 20 with
    // m = n − 1 − w (a's zeros other than k) agrees only at w = 0 and w = n − 1; eq. 21
    // agrees with no 1 → 0 rate.
    let e20 = |n: u32, m: u32| -> f64 {
        let mut s = 0.0;
        for i in 0..n - m {
            for j in 0..=m {
                s += binom(n - 1, i) * binom(m, j) * 2f64.powi((m - j) as i32)
                    / ((i + j + 1) as f64 * binom(i + j, i));
            }
        }
        s / (nodes(n) - 1.0)
    };
    let e21 = |n: u32, m: u32| -> f64 {
        let mut s = 0.0;
        for i in 0..n - m {
            for j in 0..m {
                s += binom(n, i) * binom(m - 1, j) * 2f64.powi((m - j - 1) as i32)
                    / ((i + j + 1) as f64 * binom(i + j, i));
            }
        }
        s / (nodes(n) - 1.0)
    };
    for n in 4..=6u32 {
        for w in 0..n {
            let ends = w == 0 || w == n - 1;
            assert_eq!(close(e20(n, n - 1 - w), pcube_up_rate(n, w, 1.0)), ends);
        }
        for m in 1..n {
            assert!((1..=n).all(|w| !close(e21(n, m), pcube_down_rate(n, w, 1.0))));
        }
    }
    // The 6-cube values of tests/routing_hypercube_rates.rs: 1.7593λ from node 0, λ/6
    // from node 63.
    assert!((pcube_up_rate(6, 0, 1.0) - 1.759_259_259_259_259).abs() < 1e-12);
    assert!(close(pcube_down_rate(6, 6, 1.0), 1.0 / 6.0));
}
