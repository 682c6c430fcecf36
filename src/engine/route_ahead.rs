//! Headers routed a few visits ahead of their requests in a one-pass cycle, so that the lines
//! their selection and arbitration then touch (each candidate channel's buffers, its record
//! and its word of the requested set) are asked for while the visits before them run. Routing
//! reads nothing a request writes (a request writes its own buffer's route and state, and
//! arbiters), so a route computed ahead is the route the visit would compute.

use super::active::ActiveSet;
use super::messages::Messages;
use super::parts::{ACTIVE, Buf, Chan};
use super::prefetch::prefetch_in;
use crate::network::{NONE, Network};
use crate::records::Records;
use crate::routing::{Candidates, Routing};

/// How many visits ahead a header is routed.
pub(super) const LEAD: usize = 2;

/// The candidates most asked for ahead per header (an adaptive routing's first ones).
const ASKED: usize = 4;

/// The routes of the next `LEAD + 1` visits, each in the slot of its visit's index.
#[derive(Clone, Default)]
pub(super) struct RouteAhead {
    ring: [Candidates; LEAD + 1],
}

/// What routing a header reads beyond its buffer.
pub(super) struct RouteCtx<'a> {
    pub net: &'a Network,
    pub routing: &'a Routing,
    pub msgs: &'a Messages,
    pub random_tie: bool,
    /// The first virtual channel of the reply class (0: no replies).
    pub reply_vc: u32,
    pub now: u32,
}

impl RouteCtx<'_> {
    /// Routes the header at the front of buffer `b` (record `r`, at router `at`), whose router
    /// takes `delay` cycles more than one to route (the router delay; 0 in a one-pass cycle).
    #[inline(always)]
    pub fn route_header(&self, b: u32, r: &Buf, at: u32, delay: u32, out: &mut Candidates) {
        let mi = r.msg as usize;
        let tie = if self.random_tie {
            self.msgs.tie[mi]
        } else {
            0
        };
        // The header arrived (stamp `last`) and was first routed the next cycle.
        let waited = self.now.wrapping_sub(r.last).wrapping_sub(1 + delay) as u64;
        let dst = self.msgs.dst[mi];
        // A reply is routed as its class sees it (one call of the routing, inlined once).
        let reply = self.reply_vc > 0 && self.msgs.reply[mi];
        let seen = match reply {
            true => Routing::reply_view(self.net, b, self.reply_vc),
            false => b,
        };
        self.routing
            .route(self.net, at, dst, seen, waited, tie, out);
        if reply {
            out.shift_links(self.reply_vc as u8, self.net.links);
        }
    }
}

impl RouteAhead {
    /// The route of visit `i` (computed by [`RouteAhead::route`]).
    #[inline(always)]
    pub fn of(&self, i: usize) -> &Candidates {
        &self.ring[i % (LEAD + 1)]
    }

    /// Routes the header of visit `j` of `visit` if its visit will ask (a header at the front
    /// of an active buffer), as the visit does, and asks for its candidates' lines.
    #[inline(always)]
    pub fn route(
        &mut self,
        j: usize,
        visit: &[u32],
        buf: &(impl Records<Buf> + ?Sized),
        chans: &(impl Records<Chan> + ?Sized),
        requested: &ActiveSet,
        ctx: &RouteCtx,
    ) {
        let Some(&b) = visit.get(j) else {
            return;
        };
        let r = &buf[b as usize];
        if r.msg == NONE || r.sent != 0 || r.state != ACTIVE {
            return;
        }
        let net = ctx.net;
        let out = &mut self.ring[j % (LEAD + 1)];
        ctx.route_header(b, r, net.buf_router(b), 0, out);
        for c in out.as_slice().iter().take(ASKED) {
            if c.chan < net.buffered_channels() {
                prefetch_in(buf, c.chan * net.vcs + c.vc_lo as u32);
            }
            prefetch_in(chans, c.chan);
            requested.prefetch(c.chan);
        }
    }
}
