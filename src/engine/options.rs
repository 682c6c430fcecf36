//! The split of a point's cycle across threads, seen from the engine: starting it when the
//! engine is built, moving its partitions' boundaries, and profiling it.

use super::Engine;

impl Engine {
    /// Splits each cycle into the plan's threads' partitions, run on as many threads or
    /// `in_turn` on the calling one.
    pub(super) fn split_into(&mut self, in_turn: bool) {
        self.split = {
            let waits = self.work.waits.enabled;
            super::partition::Split::new(
                &self.net,
                self.plan,
                in_turn,
                &self.rngs[0],
                waits,
                &mut self.bufs.buf,
                &mut self.arbiters.chan,
            )
            .map(Box::new)
        };
        if let Some(split) = &self.split
            && self.sources.splittable(self.net.attach)
        {
            let n = split.threads();
            self.sources.partition(split.homes().to_vec(), n);
        }
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
