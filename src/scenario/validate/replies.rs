//! `[traffic] reply_length` and `max_outstanding`: a closed loop needs replies, and the
//! request and reply classes need the routing's virtual channels twice over
//! ([`crate::routing::check_classes`]).

use super::Checker;
use crate::error::Result;
use crate::scenario::{RouterSpec, RoutingSpec, TopologySpec, TrafficSpec};

pub(super) fn replies(
    c: &Checker,
    traffic: &TrafficSpec,
    routing: &RoutingSpec,
    topology: &TopologySpec,
    router: &RouterSpec,
) -> Result<()> {
    let options = &traffic.options;
    if options.reply_length == 0 {
        if options.max_outstanding > 0 {
            return Err(c.err(
                "[traffic] max_outstanding",
                "bounds a processor's open requests, and without reply_length no message is a request (none is answered)",
                "add reply_length = R (the replies' length in flits), or remove max_outstanding",
            ));
        }
        return Ok(());
    }
    if traffic.trace.is_some() {
        return Err(c.err(
            "[traffic] reply_length",
            "a trace gives every message it replays, its replies among them (a netrace trace records the responses to its requests)",
            "remove reply_length, or remove trace to use sources",
        ));
    }
    let setting = crate::routing::Setting {
        topology,
        vcs: router.vcs,
        early_free: router.early_free,
        deadlock_check: routing.deadlock_check,
        dateline: routing.dateline,
    };
    crate::routing::check_classes(routing.algorithm, &setting)
        .map_err(|e| c.err(e.key, e.problem, e.fix))
}
