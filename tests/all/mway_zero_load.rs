//! Zero-load latency on k-ary m-way networks is exact: one M-flit message in an otherwise empty
//! network, from processor s to processor t, is delivered M + h cycles after it was generated,
//! where h is the number of m-way routers it passes (the channel distance between the nearest
//! channels of s and t, computed here by BFS over a model built from coordinates). The header
//! crosses exactly h routers' buffer sets, forming a path of adjacent channels from one of s's
//! channels to one of t's, entered through s's injection buffer and left through t's ejection.

use crate::mway_common::{Model, Procs, Wrap, library_processors};
use flitsim::engine::{Delivery, Engine};
use flitsim::topology::MWay;

const LENGTHS: [u16; 3] = [1, 2, 5];

/// Sends one message in an empty network and steps until it is delivered; returns the delivery
/// and, per engine channel, the flits and headers that crossed it meanwhile.
fn single(e: &mut Engine, src: u32, dst: u32, m: u16) -> (Delivery, Vec<u64>, Vec<u64>) {
    assert!(e.idle(), "network not empty before {src}->{dst}");
    let (f0, m0) = (e.c_flits(), e.c_msgs());
    e.deliveries.clear();
    e.send(src, dst, m);
    let cap = e.cycle + 4 * (m as u64 + 64) + 64;
    while e.deliveries.is_empty() {
        assert!(e.cycle < cap, "{src}->{dst} M={m} not delivered by {cap}");
        e.step();
    }
    assert_eq!(e.deliveries.len(), 1);
    assert!(e.idle(), "network not empty after {src}->{dst}");
    let diff = |now: &[u64], then: &[u64]| now.iter().zip(then).map(|(a, b)| a - b).collect();
    (
        e.deliveries[0],
        diff(&e.c_flits(), &f0),
        diff(&e.c_msgs(), &m0),
    )
}

/// Checks the channels a message used: M flits through one injection channel of `src` and one
/// ejection channel of `dst`; its header over exactly h links, each once, each joining channels
/// adjacent in the model, forming a walk from the injection buffer's channel to the channel the
/// ejection leaves.
#[allow(clippy::too_many_arguments)]
fn check_path(
    e: &Engine,
    model: &Model,
    chans: &[Vec<u32>],
    src: u32,
    dst: u32,
    m: u64,
    h: u32,
    flits: &[u64],
    msgs: &[u64],
) {
    let net = &e.net;
    let links = net.links as usize;
    let (inj, ej) = (
        net.injection_channel(0) as usize,
        net.ejection_channel(0) as usize,
    );
    let att = net.attach as usize;
    let one_of = |first: usize, p: u32| -> usize {
        let range = first..first + net.nodes as usize * att;
        let used: Vec<usize> = range.filter(|&c| flits[c] > 0).collect();
        assert_eq!(used.len(), 1, "{src}->{dst}: channels used {used:?}");
        let c = used[0];
        assert_eq!(
            (c - first) / att,
            p as usize,
            "{src}->{dst}: wrong processor"
        );
        assert_eq!(flits[c], m, "{src}->{dst}: flits through {c}");
        c
    };
    let ic = one_of(inj, src);
    let ec = one_of(ej, dst);
    // The injection buffer sits at (drives) one of src's channels; the ejection leaves one of
    // dst's channels.
    let start = net.buf_router((ic * net.vcs as usize) as u32);
    let end = net.arb_of[ec];
    assert!(chans[src as usize].contains(&start), "{src}->{dst}: start");
    assert!(chans[dst as usize].contains(&end), "{src}->{dst}: end");
    let used = &msgs[..links];
    assert_eq!(used.iter().sum::<u64>(), h as u64, "{src}->{dst}: routers");
    assert!(used.iter().all(|&u| u <= 1), "{src}->{dst}: a router twice");
    assert_eq!(
        flits[..links].iter().sum::<u64>(),
        h as u64 * m,
        "{src}->{dst}: flits over routers"
    );
    let tl = &net.cube().links;
    let mut cur = start;
    for _ in 0..h {
        let next: Vec<usize> = (0..links)
            .filter(|&c| used[c] == 1 && tl[c].src == cur)
            .collect();
        assert_eq!(next.len(), 1, "{src}->{dst}: one router out of {cur}");
        let l = &tl[next[0]];
        assert!(model.adjacent(l.src, l.dst), "{src}->{dst}: not a router");
        cur = l.dst;
    }
    assert_eq!(cur, end, "{src}->{dst}: the path ends elsewhere");
}

/// All ordered pairs of distinct processors, every M in LENGTHS, one message at a time.
fn zero_load(model: &Model, vcs: u32, depth: u32, routing: &str) {
    let mut e = model.quiet_engine(vcs, depth, routing);
    let chans = library_processors(model, &e);
    let p = model.processors();
    let mw: MWay = e.net.topology.mway().cloned().unwrap();
    let mut max_h = 0;
    for src in 0..p {
        for dst in 0..p {
            if src == dst {
                continue;
            }
            let h = model.routers_passed(&chans[src as usize], &chans[dst as usize]);
            max_h = max_h.max(h);
            let ctx = format!(
                "{:?} k={} n={} {:?} V={vcs} S={depth} [{routing}] {src}->{dst} h={h}",
                model.wrap, model.k, model.n, model.procs
            );
            assert_eq!(mw.routers_passed(src, dst), h, "{ctx}: library h");
            for &m in &LENGTHS {
                let created = e.cycle;
                let (d, flits, msgs) = single(&mut e, src, dst, m);
                assert_eq!((d.src, d.dst, d.len), (src, dst, m), "{ctx}");
                assert_eq!(d.created, created, "{ctx}: created");
                assert_eq!(d.inject, d.created, "{ctx}: source wait must be 0");
                assert_eq!(d.hops as u32, h, "{ctx}: hops");
                assert_eq!(d.eject - d.created, m as u64 + h as u64, "{ctx} M={m}");
                check_path(&e, model, &chans, src, dst, m as u64, h, &flits, &msgs);
            }
        }
    }
    // The network's diameter was reached (routers passed = channels crossed - 1).
    assert_eq!(max_h + 1, model.diameter_and_mean().0);
}

const DOR: &str = "algorithm = \"dor\"";
const DOR_RING: &str = "algorithm = \"dor-ring\"";
const ADAPTIVE: &str = "algorithm = \"adaptive\"";
const ADAPTIVE_RING: &str = "algorithm = \"adaptive-ring\"";

#[test]
fn zero_load_torus_4x4() {
    let m = Model::new(Wrap::Torus, 4, 2, Procs::Channels(1));
    zero_load(&m, 2, 2, DOR_RING);
    zero_load(&m, 3, 2, ADAPTIVE_RING);
    zero_load(&m, 3, 4, "algorithm = \"duato\"");
}

#[test]
fn zero_load_torus_5x5() {
    let m = Model::new(Wrap::Torus, 5, 2, Procs::Channels(1));
    zero_load(&m, 2, 2, DOR_RING);
    zero_load(&m, 4, 3, ADAPTIVE_RING);
}

#[test]
fn zero_load_mesh_4x4() {
    let m = Model::new(Wrap::Mesh, 4, 2, Procs::Channels(1));
    zero_load(&m, 1, 2, DOR);
    zero_load(&m, 2, 2, ADAPTIVE);
}

#[test]
fn zero_load_hypercubes() {
    let m3 = Model::new(Wrap::Mesh, 2, 3, Procs::Channels(1));
    zero_load(&m3, 1, 2, DOR);
    zero_load(&m3, 2, 2, ADAPTIVE);
    let m4 = Model::new(Wrap::Mesh, 2, 4, Procs::Channels(1));
    zero_load(&m4, 1, 2, DOR);
    zero_load(&m4, 2, 3, ADAPTIVE);
    zero_load(&m4, 1, 2, "algorithm = \"pcube\"");
}

#[test]
fn zero_load_processors_in_routers() {
    zero_load(
        &Model::new(Wrap::Torus, 4, 2, Procs::Routers),
        2,
        2,
        DOR_RING,
    );
    zero_load(
        &Model::new(Wrap::Torus, 3, 2, Procs::Routers),
        3,
        2,
        ADAPTIVE_RING,
    );
    zero_load(&Model::new(Wrap::Mesh, 4, 2, Procs::Routers), 1, 2, DOR);
    zero_load(
        &Model::new(Wrap::Mesh, 4, 2, Procs::Routers),
        2,
        2,
        ADAPTIVE,
    );
    zero_load(
        &Model::new(Wrap::Mesh, 2, 4, Procs::Routers),
        2,
        2,
        ADAPTIVE,
    );
}

#[test]
fn zero_load_several_processors_per_channel() {
    zero_load(
        &Model::new(Wrap::Torus, 4, 2, Procs::Channels(2)),
        3,
        2,
        ADAPTIVE_RING,
    );
    zero_load(
        &Model::new(Wrap::Mesh, 4, 2, Procs::Channels(3)),
        2,
        2,
        ADAPTIVE,
    );
    zero_load(&Model::new(Wrap::Mesh, 2, 3, Procs::Channels(3)), 1, 2, DOR);
}
