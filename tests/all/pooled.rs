//! pooled.csv on replications built so that every pooled figure is known exactly: the mean of
//! the per-seed values, the Student-t half-width across replications and the pooled batch-means
//! half-width.

use flitsim::output::pooled::pooled_csv;
use flitsim::stats::{LatencyStats, PointResult, t975};

/// A point with the given latencies per batch (two batches) and accepted flit rate.
fn point(template: &PointResult, batches: [&[u64]; 2], accepted: f64, seed: u64) -> PointResult {
    let mut r = template.clone();
    let mut stats = LatencyStats::new(2);
    for (b, lats) in batches.iter().enumerate() {
        for &l in *lats {
            stats.record(l, l, 1, b);
        }
    }
    r.stats = stats;
    r.accepted_flits = accepted;
    r.seed = seed;
    r
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

#[test]
fn pooled_means_and_half_widths_are_exact() {
    let s = crate::common::scenario(
        &crate::common::Topo::mesh(&[4, 4]),
        2,
        4,
        4,
        0.01,
        200,
        1000,
        1,
    );
    let template = flitsim::engine::run_point(&s, 0.01, 1).unwrap();
    // Replication means 10, 12, 14; batch means 8, 12 | 12, 12 | 14, 14.
    let reps = [
        point(&template, [&[8], &[12]], 0.1, 1),
        point(&template, [&[12], &[12]], 0.2, 2),
        point(&template, [&[14], &[14]], 0.3, 3),
    ];
    let groups = vec![(
        vec!["s".to_string(), "3".to_string()],
        reps.iter().collect::<Vec<_>>(),
    )];
    let csv = pooled_csv(&["scenario".into(), "router.vcs".into()], &groups);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert!(lines.next().is_none());
    let get = |name: &str| -> f64 {
        let i = header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("{name}"));
        row[i].parse().unwrap()
    };
    assert_eq!(
        header[..6],
        [
            "scenario",
            "router.vcs",
            "rate",
            "offered_flits",
            "replications",
            "saturated"
        ]
    );
    assert_eq!(row[..2], ["s", "3"]);
    assert_eq!(get("replications"), 3.0);
    assert!(close(get("latency_mean"), 12.0));
    // s = 2 over the replication means: t(2) · 2 / √3.
    assert!(close(get("latency_ci95"), 4.303 * 2.0 / 3f64.sqrt()));
    assert_eq!(t975(2), 4.303);
    // Six batch means, mean 12, s² = (16 + 0 + 0 + 0 + 4 + 4) / 5: t(5) · √(4.8 / 6).
    assert!(close(
        get("latency_ci95_batches"),
        2.571 * (4.8f64 / 6.0).sqrt()
    ));
    assert!(close(get("accepted_flits"), 0.2));
    assert!(close(get("accepted_flits_ci95"), 4.303 * 0.1 / 3f64.sqrt()));
    // Figures pooled by their mean: latency_min is 8, 12, 14.
    assert!(close(get("latency_min"), 34.0 / 3.0));
}

/// One replication has no spread: its half-widths are NaN, never 0.
#[test]
fn one_replication_has_no_half_width() {
    let s = crate::common::scenario(
        &crate::common::Topo::mesh(&[4, 4]),
        2,
        4,
        4,
        0.01,
        200,
        1000,
        1,
    );
    let r = flitsim::engine::run_point(&s, 0.01, 1).unwrap();
    let csv = pooled_csv(&["scenario".into()], &[(vec!["s".into()], vec![&r])]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let row: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == "latency_ci95").unwrap();
    assert_eq!(row[i], "NaN");
}
