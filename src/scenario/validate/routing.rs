//! The validated `[routing]` table: the algorithm and its time-out, the selection, the torus
//! conventions, `nca`'s up ports, and the routing's own requirements on the network and
//! router.

use super::Checker;
use crate::error::Result;
use crate::error::quoted;
use crate::scenario::{Algorithm, RouterSpec, RoutingSpec, Selection, TopologySpec};
use crate::spec::keys::RawRouting;
use crate::spec::{Family, UpPorts};

pub(super) fn routing(
    c: &Checker,
    r: &RawRouting,
    t: &TopologySpec,
    router: &RouterSpec,
) -> Result<RoutingSpec> {
    // Left out: the network's own routing (dimension order but on a dragonfly or fat tree).
    let name = r.algorithm.as_deref().unwrap_or(match t.family {
        Family::Dragonfly(_) => "min",
        Family::FatTree => "nca",
        _ => "dor",
    });
    let algorithm = Algorithm::parse(name).ok_or_else(|| {
        c.err(
            "[routing] algorithm",
            format!("unknown routing {}", quoted(name)),
            format!("use {}", Algorithm::choices()),
        )
    })?;
    let timeout = match (algorithm, r.timeout) {
        (Algorithm::DuatoTimeout, Some(v)) => c.ranged("[routing] timeout", v)?,
        (Algorithm::DuatoTimeout, None) => {
            return Err(c.err(
                "[routing] timeout",
                "missing: duato-timeout needs the time-out τ",
                "give timeout = τ in cycles, e.g. timeout = 8",
            ));
        }
        (_, Some(_)) => {
            return Err(c.err(
                "[routing] timeout",
                format!(
                    "only duato-timeout has a time-out, not {}",
                    algorithm.name()
                ),
                "remove timeout, or use algorithm = \"duato-timeout\"",
            ));
        }
        (_, None) => 0,
    };
    // Paper 004's routers select by the availability of buffers; nca's adaptive up ports go
    // to the least occupied channel, ties at random.
    let default = match (t.mway(), algorithm) {
        (Some(_), _) => Selection::Avail,
        (None, Algorithm::Nca) => Selection::LeastMultiplexed,
        (None, _) => Selection::Random,
    };
    let selection = c.choice(
        "[routing] selection",
        "selection",
        r.selection.as_deref(),
        default,
        Selection::ALL,
        Selection::name,
    )?;
    let (tie, dateline) = conventions(c, r, t)?;
    let up = match (algorithm, r.up.as_deref()) {
        (Algorithm::Nca, given) => Some(c.choice(
            "[routing] up",
            "up-port choice",
            given,
            UpPorts::Adaptive,
            UpPorts::ALL,
            UpPorts::name,
        )?),
        (_, None) => None,
        (_, Some(_)) => {
            return Err(c.err(
                "[routing] up",
                format!(
                    "only nca chooses up ports (on a fat tree), not {}",
                    algorithm.name()
                ),
                "remove up, or use algorithm = \"nca\" on a fat tree",
            ));
        }
    };
    let setting = crate::routing::Setting {
        topology: t,
        vcs: router.vcs,
        early_free: router.early_free,
        deadlock_check: r.deadlock_check,
        dateline,
    };
    algorithm
        .check(&setting)
        .map_err(|e| c.err(e.key, e.problem, e.fix))?;
    Ok(RoutingSpec {
        algorithm,
        timeout,
        selection,
        deadlock_check: r.deadlock_check,
        tie,
        dateline,
        up,
    })
}

/// `[routing] tie` and `dateline`, defaulting to (`random`, `on-entry`) on bidirectional tori
/// and to the papers' (`plus`, `at-wrap`) elsewhere.
fn conventions(
    c: &Checker,
    r: &RawRouting,
    t: &TopologySpec,
) -> Result<(crate::routing::Tie, crate::routing::Dateline)> {
    use crate::routing::{Dateline, Tie, conventions};
    let (tie0, dateline0) =
        conventions::defaults(t.kind == crate::topology::Kind::Torus && t.bidirectional);
    let tie = c.choice(
        "[routing] tie",
        "tie rule",
        r.tie.as_deref(),
        tie0,
        Tie::ALL,
        Tie::name,
    )?;
    let dateline = c.choice(
        "[routing] dateline",
        "dateline rule",
        r.dateline.as_deref(),
        dateline0,
        Dateline::ALL,
        Dateline::name,
    )?;
    Ok((tie, dateline))
}
