//! Shared m-way channels (paper 004 sections 2 and 3.4): at most one of the m drivers of a
//! channel drives it in a cycle; the channel arbiter is fair (round-robin over the drivers, then
//! over a buffer set's buffers), so a driver with a flit waits at most m - 1 grants of others;
//! and the traffic statistics: each flit crosses routers passed + 1 channels, so the mean
//! traffic per channel is the flit rate times the mean number of crossings, computed here by
//! enumeration of processor pairs over the model's BFS distances.

use crate::mway_common::{Model, Procs, Wrap, library_processors};
use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine, run_point};

/// For each engine channel that leaves an m-way channel (router buffer sets and ejection
/// channels), the m-way channel it leaves, from the model's processors and the link ends.
fn leaving_channel(model: &Model, e: &Engine) -> Vec<(usize, u32)> {
    let chans = library_processors(model, e);
    let net = &e.net;
    let mut v: Vec<(usize, u32)> = net
        .cube()
        .links
        .iter()
        .enumerate()
        .map(|(i, l)| (i, l.src))
        .collect();
    let ej = net.ejection_channel(0) as usize;
    for (p, cs) in chans.iter().enumerate() {
        for (j, &c) in cs.iter().enumerate() {
            v.push((ej + p * cs.len() + j, c));
        }
    }
    assert_eq!(v.len() + chans.len() * chans[0].len(), net.channels());
    v
}

/// Steps a heavily loaded engine and checks that no m-way channel carries two flits in a cycle.
/// Returns the fraction of channel-cycles that carried one.
fn exclusive(model: &Model, vcs: u32, routing: &str, cycles: u64) -> f64 {
    let len = 4;
    let rate = 1.0 / len as f64;
    let traffic = format!("pattern = \"uniform\"\nmessage_length = {len}\nrates = [{rate}]");
    let s = model.scenario(vcs, 2, routing, &traffic, "");
    let mut e = build_engine(&s, rate, 5);
    let leaving = leaving_channel(model, &e);
    // The engine arbitrates each of these at the m-way channel it leaves; injection channels
    // (processor to its injection buffer) have private arbiters.
    for &(c, from) in &leaving {
        assert_eq!(e.net.arb_of[c], from, "arbiter of channel {c}");
    }
    let (inj, ej) = (
        e.net.injection_channel(0) as usize,
        e.net.ejection_channel(0) as usize,
    );
    for c in inj..ej {
        assert!(
            e.net.arb_of[c] >= model.channels,
            "injection arbiter shared"
        );
    }
    let mut busy = 0u64;
    for _ in 0..cycles {
        let before = e.c_flits();
        e.step();
        let mut per = vec![0u64; model.channels as usize];
        for &(c, from) in &leaving {
            per[from as usize] += e.c_flits()[c] - before[c];
        }
        for (c, &x) in per.iter().enumerate() {
            assert!(
                x <= 1,
                "cycle {}: m-way channel {c} carried {x} flits",
                e.cycle
            );
        }
        busy += per.iter().sum::<u64>();
        for (c, (now, then)) in e.c_flits()[inj..ej]
            .iter()
            .zip(&before[inj..ej])
            .enumerate()
        {
            assert!(now - then <= 1, "injection channel {}", inj + c);
        }
    }
    busy as f64 / (cycles * model.channels as u64) as f64
}

#[test]
fn shared_channel_carries_at_most_one_flit_per_cycle() {
    let cases = [
        (
            Model::new(Wrap::Torus, 4, 3, Procs::Channels(1)),
            2,
            "algorithm = \"dor-ring\"",
        ),
        (
            Model::new(Wrap::Mesh, 5, 2, Procs::Channels(1)),
            2,
            "algorithm = \"adaptive\"",
        ),
        (
            Model::new(Wrap::Mesh, 2, 4, Procs::Channels(2)),
            2,
            "algorithm = \"adaptive\"",
        ),
        (
            Model::new(Wrap::Torus, 4, 2, Procs::Routers),
            3,
            "algorithm = \"adaptive-ring\"",
        ),
    ];
    for (model, vcs, routing) in cases {
        let used = exclusive(&model, vcs, routing, 3000);
        // Past saturation the channels are busy most of the time (so the check had work).
        assert!(used > 0.4, "{model:?}: channels busy only {used}");
    }
}

/// Control: the same count on a k-ary n-cube, whose crossbar routers send on several output
/// links in one cycle, does find routers sending more than one flit per cycle.
#[test]
fn crossbar_routers_send_several_flits_per_cycle() {
    let text = "name = \"x\"\n[topology]\nkind = \"torus\"\nk = 4\nn = 3\n\
                links = \"bidirectional\"\n[router]\nvcs = 2\nbuffer_depth = 2\n\
                [traffic]\nmessage_length = 4\nrates = [0.25]\n";
    let s = Scenario::from_toml(text, "x.toml").unwrap();
    let mut e = build_engine(&s, 0.25, 5);
    let mut most = 0;
    for _ in 0..500 {
        let before = e.c_flits();
        e.step();
        let mut per = vec![0u64; e.net.cube().nodes];
        for (i, l) in e.net.cube().links.iter().enumerate() {
            per[l.src as usize] += e.c_flits()[i] - before[i];
        }
        most = most.max(*per.iter().max().unwrap());
    }
    assert!(most > 1, "no router sent two flits in one cycle");
}

/// The drivers of m-way channel `hot` (paper 004 sections 2 and 3.2), as lists of the buffers
/// behind each: every router on the channel drives it from its buffer set into `hot` and, when
/// a processor sits inside the router, from that processor's injection buffer on `hot`; every
/// processor linked to the channel drives it from its injection buffer (one per processor,
/// Fig. 7: the first buffer of its injection channel).
fn drivers(model: &Model, e: &Engine, hot: u32) -> Vec<Vec<u32>> {
    let chans = library_processors(model, e);
    let net = &e.net;
    let v = net.vcs;
    let injection = |p: usize| {
        let j = chans[p].iter().position(|&c| c == hot).unwrap() as u32;
        (net.injection_channel(p as u32) + j) * v
    };
    let mut d = Vec::new();
    for &(a, b, _) in model.routers.iter().filter(|r| r.0 == hot || r.1 == hot) {
        let from = if a == hot { b } else { a };
        let tl = &net.cube().links;
        let l = (0..net.links)
            .find(|&l| (tl[l as usize].src, tl[l as usize].dst) == (from, hot))
            .unwrap();
        let mut bufs: Vec<u32> = (l * v..(l + 1) * v).collect();
        if model.procs == Procs::Routers {
            let inside = chans.iter().position(|cs| cs == &[a, b] || cs == &[b, a]);
            bufs.push(injection(inside.unwrap()));
        }
        d.push(bufs);
    }
    for (p, cs) in chans.iter().enumerate() {
        if cs == &[hot] {
            d.push(vec![injection(p)]);
        }
    }
    d
}

/// A hotspot on channel `hot`: messages (src, dst, count, len) such that every message ejects
/// on `hot`. The processors linked to `hot` send `own` 300-flit messages to each other in a
/// ring (a processor has one injection buffer, empty for a cycle between two of its messages,
/// so long messages keep it busy); every other processor sends `per` 4-flit messages to one of
/// them that it reaches strictly nearer through `hot` than through its other channel.
fn hotspot(model: &Model, chans: &[Vec<u32>], hot: u32, per: usize, own: usize) -> Vec<[u32; 4]> {
    let on: Vec<u32> = (0..chans.len() as u32)
        .filter(|&p| chans[p as usize].contains(&hot))
        .collect();
    assert!(on.len() >= 2);
    let dist = |s: usize, c: u32| model.routers_passed(&chans[s], &[c]);
    let mut v = Vec::new();
    for (i, &x) in on.iter().enumerate() {
        v.push([x, on[(i + 1) % on.len()], own as u32, 300]);
    }
    for s in 0..chans.len() {
        if on.contains(&(s as u32)) {
            continue;
        }
        let strictly = on.iter().find(|&&x| {
            let xs = &chans[x as usize];
            xs.iter().all(|&c| c == hot || dist(s, hot) < dist(s, c))
        });
        if let Some(&x) = strictly {
            v.push([s as u32, x, per as u32, 4]);
        }
    }
    v
}

/// Sends a hotspot on channel `hot` (every flit at a driver of `hot` waits for an ejection
/// there, which never blocks, so every driver with a flit requests the channel) and watches
/// each cycle which buffer won `hot` (the one whose sent count grew). Checks: nothing leaves
/// `hot` over a router; at most one grant; one whenever a driver has a flit; a driver with a
/// flit waits at most m - 1 grants of others, and a buffer at most (its driver's buffers - 1)
/// grants of its driver's other buffers; while all m drivers have flits, grants rotate with
/// period m (equal shares within one flit).
fn fairness(model: &Model, vcs: u32, routing: &str, hot: u32, per: usize, own: usize) {
    let ctx = format!(
        "{:?} k={} n={} {:?} [{routing}] channel {hot}",
        model.wrap, model.k, model.n, model.procs
    );
    let mut e = model.quiet_engine(vcs, 2, routing);
    let chans = library_processors(model, &e);
    for [s, t, count, len] in hotspot(model, &chans, hot, per, own) {
        for _ in 0..count {
            e.send(s, t, len as u16);
        }
    }
    let d = drivers(model, &e, hot);
    // m: the routers on the channel plus the processors linked to it (paper 004: 2n + p, or
    // 2n with processors inside routers).
    let routers = model
        .routers
        .iter()
        .filter(|r| r.0 == hot || r.1 == hot)
        .count();
    let m = match model.procs {
        Procs::Channels(p) => routers + p as usize,
        Procs::Routers => routers,
    };
    assert_eq!(d.len(), m, "{ctx}: drivers");
    let all: Vec<u32> = d.iter().flatten().copied().collect();
    let owner = |x: u32| d.iter().position(|set| set.contains(&x)).unwrap();
    let leaving: Vec<(usize, u32)> = leaving_channel(model, &e)
        .into_iter()
        .filter(|&(_, from)| from == hot)
        .collect();
    let over_links: Vec<usize> = leaving
        .iter()
        .map(|&(c, _)| c)
        .filter(|&c| c < e.net.links as usize)
        .collect();
    let mut wait = vec![0usize; m];
    let mut buf_wait = vec![0usize; e.net.buffers()];
    let (mut max_wait, mut max_buf_wait, mut contested) = (0, 0, 0);
    let mut run: Vec<usize> = Vec::new();
    let mut longest: Vec<usize> = Vec::new();
    while !e.idle() {
        assert!(e.cycle < 100_000, "{ctx}: not drained");
        let has: Vec<bool> = all.iter().map(|&x| e.buffer_flits(x) > 0).collect();
        let busy: Vec<bool> = d
            .iter()
            .map(|set| set.iter().any(|&x| e.buffer_flits(x) > 0))
            .collect();
        let sent0: Vec<u16> = all.iter().map(|&x| e.buffer_sent(x)).collect();
        let out0: u64 = leaving.iter().map(|&(c, _)| e.c_flits()[c]).sum();
        e.step();
        let won: Vec<u32> = all
            .iter()
            .zip(&sent0)
            .filter(|&(&x, &s0)| e.buffer_sent(x) == s0.wrapping_add(1))
            .map(|(&x, _)| x)
            .collect();
        let out1: u64 = leaving.iter().map(|&(c, _)| e.c_flits()[c]).sum();
        assert!(over_links.iter().all(|&c| e.c_flits()[c] == 0), "{ctx}");
        assert_eq!(
            out1 - out0,
            won.len() as u64,
            "{ctx}: flits leaving vs grants"
        );
        assert!(won.len() <= 1, "{ctx}: cycle {}: {won:?}", e.cycle);
        assert_eq!(
            won.len(),
            busy.iter().any(|&x| x) as usize,
            "{ctx}: cycle {}: a driver had a flit and none was granted",
            e.cycle
        );
        let Some(&w) = won.first() else { continue };
        let g = owner(w);
        for i in 0..m {
            wait[i] = match (busy[i], i == g) {
                (false, _) | (true, true) => 0,
                (true, false) => wait[i] + 1,
            };
            max_wait = max_wait.max(wait[i]);
            assert!(wait[i] < m, "{ctx}: driver {i} waited {} grants", wait[i]);
        }
        // Second level: the granted driver's buffers with a flit take turns.
        let with_flit: Vec<u32> = d[g]
            .iter()
            .copied()
            .filter(|&x| has[all.iter().position(|&y| y == x).unwrap()])
            .collect();
        contested += (with_flit.len() > 1) as usize;
        for &x in &d[g] {
            let bw = &mut buf_wait[x as usize];
            *bw = if x == w || !with_flit.contains(&x) {
                0
            } else {
                *bw + 1
            };
            max_buf_wait = max_buf_wait.max(*bw);
            assert!(*bw < d[g].len(), "{ctx}: buffer {x} waited {bw}");
        }
        if busy.iter().all(|&x| x) {
            run.push(g);
        } else {
            if run.len() > longest.len() {
                longest = std::mem::take(&mut run);
            }
            run.clear();
        }
    }
    if run.len() > longest.len() {
        longest = run;
    }
    // The bounds are reached, and the second level was exercised.
    assert_eq!(max_wait, m - 1, "{ctx}");
    assert!(
        contested > 100,
        "{ctx}: drivers rarely had two buffers with flits"
    );
    let widest = d.iter().map(|x| x.len()).max().unwrap();
    assert_eq!(max_buf_wait, widest - 1, "{ctx}");
    // Over a long stretch with every driver competing, strict rotation: equal shares.
    assert!(
        longest.len() > 1000,
        "{ctx}: all busy only {}",
        longest.len()
    );
    for t in m..longest.len() {
        assert_eq!(longest[t], longest[t - m], "{ctx}: rotation broken at {t}");
    }
    let mut count = vec![0usize; m];
    longest.iter().for_each(|&g| count[g] += 1);
    let (lo, hi) = (count.iter().min().unwrap(), count.iter().max().unwrap());
    assert!(hi - lo <= 1, "{ctx}: shares {count:?}");
}

#[test]
fn arbitration_is_round_robin_over_drivers_torus() {
    // 4x4 torus, p = 2: m = 2n + p = 6 drivers on every channel.
    let model = Model::new(Wrap::Torus, 4, 2, Procs::Channels(2));
    fairness(&model, 2, "algorithm = \"dor-ring\"", 5, 60, 4);
    fairness(&model, 3, "algorithm = \"adaptive-ring\"", 10, 60, 4);
}

#[test]
fn arbitration_is_round_robin_over_drivers_mesh() {
    // 5x5 mesh, p = 2: the centre has 6 drivers, a corner 4.
    let model = Model::new(Wrap::Mesh, 5, 2, Procs::Channels(2));
    fairness(&model, 2, "algorithm = \"adaptive\"", 12, 40, 4);
    fairness(&model, 2, "algorithm = \"dor\"", 0, 40, 4);
}

/// Processors inside routers: m = 2n drivers, each a router's buffer set together with the
/// injection buffer of the processor inside it (B + 1 buffers taking turns behind it).
#[test]
fn arbitration_is_round_robin_over_routers_with_processors_inside() {
    let torus = Model::new(Wrap::Torus, 4, 2, Procs::Routers);
    fairness(&torus, 2, "algorithm = \"dor-ring\"", 5, 60, 4);
    let mesh = Model::new(Wrap::Mesh, 5, 2, Procs::Routers);
    fairness(&mesh, 2, "algorithm = \"adaptive\"", 12, 60, 4);
}

/// Mean and sample standard error of per-seed values.
fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Uniform traffic below saturation: traffic per channel (summary's traffic_pct / 100, the mean
/// of mway_channel_flits) = λ_f · N · E[crossings] / C, injection and ejection per processor
/// = λ_f. The standard errors are those of a compound Poisson count over the window: messages
/// arrive at N λ per cycle, each adds M · X crossings (X its crossings), so the variance of the
/// window's crossings is N λ W M² E[X²].
#[test]
fn traffic_per_channel_is_flit_rate_times_mean_crossings() {
    for (model, vcs, routing, flit_rate) in [
        (
            Model::new(Wrap::Torus, 4, 2, Procs::Channels(1)),
            2,
            "algorithm = \"dor-ring\"",
            0.12,
        ),
        (
            Model::new(Wrap::Torus, 5, 2, Procs::Channels(1)),
            3,
            "algorithm = \"adaptive-ring\"",
            0.1,
        ),
        (
            Model::new(Wrap::Torus, 4, 2, Procs::Routers),
            2,
            "algorithm = \"dor-ring\"",
            0.1,
        ),
        (
            Model::new(Wrap::Mesh, 4, 2, Procs::Channels(2)),
            2,
            "algorithm = \"adaptive\"",
            0.05,
        ),
    ] {
        let ctx = format!(
            "{:?} k={} n={} {:?}",
            model.wrap, model.k, model.n, model.procs
        );
        let len = 4.0;
        let rate = flit_rate / len;
        let (n, c) = (model.processors() as f64, model.channels as f64);
        let x = model.crossings();
        let pairs = n * (n - 1.0);
        let ex = x.iter().map(|&v| v as f64).sum::<f64>() / pairs;
        let ex2 = x.iter().map(|&v| (v * v) as f64).sum::<f64>() / pairs;
        let (warm, w) = (2000.0, 20_000.0);
        let traffic = format!("pattern = \"uniform\"\nmessage_length = {len}\nrates = [{rate}]");
        let run = format!("warmup_cycles = {warm}\nmeasure_cycles = {w}");
        let s = model.scenario(vcs, 2, routing, &traffic, &run);
        let want = flit_rate * n * ex / c;
        let se = (n * rate * w * len * len * ex2).sqrt() / (c * w);
        let se_node = (n * rate * w * len * len).sqrt() / (n * w);
        let (mut ch, mut inj, mut ej) = (Vec::new(), Vec::new(), Vec::new());
        let seeds = 6;
        for seed in 1..=seeds {
            let r = run_point(&s, rate, seed).unwrap();
            assert!(!r.saturated(), "{ctx}: saturated");
            assert_eq!(r.mway_channel_flits.len(), model.channels as usize);
            // Every flit crossing a channel goes to a router buffer set or an ejection buffer.
            let total: f64 = r.mway_channel_flits.iter().sum();
            let parts: f64 = r.link_flits.iter().sum::<f64>() + r.node_ej_flits.iter().sum::<f64>();
            assert!(
                (total - parts).abs() < 1e-9 * total,
                "{ctx}: {total} vs {parts}"
            );
            let one = mean(r.channel_use());
            assert!(
                (one - want).abs() < 4.0 * se,
                "{ctx} seed {seed}: {one} vs {want}"
            );
            ch.push(one);
            inj.push(mean(&r.node_inj_flits));
            ej.push(mean(&r.node_ej_flits));
        }
        let k = (seeds as f64).sqrt();
        let got = mean(&ch);
        assert!((got - want).abs() < 4.0 * se / k, "{ctx}: {got} vs {want}");
        for (what, v) in [("injection", &inj), ("ejection", &ej)] {
            let g = mean(v);
            let tol = 4.0 * se_node / k;
            assert!((g - flit_rate).abs() < tol, "{ctx}: {what} {g}");
        }
    }
}
