//! `plot`: SVG plots from one or several results directories.

use flitsim::output::plot::{PlotOptions, Scale};
use flitsim::{Error, Result};
use std::path::PathBuf;

/// Plots one results directory into itself, or several into `out`; prints the files written.
pub fn plot(results: &[PathBuf], out: Option<PathBuf>, opts: &PlotOptions) -> Result<()> {
    let out = match (results, out) {
        (_, Some(out)) => out,
        ([one], None) => one.clone(),
        (_, None) => {
            return Err(Error::Input(
                "plot: several results directories need one place for the combined plots; fix: add --out DIR".into(),
            ));
        }
    };
    for f in flitsim::output::plot::plot(results, &out, opts)? {
        out!("wrote {f}");
    }
    Ok(())
}

/// The axes `--log-y`, `--x-range` and `--y-range` ask for, or the refusal of a malformed range.
pub fn scale(log_y: bool, x: Option<String>, y: Option<String>) -> Result<Scale> {
    let range =
        |flag: &str, text: Option<String>| text.map(|t| Scale::parse_range(flag, &t)).transpose();
    Ok(Scale {
        log_y,
        x: range("--x-range", x)?,
        y: range("--y-range", y)?,
    })
}
