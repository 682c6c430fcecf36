//! The commands: each loads its scenario, calls the library and prints its account.

/// println! that ends the program quietly when stdout is closed (e.g. piped into `head`).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod describe;
mod merge;
mod model;
mod plot;
mod report;
mod run;
mod saturation;
mod slurm;
mod validate;

pub use describe::{check, info};
pub use merge::merge;
pub use model::model;
pub use plot::{plot, scale};
pub use report::report;
pub use run::run;
pub use saturation::saturation;
pub use slurm::slurm;
pub use validate::validate;

use crate::RunArgs;
use flitsim::Result;
use flitsim::experiment::Experiment;
use flitsim::experiment::directory::{Claim, OutDir, Owner};
use flitsim::experiment::runner::{Outcome, RunOptions};
use flitsim::output::terminal::PointTable;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Prints each line with `out!`.
fn out_lines(lines: Vec<String>) {
    for line in lines {
        out!("{line}");
    }
}

/// A simulating command's experiment: the scenario file with `--set` and `--seed` applied.
pub(crate) fn load_experiment(args: &RunArgs) -> Result<Experiment> {
    let exp = Experiment::load(&args.scenario, &args.sets.sets, args.seed)?;
    if !args.force {
        flitsim::experiment::footprint::check_fits(&exp, args.threads)?;
    }
    Ok(exp)
}

/// Refuses a trace replay for `command`, which studies sources at offered loads (a model, the
/// saturation load) that a trace, giving its own messages, does not have.
pub(crate) fn refuse_trace(exp: &Experiment, command: &str) -> Result<()> {
    if exp.base().traffic.trace.is_none() {
        return Ok(());
    }
    Err(flitsim::Error::Input(format!(
        "{}: [traffic] trace: `flitsim {command}` studies sources at offered loads, and a trace replay has none; fix: replay it with `flitsim run`, or remove trace",
        exp.file
    )))
}

/// The output directory (`--out`, or results/<name>), opened for `owner` (with `--replace`)
/// and locked.
fn open_out(args: &RunArgs, exp: &Experiment, owner: Owner) -> Result<OutDir> {
    let path = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&exp.name));
    OutDir::open(&path, claim(exp, owner, args.replace))
}

/// What a command claims its output directory for: `owner`, the experiment's name, and
/// whether it may take over another owner's directory (`--replace`).
fn claim(exp: &Experiment, owner: Owner, replace: bool) -> Claim {
    let mut given: Vec<String> = exp.sets.iter().map(|s| format!("--set {s}")).collect();
    given.extend(exp.seed.map(|s| format!("--seed {s}")));
    let mut given = given.join(" ");
    if given.len() > 200 {
        let cut = (0..=200)
            .rev()
            .find(|&i| given.is_char_boundary(i))
            .unwrap_or(0);
        given = format!("{}… ({} bytes)", &given[..cut], given.len());
    }
    Claim {
        owner,
        scenario: exp.name.clone(),
        given,
        replace,
    }
}

/// What an interruption (Ctrl-C, SIGTERM) reports: the points kept so far and the command that
/// resumes.
struct Interruption {
    /// Points in the experiment.
    total: usize,
    /// The output directory.
    dir: String,
    /// The command line that resumes the run.
    resume: String,
}

/// Points of the current run kept on disk, for the interruption message.
pub(crate) static KEPT: AtomicUsize = AtomicUsize::new(0);
/// The current run's interruption report.
static INTERRUPTION: OnceLock<Interruption> = OnceLock::new();

/// The command line as typed, each argument quoted for a POSIX shell where it needs it.
fn command_line(skip: &[&str]) -> String {
    std::env::args()
        .filter(|a| !skip.contains(&a.as_str()))
        .map(|a| {
            if !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=,:+@%".contains(c))
            {
                a
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// On Ctrl-C or SIGTERM: says how many points are kept and how to resume, then exits 130.
pub(crate) fn on_interrupt(total: usize, dir: &Path) {
    let _ = INTERRUPTION.set(Interruption {
        total,
        dir: dir.display().to_string(),
        resume: command_line(&["--fresh"]),
    });
    let _ = ctrlc::set_handler(|| {
        if let Some(i) = INTERRUPTION.get() {
            eprintln!(
                "\nflitsim: interrupted: {} of {} points are kept in {}/; resume with: {}",
                KEPT.load(Ordering::SeqCst),
                i.total,
                i.dir,
                i.resume
            );
        }
        std::process::exit(130);
    });
}

/// Runs the experiment's points not already in `dir`, printing each point's line as it
/// finishes (in point order) unless `--quiet`, with a progress bar on a terminal.
fn run_points(args: &RunArgs, exp: &Experiment, dir: &OutDir, wanted: &[usize]) -> Result<Outcome> {
    on_interrupt(wanted.len(), dir.path());
    let leads: Vec<Vec<String>> = (0..exp.configurations.len()).map(|c| exp.lead(c)).collect();
    let table = PointTable::new(&exp.lead_header(), &leads, exp.several_seeds());
    let points = exp.points();
    if !args.quiet {
        out!("{}: {} points", exp.name, wanted.len());
        out_lines(table.header());
    }
    let on_point = |i: usize, r: &flitsim::stats::PointResult| {
        if !args.quiet {
            out!("{}", table.row(&leads[points[i].config], r));
        }
    };
    let opts = RunOptions {
        threads: args.threads,
        progress: !args.quiet && std::io::stderr().is_terminal(),
        fresh: args.fresh,
        report_seconds: if args.quiet { 0.0 } else { report_seconds() },
    };
    let outcome = flitsim::experiment::runner::run(exp, dir, opts, &KEPT, &on_point, wanted)?;
    if !args.quiet {
        let all: Vec<&flitsim::stats::PointResult> = outcome.results.iter().collect();
        out_lines(table.footer(&all));
    }
    Ok(outcome)
}

/// How often a run without a terminal reports progress on stderr: `FLITSIM_REPORT_SECONDS`,
/// else every 60 seconds.
pub(crate) fn report_seconds() -> f64 {
    std::env::var("FLITSIM_REPORT_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|s: &f64| s.is_finite() && *s > 0.0)
        .unwrap_or(60.0)
}

/// Publishes the experiment's files (and `extra` ones) in `dir` as one set, keeping the records
/// of the experiment's points only.
fn commit(
    exp: &Experiment,
    dir: &OutDir,
    results: &[flitsim::stats::PointResult],
    extra: Vec<flitsim::output::experiment_tables::Made<'_>>,
) -> Result<Vec<String>> {
    let argv: Vec<String> = std::env::args().collect();
    let mut files = flitsim::output::experiment_tables::experiment_files(exp, results, &argv);
    files.extend(extra);
    let keep = exp.points().into_iter().map(|p| exp.key(p).0).collect();
    dir.commit_made(&files, &keep)
}
