//! What the measurement reads of an engine: each channel's flit and header counters (kept in
//! the channel records), the snapshot a measurement window is read from, and the
//! virtual-channel occupancy.

use super::Engine;
use crate::stats::Counters;

/// Cycles between refreshes of the 32-bit per-channel counters and VC-occupancy stamps: a
/// channel carries at most one flit a cycle, so none of them overflows in between.
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

    /// Moves the channels' 32-bit counters into their 64-bit totals and brings the VC
    /// occupancy accounts up to date, so that neither overflows; changes no result. `step`
    /// does it every `REFRESH` cycles; public so that tests can do it at any cycle.
    #[cold]
    pub fn refresh(&mut self) {
        self.arbiters.refresh(self.net.channels());
        self.occupancy.flush(self.cycle);
    }

    /// Flits that crossed each channel since the start, indexed by channel.
    pub fn c_flits(&self) -> Vec<u64> {
        self.channel_counts(0)
    }

    /// Headers (messages) that crossed each channel since the start, indexed by channel.
    pub fn c_msgs(&self) -> Vec<u64> {
        self.channel_counts(1)
    }

    /// Flits that crossed the network links (not injection or ejection channels) since the
    /// start.
    pub fn link_flits(&self) -> u64 {
        let links = self.net.links as usize;
        (0..links).map(|c| self.arbiters.counts(c)[0]).sum()
    }

    /// Each channel's flits (`which` 0) or headers (1) since the start.
    fn channel_counts(&self, which: usize) -> Vec<u64> {
        let n = self.net.channels();
        (0..n).map(|c| self.arbiters.counts(c)[which]).collect()
    }

    /// The cumulative counters a measurement window is read from.
    pub fn counters(&self) -> Counters {
        Counters {
            flits: self.c_flits(),
            msgs: self.c_msgs(),
            ejected_flits: self.ejected_flits,
            ejected_msgs: self.ejected_msgs,
            generated: self.generated_msgs,
        }
    }

    /// The counts of the window that began with the counters `start` (None: the point stopped
    /// before its window, which is empty but counts every message generated), taken now. They
    /// are written into `start`'s own vectors, so that a large network keeps one copy.
    pub fn window_counts(&self, start: Option<Counters>) -> Counters {
        let n = self.net.channels();
        let Some(mut w) = start else {
            return Counters {
                flits: vec![0; n],
                msgs: vec![0; n],
                ejected_flits: 0,
                ejected_msgs: 0,
                generated: self.generated_msgs,
            };
        };
        for c in 0..n {
            let [flits, msgs] = self.arbiters.counts(c);
            w.flits[c] = flits - w.flits[c];
            w.msgs[c] = msgs - w.msgs[c];
        }
        w.ejected_flits = self.ejected_flits - w.ejected_flits;
        w.ejected_msgs = self.ejected_msgs - w.ejected_msgs;
        w.generated = self.generated_msgs - w.generated.min(self.generated_msgs);
        w
    }

    /// Starts the virtual-channel occupancy measurement now.
    pub fn reset_occupancy(&mut self) {
        self.occupancy.reset(self.cycle);
    }

    /// P_v, v = 0..V, since `reset_occupancy`.
    pub fn vc_occupancy(&mut self) -> Vec<f64> {
        self.occupancy.distribution(self.cycle)
    }
}
