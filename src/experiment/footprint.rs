//! A point's memory, estimated before anything is built, so that a scenario that cannot fit
//! is refused at once instead of failing an allocation minutes later.
//!
//! The coefficients were measured (peak resident set, `/usr/bin/time -f %M`, whole `flitsim
//! run`s of points that drained) on bidirectional and unidirectional 64-ary 3-cubes with V = 2
//! and 8 (262,144 nodes; 207, 472, 172 and 287 MB) and the 1,048,576-node 32-ary 4-cube (V = 2,
//! 8-flit buffers; 1,014 MB), fitted by least squares on the relative error: about 17.9 bytes
//! per virtual-channel buffer, 31.7 per network link and 334.6 per node beyond a 4.5 MB
//! process, within 6.4% of each. (Before the window's counts and the tables stopped holding
//! copies of per-channel data they were 27.4, 110.2 and 141.0, and before issue 14's smaller
//! engine 41, 123 and 279; that 32-ary 4-cube then measured 1,615 and 2,181 MB.) Buffer depth
//! costs nothing (a buffer holds counts, not flits). A point that stops
//! early (backlog, drain cap) or stalls copies its engine to tell deadlock from congestion, so
//! [`check_fits`] asks for twice the estimate. Every finished point's results (16 bytes a link
//! and 32 a processor) are held until the tables are written, which are made as they are
//! written; the check counts them beside the engines.

use crate::scenario::Scenario;
use crate::topology::{Family, Kind, Placement};

/// Bytes of the process before any network.
const BASE: f64 = 4.5e6;
/// Bytes per virtual-channel buffer (network links, injection and ejection channels).
const PER_BUFFER: f64 = 17.9;
/// Bytes per network link.
const PER_LINK: f64 = 31.7;
/// Bytes per node (router or m-way channel) and per processor.
const PER_NODE: f64 = 334.6;
/// Bytes per message waiting at a source, at worst: the message's record (38 bytes in 9
/// arrays) in vectors that grow by doubling.
const PER_MESSAGE: f64 = 76.0;

/// Bytes of one finished point's results per link, kept until the tables are written: its
/// flits and messages, 8 bytes each.
const RESULT_PER_LINK: f64 = 16.0;
/// Per processor: the injected and ejected flits and messages.
const RESULT_PER_PROCESSOR: f64 = 32.0;
/// Per node: an m-way channel's flits (counted for every node, at worst).
const RESULT_PER_NODE: f64 = 8.0;
/// Per point: the latency and hop histograms and the rest.
const RESULT_BASE: f64 = 65536.0;

/// A point's estimated memory and the counts that drive it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Footprint {
    /// Routers (m-way networks: channels) and processors, the larger.
    pub nodes: u64,
    /// Network links (m-way networks: buffer sets).
    pub links: u64,
    /// Virtual-channel buffers of the links and of the injection and ejection channels.
    pub buffers: u64,
    /// The estimate, bytes.
    pub bytes: f64,
    /// The most the source queues can hold before the point stops (`[run] max_backlog`
    /// messages per processor), bytes.
    pub backlog_bytes: f64,
    /// The point's results, held from its end until the run's tables are written, bytes.
    pub result_bytes: f64,
}

/// The estimate for one point of `s`, from its topology and router alone.
pub fn footprint(s: &Scenario) -> Footprint {
    let t = &s.topology;
    let n: f64 = t.radix.iter().map(|&k| k as f64).product();
    let links = match (t.family, t.kind) {
        (Family::KAryNCube, Kind::Hypercube) => n * t.radix.len() as f64,
        (Family::KAryNCube, Kind::Torus) => {
            n * t.radix.len() as f64 * if t.bidirectional { 2.0 } else { 1.0 }
        }
        (Family::KAryNCube, Kind::Mesh) | (Family::MWay(_), Kind::Mesh) => t
            .radix
            .iter()
            .map(|&k| 2.0 * (k as f64 - 1.0) * n / k as f64)
            .sum(),
        (Family::HyperX, _) => n * t.radix.iter().map(|&k| k as f64 - 1.0).sum::<f64>(),
        (Family::MWay(_), _) => 2.0 * n * t.radix.len() as f64,
    };
    let processors = t.processors() as f64;
    let nodes = match t.family {
        Family::MWay(Placement::Channels(_)) | Family::MWay(Placement::Routers) => n + links / 2.0,
        _ => n,
    }
    .max(processors);
    let buffers = (links + 2.0 * processors) * s.router.vcs as f64;
    Footprint {
        nodes: nodes as u64,
        links: links as u64,
        buffers: buffers as u64,
        bytes: BASE + PER_BUFFER * buffers + PER_LINK * links + PER_NODE * nodes,
        backlog_bytes: s.run.max_backlog as f64 * processors * PER_MESSAGE,
        result_bytes: RESULT_BASE
            + RESULT_PER_LINK * links
            + RESULT_PER_PROCESSOR * processors
            + RESULT_PER_NODE * nodes,
    }
}

/// The memory available to new work on this machine (Linux's MemAvailable), in bytes, if known.
pub fn available() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// Refuses an experiment whose points, `at_once` at a time, each with room for the copy a
/// deadlock check makes (twice the estimate), would not fit in the memory available: the
/// message names the file, the counts and keys that drive the estimate, the estimate and the
/// memory available, and the fixes.
pub fn check_fits(exp: &super::Experiment, at_once: usize) -> crate::error::Result<()> {
    let Some(avail) = available() else {
        return Ok(());
    };
    let (config, biggest) = exp
        .configurations
        .iter()
        .map(|c| footprint(&c.scenario))
        .enumerate()
        .max_by(|(_, a), (_, b)| {
            (a.bytes + a.backlog_bytes).total_cmp(&(b.bytes + b.backlog_bytes))
        })
        .expect("one configuration at least");
    let engines = 2.0 * (biggest.bytes + biggest.backlog_bytes) * at_once as f64;
    let (points, results) = results(exp);
    // The points' results are held through the run beside its engines.
    let need = engines + results;
    if need <= avail {
        return Ok(());
    }
    if results > engines {
        return Err(crate::error::Error::Input(format!(
            "{}: [traffic] flit_rates, seeds and the sweep: the results of its {points} points take about {} (16 bytes per link and 32 per processor a point), held until the tables are written, {} in all with the points running, more than the {} available; fix: fewer loads, seeds or swept values per run (run the sweep as several scenarios), or --force to try anyway",
            exp.file,
            shown(results),
            shown(need),
            shown(avail)
        )));
    }
    if biggest.backlog_bytes > biggest.bytes {
        return Err(crate::error::Error::Input(format!(
            "{}: [run] max_backlog: a saturated point's source queues can hold {} ({} messages per processor), {at_once} at once and twice with the copy a deadlock check makes {}, more than the {} available; fix: a smaller max_backlog (the default, 100, stops a saturated point long before), or --force to try anyway",
            exp.file,
            shown(biggest.backlog_bytes),
            exp.configurations[config].scenario.run.max_backlog,
            shown(need),
            shown(avail)
        )));
    }
    Err(crate::error::Error::Input(format!(
        "{}: [topology] and [router] vcs: a point needs about {} ({} nodes, {} links, {} virtual-channel buffers), twice that with the copy a deadlock check makes, {at_once} at once {}, more than the {} available; fix: a smaller network or fewer vcs, fewer threads (--threads 1), or --force to try anyway",
        exp.file,
        shown(biggest.bytes),
        biggest.nodes,
        biggest.links,
        biggest.buffers,
        shown(need),
        shown(avail)
    )))
}

/// The experiment's points and the bytes of all their results.
pub fn results(exp: &super::Experiment) -> (usize, f64) {
    exp.configurations.iter().fold((0, 0.0), |(n, bytes), c| {
        let s = &c.scenario;
        let points = s.traffic.rates.len() * s.seeds.len();
        (
            n + points,
            bytes + points as f64 * footprint(s).result_bytes,
        )
    })
}

/// Bytes as messages show them: MiB or GiB.
pub fn shown(bytes: f64) -> String {
    if bytes >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} GiB", bytes / (1024.0 * 1024.0 * 1024.0))
    } else {
        format!("{:.0} MiB", bytes / (1024.0 * 1024.0))
    }
}
