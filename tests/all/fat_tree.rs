//! The fat tree (k-ary n-tree) with nearest-common-ancestor routing. The facts here are
//! computed in this file from the processors' and switches' base-k digits and by breadth-first
//! search over the built links, never by the library: switch (l, w) is router l·k^(n-1) + w,
//! processor p sits on leaf switch p / k, switch (l, w) links up to the switches of level l + 1
//! whose labels differ from w at most in digit l. A message from a to b crosses 2L links, L the
//! highest digit in which a and b differ (0 on one leaf switch), and at zero load takes exactly
//! M + 2L cycles; the routing is deadlock-free far past saturation with one virtual channel.

use crate::common::{one_message, run_past_saturation};
use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine, run_point};
use flitsim::routing::{Candidates, Routing};
use std::collections::VecDeque;

/// The (k, n) the structural and zero-load tests cover.
const TREES: [(u32, u32); 6] = [(2, 1), (2, 2), (2, 3), (4, 2), (4, 3), (3, 3)];

/// Digit i of x in base k (digit 0 least significant).
fn digit(x: u32, i: u32, k: u32) -> u32 {
    x / k.pow(i) % k
}

/// The highest digit in which processors a and b differ: their nearest common ancestors'
/// level (0 when they share a leaf switch).
fn nca(k: u32, n: u32, a: u32, b: u32) -> u32 {
    (0..n)
        .rev()
        .find(|&i| digit(a, i, k) != digit(b, i, k))
        .unwrap_or(0)
}

/// Links a message from processor a to processor b crosses.
fn hops(k: u32, n: u32, a: u32, b: u32) -> u32 {
    2 * nca(k, n, a, b)
}

fn scenario(k: u32, n: u32, vcs: u32, depth: u32, up: &str, traffic: &str, run: &str) -> Scenario {
    let text = format!(
        "name = \"fat-tree-test\"\n[topology]\nkind = \"fat-tree\"\nk = {k}\nn = {n}\n[router]\n\
         vcs = {vcs}\nbuffer_depth = {depth}\n[routing]\nalgorithm = \"nca\"\nup = \"{up}\"\n\
         [traffic]\n{traffic}\n[run]\n{run}\n"
    );
    Scenario::from_toml(&text, "fat-tree-test.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// An engine without sources: messages enter only through `Engine::send`.
fn quiet(k: u32, n: u32, vcs: u32, depth: u32, up: &str) -> Engine {
    let s = scenario(
        k,
        n,
        vcs,
        depth,
        up,
        "message_length = 1\nrates = [0.001]",
        "",
    );
    let mut e = build_engine(&s, 0.0, 1);
    e.log_deliveries = true;
    e
}

/// Router distances by breadth-first search over the built links: `d[a][b]`.
fn bfs_distances(e: &Engine) -> Vec<Vec<u32>> {
    let r = e.net.routers();
    let mut adj = vec![Vec::new(); r];
    for l in e.net.topology.links() {
        adj[l.src as usize].push(l.dst as usize);
    }
    (0..r)
        .map(|s| {
            let mut d = vec![u32::MAX; r];
            d[s] = 0;
            let mut q = VecDeque::from([s]);
            while let Some(v) = q.pop_front() {
                for &w in &adj[v] {
                    if d[w] == u32::MAX {
                        d[w] = d[v] + 1;
                        q.push_back(w);
                    }
                }
            }
            d
        })
        .collect()
}

/// Switch counts, each link's ends (up port j of (l, w) to (l + 1, w with digit l = j) and the
/// reverse, `dim` the lower level, `+` up), every switch's degree, every leaf's k processors,
/// the topology's distances against breadth-first search, and the properties.
#[test]
fn switches_links_and_properties_are_the_k_ary_n_tree() {
    for (k, n) in TREES {
        let e = quiet(k, n, 1, 2, "deterministic");
        let ctx = format!("{k}-ary {n}-tree");
        let s = k.pow(n - 1);
        let procs = k.pow(n);
        assert_eq!(e.net.routers() as u32, n * s, "{ctx}: switches");
        assert_eq!(e.net.nodes, procs, "{ctx}: processors");
        let links = e.net.topology.links();
        assert_eq!(links.len() as u32, 2 * (n - 1) * procs, "{ctx}: links");
        let mut seen = std::collections::HashSet::new();
        let (mut up, mut down) = (vec![0u32; (n * s) as usize], vec![0u32; (n * s) as usize]);
        for l in links {
            assert!(seen.insert((l.src, l.dst)), "{ctx}: parallel links {l:?}");
            let (lo, hi) = match l.dir {
                flitsim::topology::Dir::Plus => (l.src, l.dst),
                flitsim::topology::Dir::Minus => (l.dst, l.src),
            };
            let (ll, wl, lh, wh) = (lo / s, lo % s, hi / s, hi % s);
            assert_eq!((lh, l.dim as u32), (ll + 1, ll), "{ctx}: {l:?} levels");
            assert!(!l.wrap, "{ctx}: {l:?}");
            for i in (0..n - 1).filter(|&i| i != ll) {
                assert_eq!(digit(wl, i, k), digit(wh, i, k), "{ctx}: {l:?} digit {i}");
            }
            match l.dir {
                flitsim::topology::Dir::Plus => up[l.src as usize] += 1,
                flitsim::topology::Dir::Minus => down[l.src as usize] += 1,
            }
        }
        for r in 0..n * s {
            let level = r / s;
            let want_up = if level + 1 < n { k } else { 0 };
            let want_down = if level > 0 { k } else { 0 };
            assert_eq!(
                (up[r as usize], down[r as usize]),
                (want_up, want_down),
                "{ctx}: switch {r} ports"
            );
        }
        for p in 0..procs {
            assert_eq!(e.net.proc_at[p as usize], p / k, "{ctx}: leaf of {p}");
        }
        for leaf in 0..s {
            let on = e.net.proc_at.iter().filter(|&&r| r == leaf).count();
            assert_eq!(on as u32, k, "{ctx}: processors on leaf {leaf}");
        }
        let d = bfs_distances(&e);
        for a in 0..n * s {
            for b in 0..n * s {
                assert_eq!(
                    e.net.topology.distance(a, b),
                    d[a as usize][b as usize],
                    "{ctx}: distance {a} -> {b}"
                );
            }
        }
        let p = e.net.topology.properties();
        assert_eq!(
            (p.processors, p.routers, p.channels),
            (procs as u64, (n * s) as u64, links.len() as u64),
            "{ctx}"
        );
        let most = (0..n * s).map(|r| up[r as usize] + down[r as usize]).max();
        assert_eq!(Some(p.degree), most, "{ctx}: degree");
        let pairs: Vec<u32> = (0..procs)
            .flat_map(|a| (0..procs).filter(move |&b| b != a).map(move |b| (a, b)))
            .map(|(a, b)| d[(a / k) as usize][(b / k) as usize])
            .collect();
        assert_eq!(p.diameter, *pairs.iter().max().unwrap(), "{ctx}: diameter");
        assert_eq!(p.diameter, 2 * (n - 1), "{ctx}: diameter");
        let mean = pairs.iter().sum::<u32>() as f64 / pairs.len() as f64;
        assert!((p.mean_distance - mean).abs() < 1e-12, "{ctx}: mean");
    }
}

/// Every candidate the routing offers brings the header one link nearer its destination's leaf
/// switch (by breadth-first search), adaptive up ports offer all k and deterministic ones the
/// destination's digit; the deterministic walk crosses exactly 2L links, climbing then
/// descending.
#[test]
fn routing_is_minimal_up_then_down() {
    for (k, n) in TREES {
        for up in ["deterministic", "adaptive"] {
            let e = quiet(k, n, 2, 2, up);
            let s = scenario(k, n, 2, 2, up, "rates = [0.001]", "");
            let routing = Routing::new(&s, &e.net);
            let d = bfs_distances(&e);
            let mut out = Candidates::default();
            let procs = k.pow(n);
            let per_level = k.pow(n - 1);
            for a in 0..procs {
                for b in (0..procs).filter(|&b| b != a) {
                    let ctx = format!("{k}-ary {n}-tree up = {up}: {a} -> {b}");
                    let (mut at, tgt) = (a / k, b / k);
                    let mut walked = Vec::new();
                    while at != tgt {
                        routing.route(&e.net, at, b, 0, 0, 0, &mut out);
                        let cands = out.as_slice();
                        let climbing = d[at as usize][tgt as usize] > at / per_level;
                        let want = if climbing && up == "adaptive" { k } else { 1 };
                        assert_eq!(cands.len() as u32, want, "{ctx}: at {at}");
                        for c in cands {
                            let next = e.net.link(c.chan).dst;
                            assert_eq!(
                                d[next as usize][tgt as usize] + 1,
                                d[at as usize][tgt as usize],
                                "{ctx}: candidate {c:?} at {at}"
                            );
                            assert_eq!((c.vc_lo, c.vc_hi, c.tier), (0, 2, 0), "{ctx}");
                        }
                        let link = e.net.link(cands[0].chan);
                        if up == "deterministic" && link.dir == flitsim::topology::Dir::Plus {
                            // d-mod-k: up from level l by the destination's digit l.
                            let l = at / per_level;
                            assert_eq!(digit(link.dst % per_level, l, k), digit(b, l, k), "{ctx}");
                        }
                        walked.push(link.dir);
                        at = link.dst;
                    }
                    let h = hops(k, n, a, b) as usize;
                    assert_eq!(walked.len(), h, "{ctx}: hops");
                    let ups = walked
                        .iter()
                        .take_while(|&&w| w == flitsim::topology::Dir::Plus)
                        .count();
                    assert_eq!(2 * ups, h, "{ctx}: up then down");
                    routing.route(&e.net, tgt, b, 0, 0, 0, &mut out);
                    assert_eq!(out.as_slice()[0].chan, e.net.ejection_channel(b), "{ctx}");
                }
            }
        }
    }
}

/// A single M-flit message in an empty fat tree has latency exactly M + h, h = 2L links, for
/// every ordered pair of processors, both up-port choices, one or two virtual channels.
#[test]
fn zero_load_latency_is_m_plus_h() {
    for (k, n) in [(2, 3), (4, 2), (3, 3), (2, 1)] {
        for up in ["deterministic", "adaptive"] {
            for (vcs, depth) in [(1, 2), (2, 4)] {
                let mut e = quiet(k, n, vcs, depth, up);
                let procs = k.pow(n);
                for src in 0..procs {
                    for dst in (0..procs).filter(|&d| d != src) {
                        let h = hops(k, n, src, dst) as u64;
                        for m in [1u16, 5, 16] {
                            // Delivered within 500 cycles, the network empty after it.
                            let (d, _) = one_message(&mut e, src, dst, m);
                            let ctx = format!("{k}-ary {n}-tree {up} V={vcs} {src}->{dst} M={m}");
                            assert_eq!(d.hops as u64, h, "{ctx}: hops");
                            assert_eq!(d.eject - d.created, m as u64 + h, "{ctx}: latency");
                        }
                    }
                }
            }
        }
    }
}

/// Far past saturation with 1- and 2-flit buffers, V = 1 and 2, both up-port choices, the
/// network never freezes (the drained-copy deadlock check stays silent), then drains: every
/// message is delivered once, over its 2L links.
#[test]
fn nca_is_deadlock_free_past_saturation() {
    for (k, n, vcs, depth, up) in [
        (2, 3, 1, 1, "deterministic"),
        (2, 3, 1, 1, "adaptive"),
        (3, 3, 1, 2, "adaptive"),
        (4, 2, 2, 1, "deterministic"),
        (4, 3, 2, 2, "adaptive"),
        (4, 3, 1, 2, "deterministic"),
    ] {
        let ctx = format!("{k}-ary {n}-tree V={vcs} depth {depth} {up}");
        let mut e = quiet(k, n, vcs, depth, up);
        run_past_saturation(&mut e, k.pow(n), (0.08, (8, 32)), 2500, (11, 10), &ctx);
        for d in &e.deliveries {
            assert_eq!(d.hops as u32, hops(k, n, d.src, d.dst), "{ctx}: {d:?}");
        }
    }
    // The scenario path past saturation reports saturation, not deadlock.
    let s = scenario(
        4,
        2,
        1,
        1,
        "adaptive",
        "message_length = 16\nrates = [0.06]",
        "warmup_cycles = 500\nmeasure_cycles = 3000\nwatchdog_cycles = 300",
    );
    let r = run_point(&s, 0.06, 3).expect("no deadlock past saturation");
    assert!(r.saturated());
}

/// Uniform, hotspot and permutation traffic run on processor ids: every delivered message
/// crosses its pair's 2L links; the permutation sends each source to one fixed destination
/// and the hot node receives the most.
#[test]
fn uniform_hotspot_and_permutation_traffic() {
    let (k, n) = (3, 3);
    for traffic in [
        "pattern = \"uniform\"",
        "pattern = \"hotspot\"\nhotspot_node = 20\nhotspot_fraction = 0.3",
        "pattern = \"permutation\"",
    ] {
        let s = scenario(
            k,
            n,
            2,
            4,
            "adaptive",
            &format!("{traffic}\nmessage_length = 4\nrates = [0.01]"),
            "",
        );
        let mut e = build_engine(&s, 0.01, 5);
        e.log_deliveries = true;
        for _ in 0..8000 {
            e.step();
        }
        assert!(
            e.deliveries.len() > 1000,
            "{traffic}: {}",
            e.deliveries.len()
        );
        let mut to = vec![0u32; 27];
        let mut dst_of = vec![None; 27];
        for d in &e.deliveries {
            assert_ne!(d.src, d.dst, "{traffic}");
            assert_eq!(d.hops as u32, hops(k, n, d.src, d.dst), "{traffic}: {d:?}");
            to[d.dst as usize] += 1;
            if traffic.contains("permutation") {
                let was = dst_of[d.src as usize].replace(d.dst);
                assert!(was.is_none_or(|w| w == d.dst), "{traffic}: {d:?}");
            }
        }
        if traffic.contains("hotspot") {
            let hot = to[20];
            assert!(
                to.iter().enumerate().all(|(i, &c)| i == 20 || 3 * c < hot),
                "{to:?}"
            );
        }
    }
}

/// A point split across two threads, its boundaries moved (a fat tree lists no router's links,
/// and its processors are not its routers), with the one-pass cycle and its flowing worms,
/// delivers the same messages in the same cycles, with the same channel counters, as one
/// thread.
#[test]
fn a_split_point_on_a_fat_tree_changes_nothing() {
    let s = scenario(
        4,
        3,
        2,
        4,
        "adaptive",
        "message_length = 8\nrates = [0.05]",
        "",
    );
    let run = |threads: usize, moves: &[(u64, u32)]| {
        let mut e = flitsim::engine::build_engine_with(&s, 0.05, 7, |c| {
            c.threads = threads;
            c.prefetch = Some(true);
        });
        assert_eq!(e.threads(), threads);
        e.log_deliveries = true;
        for i in 0..1500 {
            if let Some(&(_, at)) = moves.iter().find(|(c, _)| *c == i) {
                e.repartition(&[0, at]);
            }
            e.step();
            if i % 250 == 0 {
                e.check_invariants().unwrap();
            }
        }
        e.check_invariants().unwrap();
        (e.deliveries.clone(), e.c_flits(), e.c_msgs())
    };
    let one = run(1, &[]);
    assert!(one.0.len() > 2000, "too few deliveries: {}", one.0.len());
    assert!(one == run(2, &[]), "split on a fat tree");
    assert!(
        one == run(2, &[(1, 5), (400, 40), (900, 20)]),
        "boundaries moved"
    );
}

/// Accepted throughput (flits/processor/cycle) of one point at `flits` offered per processor.
fn accepted(up: &str, pattern: &str, flits: f64) -> f64 {
    let rate = flits / 16.0;
    let s = scenario(
        4,
        3,
        4,
        8,
        up,
        &format!("pattern = \"{pattern}\"\nmessage_length = 16\nrates = [{rate:?}]"),
        "warmup_cycles = 2000\nmeasure_cycles = 6000\ndrain_cycles = 2000\nmax_backlog = 1000000",
    );
    run_point(&s, rate, 1).expect("runs").accepted_flits
}

/// A 4-ary 3-tree with V = 4, 8-flit buffers and M = 16 under uniform traffic past saturation
/// accepts at least 0.7 flits/processor/cycle with adaptive up ports; under a random
/// permutation adaptive up ports accept more than deterministic ones.
#[test]
fn adaptive_up_ports_carry_more() {
    let uniform = accepted("adaptive", "uniform", 1.0);
    assert!(uniform >= 0.7, "uniform, adaptive: {uniform}");
    let (det, ada) = (
        accepted("deterministic", "permutation", 1.0),
        accepted("adaptive", "permutation", 1.0),
    );
    assert!(
        ada > det,
        "permutation: adaptive {ada}, deterministic {det}"
    );
}

/// Each refusal is one line naming the key and the fix, exit code 2: k < 2, n < 1, a list of
/// radices, nca on a torus, dor on a fat tree, a coordinate pattern on a fat tree, `up`
/// without nca.
#[test]
fn refusals_name_the_key_and_the_fix() {
    let tree = |k: &str, n: &str, routing: &str, traffic: &str| {
        format!(
            "name = \"f\"\n[topology]\nkind = \"fat-tree\"\nk = {k}\nn = {n}\n[routing]\n{routing}\n\
             [traffic]\nrates = [0.001]\n{traffic}\n"
        )
    };
    let nca = "algorithm = \"nca\"";
    let ok = tree("4", "3", nca, "");
    assert_eq!(crate::common::flitsim_check(&ok, "fat-tree-ok").0, Some(0));
    let torus = "name = \"t\"\n[topology]\nkind = \"torus\"\nk = 4\nn = 2\n[routing]\n\
                 algorithm = \"nca\"\n[traffic]\nrates = [0.001]\n";
    let mesh_up = "name = \"t\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[routing]\n\
                   up = \"adaptive\"\n[traffic]\nrates = [0.001]\n";
    for (text, want) in [
        (tree("1", "3", nca, ""), "[topology] k"),
        (tree("4", "0", nca, ""), "[topology] n"),
        (
            tree("[4, 4]", "2", nca, ""),
            "[topology] k: a fat tree has one k",
        ),
        (
            torus.to_string(),
            "[routing] algorithm: nca routes up and down the levels of a fat tree, not on a torus",
        ),
        (
            tree("4", "3", "algorithm = \"dor\"", ""),
            "[routing] algorithm: dor corrects dimensions",
        ),
        (
            tree("4", "3", nca, "pattern = \"bit-complement\""),
            "[traffic] pattern: \"bit-complement\" is defined on router coordinates",
        ),
        (
            mesh_up.to_string(),
            "[routing] up: only nca chooses up ports",
        ),
    ] {
        let (code, err) = crate::common::flitsim_check(&text, "fat-tree-no");
        assert_eq!(code, Some(2), "{want}: {err}");
        assert!(err.contains(want), "{want}: {err}");
        assert!(err.contains("fix:"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let (_, err) = crate::common::flitsim_check(&tree("4", "3", "algorithm = \"dor\"", ""), "f");
    assert!(err.contains("use algorithm = \"nca\""), "{err}");
}

/// The minimal-routing bound `check` prints counts, per pair of adjacent levels and way, the
/// k^n links and the messages whose nearest common ancestor is above them: N(N − 1) over the
/// most pairs crossing one level under uniform traffic, N over the most sources crossing one
/// under a permutation (its pattern at the scenario's seed).
#[test]
fn throughput_bound_counts_the_links_between_levels() {
    use flitsim::model::bound::{minimal_routing_bound, throughput_bound};
    let (k, n) = (4u32, 3u32);
    let procs = k.pow(n);
    let crossing = |l: u32, dst: &dyn Fn(u32) -> Vec<(u32, f64)>| -> f64 {
        (0..procs)
            .flat_map(|a| dst(a).into_iter().map(move |(b, q)| (a, b, q)))
            .filter(|&(a, b, _)| nca(k, n, a, b) > l)
            .map(|(_, _, q)| q)
            .sum()
    };
    for pattern in ["uniform", "permutation"] {
        let traffic = format!("pattern = \"{pattern}\"\nmessage_length = 16\nflit_rates = [0.5]");
        let s = scenario(k, n, 4, 8, "adaptive", &traffic, "");
        let b = minimal_routing_bound(&s).expect("a fat tree has a bound");
        let want = if pattern == "uniform" {
            let all = |a: u32| -> Vec<(u32, f64)> {
                (0..procs)
                    .filter(|&b| b != a)
                    .map(|b| (b, 1.0 / (procs - 1) as f64))
                    .collect()
            };
            let most = (0..n - 1).map(|l| crossing(l, &all)).fold(0.0, f64::max);
            procs as f64 / most
        } else {
            let net = flitsim::network::Network::for_scenario(&s);
            let addr = flitsim::traffic::Addresses::of_processors(&net.topology);
            let t = flitsim::traffic::Traffic::new(&s.traffic, addr, s.seeds[0]);
            let most = (0..n - 1)
                .map(|l| crossing(l, &|a| t.distribution(a)))
                .fold(0.0, f64::max);
            procs as f64 / most
        };
        assert!(
            (b.flits - want).abs() < 1e-9,
            "{pattern}: {b:?}, want {want}"
        );
        assert!(b.why.contains("link between levels"), "{pattern}: {b:?}");
        let all = throughput_bound(&s).unwrap();
        assert_eq!(all.flits, want.min(1.0), "{pattern}: {all:?}");
    }
}

/// `check` describes the tree (processors on leaf switches, switches, links, diameter between
/// leaf switches, mean distance, up ports and selection) and `info` gives its levels.
#[test]
fn check_and_info_describe_the_tree() {
    let tmp = crate::common::temp_dir("fat-tree-info");
    let f = tmp.path().join("s.toml");
    let text = "name = \"f\"\n[topology]\nkind = \"fat-tree\"\nk = 4\nn = 3\n[routing]\n\
                algorithm = \"nca\"\n[traffic]\nrates = [0.001]\n";
    std::fs::write(&f, text).unwrap();
    let (code, out, err) = crate::common::check_file(&f, &[]);
    assert_eq!(code, Some(0), "{err}");
    for want in [
        "network: fat-tree 4-ary 3-tree, 64 processors (4 on each of 16 leaf switches), 48 switches of 4 ports down and 4 up, 256 links, diameter 4 links between leaf switches, mean distance 3.4286",
        "routing: nca, up ports adaptive, selection least-multiplexed",
    ] {
        assert!(out.contains(want), "{want}\n{out}");
    }
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["info", "--csv"])
        .arg(&f)
        .output()
        .unwrap();
    let info = String::from_utf8_lossy(&o.stdout);
    for row in [
        "topology,fat-tree",
        "radix,4",
        "levels,3",
        "processors,64",
        "routers,48",
        "channels,256",
        "degree,8",
        "diameter,4",
    ] {
        assert!(info.lines().any(|l| l == row), "{row}\n{info}");
    }
}
