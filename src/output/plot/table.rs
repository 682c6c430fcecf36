//! A results table a plot reads back (channels.csv, histogram.csv): opened without following
//! a link, its columns found by name, its faults refused naming the file.

use crate::error::{Error, Result};
use std::fs::File;
use std::io::Take;
use std::path::Path;

/// A table's reader, at most its size limit read.
pub(super) type TableReader = csv::Reader<Take<File>>;

/// The refusal of table `path` for `m` (exit 2): rerunning the run rewrites it.
pub(super) fn table_error(path: &Path, m: String) -> Error {
    Error::Input(format!("{}: {m}; fix: rerun `flitsim run`", path.display()))
}

/// Table `path` opened (at most `limit` bytes read) and the positions of its columns `names`.
pub(super) fn open_table<const N: usize>(
    path: &Path,
    limit: u64,
    names: [&str; N],
) -> Result<(TableReader, [usize; N])> {
    let bad = |m: String| table_error(path, m);
    let (file, _) = crate::output::files::open_regular(path).map_err(|e| bad(e.to_string()))?;
    let mut r = csv::Reader::from_reader(std::io::Read::take(file, limit));
    let header = r.headers().map_err(|e| bad(e.to_string()))?.clone();
    let mut at = [0; N];
    for (slot, name) in at.iter_mut().zip(names) {
        *slot = header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| bad(format!("no column {name}")))?;
    }
    Ok((r, at))
}
