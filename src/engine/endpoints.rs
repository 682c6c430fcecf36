//! The network's endpoints: the sources (Poisson or Bernoulli) and their FIFO queues, injection
//! into the injection buffers (step 1 and step 3 of the cycle), and delivery of ejected
//! messages.

use super::parts::{ACTIVE, IDLE};
use super::{Delivery, Engine};
use crate::network::NONE;
use crate::scenario::Process;
use crate::traffic::{Arrivals, Source};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The processors' sources: their arrival process, their message queues (intrusive FIFOs
/// through `Messages::next`), and the message each is injecting; indexed by processor.
#[derive(Clone)]
pub(super) struct Sources {
    /// The arrival process, or None without sources (messages only through `send`).
    process: Option<Arrivals>,
    /// Which process `process` is.
    pub kind: Process,
    /// λ in messages/node/cycle, and the seed of the sources' streams.
    rate: f64,
    seed: u64,
    /// One random stream per processor.
    gens: Vec<Source>,
    /// The next arrival of each source, earliest first.
    arrivals: BinaryHeap<Reverse<(u64, u32)>>,
    /// Oldest message queued, or NONE.
    pub head: Vec<u32>,
    /// Newest message queued.
    tail: Vec<u32>,
    /// Injection buffer of the message being injected, or NONE.
    buf: Vec<u32>,
    /// Injection channel of the message being injected.
    link: Vec<u32>,
    /// Flits of the oldest message injected so far.
    pub sent: Vec<u16>,
    /// On the `active` list.
    listed: Vec<bool>,
    /// Processors with a message queued.
    active: Vec<u32>,
}

impl Sources {
    /// `nodes` Poisson sources of `rate` messages/cycle each (0: none), seeded from `seed`.
    pub fn new(nodes: usize, rate: f64, seed: u64) -> Sources {
        let mut s = Sources {
            process: None,
            kind: Process::Poisson,
            rate,
            seed,
            gens: Vec::new(),
            arrivals: BinaryHeap::new(),
            head: vec![NONE; nodes],
            tail: vec![NONE; nodes],
            buf: vec![NONE; nodes],
            link: vec![NONE; nodes],
            sent: vec![0; nodes],
            listed: vec![false; nodes],
            active: Vec::new(),
        };
        s.start(Process::Poisson);
        s
    }

    /// (Re)draws every source's first arrival under `process`, each from the start of its
    /// stream.
    pub fn start(&mut self, process: Process) {
        let nodes = self.head.len();
        self.kind = process;
        self.process = Arrivals::new(process, self.rate);
        self.gens.clear();
        self.arrivals.clear();
        if let Some(a) = &self.process {
            self.gens.reserve(nodes);
            self.arrivals.reserve(nodes);
            for node in 0..nodes as u32 {
                let s = Source::new(self.seed, node, a);
                self.arrivals.push(Reverse((s.next_cycle(), node)));
                self.gens.push(s);
            }
        }
    }
}

impl Engine {
    /// Queues a message of `len` flits at `src` for `dst`, generated in the current cycle.
    pub fn send(&mut self, src: u32, dst: u32, len: u16) {
        let m = self.msgs.alloc(src, dst, len, self.cycle, self.tie_bits());
        self.enqueue(src, m);
    }

    /// The tie bits of the next message: a hash of the tie seed and its serial number under
    /// `tie = "random"`, else 0 (every tie `+`).
    fn tie_bits(&self) -> u32 {
        if self.random_tie {
            super::tie_bits(self.tie_seed, self.generated_msgs)
        } else {
            0
        }
    }

    fn enqueue(&mut self, s: u32, m: u32) {
        let su = s as usize;
        self.generated_msgs += 1;
        self.backlog += 1;
        let created = self.msgs.created[m as usize];
        if created >= self.window.start && created < self.window.end {
            self.outstanding += 1;
        }
        let q = &mut self.sources;
        if q.head[su] == NONE {
            q.head[su] = m;
        } else {
            self.msgs.next[q.tail[su] as usize] = m;
        }
        q.tail[su] = m;
        if !q.listed[su] {
            q.listed[su] = true;
            q.active.push(s);
        }
    }

    /// Step 1: arrivals due this cycle join their source queues.
    pub(super) fn generate(&mut self) {
        let Some(process) = self.sources.process else {
            return;
        };
        if self.drain_only {
            return;
        }
        while let Some(&Reverse((c, s))) = self.sources.arrivals.peek() {
            if c > self.cycle {
                break;
            }
            self.sources.arrivals.pop();
            let src = &mut self.sources.gens[s as usize];
            let rng = src.arrive(&process);
            let sent = self.traffic.message(self.net.traffic_topo(), s, rng);
            let next = src.next_cycle();
            self.sources.arrivals.push(Reverse((next, s)));
            if let Some((dst, len)) = sent {
                let m = self.msgs.alloc(s, dst, len, self.cycle, self.tie_bits());
                self.enqueue(s, m);
            }
        }
    }

    /// Step 3: each source sends the next flit of its oldest message into a free injection
    /// buffer with space. Returns the number of flits injected.
    pub(super) fn inject(&mut self) -> u64 {
        let net = &self.net;
        let depth = net.depth;
        let vcs = net.vcs;
        let inj_vcs = net.inj_vcs;
        let q = &mut self.sources;
        let bufs = &mut self.bufs;
        let mut injected = 0;
        let mut i = 0;
        while i < q.active.len() {
            let s = q.active[i] as usize;
            let m = q.head[s];
            if self.drain_only && q.sent[s] == 0 {
                i += 1;
                continue;
            }
            let mut t = q.buf[s];
            let mut link = q.link[s];
            if t == NONE {
                link = match net.attach {
                    1 => net.injection_channel(s as u32),
                    _ => net.injection_link(s as u32, self.msgs.dst[m as usize]),
                };
                let base = link * vcs;
                match (base..base + inj_vcs).find(|&b| bufs.buf[b as usize].msg == NONE) {
                    Some(b) => t = b,
                    None => {
                        i += 1;
                        continue;
                    }
                }
            }
            let tu = t as usize;
            if bufs.buf[tu].cnt >= depth {
                i += 1;
                continue;
            }
            let len = self.msgs.len[m as usize];
            if q.sent[s] == 0 {
                let tb = &mut bufs.buf[tu];
                tb.msg = m;
                tb.len = len;
                tb.sent = 0;
                tb.last = self.cycle as u32;
                self.msgs.inject[m as usize] = self.cycle;
                q.buf[s] = t;
                q.link[s] = link;
                self.c_msgs[link as usize] += 1;
            }
            self.c_flits[link as usize] += 1;
            bufs.buf[tu].cnt += 1;
            if bufs.state[tu] == IDLE {
                bufs.state[tu] = ACTIVE;
                bufs.active.insert(t);
            }
            self.flits_in_net += 1;
            injected += 1;
            q.sent[s] += 1;
            if q.sent[s] == len {
                q.head[s] = self.msgs.next[m as usize];
                q.buf[s] = NONE;
                q.sent[s] = 0;
                self.backlog -= 1;
                if q.head[s] == NONE {
                    q.listed[s] = false;
                    q.active.swap_remove(i);
                    continue;
                }
            }
            i += 1;
        }
        injected
    }

    /// The tail of message `m` was ejected this cycle.
    pub(super) fn deliver(&mut self, m: u32) {
        let mi = m as usize;
        self.ejected_msgs += 1;
        let created = self.msgs.created[mi];
        let inject = self.msgs.inject[mi];
        let hops = self.msgs.hops[mi];
        let w = self.window;
        if created >= w.start && created < w.end {
            self.outstanding -= 1;
            let batch = ((created - w.start) * w.batches / (w.end - w.start)) as usize;
            self.stats.record(
                self.cycle - created,
                self.cycle - inject,
                hops as u32,
                batch,
            );
            self.stats.record_classes(self.msgs.escape[mi] as u32);
        }
        if self.log_deliveries {
            self.deliveries.push(Delivery {
                src: self.msgs.src[mi],
                dst: self.msgs.dst[mi],
                len: self.msgs.len[mi],
                created,
                inject,
                eject: self.cycle,
                hops,
            });
        }
        self.msgs.release(m);
    }
}
