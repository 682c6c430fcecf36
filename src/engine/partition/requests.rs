//! The requests of a split cycle (step 2, see the parent module): each partition's buffers
//! with a flit at their front ask for their routers' output channels, reading of other
//! partitions only what no request writes.

use super::Part;
use super::sides::Sides;
use crate::engine::crew::Shared;
use crate::engine::messages::Messages;
use crate::engine::parts::{ACTIVE, ASLEEP, Buf, Chan, SLOT_BITS};
use crate::engine::route_ahead::{LEAD, RouteCtx};
use crate::engine::{prefetch, selection};
use crate::network::{NONE, Network};
use crate::routing::{Candidates, Routing};
use crate::scenario::Selection;
use rand_pcg::Pcg64;

/// What a request reads and writes beyond its partition.
pub(super) struct RequestCtx<'a> {
    pub(super) net: &'a Network,
    pub(super) routing: &'a Routing,
    pub(super) selection: Selection,
    pub(super) msgs: &'a Messages,
    pub(super) drv_rr: &'a [u8],
    /// The partitions on each buffered channel's sides.
    pub(super) sides: &'a Sides,
    pub(super) buf: Shared<Buf>,
    pub(super) chans: Shared<Chan>,
    pub(super) rngs: Shared<Pcg64>,
    pub(super) random_tie: bool,
    pub(super) now: u32,
    pub(super) far: bool,
}

// SAFETY: the raw slices follow `Shared`'s rules; the rest is read-only during the step.
unsafe impl Sync for RequestCtx<'_> {}

/// Partition `me`'s requests (`p`): each of its buffers with a flit at its front asks for one
/// of its router's output channels (the body of [`Engine::request`] without router timing).
/// In a one-pass cycle (ONE) only its headers ask, and the bodies whose message leaves for
/// another partition's router (their downstream buffer's count is read before its holder's
/// grants change it); the others are listed for the grants.
///
/// # Safety
/// Other threads run other partitions' requests of the same cycle, and nothing else.
pub(super) unsafe fn request_part<const SHARED: bool, const ONE: bool>(
    me: u8,
    p: &mut Part,
    ctx: &RequestCtx,
) {
    // SAFETY: own buffers' routing fields and state, own channels' arbiters and wait lists,
    // own routers' streams are written; other buffers' messages and counts are only read.
    let (buf, chans, rngs) = unsafe { (ctx.buf.get(), ctx.chans.get(), ctx.rngs.get()) };
    let RequestCtx {
        net,
        routing,
        selection,
        msgs,
        drv_rr,
        sides,
        random_tie,
        now,
        far,
        ..
    } = *ctx;
    let (depth, vcs, bufchans) = (net.depth, net.vcs, net.buffered_channels());
    let route = RouteCtx {
        net,
        routing,
        msgs,
        random_tie,
        now,
    };
    // One visit: buffer `$b32`'s request, if it has one, a header routed ahead (`$routed`) or
    // now.
    macro_rules! visit_one {
        ($b32:expr, $routed:expr) => {
            'visit: {
                let b32: u32 = $b32;
                let b = b32 as usize;
                let cur = buf[b];
                let ch = if cur.sent > 0 {
                    let t = cur.out_buf(bufchans, vcs);
                    if t != NONE && buf[t as usize].cnt >= depth {
                        // Wormhole blocking: asleep until the downstream buffer sends a flit.
                        p.active.leave::<ONE>(b32);
                        buf[b].state = ASLEEP;
                        break 'visit;
                    }
                    cur.out_chan
                } else {
                    let at = net.buf_router(b32);
                    let cand: &Candidates = match $routed {
                        Some(routed) => routed,
                        None => {
                            route.route_header(b32, &cur, at, 0, &mut p.cand);
                            &p.cand
                        }
                    };
                    let rng = if rngs.len() > 1 {
                        &mut rngs[at as usize]
                    } else {
                        &mut p.spare
                    };
                    match selection::select(net, buf, &[], cand, selection, rng) {
                        Some((ch, t)) => {
                            buf[b].route_to(ch, t, vcs);
                            ch
                        }
                        None => {
                            if p.waits.enabled {
                                p.waits.park(b32, cand.as_slice()[0].chan, chans);
                                p.active.leave::<ONE>(b32);
                                buf[b].state = ASLEEP;
                            } else {
                                // It asks again next cycle.
                                p.active.keep::<ONE>(b32);
                            }
                            break 'visit;
                        }
                    }
                };
                let slot = cur.slot & SLOT_BITS;
                let a = crate::engine::arbitration::ask_arbiter::<SHARED>(
                    net, chans, drv_rr, ch, b, slot,
                );
                p.requested.insert(a);
                if ONE {
                    p.asked.push(b32);
                }
            }
        };
    }
    p.visit.clear();
    if ONE {
        // The buffers that may move this cycle, for the grants (the list is taken first: what
        // joins it from here on is next cycle's); then the headers and the bodies leaving the
        // partition, in id order.
        p.pull.clear();
        p.active.take_list(&mut p.pull);
        p.heads.collect(&mut p.visit);
        for j in 0..LEAD {
            p.ahead.route(j, &p.visit, buf, chans, &p.requested, &route);
        }
        for i in 0..p.visit.len() {
            prefetch::request_ahead::<SHARED>(i, &p.visit, buf, chans, &p.requested, msgs, net);
            p.ahead
                .route(i + LEAD, &p.visit, buf, chans, &p.requested, &route);
            let b = p.visit[i];
            let cur = &buf[b as usize];
            let stays = || {
                let t = cur.out_buf(bufchans, vcs);
                t == NONE || !sides.leaves(cur.out_chan, &chans[cur.out_chan as usize], me)
            };
            if cur.msg == NONE || (cur.sent != 0 && stays()) {
                p.heads.remove(b);
            } else if cur.state == ACTIVE {
                visit_one!(b, Some(p.ahead.of(i)));
            }
        }
        return;
    }
    p.active.collect(&mut p.visit);
    for i in 0..p.visit.len() {
        if far {
            prefetch::request_ahead::<SHARED>(i, &p.visit, buf, chans, &p.requested, msgs, net);
        }
        visit_one!(p.visit[i], None);
    }
}
