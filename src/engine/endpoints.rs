//! The network's endpoints: Poisson sources and their FIFO queues, injection into the
//! injection buffers (step 1 and step 3 of the cycle), and delivery of ejected messages.

use super::{ACTIVE, Delivery, Engine, IDLE};
use crate::network::NONE;
use std::cmp::Reverse;

impl Engine {
    /// Queues a message of `len` flits at `src` for `dst`, generated in the current cycle.
    pub fn send(&mut self, src: u32, dst: u32, len: u16) {
        let m = self.msgs.alloc(src, dst, len, self.cycle);
        self.enqueue(src, m);
    }

    fn enqueue(&mut self, s: u32, m: u32) {
        let su = s as usize;
        self.generated_msgs += 1;
        self.backlog += 1;
        let created = self.msgs.created[m as usize];
        if created >= self.window.start && created < self.window.end {
            self.outstanding += 1;
        }
        if self.q_head[su] == NONE {
            self.q_head[su] = m;
        } else {
            self.msgs.next[self.q_tail[su] as usize] = m;
        }
        self.q_tail[su] = m;
        if !self.s_listed[su] {
            self.s_listed[su] = true;
            self.active_src.push(s);
        }
    }

    /// Step 1: Poisson arrivals due this cycle join their source queues.
    pub(super) fn generate(&mut self) {
        let Some(exp) = self.exp else { return };
        if self.drain_only {
            return;
        }
        while let Some(&Reverse((c, s))) = self.arrivals.peek() {
            if c > self.cycle {
                break;
            }
            self.arrivals.pop();
            let src = &mut self.sources[s as usize];
            let rng = src.arrive(&exp);
            let sent = self.traffic.message(self.net.traffic_topo(), s, rng);
            self.arrivals.push(Reverse((src.next_cycle(), s)));
            if let Some((dst, len)) = sent {
                let m = self.msgs.alloc(s, dst, len, self.cycle);
                self.enqueue(s, m);
            }
        }
    }

    /// Step 3: each source sends the next flit of its oldest message into a free injection
    /// buffer with space. Returns the number of flits injected.
    pub(super) fn inject(&mut self) -> u64 {
        let net = &self.net;
        let depth = net.depth;
        let vcs = net.vcs;
        let inj_vcs = net.inj_vcs;
        let mut injected = 0;
        let mut i = 0;
        while i < self.active_src.len() {
            let s = self.active_src[i] as usize;
            let m = self.q_head[s];
            if self.drain_only && self.s_sent[s] == 0 {
                i += 1;
                continue;
            }
            let mut t = self.s_buf[s];
            let mut link = self.s_link[s];
            if t == NONE {
                link = match net.attach {
                    1 => net.injection_channel(s as u32),
                    _ => net.injection_link(s as u32, self.msgs.dst[m as usize]),
                };
                let base = link * vcs;
                match (base..base + inj_vcs).find(|&b| self.bufs[b as usize].msg == NONE) {
                    Some(b) => t = b,
                    None => {
                        i += 1;
                        continue;
                    }
                }
            }
            let tu = t as usize;
            if self.bufs[tu].cnt >= depth {
                i += 1;
                continue;
            }
            let len = self.msgs.len[m as usize];
            if self.s_sent[s] == 0 {
                let tb = &mut self.bufs[tu];
                tb.msg = m;
                tb.len = len;
                tb.sent = 0;
                tb.last = self.cycle as u32;
                self.msgs.inject[m as usize] = self.cycle;
                self.s_buf[s] = t;
                self.s_link[s] = link;
                self.c_msgs[link as usize] += 1;
            }
            self.c_flits[link as usize] += 1;
            self.bufs[tu].cnt += 1;
            if self.b_state[tu] == IDLE {
                self.b_state[tu] = ACTIVE;
                self.active.insert(t);
            }
            self.flits_in_net += 1;
            injected += 1;
            self.s_sent[s] += 1;
            if self.s_sent[s] == len {
                self.q_head[s] = self.msgs.next[m as usize];
                self.s_buf[s] = NONE;
                self.s_sent[s] = 0;
                self.backlog -= 1;
                if self.q_head[s] == NONE {
                    self.s_listed[s] = false;
                    self.active_src.swap_remove(i);
                    continue;
                }
            }
            i += 1;
        }
        injected
    }

    /// The tail of message `m` was ejected this cycle.
    pub(super) fn deliver(&mut self, m: u32) {
        let mi = m as usize;
        self.ejected_msgs += 1;
        let created = self.msgs.created[mi];
        let inject = self.msgs.inject[mi];
        let hops = self.msgs.hops[mi];
        let w = self.window;
        if created >= w.start && created < w.end {
            self.outstanding -= 1;
            let batch = ((created - w.start) * w.batches / (w.end - w.start)) as usize;
            self.stats.record(
                self.cycle - created,
                self.cycle - inject,
                hops as u32,
                batch,
            );
            self.stats
                .record_routing(self.msgs.adaptive[mi] as u32, self.msgs.timeouts[mi] as u32);
        }
        if self.log_deliveries {
            self.deliveries.push(Delivery {
                src: self.msgs.src[mi],
                dst: self.msgs.dst[mi],
                len: self.msgs.len[mi],
                created,
                inject,
                eject: self.cycle,
                hops,
            });
        }
        self.msgs.release(m);
    }
}
