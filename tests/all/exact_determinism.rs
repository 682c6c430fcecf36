//! Determinism: the same scenario and seed give identical CSV bytes; a parallel sweep equals a
//! serial one; each point does not depend on the other points of the sweep; a different seed
//! gives different bytes.

use flitsim::Scenario;
use flitsim::engine::run_point;
use flitsim::network::Network;
use flitsim::output::{
    channels_csv, histogram_csv, hops_csv, mway_channels_csv, nodes_csv, summary_csv,
    vc_occupancy_csv,
};
use flitsim::stats::{PointResult, StopReason};
use flitsim::sweep::run_sweep;

/// Light, moderate and saturated loads (the last stops early on its backlog), two seeds.
fn scenario_text(topology: &str, seeds: &str) -> String {
    format!(
        "name = \"determinism\"\nseeds = {seeds}\n\n{topology}\n\
         [router]\nvcs = 2\nbuffer_depth = 2\n\n[routing]\nalgorithm = \"dor\"\n\n\
         [traffic]\npattern = \"uniform\"\nmessage_length = 8\nflit_rates = [0.05, 0.3, 1.0]\n\n\
         [run]\nwarmup_cycles = 500\nmeasure_cycles = 3000\nmax_backlog = 20\nbatches = 10\n\
         histogram_bin = 3\n"
    )
}

const TOPOLOGIES: [&str; 6] = [
    "[topology]\nkind = \"mesh\"\nk = [5, 4]\n",
    "[topology]\nkind = \"torus\"\nk = 5\nn = 2\nlinks = \"unidirectional\"\n",
    "[topology]\nkind = \"torus\"\nk = 4\nn = 3\nlinks = \"bidirectional\"\n",
    "[topology]\nkind = \"hypercube\"\nn = 5\n",
    "[topology]\nkind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"\nprocessor_factor = 2\n",
    "[topology]\nkind = \"mway\"\nk = 4\nn = 2\nprocessors = \"routers\"\n",
];

/// All the CSV tables of a sweep, as bytes.
fn csvs(s: &Scenario, results: &[PointResult]) -> [String; 7] {
    let net = Network::for_scenario(s);
    [
        summary_csv(results),
        channels_csv(results, &net, &s.traffic.pattern),
        histogram_csv(results, s.run.histogram_bin),
        hops_csv(results),
        nodes_csv(results),
        vc_occupancy_csv(results),
        mway_channels_csv(results, &net),
    ]
}

fn sweep(text: &str, threads: usize) -> [String; 7] {
    let s = Scenario::from_toml(text, "determinism.toml").unwrap();
    let results = run_sweep(&s, threads, false).unwrap();
    assert_eq!(results.len(), s.traffic.rates.len() * s.seeds.len());
    // The saturated load is part of the test: it stops early on its backlog.
    assert!(
        results.iter().any(|r| r.stop == StopReason::Backlog),
        "no point stopped on its backlog"
    );
    csvs(&s, &results)
}

#[test]
fn same_seed_same_bytes_and_parallel_equals_serial() {
    for topology in TOPOLOGIES {
        let text = scenario_text(topology, "[1, 2]");
        let serial = sweep(&text, 1);
        let serial_again = sweep(&text, 1);
        let parallel = sweep(&text, 2);
        let parallel_again = sweep(&text, 2);
        let mut tables = vec![
            (0, "summary"),
            (1, "channels"),
            (2, "histogram"),
            (3, "hops"),
        ];
        if topology.contains("mway") {
            tables.push((6, "mway_channels"));
        }
        for (i, name) in tables {
            assert!(
                serial[i].lines().count() > 3,
                "{topology}: {name} too short"
            );
            assert_eq!(
                serial[i], serial_again[i],
                "{topology}: {name}: serial reruns differ"
            );
            assert_eq!(
                serial[i], parallel[i],
                "{topology}: {name}: 2 threads != 1 thread"
            );
            assert_eq!(
                parallel[i], parallel_again[i],
                "{topology}: {name}: parallel reruns"
            );
        }
    }
}

/// A point's results do not depend on which other points the sweep runs: running it alone
/// (run_point) gives the same rows as inside the sweep.
#[test]
fn point_alone_equals_point_in_sweep() {
    for topology in TOPOLOGIES {
        let text = scenario_text(topology, "[3, 4]");
        let s = Scenario::from_toml(&text, "determinism.toml").unwrap();
        let all = run_sweep(&s, 2, false).unwrap();
        let (rate, seed) = (s.traffic.rates[1], s.seeds[1]);
        let alone = run_point(&s, rate, seed).unwrap();
        let inside: Vec<PointResult> = all
            .into_iter()
            .filter(|r| r.rate == rate && r.seed == seed)
            .collect();
        assert_eq!(inside.len(), 1);
        assert_eq!(csvs(&s, &[alone]), csvs(&s, &inside), "{topology}");
    }
}

#[test]
fn different_seed_different_bytes() {
    for topology in TOPOLOGIES {
        let a = sweep(&scenario_text(topology, "[1]"), 1);
        let b = sweep(&scenario_text(topology, "[2]"), 1);
        // The seed column differs trivially; the measurements must differ too.
        let strip_seed = |csv: &str| -> String {
            csv.lines()
                .map(|l| {
                    let mut f: Vec<&str> = l.split(',').collect();
                    f.remove(1); // the seed column
                    f.join(",")
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        for (i, name) in ["summary", "channels", "histogram", "hops"]
            .iter()
            .enumerate()
        {
            assert_ne!(a[i], b[i], "{topology}: {name}");
            assert_ne!(
                strip_seed(&a[i]),
                strip_seed(&b[i]),
                "{topology}: {name} (seed aside)"
            );
        }
    }
}
