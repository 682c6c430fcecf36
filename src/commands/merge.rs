//! `merge`: shard directories assembled into one output directory.

use super::commit;
use flitsim::Result;
use flitsim::experiment::record;
use flitsim::output::directory::OutDir;
use std::path::{Path, PathBuf};

/// Checks that `dirs` hold every point of one experiment exactly once, copies their records
/// into `out` and writes the experiment's tables there, byte-identical to a single run's.
pub fn merge(out: &Path, dirs: &[PathBuf]) -> Result<()> {
    let (exp, results) = flitsim::experiment::merge::gather(dirs)?;
    let dir = OutDir::open(out)?;
    for (p, r) in exp.points().into_iter().zip(&results) {
        let (key, text) = exp.key(p);
        dir.save_point(&key, &record::encode(&text, r))?;
    }
    let written = commit(&exp, &dir, &results, Vec::new())?;
    out!(
        "merged {} points of {} from {} directories into {}/ ({})",
        results.len(),
        exp.name,
        dirs.len(),
        dir.path().display(),
        written.join(", ")
    );
    Ok(())
}
