//! The output directory of a run: checked and locked before anything is simulated, its
//! finished points' records kept as they come, its tables replaced as one set.
//!
//! - The lock is an advisory lock (`flock`) on `.flitsim.lock` in the directory, held for the
//!   whole run and released by the OS when the process ends, even by SIGKILL: a second run into
//!   a directory in use is refused at once.
//! - Records live in `.points/`, one file per point, each written to a temporary name, synced
//!   and renamed into place, with a header (magic, length, FNV-1a checksum) so that a torn or
//!   foreign file is skipped, never trusted.
//! - `commit` writes every table under a temporary name first (each made as it is written, so
//!   that no large table is held whole); only when all are written are
//!   they renamed into place, and then the earlier set's files that this set lacks are removed.
//!   The set's names are kept in `.flitsim-manifest`; the earlier set is the manifest's names
//!   and every file of [`KNOWN_TABLES`] present (plots drawn since, results of an earlier
//!   flitsim). Other files (a user's notes) are never touched.

use super::experiment_tables::{Made, Maker};
use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The lock file's name.
const LOCK: &str = ".flitsim.lock";
/// The manifest's name: the names of the files of the directory's current set.
const MANIFEST: &str = ".flitsim-manifest";
/// The record store's subdirectory.
const POINTS: &str = ".points";
/// The first bytes of a record file.
const MAGIC: &[u8; 8] = b"flitpt1\n";

/// Every file name flitsim writes into an output directory, for directories written before the
/// manifest existed.
pub const KNOWN_TABLES: [&str; 20] = [
    "summary.csv",
    "channels.csv",
    "nodes.csv",
    "histogram.csv",
    "hops.csv",
    "vc_occupancy.csv",
    "mway_channels.csv",
    "pooled.csv",
    "validation.csv",
    "validation_channels.csv",
    "validation_distance.csv",
    "validation_vc.csv",
    "validation.svg",
    "model.csv",
    "scenario.toml",
    "experiment.json",
    "latency.svg",
    "throughput.svg",
    "latency_std.svg",
    "traffic.svg",
];

/// A run's output directory, locked while this value lives.
pub struct OutDir {
    path: PathBuf,
    /// Holds the lock.
    _lock: File,
}

/// An I/O error naming the path and a fix.
fn io(path: &Path, e: std::io::Error, fix: &str) -> Error {
    Error::Io(format!("{}: {e}; fix: {fix}", path.display()))
}

/// FNV-1a, 64 bits.
fn fnv1a(bytes: &[u8]) -> u64 {
    crate::experiment::fnv1a(bytes)
}

/// Writes `bytes` to `path` and syncs it.
fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Writes what `make` makes to `path` through a buffer and syncs it; false when `make` made no
/// file.
fn make_synced(path: &Path, make: &Maker) -> std::io::Result<bool> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, File::create(path)?);
    if !make(&mut w)? {
        return Ok(false);
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(true)
}

impl OutDir {
    /// Creates `path` (and its parents) if needed, checks that it is a writable directory and
    /// takes its lock, at once. A file in the way, a directory that cannot be created or
    /// written, or a lock held by another run is an I/O error (exit 4) naming the path.
    pub fn open(path: &Path) -> Result<OutDir> {
        const FIX: &str = "give --out a directory you can write";
        if path.exists() && !path.is_dir() {
            return Err(Error::Io(format!(
                "{}: the output directory is a file; fix: give --out a directory (or a path that does not exist yet)",
                path.display()
            )));
        }
        fs::create_dir_all(path).map_err(|e| io(path, e, FIX))?;
        let lock_path = path.join(LOCK);
        let mut lock = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&lock_path)
            .map_err(|e| io(path, e, FIX))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                let holder = fs::read_to_string(&lock_path).unwrap_or_default();
                let holder = holder.trim();
                let pid = if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {holder})")
                };
                return Err(Error::Io(format!(
                    "{}: another flitsim run is writing to this directory{pid}; fix: wait for it to finish, or give another --out",
                    path.display()
                )));
            }
            Err(fs::TryLockError::Error(e)) => return Err(io(path, e, FIX)),
        }
        lock.set_len(0).map_err(|e| io(path, e, FIX))?;
        write!(lock, "{}", std::process::id()).map_err(|e| io(path, e, FIX))?;
        let points = path.join(POINTS);
        fs::create_dir_all(&points).map_err(|e| io(&points, e, FIX))?;
        Ok(OutDir {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A name unique to this run for a temporary file beside `name`.
    fn temporary(&self, dir: &Path, name: &str) -> PathBuf {
        dir.join(format!(".{name}.{}.tmp", std::process::id()))
    }

    /// Persists one finished point's record under `.points/<key>`: written to a temporary name,
    /// synced, renamed into place, so that after any interruption it is there whole or not at
    /// all.
    pub fn save_point(&self, key: &str, bytes: &[u8]) -> Result<()> {
        if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(Error::Io(format!("{key:?} is not a record key")));
        }
        let dir = self.path.join(POINTS);
        let mut data = Vec::with_capacity(bytes.len() + 24);
        data.extend_from_slice(MAGIC);
        data.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        data.extend_from_slice(&fnv1a(bytes).to_le_bytes());
        data.extend_from_slice(bytes);
        let tmp = self.temporary(&dir, key);
        let fix =
            "free space on the disk or give another --out; the points finished so far are kept";
        if let Err(e) = write_synced(&tmp, &data) {
            let _ = fs::remove_file(&tmp);
            return Err(io(&dir, e, fix));
        }
        fs::rename(&tmp, dir.join(key)).map_err(|e| io(&dir, e, fix))
    }

    /// Every whole record (key → bytes); temporary, torn or corrupt files are skipped, and
    /// temporary files left by an interrupted run are removed.
    pub fn load_points(&self) -> Result<BTreeMap<String, Vec<u8>>> {
        self.remove_temporaries();
        read_points(&self.path)
    }

    /// Removes the temporary files an interrupted run left among the records.
    pub fn remove_temporaries(&self) {
        if let Ok(entries) = fs::read_dir(self.path.join(POINTS)) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().to_string();
                if name.starts_with('.') && name.ends_with(".tmp") {
                    let _ = fs::remove_file(entry.path());
                }
            }
        }
    }

    /// Removes every record whose key is not in `keep` (after a complete run, so that the
    /// directory holds exactly one run's points).
    pub fn prune_points(&self, keep: &BTreeSet<String>) -> Result<()> {
        let dir = self.path.join(POINTS);
        let entries = fs::read_dir(&dir).map_err(|e| io(&dir, e, "check the directory"))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if !keep.contains(&name) {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(())
    }

    /// The names of the directory's current set: the manifest's, and every known table
    /// present (plots drawn after the run, results of an earlier flitsim).
    fn current_set(&self) -> BTreeSet<String> {
        let mut set: BTreeSet<String> = fs::read_to_string(self.path.join(MANIFEST))
            .map(|text| text.lines().map(str::to_string).collect())
            .unwrap_or_default();
        set.extend(
            KNOWN_TABLES
                .iter()
                .filter(|n| self.path.join(n).exists())
                .map(|n| n.to_string()),
        );
        set
    }

    /// Replaces the directory's set of tables with `files` (name → bytes), as described in the
    /// module doc: if any file cannot be written (a full disk), nothing of the earlier set has
    /// changed and no temporary file is left.
    pub fn commit(&self, files: &[(String, Vec<u8>)]) -> Result<()> {
        let made: Vec<Made> = files
            .iter()
            .map(|(name, bytes)| {
                let maker: Maker = Box::new(move |w| w.write_all(bytes).map(|()| true));
                (name.clone(), maker)
            })
            .collect();
        self.commit_made(&made).map(|_| ())
    }

    /// Replaces the directory's set of tables with the files `files` make, each made as it is
    /// written to its temporary file (a maker that says false makes no file), so that a large
    /// table is never held whole; otherwise as [`OutDir::commit`]. Returns the names of the
    /// files made, in order.
    pub fn commit_made(&self, files: &[Made]) -> Result<Vec<String>> {
        let fix = "free space on the disk or give another --out; the earlier results are unchanged and the finished points are kept";
        let mut written: Vec<(PathBuf, PathBuf)> = Vec::new();
        let mut names = Vec::new();
        for (name, make) in files {
            let tmp = self.temporary(&self.path, name);
            let made = make_synced(&tmp, make);
            if !matches!(made, Ok(true)) {
                let _ = fs::remove_file(&tmp);
            }
            match made {
                Ok(true) => {
                    written.push((tmp, self.path.join(name)));
                    names.push(name.clone());
                }
                Ok(false) => {}
                Err(e) => {
                    for (t, _) in &written {
                        let _ = fs::remove_file(t);
                    }
                    return Err(io(&self.path, e, fix));
                }
            }
        }
        let earlier = self.current_set();
        for (tmp, target) in &written {
            fs::rename(tmp, target).map_err(|e| io(&self.path, e, fix))?;
        }
        for old in earlier {
            if !names.contains(&old) && !old.contains('/') && !old.starts_with('.') {
                let _ = fs::remove_file(self.path.join(&old));
            }
        }
        let manifest: String = names.iter().map(|n| format!("{n}\n")).collect();
        let tmp = self.temporary(&self.path, MANIFEST);
        write_synced(&tmp, manifest.as_bytes())
            .and_then(|()| fs::rename(&tmp, self.path.join(MANIFEST)))
            .map_err(|e| {
                let _ = fs::remove_file(&tmp);
                io(&self.path, e, fix)
            })?;
        Ok(names)
    }

    /// Adds or replaces one file beside the current set (`flitsim model`'s model.csv),
    /// atomically; a later `commit` removes it unless its set has the file too.
    pub fn add(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let fix = "free space on the disk or give another --out";
        let tmp = self.temporary(&self.path, name);
        write_synced(&tmp, bytes)
            .and_then(|()| fs::rename(&tmp, self.path.join(name)))
            .map_err(|e| {
                let _ = fs::remove_file(&tmp);
                io(&self.path, e, fix)
            })
    }
}

/// Every whole record of the output directory `path` (key → bytes), without taking its lock or
/// changing anything: for `flitsim merge`, which reads shard directories. Temporary, torn or
/// corrupt files are skipped.
pub fn read_points(path: &Path) -> Result<BTreeMap<String, Vec<u8>>> {
    let dir = path.join(POINTS);
    let mut out = BTreeMap::new();
    let entries = fs::read_dir(&dir).map_err(|e| {
        io(
            &dir,
            e,
            "give an output directory written by `flitsim run` (it keeps its points in .points/)",
        )
    })?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if name.starts_with('.') {
            continue;
        }
        let Ok(data) = fs::read(entry.path()) else {
            continue;
        };
        if let Some(bytes) = unwrap_record(&data) {
            out.insert(name, bytes.to_vec());
        }
    }
    Ok(out)
}

/// The record `key` of the output directory `path`, if it is there whole (one record read at a
/// time, so that resuming or merging a sweep of a large network holds one record's bytes
/// beside the results, not every record's).
pub fn read_point(path: &Path, key: &str) -> Option<Vec<u8>> {
    if key.is_empty() || !key.chars().all(|c| c.is_ascii_alphanumeric()) {
        return None;
    }
    let mut data = fs::read(path.join(POINTS).join(key)).ok()?;
    let len = unwrap_record(&data)?.len();
    data.drain(..data.len() - len);
    Some(data)
}

/// Checks that `path` holds records (`.points/`), as a directory `flitsim run` wrote does.
pub fn check_points(path: &Path) -> Result<()> {
    let dir = path.join(POINTS);
    fs::read_dir(&dir).map(|_| ()).map_err(|e| {
        io(
            &dir,
            e,
            "give an output directory written by `flitsim run` (it keeps its points in .points/)",
        )
    })
}

/// The bytes of a record file, if its header and checksum are whole.
fn unwrap_record(data: &[u8]) -> Option<&[u8]> {
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(rest.get(8..16)?.try_into().ok()?);
    let bytes = rest.get(16..)?;
    (bytes.len() == len && fnv1a(bytes) == sum).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_with_a_flipped_byte_or_cut_short_is_refused() {
        let bytes = b"hello record".to_vec();
        let mut data = MAGIC.to_vec();
        data.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        data.extend_from_slice(&fnv1a(&bytes).to_le_bytes());
        data.extend_from_slice(&bytes);
        assert_eq!(unwrap_record(&data), Some(&bytes[..]));
        let mut flipped = data.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(unwrap_record(&flipped), None);
        assert_eq!(unwrap_record(&data[..data.len() - 1]), None);
        assert_eq!(unwrap_record(b"flitpt1\n"), None);
    }
}
