//! The flitsim command line: parse, dispatch to the commands, map errors to exit codes.

mod alloc_guard;
mod commands;

use clap::Parser;
use flitsim::cli::{Cli, Command};
// The commands' modules name them `crate::RunArgs` and `crate::SlurmArgs`.
use flitsim::cli::{RunArgs, SlurmArgs};
use flitsim::{Error, Result};

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
            panels,
            log_y,
            x_range,
            y_range,
            format,
        } => commands::scale(log_y, x_range, y_range).and_then(|scale| {
            let opts = flitsim::output::plot::PlotOptions {
                title,
                labels,
                panels,
                scale,
                format: flitsim::output::plot::Format::parse(&format)?,
            };
            commands::plot(&results, out, &opts)
        }),
        Command::Report { results, out } => commands::report(&results, out.as_deref()),
    }
}
