//! channels.csv: one row per load point and network link, from the column lists `LINK` and
//! `LINK_USE`; validation_channels.csv begins with `LINK` too.

use super::Table;
use super::columns::{Cell, Column, markdown, names, rate, seed, write_cells};
use crate::network::Network;
use crate::scenario::Pattern;
use crate::stats::PointResult;
use crate::topology::{Kind, Link};

/// A row of channels.csv: a network link of the point, and what its grouping columns need.
pub(super) struct LinkRow {
    /// The link's place in `Topology::links_in_order`: its id in the conventional numbering
    /// (by dimension, router and direction), and its index in the point's per-link results.
    channel: usize,
    /// The link.
    link: Link,
    /// Whether the network is a hypercube (`src_weight` and `bit_dir` apply).
    cube: bool,
    /// Under hotspot traffic, the distances from the link's source and destination to the hot
    /// node.
    hot: Option<(u32, u32)>,
}

/// The columns that name a point and one of its links, which channels.csv and
/// validation_channels.csv begin with.
const LINK: &[Column<LinkRow>] = &[
    rate(),
    seed(),
    Column {
        name: "channel",
        unit: "",
        doc: "link id",
        value: |_, x| Cell::Int(x.channel as u64),
    },
    Column {
        name: "src",
        unit: "",
        doc: "node index of the link's source",
        value: |_, x| Cell::Int(u64::from(x.link.src)),
    },
    Column {
        name: "dst",
        unit: "",
        doc: "node index of the link's destination",
        value: |_, x| Cell::Int(u64::from(x.link.dst)),
    },
    Column {
        name: "dim",
        unit: "",
        doc: "0-based dimension",
        value: |_, x| Cell::Int(u64::from(x.link.dim)),
    },
    Column {
        name: "dir",
        unit: "",
        doc: "`+` or `-`",
        value: |_, x| Cell::Text(x.link.dir.sign()),
    },
];

/// channels.csv's columns after `LINK`: the link's use and the columns paper 002's figures group
/// by (empty where they do not apply).
const LINK_USE: &[Column<LinkRow>] = &[
    Column {
        name: "flits_per_cycle",
        unit: "flits/cycle",
        doc: "flits that crossed the link per cycle in the window: its utilisation",
        value: |r, x| Cell::Num(r.link_flits[x.channel]),
    },
    Column {
        name: "messages_per_cycle",
        unit: "messages/cycle",
        doc: "headers per cycle: the papers' channel rate λ_c",
        value: |r, x| Cell::Num(r.link_msgs[x.channel]),
    },
    Column {
        name: "src_weight",
        unit: "",
        doc: "hypercube: Hamming weight of the source address",
        value: |_, x| match x.cube {
            true => Cell::Int(u64::from(x.link.src.count_ones())),
            false => Cell::Empty,
        },
    },
    Column {
        name: "bit_dir",
        unit: "",
        doc: "hypercube: `0->1` or `1->0`",
        value: |_, x| match (x.cube, x.link.dst > x.link.src) {
            (true, true) => Cell::Text("0->1"),
            (true, false) => Cell::Text("1->0"),
            (false, _) => Cell::Empty,
        },
    },
    Column {
        name: "hotspot_distance",
        unit: "links",
        doc: "hotspot: distance from the link's source to the hot node",
        value: |_, x| Cell::opt(x.hot.map(|(s, _)| u64::from(s))),
    },
    Column {
        name: "toward_hotspot",
        unit: "true/false",
        doc: "hotspot: whether the link brings a message closer to the hot node",
        value: |_, x| x.hot.map_or(Cell::Empty, |(s, d)| Cell::bool(d < s)),
    },
];

/// Writes to `row` the cells that name a point and one of its links: rate, seed, channel,
/// src, dst, dim, dir.
pub(super) fn write_link_cells(r: &PointResult, c: usize, l: &Link, row: &mut super::Row) {
    let x = LinkRow {
        channel: c,
        link: *l,
        cube: false,
        hot: None,
    };
    write_cells(LINK, r, &x, row);
}

/// The hot node of a hotspot pattern, if any.
fn hot_node(pattern: &Pattern) -> Option<u32> {
    match *pattern {
        Pattern::Hotspot { node, .. } => Some(node),
        _ => None,
    }
}

/// channels.csv: one row per load point and network link, the columns of `LINK` and `LINK_USE`.
pub fn channels_csv(results: &[PointResult], net: &Network, pattern: &Pattern) -> String {
    channels_table(results, net, pattern).text()
}

/// channels.csv's table, its rows made as they are written: a million-node network has 8 M
/// links a point.
pub fn channels_table<'a>(
    results: &'a [PointResult],
    net: &'a Network,
    pattern: &Pattern,
) -> Table<'a> {
    let topo = &net.topology;
    let cube = matches!(topo.cube(), Some(t) if t.kind == Kind::Hypercube);
    let hot = hot_node(pattern);
    let row = move |(channel, &link): (usize, &Link)| LinkRow {
        channel,
        link,
        cube,
        hot: hot.map(|h| (topo.distance(link.src, h), topo.distance(link.dst, h))),
    };
    Table::batched(
        [names(LINK), names(LINK_USE)].concat(),
        results
            .iter()
            .flat_map(move |r| topo.listed_links().enumerate().map(move |l| (r, row(l)))),
        |(r, x), row| {
            write_cells(LINK, r, x, row);
            write_cells(LINK_USE, r, x, row);
        },
    )
}

/// channels.csv's column list as markdown (`LINK`, then `LINK_USE`), for the book's reference.
pub(super) fn channels_markdown() -> String {
    let tail: String = markdown(LINK_USE)
        .lines()
        .skip(2)
        .map(|l| format!("{l}\n"))
        .collect();
    markdown(LINK) + &tail
}
