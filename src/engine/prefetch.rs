//! Software prefetch for the cycle's visits. On a network whose state does not fit in cache,
//! each visit waits on a few cache misses (its buffer, its channel, the downstream buffer) that
//! depend on one another; asking for them a few visits ahead overlaps those misses. A hint
//! only: it never changes what the cycle computes.

use super::active::ActiveSet;
use super::messages::Messages;
use super::parts::{Buf, Chan};
use crate::network::{NONE, Network};
use crate::records::Records;

/// Buffer state beyond which the network is taken not to fit in cache (the cost of asking
/// for lines outweighs its gain on a network that does fit).
const CACHED_BYTES: usize = 4 << 20;

/// True when `net`'s buffer state does not fit in cache, so that prefetching pays.
pub(super) fn far(net: &Network) -> bool {
    net.buffers() * std::mem::size_of::<super::parts::Buf>() > CACHED_BYTES
}

/// How many visits ahead the first line of a visit is asked for.
pub(super) const AHEAD: usize = 16;

/// How many visits ahead the one-pass visit of a body asks for its buffer, and then (its line
/// now near) for what the visit reads beyond it. Farther than [`AHEAD`]: a body's visit is
/// short, so its misses need more visits to overlap (at 1 M nodes, 1.02-1.10 times the speed
/// of `AHEAD` and `AHEAD / 2` in one process).
const PULL_AHEAD: usize = 32;
/// See [`PULL_AHEAD`].
const PULL_NEAR: usize = 12;

/// Asks for the cache line of `slice[i]`, if `i` is in range.
#[inline(always)]
pub(super) fn prefetch<T>(slice: &[T], i: u32) {
    if let Some(x) = slice.get(i as usize) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing and faults on no address; `x` is a valid reference.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                (x as *const T).cast::<i8>(),
            );
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}

/// Asks for the cache line of record `i` of `records`, if `i` is in range.
#[inline(always)]
pub(super) fn prefetch_in<T>(records: &(impl Records<T> + ?Sized), i: u32) {
    if let Some(x) = records.address(i as usize) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing and faults on no address.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(x.cast::<i8>());
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}

/// Asks for what routing reads of a header in buffer `b` at router `at` bound for processor
/// `dst`: both routers' coordinates, `at`'s output links and the link the header came in on.
#[inline(always)]
pub(super) fn prefetch_route(net: &Network, b: u32, at: u32, dst: u32) {
    if let Some(t) = net.topology.cube() {
        let n = t.n() as u32;
        prefetch(&t.coords, at * n);
        prefetch(&t.coords, dst * n);
        prefetch(&t.out_link, at * n * 2);
    }
    prefetch(net.topology.links(), b / net.vcs);
}

/// Before the request of the `i`-th buffer of `visit`: asks for the buffer `AHEAD` visits on,
/// then (half as far on, its line now near) its channel and downstream buffer, or a header's
/// message and router, then (a quarter as far) what routing reads of a header.
#[inline(always)]
pub(super) fn request_ahead<const SHARED: bool>(
    i: usize,
    visit: &[u32],
    buf: &(impl Records<Buf> + ?Sized),
    chans: &(impl Records<Chan> + ?Sized),
    requested: &ActiveSet,
    msgs: &Messages,
    net: &Network,
) {
    if let Some(&b) = visit.get(i + AHEAD) {
        prefetch_in(buf, b);
    }
    if let Some(&b) = visit.get(i + AHEAD / 2) {
        let next = &buf[b as usize];
        if !SHARED {
            prefetch_in(chans, next.out_chan);
            // The requested set's word of its channel (its arbiter).
            requested.prefetch(next.out_chan);
        }
        if next.sent > 0 {
            prefetch_in(buf, next.out_buf(net.buffered_channels(), net.vcs));
        } else {
            prefetch(&msgs.dst, next.msg);
            prefetch(net.topology.links(), b / net.vcs);
        }
    }
    if let Some(&b) = visit.get(i + AHEAD / 4) {
        let next = &buf[b as usize];
        if next.sent == 0 && next.msg != NONE {
            let dst = msgs.dst[next.msg as usize];
            prefetch_route(net, b, net.buf_router(b), dst);
        }
    }
}

/// Before the one-pass visit of the `i`-th buffer of `pull`: asks for the buffer
/// [`PULL_AHEAD`] visits on, then ([`PULL_NEAR`] on) its channel, its downstream buffer (and
/// its upstream one when it is full), its word of the active set (none when the set is a list,
/// `LIST`), and for a tail the channel it frees (its wait list) and that link's occupancy count.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn pull_ahead<const LIST: bool>(
    i: usize,
    pull: &[u32],
    buf: &(impl Records<Buf> + ?Sized),
    chans: &(impl Records<Chan> + ?Sized),
    active: &ActiveSet,
    busy: &(impl Records<u8> + ?Sized),
    lens: &[u16],
    net: &Network,
) {
    if let Some(&b) = pull.get(i + PULL_AHEAD) {
        prefetch_in(buf, b);
    }
    if let Some(&b) = pull.get(i + PULL_NEAR) {
        let next = &buf[b as usize];
        prefetch_in(chans, next.out_chan);
        prefetch_in(buf, next.out_buf(net.buffered_channels(), net.vcs));
        if next.feeder_may_sleep::<true>(net.depth) {
            prefetch_in(buf, next.up);
        }
        active.hint::<LIST>(b);
        freed_ahead(b, next, chans, busy, lens, net);
    }
}

/// If the flit at the front of buffer `b` (record `next`) is its message's tail: asks for the
/// channel its move frees (its wait list) and that link's occupancy count.
#[inline(always)]
fn freed_ahead(
    b: u32,
    next: &Buf,
    chans: &(impl Records<Chan> + ?Sized),
    busy: &(impl Records<u8> + ?Sized),
    lens: &[u16],
    net: &Network,
) {
    if lens.get(next.msg as usize) == Some(&next.sent.wrapping_add(1)) {
        let freed = net.buf_channel(b);
        prefetch_in(chans, freed);
        prefetch_in(busy, freed);
    }
}

/// Before the `i`-th grant of `visit` (arbiters): asks for the arbiter `AHEAD` grants on, then
/// its winner's buffer, then the winner's downstream and upstream buffers (in a one-pass cycle,
/// ONE, the upstream one only when the winner is full: only then does its grant read it), the
/// active set's words the grant changes (none when the set is a list, `LIST`), and what a header or a tail updates beyond them: the
/// occupancy account of the link a header enters or a tail leaves, the heads set's word of the
/// buffer a header leaves (in a one-pass cycle), the wait list of the channel a tail frees.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn traverse_ahead<const ONE: bool, const LIST: bool>(
    i: usize,
    visit: &[u32],
    buf: &(impl Records<Buf> + ?Sized),
    chans: &(impl Records<Chan> + ?Sized),
    active: &ActiveSet,
    heads: &ActiveSet,
    busy: &(impl Records<u8> + ?Sized),
    lens: &[u16],
    net: &Network,
) {
    if let Some(&a) = visit.get(i + AHEAD) {
        prefetch_in(chans, a);
    }
    if let Some(&a) = visit.get(i + AHEAD / 2) {
        prefetch_in(buf, chans[a as usize].best as u32);
    }
    if let Some(&a) = visit.get(i + AHEAD / 4) {
        let b = chans[a as usize].best as u32;
        if (b as usize) < buf.len() {
            let next = &buf[b as usize];
            let t = next.out_buf(net.buffered_channels(), net.vcs);
            prefetch_in(buf, t);
            if next.feeder_may_sleep::<ONE>(net.depth) {
                prefetch_in(buf, next.up);
            }
            active.hint::<LIST>(b);
            active.hint::<LIST>(t);
            if next.sent == 0 {
                prefetch_in(busy, next.out_chan);
                if heads.on() {
                    // A one-pass cycle's heads set, which the header leaves.
                    heads.prefetch(b);
                }
            } else {
                freed_ahead(b, next, chans, busy, lens, net);
            }
        }
    }
}
