//! The built network, topology-neutral: channels (arbitration points), buffers (virtual
//! channels), arbiters and processor attachment, numbered densely, wired once per point from a
//! [`Topology`] and passed as `&Network` to routing, traffic, models and output
//! (ARCHITECTURE.md, after paper 004 section 2.3).
//!
//! Channel ids: network links `0..L`, then the injection channels `L..L+I`, then the ejection
//! channels `L+I..L+2I`, `attach` of each per processor (I = attach · N). Each link and
//! injection channel feeds V buffers, buffer id `channel * V + vc`, held at the router the
//! link enters (its "router"). Ejection channels feed the processing element and never block.
//!
//! A k-ary n-cube's routers have a crossbar: each link is its own arbiter, and every buffer of a
//! router drives each of its output links, with slot `port * V + vc` (one-level round-robin).
//! In a k-ary m-way network (paper 004) the "routers" of the engine are the m-way channels and
//! the links are the m-way routers' buffer sets, so every link and ejection channel leaving
//! one m-way channel shares that channel's single arbiter. Its drivers are router interfaces
//! (a buffer set, plus the injection buffer of a processor inside that router) and processors
//! on the channel, slot = the driver's port, and a driver's buffers take turns behind it
//! (two-level round-robin, fair per driver: paper 004 section 3.4).

use crate::spec::Scenario;
use crate::topology::{KAryNCube, Link, Topology};

/// No buffer, channel or message (a sentinel id).
pub const NONE: u32 = u32::MAX;

/// The wired network: dense ids and flat arrays (struct of arrays).
#[derive(Clone)]
pub struct Network {
    /// The topology the network was wired from (its graph, processors and capabilities).
    pub topology: Topology,
    /// Virtual channels per physical channel (V); buffers per buffer set (B) in m-way.
    pub vcs: u32,
    /// Flits per buffer.
    pub depth: u16,
    /// Number of network links (L).
    pub links: u32,
    /// Processors (message sources and sinks).
    pub nodes: u32,
    /// Injection (and ejection) channels per processor.
    pub attach: u32,
    /// `proc_at[p * attach + j]`: router of processor p's j-th injection channel.
    pub proc_at: Vec<u32>,
    /// Processor p sits at router p alone (`attach` 1 and `proc_at` the identity), so that
    /// routing finds a destination's router without reading `proc_at`.
    proc_is_router: bool,
    /// Injection buffers a source may use: V, or 1 in m-way (paper 004 Fig. 7).
    pub inj_vcs: u32,
    /// Channels: links, injection and ejection channels.
    nchan: usize,
    /// Channels with buffers: links and injection channels.
    bufchans: u32,
    /// Arbiter of each channel when `shared`; empty otherwise (each channel is its own arbiter).
    pub arb_of: Vec<u32>,
    /// Number of driver slots of each arbiter.
    pub arb_drivers: Vec<u16>,
    /// Shared m-way channels: two-level round-robin (drivers, then their buffers).
    pub shared: bool,
    /// Shared channels: each buffer's driver (a channel interface).
    pub buf_driver: Vec<u32>,
    /// Shared channels: each buffer's turn within its driver.
    pub buf_sub: Vec<u8>,
    /// Shared channels: each driver's number of turns.
    pub driver_size: Vec<u8>,
}

impl Network {
    /// Builds the network a scenario describes.
    pub fn for_scenario(s: &Scenario) -> Network {
        Network::new(
            Topology::build(&s.topology),
            s.router.vcs,
            s.router.buffer_depth,
        )
    }

    /// Wires a topology with `vcs` buffers of `depth` flits per channel (V per link of a
    /// k-ary n-cube, B per buffer set of an m-way network).
    pub fn new(topology: impl Into<Topology>, vcs: u32, depth: u32) -> Network {
        let topology = topology.into();
        let a = topology.attachment();
        let routers = topology.routers();
        let proc_at: Vec<u32> = match a.proc_at {
            Some(p) => p.to_vec(),
            None => (0..routers as u32).collect(),
        };
        let attach = a.attach;
        let shared = a.shared_channels;
        let shares = a.shares.to_vec();
        // A source injects into any of its V buffers, or into its one injection buffer on an
        // m-way channel (paper 004 Fig. 7).
        let inj_vcs = if shared { 1 } else { vcs };
        let topo_links = topology.links();
        let links = topo_links.len() as u32;
        let inj = proc_at.len() as u32;
        let nodes = inj / attach;
        let (ports, _) = wire_ports(&topology, &proc_at, &shares, vcs, shared, false);
        // Drivers of shared channels: a link's buffers, joined by a processor's injection
        // buffer when it shares the link's router interface.
        let (mut buf_driver, mut buf_sub, mut driver_size) = (Vec::new(), Vec::new(), Vec::new());
        if shared {
            driver_size = vec![vcs as u8; links as usize];
            driver_size.extend((0..inj).map(|_| inj_vcs as u8));
            for c in 0..links + inj {
                for v in 0..vcs {
                    let (d, sub) = match shares.get(c.wrapping_sub(links) as usize) {
                        Some(&l) if c >= links => (l, vcs + v),
                        _ => (c, v),
                    };
                    buf_driver.push(d);
                    buf_sub.push(sub as u8);
                }
            }
            for &l in &shares {
                driver_size[l as usize] += inj_vcs as u8;
            }
        }
        let slots = |r: u32| ports[r as usize] * if shared { 1 } else { vcs as u16 };
        let nchan = (links + 2 * inj) as usize;
        let (arb_of, arb_drivers) = if shared {
            // Arbiter c is m-way channel c; injection channels get private arbiters after them.
            let mut of: Vec<u32> = topo_links.iter().map(|l| l.src).collect();
            of.extend((0..inj).map(|i| routers as u32 + i));
            of.extend(proc_at.iter().copied());
            let mut drivers: Vec<u16> = (0..routers as u32).map(slots).collect();
            drivers.extend((0..inj).map(|_| 1u16));
            (of, drivers)
        } else {
            let of = Vec::new();
            let mut drivers: Vec<u16> = topo_links.iter().map(|l| slots(l.src)).collect();
            drivers.extend((0..inj).map(|_| 1u16));
            drivers.extend(proc_at.iter().map(|&r| slots(r)));
            (of, drivers)
        };
        let proc_is_router = attach == 1 && proc_at.iter().enumerate().all(|(p, &r)| r == p as u32);
        Network {
            topology,
            vcs,
            depth: depth as u16,
            links,
            nodes,
            attach,
            proc_is_router,
            proc_at,
            inj_vcs,
            nchan,
            bufchans: links + inj,
            arb_of,
            arb_drivers,
            shared,
            buf_driver,
            buf_sub,
            driver_size,
        }
    }

    /// The cube graph (coordinates, links) that cube routings and patterns work on; the
    /// routing's requirements guarantee that the topology has one.
    #[inline(always)]
    pub fn cube(&self) -> &KAryNCube {
        match self.topology.cube() {
            Some(t) => t,
            None => unreachable!("a cube routing on a network without coordinates"),
        }
    }

    /// The network link `l`.
    #[inline]
    pub fn link(&self, l: u32) -> &Link {
        &self.topology.links()[l as usize]
    }

    /// Number of buffers (virtual channels).
    pub fn buffers(&self) -> usize {
        self.buffered_channels() as usize * self.vcs as usize
    }

    /// Channels with buffers at their far end: links and injection channels (ejection
    /// channels, numbered after them, have none).
    #[inline]
    pub fn buffered_channels(&self) -> u32 {
        self.bufchans
    }

    /// Channels: links, injection and ejection channels.
    pub fn channels(&self) -> usize {
        self.nchan
    }

    /// The arbiter of channel `c`: its m-way channel when `shared`, else itself.
    #[inline]
    pub fn arbiter(&self, c: u32) -> u32 {
        if self.shared {
            self.arb_of[c as usize]
        } else {
            c
        }
    }

    /// The router that holds buffer `b`: the router its link enters, or its processor's.
    #[inline]
    pub fn buf_router(&self, b: u32) -> u32 {
        let c = self.buf_channel(b);
        if c < self.links {
            self.link(c).dst
        } else {
            self.proc_at[(c - self.links) as usize]
        }
    }

    /// Each buffer's driver slot at its arbiter: `port * V + vc`, or the port when `shared`
    /// (built when an engine is; the network does not keep it).
    pub fn buf_slots(&self) -> Vec<u16> {
        let a = self.topology.attachment();
        wire_ports(
            &self.topology,
            &self.proc_at,
            a.shares,
            self.vcs,
            self.shared,
            true,
        )
        .1
    }

    /// Routers of the engine: k-ary n-cube routers, or m-way channels.
    pub fn routers(&self) -> usize {
        self.topology.routers()
    }

    /// The first injection channel of a processor (its only one unless inside an m-way router).
    #[inline]
    pub fn injection_channel(&self, node: u32) -> u32 {
        self.links + node * self.attach
    }

    /// The first ejection channel of a processor.
    #[inline]
    pub fn ejection_channel(&self, node: u32) -> u32 {
        self.links + (self.nodes + node) * self.attach
    }

    /// The router a message for processor `dst` heads for from router `at`: the processor's
    /// router, or inside an m-way router the nearer of its two channels (ties: the first).
    #[inline]
    pub fn target(&self, at: u32, dst: u32) -> u32 {
        if self.proc_is_router {
            return dst;
        }
        let i = (dst * self.attach) as usize;
        let a = self.proc_at[i];
        if self.attach == 1 {
            return a;
        }
        let b = self.proc_at[i + 1];
        if self.topology.distance(at, b) < self.topology.distance(at, a) {
            b
        } else {
            a
        }
    }

    /// The ejection channel into `dst` from router `at`, one of `dst`'s routers.
    #[inline]
    pub fn ejection_link(&self, at: u32, dst: u32) -> u32 {
        let j = (self.attach == 2 && self.proc_at[(dst * 2 + 1) as usize] == at) as u32;
        self.ejection_channel(dst) + j
    }

    /// The injection channel a message from `src` to `dst` enters: inside an m-way router,
    /// the one on the channel nearer the destination (ties: the first).
    #[inline]
    pub fn injection_link(&self, src: u32, dst: u32) -> u32 {
        let first = self.injection_channel(src);
        if self.attach == 1 {
            return first;
        }
        let dist = |j: u32| {
            let at = self.proc_at[(src * 2 + j) as usize];
            self.topology.distance(at, self.target(at, dst))
        };
        first + (dist(1) < dist(0)) as u32
    }

    /// The channel a buffer receives from.
    #[inline]
    pub fn buf_channel(&self, b: u32) -> u32 {
        b / self.vcs
    }

    /// The virtual channel (buffer index within its channel) of a buffer.
    #[inline]
    pub fn buf_vc(&self, b: u32) -> u32 {
        b % self.vcs
    }

    /// A readable name of a buffer, for deadlock reports.
    pub fn describe_buffer(&self, b: u32) -> String {
        let c = self.buf_channel(b);
        let vc = self.buf_vc(b);
        if c < self.links {
            let l = self.link(c);
            if self.shared {
                format!(
                    "m-way router buffer set (channel {} -> channel {}, dim {} {}) buffer {}",
                    l.src,
                    l.dst,
                    l.dim,
                    l.dir.sign(),
                    vc
                )
            } else {
                format!(
                    "router {} input from {} (dim {} {}) vc {}",
                    l.dst,
                    l.src,
                    l.dim,
                    l.dir.sign(),
                    vc
                )
            }
        } else {
            let i = c - self.links;
            let (p, j) = (i / self.attach, i % self.attach);
            if self.shared {
                format!(
                    "processor {p} injection buffer {vc} on channel {}",
                    self.proc_at[(p * self.attach + j) as usize]
                )
            } else {
                format!("router {p} injection vc {vc}")
            }
        }
    }
}

/// Numbers each router's input ports (its incoming links in link order, then its injection
/// channels; a processor inside an m-way router injects through its router's port). Returns
/// the ports per router and, when `slots`, each buffer's driver slot: `port * V + vc`, or the
/// port when `shared`.
fn wire_ports(
    topology: &Topology,
    proc_at: &[u32],
    shares: &[u32],
    vcs: u32,
    shared: bool,
    slots: bool,
) -> (Vec<u16>, Vec<u16>) {
    let topo_links = topology.links();
    let links = topo_links.len() as u32;
    let inj = proc_at.len() as u32;
    let mut ports = vec![0u16; topology.routers()];
    let mut buf_slot = vec![
        0u16;
        if slots {
            ((links + inj) * vcs) as usize
        } else {
            0
        }
    ];
    let owners = topo_links
        .iter()
        .map(|l| l.dst)
        .chain(proc_at.iter().copied());
    for (chan, router) in (0..links + inj).zip(owners) {
        let shared_with = shares.get(chan.wrapping_sub(links) as usize);
        let p = match shared_with {
            // Shared channels: a link's buffers carry its port as their slot.
            Some(&l) if chan >= links => buf_slot.get((l * vcs) as usize).copied().unwrap_or(0),
            _ => {
                ports[router as usize] += 1;
                ports[router as usize] - 1
            }
        };
        if slots {
            for v in 0..vcs {
                buf_slot[(chan * vcs + v) as usize] = if shared {
                    p
                } else {
                    (p as u32 * vcs + v) as u16
                };
            }
        }
    }
    (ports, buf_slot)
}
