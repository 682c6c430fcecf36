//! The synchronous cycle engine.
//!
//! Each cycle: (1) sources generate messages due this cycle; (2) every buffer with a flit at its
//! front requests one output channel — a header routes and selects a free downstream buffer, a
//! body flit follows its message's buffer — if the downstream buffer has space; (3) each source
//! injects one flit into its injection channel; (4) each requested channel grants one requester,
//! round-robin over its driver slots, and the granted flits move one hop. Decisions in steps 2-4
//! read only the state at the start of the cycle, so the order of visiting routers never
//! matters. A header takes its downstream buffer in the cycle it wins the channel, so two
//! headers never take the same buffer.
//!
//! Timing (paper 000 eq. 8): the head flit crosses the injection channel in cycle t0, one link
//! per cycle, then the ejection channel; the tail follows M-1 cycles behind and is ejected in
//! cycle t0 + M + h. Network latency is the difference of those cycle numbers, M + h at zero
//! load, so there is no extra constant for injection and ejection. Full pipelining needs
//! buffers of at least 2 flits: a flit enters a buffer only if it had space at the start of
//! the cycle (credits return after one cycle), so 1-flit buffers pass a flit every other cycle.

mod active;
mod arbitration;
mod calendar;
mod crew;
mod crossbar;
mod diagnostics;
mod endpoints;
mod injection;
mod memory;
mod messages;
mod options;
mod partition;
mod parts;
mod prefetch;
mod probes;
mod request;
mod route_ahead;
mod run;
mod selection;
mod timing;

pub use endpoints::Delivery;
pub use partition::MAX_THREADS;
pub use partition::profile::{STEPS, SplitProfile};
pub use probes::{REFRESH, Span, Totals};
pub use run::{
    AUTO_SPLIT_BUFFERS, RunControl, SIMULATED, SIMULATED_STEP, build_engine, build_engine_on,
    run_engine, run_point, run_point_on,
};

use crate::network::{NONE, Network};
use crate::routing::{Candidates, Routing};
use crate::scenario::Selection;
use crate::stats::{LatencyStats, VcOccupancy};
use crate::traffic::Traffic;
use arbitration::{ask_arbiter, grant_arbiter};
use crossbar::InputPorts;
use endpoints::Sources;
use messages::Messages;
use parts::{
    ACTIVE, ASLEEP, Arbiters, Buffers, EarlyFree, IDLE, WaitLists, keep_asked, track, wake,
};
use rand_pcg::Pcg64;
use timing::{Event, LinkPipe};

/// The virtual channel of buffer `t` on channel `c` (of `vcs` each), without a division.
#[inline(always)]
fn vc_on(t: u32, c: usize, vcs: u32) -> u32 {
    t - c as u32 * vcs
}

/// The seed of the tie bits' stream of a point with seed `seed`.
pub fn tie_seed(seed: u64) -> u64 {
    crate::traffic::mix_seed(seed ^ 0x7E_5EED, 0x71E)
}

/// The tie bits of the message generated `serial`-th (from 0) under `tie = "random"`: bit d set
/// sends it `−` when it is exactly half-way round dimension d's ring.
pub fn tie_bits(tie_seed: u64, serial: u64) -> u32 {
    crate::traffic::mix_seed(tie_seed, serial) as u32
}

/// The measurement window: messages generated in `start..end` are measured.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: u64,
    end: u64,
    batches: u64,
}

/// The simulator of one load point: the wired network, its routing and traffic, and the
/// state of every buffer, arbiter, source and message, advanced one cycle at a time.
#[derive(Clone)]
pub struct Engine {
    /// The wired network.
    pub net: Network,
    routing: Routing,
    cand: Candidates,
    /// A one-pass cycle's headers routed a few visits ahead.
    ahead: route_ahead::RouteAhead,
    selection: Selection,
    /// One random stream per router for selection; only router 0's when the routing never
    /// chooses among candidates (dimension order), so a large network does not keep a stream
    /// per router that it never draws from.
    rngs: Vec<Pcg64>,
    /// Virtual channels `0..adaptive_vcs` are the routing's adaptive class; a hop on any
    /// other is an escape (or deterministic) hop.
    adaptive_vcs: u32,
    /// Destinations and lengths of the messages sources generate.
    pub traffic: Traffic,
    bufs: Buffers,
    waits: WaitLists,
    arbiters: Arbiters,
    early: EarlyFree,
    msgs: Messages,
    sources: Sources,
    /// Messages whose tail was ejected this cycle.
    delivered: Vec<u32>,
    /// The buffers (or arbiters) a step of the cycle visits, in id order (reused).
    visit: Vec<u32>,
    /// The network's state is larger than a cache: visits prefetch the lines they will need.
    far: bool,
    /// The buffers that may move this cycle, listed before injection for the one-pass grants.
    pull: Vec<u32>,
    /// In a one-pass cycle, the buffers that asked for a channel this cycle: those still
    /// waiting to send are put back on the active list after the grants.
    asked: Vec<u32>,

    // Probes: what the measurement reads (and each channel's counters in `arbiters`).
    occupancy: VcOccupancy,
    /// The current cycle.
    pub cycle: u64,
    /// Flits in router buffers.
    pub flits_in_net: u64,
    /// Messages generated and not yet fully injected.
    pub backlog: u64,
    /// Messages generated since the start.
    pub generated_msgs: u64,
    /// Flits ejected since the start.
    pub ejected_flits: u64,
    /// Messages ejected since the start.
    pub ejected_msgs: u64,
    /// Measured messages not yet delivered.
    pub outstanding: u64,
    /// Flits moved in the last cycle (links, injection and ejection).
    pub moved: u64,
    window: Window,
    /// Statistics of the measured messages.
    pub stats: LatencyStats,
    /// Log every delivery in `deliveries` (for tests).
    pub log_deliveries: bool,
    /// The deliveries logged.
    pub deliveries: Vec<Delivery>,
    /// No new messages: sources stop generating and only finish the message they are
    /// injecting (used to tell deadlock from congestion).
    drain_only: bool,
    /// Each message draws tie bits (`[routing] tie = "random"`).
    random_tie: bool,
    /// Router delay D: cycles a header waits at the front of its buffer before it may cross.
    delay: u32,
    /// Flits and credits in flight on links of more than one cycle (`link_latency`).
    pipe: LinkPipe,
    /// Input-port arbiters under `crossbar = "per-port"`.
    ports: InputPorts,
    /// The seed of the tie bits' stream: a hash of it and a message's serial number.
    tie_seed: u64,
    /// The cycle split across threads (`[run] threads_per_point`), or None: one thread.
    split: Option<Box<partition::Split>>,
}

impl Engine {
    /// An engine with Poisson sources of `rate` messages/node/cycle (0: no sources, messages
    /// only through `send`); [`Engine::with_process`] makes them Bernoulli.
    pub fn new(net: Network, routing: Routing, traffic: Traffic, rate: f64, seed: u64) -> Engine {
        Engine {
            cand: Candidates::default(),
            ahead: route_ahead::RouteAhead::default(),
            selection: Selection::Random,
            rngs: (0..if routing.candidates_fixed() {
                1
            } else {
                net.routers() as u64
            })
                .map(|r| {
                    Pcg64::new(
                        crate::traffic::mix_seed(seed ^ 0x5E1E_C710, r) as u128,
                        (r as u128) << 1 | 1,
                    )
                })
                .collect(),
            adaptive_vcs: routing.adaptive_vcs(),
            occupancy: VcOccupancy::new(net.links as usize, net.vcs),
            traffic,
            bufs: Buffers::new(&net, prefetch::far(&net)),
            waits: WaitLists::new(routing.candidates_fixed(), net.buffers()),
            arbiters: Arbiters::new(&net),
            early: EarlyFree::default(),
            msgs: Messages::default(),
            sources: Sources::new(net.nodes as usize, rate, seed),
            delivered: Vec::new(),
            visit: Vec::new(),
            far: prefetch::far(&net),
            pull: Vec::new(),
            asked: Vec::new(),
            cycle: 0,
            flits_in_net: 0,
            backlog: 0,
            generated_msgs: 0,
            ejected_flits: 0,
            ejected_msgs: 0,
            outstanding: 0,
            moved: 0,
            window: Window {
                start: u64::MAX,
                end: u64::MAX,
                batches: 1,
            },
            stats: LatencyStats::new(1),
            log_deliveries: false,
            deliveries: Vec::new(),
            drain_only: false,
            random_tie: false,
            delay: 0,
            pipe: LinkPipe::default(),
            ports: InputPorts::default(),
            tie_seed: tie_seed(seed),
            split: None,
            routing,
            net,
        }
    }

    /// Measures messages generated in cycles `start..end`, in `batches` batches for the CI.
    pub fn set_window(&mut self, start: u64, end: u64, batches: u32) {
        self.window = Window {
            start,
            end,
            batches: batches as u64,
        };
        self.stats =
            LatencyStats::new(batches).escapes_are_timeouts(self.routing.counts_timeouts());
    }

    /// Runs one cycle.
    pub fn step(&mut self) {
        if let Some(mut split) = self.split.take() {
            self.step_split(&mut split);
            self.split = Some(split);
            return;
        }
        self.generate();
        // Monomorphised so that k-ary n-cubes pay nothing for shared channels, early free or
        // the router and link timing beyond the papers' (TIMED).
        let timed = self.delay > 0 || self.pipe.on() || self.ports.on();
        // One pass (ONE) on a large network with the papers' router: step 2 visits only the
        // headers, and a body moves when the grants visit it, at once if its channel has no
        // other requester.
        let one = self.far && !self.net.shared && !self.early.on() && !timed;
        self.bufs.keep_heads(one);
        // The one-pass cycle keeps its active set as a list (`with_active_list`).
        // Its active set is a list (`active.rs`).
        self.bufs.active.keep_listing(one);
        match (self.net.shared, timed) {
            (false, false) if one => self.request::<false, false, true, true>(),
            (false, false) => self.request::<false, false, false, false>(),
            (false, true) => self.request::<false, true, false, false>(),
            (true, _) => self.request::<true, false, false, false>(),
        }
        let injected = self.inject();
        let granted = match (self.net.shared, self.early.on(), timed) {
            (false, false, false) if one => self.traverse::<false, false, false, true, true>(),
            (false, false, false) => self.traverse::<false, false, false, false, false>(),
            (false, false, true) => self.traverse::<false, false, true, false, false>(),
            (false, true, false) => self.traverse::<false, true, false, false, false>(),
            (false, true, true) => self.traverse::<false, true, true, false, false>(),
            (true, false, _) => self.traverse::<true, false, false, false, false>(),
            (true, true, _) => self.traverse::<true, true, false, false, false>(),
        };
        self.link_events();
        self.moved = injected + granted;
        self.next_cycle();
    }

    /// Step 4: every requested channel moves its granted flit one hop. Returns the flit count.
    fn traverse<
        const SHARED: bool,
        const EARLY: bool,
        const TIMED: bool,
        const ONE: bool,
        const LIST: bool,
    >(
        &mut self,
    ) -> u64 {
        let Engine {
            net,
            bufs,
            waits,
            arbiters,
            early,
            msgs,
            cycle,
            delivered,
            occupancy,
            adaptive_vcs,
            pipe,
            ports,
            visit,
            far,
            pull,
            asked,
            ..
        } = self;
        let far = *far;
        let no_up = bufs.no_up();
        let (buf, active, heads) = (&mut bufs.buf[..], &mut bufs.active, &mut bufs.heads);
        let Arbiters {
            chan: chans,
            drv_rr,
            requested,
            counting,
            ..
        } = arbiters;
        let counting = *counting;
        // Slices, not vectors, in the loop: their pointers stay in registers.
        let (chans, drv_rr) = (&mut chans[..], &mut drv_rr[..]);
        let now = *cycle as u32;
        let after = *cycle + 1;
        let (vcs, links, bufchans) = (net.vcs, net.links, net.buffered_channels());
        // Links of L > 1: flits and credits crossing them are events (timing.rs).
        let piped = TIMED && pipe.on();
        let link_bufs = links * vcs;
        let per_port = TIMED && ports.on();
        let mut ejected = 0;
        let mut moved = 0;
        // One grant: arbiter `$a`'s winner moves its flit (a macro, so that both loops below
        // have it inline).
        macro_rules! grant_one {
            ($a:expr) => {{
                let a: u32 = $a;
                moved += 1;
                let b = grant_arbiter::<SHARED>(net, chans, drv_rr, buf, a, u16::MAX);
                let src = &mut buf[b];
                if per_port {
                    ports.granted(b as u32 / vcs, b as u32 % vcs);
                }
                let ch = src.out_chan;
                let c = ch as usize;
                let m = src.msg;
                let header = src.sent == 0;
                let t = src.out_buf(bufchans, vcs);
                let len = msgs.len[m as usize];
                let up = src.up;
                let up_queued = if EARLY { early.up[b] } else { no_up };
                let was_full = src.feeder_may_sleep::<ONE>(net.depth);
                src.cnt -= 1;
                src.sent += 1;
                let tail = src.sent == len;
                let mut promoted = false;
                // Fed over a link of L > 1: its upstream learns of the space L cycles later.
                let credit_later = piped && (b as u32) < link_bufs;
                if tail && !credit_later {
                    src.msg = NONE;
                    if EARLY && early.queued[b] != NONE {
                        // Early free: the queued message's header is now at the front.
                        src.msg = std::mem::replace(&mut early.queued[b], NONE);
                        src.sent = 0;
                        src.up = std::mem::replace(&mut early.up[b], no_up);
                        promoted = true;
                    }
                }
                src.last = now;
                if ONE && header {
                    // Its header has left: no longer a header's buffer for step 2 to visit.
                    heads.remove(b as u32);
                }
                // A sender is active; it leaves the active set when it empties (a list's sender
                // stays by being put back).
                let empty = src.cnt == 0;
                src.state = if empty { IDLE } else { ACTIVE };
                active.sent::<LIST>(b as u32, empty);
                let out = &mut chans[c];
                out.flits += counting;
                out.msgs += header as u32 & counting;
                if credit_later {
                    pipe.schedule(*cycle, Event::Credit(b as u32, tail));
                } else if was_full {
                    // The upstream buffer of this message may send again: there is space here now.
                    wake::<LIST>(buf, active, up);
                }
                if EARLY {
                    // So may the upstream buffer of the message queued here.
                    wake::<LIST>(buf, active, up_queued);
                }
                if tail && !credit_later {
                    let freed = net.buf_channel(b as u32);
                    if freed < links && !promoted {
                        occupancy.change(freed as usize, false, after);
                    }
                    // A buffer of this channel is free: wake the headers waiting for one.
                    waits.wake_all::<LIST>(freed as usize, buf, active, chans);
                }
                if t != NONE {
                    let tu = t as usize;
                    let tb = &mut buf[tu];
                    let behind = EARLY && header && tb.msg != NONE;
                    if behind {
                        // Early free: the header queues behind the tail of the buffer's message.
                        early.queued[tu] = m;
                        early.up[tu] = b as u32;
                    } else if header {
                        tb.msg = m;
                        tb.sent = 0;
                        tb.up = b as u32;
                        tb.last = now;
                        if ONE {
                            heads.insert(t);
                        }
                    }
                    if header {
                        let mi = m as usize;
                        msgs.hops[mi] += 1;
                        msgs.escape[mi] += (vc_on(t, c, vcs) >= *adaptive_vcs) as u16;
                        if !behind {
                            occupancy.change(c, true, after);
                        }
                    }
                    let arrive_later = piped && c < links as usize;
                    if arrive_later {
                        // The flit is on the link for L cycles; upstream counts it at once.
                        pipe.held[tu] += 1;
                        pipe.schedule(*cycle, Event::Arrive(t, header));
                    } else {
                        tb.cnt += 1;
                    }
                    if tail && EARLY && early.queued[tu] == m {
                        early.up[tu] = no_up;
                    } else if tail {
                        tb.up = no_up;
                    }
                    if tail && EARLY {
                        // Early free: this buffer can take a new header now; wake those waiting.
                        waits.wake_all::<LIST>(c, buf, active, chans);
                    }
                    if !arrive_later {
                        track::<LIST>(buf, active, t, far);
                    }
                } else {
                    ejected += 1;
                    if tail {
                        delivered.push(m);
                    }
                }
            }};
        }
        // grant_one! for a body that the one-pass visit moves at once (ONE: no early free, no
        // timing): its channel had no request, so the grant only moves the turn to it, and
        // nothing a header or an ejection does applies.
        macro_rules! move_body {
            ($b:expr, $cur:expr, $c:expr, $t:expr) => {{
                let (b, cur, c, t): (usize, parts::Buf, usize, u32) = ($b, $cur, $c, $t);
                moved += 1;
                chans[c].rr = cur.slot;
                let len = msgs.len[cur.msg as usize];
                let was_full = cur.feeder_may_sleep::<true>(net.depth);
                let (tail, empty) = buf[b].send_front(len, now);
                active.sent::<LIST>(b as u32, empty);
                chans[c].flits += counting;
                if was_full {
                    wake::<LIST>(buf, active, cur.up);
                }
                if tail {
                    let freed = net.buf_channel(b as u32);
                    if freed < links {
                        occupancy.change(freed as usize, false, after);
                    }
                    waits.wake_all::<LIST>(freed as usize, buf, active, chans);
                }
                let tb = &mut buf[t as usize];
                tb.cnt += 1;
                if tail {
                    tb.up = no_up;
                }
                track::<LIST>(buf, active, t, far);
            }};
        }
        if ONE {
            // The bodies, in id order (in list order when the active set is a list, LIST): one
            // whose channel has no other requester (no header asked for it, no other of its
            // buffers has a feeder) moves at once; the others ask as in step 2, for the grants
            // below. A decision reads the start of the cycle, so the order changes nothing: a
            // downstream buffer that has sent this cycle (stamp `last`) had one flit more. A
            // list's body that stays active is put back on it; one that asks, after the grants.
            for k in 0..pull.len() {
                prefetch::pull_ahead::<LIST>(
                    k,
                    pull,
                    buf,
                    chans,
                    active,
                    occupancy.links(),
                    &msgs.len,
                    net,
                );
                let b = pull[k] as usize;
                let cur = buf[b];
                if cur.sent == 0 {
                    // A header: it asked in step 2 (and is put back after the grants).
                    continue;
                }
                debug_assert!(cur.state == ACTIVE && cur.last != now);
                let c = cur.out_chan;
                let t = cur.out_buf(bufchans, vcs);
                if t != NONE {
                    let tt = &buf[t as usize];
                    let t_sent = tt.last == now;
                    if tt.cnt + t_sent as u16 >= net.depth {
                        // Wormhole blocking: asleep, unless the wake-up has passed this cycle.
                        if t_sent {
                            active.keep::<LIST>(b as u32);
                        } else {
                            active.leave::<LIST>(b as u32);
                            buf[b].state = ASLEEP;
                        }
                        continue;
                    }
                    let contended = chans[c as usize].best != parts::NO_REQUEST
                        || parts::rival_fed(buf, c, t, vcs, no_up);
                    if !contended {
                        move_body!(b, cur, c as usize, t);
                        continue;
                    }
                }
                // A contended channel, or an ejection channel (which many messages may share):
                // it asks as in step 2.
                requested.insert(ask_arbiter::<SHARED>(net, chans, drv_rr, c, b, cur.slot));
                if LIST {
                    asked.push(b as u32);
                }
            }
        }
        if far {
            // In id order, each grant's lines asked for a few grants ahead: the arbiter, then
            // its winner's buffer, then the winner's downstream and upstream buffers.
            visit.clear();
            requested.drain_into(visit);
            for i in 0..visit.len() {
                prefetch::traverse_ahead::<ONE, LIST>(
                    i,
                    visit,
                    buf,
                    chans,
                    active,
                    heads,
                    occupancy.links(),
                    &msgs.len,
                    net,
                );
                grant_one!(visit[i]);
            }
        } else {
            requested.drain(|a| grant_one!(a));
        }
        if LIST {
            keep_asked(asked, buf, active, now);
        }
        self.flits_in_net -= ejected;
        self.ejected_flits += ejected;
        for k in 0..self.delivered.len() {
            let m = self.delivered[k];
            self.deliver(m);
        }
        self.delivered.clear();
        moved
    }

    /// Messages queued in a buffer behind another message's tail (early free).
    pub fn early_queued(&self) -> usize {
        self.early.queued.iter().filter(|&&m| m != NONE).count()
    }

    /// Messages allocated (queued at sources or in the network).
    pub fn live_messages(&self) -> usize {
        self.msgs.live()
    }

    /// True when no flit is in the network and no message waits at a source.
    pub fn idle(&self) -> bool {
        self.flits_in_net == 0 && self.backlog == 0
    }

    /// True when idle and no credit is still on its way back (links of L > 1): every buffer
    /// is free for the next message.
    pub fn settled(&self) -> bool {
        self.idle() && self.pipe.empty()
    }
}
