//! The crossbar's inputs (`[router] crossbar`). `per-vc` (the default, paper 000's (n+1)V-way
//! crossbar): every virtual channel has its own crossbar input, so the V buffers of one input
//! port may each send a flit in the same cycle. `per-port`: each input port (a link or the
//! injection channel) has one crossbar input, so it sends at most one flit per cycle. Its ready
//! virtual channels (a flit at the front whose header found a free buffer, or whose downstream
//! buffer has space) first compete at the port, round-robin after the last one granted, and
//! only the port's winner asks for its output: a separable input-first allocator, as most
//! input-queued router models have. A port's winner that loses at the output sends nothing this
//! cycle, even if another of its virtual channels could have used a free output.

use super::active::ActiveSet;
use crate::network::Network;

/// No request at an input port this cycle.
const NO_REQUEST: u64 = u64::MAX;

/// The input ports' arbiters under `crossbar = "per-port"`; empty under `per-vc`.
#[derive(Clone, Default)]
pub(super) struct InputPorts {
    /// The best request at each port (a channel with buffers) this cycle: `key << 32 |
    /// buffer`, key the virtual channel's round-robin order after the last grant
    /// (`arbitration::turn_key`).
    best: Vec<u64>,
    /// The virtual channel granted last at each port.
    rr: Vec<u8>,
    /// Ports with a request this cycle.
    requested: Option<ActiveSet>,
}

impl InputPorts {
    /// Bytes of the port arbiters.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        vec_bytes(&self.best)
            + vec_bytes(&self.rr)
            + self.requested.as_ref().map_or(0, |r| r.words_bytes())
    }

    /// One arbiter per channel of `net` with buffers, when `per_port`.
    pub fn new(net: &Network, per_port: bool) -> InputPorts {
        if !per_port {
            return InputPorts::default();
        }
        let ports = net.buffers() / net.vcs as usize;
        InputPorts {
            best: vec![NO_REQUEST; ports],
            rr: vec![net.vcs as u8 - 1; ports],
            requested: Some(ActiveSet::new(ports)),
        }
    }

    /// True under `crossbar = "per-port"`.
    #[inline]
    pub fn on(&self) -> bool {
        self.requested.is_some()
    }

    /// Buffer `b` (virtual channel `vc` of port `port`) is ready to send.
    #[inline]
    pub fn request(&mut self, b: u32, port: u32, vc: u32) {
        let p = port as usize;
        let key = super::arbitration::turn_key(vc as u16, self.rr[p] as u16);
        self.best[p] = self.best[p].min(key << 32 | b as u64);
        if let Some(r) = &mut self.requested {
            r.insert(port);
        }
    }

    /// Calls `f` with each port's winner and clears the requests.
    #[inline]
    pub fn winners(&mut self, mut f: impl FnMut(u32)) {
        let Some(r) = &mut self.requested else { return };
        let best = &mut self.best;
        r.drain(|p| {
            let b = std::mem::replace(&mut best[p as usize], NO_REQUEST);
            f(b as u32);
        });
    }

    /// Virtual channel `vc` of port `port` was granted its output.
    #[inline]
    pub fn granted(&mut self, port: u32, vc: u32) {
        self.rr[port as usize] = vc as u8;
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::parts::ACTIVE;
    use crate::engine::{Engine, build_engine};
    use crate::scenario::Scenario;

    /// A 3x3 mesh with V = 4 whose west link into the centre router (node 3 → node 4) holds
    /// four whole messages of `m` flits, one per virtual channel, bound for the four other
    /// outputs of the centre (east to 5, ejection at 4, y− to 1, y+ to 7).
    fn loaded(crossbar: &str, m: u16) -> (Engine, Vec<usize>) {
        let text = format!(
            "name = \"x\"\n[topology]\nkind = \"mesh\"\nk = 3\nn = 2\n[router]\nvcs = 4\n\
             buffer_depth = {m}\ncrossbar = \"{crossbar}\"\n[traffic]\nrates = [0.001]\n"
        );
        let s = Scenario::from_toml(&text, "x.toml").unwrap();
        let mut e = build_engine(&s, 0.0, 1);
        let link = (0..e.net.links)
            .find(|&l| e.net.link(l).src == 3 && e.net.link(l).dst == 4)
            .unwrap();
        let no_up = e.bufs.no_up();
        let mut bufs = Vec::new();
        for (vc, dst) in [5u32, 4, 1, 7].into_iter().enumerate() {
            let b = link * 4 + vc as u32;
            bufs.push(b as usize);
            e.occupancy.change(link as usize, true, 0);
            let msg = e.msgs.alloc(3, dst, m, 0, 0);
            let buf = &mut e.bufs.buf[b as usize];
            (buf.msg, buf.cnt, buf.sent, buf.up) = (msg, m, 0, no_up);
            e.bufs.buf[b as usize].state = ACTIVE;
            e.work.active.insert(b);
            e.flits_in_net += m as u64;
            e.generated_msgs += 1;
        }
        (e, bufs)
    }

    #[test]
    fn per_vc_moves_v_flits_from_one_port_per_cycle_and_per_port_one() {
        let m = 6u16;
        for (crossbar, per_cycle, cycles) in [("per-vc", 4, m), ("per-port", 1, 4 * m)] {
            let (mut e, bufs) = loaded(crossbar, m);
            let held = |e: &Engine| -> u64 { bufs.iter().map(|&b| e.bufs.buf[b].cnt as u64).sum() };
            let mut left = Vec::new();
            while held(&e) > 0 {
                let before = held(&e);
                e.step();
                left.push(before - held(&e));
            }
            // Every output is free and deep enough: the port empties at its crossbar's rate.
            assert_eq!(left, vec![per_cycle; cycles as usize], "{crossbar}");
            while !e.idle() {
                e.step();
            }
            assert_eq!(e.ejected_msgs, 4, "{crossbar}");
        }
    }
}
