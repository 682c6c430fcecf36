//! The downstream half of a grant: a flit arriving in its buffer, the upstream buffer woken, a
//! freed channel's waiting headers woken. The one thread applies them at once; a partition of a
//! split cycle at once on what it holds, else it posts them to the partition that holds the
//! record, which applies them once every partition has granted. They commute with one another
//! and with the grants (a count raised, a state raised, a list woken), so the cycle ends in the
//! same state whatever the order.

use super::Timing;
use super::grant::Grants;
use crate::engine::parts::{FLOW, track, wake};
use crate::engine::prefetch;
use crate::engine::timing::Event;
use crate::network::NONE;
use crate::stats::occupancy;

/// What a grant does beyond its winner.
#[derive(Clone, Copy, Debug)]
pub(in crate::engine) enum Effect {
    /// A flit of message `m` arrives in buffer `t` from buffer `from`: its header, its tail,
    /// or neither.
    Flit {
        t: u32,
        from: u32,
        m: u32,
        header: bool,
        tail: bool,
    },
    /// Buffer `b`, upstream of a buffer that sent a flit, may send again.
    Wake(u32),
    /// A buffer of channel `c` is free: its occupancy falls and its waiting headers wake.
    Freed(u32),
}

/// The effects one partition posts to another in a cycle, on cache lines of its own (its
/// length changes with every effect posted).
#[derive(Clone)]
#[repr(align(128))]
pub(in crate::engine) struct Outbox(pub(in crate::engine) Vec<Effect>);

/// Applies effect `e` to what `g` holds (early free, EARLY, and router or link timing, TIMED,
/// only on one thread; a one-pass cycle, ONE).
#[inline(always)]
pub(super) fn apply<const EARLY: bool, const TIMED: bool, const ONE: bool>(
    g: &mut Grants,
    e: Effect,
) {
    match e {
        Effect::Flit {
            t,
            from,
            m,
            header,
            tail,
        } => arrive::<EARLY, TIMED, ONE>(g, t, from, m, header, tail),
        Effect::Wake(b) => wake::<ONE>(&mut g.arr.buf, &mut g.lane.active, b),
        Effect::Freed(c) => {
            if c < g.dims.links {
                occupancy::change(&mut g.busy, g.hist, c as usize, false, g.cycle + 1);
            }
            // A buffer of this channel is free: wake the headers waiting for one.
            let (buf, chans) = (&mut g.arr.buf, &mut g.arr.chans);
            g.lane
                .waits
                .wake_all::<ONE>(c as usize, buf, &mut g.lane.active, chans);
        }
    }
}

/// A flit of message `m` (its header, its tail, or neither) arrives in buffer `t` from `from`.
#[inline(always)]
fn arrive<const EARLY: bool, const TIMED: bool, const ONE: bool>(
    g: &mut Grants,
    t: u32,
    from: u32,
    m: u32,
    header: bool,
    tail: bool,
) {
    let (tu, now, no_up) = (t as usize, g.cycle as u32, g.no_up);
    let tb = &mut g.arr.buf[tu];
    if ONE && tb.state == FLOW {
        // Into a flowing worm's buffer, which sends a flit this cycle too: a buffer that became
        // FLOW this cycle (its stamp) moved its flit explicitly and counts this one; the tail
        // ends its flow after the grants, as the worm's new rear.
        if tb.last == now {
            tb.cnt += 1;
        }
        if tail {
            tb.up = no_up;
            g.lane.flows.rears.push(t);
        }
        return;
    }
    // The channel, for links of L > 1 and early free only (a division otherwise unused).
    let c = if TIMED || EARLY { t / g.dims.vcs } else { 0 };
    // Links of L > 1: the flit is on the link for L cycles; upstream counted it at once.
    let arrive_later = TIMED && c < g.dims.links && timing(&mut g.timing).pipe.on();
    let behind = EARLY && header && tb.msg != NONE;
    if behind {
        // Early free: the header queues behind the tail of the buffer's message.
        let early = &mut timing(&mut g.timing).early;
        early.queued[tu] = m;
        early.up[tu] = from;
    } else if header {
        tb.msg = m;
        tb.sent = 0;
        tb.up = from;
        tb.last = now;
        if ONE {
            g.lane.heads.insert(t);
        }
    }
    if arrive_later {
        let pipe = &mut timing(&mut g.timing).pipe;
        pipe.held[tu] += 1;
        pipe.schedule(g.cycle, Event::Arrive(t, header));
    } else {
        tb.cnt += 1;
    }
    if tail && EARLY && timing(&mut g.timing).early.queued[tu] == m {
        timing(&mut g.timing).early.up[tu] = no_up;
    } else if tail {
        tb.up = no_up;
    }
    if tail && EARLY {
        // Early free: this buffer can take a new header now; wake those waiting.
        let (buf, chans) = (&mut g.arr.buf, &mut g.arr.chans);
        g.lane
            .waits
            .wake_all::<ONE>(c as usize, buf, &mut g.lane.active, chans);
    }
    if !arrive_later {
        track::<ONE>(&mut g.arr.buf, &mut g.lane.active, t, g.far);
    }
}

/// The router model's state beyond the papers' (early free or timing, one thread only).
#[inline(always)]
pub(super) fn timing<'b, 'a>(t: &'b mut Option<Timing<'a>>) -> &'b mut Timing<'a> {
    t.as_mut()
        .expect("early free and router or link timing run on one thread")
}

/// A split cycle's partition applies the effects another posted to it (`inbox`), in order,
/// and empties it: a header from another partition first meets the partition's flowing worms
/// (no two parts of a flowing worm in one partition).
pub(in crate::engine) fn apply_inbox<const ONE: bool>(g: &mut Grants, inbox: &mut Vec<Effect>) {
    for k in 0..inbox.len() {
        if g.far
            && let Some(&ahead) = inbox.get(k + prefetch::AHEAD)
        {
            match ahead {
                Effect::Flit { t, .. } | Effect::Wake(t) => prefetch::prefetch_in(&g.arr.buf, t),
                Effect::Freed(c) => prefetch::prefetch_in(&g.arr.chans, c),
            }
        }
        if let Effect::Flit {
            m, header: true, ..
        } = inbox[k]
            && ONE
            && g.lane.flows.on
        {
            let (mut buf, mut chans) = (g.arr.buf.reborrow(), g.arr.chans.reborrow());
            g.lane.flows.arrival(
                &mut buf,
                &mut chans,
                &mut g.lane.active,
                m,
                g.cycle as u32,
                g.shape,
            );
        }
        apply::<false, false, ONE>(g, inbox[k]);
    }
    inbox.clear();
}
