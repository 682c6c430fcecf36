//! Step 4 of the one-thread cycle: the grants, and the one-pass cycle's bodies (see the parent
//! module).

use super::parts::{self, ACTIVE, ASLEEP, FLOW, IDLE, keep_asked, track, wake};
use super::timing::Event;
use super::{Arbiters, Engine, ask_arbiter, flows, grant_arbiter, prefetch, vc_on};
use crate::network::NONE;

impl Engine {
    /// Step 4: every requested channel moves its granted flit one hop. Returns the flit count.
    pub(super) fn traverse<
        const SHARED: bool,
        const EARLY: bool,
        const TIMED: bool,
        const ONE: bool,
        const LIST: bool,
    >(
        &mut self,
    ) -> u64 {
        let Engine {
            net,
            bufs,
            waits,
            arbiters,
            early,
            msgs,
            cycle,
            delivered,
            occupancy,
            adaptive_vcs,
            pipe,
            ports,
            visit,
            far,
            pull,
            asked,
            flows,
            ..
        } = self;
        let far = *far;
        let no_up = bufs.no_up();
        let flowing = ONE && flows.on;
        let (buf, active, heads) = (&mut bufs.buf[..], &mut bufs.active, &mut bufs.heads);
        let Arbiters {
            chan: chans,
            drv_rr,
            requested,
            counting,
            ..
        } = arbiters;
        let counting = *counting;
        // Slices, not vectors, in the loop: their pointers stay in registers.
        let (chans, drv_rr) = (&mut chans[..], &mut drv_rr[..]);
        let now = *cycle as u32;
        let after = *cycle + 1;
        let (vcs, links, bufchans) = (net.vcs, net.links, net.buffered_channels());
        // Links of L > 1: flits and credits crossing them are events (timing.rs).
        let piped = TIMED && pipe.on();
        let link_bufs = links * vcs;
        let per_port = TIMED && ports.on();
        let mut ejected = 0;
        let mut moved = 0;
        let shape = flows::Shape::alone(no_up, bufchans, vcs, counting);
        // A flit moves into buffer `$t`, FLOW: a buffer that became FLOW this cycle (its stamp)
        // moved its flit explicitly and counts this one; one that flows sends one as it
        // receives this one. The tail ends its flow after the grants: it is the worm's new
        // rear (until then FLOW, so that its downstream buffer counts what it sent).
        macro_rules! into_flow {
            ($t:expr, $tail:expr) => {{
                let (t, tail): (u32, bool) = ($t, $tail);
                let tb = &mut buf[t as usize];
                if tb.last == now {
                    tb.cnt += 1;
                }
                if tail {
                    tb.up = no_up;
                    flows.rears.push(t);
                }
            }};
        }
        // One grant: arbiter `$a`'s winner moves its flit (a macro, so that both loops below
        // have it inline).
        macro_rules! grant_one {
            ($a:expr) => {{
                let a: u32 = $a;
                moved += 1;
                let b = grant_arbiter::<SHARED>(net, chans, drv_rr, buf, a, u16::MAX);
                let src = &mut buf[b];
                if per_port {
                    ports.granted(b as u32 / vcs, b as u32 % vcs);
                }
                let ch = src.out_chan;
                let c = ch as usize;
                let m = src.msg;
                let header = src.sent == 0;
                let t = src.out_buf(bufchans, vcs);
                let len = msgs.len[m as usize];
                let up = src.up;
                let up_queued = if EARLY { early.up[b] } else { no_up };
                let was_full = src.feeder_may_sleep::<ONE>(net.depth);
                src.cnt -= 1;
                src.sent += 1;
                let tail = src.sent == len;
                if flowing && (header || t == NONE) && flows.flag[m as usize] == flows::FLOWING {
                    // A flowing worm's front sent: it flows on, from its header's new buffer.
                    flows.flag[m as usize] = flows::SENT;
                    flows.front[m as usize] = if t == NONE { b as u32 } else { t };
                }
                let mut promoted = false;
                // Fed over a link of L > 1: its upstream learns of the space L cycles later.
                let credit_later = piped && (b as u32) < link_bufs;
                if tail && !credit_later {
                    src.msg = NONE;
                    if EARLY && early.queued[b] != NONE {
                        // Early free: the queued message's header is now at the front.
                        src.msg = std::mem::replace(&mut early.queued[b], NONE);
                        src.sent = 0;
                        src.up = std::mem::replace(&mut early.up[b], no_up);
                        promoted = true;
                    }
                }
                src.last = now;
                if ONE && header {
                    // Its header has left: no longer a header's buffer for step 2 to visit.
                    heads.remove(b as u32);
                }
                // A sender is active; it leaves the active set when it empties (a list's sender
                // stays by being put back).
                let empty = src.cnt == 0;
                src.state = if empty { IDLE } else { ACTIVE };
                active.sent::<LIST>(b as u32, empty);
                let out = &mut chans[c];
                out.flits += counting;
                out.msgs += header as u32 & counting;
                if credit_later {
                    pipe.schedule(*cycle, Event::Credit(b as u32, tail));
                } else if was_full {
                    // The upstream buffer of this message may send again: there is space here now.
                    wake::<LIST>(buf, active, up);
                }
                if EARLY {
                    // So may the upstream buffer of the message queued here.
                    wake::<LIST>(buf, active, up_queued);
                }
                if tail && !credit_later {
                    let freed = net.buf_channel(b as u32);
                    if freed < links && !promoted {
                        occupancy.change(freed as usize, false, after);
                    }
                    // A buffer of this channel is free: wake the headers waiting for one.
                    waits.wake_all::<LIST>(freed as usize, buf, active, chans);
                }
                if ONE && t != NONE && buf[t as usize].state == FLOW {
                    // Into a flowing worm's buffer, which sends a flit this cycle too.
                    into_flow!(t, tail);
                } else if t != NONE {
                    let tu = t as usize;
                    let tb = &mut buf[tu];
                    let behind = EARLY && header && tb.msg != NONE;
                    if behind {
                        // Early free: the header queues behind the tail of the buffer's message.
                        early.queued[tu] = m;
                        early.up[tu] = b as u32;
                    } else if header {
                        tb.msg = m;
                        tb.sent = 0;
                        tb.up = b as u32;
                        tb.last = now;
                        if ONE {
                            heads.insert(t);
                        }
                    }
                    if header {
                        let mi = m as usize;
                        msgs.hops[mi] += 1;
                        msgs.escape[mi] += (vc_on(t, c, vcs) >= *adaptive_vcs) as u16;
                        if !behind {
                            occupancy.change(c, true, after);
                        }
                    }
                    let arrive_later = piped && c < links as usize;
                    if arrive_later {
                        // The flit is on the link for L cycles; upstream counts it at once.
                        pipe.held[tu] += 1;
                        pipe.schedule(*cycle, Event::Arrive(t, header));
                    } else {
                        tb.cnt += 1;
                    }
                    if tail && EARLY && early.queued[tu] == m {
                        early.up[tu] = no_up;
                    } else if tail {
                        tb.up = no_up;
                    }
                    if tail && EARLY {
                        // Early free: this buffer can take a new header now; wake those waiting.
                        waits.wake_all::<LIST>(c, buf, active, chans);
                    }
                    if !arrive_later {
                        track::<LIST>(buf, active, t, far);
                    }
                    if flowing && header && flows.flag[m as usize] == flows::STILL {
                        flows.entering.push((m, t));
                    }
                } else {
                    ejected += 1;
                    if tail {
                        delivered.push(m);
                        if flowing {
                            flows.flag[m as usize] = flows::STILL;
                        }
                    }
                }
            }};
        }
        // grant_one! for a body that the one-pass visit moves at once (ONE: no early free, no
        // timing): its channel had no request, so the grant only moves the turn to it, and
        // nothing a header or an ejection does applies.
        macro_rules! move_body {
            ($b:expr, $cur:expr, $c:expr, $t:expr, $convert:expr) => {{
                let (b, cur, c, t): (usize, parts::Buf, usize, u32) = ($b, $cur, $c, $t);
                moved += 1;
                chans[c].rr = cur.slot;
                let len = msgs.len[cur.msg as usize];
                let was_full = cur.feeder_may_sleep::<true>(net.depth);
                let (tail, empty) = buf[b].send_front(len, now);
                if $convert {
                    // Inside a flowing worm from now on: it sends a flit every cycle.
                    debug_assert!(!tail);
                    buf[b].state = FLOW;
                    chans[c].flow = (t - c as u32 * vcs) as u8 + 1;
                    flows.bufs += 1;
                } else {
                    active.sent::<LIST>(b as u32, empty);
                }
                chans[c].flits += counting;
                if was_full {
                    wake::<LIST>(buf, active, cur.up);
                }
                if tail {
                    let freed = net.buf_channel(b as u32);
                    if freed < links {
                        occupancy.change(freed as usize, false, after);
                    }
                    waits.wake_all::<LIST>(freed as usize, buf, active, chans);
                }
                if flowing && buf[t as usize].state == FLOW {
                    into_flow!(t, tail);
                } else {
                    let tb = &mut buf[t as usize];
                    tb.cnt += 1;
                    if tail {
                        tb.up = no_up;
                    }
                    track::<LIST>(buf, active, t, far);
                }
            }};
        }
        if ONE {
            // The bodies, in id order (in list order when the active set is a list, LIST): one
            // whose channel has no other requester (no header asked for it, no other of its
            // buffers has a feeder) moves at once; the others ask as in step 2, for the grants
            // below. A decision reads the start of the cycle, so the order changes nothing: a
            // downstream buffer that has sent this cycle (stamp `last`) had one flit more. A
            // list's body that stays active is put back on it; one that asks, after the grants.
            if flowing {
                flows.start(buf, chans, pull, asked, now, shape);
            }
            for k in 0..pull.len() {
                prefetch::pull_ahead::<LIST>(
                    k,
                    pull,
                    buf,
                    chans,
                    active,
                    occupancy.links(),
                    &msgs.len,
                    net,
                );
                let b = pull[k] as usize;
                let cur = buf[b];
                if cur.sent == 0 {
                    // A header: it asked in step 2 (and is put back after the grants).
                    continue;
                }
                debug_assert!(cur.state == ACTIVE && cur.last != now);
                let c = cur.out_chan;
                let t = cur.out_buf(bufchans, vcs);
                // In a flowing worm: a flowing feeder sends it a flit this cycle, and a buffer
                // between the worm's rear and front becomes FLOW if it moves now.
                let inside = flowing && flows.visit(buf, b, &cur, t, now, no_up);
                if t != NONE {
                    let tt = &buf[t as usize];
                    let t_sent = tt.last == now;
                    if tt.cnt + t_sent as u16 >= net.depth {
                        // Wormhole blocking: asleep, unless the wake-up has passed this cycle.
                        if t_sent {
                            active.keep::<LIST>(b as u32);
                        } else {
                            active.leave::<LIST>(b as u32);
                            buf[b].state = ASLEEP;
                        }
                        if inside {
                            flows.stop(cur.msg, b as u32);
                        }
                        continue;
                    }
                    let contended = chans[c as usize].best != parts::NO_REQUEST
                        || parts::rival_fed(buf, c, t, vcs, no_up);
                    if !contended {
                        if inside {
                            move_body!(b, cur, c as usize, t, true);
                        } else {
                            move_body!(b, cur, c as usize, t, false);
                        }
                        continue;
                    }
                }
                if inside {
                    flows.stop(cur.msg, b as u32);
                }
                // A contended channel, or an ejection channel (which many messages may share):
                // it asks as in step 2.
                requested.insert(ask_arbiter::<SHARED>(net, chans, drv_rr, c, b, cur.slot));
                if LIST {
                    asked.push(b as u32);
                }
            }
        }
        if far {
            // In id order, each grant's lines asked for a few grants ahead: the arbiter, then
            // its winner's buffer, then the winner's downstream and upstream buffers.
            visit.clear();
            requested.drain_into(visit);
            for i in 0..visit.len() {
                prefetch::traverse_ahead::<ONE, LIST>(
                    i,
                    visit,
                    buf,
                    chans,
                    active,
                    heads,
                    occupancy.links(),
                    &msgs.len,
                    net,
                );
                grant_one!(visit[i]);
            }
        } else {
            requested.drain(|a| grant_one!(a));
        }
        if flowing {
            flows.end(buf, chans, active, asked, now, shape);
        }
        if LIST {
            keep_asked(asked, buf, active, now);
        }
        self.flits_in_net -= ejected;
        self.ejected_flits += ejected;
        for k in 0..self.delivered.len() {
            let m = self.delivered[k];
            self.deliver(m);
        }
        self.delivered.clear();
        moved
    }
}
