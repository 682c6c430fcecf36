//! Destination patterns, from their definitions, against `flitsim::traffic::Traffic`:
//! - the permutations (bit-reversal, matrix-transpose, bit-complement, tornado, neighbor, the
//!   seeded random permutation) are bijections; a node mapped onto itself sends nothing and no
//!   pattern sends to itself — through the exact distribution (`Traffic::distribution`) and
//!   through many sampled messages (`Traffic::message`); their mean distance
//!   (`model::enumerate::mean_distance`) matches the maps and distances computed here;
//! - the random permutation is fixed by the seed and is a uniform random permutation
//!   (chi-square of where node 0 goes over many seeds; fixed points average 1);
//! - hotspot: sampled destinations follow the definition; its mean distance is uniform's
//!   (paper 002 eq. 4);
//! - locality: Reed and Fujimoto's decreasing probability (a destination at distance r has
//!   weight φ^(r−1)) and the sphere (probability p uniform within distance L, else uniform over
//!   all): exact probabilities per destination, mean distance, and chi-square of sampled
//!   destinations, with counts of nodes at each distance by brute force here.
//!
//! The maps and distances here are computed from the node coordinates (common::Topo), not with
//! the library's topology code. Conventions (README): node index = Σ a_d·Π_{e<d} k_e; on a
//! network of 2^B nodes bit-reversal reverses the B-bit index and matrix-transpose rotates it
//! left by ⌊B/2⌋ (swaps its halves for even B); other node counts rotate the coordinates by
//! ⌊n/2⌋ (transpose); bit-complement a → k−1−a, tornado a → a + ⌈k/2⌉ − 1, neighbor a → a + 1
//! (mod k) per coordinate.

use crate::common::{Shape, Topo, chi2_9999};
use flitsim::Scenario;
use flitsim::model::enumerate::mean_distance;
use flitsim::network::Network;
use flitsim::topology::KAryNCube;
use flitsim::traffic::Traffic;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn scenario(t: &Topo, traffic: &str, seed: u64) -> Scenario {
    let text = format!(
        "name = \"traffic-patterns\"\nseed = {seed}\n{}\n[router]\nvcs = 3\n\n[traffic]\n\
         {traffic}\nmessage_length = 4\nrates = [0.01]\n",
        t.toml()
    );
    Scenario::from_toml(&text, "traffic-patterns.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

fn traffic(t: &Topo, lines: &str, seed: u64) -> (KAryNCube, Traffic) {
    let s = scenario(t, lines, seed);
    let topo = Network::for_scenario(&s).cube().clone();
    let tr = Traffic::new(&s.traffic, flitsim::traffic::Addresses::of(&topo), seed);
    (topo, tr)
}

fn index(t: &Topo, c: &[u32]) -> u32 {
    c.iter()
        .zip(&t.radix)
        .rev()
        .fold(0, |acc, (&a, &k)| acc * k + a)
}

/// The destination of `x` under a named permutation, from the definitions above.
fn map_of(t: &Topo, name: &str, x: u32) -> u32 {
    let nodes = t.nodes();
    let bits = nodes.trailing_zeros() as usize;
    let per_coord = |f: &dyn Fn(u32, u32) -> u32| -> u32 {
        let c: Vec<u32> = t
            .coords(x)
            .iter()
            .zip(&t.radix)
            .map(|(&a, &k)| f(a, k))
            .collect();
        index(t, &c)
    };
    match name {
        "bit-reversal" => (0..bits).fold(0, |acc, i| acc | (((x >> i) & 1) << (bits - 1 - i))),
        "matrix-transpose" if nodes.is_power_of_two() => {
            let r = bits / 2;
            (0..bits).fold(0, |acc, i| acc | (((x >> i) & 1) << ((i + r) % bits)))
        }
        "matrix-transpose" => {
            let c = t.coords(x);
            let n = c.len();
            let mut d = vec![0; n];
            for i in 0..n {
                d[(i + n / 2) % n] = c[i];
            }
            index(t, &d)
        }
        "bit-complement" => per_coord(&|a, k| k - 1 - a),
        "tornado" => per_coord(&|a, k| (a + k.div_ceil(2) - 1) % k),
        "neighbor" => per_coord(&|a, k| (a + 1) % k),
        _ => unreachable!(),
    }
}

/// The networks of the permutation tests: hypercubes, meshes and tori with power-of-two and
/// other node counts, even and odd radices, unequal radices.
fn networks() -> Vec<Topo> {
    vec![
        Topo::hypercube(4),
        Topo::hypercube(5),
        Topo::hypercube(7),
        Topo::mesh(&[8, 8]),
        Topo::mesh(&[5, 5]),
        Topo::mesh(&[4, 8]),
        Topo::mesh(&[3, 5]),
        Topo::bi_torus(8, 2),
        Topo::bi_torus(5, 2),
        Topo::bi_torus(3, 3),
        Topo::uni_torus(4, 3),
        Topo::uni_torus(6, 2),
    ]
}

/// The patterns each network accepts (bit-reversal needs 2^B nodes; matrix-transpose on other
/// node counts needs equal radices; tornado is refused on radix 2).
fn patterns_of(t: &Topo) -> Vec<&'static str> {
    let mut v = vec!["bit-complement", "neighbor", "permutation"];
    let pow2 = t.nodes().is_power_of_two();
    if pow2 {
        v.push("bit-reversal");
    }
    if pow2 || (t.n() >= 2 && t.radix.windows(2).all(|w| w[0] == w[1])) {
        v.push("matrix-transpose");
    }
    if t.shape != Shape::Hypercube {
        v.push("tornado");
    }
    v
}

/// Every permutation pattern on every network: a bijection; fixed points (and only they) send
/// nothing, exactly and in 200 sampled messages per source; no message to self; the mean
/// distance of sent messages matches Σ dist(s, map(s)) / (N − n₀); the offered fraction is
/// (N − n₀)/N.
#[test]
fn permutations_are_bijections_without_self_sends() {
    let mut rng = Pcg64::seed_from_u64(7);
    for t in networks() {
        for name in patterns_of(&t) {
            let ctx = format!("{name} on {:?} {:?}", t.shape, t.radix);
            let (topo, mut tr) = traffic(&t, &format!("pattern = \"{name}\""), 3);
            let nodes = t.nodes();
            // The map as the library sends it (a fixed point: nothing).
            let mut map = vec![0u32; nodes as usize];
            for s in 0..nodes {
                let d = tr.distribution(s);
                map[s as usize] = match d.as_slice() {
                    [] => s,
                    [(d, p)] => {
                        assert_eq!(*p, 1.0, "{ctx}: source {s}");
                        assert_ne!(*d, s, "{ctx}: source {s} sends to itself");
                        *d
                    }
                    _ => panic!("{ctx}: source {s} has several destinations {d:?}"),
                };
                if name != "permutation" {
                    assert_eq!(map[s as usize], map_of(&t, name, s), "{ctx}: source {s}");
                }
            }
            let mut seen = vec![false; nodes as usize];
            for &d in &map {
                assert!(!seen[d as usize], "{ctx}: {d} is the image of two nodes");
                seen[d as usize] = true;
            }
            let fixed = (0..nodes).filter(|&s| map[s as usize] == s).count() as u32;
            // Sampling: the same map, nothing from fixed points, never self.
            for s in 0..nodes {
                for _ in 0..200 {
                    match tr.message(s, &mut rng) {
                        None => assert_eq!(map[s as usize], s, "{ctx}: {s} sent nothing"),
                        Some((d, len)) => {
                            assert_eq!(d, map[s as usize], "{ctx}: sampled from {s}");
                            assert_ne!(d, s, "{ctx}");
                            assert_eq!(len, 4);
                        }
                    }
                }
            }
            // Mean distance.
            let sent = nodes - fixed;
            let total: u32 = (0..nodes).map(|s| t.dist(s, map[s as usize])).sum();
            let want = total as f64 / sent as f64;
            let got = mean_distance(&topo, &tr);
            assert!(
                (got - want).abs() < 1e-12,
                "{ctx}: mean distance {got} vs {want}"
            );
            let frac = sent as f64 / nodes as f64;
            assert!((tr.offered_fraction() - frac).abs() < 1e-12, "{ctx}");
            // Fixed points where the definitions put them.
            let expect_fixed = match (name, t.shape) {
                ("bit-complement", _) => t.radix.iter().all(|k| k % 2 == 1) as u32,
                ("neighbor" | "tornado", _) => 0,
                ("bit-reversal", _) => 1 << (nodes.trailing_zeros().div_ceil(2)),
                ("matrix-transpose", _) if nodes.is_power_of_two() => {
                    let b = nodes.trailing_zeros();
                    if b % 2 == 0 { 1 << (b / 2) } else { 2 }
                }
                // Coordinate rotation: nodes whose coordinates are invariant (all equal for
                // n = 2 or 3).
                ("matrix-transpose", _) => t.radix[0],
                _ => fixed,
            };
            assert_eq!(fixed, expect_fixed, "{ctx}: fixed points");
            println!("{ctx}: {fixed} fixed points, mean distance {got:.4}");
        }
    }
}

/// Tornado and neighbor on tori: every node moves the same offset in each dimension, so the
/// distance is the same from every source: tornado ⌈k/2⌉ − 1 per dimension (the farthest
/// offset that minimal routing on a bidirectional torus still covers in the + direction, e.g.
/// 3 of 8), neighbor 1 per dimension.
#[test]
fn tornado_and_neighbor_distances_on_tori() {
    for (t, tornado, neighbor) in [
        (Topo::bi_torus(8, 2), 6.0, 2.0),
        (Topo::bi_torus(5, 2), 4.0, 2.0),
        (Topo::bi_torus(3, 3), 3.0, 3.0),
        (Topo::uni_torus(6, 2), 4.0, 2.0),
    ] {
        for (name, want) in [("tornado", tornado), ("neighbor", neighbor)] {
            let (topo, tr) = traffic(&t, &format!("pattern = \"{name}\""), 1);
            for s in 0..t.nodes() {
                assert_eq!(t.dist(s, map_of(&t, name, s)) as f64, want);
            }
            assert!((mean_distance(&topo, &tr) - want).abs() < 1e-12);
        }
    }
}

/// The random permutation: fixed by the seed (same seed, same map; another seed, another
/// map), and a uniformly random permutation: over 6400 seeds the image of node 0 is uniform
/// over the 64 nodes (chi-square, 63 degrees of freedom) and the number of fixed points
/// averages 1 (a uniform random permutation has mean 1 and variance 1 fixed points).
#[test]
fn permutation_is_seeded_and_uniform() {
    let t = Topo::mesh(&[8, 8]);
    let map = |seed: u64| -> Vec<u32> {
        let (_, tr) = traffic(&t, "pattern = \"permutation\"", seed);
        (0..64)
            .map(|s| tr.distribution(s).first().map_or(s, |&(d, _)| d))
            .collect()
    };
    assert_eq!(map(5), map(5));
    assert_ne!(map(5), map(6));
    let seeds = 6400u64;
    let mut image0 = vec![0u64; 64];
    let mut fixed = 0u64;
    for seed in 0..seeds {
        let m = map(seed);
        image0[m[0] as usize] += 1;
        fixed += (0..64).filter(|&s| m[s] == s as u32).count() as u64;
    }
    let e = seeds as f64 / 64.0;
    let chi2: f64 = image0.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    assert!(
        chi2 < chi2_9999(63),
        "image of node 0: chi-square {chi2:.1}"
    );
    let mean_fixed = fixed as f64 / seeds as f64;
    let z = (mean_fixed - 1.0) * (seeds as f64).sqrt();
    assert!(z.abs() < 5.0, "mean fixed points {mean_fixed} (z = {z:.2})");
    println!("permutation: chi-square {chi2:.1} (63 df), mean fixed points {mean_fixed:.4}");
}

/// Chi-square of sampled destinations from `src` against exact probabilities `p[d]` (which sum
/// to the probability that a message is sent); cells expected below 5 are pooled.
fn chi_square_destinations(
    ctx: &str,
    tr: &mut Traffic,
    src: u32,
    p: &[f64],
    samples: u64,
    rng: &mut Pcg64,
) -> f64 {
    let nodes = p.len();
    let mut count = vec![0u64; nodes + 1]; // last cell: nothing sent
    for _ in 0..samples {
        match tr.message(src, rng) {
            Some((d, _)) => {
                assert_ne!(d, src, "{ctx}: sent to itself");
                assert!(p[d as usize] > 0.0, "{ctx}: impossible destination {d}");
                count[d as usize] += 1;
            }
            None => count[nodes] += 1,
        }
    }
    let mut probs = p.to_vec();
    probs.push(1.0 - p.iter().sum::<f64>());
    let (mut chi2, mut bins, mut po, mut pe) = (0.0, 0usize, 0.0, 0.0);
    for (o, q) in count.iter().zip(&probs) {
        let e = *q * samples as f64;
        if *q <= 1e-15 {
            assert_eq!(*o, 0, "{ctx}: impossible cell");
            continue;
        }
        if e < 5.0 {
            po += *o as f64;
            pe += e;
            continue;
        }
        chi2 += (*o as f64 - e).powi(2) / e;
        bins += 1;
    }
    if pe > 0.0 {
        chi2 += (po - pe).powi(2) / pe;
        bins += 1;
    }
    if bins < 2 {
        // One possible outcome: the checks above already saw every sample there.
        return 0.0;
    }
    let limit = chi2_9999(bins - 1);
    assert!(
        chi2 < limit,
        "{ctx}: chi-square {chi2:.1} > {limit:.1} ({bins} cells)"
    );
    chi2
}

/// Hotspot: from every source the exact distribution is the definition (h + (1−h)/(N−1) to the
/// hot node, (1−h)/(N−1) to each other node; from the hot node (1−h)/(N−1) to each other node
/// and nothing with probability h); sampled destinations follow it; the mean distance is
/// uniform's (paper 002 eq. 4: hotspot messages travel as far as uniform ones, on average over
/// sources).
#[test]
fn hotspot_destinations_follow_the_definition() {
    let mut rng = Pcg64::seed_from_u64(11);
    for (t, hot, h) in [
        (Topo::hypercube(6), 45u32, 0.3),
        (Topo::mesh(&[5, 4]), 7, 0.6),
        (Topo::bi_torus(5, 2), 0, 1.0),
    ] {
        let lines =
            format!("pattern = \"hotspot\"\nhotspot_node = {hot}\nhotspot_fraction = {h:?}");
        let (topo, mut tr) = traffic(&t, &lines, 1);
        let nodes = t.nodes();
        let want = |s: u32, d: u32| -> f64 {
            if s == d {
                0.0
            } else if s != hot && d == hot {
                h + (1.0 - h) / (nodes - 1) as f64
            } else {
                (1.0 - h) / (nodes - 1) as f64
            }
        };
        for s in 0..nodes {
            let mut p = vec![0.0; nodes as usize];
            for (d, q) in tr.distribution(s) {
                p[d as usize] = q;
            }
            for d in 0..nodes {
                assert!((p[d as usize] - want(s, d)).abs() < 1e-12, "{s} -> {d}");
            }
            if s == hot || s == (hot + 1) % nodes {
                let ctx = format!("hotspot {:?} {:?} h={h} from {s}", t.shape, t.radix);
                chi_square_destinations(&ctx, &mut tr, s, &p, 60_000, &mut rng);
            }
        }
        // Mean distance of sent messages = uniform's (only the mesh's depends on the hot node).
        let d_u: f64 = t
            .hop_distribution()
            .iter()
            .enumerate()
            .map(|(r, q)| r as f64 * q)
            .sum();
        let got = mean_distance(&topo, &tr);
        if t.shape != Shape::Mesh {
            assert!((got - d_u).abs() < 1e-12, "{:?}: {got} vs {d_u}", t.shape);
        } else {
            // Mesh: weight each source's sent messages by hand.
            let mut num = 0.0;
            let mut den = 0.0;
            for s in 0..nodes {
                for d in 0..nodes {
                    num += want(s, d) * t.dist(s, d) as f64;
                    den += want(s, d);
                }
            }
            assert!((got - num / den).abs() < 1e-12);
        }
    }
}

/// Nodes at each distance from `src`, by brute force.
fn counts_by_distance(t: &Topo, src: u32) -> Vec<u64> {
    let mut c = vec![0u64; 1];
    for d in 0..t.nodes() {
        let r = t.dist(src, d) as usize;
        if r >= c.len() {
            c.resize(r + 1, 0);
        }
        c[r] += 1;
    }
    c
}

/// The locality models' probabilities of each destination from `src`, from the definitions.
enum Model {
    /// Weight φ^(r−1) for a destination at distance r ≥ 1.
    Decreasing(f64),
    /// With probability p uniform over the nodes at distance 1..=L, else uniform over all.
    Sphere(u32, f64),
}

fn locality_probs(t: &Topo, src: u32, m: &Model) -> Vec<f64> {
    let c = counts_by_distance(t, src);
    let nodes = t.nodes();
    (0..nodes)
        .map(|d| {
            if d == src {
                return 0.0;
            }
            let r = t.dist(src, d) as usize;
            match *m {
                Model::Decreasing(phi) => {
                    let total: f64 = (1..c.len())
                        .map(|r| c[r] as f64 * phi.powi(r as i32 - 1))
                        .sum();
                    phi.powi(r as i32 - 1) / total
                }
                Model::Sphere(l, p) => {
                    let inside: u64 = c.iter().take(l as usize + 1).skip(1).sum();
                    let local = if r <= l as usize {
                        p / inside as f64
                    } else {
                        0.0
                    };
                    local + (1.0 - p) / (nodes - 1) as f64
                }
            }
        })
        .collect()
}

/// Expected distance from `src`, from the definition: decreasing,
/// Σ_r r·count(r)·φ^(r−1) / Σ_r count(r)·φ^(r−1); sphere, p × the mean distance within the
/// sphere + (1 − p) × the mean distance to all other nodes.
fn locality_mean(t: &Topo, src: u32, m: &Model) -> f64 {
    let c = counts_by_distance(t, src);
    let w = |f: &dyn Fn(usize) -> f64| -> (f64, f64) {
        (1..c.len()).fold((0.0, 0.0), |(a, b), r| {
            (a + r as f64 * c[r] as f64 * f(r), b + c[r] as f64 * f(r))
        })
    };
    match *m {
        Model::Decreasing(phi) => {
            let (a, b) = w(&|r| phi.powi(r as i32 - 1));
            a / b
        }
        Model::Sphere(l, p) => {
            let (a, b) = w(&|r| if r <= l as usize { 1.0 } else { 0.0 });
            let (ua, ub) = w(&|_| 1.0);
            p * a / b + (1.0 - p) * ua / ub
        }
    }
}

/// Locality, both models, on a hypercube, tori and meshes (per-source tables): the library's
/// exact distribution equals the definition destination by destination, its mean distance the
/// definition's (averaged over sources), and sampled destinations follow it (chi-square over
/// destinations, 100,000 messages from each of two sources).
#[test]
fn locality_models_follow_their_definitions() {
    let mut rng = Pcg64::seed_from_u64(13);
    let cases: Vec<(Topo, Model)> = vec![
        (Topo::hypercube(6), Model::Decreasing(0.5)),
        (Topo::hypercube(6), Model::Sphere(2, 0.7)),
        (Topo::bi_torus(8, 2), Model::Decreasing(0.7)),
        (Topo::bi_torus(8, 2), Model::Sphere(3, 0.5)),
        (Topo::uni_torus(5, 2), Model::Decreasing(0.4)),
        (Topo::uni_torus(5, 2), Model::Sphere(1, 1.0)),
        (Topo::mesh(&[6, 6]), Model::Decreasing(0.5)),
        (Topo::mesh(&[6, 6]), Model::Sphere(2, 0.8)),
        (Topo::mesh(&[3, 7]), Model::Decreasing(1.0)),
        (Topo::mesh(&[4, 4]), Model::Sphere(10, 0.9)),
    ];
    for (t, m) in cases {
        let lines = match m {
            Model::Decreasing(phi) => {
                format!(
                    "pattern = \"locality\"\nlocality_model = \"decreasing\"\nlocality_factor = {phi:?}"
                )
            }
            Model::Sphere(l, p) => format!(
                "pattern = \"locality\"\nlocality_model = \"sphere\"\nlocality_radius = {l}\n\
                 locality_probability = {p:?}"
            ),
        };
        let ctx = format!("{:?} {:?} {}", t.shape, t.radix, lines.replace('\n', " "));
        let (topo, mut tr) = traffic(&t, &lines, 1);
        let nodes = t.nodes();
        let mut mean = 0.0;
        for s in 0..nodes {
            let want = locality_probs(&t, s, &m);
            let mut p = vec![0.0; nodes as usize];
            for (d, q) in tr.distribution(s) {
                p[d as usize] = q;
            }
            for d in 0..nodes as usize {
                assert!((p[d] - want[d]).abs() < 1e-12, "{ctx}: {s} -> {d}");
            }
            mean += locality_mean(&t, s, &m) / nodes as f64;
        }
        let got = mean_distance(&topo, &tr);
        assert!(
            (got - mean).abs() < 1e-12,
            "{ctx}: mean distance {got} vs {mean}"
        );
        for s in [0, nodes / 2 + 1] {
            let want = locality_probs(&t, s, &m);
            let chi2 = chi_square_destinations(&ctx, &mut tr, s, &want, 100_000, &mut rng);
            println!("{ctx}: mean distance {got:.4}; from {s}: chi-square {chi2:.1}");
        }
    }
    // φ = 1 is uniform; a sphere covering the whole network is uniform.
    for lines in [
        "pattern = \"locality\"\nlocality_factor = 1.0",
        "pattern = \"locality\"\nlocality_model = \"sphere\"\nlocality_radius = 6\nlocality_probability = 0.5",
    ] {
        let t = Topo::hypercube(6);
        let (topo, tr) = traffic(&t, lines, 1);
        assert!((mean_distance(&topo, &tr) - 6.0 * 32.0 / 63.0).abs() < 1e-12);
    }
}
