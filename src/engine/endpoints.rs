//! The network's endpoints: the sources (Poisson or Bernoulli) and their FIFO queues, injection
//! into the injection buffers (step 1 and step 3 of the cycle), and delivery of ejected
//! messages.
//!
//! A source injects one message at a time by default. With `[traffic] source_concurrency` =
//! c > 1, up to c of its oldest messages hold injection virtual channels at once (paper 000's
//! eq. 27 splits the source among the V injection virtual channels); their flits share the
//! injection channel, one per cycle, round-robin over the source's injection buffers.

use super::Engine;
use super::calendar::Calendar;
use super::injection::Injector;
use super::prefetch::{AHEAD, prefetch};
use super::records::{Shared, View};
use crate::network::NONE;
use crate::scenario::Process;
use crate::topology::KAryNCube;
use crate::traffic::{Arrivals, Source, Traffic};

/// One delivered message, logged when `Engine::log_deliveries` is set (for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// Source processor.
    pub src: u32,
    /// Destination processor.
    pub dst: u32,
    /// Length in flits.
    pub len: u16,
    /// Cycle the message was generated.
    pub created: u64,
    /// Cycle its head crossed the injection channel.
    pub inject: u64,
    /// Cycle its tail was ejected.
    pub eject: u64,
    /// Network links its head crossed.
    pub hops: u16,
}

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
    /// The next arrival of each source, by cycle.
    arrivals: Calendar,
    /// The messages drawn this cycle (source, destination, length), in the order they join
    /// their queues (reused).
    arrived: Vec<(u32, u32, u16)>,
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
    /// On the `active` list (or their partition's list).
    listed: Vec<bool>,
    /// Processors with a message queued (or, under concurrency, being injected).
    active: Vec<u32>,
    /// In a split cycle whose partitions inject their own sources (`Sources::partition`): the
    /// partition of each source, and each partition's list in place of `active`; else empty.
    part: Vec<u8>,
    lists: Vec<Vec<u32>>,
    /// Messages of one source that may hold injection buffers at once (1: `buf`, `link` and
    /// `sent` describe the one being injected, and `head` stays at it until its tail is sent;
    /// more: the `fly_*` arrays do, and `head` is the oldest message not yet started).
    pub concurrency: u32,
    /// Injection buffers per source (`Network::inj_vcs`) under concurrency, else 0.
    width: usize,
    /// Under concurrency, `width` per source: the message being injected into each of the
    /// source's injection buffers, or NONE (the buffer is free, or its message fully injected).
    fly_msg: Vec<u32>,
    /// Flits of that message injected so far.
    fly_sent: Vec<u16>,
    /// Messages being injected, per source (at most `concurrency`).
    fly_count: Vec<u8>,
    /// The injection buffer (0..width) that sent the source's last flit.
    fly_rr: Vec<u8>,
}

impl Sources {
    /// Bytes of the sources' streams, arrival heap, queues and injection state.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.gens)
            + self.arrivals.heap_bytes()
            + vec_bytes(&self.arrived)
            + vec_bytes(&self.head)
            + vec_bytes(&self.tail)
            + vec_bytes(&self.buf)
            + vec_bytes(&self.link)
            + vec_bytes(&self.sent)
            + vec_bytes(&self.listed)
            + vec_bytes(&self.active)
            + vec_bytes(&self.part)
            + self.lists.iter().map(vec_bytes).sum::<u64>()
            + vec_bytes(&self.fly_msg)
            + vec_bytes(&self.fly_sent)
            + vec_bytes(&self.fly_count)
            + vec_bytes(&self.fly_rr)
    }

    /// `nodes` Poisson sources of `rate` messages/cycle each (0: none), seeded from `seed`.
    pub fn new(nodes: usize, rate: f64, seed: u64) -> Sources {
        let mut s = Sources {
            process: None,
            kind: Process::Poisson,
            rate,
            seed,
            gens: Vec::new(),
            arrivals: Calendar::default(),
            arrived: Vec::new(),
            head: vec![NONE; nodes],
            tail: vec![NONE; nodes],
            buf: vec![NONE; nodes],
            link: vec![NONE; nodes],
            sent: vec![0; nodes],
            listed: vec![false; nodes],
            active: Vec::new(),
            part: Vec::new(),
            lists: Vec::new(),
            concurrency: 1,
            width: 0,
            fly_msg: Vec::new(),
            fly_sent: Vec::new(),
            fly_count: Vec::new(),
            fly_rr: Vec::new(),
        };
        s.start(Process::Poisson);
        s
    }

    /// Lets up to `c` messages of each source hold its `width` injection buffers at once.
    pub fn set_concurrency(&mut self, c: u32, width: u32) {
        let nodes = self.head.len();
        self.concurrency = c;
        if c > 1 {
            // Not `splittable`: one list, for the serial injection.
            for list in std::mem::take(&mut self.lists) {
                self.active.extend(list);
            }
            self.part = Vec::new();
            let w = width as usize;
            self.width = w;
            self.fly_msg = vec![NONE; nodes * w];
            self.fly_sent = vec![0; nodes * w];
            self.fly_count = vec![0; nodes];
            // The search starts after the last buffer granted: at buffer 0 the first time.
            self.fly_rr = vec![(w - 1) as u8; nodes];
        }
    }

    /// On a network larger than the caches, before the `k`-th drawn message joins its queue:
    /// asks for the queue columns of the source of the message [`AHEAD`] on, and for the
    /// queue's last message's link (`next`, behind it) of the one half as far on. A hint only:
    /// drawn messages' sources are far apart in memory, and each join would wait on their
    /// misses.
    #[inline(always)]
    pub(super) fn ahead_arrived(&self, k: usize, next: &[u32]) {
        if let Some(&(s, _, _)) = self.arrived.get(k + AHEAD) {
            prefetch(&self.head, s);
            prefetch(&self.tail, s);
            prefetch(&self.listed, s);
            prefetch(&self.part, s);
        }
        if let Some(&(s, _, _)) = self.arrived.get(k + AHEAD / 2)
            && self.head[s as usize] != NONE
        {
            prefetch(next, self.tail[s as usize]);
        }
    }

    /// Step 1's draws for cycle `now`: takes the sources due, draws each one's arrivals (its
    /// stream, and `traffic`'s destination and length on `topo`), files its next arrival, and
    /// lists the messages in the order they join their queues ([`Engine::queue_arrived`]);
    /// none while `draining`. It touches no buffer, channel or message, so a split cycle runs
    /// it beside its requests.
    pub(super) fn draw_arrivals(
        &mut self,
        traffic: &mut Traffic,
        topo: &KAryNCube,
        now: u64,
        draining: bool,
    ) {
        let Some(process) = self.process else {
            return;
        };
        if draining || !self.arrivals.any_due(now) {
            return;
        }
        let due = self.arrivals.take_due(&self.gens, now);
        for &s in &due {
            // A source's arrivals due this cycle come before the next source's.
            loop {
                let src = &mut self.gens[s as usize];
                let rng = src.arrive(&process);
                let sent = traffic.message(topo, s, rng);
                let next = src.next_cycle();
                if let Some((dst, len)) = sent {
                    self.arrived.push((s, dst, len));
                }
                if next > now {
                    self.arrivals.draw(s, next);
                    break;
                }
            }
        }
        self.arrivals.file_drawn();
        self.arrivals.done(due);
    }

    /// (Re)draws every source's first arrival under `process`, each from the start of its
    /// stream.
    pub fn start(&mut self, process: Process) {
        let nodes = self.head.len();
        self.kind = process;
        self.process = Arrivals::new(process, self.rate);
        self.gens.clear();
        self.arrivals = Calendar::default();
        if let Some(a) = &self.process {
            self.gens.reserve(nodes);
            self.arrivals = Calendar::new(nodes, 1.0 / self.rate);
            for node in 0..nodes as u32 {
                let s = Source::new(self.seed, node, a);
                self.arrivals.insert(node, s.next_cycle());
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
            if q.lists.is_empty() {
                q.active.push(s);
            } else {
                q.lists[q.part[su] as usize].push(s);
            }
        }
    }

    /// Step 1: arrivals due this cycle join their source queues (none while draining).
    pub(super) fn generate(&mut self) {
        let topo = self.net.traffic_topo();
        self.sources
            .draw_arrivals(&mut self.traffic, topo, self.cycle, self.drain_only);
        self.queue_arrived();
    }

    /// Step 1's end: the messages [`Sources::draw_arrivals`] listed join their source queues,
    /// in order.
    pub(super) fn queue_arrived(&mut self) {
        for k in 0..self.sources.arrived.len() {
            if self.plan.prefetch {
                self.sources.ahead_arrived(k, &self.msgs.next);
            }
            let (s, dst, len) = self.sources.arrived[k];
            let m = self.msgs.alloc(s, dst, len, self.cycle, self.tie_bits());
            self.enqueue(s, m);
        }
        self.sources.arrived.clear();
    }

    /// Step 3: each source sends the next flit of its oldest message into a free injection
    /// buffer with space. Returns the number of flits injected.
    pub(super) fn inject(&mut self) -> u64 {
        if self.sources.concurrency > 1 {
            return self.inject_concurrent();
        }
        let Engine {
            net,
            sources: q,
            bufs,
            work,
            arbiters,
            msgs,
            cycle,
            drain_only,
            flits_in_net,
            backlog,
            plan,
            ..
        } = self;
        let dst = &msgs.dst;
        let mut one = Injector {
            head: View::whole(&mut q.head),
            buf: View::whole(&mut q.buf),
            link: View::whole(&mut q.link),
            sent: View::whole(&mut q.sent),
            bufs: View::whole(&mut bufs.buf),
            chans: View::whole(&mut arbiters.chan),
            active: &mut work.active,
            heads: Some(&mut work.heads).filter(|h| h.on()),
            inject: View::whole(&mut msgs.inject),
            len: &msgs.len,
            next: &msgs.next,
            vcs: net.vcs,
            inj_vcs: net.inj_vcs,
            depth: net.depth,
            now: *cycle,
            counting: arbiters.counting,
        };
        let (injected, finished) = one.list(
            &mut q.active,
            &mut q.listed,
            *drain_only,
            plan.prefetch,
            |s, m| match net.attach {
                1 => net.injection_channel(s),
                _ => net.injection_link(s, dst[m as usize]),
            },
        );
        *flits_in_net += injected;
        *backlog -= finished;
        injected
    }

    /// Step 3 with `source_concurrency` > 1: each source sends one flit, of the first of its
    /// injection buffers after the one that sent its last flit (round-robin) that can take one:
    /// a buffer whose message is being injected and had space at the start of the cycle, or
    /// the lowest free buffer if fewer than `concurrency` messages are being injected and one
    /// is queued (its oldest then starts there). Returns the number of flits injected.
    #[inline(never)]
    fn inject_concurrent(&mut self) -> u64 {
        let net = &self.net;
        let depth = net.depth;
        let vcs = net.vcs;
        let q = &mut self.sources;
        let w = q.width;
        let most = q.concurrency as u8;
        let (bufs, work) = (&mut self.bufs, &mut self.work);
        let now = self.cycle;
        let mut injected = 0;
        let mut i = 0;
        while i < q.active.len() {
            let s = q.active[i] as usize;
            // Only k-ary n-cubes and HyperX have several injection buffers: one channel each.
            let link = net.injection_channel(s as u32);
            let base = (link * vcs) as usize;
            let slots = s * w;
            let fly = &mut q.fly_msg[slots..slots + w];
            // The lowest free injection buffer, if the oldest queued message may start.
            let start = if q.head[s] != NONE && q.fly_count[s] < most && !self.drain_only {
                (0..w).find(|&k| bufs.buf[base + k].msg == NONE)
            } else {
                None
            };
            let last = q.fly_rr[s] as usize;
            let mut pick = None;
            for j in 1..=w {
                let k = if last + j >= w {
                    last + j - w
                } else {
                    last + j
                };
                let ready = if fly[k] != NONE {
                    bufs.buf[base + k].cnt < depth
                } else {
                    start == Some(k)
                };
                if ready {
                    pick = Some(k);
                    break;
                }
            }
            let Some(k) = pick else {
                i += 1;
                continue;
            };
            let t = base + k;
            let mut m = fly[k];
            if m == NONE {
                m = q.head[s];
                q.head[s] = self.msgs.next[m as usize];
                fly[k] = m;
                q.fly_sent[slots + k] = 0;
                q.fly_count[s] += 1;
                let tb = &mut bufs.buf[t];
                tb.msg = m;
                tb.sent = 0;
                tb.last = now as u32;
                if work.heads.on() {
                    work.heads.insert(t as u32);
                }
                self.msgs.inject[m as usize] = now;
                self.arbiters.chan[link as usize].msgs += self.arbiters.counting;
            }
            self.arbiters.chan[link as usize].flits += self.arbiters.counting;
            bufs.buf[t].cnt += 1;
            work.track(&mut bufs.buf, t as u32);
            self.flits_in_net += 1;
            injected += 1;
            q.fly_rr[s] = k as u8;
            q.fly_sent[slots + k] += 1;
            if q.fly_sent[slots + k] == self.msgs.len[m as usize] {
                fly[k] = NONE;
                q.fly_count[s] -= 1;
                self.backlog -= 1;
                if q.head[s] == NONE && q.fly_count[s] == 0 {
                    q.listed[s] = false;
                    q.active.swap_remove(i);
                    continue;
                }
            }
            i += 1;
        }
        injected
    }

    /// Messages of source `s` being injected now: holding an injection buffer, some of their
    /// flits not yet injected (at most `[traffic] source_concurrency`). For tests.
    pub fn source_in_flight(&self, s: u32) -> u32 {
        let q = &self.sources;
        let su = s as usize;
        if q.concurrency > 1 {
            q.fly_count[su] as u32
        } else {
            (q.sent[su] > 0) as u32
        }
    }

    /// Total length in flits of the messages being injected (some of their flits already in
    /// the network): what a drain-only run still injects.
    pub(super) fn started_flits(&self) -> u64 {
        let q = &self.sources;
        let len = |m: u32| self.msgs.len[m as usize] as u64;
        if q.concurrency > 1 {
            q.fly_msg
                .iter()
                .filter(|&&m| m != NONE)
                .map(|&m| len(m))
                .sum()
        } else {
            (0..q.head.len())
                .filter(|&s| q.sent[s] > 0)
                .map(|s| len(q.head[s]))
                .sum()
        }
    }

    /// The tail of message `m` was ejected this cycle.
    pub(super) fn deliver(&mut self, m: u32) {
        let mi = m as usize;
        self.ejected_msgs += 1;
        let created = self.msgs.created[mi];
        let inject = self.msgs.inject[mi];
        let hops = self.hops.take(m);
        let w = self.window;
        if created >= w.start && created < w.end {
            self.outstanding -= 1;
            let batch = ((created - w.start) * w.batches / (w.end - w.start)) as usize;
            self.stats.record(
                self.cycle - created,
                self.cycle - inject,
                hops.links as u32,
                batch,
            );
            self.stats.record_classes(hops.escape as u32);
        }
        if self.log_deliveries {
            self.deliveries.push(Delivery {
                src: self.msgs.src[mi],
                dst: self.msgs.dst[mi],
                len: self.msgs.len[mi],
                created,
                inject,
                eject: self.cycle,
                hops: hops.links,
            });
        }
        self.msgs.release(m);
    }
}

/// The sources' queues as a split cycle's partitions share them while they inject (one message
/// at a time per source, one injection channel per processor): each touches only its own
/// sources' entries.
pub(super) struct SharedSources<'a> {
    /// Each partition's list of its sources with a message queued.
    pub(super) lists: Shared<'a, Vec<u32>>,
    pub(super) head: Shared<'a, u32>,
    pub(super) buf: Shared<'a, u32>,
    pub(super) link: Shared<'a, u32>,
    pub(super) sent: Shared<'a, u16>,
    pub(super) listed: Shared<'a, bool>,
    /// Each message's injection cycle (written by its source's partition).
    pub(super) inject: Shared<'a, u64>,
}

impl Sources {
    /// True when a split cycle's partitions may inject their own sources: one message at a time
    /// per source (with `attach` 1, one injection channel per processor).
    pub(super) fn splittable(&self, attach: u32) -> bool {
        self.concurrency == 1 && attach == 1
    }

    /// The queues, and the messages' injection cycles `inject`, shared for one step.
    pub(super) fn shared<'a>(&'a mut self, inject: &'a mut [u64]) -> SharedSources<'a> {
        SharedSources {
            inject: Shared::new(inject),
            lists: Shared::new(&mut self.lists),
            head: Shared::new(&mut self.head),
            buf: Shared::new(&mut self.buf),
            link: Shared::new(&mut self.link),
            sent: Shared::new(&mut self.sent),
            listed: Shared::new(&mut self.listed),
        }
    }

    /// Lists the sources by a new partition (`part`) of a split cycle whose partitions inject
    /// their own sources; nothing otherwise. A source's place in its list changes nothing: each
    /// injects into its own channel.
    pub(super) fn repartition(&mut self, part: Vec<u8>) {
        if self.lists.is_empty() {
            return;
        }
        let listed: Vec<u32> = self.lists.iter_mut().flat_map(std::mem::take).collect();
        for s in listed {
            self.lists[part[s as usize] as usize].push(s);
        }
        self.part = part;
    }

    /// Lists the sources by partition (`part`, each source's, among `n`), for a split cycle
    /// whose partitions inject their own sources (`splittable`).
    pub(super) fn partition(&mut self, part: Vec<u8>, n: usize) {
        self.lists = vec![Vec::new(); n];
        for s in self.active.drain(..) {
            self.lists[part[s as usize] as usize].push(s);
        }
        self.part = part;
    }
}
