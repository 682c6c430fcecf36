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

    /// Starts the virtual-channel occupancy measurement now.
    pub fn reset_occupancy(&mut self) {
        self.occupancy.reset(self.cycle);
    }

    /// P_v, v = 0..V, since `reset_occupancy`.
    pub fn vc_occupancy(&mut self) -> Vec<f64> {
        self.occupancy.distribution(self.cycle)
    }
}
