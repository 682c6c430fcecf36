//! `plot`: SVG plots from one or several results directories.

use flitsim::output::plot::PlotOptions;
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
