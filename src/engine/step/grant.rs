//! Step 4: the grants. Each requested arbiter moves its winner's flit one hop; in a one-pass
//! cycle the bodies move first, each at once when its channel has no other requester. What a
//! grant does beyond its winner is an [`Effect`], applied at once to what the step holds and
//! posted to the partition that holds the rest.

use super::apply::{apply, timing};
use super::{Arrays, Dims, Effect, Hold, Outbox, Timing, Working};
use crate::engine::arbitration::{ask_arbiter, grant_arbiter};
use crate::engine::parts::{ACTIVE, ASLEEP, Buf, FLOW, IDLE, NO_REQUEST, rival_fed};
use crate::engine::timing::Event;
use crate::engine::{flows, prefetch, vc_on};
use crate::network::{NONE, Network};
use crate::records::View;
use crate::stats::{BufferClasses, Hops, hop, occupancy};

/// What the grants of the one thread, or of one partition, read and write.
pub(in crate::engine) struct Grants<'a> {
    pub net: &'a Network,
    pub dims: Dims<'a>,
    /// The messages' lengths in flits.
    pub lens: &'a [u16],
    pub arr: Arrays<'a>,
    /// Each link's busy virtual channels, and the occupancy accounts the grants change.
    pub busy: View<'a, u8>,
    pub hist: &'a mut [u64],
    /// Each message's hops, and the routing's buffer classes.
    pub hops: View<'a, Hops>,
    pub classes: BufferClasses,
    /// Its working sets.
    pub lane: &'a mut Working,
    /// Effects posted to each partition: a split's, partition i's to j at `row + j` (empty on
    /// one thread).
    pub boxes: View<'a, Outbox>,
    pub row: usize,
    /// The router model beyond the papers' (one thread only).
    pub timing: Option<Timing<'a>>,
    /// Messages ejected whole this cycle, with the ejection channel's arbiter.
    pub delivered: &'a mut Vec<(u32, u32)>,
    pub cycle: u64,
    /// The network's state is larger than a cache: visits prefetch.
    pub far: bool,
    /// What a flit adds to its channel's counters (`Arbiters::counting`).
    pub counting: u32,
    /// The sentinel buffer: the `up` of a buffer whose message's tail has arrived.
    pub no_up: u32,
    /// What walks along flowing worms need.
    pub shape: flows::Shape<'a>,
    /// Flits moved and ejected this cycle.
    pub moved: u64,
    pub ejected: u64,
}

impl Grants<'_> {
    /// Effect `e` on a record partition `to` holds: applied now if this step holds it, else
    /// posted.
    #[inline(always)]
    fn post<H: Hold, const EARLY: bool, const TIMED: bool, const ONE: bool>(
        &mut self,
        h: &H,
        to: usize,
        e: Effect,
    ) {
        if H::ALL || to == h.me() {
            apply::<EARLY, TIMED, ONE>(self, e);
        } else {
            self.boxes[self.row + to].0.push(e);
        }
    }
}

/// The grants of a cycle: in a one-pass cycle (ONE) the bodies first, then every requested
/// arbiter in id order (shared channels, SHARED; early free, EARLY, and router or link timing,
/// TIMED, on one thread only). Returns the flits moved and ejected. (`g` by value: its views
/// then stay in registers through the inlined steps.)
#[inline(never)]
pub(in crate::engine) fn grants<
    H: Hold,
    const SHARED: bool,
    const EARLY: bool,
    const TIMED: bool,
    const ONE: bool,
>(
    g: Grants,
    h: &H,
) -> (u64, u64) {
    let mut g = g;
    let g = &mut g;
    let now = g.cycle as u32;
    let flowing = ONE && g.lane.flows.on;
    if flowing {
        // Worms whose channel a header asked for in step 2 stop flowing.
        let l = &mut g.lane;
        let (mut buf, mut chans) = (g.arr.buf.reborrow(), g.arr.chans.reborrow());
        l.flows
            .start(&mut buf, &mut chans, &mut l.pull, &l.asked, now, g.shape);
    }
    if ONE {
        for k in 0..g.lane.pull.len() {
            pull::<H, SHARED>(g, h, k);
        }
    }
    if g.far {
        // In id order, each grant's lines asked for a few grants ahead.
        g.lane.visit.clear();
        g.lane.requested.drain_into(&mut g.lane.visit);
        for i in 0..g.lane.visit.len() {
            prefetch::traverse_ahead::<ONE, ONE>(
                i,
                &g.lane.visit,
                &g.arr.buf,
                &g.arr.chans,
                &g.lane.active,
                &g.lane.heads,
                &g.busy,
                g.lens,
                g.net,
            );
            let a = g.lane.visit[i];
            grant::<H, SHARED, EARLY, TIMED, ONE>(g, h, a);
        }
    } else {
        let mut requested = std::mem::take(&mut g.lane.requested);
        requested.drain(|a| grant::<H, SHARED, EARLY, TIMED, ONE>(g, h, a));
        g.lane.requested = requested;
    }
    if flowing {
        let l = &mut g.lane;
        let (mut buf, mut chans) = (g.arr.buf.reborrow(), g.arr.chans.reborrow());
        l.flows
            .end(&mut buf, &mut chans, &mut l.active, &l.asked, now, g.shape);
        // Its flowing worms' buffers move a flit each, which no grant counts.
        g.moved += l.flows.bufs;
    }
    if ONE {
        let buf = g.arr.buf.reborrow();
        crate::engine::parts::keep_asked(&mut g.lane.asked, &buf, &mut g.lane.active, now);
    }
    (g.moved, g.ejected)
}

/// The one-pass visit of the `k`-th body of the pull list: it moves at once when its channel
/// has no other requester (no header asked for it, no other of its buffers has a feeder),
/// else it asks as in step 2. A decision reads the start of the cycle, so the order changes
/// nothing: a downstream buffer that has sent this cycle (stamp `last`) had one flit more.
/// A body whose message leaves the partition asked in step 2.
#[inline(always)]
fn pull<H: Hold, const SHARED: bool>(g: &mut Grants, h: &H, k: usize) {
    let net = g.net;
    let Dims {
        vcs,
        bufchans,
        depth,
        ..
    } = g.dims;
    let now = g.cycle as u32;
    let flowing = g.lane.flows.on;
    prefetch::pull_ahead::<true>(
        k,
        &g.lane.pull,
        &g.arr.buf,
        &g.arr.chans,
        &g.lane.active,
        &g.busy,
        g.lens,
        net,
    );
    let b = g.lane.pull[k] as usize;
    let cur = g.arr.buf[b];
    if cur.sent == 0 {
        // A header: it asked in step 2 (and is put back after the grants).
        return;
    }
    let c = cur.out_chan;
    let t = cur.out_buf(bufchans, vcs);
    if !H::ALL && t != NONE && h.leaves(c, &g.arr.chans) {
        return;
    }
    debug_assert!(cur.state == ACTIVE && cur.last != now);
    // In a flowing worm: a flowing feeder sends it a flit this cycle, and a buffer between the
    // worm's rear and front becomes FLOW if it moves now.
    let inside = flowing && {
        let mut buf = g.arr.buf.reborrow();
        g.lane.flows.visit(&mut buf, b, &cur, t, now, g.no_up)
    };
    if t != NONE {
        let tt = &g.arr.buf[t as usize];
        let t_sent = tt.last == now;
        if tt.cnt + t_sent as u16 >= depth {
            // Wormhole blocking: asleep, unless the wake-up has passed this cycle.
            if t_sent {
                g.lane.active.keep::<true>(b as u32);
            } else {
                g.lane.active.leave::<true>(b as u32);
                g.arr.buf[b].state = ASLEEP;
            }
            if inside {
                g.lane.flows.stop(cur.msg, b as u32);
            }
            return;
        }
        let contended =
            g.arr.chans[c as usize].best != NO_REQUEST || rival_fed(&g.arr.buf, c, t, vcs, g.no_up);
        if !contended {
            match inside {
                true => move_body::<H, true>(g, h, b, cur, t),
                false => move_body::<H, false>(g, h, b, cur, t),
            }
            return;
        }
    }
    if inside {
        g.lane.flows.stop(cur.msg, b as u32);
    }
    // A contended channel, or an ejection channel (which many messages may share): it asks as
    // in step 2.
    let Arrays { chans, drv_rr, .. } = &mut g.arr;
    let a = ask_arbiter::<SHARED>(g.dims.drivers, chans, drv_rr, c, b, cur.slot & H::SLOT);
    g.lane.requested.insert(a);
    g.lane.asked.push(b as u32);
}

/// [`grant`] for a body (record `cur`) that the one-pass visit moves at once into buffer `t`,
/// which this step holds: its channel had no request, so the grant only moves the turn to it,
/// and nothing a header or an ejection does applies. CONVERT: it joins a flowing worm.
#[inline(always)]
fn move_body<H: Hold, const CONVERT: bool>(g: &mut Grants, h: &H, b: usize, cur: Buf, t: u32) {
    let (vcs, now) = (g.dims.vcs, g.cycle as u32);
    let c = cur.out_chan as usize;
    g.moved += 1;
    g.arr.chans[c].rr = cur.slot & H::SLOT;
    let len = g.lens[cur.msg as usize];
    let feed = h.feeder_into(b as u32, vcs, &cur);
    let was_full = cur.feeder_may_sleep::<true>(g.dims.depth);
    let (tail, empty) = g.arr.buf[b].send_front(len, now);
    if CONVERT {
        // Inside a flowing worm from now on: it sends a flit every cycle.
        debug_assert!(!tail);
        g.arr.buf[b].state = FLOW;
        g.arr.chans[c].flow = vc_on(t, c, vcs) as u8 + 1;
        g.lane.flows.bufs += 1;
    } else {
        g.lane.active.sent::<true>(b as u32, empty);
    }
    g.arr.chans[c].flits += g.counting;
    if (H::ALL || cur.up != g.no_up) && was_full {
        g.post::<H, false, false, true>(h, feed, Effect::Wake(cur.up));
    }
    if tail {
        g.post::<H, false, false, true>(h, feed, Effect::Freed(b as u32 / vcs));
    }
    let flit = Effect::Flit {
        t,
        from: b as u32,
        m: cur.msg,
        header: false,
        tail,
    };
    apply::<false, false, true>(g, flit);
}

/// Arbiter `a`'s winner moves its flit one hop: the winner's record here, the rest as effects.
#[inline(always)]
fn grant<H: Hold, const SHARED: bool, const EARLY: bool, const TIMED: bool, const ONE: bool>(
    g: &mut Grants,
    h: &H,
    a: u32,
) {
    let Dims {
        vcs,
        bufchans,
        depth,
        links,
        ..
    } = g.dims;
    let (now, no_up) = (g.cycle as u32, g.no_up);
    let me = h.me();
    g.moved += 1;
    let Arrays { buf, chans, drv_rr } = &mut g.arr;
    let b = grant_arbiter::<SHARED>(g.dims.drivers, chans, drv_rr, buf, a, H::SLOT);
    let piped = match &mut g.timing {
        Some(x) if TIMED => {
            if x.ports.on() {
                x.ports.granted(b as u32 / vcs, b as u32 % vcs);
            }
            x.pipe.on()
        }
        _ => false,
    };
    let src = &mut g.arr.buf[b];
    let c = src.out_chan as usize;
    let m = src.msg;
    let header = src.sent == 0;
    let t = src.out_buf(bufchans, vcs);
    let len = g.lens[m as usize];
    let up = src.up;
    let feed = h.feeder_into(b as u32, vcs, src);
    let was_full = src.feeder_may_sleep::<ONE>(depth);
    // Fed over a link of L > 1: its upstream learns of the space L cycles later.
    let credit_later = piped && (b as u32) < links * vcs;
    src.cnt -= 1;
    src.sent += 1;
    let tail = src.sent == len;
    let up_queued = if EARLY {
        timing(&mut g.timing).early.up[b]
    } else {
        no_up
    };
    let promoted = tail && !credit_later && free::<EARLY>(src, &mut g.timing, b, no_up);
    src.last = now;
    let empty = src.cnt == 0;
    src.state = if empty { IDLE } else { ACTIVE };
    // The partition that holds the downstream buffer (this one for an ejection).
    let to = match t {
        NONE => me,
        _ => h.holder_from(c as u32, &g.arr.chans),
    };
    if ONE && header && to == me {
        // Its header has left (and its body stays): step 2 need not visit it.
        g.lane.heads.remove(b as u32);
    }
    // A sender is active; it leaves the active set when it empties (a list's sender stays by
    // being put back).
    g.lane.active.sent::<ONE>(b as u32, empty);
    let out = &mut g.arr.chans[c];
    out.flits += g.counting;
    out.msgs += header as u32 & g.counting;
    if ONE && g.lane.flows.on {
        flowing_front(g, b as u32, m, t, header, tail, to != me);
    }
    if credit_later {
        timing(&mut g.timing)
            .pipe
            .schedule(g.cycle, Event::Credit(b as u32, tail));
    } else if (H::ALL || up != no_up) && was_full {
        // The upstream buffer of this message may send again: there is space here now.
        g.post::<H, EARLY, TIMED, ONE>(h, feed, Effect::Wake(up));
    }
    if EARLY {
        // So may the upstream buffer of the message queued here.
        crate::engine::parts::wake::<ONE>(&mut g.arr.buf, &mut g.lane.active, up_queued);
    }
    if tail && !credit_later {
        let freed = b as u32 / vcs;
        if promoted {
            // The queued message holds the buffer on: its channel's occupancy stays.
            let (buf, chans) = (&mut g.arr.buf, &mut g.arr.chans);
            g.lane
                .waits
                .wake_all::<ONE>(freed as usize, buf, &mut g.lane.active, chans);
        } else {
            g.post::<H, EARLY, TIMED, ONE>(h, feed, Effect::Freed(freed));
        }
    }
    if t == NONE {
        g.ejected += 1;
        if tail {
            g.delivered.push((a, m));
        }
        return;
    }
    downstream::<H, EARLY, TIMED, ONE>(g, h, (b as u32, c), m, t, header, tail, to);
}

/// The flit of message `m` granted from buffer `b` over channel `c` moves into buffer `t`,
/// which partition `to` holds: the header's hop counted, its link's occupancy raised, the flit
/// posted.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn downstream<H: Hold, const EARLY: bool, const TIMED: bool, const ONE: bool>(
    g: &mut Grants,
    h: &H,
    (b, c): (u32, usize),
    m: u32,
    t: u32,
    header: bool,
    tail: bool,
    to: usize,
) {
    let vcs = g.dims.vcs;
    if header {
        hop(&mut g.hops, g.classes, m, c as u32, vc_on(t, c, vcs));
        // Early free: a header queued behind a tail does not hold the buffer yet.
        let behind = EARLY && g.arr.buf[t as usize].msg != NONE;
        if !behind {
            occupancy::change(&mut g.busy, g.hist, c, true, g.cycle + 1);
        }
    }
    let flit = Effect::Flit {
        t,
        from: b,
        m,
        header,
        tail,
    };
    g.post::<H, EARLY, TIMED, ONE>(h, to, flit);
    let flows = &mut g.lane.flows;
    if ONE && flows.on && header && to == h.me() && flows.flag[m as usize] == flows::STILL {
        flows.entering.push((m, t));
    }
}

/// The tail leaves buffer `src` (index `b`, its flits' feed not held back by a credit): the
/// buffer is free, or (early free, EARLY) the message queued behind the tail takes it, its
/// header now at the front; returns whether one did.
#[inline(always)]
fn free<const EARLY: bool>(src: &mut Buf, t: &mut Option<Timing>, b: usize, no_up: u32) -> bool {
    src.msg = NONE;
    if !EARLY || timing(t).early.queued[b] == NONE {
        return false;
    }
    let early = &mut timing(t).early;
    src.msg = std::mem::replace(&mut early.queued[b], NONE);
    src.sent = 0;
    src.up = std::mem::replace(&mut early.up[b], no_up);
    true
}

/// A flowing worm's front sent (the partition holds one part of a flowing worm at most: its
/// header, its ejection or its flits leaving the partition are its front's): it flows on,
/// from its header's new buffer if that is here, else from `b`. Its tail leaving: no part of
/// it is here now.
#[inline(always)]
fn flowing_front(g: &mut Grants, b: u32, m: u32, t: u32, header: bool, tail: bool, away: bool) {
    let flows = &mut g.lane.flows;
    let mi = m as usize;
    let leaves = t == NONE || away;
    if (header || leaves) && flows.flag[mi] == flows::FLOWING {
        flows.flag[mi] = flows::SENT;
        flows.front[mi] = if leaves { b } else { t };
        if away {
            flows.leaving.push(m);
        }
    }
    if tail && leaves {
        flows.flag[mi] = flows::STILL;
    }
}
