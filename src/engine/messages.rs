//! Messages in flight or waiting at their source: a slab of columns indexed by a recycled u32
//! id. Flits are not objects: a buffer records which message it holds and how many flits.

use crate::network::NONE;
use crate::stats::Hops;

/// What a reply carries of its request, for the round trip's statistics.
#[derive(Clone, Copy, Debug, Default)]
pub struct Leg {
    /// The request's network latency: head injected to tail ejected.
    pub network: u64,
    /// The request's hops.
    pub hops: Hops,
}

#[derive(Clone, Default)]
pub struct Messages {
    pub src: Vec<u32>,
    pub dst: Vec<u32>,
    pub len: Vec<u16>,
    /// Cycle the message was generated (joined its source queue).
    pub created: Vec<u64>,
    /// Cycle its head flit crossed the injection channel.
    pub inject: Vec<u64>,
    /// Bit d set: a tie half-way round dimension d's ring goes `−` (`[routing] tie`).
    pub tie: Vec<u32>,
    /// Next message in the same source queue (an intrusive FIFO), or NONE.
    pub next: Vec<u32>,
    /// With replies (`[traffic] reply_length`; else empty): a reply, which routes in the
    /// reply class of virtual channels.
    pub reply: Vec<bool>,
    /// With replies (else empty): a reply's request's network latency and hops, which the
    /// round trip's add to the reply's; zero for requests.
    pub before: Vec<Leg>,
    /// Messages are requests answered by replies: `reply` and `before` are kept.
    replies: bool,
    free: Vec<u32>,
}

impl Messages {
    /// The columns of requests answered by replies.
    pub fn with_replies() -> Messages {
        Messages {
            replies: true,
            ..Messages::default()
        }
    }

    /// A message of `len` flits from `src` to `dst` generated in cycle `created`, with tie
    /// bits `tie`: a request, or a message without reply.
    pub fn alloc(&mut self, src: u32, dst: u32, len: u16, created: u64, tie: u32) -> u32 {
        if let Some(id) = self.free.pop() {
            let i = id as usize;
            self.src[i] = src;
            self.dst[i] = dst;
            self.len[i] = len;
            self.created[i] = created;
            self.inject[i] = 0;
            self.tie[i] = tie;
            self.next[i] = NONE;
            if self.replies {
                self.reply[i] = false;
                self.before[i] = Leg::default();
            }
            id
        } else {
            self.src.push(src);
            self.dst.push(dst);
            self.len.push(len);
            self.created.push(created);
            self.inject.push(0);
            self.tie.push(tie);
            self.next.push(NONE);
            if self.replies {
                self.reply.push(false);
                self.before.push(Leg::default());
            }
            (self.src.len() - 1) as u32
        }
    }

    /// Message `m` becomes a reply to a request that made `before`.
    pub fn make_reply(&mut self, m: u32, before: Leg) {
        self.reply[m as usize] = true;
        self.before[m as usize] = before;
    }

    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    /// Messages currently allocated.
    pub fn live(&self) -> usize {
        self.src.len() - self.free.len()
    }

    /// Bytes of the message columns (the free list aside).
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.src)
            + vec_bytes(&self.dst)
            + vec_bytes(&self.len)
            + vec_bytes(&self.created)
            + vec_bytes(&self.inject)
            + vec_bytes(&self.tie)
            + vec_bytes(&self.next)
            + vec_bytes(&self.reply)
            + vec_bytes(&self.before)
    }
}
