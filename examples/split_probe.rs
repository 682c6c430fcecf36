//! One point on one thread and on several, measured side by side: both engines of the same
//! 1-thread and split point are built and warmed, then run in alternating blocks of cycles, so
//! that the machine's drift (a shared virtual machine's memory system) falls on both alike.
//! Prints each block pair's speed ratio and their median, and both engines' flit-hops/s; then
//! where the split cycle's time went ([`flitsim::engine::SplitProfile`]): the calling thread
//! alone, each step's slowest thread and mean thread, each thread's shares, and the threads'
//! work over one thread's.
//!
//! Run: `cargo run --release --example split_probe -- RADICES WARMUP BLOCKS CYCLES THREADS`,
//! e.g. `-- 32,32,32,32 500 20 20 2` for the 32-ary 4-cube at 0.002 flits/node/cycle (the
//! `d_torus32x4_dor_load0.002` bench's point), 20 blocks of 20 cycles each, 2 threads.
//!
//! With THREADS `pair`, the ceiling of two cores on this workload instead: two one-thread
//! engines of the point (seeds 1 and 2), one alone then both at once on two threads, in
//! alternating blocks; the ratio is what two points at once move over one alone (2.0 when
//! the memory system serves two cores as well as one).
//!
//! With THREADS `turn`, where a split's time goes instead: the point on one thread, split into
//! two partitions run in turn on one thread (`EngineConfig::in_turn`), and split
//! across two threads, in blocks whose order rotates. The partitions in turn over one thread
//! is the split cycle's own work (its crossings, effects and bookkeeping); two threads' time
//! twice over the partitions in turn is what the two cores make of that work (1.0 when they
//! run it as fast as one core runs half of it).
//!
//! With THREADS `rings`, the links' numbering instead: the point on one thread with its links
//! numbered by router (`KAryNCube::new`, the tables' order) against the scenario's numbering
//! along rings, in alternating blocks; both must move the same flits in every block. The ratio
//! is the rings' speed over the routers'.

use flitsim::Scenario;
use flitsim::engine::{
    Engine, STEPS, SplitProfile, build_engine, build_engine_on, build_engine_with,
};
use flitsim::network::Network;
use flitsim::topology::KAryNCube;
use std::time::Instant;

/// Runs `cycles` cycles of `e`: seconds taken and flit-hops moved. One cycle runs first,
/// untimed: the first cycle after the other engine's block finds this engine's state out of
/// the caches and takes about twice as long, for either engine, which a run alone never does.
fn block(e: &mut Engine, cycles: u64) -> (f64, u64) {
    e.step();
    let before = e.link_flits();
    let t = Instant::now();
    for _ in 0..cycles {
        e.step();
    }
    (t.elapsed().as_secs_f64(), e.link_flits() - before)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: split_probe RADICES WARMUP BLOCKS CYCLES THREADS");
        std::process::exit(2);
    }
    let number = |i: usize| -> u64 { args[i].parse().expect("a whole number") };
    let (warmup, blocks, cycles) = (number(1), number(2), number(3));
    let text = format!(
        "name = \"probe\"\n[topology]\nkind = \"torus\"\nk = [{}]\nlinks = \"bidirectional\"\n\
         [router]\nvcs = 2\nbuffer_depth = 8\n[traffic]\nmessage_length = 16\n\
         flit_rates = [0.002]\n",
        args[0]
    );
    let s = Scenario::from_toml(&text, "probe").expect("a valid network");
    if args[4] == "pair" {
        return pair(&s, warmup, blocks, cycles);
    }
    if args[4] == "turn" {
        return turn(&s, warmup, blocks, cycles);
    }
    let rings = args[4] == "rings";
    let threads = if rings { 1 } else { number(4) };
    let mut one = if rings {
        let t = &s.topology;
        let by_router = KAryNCube::new(t.kind, t.radix.clone(), t.bidirectional);
        let net = Network::new(by_router, s.router.vcs, s.router.buffer_depth);
        build_engine_on(&s, net, 0.002 / 16.0, 1)
    } else {
        build_engine(&s, 0.002 / 16.0, 1)
    };
    let mut split = build_engine_with(&s, 0.002 / 16.0, 1, |c| c.threads = threads as usize);
    for _ in 0..warmup {
        one.step();
        split.step();
    }
    split.profile_split();
    let mut ratios = Vec::new();
    let (mut t1, mut tn, mut h1, mut hn) = (0.0, 0.0, 0, 0);
    for i in 0..blocks {
        // Alternate which runs first, so that neither always follows the other.
        let (a, b) = if i % 2 == 0 {
            let a = block(&mut one, cycles);
            (a, block(&mut split, cycles))
        } else {
            let b = block(&mut split, cycles);
            (block(&mut one, cycles), b)
        };
        assert_eq!(a.1, b.1, "the same point moves the same flits");
        ratios.push(a.0 / b.0);
        (t1, tn, h1, hn) = (t1 + a.0, tn + b.0, h1 + a.1, hn + b.1);
    }
    ratios.sort_by(f64::total_cmp);
    let (first, second) = match rings {
        true => ("links by router".to_string(), "along rings".to_string()),
        false => ("1 thread".to_string(), format!("{threads} threads")),
    };
    println!(
        "{} nodes: {first} {:.2} M flit-hops/s, {second} {:.2} M flit-hops/s; \
         speed ratio per block: median {:.2}, min {:.2}, max {:.2}, overall {:.2}",
        one.net.nodes,
        h1 as f64 / t1 / 1e6,
        hn as f64 / tn / 1e6,
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
        t1 / tn
    );
    if !rings {
        println!(
            "buffers in flowing worms at the end: 1 thread {}, {threads} threads {}",
            one.flowing_buffers(),
            split.flowing_buffers()
        );
    }
    if let Some(p) = split.split_profile() {
        print_profile(&p, t1 / (blocks * cycles) as f64);
    }
}

/// Where the split cycle's time went, per cycle, beside one thread's cycle (`one`, seconds).
fn print_profile(p: &SplitProfile, one: f64) {
    let us = |ns: u64| ns as f64 / p.cycles as f64 / 1e3;
    let threads = p.threads as u64;
    print!(
        "split cycle {:.0} us (one thread's {:.0} us): alone on the calling thread {:.0}",
        us(p.total),
        one * 1e6,
        us(p.serial())
    );
    for (s, name) in STEPS.iter().enumerate() {
        print!(
            "; {name} {:.0} (slowest thread {:.0}, mean {:.0})",
            us(p.wall[s]),
            us(p.slowest[s]),
            us(p.busy[s] / threads)
        );
    }
    print!("\neach thread's requests, grants and effects (thread 0 calls):");
    for (t, steps) in p.by_thread.iter().enumerate() {
        print!(
            " {t}: {:.0}, {:.0}, {:.0};",
            us(steps[0]),
            us(steps[1]),
            us(steps[2])
        );
    }
    println!(
        "\nwaiting for the slowest thread: {:.1}% of the steps; the threads' work over one \
         thread's cycle: {:.2}",
        100.0 * p.imbalance(),
        us(p.busy.iter().sum()) / (one * 1e6)
    );
}

/// The point on one thread, in two partitions in turn on one thread, and on two threads, in
/// blocks whose order rotates.
fn turn(s: &Scenario, warmup: u64, blocks: u64, cycles: u64) {
    let mut engines = [
        build_engine(s, 0.002 / 16.0, 1),
        build_engine_with(s, 0.002 / 16.0, 1, |c| {
            c.threads = 2;
            c.in_turn = true;
        }),
        build_engine_with(s, 0.002 / 16.0, 1, |c| c.threads = 2),
    ];
    for _ in 0..warmup {
        engines.iter_mut().for_each(Engine::step);
    }
    engines[1].profile_split();
    let mut secs = [0.0; 3];
    for i in 0..blocks as usize {
        let mut hops = [0; 3];
        for k in 0..3 {
            let e = (i + k) % 3;
            let (t, h) = block(&mut engines[e], cycles);
            (secs[e], hops[e]) = (secs[e] + t, h);
        }
        assert!(
            hops.iter().all(|&h| h == hops[0]),
            "the same point moves the same flits"
        );
    }
    let us = secs.map(|t| t / (blocks * cycles) as f64 * 1e6);
    println!(
        "{} nodes, cycle: one thread {:.0} us, two partitions in turn on one thread {:.0} us, \
         two threads {:.0} us; the split's own work over one thread's {:.3}; two threads' \
         time twice over the partitions in turn {:.3}; speed-up {:.2}",
        engines[0].net.nodes,
        us[0],
        us[1],
        us[2],
        us[1] / us[0],
        2.0 * us[2] / us[1],
        us[0] / us[2]
    );
    if let Some(p) = engines[1].split_profile() {
        print!("the partitions in turn: ");
        print_profile(&p, us[0] / 1e6);
    }
}

/// Two one-thread engines of `s`, one alone then both at once, in alternating blocks.
fn pair(s: &Scenario, warmup: u64, blocks: u64, cycles: u64) {
    let mut a = build_engine(s, 0.002 / 16.0, 1);
    let mut b = build_engine(s, 0.002 / 16.0, 2);
    for _ in 0..warmup {
        a.step();
        b.step();
    }
    let mut ratios = Vec::new();
    for _ in 0..blocks {
        let alone = block(&mut a, cycles);
        let (x, y) = std::thread::scope(|sc| {
            let hb = sc.spawn(|| block(&mut b, cycles));
            let x = block(&mut a, cycles);
            (x, hb.join().expect("the second engine"))
        });
        let rate = |r: (f64, u64)| r.1 as f64 / r.0;
        ratios.push((rate(x) + rate(y)) / rate(alone));
    }
    ratios.sort_by(f64::total_cmp);
    println!(
        "{} nodes: two points at once move {:.2} times one alone (median of {blocks} blocks; \
         min {:.2}, max {:.2})",
        a.net.nodes,
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1]
    );
}
