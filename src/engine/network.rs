//! The network as the engine sees it: channels (arbitration points) and buffers (virtual
//! channels), numbered densely (ARCHITECTURE.md, after paper 004 section 2.3).
//!
//! Channel ids: network links `0..L`, then the injection channel of each node `L..L+N`, then
//! the ejection channel of each node `L+N..L+2N`. Each link and injection channel feeds V
//! buffers at its receiving router, buffer id `channel * V + vc`; ejection channels feed the
//! processing element directly and never block. Every buffer of a router is a driver of each
//! of that router's output channels, with one slot number per router used for round-robin.

use crate::topology::KAryNCube;

pub const NONE: u32 = u32::MAX;

#[derive(Clone)]
pub struct Network {
    pub topo: KAryNCube,
    /// Virtual channels per physical channel (V).
    pub vcs: u32,
    /// Flits per buffer.
    pub depth: u16,
    /// Number of network links (L).
    pub links: u32,
    pub nodes: u32,
    /// Router that holds each buffer.
    pub buf_router: Vec<u32>,
    /// The buffer's driver slot at its router: `port * V + vc`.
    pub buf_slot: Vec<u16>,
    /// Number of driver slots of each channel's arbiter.
    pub chan_drivers: Vec<u16>,
}

impl Network {
    pub fn new(topo: KAryNCube, vcs: u32, depth: u32) -> Network {
        let links = topo.links.len() as u32;
        let nodes = topo.nodes as u32;
        let nbuf = (links + nodes) as usize * vcs as usize;
        let mut buf_router = vec![0u32; nbuf];
        let mut buf_slot = vec![0u16; nbuf];
        // Ports of each router: its incoming links in link order, then its injection channel.
        let mut ports = vec![0u16; nodes as usize];
        let mut set_port = |chan: u32, router: u32, ports: &mut Vec<u16>| {
            let p = ports[router as usize];
            ports[router as usize] += 1;
            for v in 0..vcs {
                let b = (chan * vcs + v) as usize;
                buf_router[b] = router;
                buf_slot[b] = (p as u32 * vcs + v) as u16;
            }
        };
        for (c, l) in topo.links.iter().enumerate() {
            set_port(c as u32, l.dst, &mut ports);
        }
        for node in 0..nodes {
            set_port(links + node, node, &mut ports);
        }
        let drivers_of = |r: u32| (ports[r as usize] as u32 * vcs) as u16;
        let mut chan_drivers = Vec::with_capacity((links + 2 * nodes) as usize);
        chan_drivers.extend(topo.links.iter().map(|l| drivers_of(l.src)));
        chan_drivers.extend((0..nodes).map(|_| 1u16));
        chan_drivers.extend((0..nodes).map(drivers_of));
        Network {
            topo,
            vcs,
            depth: depth as u16,
            links,
            nodes,
            buf_router,
            buf_slot,
            chan_drivers,
        }
    }

    pub fn buffers(&self) -> usize {
        self.buf_router.len()
    }

    pub fn channels(&self) -> usize {
        self.chan_drivers.len()
    }

    #[inline]
    pub fn injection_channel(&self, node: u32) -> u32 {
        self.links + node
    }

    #[inline]
    pub fn ejection_channel(&self, node: u32) -> u32 {
        self.links + self.nodes + node
    }

    /// The channel a buffer receives from.
    #[inline]
    pub fn buf_channel(&self, b: u32) -> u32 {
        b / self.vcs
    }

    #[inline]
    pub fn buf_vc(&self, b: u32) -> u32 {
        b % self.vcs
    }

    /// A readable name of a buffer, for deadlock reports.
    pub fn describe_buffer(&self, b: u32) -> String {
        let c = self.buf_channel(b);
        let vc = self.buf_vc(b);
        if c < self.links {
            let l = &self.topo.links[c as usize];
            format!(
                "router {} input from {} (dim {} {}) vc {}",
                l.dst,
                l.src,
                l.dim,
                l.dir.sign(),
                vc
            )
        } else {
            format!("router {} injection vc {}", c - self.links, vc)
        }
    }
}
