//! `merge`: shard directories assembled into one output directory.

use super::commit;
use flitsim::Result;
use flitsim::experiment::directory::OutDir;
use flitsim::experiment::record;
use std::path::{Path, PathBuf};

/// Checks that `dirs` hold every point of one experiment exactly once, copies their records
/// into `out` and writes the experiment's tables there, byte-identical to a single run's.
pub fn merge(out: &Path, dirs: &[PathBuf], replace: bool) -> Result<()> {
    let same = |d: &PathBuf| match (std::fs::canonicalize(out), std::fs::canonicalize(d)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if let Some(d) = dirs.iter().find(|d| same(d)) {
        return Err(flitsim::Error::Input(format!(
            "merge: OUT {} is also one of the shard directories ({}); fix: give OUT a new directory (e.g. the study's directory above the shards)",
            out.display(),
            d.display()
        )));
    }
    let (exp, results) = flitsim::experiment::merge::gather(dirs)?;
    let owner = flitsim::experiment::directory::Owner::Run(exp.hash());
    let dir = OutDir::open(out, super::claim(&exp, owner, replace))?;
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
