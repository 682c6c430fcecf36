//! The CSV tables, one function each; column names and units are documented in README.md.

use super::{num, opt};
use crate::network::Network;
use crate::scenario::Pattern;
use crate::stats::PointResult;
use crate::topology::{Kind, Link, Topology};

/// A CSV table; every table ends with the traffic variant's columns `pattern_fraction` and
/// `hotspot_fraction` (see `variant`).
pub(super) fn table(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut header = header.to_vec();
    header.extend(["pattern_fraction", "hotspot_fraction"]);
    super::csv_text(&header, rows)
}

/// The traffic variant of a point: pattern fraction x, hotspot fraction h (empty unless
/// hotspot), appended to each row.
pub(super) fn variant(r: &PointResult, mut row: Vec<String>) -> Vec<String> {
    row.push(num(r.pattern_fraction));
    row.push(r.hotspot_fraction.map(num).unwrap_or_default());
    row
}

pub const SUMMARY_COLUMNS: [&str; 29] = [
    "rate",
    "seed",
    "offered_flits",
    "accepted_flits",
    "accepted_rate",
    "latency_mean",
    "latency_ci95",
    "network_latency_mean",
    "source_wait_mean",
    "latency_std",
    "latency_min",
    "latency_max",
    "latency_p50",
    "latency_p95",
    "latency_p99",
    "hops_mean",
    "adaptive_hop_fraction",
    "timeouts_per_message",
    "vbar",
    "traffic_pct",
    "traffic_min_pct",
    "traffic_max_pct",
    "injection_pct",
    "ejection_pct",
    "messages",
    "undelivered",
    "saturated",
    "stop",
    "cycles",
];

/// The mean of a list (NaN when empty or undefined).
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

pub fn summary_csv(results: &[PointResult]) -> String {
    table(
        &SUMMARY_COLUMNS,
        results.iter().map(|r| {
            let s = &r.stats;
            variant(
                r,
                vec![
                    num(r.rate),
                    r.seed.to_string(),
                    num(r.offered_flits()),
                    num(r.accepted_flits),
                    num(r.accepted_rate),
                    num(s.mean()),
                    num(s.ci95()),
                    num(s.network_mean()),
                    num(s.wait_mean()),
                    num(s.std()),
                    opt(s.min()),
                    opt(s.max()),
                    opt(s.percentile(0.50)),
                    opt(s.percentile(0.95)),
                    opt(s.percentile(0.99)),
                    num(s.hops_mean()),
                    num(s.adaptive_hop_fraction()),
                    num(s.timeouts_per_message()),
                    num(r.vbar()),
                    num(100.0 * mean(r.channel_use())),
                    num(100.0 * r.channel_use().iter().copied().fold(f64::NAN, f64::min)),
                    num(100.0 * r.channel_use().iter().copied().fold(f64::NAN, f64::max)),
                    num(100.0 * mean(&r.node_inj_flits)),
                    num(100.0 * mean(&r.node_ej_flits)),
                    s.count.to_string(),
                    r.undelivered.to_string(),
                    r.saturated().to_string(),
                    r.stop.name().to_string(),
                    r.cycles.to_string(),
                ],
            )
        }),
    )
}

/// The cells that name a point and one of its links: rate, seed, channel, src, dst, dim, dir.
pub(super) fn link_cells(r: &PointResult, c: usize, l: &Link) -> Vec<String> {
    vec![
        num(r.rate),
        r.seed.to_string(),
        c.to_string(),
        l.src.to_string(),
        l.dst.to_string(),
        l.dim.to_string(),
        l.dir.sign().to_string(),
    ]
}

/// The hot node of a hotspot pattern, if any.
fn hot_node(pattern: &Pattern) -> Option<u32> {
    match *pattern {
        Pattern::Hotspot { node, .. } => Some(node),
        _ => None,
    }
}

pub fn channels_csv(results: &[PointResult], net: &Network, pattern: &Pattern) -> String {
    let topo = &net.topology;
    let cube = matches!(topo.cube(), Some(t) if t.kind == Kind::Hypercube);
    let hot = hot_node(pattern);
    table(
        &[
            "rate",
            "seed",
            "channel",
            "src",
            "dst",
            "dim",
            "dir",
            "flits_per_cycle",
            "messages_per_cycle",
            "src_weight",
            "bit_dir",
            "hotspot_distance",
            "toward_hotspot",
        ],
        results.iter().flat_map(|r| {
            topo.links().iter().enumerate().map(move |(c, l)| {
                let (weight, bit_dir) = if cube {
                    let up = l.dst > l.src;
                    (
                        l.src.count_ones().to_string(),
                        if up { "0->1" } else { "1->0" }.to_string(),
                    )
                } else {
                    (String::new(), String::new())
                };
                let (hd, toward) = match hot {
                    Some(h) => {
                        let ds = topo.distance(l.src, h);
                        (ds.to_string(), (topo.distance(l.dst, h) < ds).to_string())
                    }
                    None => (String::new(), String::new()),
                };
                let mut row = link_cells(r, c, l);
                row.extend([
                    num(r.link_flits[c]),
                    num(r.link_msgs[c]),
                    weight,
                    bit_dir,
                    hd,
                    toward,
                ]);
                variant(r, row)
            })
        }),
    )
}

/// Per m-way channel of a k-ary m-way network: its address (digits a_{n-1}…a_0 of paper 004
/// section 2.1, joined by '.'), its ways (routers and processors linked to it) and how busy it
/// was (paper 004 section 4's traffic).
pub fn mway_channels_csv(results: &[PointResult], net: &Network) -> String {
    let t = net.cube();
    let ways = match &net.topology {
        Topology::MWay(m) => m.ways(),
        _ => Vec::new(),
    };
    let address = |c: u32| {
        (0..t.n())
            .rev()
            .map(|d| t.coord(c, d).to_string())
            .collect::<Vec<_>>()
            .join(".")
    };
    table(
        &[
            "rate",
            "seed",
            "channel",
            "address",
            "ways",
            "flits_per_cycle",
            "traffic_pct",
        ],
        results.iter().flat_map(|r| {
            r.mway_channel_flits.iter().enumerate().map(|(c, &f)| {
                variant(
                    r,
                    vec![
                        num(r.rate),
                        r.seed.to_string(),
                        c.to_string(),
                        address(c as u32),
                        ways[c].to_string(),
                        num(f),
                        num(100.0 * f),
                    ],
                )
            })
        }),
    )
}

pub fn nodes_csv(results: &[PointResult]) -> String {
    table(
        &[
            "rate",
            "seed",
            "node",
            "injected_flits",
            "injected_messages",
            "ejected_flits",
            "ejected_messages",
        ],
        results.iter().flat_map(|r| {
            (0..r.node_inj_flits.len()).map(move |v| {
                variant(
                    r,
                    vec![
                        num(r.rate),
                        r.seed.to_string(),
                        v.to_string(),
                        num(r.node_inj_flits[v]),
                        num(r.node_inj_msgs[v]),
                        num(r.node_ej_flits[v]),
                        num(r.node_ej_msgs[v]),
                    ],
                )
            })
        }),
    )
}

pub fn histogram_csv(results: &[PointResult], bin: u64) -> String {
    table(
        &[
            "rate",
            "seed",
            "latency_lo",
            "latency_hi",
            "count",
            "fraction",
        ],
        results.iter().flat_map(|r| {
            let h = &r.stats.latency_hist;
            let total = r.stats.count.max(1) as f64;
            let bin = if bin == 0 {
                (h.len() as u64).div_ceil(200).max(1)
            } else {
                bin
            };
            let bins = (h.len() as u64).div_ceil(bin);
            (0..bins).filter_map(move |i| {
                let lo = i * bin;
                let hi = ((i + 1) * bin).min(h.len() as u64);
                let count: u64 = h[lo as usize..hi as usize].iter().sum();
                (count > 0).then(|| {
                    variant(
                        r,
                        vec![
                            num(r.rate),
                            r.seed.to_string(),
                            lo.to_string(),
                            (lo + bin - 1).to_string(),
                            count.to_string(),
                            num(count as f64 / total),
                        ],
                    )
                })
            })
        }),
    )
}

pub fn hops_csv(results: &[PointResult]) -> String {
    table(
        &["rate", "seed", "hops", "count", "fraction"],
        results.iter().flat_map(|r| {
            let total = r.stats.count.max(1) as f64;
            r.stats.hop_hist.iter().enumerate().map(move |(h, &c)| {
                variant(
                    r,
                    vec![
                        num(r.rate),
                        r.seed.to_string(),
                        h.to_string(),
                        c.to_string(),
                        num(c as f64 / total),
                    ],
                )
            })
        }),
    )
}

pub fn vc_occupancy_csv(results: &[PointResult]) -> String {
    table(
        &["rate", "seed", "busy_vcs", "probability"],
        results.iter().flat_map(|r| {
            r.vc_occupancy.iter().enumerate().map(move |(v, &p)| {
                variant(
                    r,
                    vec![num(r.rate), r.seed.to_string(), v.to_string(), num(p)],
                )
            })
        }),
    )
}
