//! The throughput bounds of minimal routing (`model::bound`): exact values derived here by
//! hand, never below the busiest link's exact bound where flitsim has the links' rates, and
//! never exceeded by a simulated point.
//!
//! Notation: N nodes, k the radix of the dimension, λ in flits/node/cycle. Uniform traffic goes
//! to the N − 1 other nodes, so a bound carries a factor (N − 1)/N against the textbook's
//! 4/k (mesh) and 8/k (bidirectional torus), whose traffic includes the source itself.

use crate::common::temp_dir;
use flitsim::Scenario;
use flitsim::engine::run_point;
use flitsim::model::bound::{busiest_link_bound, minimal_routing_bound, throughput_bound};

/// A scenario of 8-flit messages on `topology` with `routing` (a time-out of 8 cycles for
/// `duato-timeout`), V = `vcs`, a 10,000-cycle window after 2,000 of warm-up, and a backlog
/// limit of 1,000 messages per node, so that a point past saturation still reaches its window.
fn scenario(topology: &str, routing: &str, vcs: u32, traffic: &str) -> Scenario {
    let timeout = match routing {
        "duato-timeout" => "\ntimeout = 8",
        _ => "",
    };
    let text = format!(
        "name = \"b\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = 4\n\
         [routing]\nalgorithm = \"{routing}\"{timeout}\n[traffic]\n{traffic}\nmessage_length = 8\n\
         flit_rates = [0.1]\n[run]\nwarmup_cycles = 2000\nmeasure_cycles = 10000\n\
         max_backlog = 1000\n"
    );
    Scenario::from_toml(&text, "b.toml").unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Asserts the minimal-routing bound equals `want` (to rounding) and the reason names `why`.
fn minimal_is(s: &Scenario, want: f64, why: &str) {
    let b = minimal_routing_bound(s).expect("a minimal-routing bound");
    assert!(
        (b.flits - want).abs() <= 1e-12 * want,
        "{} vs {want}",
        b.flits
    );
    assert!(b.why.contains(why), "{}", b.why);
}

/// Meshes: the bisection sets the bound. 8x8 (ADAPTIVE, which has no exact link rates): cutting
/// dimension 0 between columns 3 and 4, λ·32·32/63 flits per cycle cross each way on 8 links,
/// so λ ≤ 8·63/1024 = 63/128 (on average: the 112 links of a dimension carry
/// λ·8²·((8³ − 8)/3)/63 = 170.67λ flit-hops per cycle, λ ≤ 21/32, looser). 6x4 (Duato):
/// dimension 0 cut 3 | 3, 12·12/23 λ across 4 links each way: λ ≤ 23/36; dimension 1 cut
/// 2 | 2, 12·12/23 λ across 6 links: 23/24; the averages 23/28 and 23/20 are looser.
#[test]
fn mesh_bounds_are_the_bisections() {
    let s = scenario("kind = \"mesh\"\nk = 8\nn = 2", "adaptive", 2, "");
    minimal_is(&s, 63.0 / 128.0, "bisection");
    assert_eq!(throughput_bound(&s).unwrap().flits, 63.0 / 128.0);
    let s = scenario("kind = \"mesh\"\nk = [6, 4]", "duato", 2, "");
    minimal_is(&s, 23.0 / 36.0, "middle of dimension 0");
}

/// Unidirectional 5x3 torus (Duato): the 15 links of dimension 0 carry λ·(15/5)²·S/14 flit-hops
/// per cycle, S = Σ over ordered coordinate pairs of the ring distance (b − a) mod 5 = 5·10,
/// so λ·450/14 on 15 links: λ ≤ 7/15 (dimension 1: (15/3)²·9/14 = 225/14 on 15 links, 14/15;
/// the bisections 7/9 and 7/5 are looser). Paper 000's eq. 7, λ·d̄/n on every link, holds only
/// with one radix (here the links of dimension 0 carry 2.1429λ messages per cycle and those of
/// dimension 1 1.0714λ; simulated at λ = 0.0125: 0.0267 and 0.0132), so flitsim gives these no
/// exact link rates. On the 8-ary 2-cube eq. 7 and the average agree: λ·(7/2)·(64/63) on each
/// link, 9/32.
#[test]
fn a_unidirectional_torus_is_bound_by_its_average_link() {
    let s = scenario(
        "kind = \"torus\"\nk = [5, 3]\nlinks = \"unidirectional\"",
        "duato",
        3,
        "",
    );
    minimal_is(&s, 7.0 / 15.0, "average link of dimension 0");
    assert_eq!(busiest_link_bound(&s), None);
    assert_eq!(throughput_bound(&s), minimal_routing_bound(&s));
    let s = scenario(
        "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"unidirectional\"",
        "duato",
        3,
        "",
    );
    minimal_is(&s, 9.0 / 32.0, "average link");
    let exact = busiest_link_bound(&s).unwrap().flits;
    assert!((exact - 9.0 / 32.0).abs() < 1e-12, "{exact}");
}

/// The bidirectional 8-ary 2-cube (Duato): under uniform traffic each dimension's 128 links
/// carry λ·8²·8·16/63 flit-hops per cycle (the ring distances of a line sum to 8·⌊64/4⌋), so
/// λ ≤ 8·63/(8·64) = 63/64, as the bisection. Under tornado (a → a + 3 mod 8) every message
/// goes 3 hops + in each dimension, 192λ on the 64 links going +: λ ≤ 1/3, where dimension
/// order's busiest link is too (each + link carries 3λ).
#[test]
fn a_bidirectional_torus_is_bound_by_the_way_its_messages_go() {
    let topo = "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"";
    minimal_is(
        &scenario(topo, "duato", 3, ""),
        63.0 / 64.0,
        "link of dimension 0",
    );
    let tornado = "pattern = \"tornado\"";
    minimal_is(
        &scenario(topo, "duato", 3, tornado),
        1.0 / 3.0,
        "average + link of dimension 0",
    );
    let dor = busiest_link_bound(&scenario(topo, "dor", 3, tornado)).unwrap();
    assert!((dor.flits - 1.0 / 3.0).abs() < 1e-12, "{dor:?}");
}

/// The 6-cube (Duato): each dimension's 64 links carry λ·32·32·2/63 flit-hops per cycle under
/// uniform traffic (half the pairs differ in the bit), λ ≤ 63/32, above the injection channel's
/// 1; under bit-complement every message crosses one link of each dimension, 64λ on 64 links:
/// exactly 1.
#[test]
fn hypercube_bounds() {
    let s = scenario("kind = \"hypercube\"\nn = 6", "duato", 2, "");
    minimal_is(&s, 63.0 / 32.0, "average link");
    let b = throughput_bound(&s).unwrap();
    assert_eq!((b.flits, b.why.contains("injection")), (1.0, true));
    let s = scenario(
        "kind = \"hypercube\"\nn = 6",
        "duato",
        2,
        "pattern = \"bit-complement\"",
    );
    minimal_is(&s, 1.0, "average link");
}

/// HyperX (dimension order): 8x8, each dimension's 64·7 links carry λ·64·56/63 flit-hops (the
/// pairs that differ in the coordinate), λ ≤ 63/8; the bisection is the same: λ·32·32/63 flits
/// per cycle each way on 128 links (4·4 per line). Under tornado (a → a + 3 mod 8) every
/// message crosses one link of each dimension, towards the higher coordinate from a = 0..4:
/// 40λ on the 224 links going +, 28/5 (the dimension's 448 links: 7). The 4x3 HyperX's
/// dimension 1: 24 links, λ·16·6/11: 11/4. HyperX links never bind before the injection
/// channel.
#[test]
fn hyperx_bounds() {
    let s = scenario("kind = \"hyperx\"\nk = 8\nn = 2", "dor", 2, "");
    minimal_is(&s, 63.0 / 8.0, "dimension 0");
    assert_eq!(throughput_bound(&s).unwrap().flits, 1.0);
    let s = scenario(
        "kind = \"hyperx\"\nk = 8\nn = 2",
        "dor",
        2,
        "pattern = \"tornado\"",
    );
    minimal_is(&s, 28.0 / 5.0, "average + link of dimension 0");
    let s = scenario("kind = \"hyperx\"\nk = [4, 3]", "dor", 2, "");
    minimal_is(&s, 11.0 / 4.0, "dimension 1");
}

/// The 4-ary 2-cube m-way torus, a processor on each channel: a message crosses one channel
/// more than the routers it passes, on average 1 + 2·1·16/15 = 47/15 (the bidirectional 4x4
/// torus's mean distance over distinct pairs, plus one), so 16 processors put 16·47/15 λ on
/// 16 channels: λ ≤ 15/47. The same under a hotspot of h = 0, counted pair by pair.
#[test]
fn mway_bound_is_the_average_channel() {
    let topo = "kind = \"mway\"\nk = 4\nn = 2";
    let s = scenario(topo, "dor", 2, "");
    minimal_is(&s, 15.0 / 47.0, "m-way channel");
    let s = scenario(
        topo,
        "dor",
        2,
        "pattern = \"hotspot\"\nhotspot_node = 3\nhotspot_fraction = 0",
    );
    minimal_is(&s, 15.0 / 47.0, "m-way channel");
}

/// `flitsim check` on the 64x64 bidirectional torus with Duato's routing, which has no exact
/// link rates: every link of a dimension carries on average λ·(4096/64)²·64·1024/4095 / 8192,
/// so λ ≤ 8·4095/(64·4096) = 4095/32768 = 0.124969 (the bisection's 8/k with (N − 1)/N), 0.1250
/// as printed. A point at 0.2 flits/node/cycle lies past it.
#[test]
fn check_bounds_duato_on_the_64x64_torus() {
    let s = scenario(
        "kind = \"torus\"\nk = 64\nn = 2\nlinks = \"bidirectional\"",
        "duato",
        3,
        "",
    );
    assert_eq!(throughput_bound(&s).unwrap().flits, 4095.0 / 32768.0);
    let tmp = temp_dir("bound-64");
    let f = tmp.path().join("t.toml");
    std::fs::write(
        &f,
        "name = \"t\"\n[topology]\nkind = \"torus\"\nk = 64\nn = 2\nlinks = \"bidirectional\"\n\
         [router]\nvcs = 3\n\
         [routing]\nalgorithm = \"duato\"\n[traffic]\nmessage_length = 16\nflit_rates = [0.2]\n",
    )
    .unwrap();
    let (code, out, err) = crate::common::check_file(&f, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.contains("throughput bound: 0.1250 flits/node/cycle (the average link of dimension 0"),
        "{out}"
    );
}

/// Every scenario with exact link rates (dimension order by enumeration, any pattern; p-cube and
/// Duato under uniform traffic): the busiest link carries at least the average of its kind and,
/// under uniform traffic, of the links across a bisection, so the minimal-routing bound is
/// never below the busiest link's; and the throughput bound is the lowest of them.
#[test]
fn minimal_routing_bounds_never_undercut_the_exact_busiest_link() {
    let topologies = [
        "kind = \"mesh\"\nk = [4, 4]",
        "kind = \"mesh\"\nk = [5, 3]",
        "kind = \"mesh\"\nk = 8\nn = 2",
        "kind = \"torus\"\nk = [4, 4]\nlinks = \"unidirectional\"",
        "kind = \"torus\"\nk = [5, 3]\nlinks = \"unidirectional\"",
        "kind = \"torus\"\nk = 8\nn = 1\nlinks = \"unidirectional\"",
        "kind = \"torus\"\nk = [4, 4]\nlinks = \"bidirectional\"",
        "kind = \"torus\"\nk = [5, 5]\nlinks = \"bidirectional\"",
        "kind = \"torus\"\nk = [6, 4]\nlinks = \"bidirectional\"",
        "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"",
        "kind = \"hypercube\"\nn = 4",
        "kind = \"hypercube\"\nn = 6",
    ];
    let patterns = [
        "",
        "pattern = \"bit-complement\"",
        "pattern = \"tornado\"",
        "pattern = \"neighbor\"",
        "pattern = \"permutation\"",
        "pattern = \"matrix-transpose\"",
        "pattern = \"bit-reversal\"",
        "pattern = \"hotspot\"\nhotspot_node = 1\nhotspot_fraction = 0.3",
        "pattern = \"locality\"\nlocality_factor = 0.5",
        "pattern = \"matrix-transpose\"\npattern_fraction = 0.5",
    ];
    let mut checked = 0;
    let mut check = |s: &Scenario, what: &str| {
        let exact = busiest_link_bound(s).unwrap_or_else(|| panic!("{what}: no link rates"));
        let minimal = minimal_routing_bound(s).unwrap();
        assert!(
            minimal.flits >= exact.flits * (1.0 - 1e-12),
            "{what}: {minimal:?} below {exact:?}"
        );
        let b = throughput_bound(s).unwrap();
        assert!(b.flits <= exact.flits.min(minimal.flits).min(1.0), "{what}");
        checked += 1;
    };
    for topo in topologies {
        for pattern in patterns {
            for tie in ["plus", "random"] {
                let text = format!(
                    "name = \"b\"\n[topology]\n{topo}\n[router]\nvcs = 2\n[routing]\n\
                     tie = \"{tie}\"\n[traffic]\n{pattern}\nmessage_length = 8\n\
                     flit_rates = [0.1]\n"
                );
                // Patterns a network refuses (bit-reversal and transpose off powers of two).
                if let Ok(s) = Scenario::from_toml(&text, "b.toml") {
                    check(&s, &format!("dor {topo} {pattern} tie {tie}"));
                }
            }
        }
        for routing in ["pcube", "duato", "duato-timeout"] {
            // Paper 000's eq. 7 on unidirectional tori of one radix and hypercubes; p-cube on
            // hypercubes.
            let one_radix = !topo.contains("[5, 3]");
            let uni = one_radix && topo.contains("unidirectional") || topo.contains("hypercube");
            if uni && (routing != "pcube" || topo.contains("hypercube")) {
                let s = scenario(topo, routing, 3, "");
                check(&s, &format!("{routing} {topo}"));
            }
        }
    }
    assert!(checked >= 150, "{checked} scenarios checked");
}

/// Simulated points past their bound (1 flit/node/cycle offered, or 1.5 times the bound)
/// accept no more than it: meshes, tori, a HyperX under tornado, an m-way torus, with
/// adaptive and deterministic minimal routings.
#[test]
fn no_simulated_point_accepts_more_than_the_bound() {
    let cases = [
        ("kind = \"mesh\"\nk = [4, 4]", "adaptive", 2, ""),
        ("kind = \"mesh\"\nk = 8\nn = 2", "duato", 2, ""),
        (
            "kind = \"torus\"\nk = 16\nn = 1\nlinks = \"bidirectional\"",
            "duato",
            3,
            "",
        ),
        (
            "kind = \"torus\"\nk = [5, 3]\nlinks = \"unidirectional\"",
            "duato",
            3,
            "",
        ),
        (
            "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"",
            "adaptive-ring",
            3,
            "pattern = \"tornado\"",
        ),
        (
            "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"",
            "dor-ring",
            2,
            "",
        ),
        (
            "kind = \"hyperx\"\nk = [4, 3]",
            "dor",
            2,
            "pattern = \"tornado\"",
        ),
        ("kind = \"mway\"\nk = 4\nn = 2", "dor-ring", 2, ""),
    ];
    for (topo, routing, vcs, traffic) in cases {
        let s = scenario(topo, routing, vcs, traffic);
        let bound = throughput_bound(&s).unwrap().flits;
        let offered = (1.5 * bound).min(1.0);
        let r = run_point(&s, offered / 8.0, 1).unwrap();
        assert!(
            r.accepted_flits <= bound,
            "{routing} on {topo} {traffic}: accepted {} above the bound {bound}",
            r.accepted_flits
        );
    }
}
