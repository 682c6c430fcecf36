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
mod deadlock;
mod diagnostics;
mod endpoints;
mod flows;
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
mod traverse;

pub use deadlock::{DeadlockCause, DeadlockReport, Place, StuckBuffer, StuckMessage, Wait};
pub use endpoints::Delivery;
pub use partition::MAX_THREADS;
pub use partition::profile::{STEPS, SplitProfile};
pub use probes::{REFRESH, Span, Totals};
pub use run::{
    AUTO_SPLIT_BUFFERS, BUFFERS_PER_THREAD, RunControl, SIMULATED, SIMULATED_STEP, auto_threads,
    build_engine, build_engine_on, run_engine, run_point, run_point_on, run_point_until,
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
use parts::{Arbiters, Buffers, EarlyFree, WaitLists};
use rand_pcg::Pcg64;
use timing::LinkPipe;

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
    /// The worms that flow (`flows.rs`).
    flows: flows::Flows,

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
            flows: flows::Flows {
                enabled: true,
                ..Default::default()
            },
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
        // Its active set is a list (`active.rs`), and its worms may flow (`flows.rs`).
        self.bufs.active.keep_listing(one);
        self.flows.on = one && self.flows.enabled && self.net.depth >= 2;
        if self.flows.on {
            self.flows.fit(self.msgs.len.len());
        }
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
        // A flowing worm's buffers move a flit each, which no grant counts.
        self.moved = injected + granted + self.flows.bufs;
        self.next_cycle();
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
