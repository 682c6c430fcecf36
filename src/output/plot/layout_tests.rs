//! The layouts: every link drawn exactly once, from beside its source to beside its
//! destination (or as a stub leaving its source), inside the drawing, no two links at the same
//! place; and the places the module's documentation promises, per topology kind.

use super::*;
use crate::spec::{DragonflyShape, Family, Placement, TopologySpec};

fn build(family: Family, kind: Kind, radix: &[u32], both: bool, c: u32) -> Topology {
    Topology::build(&TopologySpec {
        family,
        kind,
        radix: radix.to_vec(),
        bidirectional: both,
        concentration: c,
    })
}

fn torus(radix: &[u32]) -> Topology {
    build(Family::KAryNCube, Kind::Torus, radix, true, 1)
}

fn dist(a: Pt, b: Pt) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// The listed position (channel id) of the link src → dst of dimension `dim`.
fn channel(topo: &Topology, src: u32, dst: u32, dim: u8) -> usize {
    topo.listed_links()
        .position(|l| (l.src, l.dst, l.dim) == (src, dst, dim))
        .unwrap()
}

/// Every link has one stroke, starting beside its source and ending beside its destination
/// (a stub: away from every router), inside the drawing, and no two strokes are the same.
fn drawn_once(topo: &Topology) -> Layout {
    let l = layout(topo);
    assert_eq!(l.links.len(), topo.links().len());
    assert_eq!(l.routers.len(), topo.routers());
    let near = ROUTER.hypot(OFFSET) + 1e-9;
    for (s, k) in l.links.iter().zip(topo.listed_links()) {
        assert!(
            dist(s.from, l.routers[k.src as usize]) <= near,
            "{k:?} {s:?}"
        );
        match s.shape {
            Shape::Stub => assert!(l.routers.iter().all(|&r| dist(s.to, r) > SPACING / 4.0)),
            _ => assert!(dist(s.to, l.routers[k.dst as usize]) <= near, "{k:?} {s:?}"),
        }
        for p in [s.from, s.ctl, s.to] {
            assert!(p.0 >= 0.0 && p.1 >= 0.0 && p.0 <= l.size.0 && p.1 <= l.size.1);
        }
    }
    // Each stroke as a set of points (its ends in either order), so that a link drawn over its
    // reverse counts as the same place.
    let mut keys: Vec<[i64; 6]> = l
        .links
        .iter()
        .map(|s| {
            let r = |p: Pt| [(p.0 * 100.0).round() as i64, (p.1 * 100.0).round() as i64];
            let (a, b) = (r(s.from).min(r(s.to)), r(s.from).max(r(s.to)));
            let c = r(s.ctl);
            [a[0], a[1], c[0], c[1], b[0], b[1]]
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    assert_eq!(
        keys.len(),
        l.links.len(),
        "two links drawn at the same place"
    );
    l
}

#[test]
fn a_torus_link_lies_between_its_routers_beside_its_reverse() {
    let t = torus(&[4, 4]);
    let l = drawn_once(&t);
    let (r0, r1) = (l.routers[0], l.routers[1]);
    assert_eq!((r1.0 - r0.0, r1.1 - r0.1), (SPACING, 0.0));
    let plus = l.links[channel(&t, 0, 1, 0)];
    let minus = l.links[channel(&t, 1, 0, 0)];
    assert_eq!(plus.shape, Shape::Line);
    assert!(plus.from.0 > r0.0 && plus.to.0 < r1.0 && plus.from.0 < plus.to.0);
    // Travelling right, the right-hand side is down the page; the reverse is above.
    assert_eq!((plus.from.1, plus.to.1), (r0.1 + OFFSET, r0.1 + OFFSET));
    assert_eq!((minus.from.1, minus.to.1), (r0.1 - OFFSET, r0.1 - OFFSET));
    // Dimension 1 goes down the page: router 4 is below router 0.
    assert_eq!(l.routers[4], (r0.0, r0.1 + SPACING));
}

#[test]
fn torus_wrap_links_are_stubs_leaving_the_edge() {
    let t = torus(&[4, 4]);
    let l = drawn_once(&t);
    let right = l.routers[3].0;
    let out = l.links[channel(&t, 3, 0, 0)];
    assert_eq!(out.shape, Shape::Stub);
    assert!(out.from.0 > right && out.to.0 > out.from.0);
    let back = l.links[channel(&t, 0, 3, 0)];
    assert!(back.to.0 < back.from.0 && back.from.0 < l.routers[0].0);
    let down = l.links[channel(&t, 12, 0, 1)];
    assert!(down.to.1 > l.routers[12].1);
    let stubs = l.links.iter().filter(|s| s.shape == Shape::Stub).count();
    assert_eq!(stubs, 2 * 2 * 4, "one stub per ring and direction");
}

#[test]
fn a_unidirectional_torus_and_a_mesh_are_drawn_once() {
    let uni = build(Family::KAryNCube, Kind::Torus, &[3, 5], false, 1);
    assert_eq!(drawn_once(&uni).links.len(), 2 * 15);
    let mesh = build(Family::KAryNCube, Kind::Mesh, &[4, 3], true, 1);
    let l = drawn_once(&mesh);
    assert!(l.links.iter().all(|s| s.shape == Shape::Line));
    let ring = build(Family::KAryNCube, Kind::Torus, &[6], true, 1);
    drawn_once(&ring);
}

#[test]
fn higher_dimensions_are_slices_with_ticks_to_the_next_slice() {
    let t = torus(&[3, 3, 4]);
    let l = drawn_once(&t);
    // Four slices of 3 x 3 in rows of two: router 9 (slice 1) sits where router 0 does, one
    // slice to the right; router 18 (slice 2) one slice down.
    let (r0, r9, r18) = (l.routers[0], l.routers[9], l.routers[18]);
    assert_eq!(r9.1, r0.1);
    assert!(r9.0 > l.routers[2].0 + SPACING);
    assert_eq!(r18.0, r0.0);
    assert!(r18.1 > l.routers[6].1 + SPACING);
    let up = l.links[channel(&t, 0, 9, 2)];
    assert_eq!(up.shape, Shape::Stub);
    // Dimension 2 of 3 at 45°: up and to the right; its − link the opposite way.
    assert!(up.to.0 > up.from.0 && up.to.1 < up.from.1);
    let down = l.links[channel(&t, 9, 0, 2)];
    assert!(down.to.0 < down.from.0 && down.to.1 > down.from.1);
}

#[test]
fn concentration_leaves_the_layout_as_it_is() {
    let one = layout(&torus(&[4, 4]));
    let four = drawn_once(&build(Family::KAryNCube, Kind::Torus, &[4, 4], true, 4));
    assert_eq!(one.links, four.links);
    drawn_once(&build(Family::HyperX, Kind::Mesh, &[3, 3], true, 2));
}

#[test]
fn the_hypercube_is_its_coordinate_grid_with_arcs_for_the_far_dimensions() {
    let h = build(Family::KAryNCube, Kind::Hypercube, &[2, 2, 2, 2], true, 1);
    let l = drawn_once(&h);
    // Router 5 (bits 0 and 2) is at column 1 + 2 = 3 of row 0; router 10 (bits 1 and 3) at
    // row 3 of column 0.
    let at = |r: usize| {
        let p = l.routers[r];
        ((p.0 - MARGIN) / SPACING, (p.1 - MARGIN) / SPACING)
    };
    assert_eq!(at(5), (3.0, 0.0));
    assert_eq!(at(10), (0.0, 3.0));
    assert_eq!(l.links[channel(&h, 0, 1, 0)].shape, Shape::Line);
    assert_eq!(l.links[channel(&h, 0, 2, 1)].shape, Shape::Line);
    let across = l.links[channel(&h, 0, 4, 2)];
    assert_eq!(across.shape, Shape::Arc);
    assert!(across.ctl.1 < across.from.1, "bulges up");
    let down = l.links[channel(&h, 0, 8, 3)];
    assert!(
        down.shape == Shape::Arc && down.ctl.0 < down.from.0,
        "bulges left"
    );
}

#[test]
fn hyperx_rows_are_arcs_reaching_further_bulging_more() {
    let x = build(Family::HyperX, Kind::Mesh, &[4, 3], true, 1);
    let l = drawn_once(&x);
    let next = l.links[channel(&x, 0, 1, 0)];
    let two = l.links[channel(&x, 0, 2, 0)];
    let three = l.links[channel(&x, 0, 3, 0)];
    assert_eq!(next.shape, Shape::Line);
    assert!(two.shape == Shape::Arc && three.shape == Shape::Arc);
    assert!(three.ctl.1 < two.ctl.1 && two.ctl.1 < two.from.1);
    drawn_once(&build(Family::HyperX, Kind::Mesh, &[3, 3, 3], true, 1));
}

#[test]
fn mway_channels_are_bars_on_their_graph() {
    for (kind, radix) in [(Kind::Torus, [4, 4]), (Kind::Mesh, [3, 4])] {
        let m = build(Family::MWay(Placement::Channels(1)), kind, &radix, true, 1);
        let l = drawn_once(&m);
        assert!(l.bars);
    }
    let cube = build(
        Family::MWay(Placement::Routers),
        Kind::Hypercube,
        &[2; 3],
        true,
        1,
    );
    assert!(drawn_once(&cube).bars);
}

#[test]
fn dragonfly_groups_sit_on_a_circle() {
    let shape = DragonflyShape {
        p: 1,
        a: 4,
        h: 2,
        groups: 9,
    };
    let d = build(Family::Dragonfly(shape), Kind::Mesh, &[4], true, 1);
    let l = drawn_once(&d);
    // A group's routers are closer to each other than to any other group's.
    let within = (0..4)
        .flat_map(|i| (0..4).map(move |j| (i, j)))
        .map(|(i, j)| dist(l.routers[i], l.routers[j]))
        .fold(0.0, f64::max);
    let between = (0..4)
        .flat_map(|i| (4..36).map(move |j| (i, j)))
        .map(|(i, j)| dist(l.routers[i], l.routers[j]))
        .fold(f64::INFINITY, f64::min);
    assert!(within < between, "{within} {between}");
}

#[test]
fn fat_tree_levels_are_rows_leaves_at_the_bottom() {
    let f = build(Family::FatTree, Kind::Mesh, &[2, 2, 2], true, 1);
    let l = drawn_once(&f);
    // 3 levels of 4 switches: switch 0 is a leaf, switch 8 at the top.
    assert!(l.routers[0].1 > l.routers[4].1 && l.routers[4].1 > l.routers[8].1);
    let up = l.links[0];
    assert!(up.to.1 < up.from.1, "the first link goes up");
}
