//! The engine against a reference model: a deliberately plain re-implementation, in this file,
//! of the cycle semantics documented in src/engine (mod.rs and network.rs), visiting every
//! buffer and every channel every cycle, with no active lists, no sleeping and no packing.
//! Under random traffic from light load to far past saturation, the engine must reproduce it
//! exactly, cycle by cycle: the same flits in the network, the same flits moved, and in the end
//! the same deliveries (every field) and the same per-channel flit and header counts. Any
//! optimisation of the engine (activity lists, sleeping blocked buffers, ...) must not change
//! a single cycle.
//!
//! The documented semantics modelled here:
//! - each cycle: requests (start-of-cycle state), then injection, then grants and moves;
//! - a header routes by dimension order (lowest dimension first; bidirectional torus: the
//!   shorter way, a tie k/2 going Plus, or under `tie = "random"` Minus when bit d of the
//!   message's tie bits is set), with dateline classes on a torus with V >= 2 (class 0 = VCs
//!   0..split, class 1 = split..V, split = min(ceil(V/2), V-1); `at-wrap`: a message takes class
//!   1 on a wrap-around link and keeps it while continuing in the same ring; `on-entry`: on
//!   entering a ring it takes class 1 if its route in the ring crosses the wrap-around link, and
//!   keeps its class in the ring) and selects the lowest-numbered free VC of its class; a body
//!   flit follows its header if the downstream buffer has space (start of cycle); ejection never
//!   blocks;
//! - channel arbitration: round-robin over driver slots, slot = port·V + vc, the ports of a
//!   router being its incoming links in link order and then its injection channel; the slot
//!   granted last has lowest priority;
//! - a source injects one flit per cycle of its oldest message into the lowest free injection
//!   VC with space, one message at a time;
//! - router delay D: a header may leave its buffer from cycle arrival + 1 + D;
//! - link latency L: a flit sent over a link in cycle s arrives (counts in the buffer) at the end
//!   of cycle s + L − 1; a flit leaving a link's buffer in cycle s returns its credit at the
//!   end of s + L − 1, and the tail's credit frees the buffer; a body flit is sent only while
//!   the flits sent into its downstream buffer and not yet credited are fewer than the depth;
//! - per-port crossbar: a buffer ready to send first competes with the other virtual channels
//!   of its channel (round-robin after the VC granted last), and only the winner asks for its
//!   output.

use crate::common::{Shape, Topo};
use flitsim::engine::{Delivery, Engine};
use flitsim::topology::Dir;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use std::collections::VecDeque;

const NONE: usize = usize::MAX;

#[derive(Clone, Copy)]
struct RBuf {
    msg: usize,
    cnt: u32,
    /// Flits sent into the buffer whose credit has not come back.
    held: u32,
    /// Cycle the header arrived.
    arrived: u64,
    sent: u32,
    len: u32,
    out_chan: usize,
    /// Downstream buffer, NONE for ejection.
    out_buf: usize,
}

struct RMsg {
    /// Tie bits (random tie).
    tie: u32,
    src: u32,
    dst: u32,
    len: u32,
    created: u64,
    inject: u64,
    hops: u32,
}

struct RLink {
    src: u32,
    dim: usize,
    dir: Dir,
    wrap: bool,
}

/// The options under test, as `[routing]` lines for the engine and rules for the reference.
#[derive(Clone, Copy, Debug)]
struct Opts {
    random_tie: bool,
    on_entry: bool,
    /// Router delay D.
    delay: u64,
    /// Link latency L.
    latency: u64,
    per_port: bool,
}

/// The papers' conventions: ties Plus, dateline at the wrap-around link, one-cycle hops.
const PAPERS: Opts = Opts {
    random_tie: false,
    on_entry: false,
    delay: 0,
    latency: 1,
    per_port: false,
};

impl Opts {
    /// An engine without sources with these options.
    fn engine(&self, t: &Topo, vcs: u32, depth: u32) -> Engine {
        let text = format!(
            "name = \"reference\"\nseed = 1\n{}link_latency = {}\n[router]\nvcs = {vcs}\n\
             buffer_depth = {depth}\ndelay = {}\ncrossbar = \"{}\"\n[routing]\n\
             algorithm = \"dor\"\ntie = \"{}\"\ndateline = \"{}\"\n[traffic]\n\
             message_length = 1\nrates = [0.001]\n",
            t.toml(),
            self.latency,
            self.delay,
            if self.per_port { "per-port" } else { "per-vc" },
            if self.random_tie { "random" } else { "plus" },
            if self.on_entry { "on-entry" } else { "at-wrap" }
        );
        let s = flitsim::Scenario::from_toml(&text, "reference.toml").unwrap();
        let mut e = flitsim::engine::build_engine(&s, 0.0, 1);
        e.log_deliveries = true;
        e
    }
}

struct Reference {
    t: Topo,
    o: Opts,
    /// Flits and credits in flight: (due cycle, arrival (else credit), buffer, header/tail).
    events: Vec<(u64, bool, usize, bool)>,
    /// Per channel with buffers: the virtual channel its port granted last (per-port).
    prr: Vec<usize>,
    vcs: usize,
    depth: u32,
    links: Vec<RLink>,
    /// out_link[node][dim][dir]
    out_link: Vec<Vec<[usize; 2]>>,
    nodes: usize,
    buf_router: Vec<u32>,
    buf_slot: Vec<u32>,
    drivers: Vec<u32>,
    rr: Vec<u32>,
    bufs: Vec<RBuf>,
    msgs: Vec<RMsg>,
    queue: Vec<VecDeque<usize>>,
    s_buf: Vec<usize>,
    s_sent: Vec<u32>,
    cycle: u64,
    flits_in_net: u64,
    moved: u64,
    c_flits: Vec<u64>,
    c_msgs: Vec<u64>,
    deliveries: Vec<Delivery>,
}

impl Reference {
    /// Builds the reference network from the engine's link list, checking each link against
    /// coordinates computed here.
    fn new(e: &Engine, t: &Topo, vcs: usize, depth: u32, o: Opts) -> Reference {
        let nodes = t.nodes() as usize;
        let n = t.n();
        let mut links = Vec::new();
        let mut out_link = vec![vec![[NONE; 2]; n]; nodes];
        for (c, l) in e.net.cube().links.iter().enumerate() {
            let d = l.dim as usize;
            let (a, b) = (t.coords(l.src), t.coords(l.dst));
            let k = t.radix[d];
            let (next, wrap) = match l.dir {
                Dir::Plus => ((a[d] + 1) % k, a[d] == k - 1),
                Dir::Minus => ((a[d] + k - 1) % k, a[d] == 0),
            };
            assert_eq!(b[d], next, "link {c}");
            for e in 0..n {
                if e != d {
                    assert_eq!(a[e], b[e], "link {c}");
                }
            }
            assert_eq!(
                out_link[l.src as usize][d][l.dir as usize], NONE,
                "parallel links"
            );
            out_link[l.src as usize][d][l.dir as usize] = c;
            links.push(RLink {
                src: l.src,
                dim: d,
                dir: l.dir,
                wrap,
            });
        }
        let nl = links.len();
        let nbuf = (nl + nodes) * vcs;
        let mut ports = vec![0u32; nodes];
        let mut buf_router = vec![0u32; nbuf];
        let mut buf_slot = vec![0u32; nbuf];
        let mut add_port = |chan: usize, router: u32| {
            let p = ports[router as usize];
            ports[router as usize] += 1;
            for v in 0..vcs {
                buf_router[chan * vcs + v] = router;
                buf_slot[chan * vcs + v] = p * vcs as u32 + v as u32;
            }
        };
        for (c, l) in e.net.cube().links.iter().enumerate() {
            add_port(c, l.dst);
        }
        for node in 0..nodes {
            add_port(nl + node, node as u32);
        }
        let mut drivers: Vec<u32> = links
            .iter()
            .map(|l| ports[l.src as usize] * vcs as u32)
            .collect();
        drivers.extend((0..nodes).map(|_| 1));
        drivers.extend((0..nodes).map(|r| ports[r] * vcs as u32));
        let nchan = nl + 2 * nodes;
        Reference {
            t: t.clone(),
            o,
            events: Vec::new(),
            prr: vec![vcs - 1; nl + nodes],
            vcs,
            depth,
            links,
            out_link,
            nodes,
            buf_router,
            buf_slot,
            rr: drivers.iter().map(|&d| d - 1).collect(),
            drivers,
            bufs: vec![
                RBuf {
                    msg: NONE,
                    cnt: 0,
                    held: 0,
                    arrived: 0,
                    sent: 0,
                    len: 0,
                    out_chan: NONE,
                    out_buf: NONE,
                };
                nbuf
            ],
            msgs: Vec::new(),
            queue: vec![VecDeque::new(); nodes],
            s_buf: vec![NONE; nodes],
            s_sent: vec![0; nodes],
            cycle: 0,
            flits_in_net: 0,
            moved: 0,
            c_flits: vec![0; nchan],
            c_msgs: vec![0; nchan],
            deliveries: Vec::new(),
        }
    }

    fn send(&mut self, src: u32, dst: u32, len: u32) {
        let serial = self.msgs.len() as u64;
        self.msgs.push(RMsg {
            // The engine's documented stream of tie bits (quiet engines have seed 1).
            tie: if self.o.random_tie {
                flitsim::engine::tie_bits(flitsim::engine::tie_seed(1), serial)
            } else {
                0
            },
            src,
            dst,
            len,
            created: self.cycle,
            inject: 0,
            hops: 0,
        });
        self.queue[src as usize].push_back(self.msgs.len() - 1);
    }

    fn ejection(&self, node: usize) -> usize {
        self.links.len() + self.nodes + node
    }

    /// Dimension-order route of the header in buffer `b`: (channel, vc range).
    fn route(&self, b: usize) -> (usize, usize, usize) {
        let at = self.buf_router[b];
        let msg = &self.msgs[self.bufs[b].msg];
        let dst = msg.dst;
        let (ca, cd) = (self.t.coords(at), self.t.coords(dst));
        let Some(d) = (0..self.t.n()).find(|&d| ca[d] != cd[d]) else {
            return (self.ejection(at as usize), 0, 1);
        };
        let k = self.t.radix[d];
        let plus = match self.t.shape {
            Shape::Mesh | Shape::Hypercube => cd[d] > ca[d],
            Shape::UniTorus => true,
            Shape::BiTorus => {
                let up = (cd[d] + k - ca[d]) % k;
                if 2 * up == k {
                    msg.tie >> d & 1 == 0
                } else {
                    up < k - up
                }
            }
        };
        let dir = if plus { Dir::Plus } else { Dir::Minus };
        let link = self.out_link[at as usize][d][dir as usize];
        assert_ne!(link, NONE);
        let torus = matches!(self.t.shape, Shape::UniTorus | Shape::BiTorus);
        if !torus || self.vcs < 2 {
            return (link, 0, self.vcs);
        }
        let split = self.vcs.div_ceil(2).min(self.vcs - 1);
        let in_chan = b / self.vcs;
        let same_ring = in_chan < self.links.len()
            && self.links[in_chan].dim == d
            && self.links[in_chan].dir == dir;
        let high = if same_ring {
            self.links[link].wrap || b % self.vcs >= split
        } else if self.o.on_entry {
            // The route in this ring crosses the wrap-around link.
            if plus { cd[d] < ca[d] } else { cd[d] > ca[d] }
        } else {
            self.links[link].wrap
        };
        if high {
            (link, split, self.vcs)
        } else {
            (link, 0, split)
        }
    }

    fn step(&mut self) {
        let nchan = self.drivers.len();
        let nl = self.links.len();
        // Requests, from the state at the start of the cycle.
        let mut best: Vec<Option<(u32, usize, usize)>> = vec![None; nchan]; // (key, buf, want)
        // Per-port: each port's best ready VC (key, buf, channel, want).
        let mut port: Vec<Option<(usize, usize, usize, usize)>> = vec![None; nl + self.nodes];
        for b in 0..self.bufs.len() {
            let buf = self.bufs[b];
            if buf.cnt == 0 {
                continue;
            }
            if buf.sent == 0 && self.cycle < buf.arrived + 1 + self.o.delay {
                continue;
            }
            let (ch, want) = if buf.sent > 0 {
                if buf.out_buf != NONE && self.bufs[buf.out_buf].held >= self.depth {
                    continue;
                }
                (buf.out_chan, buf.out_buf)
            } else {
                let (ch, lo, hi) = self.route(b);
                if ch >= nl {
                    (ch, NONE)
                } else {
                    match (lo..hi)
                        .map(|v| ch * self.vcs + v)
                        .find(|&t| self.bufs[t].msg == NONE)
                    {
                        Some(t) => (ch, t),
                        None => continue,
                    }
                }
            };
            if self.o.per_port {
                let (p, v) = (b / self.vcs, b % self.vcs);
                let key = (v + self.vcs - self.prr[p] - 1) % self.vcs;
                if port[p].is_none_or(|(k, ..)| key < k) {
                    port[p] = Some((key, b, ch, want));
                }
                continue;
            }
            let d = self.drivers[ch];
            let key = (self.buf_slot[b] + d - self.rr[ch] - 1) % d;
            if best[ch].is_none_or(|(k, _, _)| key < k) {
                best[ch] = Some((key, b, want));
            }
        }
        for &(_, b, ch, want) in port.iter().flatten() {
            let d = self.drivers[ch];
            let key = (self.buf_slot[b] + d - self.rr[ch] - 1) % d;
            if best[ch].is_none_or(|(k, _, _)| key < k) {
                best[ch] = Some((key, b, want));
            }
        }
        // Injection.
        let mut moved = 0;
        for s in 0..self.nodes {
            let Some(&m) = self.queue[s].front() else {
                continue;
            };
            let mut t = self.s_buf[s];
            if t == NONE {
                let base = (nl + s) * self.vcs;
                match (base..base + self.vcs).find(|&b| self.bufs[b].msg == NONE) {
                    Some(b) => t = b,
                    None => continue,
                }
            }
            if self.bufs[t].cnt >= self.depth {
                continue;
            }
            let len = self.msgs[m].len;
            if self.s_sent[s] == 0 {
                self.bufs[t].msg = m;
                self.bufs[t].len = len;
                self.bufs[t].sent = 0;
                self.bufs[t].arrived = self.cycle;
                self.msgs[m].inject = self.cycle;
                self.s_buf[s] = t;
            }
            self.bufs[t].cnt += 1;
            self.bufs[t].held += 1;
            self.c_flits[nl + s] += 1;
            self.flits_in_net += 1;
            moved += 1;
            self.s_sent[s] += 1;
            if self.s_sent[s] == len {
                self.queue[s].pop_front();
                self.s_buf[s] = NONE;
                self.s_sent[s] = 0;
            }
        }
        // Grants and moves.
        for (ch, req) in best.iter().enumerate() {
            let Some((_, b, want)) = *req else { continue };
            moved += 1;
            self.rr[ch] = self.buf_slot[b];
            self.prr[b / self.vcs] = b % self.vcs;
            let m = self.bufs[b].msg;
            let header = self.bufs[b].sent == 0;
            if header {
                self.bufs[b].out_chan = ch;
                self.bufs[b].out_buf = want;
                self.c_msgs[ch] += 1;
            }
            self.c_flits[ch] += 1;
            let len = self.bufs[b].len;
            self.bufs[b].cnt -= 1;
            self.bufs[b].sent += 1;
            let tail = self.bufs[b].sent == len;
            // The credit: at once from an injection buffer, L cycles on from a link's.
            let back = if b / self.vcs < nl {
                self.o.latency - 1
            } else {
                0
            };
            self.events.push((self.cycle + back, false, b, tail));
            let t = self.bufs[b].out_buf;
            if t != NONE {
                if header {
                    assert_eq!(self.bufs[t].msg, NONE);
                    self.bufs[t].msg = m;
                    self.bufs[t].len = len;
                    self.bufs[t].sent = 0;
                    self.msgs[m].hops += 1;
                }
                self.bufs[t].held += 1;
                assert!(self.bufs[t].held <= self.depth);
                self.events
                    .push((self.cycle + self.o.latency - 1, true, t, header));
            } else {
                self.flits_in_net -= 1;
                if tail {
                    let r = &self.msgs[m];
                    self.deliveries.push(Delivery {
                        src: r.src,
                        dst: r.dst,
                        len: r.len as u16,
                        created: r.created,
                        inject: r.inject,
                        eject: self.cycle,
                        hops: r.hops as u16,
                    });
                }
            }
        }
        // Flits and credits due now, in the order they were made.
        let now = self.cycle;
        let due: Vec<_> = self.events.iter().filter(|e| e.0 == now).copied().collect();
        self.events.retain(|e| e.0 != now);
        for (_, arrival, b, flag) in due {
            if arrival {
                self.bufs[b].cnt += 1;
                if flag {
                    self.bufs[b].arrived = now;
                }
            } else {
                self.bufs[b].held -= 1;
                if flag {
                    self.bufs[b].msg = NONE;
                }
            }
        }
        self.moved = moved;
        self.cycle += 1;
    }
}

/// Offers Bernoulli traffic (probability `p` per node per cycle, uniform destination, length
/// uniform in `lens`) for `cycles` cycles to both the engine and the reference, then drains;
/// compares them every cycle and at the end.
#[allow(clippy::too_many_arguments)]
fn compare(
    t: Topo,
    vcs: u32,
    depth: u32,
    p: f64,
    lens: (u16, u16),
    cycles: u64,
    seed: u64,
    o: Opts,
) {
    let ctx = format!(
        "{:?} {:?} V={vcs} depth={depth} p={p} lens={lens:?} {o:?}",
        t.shape, t.radix
    );
    let mut e = o.engine(&t, vcs, depth);
    let mut r = Reference::new(&e, &t, vcs as usize, depth, o);
    assert_eq!(e.net.channels(), r.drivers.len(), "{ctx}");
    let mut rng = Pcg64::seed_from_u64(seed);
    let n = t.nodes();
    let mut sent = 0usize;
    loop {
        if e.cycle < cycles {
            for src in 0..n {
                if rng.gen_bool(p) {
                    let mut dst = rng.gen_range(0..n - 1);
                    if dst >= src {
                        dst += 1;
                    }
                    let len = rng.gen_range(lens.0..=lens.1);
                    e.send(src, dst, len);
                    r.send(src, dst, len as u32);
                    sent += 1;
                }
            }
        } else if e.idle() {
            break;
        }
        assert!(e.cycle < cycles + 500_000, "{ctx}: not drained");
        e.step();
        r.step();
        assert_eq!(
            (e.flits_in_net, e.moved),
            (r.flits_in_net, r.moved),
            "{ctx}: (flits in network, flits moved) differ from the reference in cycle {}",
            e.cycle - 1
        );
        if e.deliveries.len() != r.deliveries.len() {
            panic!(
                "{ctx}: cycle {}: {} deliveries, reference {}",
                e.cycle - 1,
                e.deliveries.len(),
                r.deliveries.len()
            );
        }
    }
    assert_eq!(r.flits_in_net, 0, "{ctx}: reference not drained");
    assert!(r.queue.iter().all(|q| q.is_empty()), "{ctx}");
    assert_eq!(e.deliveries.len(), sent, "{ctx}");
    let key = |d: &Delivery| (d.eject, d.src, d.dst, d.created, d.inject, d.len, d.hops);
    let mut got: Vec<_> = e.deliveries.iter().map(key).collect();
    let mut want: Vec<_> = r.deliveries.iter().map(key).collect();
    got.sort_unstable();
    want.sort_unstable();
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{ctx}: deliveries differ; first difference (eject, src, dst, created, inject, len, \
             hops): engine {:?}, reference {:?}",
            got[i], want[i]
        );
    }
    let nl = r.links.len();
    let nodes = r.nodes;
    assert_eq!(e.c_flits, r.c_flits, "{ctx}: flits per channel");
    assert_eq!(e.c_msgs[..nl], r.c_msgs[..nl], "{ctx}: headers per link");
    assert_eq!(
        e.c_msgs[nl + nodes..],
        r.c_msgs[nl + nodes..],
        "{ctx}: headers per ejection channel"
    );
}

/// (p, lengths, cycles): light, moderate, heavy, far past saturation.
const LOADS: [(f64, (u16, u16), u64); 4] = [
    (0.01, (2, 8), 3000),
    (0.02, (8, 16), 2000),
    (0.04, (8, 24), 1500),
    (0.1, (4, 12), 1000),
];

fn all_loads(t: Topo, vcs: u32, depth: u32) {
    all_loads_with(t, vcs, depth, PAPERS)
}

fn all_loads_with(t: Topo, vcs: u32, depth: u32, o: Opts) {
    for (i, &(p, lens, cycles)) in LOADS.iter().enumerate() {
        compare(t.clone(), vcs, depth, p, lens, cycles, 1000 + i as u64, o);
    }
}

#[test]
fn reference_mesh() {
    all_loads(Topo::mesh(&[4, 4]), 1, 2);
    all_loads(Topo::mesh(&[5, 3]), 2, 1);
    all_loads(Topo::mesh(&[6, 6]), 4, 3);
}

#[test]
fn reference_uni_torus() {
    all_loads(Topo::uni_torus(4, 2), 2, 2);
    all_loads(Topo::uni_torus(5, 2), 3, 4);
    all_loads(Topo::uni_torus(3, 3), 4, 1);
}

#[test]
fn reference_bi_torus() {
    all_loads(Topo::bi_torus(4, 2), 2, 2);
    all_loads(Topo::bi_torus(5, 2), 4, 2);
    all_loads(Topo::bi_torus(4, 3), 2, 3);
}

/// Every pair of torus conventions on bidirectional tori, odd and even k, and `on-entry`'s
/// lower class choice next to the papers' on the unidirectional torus's at-wrap.
#[test]
fn reference_torus_conventions() {
    for random_tie in [false, true] {
        for on_entry in [false, true] {
            let o = Opts {
                random_tie,
                on_entry,
                ..PAPERS
            };
            all_loads_with(Topo::bi_torus(4, 2), 2, 2, o);
            all_loads_with(Topo::bi_torus(6, 2), 4, 3, o);
            all_loads_with(Topo::bi_torus(5, 2), 2, 1, o);
        }
    }
    let tie_only = Opts {
        random_tie: true,
        ..PAPERS
    };
    all_loads_with(Topo::uni_torus(4, 2), 2, 2, tie_only);
}

#[test]
fn reference_hypercube() {
    all_loads(Topo::hypercube(4), 1, 2);
    all_loads(Topo::hypercube(5), 2, 1);
    all_loads(Topo::hypercube(6), 3, 4);
}

#[test]
fn reference_larger_networks() {
    let bi = Opts {
        random_tie: true,
        on_entry: true,
        ..PAPERS
    };
    compare(Topo::mesh(&[8, 8]), 2, 4, 0.03, (8, 32), 2000, 2001, PAPERS);
    compare(
        Topo::uni_torus(8, 2),
        2,
        2,
        0.03,
        (8, 32),
        2000,
        2002,
        PAPERS,
    );
    compare(
        Topo::bi_torus(8, 2),
        4,
        2,
        0.05,
        (8, 16),
        2000,
        2003,
        PAPERS,
    );
    compare(Topo::bi_torus(8, 2), 4, 2, 0.05, (8, 16), 2000, 2003, bi);
    compare(Topo::bi_torus(4, 4), 2, 4, 0.02, (16, 16), 1500, 2004, bi);
}

/// Router delay, link latency (with buffers shallower and deeper than the credit round trip)
/// and the per-port crossbar, alone and together, on every topology kind, light load to far
/// past saturation.
#[test]
fn reference_router_and_link_timing() {
    let timing = |delay, latency, per_port| Opts {
        delay,
        latency,
        per_port,
        ..PAPERS
    };
    for o in [
        timing(2, 1, false),
        timing(0, 3, false),
        timing(1, 2, true),
        timing(0, 1, true),
    ] {
        all_loads_with(Topo::mesh(&[4, 4]), 2, 2, o);
        all_loads_with(Topo::mesh(&[4, 3]), 1, 5, o);
        all_loads_with(Topo::uni_torus(4, 2), 2, 3, o);
        all_loads_with(Topo::hypercube(4), 3, 1, o);
        let bi = Opts {
            random_tie: true,
            on_entry: true,
            ..o
        };
        all_loads_with(Topo::bi_torus(4, 2), 4, 4, bi);
    }
}
