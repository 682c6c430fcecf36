//! The options a scenario turns on, set on a new engine before its first cycle: early free,
//! the arrival process, the torus tie rule, the router and link timing, the sources'
//! concurrency and the selection function.

use super::Engine;
use super::crossbar::InputPorts;
use super::parts::EarlyFree;
use super::timing::LinkPipe;
use crate::scenario::{Process, Selection};

impl Engine {
    /// Lets a buffer take a new header once its message's tail has arrived (early free);
    /// deadlock-free with dimension-order routing, the only routing the scenario allows it with.
    pub fn with_early_free(mut self, on: bool) -> Engine {
        if on {
            self.early = EarlyFree::new(self.net.buffers());
        }
        self
    }

    /// Breaks ties half-way round a ring at random, per message (default: always `+`).
    pub fn with_random_tie(mut self, on: bool) -> Engine {
        self.random_tie = on;
        self
    }

    /// Sets the sources' arrival process (default: Poisson). Call it before the first step:
    /// it draws every source's first arrival again, from the start of its stream.
    pub fn with_process(mut self, process: Process) -> Engine {
        assert_eq!(
            self.cycle, 0,
            "the arrival process is set before the first cycle"
        );
        if process != self.sources.kind {
            self.sources.start(process);
        }
        self
    }

    /// Router and link timing: router delay `delay` cycles, links of `link_latency` cycles,
    /// one crossbar input per port when `per_port` (defaults 0, 1, false: the papers' router).
    /// Early free and shared channels keep the defaults (the scenario refuses the others).
    pub fn with_timing(mut self, delay: u32, link_latency: u32, per_port: bool) -> Engine {
        self.delay = delay;
        self.pipe = LinkPipe::new(link_latency as u64, self.net.buffers());
        self.ports = InputPorts::new(&self.net, per_port);
        self
    }

    /// Lets each source inject up to `c` messages at once, each in its own injection virtual
    /// channel, their flits sharing the injection channel round-robin (default 1: one message
    /// at a time). `c` is at most the injection virtual channels. Call it before the first step.
    pub fn with_source_concurrency(mut self, c: u32) -> Engine {
        assert!(
            self.cycle == 0 && (1..=self.net.inj_vcs).contains(&c),
            "source concurrency {c} set before the first cycle, from 1 to {}",
            self.net.inj_vcs
        );
        self.sources.set_concurrency(c, self.net.inj_vcs);
        self
    }

    /// Sets how headers choose among free candidates (default: random).
    pub fn with_selection(mut self, selection: Selection) -> Engine {
        self.selection = selection;
        self
    }

    /// Prefetches the lines each visit of the cycle will need a few visits ahead, and with the
    /// papers' router makes the cycle one-pass (default: when the network's buffer state is
    /// larger than a cache). Results are the same either way, which the tests check by
    /// turning it on for small networks.
    pub fn with_prefetch(mut self, on: bool) -> Engine {
        self.far = on;
        self
    }

    /// Lets the one-pass cycle's worms flow as a whole (`flows.rs`; on by default).
    pub fn with_flows(mut self, on: bool) -> Engine {
        self.set_flows(on);
        self
    }

    /// Splits each cycle across `threads` threads, by partitions of the routers (results are
    /// the same whatever the count). Early free and router or link timing other than the
    /// papers' keep one thread, as does a count of 1. Call it last, before the first step.
    pub fn with_threads(self, threads: usize) -> Engine {
        self.split_into(threads, false)
    }

    /// The split cycle of [`Engine::with_threads`]`(partitions)`, its partitions' shares run
    /// one after another on the calling thread: the split's own work without a second core,
    /// for weighing it against one thread's cycle (`examples/split_probe`). The results are
    /// those of one thread.
    pub fn with_partitions_in_turn(self, partitions: usize) -> Engine {
        self.split_into(partitions, true)
    }

    /// Splits each cycle into `threads` partitions, run on as many threads or `in_turn` on
    /// the calling one.
    fn split_into(mut self, threads: usize, in_turn: bool) -> Engine {
        assert_eq!(self.cycle, 0, "threads are set before the first cycle");
        let timed = self.delay > 0 || self.pipe.on() || self.ports.on();
        self.split = if threads > 1 && !timed && !self.early.on() {
            let waits = self.waits.enabled;
            super::partition::Split::new(
                &self.net,
                threads,
                in_turn,
                &self.rngs[0],
                waits,
                &mut self.bufs.buf,
                &mut self.arbiters.chan,
            )
            .map(Box::new)
        } else {
            None
        };
        if let Some(split) = &self.split
            && self.sources.splittable(self.net.attach)
        {
            let n = split.threads();
            self.sources.partition(split.homes().to_vec(), n);
        }
        self
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
        self.move_boundaries(&mut split, starts.to_vec());
        self.split = Some(split);
    }

    /// The first router of each partition of a split point; None on one thread.
    pub fn partition_starts(&self) -> Option<&[u32]> {
        self.split.as_ref().map(|s| s.starts())
    }

    /// Starts (or restarts) profiling where a split cycle's time goes; nothing on one thread.
    pub fn profile_split(&mut self) {
        if let Some(split) = &mut self.split {
            split.start_profile();
        }
    }

    /// Where the split cycle's time went since [`Engine::profile_split`]; None on one thread
    /// or before profiling starts.
    pub fn split_profile(&self) -> Option<super::SplitProfile> {
        self.split.as_ref()?.profile()
    }

    /// Threads each cycle is split across (1: not split).
    pub fn threads(&self) -> usize {
        self.split.as_ref().map_or(1, |s| s.threads())
    }
}
