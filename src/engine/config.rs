//! One engine's resolved configuration, and the plan of its cycle decided from it once, when
//! the engine is built: which variant of the cycle runs (`CycleKind`) and on how many threads.

use super::prefetch;
use crate::network::Network;
use crate::routing::Routing;
use crate::scenario::{Crossbar, Process, Scenario, Selection};

/// The router's model: the papers' router is delay 0, links of one cycle, one crossbar input
/// per virtual channel, no early free.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouterModel {
    /// Router delay D: cycles a header waits at the front of its buffer before it may cross.
    pub delay: u32,
    /// Cycles a flit (and a credit) takes on a link.
    pub link_latency: u32,
    /// Cycles a flit (and a credit) takes on a dragonfly's global channel.
    pub global_latency: u32,
    /// One crossbar input per input port: the port's virtual channels compete first.
    pub per_port: bool,
    /// A buffer takes a new header once its message's tail has arrived (paper 004 section 3.5).
    pub early_free: bool,
}

impl RouterModel {
    /// The papers' router.
    pub const PAPERS: RouterModel = RouterModel {
        delay: 0,
        link_latency: 1,
        global_latency: 1,
        per_port: false,
        early_free: false,
    };

    /// Scenario `s`'s router.
    pub fn of(s: &Scenario) -> RouterModel {
        RouterModel {
            delay: s.router.delay,
            link_latency: s.router.link_latency,
            global_latency: s.router.global_latency.unwrap_or(s.router.link_latency),
            per_port: s.router.crossbar == Crossbar::PerPort,
            early_free: s.router.early_free,
        }
    }

    /// Router or link timing other than the papers' (router delay, longer links, per-port
    /// crossbar).
    pub fn timed(&self) -> bool {
        self.delay > 0 || self.link_latency > 1 || self.global_latency > 1 || self.per_port
    }

    /// Whether a point of this router may be split across threads: not under early free or
    /// router or link timing (a split posts no effects for them).
    pub fn splits(&self) -> bool {
        !self.early_free && !self.timed()
    }
}

/// The sources' model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceModel {
    /// The arrival process.
    pub process: Process,
    /// Messages a source injects at once, each in its own injection virtual channel.
    pub concurrency: u32,
    /// R: every message is a request answered by an R-flit reply (0: no replies).
    pub reply_length: u16,
    /// The most open requests of a processor, its source suspended there (0: unbounded).
    pub max_outstanding: u32,
}

/// Everything an engine is built with beyond its network, routing and traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// The router's model.
    pub router: RouterModel,
    /// The sources' model.
    pub sources: SourceModel,
    /// How headers choose among free candidates.
    pub selection: Selection,
    /// Each message draws tie bits (`[routing] tie = "random"`); else ties go `+`.
    pub random_tie: bool,
    /// Threads each cycle is split across (1: not split).
    pub threads: usize,
    /// Run the split's partitions one after another on the calling thread (for weighing the
    /// split's own work, `examples/split_probe`).
    pub in_turn: bool,
    /// Prefetch each visit's lines and make the cycle one-pass: `None` decides by the
    /// network's size (on when its buffer state is larger than a cache); the tests force it on
    /// small networks, to the same results.
    pub prefetch: Option<bool>,
    /// Let the one-pass cycle's worms flow as a whole (`flows.rs`).
    pub flows: bool,
}

impl EngineConfig {
    /// The papers' engine: their router, Poisson sources one message at a time, random
    /// selection, ties `+`, one thread, prefetching by size, worms flowing.
    pub const PAPERS: EngineConfig = EngineConfig {
        router: RouterModel::PAPERS,
        sources: SourceModel {
            process: Process::Poisson,
            concurrency: 1,
            reply_length: 0,
            max_outstanding: 0,
        },
        selection: Selection::Random,
        random_tie: false,
        threads: 1,
        in_turn: false,
        prefetch: None,
        flows: true,
    };

    /// Scenario `s`'s configuration on `net`, its wiring.
    pub fn of(s: &Scenario, net: &Network) -> EngineConfig {
        EngineConfig {
            router: RouterModel::of(s),
            sources: SourceModel {
                process: s.traffic.process,
                concurrency: s.traffic.source_concurrency,
                reply_length: s.traffic.options.reply_length as u16,
                max_outstanding: s.traffic.options.max_outstanding,
            },
            selection: s.routing.selection,
            random_tie: Routing::random_tie(s, net),
            threads: s.run.threads_per_point.max(1),
            ..EngineConfig::PAPERS
        }
    }
}

/// The variant of the cycle an engine runs, each monomorphised so that a network pays only for
/// what it uses (`ARCHITECTURE.md` tabulates them with the tests that pin each).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleKind {
    /// Requests visit every active buffer, then grants visit every requested arbiter: small
    /// networks, shared (m-way) channels, early free, router and link timing.
    TwoPass {
        /// Shared channels: two-level round-robin over drivers and their buffers.
        shared: bool,
        /// Early free's queues behind a tail.
        early: bool,
        /// Router delay, longer links or a per-port crossbar.
        timed: bool,
    },
    /// The papers' router on a network larger than a cache: requests visit only headers,
    /// bodies move as the grants visit them, and (`flows`) whole worms flow.
    OnePass {
        /// Worms whose every flit moves every cycle move as a whole (`flows.rs`).
        flows: bool,
    },
}

/// How each cycle of an engine runs: its variant, and the threads it is split across.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The cycle's variant.
    pub kind: CycleKind,
    /// Threads each cycle is split across (1: not split).
    pub threads: usize,
    /// Each visit's lines are prefetched a few visits ahead (the network is larger than a
    /// cache, or the configuration says so).
    pub prefetch: bool,
}

impl Plan {
    /// The plan for `net` (with `routing`) under `config`. Early free and router or link
    /// timing keep one thread (the split posts no effects for them); so does a count of 1.
    pub fn new(net: &Network, config: &EngineConfig) -> Plan {
        let prefetch = config.prefetch.unwrap_or_else(|| prefetch::far(net));
        let (early, timed) = (config.router.early_free, config.router.timed());
        let kind = if prefetch && !net.shared && !early && !timed {
            CycleKind::OnePass {
                flows: config.flows && net.depth >= 2,
            }
        } else {
            CycleKind::TwoPass {
                shared: net.shared,
                early,
                timed,
            }
        };
        let threads = match config.router.splits() {
            true => config.threads.max(1),
            false => 1,
        };
        Plan {
            kind,
            threads,
            prefetch,
        }
    }

    /// Whether the cycle is one-pass.
    pub fn one_pass(&self) -> bool {
        matches!(self.kind, CycleKind::OnePass { .. })
    }

    /// Whether worms flow.
    pub fn flows(&self) -> bool {
        matches!(self.kind, CycleKind::OnePass { flows: true })
    }
}

#[cfg(test)]
mod tests {
    use super::{CycleKind, EngineConfig, Plan};
    use crate::Scenario;
    use crate::network::Network;

    /// The network of a scenario with `topology` and `router` lines, V = 2.
    fn net(topology: &str, router: &str) -> (Scenario, Network) {
        let text = format!(
            "name = \"plan\"\n[topology]\n{topology}\n[router]\nvcs = 2\n{router}\n\
             [traffic]\nmessage_length = 4\nflit_rates = [0.1]\n"
        );
        let s = Scenario::from_toml(&text, "plan.toml").expect("a valid scenario");
        let n = Network::for_scenario(&s);
        (s, n)
    }

    /// The plan of scenario `s` on `n`, its configuration changed by `tune`.
    fn plan(s: &Scenario, n: &Network, tune: impl FnOnce(&mut EngineConfig)) -> Plan {
        let mut c = EngineConfig::of(s, n);
        tune(&mut c);
        Plan::new(n, &c)
    }

    /// Each variant runs exactly where the table says: two passes on a network in
    /// cache, one pass (worms flowing with buffers of 2 flits or more) when prefetching, shared
    /// channels and early free and timing two-pass, and the last two on one thread.
    #[test]
    fn each_cycle_variant_runs_where_its_rule_says() {
        let torus = "kind = \"torus\"\nk = 4\nn = 2";
        let (s, n) = net(torus, "buffer_depth = 4");
        let two = CycleKind::TwoPass {
            shared: false,
            early: false,
            timed: false,
        };
        assert_eq!(
            plan(&s, &n, |_| {}).kind,
            two,
            "a small torus fits in cache"
        );
        let one = plan(&s, &n, |c| c.prefetch = Some(true));
        assert_eq!(one.kind, CycleKind::OnePass { flows: true });
        let still = plan(&s, &n, |c| (c.prefetch, c.flows) = (Some(true), false));
        assert_eq!(still.kind, CycleKind::OnePass { flows: false });
        let (s1, n1) = net(torus, "buffer_depth = 1");
        let shallow = plan(&s1, &n1, |c| c.prefetch = Some(true));
        assert_eq!(
            shallow.kind,
            CycleKind::OnePass { flows: false },
            "1-flit buffers"
        );
        let split = plan(&s, &n, |c| c.threads = 3);
        assert_eq!((split.kind, split.threads), (two, 3));
        let (se, ne) = net(
            "kind = \"mesh\"\nk = 4\nn = 2",
            "buffer_depth = 4\nearly_free = true",
        );
        let early = plan(&se, &ne, |c| (c.prefetch, c.threads) = (Some(true), 3));
        let want = CycleKind::TwoPass {
            shared: false,
            early: true,
            timed: false,
        };
        assert_eq!((early.kind, early.threads), (want, 1), "early free");
        let (sd, nd) = net(torus, "buffer_depth = 4\ndelay = 1");
        let timed = plan(&sd, &nd, |c| (c.prefetch, c.threads) = (Some(true), 3));
        let want = CycleKind::TwoPass {
            shared: false,
            early: false,
            timed: true,
        };
        assert_eq!((timed.kind, timed.threads), (want, 1), "router delay");
        let (sm, nm) = net("kind = \"mway\"\nk = 4\nn = 2", "buffer_depth = 4");
        let mway = plan(&sm, &nm, |c| (c.prefetch, c.threads) = (Some(true), 2));
        let want = CycleKind::TwoPass {
            shared: true,
            early: false,
            timed: false,
        };
        assert_eq!(
            (mway.kind, mway.threads),
            (want, 2),
            "shared channels split two-pass"
        );
    }
}
