//! Protocol classes of request and reply traffic (`[traffic] reply_length`): the V virtual
//! channels of every network channel split into two classes of V/2, requests on `0..V/2` and
//! replies on `V/2..V`, each running the configured routing exactly as it would on V/2 virtual
//! channels, so each routing's own deadlock-freedom argument holds in each class. At an
//! endpoint of finite queues a request is consumed only once its reply can be queued, and
//! replies waiting for buffers that requests hold would close a cycle of dependencies through
//! the endpoints (protocol deadlock; Dally and Towles, "Principles and Practices of
//! Interconnection Networks", on deadlock): in separate classes a reply never waits for a
//! request's buffer. flitsim's source queues are unbounded and an ejection channel always
//! sinks, so its endpoints add no dependency, and requests and replies share the injection
//! buffers.

use super::{Algorithm, Candidates, Refusal, Routing, Setting};
use crate::network::Network;
use crate::spec::Scenario;

impl Candidates {
    /// Moves the candidates on network links up by `half` virtual channels (into the reply
    /// class); an ejection channel has no buffers to move.
    #[inline(always)]
    pub fn shift_links(&mut self, half: u8, links: u32) {
        for c in &mut self.items[..self.len] {
            if c.chan < links {
                c.vc_lo += half;
                c.vc_hi += half;
            }
        }
    }
}

impl Routing {
    /// The routing `[routing] algorithm` names for `net`: built for V/2 virtual channels (one
    /// protocol class) when messages have replies, else for V.
    pub fn new(s: &Scenario, net: &Network) -> Routing {
        if s.traffic.options.reply_length == 0 {
            return Routing::for_vcs(s, net);
        }
        let mut class = net.clone();
        class.vcs = net.vcs / 2;
        Routing::for_vcs(s, &class)
    }

    /// The buffer a reply's header in link buffer `in_buf` is in as its protocol class sees
    /// it, the reply class starting at virtual channel `half`: a link buffer's virtual channel
    /// less `half` (an injection buffer as it is). The routing routes from that buffer, and
    /// [`Candidates::shift_links`] moves its candidates on links up into the reply class.
    #[inline(always)]
    pub fn reply_view(net: &Network, in_buf: u32, half: u32) -> u32 {
        if net.buf_channel(in_buf) < net.links {
            in_buf - half
        } else {
            in_buf
        }
    }
}

/// The fewest virtual channels routing `a` runs on in setting `s` (which runs on `s.vcs`).
fn fewest_vcs(a: Algorithm, s: &Setting) -> u32 {
    (1..=s.vcs)
        .find(|&vcs| a.check(&Setting { vcs, ..*s }).is_ok())
        .unwrap_or(s.vcs)
}

/// With replies: each protocol class has V/2 virtual channels, at least the fewest the routing
/// runs on, so V is even and at least twice that; and the network's channels are its own
/// (a k-ary m-way network's buffer sets share theirs).
pub fn check(a: Algorithm, s: &Setting) -> Result<(), Refusal> {
    if s.topology.mway().is_some() {
        return Err(Refusal::new(
            "[traffic] reply_length",
            "requests and replies need their own virtual channels on every channel, and a k-ary m-way network's channels are shared by buffer sets",
            "remove reply_length, or use a k-ary n-cube (mesh, torus, hypercube), HyperX, dragonfly or fat tree",
        ));
    }
    let need = fewest_vcs(a, s);
    if s.vcs % 2 == 1 || s.vcs < 2 * need {
        return Err(Refusal::new(
            "[router] vcs",
            format!(
                "with reply_length, requests and replies each take V/2 virtual channels, and {} on a {} needs {need} per class, so V = 2 × {need} = {} or more, even; vcs is {}",
                a.name(),
                s.topology.name(),
                2 * need,
                s.vcs
            ),
            format!(
                "set vcs = {} (or a larger even number), or remove reply_length",
                2 * need
            ),
        ));
    }
    Ok(())
}
