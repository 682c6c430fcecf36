//! `plot`: SVG plots from one or several results directories.

use flitsim::{Error, Result};
use std::path::PathBuf;

/// Plots one results directory into itself, or several into `out`; prints the files written.
pub fn plot(results: &[PathBuf], out: Option<PathBuf>) -> Result<()> {
    let files = match (results, out) {
        ([one], None) => flitsim::output::plot::plot_dir(one)?,
        (_, Some(out)) => flitsim::output::plot::plot_dirs(results, &out)?,
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
