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
mod config;
mod crew;
mod crossbar;
mod diagnostics;
mod endpoints;
mod flows;
mod injection;
mod memory;
mod messages;
mod partition;
mod parts;
mod prefetch;
mod probes;
mod replay;
mod route_ahead;
mod run;
mod selection;
mod step;
mod timing;
mod watchdog;

pub use crate::deadlock::{DeadlockCause, DeadlockReport, Place, StuckBuffer, StuckMessage, Wait};
pub use config::{CycleKind, EngineConfig, Plan, RouterModel, SourceModel};
pub use endpoints::Delivery;
pub use partition::MAX_THREADS;
pub use partition::profile::{STEPS, SplitProfile};
pub use probes::{REFRESH, Span, Totals};
pub use replay::{MessageTimes, replay, replay_timed};
pub use run::{
    AUTO_SPLIT_BUFFERS, BUFFERS_PER_THREAD, RunControl, SIMULATED, SIMULATED_STEP, auto_threads,
    build_engine, build_engine_on, build_engine_with, run_engine, run_point, run_point_on,
    run_point_until,
};

use crate::network::Network;
use crate::records::View;
use crate::routing::{Candidates, Routing};
use crate::scenario::Selection;
use crate::stats::{HopProbe, LatencyStats, VcOccupancy};
use crate::traffic::Traffic;
use crossbar::InputPorts;
use endpoints::Sources;
use messages::Messages;
use partition::Split;
use parts::{Arbiters, Buffers, EarlyFree};
use rand_pcg::Pcg64;
use step::{Whole, Working};
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

impl Window {
    /// Whether a message generated in cycle `created` is measured.
    fn holds(&self, created: u64) -> bool {
        created >= self.start && created < self.end
    }
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
    /// Destinations and lengths of the messages sources generate.
    pub traffic: Traffic,
    bufs: Buffers,
    arbiters: Arbiters,
    /// The one thread's working sets (`step::Working`): the buffers that may move, a one-pass
    /// cycle's headers, the arbiters with a request, the wait lists, the flowing worms.
    work: Working,
    early: EarlyFree,
    msgs: Messages,
    sources: Sources,
    /// Messages whose tail was ejected this cycle, with their ejection channel's arbiter.
    delivered: Vec<(u32, u32)>,
    /// How each cycle runs, decided when the engine was built (`plan.prefetch`: the network's
    /// state is larger than a cache, or the configuration says so, and visits prefetch the
    /// lines they will need).
    plan: Plan,

    // Probes: what the measurement reads (and each channel's counters in `arbiters`).
    occupancy: VcOccupancy,
    /// Each message's hops so far.
    hops: HopProbe,
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
    /// Latencies (generation to tail ejected) summed over every message ejected since the
    /// start: what an automatic warm-up samples.
    pub ejected_latency: u64,
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
    split: Option<Box<Split>>,
    /// R: every message is a request, answered by an R-flit reply when its tail is ejected
    /// (`[traffic] reply_length`; 0: no replies).
    reply_length: u16,
    /// The first virtual channel of the reply class, V/2 (0: no replies).
    reply_vc: u32,
}

impl Engine {
    /// An engine of `net` with `routing` and `traffic`, sources of `rate` messages/node/cycle
    /// (0: no sources, messages only through `send`), seeded by `seed`, built as `config` says.
    pub fn build(
        net: Network,
        routing: Routing,
        traffic: Traffic,
        rate: f64,
        seed: u64,
        config: &EngineConfig,
    ) -> Engine {
        let plan = Plan::new(&net, config);
        let router = config.router;
        let mut sources = Sources::new(net.nodes as usize, rate, seed);
        if config.sources.process != sources.kind || traffic.source_weights().is_some() {
            let weights = traffic.source_weights();
            sources.start(config.sources.process, traffic.burst(), weights);
        }
        let concurrency = config.sources.concurrency;
        assert!(
            (1..=net.inj_vcs).contains(&concurrency),
            "source concurrency {concurrency}, from 1 to {}",
            net.inj_vcs
        );
        sources.set_concurrency(concurrency, net.inj_vcs);
        let reply_length = config.sources.reply_length;
        let reply_vc = if reply_length > 0 { net.vcs / 2 } else { 0 };
        let mut classes = routing.buffer_classes(&net);
        if reply_length > 0 {
            sources.close_loop(config.sources.max_outstanding);
            classes = classes.with_replies(reply_vc);
        }
        let mut e = Engine {
            cand: Candidates::default(),
            ahead: route_ahead::RouteAhead::default(),
            selection: config.selection,
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
            hops: HopProbe::new(classes),
            occupancy: VcOccupancy::new(net.links as usize, net.vcs),
            traffic,
            bufs: Buffers::new(&net),
            work: Working::new(&net, &plan, routing.candidates_fixed()),
            arbiters: Arbiters::new(&net),
            early: if router.early_free {
                EarlyFree::new(net.buffers())
            } else {
                EarlyFree::default()
            },
            msgs: match reply_length {
                0 => Messages::default(),
                _ => Messages::with_replies(),
            },
            sources,
            delivered: Vec::new(),
            plan,
            cycle: 0,
            flits_in_net: 0,
            backlog: 0,
            generated_msgs: 0,
            ejected_flits: 0,
            ejected_msgs: 0,
            ejected_latency: 0,
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
            random_tie: config.random_tie,
            delay: router.delay,
            pipe: LinkPipe::new(router.link_latency, router.global_latency, &net),
            ports: InputPorts::new(&net, router.per_port),
            tie_seed: tie_seed(seed),
            split: None,
            reply_length,
            reply_vc,
            routing,
            net,
        };
        if plan.threads > 1 {
            e.split = Split::start(&mut e, config.in_turn);
        }
        if e.split.is_some() {
            // A split engine's own set only receives injection's buffers, handed on in id order.
            e.work.active.keep_listing(false);
        }
        e.plan.threads = e.threads();
        e
    }

    /// How each cycle runs: its variant and threads, decided when the engine was built.
    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// Runs one cycle, the variant of its plan.
    pub fn step(&mut self) {
        if let Some(mut split) = self.split.take() {
            split.step(self);
            self.split = Some(split);
            return;
        }
        self.generate();
        self.hops.fit(self.msgs.len.len());
        if self.work.flows.on {
            self.work.flows.fit(self.msgs.len.len());
        }
        // Monomorphised so that k-ary n-cubes pay nothing for shared channels, early free or
        // the router and link timing beyond the papers'.
        let injected;
        let granted = match self.plan.kind {
            CycleKind::OnePass { .. } => {
                self.request::<false, false, true>();
                injected = self.inject();
                self.traverse::<false, false, false, true>()
            }
            CycleKind::TwoPass {
                shared: false,
                early,
                timed,
            } => {
                match timed {
                    false => self.request::<false, false, false>(),
                    true => self.request::<false, true, false>(),
                }
                injected = self.inject();
                match (early, timed) {
                    (false, false) => self.traverse::<false, false, false, false>(),
                    (false, true) => self.traverse::<false, false, true, false>(),
                    (true, false) => self.traverse::<false, true, false, false>(),
                    (true, true) => self.traverse::<false, true, true, false>(),
                }
            }
            CycleKind::TwoPass {
                shared: true,
                early,
                ..
            } => {
                self.request::<true, false, false>();
                injected = self.inject();
                match early {
                    false => self.traverse::<true, false, false, false>(),
                    true => self.traverse::<true, true, false, false>(),
                }
            }
        };
        if self.pipe.on() {
            let at = timing::Landing {
                net: &self.net,
                buf: &mut self.bufs.buf,
                work: &mut self.work,
                chans: &mut self.arbiters.chan,
                occupancy: &mut self.occupancy,
            };
            self.pipe.land(self.cycle, at);
        }
        self.moved = injected + granted;
        self.next_cycle();
    }

    /// Queues a message of `len` flits at `s` for `dst`, generated in the current cycle: its
    /// tie bits a hash of the tie seed and its serial number under `tie = "random"`, else 0
    /// (every tie `+`). With replies it is a request, open at `s` until its reply arrives.
    /// Returns the message's slot, which its [`Delivery`] names: unique among the messages in
    /// flight, reused once it is delivered.
    pub fn send(&mut self, s: u32, dst: u32, len: u16) -> u32 {
        let tie = match self.random_tie {
            true => tie_bits(self.tie_seed, self.generated_msgs),
            false => 0,
        };
        let m = self.msgs.alloc(s, dst, len, self.cycle, tie);
        self.generated_msgs += 1;
        self.backlog += 1;
        if self.window.holds(self.cycle) {
            self.outstanding += 1;
        }
        if self.reply_length > 0 {
            self.sources.request_opened(s);
        }
        self.sources.enqueue(s, m, &mut self.msgs.next);
        m
    }

    /// Step 1: arrivals due this cycle join their source queues (none while draining).
    fn generate(&mut self) {
        self.sources
            .draw_arrivals(&mut self.traffic, self.cycle, self.drain_only);
        self.queue_arrived();
    }

    /// Step 1's end: the messages `Sources::draw_arrivals` listed join their source queues,
    /// in order.
    fn queue_arrived(&mut self) {
        for k in 0..self.sources.arrived().len() {
            if self.plan.prefetch {
                self.sources.ahead_arrived(k, &self.msgs.next);
            }
            let (s, dst, len) = self.sources.arrived()[k];
            self.send(s, dst, len);
        }
        self.sources.arrived_done();
    }

    /// Step 3 (`Sources::inject`); returns the flits injected.
    fn inject(&mut self) -> u64 {
        let at = endpoints::Injecting {
            net: &self.net,
            bufs: &mut self.bufs.buf,
            work: &mut self.work,
            arbiters: &mut self.arbiters,
            msgs: &mut self.msgs,
            now: self.cycle,
            drain_only: self.drain_only,
            far: self.plan.prefetch,
        };
        let (injected, finished) = self.sources.inject(at);
        self.flits_in_net += injected;
        self.backlog -= finished;
        injected
    }

    /// Step 2 on the one thread (see `step/request.rs`).
    #[inline(always)]
    fn request<const SHARED: bool, const TIMED: bool, const ONE: bool>(&mut self) {
        let Engine {
            net,
            routing,
            cand,
            ahead,
            selection,
            rngs,
            bufs,
            work,
            arbiters,
            early,
            msgs,
            cycle,
            random_tie,
            delay,
            pipe,
            ports,
            plan,
            reply_vc,
            ..
        } = self;
        let q = step::request::Requests {
            dims: step::Dims::of(net),
            route: route_ahead::RouteCtx {
                net,
                routing,
                msgs,
                random_tie: *random_tie,
                reply_vc: *reply_vc,
                now: *cycle as u32,
            },
            selection: *selection,
            arr: step::Arrays {
                buf: View::whole(&mut bufs.buf),
                chans: View::whole(&mut arbiters.chan),
                drv_rr: View::whole(&mut arbiters.drv_rr),
            },
            streams: match rngs.len() {
                1 => step::request::Streams::One(&mut rngs[0]),
                _ => step::request::Streams::PerRouter(View::whole(rngs)),
            },
            cand,
            ahead,
            lane: work,
            queued: &early.queued,
            held: &pipe.held,
            delay: *delay,
            ports: if ports.on() { Some(ports) } else { None },
            far: plan.prefetch,
        };
        step::request::requests::<Whole, SHARED, TIMED, ONE>(q, &Whole);
    }

    /// Step 4 on the one thread (see `step/grant.rs`); returns the flits moved, the messages
    /// whose tail was ejected delivered.
    #[inline(always)]
    fn traverse<const SHARED: bool, const EARLY: bool, const TIMED: bool, const ONE: bool>(
        &mut self,
    ) -> u64 {
        let no_up = self.bufs.no_up();
        let (vcs, bufchans) = (self.net.vcs, self.net.buffered_channels());
        let counting = self.arbiters.counting;
        let (busy, hist) = self.occupancy.parts_mut();
        let (hops, classes) = self.hops.columns();
        let Engine {
            bufs,
            work,
            arbiters,
            early,
            pipe,
            ports,
            ..
        } = self;
        let g = step::grant::Grants {
            net: &self.net,
            dims: step::Dims::of(&self.net),
            lens: &self.msgs.len,
            arr: step::Arrays {
                buf: View::whole(&mut bufs.buf),
                chans: View::whole(&mut arbiters.chan),
                drv_rr: View::whole(&mut arbiters.drv_rr),
            },
            busy: View::whole(busy),
            hist,
            hops: View::whole(hops),
            classes,
            lane: work,
            boxes: View::whole(&mut []),
            row: 0,
            timing: (EARLY || TIMED).then_some(step::Timing { early, pipe, ports }),
            delivered: &mut self.delivered,
            cycle: self.cycle,
            far: self.plan.prefetch,
            counting,
            no_up,
            shape: flows::Shape::alone(no_up, bufchans, vcs, counting),
            moved: 0,
            ejected: 0,
        };
        let (moved, ejected) = step::grant::grants::<Whole, SHARED, EARLY, TIMED, ONE>(g, &Whole);
        self.flits_in_net -= ejected;
        self.ejected_flits += ejected;
        for k in 0..self.delivered.len() {
            let m = self.delivered[k].1;
            self.deliver(m);
        }
        self.delivered.clear();
        moved
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

    /// Moves a split point's partition boundaries between two cycles: partition i then holds
    /// the routers from `starts[i]` to the next start (`starts[0]` is 0, the starts rise, one
    /// per thread). The results are the same whatever the boundaries. Nothing on one thread.
    pub fn repartition(&mut self, starts: &[u32]) {
        let Some(mut split) = self.split.take() else {
            return;
        };
        assert!(
            starts.len() == split.threads()
                && starts[0] == 0
                && starts.windows(2).all(|w| w[0] < w[1])
                && starts[starts.len() - 1] < self.net.routers() as u32,
            "partition starts {starts:?} for {} routers on {} threads",
            self.net.routers(),
            split.threads()
        );
        split.move_boundaries(self, starts.to_vec());
        self.split = Some(split);
    }

    /// Threads each cycle is split across (1: not split).
    pub fn threads(&self) -> usize {
        self.split.as_ref().map_or(1, |s| s.threads())
    }

    /// Buffers in state FLOW, on one thread and in a split cycle's partitions.
    fn flow_bufs(&self) -> u64 {
        self.work.flows.bufs + self.split.as_ref().map_or(0, |s| s.flow_bufs())
    }

    /// Every worm stops flowing, between two cycles, the split cycle's partitions being `split`
    /// (taken out of the engine while it steps). A FLOW buffer joins the engine's active set,
    /// which the next cycle hands to its partition.
    fn settle_flows_in(&mut self, split: Option<&mut Split>) {
        let parts = split.as_ref().map_or(0, |s| s.flow_bufs());
        let flowing = self.work.flows.bufs + parts;
        if flowing > 0 {
            let mut fronts: Vec<u32> = self.work.flows.fronts().collect();
            if let Some(split) = &split {
                split.flow_fronts(&mut fronts);
            }
            let upto = (self.cycle as u32).wrapping_sub(1);
            let active = &mut self.work.active;
            let arbiters = &mut self.arbiters;
            self.bufs
                .settle_worms(fronts, flowing, arbiters, active, upto);
        }
        self.work.flows.forget(self.cycle);
        if let Some(split) = split {
            split.forget_flows(self.cycle);
        }
    }
}
