//! One point's cycle on several threads (`[run] threads_per_point`). The routers are split
//! into contiguous ranges of ids, one partition per thread. A partition owns the buffers its
//! routers hold (those of the links entering them), the channels leaving its routers with
//! their arbiters and wait lists, and its routers' selection streams. Under the start-of-cycle
//! rule the cycle's steps then split cleanly:
//! - requests: a buffer asks for a channel of its own router, and of other partitions' buffers
//!   reads only what no request writes (their message and flit count);
//! - grants: each partition injects its own sources' flits, then grants its own arbiters and
//!   moves its own buffers' flits. What a grant does beyond its winner (the flit arriving
//!   downstream, the upstream buffer's wake-up, a freed channel's waiting headers) is done at
//!   once when the partition holds that buffer or channel, as the one-thread cycle does, and
//!   else handed to the partition that holds it as an [`Effect`];
//! - effects: each partition applies those it was handed. They commute with one another and
//!   with the grants (a count raised, a state raised, a list woken), so the cycle ends in the
//!   state the one-thread cycle reaches, whatever the order.
//!
//! On a network larger than a cache the partitions run the one-pass cycle of
//! [`Engine::step`]: step 2 visits a partition's headers, and the bodies whose message leaves
//! for another partition's router (their downstream buffer is read before its holder's grants
//! change it); the grants then visit the partition's other bodies, each of which reads only
//! its own partition's records (its channel leaves, and its downstream buffer enters, one of
//! the partition's routers).
//!
//! Deliveries are handed on in arbiter order and the occupancy accounts summed, so results
//! are byte-identical whatever the thread count. Step 1's draws (the sources due, their
//! streams, their next arrivals) touch nothing a request does: the first thread done with its
//! requests makes them, and the messages drawn join their queues on the calling thread before
//! any injection. Deliveries stay on the calling thread (and injection, when a source may use
//! several injection buffers or channels: it then tracks buffers in the engine's own active
//! set, which the next cycle hands to the partitions).

mod boundaries;
mod effects;
pub mod profile;
mod requests;
mod sides;
use super::step::Outbox;
use boundaries::{Balance, Ends, even_starts, homes};
use effects::{TraverseCtx, apply_part, grant_part};
use profile::{Profiling, SplitProfile};
use requests::{RequestCtx, request_part};
pub(in crate::engine) use sides::Sides;

use super::Engine;
use super::crew::Crew;
use super::flows::Flows;
use super::injection::InjectCtx;
use super::messages::Messages;
use super::parts::{Buf, Chan, SLOT_BITS};
use super::route_ahead::RouteAhead;
use super::step::Working;
use crate::network::{NONE, Network};
use crate::records::{Owners, Shared};
use crate::routing::Candidates;
use rand_pcg::Pcg64;
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub use crate::threads::MAX_THREADS;

/// One partition's working state, on cache lines of its own (its counters change every
/// grant: sharing a line with the next partition's would make the threads trade it).
#[derive(Clone)]
#[repr(align(128))]
struct Part {
    /// Its working sets (`step::Working`): the buffers that may move (the engine's set only
    /// receives injection's), and in a one-pass cycle its headers and the buffers whose
    /// message leaves for another partition's router (both ask in step 2); its arbiters with
    /// a request; its channels' wait lists; its flowing worms, each wholly in the partition.
    work: Working,
    /// The routing's candidates (reused).
    cand: Candidates,
    /// One-pass cycle: its headers routed a few visits ahead.
    ahead: RouteAhead,
    /// The stream a routing with fixed candidates is handed, and never draws from.
    spare: Pcg64,
    /// Messages ejected whole this cycle, with the ejection channel's arbiter.
    delivered: Vec<(u32, u32)>,
    /// Its changes to the occupancy accounts this cycle (`occupancy::change`).
    hist: Vec<u64>,
    /// Flits moved this cycle.
    moved: u64,
    /// Flits ejected this cycle.
    ejected: u64,
    /// Flits injected this cycle, and messages whose tail was.
    injected: u64,
    finished: u64,
}

/// The cycle split across threads: the partitions, who holds what, and the threads.
#[derive(Clone)]
pub(super) struct Split {
    crew: Arc<Crew>,
    /// The first router of each partition.
    starts: Vec<u32>,
    /// The partitions holding each buffered channel's buffers (the router it enters) and
    /// owning it (the router it leaves: its upstream buffers, arbiter and wait list).
    sides: Sides,
    /// Each router's partition, for the debug build's ownership check (empty otherwise).
    routers: Vec<u8>,
    /// The partition injecting each node's messages (`u8::MAX` when several may).
    home: Vec<u8>,
    parts: Vec<Part>,
    /// Effects from partition i to partition j at `i * parts + j`.
    boxes: Vec<Outbox>,
    /// Where the cycle's time goes: each thread's share of each step, for the balance, and
    /// for [`Split::profile`] once asked for (`profiling`).
    profile: Box<Profiling>,
    profiling: bool,
    /// When the partitions' boundaries were last weighed against the threads' speeds.
    balance: Balance,
}

impl Split {
    /// `plan.threads` partitions of `net`'s routers, and as many threads (or the calling thread
    /// alone running them `in_turn`), with the buffers `buf` and channels `chans` of each
    /// channel that joins two partitions marked; None when the pool cannot start or a router
    /// has 2^10 driver slots or more (the point then runs on one thread, to the same results).
    pub fn new(
        net: &Network,
        plan: super::Plan,
        in_turn: bool,
        rng: &Pcg64,
        waits: bool,
        buf: &mut [Buf],
        chans: &mut [Chan],
    ) -> Option<Split> {
        let n = plan.threads.clamp(1, MAX_THREADS);
        if net.arb_drivers.iter().any(|&d| d > SLOT_BITS) {
            // A router of 2^10 driver slots or more: no bits are left to mark the sides with.
            return None;
        }
        let crew = if in_turn {
            Crew::in_turn(n)
        } else {
            Crew::new(n)?
        };
        let starts = even_starts(net.routers(), n);
        let nchans = net.buffers() / net.vcs as usize;
        let part = Part {
            work: Working::new(net, &plan, waits),
            cand: Candidates::default(),
            ahead: RouteAhead::default(),
            spare: rng.clone(),
            delivered: Vec::new(),
            hist: crate::stats::VcOccupancy::zero_accounts(net.vcs),
            moved: 0,
            ejected: 0,
            injected: 0,
            finished: 0,
        };
        let ends = Ends::new(net, &starts);
        let (holder, feeder) = (0..nchans as u32).map(|c| ends.sides(c)).unzip();
        let sides = Sides::new(holder, feeder);
        sides.mark(buf, chans, net.vcs);
        Some(Split {
            crew: Arc::new(crew),
            home: homes(net, &ends.part),
            starts,
            routers: router_table(&ends),
            sides,
            parts: vec![part; n],
            boxes: vec![Outbox(Vec::new()); n * n],
            profile: Box::new(Profiling::new(n)),
            profiling: false,
            balance: Balance::new(n),
        })
    }

    /// Puts buffer `b` (record `r`) in its partition's header set when step 2 visits it in a
    /// one-pass cycle: a header at its front, or a body whose message leaves the partition.
    fn weigh_head(&mut self, b: u32, r: &Buf, vcs: u32, bufchans: u32) {
        let me = self.sides.holder(b / vcs);
        let t = r.out_buf(bufchans, vcs);
        let header = r.sent == 0 && r.cnt > 0;
        let leaves = r.sent > 0 && t != NONE && self.sides.holder(t / vcs) != me;
        if r.msg != NONE && (header || leaves) {
            self.parts[me as usize].work.heads.insert(b);
        }
    }

    /// The first router of each partition.
    pub fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Threads (partitions).
    pub fn threads(&self) -> usize {
        self.crew.threads()
    }

    /// Starts profiling the cycle anew.
    pub fn start_profile(&mut self) {
        *self.profile = Profiling::new(self.threads());
        self.profiling = true;
        self.balance.restart();
    }

    /// The cycle's profile since [`Split::start_profile`], if started.
    pub fn profile(&self) -> Option<SplitProfile> {
        self.profiling.then(|| self.profile.profile.clone())
    }

    /// Calls `f` on every member of every partition's active set, with the partition's holder
    /// check: whether the member's buffer is the partition's.
    pub fn members(&self, vcs: u32, mut f: impl FnMut(u32, bool)) {
        for (i, p) in self.parts.iter().enumerate() {
            p.work
                .active
                .members(|b| f(b, self.sides.holder(b / vcs) as usize == i));
        }
    }

    /// Buffers in state FLOW in the partitions.
    pub(super) fn flow_bufs(&self) -> u64 {
        self.parts.iter().map(|p| p.work.flows.bufs).sum()
    }

    /// The partition that injects each node's messages (`u8::MAX` when several may): with one
    /// injection channel per processor, the partition holding each processor's router, as
    /// partitions that inject their own sources list them.
    pub(super) fn homes(&self) -> &[u8] {
        &self.home
    }

    /// Appends the fronts of every partition's flowing worms to `fronts`.
    pub(super) fn flow_fronts(&self, fronts: &mut Vec<u32>) {
        for p in &self.parts {
            fronts.extend(p.work.flows.fronts());
        }
    }

    /// Every worm has stopped flowing (its buffers settled by the caller).
    pub(super) fn forget_flows(&mut self, now: u64) {
        for p in &mut self.parts {
            p.work.flows.forget(now);
        }
    }

    /// The flowing worms of the partition holding buffer `b` (of `vcs` a channel).
    pub(super) fn flows_of(&self, b: u32, vcs: u32) -> &Flows {
        &self.parts[self.sides.holder(b / vcs) as usize].work.flows
    }

    /// Heap bytes of the partitions' state.
    pub fn heap_bytes(&self) -> u64 {
        use super::memory::vec_bytes;
        let parts: u64 = self
            .parts
            .iter()
            .map(|p| p.work.heap_bytes() + vec_bytes(&p.delivered) + vec_bytes(&p.hist))
            .sum();
        let boxes: u64 = self.boxes.iter().map(|b| vec_bytes(&b.0)).sum();
        parts + boxes + self.sides.heap_bytes() + vec_bytes(&self.home) + vec_bytes(&self.parts)
    }
}

impl Split {
    /// Splits each cycle of engine `e` into its plan's threads' partitions, run on as many
    /// threads or `in_turn` on the calling one, its sources listed by partition when each
    /// partition may inject its own; None as [`Split::new`] says.
    pub(super) fn start(e: &mut Engine, in_turn: bool) -> Option<Box<Split>> {
        let waits = e.work.waits.enabled;
        let (buf, chans) = (&mut e.bufs.buf, &mut e.arbiters.chan);
        let split = Split::new(&e.net, e.plan, in_turn, &e.rngs[0], waits, buf, chans)?;
        if e.sources.splittable(e.net.attach) {
            e.sources.partition(split.homes().to_vec(), split.threads());
        }
        Some(Box::new(split))
    }

    /// Runs one cycle of engine `e` on the partitions' threads (the cycle of
    /// [`Engine::step`], neither early free nor router and link timing being on; the split is
    /// taken out of `e` while it steps).
    pub(super) fn step(&mut self, e: &mut Engine) {
        let start = Instant::now();
        let one = e.plan.one_pass();
        let vcs = e.net.vcs;
        // Worms flow inside a partition as on one thread (`flows.rs`).
        for p in &mut self.parts {
            if p.work.flows.on {
                p.work.flows.fit(e.msgs.len.len());
            }
        }
        // Injection's buffers, tracked last cycle, go to their partitions.
        let (parts, sides) = (&mut self.parts, &self.sides);
        e.work
            .active
            .drain(|b| parts[sides.holder(b / vcs) as usize].work.active.add(b));
        if one {
            e.work
                .heads
                .drain(|b| parts[sides.holder(b / vcs) as usize].work.heads.insert(b));
        }
        // Step 1's draws run beside the requests (the first thread done with its own takes
        // them); the messages drawn then join their queues here, before any injection.
        match (e.net.shared, one) {
            (false, true) => self.requests::<false, true>(e),
            (false, false) => self.requests::<false, false>(e),
            (true, _) => self.requests::<true, false>(e),
        }
        e.queue_arrived();
        // Injection: each partition its own sources, before its grants (one message at a time
        // per source, one injection channel per processor), else here.
        let own = e.sources.splittable(e.net.attach);
        let injected = if own { 0 } else { e.inject() };
        let granted = match (e.net.shared, one) {
            (false, true) => self.grants::<false, true>(e, own),
            (false, false) => self.grants::<false, false>(e, own),
            (true, _) => self.grants::<true, false>(e, own),
        };
        e.moved = injected + granted;
        e.next_cycle();
        self.profile.end_cycle(start.elapsed().as_nanos() as u64);
        // The boundaries follow the threads' speeds (the results do not depend on them).
        if let Some(starts) = self.rebalance(e.net.routers()) {
            let start = Instant::now();
            self.move_boundaries(e, starts);
            self.repartitioned(start.elapsed());
        }
    }

    /// Moves the partition boundaries to `starts` between two cycles, engine `e`'s sources' lists
    /// with them.
    pub(super) fn move_boundaries(&mut self, e: &mut Engine, starts: Vec<u32>) {
        // A worm flows only inside one partition: the worms stop flowing first.
        e.settle_flows_in(Some(self));
        self.repartition(&e.net, starts, &mut e.bufs.buf, &mut e.arbiters.chan);
        e.sources.repartition(self.homes().to_vec());
    }

    /// Step 2 on the partitions' threads, and step 1's draws by the first thread done with
    /// its partition's requests (they touch nothing a request does).
    fn requests<const SHARED: bool, const ONE: bool>(&mut self, e: &mut Engine) {
        let (now, draining) = (e.cycle, e.drain_only);
        let draws = Mutex::new(Some((&mut e.sources, &mut e.traffic)));
        let ctx = RequestCtx {
            net: &e.net,
            routing: &e.routing,
            selection: e.selection,
            msgs: &e.msgs,
            sides: &self.sides,
            buf: Shared::new(&mut e.bufs.buf),
            chans: Shared::new(&mut e.arbiters.chan),
            drv_rr: Shared::new(&mut e.arbiters.drv_rr),
            rngs: Shared::new(&mut e.rngs),
            owners: self
                .sides
                .owners(e.net.vcs, e.net.shared, &self.routers, true),
            random_tie: e.random_tie,
            reply_vc: e.reply_vc,
            now: e.cycle as u32,
            far: e.plan.prefetch,
        };
        each_part(&self.crew, &mut self.parts, &mut self.profile, 0, |i, p| {
            request_part::<SHARED, ONE>(i as u8, p, &ctx);
            // A thread that finds the draws being taken or gone leaves them.
            if let Ok(mut draws) = draws.try_lock()
                && let Some((sources, traffic)) = draws.take()
            {
                sources.draw_arrivals(traffic, now, draining);
            }
        });
    }

    /// Step 4 on the partitions' threads (with step 3 when `inject`: each partition injects its
    /// own sources first): the grants, then their effects. Returns the flits moved (injected
    /// ones included).
    fn grants<const SHARED: bool, const ONE: bool>(&mut self, e: &mut Engine, inject: bool) -> u64 {
        let n = self.parts.len();
        let busy = e.occupancy.busy_mut();
        e.hops.fit(e.msgs.len.len());
        let (hops, classes) = e.hops.share();
        let Messages {
            inject: injected_at,
            len,
            next,
            created,
            src,
            ..
        } = &mut e.msgs;
        let sources = e.sources.shared(injected_at);
        let injection = InjectCtx {
            vcs: e.net.vcs,
            inj_vcs: e.net.inj_vcs,
            links: e.net.links,
            depth: e.net.depth,
            len,
            next,
            now: e.cycle,
            drain_only: e.drain_only,
            counting: e.arbiters.counting,
            far: e.plan.prefetch,
        };
        let ctx = TraverseCtx {
            inject: inject.then_some((&sources, &injection)),
            net: &e.net,
            sides: &self.sides,
            lens: len,
            buf: Shared::new(&mut e.bufs.buf),
            chans: Shared::new(&mut e.arbiters.chan),
            drv_rr: Shared::new(&mut e.arbiters.drv_rr),
            owners: {
                let (vcs, shared) = (e.net.vcs, e.net.shared);
                let [bufs, chans, _] = self.sides.owners(vcs, shared, &self.routers, false);
                [bufs, chans]
            },
            created,
            src,
            home: &self.home,
            busy: Shared::new(busy),
            hops,
            classes,
            boxes: Shared::new(&mut self.boxes),
            parts: n,
            cycle: e.cycle,
            far: e.plan.prefetch,
            counting: e.arbiters.counting,
        };
        let (parts, prof) = (&mut self.parts, &mut self.profile);
        // SAFETY: a partition grants its own arbiters and moves its own buffers' flits.
        each_part(&self.crew, parts, prof, 1, |i, p| unsafe {
            grant_part::<SHARED, ONE>(i, p, &ctx)
        });
        // SAFETY: a partition applies the effects on what it holds.
        each_part(&self.crew, parts, prof, 2, |j, p| unsafe {
            apply_part::<ONE>(j, p, &ctx)
        });
        let mut moved = 0;
        let mut ejected = 0;
        for p in parts.iter_mut() {
            moved += std::mem::take(&mut p.moved);
            ejected += std::mem::take(&mut p.ejected);
            let injected = std::mem::take(&mut p.injected);
            moved += injected;
            e.flits_in_net += injected;
            e.backlog -= std::mem::take(&mut p.finished);
            e.occupancy.add(&mut p.hist);
        }
        e.flits_in_net -= ejected;
        e.ejected_flits += ejected;
        // Deliveries in arbiter order, as one thread makes them.
        let mut next = [0usize; MAX_THREADS];
        loop {
            let mut best: Option<(u32, usize)> = None;
            for (i, p) in parts.iter().enumerate() {
                if let Some(&(a, _)) = p.delivered.get(next[i])
                    && best.is_none_or(|(b, _)| a < b)
                {
                    best = Some((a, i));
                }
            }
            let Some((_, i)) = best else { break };
            let m = parts[i].delivered[next[i]].1;
            next[i] += 1;
            e.deliver(m);
        }
        for p in parts.iter_mut() {
            p.delivered.clear();
        }
        moved
    }
}

/// Each router's partition for the debug build's ownership check; empty in a release build.
fn router_table(ends: &Ends) -> Vec<u8> {
    match cfg!(debug_assertions) {
        true => ends.part.clone(),
        false => Vec::new(),
    }
}

/// Runs `f` on every partition at once, partition i always on the crew's thread i (so that a
/// partition's working set stays in one core's cache), timing each share: step `step` of the
/// cycle for `prof`.
fn each_part(
    crew: &Crew,
    parts: &mut [Part],
    prof: &mut Profiling,
    step: usize,
    f: impl Fn(usize, &mut Part) + Sync,
) {
    let shared = Shared::new(parts);
    let share = |i: usize| {
        // SAFETY: thread i alone touches partition i.
        let mut mine = unsafe { shared.view(i as u8, Owners::UNCHECKED) };
        f(i, &mut mine[i]);
    };
    let start = Instant::now();
    let timer: &Profiling = prof;
    crew.run(&|i| timer.time_share(i, || share(i)));
    prof.end_step(step, start.elapsed().as_nanos() as u64);
}

/// The ownership check exists in debug builds only.
#[cfg(all(test, debug_assertions))]
mod tests {
    use super::effects::BREAK_THE_RULE;
    use crate::Scenario;
    use crate::engine::build_engine_with;

    /// The ownership check catches a broken rule: a partition's grants that write a buffer
    /// another partition holds panic in a debug build, naming both partitions.
    #[test]
    #[should_panic(expected = "which partition 1 holds in this phase")]
    fn a_write_to_another_partitions_buffer_is_caught() {
        let text = "name = \"rule\"\n[topology]\nkind = \"torus\"\nk = 8\nn = 2\n\
                    [router]\nvcs = 2\nbuffer_depth = 4\n[traffic]\nmessage_length = 4\n\
                    flit_rates = [0.1]\n";
        let s = Scenario::from_toml(text, "rule.toml").expect("a valid scenario");
        let mut e = build_engine_with(&s, 0.1 / 4.0, 1, |c| {
            c.threads = 2;
            c.in_turn = true;
        });
        assert_eq!(e.threads(), 2);
        for _ in 0..10 {
            e.step();
        }
        BREAK_THE_RULE.with(|b| b.set(true));
        e.step();
    }
}
