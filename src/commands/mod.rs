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
mod model;
mod plot;
mod run;
mod validate;

pub use describe::{check, info};
pub use model::model;
pub use plot::plot;
pub use run::run;
pub use validate::validate;

use crate::RunArgs;
use flitsim::{Result, Scenario};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

/// Prints each line with `out!`.
fn out_lines(lines: Vec<String>) {
    for line in lines {
        out!("{line}");
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
