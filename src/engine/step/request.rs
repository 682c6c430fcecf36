//! Step 2: the requests. Each buffer with a flit at its front asks for one output channel of
//! its router, if the downstream buffer has room: a header routes and selects a free buffer, a
//! body follows its message. Each channel keeps the requester that comes first in round-robin
//! order after its last grant. A request writes its own buffer's route and state and its
//! router's arbiters; of other buffers it reads only their message and flit count, which no
//! request writes.

use super::{Arrays, Dims, Hold, Working};
use crate::engine::active::ActiveSet;
use crate::engine::arbitration::{ask_arbiter, turn_key};
use crate::engine::crossbar::InputPorts;
use crate::engine::parts::{ACTIVE, ASLEEP, Buf, CNT};
use crate::engine::route_ahead::{LEAD, RouteAhead, RouteCtx};
use crate::engine::{prefetch, selection};
use crate::network::NONE;
use crate::records::{Records, View};
use crate::routing::Candidates;
use crate::scenario::Selection;
use rand_pcg::Pcg64;

/// The selection streams a step draws from: one per router, or one alone when the routing
/// never chooses among candidates (dimension order).
pub(in crate::engine) enum Streams<'a> {
    PerRouter(View<'a, Pcg64>),
    One(&'a mut Pcg64),
}

impl Streams<'_> {
    /// Router `r`'s stream.
    #[inline(always)]
    fn of(&mut self, r: u32) -> &mut Pcg64 {
        match self {
            Streams::PerRouter(v) => &mut v[r as usize],
            Streams::One(x) => x,
        }
    }
}

/// What the requests of the one thread, or of one partition, read and write.
pub(in crate::engine) struct Requests<'a> {
    pub dims: Dims<'a>,
    /// What routing a header reads beyond its buffer.
    pub route: RouteCtx<'a>,
    pub selection: Selection,
    pub arr: Arrays<'a>,
    pub streams: Streams<'a>,
    /// The routing's candidates (reused), and headers routed ahead in a one-pass cycle.
    pub cand: &'a mut Candidates,
    pub ahead: &'a mut RouteAhead,
    /// Its working sets.
    pub lane: &'a mut Working,
    /// Early free's queues (empty when off).
    pub queued: &'a [u32],
    /// Links of L > 1: each buffer's flits and credits not yet back (empty when L = 1).
    pub held: &'a [u16],
    /// Router delay D.
    pub delay: u32,
    /// A per-port crossbar's input-port arbiters (one thread only).
    pub ports: Option<&'a mut InputPorts>,
    /// The network's state is larger than a cache: visits prefetch.
    pub far: bool,
}

/// The requests of a cycle (shared channels, SHARED; router or link timing, TIMED, on one
/// thread only; a one-pass cycle, ONE: only the headers ask, and, split, the bodies whose
/// message leaves the partition; the other bodies are listed for the grants).
#[inline(never)]
pub(in crate::engine) fn requests<
    H: Hold,
    const SHARED: bool,
    const TIMED: bool,
    const ONE: bool,
>(
    q: Requests,
    h: &H,
) {
    let mut q = q;
    let q = &mut q;
    // The active set apart, so that a visit may change it while the lane is borrowed.
    let mut active = std::mem::take(&mut q.lane.active);
    if ONE {
        // The buffers that may move this cycle, for the grants (the list is taken first: what
        // joins it from here on is next cycle's); then the headers, in id order.
        q.lane.pull.clear();
        active.take_list(&mut q.lane.pull);
        q.lane.visit.clear();
        q.lane.heads.collect(&mut q.lane.visit);
        for j in 0..LEAD {
            let l = &q.lane;
            q.ahead.route(
                j,
                &l.visit,
                &q.arr.buf,
                &q.arr.chans,
                &l.requested,
                &q.route,
            );
        }
        for i in 0..q.lane.visit.len() {
            ask_ahead::<SHARED>(q, i);
            let l = &q.lane;
            q.ahead.route(
                i + LEAD,
                &l.visit,
                &q.arr.buf,
                &q.arr.chans,
                &l.requested,
                &q.route,
            );
            let b = q.lane.visit[i];
            let cur = &q.arr.buf[b as usize];
            // Split: a body whose message leaves the partition asks here.
            let stays = || {
                let t = cur.out_buf(q.dims.bufchans, q.dims.vcs);
                t == NONE || !h.leaves(cur.out_chan, &q.arr.chans)
            };
            if cur.msg == NONE || (cur.sent != 0 && (H::ALL || stays())) {
                q.lane.heads.remove(b);
            } else if cur.state == ACTIVE {
                visit::<H, SHARED, TIMED, ONE>(q, &mut active, b, Some(i));
            }
        }
        q.lane.active = active;
        return;
    }
    if q.far {
        // In id order, each visit's lines asked for a few visits ahead.
        q.lane.visit.clear();
        active.collect(&mut q.lane.visit);
        for i in 0..q.lane.visit.len() {
            ask_ahead::<SHARED>(q, i);
            let b = q.lane.visit[i];
            visit::<H, SHARED, TIMED, ONE>(q, &mut active, b, None);
        }
    } else {
        active.for_each(|active, b| visit::<H, SHARED, TIMED, ONE>(q, active, b, None));
    }
    q.lane.active = active;
    if TIMED && let Some(ports) = &mut q.ports {
        // Per-port crossbar: each port's winner asks for its output (no shared channels).
        let Arrays { buf, chans, .. } = &mut q.arr;
        let requested = &mut q.lane.requested;
        ports.winners(|b| {
            let cur = buf[b as usize];
            let arb = &mut chans[cur.out_chan as usize];
            let key = turn_key(cur.slot, arb.rr);
            arb.best = arb.best.min(key << 32 | b as u64);
            requested.insert(cur.out_chan);
        });
    }
}

/// Before the visit of the `i`-th buffer of the visit list: the lines of the visits a few on
/// asked for (`prefetch::request_ahead`).
#[inline(always)]
fn ask_ahead<const SHARED: bool>(q: &Requests, i: usize) {
    let l = &q.lane;
    let (buf, chans, msgs) = (&q.arr.buf, &q.arr.chans, q.route.msgs);
    prefetch::request_ahead::<SHARED>(i, &l.visit, buf, chans, &l.requested, msgs, q.route.net);
}

/// Buffer `b32`'s request, if it has one (its active set `active`), a header routed ahead
/// (visit `routed` of the one-pass cycle) or now.
#[inline(always)]
fn visit<H: Hold, const SHARED: bool, const TIMED: bool, const ONE: bool>(
    q: &mut Requests,
    active: &mut ActiveSet,
    b32: u32,
    routed: Option<usize>,
) {
    let Dims {
        vcs,
        depth,
        bufchans,
        ..
    } = q.dims;
    let b = b32 as usize;
    let cur = q.arr.buf[b];
    let ch = if cur.sent > 0 {
        let t = cur.out_buf(bufchans, vcs);
        // Space downstream: its flits, or (links of L > 1) the credits not yet back.
        let full = t != NONE
            && if !TIMED || q.held.is_empty() {
                q.arr.buf.peek(t as usize, CNT) >= depth
            } else {
                q.held[t as usize] >= depth
            };
        if full {
            // Wormhole blocking: asleep until the downstream buffer sends a flit.
            active.leave::<ONE>(b32);
            q.arr.buf[b].state = ASLEEP;
            return;
        }
        cur.out_chan
    } else {
        // A header: routed and given a free buffer here, or (two-pass) in a function of its
        // own, so that the bodies' visits, most of them, keep their values in registers.
        let routed = match ONE {
            true => header::<TIMED, ONE>(q, active, b32, cur, routed),
            false => header_apart::<TIMED, ONE>(q, active, b32, cur),
        };
        match routed {
            Some(ch) => ch,
            None => return,
        }
    };
    if TIMED && let Some(ports) = &mut q.ports {
        // Per-port crossbar: first the port's virtual channels compete.
        ports.request(b32, b32 / vcs, b32 % vcs);
        return;
    }
    let Arrays { chans, drv_rr, .. } = &mut q.arr;
    let a = ask_arbiter::<SHARED>(q.dims.drivers, chans, drv_rr, ch, b, cur.slot & H::SLOT);
    q.lane.requested.insert(a);
    if ONE {
        q.lane.asked.push(b32);
    }
}

/// [`header`] in a function of its own (a two-pass cycle's headers are a message length's
/// fraction of its visits).
#[inline(never)]
fn header_apart<const TIMED: bool, const ONE: bool>(
    q: &mut Requests,
    active: &mut ActiveSet,
    b32: u32,
    cur: Buf,
) -> Option<u32> {
    header::<TIMED, ONE>(q, active, b32, cur, None)
}

/// The header in buffer `b32` (record `cur`), routed ahead (visit `routed` of the one-pass
/// cycle) or now, takes a free buffer of a candidate: its channel, or None when it must wait
/// (asleep on its channel's wait list, or asking again next cycle).
#[inline(always)]
fn header<const TIMED: bool, const ONE: bool>(
    q: &mut Requests,
    active: &mut ActiveSet,
    b32: u32,
    cur: Buf,
    routed: Option<usize>,
) -> Option<u32> {
    let (net, now, vcs, b) = (q.route.net, q.route.now, q.dims.vcs, b32 as usize);
    if TIMED && q.delay > 0 && now.wrapping_sub(cur.last) <= q.delay {
        // The router delay: routing and allocation take D cycles more.
        return None;
    }
    let at = net.buf_router(b32);
    let cand: &Candidates = match routed {
        Some(i) => q.ahead.of(i),
        None => {
            q.route.route_header(b32, &cur, at, q.delay, q.cand);
            q.cand
        }
    };
    let rng = q.streams.of(at);
    let bufs = q.arr.buf.reborrow();
    match selection::select(net, &bufs, q.queued, cand, q.selection, rng) {
        Some((ch, t)) => {
            q.arr.buf[b].route_to(ch, t, vcs);
            Some(ch)
        }
        None => {
            if q.lane.waits.enabled {
                // Asleep until a buffer of its only channel frees.
                let mut chans = q.arr.chans.reborrow();
                q.lane.waits.park(b32, cand.as_slice()[0].chan, &mut chans);
                active.leave::<ONE>(b32);
                q.arr.buf[b].state = ASLEEP;
            } else {
                // It asks again next cycle.
                active.keep::<ONE>(b32);
            }
            None
        }
    }
}
