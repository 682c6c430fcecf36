//! Channel message rates on the hypercube under uniform traffic, per routing, against exact
//! values computed here independently of the library:
//!
//! - p-cube (paper 002 Fig. 1b) on a 6-cube: the expected number of headers per cycle on each
//!   directed link, obtained by enumerating every ordered source-destination pair and every
//!   route the routing can take with its probability. Paper 002 section 4 describes the
//!   resulting imbalance, but its printed closed forms (eqs. 20-21) are garbled in our copy, so
//!   the enumeration is trusted and the equations are not used.
//! - e-cube (dimension order) and Duato's routing: every link carries λ·d̄/n with
//!   d̄ = (n/2)·N/(N−1) (paper 002 eq. 3).
//!
//! Statistics: a message crosses a given link at most once (minimal routing), so the number of
//! headers crossing a link in the window is a thinned Poisson count: each link must lie within
//! 5 standard deviations, and the sum of squared z-scores over all links within the 0.9999
//! quantile of chi-square. Sums over classes of links each message crosses at most once are
//! Poisson too and are tested at 5 sigma.

use crate::common::{Topo, chi2_9999, routing_scenario};
use flitsim::engine::run_point;
use flitsim::network::Network;
use flitsim::stats::{PointResult, StopReason};
use flitsim::topology::Dir;

const N_DIM: usize = 6;
const NODES: usize = 1 << N_DIM;

/// p-cube candidates at `x` for destination `t`: the dimensions whose bit goes 1 → 0
/// (S = C ∧ ¬D), or, once there are none, those whose bit goes 0 → 1 (S = ¬C ∧ D).
fn pcube_set(x: usize, t: usize) -> usize {
    let down = x & !t;
    if down != 0 {
        down
    } else {
        !x & t & (NODES - 1)
    }
}

/// All orderings of the bits of `set` (dimension lists).
fn orderings(set: usize) -> Vec<Vec<usize>> {
    let dims: Vec<usize> = (0..N_DIM).filter(|&d| set >> d & 1 == 1).collect();
    let mut out = Vec::new();
    fn rec(rest: &mut Vec<usize>, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if rest.is_empty() {
            out.push(cur.clone());
            return;
        }
        for i in 0..rest.len() {
            let d = rest.remove(i);
            cur.push(d);
            rec(rest, cur, out);
            cur.pop();
            rest.insert(i, d);
        }
    }
    rec(&mut dims.clone(), &mut Vec::new(), &mut out);
    out
}

/// Exact p-cube link rates per unit λ, `rate[x * n + d]` for the link leaving x in dimension d,
/// by enumeration of routes: choosing uniformly at random among the dimensions of S at each
/// step (what random selection does when every candidate is free, i.e. at low load) makes the
/// order of the 1 → 0 phase a uniformly random permutation of its dimensions, and likewise the
/// 0 → 1 phase; so each pair's routes are the |S1|!·|S2|! orderings, equally likely.
fn pcube_rates_by_orderings() -> Vec<f64> {
    let mut rate = vec![0.0; NODES * N_DIM];
    let w = 1.0 / (NODES as f64 - 1.0);
    for s in 0..NODES {
        for t in 0..NODES {
            if s == t {
                continue;
            }
            let down = orderings(s & !t);
            let up = orderings(!s & t & (NODES - 1));
            let p = w / (down.len() * up.len()) as f64;
            for a in &down {
                for b in &up {
                    let mut x = s;
                    for &d in a.iter().chain(b) {
                        rate[x * N_DIM + d] += p;
                        x ^= 1 << d;
                    }
                    assert_eq!(x, t);
                }
            }
        }
    }
    rate
}

/// The same by a recursion over the route distribution, hop by hop, using the routing's rule
/// (uniform choice among the candidate dimensions at each step) directly: a cross-check of the
/// permutation argument above.
fn pcube_rates_by_recursion() -> Vec<f64> {
    let mut rate = vec![0.0; NODES * N_DIM];
    let w = 1.0 / (NODES as f64 - 1.0);
    for s in 0..NODES {
        for t in 0..NODES {
            if s == t {
                continue;
            }
            let mut mass = vec![0.0; NODES];
            mass[s] = 1.0;
            for _ in 0..(s ^ t).count_ones() {
                let mut next = vec![0.0; NODES];
                for x in 0..NODES {
                    if mass[x] == 0.0 {
                        continue;
                    }
                    let set = pcube_set(x, t);
                    let k = set.count_ones() as f64;
                    for d in (0..N_DIM).filter(|&d| set >> d & 1 == 1) {
                        rate[x * N_DIM + d] += w * mass[x] / k;
                        next[x ^ (1 << d)] += mass[x] / k;
                    }
                }
                mass = next;
            }
            assert!((mass[t] - 1.0).abs() < 1e-12);
        }
    }
    rate
}

/// λ·d̄/n per unit λ: d̄ = (n/2)·N/(N−1) (paper 002 eq. 3), so λ_c = λ·2^(n−1)/(2^n − 1).
fn uniform_rate() -> f64 {
    let dbar = N_DIM as f64 / 2.0 * NODES as f64 / (NODES as f64 - 1.0);
    dbar / N_DIM as f64
}

fn weight(x: usize) -> u32 {
    x.count_ones()
}

fn run(routing: &str, vcs: u32, m: u32, rate: f64, measure: u64, seed: u64) -> PointResult {
    let s = routing_scenario(
        &Topo::hypercube(N_DIM),
        vcs,
        4,
        m,
        rate,
        2000,
        measure,
        seed,
        routing,
        "",
    );
    let r = run_point(&s, rate, seed).unwrap();
    assert_eq!(r.stop, StopReason::Drained);
    assert_eq!(r.window_cycles, measure);
    r
}

/// The library's links in the order of `link_msgs`, as (src, dim), checked to be hypercube
/// links with `+` meaning bit 0 → 1.
fn links(vcs: u32) -> Vec<(usize, usize)> {
    let s = routing_scenario(
        &Topo::hypercube(N_DIM),
        vcs,
        4,
        1,
        0.01,
        1,
        100,
        1,
        "algorithm = \"dor\"",
        "",
    );
    let net = Network::for_scenario(&s);
    assert_eq!(net.cube().links.len(), NODES * N_DIM);
    net.topology
        .listed_links()
        .map(|l| {
            let (src, d) = (l.src as usize, l.dim as usize);
            assert_eq!(l.dst as usize, src ^ (1 << d));
            let plus = src >> d & 1 == 0;
            assert_eq!(l.dir == Dir::Plus, plus, "{l:?}");
            (src, d)
        })
        .collect()
}

/// Header counts per link in the window.
fn counts(r: &PointResult) -> Vec<f64> {
    let w = r.window_cycles as f64;
    r.link_msgs
        .iter()
        .map(|&x| {
            let c = (x * w).round();
            assert!((c - x * w).abs() < 1e-6);
            c
        })
        .collect()
}

/// Per-link 5-sigma and chi-square checks of measured header counts against `want` (expected
/// headers per cycle, per link in library order). Returns the chi-square statistic.
fn check_links(ctx: &str, r: &PointResult, want: &[f64]) -> f64 {
    let got = counts(r);
    let w = r.window_cycles as f64;
    let mut chi2 = 0.0;
    for (c, (&g, &x)) in got.iter().zip(want).enumerate() {
        let mean = x * w;
        let z = (g - mean) / mean.sqrt();
        assert!(
            z.abs() < 5.0,
            "{ctx}: link {c}: {g} headers, expected {mean:.1} (z = {z:.2})"
        );
        chi2 += z * z;
    }
    let bound = chi2_9999(got.len());
    assert!(
        chi2 < bound,
        "{ctx}: chi-square {chi2:.1} over {} links > {bound:.1}",
        got.len()
    );
    chi2
}

/// Links grouped by (Hamming weight of the source, direction): measured and expected header
/// counts. A p-cube or any minimal route changes the weight by one per hop, monotonically within
/// a phase, so a message crosses at most one link of each class: class totals are Poisson.
fn classes(
    r: &PointResult,
    links: &[(usize, usize)],
    want: &[f64],
) -> std::collections::BTreeMap<(u32, bool), (f64, f64)> {
    let got = counts(r);
    let w = r.window_cycles as f64;
    let mut cl = std::collections::BTreeMap::new();
    for (c, &(src, d)) in links.iter().enumerate() {
        let e: &mut (f64, f64) = cl.entry((weight(src), src >> d & 1 == 0)).or_default();
        e.0 += got[c];
        e.1 += want[c] * w;
    }
    cl
}

#[test]
fn pcube_enumeration_is_consistent() {
    let a = pcube_rates_by_orderings();
    let b = pcube_rates_by_recursion();
    for (x, y) in a.iter().zip(&b) {
        assert!((x - y).abs() < 1e-12, "{x} vs {y}");
    }
    // Every route is minimal: the rates add up to d̄ headers per message, i.e. N·d̄ per unit λ.
    let total: f64 = a.iter().sum();
    assert!((total - NODES as f64 * N_DIM as f64 * uniform_rate()).abs() < 1e-9);
    // The rate of a link depends only on its source's weight and its direction; the link from
    // node 0 carries 1.759λ, the links into node 0 as much, the links from node 63 only λ/6.
    for x in 0..NODES {
        for d in 0..N_DIM {
            for y in 0..NODES {
                for e in 0..N_DIM {
                    if weight(x) == weight(y) && (x >> d & 1) == (y >> e & 1) {
                        assert!((a[x * N_DIM + d] - a[y * N_DIM + e]).abs() < 1e-12);
                    }
                }
            }
        }
    }
    assert!((a[0] - 1.759_259_259_259_259).abs() < 1e-9, "{}", a[0]);
    assert!((a[(NODES - 1) * N_DIM] - 1.0 / 6.0).abs() < 1e-12);
    assert!(
        (a[N_DIM] - 1.759_259_259_259_259).abs() < 1e-9,
        "{}",
        a[N_DIM]
    );
}

/// p-cube on a 6-cube, uniform traffic at low load (single-flit messages, so a candidate is
/// rarely busy and random selection chooses uniformly): every link's header rate matches the
/// enumeration.
#[test]
fn pcube_channel_rates_match_enumeration() {
    let rate = 0.004;
    let measure = 400_000;
    let exact = pcube_rates_by_orderings();
    let links = links(1);
    let want: Vec<f64> = links
        .iter()
        .map(|&(src, d)| rate * exact[src * N_DIM + d])
        .collect();
    let r = run("algorithm = \"pcube\"", 1, 1, rate, measure, 31);
    let chi2 = check_links("p-cube", &r, &want);
    let cl = classes(&r, &links, &want);
    for (&(wt, plus), &(got, mean)) in &cl {
        let z = (got - mean) / mean.sqrt();
        eprintln!(
            "p-cube class weight {wt} {}: {got} headers, exact {mean:.1} (z = {z:.2}); per link \
             per unit λ {:.4}",
            if plus { '+' } else { '-' },
            mean / (measure as f64 * rate)
                / links
                    .iter()
                    .filter(|&&(s, d)| weight(s) == wt && (s >> d & 1 == 0) == plus)
                    .count() as f64
        );
        assert!(z.abs() < 5.0, "class ({wt}, {plus}): z = {z:.2}");
    }
    eprintln!("p-cube chi-square over 384 links: {chi2:.1}");
    // The imbalance is real and measured: the links out of node 0's weight class carry far more
    // than e-cube's uniform λ·d̄/n, those of the heaviest nodes far less.
    let lc = rate * uniform_rate() * measure as f64;
    let (g0, _) = cl[&(0, true)];
    let (g5, _) = cl[&(5, true)];
    let z0 = (g0 - 6.0 * lc) / (6.0 * lc).sqrt();
    let z5 = (g5 - 6.0 * lc) / (6.0 * lc).sqrt();
    assert!(z0 > 20.0, "links from node 0 not above λ·d̄/n: z = {z0:.1}");
    assert!(
        z5 < -20.0,
        "links from weight-5 nodes not below λ·d̄/n: z = {z5:.1}"
    );
}

/// e-cube on the same network and traffic (same seed, so the same messages): every link
/// carries λ·d̄/n, whatever the weight of its source: the p-cube imbalance is the routing's.
#[test]
fn ecube_channel_rates_are_uniform() {
    let rate = 0.004;
    let measure = 400_000;
    let links = links(1);
    let want = vec![rate * uniform_rate(); links.len()];
    let r = run("algorithm = \"dor\"", 1, 1, rate, measure, 31);
    check_links("e-cube", &r, &want);
    for (&(wt, plus), &(got, mean)) in &classes(&r, &links, &want) {
        let z = (got - mean) / mean.sqrt();
        assert!(z.abs() < 5.0, "e-cube class ({wt}, {plus}): z = {z:.2}");
    }
}

/// e-cube and Duato's routing (with and without time-out, each selection function) at low load:
/// every channel carries λ·d̄/n (paper 002 eq. 3). For Duato this holds because every minimal
/// route crosses each dimension in which source and destination differ exactly once, and the
/// routing is invariant under the hypercube's translations x → x ⊕ a, which permute the links
/// of a dimension transitively.
#[test]
fn ecube_and_duato_carry_lambda_dbar_over_n_on_every_channel() {
    let rate = 0.02;
    let m = 4;
    let measure = 100_000;
    for (routing, vcs) in [
        ("algorithm = \"dor\"", 2),
        ("algorithm = \"duato\"", 2),
        (
            "algorithm = \"duato\"\nselection = \"least-multiplexed\"",
            3,
        ),
        ("algorithm = \"duato\"\nselection = \"most-free\"", 3),
        ("algorithm = \"duato-timeout\"\ntimeout = 4", 3),
    ] {
        let links = links(vcs);
        let want = vec![rate * uniform_rate(); links.len()];
        let r = run(routing, vcs, m, rate, measure, 41);
        let ctx = routing.replace('\n', "; ");
        let chi2 = check_links(&ctx, &r, &want);
        // Per dimension: a message crosses at most one link of a dimension.
        let got = counts(&r);
        for d in 0..N_DIM {
            let g: f64 = (0..links.len())
                .filter(|&c| links[c].1 == d)
                .map(|c| got[c])
                .sum();
            let mean = NODES as f64 * rate * uniform_rate() * measure as f64;
            let z = (g - mean) / mean.sqrt();
            assert!(z.abs() < 5.0, "{ctx}: dimension {d}: z = {z:.2}");
        }
        // Flits = M × headers, up to the messages cut by the window's two ends (at most V per
        // link at each end, each short by fewer than M flits).
        let w = measure as f64;
        for (c, (&f, &h)) in r.link_flits.iter().zip(&got).enumerate() {
            let slack = 2.0 * vcs as f64 * (m as f64 - 1.0);
            assert!(
                (f * w - m as f64 * h).abs() <= slack + 1e-6,
                "{ctx}: link {c}: {} flits vs {m} × {h}",
                f * w
            );
        }
        eprintln!(
            "{ctx}: chi-square {chi2:.1} over {} links, adaptive fraction {:.4}",
            links.len(),
            r.stats.adaptive_hop_fraction()
        );
    }
}
