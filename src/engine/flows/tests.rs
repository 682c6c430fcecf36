//! The flowing worms' state machine, transition by transition: on hand-built buffers and
//! channels, calling `Flows` directly, and on tiny networks stepped cycle by cycle through the
//! engine. Every expected count is what moving each flit one hop at a time gives: a message
//! injected from cycle t0 has its flit j (from 1) cross hop k (0 the injection channel, then
//! the links, then the ejection channel) in cycle t0 + j - 1 + k (paper 000: the head crosses
//! one link a cycle, the tail M - 1 cycles behind).

use super::*;
use crate::engine::parts::{ASLEEP, NO_REQUEST};

/// Virtual channels of the hand-built line: channel c holds buffers `c * VCS..(c + 1) * VCS`.
const VCS: u32 = 2;

/// The message whose worm the hand-built tests move.
const M: u32 = 3;

/// Buffer 0 of channel `c` of a hand-built line.
fn at(c: u32) -> u32 {
    c * VCS
}

/// A hand-built line of channels, each buffer sending into the same virtual channel of the
/// next channel and the last channel's into the ejection channel; no flit anywhere.
struct Line {
    buf: Vec<Buf>,
    chans: Vec<Chan>,
    flows: Flows,
    active: ActiveSet,
    /// Buffered channels; channel `channels` is the ejection channel.
    channels: u32,
}

impl Line {
    /// A line of `channels` buffered channels, its worms free to flow.
    fn new(channels: u32) -> Line {
        let no_up = channels * VCS;
        let mut buf: Vec<Buf> = (0..no_up)
            .map(|b| Buf {
                out_chan: b / VCS + 1,
                vc: (b % VCS) as u8,
                ..Buf::free(no_up)
            })
            .collect();
        buf.push(Buf::free(no_up));
        let chan = Chan {
            best: NO_REQUEST,
            flits: 0,
            msgs: 0,
            rr: 0,
            wait: NONE,
            flow: 0,
            sides: 0,
        };
        let mut flows = Flows {
            on: true,
            enabled: true,
            ..Flows::default()
        };
        flows.fit(M as usize + 1);
        let mut active = ActiveSet::new(buf.len());
        active.keep_listing(true);
        Line {
            buf,
            chans: vec![chan; channels as usize + 1],
            flows,
            active,
            channels,
        }
    }

    /// The sentinel feeder: that of a buffer whose tail has arrived, or that a source feeds.
    fn no_up(&self) -> u32 {
        self.channels * VCS
    }

    /// A one-thread cycle's walks.
    fn shape(&self) -> Shape<'static> {
        Shape::alone(self.no_up(), self.channels, VCS, 1)
    }

    /// Buffer `b` holds `cnt` flits of message `M` fed by `up`, has sent `sent`, is stamped
    /// `last` and is in `state` (a FLOW buffer marks its channel and is counted).
    fn hold(&mut self, b: u32, up: u32, cnt: u16, sent: u16, last: u32, state: u8) {
        let r = &mut self.buf[b as usize];
        (r.msg, r.up, r.cnt, r.sent, r.last, r.state) = (M, up, cnt, sent, last, state);
        if state == FLOW {
            self.chans[r.out_chan as usize].flow = r.vc + 1;
            self.flows.bufs += 1;
        }
    }

    /// Message `M`'s worm flows (flag `flag`), its front `front`.
    fn flowing(&mut self, flag: u8, front: u32) {
        let m = M as usize;
        (self.flows.flag[m], self.flows.front[m]) = (flag, front);
        self.flows.worms.push(M);
    }

    /// Buffer `b`'s (count, sent, stamp, state).
    fn rec(&self, b: u32) -> (u16, u16, u32, u8) {
        let r = &self.buf[b as usize];
        (r.cnt, r.sent, r.last, r.state)
    }

    /// The active list's members, in list order.
    fn members(&self) -> Vec<u32> {
        let mut v = Vec::new();
        self.active.members(|b| v.push(b));
        v
    }

    /// Each channel's flit counter.
    fn flits(&self) -> Vec<u32> {
        self.chans.iter().map(|c| c.flits).collect()
    }

    /// Each channel's flow mark.
    fn marks(&self) -> Vec<u8> {
        self.chans.iter().map(|c| c.flow).collect()
    }

    /// `Flows::end` for cycle `now`, `asked` having asked for a channel.
    fn end(&mut self, asked: &[u32], now: u32) {
        let s = self.shape();
        let Line {
            buf,
            chans,
            flows,
            active,
            ..
        } = self;
        flows.end(buf, chans, active, asked, now, s);
    }
}

/// Channel counters of a line with `n` on channels `at` (and 0 elsewhere), for comparison.
fn counters(channels: u32, at: &[(u32, u32)]) -> Vec<u32> {
    let mut v = vec![0; channels as usize + 1];
    for &(c, n) in at {
        v[c as usize] = n;
    }
    v
}

/// Each visit answers whether the buffer is inside a flowing worm and counts the flit a FLOW
/// feeder sends it this cycle; a feeder that became FLOW this cycle moved its flit explicitly.
#[test]
fn a_visit_counts_a_flow_feeder_flit_and_says_whether_the_buffer_is_inside() {
    // at(2) has been FLOW since cycle 8, at(3) became FLOW in cycle 10; at(6) holds the header.
    let build = |flag: u8| {
        let mut l = Line::new(8);
        let no_up = l.no_up();
        l.hold(at(1), no_up, 1, 5, 10, ACTIVE);
        l.hold(at(2), at(1), 1, 4, 8, FLOW);
        l.hold(at(3), at(2), 1, 3, 10, FLOW);
        l.hold(at(4), at(3), 1, 2, 10, ACTIVE);
        l.hold(at(5), at(4), 1, 1, 10, ACTIVE);
        l.hold(at(6), at(5), 1, 0, 10, ACTIVE);
        l.flowing(flag, at(6));
        l
    };
    // (inside, count after) of a visit to buffer `b` in cycle `now`.
    let visit = |l: &mut Line, b: u32, now: u32| {
        let cur = l.buf[b as usize];
        let t = cur.out_buf(l.channels, VCS);
        let no_up = l.no_up();
        let inside = l.flows.visit(&mut l.buf, b as usize, &cur, t, now, no_up);
        (inside, l.buf[b as usize].cnt)
    };
    // Fed by a FLOW buffer stamped before this cycle: one flit more, and inside.
    assert_eq!(visit(&mut build(FLOWING), at(4), 11), (true, 2));
    // Fed by a FLOW buffer that became FLOW this cycle (stamp `now`): nothing counted.
    assert_eq!(visit(&mut build(FLOWING), at(4), 10), (true, 1));
    // Fed by a buffer that is not FLOW: inside, nothing counted.
    assert_eq!(visit(&mut build(FLOWING), at(5), 11), (true, 1));
    // The rear (its feeder the sentinel) is not inside.
    assert_eq!(visit(&mut build(FLOWING), at(1), 11), (false, 1));
    // Once the front has sent (SENT), a buffer counts its flit but is not made FLOW.
    assert_eq!(visit(&mut build(SENT), at(4), 11), (false, 2));
    // A buffer feeding the ejection channel counts its flit but is never inside.
    let mut l = build(FLOWING);
    l.buf[at(4) as usize].out_chan = 8;
    assert_eq!(visit(&mut l, at(4), 11), (false, 2));
    // A still worm: not inside, nothing counted.
    assert_eq!(visit(&mut build(STILL), at(4), 11), (false, 1));
}

/// In a split cycle a buffer whose channel joins two partitions is a rear: its feeder, in
/// the other partition, is neither read nor counted, even when it is FLOW.
#[test]
fn a_visit_never_reads_a_feeder_in_another_partition() {
    let mut l = Line::new(8);
    l.hold(at(2), at(1), 1, 3, 8, FLOW);
    l.hold(at(3), at(2), 1, 2, 9, ACTIVE);
    l.buf[at(3) as usize].mark_sides(1);
    l.flowing(FLOWING, at(4));
    let cur = l.buf[at(3) as usize];
    let no_up = l.no_up();
    assert!(
        !l.flows
            .visit(&mut l.buf, at(3) as usize, &cur, at(4), 10, no_up)
    );
    assert_eq!(l.buf[at(3) as usize].cnt, 1);
}

/// `stop` flags the worm BROKEN and lists it with the buffer given, for `end` to settle.
#[test]
fn stop_flags_the_worm_broken_and_lists_its_buffer() {
    let mut l = Line::new(4);
    l.flowing(FLOWING, at(3));
    l.flows.stop(M, at(2));
    assert_eq!(l.flows.flag[M as usize], BROKEN);
    assert_eq!(l.flows.broken, vec![(M, at(2))]);
}

/// `fit` grows the columns to the messages given, new messages still with no front, rear or
/// arrival, and never shrinks them or changes what they hold.
#[test]
fn fit_grows_the_columns_and_keeps_what_they_hold() {
    let mut f = Flows::default();
    f.fit(2);
    assert_eq!(f.flag, vec![STILL; 2]);
    assert_eq!(f.front, vec![NONE; 2]);
    assert_eq!(f.rear, vec![NONE; 2]);
    assert_eq!(f.arrived, vec![u64::MAX; 2]);
    (f.flag[1], f.front[1], f.rear[1], f.arrived[1]) = (FLOWING, 7, 5, 12);
    f.fit(4);
    assert_eq!(f.flag, vec![STILL, FLOWING, STILL, STILL]);
    assert_eq!(f.front, vec![NONE, 7, NONE, NONE]);
    assert_eq!(f.rear, vec![NONE, 5, NONE, NONE]);
    assert_eq!(f.arrived, vec![u64::MAX, 12, u64::MAX, u64::MAX]);
    f.fit(1);
    assert_eq!(f.flag.len(), 4);
}

/// `forget` leaves no worm flowing and notes the cycle from which arrivals are noted again.
#[test]
fn forget_leaves_no_worm_flowing_from_the_cycle_given() {
    let mut f = Flows::default();
    f.fit(3);
    (f.flag[1], f.flag[2], f.rear[2], f.bufs) = (FLOWING, SENT, 9, 4);
    f.worms = vec![1, 2];
    f.leaving = vec![2];
    f.forget(77);
    assert_eq!(f.flag, vec![STILL; 3]);
    assert_eq!(f.rear, vec![NONE; 3]);
    assert!(f.worms.is_empty() && f.leaving.is_empty());
    assert_eq!((f.bufs, f.since), (0, 77));
    assert_eq!(f.fronts().count(), 0);
}

/// `fronts` lists the front of each worm whose flag is not STILL.
#[test]
fn fronts_are_those_of_the_worms_not_still() {
    let mut f = Flows::default();
    f.fit(4);
    f.worms = vec![0, 2, 3];
    (f.flag[0], f.flag[2], f.flag[3]) = (FLOWING, STILL, SENT);
    (f.front[0], f.front[2], f.front[3]) = (10, 20, 30);
    assert_eq!(f.fronts().collect::<Vec<_>>(), vec![10, 30]);
}

/// A FLOW buffer brought up to a cycle has sent one flit in each cycle after its stamp, as
/// has its channel (nothing after a window closed), across the 32-bit stamp's wrap.
#[test]
fn bring_up_adds_one_flit_per_cycle_since_the_stamp() {
    let mut l = Line::new(4);
    l.hold(at(1), at(0), 1, 5, 100, FLOW);
    let c = l.buf[at(1) as usize].out_chan as usize;
    bring_up(&mut l.buf[at(1) as usize], &mut l.chans, 107, 1);
    assert_eq!(l.rec(at(1)), (1, 12, 107, FLOW));
    assert_eq!(l.chans[c].flits, 7);
    bring_up(&mut l.buf[at(1) as usize], &mut l.chans, 110, 0);
    assert_eq!(l.rec(at(1)), (1, 15, 110, FLOW));
    assert_eq!(l.chans[c].flits, 7);
    l.buf[at(1) as usize].last = u32::MAX - 1;
    bring_up(&mut l.buf[at(1) as usize], &mut l.chans, 2, 1);
    assert_eq!(l.rec(at(1)), (1, 19, 2, FLOW));
    assert_eq!(l.chans[c].flits, 11);
}

/// A worm whose header moved may flow when every buffer between its rear and header sent a
/// flit this cycle and holds one: its rear is a buffer that a source feeds or that holds its
/// tail (Some(NONE) on one thread); any buffer between that fails one test keeps it still.
#[test]
fn enter_admits_a_worm_only_if_each_buffer_inside_sent_and_holds_one() {
    let now = 20;
    let build = || {
        let mut l = Line::new(8);
        let no_up = l.no_up();
        l.hold(at(1), no_up, 1, 3, now, ACTIVE);
        l.hold(at(2), at(1), 1, 2, now, ACTIVE);
        l.hold(at(3), at(2), 1, 1, now, ACTIVE);
        l.hold(at(4), at(3), 1, 0, now, ACTIVE);
        l
    };
    let l = build();
    assert_eq!(enter(&l.buf, M, at(4), now, l.shape()), Some(NONE));
    // The rear may hold any number of flits, and need not have sent.
    let mut l = build();
    (l.buf[at(1) as usize].cnt, l.buf[at(1) as usize].last) = (2, now - 3);
    assert_eq!(enter(&l.buf, M, at(4), now, l.shape()), Some(NONE));
    // A header right after its rear: nothing inside to flow.
    let l = build();
    assert_eq!(enter(&l.buf, M, at(2), now, l.shape()), None);
    let spoilers: [fn(&mut Buf); 5] = [
        |r| r.cnt = 2,
        |r| r.last -= 1,
        |r| r.state = ASLEEP,
        |r| r.msg = M + 1,
        |r| r.out_chan = 8,
    ];
    for (i, spoil) in spoilers.iter().enumerate() {
        for b in [at(2), at(3)] {
            let mut l = build();
            spoil(&mut l.buf[b as usize]);
            assert_eq!(enter(&l.buf, M, at(4), now, l.shape()), None, "{i}, {b}");
        }
    }
}

/// The walk along a worm entering the flow is bounded: 65 buffers inside may flow, 66 not.
#[test]
fn enter_admits_at_most_65_buffers_inside() {
    for (inside, admitted) in [(65, true), (66, false)] {
        let mut l = Line::new(70);
        let no_up = l.no_up();
        l.hold(at(0), no_up, 1, 90, 5, ACTIVE);
        for c in 1..=inside {
            l.hold(at(c), at(c - 1), 1, 80, 5, ACTIVE);
        }
        l.hold(at(inside + 1), at(inside), 1, 0, 5, ACTIVE);
        let got = enter(&l.buf, M, at(inside + 1), 5, l.shape());
        assert_eq!(got.is_some(), admitted, "{inside} buffers inside");
    }
}

/// In a split cycle, a worm whose header buffer is fed from another partition may not flow
/// from it, and a worm fed from another partition has that buffer as its rear.
#[test]
fn enter_in_a_split_cycle_stops_at_the_partition_boundary() {
    let now = 20;
    let mut l = Line::new(8);
    l.hold(at(1), at(0), 1, 3, now, ACTIVE);
    l.hold(at(2), at(1), 1, 2, now, ACTIVE);
    l.hold(at(3), at(2), 1, 1, now, ACTIVE);
    l.hold(at(4), at(3), 1, 0, now, ACTIVE);
    l.buf[at(1) as usize].mark_sides(1);
    assert_eq!(enter(&l.buf, M, at(4), now, l.shape()), Some(at(1)));
    l.buf[at(4) as usize].mark_sides(1);
    assert_eq!(enter(&l.buf, M, at(4), now, l.shape()), None);
}

/// `end`: a worm whose header moved past buffers that each sent and hold one flows from the
/// next cycle, its front the header's buffer; no buffer is FLOW yet.
#[test]
fn end_starts_a_worm_whose_header_moved_past_full_moving_buffers() {
    let now = 5;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(1), no_up, 1, 3, now, ACTIVE);
    l.hold(at(2), at(1), 1, 2, now, ACTIVE);
    l.hold(at(3), at(2), 1, 1, now, ACTIVE);
    l.hold(at(4), at(3), 1, 0, now, ACTIVE);
    l.flows.entering.push((M, at(4)));
    l.end(&[], now);
    let m = M as usize;
    assert_eq!(l.flows.flag[m], FLOWING);
    assert_eq!((l.flows.front[m], l.flows.rear[m]), (at(4), NONE));
    assert_eq!(l.flows.worms, vec![M]);
    assert!(l.flows.entering.is_empty());
    assert_eq!(l.flows.bufs, 0);
}

/// `end`: a header that moved on again, or whose buffer another message holds now, starts
/// no flow.
#[test]
fn end_starts_no_worm_whose_header_is_no_longer_where_it_moved() {
    let now = 5;
    for (msg, sent) in [(M, 1), (M + 1, 0)] {
        let mut l = Line::new(8);
        let no_up = l.no_up();
        l.hold(at(1), no_up, 1, 3, now, ACTIVE);
        l.hold(at(2), at(1), 1, 2, now, ACTIVE);
        l.hold(at(3), at(2), 1, sent, now, ACTIVE);
        l.buf[at(3) as usize].msg = msg;
        l.flows.entering.push((M, at(3)));
        l.end(&[], now);
        assert_eq!(
            l.flows.flag[M as usize], STILL,
            "message {msg}, {sent} sent"
        );
        assert!(l.flows.worms.is_empty() && l.flows.entering.is_empty());
    }
}

/// `end`: a worm whose front sent (SENT) flows on, untouched: its FLOW buffers keep their
/// stamps, counts and channel marks, and no counter is brought up.
#[test]
fn end_lets_a_worm_whose_front_sent_flow_on() {
    let now = 20;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(1), no_up, 1, 9, now, ACTIVE);
    l.hold(at(2), at(1), 1, 5, 18, FLOW);
    l.hold(at(3), at(2), 1, 4, 19, FLOW);
    l.hold(at(4), at(3), 1, 1, now, ACTIVE);
    l.hold(at(5), at(4), 1, 0, now, ACTIVE);
    l.flowing(SENT, at(5));
    let marks = l.marks();
    l.end(&[at(1)], now);
    assert_eq!(l.flows.flag[M as usize], FLOWING);
    assert_eq!(l.flows.worms, vec![M]);
    assert_eq!(l.rec(at(2)), (1, 5, 18, FLOW));
    assert_eq!(l.rec(at(3)), (1, 4, 19, FLOW));
    assert_eq!((l.flows.bufs, l.marks()), (2, marks));
    assert_eq!(l.flits(), counters(8, &[]));
    assert!(l.members().is_empty());
}

/// `end`: a worm whose header did not move (FLOWING, not SENT) breaks, and each FLOW buffer
/// is settled as moving one flit a cycle gives: one a cycle since its stamp sent and carried
/// by its channel (none for the one that became FLOW this cycle), still one flit held, its
/// channel's mark cleared, tracked again; the header's buffer is left as it is.
#[test]
fn end_settles_a_worm_whose_header_did_not_move() {
    let now = 20;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(1), no_up, 1, 9, now, ACTIVE);
    l.hold(at(2), at(1), 1, 5, 18, FLOW);
    l.hold(at(3), at(2), 1, 4, 19, FLOW);
    l.hold(at(4), at(3), 1, 3, now, FLOW);
    l.hold(at(5), at(4), 2, 0, 19, ASLEEP);
    l.flowing(FLOWING, at(5));
    l.end(&[], now);
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert!(l.flows.worms.is_empty() && l.flows.broken.is_empty());
    assert_eq!(l.rec(at(2)), (1, 7, now, ACTIVE));
    assert_eq!(l.rec(at(3)), (1, 5, now, ACTIVE));
    assert_eq!(l.rec(at(4)), (1, 3, now, ACTIVE));
    assert_eq!(l.rec(at(5)), (2, 0, 19, ASLEEP));
    assert_eq!(l.flits(), counters(8, &[(3, 2), (4, 1)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 9]));
    assert_eq!(l.members(), vec![at(2), at(3), at(4)]);
}

/// `end`: a front feeding the ejection channel that asked for it and lost breaks the worm;
/// the settled buffers hold one flit each, having sent one a cycle since their stamps.
#[test]
fn end_settles_a_worm_whose_ejecting_front_lost_its_channel() {
    let now = 30;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(4), no_up, 1, 12, now, ACTIVE);
    l.hold(at(5), at(4), 1, 5, 25, FLOW);
    l.hold(at(6), at(5), 1, 5, 26, FLOW);
    // The front counted the flit its FLOW feeder sent it, and did not eject one.
    l.hold(at(7), at(6), 2, 7, 29, ACTIVE);
    l.flowing(FLOWING, at(7));
    l.end(&[at(7)], now);
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert!(l.flows.worms.is_empty());
    assert_eq!(l.rec(at(5)), (1, 10, now, ACTIVE));
    assert_eq!(l.rec(at(6)), (1, 9, now, ACTIVE));
    assert_eq!(l.rec(at(7)), (2, 7, 29, ACTIVE));
    assert_eq!(l.flits(), counters(8, &[(6, 5), (7, 4)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 9]));
    assert_eq!(l.members(), vec![at(5), at(6)]);
}

/// `end`: a rear that asked for its channel and did not send breaks the worm; the FLOW
/// buffer it feeds sent its flit this cycle and received none, so it is left empty and
/// untracked, the next ones holding one flit each.
#[test]
fn end_settles_a_worm_whose_rear_did_not_send() {
    let now = 20;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    // The rear holds the tail (its feeder the sentinel), and did not send this cycle.
    l.hold(at(1), no_up, 1, 9, 19, ACTIVE);
    l.hold(at(2), at(1), 1, 5, 16, FLOW);
    l.hold(at(3), at(2), 1, 5, 17, FLOW);
    l.hold(at(4), at(3), 1, 6, now, ACTIVE);
    l.buf[at(4) as usize].out_chan = 8;
    l.flowing(SENT, at(4));
    l.end(&[at(1)], now);
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert!(l.flows.worms.is_empty() && l.flows.broken.is_empty());
    assert_eq!(l.rec(at(2)), (0, 9, now, IDLE));
    assert_eq!(l.buf[at(2) as usize].msg, M);
    assert_eq!(l.rec(at(3)), (1, 8, now, ACTIVE));
    assert_eq!(l.flits(), counters(8, &[(3, 4), (4, 3)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 9]));
    assert_eq!(l.members(), vec![at(3)]);
}

/// `end`: a rear that did not send, the FLOW buffer it feeds having become FLOW this cycle
/// (it moved its flit explicitly and received none, its count already right): that buffer is
/// left empty without losing a flit twice, and the next, fed by it, keeps its flit.
#[test]
fn end_settles_a_worm_whose_rear_did_not_send_after_a_buffer_became_flow() {
    let now = 20;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(1), no_up, 1, 9, 19, ACTIVE);
    l.hold(at(2), at(1), 0, 5, now, FLOW);
    l.hold(at(3), at(2), 1, 5, 17, FLOW);
    l.hold(at(4), at(3), 1, 1, now, ACTIVE);
    l.hold(at(5), at(4), 1, 0, now, ACTIVE);
    l.flowing(SENT, at(5));
    l.end(&[at(1)], now);
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert_eq!(l.rec(at(2)), (0, 5, now, IDLE));
    assert_eq!(l.rec(at(3)), (1, 8, now, ACTIVE));
    assert_eq!(l.flits(), counters(8, &[(4, 3)]));
    assert_eq!(l.members(), vec![at(3)]);
}

/// `end`: a FLOW buffer that the tail reached (listed in `rears`) is the worm's new rear:
/// brought up to this cycle, its mark cleared, tracked; the worm flows on.
#[test]
fn end_makes_the_flow_buffer_the_tail_reached_the_new_rear() {
    let now = 20;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    // The old rear sent the tail (a 10-flit message) this cycle and is free.
    l.hold(at(1), no_up, 0, 10, now, IDLE);
    l.buf[at(1) as usize].msg = NONE;
    // The tail arrived in a FLOW buffer: its feeder is the sentinel now.
    l.hold(at(2), no_up, 1, 4, 15, FLOW);
    l.hold(at(3), at(2), 1, 4, 16, FLOW);
    l.hold(at(4), at(3), 1, 5, now, ACTIVE);
    l.buf[at(4) as usize].out_chan = 8;
    l.flowing(SENT, at(4));
    l.flows.rears.push(at(2));
    l.end(&[], now);
    assert_eq!(l.flows.flag[M as usize], FLOWING);
    assert_eq!(l.flows.worms, vec![M]);
    assert!(l.flows.rears.is_empty());
    assert_eq!(l.rec(at(2)), (1, 9, now, ACTIVE));
    assert_eq!(l.rec(at(3)), (1, 4, 16, FLOW));
    assert_eq!(l.flits(), counters(8, &[(3, 5)]));
    assert_eq!((l.chans[3].flow, l.chans[4].flow), (0, 1));
    assert_eq!((l.flows.bufs, l.members()), (1, vec![at(2)]));
}

/// `start`: a header asking for the channel a FLOW buffer crosses stops that worm before the
/// bodies move: each FLOW buffer brought up to the cycle before, marks cleared, and listed
/// to be visited this cycle; the worm is STILL.
#[test]
fn start_stops_a_worm_whose_channel_a_header_asked_for() {
    let now = 15;
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(1), no_up, 1, 7, 14, ACTIVE);
    l.hold(at(2), at(1), 1, 3, 11, FLOW);
    l.hold(at(3), at(2), 1, 2, 12, FLOW);
    l.hold(at(4), at(3), 1, 5, 14, ACTIVE);
    l.buf[at(4) as usize].out_chan = 8;
    l.flowing(FLOWING, at(4));
    // A header of another message, on virtual channel 1 of channel 6, asks for channel 3
    // (which at(2) crosses, into at(3)).
    let h = at(6) + 1;
    (l.buf[h as usize].msg, l.buf[h as usize].out_chan) = (M + 1, 3);
    let mut pull = Vec::new();
    let s = l.shape();
    l.flows
        .start(&mut l.buf, &mut l.chans, &mut pull, &[h], now, s);
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert_eq!(pull, vec![at(2), at(3)]);
    assert_eq!(l.rec(at(2)), (1, 6, 14, ACTIVE));
    assert_eq!(l.rec(at(3)), (1, 4, 14, ACTIVE));
    assert_eq!(l.rec(at(4)), (1, 5, 14, ACTIVE));
    assert_eq!(l.flits(), counters(8, &[(3, 3), (4, 2)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 9]));
}

/// `start`: a header asking for a channel that no FLOW buffer crosses changes nothing.
#[test]
fn start_leaves_a_worm_whose_channels_no_header_asked_for() {
    let mut l = Line::new(8);
    let no_up = l.no_up();
    l.hold(at(1), no_up, 1, 7, 14, ACTIVE);
    l.hold(at(2), at(1), 1, 3, 11, FLOW);
    l.hold(at(3), at(2), 1, 0, 14, ACTIVE);
    l.flowing(FLOWING, at(3));
    let h = at(6) + 1;
    (l.buf[h as usize].msg, l.buf[h as usize].out_chan) = (M + 1, 4);
    let mut pull = Vec::new();
    let s = l.shape();
    l.flows
        .start(&mut l.buf, &mut l.chans, &mut pull, &[h], 15, s);
    assert_eq!(l.flows.flag[M as usize], FLOWING);
    assert!(pull.is_empty());
    assert_eq!(l.rec(at(2)), (1, 3, 11, FLOW));
    assert_eq!(l.flows.bufs, 1);
}

/// `start` in a split cycle: a flowing worm's front that sent a flit to another partition
/// last cycle counts the flit its FLOW feeder sends it this one (not one that became FLOW
/// this cycle, nor one of a worm that no longer flows); the list is emptied.
#[test]
fn start_counts_the_flit_a_leaving_front_receives() {
    let holders: Vec<u8> = (0..8).map(|c| (c >= 5) as u8).collect();
    let case = |feeder_last: u32, flag: u8| {
        let mut l = Line::new(8);
        let no_up = l.no_up();
        l.hold(at(2), no_up, 1, 9, 14, ACTIVE);
        l.hold(at(3), at(2), 1, 5, feeder_last, FLOW);
        // The front, whose channel enters partition 1.
        l.hold(at(4), at(3), 1, 6, 14, ACTIVE);
        l.flowing(flag, at(4));
        l.flows.leaving.push(M);
        let s = Shape {
            holders: &holders,
            ..l.shape()
        };
        let mut pull = Vec::new();
        l.flows
            .start(&mut l.buf, &mut l.chans, &mut pull, &[], 15, s);
        assert!(l.flows.leaving.is_empty() && pull.is_empty());
        l.buf[at(4) as usize].cnt
    };
    assert_eq!(case(12, FLOWING), 2);
    assert_eq!(case(15, FLOWING), 1);
    assert_eq!(case(12, STILL), 1);
}

/// `arrival`: each header arriving from another partition is noted (the creation cycle the
/// first time, its complement after); one arriving while a part of its worm flows here
/// stops that part, settled up to the partition's edge as moving one flit a cycle gives.
#[test]
fn arrival_notes_a_header_and_stops_the_part_of_its_worm_flowing_here() {
    let now = 14;
    let mut l = Line::new(10);
    let no_up = l.no_up();
    // Partition 1 holds channels 3 to 6; the worm's front at(6) sends into partition 0.
    let holders: Vec<u8> = (0..10).map(|c| (3..7).contains(&c) as u8).collect();
    let created = vec![0, 0, 0, 9];
    let (src, home) = (vec![0; 4], vec![1]);
    let s = Shape {
        holders: &holders,
        me: 1,
        created: &created,
        src: &src,
        home: &home,
        ..l.shape()
    };
    l.hold(at(3), no_up, 1, 8, now, ACTIVE);
    l.hold(at(4), at(3), 1, 3, 10, FLOW);
    l.hold(at(5), at(4), 1, 5, 11, FLOW);
    l.hold(at(6), at(5), 1, 8, now, ACTIVE);
    l.flowing(FLOWING, at(6));
    let Line {
        buf,
        chans,
        flows,
        active,
        ..
    } = &mut l;
    flows.arrival(buf, chans, active, M, now, s);
    assert_eq!(flows.arrived[M as usize], 9);
    assert_eq!(flows.flag[M as usize], STILL);
    assert_eq!(l.rec(at(4)), (1, 7, now, ACTIVE));
    assert_eq!(l.rec(at(5)), (1, 8, now, ACTIVE));
    assert_eq!(l.rec(at(6)), (1, 8, now, ACTIVE));
    assert_eq!(l.flits(), counters(10, &[(5, 4), (6, 3)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 11]));
    assert_eq!(l.members(), vec![at(4), at(5)]);
    let Line {
        buf,
        chans,
        flows,
        active,
        ..
    } = &mut l;
    flows.arrival(buf, chans, active, M, now + 3, s);
    assert_eq!(flows.arrived[M as usize], !9);
    flows.arrival(buf, chans, active, M, now + 5, s);
    assert_eq!(flows.arrived[M as usize], !9);
}

/// Partition `me`'s walks on a line whose channels `holders` gives, for messages created in
/// `created` at nodes `src`, injected by the partitions `home`.
fn split_shape<'a>(
    l: &Line,
    holders: &'a [u8],
    me: u8,
    created: &'a [u64],
    src: &'a [u32],
    home: &'a [u8],
) -> Shape<'a> {
    Shape {
        holders,
        me,
        created,
        src,
        home,
        ..l.shape()
    }
}

/// `end` in a split cycle: a worm whose header arrived from another partition once, created
/// since the flows were last forgotten and injected elsewhere, flows with the buffer the other
/// partition feeds as its rear; one that had a part here before (injected here, arrived
/// twice, or created before `since`) does not.
#[test]
fn end_in_a_split_cycle_starts_a_worm_only_if_it_has_no_other_part_here() {
    let now = 20;
    let holders = vec![1u8; 8];
    let (created, src) = (vec![0, 0, 0, 7], vec![0, 0, 0, 2]);
    let case = |arrived: u64, since: u64, me_home: u8| {
        let mut l = Line::new(8);
        l.hold(at(1), at(0), 1, 3, now, ACTIVE);
        l.buf[at(1) as usize].mark_sides(1);
        l.hold(at(2), at(1), 1, 2, now, ACTIVE);
        l.hold(at(3), at(2), 1, 0, now, ACTIVE);
        (l.flows.arrived[M as usize], l.flows.since) = (arrived, since);
        l.flows.entering.push((M, at(3)));
        let home = [0, 0, me_home];
        let s = split_shape(&l, &holders, 1, &created, &src, &home);
        let Line {
            buf,
            chans,
            flows,
            active,
            ..
        } = &mut l;
        flows.end(buf, chans, active, &[], now, s);
        (flows.flag[M as usize], flows.rear[M as usize])
    };
    assert_eq!(case(7, 7, 0), (FLOWING, at(1)));
    assert_eq!(case(7, 7, 1), (STILL, NONE));
    assert_eq!(case(!7, 0, 0), (STILL, NONE));
    assert_eq!(case(7, 8, 0), (STILL, NONE));
}

/// `end` in a split cycle: a worm whose rear another partition feeds stops flowing when that
/// rear did not send, and forgets the rear once its tail has passed it.
#[test]
fn end_in_a_split_cycle_watches_the_rear_another_partition_feeds() {
    let now = 20;
    let holders = vec![0u8; 8];
    let (created, src, home) = (vec![0; 4], vec![0; 4], vec![0]);
    let case = |rear_last: u32, rear_msg: u32| {
        let mut l = Line::new(8);
        l.hold(at(1), at(0), 1, 9, rear_last, ACTIVE);
        l.buf[at(1) as usize].mark_sides(1);
        l.buf[at(1) as usize].msg = rear_msg;
        l.hold(at(2), at(1), 1, 5, 16, FLOW);
        l.hold(at(3), at(2), 1, 6, now, ACTIVE);
        l.buf[at(3) as usize].out_chan = 8;
        l.flowing(SENT, at(3));
        l.flows.rear[M as usize] = at(1);
        let s = split_shape(&l, &holders, 0, &created, &src, &home);
        let Line {
            buf,
            chans,
            flows,
            active,
            ..
        } = &mut l;
        flows.end(buf, chans, active, &[], now, s);
        let m = M as usize;
        (l.flows.flag[m], l.flows.rear[m], l.rec(at(2)))
    };
    // The rear sent: the worm flows on.
    assert_eq!(case(now, M), (FLOWING, at(1), (1, 5, 16, FLOW)));
    // It did not: the FLOW buffer it feeds sent its flit and received none.
    assert_eq!(case(now - 1, M), (STILL, at(1), (0, 9, now, IDLE)));
    // Its tail has passed it (the buffer is free): the worm has no such rear any more.
    assert_eq!(case(now, NONE), (FLOWING, NONE, (1, 5, 16, FLOW)));
}
