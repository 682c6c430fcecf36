//! Concentration: c processors on each router of a k-ary n-cube or HyperX, processor i on
//! router ⌊i / c⌋, each with its own injection and ejection channel (a concentrated mesh).

use super::{Attachment, Properties};

/// How many processors share each router, and which router each is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Concentration {
    /// Processors per router, c.
    pub per_router: u32,
    /// `proc_at[i]`: processor i's router, ⌊i / c⌋; empty when c = 1 (processor i is router i).
    pub proc_at: Vec<u32>,
}

impl Concentration {
    /// One processor per router.
    pub fn one() -> Concentration {
        Concentration {
            per_router: 1,
            proc_at: Vec::new(),
        }
    }

    /// `c` processors on each of `routers` routers.
    pub fn new(c: u32, routers: usize) -> Concentration {
        let proc_at = match c {
            1 => Vec::new(),
            _ => (0..routers as u32 * c).map(|i| i / c).collect(),
        };
        Concentration {
            per_router: c,
            proc_at,
        }
    }

    /// The processors' attachment: each on its router by one injection channel.
    pub fn attachment(&self) -> Attachment<'_> {
        Attachment {
            proc_at: (self.per_router > 1).then_some(&self.proc_at[..]),
            attach: 1,
            shared_channels: false,
            shares: &[],
        }
    }

    /// A one-processor-per-router network's properties with c processors per router: c·N
    /// processors, and the mean distance over ordered pairs of distinct processors, the c²
    /// pairs of each router pair at its distance and the c(c − 1) of a router at none:
    /// c²·N(N − 1)·d̄ / (cN(cN − 1)) = c(N − 1)·d̄ / (cN − 1).
    pub fn apply(&self, mut p: Properties) -> Properties {
        let c = self.per_router;
        if c > 1 {
            let (c, n) = (c as f64, p.routers as f64);
            p.processors = p.routers * self.per_router as u64;
            p.mean_distance = c * (n - 1.0) * p.mean_distance / (c * n - 1.0);
            p.shape.push(("concentration", self.per_router.to_string()));
        }
        p
    }
}
