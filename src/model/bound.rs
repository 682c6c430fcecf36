//! The channel-load bound on throughput: no channel carries more than one flit per cycle, so
//! the offered load (flits/node/cycle) at which the busiest channel reaches one flit per cycle
//! bounds the saturation throughput from above. Exact where flitsim has the channel rates
//! exactly ([`LinkRates`]: dimension-order routing by enumeration, p-cube and Duato by the
//! papers' closed forms) and for a hotspot's ejection channel.

use super::LinkRates;
use crate::scenario::{Pattern, Scenario};

/// An upper bound on the throughput, in flits/node/cycle offered, and what sets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    /// The bound, flits/node/cycle.
    pub flits: f64,
    /// The channel that sets it, in words.
    pub why: String,
}

/// The tightest bound flitsim can compute exactly for a scenario of one traffic variant (the
/// links' rates at the first seed, the hot node's ejection channel, every injection channel),
/// or None when it has no exact channel rates for the scenario.
pub fn throughput_bound(s: &Scenario) -> Option<Bound> {
    let mut known = false;
    let mut best = Bound {
        flits: 1.0,
        why: "the injection channel (1 flit/cycle)".into(),
    };
    // Link rates are linear in λ: at λ0 the busiest link carries r(λ0) messages per cycle,
    // M·r(λ0) flits, which reaches 1 at λ = λ0 / (M·r(λ0)), i.e. λ·M = λ0 / r(λ0).
    if let Some(model) = LinkRates::for_scenario(s) {
        known = true;
        let lambda = 1e-3;
        let rates = model.rates(s, lambda, s.seeds[0]);
        let busiest = rates.iter().copied().fold(0.0, f64::max);
        if busiest > 0.0 {
            let flits = lambda / busiest;
            if flits < best.flits {
                best = Bound {
                    flits,
                    why: format!(
                        "the busiest network link carries {:.4} of the per-node load ({})",
                        busiest / lambda,
                        model.name()
                    ),
                };
            }
        }
    }
    // The hot node ejects λ((N − 1)xh + 1 − xh) messages per cycle: with probability xh a
    // message of each other node goes to it, otherwise uniformly to one of N − 1 nodes.
    if let Pattern::Hotspot { fraction: h, .. } = s.traffic.pattern {
        known = true;
        let n = s.topology.processors() as f64;
        let xh = s.traffic.pattern_fraction * h;
        let share = (n - 1.0) * xh + 1.0 - xh;
        if 1.0 / share < best.flits {
            best = Bound {
                flits: 1.0 / share,
                why: format!(
                    "the hot node's ejection channel receives {share:.4} times the per-node load"
                ),
            };
        }
    }
    known.then_some(best)
}
