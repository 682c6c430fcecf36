//! Flowing worms (`src/engine/flows.rs`): the one-pass cycle moves a worm whose every flit moves
//! every cycle as a whole, visiting only its rear, its front and the buffer its header left
//! last. Exact facts: after every cycle, every buffer holds the same flits and has sent the same
//! flits as with no worm flowing; the deliveries, every channel's counters (read while worms
//! flow, and across a measurement window's opening and closing) and the occupancy are the same.

use super::scale::each_case;
use flitsim::Scenario;
use flitsim::engine::{Engine, Span, build_engine};

/// Runs `s` at `flit_rate` for `cycles` cycles on one thread with the one-pass cycle, worms
/// flowing and not, comparing every buffer after every cycle; returns the most buffers that
/// flowed at once.
fn lockstep(s: &Scenario, flit_rate: f64, cycles: u64, ctx: &str) -> u64 {
    let rate = flit_rate / s.traffic.mean_length();
    let engine = |flows: bool| -> Engine {
        let mut e = build_engine(s, rate, 7)
            .with_prefetch(true)
            .with_flows(flows);
        e.log_deliveries = true;
        e
    };
    let (mut plain, mut flowing) = (engine(false), engine(true));
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
    most
}

/// Every case of `scale.rs`, light and saturated: the same state after every cycle, and
/// worms do flow wherever the one-pass cycle runs with buffers of two flits or more (not
/// under early free, router or link timing, or shared channels).
#[test]
fn flowing_worms_change_nothing() {
    each_case(|s, flit_rate, ctx| {
        let most = lockstep(s, flit_rate, 1500, ctx);
        let r = &s.router;
        let one_pass = !r.early_free
            && r.delay == 0
            && r.link_latency == 1
            && r.crossbar != flitsim::scenario::Crossbar::PerPort
            && !ctx.contains("mway");
        if one_pass && r.buffer_depth >= 2 {
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
            let most = lockstep(&s, flit_rate, 2000, &ctx);
            assert!(most >= 10, "{ctx}: at most {most} buffers flowed");
        }
    }
}
