//! The network's endpoints: the sources (Poisson, Bernoulli or on-off) and their FIFO queues, injection
//! into the injection buffers (step 1 and step 3 of the cycle), and delivery of ejected
//! messages.
//!
//! A source injects one message at a time by default. With `[traffic] source_concurrency` =
//! c > 1, up to c of its oldest messages hold injection virtual channels at once (paper 000's
//! eq. 27 splits the source among the V injection virtual channels); their flits share the
//! injection channel, one per cycle, round-robin over the source's injection buffers.
//!
//! With `[traffic] reply_length`, each processor counts its open requests (generated, reply
//! not yet delivered); with `max_outstanding` = n a source with n open requests is suspended:
//! its pending arrival waits, its clock stopped, until a reply arrives (BookSim's closed loop).

mod closed_loop;

use super::calendar::Calendar;
use super::injection::Injector;
use super::messages::Messages;
use super::parts::{Arbiters, Buf};
use super::prefetch::{AHEAD, prefetch};
use super::step::Working;
use crate::network::{NONE, Network};
use crate::records::{Shared, View};
use crate::scenario::Process;
use crate::traffic::{Arrivals, Burst, Source, Traffic};

/// One delivered message, logged when `Engine::log_deliveries` is set (for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// The message's slot, as [`super::Engine::send`] returned it.
    pub msg: u32,
    /// Source processor.
    pub src: u32,
    /// Destination processor.
    pub dst: u32,
    /// Length in flits.
    pub len: u16,
    /// Cycle the message was generated (a reply: its request's).
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
    /// Each source's own arrival process when their rates differ (a traffic matrix), else
    /// empty: every source draws from `process`.
    own: Vec<Arrivals>,
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
    /// With replies (`[traffic] reply_length`), each processor's open requests: generated,
    /// their reply not yet delivered; else empty.
    open: Vec<u32>,
    /// `[traffic] max_outstanding` n: a source with n open requests is suspended (0: never).
    most: u32,
    /// The sources suspended at `most` open requests, their pending arrival held.
    parked: Vec<bool>,
}

impl Sources {
    /// Bytes of the sources' streams, arrival heap, queues and injection state.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.gens)
            + vec_bytes(&self.own)
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
            + vec_bytes(&self.open)
            + vec_bytes(&self.parked)
    }

    /// `nodes` Poisson sources of `rate` messages/cycle each (0: none), seeded from `seed`.
    pub fn new(nodes: usize, rate: f64, seed: u64) -> Sources {
        let mut s = Sources {
            process: None,
            own: Vec::new(),
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
            open: Vec::new(),
            most: 0,
            parked: Vec::new(),
        };
        s.start(Process::Poisson, Burst::default(), None);
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
    /// lists the messages in the order they join their queues (`Sources::arrived`);
    /// none while `draining`. It touches no buffer, channel or message, so a split cycle runs
    /// it beside its requests.
    pub(super) fn draw_arrivals(&mut self, traffic: &mut Traffic, now: u64, draining: bool) {
        let Some(process) = self.process else {
            return;
        };
        if draining || !self.arrivals.any_due(now) {
            return;
        }
        let due = self.arrivals.take_due(&self.gens, now);
        let own = &self.own;
        for &s in &due {
            let process = if own.is_empty() {
                &process
            } else {
                &own[s as usize]
            };
            // A source's arrivals due this cycle come before the next source's.
            let mut drawn = 0;
            loop {
                if self.most > 0 && self.open[s as usize] + drawn >= self.most {
                    // Suspended: the arrival waits for a reply (`request_closed`).
                    self.parked[s as usize] = true;
                    break;
                }
                let src = &mut self.gens[s as usize];
                let rng = src.arrive(process);
                let sent = traffic.message(s, rng);
                let next = src.next_cycle();
                if let Some((dst, len)) = sent {
                    self.arrived.push((s, dst, len));
                    drawn += 1;
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

    /// (Re)draws every source's first arrival under `process` (on-off bursts shaped by
    /// `burst`), each from the start of its stream; with `weights`, source s generates at λ
    /// times `weights[s]`, and one of weight 0 never.
    pub fn start(&mut self, process: Process, burst: Burst, weights: Option<&[f64]>) {
        let nodes = self.head.len();
        self.kind = process;
        self.process = Arrivals::new(process, self.rate, burst);
        self.own.clear();
        self.gens.clear();
        self.arrivals = Calendar::default();
        if let Some(a) = self.process {
            self.gens.reserve(nodes);
            self.arrivals = Calendar::new(nodes, 1.0 / self.rate);
            for node in 0..nodes as u32 {
                let w = weights.map_or(1.0, |w| w[node as usize]);
                let own = match weights {
                    Some(_) => Arrivals::new(process, self.rate * w, burst),
                    None => Some(a),
                };
                let s = Source::new(self.seed, node, own.as_ref().unwrap_or(&a));
                if own.is_some() {
                    self.arrivals.insert(node, s.next_cycle());
                }
                if weights.is_some() {
                    self.own.push(own.unwrap_or(a));
                }
                self.gens.push(s);
            }
        }
    }
}

/// What step 3 changes besides the sources: the injection buffers and their working sets, the
/// injection channels' records and the messages' injection cycles.
pub(super) struct Injecting<'a> {
    /// The wired network.
    pub net: &'a Network,
    /// The buffer records.
    pub bufs: &'a mut [Buf],
    /// The one thread's working sets.
    pub work: &'a mut Working,
    /// The channels' records.
    pub arbiters: &'a mut Arbiters,
    /// The messages.
    pub msgs: &'a mut Messages,
    /// The current cycle.
    pub now: u64,
    /// No new message starts (only those being injected finish).
    pub drain_only: bool,
    /// Prefetch the records the next sources will need (`Plan::prefetch`).
    pub far: bool,
}

impl Sources {
    /// Message `m` joins the queue of source `s` (`next`: the messages' queue links), which
    /// is listed if it was not.
    pub(super) fn enqueue(&mut self, s: u32, m: u32, next: &mut [u32]) {
        let su = s as usize;
        if self.head[su] == NONE {
            self.head[su] = m;
        } else {
            next[self.tail[su] as usize] = m;
        }
        self.tail[su] = m;
        if !self.listed[su] {
            self.listed[su] = true;
            if self.lists.is_empty() {
                self.active.push(s);
            } else {
                self.lists[self.part[su] as usize].push(s);
            }
        }
    }

    /// The messages drawn this cycle (`draw_arrivals`), in the order they join their queues.
    pub(super) fn arrived(&self) -> &[(u32, u32, u16)] {
        &self.arrived
    }

    /// Forgets the messages drawn, once they have joined their queues.
    pub(super) fn arrived_done(&mut self) {
        self.arrived.clear();
    }

    /// Step 3: each source sends the next flit of its oldest message into a free injection
    /// buffer with space. Returns the flits injected and the messages whose tail was.
    pub(super) fn inject(&mut self, at: Injecting) -> (u64, u64) {
        if self.concurrency > 1 {
            return self.inject_concurrent(at);
        }
        let Injecting {
            net,
            bufs,
            work,
            arbiters,
            msgs,
            ..
        } = at;
        let dst = &msgs.dst;
        let mut one = Injector {
            head: View::whole(&mut self.head),
            buf: View::whole(&mut self.buf),
            link: View::whole(&mut self.link),
            sent: View::whole(&mut self.sent),
            bufs: View::whole(bufs),
            chans: View::whole(&mut arbiters.chan),
            active: &mut work.active,
            heads: Some(&mut work.heads).filter(|h| h.on()),
            inject: View::whole(&mut msgs.inject),
            len: &msgs.len,
            next: &msgs.next,
            vcs: net.vcs,
            inj_vcs: net.inj_vcs,
            depth: net.depth,
            now: at.now,
            counting: arbiters.counting,
        };
        one.list(
            &mut self.active,
            &mut self.listed,
            at.drain_only,
            at.far,
            |s, m| match net.attach {
                1 => net.injection_channel(s),
                _ => net.injection_link(s, dst[m as usize]),
            },
        )
    }

    /// Step 3 with `source_concurrency` > 1: each source sends one flit, of the first of its
    /// injection buffers after the one that sent its last flit (round-robin) that can take one:
    /// a buffer whose message is being injected and had space at the start of the cycle, or
    /// the lowest free buffer if fewer than `concurrency` messages are being injected and one
    /// is queued (its oldest then starts there). Returns the flits injected and the messages
    /// whose tail was.
    #[inline(never)]
    fn inject_concurrent(&mut self, at: Injecting) -> (u64, u64) {
        let Injecting {
            net,
            bufs,
            work,
            arbiters,
            msgs,
            now,
            drain_only,
            ..
        } = at;
        let (depth, vcs) = (net.depth, net.vcs);
        let w = self.width;
        let most = self.concurrency as u8;
        let (mut injected, mut finished) = (0, 0);
        let mut i = 0;
        while i < self.active.len() {
            let s = self.active[i] as usize;
            // Only k-ary n-cubes and HyperX have several injection buffers: one channel each.
            let link = net.injection_channel(s as u32);
            let base = (link * vcs) as usize;
            let slots = s * w;
            let fly = &mut self.fly_msg[slots..slots + w];
            // The lowest free injection buffer, if the oldest queued message may start.
            let start = if self.head[s] != NONE && self.fly_count[s] < most && !drain_only {
                (0..w).find(|&k| bufs[base + k].msg == NONE)
            } else {
                None
            };
            let last = self.fly_rr[s] as usize;
            let mut pick = None;
            for j in 1..=w {
                let k = if last + j >= w {
                    last + j - w
                } else {
                    last + j
                };
                let ready = if fly[k] != NONE {
                    bufs[base + k].cnt < depth
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
                m = self.head[s];
                self.head[s] = msgs.next[m as usize];
                fly[k] = m;
                self.fly_sent[slots + k] = 0;
                self.fly_count[s] += 1;
                let tb = &mut bufs[t];
                tb.msg = m;
                tb.sent = 0;
                tb.last = now as u32;
                if work.heads.on() {
                    work.heads.insert(t as u32);
                }
                msgs.inject[m as usize] = now;
                arbiters.chan[link as usize].msgs += arbiters.counting;
            }
            arbiters.chan[link as usize].flits += arbiters.counting;
            bufs[t].cnt += 1;
            work.track(bufs, t as u32);
            injected += 1;
            self.fly_rr[s] = k as u8;
            self.fly_sent[slots + k] += 1;
            if self.fly_sent[slots + k] == msgs.len[m as usize] {
                fly[k] = NONE;
                self.fly_count[s] -= 1;
                finished += 1;
                if self.head[s] == NONE && self.fly_count[s] == 0 {
                    self.listed[s] = false;
                    self.active.swap_remove(i);
                    continue;
                }
            }
            i += 1;
        }
        (injected, finished)
    }

    /// Messages of source `s` being injected now: holding an injection buffer, some of their
    /// flits not yet injected (at most `[traffic] source_concurrency`).
    pub(super) fn in_flight(&self, s: u32) -> u32 {
        let su = s as usize;
        if self.concurrency > 1 {
            self.fly_count[su] as u32
        } else {
            (self.sent[su] > 0) as u32
        }
    }

    /// Total length in flits (`len` of each message) of the messages being injected (some of
    /// their flits already in the network): what a drain-only run still injects.
    pub(super) fn started_flits(&self, len: &[u16]) -> u64 {
        let len = |m: u32| len[m as usize] as u64;
        if self.concurrency > 1 {
            self.fly_msg
                .iter()
                .filter(|&&m| m != NONE)
                .map(|&m| len(m))
                .sum()
        } else {
            (0..self.head.len())
                .filter(|&s| self.sent[s] > 0)
                .map(|s| len(self.head[s]))
                .sum()
        }
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
