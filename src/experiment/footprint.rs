//! A point's memory, estimated before anything is built, so that a scenario that cannot fit
//! under the limit in force is refused at once instead of failing an allocation minutes later.
//!
//! The estimate is linear in the network's counts: a 9 MB process, 21.6 bytes per
//! virtual-channel buffer, 59 per network link, 26.4 per node, 86.5 per processor (201 more
//! where an m-way network's processors share an interface) and 139 per row of the largest
//! table while a batch of its rows is made. The coefficients were fitted by a linear program
//! (the least mean ratio of estimate to peak, none under 1.05) to the peak resident sets of
//! whole one-point `flitsim run --threads 1`s (GNU time's %M) on 33 networks of every family,
//! router and routing, 64 to 1,048,576 nodes, in `results/bench/memory_peaks.csv` (made by
//! `memory_peaks.sh` beside it). Estimate over peak: 1.26, 1.24, 1.13, 1.14 and 1.11 on the
//! the scaling bench's tori (64 to 1,048,576 nodes), 1.14 on the memory scenario; 1.05-1.12 on
//! other 64-ary 3-cubes (V = 2 to 16, uni- and bidirectional, Duato, adaptive, per-port
//! crossbar, permutation at 0.02); meshes 1.09-1.26, hypercubes 1.05-1.21 (10, 18, 20; e-cube,
//! p-cube), HyperX 1.07-1.23, m-way networks 1.05-1.24 (1.38 with 4 processors a channel),
//! split cycles 1.08-1.14; fat trees, not among the fitted networks, 1.30, 1.19 and 1.15 (the
//! 4-ary 3- and 5-trees and the 8-ary 5-tree).
//! Buffer depth costs nothing (a buffer holds counts, not flits). A point whose cycle is split
//! across threads holds more (1.5 bytes a buffer and 0.5 a buffer and thread). A point that
//! stops early (backlog, drain cap) or stalls copies its engine to tell deadlock from
//! congestion, so [`check_fits`] asks for twice the estimate. Every finished point's results
//! (16 bytes a link and 32 a processor) are held until the tables are written, which are made
//! as they are written; the check counts them beside the engines.
//!
//! [`check_fits`] holds what a run needs against each limit [`super::limits`] finds and names
//! the one that leaves the least room. MemAvailable and a cgroup's limit count resident memory;
//! the data-segment limit (`ulimit -d`) counts the stacks of the threads the run starts too;
//! the address-space limit (`ulimit -v`) counts every reservation: each new thread's stack and
//! the malloc arena glibc reserves for it as it first allocates (64 MiB), one arena more for
//! the moment glibc takes to align one, and the room a link list reserves and never touches.
//! Threads already running (the run's pool) allocate as they start, so their arenas are in the
//! process's address space already. Under an address-space limit too small for the threads'
//! arenas glibc makes none and a run may still succeed, but above it, where the first arenas
//! fit and take the room the network needed, it aborts: the guard asks for the arenas' room.
//! On the same 33 networks the address-space estimate of a one-thread run is 1.11-1.67 times
//! its peak (VmPeak).

use super::limits::{self, Limit};
use crate::scenario::Scenario;
use crate::topology::{Family, Kind, Placement};

/// Bytes of the process before any network: the runtime and the binary's resident pages (it
/// carries the plots' SVG renderer and PDF converter and the report's page writer).
const BASE: f64 = 9.0e6;
/// Bytes per virtual-channel buffer (network links, injection and ejection channels).
const PER_BUFFER: f64 = 21.6;
/// Bytes per network link.
const PER_LINK: f64 = 59.0;
/// Bytes per node (router or m-way channel, or processor where they are more).
const PER_NODE: f64 = 26.4;
/// Bytes per processor.
const PER_PROCESSOR: f64 = 86.5;
/// Bytes more per processor of an m-way network that shares its channel's or router's
/// interface (in the routers, or more than one per channel).
const PER_SHARING_PROCESSOR: f64 = 201.0;
/// Bytes per row of the largest table (a row per channel) while a batch of its rows, at most
/// [`crate::output::BATCH`], is made and written.
const PER_TABLE_ROW: f64 = 139.0;
/// Address space per network link reserved and never touched: a k-ary n-cube's link list has
/// room for two links per router and dimension (a hypercube and a unidirectional torus make
/// one), and a HyperX's grows by doubling.
const RESERVED_PER_LINK: f64 = 16.0;
/// Bytes per message waiting at a source, at worst: the message's record (40 bytes in 9
/// arrays) in vectors that grow by doubling.
const PER_MESSAGE: f64 = 80.0;

/// Bytes per virtual-channel buffer that splitting a point's cycle adds once.
const SPLIT_PER_BUFFER: f64 = 1.5;
/// Bytes per virtual-channel buffer that splitting a point's cycle adds per thread of the split.
const SPLIT_PER_BUFFER_THREAD: f64 = 0.5;

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
    /// The network's own buffers (`Network::buffers`: those of the links and injection
    /// channels), which decide the threads a run splits a point across by itself.
    pub buffered: u64,
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
    let n: f64 = match t.family {
        Family::Dragonfly(d) => d.routers() as f64,
        _ => t.radix.iter().map(|&k| k as f64).product(),
    };
    let links = match (t.family, t.kind) {
        (Family::Dragonfly(d), _) => d.links() as f64,
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
        // A k-ary n-tree: N = k^n links up and N down between each pair of adjacent levels.
        (Family::FatTree, _) => 2.0 * n * (t.radix.len() as f64 - 1.0),
        (Family::MWay(_), _) => 2.0 * n * t.radix.len() as f64,
    };
    let processors = t.processors() as f64;
    let nodes = match t.family {
        Family::MWay(Placement::Channels(_)) | Family::MWay(Placement::Routers) => n + links / 2.0,
        // n·k^(n-1) switches, more than the k^n processors when n > k.
        Family::FatTree => n * t.radix.len() as f64 / t.radix[0] as f64,
        _ => n,
    }
    .max(processors);
    let channels = links + 2.0 * processors;
    // Processors inside m-way routers inject on two channels.
    let injection = match t.family {
        Family::MWay(Placement::Routers) => 2.0 * processors,
        _ => processors,
    };
    let buffers = channels * s.router.vcs as f64;
    let sharing = match t.family {
        Family::MWay(_) if !t.processors_are_routers() => processors,
        _ => 0.0,
    };
    Footprint {
        nodes: nodes as u64,
        links: links as u64,
        buffers: buffers as u64,
        buffered: ((links + injection) * s.router.vcs as f64) as u64,
        bytes: BASE
            + PER_BUFFER * buffers
            + PER_LINK * links
            + PER_NODE * nodes
            + PER_PROCESSOR * processors
            + PER_SHARING_PROCESSOR * sharing
            + PER_TABLE_ROW * channels.min(crate::output::BATCH as f64),
        backlog_bytes: s.run.max_backlog as f64 * processors * PER_MESSAGE,
        result_bytes: RESULT_BASE
            + RESULT_PER_LINK * links
            + RESULT_PER_PROCESSOR * processors
            + RESULT_PER_NODE * nodes,
    }
}

/// A thread's stack (Rust's default, or `RUST_MIN_STACK`) and its guard page, bytes: address
/// space and data segment.
fn thread_stack() -> f64 {
    let stack = std::env::var("RUST_MIN_STACK")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or(2.0 * MIB);
    stack + 4096.0
}

/// The address space glibc reserves for a thread's malloc arena when the thread first
/// allocates (64 MiB on 64-bit), and reserves once more, for a moment, while it aligns it.
const ARENA: f64 = 64.0 * MIB;

/// A mebibyte.
const MIB: f64 = 1024.0 * 1024.0;
/// A gibibyte.
const GIB: f64 = 1024.0 * MIB;

/// What a run of an experiment would hold at once, by each limit's measure.
#[derive(Clone, Debug)]
pub struct Need {
    /// The largest configuration's footprint (its engine and source queues the largest).
    pub biggest: Footprint,
    /// That configuration's index.
    config: usize,
    /// Points run at once.
    pub at_once: usize,
    /// Threads each point's cycle is split across.
    pub split: usize,
    /// Threads the run starts beyond the ones running now: its points' and the pool's, the
    /// interruption handler and the progress report.
    pub threads: usize,
    /// One point of the largest configuration: its engine with the split cycle's state, bytes.
    pub point: f64,
    /// The experiment's points.
    pub points: usize,
    /// All the points' results, bytes.
    pub results: f64,
    /// The engines: each running point twice over (the copy a deadlock check makes) with its
    /// source queues, bytes.
    pub engines: f64,
    /// The address space the process maps now, bytes (0 where it cannot be read).
    mapped: f64,
}

impl Need {
    /// What running `exp` with `--threads threads` (0: one per core) would hold.
    pub fn of(exp: &super::Experiment, threads: usize) -> Need {
        let (config, biggest) = exp
            .configurations
            .iter()
            .map(|c| footprint(&c.scenario))
            .enumerate()
            .max_by(|(_, a), (_, b)| {
                (a.bytes + a.backlog_bytes).total_cmp(&(b.bytes + b.backlog_bytes))
            })
            .expect("one configuration at least");
        let per_point = exp.most_threads_per_point();
        let (points, results) = results(exp);
        let (at_once, free) = super::runner::point_threads(threads, points, per_point);
        let split = match per_point {
            0 => crate::engine::auto_threads(biggest.buffered as usize, free),
            set => set,
        };
        let pool = super::runner::worker_threads(threads, usize::MAX);
        let now = super::limits::process();
        let running = now.map_or(0, |p| p.threads.saturating_sub(1));
        let point = biggest.bytes + split_bytes(&biggest, split);
        Need {
            biggest,
            config,
            at_once,
            split,
            threads: (pool + at_once * split + 2).saturating_sub(running),
            point,
            points,
            results,
            engines: 2.0 * (point + biggest.backlog_bytes) * at_once as f64,
            mapped: now.map_or(0.0, |p| p.mapped),
        }
    }

    /// Bytes a limit of `kind` must leave: resident memory for MemAvailable and a cgroup; with
    /// the new threads' stacks for the data segment; with their stacks and malloc arenas for
    /// the address space.
    pub fn against(&self, kind: &limits::Kind) -> f64 {
        let resident = self.engines + self.results;
        let threads = self.threads as f64;
        match kind {
            limits::Kind::Available | limits::Kind::Cgroup(_) => resident,
            limits::Kind::DataSegment => resident + threads * thread_stack(),
            limits::Kind::AddressSpace => resident + self.reserved(self.at_once),
        }
    }

    /// The address space of one point run alone: the process as it is now, the new threads'
    /// stacks and arenas, and the point (what `ulimit -v` must allow for it).
    pub fn point_address_space(&self) -> f64 {
        self.mapped + self.point + self.reserved(1)
    }

    /// Address space reserved beyond what is resident: the new threads' stacks and malloc
    /// arenas, one arena more while glibc aligns one, and the untouched room of `points`
    /// points' link lists.
    fn reserved(&self, points: usize) -> f64 {
        let links = self.biggest.links as f64 * points as f64;
        self.threads as f64 * (thread_stack() + ARENA) + ARENA + RESERVED_PER_LINK * links
    }

    /// The limit that leaves the least room for this need, and the bytes it must leave; None
    /// when no limit is known.
    pub fn in_force(&self, limits: Vec<Limit>) -> Option<(Limit, f64)> {
        limits
            .into_iter()
            .map(|l| {
                let need = self.against(&l.kind);
                (l, need)
            })
            .min_by(|(a, na), (b, nb)| (a.left - na).total_cmp(&(b.left - nb)))
    }
}

/// Bytes a point's cycle split across `split` threads adds: each partition's own active sets,
/// wait lists and accounts, and the split's records of who holds what.
fn split_bytes(f: &Footprint, split: usize) -> f64 {
    if split < 2 {
        return 0.0;
    }
    f.buffers as f64 * (SPLIT_PER_BUFFER + SPLIT_PER_BUFFER_THREAD * split as f64)
}

/// Refuses an experiment that a run with `--threads threads` (0: one per core) could not fit
/// under the limit in force, counting each running point twice (for the copy of its engine a
/// deadlock check makes) and every point's results: the message names the file, the counts
/// and keys that drive the estimate, the estimate, the limit and what it leaves, and the fixes.
pub fn check_fits(exp: &super::Experiment, threads: usize) -> crate::error::Result<()> {
    let need = Need::of(exp, threads);
    let Some((limit, wanted)) = need.in_force(limits::limits()) else {
        return Ok(());
    };
    if wanted <= limit.left {
        return Ok(());
    }
    let over = format!(
        "{} in all{}, more than the {} left by {}",
        shown(wanted),
        reservations(&need, &limit.kind),
        shown(limit.left),
        limit.what()
    );
    let fix = format!("{}, or --force to try anyway", limit.raise());
    let f = &need.biggest;
    let message = if need.results > need.engines {
        format!(
            "{}: [traffic] flit_rates, seeds and the sweep: the results of its {} points take about {} (16 bytes per link and 32 per processor a point), held until the tables are written, {over}; fix: fewer loads, seeds or swept values per run (run the sweep as several scenarios), {fix}",
            exp.file,
            need.points,
            shown(need.results)
        )
    } else if f.backlog_bytes > f.bytes {
        format!(
            "{}: [run] max_backlog: a saturated point's source queues can hold {} ({} messages per processor), {} at once and twice with the copy a deadlock check makes, {over}; fix: a smaller max_backlog (the default, 100, stops a saturated point long before), {fix}",
            exp.file,
            shown(f.backlog_bytes),
            exp.configurations[need.config].scenario.run.max_backlog,
            need.at_once
        )
    } else {
        format!(
            "{}: [topology] and [router] vcs: a point needs about {} ({} nodes, {} links, {} virtual-channel buffers), twice that with the copy a deadlock check makes, {} at once, {over}; fix: a smaller network or fewer vcs, fewer threads (--threads 1), {fix}",
            exp.file,
            shown(need.point),
            f.nodes,
            f.links,
            f.buffers,
            need.at_once
        )
    };
    Err(crate::error::Error::Input(message))
}

/// What the run's new threads add under a limit of `kind`, as the refusal says it.
fn reservations(need: &Need, kind: &limits::Kind) -> String {
    let n = need.threads;
    match kind {
        limits::Kind::AddressSpace => format!(
            " with the stacks and malloc arenas of the {n} threads the run starts ({} of address space each)",
            shown(thread_stack() + ARENA)
        ),
        limits::Kind::DataSegment => format!(
            " with the stacks of the {n} threads the run starts ({} each)",
            shown(thread_stack())
        ),
        limits::Kind::Available | limits::Kind::Cgroup(_) => String::new(),
    }
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

/// Bytes as messages show them: MiB or GiB, to three significant digits.
pub fn shown(bytes: f64) -> String {
    let (figure, unit) = if bytes >= GIB {
        (bytes / GIB, "GiB")
    } else {
        (bytes / MIB, "MiB")
    };
    let decimals = if figure >= 99.95 {
        0
    } else if figure >= 9.995 {
        1
    } else {
        2
    };
    format!("{figure:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::footprint;
    use crate::network::Network;
    use crate::scenario::Scenario;

    #[test]
    fn the_buffers_a_split_counts_are_the_networks() {
        for topology in [
            "kind = \"torus\"\nk = 5\nn = 3\nlinks = \"bidirectional\"",
            "kind = \"torus\"\nk = 4\nn = 2\nlinks = \"unidirectional\"",
            "kind = \"mesh\"\nk = 6\nn = 2",
            "kind = \"hypercube\"\nn = 6",
            "kind = \"hyperx\"\nk = [4, 3]",
            "kind = \"mway\"\nk = 4\nn = 2\nwrap = \"torus\"\nprocessors = \"channels\"\nprocessor_factor = 2",
            "kind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"\nprocessors = \"routers\"",
        ] {
            let text = format!(
                "name = \"f\"\n[topology]\n{topology}\n[router]\nvcs = 3\n[traffic]\nflit_rates = [0.01]\n"
            );
            let s = Scenario::from_toml(&text, "f.toml").unwrap();
            let net = Network::for_scenario(&s);
            assert_eq!(footprint(&s).buffered, net.buffers() as u64, "{topology}");
        }
    }
}
