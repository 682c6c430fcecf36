//! The reference model of `exact_reference`: a deliberately plain re-implementation of the
//! cycle semantics documented there, visiting every buffer and every channel every cycle.

use crate::common::{Shape, Topo};
use flitsim::engine::{Delivery, Engine};
use flitsim::topology::Dir;
use std::collections::VecDeque;

pub(super) const NONE: usize = usize::MAX;

#[derive(Clone, Copy)]
pub(super) struct RBuf {
    pub(super) msg: usize,
    pub(super) cnt: u32,
    /// Flits sent into the buffer whose credit has not come back.
    pub(super) held: u32,
    /// Cycle the header arrived.
    pub(super) arrived: u64,
    pub(super) sent: u32,
    pub(super) len: u32,
    pub(super) out_chan: usize,
    /// Downstream buffer, NONE for ejection.
    pub(super) out_buf: usize,
}

pub(super) struct RMsg {
    /// Tie bits (random tie).
    pub(super) tie: u32,
    pub(super) src: u32,
    pub(super) dst: u32,
    pub(super) len: u32,
    pub(super) created: u64,
    pub(super) inject: u64,
    pub(super) hops: u32,
}

pub(super) struct RLink {
    pub(super) src: u32,
    pub(super) dim: usize,
    pub(super) dir: Dir,
    pub(super) wrap: bool,
}

/// The options under test, as `[routing]` lines for the engine and rules for the reference.
#[derive(Clone, Copy, Debug)]
pub(super) struct Opts {
    pub(super) random_tie: bool,
    pub(super) on_entry: bool,
    /// Router delay D.
    pub(super) delay: u64,
    /// Link latency L.
    pub(super) latency: u64,
    pub(super) per_port: bool,
}

/// The papers' conventions: ties Plus, dateline at the wrap-around link, one-cycle hops.
pub(super) const PAPERS: Opts = Opts {
    random_tie: false,
    on_entry: false,
    delay: 0,
    latency: 1,
    per_port: false,
};

impl Opts {
    /// An engine without sources with these options.
    pub(super) fn engine(&self, t: &Topo, vcs: u32, depth: u32) -> Engine {
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

pub(super) struct Reference {
    pub(super) t: Topo,
    pub(super) o: Opts,
    /// Flits and credits in flight: (due cycle, arrival (else credit), buffer, header/tail).
    pub(super) events: Vec<(u64, bool, usize, bool)>,
    /// Per channel with buffers: the virtual channel its port granted last (per-port).
    pub(super) prr: Vec<usize>,
    pub(super) vcs: usize,
    pub(super) depth: u32,
    pub(super) links: Vec<RLink>,
    /// out_link[node][dim][dir]
    pub(super) out_link: Vec<Vec<[usize; 2]>>,
    pub(super) nodes: usize,
    pub(super) buf_router: Vec<u32>,
    pub(super) buf_slot: Vec<u32>,
    pub(super) drivers: Vec<u32>,
    pub(super) rr: Vec<u32>,
    pub(super) bufs: Vec<RBuf>,
    pub(super) msgs: Vec<RMsg>,
    pub(super) queue: Vec<VecDeque<usize>>,
    pub(super) s_buf: Vec<usize>,
    pub(super) s_sent: Vec<u32>,
    pub(super) cycle: u64,
    pub(super) flits_in_net: u64,
    pub(super) moved: u64,
    pub(super) c_flits: Vec<u64>,
    pub(super) c_msgs: Vec<u64>,
    pub(super) deliveries: Vec<Delivery>,
}

impl Reference {
    /// Builds the reference network from the engine's link list, checking each link against
    /// coordinates computed here.
    pub(super) fn new(e: &Engine, t: &Topo, vcs: usize, depth: u32, o: Opts) -> Reference {
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

    pub(super) fn send(&mut self, src: u32, dst: u32, len: u32) {
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

    pub(super) fn ejection(&self, node: usize) -> usize {
        self.links.len() + self.nodes + node
    }

    /// Dimension-order route of the header in buffer `b`: (channel, vc range).
    pub(super) fn route(&self, b: usize) -> (usize, usize, usize) {
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

    pub(super) fn step(&mut self) {
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
                        // The model's own message number (the comparison leaves it out).
                        msg: m as u32,
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
