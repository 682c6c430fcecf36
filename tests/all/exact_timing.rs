//! Router delay D (`[router] delay`), link latency L (`[topology] link_latency`) and the
//! per-port crossbar (`[router] crossbar`) against exact facts derived here (src/engine/
//! timing.rs states the rules):
//! - zero load, buffers of at least 2L flits: an h-hop message of M flits has network latency
//!   exactly M + h + (h + 1)·D + h·(L − 1), on every topology kind (h + 1 routers each hold
//!   the header D cycles more; each link takes L − 1 cycles more);
//! - buffers shallower than the credit round trip (depth d < 2L, D = 0): a flit sent over a
//!   link in cycle s arrives at the end of s + L − 1 and leaves at s + L at the earliest, and
//!   its credit is usable from its departure + L, so the first link passes d flits per 2L
//!   cycles and flit i crosses it in cycle t0 + 1 + ⌊i/d⌋·2L + (i mod d); every later link and
//!   the ejection channel follow L cycles apart, so the tail is ejected at
//!   t0 + 1 + h·L + ⌊(M−1)/d⌋·2L + (M−1) mod d (d = 1, L = 1: 2M − 1 + h, the papers' case);
//! - per-port crossbar: an input port sends at most one flit per cycle.

use crate::common::Topo;
use flitsim::Scenario;
use flitsim::engine::{Delivery, Engine, build_engine};

/// A network under test: its `[topology]` lines, node count and hop counts (computed here).
struct Net {
    toml: String,
    nodes: u32,
    hops: Box<dyn Fn(u32, u32) -> u64>,
    name: String,
}

fn cube(t: Topo) -> Net {
    let c = t.clone();
    Net {
        toml: t.toml(),
        nodes: t.nodes(),
        hops: Box::new(move |a, b| c.dist(a, b) as u64),
        name: format!("{:?} {:?}", t.shape, t.radix),
    }
}

/// A HyperX: one hop per differing coordinate.
fn hyperx(radix: &[u32]) -> Net {
    let r = radix.to_vec();
    let k: Vec<String> = r.iter().map(|k| k.to_string()).collect();
    Net {
        toml: format!("[topology]\nkind = \"hyperx\"\nk = [{}]\n", k.join(", ")),
        nodes: r.iter().product(),
        hops: Box::new(move |mut a, mut b| {
            let mut h = 0;
            for &k in &r {
                h += (a % k != b % k) as u64;
                a /= k;
                b /= k;
            }
            h
        }),
        name: format!("hyperx {radix:?}"),
    }
}

/// An engine without sources on `net`, with the router and link timing given.
fn engine(net: &Net, vcs: u32, depth: u32, delay: u32, latency: u32, crossbar: &str) -> Engine {
    let text = format!(
        "name = \"timing-test\"\n{}link_latency = {latency}\n[router]\nvcs = {vcs}\n\
         buffer_depth = {depth}\ndelay = {delay}\ncrossbar = \"{crossbar}\"\n[traffic]\n\
         message_length = 4\nrates = [0.001]\n",
        net.toml
    );
    let s = Scenario::from_toml(&text, "timing-test.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"));
    let mut e = build_engine(&s, 0.0, 1);
    e.log_deliveries = true;
    e
}

/// One message alone in the network, stepped until delivered and every credit is back.
fn single(e: &mut Engine, src: u32, dst: u32, m: u16) -> Delivery {
    assert!(e.settled());
    e.deliveries.clear();
    e.send(src, dst, m);
    let cap = e.cycle + 100_000;
    while e.deliveries.is_empty() {
        assert!(e.cycle < cap, "{src}->{dst} M={m} not delivered");
        e.step();
    }
    while !e.settled() {
        e.step();
    }
    e.deliveries[0]
}

fn nets() -> Vec<(Net, u32)> {
    vec![
        (cube(Topo::mesh(&[4, 3])), 1),
        (cube(Topo::uni_torus(4, 2)), 2),
        (cube(Topo::bi_torus(4, 2)), 2),
        (cube(Topo::bi_torus(5, 2)), 2),
        (cube(Topo::hypercube(4)), 1),
        (hyperx(&[3, 4]), 1),
    ]
}

#[test]
fn zero_load_latency_is_m_plus_h_plus_router_and_link_cycles() {
    for (net, vcs) in nets() {
        for (delay, latency) in [(0, 1), (1, 1), (3, 1), (0, 2), (0, 5), (2, 3), (4, 4)] {
            let depth = 2 * latency;
            let mut e = engine(&net, vcs, depth, delay, latency, "per-vc");
            for src in 0..net.nodes {
                for dst in (0..net.nodes).filter(|&d| d != src) {
                    let h = (net.hops)(src, dst);
                    for m in [1u16, 2, 7] {
                        let d = single(&mut e, src, dst, m);
                        let (dl, l) = (delay as u64, latency as u64);
                        let want = m as u64 + h + (h + 1) * dl + h * (l - 1);
                        assert_eq!(
                            d.eject - d.inject,
                            want,
                            "{} D={delay} L={latency} {src}->{dst} M={m} h={h}",
                            net.name
                        );
                        assert_eq!(d.hops as u64, h);
                    }
                }
            }
        }
    }
}

#[test]
fn buffers_shallower_than_the_round_trip_throttle_a_message() {
    for (net, vcs) in nets() {
        for (latency, depth) in [(1, 1), (2, 1), (2, 3), (3, 2), (4, 5), (5, 1)] {
            let mut e = engine(&net, vcs, depth, 0, latency, "per-vc");
            let (l, d) = (latency as u64, depth as u64);
            for (src, dst) in [(0, net.nodes - 1), (1, 0), (net.nodes - 1, 2)] {
                let h = (net.hops)(src, dst);
                for m in [1u16, 2, 5, 12] {
                    let i = m as u64 - 1;
                    let want = 1 + h * l + i / d * 2 * l + i % d;
                    let got = single(&mut e, src, dst, m);
                    assert_eq!(
                        got.eject - got.inject,
                        want,
                        "{} L={latency} depth={depth} {src}->{dst} M={m} h={h}",
                        net.name
                    );
                }
            }
        }
    }
}

/// The timing keys out of range, unknown, or where the engine keeps the papers' timing: one
/// line naming the key and the fix, exit 2.
#[test]
fn timing_keys_are_refused_by_name() {
    let mesh = "[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n";
    let mway = "[topology]\nkind = \"mway\"\nk = 4\nn = 2\nwrap = \"torus\"\n";
    for (topology, extra_topology, router, key, words) in [
        (mesh, "", "delay = 101", "[router] delay", "from 0 to 100"),
        (
            mesh,
            "link_latency = 0",
            "",
            "[topology] link_latency",
            "from 1 to 100",
        ),
        (
            mesh,
            "",
            "crossbar = \"shared\"",
            "[router] crossbar",
            "\"per-vc\" or \"per-port\"",
        ),
        (mway, "", "delay = 1", "[router] delay", "paper 004"),
        (
            mway,
            "link_latency = 2",
            "",
            "[topology] link_latency",
            "paper 004",
        ),
        (
            mway,
            "",
            "crossbar = \"per-port\"",
            "[router] crossbar",
            "paper 004",
        ),
        (
            mesh,
            "link_latency = 2",
            "early_free = true",
            "[topology] link_latency",
            "early_free",
        ),
    ] {
        let text = format!(
            "name = \"t\"\n{topology}{extra_topology}\n[router]\n{router}\n[traffic]\nrates = [0.001]\n"
        );
        let (code, err) = crate::common::flitsim_check(&text, "timing-keys");
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(err.lines().count() == 1 && err.contains(key), "{err}");
        assert!(
            err.contains(words) && err.contains("; fix: "),
            "{words:?} missing: {err}"
        );
    }
    let ok = format!(
        "name = \"t\"\n{mesh}link_latency = 3\n[router]\ndelay = 2\ncrossbar = \"per-port\"\n[traffic]\nrates = [0.001]\n"
    );
    assert_eq!(crate::common::flitsim_check(&ok, "timing-keys").0, Some(0));
}

/// `check` names the timing options and the torus conventions a scenario resolves to.
#[test]
fn check_names_the_timing_and_the_torus_conventions() {
    let stdout = |text: &str| {
        let tmp = crate::common::temp_dir("timing-check");
        let f = tmp.path().join("s.toml");
        std::fs::write(&f, text).unwrap();
        let (code, out, err) = crate::common::check_file(&f, &[]);
        assert_eq!(code, Some(0), "{err}");
        out
    };
    let mesh = "name = \"t\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\nlink_latency = 3\n\
                [router]\ndelay = 2\ncrossbar = \"per-port\"\n[traffic]\nrates = [0.001]\n";
    assert!(stdout(mesh).contains(
        "router: 2 virtual channels of 4 flits per physical channel, router delay 2 cycle(s), \
         links of 3 cycles, one crossbar input per port"
    ));
    let torus = |links: &str, routing: &str| {
        format!(
            "name = \"t\"\n[topology]\nkind = \"torus\"\nk = 4\nn = 2\nlinks = \"{links}\"\n\
             [router]\nvcs = 3\n[routing]\n{routing}\n[traffic]\nrates = [0.001]\n"
        )
    };
    let bi = stdout(&torus("bidirectional", ""));
    assert!(
        bi.contains("routing: dor, ties random, dateline on-entry\n"),
        "{bi}"
    );
    let papers = stdout(&torus(
        "bidirectional",
        "tie = \"plus\"\ndateline = \"at-wrap\"",
    ));
    assert!(
        papers.contains("routing: dor, ties plus, dateline at-wrap\n"),
        "{papers}"
    );
    let uni = stdout(&torus("unidirectional", ""));
    assert!(uni.contains("routing: dor, dateline at-wrap\n"), "{uni}");
    let duato = stdout(&torus("bidirectional", "algorithm = \"duato\""));
    assert!(
        duato.contains(", ties random (escape class b: dateline by position)\n"),
        "{duato}"
    );
}
