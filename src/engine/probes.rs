//! What the measurement reads of an engine: each channel's flit and header counters (kept in
//! the channel records), the snapshot a measurement window is read from, and the
//! virtual-channel occupancy.

use super::{Engine, parts};
use crate::stats::Counters;

impl Engine {
    /// Flits that crossed each channel since the start, indexed by channel.
    pub fn c_flits(&self) -> Vec<u64> {
        self.channel_counts(|c| c.flits)
    }

    /// Headers (messages) that crossed each channel since the start, indexed by channel.
    pub fn c_msgs(&self) -> Vec<u64> {
        self.channel_counts(|c| c.msgs)
    }

    /// Flits that crossed the network links (not injection or ejection channels) since the
    /// start.
    pub fn link_flits(&self) -> u64 {
        let links = self.net.links as usize;
        self.arbiters.chan[..links].iter().map(|c| c.flits).sum()
    }

    fn channel_counts(&self, f: impl Fn(&parts::Chan) -> u64) -> Vec<u64> {
        let n = self.net.channels();
        self.arbiters.chan[..n].iter().map(f).collect()
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
        for (c, ch) in self.arbiters.chan[..n].iter().enumerate() {
            w.flits[c] = ch.flits - w.flits[c];
            w.msgs[c] = ch.msgs - w.msgs[c];
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
