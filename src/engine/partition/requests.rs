//! The requests of a split cycle (step 2, see the parent module and `step/request.rs`): each
//! partition's buffers with a flit at their front ask for their routers' output channels,
//! reading of other partitions only what no request writes.

use super::Part;
use super::sides::Sides;
use crate::engine::messages::Messages;
use crate::engine::parts::{Buf, Chan};
use crate::engine::route_ahead::RouteCtx;
use crate::engine::step::request::{Requests, Streams, requests};
use crate::engine::step::{Arrays, Dims, PartOf};
use crate::network::Network;
use crate::records::{Owners, Shared};
use crate::routing::Routing;
use crate::scenario::Selection;
use rand_pcg::Pcg64;

/// What the partitions' requests share.
pub(super) struct RequestCtx<'a> {
    pub(super) net: &'a Network,
    pub(super) routing: &'a Routing,
    pub(super) selection: Selection,
    pub(super) msgs: &'a Messages,
    /// The partitions on each buffered channel's sides.
    pub(super) sides: &'a Sides,
    pub(super) buf: Shared<'a, Buf>,
    pub(super) chans: Shared<'a, Chan>,
    pub(super) drv_rr: Shared<'a, u8>,
    pub(super) rngs: Shared<'a, Pcg64>,
    /// Who holds each buffer, channel and stream in the requests (debug builds check it).
    pub(super) owners: [Owners<'a>; 3],
    pub(super) random_tie: bool,
    /// The first virtual channel of the reply class (0: no replies).
    pub(super) reply_vc: u32,
    pub(super) now: u32,
    pub(super) far: bool,
}

/// Partition `me`'s requests (`p`): each of its buffers with a flit at its front asks for one
/// of its router's output channels. In a one-pass cycle (ONE) only its headers ask, and the
/// bodies whose message leaves for another partition's router (their downstream buffer's
/// count is read before its holder's grants change it); the others are listed for the grants.
pub(super) fn request_part<const SHARED: bool, const ONE: bool>(
    me: u8,
    p: &mut Part,
    ctx: &RequestCtx,
) {
    let [bufs, chans, streams] = ctx.owners;
    // SAFETY: a partition's requests write only its own buffers' routes and states, and of
    // other partitions' buffers peek only at their messages and counts, which no request writes.
    let buf = unsafe { ctx.buf.view(me, bufs) };
    // SAFETY: a partition's requests write only its own channels' arbiters and wait lists.
    let chans = unsafe { ctx.chans.view(me, chans) };
    // SAFETY: a request only reads the drivers' turns, which only the grants write.
    let drv_rr = unsafe { ctx.drv_rr.view(me, Owners::UNCHECKED) };
    let arr = Arrays { buf, chans, drv_rr };
    let streams = match ctx.rngs.len() {
        // SAFETY: a partition draws from its own routers' streams only.
        2.. => Streams::PerRouter(unsafe { ctx.rngs.view(me, streams) }),
        _ => Streams::One(&mut p.spare),
    };
    let q = Requests {
        dims: Dims::of(ctx.net),
        route: RouteCtx {
            net: ctx.net,
            routing: ctx.routing,
            msgs: ctx.msgs,
            random_tie: ctx.random_tie,
            reply_vc: ctx.reply_vc,
            now: ctx.now,
        },
        selection: ctx.selection,
        arr,
        streams,
        cand: &mut p.cand,
        ahead: &mut p.ahead,
        lane: &mut p.work,
        queued: &[],
        held: &[],
        delay: 0,
        ports: None,
        far: ctx.far,
    };
    let h = PartOf {
        sides: ctx.sides,
        me,
    };
    requests::<PartOf, SHARED, false, ONE>(q, &h);
}
