//! What the measurement reads of an engine: each channel's flit and header counters (kept in
//! the channel records, counted from zero when a measurement window opens and frozen when it
//! closes, so that a window keeps no copy of them), and the virtual-channel occupancy.

use super::endpoints::Delivery;
use super::messages::Leg;
use super::parts::Arbiters;
use super::{Engine, SplitProfile, Window};
use crate::network::Network;
use crate::stats::Counters;
use crate::stats::{Hops, LatencyStats};

/// Cycles between refreshes of the 32-bit per-channel counters: a channel carries at most
/// one flit a cycle, so none of them overflows in between.
pub const REFRESH: u64 = 1 << 30;

impl Engine {
    /// Ends a cycle: the clock advances, and every `REFRESH` cycles the 32-bit counters are
    /// refreshed.
    #[inline(always)]
    pub(super) fn next_cycle(&mut self) {
        self.cycle += 1;
        if self.cycle.is_multiple_of(REFRESH) {
            self.refresh();
        }
    }

    /// Moves the channels' 32-bit counters into their 64-bit totals, so that they do not
    /// overflow; changes no result. `step` does it every `REFRESH` cycles; public so that
    /// tests can do it at any cycle.
    #[cold]
    pub fn refresh(&mut self) {
        self.arbiters.refresh(self.net.channels());
    }

    /// Flits that crossed each channel since the start (or since a measurement window opened,
    /// up to its close), indexed by channel.
    pub fn c_flits(&self) -> Vec<u64> {
        self.channel_counts(0)
    }

    /// Headers (messages) that crossed each channel since the start (or in the window, as
    /// `c_flits`), indexed by channel.
    pub fn c_msgs(&self) -> Vec<u64> {
        self.channel_counts(1)
    }

    /// Flits that crossed the network links (not injection or ejection channels) since the
    /// start.
    pub fn link_flits(&self) -> u64 {
        let links = self.net.links as usize;
        let pending: u64 = self
            .pending_flits()
            .iter()
            .filter(|&&(c, _)| c < links)
            .map(|p| p.1)
            .sum();
        (0..links).map(|c| self.arbiters.counts(c)[0]).sum::<u64>() + pending
    }

    /// Each channel's flits (`which` 0) or headers (1), as `c_flits`.
    fn channel_counts(&self, which: usize) -> Vec<u64> {
        let n = self.net.channels();
        let mut v: Vec<u64> = (0..n).map(|c| self.arbiters.counts(c)[which]).collect();
        if which == 0 {
            for (c, d) in self.pending_flits() {
                v[c] += d;
            }
        }
        v
    }

    /// The network-wide counts now: flits and messages ejected, messages generated.
    fn totals(&self) -> Totals {
        Totals {
            ejected_flits: self.ejected_flits,
            ejected_msgs: self.ejected_msgs,
            generated: self.generated_msgs,
        }
    }

    /// Opens the measurement window: every channel's counters restart from zero (so that a
    /// window needs no copy of them), and the network-wide counts are returned as they stand.
    pub fn open_window(&mut self) -> Totals {
        self.rebase_flows();
        self.arbiters.restart();
        self.arbiters.counting = 1;
        self.totals()
    }

    /// Closes the measurement window: the channels stop counting, so that their counts stay
    /// those of the window while the point drains, and the network-wide counts are returned.
    pub fn close_window(&mut self) -> Totals {
        self.rebase_flows();
        self.arbiters.counting = 0;
        self.totals()
    }

    /// The counts of the window `span` (`start` None: the point stopped before its window,
    /// which is empty but counts every message generated; `end` None: it stopped inside its
    /// window, which counts up to now).
    pub fn window_counts(&self, span: Span) -> Counters {
        let mut counts = window_counters(&self.arbiters, self.net.channels(), span, self.totals());
        if span.start.is_some() {
            for (c, d) in self.pending_flits() {
                counts.flits[c] += d;
            }
        }
        counts
    }

    /// The counts of the window `span`, from an engine that is done: everything but its
    /// network and its channels' counters is freed first, so that the counts of a large
    /// network are not held beside its buffers.
    pub fn into_window_counts(mut self, span: Span) -> (Network, Counters) {
        self.rebase_flows();
        let now = self.totals();
        let (net, arbiters) = self.into_counters();
        let counts = window_counters(&arbiters, net.channels(), span, now);
        (net, counts)
    }

    /// The network and the channels' records; the rest is dropped on return.
    fn into_counters(self) -> (Network, Arbiters) {
        (self.net, self.arbiters)
    }

    /// Starts the virtual-channel occupancy measurement now.
    pub fn reset_occupancy(&mut self) {
        self.occupancy.reset(self.cycle);
    }

    /// P_v, v = 0..V, since `reset_occupancy`.
    pub fn vc_occupancy(&self) -> Vec<f64> {
        self.occupancy.distribution(self.cycle)
    }

    /// Brings every FLOW buffer's counters up to the last cycle, leaving it FLOW (before the
    /// channels' counting changes).
    pub(super) fn rebase_flows(&mut self) {
        if self.flow_bufs() > 0 {
            let upto = (self.cycle as u32).wrapping_sub(1);
            self.bufs.bring_up_flows(&mut self.arbiters, upto);
        }
    }

    /// The flits that FLOW buffers' channels carried and have not counted yet, by channel.
    fn pending_flits(&self) -> Vec<(usize, u64)> {
        if self.flow_bufs() == 0 {
            return Vec::new();
        }
        let upto = (self.cycle as u32).wrapping_sub(1);
        self.bufs.pending_flits(upto, self.arbiters.counting)
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
    pub fn split_profile(&self) -> Option<SplitProfile> {
        self.split.as_ref()?.profile()
    }

    /// The tail of message `m` was ejected this cycle. With replies, a request's delivery
    /// queues its reply (`answer`), and a reply's closes its request: the round trip is
    /// measured then.
    pub(super) fn deliver(&mut self, m: u32) {
        let mi = m as usize;
        self.ejected_msgs += 1;
        let created = self.msgs.created[mi];
        self.ejected_latency += self.cycle - created;
        let inject = self.msgs.inject[mi];
        let hops = self.hops.take(m);
        if self.log_deliveries {
            self.deliveries.push(Delivery {
                msg: m,
                src: self.msgs.src[mi],
                dst: self.msgs.dst[mi],
                len: self.msgs.len[mi],
                created,
                inject,
                eject: self.cycle,
                hops: hops.links,
            });
        }
        let mut before = Leg::default();
        if self.reply_length > 0 {
            if !self.msgs.reply[mi] {
                self.answer(m, hops);
                self.msgs.release(m);
                return;
            }
            self.sources.request_closed(self.msgs.dst[mi], self.cycle);
            before = self.msgs.before[mi];
        }
        let w = self.window;
        if w.holds(created) {
            self.outstanding -= 1;
            let batch = ((created - w.start) * w.batches / (w.end - w.start)) as usize;
            let (prior, network) = (before.hops, self.cycle - inject + before.network);
            let links = (hops.links + prior.links) as u32;
            self.stats
                .record(self.cycle - created, network, links, batch);
            self.stats.record_classes(
                (hops.escape + prior.escape) as u32,
                (hops.detour + prior.detour) as u32,
            );
        }
        self.msgs.release(m);
    }

    /// Request `m`, whose header made `hops`, was delivered: its destination answers with a
    /// reply of `reply_length` flits, generated now and queued behind the destination's
    /// messages (FIFO). The reply carries the request's generation cycle (so its latency is
    /// the round trip's, and it is measured when the request was), its network latency and
    /// its hops. A measured request stays outstanding as its reply.
    fn answer(&mut self, m: u32, hops: Hops) {
        let mi = m as usize;
        let (src, dst, created) = (self.msgs.src[mi], self.msgs.dst[mi], self.msgs.created[mi]);
        let tie = match self.random_tie {
            true => super::tie_bits(self.tie_seed, self.generated_msgs),
            false => 0,
        };
        let r = self.msgs.alloc(dst, src, self.reply_length, created, tie);
        let network = self.cycle - self.msgs.inject[mi];
        self.msgs.make_reply(r, Leg { network, hops });
        self.generated_msgs += 1;
        self.backlog += 1;
        self.sources.enqueue(dst, r, &mut self.msgs.next);
    }

    /// Processor `s`'s open requests: generated, their reply not yet delivered (0 without
    /// replies); at most `[traffic] max_outstanding`.
    pub fn open_requests(&self, s: u32) -> u32 {
        self.sources.open_requests(s)
    }

    /// A closed loop: requests answered by replies, each processor's open requests bounded
    /// (`[traffic] max_outstanding`).
    pub fn closed_loop(&self) -> bool {
        self.sources.bounded()
    }

    /// Messages queued at processor `s`'s source, not yet fully injected.
    pub fn queued(&self, s: u32) -> u32 {
        let mut n = 0;
        let mut m = self.sources.head[s as usize];
        while m != crate::network::NONE {
            n += 1;
            m = self.msgs.next[m as usize];
        }
        n
    }
}

/// The network-wide counts at one cycle: flits and messages ejected, messages generated.
#[derive(Clone, Copy, Debug)]
pub struct Totals {
    ejected_flits: u64,
    ejected_msgs: u64,
    generated: u64,
}

/// The network-wide counts where a measurement window opened and closed, None where it was
/// not reached.
#[derive(Clone, Copy, Debug, Default)]
pub struct Span {
    /// At `Engine::open_window`.
    pub start: Option<Totals>,
    /// At `Engine::close_window`.
    pub end: Option<Totals>,
}

/// The counts of the window `span` of `n` channels whose counters restarted when it opened;
/// `now` ends a window that was not closed.
fn window_counters(arbiters: &Arbiters, n: usize, span: Span, now: Totals) -> Counters {
    let Some(start) = span.start else {
        return Counters {
            flits: vec![0; n],
            msgs: vec![0; n],
            ejected_flits: 0,
            ejected_msgs: 0,
            generated: now.generated,
        };
    };
    let end = span.end.unwrap_or(now);
    let (flits, msgs) = (0..n).map(|c| arbiters.counts(c).into()).unzip();
    Counters {
        flits,
        msgs,
        ejected_flits: end.ejected_flits - start.ejected_flits,
        ejected_msgs: end.ejected_msgs - start.ejected_msgs,
        generated: end.generated - start.generated,
    }
}
