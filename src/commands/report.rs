//! `report`: one self-contained HTML page of one or several results directories.

use flitsim::Result;
use std::path::{Path, PathBuf};

/// Writes the report of `results` into `out`, or into the one results directory; prints the
/// file written and its size.
pub fn report(results: &[PathBuf], out: Option<&Path>) -> Result<()> {
    let (path, bytes) = flitsim::output::report::report(results, out)?;
    out!("wrote {} ({bytes} bytes)", path.display());
    Ok(())
}
