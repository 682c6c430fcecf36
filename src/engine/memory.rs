//! Where a point's bytes go: the heap the engine holds, part by part (allocated capacity, so
//! the figures are exact and the same on every machine). The README's scaling table divides
//! them by the network's nodes.

use super::Engine;

/// Bytes a vector holds on the heap.
pub(super) fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

impl Engine {
    /// The engine's heap, part by part, in bytes: buffers (their records and active set),
    /// channels (arbiters, counters, wait-list heads), the topology's graph, the rest of the
    /// wired network, sources, messages, VC occupancy, selection streams, and the rest.
    pub fn memory(&self) -> Vec<(&'static str, u64)> {
        let net = &self.net;
        let network = vec_bytes(&net.proc_at)
            + vec_bytes(&net.arb_of)
            + vec_bytes(&net.arb_drivers)
            + vec_bytes(&net.buf_driver)
            + vec_bytes(&net.buf_sub)
            + vec_bytes(&net.driver_size);
        let m = &self.msgs;
        let messages = vec_bytes(&m.src)
            + vec_bytes(&m.dst)
            + vec_bytes(&m.len)
            + vec_bytes(&m.created)
            + vec_bytes(&m.inject)
            + vec_bytes(&m.tie)
            + vec_bytes(&m.next)
            + self.hops.heap_bytes();
        let rest = self.work.waits.heap_bytes()
            + self.early.heap_bytes()
            + self.pipe.heap_bytes()
            + self.ports.heap_bytes()
            + vec_bytes(&self.work.visit)
            + vec_bytes(&self.work.pull)
            + vec_bytes(&self.delivered)
            + vec_bytes(&self.deliveries)
            + self.work.flows.heap_bytes()
            + self.split.as_ref().map_or(0, |s| s.heap_bytes());
        vec![
            (
                "buffers",
                vec_bytes(&self.bufs.buf)
                    + self.work.active.words_bytes()
                    + self.work.heads.words_bytes(),
            ),
            (
                "channels",
                vec_bytes(&self.arbiters.chan)
                    + vec_bytes(&self.arbiters.drv_rr)
                    + self.work.requested.words_bytes(),
            ),
            ("topology", net.topology.heap_bytes()),
            ("network", network),
            ("sources", self.sources.heap_bytes()),
            ("messages", messages),
            ("occupancy", self.occupancy.heap_bytes()),
            ("selection", vec_bytes(&self.rngs)),
            ("other", rest),
        ]
    }
}
