//! The per-point CSV tables other than summary.csv (`summary.rs`) and channels.csv
//! (`channels.rs`), each from its column list; the book's column reference documents the columns.

use super::Table;
use super::columns::{Cell, Column, names, rate, seed, write_cells};
use crate::network::Network;
use crate::stats::PointResult;
use crate::topology::Topology;

/// A table whose rows are the sub-items `items(point)` of each point, with `columns`, each
/// row made as it is written (the experiment's coordinates are put in front of every line by
/// `experiment_tables`).
fn per_item<'a, R: Sync + 'a, I: Iterator<Item = R> + 'a>(
    columns: &'a [Column<R>],
    results: &'a [PointResult],
    items: impl Fn(&'a PointResult) -> I + 'a,
) -> Table<'a> {
    Table::batched(
        names(columns),
        results
            .iter()
            .flat_map(move |r| items(r).map(move |x| (r, x))),
        |(r, x), row| write_cells(columns, r, x, row),
    )
}

/// A row of mway_channels.csv: an m-way channel of the point.
struct MWayRow {
    /// The channel's id.
    channel: usize,
    /// Its address, digits joined by '.'.
    address: String,
    /// Its routers and processors.
    ways: u32,
}

/// mway_channels.csv's columns.
const MWAY_CHANNELS: &[Column<MWayRow>] = &[
    rate(),
    seed(),
    Column {
        name: "channel",
        unit: "",
        doc: "m-way channel id",
        value: |_, x| Cell::Int(x.channel as u64),
    },
    Column {
        name: "address",
        unit: "",
        doc: "digits `a_{n-1}.….a_0`",
        value: |_, x| Cell::Text(&x.address),
    },
    Column {
        name: "ways",
        unit: "count",
        doc: "its routers and processors",
        value: |_, x| Cell::Int(u64::from(x.ways)),
    },
    Column {
        name: "flits_per_cycle",
        unit: "flits/cycle",
        doc: "flits the channel carried per cycle in the window",
        value: |r, x| Cell::Num(r.mway_channel_flits[x.channel]),
    },
    Column {
        name: "traffic_pct",
        unit: "% of cycles",
        doc: "the channel's utilisation",
        value: |r, x| Cell::Num(100.0 * r.mway_channel_flits[x.channel]),
    },
];

/// Per m-way channel of a k-ary m-way network: its address (digits a_{n-1}…a_0 of paper 004
/// section 2.1, joined by '.'), its ways (routers and processors linked to it) and how busy it
/// was (paper 004 section 4's traffic).
pub fn mway_channels_csv(results: &[PointResult], net: &Network) -> String {
    mway_channels_table(results, net).text()
}

/// mway_channels.csv's table, its rows made as they are written.
pub fn mway_channels_table<'a>(results: &'a [PointResult], net: &'a Network) -> Table<'a> {
    let t = net.cube();
    let ways = match &net.topology {
        Topology::MWay(m) => m.ways(),
        _ => Vec::new(),
    };
    let address = move |c: u32| {
        (0..t.n())
            .rev()
            .map(|d| t.coord(c, d).to_string())
            .collect::<Vec<_>>()
            .join(".")
    };
    let ways = std::rc::Rc::new(ways);
    per_item(MWAY_CHANNELS, results, move |r| {
        let ways = ways.clone();
        (0..r.mway_channel_flits.len()).map(move |c| MWayRow {
            channel: c,
            address: address(c as u32),
            ways: ways[c],
        })
    })
}

/// nodes.csv's columns; the row context is the node.
const NODES: &[Column<usize>] = &[
    rate(),
    seed(),
    Column {
        name: "node",
        unit: "",
        doc: "node index",
        value: |_, &v| Cell::Int(v as u64),
    },
    Column {
        name: "injected_flits",
        unit: "flits/cycle",
        doc: "flits the node injected per cycle in the window",
        value: |r, &v| Cell::Num(r.node_inj_flits[v]),
    },
    Column {
        name: "injected_messages",
        unit: "messages/cycle",
        doc: "messages the node injected per cycle in the window, counted by their heads",
        value: |r, &v| Cell::Num(r.node_inj_msgs[v]),
    },
    Column {
        name: "ejected_flits",
        unit: "flits/cycle",
        doc: "flits ejected at the node per cycle in the window",
        value: |r, &v| Cell::Num(r.node_ej_flits[v]),
    },
    Column {
        name: "ejected_messages",
        unit: "messages/cycle",
        doc: "messages ejected at the node per cycle in the window, counted by their heads",
        value: |r, &v| Cell::Num(r.node_ej_msgs[v]),
    },
];

/// nodes.csv: one row per load point and node, the columns of `NODES`.
pub fn nodes_csv(results: &[PointResult]) -> String {
    nodes_table(results).text()
}

/// nodes.csv's table, its rows made as they are written.
pub fn nodes_table(results: &[PointResult]) -> Table<'_> {
    per_item(NODES, results, |r| 0..r.node_inj_flits.len())
}

/// A row of histogram.csv: a non-empty latency bin.
struct Bin {
    /// Its lower bound.
    lo: u64,
    /// Its width.
    width: u64,
    /// The messages in it.
    count: u64,
}

/// histogram.csv's columns.
const HISTOGRAM: &[Column<Bin>] = &[
    rate(),
    seed(),
    Column {
        name: "latency_lo",
        unit: "cycles",
        doc: "the bin's lower bound, inclusive",
        value: |_, b| Cell::Int(b.lo),
    },
    Column {
        name: "latency_hi",
        unit: "cycles",
        doc: "the bin's upper bound, inclusive",
        value: |_, b| Cell::Int(b.lo + b.width - 1),
    },
    Column {
        name: "count",
        unit: "messages",
        doc: "measured messages in the bin",
        value: |_, b| Cell::Int(b.count),
    },
    Column {
        name: "fraction",
        unit: "fraction",
        doc: "of measured messages",
        value: |r, b| Cell::Num(b.count as f64 / r.stats.count.max(1) as f64),
    },
];

/// histogram.csv: one row per load point and non-empty latency bin of width `bin` (0: the
/// smallest giving at most 200 bins), the columns of `HISTOGRAM`.
pub fn histogram_csv(results: &[PointResult], bin: u64) -> String {
    per_item(HISTOGRAM, results, move |r| {
        let h = &r.stats.latency_hist;
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
            (count > 0).then_some(Bin {
                lo,
                width: bin,
                count,
            })
        })
    })
    .text()
}

/// hops.csv's columns; the row context is the hop count.
const HOPS: &[Column<usize>] = &[
    rate(),
    seed(),
    Column {
        name: "hops",
        unit: "links",
        doc: "links crossed (m-way: routers passed)",
        value: |_, &h| Cell::Int(h as u64),
    },
    Column {
        name: "count",
        unit: "messages",
        doc: "measured messages that crossed `hops` links",
        value: |r, &h| Cell::Int(r.stats.hop_hist[h]),
    },
    Column {
        name: "fraction",
        unit: "fraction",
        doc: "of measured messages",
        value: |r, &h| Cell::Num(r.stats.hop_hist[h] as f64 / r.stats.count.max(1) as f64),
    },
];

/// hops.csv: one row per load point and hop count, the columns of `HOPS`.
pub fn hops_csv(results: &[PointResult]) -> String {
    per_item(HOPS, results, |r| 0..r.stats.hop_hist.len()).text()
}

/// vc_occupancy.csv's columns; the row context is the number of busy virtual channels.
const VC_OCCUPANCY: &[Column<usize>] = &[
    rate(),
    seed(),
    Column {
        name: "busy_vcs",
        unit: "virtual channels",
        doc: "v = 0..V",
        value: |_, &v| Cell::Int(v as u64),
    },
    Column {
        name: "probability",
        unit: "fraction",
        doc: "P_v: the fraction of time a network link has exactly v busy virtual channels",
        value: |r, &v| Cell::Num(r.vc_occupancy[v]),
    },
];

/// vc_occupancy.csv: V + 1 rows per load point, the columns of `VC_OCCUPANCY`.
pub fn vc_occupancy_csv(results: &[PointResult]) -> String {
    per_item(VC_OCCUPANCY, results, |r| 0..r.vc_occupancy.len()).text()
}

/// trace.csv's columns: a trace replay's own results (`TraceStats`).
const TRACE: &[Column<crate::stats::TraceStats>] = &[
    seed(),
    Column {
        name: "messages",
        unit: "count",
        doc: "the trace's messages",
        value: |_, t| Cell::Int(t.messages),
    },
    Column {
        name: "delivered",
        unit: "count",
        doc: "messages delivered: all of them unless the replay stopped early (`stop` in summary.csv)",
        value: |_, t| Cell::Int(t.delivered),
    },
    Column {
        name: "local",
        unit: "count",
        doc: "messages to their own source, delivered in the cycle they were ready without entering the network",
        value: |_, t| Cell::Int(t.local),
    },
    Column {
        name: "runtime_cycles",
        unit: "cycles",
        doc: "the cycle the last message's tail was delivered in",
        value: |_, t| Cell::Int(t.runtime_cycles),
    },
    Column {
        name: "trace_cycles",
        unit: "cycles",
        doc: "the trace's last scheduled cycle, ⌊c / speedup⌋ of its last message",
        value: |_, t| Cell::Int(t.trace_cycles),
    },
    Column {
        name: "mean_slowdown",
        unit: "cycles",
        doc: "the mean over messages of the cycle each was generated in minus its scheduled cycle: the delay waiting for its dependencies added",
        value: |_, t| Cell::Num(t.mean_slowdown),
    },
    Column {
        name: "max_slowdown",
        unit: "cycles",
        doc: "the largest such delay",
        value: |_, t| Cell::Int(t.max_slowdown),
    },
    Column {
        name: "latency_mean",
        unit: "cycles",
        doc: "mean latency of the messages through the network, from the cycle each was generated to its tail's delivery (as summary.csv's)",
        value: |r, _| Cell::Num(r.stats.mean()),
    },
];

/// trace.csv: one row per replay of a trace, the columns of `TRACE`; None when the points are
/// not replays.
pub fn trace_csv(results: &[PointResult]) -> Option<String> {
    results
        .iter()
        .any(|r| r.trace.is_some())
        .then(|| per_item(TRACE, results, |r| r.trace.iter().copied()).text())
}

/// The column lists of this module's tables as markdown, by file name, for the book's reference.
pub(super) fn tables_markdown() -> Vec<(&'static str, String)> {
    use super::columns::markdown;
    vec![
        ("nodes.csv", markdown(NODES)),
        ("histogram.csv", markdown(HISTOGRAM)),
        ("hops.csv", markdown(HOPS)),
        ("vc_occupancy.csv", markdown(VC_OCCUPANCY)),
        ("mway_channels.csv", markdown(MWAY_CHANNELS)),
        ("trace.csv", markdown(TRACE)),
    ]
}
