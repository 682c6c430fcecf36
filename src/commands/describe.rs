//! `check` and `info`: a scenario's network, router, routing and traffic, without running it.

use flitsim::experiment::Experiment;
use flitsim::{Result, Scenario};
use std::path::Path;

/// The built network's properties (of the first configuration when the sweep has several), as
/// a table or, with `csv`, as property,value rows.
pub fn info(scenario: &Path, csv: bool, sets: &[String]) -> Result<()> {
    let exp = Experiment::load(scenario, sets, None)?;
    let s = exp.base();
    let net = flitsim::network::Network::for_scenario(s);
    if csv {
        out!("property,value");
    }
    let rows = net.topology.properties().rows();
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        if csv {
            out!("{k},{v}");
        } else {
            out!("{k:>width$}  {v}");
        }
    }
    Ok(())
}

/// Validates every configuration of the experiment, describes the first one's network,
/// router, routing and traffic, and counts the points and their cycles.
pub fn check(path: &Path, sets: &[String], force: bool) -> Result<()> {
    let exp = Experiment::load(path, sets, None)?;
    if !force {
        flitsim::experiment::footprint::check_fits(&exp, 1)?;
    }
    out!("{}: ok", path.display());
    describe(exp.base())?;
    check_experiment(&exp);
    check_threads(&exp);
    check_time(&exp);
    check_bounds(&exp);
    Ok(())
}

/// The expected run time, from a quick calibration: the first configuration's engine at its
/// highest load, stepped for 0.2 s (or 20,000 cycles), gives cycles per second; each point's
/// warm-up and window cycles, scaled by its network's size against the calibrated one's, over
/// that rate, shared by the worker threads. Networks estimated above 1 GiB are not built.
fn check_time(exp: &Experiment) {
    use flitsim::experiment::footprint::footprint;
    let s = exp.base();
    if let Some(trace) = &s.traffic.trace {
        out!(
            "  run time: not estimated: a replay runs at least the trace's {} cycles, longer as dependencies and congestion delay its messages",
            trace.last_scheduled() + 1
        );
        return;
    }
    if footprint(s).bytes > (1u64 << 30) as f64 {
        out!("  run time: not calibrated (the network is large to build just to time it)");
        return;
    }
    let rate = s.traffic.rates.iter().copied().fold(0.0, f64::max);
    let mut e = flitsim::engine::build_engine(s, rate, s.seeds[0]);
    let start = std::time::Instant::now();
    let mut cycles = 0u64;
    while cycles < 20_000 && start.elapsed().as_secs_f64() < 0.2 {
        e.step();
        cycles += 1;
    }
    let per_second = cycles as f64 / start.elapsed().as_secs_f64().max(1e-9);
    let nodes0 = s.nodes() as f64;
    let work: f64 = exp
        .points()
        .iter()
        .map(|&p| {
            let c = exp.scenario(p);
            flitsim::experiment::planned_cycles(&c.run) as f64 * c.nodes() as f64 / nodes0
        })
        .sum();
    let threads = flitsim::experiment::runner::worker_threads(0, exp.points().len());
    let seconds = work / per_second / threads as f64;
    out!(
        "  run time: about {} ({:.0} cycles/s calibrated on the first configuration at its highest load, {threads} thread(s); points that hit their drain cap{} take longer)",
        duration(seconds),
        per_second,
        longer(exp)
    );
}

/// What else makes points run longer than the estimate: an automatic warm-up beyond its
/// shortest, 5,000 cycles, and a window lengthened for precision.
fn longer(exp: &flitsim::experiment::Experiment) -> &'static str {
    let runs = || exp.points().into_iter().map(|p| &exp.scenario(p).run);
    match (
        runs().any(|r| r.auto_warmup.is_some()),
        runs().any(|r| r.precision.is_some()),
    ) {
        (false, false) => "",
        (true, false) => " or warm up automatically for more than 5,000 cycles",
        (false, true) => " or lengthen their window for precision",
        (true, true) => {
            ", warm up automatically for more than 5,000 cycles or lengthen their window for precision"
        }
    }
}

/// The threads each configuration's points split their cycle across in a run with the default
/// `--threads`: as the scenario sets them, or by the network's buffers (`auto_threads`) out
/// of the threads free for a point. Once when every configuration's are the same.
fn check_threads(exp: &Experiment) {
    let per_point = exp.most_threads_per_point();
    let (_, free) = flitsim::experiment::runner::point_threads(0, exp.points().len(), per_point);
    let lines: Vec<String> = exp
        .configurations
        .iter()
        .map(|c| threads_per_point(&c.scenario, free))
        .collect();
    if lines.iter().all(|l| *l == lines[0]) {
        out!("  {}", lines[0]);
        return;
    }
    for (conf, line) in exp.configurations.iter().zip(&lines) {
        out!("  {line} at {}", coordinates(exp, &conf.coordinates));
    }
}

/// `check`'s account of the threads a point of `s` is split across, `free` threads free for it.
fn threads_per_point(s: &Scenario, free: usize) -> String {
    use flitsim::engine::{AUTO_SPLIT_BUFFERS, RouterModel, auto_threads};
    if !RouterModel::of(s).splits() {
        return "threads per point: 1 (early free and router or link timing run on one thread)"
            .to_string();
    }
    if s.run.threads_per_point > 0 {
        return format!("threads per point: {} (set)", s.run.threads_per_point);
    }
    let buffers = flitsim::experiment::footprint::footprint(s).buffered as usize;
    if buffers < AUTO_SPLIT_BUFFERS {
        return format!(
            "threads per point: 1 (automatic: {} buffers, fewer than the {} a split needs)",
            grouped(buffers),
            grouped(AUTO_SPLIT_BUFFERS)
        );
    }
    format!(
        "threads per point: {} (automatic: {} buffers, at most one thread per 2^20 buffers, {free} free)",
        auto_threads(buffers, free),
        grouped(buffers)
    )
}

/// A count with its thousands separated by commas (`3,670,016`).
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A configuration's place in the sweep: `key = value, ...`.
fn coordinates(exp: &Experiment, values: &[String]) -> String {
    let pairs: Vec<String> = exp
        .axes
        .iter()
        .zip(values)
        .map(|(a, v)| format!("{} = {v}", a.key))
        .collect();
    pairs.join(", ")
}

/// Seconds in words: s, min or h.
fn duration(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.1} s")
    } else if s < 7200.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{:.1} h", s / 3600.0)
    }
}

/// A trace's file, messages, nodes and span.
fn check_trace(trace: &flitsim::spec::TraceSpec, s: &Scenario) {
    let m = &trace.messages;
    let local = (0..m.len()).filter(|&i| m.src[i] == m.dst[i]).count();
    let flit_bytes = match trace.flit_bytes {
        0 => String::new(),
        b => format!(", {b} bytes per flit"),
    };
    out!(
        "  trace: {} ({}{flit_bytes}, hash {}): {} messages, {} dependencies, {local} to their own source; nodes 0..{} (trace node i is processor i of {}); scheduled in cycles {}..={} (speedup {})",
        trace.file,
        trace.format.name(),
        trace.hash,
        m.len(),
        m.waiting.len(),
        m.nodes.saturating_sub(1),
        s.nodes(),
        (0..m.len()).map(|i| trace.scheduled(i)).min().unwrap_or(0),
        trace.last_scheduled(),
        trace.speedup
    );
    let t = &s.traffic;
    out!(
        "  lengths: {:?} flits with shares {:?} (mean {}); one replay x {} seed(s)",
        t.lengths,
        t.length_probabilities,
        t.mean_length(),
        s.seeds.len()
    );
}

/// The throughput bound of each configuration (`model::bound::throughput_bound`), where flitsim
/// has one (none for a trace, which gives its own load).
fn check_bounds(exp: &Experiment) {
    if exp.base().traffic.trace.is_some() {
        return;
    }
    for conf in &exp.configurations {
        let at = if exp.axes.is_empty() {
            String::new()
        } else {
            format!(" at {}", coordinates(exp, &conf.coordinates))
        };
        for v in conf.scenario.variants() {
            if let Some(b) = flitsim::model::bound::throughput_bound(&v) {
                out!(
                    "  throughput bound{at}: {:.4} flits/node/cycle ({}): saturation lies at or below it",
                    b.flits,
                    b.why
                );
            }
        }
    }
}

/// The sweep, the number of points, the most cycles they simulate and a point's memory.
fn check_experiment(exp: &Experiment) {
    use flitsim::experiment::footprint::{Need, shown};
    let need = Need::of(exp, 1);
    let f = &need.biggest;
    out!(
        "  memory: about {} per point ({} nodes, {} links, {} virtual-channel buffers); about {} of address space with its threads' stacks and malloc arenas (a run with --threads 1)",
        shown(need.point),
        f.nodes,
        f.links,
        f.buffers,
        shown(need.point_address_space())
    );
    match need.in_force(flitsim::experiment::limits::limits()) {
        Some((limit, wanted)) => out!(
            "  memory limit in force: {}, {} left; a run with --threads 1 needs about {} under it",
            limit.what(),
            shown(limit.left),
            shown(wanted)
        ),
        None => out!("  memory limit in force: none found"),
    }
    let (points, results) = flitsim::experiment::footprint::results(exp);
    out!(
        "  results: about {} for its {points} point(s), held until the tables are written",
        shown(results)
    );
    for a in &exp.axes {
        out!("  sweep: {} = [{}]", a.key, a.values.join(", "));
    }
    let points = exp.points();
    let cycles: u64 = points.iter().map(|&p| exp.max_cycles(p)).sum();
    let s = exp.base();
    if s.traffic.trace.is_some() {
        out!(
            "  points: {} ({} configuration(s) x {} seed(s)), one replay of the trace each",
            points.len(),
            exp.configurations.len(),
            s.seeds.len()
        );
        return;
    }
    out!(
        "  points: {} ({} configuration(s) x {} load(s) x {} seed(s)), at most {} simulated cycles in all",
        points.len(),
        exp.configurations.len(),
        s.traffic.rates.len(),
        s.seeds.len(),
        cycles
    );
}

/// The network, router, routing and traffic of one configuration.
fn describe(s: &Scenario) -> Result<()> {
    let net = flitsim::network::Network::for_scenario(s);
    if let flitsim::topology::Topology::MWay(_) = &net.topology {
        let p = net.topology.properties();
        let radix: Vec<String> = p.radix.iter().map(|k| k.to_string()).collect();
        out!(
            "  network: {} {}, {} processors on {}, {} routers, {} channels of m = {} ways, diameter {}, mean distance {:.4} (channel crossings)",
            p.topology,
            radix.join("x"),
            p.processors,
            p.processors_on.unwrap_or_default(),
            p.routers,
            p.channels,
            p.m.unwrap_or(0),
            p.diameter,
            p.mean_distance
        );
        out!(
            "  router: buffer sets of {} buffers of {} flits, selection {}",
            s.router.vcs,
            s.router.buffer_depth,
            s.routing.selection.name()
        );
        out!("  routing: {}", s.routing.algorithm.name());
        return check_traffic(s);
    }
    if let Some(f) = net.topology.fat_tree() {
        return describe_fat_tree(s, f);
    }
    let p = net.topology.properties();
    // Only a torus says which way its links go (meshes, hypercubes and HyperX: both ways).
    let links = match p.links {
        Some(l) if p.topology == "torus" => format!(" {l}"),
        _ => String::new(),
    };
    // A topology without dimensions is named by its own parameters ("p = 4, a = 8, ...").
    let shape = if p.radix.is_empty() {
        let named: Vec<String> = p.shape.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        format!("({})", named.join(", "))
    } else {
        format!("{:?}", p.radix)
    };
    let nodes = match p.processors == p.routers {
        true => format!("{} nodes", p.processors),
        false => format!("{} processors on {} routers", p.processors, p.routers),
    };
    out!(
        "  network: {} {shape}{links}, {nodes}, {} links, diameter {}, mean distance {:.4}",
        p.topology,
        p.channels,
        p.diameter,
        p.mean_distance
    );
    router_line(s);
    let routing = flitsim::routing::Routing::new(s, &net);
    let a = routing.adaptive_vcs();
    let classes = if a > 0 {
        format!(
            ", class a = virtual channels 0..{a}, escape class b = {a}..{}, selection {}",
            s.router.vcs,
            s.routing.selection.name()
        )
    } else {
        String::new()
    };
    let timeout = if s.routing.algorithm == flitsim::scenario::Algorithm::DuatoTimeout {
        format!(", time-out {} cycles", s.routing.timeout)
    } else {
        String::new()
    };
    // On a torus, the conventions of dimension order (and of Duato's escape class).
    use flitsim::scenario::Algorithm;
    let wraps = net.topology.cube().is_some_and(|t| t.wraps());
    // Ties exist only half-way round the even rings of a bidirectional torus.
    let ties = match net.topology.cube().is_some_and(|t| t.has_ties()) {
        true => format!(", ties {}", s.routing.tie.name()),
        false => String::new(),
    };
    let conventions = match s.routing.algorithm {
        Algorithm::Dor if wraps => format!("{ties}, dateline {}", s.routing.dateline.name()),
        Algorithm::Duato | Algorithm::DuatoTimeout if wraps => {
            format!("{ties} (escape class b: dateline by position)")
        }
        _ => String::new(),
    };
    out!(
        "  routing: {}{classes}{timeout}{conventions}",
        s.routing.algorithm.name()
    );
    check_traffic(s)
}

/// The router's line: its buffers, and the timing options when set (the papers' one-cycle hop
/// is left unsaid).
fn router_line(s: &Scenario) {
    let r = &s.router;
    let mut timing = String::new();
    if r.delay > 0 {
        timing += &format!(", router delay {} cycle(s)", r.delay);
    }
    if r.link_latency > 1 {
        timing += &format!(", links of {} cycles", r.link_latency);
    }
    if r.crossbar == flitsim::scenario::Crossbar::PerPort {
        timing += ", one crossbar input per port";
    }
    out!(
        "  router: {} virtual channels of {} flits per physical channel{timing}",
        r.vcs,
        r.buffer_depth
    );
}

/// The network, router, routing and traffic of a fat tree.
fn describe_fat_tree(s: &Scenario, f: &flitsim::topology::FatTree) -> Result<()> {
    let p = f.properties();
    out!(
        "  network: fat-tree {}-ary {}-tree, {} processors ({} on each of {} leaf switches), {} switches of {} ports down and {} up, {} links, diameter {} links between leaf switches, mean distance {:.4}",
        f.k,
        f.n,
        p.processors,
        f.k,
        p.processors / f.k as u64,
        p.routers,
        f.k,
        f.k,
        p.channels,
        p.diameter,
        p.mean_distance
    );
    router_line(s);
    let up = s.routing.up.map_or("", |u| u.name());
    out!(
        "  routing: {}, up ports {up}, selection {}",
        s.routing.algorithm.name(),
        s.routing.selection.name()
    );
    check_traffic(s)
}

/// `check`'s account of the traffic and run control.
fn check_traffic(s: &Scenario) -> Result<()> {
    let t = &s.traffic;
    if let Some(trace) = &t.trace {
        check_trace(trace, s);
        return Ok(());
    }
    let lengths = if t.lengths.len() == 1 {
        format!("{} flits/message", t.lengths[0])
    } else {
        format!(
            "message lengths {:?} flits with probabilities {:?} (mean {})",
            t.lengths,
            t.length_probabilities,
            t.mean_length()
        )
    };
    let mixture = if t.pattern_fractions != [1.0] {
        format!(
            " (fraction x = {:?}, the rest uniform)",
            t.pattern_fractions
        )
    } else {
        String::new()
    };
    let mixture = match t.pattern {
        flitsim::scenario::Pattern::Hotspot { node, .. } => format!(
            " to node {node} with fraction h = {:?}{mixture}",
            t.hotspot_fractions
        ),
        flitsim::scenario::Pattern::Matrix => match &t.matrix {
            Some(m) => format!(
                " {} ({}, hash {}){mixture}",
                m.file,
                if m.absolute {
                    "absolute, flits/cycle"
                } else {
                    "relative rates"
                },
                m.hash
            ),
            None => mixture,
        },
        _ => mixture,
    };
    // Poisson, the default, is left unsaid (as before the key existed).
    let lengths = match t.process {
        flitsim::scenario::Process::Poisson => lengths,
        flitsim::scenario::Process::OnOff => format!(
            "{lengths}, on-off arrivals (bursts of {} messages on average)",
            t.options.burst_length
        ),
        p => format!("{lengths}, {} arrivals", p.name()),
    };
    // So is one message at a time per source.
    let lengths = match t.source_concurrency {
        1 => lengths,
        c => format!("{lengths}, up to {c} messages injected at once per source"),
    };
    // And one-way messages.
    let (r, n, half) = (
        t.options.reply_length,
        t.options.max_outstanding,
        s.router.vcs / 2,
    );
    let lengths = match (r, n) {
        (0, _) => lengths,
        (r, 0) => format!(
            "{lengths}, each answered by a {r}-flit reply (requests on virtual channels 0..{half}, replies on {half}..{})",
            2 * half
        ),
        (r, n) => format!(
            "{lengths}, each answered by a {r}-flit reply (requests on virtual channels 0..{half}, replies on {half}..{}), at most {n} open requests per processor",
            2 * half
        ),
    };
    out!(
        "  traffic: {}{mixture}, {lengths}, {} load point(s) x {} seed(s)",
        t.pattern.name(),
        t.rates.len(),
        s.seeds.len()
    );
    Ok(())
}
