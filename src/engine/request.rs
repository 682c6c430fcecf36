//! Step 2 of the one-thread cycle: the requests (see the parent module).

use super::parts::{ACTIVE, ASLEEP};
use super::{Arbiters, Engine, ask_arbiter, prefetch, route_ahead, selection};
use crate::network::NONE;
use crate::routing::Candidates;

impl Engine {
    /// Step 2: each buffer with a flit at its front asks for one output channel; each channel
    /// keeps the requester that comes first in round-robin order after its last grant.
    /// (Inlined into `step`: a call costs a small network's nearly idle cycle a tenth.)
    #[inline(always)]
    pub(super) fn request<
        const SHARED: bool,
        const TIMED: bool,
        const ONE: bool,
        const LIST: bool,
    >(
        &mut self,
    ) {
        let Engine {
            net,
            routing,
            cand,
            ahead,
            selection,
            rngs,
            bufs,
            waits,
            arbiters,
            early,
            msgs,
            cycle,
            random_tie,
            delay,
            pipe,
            ports,
            visit,
            far,
            pull,
            asked,
            ..
        } = self;
        let far = *far;
        let (buf, active, heads) = (&mut bufs.buf[..], &mut bufs.active, &mut bufs.heads);
        let (random_tie, delay) = (*random_tie, *delay);
        let held = &pipe.held[..];
        let per_port = TIMED && ports.on();
        let vcs = net.vcs;
        let Arbiters {
            chan: chans,
            drv_rr,
            requested,
            ..
        } = arbiters;
        let (chans, drv_rr) = (&mut chans[..], &drv_rr[..]);
        let queued = &early.queued[..];
        let depth = net.depth;
        let bufchans = net.buffered_channels();
        let now = *cycle as u32;
        let msgs = &*msgs;
        let route = route_ahead::RouteCtx {
            net,
            routing,
            msgs,
            random_tie,
            now,
        };
        // One visit: buffer `$b32`'s request, if it has one, a header routed ahead (`$routed`)
        // or now (a macro, so that both loops below have it inline).
        macro_rules! visit_one {
            ($active:ident, $b32:expr, $routed:expr) => {'visit: {
            let b32: u32 = $b32;
            let b = b32 as usize;
            let cur = buf[b];
            let ch = if cur.sent > 0 {
                let t = cur.out_buf(bufchans, vcs);
                // Space downstream: its flits, or (links of L > 1) the credits not yet back.
                let full = t != NONE
                    && if !TIMED || held.is_empty() {
                        buf[t as usize].cnt >= depth
                    } else {
                        held[t as usize] >= depth
                    };
                if full {
                    // Wormhole blocking: asleep until the downstream buffer sends a flit.
                    $active.leave::<LIST>(b32);
                    buf[b].state = ASLEEP;
                    break 'visit;
                }
                cur.out_chan
            } else {
                if TIMED && delay > 0 && now.wrapping_sub(cur.last) <= delay {
                    // The router delay: routing and allocation take D cycles more.
                    break 'visit;
                }
                let at = net.buf_router(b32);
                let cand: &Candidates = match $routed {
                    Some(routed) => routed,
                    None => {
                        route.route_header(b32, &cur, at, delay, cand);
                        cand
                    }
                };
                let rng = if rngs.len() > 1 {
                    &mut rngs[at as usize]
                } else {
                    &mut rngs[0]
                };
                match selection::select(net, buf, queued, cand, *selection, rng) {
                    Some((ch, t)) => {
                        buf[b].route_to(ch, t, vcs);
                        ch
                    }
                    None => {
                        if waits.enabled {
                            // Asleep until a buffer of its only channel frees.
                            waits.park(b32, cand.as_slice()[0].chan, chans);
                            $active.leave::<LIST>(b32);
                            buf[b].state = ASLEEP;
                        } else {
                            // It asks again next cycle.
                            $active.keep::<LIST>(b32);
                        }
                        break 'visit;
                    }
                }
            };
            if per_port {
                // Per-port crossbar: first the port's virtual channels compete.
                ports.request(b32, b32 / vcs, b32 % vcs);
                break 'visit;
            }
            let a = ask_arbiter::<SHARED>(net, chans, drv_rr, ch, b, cur.slot);
            requested.insert(a);
            if LIST {
                asked.push(b32);
            }
            }};
        }
        if ONE {
            // The buffers that may move this cycle, for the grants (a list is taken first: what
            // joins it from here on is next cycle's; the words after the headers' visits, which
            // only take members out); then the headers, in id order (the bodies move with the
            // grants).
            pull.clear();
            if LIST {
                active.take_list(pull);
            }
            visit.clear();
            heads.collect(visit);
            for j in 0..route_ahead::LEAD {
                ahead.route(j, visit, buf, chans, requested, &route);
            }
            for i in 0..visit.len() {
                prefetch::request_ahead::<SHARED>(i, visit, buf, chans, requested, msgs, net);
                ahead.route(i + route_ahead::LEAD, visit, buf, chans, requested, &route);
                let b = visit[i];
                let cur = &buf[b as usize];
                if cur.msg == NONE || cur.sent != 0 {
                    heads.remove(b);
                } else if cur.state == ACTIVE {
                    visit_one!(active, b, Some(ahead.of(i)));
                }
            }
            if !LIST {
                active.collect(pull);
            }
            return;
        }
        if far {
            // In id order, each visit's lines asked for a few visits ahead.
            visit.clear();
            active.collect(visit);
            for i in 0..visit.len() {
                prefetch::request_ahead::<SHARED>(i, visit, buf, chans, requested, msgs, net);
                visit_one!(active, visit[i], None);
            }
        } else {
            active.for_each(|active, b32| visit_one!(active, b32, None));
        }
        if !per_port {
            return;
        }
        // Per-port crossbar: each port's winner asks for its output (no shared channels).
        ports.winners(|b| {
            let cur = buf[b as usize];
            let arb = &mut chans[cur.out_chan as usize];
            let key = super::arbitration::turn_key(cur.slot, arb.rr);
            arb.best = arb.best.min(key << 32 | b as u64);
            requested.insert(cur.out_chan);
        });
    }
}
