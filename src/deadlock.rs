//! A deadlock's report: the point, why its network was checked, and each buffer that cannot
//! move, with its message and what it waits for. Its Display is the deadlock error's text.

use std::fmt;

/// The most stuck buffers the report's text lists one by one.
const SHOWN: usize = 12;

/// Why a point's network was checked for deadlock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeadlockCause {
    /// Flits had not moved for `cycles` cycles (`[run] watchdog_cycles`).
    Watchdog {
        /// The watchdog's period, cycles.
        cycles: u64,
    },
    /// The point was stopping on its backlog limit (`[run] max_backlog`).
    Backlog,
    /// The point was stopping on its drain cap (`[run] drain_cycles`).
    DrainCap,
    /// The point was stopping on its warm-up cap (`[run] max_warmup_cycles`).
    WarmupCap,
    /// The point was ending with no flit moved for its last `cycles` cycles, though flits
    /// were in the network (a closed loop whose every source waits on a stuck reply measures
    /// nothing, and so drains at once).
    Ending {
        /// The cycles without a flit moving.
        cycles: u64,
    },
}

impl fmt::Display for DeadlockCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let limit = match self {
            DeadlockCause::Watchdog { cycles } => {
                return write!(f, "flits had not moved for {cycles} cycles");
            }
            DeadlockCause::Ending { cycles } => {
                return write!(
                    f,
                    "the point was ending with flits that had not moved for {cycles} cycles"
                );
            }
            DeadlockCause::Backlog => "backlog limit",
            DeadlockCause::DrainCap => "drain cap",
            DeadlockCause::WarmupCap => "warm-up cap",
        };
        write!(
            f,
            "the point was stopping on its {limit} while its network was frozen"
        )
    }
}

/// Where a buffer (virtual channel) is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The buffer's id.
    pub buffer: u32,
    /// The channel it receives from: a network link, or an injection channel.
    pub channel: u32,
    /// Its virtual channel on that channel.
    pub vc: u32,
    /// The router that holds it (an m-way network's channel).
    pub router: u32,
    /// Its readable name (`router 5 input from 4 (dim 0 +) vc 0`).
    pub name: String,
}

/// The message a stuck buffer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StuckMessage {
    /// The message's id (recycled once it is delivered).
    pub id: u32,
    /// Its source processor.
    pub source: u32,
    /// Its destination processor.
    pub destination: u32,
    /// Its flits that have left the buffer.
    pub sent: u16,
    /// Its length, flits.
    pub length: u16,
}

/// What the flit at the front of a stuck buffer waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wait {
    /// The header waits for a free buffer among those its route offers (`candidates`, buffer
    /// ids, in the routing's order).
    FreeBuffer {
        /// The buffers the header may take.
        candidates: Vec<u32>,
    },
    /// A body flit waits for space in the downstream buffer its message holds.
    Space {
        /// The downstream buffer.
        downstream: Place,
        /// The flits the downstream buffer holds.
        flits: u16,
    },
    /// A body flit waits for its message's ejection channel.
    Ejection,
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wait::FreeBuffer { .. } => f.write_str("header waiting for a free buffer"),
            Wait::Space { downstream, .. } => {
                write!(f, "waiting for space in {}", downstream.name)
            }
            Wait::Ejection => f.write_str("waiting for ejection"),
        }
    }
}

/// A buffer that cannot move: where it is, the flits it holds, their message and what the
/// front flit waits for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StuckBuffer {
    /// Where the buffer is.
    pub place: Place,
    /// The flits it holds.
    pub flits: u16,
    /// The message they belong to (always one while the buffer holds flits).
    pub message: Option<StuckMessage>,
    /// What its front flit waits for.
    pub waits: Wait,
}

impl StuckBuffer {
    /// The buffers the front flit waits for: a header's candidates or a body's downstream
    /// buffer (none for ejection).
    pub fn waits_for(&self) -> Vec<u32> {
        match &self.waits {
            Wait::FreeBuffer { candidates } => candidates.clone(),
            Wait::Space { downstream, .. } => vec![downstream.buffer],
            Wait::Ejection => Vec::new(),
        }
    }
}

impl fmt::Display for StuckBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} flit(s) of ", self.place.name, self.flits)?;
        match &self.message {
            Some(m) => write!(f, "message {}->{}", m.source, m.destination)?,
            None => f.write_str("no message")?,
        }
        write!(f, ", {}", self.waits)
    }
}

/// A point's deadlock: the cycle it was found in, the point, why the network was checked and
/// the buffers that still could not move once no new messages came.
#[derive(Clone, Debug, PartialEq)]
pub struct DeadlockReport {
    /// The point's cycle when the deadlock was found.
    pub cycle: u64,
    /// The point's load, messages/node/cycle.
    pub rate: f64,
    /// The point's seed.
    pub seed: u64,
    /// Why the network was checked.
    pub cause: DeadlockCause,
    /// The buffers that cannot move, in id order.
    pub stuck: Vec<StuckBuffer>,
}

impl fmt::Display for DeadlockReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deadlock at cycle {} (rate {}, seed {}): {}, and with no new messages {} buffer(s) still cannot move",
            self.cycle,
            self.rate,
            self.seed,
            self.cause,
            self.stuck.len()
        )?;
        for b in self.stuck.iter().take(SHOWN) {
            write!(f, "\n  {b}")?;
        }
        if self.stuck.len() > SHOWN {
            write!(f, "\n  ... and {} more", self.stuck.len() - SHOWN)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{DeadlockCause, DeadlockReport, Place, StuckBuffer, StuckMessage, Wait};

    /// Buffer `b` of a ring's router `b + 1`, named as a network names it.
    fn place(b: u32) -> Place {
        Place {
            buffer: b,
            channel: b,
            vc: 0,
            router: b + 1,
            name: format!("router {} input from {b} (dim 0 +) vc 0", b + 1),
        }
    }

    /// A stuck buffer `b` holding two flits of message `b`, waiting as `waits` says.
    fn stuck(b: u32, waits: Wait) -> StuckBuffer {
        StuckBuffer {
            place: place(b),
            flits: 2,
            message: Some(StuckMessage {
                id: b,
                source: b,
                destination: b + 2,
                sent: 1,
                length: 16,
            }),
            waits,
        }
    }

    #[test]
    fn the_text_is_made_from_the_report() {
        let body = Wait::Space {
            downstream: place(1),
            flits: 2,
        };
        let header = Wait::FreeBuffer {
            candidates: vec![0],
        };
        let mut r = DeadlockReport {
            cycle: 812,
            rate: 0.05,
            seed: 3,
            cause: DeadlockCause::Watchdog { cycles: 200 },
            stuck: vec![stuck(0, body), stuck(1, header)],
        };
        assert_eq!(
            r.to_string(),
            "deadlock at cycle 812 (rate 0.05, seed 3): flits had not moved for 200 cycles, and with no new messages 2 buffer(s) still cannot move\n  \
             router 1 input from 0 (dim 0 +) vc 0: 2 flit(s) of message 0->2, waiting for space in router 2 input from 1 (dim 0 +) vc 0\n  \
             router 2 input from 1 (dim 0 +) vc 0: 2 flit(s) of message 1->3, header waiting for a free buffer"
        );
        assert_eq!(
            (r.stuck[0].waits_for(), r.stuck[1].waits_for()),
            (vec![1], vec![0])
        );
        r.cause = DeadlockCause::DrainCap;
        r.stuck = (0..14).map(|b| stuck(b, Wait::Ejection)).collect();
        let text = r.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "deadlock at cycle 812 (rate 0.05, seed 3): the point was stopping on its drain cap while its network was frozen, and with no new messages 14 buffer(s) still cannot move"
        );
        assert_eq!(lines.len(), 14);
        assert_eq!(
            lines[12],
            "  router 12 input from 11 (dim 0 +) vc 0: 2 flit(s) of message 11->13, waiting for ejection"
        );
        assert_eq!(lines[13], "  ... and 2 more");
        assert_eq!(
            DeadlockCause::Backlog.to_string(),
            "the point was stopping on its backlog limit while its network was frozen"
        );
    }
}
