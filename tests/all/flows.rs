//! Flowing worms (`src/engine/flows.rs`): the one-pass cycle moves a worm whose every flit moves
//! every cycle as a whole, visiting only its rear, its front and the buffer its header left
//! last. Exact facts: after every cycle, every buffer holds the same flits and has sent the same
//! flits as with no worm flowing; the deliveries, every channel's counters (read while worms
//! flow, and across a measurement window's opening and closing) and the occupancy are the same.

use super::scale::each_case;
use flitsim::Scenario;
use flitsim::engine::{Engine, Plan, Span, build_engine_with};

/// Runs `s` at `flit_rate` for `cycles` cycles with the one-pass cycle, on one thread with no
/// worm flowing and on `threads` threads with worms flowing (the split's partition boundaries
/// moved at the cycles `moves` gives, to the fractions of the routers given), comparing every
/// buffer after every cycle; returns the most buffers that flowed at once, and the flowing
/// engine's plan.
fn lockstep(
    s: &Scenario,
    flit_rate: f64,
    cycles: u64,
    threads: usize,
    moves: &[(u64, f64)],
    ctx: &str,
) -> (u64, Plan) {
    let rate = flit_rate / s.traffic.mean_length();
    let engine = |flows: bool, threads: usize| -> Engine {
        let mut e = build_engine_with(s, rate, 7, |c| {
            c.threads = threads;
            c.prefetch = Some(true);
            c.flows = flows;
        });
        e.log_deliveries = true;
        e
    };
    let (mut plain, mut flowing) = (engine(false, 1), engine(true, threads));
    let routers = flowing.net.routers() as f64;
    let buffers = plain.net.buffers() as u32;
    let (mut most, mut span_a, mut span_b) = (0, Span::default(), Span::default());
    for i in 0..cycles {
        if i == cycles / 3 {
            span_a.start = Some(plain.open_window());
            span_b.start = Some(flowing.open_window());
        }
        if i == 2 * cycles / 3 {
            span_a.end = Some(plain.close_window());
            span_b.end = Some(flowing.close_window());
        }
        if let Some(&(_, at)) = moves.iter().find(|(c, _)| *c == i)
            && flowing.threads() == 2
        {
            flowing.repartition(&[0, ((at * routers) as u32).max(1)]);
        }
        plain.step();
        flowing.step();
        most = most.max(flowing.flowing_buffers());
        // (Flits on links of L > 1 are in no buffer.)
        if s.router.link_latency == 1
            && let Err(why) = flowing.check_invariants()
        {
            panic!("{ctx}, after cycle {i}: {why}");
        }
        for b in 0..buffers {
            assert_eq!(
                (plain.buffer_flits(b), plain.buffer_sent(b)),
                (flowing.buffer_flits(b), flowing.buffer_sent(b)),
                "{ctx}, after cycle {i}: buffer {b}'s flits and flits sent"
            );
        }
        if i % 97 == 0 {
            assert_eq!(
                plain.c_flits(),
                flowing.c_flits(),
                "{ctx}, cycle {i}: flits"
            );
            assert_eq!(plain.link_flits(), flowing.link_flits(), "{ctx}, cycle {i}");
        }
    }
    assert_eq!(plain.deliveries, flowing.deliveries, "{ctx}: deliveries");
    assert_eq!(
        plain.c_msgs(),
        flowing.c_msgs(),
        "{ctx}: headers per channel"
    );
    let bits = |p: Vec<f64>| p.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(plain.vc_occupancy()),
        bits(flowing.vc_occupancy()),
        "{ctx}: occupancy"
    );
    let (a, b) = (plain.window_counts(span_a), flowing.window_counts(span_b));
    assert_eq!(a.flits, b.flits, "{ctx}: the window's flits per channel");
    assert_eq!(a.msgs, b.msgs, "{ctx}: the window's headers per channel");
    (most, flowing.plan())
}

/// Every case of `scale.rs`, light and saturated: the same state after every cycle, and
/// worms do flow wherever the plan says they may (`Plan::flows`).
#[test]
fn flowing_worms_change_nothing() {
    each_case(|s, flit_rate, ctx| {
        let (most, plan) = lockstep(s, flit_rate, 1500, 1, &[], ctx);
        if plan.flows() {
            assert!(most > 0, "{ctx}: no worm flowed");
        } else {
            assert_eq!(most, 0, "{ctx}: a worm flowed");
        }
    });
}

/// Long worms in deep and shallow buffers on a torus larger than the cases above, at a light
/// load (most worms flow for most of their way) and past saturation.
#[test]
fn long_flowing_worms_change_nothing() {
    for (depth, algorithm) in [(8, "dor"), (2, "dor"), (4, "duato")] {
        for flit_rate in [0.1, 0.9] {
            let text = format!(
                "name = \"flows\"\n[topology]\nkind = \"torus\"\nk = 8\nn = 2\n\
                 links = \"bidirectional\"\n[router]\nvcs = 3\nbuffer_depth = {depth}\n\
                 [routing]\nalgorithm = \"{algorithm}\"\n\
                 [traffic]\nmessage_length = 16\nflit_rates = [{flit_rate}]\n"
            );
            let s = Scenario::from_toml(&text, "flows.toml").unwrap();
            let ctx = format!("8-ary 2-cube, {algorithm}, depth {depth}, at {flit_rate}");
            let (most, _) = lockstep(&s, flit_rate, 2000, 1, &[], &ctx);
            assert!(most >= 10, "{ctx}: at most {most} buffers flowed");
            for threads in [2, 3] {
                let moves = [(700, 0.3), (1300, 0.6)];
                let ctx = format!("{ctx}, {threads} threads");
                let (most, plan) = lockstep(&s, flit_rate, 2000, threads, &moves, &ctx);
                assert_eq!(plan.threads, threads, "{ctx}: split");
                assert!(most > 0, "{ctx}: no worm flowed");
            }
        }
    }
}

/// Every case of `scale.rs`, light and saturated, split across 2 threads (the boundaries moved
/// twice while worms flow) and 3: the same state after every cycle as one thread with no worm
/// flowing, worms flowing inside the partitions wherever they flow on one thread.
#[test]
fn flowing_worms_in_partitions_change_nothing() {
    each_case(|s, flit_rate, ctx| {
        for (threads, moves) in [(2, &[(500, 0.3), (1000, 0.7)][..]), (3, &[][..])] {
            let ctx = format!("{ctx}, {threads} threads");
            let (most, plan) = lockstep(s, flit_rate, 1500, threads, moves, &ctx);
            if plan.flows() {
                assert!(most > 0, "{ctx}: no worm flowed");
            } else {
                assert_eq!(most, 0, "{ctx}: a worm flowed");
            }
        }
    });
}
