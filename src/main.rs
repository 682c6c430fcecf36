//! The flitsim command line: parse, call the library, map errors to exit codes.

use clap::{Parser, Subcommand};
use flitsim::model::Outcome;
use flitsim::output::validation::{ModelRow, model_csv, validation_csv, validation_plot};
use flitsim::{Error, Result, Scenario};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(
    name = "flitsim",
    version,
    about = "Flit-level simulator of wormhole-switched networks"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario's sweep and write CSVs to results/<name>/ (or --out).
    Run(RunArgs),
    /// Validate a scenario and describe its network, without running it.
    Check { scenario: PathBuf },
    /// The built network's properties (processors, routers, channels, degree, diameter,
    /// mean distance), as a table or, with --csv, as property,value rows.
    Info {
        scenario: PathBuf,
        #[arg(long)]
        csv: bool,
    },
    /// Draw latency, throughput, latency std dev and traffic plots (SVG) from summary.csv files.
    Plot {
        /// One results directory, or several to overlay (then give --out).
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Where to write the plots (default: the one results directory).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The analytical model's latency at each load of the scenario, and its saturation load.
    Model {
        scenario: PathBuf,
        /// Output directory for model.csv (default: results/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Simulation and model on the same loads: validation.csv and validation.svg.
    Validate(RunArgs),
}

/// Arguments of the commands that simulate a scenario.
#[derive(clap::Args)]
struct RunArgs {
    scenario: PathBuf,
    /// Output directory (default: results/<scenario name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Seed, replacing the scenario's seed(s).
    #[arg(long)]
    seed: Option<u64>,
    /// No progress bar and no table.
    #[arg(long)]
    quiet: bool,
    /// Worker threads (default: one per core); results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

/// println! that ends the program quietly when stdout is closed (e.g. piped into `head`).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

fn main() {
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli.command) {
        match e {
            Error::Input(_) => eprintln!("flitsim: error: {e}"),
            // The report starts "deadlock at cycle N".
            Error::Deadlock(_) => eprintln!("flitsim: {e}"),
            Error::Io(_) => eprintln!("flitsim: i/o error: {e}"),
        }
        std::process::exit(e.exit_code());
    }
}

fn dispatch(cmd: Command) -> Result<()> {
    match cmd {
        Command::Run(args) => run(&args),
        Command::Check { scenario } => check(&scenario),
        Command::Info { scenario, csv } => {
            let s = Scenario::load(&scenario)?;
            let net = flitsim::network::Network::for_scenario(&s);
            if csv {
                out!("property,value");
            }
            for (k, v) in net.topology.properties().rows() {
                if csv {
                    out!("{k},{v}");
                } else {
                    out!("{k:>14}  {v}");
                }
            }
            Ok(())
        }
        Command::Model { scenario, out } => model(&scenario, out),
        Command::Validate(args) => validate(&args),
        Command::Plot { results, out } => {
            let files = match (&results[..], out) {
                ([one], None) => flitsim::output::plot::plot_dir(one)?,
                (_, Some(out)) => flitsim::output::plot::plot_dirs(&results, &out)?,
                (_, None) => {
                    return Err(Error::Input(
                        "plot: several results directories need one place for the combined plots; fix: add --out DIR".into(),
                    ));
                }
            };
            for f in files {
                out!("wrote {f}");
            }
            Ok(())
        }
    }
}

/// A simulating command's scenario: its text (read once, so the text validated is the text
/// copied next to the results), the validated scenario with `--seed` applied, and the output
/// directory.
fn load_run(args: &RunArgs) -> Result<(String, Scenario, PathBuf)> {
    let text = Scenario::read(&args.scenario)?;
    let mut s = Scenario::from_toml(&text, &args.scenario.display().to_string())?;
    if let Some(seed) = args.seed {
        s.seeds = vec![seed];
    }
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&s.name));
    Ok((text, s, dir))
}

/// Runs the sweep, with a progress bar on a terminal unless `--quiet`.
fn sweep(args: &RunArgs, s: &Scenario) -> Result<Vec<flitsim::stats::PointResult>> {
    let progress = !args.quiet && std::io::stderr().is_terminal();
    flitsim::sweep::run_sweep(s, args.threads, progress)
}

fn run(args: &RunArgs) -> Result<()> {
    let (text, s, dir) = load_run(args)?;
    let results = sweep(args, &s)?;
    flitsim::output::write_results(&dir, &s, &text, &results)?;
    if !args.quiet {
        out!(
            "{:>6} {:>6} {:>10} {:>10} {:>10} {:>10} {:>8}  saturated",
            "x",
            "h",
            "rate",
            "offered",
            "accepted",
            "latency",
            "ci95"
        );
        for r in &results {
            out!(
                "{} {:>10.6} {:>10.4} {:>10.4} {:>10.2} {:>8.2}  {}",
                variant_cells(r),
                r.rate,
                r.offered_flits(),
                r.accepted_flits,
                r.stats.mean(),
                r.stats.ci95(),
                if r.saturated() { r.stop.name() } else { "no" }
            );
        }
        out!(
            "results written to {}/ (summary.csv, channels.csv, nodes.csv, histogram.csv, hops.csv, vc_occupancy.csv{})",
            dir.display(),
            if s.topology.mway().is_some() {
                ", mway_channels.csv"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// A point's traffic variant in the printed tables: x and h (`-` unless hotspot), 6 wide each.
fn variant_cells(r: &flitsim::stats::PointResult) -> String {
    let h = r
        .hotspot_fraction
        .map(|h| format!("{h}"))
        .unwrap_or("-".into());
    format!("{:>6} {h:>6}", r.pattern_fraction)
}

fn check(path: &Path) -> Result<()> {
    let s = Scenario::load(path)?;
    let net = flitsim::network::Network::for_scenario(&s);
    out!("{}: ok", path.display());
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
        return check_traffic(&s);
    }
    let t = net.cube();
    out!(
        "  network: {} {:?}{}, {} nodes, {} links, diameter {}, mean distance {:.4}",
        t.kind.name(),
        t.radix,
        if t.kind == flitsim::topology::Kind::Torus {
            if t.bidirectional {
                " bidirectional"
            } else {
                " unidirectional"
            }
        } else {
            ""
        },
        t.nodes,
        t.links.len(),
        t.diameter(),
        t.mean_distance()
    );
    out!(
        "  router: {} virtual channels of {} flits per physical channel",
        s.router.vcs,
        s.router.buffer_depth
    );
    let routing = flitsim::routing::Routing::new(&s, &net);
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
    out!(
        "  routing: {}{classes}{timeout}",
        s.routing.algorithm.name()
    );
    check_traffic(&s)
}

/// `check`'s account of the traffic and run control.
fn check_traffic(s: &Scenario) -> Result<()> {
    let t = &s.traffic;
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
        _ => mixture,
    };
    out!(
        "  traffic: {}{mixture}, {lengths}, {} load point(s) x {} seed(s)",
        t.pattern.name(),
        t.rates.len(),
        s.seeds.len()
    );
    Ok(())
}

/// The scenario's model, or a bad-input error naming the file and the models there are.
fn model_of(path: &Path, s: &Scenario) -> Result<flitsim::model::Model> {
    flitsim::model::Model::for_scenario(s).map_err(|why| {
        Error::Input(format!(
            "{}: no analytical model covers this scenario: {why}; fix: models exist for {}",
            path.display(),
            flitsim::model::coverage()
        ))
    })
}

/// The model's rows for every load point (variants × rates × seeds, as the sweep).
fn model_rows(m: &flitsim::model::Model, s: &Scenario) -> Vec<ModelRow> {
    flitsim::sweep::points(s)
        .into_iter()
        .map(|(_, rate, _)| ModelRow {
            rate,
            outcome: m.predict(rate),
        })
        .collect()
}

fn model(path: &Path, out: Option<PathBuf>) -> Result<()> {
    let s = Scenario::load(path)?;
    let m = model_of(path, &s)?;
    let rows = model_rows(&m, &s);
    let max_rate = 1.0 / s.traffic.mean_length();
    let sat = m.saturation(max_rate);
    let dir = out.unwrap_or_else(|| Path::new("results").join(&s.name));
    flitsim::output::write_file(&dir, "model.csv", &model_csv(&rows, sat))?;
    out!("model: {}", m.name());
    out!(
        "{:>10} {:>12} {:>12} {:>10}",
        "rate",
        "latency",
        "network",
        "vbar"
    );
    for r in &rows {
        match &r.outcome {
            Outcome::Stable(p) => out!(
                "{:>10.6} {:>12.2} {:>12.2} {:>10.4}",
                r.rate,
                p.latency,
                p.network_latency,
                p.vbar.unwrap_or(f64::NAN)
            ),
            Outcome::Saturated => out!("{:>10.6} {:>12}", r.rate, "saturated"),
        }
    }
    if sat >= max_rate {
        out!("model saturation: none below the injection channel's capacity (1 flit/node/cycle)");
    } else {
        out!(
            "model saturation: {sat:.6} messages/node/cycle ({:.4} flits/node/cycle)",
            sat * s.traffic.mean_length()
        );
    }
    out!("written to {}/model.csv", dir.display());
    Ok(())
}

fn validate(args: &RunArgs) -> Result<()> {
    let (text, s, dir) = load_run(args)?;
    let points = flitsim::sweep::points(&s);
    // Channel rates and mean distances side by side wherever every point has them; a latency
    // model is needed only when they are missing.
    let channels = points
        .iter()
        .map(|(v, _, _)| flitsim::model::LinkRates::for_scenario(v))
        .collect::<Option<Vec<_>>>();
    let m = match (model_of(&args.scenario, &s), &channels) {
        (Ok(m), _) => Some(m),
        (Err(_), Some(_)) => None,
        (Err(e), None) => return Err(e),
    };
    let results = sweep(args, &s)?;
    flitsim::output::write_results(&dir, &s, &text, &results)?;
    let mut written = vec![];
    if let Some(m) = &m {
        validate_latency(args, &s, &dir, m, &results)?;
        written.extend(["validation.csv", "validation.svg", "model.csv"]);
        if m.gives_vc_occupancy() {
            written.push("validation_vc.csv");
        }
    }
    if let Some(channels) = channels {
        let rates: Vec<Vec<f64>> = points
            .iter()
            .zip(&channels)
            .map(|((v, rate, seed), c)| c.rates(v, *rate, *seed))
            .collect();
        let distance: Vec<f64> = points
            .iter()
            .map(|(v, _, seed)| flitsim::model::mean_distance(v, *seed).unwrap_or(f64::NAN))
            .collect();
        let net = flitsim::network::Network::for_scenario(&s);
        flitsim::output::write_file(
            &dir,
            "validation_channels.csv",
            &flitsim::output::validation::validation_channels_csv(
                &results,
                net.topology.links(),
                &rates,
            ),
        )?;
        flitsim::output::write_file(
            &dir,
            "validation_distance.csv",
            &flitsim::output::validation::validation_distance_csv(&results, &distance),
        )?;
        written.extend(["validation_channels.csv", "validation_distance.csv"]);
        if !args.quiet {
            validate_channels_table(&channels, &results, &rates, &distance);
        }
    }
    if !args.quiet {
        out!(
            "written to {}/ ({} and the run's CSVs)",
            dir.display(),
            written.join(", ")
        );
    }
    Ok(())
}

/// The channel-rate and mean-distance comparison of `validate`, one line per point: the
/// model's name, the mean distance both ways, the mean and largest |relative error| of the
/// link rates (over links the model loads).
fn validate_channels_table(
    channels: &[flitsim::model::LinkRates],
    results: &[flitsim::stats::PointResult],
    rates: &[Vec<f64>],
    distance: &[f64],
) {
    let mut names: Vec<&str> = channels.iter().map(|c| c.name()).collect();
    names.dedup();
    out!("channel rates: {}", names.join("; "));
    out!(
        "{:>6} {:>6} {:>10} {:>9} {:>9} {:>11} {:>11}",
        "x",
        "h",
        "rate",
        "hops",
        "model",
        "mean|err|",
        "max|err|"
    );
    for ((r, m), d) in results.iter().zip(rates).zip(distance) {
        let errs: Vec<f64> = r
            .link_msgs
            .iter()
            .zip(m)
            .filter(|(_, m)| **m > 0.0)
            .map(|(s, m)| ((s - m) / m).abs())
            .collect();
        let mean = errs.iter().sum::<f64>() / errs.len() as f64;
        let max = errs.iter().copied().fold(f64::NAN, f64::max);
        out!(
            "{} {:>10.6} {:>9.4} {:>9.4} {:>10.1}% {:>10.1}%",
            variant_cells(r),
            r.rate,
            r.stats.hops_mean(),
            d,
            100.0 * mean,
            100.0 * max
        );
    }
}

/// `validate` with a latency model: model.csv, validation.csv, validation.svg and, where the
/// model gives P_v, validation_vc.csv; the latency table unless `--quiet`.
fn validate_latency(
    args: &RunArgs,
    s: &Scenario,
    dir: &Path,
    m: &flitsim::model::Model,
    results: &[flitsim::stats::PointResult],
) -> Result<()> {
    let rows = model_rows(m, s);
    let sat = m.saturation(1.0 / s.traffic.mean_length());
    flitsim::output::write_file(dir, "model.csv", &model_csv(&rows, sat))?;
    flitsim::output::write_file(dir, "validation.csv", &validation_csv(results, &rows))?;
    validation_plot(&dir.join("validation.svg"), results, &rows)?;
    if m.gives_vc_occupancy() {
        flitsim::output::write_file(
            dir,
            "validation_vc.csv",
            &flitsim::output::validation::validation_vc_csv(results, &rows),
        )?;
    }
    if !args.quiet {
        out!("model: {}", m.name());
        out!(
            "{:>10} {:>10} {:>8} {:>10} {:>9}",
            "rate",
            "sim",
            "ci95",
            "model",
            "rel_err"
        );
        for (r, mr) in results.iter().zip(&rows) {
            let model = match &mr.outcome {
                Outcome::Stable(p) => format!("{:.2}", p.latency),
                Outcome::Saturated => "saturated".into(),
            };
            let sim = if r.saturated() {
                "saturated".to_string()
            } else {
                format!("{:.2}", r.stats.mean())
            };
            let rel = match (&mr.outcome, flitsim::output::validation::shown(r)) {
                (Outcome::Stable(p), true) => {
                    format!(
                        "{:+.1}%",
                        100.0 * (p.latency - r.stats.mean()) / r.stats.mean()
                    )
                }
                _ => "-".into(),
            };
            out!(
                "{:>10.6} {:>10} {:>8.2} {:>10} {:>9}",
                r.rate,
                sim,
                r.stats.ci95(),
                model,
                rel
            );
        }
        out!("model saturation: {sat:.6} messages/node/cycle");
    }
    Ok(())
}
