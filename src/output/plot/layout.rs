//! Where each network link is drawn, on the topology's own layout (heatmap.svg and the report's
//! heatmaps). Every link of [`Topology::listed_links`] gets one [`Stroke`], in that order (its
//! channel id in channels.csv). A link is drawn offset to the right of its direction of travel,
//! so a link's two directions (+ and −, a→b and b→a) lie side by side.
//!
//! - Meshes and tori (and an m-way network's channel graph): dimension 0 across and 1 down, one
//!   small grid per 2-D slice, the slices in the order of their coordinates in dimensions 2, 3,
//!   … (dimension 2 fastest) in rows of ⌈√slices⌉. A wrap-around link is a short stub leaving
//!   the grid's edge from its source, the way it goes. A link of dimension d ≥ 2 leaves its
//!   slice: a short tick from its source at 90°·(d − 1)/(n − 1) above the horizontal (its −
//!   link the opposite way), its far end the router at the same place of the neighbouring
//!   slice. An m-way network's channels (the graph's vertices) are bars.
//! - Hypercubes and HyperX: their coordinate grid, the even dimensions across (dimension 0
//!   fastest) and the odd ones down; a link between neighbouring places is straight, one that
//!   skips places (a HyperX's all-to-all rows, a hypercube's higher dimensions) an arc bulging
//!   up (across) or left (down), the more the further it reaches.
//! - Dragonfly: the groups on a circle, each group's routers on a small circle around its
//!   place; local and global links straight.
//! - Fat tree: one row per level, the leaves at the bottom, switches by label.

use crate::topology::{Dir, KAryNCube, Kind, Link, Topology};

/// A point in the drawing, pixels (y down).
pub(crate) type Pt = (f64, f64);

/// Pixels between neighbouring routers.
pub(crate) const SPACING: f64 = 40.0;

/// How far a link is drawn to the right of the line between its ends, pixels.
const OFFSET: f64 = 3.0;

/// A router's radius as drawn; links start and end this far from its centre.
pub(crate) const ROUTER: f64 = 3.5;

/// A stub's or tick's length, pixels.
const STUB: f64 = 0.42 * SPACING;

/// What a stroke stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A straight link between its two routers.
    Line,
    /// A curved link between its two routers.
    Arc,
    /// A link drawn from its source only: a wrap-around link or a link out of its slice.
    Stub,
}

/// How one link is drawn: the quadratic Bézier curve from `from` through control point `ctl`
/// to `to` (a straight line when `ctl` is the midpoint).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stroke {
    /// Where it starts, beside its source router.
    pub from: Pt,
    /// Its control point.
    pub ctl: Pt,
    /// Where it ends.
    pub to: Pt,
    /// What it stands for.
    pub shape: Shape,
}

/// A topology's drawing: its size, its routers' places and each link's stroke.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Width and height, pixels.
    pub size: (f64, f64),
    /// Each router's centre, by router index.
    pub routers: Vec<Pt>,
    /// The routers are m-way channels, drawn as bars.
    pub bars: bool,
    /// Each link's stroke, in [`Topology::listed_links`] order.
    pub links: Vec<Stroke>,
    /// How links that are not plain lines between routers are drawn, for the figure's notes.
    pub note: &'static str,
}

/// The margin around a drawing, pixels (room for stubs and ticks).
const MARGIN: f64 = SPACING;

/// The layout of `topo`'s routers and links.
pub(crate) fn layout(topo: &Topology) -> Layout {
    let mut l = match topo {
        Topology::KAryNCube(c) if c.kind == Kind::Hypercube => coordinate_grid(c, &c.radix),
        Topology::KAryNCube(c) => slices(c),
        Topology::MWay(m) if m.graph.kind == Kind::Hypercube => {
            coordinate_grid(&m.graph, &m.graph.radix)
        }
        Topology::MWay(m) => slices(&m.graph),
        Topology::HyperX(h) => coordinate_grid(&h.coords, &h.coords.radix),
        Topology::Dragonfly(d) => circles(d.shape.a, d.shape.groups),
        Topology::FatTree(f) => levels(f.n, f.k.pow(f.n - 1)),
    };
    l.bars = topo.mway().is_some();
    let strokes: Vec<Stroke> = match topo {
        Topology::KAryNCube(c) if c.kind != Kind::Hypercube => {
            topo.listed_links().map(|k| cube_stroke(&l, c, k)).collect()
        }
        Topology::MWay(m) if m.graph.kind != Kind::Hypercube => topo
            .listed_links()
            .map(|k| cube_stroke(&l, &m.graph, k))
            .collect(),
        Topology::KAryNCube(_) | Topology::MWay(_) | Topology::HyperX(_) => {
            topo.listed_links().map(|k| grid_stroke(&l, k)).collect()
        }
        Topology::Dragonfly(_) | Topology::FatTree(_) => topo
            .listed_links()
            .map(|k| line(l.routers[k.src as usize], l.routers[k.dst as usize], OFFSET))
            .collect(),
    };
    l.links = strokes;
    l
}

/// A layout of `routers` at their places, its size from theirs, no links yet.
fn placed(routers: Vec<Pt>, note: &'static str) -> Layout {
    let right = routers.iter().map(|p| p.0).fold(0.0, f64::max);
    let bottom = routers.iter().map(|p| p.1).fold(0.0, f64::max);
    Layout {
        size: (right + MARGIN, bottom + MARGIN),
        routers,
        bars: false,
        links: Vec::new(),
        note,
    }
}

/// Meshes and tori: a grid of dimensions 0 and 1 per slice, the slices in rows.
fn slices(c: &KAryNCube) -> Layout {
    let k0 = c.radix[0] as usize;
    let k1 = c.radix.get(1).map_or(1, |&k| k as usize);
    let count = c.nodes / (k0 * k1);
    let columns = (count as f64).sqrt().ceil() as usize;
    // A slice's grid plus a margin's room on every side for its stubs and ticks.
    let (w, h) = ((k0 - 1) as f64 * SPACING, (k1 - 1) as f64 * SPACING);
    let routers = (0..c.nodes)
        .map(|r| {
            let s = r / (k0 * k1);
            let (sx, sy) = ((s % columns) as f64, (s / columns) as f64);
            let x = c.coord(r as u32, 0);
            let y = if c.n() > 1 { c.coord(r as u32, 1) } else { 0 };
            (
                MARGIN + sx * (w + 2.0 * MARGIN) + x as f64 * SPACING,
                MARGIN + sy * (h + 2.0 * MARGIN) + y as f64 * SPACING,
            )
        })
        .collect();
    let note = match (c.wraps(), c.n() > 2) {
        (false, false) => "",
        (true, false) => "wrap-around links: stubs leaving the edge",
        (false, true) => "one grid per 2-D slice; links of dimensions ≥ 2: ticks leaving a router",
        (true, true) => {
            "one grid per 2-D slice; wrap-around links: stubs leaving the edge; links of dimensions ≥ 2: ticks leaving a router"
        }
    };
    placed(routers, note)
}

/// A mesh's or torus' link: a line between neighbours of its slice, a stub for a wrap-around
/// link, a tick for a link of dimension ≥ 2.
fn cube_stroke(l: &Layout, c: &KAryNCube, k: &Link) -> Stroke {
    let from = l.routers[k.src as usize];
    let sign = match k.dir {
        Dir::Plus => 1.0,
        Dir::Minus => -1.0,
    };
    let along = match k.dim {
        0 => (sign, 0.0),
        1 => (0.0, sign),
        d => {
            // Dimension d of n at 90°·(d − 1)/(n − 1) above the horizontal (y is down).
            let a = std::f64::consts::FRAC_PI_2 * f64::from(d - 1) / (c.n() - 1) as f64;
            (sign * a.cos(), -sign * a.sin())
        }
    };
    if k.dim >= 2 || k.wrap {
        let reach = STUB + ROUTER;
        let end = (from.0 + along.0 * reach, from.1 + along.1 * reach);
        return Stroke {
            shape: Shape::Stub,
            ..line(from, end, 0.0)
        };
    }
    line(from, l.routers[k.dst as usize], OFFSET)
}

/// Hypercubes and HyperX: the coordinate grid, even dimensions across and odd ones down.
fn coordinate_grid(c: &KAryNCube, radix: &[u32]) -> Layout {
    let routers = (0..c.nodes as u32)
        .map(|r| {
            let (x, y) = grid_place(c, radix, r);
            (MARGIN + x as f64 * SPACING, MARGIN + y as f64 * SPACING)
        })
        .collect();
    placed(
        routers,
        "links that skip places: arcs, bulging the more the further they reach",
    )
}

/// Router r's column and row in the coordinate grid: the mixed-radix numbers of its even and
/// of its odd dimensions' coordinates, the lowest dimension fastest.
fn grid_place(c: &KAryNCube, radix: &[u32], r: u32) -> (u32, u32) {
    let (mut x, mut y, mut sx, mut sy) = (0, 0, 1, 1);
    for (d, &k) in radix.iter().enumerate() {
        if d % 2 == 0 {
            x += c.coord(r, d) * sx;
            sx *= k;
        } else {
            y += c.coord(r, d) * sy;
            sy *= k;
        }
    }
    (x, y)
}

/// A coordinate grid's link: straight between neighbouring places, else an arc bulging up (a
/// link across) or left (down), by up to 0.45 of the spacing for the longest reach.
fn grid_stroke(l: &Layout, k: &Link) -> Stroke {
    let (a, b) = (l.routers[k.src as usize], l.routers[k.dst as usize]);
    let reach = ((b.0 - a.0).abs() + (b.1 - a.1).abs()) / SPACING;
    if reach <= 1.0 + 1e-9 {
        return line(a, b, OFFSET);
    }
    let across = (b.0 - a.0).abs() > (b.1 - a.1).abs();
    let longest = if across { l.size.0 } else { l.size.1 } - 2.0 * MARGIN;
    let bulge = 0.45 * SPACING * (reach - 1.0) / (longest / SPACING - 1.0).max(1.0);
    let mut s = line(a, b, OFFSET);
    let mid = ((s.from.0 + s.to.0) / 2.0, (s.from.1 + s.to.1) / 2.0);
    // The control point lies twice as far out as the curve's middle.
    s.ctl = match across {
        true => (mid.0, mid.1 - 2.0 * bulge),
        false => (mid.0 - 2.0 * bulge, mid.1),
    };
    s.shape = Shape::Arc;
    s
}

/// Dragonfly: `groups` groups of `a` routers, the groups on a circle, each group's routers on
/// a small circle around the group's place (router r is router r mod a of group r / a).
fn circles(a: u32, groups: u32) -> Layout {
    let tau = std::f64::consts::TAU;
    let small = (SPACING * f64::from(a) / tau).max(SPACING / 2.0);
    // Neighbouring groups' places a chord 2·small + 1.5 spacings apart, so that routers of
    // different groups are further apart than a group's own.
    let chord = 2.0 * small + 1.5 * SPACING;
    let big = match groups {
        0 | 1 => 0.0,
        g => chord / (2.0 * (std::f64::consts::PI / f64::from(g)).sin()),
    };
    let centre = MARGIN + big + small;
    let routers = (0..a * groups)
        .map(|r| {
            let g = tau * f64::from(r / a) / f64::from(groups);
            let i = tau * f64::from(r % a) / f64::from(a);
            let (gx, gy) = (centre + big * g.sin(), centre - big * g.cos());
            (gx + small * (g + i).sin(), gy - small * (g + i).cos())
        })
        .collect();
    placed(
        routers,
        "groups on a circle, each group's routers on a small circle",
    )
}

/// Fat tree: `levels` rows of `per_level` switches, level 0 (the leaves) at the bottom.
fn levels(levels: u32, per_level: u32) -> Layout {
    let routers = (0..levels * per_level)
        .map(|r| {
            let (l, w) = (r / per_level, r % per_level);
            (
                MARGIN + f64::from(w) * SPACING,
                MARGIN + f64::from(levels - 1 - l) * 3.0 * SPACING,
            )
        })
        .collect();
    placed(routers, "one row per level, the leaves at the bottom")
}

/// The straight stroke from router place `a` to router place `b`, `offset` to the right of its
/// direction, its ends `ROUTER` inside the two places.
fn line(a: Pt, b: Pt, offset: f64) -> Stroke {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy).max(1e-9);
    let (ux, uy) = (dx / len, dy / len);
    // The right-hand normal of the direction of travel, y being down.
    let (nx, ny) = (-uy * offset, ux * offset);
    let trim = ROUTER.min(len / 2.0);
    let from = (a.0 + ux * trim + nx, a.1 + uy * trim + ny);
    let to = (b.0 - ux * trim + nx, b.1 - uy * trim + ny);
    Stroke {
        from,
        ctl: ((from.0 + to.0) / 2.0, (from.1 + to.1) / 2.0),
        to,
        shape: Shape::Line,
    }
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
