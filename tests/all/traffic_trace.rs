//! Trace replay (`[traffic] trace`): a hand-checked runtime on a 2x2 mesh; on a random
//! dependency DAG of thousands of messages on an 8x8 mesh, every message delivered exactly
//! once, never generated before its scheduled cycle nor before its dependencies' tails were
//! delivered; the same trace in CSV and in netrace v1 replays identically; speedup scales the
//! scheduled cycles; one or two threads per point give the same tables; malformed traces are
//! refused with the file, the place and a fix (exit code 2).

use crate::common::temp_dir;
use flitsim::Scenario;
use flitsim::engine::{MessageTimes, replay_timed};
use flitsim::stats::PointResult;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// One message of a test trace: id, cycle, source, destination, length in flits, and the ids
/// of the messages it waits for (earlier ones).
#[derive(Clone, Debug)]
struct Msg {
    id: u32,
    cycle: u64,
    src: u32,
    dst: u32,
    len: u16,
    deps: Vec<u32>,
}

/// The trace as CSV.
fn csv(msgs: &[Msg]) -> String {
    let mut out = String::from("# a test trace\nid,cycle,src,dst,length,deps\n");
    for m in msgs {
        let deps: Vec<String> = m.deps.iter().map(u32::to_string).collect();
        out += &format!(
            "{},{},{},{},{},{}\n",
            m.id,
            m.cycle,
            m.src,
            m.dst,
            m.len,
            deps.join(";")
        );
    }
    out
}

/// The trace as a bzip2-compressed netrace v1 file of `nodes` nodes (layout: the doc comment
/// of src/traffic/trace/netrace.rs), with notes and one region header; a 1-flit message is a
/// ReadReq (type 1, 8 bytes), a 9-flit one a ReadResp (type 2, 72 bytes), so that at 8 bytes
/// per flit the lengths are the CSV's. Each packet lists the packets waiting for it.
fn netrace(msgs: &[Msg], nodes: u8, magic: u32) -> Vec<u8> {
    let mut raw = Vec::new();
    raw.extend_from_slice(&magic.to_le_bytes());
    raw.extend_from_slice(&1.0f32.to_le_bytes());
    let mut name = [0u8; 30];
    name[..4].copy_from_slice(b"test");
    raw.extend_from_slice(&name);
    raw.push(nodes);
    raw.push(0);
    raw.extend_from_slice(&msgs.last().map_or(0, |m| m.cycle).to_le_bytes());
    raw.extend_from_slice(&(msgs.len() as u64).to_le_bytes());
    let notes = b"made by a test\0";
    raw.extend_from_slice(&(notes.len() as u32).to_le_bytes());
    raw.extend_from_slice(&1u32.to_le_bytes());
    raw.extend_from_slice(&[0u8; 8]);
    assert_eq!(raw.len(), 72);
    raw.extend_from_slice(notes);
    raw.extend_from_slice(&[0u8; 24]);
    for m in msgs {
        let waiting: Vec<u32> = msgs
            .iter()
            .filter(|w| w.deps.contains(&m.id))
            .map(|w| w.id)
            .collect();
        raw.extend_from_slice(&m.cycle.to_le_bytes());
        raw.extend_from_slice(&m.id.to_le_bytes());
        raw.extend_from_slice(&0xdead_beefu32.to_le_bytes());
        let kind = match m.len {
            1 => 1u8,
            9 => 2,
            l => panic!("no netrace type of {l} flits"),
        };
        raw.extend_from_slice(&[kind, m.src as u8, m.dst as u8, 0x02, waiting.len() as u8]);
        for w in waiting {
            raw.extend_from_slice(&w.to_le_bytes());
        }
    }
    let mut z = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    z.write_all(&raw).unwrap();
    z.finish().unwrap()
}

/// A scenario file in `dir` on a `k`x`k` mesh replaying `trace` (a file name in `dir`), with
/// more `[traffic]` and `[run]` lines; returns its path.
fn scenario(dir: &Path, k: u32, trace: &str, traffic: &str, run: &str) -> PathBuf {
    let text = format!(
        "name = \"trace-test\"\n[topology]\nkind = \"mesh\"\nk = {k}\nn = 2\n[router]\nvcs = 2\n\
         buffer_depth = 4\n[traffic]\ntrace = \"{trace}\"\n{traffic}\n[run]\n{run}\n"
    );
    let f = dir.join(format!("{trace}.toml"));
    std::fs::write(&f, text).unwrap();
    f
}

/// Replays the scenario `f` with seed 1 on one thread.
fn replay(f: &Path) -> (PointResult, Vec<MessageTimes>) {
    let s = Scenario::load(f).unwrap();
    let t = s.traffic.trace.clone().unwrap();
    replay_timed(&s, &t, 1, 1, &AtomicBool::new(false)).unwrap()
}

#[test]
fn a_chain_on_a_2x2_mesh_runs_the_cycles_counted_by_hand() {
    // Processors of the 2x2 mesh: 0 = (0,0), 1 = (1,0), 2 = (0,1), 3 = (1,1). A message of M
    // flits over h links sent in cycle t0 into an empty network has its tail ejected in cycle
    // t0 + M + h (the engine's timing, paper 000 eq. 8).
    // - A: 0 -> 3, 8 flits, h = 2, sent in cycle 0: delivered in 0 + 8 + 2 = 10.
    // - B: 3 -> 0, 4 flits, scheduled at 0 but waits for A: generated in 11 (the cycle after
    //   A's tail), delivered in 11 + 4 + 2 = 17; its slowdown is 11.
    // - C: 1 -> 2, 3 flits, h = 2, scheduled at 30, no dependencies: delivered in
    //   30 + 3 + 2 = 35, the runtime. The three never share a cycle in the network.
    let msgs = [
        Msg {
            id: 10,
            cycle: 0,
            src: 0,
            dst: 3,
            len: 8,
            deps: vec![],
        },
        Msg {
            id: 20,
            cycle: 0,
            src: 3,
            dst: 0,
            len: 4,
            deps: vec![10],
        },
        Msg {
            id: 30,
            cycle: 30,
            src: 1,
            dst: 2,
            len: 3,
            deps: vec![],
        },
    ];
    let tmp = temp_dir("trace-chain");
    std::fs::write(tmp.path().join("chain.csv"), csv(&msgs)).unwrap();
    let (r, times) = replay(&scenario(tmp.path(), 2, "chain.csv", "", ""));
    let g: Vec<(u64, u64)> = times.iter().map(|t| (t.generated, t.delivered)).collect();
    assert_eq!(g, [(0, 10), (11, 17), (30, 35)]);
    let t = r.trace.unwrap();
    assert_eq!(t.runtime_cycles, 35);
    assert_eq!(t.trace_cycles, 30);
    assert_eq!(t.messages, 3);
    assert_eq!(t.delivered, 3);
    assert_eq!(t.max_slowdown, 11);
    assert_eq!(t.mean_slowdown, 11.0 / 3.0);
    // Latency from generation: 10, 6 and 5 cycles; every hop count 2.
    assert_eq!(r.stats.mean(), 21.0 / 3.0);
    assert_eq!(r.stats.hops_mean(), 2.0);
    assert_eq!(r.undelivered, 0);
}

/// A random trace of `n` messages on 64 nodes: cycles nondecreasing, 1- or 9-flit messages,
/// about one in fifty to its own source, each waiting for up to 3 of the 40 messages before it.
fn random_trace(n: usize, seed: u64) -> Vec<Msg> {
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut cycle = 0;
    (0..n)
        .map(|i| {
            cycle += rng.gen_range(0..3);
            let src = rng.gen_range(0..64);
            let dst = if rng.gen_bool(0.02) {
                src
            } else {
                rng.gen_range(0..64)
            };
            let mut deps: Vec<u32> = (0..rng.gen_range(0..=3))
                .filter(|_| i > 0)
                .map(|_| 3 * rng.gen_range(i.saturating_sub(40)..i) as u32 + 7)
                .collect();
            deps.sort_unstable();
            deps.dedup();
            Msg {
                id: 3 * i as u32 + 7,
                cycle,
                src,
                dst,
                len: if rng.gen_bool(0.5) { 1 } else { 9 },
                deps,
            }
        })
        .collect()
}

/// Every message delivered exactly once, generated no earlier than its scheduled cycle
/// (⌊cycle / speedup⌋) and after the delivery of every message it waits for.
fn check_order(msgs: &[Msg], times: &[MessageTimes], speedup: f64) {
    let at = |id: u32| msgs.iter().position(|m| m.id == id).unwrap();
    for (m, t) in msgs.iter().zip(times) {
        assert_eq!(
            t.deliveries, 1,
            "message {} delivered {} times",
            m.id, t.deliveries
        );
        assert!(
            t.generated >= (m.cycle as f64 / speedup) as u64,
            "{m:?}: {t:?}"
        );
        assert!(t.delivered >= t.generated, "{m:?}: {t:?}");
        for &d in &m.deps {
            let before = times[at(d)];
            assert!(
                t.generated > before.delivered,
                "{m:?} before {d}: {t:?}, {before:?}"
            );
        }
    }
}

#[test]
fn a_random_dag_is_delivered_once_in_dependency_order_alike_from_csv_and_netrace() {
    let msgs = random_trace(3000, 11);
    let tmp = temp_dir("trace-dag");
    std::fs::write(tmp.path().join("dag.csv"), csv(&msgs)).unwrap();
    std::fs::write(
        tmp.path().join("dag.tra.bz2"),
        netrace(&msgs, 64, 0x484A_5455),
    )
    .unwrap();
    let (r, times) = replay(&scenario(tmp.path(), 8, "dag.csv", "", ""));
    check_order(&msgs, &times, 1.0);
    let t = r.trace.unwrap();
    assert_eq!(t.delivered, 3000);
    assert_eq!(
        t.local,
        msgs.iter().filter(|m| m.src == m.dst).count() as u64
    );
    assert_eq!(
        t.runtime_cycles,
        times.iter().map(|t| t.delivered).max().unwrap()
    );
    assert!(t.mean_slowdown > 0.0, "dependencies delay some messages");
    // The network carried every message but the local ones, each measured once.
    assert_eq!(r.stats.count, 3000 - t.local);
    let (rn, times_n) = replay(&scenario(tmp.path(), 8, "dag.tra.bz2", "", ""));
    assert_eq!(times_n, times);
    assert_eq!(rn.trace, r.trace);
    assert_eq!(
        flitsim::output::summary_csv(&[rn]),
        flitsim::output::summary_csv(&[r])
    );
}

#[test]
fn speedup_halves_the_scheduled_cycles() {
    // Messages far apart (every 100 cycles) never wait: each is generated at ⌊c / 2⌋.
    let msgs: Vec<Msg> = (0..50)
        .map(|i| Msg {
            id: i,
            cycle: 100 * i as u64 + 1,
            src: i % 64,
            dst: (i * 7 + 3) % 64,
            len: 9,
            deps: vec![],
        })
        .collect();
    let tmp = temp_dir("trace-speedup");
    std::fs::write(tmp.path().join("s.csv"), csv(&msgs)).unwrap();
    let (r1, t1) = replay(&scenario(tmp.path(), 8, "s.csv", "", ""));
    let (r2, t2) = replay(&scenario(tmp.path(), 8, "s.csv", "speedup = 2", ""));
    for (m, (a, b)) in msgs.iter().zip(t1.iter().zip(&t2)) {
        assert_eq!(a.generated, m.cycle);
        assert_eq!(b.generated, m.cycle / 2);
        assert_eq!(a.delivered - a.generated, b.delivered - b.generated);
    }
    assert_eq!(r1.trace.unwrap().trace_cycles, 4901);
    assert_eq!(r2.trace.unwrap().trace_cycles, 2450);
    check_order(&msgs, &t2, 2.0);
}

/// `flitsim run` of `f` into `out` with `sets`: exit code, stderr.
fn run(f: &Path, out: &Path, sets: &[&str]) -> (Option<i32>, String) {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"));
    c.arg("run").arg(f).arg("--out").arg(out).arg("--quiet");
    for s in sets {
        c.args(["--set", s]);
    }
    let o = c.output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn one_or_two_threads_per_point_write_the_same_tables() {
    let msgs = random_trace(2000, 5);
    let tmp = temp_dir("trace-threads");
    std::fs::write(tmp.path().join("t.csv"), csv(&msgs)).unwrap();
    let f = scenario(tmp.path(), 8, "t.csv", "", "");
    let tables = |threads: &str| {
        let out = tmp.path().join(format!("out{threads}"));
        let set = format!("run.threads_per_point={threads}");
        let (code, err) = run(
            &f,
            &out,
            &["sweep.routing.algorithm=[\"dor\", \"duato\"]", &set],
        );
        assert_eq!(code, Some(0), "{err}");
        ["summary.csv", "trace.csv", "channels.csv"].map(|n| std::fs::read(out.join(n)).unwrap())
    };
    // The replay's engine is built as any point's: with 2 threads per point, its cycle is split.
    let two = scenario(tmp.path(), 8, "t.csv", "", "threads_per_point = 2");
    let s = Scenario::load(&two).unwrap();
    assert_eq!(flitsim::engine::build_engine(&s, 0.0, 1).plan().threads, 2);
    let one = tables("1");
    assert_eq!(one, tables("2"));
    let trace = String::from_utf8(one[1].clone()).unwrap();
    assert_eq!(
        trace.lines().count(),
        3,
        "a header and one replay per routing:\n{trace}"
    );
}

/// `flitsim check` of `f` refused: its one-line message (exit code 2 checked).
fn refused(f: &Path) -> String {
    let (code, _, err) = crate::common::check_file(f, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    err
}

#[test]
fn malformed_traces_are_refused_with_file_place_and_fix() {
    let tmp = temp_dir("trace-bad");
    let d = tmp.path();
    let head = "id,cycle,src,dst,length,deps\n";
    let cases = [
        (
            "1,0,0,1,4,\n2,0,1,0,4,7\n",
            "line 3, column 6 (deps): id 7 is no message's id",
        ),
        (
            "1,0,0,1,4,1\n",
            "line 2, column 6 (deps): id 1 is the message itself",
        ),
        (
            "1,0,0,1,4,2\n2,0,1,0,4,\n",
            "id 2 is a message on a later line",
        ),
        (
            "1,0,0,16,4,\n",
            "line 2, column 4 (dst): processor 16, but the network has 16",
        ),
        (
            "1,0,0,1,0,\n",
            "line 2, column 5 (length): a length of 0 flits",
        ),
        (
            "1,x,0,1,4,\n",
            "line 2, column 2 (cycle): \"x\" is not a whole number",
        ),
        (
            "1,0,0,1,4,\n1,3,1,0,4,\n",
            "line 3, column 1 (id): id 1 is used by an earlier line",
        ),
    ];
    for (rows, want) in cases {
        std::fs::write(d.join("bad.csv"), format!("{head}{rows}")).unwrap();
        let err = refused(&scenario(d, 4, "bad.csv", "", ""));
        assert!(
            err.contains("bad.csv") && err.contains(want),
            "{want}: {err}"
        );
        assert!(
            err.contains("[traffic] trace") && err.contains("fix:"),
            "{err}"
        );
    }
    let msgs = random_trace(20, 3);
    let good = netrace(&msgs, 64, 0x484A_5455);
    std::fs::write(d.join("big.tra.bz2"), &good).unwrap();
    let err = refused(&scenario(d, 4, "big.tra.bz2", "", ""));
    assert!(
        err.contains("addresses 64 nodes, but the network has 16 processors"),
        "{err}"
    );
    std::fs::write(d.join("magic.tra.bz2"), netrace(&msgs, 64, 0x1234_5678)).unwrap();
    let err = refused(&scenario(d, 8, "magic.tra.bz2", "", ""));
    assert!(
        err.contains("magic number") && err.contains("fix:"),
        "{err}"
    );
    // Cut inside the last packet (decompressed, then compressed again).
    let mut raw = Vec::new();
    std::io::Read::read_to_end(&mut bzip2::read::BzDecoder::new(&good[..]), &mut raw).unwrap();
    raw.truncate(raw.len() - 3);
    let mut z = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
    z.write_all(&raw).unwrap();
    std::fs::write(d.join("cut.tra.bz2"), z.finish().unwrap()).unwrap();
    let err = refused(&scenario(d, 8, "cut.tra.bz2", "", ""));
    assert!(
        err.contains("cut.tra.bz2 ends inside") && err.contains("truncated"),
        "{err}"
    );
    std::fs::write(d.join("plain.tra.bz2"), b"not bzip2").unwrap();
    let err = refused(&scenario(d, 8, "plain.tra.bz2", "", ""));
    assert!(err.contains("not a bzip2-compressed file"), "{err}");
    // Source keys beside a trace, and trace keys without one.
    std::fs::write(d.join("ok.csv"), format!("{head}1,0,0,1,4,\n")).unwrap();
    let err = refused(&scenario(d, 4, "ok.csv", "rates = [0.1]", ""));
    assert!(
        err.contains("[traffic] rates") && err.contains("fix: remove rates"),
        "{err}"
    );
    let err = refused(&scenario(d, 4, "ok.csv", "trace_flit_bytes = 16", ""));
    assert!(
        err.contains("a CSV trace gives its lengths in flits"),
        "{err}"
    );
    let err = refused(&scenario(d, 4, "ok.csv", "speedup = 0", ""));
    assert!(err.contains("[traffic] speedup"), "{err}");
    // A trace holds its replies: reply_length would answer every replayed message again.
    let err = refused(&scenario(d, 4, "ok.csv", "reply_length = 4", ""));
    assert!(
        err.contains("[traffic] reply_length") && err.contains("fix: remove reply_length"),
        "{err}"
    );
}

#[test]
fn a_replay_that_deadlocks_ends_with_the_deadlock_report() {
    // A unidirectional 4-node ring with one virtual channel and 2-flit buffers: every node
    // sends 16 flits two nodes on at cycle 0, and each worm holds its first link while waiting
    // for the next, which the next worm holds: a cycle of channel dependencies. A fifth message
    // waits for one of them and so is never generated.
    let mut msgs: Vec<Msg> = (0..4)
        .map(|i| Msg {
            id: i,
            cycle: 0,
            src: i,
            dst: (i + 2) % 4,
            len: 16,
            deps: vec![],
        })
        .collect();
    msgs.push(Msg {
        id: 4,
        cycle: 0,
        src: 1,
        dst: 0,
        len: 1,
        deps: vec![0],
    });
    let tmp = temp_dir("trace-deadlock");
    std::fs::write(tmp.path().join("ring.csv"), csv(&msgs)).unwrap();
    let text = "name = \"ring\"\n[topology]\nkind = \"torus\"\nk = 4\nn = 1\n[router]\nvcs = 1\n\
                buffer_depth = 2\n[routing]\ndeadlock_check = false\n[traffic]\ntrace = \"ring.csv\"\n\
                [run]\nwatchdog_cycles = 100\n";
    let f = tmp.path().join("ring.toml");
    std::fs::write(&f, text).unwrap();
    let s = Scenario::load(&f).unwrap();
    match flitsim::engine::run_point(&s, 0.0, 1) {
        Err(flitsim::Error::Deadlock(r)) => {
            assert!(r.to_string().starts_with("deadlock at cycle "), "{r}");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}
