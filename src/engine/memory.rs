//! Where a point's bytes go: the heap the engine holds, part by part (allocated capacity, so
//! the figures are exact and the same on every machine); `Engine::memory` sums the parts.

use crate::network::Network;

/// Bytes a vector holds on the heap.
pub(super) fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// Bytes of the wired network's tables beyond its topology's graph.
pub(super) fn network_bytes(net: &Network) -> u64 {
    vec_bytes(&net.proc_at)
        + vec_bytes(&net.arb_of)
        + vec_bytes(&net.arb_drivers)
        + vec_bytes(&net.buf_driver)
        + vec_bytes(&net.buf_sub)
        + vec_bytes(&net.driver_size)
}
