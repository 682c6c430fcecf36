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
mod diagnostics;
mod endpoints;
mod messages;

mod run;
mod selection;

pub use run::{RunControl, build_engine, run_engine, run_point};

use crate::network::{NONE, Network};
use crate::routing::{Candidates, Routing};
use crate::scenario::Selection;
use crate::stats::{Counters, LatencyStats, VcOccupancy};
use crate::traffic::{Source, Traffic};
use active::ActiveSet;
use messages::Messages;
use rand_distr::Exp;
use rand_pcg::Pcg64;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

const NO_REQUEST: u64 = u64::MAX;

/// Where a buffer is tracked: not at all (empty), on the active list (visited every cycle),
/// or asleep until an event can unblock it (work proportional to activity).
const IDLE: u8 = 0;
const ACTIVE: u8 = 1;
const ASLEEP: u8 = 2;

/// The state of one buffer (virtual channel), packed so that a visit touches one cache line.
#[derive(Clone, Copy, Debug)]
struct Buf {
    /// Message holding the buffer, or NONE when free.
    msg: u32,
    /// Downstream buffer of the message (NONE: ejection), valid once the header has left.
    out_buf: u32,
    /// Output channel of the message, valid once the header has left.
    out_chan: u32,
    /// Downstream buffer the header asked for this cycle.
    want: u32,
    /// Buffer that feeds this one the rest of its message; once the tail has arrived, the
    /// sentinel `nbuf` (an extra entry of `b_state` that is never asleep).
    up: u32,
    /// Cycle (mod 2^32) a flit last left, or the message arrived (deadlock watchdog).
    last: u32,
    /// Flits present.
    cnt: u16,
    /// Flits of the message that have left this buffer.
    sent: u16,
    /// Length of the message in flits.
    len: u16,
    /// Driver slot at the router (static).
    slot: u16,
}

/// Round-robin arbitration state of one arbiter (a channel, or a shared m-way channel).
#[derive(Clone, Copy, Debug)]
struct Arb {
    /// The best request this cycle, `key << 32 | buffer`, where key is the requester's
    /// round-robin distance after the last grant (smallest wins); NO_REQUEST if none.
    best: u64,
    /// Slot granted last.
    rr: u16,
    /// Number of driver slots (static).
    drivers: u16,
}

/// Wakes buffer `b` if it is asleep.
#[inline]
fn wake(b: u32, b_state: &mut [u8], active: &mut ActiveSet) {
    let asleep = b_state[b as usize] == ASLEEP;
    b_state[b as usize] = if asleep { ACTIVE } else { b_state[b as usize] };
    active.insert_if(b, asleep);
}

/// Wakes every header on a channel's wait list (head, links) and empties the list.
#[inline]
fn wake_waiters(
    (head, next): (&mut u32, &mut [u32]),
    b_wait_chan: &mut [u32],
    b_state: &mut [u8],
    active: &mut ActiveSet,
) {
    let mut w = std::mem::replace(head, NONE);
    while w != NONE {
        let wu = w as usize;
        let n = next[wu];
        next[wu] = NONE;
        b_wait_chan[wu] = NONE;
        wake(w, b_state, active);
        w = n;
    }
}

/// One delivered message, logged when `Engine::log_deliveries` is set (for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub src: u32,
    pub dst: u32,
    pub len: u16,
    pub created: u64,
    pub inject: u64,
    pub eject: u64,
    pub hops: u16,
}

/// The measurement window: messages generated in `start..end` are measured.
#[derive(Clone, Copy, Debug)]
struct Window {
    start: u64,
    end: u64,
    batches: u64,
}

#[derive(Clone)]
pub struct Engine {
    pub net: Network,
    routing: Routing,
    cand: Candidates,
    selection: Selection,
    /// One random stream per router for selection.
    rngs: Vec<Pcg64>,
    /// Virtual channels `0..adaptive_vcs` are the adaptive class a.
    adaptive_vcs: u32,
    counts_timeouts: bool,
    occupancy: VcOccupancy,
    pub traffic: Traffic,
    exp: Option<Exp<f64>>,

    // Buffer state, indexed by buffer id.
    bufs: Vec<Buf>,
    /// IDLE, ACTIVE or ASLEEP.
    b_state: Vec<u8>,
    /// Next header in the same channel's wait list.
    b_wait_next: Vec<u32>,
    /// Channel whose wait list holds the buffer's blocked header, or NONE.
    b_wait_chan: Vec<u32>,
    /// Buffers that may hold flits and may move (those with none are dropped lazily).
    active: ActiveSet,

    // Arbiter state, indexed by arbiter id (`Network::arb_of`).
    arbs: Vec<Arb>,
    /// Turn granted last in each driver (second level of shared-channel round-robin).
    drv_rr: Vec<u8>,

    // Channel state, indexed by channel id.
    /// Flits and headers (messages) that crossed each channel, since the start.
    pub c_flits: Vec<u64>,
    pub c_msgs: Vec<u64>,
    /// Arbiters with a request this cycle.
    requested: ActiveSet,
    /// Messages whose tail was ejected this cycle.
    delivered: Vec<u32>,
    /// Head of each channel's list of headers asleep until one of its buffers frees.
    c_wait: Vec<u32>,
    /// Headers may sleep while blocked: the routing's candidates never change while waiting.
    sleep_headers: bool,

    // Early free (paper 004 section 3.5), indexed by buffer; empty when off. A buffer whose
    // message's tail has arrived may take the next message's header, which queues behind it.
    /// The message queued behind the buffer's message, or NONE.
    queued: Vec<u32>,
    /// Its length in flits.
    q_len: Vec<u16>,
    /// Its upstream buffer, or the sentinel `nbuf` once its tail has arrived.
    q_up: Vec<u32>,

    msgs: Messages,
    sources: Vec<Source>,
    q_head: Vec<u32>,
    q_tail: Vec<u32>,
    s_buf: Vec<u32>,
    /// Injection channel of the message being injected.
    s_link: Vec<u32>,
    s_sent: Vec<u16>,
    s_listed: Vec<bool>,
    active_src: Vec<u32>,
    arrivals: BinaryHeap<Reverse<(u64, u32)>>,

    pub cycle: u64,
    /// Flits in router buffers.
    pub flits_in_net: u64,
    /// Messages generated and not yet fully injected.
    pub backlog: u64,
    pub generated_msgs: u64,
    pub ejected_flits: u64,
    pub ejected_msgs: u64,
    /// Measured messages not yet delivered.
    pub outstanding: u64,
    /// Flits moved in the last cycle (links, injection and ejection).
    pub moved: u64,
    window: Window,
    pub stats: LatencyStats,
    pub log_deliveries: bool,
    pub deliveries: Vec<Delivery>,
    /// No new messages: sources stop generating and only finish the message they are
    /// injecting (used to tell deadlock from congestion).
    drain_only: bool,
}

impl Engine {
    /// An engine with Poisson sources of `rate` messages/node/cycle (0: no sources, messages
    /// only through `send`).
    pub fn new(net: Network, routing: Routing, traffic: Traffic, rate: f64, seed: u64) -> Engine {
        let nbuf = net.buffers();
        let nchan = net.channels();
        let nodes = net.nodes as usize;
        let exp = (rate > 0.0).then(|| Exp::new(rate).expect("positive rate"));
        let sleep_headers = routing.candidates_fixed();
        let mut sources = Vec::new();
        let mut arrivals = BinaryHeap::new();
        if let Some(e) = &exp {
            sources.reserve(nodes);
            arrivals.reserve(nodes);
            for node in 0..nodes as u32 {
                let s = Source::new(seed, node, e);
                arrivals.push(Reverse((s.next_cycle(), node)));
                sources.push(s);
            }
        }
        let adaptive_vcs = routing.adaptive_vcs();
        let counts_timeouts = routing.counts_timeouts();
        Engine {
            routing,
            cand: Candidates::default(),
            selection: Selection::Random,
            rngs: (0..net.routers() as u64)
                .map(|r| {
                    Pcg64::new(
                        crate::traffic::mix_seed(seed ^ 0x5E1E_C710, r) as u128,
                        (r as u128) << 1 | 1,
                    )
                })
                .collect(),
            adaptive_vcs,
            counts_timeouts,
            occupancy: VcOccupancy::new(net.links as usize, net.vcs),
            traffic,
            exp,
            bufs: (0..nbuf)
                .map(|b| Buf {
                    msg: NONE,
                    out_buf: NONE,
                    out_chan: NONE,
                    want: NONE,
                    up: nbuf as u32,
                    last: 0,
                    cnt: 0,
                    sent: 0,
                    len: 0,
                    slot: net.buf_slot[b],
                })
                .collect(),
            b_state: vec![IDLE; nbuf + 1],
            b_wait_next: vec![NONE; nbuf],
            b_wait_chan: vec![NONE; nbuf],
            active: ActiveSet::new(nbuf + 1),
            arbs: net
                .arb_drivers
                .iter()
                .map(|&d| Arb {
                    best: NO_REQUEST,
                    rr: d.saturating_sub(1),
                    drivers: d,
                })
                .collect(),
            drv_rr: vec![0; net.driver_size.len()],
            c_flits: vec![0; nchan],
            c_msgs: vec![0; nchan],
            requested: ActiveSet::new(net.arb_drivers.len()),
            delivered: Vec::new(),
            c_wait: vec![NONE; nchan],
            sleep_headers,
            queued: Vec::new(),
            q_len: Vec::new(),
            q_up: Vec::new(),
            msgs: Messages::default(),
            sources,
            q_head: vec![NONE; nodes],
            q_tail: vec![NONE; nodes],
            s_buf: vec![NONE; nodes],
            s_link: vec![NONE; nodes],
            s_sent: vec![0; nodes],
            s_listed: vec![false; nodes],
            active_src: Vec::new(),
            arrivals,
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
            net,
        }
    }

    /// Lets a buffer take a new header once its message's tail has arrived (early free);
    /// deadlock-free with dimension-order routing, the only routing the scenario allows it with.
    pub fn with_early_free(mut self, on: bool) -> Engine {
        let nbuf = self.bufs.len();
        if on {
            self.queued = vec![NONE; nbuf];
            self.q_len = vec![0; nbuf];
            self.q_up = vec![nbuf as u32; nbuf];
        }
        self
    }

    /// Sets how headers choose among free candidates (default: random).
    pub fn with_selection(mut self, selection: Selection) -> Engine {
        self.selection = selection;
        self
    }

    /// The cumulative counters a measurement window is read from.
    pub fn counters(&self) -> Counters {
        Counters {
            flits: self.c_flits.clone(),
            msgs: self.c_msgs.clone(),
            ejected_flits: self.ejected_flits,
            ejected_msgs: self.ejected_msgs,
            generated: self.generated_msgs,
        }
    }

    /// Starts the virtual-channel occupancy measurement now.
    pub fn reset_occupancy(&mut self) {
        self.occupancy.reset(self.cycle);
    }

    /// P_v, v = 0..V, since `reset_occupancy`.
    pub fn vc_occupancy(&mut self) -> Vec<f64> {
        self.occupancy.distribution(self.cycle)
    }

    /// Measures messages generated in cycles `start..end`, in `batches` batches for the CI.
    pub fn set_window(&mut self, start: u64, end: u64, batches: u32) {
        self.window = Window {
            start,
            end,
            batches: batches as u64,
        };
        self.stats = LatencyStats::new(batches);
    }

    /// Runs one cycle.
    pub fn step(&mut self) {
        self.generate();
        // Monomorphised so that k-ary n-cubes pay nothing for shared channels or early free.
        match self.net.shared {
            true => self.request::<true>(),
            false => self.request::<false>(),
        }
        let injected = self.inject();
        let granted = match (self.net.shared, !self.queued.is_empty()) {
            (false, false) => self.traverse::<false, false>(),
            (false, true) => self.traverse::<false, true>(),
            (true, false) => self.traverse::<true, false>(),
            (true, true) => self.traverse::<true, true>(),
        };
        self.moved = injected + granted;
        self.cycle += 1;
    }

    /// Step 2: each buffer with a flit at its front asks for one output channel; each channel
    /// keeps the requester that comes first in round-robin order after its last grant.
    fn request<const SHARED: bool>(&mut self) {
        let Engine {
            net,
            routing,
            cand,
            selection,
            rngs,
            bufs,
            b_state,
            b_wait_next,
            b_wait_chan,
            active,
            arbs,
            drv_rr,
            requested,
            c_wait,
            msgs,
            sleep_headers,
            queued,
            cycle,
            ..
        } = self;
        let depth = net.depth;
        let now = *cycle as u32;
        active.for_each(|active, b32| {
            let b = b32 as usize;
            let buf = bufs[b];
            let ch = if buf.sent > 0 {
                let t = buf.out_buf;
                if t != NONE && bufs[t as usize].cnt >= depth {
                    // Wormhole blocking: asleep until the downstream buffer sends a flit.
                    active.remove(b32);
                    b_state[b] = ASLEEP;
                    return;
                }
                buf.out_chan
            } else {
                let dst = msgs.dst[buf.msg as usize];
                let at = net.buf_router[b];
                // The header arrived (stamp `last`) and was first routed the next cycle.
                let waited = now.wrapping_sub(buf.last).wrapping_sub(1) as u64;
                routing.route(net, at, dst, b32, waited, cand);
                match selection::select(net, bufs, queued, cand, *selection, &mut rngs[at as usize])
                {
                    Some((ch, t)) => {
                        bufs[b].want = t;
                        bufs[b].out_chan = ch;
                        ch
                    }
                    None => {
                        if *sleep_headers {
                            // Asleep until a buffer of its only channel frees.
                            let ch = cand.as_slice()[0].chan;
                            if b_wait_chan[b] != ch {
                                b_wait_chan[b] = ch;
                                b_wait_next[b] = c_wait[ch as usize];
                                c_wait[ch as usize] = b32;
                            }
                            active.remove(b32);
                            b_state[b] = ASLEEP;
                        }
                        return;
                    }
                }
            };
            let a = if SHARED { net.arb_of[ch as usize] } else { ch };
            let arb = &mut arbs[a as usize];
            // Round-robin: the first slot after the last grant wins.
            let k = buf.slot + arb.drivers - arb.rr - 1;
            let mut key = (if k >= arb.drivers { k - arb.drivers } else { k }) as u64;
            if SHARED {
                // Then, within the driver, the first turn after its last grant.
                let d = net.buf_driver[b] as usize;
                let size = net.driver_size[d] as u32;
                let sub = net.buf_sub[b] as u32;
                key = key * 256 + ((sub + size - drv_rr[d] as u32 - 1) % size) as u64;
            }
            arb.best = arb.best.min(key << 32 | b as u64);
            requested.insert(a);
        });
    }

    /// Step 4: every requested channel moves its granted flit one hop. Returns the flit count.
    fn traverse<const SHARED: bool, const EARLY: bool>(&mut self) -> u64 {
        let Engine {
            net,
            bufs,
            b_state,
            b_wait_next,
            b_wait_chan,
            active,
            arbs,
            drv_rr,
            c_flits,
            c_msgs,
            requested,
            c_wait,
            msgs,
            cycle,
            delivered,
            occupancy,
            adaptive_vcs,
            counts_timeouts,
            queued,
            q_len,
            q_up,
            ..
        } = self;
        let now = *cycle as u32;
        let after = *cycle + 1;
        let no_up = bufs.len() as u32;
        let mut ejected = 0;
        let mut moved = 0;
        requested.drain(|a| {
            moved += 1;
            let arb = &mut arbs[a as usize];
            let b = arb.best as u32 as usize;
            arb.best = NO_REQUEST;
            let buf = &mut bufs[b];
            arb.rr = buf.slot;
            if SHARED {
                drv_rr[net.buf_driver[b] as usize] = net.buf_sub[b];
            }
            let ch = buf.out_chan;
            let c = ch as usize;
            let m = buf.msg;
            let header = buf.sent == 0;
            let t = if header {
                buf.out_buf = buf.want;
                buf.want
            } else {
                buf.out_buf
            };
            let len = buf.len;
            let up = buf.up;
            let up_queued = if EARLY { q_up[b] } else { no_up };
            buf.cnt -= 1;
            buf.sent += 1;
            let tail = buf.sent == len;
            let mut promoted = false;
            if tail {
                buf.msg = NONE;
                if EARLY && queued[b] != NONE {
                    // Early free: the queued message's header is now at the front.
                    buf.msg = std::mem::replace(&mut queued[b], NONE);
                    buf.len = q_len[b];
                    buf.sent = 0;
                    buf.up = std::mem::replace(&mut q_up[b], no_up);
                    promoted = true;
                }
            }
            buf.last = now;
            // A sender is active; it leaves the active set when it empties.
            let empty = buf.cnt == 0;
            b_state[b] = if empty { IDLE } else { ACTIVE };
            active.remove_if(b as u32, empty);
            c_flits[c] += 1;
            if header {
                c_msgs[c] += 1;
            }
            // The upstream buffer of this message may send again: there is space here now.
            wake(up, b_state, active);
            if EARLY {
                // So may the upstream buffer of the message queued here.
                wake(up_queued, b_state, active);
            }
            if tail {
                let freed = net.buf_channel(b as u32);
                if freed < net.links && !promoted {
                    occupancy.change(freed as usize, false, after);
                }
                // A buffer of this channel is free: wake the headers waiting for one.
                let waiters = (&mut c_wait[freed as usize], &mut b_wait_next[..]);
                wake_waiters(waiters, b_wait_chan, b_state, active);
            }
            if t != NONE {
                let tu = t as usize;
                let tb = &mut bufs[tu];
                let behind = EARLY && header && tb.msg != NONE;
                if behind {
                    // Early free: the header queues behind the tail of the buffer's message.
                    queued[tu] = m;
                    q_len[tu] = len;
                    q_up[tu] = b as u32;
                } else if header {
                    tb.msg = m;
                    tb.len = len;
                    tb.sent = 0;
                    tb.up = b as u32;
                    tb.last = now;
                }
                if header {
                    let mi = m as usize;
                    msgs.hops[mi] += 1;
                    let adaptive = net.buf_vc(t) < *adaptive_vcs;
                    msgs.adaptive[mi] += adaptive as u16;
                    msgs.timeouts[mi] += (*counts_timeouts && !adaptive) as u16;
                    if !behind {
                        occupancy.change(c, true, after);
                    }
                }
                tb.cnt += 1;
                if tail && EARLY && queued[tu] == m {
                    q_up[tu] = no_up;
                } else if tail {
                    tb.up = no_up;
                }
                if tail && EARLY {
                    // Early free: this buffer can take a new header now; wake those waiting.
                    let waiters = (&mut c_wait[c], &mut b_wait_next[..]);
                    wake_waiters(waiters, b_wait_chan, b_state, active);
                }
                let idle = b_state[tu] == IDLE;
                b_state[tu] |= idle as u8 * ACTIVE;
                active.insert_if(t, idle);
            } else {
                ejected += 1;
                if tail {
                    delivered.push(m);
                }
            }
        });
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
        self.queued.iter().filter(|&&m| m != NONE).count()
    }

    /// Messages allocated (queued at sources or in the network).
    pub fn live_messages(&self) -> usize {
        self.msgs.live()
    }

    /// True when no flit is in the network and no message waits at a source.
    pub fn idle(&self) -> bool {
        self.flits_in_net == 0 && self.backlog == 0
    }
}
