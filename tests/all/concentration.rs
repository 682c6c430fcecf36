//! Concentration (`[topology] concentration = c`): c processors on each router of a mesh,
//! torus, hypercube or HyperX, processor i on router ⌊i / c⌋, each with its own injection and
//! ejection channel. The facts here are computed from coordinates in this file: a pair's hops
//! are its routers' distance (none on one router), zero-load latency is exactly M + h, the
//! network's processors, channels and mean distance count every processor, the hop counts of
//! uniform traffic follow the enumeration over processor pairs, a link shared by the c
//! processors of a router saturates at 1/c, and every routing stays deadlock-free.

use crate::common::{chi2_9999, flitsim_check, one_message, run_past_saturation};
use flitsim::Scenario;
use flitsim::engine::{build_engine, run_point};

/// A test network: its `[topology]` keys, radices, wrap and concentration.
#[derive(Clone, Copy, Debug)]
struct Shape {
    kind: &'static str,
    radix: &'static [u32],
    /// Distance along a ring both ways (a bidirectional torus).
    ring: bool,
    c: u32,
}

const SHAPES: [Shape; 4] = [
    Shape {
        kind: "mesh",
        radix: &[4, 3],
        ring: false,
        c: 2,
    },
    Shape {
        kind: "torus",
        radix: &[5, 4],
        ring: true,
        c: 3,
    },
    Shape {
        kind: "hypercube",
        radix: &[2, 2, 2],
        ring: false,
        c: 4,
    },
    Shape {
        kind: "hyperx",
        radix: &[3, 4],
        ring: false,
        c: 2,
    },
];

impl Shape {
    fn routers(&self) -> u32 {
        self.radix.iter().product()
    }

    fn processors(&self) -> u32 {
        self.routers() * self.c
    }

    /// Router `r`'s coordinates, dimension 0 first.
    fn coords(&self, mut r: u32) -> Vec<u32> {
        self.radix
            .iter()
            .map(|&k| {
                let x = r % k;
                r /= k;
                x
            })
            .collect()
    }

    /// Hops between the routers of processors `a` and `b`: per dimension the line distance,
    /// the ring distance both ways on a torus, or 1 where a HyperX's coordinates differ.
    fn hops(&self, a: u32, b: u32) -> u32 {
        let (x, y) = (self.coords(a / self.c), self.coords(b / self.c));
        let radix = self.radix.iter();
        x.iter()
            .zip(&y)
            .zip(radix)
            .map(|((&x, &y), &k)| match (self.kind, self.ring) {
                ("hyperx", _) => (x != y) as u32,
                (_, true) => x.abs_diff(y).min(k - x.abs_diff(y)),
                _ => x.abs_diff(y),
            })
            .sum()
    }

    /// The scenario's `[topology]` table.
    fn topology(&self) -> String {
        let k: Vec<String> = self.radix.iter().map(|k| k.to_string()).collect();
        let (radix, links) = match (self.kind, self.ring) {
            ("hypercube", _) => (format!("n = {}", self.radix.len()), ""),
            (_, true) => (
                format!("k = [{}]", k.join(", ")),
                "links = \"bidirectional\"\n",
            ),
            _ => (format!("k = [{}]", k.join(", ")), ""),
        };
        format!(
            "[topology]\nkind = \"{}\"\n{radix}\n{links}concentration = {}\n",
            self.kind, self.c
        )
    }

    /// A scenario on this network with `routing`, V buffers of `depth` flits and `rest` (the
    /// `[traffic]` and `[run]` tables).
    fn scenario(&self, routing: &str, vcs: u32, depth: u32, rest: &str) -> Scenario {
        let text = format!(
            "name = \"concentration-test\"\n{}[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\
             [routing]\nalgorithm = \"{routing}\"\n{rest}",
            self.topology()
        );
        Scenario::from_toml(&text, "concentration-test.toml")
            .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
    }

    /// The routings a test runs on this network: dimension order, and Duato's (on a HyperX
    /// also UGAL-L).
    fn routings(&self) -> &'static [&'static str] {
        match self.kind {
            "hyperx" => &["dor", "duato", "ugal-l"],
            _ => &["dor", "duato"],
        }
    }
}

/// A light uniform load (the engine's own sources stay silent at rate 0).
const QUIET: &str = "[traffic]\nmessage_length = 4\nrates = [0.001]\n";

/// The network has c·R processors, each on router ⌊i / c⌋ by its own injection and ejection
/// channel; `info`'s processors, routers and mean distance count them so, and so does the
/// mean distance `validate` compares with: the mean over ordered pairs of distinct processors
/// of their routers' distance, enumerated here.
#[test]
fn every_processor_has_its_channels_and_the_mean_distance_counts_them() {
    for shape in SHAPES {
        let s = shape.scenario("dor", 2, 2, QUIET);
        let e = build_engine(&s, 0.0, 1);
        let (n, r) = (shape.processors(), shape.routers());
        assert_eq!(e.net.nodes, n, "{shape:?}: processors");
        assert_eq!(e.net.routers() as u32, r, "{shape:?}: routers");
        let links = e.net.links as usize;
        assert_eq!(
            e.net.channels(),
            links + 2 * n as usize,
            "{shape:?}: channels"
        );
        for i in 0..n {
            assert_eq!(
                e.net.proc_at[i as usize],
                i / shape.c,
                "{shape:?}: processor {i}"
            );
        }
        let p = e.net.topology.properties();
        assert_eq!((p.processors, p.routers), (n as u64, r as u64), "{shape:?}");
        let (mut sum, mut most) = (0u64, 0);
        for a in 0..n {
            for b in (0..n).filter(|&b| b != a) {
                sum += shape.hops(a, b) as u64;
                most = most.max(shape.hops(a, b));
            }
        }
        let mean = sum as f64 / (n as f64 * (n as f64 - 1.0));
        assert!(
            (p.mean_distance - mean).abs() < 1e-12,
            "{shape:?}: {p:?} against {mean}"
        );
        if shape.kind != "hyperx" {
            let enumerated = flitsim::model::mean_distance(&s, 1).expect("by enumeration");
            assert!((enumerated - mean).abs() < 1e-12, "{shape:?}: {enumerated}");
        }
        assert_eq!(p.diameter, most, "{shape:?}: diameter");
        let row = p.rows().into_iter().find(|(k, _)| *k == "concentration");
        assert_eq!(
            row,
            Some(("concentration", shape.c.to_string())),
            "{shape:?}"
        );
    }
}

/// A single message of M flits between every ordered pair of processors of an empty network
/// crosses its routers' h links (none between two processors of one router) and arrives
/// M + h cycles after it was sent, under every routing.
#[test]
fn zero_load_latency_is_m_plus_h_for_every_pair_of_processors() {
    for shape in SHAPES {
        for &routing in shape.routings() {
            let vcs = if routing == "dor" { 2 } else { 3 };
            let s = shape.scenario(routing, vcs, 2, QUIET);
            let mut e = build_engine(&s, 0.0, 1);
            let n = shape.processors();
            for src in 0..n {
                for dst in (0..n).filter(|&d| d != src) {
                    let h = shape.hops(src, dst);
                    let (d, used) = one_message(&mut e, src, dst, 3);
                    let ctx = format!("{shape:?} {routing} {src}->{dst}");
                    assert_eq!(
                        (d.hops as u32, d.eject - d.created),
                        (h, 3 + h as u64),
                        "{ctx}"
                    );
                    assert_eq!(used.len() as u32, h, "{ctx}: links");
                }
            }
        }
    }
}

/// Under uniform traffic the hop counts of delivered messages follow the enumeration over
/// ordered pairs of distinct processors (chi-square at the 0.9999 quantile): the c − 1 other
/// processors of a source's router are at distance 0.
#[test]
fn uniform_hops_follow_the_pairs_of_processors() {
    let shape = SHAPES[0];
    let n = shape.processors();
    let diameter = 5;
    let mut count = vec![0u64; diameter + 1];
    for a in 0..n {
        for b in (0..n).filter(|&b| b != a) {
            count[shape.hops(a, b) as usize] += 1;
        }
    }
    let pairs = (n * (n - 1)) as f64;
    let rest = "[traffic]\nmessage_length = 4\nrates = [0.01]\n\
                [run]\nwarmup_cycles = 1000\nmeasure_cycles = 30000\n";
    let s = shape.scenario("dor", 2, 4, rest);
    let mut e = build_engine(&s, 0.01, 7);
    e.log_deliveries = true;
    for _ in 0..31_000 {
        e.step();
    }
    let mut got = vec![0u64; diameter + 1];
    for d in &e.deliveries {
        assert_eq!(d.hops as u32, shape.hops(d.src, d.dst), "{d:?}");
        got[d.hops as usize] += 1;
    }
    let total: u64 = got.iter().sum();
    assert!(total > 5_000, "only {total} messages");
    let chi2: f64 = got
        .iter()
        .zip(&count)
        .map(|(&o, &c)| {
            let want = total as f64 * c as f64 / pairs;
            (o as f64 - want).powi(2) / want
        })
        .sum();
    assert!(
        chi2 < chi2_9999(diameter),
        "chi2 {chi2} got {got:?} enumeration {count:?}"
    );
}

/// On a unidirectional ring of 4 routers with 4 processors each, `shift` by 4 sends every
/// processor's messages to the processor in its place on the next router: the one link out of
/// a router carries its 4 processors' flits, so the throughput bound is 1/4 flit per
/// processor per cycle, and past saturation the accepted load stays within 5% of it and never
/// above (with V = 4, two virtual channels in each dateline class, so that a link need not
/// wait for a message's tail to leave the buffer before the next message enters).
#[test]
fn a_link_shared_by_a_routers_processors_saturates_at_one_over_c() {
    let text = "name = \"ring\"\n[topology]\nkind = \"torus\"\nk = 4\nn = 1\nconcentration = 4\n\
                [router]\nvcs = 4\nbuffer_depth = 4\n\
                [traffic]\npattern = \"shift\"\nshift_offset = 4\nprocess = \"bernoulli\"\n\
                message_length = 4\nflit_rates = [0.5]\n\
                [run]\nwarmup_cycles = 2000\nmeasure_cycles = 10000\nmax_backlog = 100000\n";
    let s = Scenario::from_toml(text, "ring.toml").unwrap();
    let b = flitsim::model::bound::throughput_bound(&s).expect("a bound");
    assert!((b.flits - 0.25).abs() < 1e-12, "{b:?}");
    let r = run_point(&s, s.traffic.rates[0], 3).expect("no deadlock");
    assert!(
        r.accepted_flits <= 0.25 * 1.0001 && r.accepted_flits >= 0.95 * 0.25,
        "accepted {}",
        r.accepted_flits
    );
}

/// Under uniform traffic the busiest link's bound counts c² pairs of processors per pair of
/// routers: on a 4x4 mesh of 4 processors per router the middle link of a row carries
/// 2·8 router pairs, 256 processor pairs, 256/63 of the per-processor load.
#[test]
fn the_busiest_link_bound_counts_every_pair_of_processors() {
    let text = "name = \"cmesh\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\nconcentration = 4\n\
                [traffic]\nmessage_length = 4\nflit_rates = [0.1]\n";
    let s = Scenario::from_toml(text, "cmesh.toml").unwrap();
    let b = flitsim::model::bound::busiest_link_bound(&s).expect("a bound by enumeration");
    assert!((b.flits - 63.0 / 256.0).abs() < 1e-12, "{b:?}");
    // The bisection across the middle of dimension 0: the 32 processors on one side send
    // 32/63 of their load to the 32 on the other, over 4 links each way, the same 63/256.
    let cut = flitsim::model::bound::minimal_routing_bound(&s).expect("a minimal bound");
    assert!(
        (cut.flits - 4.0 * 63.0 / (32.0 * 32.0)).abs() < 1e-12,
        "{cut:?}"
    );
    assert!(cut.why.contains("bisection"), "{cut:?}");
}

/// Far past saturation with 1- and 2-flit buffers, every routing on every shape never freezes
/// (the drained-copy deadlock check stays silent), then drains: every message delivered once.
#[test]
fn every_routing_is_deadlock_free_past_saturation() {
    for shape in SHAPES {
        for &routing in shape.routings() {
            for depth in [1, 2] {
                let vcs = if routing == "dor" { 2 } else { 3 };
                let s = shape.scenario(routing, vcs, depth, QUIET);
                let mut e = build_engine(&s, 0.0, 1);
                let ctx = format!("{shape:?} {routing} depth {depth}");
                let n = shape.processors();
                run_past_saturation(&mut e, n, (0.3, (1, 9)), 3000, (11, 7), &ctx);
            }
        }
    }
}

/// Concentration is refused where the processors are placed otherwise, coordinate patterns
/// with it, and the analytical models on it, each naming the key and the fix.
#[test]
fn refusals_name_the_key_and_the_fix() {
    let base = "name = \"c\"\n[traffic]\nmessage_length = 4\nrates = [0.01]\n";
    for (topology, key, fix) in [
        (
            "kind = \"mway\"\nk = 4\nn = 2\nconcentration = 2",
            "[topology] concentration",
            "remove concentration",
        ),
        (
            "kind = \"fat-tree\"\nk = 2\nn = 3\nconcentration = 2",
            "[topology] concentration",
            "remove concentration",
        ),
        (
            "kind = \"dragonfly\"\np = 2\na = 2\nh = 1\nconcentration = 2",
            "[topology] concentration",
            "remove concentration",
        ),
        (
            "kind = \"mesh\"\nk = 4\nn = 2\nconcentration = 0",
            "[topology] concentration",
            "from 1 to 64",
        ),
    ] {
        let (code, err) = flitsim_check(&format!("{base}[topology]\n{topology}\n"), "conc");
        assert_eq!(code, Some(2), "{topology}: {err}");
        assert!(err.contains(key) && err.contains(fix), "{topology}: {err}");
    }
    let text = "name = \"c\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\nconcentration = 2\n\
                [traffic]\npattern = \"matrix-transpose\"\nmessage_length = 4\nrates = [0.01]\n";
    let (code, err) = flitsim_check(text, "conc-pattern");
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("[traffic] pattern") && err.contains("2 processors per router"),
        "{err}"
    );
    let text = "name = \"c\"\n[topology]\nkind = \"torus\"\nk = 4\nn = 2\nconcentration = 2\n\
                [traffic]\nmessage_length = 4\nrates = [0.01]\n";
    let s = Scenario::from_toml(text, "c.toml").unwrap();
    let Err(why) = flitsim::model::Model::for_scenario(&s) else {
        panic!("a model of a concentrated torus");
    };
    assert!(why.contains("2 processors per router"), "{why}");
}
