//! The engine against a reference model: a deliberately plain re-implementation, in this file,
//! of the cycle semantics documented in src/engine (mod.rs and network.rs), visiting every
//! buffer and every channel every cycle, with no active lists, no sleeping and no packing.
//! Under random traffic from light load to far past saturation, the engine must reproduce it
//! exactly, cycle by cycle: the same flits in the network, the same flits moved, and in the end
//! the same deliveries (every field) and the same per-channel flit and header counts. Any
//! optimisation of the engine (activity lists, sleeping blocked buffers, ...) must not change
//! a single cycle.
//!
//! The documented semantics modelled here:
//! - each cycle: requests (start-of-cycle state), then injection, then grants and moves;
//! - a header routes by dimension order (lowest dimension first; bidirectional torus: the
//!   shorter way, a tie k/2 going Plus, or under `tie = "random"` Minus when bit d of the
//!   message's tie bits is set), with dateline classes on a torus with V >= 2 (class 0 = VCs
//!   0..split, class 1 = split..V, split = min(ceil(V/2), V-1); `at-wrap`: a message takes class
//!   1 on a wrap-around link and keeps it while continuing in the same ring; `on-entry`: on
//!   entering a ring it takes class 1 if its route in the ring crosses the wrap-around link, and
//!   keeps its class in the ring) and selects the lowest-numbered free VC of its class; a body
//!   flit follows its header if the downstream buffer has space (start of cycle); ejection never
//!   blocks;
//! - channel arbitration: round-robin over driver slots, slot = port·V + vc, the ports of a
//!   router being its incoming links in link order and then its injection channel; the slot
//!   granted last has lowest priority;
//! - a source injects one flit per cycle of its oldest message into the lowest free injection
//!   VC with space, one message at a time;
//! - router delay D: a header may leave its buffer from cycle arrival + 1 + D;
//! - link latency L: a flit sent over a link in cycle s arrives (counts in the buffer) at the end
//!   of cycle s + L − 1; a flit leaving a link's buffer in cycle s returns its credit at the
//!   end of s + L − 1, and the tail's credit frees the buffer; a body flit is sent only while
//!   the flits sent into its downstream buffer and not yet credited are fewer than the depth;
//! - per-port crossbar: a buffer ready to send first competes with the other virtual channels
//!   of its channel (round-robin after the VC granted last), and only the winner asks for its
//!   output.

mod model;

use crate::common::Topo;
use flitsim::engine::Delivery;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use model::{Opts, PAPERS, Reference};

/// Offers Bernoulli traffic (probability `p` per node per cycle, uniform destination, length
/// uniform in `lens`) for `cycles` cycles to both the engine and the reference, then drains;
/// compares them every cycle and at the end.
#[allow(clippy::too_many_arguments)]
fn compare(
    t: Topo,
    vcs: u32,
    depth: u32,
    p: f64,
    lens: (u16, u16),
    cycles: u64,
    seed: u64,
    o: Opts,
) {
    let ctx = format!(
        "{:?} {:?} V={vcs} depth={depth} p={p} lens={lens:?} {o:?}",
        t.shape, t.radix
    );
    let mut e = o.engine(&t, vcs, depth);
    let mut r = Reference::new(&e, &t, vcs as usize, depth, o);
    assert_eq!(e.net.channels(), r.drivers.len(), "{ctx}");
    let mut rng = Pcg64::seed_from_u64(seed);
    let n = t.nodes();
    let mut sent = 0usize;
    loop {
        if e.cycle < cycles {
            for src in 0..n {
                if rng.gen_bool(p) {
                    let mut dst = rng.gen_range(0..n - 1);
                    if dst >= src {
                        dst += 1;
                    }
                    let len = rng.gen_range(lens.0..=lens.1);
                    e.send(src, dst, len);
                    r.send(src, dst, len as u32);
                    sent += 1;
                }
            }
        } else if e.idle() {
            break;
        }
        assert!(e.cycle < cycles + 500_000, "{ctx}: not drained");
        e.step();
        r.step();
        assert_eq!(
            (e.flits_in_net, e.moved),
            (r.flits_in_net, r.moved),
            "{ctx}: (flits in network, flits moved) differ from the reference in cycle {}",
            e.cycle - 1
        );
        if e.deliveries.len() != r.deliveries.len() {
            panic!(
                "{ctx}: cycle {}: {} deliveries, reference {}",
                e.cycle - 1,
                e.deliveries.len(),
                r.deliveries.len()
            );
        }
    }
    assert_eq!(r.flits_in_net, 0, "{ctx}: reference not drained");
    assert!(r.queue.iter().all(|q| q.is_empty()), "{ctx}");
    assert_eq!(e.deliveries.len(), sent, "{ctx}");
    let key = |d: &Delivery| (d.eject, d.src, d.dst, d.created, d.inject, d.len, d.hops);
    let mut got: Vec<_> = e.deliveries.iter().map(key).collect();
    let mut want: Vec<_> = r.deliveries.iter().map(key).collect();
    got.sort_unstable();
    want.sort_unstable();
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{ctx}: deliveries differ; first difference (eject, src, dst, created, inject, len, \
             hops): engine {:?}, reference {:?}",
            got[i], want[i]
        );
    }
    let nl = r.links.len();
    let nodes = r.nodes;
    assert_eq!(e.c_flits(), r.c_flits, "{ctx}: flits per channel");
    assert_eq!(e.c_msgs()[..nl], r.c_msgs[..nl], "{ctx}: headers per link");
    assert_eq!(
        e.c_msgs()[nl + nodes..],
        r.c_msgs[nl + nodes..],
        "{ctx}: headers per ejection channel"
    );
}

/// (p, lengths, cycles): light, moderate, heavy, far past saturation.
const LOADS: [(f64, (u16, u16), u64); 4] = [
    (0.01, (2, 8), 3000),
    (0.02, (8, 16), 2000),
    (0.04, (8, 24), 1500),
    (0.1, (4, 12), 1000),
];

fn all_loads(t: Topo, vcs: u32, depth: u32) {
    all_loads_with(t, vcs, depth, PAPERS)
}

fn all_loads_with(t: Topo, vcs: u32, depth: u32, o: Opts) {
    for (i, &(p, lens, cycles)) in LOADS.iter().enumerate() {
        compare(t.clone(), vcs, depth, p, lens, cycles, 1000 + i as u64, o);
    }
}

#[test]
fn reference_mesh() {
    all_loads(Topo::mesh(&[4, 4]), 1, 2);
    all_loads(Topo::mesh(&[5, 3]), 2, 1);
    all_loads(Topo::mesh(&[6, 6]), 4, 3);
}

#[test]
fn reference_uni_torus() {
    all_loads(Topo::uni_torus(4, 2), 2, 2);
    all_loads(Topo::uni_torus(5, 2), 3, 4);
    all_loads(Topo::uni_torus(3, 3), 4, 1);
}

#[test]
fn reference_bi_torus() {
    all_loads(Topo::bi_torus(4, 2), 2, 2);
    all_loads(Topo::bi_torus(5, 2), 4, 2);
    all_loads(Topo::bi_torus(4, 3), 2, 3);
}

/// Every pair of torus conventions on bidirectional tori, odd and even k, and `on-entry`'s
/// lower class choice next to the papers' on the unidirectional torus's at-wrap.
#[test]
fn reference_torus_conventions() {
    for random_tie in [false, true] {
        for on_entry in [false, true] {
            let o = Opts {
                random_tie,
                on_entry,
                ..PAPERS
            };
            all_loads_with(Topo::bi_torus(4, 2), 2, 2, o);
            all_loads_with(Topo::bi_torus(6, 2), 4, 3, o);
            all_loads_with(Topo::bi_torus(5, 2), 2, 1, o);
        }
    }
    let tie_only = Opts {
        random_tie: true,
        ..PAPERS
    };
    all_loads_with(Topo::uni_torus(4, 2), 2, 2, tie_only);
}

#[test]
fn reference_hypercube() {
    all_loads(Topo::hypercube(4), 1, 2);
    all_loads(Topo::hypercube(5), 2, 1);
    all_loads(Topo::hypercube(6), 3, 4);
}

#[test]
fn reference_larger_networks() {
    let bi = Opts {
        random_tie: true,
        on_entry: true,
        ..PAPERS
    };
    compare(Topo::mesh(&[8, 8]), 2, 4, 0.03, (8, 32), 2000, 2001, PAPERS);
    compare(
        Topo::uni_torus(8, 2),
        2,
        2,
        0.03,
        (8, 32),
        2000,
        2002,
        PAPERS,
    );
    compare(
        Topo::bi_torus(8, 2),
        4,
        2,
        0.05,
        (8, 16),
        2000,
        2003,
        PAPERS,
    );
    compare(Topo::bi_torus(8, 2), 4, 2, 0.05, (8, 16), 2000, 2003, bi);
    compare(Topo::bi_torus(4, 4), 2, 4, 0.02, (16, 16), 1500, 2004, bi);
}

/// Router delay, link latency (with buffers shallower and deeper than the credit round trip)
/// and the per-port crossbar, alone and together, on every topology kind, light load to far
/// past saturation.
#[test]
fn reference_router_and_link_timing() {
    let timing = |delay, latency, per_port| Opts {
        delay,
        latency,
        per_port,
        ..PAPERS
    };
    for o in [
        timing(2, 1, false),
        timing(0, 3, false),
        timing(1, 2, true),
        timing(0, 1, true),
    ] {
        all_loads_with(Topo::mesh(&[4, 4]), 2, 2, o);
        all_loads_with(Topo::mesh(&[4, 3]), 1, 5, o);
        all_loads_with(Topo::uni_torus(4, 2), 2, 3, o);
        all_loads_with(Topo::hypercube(4), 3, 1, o);
        let bi = Opts {
            random_tie: true,
            on_entry: true,
            ..o
        };
        all_loads_with(Topo::bi_torus(4, 2), 4, 4, bi);
    }
}
