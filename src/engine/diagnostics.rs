//! Diagnostics of the engine's state: stuck buffers and deadlock confirmation for the
//! watchdog, readable accounts of buffers, the invariants the tests check every cycle, and
//! where the engine's bytes go.

use super::Engine;
use super::flows::STILL;
use super::memory::{network_bytes, vec_bytes};
use super::parts::{ACTIVE, Buf, FLOW, IDLE};
use super::route_ahead::RouteCtx;
use crate::deadlock::{Place, StuckBuffer, StuckMessage, Wait};
use crate::network::NONE;
use crate::routing::Candidates;

impl Engine {
    /// Flits buffer `b` holds now. Read-only, for tests that watch arbitration from outside.
    pub fn buffer_flits(&self, b: u32) -> u16 {
        self.bufs.buf[b as usize].cnt
    }

    /// Flits of buffer `b`'s current (or last) message that have left it. Read-only, for tests:
    /// without early free it grows by exactly one in a cycle in which the buffer won its
    /// channel (a new message resets it to 0, and never arrives in a cycle in which one leaves).
    pub fn buffer_sent(&self, b: u32) -> u16 {
        let r = &self.bufs.buf[b as usize];
        if r.state == FLOW {
            let upto = (self.cycle as u32).wrapping_sub(1);
            return r.sent.wrapping_add(upto.wrapping_sub(r.last) as u16);
        }
        r.sent
    }

    /// Whether buffer `b`'s current (or last) message is a reply (`[traffic] reply_length`).
    /// Read-only, for tests that check the protocol classes.
    pub fn buffer_holds_reply(&self, b: u32) -> bool {
        let m = self.bufs.buf[b as usize].msg;
        m != NONE && self.msgs.reply.get(m as usize) == Some(&true)
    }

    /// Buffers holding flits whose front flit has not moved for `cycles` cycles.
    pub fn stuck_buffers(&self, cycles: u64) -> Vec<u32> {
        let mut v: Vec<u32> = (0..self.net.buffers() as u32)
            .filter(|&b| {
                let buf = &self.bufs.buf[b as usize];
                buf.cnt > 0
                    && buf.state != FLOW
                    && (self.cycle as u32).wrapping_sub(buf.last) as u64 >= cycles
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// Tells deadlock from congestion: a copy of the engine takes no new messages and runs
    /// until its network is empty (congestion: None) or nothing has moved for longer than any
    /// routing timer (deadlock: each buffer that cannot move, in id order). Until then every
    /// cycle moves a flit, and each flit moves at most its route's longest (the routing's
    /// `max_hops`) + 2 times, which bounds the run.
    pub fn confirm_deadlock(&self) -> Option<Vec<StuckBuffer>> {
        let mut e = self.clone();
        e.drain_only = true;
        e.log_deliveries = false;
        let patience = self.routing.timer_cycles() + 2;
        let partial = self.sources.started_flits(&self.msgs.len);
        let limit = (self.flits_in_net + partial) * (self.routing.max_hops(&self.net) as u64 + 2)
            + patience
            + 1;
        let mut still = 0;
        for _ in 0..limit {
            if e.flits_in_net == 0 {
                return None;
            }
            e.step();
            still = if e.moved == 0 { still + 1 } else { 0 };
            if still > patience {
                let stuck = e.stuck_buffers(0);
                return Some(stuck.iter().map(|&b| e.stuck_buffer(b)).collect());
            }
        }
        None
    }

    /// An account of a stuck buffer: where it is, its message and what it waits for (its
    /// Display is the deadlock report's line).
    pub fn stuck_buffer(&self, b: u32) -> StuckBuffer {
        let buf = self.bufs.buf[b as usize];
        let m = buf.msg;
        let message = (m != NONE).then(|| StuckMessage {
            id: m,
            source: self.msgs.src[m as usize],
            destination: self.msgs.dst[m as usize],
            sent: buf.sent,
            length: self.msgs.len[m as usize],
        });
        let waits = if buf.sent == 0 {
            Wait::FreeBuffer {
                candidates: self.candidate_buffers(b, &buf),
            }
        } else {
            match buf.out_buf(self.net.buffered_channels(), self.net.vcs) {
                NONE => Wait::Ejection,
                t => Wait::Space {
                    downstream: self.place(t),
                    flits: self.bufs.buf[t as usize].cnt,
                },
            }
        };
        StuckBuffer {
            place: self.place(b),
            flits: buf.cnt,
            message,
            waits,
        }
    }

    /// Where buffer `b` is.
    fn place(&self, b: u32) -> Place {
        Place {
            buffer: b,
            channel: self.net.buf_channel(b),
            vc: self.net.buf_vc(b),
            router: self.net.buf_router(b),
            name: self.net.describe_buffer(b),
        }
    }

    /// The buffers the header at the front of buffer `b` (record `buf`) may take now, as its
    /// requests route it (none without a message).
    fn candidate_buffers(&self, b: u32, buf: &Buf) -> Vec<u32> {
        if buf.msg == NONE {
            return Vec::new();
        }
        let ctx = RouteCtx {
            net: &self.net,
            routing: &self.routing,
            msgs: &self.msgs,
            random_tie: self.random_tie,
            reply_vc: self.reply_vc,
            now: self.cycle as u32,
        };
        let mut cand = Candidates::default();
        ctx.route_header(b, buf, self.net.buf_router(b), self.delay, &mut cand);
        let (vcs, bufchans) = (self.net.vcs, self.net.buffered_channels());
        cand.as_slice()
            .iter()
            .filter(|c| c.chan < bufchans)
            .flat_map(|c| (c.vc_lo as u32..c.vc_hi as u32).map(move |v| c.chan * vcs + v))
            .collect()
    }

    /// Checks the engine's invariants (flit conservation, buffer bounds, bookkeeping); for tests.
    pub fn check_invariants(&self) -> Result<(), String> {
        let depth = self.net.depth;
        let mut flits = 0u64;
        // How many times each buffer is in an active set (a list may hold a member twice).
        let mut tracked = vec![0u32; self.net.buffers() + 1];
        self.work.active.members(|b| tracked[b as usize] += 1);
        let mut misplaced = None;
        if let Some(split) = &self.split {
            split.members(self.net.vcs, |b, own| {
                tracked[b as usize] += 1;
                if !own {
                    misplaced = Some(b);
                }
            });
        }
        if let Some(b) = misplaced {
            return Err(format!("buffer {b} is in another partition's active set"));
        }
        for (b, &times) in tracked[..self.net.buffers()].iter().enumerate() {
            let Buf {
                cnt,
                msg,
                sent,
                state,
                ..
            } = self.bufs.buf[b];
            let len_of = |m: u32| {
                if m == NONE {
                    0
                } else {
                    self.msgs.len[m as usize]
                }
            };
            let len = len_of(msg);
            flits += cnt as u64;
            if cnt > depth {
                return Err(format!("buffer {b} holds {cnt} flits > depth {depth}"));
            }
            if cnt > 0 && msg == NONE {
                return Err(format!("buffer {b} holds flits but no message"));
            }
            let queued = self.early.queued.get(b).is_some_and(|&q| q != NONE);
            // A link of L > 1: a buffer whose tail has left keeps its message's id until the
            // tail's credit lands, by which time the message may be delivered and its id
            // reused.
            let crediting = cnt == 0 && self.pipe.held.get(b).is_some_and(|&h| h > 0);
            if msg != NONE && !queued && !crediting && sent + cnt > len {
                return Err(format!("buffer {b} has more flits than its message"));
            }
            if queued && (self.bufs.buf[b].up != self.bufs.no_up() || cnt <= len - sent) {
                return Err(format!(
                    "buffer {b} queues a message before its own tail arrived, or without its header"
                ));
            }
            if queued && cnt - (len - sent) > len_of(self.early.queued[b]) {
                return Err(format!("buffer {b} holds more flits than its two messages"));
            }
            if cnt > 0 && self.bufs.buf[b].state == IDLE {
                return Err(format!("buffer {b} holds flits but is not tracked"));
            }
            if state == FLOW && (cnt != 1 || msg == NONE || !self.flows_at(b as u32, msg)) {
                return Err(format!(
                    "buffer {b} flows with {cnt} flits, message {msg} not flowing"
                ));
            }
            if times > 1 {
                return Err(format!("buffer {b} is in the active sets {times} times"));
            }
            if (state == ACTIVE) != (times == 1) {
                return Err(format!(
                    "buffer {b}: active set and state disagree (state {state}, in the sets \
                     {times} times, {cnt} flits, {sent} sent, message {msg})"
                ));
            }
        }
        // Flits on a link of more than one cycle are in neither buffer until they arrive.
        let flying = self.pipe.arriving();
        if flits + flying != self.flits_in_net {
            return Err(format!(
                "{flits} flits in buffers and {flying} on links but {} counted",
                self.flits_in_net
            ));
        }
        Ok(())
    }

    /// The engine's heap, part by part, in bytes: buffers (their records and active set),
    /// channels (arbiters, counters, wait-list heads), the topology's graph, the rest of the
    /// wired network, sources, messages, VC occupancy, selection streams, and the rest.
    pub fn memory(&self) -> Vec<(&'static str, u64)> {
        let net = &self.net;
        let messages = self.msgs.heap_bytes() + self.hops.heap_bytes();
        let rest = self.work.waits.heap_bytes()
            + self.early.heap_bytes()
            + self.pipe.heap_bytes()
            + self.ports.heap_bytes()
            + vec_bytes(&self.work.visit)
            + vec_bytes(&self.work.pull)
            + vec_bytes(&self.delivered)
            + vec_bytes(&self.deliveries)
            + self.work.flows.heap_bytes()
            + self.split.as_ref().map_or(0, |s| s.heap_bytes());
        vec![
            (
                "buffers",
                vec_bytes(&self.bufs.buf)
                    + self.work.active.words_bytes()
                    + self.work.heads.words_bytes(),
            ),
            (
                "channels",
                vec_bytes(&self.arbiters.chan)
                    + vec_bytes(&self.arbiters.drv_rr)
                    + self.work.requested.words_bytes(),
            ),
            ("topology", net.topology.heap_bytes()),
            ("network", network_bytes(net)),
            ("sources", self.sources.heap_bytes()),
            ("messages", messages),
            ("occupancy", self.occupancy.heap_bytes()),
            ("selection", vec_bytes(&self.rngs)),
            ("other", rest),
        ]
    }

    /// Whether message `m`, which buffer `b` holds, flows where `b` is (for the invariants).
    fn flows_at(&self, b: u32, m: u32) -> bool {
        let flows = match &self.split {
            Some(split) => split.flows_of(b, self.net.vcs),
            None => &self.work.flows,
        };
        flows.flag.get(m as usize).is_some_and(|&f| f != STILL)
    }

    /// Every worm stops flowing, settled, and no worm flows from here on (for the tests of
    /// settling: a run's plan keeps its worms flowing).
    #[cfg(test)]
    pub(super) fn stop_flows(&mut self) {
        let mut split = self.split.take();
        self.settle_flows_in(split.as_deref_mut());
        self.split = split;
        self.work.flows.on = false;
        self.plan.kind = super::CycleKind::OnePass { flows: false };
    }

    /// Buffers inside flowing worms now.
    pub fn flowing_buffers(&self) -> u64 {
        self.flow_bufs()
    }

    /// Messages queued in a buffer behind another message's tail (early free).
    pub fn early_queued(&self) -> usize {
        self.early.queued.iter().filter(|&&m| m != NONE).count()
    }

    /// Messages allocated (queued at sources or in the network).
    pub fn live_messages(&self) -> usize {
        self.msgs.live()
    }

    /// Messages of source `s` being injected now: holding an injection buffer, some of their
    /// flits not yet injected (at most `[traffic] source_concurrency`). For tests.
    pub fn source_in_flight(&self, s: u32) -> u32 {
        self.sources.in_flight(s)
    }
}
