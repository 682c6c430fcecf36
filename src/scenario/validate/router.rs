//! The validated `[router]` table and `[topology] link_latency` and `global_latency`: buffers,
//! early free, and the router and link timing (src/engine/timing.rs, src/engine/crossbar.rs).

use super::Checker;
use crate::error::Result;
use crate::scenario::{Crossbar, RouterSpec, TopologySpec};
use crate::spec::keys::{RawRouter, RawTopology};

/// The router's buffers and timing; the options beyond the papers' router are refused where
/// the engine keeps the papers' timing (early free, k-ary m-way networks).
pub(super) fn router(
    c: &Checker,
    r: &RawRouter,
    t: &RawTopology,
    topology: &TopologySpec,
) -> Result<RouterSpec> {
    let delay = c.ranged("[router] delay", r.delay)? as u32;
    let link_latency = match t.link_latency {
        Some(l) => c.ranged("[topology] link_latency", l)? as u32,
        None => 1,
    };
    let global_latency = match t.global_latency {
        Some(_) if !matches!(topology.family, crate::spec::Family::Dragonfly(_)) => {
            return Err(c.err(
                "[topology] global_latency",
                format!(
                    "only a dragonfly has global channels, not a {}",
                    topology.name()
                ),
                "remove global_latency, or use link_latency for every link",
            ));
        }
        Some(l) => Some(c.ranged("[topology] global_latency", l)? as u32),
        None => None,
    };
    let crossbar = c.choice(
        "[router] crossbar",
        "crossbar",
        r.crossbar.as_deref(),
        Crossbar::PerVc,
        Crossbar::ALL,
        Crossbar::name,
    )?;
    let spec = RouterSpec {
        options: c.plain(crate::spec::keys::RouterOptions::read(r))?,
        vcs: c.ranged("[router] vcs", r.vcs)? as u32,
        buffer_depth: c.ranged("[router] buffer_depth", r.buffer_depth)? as u32,
        early_free: r.early_free,
        delay,
        link_latency,
        global_latency,
        crossbar,
    };
    if topology.mway().is_some() {
        // Paper 004's networks have no pipeline or per-port crossbar to be faithful to.
        let changed = [
            ("[router] delay", delay != 0, "remove delay (0)"),
            (
                "[topology] link_latency",
                link_latency != 1,
                "remove link_latency (1)",
            ),
            (
                "[router] crossbar",
                crossbar != Crossbar::PerVc,
                "remove crossbar (\"per-vc\")",
            ),
        ];
        if let Some((key, _, fix)) = changed.into_iter().find(|x| x.1) {
            return Err(c.err(
                key,
                "k-ary m-way networks keep paper 004's one-cycle channels and buffer-set crossbar",
                fix,
            ));
        }
    }
    if r.early_free && link_latency != 1 {
        return Err(c.err(
            "[topology] link_latency",
            "early free lets a header follow a tail into a buffer, which needs the one-cycle link's credits",
            "remove link_latency, or early_free",
        ));
    }
    Ok(spec)
}
