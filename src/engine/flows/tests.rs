//! The flowing worms' state machine, transition by transition: on hand-built buffers and
//! channels, calling `Flows` directly, and on tiny networks stepped cycle by cycle through the
//! engine. Every expected count is what moving each flit one hop at a time gives: a message
//! injected from cycle t0 has its flit j (from 1) cross hop k (0 the injection channel, then
//! the links, then the ejection channel) in cycle t0 + j - 1 + k (paper 000: the head crosses
//! one link a cycle, the tail M - 1 cycles behind).

use super::*;
use crate::engine::parts::ASLEEP;
use crate::engine::{Engine, build_engine_with};
use crate::scenario::Scenario;
use crate::topology::Dir;

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
        let chan = Chan::idle();
        let mut flows = Flows {
            on: true,
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

    /// `Flows::end` for cycle `now` on one thread, `asked` having asked for a channel.
    fn end(&mut self, asked: &[u32], now: u32) {
        self.end_in(asked, now, self.shape());
    }

    /// `Flows::end` for cycle `now`, the walks' shape `s`.
    fn end_in(&mut self, asked: &[u32], now: u32, s: Shape) {
        let Line {
            buf,
            chans,
            flows,
            active,
            ..
        } = self;
        flows.end(buf, chans, active, asked, now, s);
    }

    /// `Flows::start` for cycle `now`, `asked` having asked in step 2: the buffers pulled.
    fn start(&mut self, asked: &[u32], now: u32, s: Shape) -> Vec<u32> {
        let mut pull = Vec::new();
        let Line {
            buf, chans, flows, ..
        } = self;
        flows.start(buf, chans, &mut pull, asked, now, s);
        pull
    }

    /// `Flows::arrival` of message `M`'s header at the end of cycle `now`.
    fn arrival(&mut self, now: u32, s: Shape) {
        let Line {
            buf,
            chans,
            flows,
            active,
            ..
        } = self;
        flows.arrival(buf, chans, active, M, now, s);
    }

    /// A visit to buffer `b` in cycle `now`: whether it is inside, and its count after.
    fn visit(&mut self, b: u32, now: u32) -> (bool, u16) {
        let cur = self.buf[b as usize];
        let t = cur.out_buf(self.channels, VCS);
        let no_up = self.no_up();
        let inside = self
            .flows
            .visit(&mut self.buf, b as usize, &cur, t, now, no_up);
        (inside, self.buf[b as usize].cnt)
    }
}

/// The flit counters of a line of `channels` channels: `counts` (channel, flits), 0 elsewhere.
fn counters(channels: u32, counts: &[(u32, u32)]) -> Vec<u32> {
    let mut v = vec![0; channels as usize + 1];
    for &(c, n) in counts {
        v[c as usize] = n;
    }
    v
}

/// A visit counts the flit of a FLOW feeder stamped before this cycle, and tells inside buffers.
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
    // Fed by a FLOW buffer stamped before this cycle: one flit more, and inside.
    assert_eq!(build(FLOWING).visit(at(4), 11), (true, 2));
    // Fed by a FLOW buffer that became FLOW this cycle (stamp `now`): nothing counted.
    assert_eq!(build(FLOWING).visit(at(4), 10), (true, 1));
    // Fed by a buffer that is not FLOW: inside, nothing counted.
    assert_eq!(build(FLOWING).visit(at(5), 11), (true, 1));
    // The rear (its feeder the sentinel) is not inside.
    assert_eq!(build(FLOWING).visit(at(1), 11), (false, 1));
    // Once the front has sent (SENT), a buffer counts its flit but is not made FLOW.
    assert_eq!(build(SENT).visit(at(4), 11), (false, 2));
    // A buffer feeding the ejection channel counts its flit but is never inside.
    let mut l = build(FLOWING);
    l.buf[at(4) as usize].out_chan = 8;
    assert_eq!(l.visit(at(4), 11), (false, 2));
    // A still worm: not inside, nothing counted.
    assert_eq!(build(STILL).visit(at(4), 11), (false, 1));
}

/// A visit to a buffer fed from another partition neither counts a flit nor calls it inside.
#[test]
fn a_visit_never_reads_a_feeder_in_another_partition() {
    let mut l = Line::new(8);
    l.hold(at(2), at(1), 1, 3, 8, FLOW);
    l.hold(at(3), at(2), 1, 2, 9, ACTIVE);
    l.buf[at(3) as usize].mark_sides(1);
    l.flowing(FLOWING, at(4));
    assert_eq!(l.visit(at(3), 10), (false, 1));
}

/// `stop` flags the worm BROKEN and lists it with the buffer given.
#[test]
fn stop_flags_the_worm_broken_and_lists_its_buffer() {
    let mut l = Line::new(4);
    l.flowing(FLOWING, at(3));
    l.flows.stop(M, at(2));
    assert_eq!(l.flows.flag[M as usize], BROKEN);
    assert_eq!(l.flows.broken, vec![(M, at(2))]);
}

/// `fit` grows the columns with STILL, NONE and no arrival, keeps what they hold, never shrinks.
#[test]
fn fit_grows_the_columns_and_keeps_what_they_hold() {
    let mut f = Flows::default();
    f.fit(2);
    assert_eq!(f.flag, vec![STILL; 2]);
    assert_eq!(f.front, vec![NONE; 2]);
    assert_eq!(f.rear, vec![NONE; 2]);
    assert_eq!(f.arrived, vec![0; 2]);
    (f.flag[1], f.front[1], f.rear[1], f.arrived[1]) = (FLOWING, 7, 5, 12);
    f.fit(4);
    assert_eq!(f.flag, vec![STILL, FLOWING, STILL, STILL]);
    assert_eq!(f.front, vec![NONE, 7, NONE, NONE]);
    assert_eq!(f.rear, vec![NONE, 5, NONE, NONE]);
    assert_eq!(f.arrived, vec![0, 12, 0, 0]);
    f.fit(1);
    assert_eq!(f.flag.len(), 4);
}

/// `forget` leaves every flag STILL, no rear, worm or FLOW buffer, and `since` the cycle given.
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

/// `fronts` lists the fronts of the worms whose flag is not STILL.
#[test]
fn fronts_are_those_of_the_worms_not_still() {
    let mut f = Flows::default();
    f.fit(4);
    f.worms = vec![0, 2, 3];
    (f.flag[0], f.flag[2], f.flag[3]) = (FLOWING, STILL, SENT);
    (f.front[0], f.front[2], f.front[3]) = (10, 20, 30);
    assert_eq!(f.fronts().collect::<Vec<_>>(), vec![10, 30]);
}

/// `bring_up` adds a flit sent a cycle since the stamp, `counting` to the channel, past a wrap.
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

/// `enter` admits a worm only if each buffer inside is ACTIVE, holds one flit and sent this cycle.
#[test]
fn enter_admits_a_worm_only_if_each_buffer_inside_sent_and_holds_one() {
    // The rear (fed by a source, or holding the tail) is not tested; Some(NONE) on one thread.
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

/// `enter` admits a worm with 65 buffers inside and refuses one with 66.
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

/// `enter` names as rear a buffer another partition feeds, and refuses a header held in one.
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

/// `end` makes a worm FLOWING, its front the header's buffer, when `enter` admits it.
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

/// `end` starts no worm whose header left again or whose buffer another message holds now.
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

/// `end` keeps a worm whose front sent (SENT) flowing, its FLOW buffers and counters untouched.
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

/// `end` settles a worm whose header did not move: FLOW buffers sent a flit a cycle since stamped.
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

/// `end` settles a worm whose ejecting front lost its channel, each FLOW buffer still holding one.
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

/// `end` settles a worm whose rear did not send, the FLOW buffer it fed left empty and untracked.
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

/// `end` takes no flit from a buffer turned FLOW this cycle when the rear feeding it did not send.
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

/// `end` makes a FLOW buffer the tail reached the worm's rear, brought up to date; it flows on.
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

/// `start` stops a worm whose channel a header asked for: FLOW buffers up to last cycle, pulled.
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
    // Another message's header (channel 6, virtual channel 1) asks for channel 3, at(2)'s.
    let h = at(6) + 1;
    (l.buf[h as usize].msg, l.buf[h as usize].out_chan) = (M + 1, 3);
    let pull = l.start(&[h], now, l.shape());
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert_eq!(pull, vec![at(2), at(3)]);
    assert_eq!(l.rec(at(2)), (1, 6, 14, ACTIVE));
    assert_eq!(l.rec(at(3)), (1, 4, 14, ACTIVE));
    assert_eq!(l.rec(at(4)), (1, 5, 14, ACTIVE));
    assert_eq!(l.flits(), counters(8, &[(3, 3), (4, 2)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 9]));
}

/// `start` leaves a flowing worm alone when the channel asked for is not one it flows on.
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
    let pull = l.start(&[h], 15, l.shape());
    assert_eq!(l.flows.flag[M as usize], FLOWING);
    assert!(pull.is_empty());
    assert_eq!(l.rec(at(2)), (1, 3, 11, FLOW));
    assert_eq!(l.flows.bufs, 1);
}

/// `start` has a front that left the partition count the flit of its FLOW feeder stamped before.
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
        let pull = l.start(&[], 15, s);
        assert!(l.flows.leaving.is_empty() && pull.is_empty());
        l.buf[at(4) as usize].cnt
    };
    assert_eq!(case(12, FLOWING), 2);
    assert_eq!(case(15, FLOWING), 1);
    assert_eq!(case(12, STILL), 1);
}

/// `arrival` notes the creation cycle, then its complement, and settles a part flowing here.
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
    l.arrival(now, s);
    assert_eq!(l.flows.arrived[M as usize], 10);
    assert_eq!(l.flows.flag[M as usize], STILL);
    assert_eq!(l.rec(at(4)), (1, 7, now, ACTIVE));
    assert_eq!(l.rec(at(5)), (1, 8, now, ACTIVE));
    assert_eq!(l.rec(at(6)), (1, 8, now, ACTIVE));
    assert_eq!(l.flits(), counters(10, &[(5, 4), (6, 3)]));
    assert_eq!((l.flows.bufs, l.marks()), (0, vec![0; 11]));
    assert_eq!(l.members(), vec![at(4), at(5)]);
    l.arrival(now + 3, s);
    assert_eq!(l.flows.arrived[M as usize], !10);
    l.arrival(now + 5, s);
    assert_eq!(l.flows.arrived[M as usize], !10);
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

/// `end` starts a worm fed by another partition only if it has had no other part in this one.
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
        l.end_in(
            &[],
            now,
            split_shape(&l, &holders, 1, &created, &src, &home),
        );
        (l.flows.flag[M as usize], l.flows.rear[M as usize])
    };
    assert_eq!(case(8, 7, 0), (FLOWING, at(1)));
    assert_eq!(case(8, 7, 1), (STILL, NONE));
    assert_eq!(case(!8, 0, 0), (STILL, NONE));
    assert_eq!(case(8, 8, 0), (STILL, NONE));
    assert_eq!(case(0, 0, 0), (STILL, NONE), "never arrived");
}

/// `end` stops a worm whose rear another partition feeds if it did not send; forgets it once past.
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
        l.end_in(
            &[],
            now,
            split_shape(&l, &holders, 0, &created, &src, &home),
        );
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

// Engines on tiny networks, stepped cycle by cycle.

/// An engine on `topology` with `vcs` buffers of `depth` flits a channel, dimension-order
/// routing, no sources (messages only through `send`) and the one-pass cycle, whose worms may
/// flow (`flows`); split into two partitions run in turn when `split`.
fn engine(topology: &str, vcs: u32, depth: u32, flows: bool, split: bool) -> Engine {
    let text = format!(
        "name = \"flows\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\n\
         buffer_depth = {depth}\n[routing]\nalgorithm = \"dor\"\n[traffic]\n\
         message_length = 4\nflit_rates = [0.1]\n"
    );
    let s = Scenario::from_toml(&text, "flows.toml").expect("a valid scenario");
    let mut e = build_engine_with(&s, 0.0, 1, |c| {
        c.prefetch = Some(true);
        c.flows = flows;
        if split {
            c.threads = 2;
            c.in_turn = true;
        }
    });
    e.log_deliveries = true;
    e
}

/// A line of 6 routers (a 1-D mesh), as `engine`.
fn line_engine(vcs: u32, depth: u32, flows: bool, split: bool) -> Engine {
    engine("kind = \"mesh\"\nk = 6\nn = 1", vcs, depth, flows, split)
}

/// The channel leaving router `r` going + in dimension 0.
fn plus(e: &Engine, r: u32) -> u32 {
    e.net.cube().out_link(r, 0, Dir::Plus)
}

/// Sends the same message on both engines of a lockstep test.
fn send_both(e: &mut Engine, plain: &mut Engine, src: u32, dst: u32, len: u16) {
    for x in [e, plain] {
        x.send(src, dst, len);
    }
}

/// Each delivered message's source and ejection cycle, in delivery order.
fn ejections(e: &Engine) -> Vec<(u32, u64)> {
    e.deliveries.iter().map(|d| (d.src, d.eject)).collect()
}

/// The path of a message from processor `src` going + for `h` hops: its hops' channels (the
/// injection channel, the links, the ejection channel), and the buffers its hops enter on
/// virtual channel `vc(k)` for hop k (the injection buffer, then one per link).
fn path(e: &Engine, src: u32, h: u32, vc: impl Fn(u32) -> u32) -> (Vec<u32>, Vec<u32>) {
    let routers = e.net.routers() as u32;
    let mut chans = vec![e.net.injection_channel(src)];
    chans.extend((0..h).map(|i| plus(e, (src + i) % routers)));
    chans.push(e.net.ejection_channel((src + h) % routers));
    let bufs = (0..=h)
        .map(|k| chans[k as usize] * e.net.vcs + vc(k))
        .collect();
    (chans, bufs)
}

/// Flits of a message of `len` flits injected from cycle `t0` that have crossed hop `k` by
/// the end of cycle `c` (flit j crosses it in cycle t0 + j - 1 + k).
fn crossed(c: u64, t0: u64, len: u64, k: u64) -> u64 {
    (c + 1).saturating_sub(t0 + k).min(len)
}

/// Whether buffer `b` is in state FLOW.
fn is_flow(e: &Engine, b: u32) -> bool {
    e.bufs.buf[b as usize].state == FLOW
}

/// The buffers of `bufs` in state FLOW, by hop.
fn flow_hops(e: &Engine, bufs: &[u32]) -> Vec<usize> {
    (0..bufs.len()).filter(|&k| is_flow(e, bufs[k])).collect()
}

/// After cycle `c`, every buffer of a lone message's path (`bufs`, with `chans`) holds and has
/// sent what moving one flit a hop a cycle gives, and every channel has carried as many.
fn assert_moved_one_hop_a_cycle(
    e: &Engine,
    (chans, bufs): (&[u32], &[u32]),
    c: u64,
    (t0, len): (u64, u64),
) {
    let flits = e.c_flits();
    for (k, &b) in bufs.iter().enumerate() {
        let (got, sent) = (
            crossed(c, t0, len, k as u64),
            crossed(c, t0, len, k as u64 + 1),
        );
        assert_eq!(
            (e.buffer_flits(b) as u64, e.buffer_sent(b) as u64),
            (got - sent, sent),
            "after cycle {c}: hop {k}'s buffer {b}'s flits and flits sent"
        );
    }
    for (k, &ch) in chans.iter().enumerate() {
        let want = crossed(c, t0, len, k as u64);
        assert_eq!(
            flits[ch as usize], want,
            "after cycle {c}: hop {k}'s channel"
        );
    }
}

/// A lone worm moves one hop a cycle; hop k is FLOW from cycle k + 2 until its tail arrives.
#[test]
fn a_lone_worm_flows_as_one_hop_a_cycle_gives() {
    // 6 flits from node 0 to node 5: flit j crosses hop k in cycle j - 1 + k, the tail last in 11.
    let (len, h, t0) = (6u64, 5u64, 0u64);
    let mut e = line_engine(1, 2, true, false);
    e.send(0, 5, len as u16);
    let (chans, bufs) = path(&e, 0, h as u32, |_| 0);
    for c in 0..len + h + 3 {
        e.step();
        assert_moved_one_hop_a_cycle(&e, (&chans, &bufs), c, (t0, len));
        // Hop k's buffer below the front is FLOW from cycle t0 + k + 2 to t0 + len + k - 2.
        let want: Vec<usize> = (1..h as usize)
            .filter(|&k| t0 + k as u64 + 2 <= c && c < t0 + len + k as u64 - 1)
            .collect();
        assert_eq!(flow_hops(&e, &bufs), want, "after cycle {c}: FLOW hops");
        assert_eq!(e.flowing_buffers(), want.len() as u64, "after cycle {c}");
        let flows = t0 + 2 <= c && c < t0 + len + h;
        let flag = e.work.flows.flag[0];
        assert_eq!(flag, if flows { FLOWING } else { STILL }, "after {c}");
        assert_eq!(e.work.flows.worms, if flows { vec![0] } else { vec![] });
        if flows {
            let front = bufs[(c - t0).min(h) as usize];
            assert_eq!(e.work.flows.front[0], front, "after cycle {c}: the front");
        }
        e.check_invariants().unwrap();
    }
    assert_eq!(e.deliveries.len(), 1);
    let d = e.deliveries[0];
    assert_eq!((d.inject, d.eject, d.hops), (t0, t0 + len + h, h as u16));
}

/// Steps `e` and `plain` (the same network, no worm flowing) together over `cycles`: after
/// each, every buffer holds and has sent the same flits in both, every channel carried as
/// many, and `check` passes on `e`.
fn lockstep(
    e: &mut Engine,
    plain: &mut Engine,
    cycles: std::ops::Range<u64>,
    mut check: impl FnMut(&Engine, u64),
) {
    for c in cycles {
        e.step();
        plain.step();
        for b in 0..e.net.buffers() as u32 {
            assert_eq!(
                (e.buffer_flits(b), e.buffer_sent(b)),
                (plain.buffer_flits(b), plain.buffer_sent(b)),
                "after cycle {c}: buffer {b}"
            );
        }
        assert_eq!(e.c_flits(), plain.c_flits(), "after cycle {c}");
        e.check_invariants().unwrap();
        check(e, c);
    }
}

/// The FLOW hops `want` gives after cycle `c`, and as many buffers flowing.
fn assert_flow_hops(e: &Engine, bufs: &[u32], c: u64, want: &[usize]) {
    assert_eq!(flow_hops(e, bufs), want, "after cycle {c}: FLOW hops");
    assert_eq!(e.flowing_buffers(), want.len() as u64, "after cycle {c}");
}

/// Buffer `b`'s (flits, flits sent, state).
fn held(e: &Engine, b: u32) -> (u16, u16, u8) {
    let r = &e.bufs.buf[b as usize];
    (r.cnt, e.buffer_sent(b), r.state)
}

/// A header blocked in cycle 4 breaks its worm, settled exactly; it flows again from cycle 11.
#[test]
fn a_header_that_cannot_move_breaks_the_flow() {
    // A (message 0: 6 flits, 0 to 5) finds link 3 held by X (8 flits, 3 to 4) until cycle 9.
    let mut e = line_engine(1, 2, true, false);
    let mut plain = line_engine(1, 2, false, false);
    for x in [&mut e, &mut plain] {
        x.send(0, 5, 6);
        x.send(3, 4, 8);
    }
    let (chans, bufs) = path(&e, 0, 5, |_| 0);
    lockstep(&mut e, &mut plain, 0..20, |e, c| {
        let flowing = (2..4).contains(&c) || (11..17).contains(&c);
        let flag = e.work.flows.flag[0];
        assert_eq!(flag, if flowing { FLOWING } else { STILL }, "after {c}");
        let want: &[usize] = match c {
            3 => &[1],
            12 => &[2, 3, 4],
            13 => &[3, 4],
            14 => &[4],
            _ => &[],
        };
        assert_flow_hops(e, &bufs, c, want);
        if c == 4 {
            // Hops 1 and 2 (FLOW since cycles 3 and 4) settled; the header's buffer holds two.
            assert_eq!(held(e, bufs[0]), (1, 4, ACTIVE));
            assert_eq!(held(e, bufs[1]), (1, 3, ACTIVE));
            assert_eq!(held(e, bufs[2]), (1, 2, ACTIVE));
            assert_eq!(held(e, bufs[3]), (2, 0, ASLEEP));
            let flits = e.c_flits();
            let got: Vec<u64> = chans[..4].iter().map(|&c| flits[c as usize]).collect();
            assert_eq!(got, [5, 4, 3, 2]);
            assert!(e.arbiters.chan.iter().all(|c| c.flow == 0));
            assert!(e.work.flows.worms.is_empty());
        }
        if c == 11 {
            assert_eq!(e.work.flows.front[0], bufs[5], "the front after cycle 11");
        }
    });
    let ejected = ejections(&e);
    // X's tail leaves link 3's buffer in cycle 9; A's header moves on in 10, its tail out in 17.
    assert_eq!(ejected, [(3, 9), (0, 17)]);
}

/// A rear losing its channel in cycle 7 breaks its worm, emptying the FLOW buffer it fed.
#[test]
fn a_rear_that_loses_its_channel_breaks_the_flow() {
    // A (message 0: 6 flits, 0 to 5); Y (2 flits, 1 to 2), sent in 6, wins A's rear's link in 7.
    let mut e = line_engine(2, 2, true, false);
    let mut plain = line_engine(2, 2, false, false);
    send_both(&mut e, &mut plain, 0, 5, 6);
    let (chans, bufs) = path(&e, 0, 5, |_| 0);
    lockstep(&mut e, &mut plain, 0..6, |_, _| {});
    send_both(&mut e, &mut plain, 1, 2, 2);
    lockstep(&mut e, &mut plain, 6..16, |e, c| {
        let want: &[usize] = if c == 6 { &[2, 3, 4] } else { &[] };
        assert_flow_hops(e, &bufs, c, want);
        assert_eq!(e.work.flows.flag[0], if c == 6 { FLOWING } else { STILL });
        if c == 7 {
            assert_eq!(held(e, bufs[1]), (1, 5, ACTIVE));
            assert_eq!(held(e, bufs[2]), (0, 5, IDLE));
            assert_eq!(held(e, bufs[3]), (1, 4, ACTIVE));
            assert_eq!(held(e, bufs[4]), (1, 3, ACTIVE));
            assert_eq!(held(e, bufs[5]), (1, 2, ACTIVE));
            let flits = e.c_flits();
            let got: Vec<u64> = chans[2..].iter().map(|&c| flits[c as usize]).collect();
            assert_eq!(got, [6, 5, 4, 3, 2]);
            // Y's header took the channel's other virtual channel.
            let y = bufs[2] + 1;
            assert_eq!(
                (e.bufs.buf[y as usize].msg, held(e, y)),
                (1, (1, 0, ACTIVE))
            );
        }
    });
    let ejected = ejections(&e);
    // A's tail crosses link 1 a cycle late (8), Y's in 9.
    assert_eq!(ejected, [(1, 10), (0, 12)]);
}

/// A buffer about to turn FLOW losing its channel in cycle 3 breaks its worm for good.
#[test]
fn a_buffer_about_to_turn_flow_that_loses_its_channel_breaks_the_flow() {
    // A (message 0: 6 flits, 0 to 5) flows after cycle 2; Y (1 to 2), sent in 2, wins link 1 in 3.
    let mut e = line_engine(2, 2, true, false);
    let mut plain = line_engine(2, 2, false, false);
    send_both(&mut e, &mut plain, 0, 5, 6);
    let (chans, bufs) = path(&e, 0, 5, |_| 0);
    lockstep(&mut e, &mut plain, 0..2, |_, _| {});
    send_both(&mut e, &mut plain, 1, 2, 2);
    lockstep(&mut e, &mut plain, 2..16, |e, c| {
        assert_flow_hops(e, &bufs, c, &[]);
        assert_eq!(e.work.flows.flag[0], if c == 2 { FLOWING } else { STILL });
        if c == 3 {
            assert_eq!(held(e, bufs[0]), (1, 3, ACTIVE));
            assert_eq!(held(e, bufs[1]), (2, 1, ACTIVE));
            assert_eq!(held(e, bufs[2]), (0, 1, IDLE));
            assert_eq!(held(e, bufs[3]), (1, 0, ACTIVE));
            let flits = e.c_flits();
            let got: Vec<u64> = chans[..4].iter().map(|&c| flits[c as usize]).collect();
            assert_eq!(got, [4, 3, 2, 1]);
            assert!(e.work.flows.worms.is_empty());
        }
    });
    let ejected = ejections(&e);
    // A and Y take link 1 in turn in cycles 3 to 5 (Y, A, Y); A's tail then trails by 2 cycles.
    assert_eq!(ejected, [(1, 6), (0, 13)]);
}

/// A header asking for a flowing channel in cycle 7 stops that worm before any body moves.
#[test]
fn a_header_asking_for_a_flowing_channel_stops_the_worm() {
    // A (message 0: 8 flits, 0 to 5) has 4 FLOW buffers after cycle 6; Y (1 to 2) asks link 1 in 7.
    let mut e = line_engine(2, 2, true, false);
    let mut plain = line_engine(2, 2, false, false);
    send_both(&mut e, &mut plain, 0, 5, 8);
    let (chans, bufs) = path(&e, 0, 5, |_| 0);
    lockstep(&mut e, &mut plain, 0..6, |_, _| {});
    send_both(&mut e, &mut plain, 1, 2, 2);
    lockstep(&mut e, &mut plain, 6..18, |e, c| {
        let want: &[usize] = if c == 6 { &[1, 2, 3, 4] } else { &[] };
        assert_flow_hops(e, &bufs, c, want);
        assert_eq!(e.work.flows.flag[0], if c == 6 { FLOWING } else { STILL });
        if c == 7 {
            assert_eq!(held(e, bufs[0]), (1, 7, ACTIVE));
            assert_eq!(held(e, bufs[1]), (2, 5, ACTIVE));
            assert_eq!(held(e, bufs[2]), (0, 5, IDLE));
            assert_eq!(held(e, bufs[3]), (1, 4, ACTIVE));
            assert_eq!(held(e, bufs[4]), (1, 3, ACTIVE));
            assert_eq!(held(e, bufs[5]), (1, 2, ACTIVE));
            let flits = e.c_flits();
            let got: Vec<u64> = chans.iter().map(|&c| flits[c as usize]).collect();
            assert_eq!(got, [8, 7, 6, 5, 4, 3, 2]);
        }
    });
    let ejected = ejections(&e);
    // Link 1 goes to Y, A, Y, A, A in cycles 7 to 11: A's tail crosses it in 11, 2 cycles late.
    assert_eq!(ejected, [(1, 10), (0, 15)]);
}

/// A window opened and closed, then flows turned off, while a worm flows, count and settle exactly.
#[test]
fn windows_and_turning_flows_off_settle_flowing_buffers_exactly() {
    // 12 flits from node 0 to node 5; 4 FLOW buffers from cycle 6 to 11.
    let (len, h, t0) = (12u64, 5u64, 0u64);
    let mut e = line_engine(1, 2, true, false);
    e.send(0, 5, len as u16);
    let (chans, bufs) = path(&e, 0, h as u32, |_| 0);
    let moved = |e: &Engine, c: u64| assert_moved_one_hop_a_cycle(e, (&chans, &bufs), c, (t0, len));
    for c in 0..=6 {
        e.step();
        moved(&e, c);
    }
    assert_flow_hops(&e, &bufs, 6, &[1, 2, 3, 4]);
    e.open_window();
    for (k, &b) in (1u64..).zip(&bufs[1..=4]) {
        let r = &e.bufs.buf[b as usize];
        assert_eq!((r.state, r.last), (FLOW, 6), "hop {k}");
        assert_eq!(r.sent as u64, crossed(6, t0, len, k + 1), "hop {k}");
    }
    assert!(e.c_flits().iter().all(|&f| f == 0));
    let window: Vec<u64> = (0..chans.len() as u64)
        .map(|k| crossed(9, t0, len, k) - crossed(6, t0, len, k))
        .collect();
    let counted = |e: &Engine| -> Vec<u64> {
        let flits = e.c_flits();
        chans.iter().map(|&c| flits[c as usize]).collect()
    };
    for c in 7..=9 {
        e.step();
        assert_flow_hops(&e, &bufs, c, &[1, 2, 3, 4]);
    }
    assert_eq!(counted(&e), window);
    e.close_window();
    for c in 10..=11 {
        e.step();
        let sent: Vec<u64> = bufs.iter().map(|&b| e.buffer_sent(b) as u64).collect();
        let want: Vec<u64> = (1..=bufs.len() as u64)
            .map(|k| crossed(c, t0, len, k))
            .collect();
        assert_eq!(sent, want, "after cycle {c}");
        assert_flow_hops(&e, &bufs, c, &[1, 2, 3, 4]);
    }
    assert_eq!(counted(&e), window);
    e.stop_flows();
    assert_flow_hops(&e, &bufs, 11, &[]);
    for (k, &b) in bufs.iter().enumerate() {
        let r = &e.bufs.buf[b as usize];
        let got = crossed(11, t0, len, k as u64) - crossed(11, t0, len, k as u64 + 1);
        assert_eq!(r.sent as u64, crossed(11, t0, len, k as u64 + 1), "hop {k}");
        assert_eq!((r.cnt as u64, r.state), (got, ACTIVE), "hop {k}");
    }
    assert_eq!((e.work.flows.flag[0], e.work.flows.since), (STILL, 12));
    assert!(e.work.flows.worms.is_empty());
    e.check_invariants().unwrap();
    for c in 12..len + h + 2 {
        e.step();
        let sent: Vec<u64> = bufs.iter().map(|&b| e.buffer_sent(b) as u64).collect();
        let want: Vec<u64> = (1..=bufs.len() as u64)
            .map(|k| crossed(c, t0, len, k))
            .collect();
        assert_eq!(sent, want, "after cycle {c}");
        assert_flow_hops(&e, &bufs, c, &[]);
        e.check_invariants().unwrap();
    }
    assert_eq!(counted(&e), window);
    assert_eq!(e.deliveries[0].eject, t0 + len + h);
}

/// Message `m`'s (flag, front, rear, arrival) in the partition holding buffer `b`.
fn part_flow(e: &Engine, b: u32, m: usize) -> (u8, u32, u32, u64) {
    let f = e.split.as_ref().unwrap().flows_of(b, e.net.vcs);
    (f.flag[m], f.front[m], f.rear[m], f.arrived[m])
}

/// A worm across two partitions moves one hop a cycle, each part flowing with its own front, rear,
/// whether its message was created in the first cycle or later.
#[test]
fn a_worm_across_two_partitions_flows_in_each() {
    worm_across_two_partitions(0);
    worm_across_two_partitions(1);
}

/// [`a_worm_across_two_partitions_flows_in_each`], the message created after `warm` cycles.
fn worm_across_two_partitions(warm: u64) {
    // 10 flits from node 0 to node 5; partition 0 holds routers 0-2.
    let (len, h) = (10u64, 5u64);
    let mut e = line_engine(1, 2, true, true);
    assert_eq!(e.partition_starts(), Some(&[0, 3][..]));
    for _ in 0..warm {
        e.step();
    }
    let t0 = e.cycle;
    e.send(0, 5, len as u16);
    let (chans, bufs) = path(&e, 0, h as u32, |_| 0);
    for c in t0..t0 + len + h + 2 {
        e.step();
        assert_moved_one_hop_a_cycle(&e, (&chans, &bufs), c, (t0, len));
        let want: Vec<usize> = [(1, t0 + 3, t0 + len), (4, t0 + 6, t0 + len + 3)]
            .iter()
            .filter(|&&(_, from, to)| from <= c && c < to)
            .map(|&(k, _, _)| k)
            .collect();
        assert_flow_hops(&e, &bufs, c, &want);
        let p0 = part_flow(&e, bufs[0], 0);
        let flows0 = t0 + 2 <= c && c < t0 + len + 2;
        assert_eq!(p0.0, if flows0 { FLOWING } else { STILL }, "after {c}");
        if flows0 {
            assert_eq!((p0.1, p0.2), (bufs[2], NONE), "after cycle {c}");
        }
        assert_eq!(p0.3, 0, "after cycle {c}: never arrived in partition 0");
        let p1 = part_flow(&e, bufs[5], 0);
        let flows1 = t0 + 5 <= c && c < t0 + len + h;
        assert_eq!(p1.0, if flows1 { FLOWING } else { STILL }, "after {c}");
        if flows1 {
            let rear = if c < t0 + len + 3 { bufs[3] } else { NONE };
            assert_eq!((p1.1, p1.2), (bufs[5], rear), "after cycle {c}");
        }
        let arrived = if c >= t0 + 3 { t0 + 1 } else { 0 };
        assert_eq!(p1.3, arrived, "after cycle {c}: its header's arrival");
        e.check_invariants().unwrap();
    }
    assert_eq!(e.deliveries[0].eject, t0 + len + h);
}

/// Moving the boundaries while a worm's two parts flow settles its FLOW buffers exactly.
#[test]
fn moving_the_boundaries_settles_the_flowing_parts() {
    // 10 flits from node 0 to node 5, created in cycle 1; the boundary moves after cycle 8.
    let (len, h) = (10u64, 5u64);
    let mut e = line_engine(1, 2, true, true);
    e.step();
    let t0 = e.cycle;
    e.send(0, 5, len as u16);
    let (chans, bufs) = path(&e, 0, h as u32, |_| 0);
    for c in t0..=t0 + 7 {
        e.step();
        assert_moved_one_hop_a_cycle(&e, (&chans, &bufs), c, (t0, len));
    }
    assert_flow_hops(&e, &bufs, t0 + 7, &[1, 4]);
    e.repartition(&[0, 2]);
    assert_flow_hops(&e, &bufs, t0 + 7, &[]);
    for (k, &b) in bufs.iter().enumerate() {
        let r = &e.bufs.buf[b as usize];
        let sent = crossed(t0 + 7, t0, len, k as u64 + 1);
        assert_eq!((r.sent as u64, r.state), (sent, ACTIVE), "hop {k}");
        assert_eq!(part_flow(&e, b, 0).0, STILL, "hop {k}");
    }
    e.check_invariants().unwrap();
    for c in t0 + 8..t0 + len + h + 2 {
        e.step();
        assert_moved_one_hop_a_cycle(&e, (&chans, &bufs), c, (t0, len));
        e.check_invariants().unwrap();
    }
    assert_eq!(e.deliveries[0].eject, t0 + len + h);
}

/// A header coming back into a partition in cycle 8 stops its part flowing there, settled exactly.
#[test]
fn a_header_coming_back_to_a_partition_stops_its_flowing_part_there() {
    // 12 flits from node 5 round a ring of 8 to node 4, created in cycle 1; partition 0 holds 0-3.
    let (len, h) = (12u64, 7u64);
    let ring = "kind = \"torus\"\nk = 8\nn = 1\nlinks = \"unidirectional\"";
    let mut e = engine(ring, 2, 2, true, true);
    assert_eq!(e.partition_starts(), Some(&[0, 4][..]));
    e.step();
    let t0 = e.cycle;
    e.send(5, 4, len as u16);
    // From the wrap-around link (its third hop) on, the upper dateline class.
    let (chans, bufs) = path(&e, 5, h as u32, |k| (k >= 3) as u32);
    for c in t0..t0 + len + h + 2 {
        e.step();
        assert_moved_one_hop_a_cycle(&e, (&chans, &bufs), c, (t0, len));
        let spans = [
            (1, t0 + 3, t0 + 7),
            (4, t0 + 6, t0 + len + 3),
            (5, t0 + 7, t0 + len + 4),
        ];
        let want: Vec<usize> = spans
            .iter()
            .filter(|&&(_, from, to)| from <= c && c < to)
            .map(|&(k, _, _)| k)
            .collect();
        assert_flow_hops(&e, &bufs, c, &want);
        let p1 = part_flow(&e, bufs[1], 0);
        let flows1 = t0 + 2 <= c && c < t0 + 7;
        assert_eq!(p1.0, if flows1 { FLOWING } else { STILL }, "after {c}");
        if flows1 {
            assert_eq!((p1.1, p1.2), (bufs[2], NONE), "after cycle {c}");
        }
        let back = if c >= t0 + 7 { t0 + 1 } else { 0 };
        assert_eq!(
            p1.3, back,
            "after cycle {c}: the header's arrival in partition 1"
        );
        let p0 = part_flow(&e, bufs[3], 0);
        let flows0 = t0 + 5 <= c && c < t0 + len + 6;
        assert_eq!(p0.0, if flows0 { FLOWING } else { STILL }, "after {c}");
        if flows0 {
            let rear = if c < t0 + len + 3 { bufs[3] } else { NONE };
            let front = bufs[(c - t0).min(6) as usize];
            assert_eq!((p0.1, p0.2), (front, rear), "after cycle {c}");
        }
        if c == t0 + 7 {
            let r = &e.bufs.buf[bufs[1] as usize];
            assert_eq!((r.cnt, r.sent, r.last, r.state), (1, 6, c as u32, ACTIVE));
        }
        e.check_invariants().unwrap();
    }
    assert_eq!(e.deliveries[0].eject, t0 + len + h);
}
