//! Channel message rates under uniform traffic (the papers' λ_c), against exact values:
//! - unidirectional k-ary n-cube and hypercube: every link carries λ·d̄/n messages per cycle
//!   (paper 000 eq. 7, paper 002 eq. 3), d̄ the mean distance over distinct pairs;
//! - 2-D k×k mesh under DOR (paper 003 eqs. 9-10): the channel from column j to j-1 carries
//!   λ·j(k−j)·k/(k²−1), the channel from j to j+1 carries λ·(j+1)(k−j−1)·k/(k²−1), and the
//!   same with rows for the y channels;
//! - and, for every topology, the per-link rate obtained by enumerating all source/destination
//!   pairs along the dimension-order path (computed here, independently of the library).
//!
//! Statistics: each message crosses a given link at most once (minimal routing), so the number
//! of headers crossing a link during the window is a thinned Poisson count with mean λ_c·W; a
//! link passes if it is within 5 standard deviations (sqrt(λ_c·W)). Sums over classes of links
//! are tested tighter: the links of one dimension and direction leaving the same coordinate
//! (each message crosses at most one of them: Poisson again, with the summed mean), and all
//! links together (header-hops in the window, compound Poisson with variance λ·N·W·E[h²], E
//! over the exact hop distribution).

use crate::common::{Shape, Topo, routing_scenario, scenario};
use flitsim::engine::run_point;
use flitsim::network::Network;
use flitsim::stats::{PointResult, StopReason};
use flitsim::topology::Dir;

/// The exact message rate per link per unit λ, by walking the dimension-order path of every
/// ordered pair of distinct nodes (dimension 0 first, the shorter way round on a bidirectional
/// torus). A pair exactly half-way round a ring (distance k/2) goes `+` when `random_tie` is
/// false; when true, each way with probability 1/2. Returns a map (src node, dim, dir) →
/// messages per cycle per unit λ.
fn exact_link_rates_tie(
    t: &Topo,
    random_tie: bool,
) -> std::collections::HashMap<(u32, usize, Dir), f64> {
    let n = t.nodes();
    let mut rate = std::collections::HashMap::new();
    let w = 1.0 / (n as f64 - 1.0); // each source picks each destination w.p. 1/(N-1)
    for a in 0..n {
        for b in 0..n {
            if a != b {
                walk(t, t.coords(a), &t.coords(b), 0, w, random_tie, &mut rate);
            }
        }
    }
    rate
}

/// Adds `w` along the rest of the dimension-order path from `cur` (dimensions `d..`) to
/// `target`, forking with half the weight each way at a random tie.
fn walk(
    t: &Topo,
    mut cur: Vec<u32>,
    target: &[u32],
    d: usize,
    w: f64,
    random_tie: bool,
    rate: &mut std::collections::HashMap<(u32, usize, Dir), f64>,
) {
    if d == t.n() {
        return;
    }
    let k = t.radix[d];
    let up = (target[d] + k - cur[d]) % k;
    let plus = match t.shape {
        Shape::Mesh | Shape::Hypercube => target[d] > cur[d],
        Shape::UniTorus => true,
        Shape::BiTorus if up != 0 && 2 * up == k && random_tie => {
            let mut minus = cur.clone();
            walk_dim(t, &mut minus, target[d], d, Dir::Minus, w / 2.0, rate);
            walk(t, minus, target, d + 1, w / 2.0, random_tie, rate);
            walk_dim(t, &mut cur, target[d], d, Dir::Plus, w / 2.0, rate);
            return walk(t, cur, target, d + 1, w / 2.0, random_tie, rate);
        }
        Shape::BiTorus => 2 * up <= k,
    };
    let dir = if plus { Dir::Plus } else { Dir::Minus };
    walk_dim(t, &mut cur, target[d], d, dir, w, rate);
    walk(t, cur, target, d + 1, w, random_tie, rate);
}

/// Moves `cur` to `to` in dimension d in direction `dir`, adding `w` to each link crossed.
fn walk_dim(
    t: &Topo,
    cur: &mut [u32],
    to: u32,
    d: usize,
    dir: Dir,
    w: f64,
    rate: &mut std::collections::HashMap<(u32, usize, Dir), f64>,
) {
    let k = t.radix[d];
    while cur[d] != to {
        *rate.entry((index(t, cur), d, dir)).or_insert(0.0) += w;
        cur[d] = match dir {
            Dir::Plus => (cur[d] + 1) % k,
            Dir::Minus => (cur[d] + k - 1) % k,
        };
    }
}

/// [`exact_link_rates_tie`] under the papers' tie rule (`+`).
fn exact_link_rates(t: &Topo) -> std::collections::HashMap<(u32, usize, Dir), f64> {
    exact_link_rates_tie(t, false)
}

fn index(t: &Topo, c: &[u32]) -> u32 {
    let mut idx = 0;
    let mut stride = 1;
    for (d, &x) in c.iter().enumerate() {
        idx += x * stride;
        stride *= t.radix[d];
    }
    idx
}

/// Mean and second moment of the distance over distinct pairs.
fn moments(t: &Topo) -> (f64, f64) {
    let p = t.hop_distribution();
    let m1 = p.iter().enumerate().map(|(h, q)| h as f64 * q).sum();
    let m2 = p.iter().enumerate().map(|(h, q)| (h * h) as f64 * q).sum();
    (m1, m2)
}

struct Run {
    r: PointResult,
    rate: f64,
    m: u32,
    vcs: u32,
}

fn run(t: &Topo, vcs: u32, m: u32, rate: f64, measure: u64, seed: u64) -> Run {
    run_routing(t, vcs, m, rate, measure, seed, "algorithm = \"dor\"")
}

fn run_routing(
    t: &Topo,
    vcs: u32,
    m: u32,
    rate: f64,
    measure: u64,
    seed: u64,
    routing: &str,
) -> Run {
    let s = routing_scenario(t, vcs, 4, m, rate, 3000, measure, seed, routing, "");
    let r = run_point(&s, rate, seed).unwrap();
    assert_eq!(r.stop, StopReason::Drained);
    assert_eq!(r.window_cycles, measure);
    Run { r, rate, m, vcs }
}

/// Per-link and class-average checks of the measured message rates against `want` (messages
/// per cycle per link, per unit λ); also flits = M × messages, up to the messages cut by the
/// window's two ends (at most V in progress on a link at each end, each short by < M flits).
fn check_rates(t: &Topo, run: &Run, want: impl Fn(u32, usize, Dir) -> f64) {
    let s = scenario(t, run.vcs, 4, run.m, run.rate, 1, 100, 1);
    let net = Network::for_scenario(&s);
    let links: Vec<_> = net.topology.listed_links().copied().collect();
    let r = &run.r;
    assert_eq!(r.link_msgs.len(), links.len());
    assert_eq!(r.link_flits.len(), links.len());
    let w = r.window_cycles as f64;
    let ctx = format!("{:?} {:?} λ={}", t.shape, t.radix, run.rate);
    let mut sum_got = 0.0;
    let mut sum_want = 0.0;
    let mut classes: std::collections::BTreeMap<(u8, u8, u32), (f64, f64)> = Default::default();
    let mut maxz: f64 = 0.0;
    for (c, l) in links.iter().enumerate() {
        // The link must join neighbours in its dimension, in its direction.
        let (a, b) = (t.coords(l.src), t.coords(l.dst));
        let k = t.radix[l.dim as usize];
        let step = match l.dir {
            Dir::Plus => (a[l.dim as usize] + 1) % k,
            Dir::Minus => (a[l.dim as usize] + k - 1) % k,
        };
        assert_eq!(b[l.dim as usize], step, "{ctx}: link {c} {l:?}");
        let expect = run.rate * want(l.src, l.dim as usize, l.dir);
        let got = r.link_msgs[c];
        let count = (got * w).round();
        assert!(
            (count - got * w).abs() < 1e-6,
            "{ctx}: link {c} count not whole"
        );
        let mean = expect * w;
        let z = (count - mean) / mean.sqrt();
        assert!(
            z.abs() < 5.0,
            "{ctx}: link {c} {l:?}: {got} messages/cycle, exact {expect} (z = {z:.2})"
        );
        let flits = r.link_flits[c] * w;
        let slack = 2.0 * run.vcs as f64 * (run.m as f64 - 1.0);
        assert!(
            (flits - run.m as f64 * count).abs() <= slack + 1e-6,
            "{ctx}: link {c}: {flits} flits vs M × {count} messages"
        );
        maxz = maxz.max(z.abs());
        let class = classes
            .entry((l.dim, l.dir as u8, a[l.dim as usize]))
            .or_default();
        class.0 += count;
        class.1 += mean;
        sum_got += count;
        sum_want += mean;
    }
    // A class: the links of one dimension and direction leaving coordinate j in that
    // dimension. A minimal dimension-order path passes each coordinate of a dimension at most
    // once, so a message crosses at most one link of a class and the class total is Poisson.
    for ((dim, dir, j), (got, mean)) in classes {
        let z = (got - mean) / mean.sqrt();
        assert!(
            z.abs() < 5.0,
            "{ctx}: links of dim {dim} dir {dir} from coordinate {j}: {got} headers, expected \
             {mean} (z = {z:.2})"
        );
    }
    // All links together: header-hops in the window, compound Poisson.
    let (m1, m2) = moments(t);
    let total_rate = run.rate * t.nodes() as f64; // messages per cycle
    assert!(
        (sum_want - total_rate * m1 * w).abs() < 1e-6 * sum_want,
        "{ctx}: exact rates"
    );
    let sd = (total_rate * w * m2).sqrt();
    let z = (sum_got - sum_want) / sd;
    assert!(
        z.abs() < 5.0,
        "{ctx}: {sum_got} header-hops in the window, expected {sum_want} (z = {z:.2})"
    );
}

/// Unidirectional torus: every link carries λ·d̄/n (paper 000 eq. 7).
fn uni_torus(k: u32, n: usize, rate: f64, measure: u64, seed: u64) {
    let t = Topo::uni_torus(k, n);
    let (dbar, _) = moments(&t);
    let lc = dbar / n as f64;
    // The enumeration agrees with the formula link by link.
    let exact = exact_link_rates(&t);
    assert_eq!(exact.len(), t.nodes() as usize * n);
    for v in exact.values() {
        assert!((v - lc).abs() < 1e-12);
    }
    let run = run(&t, 2, 4, rate, measure, seed);
    check_rates(&t, &run, |_, _, _| lc);
}

#[test]
fn channel_rates_uni_torus_8ary_2cube() {
    // λ_c = λ·(7·64/63)/2 ≈ 3.56λ; 0.02·3.56·30000 ≈ 2100 headers per link.
    uni_torus(8, 2, 0.02, 30_000, 21);
}

#[test]
fn channel_rates_uni_torus_4ary_3cube() {
    uni_torus(4, 3, 0.03, 30_000, 22);
}

/// Paper 000's eq. 7 needs one radix: on the unidirectional 5x3 torus, Duato's routing (any
/// minimal routing) puts λ·Σ_{s≠t} δ_0(s, t)/(N − 1) = λ·3²·(5·10)/14 messages per cycle on the
/// 15 links of dimension 0 (δ_0 the ring distance (b − a) mod 5, summed over a ring's ordered
/// pairs: 5·10) and λ·5²·(3·3)/14 on those of dimension 1: every link of dimension 0 carries
/// 30/14 λ, of dimension 1 15/14 λ (by the torus's symmetry), not λ·d̄/n = 45/28 λ each. So
/// flitsim has no exact rates for it.
#[test]
fn channel_rates_uni_torus_of_two_radices_under_duato() {
    let t = Topo {
        shape: Shape::UniTorus,
        radix: vec![5, 3],
    };
    let duato = "algorithm = \"duato\"";
    let s = routing_scenario(&t, 3, 4, 4, 0.02, 3000, 30_000, 23, duato, "");
    assert_eq!(flitsim::model::link_rates(&s, 0.02, 23), None);
    let run = run_routing(&t, 3, 4, 0.02, 30_000, 23, duato);
    check_rates(&t, &run, |_, d, _| [30.0 / 14.0, 15.0 / 14.0][d]);
}

/// Hypercube: every link carries λ·d̄/n = λ·2^(n-1)/(2^n - 1) (paper 002 eq. 3).
#[test]
fn channel_rates_hypercube_6() {
    let t = Topo::hypercube(6);
    let (dbar, _) = moments(&t);
    let lc = dbar / 6.0;
    assert!((lc - 32.0 / 63.0).abs() < 1e-12);
    for v in exact_link_rates(&t).values() {
        assert!((v - lc).abs() < 1e-12);
    }
    let run = run(&t, 1, 4, 0.05, 30_000, 23);
    check_rates(&t, &run, |_, _, _| lc);
}

/// 2-D mesh (paper 003 eqs. 9-10), per channel by its column (x) or row (y) position.
fn mesh_formula(k: u32) -> impl Fn(&Topo, u32, usize, Dir) -> f64 {
    move |t: &Topo, src: u32, dim: usize, dir: Dir| {
        let j = t.coords(src)[dim] as f64;
        let kf = k as f64;
        let norm = kf / (kf * kf - 1.0);
        match dir {
            // From position j to j-1.
            Dir::Minus => j * (kf - j) * norm,
            // From position j to j+1.
            Dir::Plus => (j + 1.0) * (kf - j - 1.0) * norm,
        }
    }
}

fn mesh(k: u32, rate: f64, measure: u64, seed: u64) {
    let t = Topo::mesh(&[k, k]);
    let f = mesh_formula(k);
    // The formula agrees with the enumeration of DOR paths link by link.
    let exact = exact_link_rates(&t);
    assert_eq!(exact.len(), 4 * (k * (k - 1)) as usize);
    for (&(src, d, dir), v) in &exact {
        assert!((v - f(&t, src, d, dir)).abs() < 1e-12, "{src} {d} {dir:?}");
    }
    let run = run(&t, 2, 4, rate, measure, seed);
    check_rates(&t, &run, |src, d, dir| f(&t, src, d, dir));
}

#[test]
fn channel_rates_mesh_8x8() {
    // The middle channels carry 4·4·8/63 λ ≈ 2.03λ, the edge ones 7·8/63 λ ≈ 0.89λ.
    mesh(8, 0.02, 30_000, 24);
}

#[test]
fn channel_rates_mesh_5x5() {
    mesh(5, 0.04, 30_000, 25);
}

/// Bidirectional torus and a mesh with unequal radices: against the enumeration of DOR paths.
/// (k odd, so that no pair is at the tie distance k/2.)
#[test]
fn channel_rates_bi_torus_5ary_3cube_and_mesh_3x6() {
    for (t, vcs, rate) in [
        (Topo::bi_torus(5, 3), 2, 0.04),
        (Topo::bi_torus(7, 2), 2, 0.04),
        (Topo::mesh(&[3, 6]), 1, 0.05),
    ] {
        let exact = exact_link_rates(&t);
        let run = run(&t, vcs, 4, rate, 30_000, 26);
        check_rates(&t, &run, |src, d, dir| exact[&(src, d, dir)]);
    }
}

/// Even k, where pairs half-way round a ring have two minimal ways: the `+` links of an 8-ary
/// ring carry 10/8 of the mean load under `tie = "plus"` (distances 1, 2, 3, 4 go `+`, 1, 2, 3
/// go `−`), and every link the same, λ·d̄/(2n), under `tie = "random"`. Measured against the
/// enumeration under each rule, and the library's enumeration (`validate`'s) against this one.
#[test]
fn channel_rates_bi_torus_8ary_2cube_under_each_tie_rule() {
    let t = Topo::bi_torus(8, 2);
    let (dbar, _) = moments(&t);
    for (random_tie, tie) in [(false, "plus"), (true, "random")] {
        let exact = exact_link_rates_tie(&t, random_tie);
        assert_eq!(exact.len(), 4 * 64);
        for (&(_, _, dir), &v) in &exact {
            let even = dbar / 4.0;
            let want = match (random_tie, dir) {
                (true, _) => even,
                // Per ring direction: + carries 10 of every 16 hop-units, − 6 (mean 8).
                (false, Dir::Plus) => even * 10.0 / 8.0,
                (false, Dir::Minus) => even * 6.0 / 8.0,
            };
            assert!((v - want).abs() < 1e-12, "{tie}: {v} vs {want}");
        }
        let s = routing_scenario(
            &t,
            2,
            4,
            4,
            0.03,
            1,
            100,
            1,
            &format!("tie = \"{tie}\""),
            "",
        );
        let net = Network::for_scenario(&s);
        let traffic = flitsim::traffic::Traffic::new(
            &s.traffic,
            flitsim::traffic::Addresses::of(net.cube()),
            1,
        );
        let lib = flitsim::model::enumerate::dor_link_rates(&net, &traffic, 1.0, s.routing.tie);
        for (c, l) in net.cube().links.iter().enumerate() {
            let v = exact[&(l.src, l.dim as usize, l.dir)];
            assert!(
                (lib[c] - v).abs() < 1e-12,
                "{tie}: link {c}: {} vs {v}",
                lib[c]
            );
        }
        let routing = format!("algorithm = \"dor\"\ntie = \"{tie}\"");
        let run = run_routing(&t, 2, 4, 0.03, 30_000, 27, &routing);
        check_rates(&t, &run, |src, d, dir| exact[&(src, d, dir)]);
    }
}
