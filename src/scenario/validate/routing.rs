//! The validated `[routing]` table: the algorithm and its time-out, the selection, the torus
//! conventions, and the routing's own requirements on the network and router.

use super::super::schema::RawRouting;
use super::Checker;
use crate::error::Result;
use crate::scenario::{
    Algorithm, RouterSpec, RoutingSpec, Selection, TopologySpec, quoted_choices,
};

pub(super) fn routing(
    c: &Checker,
    r: &RawRouting,
    t: &TopologySpec,
    router: &RouterSpec,
) -> Result<RoutingSpec> {
    let algorithm = Algorithm::parse(&r.algorithm).ok_or_else(|| {
        c.err(
            "[routing] algorithm",
            format!("unknown routing {:?}", r.algorithm),
            format!("use {}", Algorithm::choices()),
        )
    })?;
    let timeout = match (algorithm, r.timeout) {
        (Algorithm::DuatoTimeout, Some(v)) => c.int("[routing] timeout", v, 0, 1_000_000)?,
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
    let selection = match r.selection.as_deref() {
        // Paper 004's routers select by the availability of buffers.
        None if t.mway().is_some() => Selection::Avail,
        None => Selection::Random,
        Some(name) => Selection::parse(name).ok_or_else(|| {
            let names = Selection::ALL.map(Selection::name);
            c.err(
                "[routing] selection",
                format!("unknown selection {name:?}"),
                format!("use {}", quoted_choices(&names)),
            )
        })?,
    };
    let (tie, dateline) = conventions(c, r, t)?;
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
    let tie = match r.tie.as_deref() {
        None => tie0,
        Some(name) => Tie::parse(name).ok_or_else(|| {
            c.err(
                "[routing] tie",
                format!("unknown tie rule {name:?}"),
                format!("use {}", quoted_choices(&Tie::ALL.map(Tie::name))),
            )
        })?,
    };
    let dateline = match r.dateline.as_deref() {
        None => dateline0,
        Some(name) => Dateline::parse(name).ok_or_else(|| {
            c.err(
                "[routing] dateline",
                format!("unknown dateline rule {name:?}"),
                format!("use {}", quoted_choices(&Dateline::ALL.map(Dateline::name))),
            )
        })?,
    };
    Ok((tie, dateline))
}
