//! Hotspot traffic on a 6-cube with e-cube routing (paper 002 eqs. 4-6), per-node injection
//! and ejection rates, nodes that a permutation maps onto themselves, and the hypercube and
//! hotspot columns of channels.csv / nodes.csv.
//!
//! The hotspot pattern (paper 002, after Pfister and Norton): each message goes to the hot
//! node with probability h, else to a uniform destination among the other nodes; the hot node
//! itself sends nothing in its hotspot share (it generates λ, sends λ(1 − h)).
//!
//! Exact per-channel rates come from enumerating every source-destination pair and its e-cube
//! path, both with the library's `model::enumerate::dor_link_rates` and independently here.
//! Statistics of the simulated rates: every message crosses a given link at most once (minimal
//! routing), so a link's header count in a W-cycle window is a thinned Poisson count with mean
//! rate·W; a link passes within 5 standard deviations. Sums over a class of links use the exact
//! compound-Poisson variance λW·Σ q(s,d)·c(s,d)², c the number of class links on the path.

use crate::common::Topo;
use flitsim::Scenario;
use flitsim::engine::run_point;
use flitsim::model::enumerate::dor_link_rates;
use flitsim::network::Network;
use flitsim::stats::{PointResult, StopReason};
use flitsim::traffic::Traffic;
use std::collections::HashMap;

/// A hypercube scenario with e-cube routing and the given `[traffic]` pattern lines.
#[allow(clippy::too_many_arguments)]
fn cube_scenario(
    n: usize,
    traffic: &str,
    vcs: u32,
    m: u32,
    rate: f64,
    warmup: u64,
    measure: u64,
    seed: u64,
) -> Scenario {
    let text = format!(
        "name = \"traffic-hotspot\"\nseed = {seed}\n{}\n[router]\nvcs = {vcs}\nbuffer_depth = 4\n\n\
         [routing]\nalgorithm = \"dor\"\n\n[traffic]\n{traffic}\nmessage_length = {m}\n\
         rates = [{rate:?}]\n\n[run]\nwarmup_cycles = {warmup}\nmeasure_cycles = {measure}\n",
        Topo::hypercube(n).toml()
    );
    Scenario::from_toml(&text, "traffic-hotspot.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

fn hotspot_lines(hot: u32, h: f64) -> String {
    format!("pattern = \"hotspot\"\nhotspot_node = {hot}\nhotspot_fraction = {h:?}")
}

fn binom(n: u64, k: u64) -> u64 {
    (0..k).fold(1u64, |acc, i| acc * (n - i) / (i + 1))
}

const N: usize = 6;
const NODES: u32 = 1 << N;
/// The hot node, 101101: not node 0, so that no rule below holds only by symmetry of 0.
const HOT: u32 = 0b101101;

/// P(s sends to d) under hotspot fraction h, per generated message, from the definition.
fn hotspot_q(s: u32, d: u32, h: f64) -> f64 {
    if s == d {
        return 0.0;
    }
    let uni = (1.0 - h) / (NODES - 1) as f64;
    if s != HOT && d == HOT { h + uni } else { uni }
}

/// The e-cube path from s to d: (node, bit) of each hop, lowest differing bit first.
fn ecube_path(s: u32, d: u32) -> Vec<(u32, u32)> {
    let mut path = Vec::new();
    let mut at = s;
    while at != d {
        let b = (at ^ d).trailing_zeros();
        path.push((at, b));
        at ^= 1 << b;
    }
    path
}

/// The network's link index of each (src, dst) pair.
fn link_index(net: &Network) -> HashMap<(u32, u32), usize> {
    net.cube()
        .links
        .iter()
        .enumerate()
        .map(|(c, l)| ((l.src, l.dst), c))
        .collect()
}

/// Exact link rates per unit λ, by walking the e-cube path of every pair, here.
fn my_link_rates(net: &Network, h: f64) -> Vec<f64> {
    let idx = link_index(net);
    let mut rate = vec![0.0; net.links as usize];
    for s in 0..NODES {
        for d in 0..NODES {
            let q = hotspot_q(s, d, h);
            if q > 0.0 {
                for (at, b) in ecube_path(s, d) {
                    rate[idx[&(at, at ^ (1 << b))]] += q;
                }
            }
        }
    }
    rate
}

fn dist(a: u32, b: u32) -> u32 {
    (a ^ b).count_ones()
}

/// Paper 002 eq. 5 per unit λh: the mean hotspot rate over the (n − j + 1)·C(n, j − 1)
/// channels whose tail is j hops from the hot node and whose head is j − 1 hops from it.
fn eq5(j: u32) -> f64 {
    let n = N as u64;
    let far: u64 = (1u64 << n) - (0..j as u64).map(|k| binom(n, k)).sum::<u64>();
    far as f64 / ((n - j as u64 + 1) * binom(n, j as u64 - 1)) as f64
}

/// Paper 002 eq. 3 per unit λ: λ·d̄/n = 2^(n−1)/(2^n − 1), exact per channel under e-cube.
fn eq3() -> f64 {
    (1u64 << (N - 1)) as f64 / (NODES - 1) as f64
}

/// A point's per-link results, which list the links in `links_in_order`, indexed by link id.
fn by_link_id(net: &Network, listed: &[f64]) -> Vec<f64> {
    let mut v = vec![0.0; listed.len()];
    for (i, l) in net.topology.links_in_order().enumerate() {
        v[l as usize] = listed[i];
    }
    v
}

fn toward(net: &Network, c: usize) -> Option<u32> {
    let l = &net.cube().links[c];
    (dist(l.dst, HOT) < dist(l.src, HOT)).then(|| dist(l.src, HOT))
}

/// Exact, by enumeration (no simulation). The library's `dor_link_rates` equals the path
/// enumeration here link by link (h = 0, 0.3, 1). Then paper 002 eq. 5:
/// - it is exact as the class average: over the channels j hops from the hot node pointing
///   toward it, the hotspot rates sum to λh·(N − Σ_{k<j} C(n,k)) (each hotspot message from a
///   source at distance ≥ j crosses exactly one of them), for every routing that is minimal;
/// - with e-cube it is only a class average: the channel from u across bit b toward the hot
///   node carries λh·2^b if b is the lowest bit in which u differs from the hot node (the
///   2^b sources that agree with u in bit b and above reach u and then cross b), and nothing
///   otherwise; within every class j = 1..6 the rates differ (j = 1: λh·1, 2, 4, ..., 32;
///   j = 6: one channel λh, five channels 0);
/// - with paper 002's fully adaptive routing (Fig. 1c, a uniformly random remaining
///   dimension at each hop) it is exact for every channel (checked by enumeration below).
///
/// Eq. 6 adds the uniform share (1 − h)·λ_channel (eq. 3); under e-cube that share is exact
/// for every channel, so eq. 6 is exact for channels pointing away from the hot node (which
/// carry no hotspot message) and a class average for those pointing toward it.
#[test]
fn hotspot_6cube_ecube_exact_rates_and_paper_eq5() {
    let s = cube_scenario(N, &hotspot_lines(HOT, 0.3), 1, 2, 0.01, 0, 100, 1);
    let net = Network::for_scenario(&s);
    let rel = |a: f64, b: f64| (a - b).abs() <= 1e-12 * (1.0 + b.abs());
    let traffic = |h: f64| {
        let s = cube_scenario(N, &hotspot_lines(HOT, h), 1, 2, 0.01, 0, 100, 1);
        Traffic::new(&s.traffic, flitsim::traffic::Addresses::of(net.cube()), 1)
    };
    for h in [0.0, 0.3, 1.0] {
        let lib = dor_link_rates(&net, &traffic(h), 1.0, flitsim::routing::Tie::Plus);
        let mine = my_link_rates(&net, h);
        for c in 0..lib.len() {
            assert!(
                rel(lib[c], mine[c]),
                "h={h} link {c}: {} vs {}",
                lib[c],
                mine[c]
            );
        }
    }
    // Pure hotspot (h = 1): per-channel rates and eq. 5.
    let hs = dor_link_rates(&net, &traffic(1.0), 1.0, flitsim::routing::Tie::Plus);
    let mut class: Vec<Vec<f64>> = vec![Vec::new(); N + 1];
    for (c, l) in net.cube().links.iter().enumerate() {
        match toward(&net, c) {
            Some(j) => {
                let b = (l.src ^ l.dst).trailing_zeros();
                let lowest = (l.src ^ HOT).trailing_zeros();
                let want = if b == lowest { (1u32 << b) as f64 } else { 0.0 };
                assert!(rel(hs[c], want), "link {l:?}: {} vs {want}", hs[c]);
                class[j as usize].push(hs[c]);
            }
            None => assert_eq!(hs[c], 0.0, "link {l:?} away from the hot node"),
        }
    }
    for j in 1..=N as u32 {
        let v = &class[j as usize];
        assert_eq!(
            v.len() as u64,
            (N as u64 - j as u64 + 1) * binom(N as u64, j as u64 - 1)
        );
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!(
            rel(mean, eq5(j)),
            "class {j}: mean {mean} vs eq. 5 {}",
            eq5(j)
        );
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        assert!(
            hi > lo + 0.5,
            "class {j}: e-cube rates all equal ({lo}..{hi})"
        );
        println!(
            "j={j}: {} channels, eq. 5 = {:.4} λh = class mean; e-cube channels {lo}..{hi} λh",
            v.len(),
            eq5(j)
        );
    }
    assert_eq!(class[1].iter().cloned().fold(0.0, f64::max), 32.0);
    // Fully adaptive (Fig. 1c): f(u) = messages per unit λh passing through node u (its own
    // and those arriving), each leaving over one of its dist(u) toward-channels uniformly.
    // Process nodes from the farthest to the nearest.
    let mut nodes: Vec<u32> = (0..NODES).collect();
    nodes.sort_by_key(|&u| std::cmp::Reverse(dist(u, HOT)));
    let mut f = vec![0.0; NODES as usize];
    for &u in &nodes {
        if u == HOT {
            continue;
        }
        f[u as usize] += 1.0;
        let du = dist(u, HOT);
        for b in 0..N as u32 {
            let v = u ^ (1 << b);
            if dist(v, HOT) < du {
                let per_channel = f[u as usize] / du as f64;
                assert!(rel(per_channel, eq5(du)), "adaptive: channel {u}->{v}");
                f[v as usize] += per_channel;
            }
        }
    }
    // Eq. 6 with the uniform share, h = 0.3.
    let h = 0.3;
    let all = dor_link_rates(&net, &traffic(h), 1.0, flitsim::routing::Tie::Plus);
    let mut sum = [0.0; N + 1];
    let mut cnt = [0usize; N + 1];
    for (c, l) in net.cube().links.iter().enumerate() {
        match toward(&net, c) {
            Some(j) => {
                sum[j as usize] += all[c];
                cnt[j as usize] += 1;
            }
            None => assert!(rel(all[c], (1.0 - h) * eq3()), "away link {l:?}"),
        }
    }
    for j in 1..=N {
        let eq6 = (1.0 - h) * eq3() + h * eq5(j as u32);
        assert!(rel(sum[j] / cnt[j] as f64, eq6), "class {j}: eq. 6");
    }
}

/// Checks a measured count against an exact mean with the given variance (5 sigma).
fn within(ctx: &str, got: f64, mean: f64, var: f64) -> f64 {
    let z = (got - mean) / var.sqrt();
    assert!(
        z.abs() < 5.0,
        "{ctx}: {got} vs exact {mean} (sd {:.3}, z = {z:.2})",
        var.sqrt()
    );
    z
}

fn run(s: &Scenario, rate: f64, seed: u64) -> PointResult {
    let r = run_point(s, rate, seed).unwrap();
    assert_eq!(r.stop, StopReason::Drained);
    assert!(!r.saturated());
    r
}

/// Simulated: a 6-cube, e-cube, hot node 45, h = 0.3, λ = 0.01, M = 2 (the hot node ejects
/// λ(h·63 + 1 − h) = 0.196 messages = 0.39 flits per cycle: not saturated). Every link's header
/// rate matches `dor_link_rates` (5 sigma, ≥ 350 headers per link); the classes of eq. 6
/// (channels j hops out pointing toward the hot node, and all away-pointing channels) match
/// in total; per node, injection is λ (hot node: λ(1 − h)) and ejection λ(1 − h) (hot node:
/// λ(h(N − 1) + 1 − h)), in messages, and M times that in flits.
#[test]
fn hotspot_6cube_ecube_simulated_channel_and_node_rates() {
    let (h, m, rate, w, seed) = (0.3, 2u32, 0.01, 100_000u64, 51);
    let s = cube_scenario(N, &hotspot_lines(HOT, h), 1, m, rate, 2000, w, seed);
    let net = Network::for_scenario(&s);
    let r = run(&s, rate, seed);
    let (link_msgs, link_flits) = (
        by_link_id(&net, &r.link_msgs),
        by_link_id(&net, &r.link_flits),
    );
    assert_eq!(r.window_cycles, w);
    assert_eq!(r.hotspot_fraction, Some(h));
    let wf = w as f64;
    let exact = dor_link_rates(
        &net,
        &Traffic::new(
            &s.traffic,
            flitsim::traffic::Addresses::of(net.cube()),
            seed,
        ),
        rate,
        s.routing.tie,
    );
    let mut maxz: f64 = 0.0;
    for (c, l) in net.cube().links.iter().enumerate() {
        let got = link_msgs[c] * wf;
        let mean = exact[c] * wf;
        let z = within(&format!("link {c} {l:?}"), got, mean, mean);
        maxz = maxz.max(z.abs());
        // Flits: M per header, up to the messages cut by the window's ends.
        let flits = link_flits[c] * wf;
        assert!((flits - m as f64 * got).abs() <= 2.0 * (m as f64 - 1.0) + 1e-6);
    }
    // Classes: key Some(j) for toward-channels j hops out, None for away-channels.
    let idx = link_index(&net);
    let class_of = |c: usize| toward(&net, c);
    let mut got: HashMap<Option<u32>, f64> = HashMap::new();
    for (c, &x) in link_msgs.iter().enumerate() {
        *got.entry(class_of(c)).or_default() += x * wf;
    }
    let mut mean: HashMap<Option<u32>, f64> = HashMap::new();
    let mut var: HashMap<Option<u32>, f64> = HashMap::new();
    for src in 0..NODES {
        for dst in 0..NODES {
            let q = hotspot_q(src, dst, h);
            if q == 0.0 {
                continue;
            }
            let mut per: HashMap<Option<u32>, f64> = HashMap::new();
            for (at, b) in ecube_path(src, dst) {
                *per.entry(class_of(idx[&(at, at ^ (1 << b))])).or_default() += 1.0;
            }
            for (k, c) in per {
                *mean.entry(k).or_default() += rate * wf * q * c;
                *var.entry(k).or_default() += rate * wf * q * c * c;
            }
        }
    }
    for (k, g) in &got {
        let n_links = (0..net.links as usize)
            .filter(|&c| class_of(c) == *k)
            .count() as f64;
        let want = match k {
            Some(j) => rate * ((1.0 - h) * eq3() + h * eq5(*j)) * n_links * wf,
            None => rate * (1.0 - h) * eq3() * n_links * wf,
        };
        assert!((mean[k] - want).abs() < 1e-9 * want, "class {k:?}: eq. 6");
        let z = within(&format!("class {k:?}"), *g, mean[k], var[k]);
        println!(
            "class {k:?}: {n_links} links, {:.5} messages/cycle per link, eq. 6 {:.5} (z = {z:.2})",
            g / n_links / wf,
            mean[k] / n_links / wf
        );
    }
    println!("max |z| over the {} links: {maxz:.2}", net.links);
    // Per node.
    let nn = NODES as f64;
    let ej_slack = 2.0 * (N as f64 + 1.0) * net.vcs as f64 * (m as f64 - 1.0);
    for v in 0..NODES as usize {
        let hot = v as u32 == HOT;
        let inj = rate * if hot { 1.0 - h } else { 1.0 };
        let ej = rate
            * if hot {
                h * (nn - 1.0) + 1.0 - h
            } else {
                1.0 - h
            };
        within(
            &format!("node {v} injection"),
            r.node_inj_msgs[v] * wf,
            inj * wf,
            inj * wf,
        );
        within(
            &format!("node {v} ejection"),
            r.node_ej_msgs[v] * wf,
            ej * wf,
            ej * wf,
        );
        let fl = r.node_inj_flits[v] * wf - m as f64 * r.node_inj_msgs[v] * wf;
        assert!(fl.abs() <= 2.0 * (m as f64 - 1.0) + 1e-6, "node {v}: {fl}");
        let fl = r.node_ej_flits[v] * wf - m as f64 * r.node_ej_msgs[v] * wf;
        assert!(fl.abs() <= ej_slack + 1e-6, "node {v}: {fl}");
        if hot {
            println!(
                "hot node: injects {:.5} (exact {inj}), ejects {:.5} messages/cycle (exact {ej:.5})",
                r.node_inj_msgs[v], r.node_ej_msgs[v]
            );
        }
    }
    // Offered load: the hot node's hotspot share is not sent.
    assert!((r.offered_fraction - (1.0 - h / nn)).abs() < 1e-12);
    assert!((r.offered_flits() - rate * m as f64 * (1.0 - h / nn)).abs() < 1e-12);
}

/// Nodes that a permutation maps onto themselves send nothing (paper 002 divides by N − n₀),
/// and since the others' destinations are the other nodes, receive nothing: their injection
/// and ejection rates are exactly 0, every other node's are λ; offered_flits = λ·M·(N − n₀)/N
/// and accepted_flits matches it.
#[test]
fn fixed_points_inject_and_eject_nothing() {
    let (m, rate, w) = (2u32, 0.02, 20_000u64);
    // Bit-reversal on a 6-cube: the 8 palindromes are fixed. A seeded permutation: the first
    // seed from 1 whose permutation has at least 2 fixed points.
    let bitrev = cube_scenario(N, "pattern = \"bit-reversal\"", 1, m, rate, 1000, w, 61);
    let perm_seed = (1..1000)
        .find(|&seed| {
            let s = cube_scenario(N, "pattern = \"permutation\"", 2, m, rate, 1000, w, seed);
            let topo = Network::for_scenario(&s).cube().clone();
            let t = Traffic::new(&s.traffic, flitsim::traffic::Addresses::of(&topo), seed);
            (0..NODES).filter(|&v| t.distribution(v).is_empty()).count() >= 2
        })
        .expect("no seed below 1000 gives a permutation with 2 fixed points");
    let perm = cube_scenario(
        N,
        "pattern = \"permutation\"",
        2,
        m,
        rate,
        1000,
        w,
        perm_seed,
    );
    for (name, s, seed) in [
        ("bit-reversal", bitrev, 61),
        ("permutation", perm, perm_seed),
    ] {
        let net = Network::for_scenario(&s);
        let t = Traffic::new(
            &s.traffic,
            flitsim::traffic::Addresses::of(net.cube()),
            seed,
        );
        let fixed: Vec<u32> = (0..NODES)
            .filter(|&v| t.distribution(v).is_empty())
            .collect();
        if name == "bit-reversal" {
            let pal: Vec<u32> = (0..NODES)
                .filter(|&v| (0..N).all(|i| (v >> i) & 1 == (v >> (N - 1 - i)) & 1))
                .collect();
            assert_eq!(fixed, pal);
        }
        let r = run(&s, rate, seed);
        let wf = w as f64;
        for v in 0..NODES {
            let u = v as usize;
            if fixed.contains(&v) {
                assert_eq!(r.node_inj_msgs[u], 0.0, "{name}: fixed point {v} injects");
                assert_eq!(r.node_inj_flits[u], 0.0, "{name}: fixed point {v} injects");
                assert_eq!(r.node_ej_msgs[u], 0.0, "{name}: fixed point {v} receives");
                assert_eq!(r.node_ej_flits[u], 0.0, "{name}: fixed point {v} receives");
            } else {
                let mu = rate * wf;
                within(
                    &format!("{name} node {v} inj"),
                    r.node_inj_msgs[u] * wf,
                    mu,
                    mu,
                );
                within(
                    &format!("{name} node {v} ej"),
                    r.node_ej_msgs[u] * wf,
                    mu,
                    mu,
                );
            }
        }
        let sent = (NODES as usize - fixed.len()) as f64;
        let frac = sent / NODES as f64;
        assert!((r.offered_fraction - frac).abs() < 1e-12, "{name}");
        assert!(
            (r.offered_flits() - rate * m as f64 * frac).abs() < 1e-12,
            "{name}"
        );
        // Accepted flits: M × the headers ejected in the window, a Poisson count (up to the
        // difference between the messages in flight at the window's two ends, ~λ·N·latency,
        // small against the standard deviation).
        let nw = NODES as f64 * wf;
        let sd = m as f64 * (rate * sent * wf).sqrt() / nw;
        let z = (r.accepted_flits - r.offered_flits()) / sd;
        assert!(
            z.abs() < 5.0,
            "{name}: accepted {} vs offered {} (z = {z:.2})",
            r.accepted_flits,
            r.offered_flits()
        );
        println!(
            "{name} (seed {seed}): fixed points {fixed:?}, offered_flits {} = λM·{sent}/64, \
             accepted {:.5} (z = {z:.2})",
            r.offered_flits(),
            r.accepted_flits
        );
    }
}

/// channels.csv and nodes.csv of a hotspot run on a 4-cube: every row's hypercube columns
/// (src_weight = Hamming weight of the source address, bit_dir 0->1 when the channel sets its
/// bit, dim = the bit, 0-based: paper 002's dimension j is dim + 1), its hotspot columns
/// (hotspot_distance = Hamming distance of the channel's source from the hot node,
/// toward_hotspot when its destination is one hop closer), and its rates.
#[test]
fn channels_and_nodes_csv_columns() {
    let hot = 6u32;
    let s = cube_scenario(4, &hotspot_lines(hot, 0.5), 1, 2, 0.02, 200, 2000, 71);
    let net = Network::for_scenario(&s);
    let r = run(&s, 0.02, 71);
    let csv = flitsim::output::channels_csv(std::slice::from_ref(&r), &net, &s.traffic.pattern);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), net.links as usize);
    for row in &rows {
        let c: usize = row[col("channel")].parse().unwrap();
        let l = net.topology.listed_links().nth(c).unwrap();
        let (src, dst): (u32, u32) = (
            row[col("src")].parse().unwrap(),
            row[col("dst")].parse().unwrap(),
        );
        assert_eq!((src, dst), (l.src, l.dst));
        let bit = (src ^ dst).trailing_zeros();
        assert_eq!((src ^ dst).count_ones(), 1);
        assert_eq!(row[col("dim")], bit.to_string());
        assert_eq!(row[col("src_weight")], src.count_ones().to_string());
        let dir = if dst & (1 << bit) != 0 {
            "0->1"
        } else {
            "1->0"
        };
        assert_eq!(row[col("bit_dir")], dir);
        assert_eq!(row[col("hotspot_distance")], dist(src, hot).to_string());
        let tw = dist(dst, hot) < dist(src, hot);
        assert_eq!(row[col("toward_hotspot")], tw.to_string());
        let msgs: f64 = row[col("messages_per_cycle")].parse().unwrap();
        assert_eq!(msgs, r.link_msgs[c]);
        let flits: f64 = row[col("flits_per_cycle")].parse().unwrap();
        assert_eq!(flits, r.link_flits[c]);
    }
    let nodes = flitsim::output::nodes_csv(std::slice::from_ref(&r));
    let mut lines = nodes.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 16);
    for row in &rows {
        let v: usize = row[col("node")].parse().unwrap();
        for (name, x) in [
            ("injected_messages", r.node_inj_msgs[v]),
            ("injected_flits", r.node_inj_flits[v]),
            ("ejected_messages", r.node_ej_msgs[v]),
            ("ejected_flits", r.node_ej_flits[v]),
        ] {
            assert_eq!(row[col(name)].parse::<f64>().unwrap(), x, "node {v} {name}");
        }
    }
    // The hot node ejects the most: λ(15h + 1 − h) = 0.16 vs λ(1 − h) = 0.01 messages/cycle.
    let hot_ej = r.node_ej_msgs[hot as usize];
    assert!((0..16).all(|v| v == hot as usize || r.node_ej_msgs[v] < hot_ej / 4.0));
}
