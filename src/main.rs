//! The flitsim command line: parse, dispatch to the commands, map errors to exit codes.

mod alloc_guard;
mod commands;

use clap::{Parser, Subcommand};
use flitsim::{Error, Result};
use std::path::PathBuf;

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
    /// Validate a scenario (every configuration of its sweep) and describe its network, its
    /// points and their cycles, without running it.
    Check {
        scenario: PathBuf,
        #[command(flatten)]
        sets: SetArgs,
        /// Accept a scenario whose points would not fit in the memory available.
        #[arg(long)]
        force: bool,
    },
    /// The built network's properties (processors, routers, channels, degree, diameter,
    /// mean distance), as a table or, with --csv, as property,value rows.
    Info {
        scenario: PathBuf,
        #[arg(long)]
        csv: bool,
        #[command(flatten)]
        sets: SetArgs,
    },
    /// Draw latency, throughput, latency std dev and traffic plots (SVG), one curve per
    /// configuration, from results directories (pooled.csv when there are replications).
    Plot {
        /// One results directory, or several to overlay (then give --out).
        #[arg(required = true)]
        results: Vec<PathBuf>,
        /// Where to write the plots (default: the one results directory).
        #[arg(long)]
        out: Option<PathBuf>,
        /// The plots' title (before each plot's own words).
        #[arg(long)]
        title: Option<String>,
        /// A directory's label in the legends, one per directory in order (repeatable).
        #[arg(long = "label")]
        labels: Vec<String>,
    },
    /// The analytical model's latency at each load of the scenario, and its saturation load.
    Model {
        scenario: PathBuf,
        /// Output directory for model.csv (default: results/<scenario name>).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        sets: SetArgs,
        /// Write into a directory that holds another experiment's results, discarding them.
        #[arg(long)]
        replace: bool,
    },
    /// Simulation and model on the same loads: validation.csv and validation.svg.
    Validate(RunArgs),
    /// Write sbatch scripts that run the experiment's shards as a SLURM job array and merge
    /// them (with --submit, submit them).
    Slurm(SlurmArgs),
    /// Each configuration's saturation throughput, by bisection on the offered load:
    /// saturation.csv (into results/<name>-saturation unless --out).
    Saturation {
        #[command(flatten)]
        run: RunArgs,
        /// Stop when the bracket is narrower than this (flits/node/cycle).
        #[arg(long, default_value_t = 0.005)]
        tolerance: f64,
    },
    /// Assemble the directories of `run --shard I/N` into OUT: the tables of a single run.
    Merge {
        /// The output directory.
        out: PathBuf,
        /// The shard directories (those of --dirs-from follow them).
        dirs: Vec<PathBuf>,
        /// A file listing shard directories, one per line as written (relative ones to the
        /// current directory); empty lines are skipped. It must be a regular file, not a link.
        #[arg(long, value_name = "FILE")]
        dirs_from: Option<PathBuf>,
        /// Write into a directory that holds another experiment's results, discarding them.
        #[arg(long)]
        replace: bool,
    },
}

/// `--set KEY=VALUE`, on every command that reads a scenario.
#[derive(clap::Args)]
struct SetArgs {
    /// Override one key of the scenario for this run, e.g. --set router.vcs=8 or
    /// --set traffic.flit_rates=[0.1,0.2]; --set sweep.KEY=[a,b] sweeps a key. Repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    sets: Vec<String>,
}

/// Arguments of `flitsim slurm`.
#[derive(clap::Args)]
struct SlurmArgs {
    scenario: PathBuf,
    #[command(flatten)]
    sets: SetArgs,
    /// Tasks of the job array: the shards.
    #[arg(long)]
    tasks: usize,
    /// SLURM partition.
    #[arg(long)]
    partition: Option<String>,
    /// Time limit of each task (SLURM's --time, e.g. 2:00:00).
    #[arg(long)]
    time: Option<String>,
    /// CPUs per task (each shard runs with --threads $SLURM_CPUS_PER_TASK).
    #[arg(long, default_value_t = 1)]
    cpus: usize,
    /// Output directory of the merged results (default: results/<name>); the shards go to
    /// OUT/shards/I and the scripts and logs to OUT/slurm/.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write into a directory that holds another experiment's results, discarding them when
    /// the merge publishes its own.
    #[arg(long)]
    replace: bool,
    /// Submit the scripts with sbatch.
    #[arg(long)]
    submit: bool,
}

/// Arguments of the commands that simulate a scenario.
#[derive(clap::Args)]
struct RunArgs {
    scenario: PathBuf,
    #[command(flatten)]
    sets: SetArgs,
    /// Rerun every point, even those whose results are already in the output directory.
    #[arg(long)]
    fresh: bool,
    /// Run even if the points would not fit in the memory available (estimated).
    #[arg(long)]
    force: bool,
    /// Run only the I-th of N shares of the points (balanced by estimated cost), for
    /// `flitsim merge`.
    #[arg(long, value_name = "I/N")]
    shard: Option<String>,
    /// Output directory (default: results/<scenario name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write into a directory that holds another experiment's results (or files flitsim did
    /// not write): flitsim's tables, plots and point records there are discarded when this run
    /// publishes its own (the records of points this run shares are reused); files flitsim
    /// did not write are kept.
    #[arg(long)]
    replace: bool,
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

/// Parses the command line; a usage error is one line, like every other error (exit 2), while
/// `--help` and `--version` print as clap prints them.
fn parse() -> Cli {
    use clap::error::ErrorKind;
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            e.exit()
        }
        Err(e) => {
            let text = clip_quoted(&e.render().to_string());
            let lines: Vec<&str> = text.lines().collect();
            let mut problem = lines
                .first()
                .map(|l| l.trim().trim_start_matches("error: ").to_string())
                .unwrap_or_default();
            // Indented lines right after the first continue it (e.g. the missing arguments).
            for l in lines.iter().skip(1).take_while(|l| l.starts_with("  ")) {
                problem = format!("{} {}", problem.trim_end_matches(':'), l.trim());
            }
            let tip = lines.iter().find_map(|l| l.trim().strip_prefix("tip: "));
            let usage = lines.iter().find_map(|l| l.trim().strip_prefix("Usage: "));
            let fix = match (tip, usage) {
                (Some(t), _) => t.to_string(),
                (None, Some(u)) => format!("usage: {u} (see --help)"),
                (None, None) => "see `flitsim --help` and `flitsim <command> --help`".into(),
            };
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand | ErrorKind::MissingSubcommand
            ) {
                problem = "no command given".into();
            }
            eprintln!("flitsim: error: {problem}; fix: {fix}");
            std::process::exit(flitsim::error::EXIT_BAD_INPUT);
        }
    }
}

/// Clap's message with each value it quotes ('...') cut as messages cut a long value.
fn clip_quoted(text: &str) -> String {
    let parts: Vec<String> = text
        .split('\'')
        .enumerate()
        .map(|(i, part)| match i % 2 {
            1 => flitsim::error::echoed(part),
            _ => part.to_string(),
        })
        .collect();
    parts.join("'")
}

fn main() {
    let cli = parse();
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

/// Keeps the work a run does beside its points (clearing a large network's arrays, making the
/// large tables' rows) within the run's `--threads` (0: one per core).
fn bulk_threads(threads: usize) {
    let n = flitsim::experiment::runner::worker_threads(threads, usize::MAX);
    // Fails only when the pool has been built already; it then keeps its threads.
    let _ = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build_global();
}

fn dispatch(cmd: Command) -> Result<()> {
    if let Command::Run(args) | Command::Validate(args) | Command::Saturation { run: args, .. } =
        &cmd
    {
        bulk_threads(args.threads);
    }
    if let Command::Check { .. } = &cmd {
        // `check` judges memory for a run with --threads 1 and builds an engine to time it:
        // its own pool is that run's, so that what it accepts under a limit it can build.
        bulk_threads(1);
    }
    match cmd {
        Command::Run(args) => commands::run(&args),
        Command::Check {
            scenario,
            sets,
            force,
        } => commands::check(&scenario, &sets.sets, force),
        Command::Info {
            scenario,
            csv,
            sets,
        } => commands::info(&scenario, csv, &sets.sets),
        Command::Model {
            scenario,
            out,
            sets,
            replace,
        } => commands::model(&scenario, out, &sets.sets, replace),
        Command::Validate(args) => commands::validate(&args),
        Command::Merge {
            out,
            mut dirs,
            dirs_from,
            replace,
        } => {
            if let Some(list) = dirs_from {
                dirs.extend(flitsim::experiment::shard::read_dir_list(&list)?);
            } else if dirs.is_empty() {
                return Err(Error::Input(
                    "merge: no shard directory given; fix: give the shard directories after OUT, or --dirs-from FILE listing them one a line".into(),
                ));
            }
            commands::merge(&out, &dirs, replace)
        }
        Command::Slurm(args) => commands::slurm(&args),
        Command::Saturation { run, tolerance } => commands::saturation(&run, tolerance),
        Command::Plot {
            results,
            out,
            title,
            labels,
        } => commands::plot(
            &results,
            out,
            &flitsim::output::plot::PlotOptions { title, labels },
        ),
    }
}
