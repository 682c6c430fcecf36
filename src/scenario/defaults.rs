//! The spec structs' defaults: what a scenario that leaves a table's keys out resolves to (on a
//! mesh, where `tie` and `dateline` have their papers' values), so that code and tests that
//! build a spec name only the fields they set (`..Default::default()`).

use super::{Crossbar, Pattern, Process, RouterSpec, RoutingSpec, RunSpec, Selection, TrafficSpec};
use crate::routing::{Algorithm, Dateline, Tie};

impl Default for RouterSpec {
    fn default() -> Self {
        RouterSpec {
            vcs: 2,
            buffer_depth: 4,
            early_free: false,
            delay: 0,
            link_latency: 1,
            crossbar: Crossbar::PerVc,
        }
    }
}

impl Default for RoutingSpec {
    fn default() -> Self {
        RoutingSpec {
            algorithm: Algorithm::Dor,
            timeout: 0,
            selection: Selection::Random,
            deadlock_check: true,
            tie: Tie::Plus,
            dateline: Dateline::AtWrap,
        }
    }
}

/// Uniform traffic of 32-flit messages, Poisson arrivals, one message at a time per source,
/// and no load points (`rates` is empty: a scenario must give its loads).
impl Default for TrafficSpec {
    fn default() -> Self {
        TrafficSpec {
            pattern: Pattern::Uniform,
            pattern_fraction: 1.0,
            pattern_fractions: vec![1.0],
            hotspot_fractions: Vec::new(),
            lengths: vec![32],
            length_probabilities: vec![1.0],
            rates: Vec::new(),
            process: Process::Poisson,
            source_concurrency: 1,
            flit_rates: None,
        }
    }
}

impl Default for RunSpec {
    fn default() -> Self {
        RunSpec {
            warmup_cycles: 10_000,
            measure_cycles: 100_000,
            drain_cycles: 100_000,
            watchdog_cycles: 10_000,
            max_backlog: 100,
            batches: 20,
            histogram_bin: 0,
            threads_per_point: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    /// The defaults are what a scenario leaving every optional key out resolves to.
    #[test]
    fn defaults_are_a_scenario_without_optional_keys() {
        let text =
            "name = \"d\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nrates = [0.01]\n";
        let s = Scenario::from_toml(text, "d.toml").expect("a valid scenario");
        assert_eq!(json(&s.router), json(&RouterSpec::default()));
        assert_eq!(json(&s.routing), json(&RoutingSpec::default()));
        assert_eq!(json(&s.run), json(&RunSpec::default()));
        assert_eq!(
            s.run.threads_per_point,
            RunSpec::default().threads_per_point
        );
        let traffic = TrafficSpec {
            rates: vec![0.01],
            ..Default::default()
        };
        assert_eq!(json(&s.traffic), json(&traffic));
    }

    /// A spec as JSON, to compare specs that do not implement `PartialEq`.
    fn json<T: serde::Serialize>(v: &T) -> String {
        serde_json::to_string(v).unwrap_or_default()
    }
}
