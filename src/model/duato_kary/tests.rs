use super::*;
use crate::topology::KAryNCube;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

/// The small networks the closed forms are checked on: (k, n, hypercube).
const NETS: [(u32, u32, bool); 7] = [
    (2, 3, true),
    (2, 5, true),
    (3, 2, false),
    (3, 3, false),
    (4, 2, false),
    (4, 3, false),
    (5, 2, false),
];

fn net(k: u32, n: u32, hypercube: bool) -> KAryNCube {
    if hypercube {
        KAryNCube::new(Kind::Hypercube, vec![2; n as usize], true)
    } else {
        KAryNCube::new(Kind::Torus, vec![k; n as usize], false)
    }
}

/// Every minimal path from `s` to `d`, as its list of links.
fn minimal_paths(t: &KAryNCube, s: u32, d: u32) -> Vec<Vec<u32>> {
    fn walk(t: &KAryNCube, at: u32, d: u32, cur: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        if at == d {
            out.push(cur.clone());
            return;
        }
        for dim in 0..t.n() {
            let (a, b) = (t.coord(at, dim), t.coord(d, dim));
            if a == b {
                continue;
            }
            let link = t.out_link(at, dim, t.dim_route(dim, a, b).0);
            cur.push(link);
            walk(t, t.links[link as usize].dst, d, cur, out);
            cur.pop();
        }
    }
    let mut out = Vec::new();
    walk(t, s, d, &mut Vec::new(), &mut out);
    out
}

/// Dimensions in which `at` and `d` differ.
fn dims_left(t: &KAryNCube, at: u32, d: u32) -> usize {
    (0..t.n())
        .filter(|&dim| t.coord(at, dim) != t.coord(d, dim))
        .count()
}

#[test]
fn proposition_1_counts_bounded_compositions() {
    // Eq. 4 against counting the vectors of m cells with q..=q+k−1 objects summing to r.
    for m in 0..=4i64 {
        for q in 0..=2i64 {
            for k in 1..=4i64 {
                for r in 0..=20i64 {
                    let mut count = 0i128;
                    let cells = (k as u32).pow(m as u32);
                    for code in 0..cells {
                        let (mut c, mut sum) = (code as i64, 0);
                        for _ in 0..m {
                            sum += q + c % k;
                            c /= k;
                        }
                        count += (sum == r) as i128;
                    }
                    assert_eq!(n_ways(r, m, q, k), count, "r={r} m={m} q={q} k={k}");
                }
            }
        }
    }
}

#[test]
fn proposition_2_counts_bounded_compositions() {
    // Eq. 15 against counting, with different bounds per cell.
    let cases: [(&[i64], &[i64]); 5] = [
        (&[0, 0, 0], &[3, 2, 4]),
        (&[1, 0, 2], &[2, 3, 1]),
        (&[0], &[5]),
        (&[2, 2], &[3, 3]),
        (&[0, 1, 0, 1], &[2, 4, 3, 1]),
    ];
    for (q, k) in cases {
        for r in -1..=16 {
            let mut count = 0i128;
            let mut c: Vec<i64> = q.to_vec();
            loop {
                count += (c.iter().sum::<i64>() == r) as i128;
                let mut l = 0;
                while l < c.len() && c[l] == q[l] + k[l] - 1 {
                    c[l] = q[l];
                    l += 1;
                }
                if l == c.len() {
                    break;
                }
                c[l] += 1;
            }
            assert_eq!(n_ways_bounded(r, q, k), count, "r={r} q={q:?} k={k:?}");
        }
    }
    assert_eq!(n_ways_bounded(0, &[], &[]), 1);
}

#[test]
fn hop_distribution_matches_every_node_pair() {
    // Eqs. 2, 3, 5, 6 against the simulator's topology: every ordered pair of distinct nodes.
    for (k, n, hc) in NETS {
        let t = net(k, n, hc);
        let mut count = vec![0u64; diameter(k, n) as usize + 1];
        for s in 0..t.nodes as u32 {
            for d in 0..t.nodes as u32 {
                if s != d {
                    count[t.distance(s, d) as usize] += 1;
                }
            }
        }
        assert_eq!(t.diameter(), diameter(k, n));
        let pairs = (t.nodes * (t.nodes - 1)) as f64;
        let p = hop_distribution(k, n);
        assert_eq!(p.len(), count.len());
        for (i, &c) in count.iter().enumerate() {
            assert!(close(p[i], c as f64 / pairs, 1e-14), "k={k} n={n} i={i}");
            if i > 0 {
                assert_eq!(
                    nodes_at_distance(k, n, i as u32),
                    (c / t.nodes as u64) as i128
                );
            }
        }
        assert!(close(p.iter().sum(), 1.0, 1e-14));
        assert!(close(mean_distance(k, n), t.mean_distance(), 1e-14));
    }
    // The hypercube: n_i = C(n, i), d̄ = (n/2) N/(N − 1).
    assert!(close(mean_distance(2, 5), 2.5 * 32.0 / 31.0, 1e-14));
    assert_eq!(nodes_at_distance(2, 6, 3), 20);
}

#[test]
fn channel_rate_matches_all_minimal_paths() {
    // Eq. 7: each pair's traffic λ/(N − 1) spread evenly over its minimal paths loads every
    // link with λ d̄ / n.
    let lambda = 0.01;
    for (k, n, hc) in NETS {
        let t = net(k, n, hc);
        let mut rate = vec![0.0; t.links.len()];
        let per_pair = lambda / (t.nodes - 1) as f64;
        for s in 0..t.nodes as u32 {
            for d in 0..t.nodes as u32 {
                if s == d {
                    continue;
                }
                let paths = minimal_paths(&t, s, d);
                let w = per_pair / paths.len() as f64;
                for link in paths.iter().flatten() {
                    rate[*link as usize] += w;
                }
            }
        }
        assert_eq!(t.links.len(), t.nodes * n as usize);
        let want = channel_rate(lambda, k, n);
        for r in rate {
            assert!(close(r, want, 1e-12), "k={k} n={n}: {r} vs {want}");
        }
    }
}

#[test]
fn printed_pass_equals_counting_hop_vectors() {
    // Eqs. 16-20 as implemented by `pass_printed` (Z as upper bounds) against counting the
    // hop-count vectors, and against the measure `HopCountVectors`.
    for z in [
        vec![1, 1, 1],
        vec![2, 1],
        vec![3, 2, 1],
        vec![2, 2, 2],
        vec![4],
    ] {
        let i: u32 = z.iter().sum();
        let dp = pass_probabilities(&z, PathMeasure::HopCountVectors);
        for t in 0..=i {
            let mut count = vec![0u64; z.len() + 1];
            let mut c = vec![0u32; z.len()];
            loop {
                if c.iter().sum::<u32>() == t {
                    count[c.iter().zip(&z).filter(|(a, b)| a == b).count()] += 1;
                }
                let mut l = 0;
                while l < c.len() && c[l] == z[l] {
                    c[l] = 0;
                    l += 1;
                }
                if l == c.len() {
                    break;
                }
                c[l] += 1;
            }
            let total: u64 = count.iter().sum();
            for y in 0..=z.len() {
                let want = count[y] as f64 / total as f64;
                assert!(
                    close(pass_printed(&z, t, y), want, 1e-14),
                    "z={z:?} t={t} y={y}"
                );
                assert!(close(dp[t as usize][y], want, 1e-14));
            }
        }
    }
}

#[test]
fn dims_passed_is_normalised() {
    // Eq. 21 with 1/n_i: a probability distribution over y for every (h, i).
    for (k, n, _) in NETS {
        for measure in [PathMeasure::MinimalPaths, PathMeasure::HopCountVectors] {
            let p = dims_passed(k, n, measure);
            for (i, row) in p.iter().enumerate().skip(1) {
                for py in row.iter().skip(1) {
                    assert!(close(py.iter().sum(), 1.0, 1e-12), "k={k} n={n} i={i}");
                }
            }
        }
    }
}

#[test]
fn phi_matches_all_minimal_paths() {
    // Eqs. 16-22 (corrected) against enumeration: for every pair i hops apart and every
    // minimal path (equally likely), the number of dimensions still to cross when the
    // message chooses its h-th channel; averaged over the paths, then over the pairs.
    for (k, n, hc) in NETS {
        let t = net(k, n, hc);
        let dmax = diameter(k, n) as usize;
        let mut sum = vec![vec![0.0; dmax + 1]; dmax + 1];
        let mut pairs = vec![0u64; dmax + 1];
        for s in 0..t.nodes as u32 {
            for d in 0..t.nodes as u32 {
                if s == d {
                    continue;
                }
                let i = t.distance(s, d) as usize;
                pairs[i] += 1;
                let paths = minimal_paths(&t, s, d);
                for path in &paths {
                    let mut at = s;
                    for (h0, &link) in path.iter().enumerate() {
                        sum[i][h0 + 1] += dims_left(&t, at, d) as f64 / paths.len() as f64;
                        at = t.links[link as usize].dst;
                    }
                }
            }
        }
        let phi = phi(k, n, PathMeasure::MinimalPaths);
        for i in 1..=dmax {
            for h in 1..=i {
                let want = sum[i][h] / pairs[i] as f64;
                assert!(
                    close(phi[i][h], want, 1e-12),
                    "k={k} n={n} i={i} h={h}: {} vs {want}",
                    phi[i][h]
                );
            }
            assert!(close(phi[i][i], 1.0, 1e-12));
        }
    }
}

#[test]
fn hop_vector_counting_agrees_on_hypercubes_only() {
    // With z_l = 1 every hop-count vector stands for the same number of paths, so the
    // printed counting (eqs. 16-19) is exact on the hypercube; on a torus it is not.
    for n in 2..=6 {
        let a = phi(2, n, PathMeasure::MinimalPaths);
        let b = phi(2, n, PathMeasure::HopCountVectors);
        for (ra, rb) in a.iter().zip(&b) {
            for (x, y) in ra.iter().zip(rb) {
                assert!(close(*x, *y, 1e-12));
            }
        }
    }
    // 4-ary 2-cube, a message going 3 hops as (2, 1): after one hop the paths 112, 121, 211
    // have finished dimension 2 in 1 of 3, the vectors (1,0), (0,1) in 1 of 2.
    let paths = pass_probabilities(&[2, 1], PathMeasure::MinimalPaths);
    let vectors = pass_probabilities(&[2, 1], PathMeasure::HopCountVectors);
    assert!(close(paths[1][1], 1.0 / 3.0, 1e-14));
    assert!(close(vectors[1][1], 0.5, 1e-14));
    let a = phi(8, 3, PathMeasure::MinimalPaths);
    let b = phi(8, 3, PathMeasure::HopCountVectors);
    assert!((a[9][5] - b[9][5]).abs() > 0.1);
}

#[test]
fn phi_has_the_closed_form_of_uniform_paths() {
    // Over uniform minimal paths dimension l (z_l hops) is complete after t hops with the
    // hypergeometric probability C(t, z_l) / C(i, z_l).
    let (k, n) = (8, 3);
    let phi = phi(k, n, PathMeasure::MinimalPaths);
    for i in 1..=diameter(k, n) as i64 {
        for h in 1..=i {
            let mut num = 0.0;
            for a in 1..(k as i64).min(i + 1) {
                // Dimension 1 needs a hops, the other n − 1 dimensions i − a in all.
                let others = n_ways(i - a, n as i64 - 1, 0, k as i64) as f64;
                let left = 1.0 - binom(h - 1, a) as f64 / binom(i, a) as f64;
                num += n as f64 * others * left;
            }
            let want = num / nodes_at_distance(k, n, i as u32) as f64;
            assert!(close(phi[i as usize][h as usize], want, 1e-12));
        }
    }
}

#[test]
fn blocking_probabilities_match_busy_set_enumeration() {
    // Eqs. 12-13: with v of the V virtual channels busy, every set of v equally likely
    // (assumption f), the probability that all adaptive ones are busy (P_a), and that they
    // and the message's own escape channel are (P_{a&d}).
    for vcs in 3..=8usize {
        for escape in [1u32, 2] {
            let adaptive = vcs - escape as usize;
            // Any occupancy distribution will do.
            let raw: Vec<f64> = (0..=vcs).map(|v| 1.0 + (v * 7 % 5) as f64).collect();
            let total: f64 = raw.iter().sum();
            let p: Vec<f64> = raw.iter().map(|x| x / total).collect();
            let (mut pa, mut pad) = (0.0, 0.0);
            for (v, &pv) in p.iter().enumerate() {
                let (mut all_a, mut all_ad, mut sets) = (0u64, 0u64, 0u64);
                for busy in 0u32..1 << vcs {
                    if busy.count_ones() as usize != v {
                        continue;
                    }
                    sets += 1;
                    // Class a: channels 0..A; the message's escape channel: A.
                    let a = (busy & ((1 << adaptive) - 1)).count_ones() as usize == adaptive;
                    all_a += a as u64;
                    all_ad += (a && busy >> adaptive & 1 == 1) as u64;
                }
                pa += pv * all_a as f64 / sets as f64;
                pad += pv * all_ad as f64 / sets as f64;
            }
            let (got_a, got_ad) = blocking_probabilities(&p, escape, Eq13::OwnEscapeChannel);
            assert!(close(got_a, pa, 1e-14), "V={vcs} b={escape}");
            assert!(close(got_ad, pad, 1e-14), "V={vcs} b={escape}");
            // The printed count of eq. 13 adds one more set of V − 1 busy channels.
            let (_, printed) = blocking_probabilities(&p, escape, Eq13::Printed);
            let extra = if escape == 2 {
                p[vcs - 1] / vcs as f64
            } else {
                0.0
            };
            assert!(close(printed, pad + extra, 1e-14));
        }
    }
}

#[test]
fn occupancy_is_the_chain_the_paper_describes() {
    // Eqs. 28-29 balance the chain: up at λ_c, down at 1/S̄, and out of state V at
    // 1/S̄ − λ_c; eq. 30 is 1 at zero load and grows with the load.
    let s = 40.0;
    let mut last = 1.0;
    for lc in [0.0, 0.001, 0.005, 0.01, 0.02, 0.024] {
        let p = vc_occupancy(lc * s, 5).unwrap();
        assert!(close(p.iter().sum(), 1.0, 1e-14));
        for v in 0..5 {
            let down = if v + 1 == 5 { 1.0 / s - lc } else { 1.0 / s };
            assert!(close(p[v] * lc, p[v + 1] * down, 1e-14));
        }
        let vbar = crate::model::queueing::model_vbar(&p);
        assert!(vbar >= last && vbar >= 1.0);
        last = vbar;
    }
    assert_eq!(
        crate::model::queueing::model_vbar(&vc_occupancy(0.0, 3).unwrap()),
        1.0
    );
    assert!(vc_occupancy(1.0, 3).is_none() && vc_occupancy(f64::NAN, 3).is_none());
}

fn scenario(topology: &str, vcs: u32, m: u32, extra: &str) -> Scenario {
    let text = format!(
        "name = \"t\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = 4\n\
         [routing]\nalgorithm = \"duato\"\n[traffic]\nmessage_length = {m}\nrates = [0.001]\n{extra}"
    );
    Scenario::from_toml(&text, "test").unwrap()
}

const TORUS8: &str = "kind = \"torus\"\nk = 8\nn = 3\nlinks = \"unidirectional\"";
const CUBE3: &str = "kind = \"hypercube\"\nn = 3";

#[test]
fn zero_load_latency_is_the_simulators() {
    // The simulator's zero-load latency of an h-hop message is M + h (the book's router model; tests/
    // exact_zero_load.rs): averaged over uniform destinations, M + d̄ with d̄ over every pair.
    for (topo, vcs, m) in [
        (TORUS8, 3, 32),
        (TORUS8, 7, 64),
        (CUBE3, 3, 32),
        (CUBE3, 3, 64),
    ] {
        let s = scenario(topo, vcs, m, "");
        let t = KAryNCube::new(s.topology.kind, s.topology.radix.clone(), false);
        let mut sum = 0u64;
        for a in 0..t.nodes as u32 {
            for b in 0..t.nodes as u32 {
                sum += (m + t.distance(a, b)) as u64 * (a != b) as u64;
            }
        }
        let want = sum as f64 / (t.nodes * (t.nodes - 1)) as f64;
        let Outcome::Stable(p) = predict(&s, 0.0) else {
            panic!("zero load is stable")
        };
        assert!(close(p.latency, want, 1e-14) && p.source_wait == 0.0);
        assert_eq!(p.vbar, Some(1.0));
        for lambda in [1e-9, 1e-7] {
            let Outcome::Stable(p) = predict(&s, lambda) else {
                panic!("tiny load is stable")
            };
            assert!(
                close(p.latency, want, 1e3 * lambda),
                "{} vs {want}",
                p.latency
            );
            assert!(close(p.network_latency, want, 1e3 * lambda));
        }
    }
}

#[test]
fn solver_converges_below_saturation_and_saturates_above() {
    for (topo, vcs, m) in [
        (TORUS8, 3, 32),
        (TORUS8, 5, 64),
        (TORUS8, 7, 32),
        (CUBE3, 3, 32),
        (CUBE3, 2, 64),
    ] {
        let s = scenario(topo, vcs, m, "");
        let model = Model::from_scenario(&s).unwrap();
        // Past λ_c (M + d̄) = 1 no fixed point can exist.
        let bound = model.n as f64 / (model.dbar * (m as f64 + model.dbar));
        let sat = crate::model::saturation_load(|l| predict(&s, l), bound);
        assert!(sat > 0.0 && sat < bound, "{sat} vs {bound}");
        let mut last: Option<f64> = None;
        let mut saturated = false;
        for step in 0..=300 {
            let lambda = bound * step as f64 / 200.0;
            match predict(&s, lambda) {
                Outcome::Stable(p) => {
                    assert!(!saturated, "stable at {lambda} above a saturated load");
                    for x in [p.latency, p.network_latency, p.source_wait] {
                        assert!(x.is_finite() && x >= 0.0);
                    }
                    assert!(close(p.latency, p.network_latency + p.source_wait, 1e-14));
                    assert!(p.vbar.unwrap() >= 1.0);
                    if let Some(l) = last {
                        assert!(p.latency > l, "latency grows with the load");
                    }
                    last = Some(p.latency);
                    assert!(lambda <= sat * (1.0 + 1e-3));
                }
                Outcome::Saturated => {
                    saturated = true;
                    assert!(lambda >= sat);
                }
            }
        }
        assert!(saturated);
        // Below saturation the fixed point is one: S̄ = F(S̄).
        let sol = model.solve(0.9 * sat).unwrap();
        let again = model.step(0.9 * sat, sol.s_bar).unwrap();
        assert!(close(again, sol.s_bar, 1e-9));
        assert!(sol.lambda_c * sol.s_bar < 1.0);
    }
    let model = Model::hypercube(3, 3, 32, Options::default());
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert_eq!(model.predict(bad), Outcome::Saturated);
    }
}

#[test]
fn applies_to_the_papers_networks_only() {
    assert!(applies(&scenario(TORUS8, 3, 32, "")).is_ok());
    assert!(applies(&scenario(CUBE3, 3, 64, "")).is_ok());
    let rejected = [
        scenario(
            "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"",
            3,
            32,
            "",
        ),
        scenario("kind = \"mesh\"\nk = 4\nn = 2", 3, 32, ""),
        scenario(
            "kind = \"torus\"\nk = [4, 8]\nlinks = \"unidirectional\"",
            3,
            32,
            "",
        ),
        scenario(CUBE3, 3, 32, "pattern = \"bit-reversal\""),
        scenario(
            CUBE3,
            3,
            32,
            "pattern = \"bit-reversal\"\npattern_fraction = 0.5",
        ),
    ];
    for s in &rejected {
        assert!(applies(s).is_err());
    }
    assert!(
        applies(&scenario(
            CUBE3,
            3,
            32,
            "pattern = \"bit-reversal\"\npattern_fraction = 0.0"
        ))
        .is_ok()
    );
    let mut s = scenario(TORUS8, 3, 32, "");
    s.routing.algorithm = Algorithm::Dor;
    assert!(applies(&s).is_err());
    let mut s = scenario(TORUS8, 3, 32, "");
    s.routing.selection = Selection::LeastMultiplexed;
    assert!(applies(&s).is_err());
    let mut s = scenario(TORUS8, 3, 32, "");
    s.router.vcs = 2;
    assert!(applies(&s).is_err());
    let mut s = scenario(TORUS8, 3, 32, "");
    s.router.buffer_depth = 1;
    assert!(applies(&s).is_err());
    let mut s = scenario(TORUS8, 3, 32, "");
    s.traffic.lengths = vec![8, 64];
    s.traffic.length_probabilities = vec![0.5, 0.5];
    assert!(applies(&s).is_err());
}
