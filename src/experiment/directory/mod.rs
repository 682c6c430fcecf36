//! The output directory of a command: owned by one experiment, locked while in use, its
//! finished points' records kept as they come, its tables published as one set.
//!
//! - **Ownership.** The manifest (`.flitsim-manifest`, [`manifest`]) names the directory's
//!   owner (the results, a shard or a saturation search of one experiment, by its hash; or
//!   plots) and the entries flitsim wrote. A command for another owner is refused (exit 2)
//!   unless `--replace`; a directory flitsim never wrote that holds anything is refused the
//!   same way; a file flitsim would write over that it did not write is refused even then.
//!   Nothing flitsim did not write is ever removed or overwritten.
//! - **The lock** is an advisory lock (`flock`) on `.flitsim.lock`, held for the whole command
//!   and released by the OS when the process ends, even by SIGKILL: a second command writing
//!   into a directory in use is refused at once (exit 4).
//! - **Records** live in `.points/`, one file per point ([`records`]), each written whole or
//!   not at all.
//! - **Publication** replaces the set of tables all at once (`publish.rs`): a fresh directory
//!   swapped in with one rename, so that a reader, a failure or a kill -9 at any step sees the
//!   earlier set or the new one, never a mix.
//! - **No link is followed and no special file is read** in the directory: the lock, the
//!   manifest, the records and the record store are refused, naming them, when they are a
//!   symbolic link, a FIFO, a device or a socket.

pub mod manifest;
mod publish;
pub mod records;

use crate::error::{Error, Result};
use crate::output::experiment_tables::{Made, Maker};
use crate::output::files::{self, kind_at, not_regular, read_regular_text};
pub use manifest::{Manifest, Owner};
use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The lock file's name.
const LOCK: &str = ".flitsim.lock";
/// The manifest's name.
const MANIFEST: &str = ".flitsim-manifest";
/// The record store's subdirectory.
const POINTS: &str = ".points";
/// A symbolic link, in words.
const LINK: &str = "a symbolic link, which flitsim does not follow";

/// Every name flitsim writes a table, plot or report under in an output directory: such a
/// file that the manifest does not list is the user's, and a command that would write it is
/// refused.
pub const WRITTEN: [&str; 37] = [
    "summary.csv",
    "channels.csv",
    "nodes.csv",
    "histogram.csv",
    "hops.csv",
    "vc_occupancy.csv",
    "mway_channels.csv",
    "trace.csv",
    "pooled.csv",
    "validation.csv",
    "validation_channels.csv",
    "validation_distance.csv",
    "validation_vc.csv",
    "validation.svg",
    "model.csv",
    "scenario.toml",
    "experiment.json",
    "saturation.csv",
    "latency.svg",
    "throughput.svg",
    "latency_std.svg",
    "traffic.svg",
    "latency_hist.svg",
    "heatmap.svg",
    "latency.png",
    "throughput.png",
    "latency_std.png",
    "traffic.png",
    "latency_hist.png",
    "heatmap.png",
    "latency.pdf",
    "throughput.pdf",
    "latency_std.pdf",
    "traffic.pdf",
    "latency_hist.pdf",
    "heatmap.pdf",
    "report.html",
];

/// What a command claims an output directory for.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The owner it writes as.
    pub owner: Owner,
    /// The scenario's name, for the manifest and messages.
    pub scenario: String,
    /// The command line's `--set`s and `--seed`, for the manifest and messages.
    pub given: String,
    /// `--replace`: take over a directory another owner holds (its tables and records are
    /// discarded when this command publishes its own).
    pub replace: bool,
}

/// A command's output directory, locked while this value lives.
pub struct OutDir {
    /// The directory as the command was given it, for messages and the caller's paths.
    path: PathBuf,
    /// The directory, absolute, links in `--out` resolved.
    real: PathBuf,
    /// What this command claimed it for.
    claim: Claim,
    /// The directory's manifest as it now is.
    manifest: Mutex<Manifest>,
    /// Holds the lock.
    _lock: File,
}

/// An I/O error naming the path and a fix.
fn io_error(path: &Path, e: std::io::Error, fix: &str) -> Error {
    Error::Io(format!("{}: {e}; fix: {fix}", path.display()))
}

/// A list of names for a message: the first few, then how many more.
fn some_of(names: &[String]) -> String {
    let mut shown: Vec<String> = names.iter().take(4).cloned().collect();
    if names.len() > 4 {
        shown.push(format!("and {} more", names.len() - 4));
    }
    shown.join(", ")
}

impl OutDir {
    /// Opens `path` for `claim` before anything is simulated: creates it if needed, takes its
    /// lock, finishes or undoes a commit an interruption left, reads its manifest and checks
    /// that the claim may write there (module doc). An unusable path or a lock held by another
    /// command is an I/O error (exit 4); a directory of another owner, or of files flitsim did
    /// not write, is refused as bad input (exit 2) naming both and the fix.
    pub fn open(path: &Path, claim: Claim) -> Result<OutDir> {
        const FIX: &str = "give --out a directory you can write";
        if path.exists() && !path.is_dir() {
            return Err(Error::Io(format!(
                "{}: the output directory is a file; fix: give --out a directory (or a path that does not exist yet)",
                path.display()
            )));
        }
        publish::restore_aside(path);
        fs::create_dir_all(path).map_err(|e| io_error(path, e, FIX))?;
        let given = path.to_path_buf();
        let real = fs::canonicalize(path).map_err(|e| io_error(path, e, FIX))?;
        let lock = take_lock(&real)?;
        publish::recover(&real);
        let manifest = read_manifest(&real)?;
        match kind_at(&real.join(POINTS)) {
            Ok(None) => {}
            Ok(Some(k)) if k.is_dir() => {}
            Ok(Some(k)) => {
                return Err(refuse_entry(
                    &real.join(POINTS),
                    not_regular(k).unwrap_or("a file, not a directory"),
                ));
            }
            Err(e) => return Err(io_error(&real.join(POINTS), e, FIX)),
        }
        check_claim(&real, &given, &manifest, &claim)?;
        if claim.owner != Owner::Plots {
            fs::create_dir_all(real.join(POINTS)).map_err(|e| io_error(&real, e, FIX))?;
        }
        Ok(OutDir {
            path: given,
            real,
            claim,
            manifest: Mutex::new(manifest),
            _lock: lock,
        })
    }

    /// The directory, as the command was given it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The manifest as it now is.
    fn manifest(&self) -> Manifest {
        self.manifest
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Whether this command takes the directory over from another owner (`--replace`).
    fn takes_over(&self, m: &Manifest) -> bool {
        m.owner.as_ref() != Some(&self.claim.owner)
    }

    /// Makes the record store and shows at once that a record can be saved there (a file
    /// written, synced and removed): a read-only directory or a full disk stops the command
    /// before anything is simulated, with the fix for what failed.
    pub fn check_store_writable(&self) -> Result<()> {
        let points = self.real.join(POINTS);
        let fail = |e: std::io::Error| {
            let fix = records::write_fix(&e, &points);
            io_error(&points, e, &fix)
        };
        match fs::create_dir(&points) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(fail(e)),
            _ => {}
        }
        let probe = files::temporary(&points, "probe");
        let written = files::write_new(&probe, &[0u8; 64]);
        let _ = fs::remove_file(&probe);
        written.map_err(fail)
    }

    /// Persists one finished point's record (see [`records::save`]).
    pub fn save_point(&self, key: &str, bytes: &[u8]) -> Result<()> {
        records::save(&self.real, key, bytes)
    }

    /// The record `key`, if it is here whole and at most `max` bytes (see [`records::read`]).
    pub fn read_point(&self, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
        records::read(&self.real, key, max)
    }

    /// Removes the temporary files an interrupted command left among the records.
    pub fn remove_temporaries(&self) {
        records::remove_temporaries(&self.real);
    }

    /// Publishes `files` (name → bytes) as the directory's set, keeping the records `keep`;
    /// see [`OutDir::commit_made`].
    pub fn commit(&self, files: &[(String, Vec<u8>)], keep: &BTreeSet<String>) -> Result<()> {
        let made: Vec<Made> = files
            .iter()
            .map(|(name, bytes)| {
                let maker: Maker = Box::new(move |w| w.write_all(bytes).map(|()| true));
                (name.clone(), maker)
            })
            .collect();
        self.commit_made(&made, keep).map(|_| ())
    }

    /// Publishes the files `files` make (each made as it is written, so that a large table is
    /// never held whole; a maker that says false makes no file) as the directory's set, all at
    /// once: the earlier set's tables go, the records not in `keep` go, and everything else
    /// (the user's files, subdirectories, and the plots unless this command took the directory
    /// over) stays. Returns the names of the files made, in order. On an error the directory
    /// holds its earlier set, as it did.
    pub fn commit_made(&self, files: &[Made], keep: &BTreeSet<String>) -> Result<Vec<String>> {
        let old = self.manifest();
        let over = self.takes_over(&old);
        let manifest = Manifest {
            owner: Some(self.claim.owner.clone()),
            scenario: self.claim.scenario.clone(),
            given: self.claim.given.clone(),
            files: BTreeSet::new(),
            plots: if over {
                BTreeSet::new()
            } else {
                old.plots.clone()
            },
            dirs: old.dirs.clone(),
        };
        let new = publish::NewSet {
            manifest,
            files,
            keep,
        };
        let names = publish::publish(&self.real, &old, new).map_err(|e| {
            let fix = records::write_fix(&e, &self.real);
            io_error(
                &self.real,
                e,
                &format!(
                    "{fix}; the earlier results are unchanged and the finished points are kept"
                ),
            )
        })?;
        let mut m = self.manifest.lock().unwrap_or_else(|e| e.into_inner());
        *m = read_manifest(&self.real).unwrap_or_default();
        Ok(names)
    }

    /// Writes the manifest `m` (listing a file before it is written, so that the directory
    /// never holds a file of flitsim's that its manifest does not name).
    fn set_manifest(&self, m: Manifest) -> Result<()> {
        publish::write_manifest(&self.real, &m).map_err(|e| {
            let fix = records::write_fix(&e, &self.real);
            io_error(&self.real, e, &fix)
        })?;
        *self.manifest.lock().unwrap_or_else(|e| e.into_inner()) = m;
        Ok(())
    }

    /// The manifest with this command as owner where the directory had none.
    fn owned(&self) -> Manifest {
        let mut m = self.manifest();
        if m.owner.is_none() {
            m.owner = Some(self.claim.owner.clone());
            m.scenario = self.claim.scenario.clone();
            m.given = self.claim.given.clone();
        }
        m
    }

    /// Adds or replaces one table beside the current set (`flitsim model`'s model.csv), all at
    /// once; the next commit removes it unless its set has the file too.
    pub fn add(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let mut m = self.owned();
        m.files.insert(name.to_string());
        self.set_manifest(m)?;
        self.write(name, bytes)
    }

    /// Adds or replaces plots (name → its bytes), each all at once; they stay beside the tables
    /// until a command takes the directory over. Returns their paths.
    pub fn add_plots(&self, plots: &[(String, Vec<u8>)]) -> Result<Vec<PathBuf>> {
        let mut m = self.owned();
        m.plots.extend(plots.iter().map(|(n, _)| n.clone()));
        self.set_manifest(m)?;
        plots
            .iter()
            .map(|(name, bytes)| self.write(name, bytes).map(|()| self.real.join(name)))
            .collect()
    }

    /// Makes the subdirectories `names` (e.g. `flitsim slurm`'s scripts and shards), listed as
    /// flitsim's so that later commits carry them along; returns their paths.
    pub fn add_dirs(&self, names: &[&str]) -> Result<Vec<PathBuf>> {
        let mut m = self.owned();
        m.dirs.extend(names.iter().map(|n| n.to_string()));
        self.set_manifest(m)?;
        names
            .iter()
            .map(|n| {
                let p = self.real.join(n);
                match kind_at(&p) {
                    Ok(Some(k)) if !k.is_dir() => {
                        Err(refuse_entry(&p, not_regular(k).unwrap_or("a file")))
                    }
                    _ => fs::create_dir_all(&p)
                        .map(|()| p.clone())
                        .map_err(|e| io_error(&p, e, "give --out a directory you can write")),
                }
            })
            .collect()
    }

    /// Writes `name` all at once in `sub`, a subdirectory [`OutDir::add_dirs`] made (e.g.
    /// `flitsim slurm`'s scripts).
    pub fn write_under(&self, sub: &str, name: &str, bytes: &[u8]) -> Result<()> {
        let dir = self.real.join(sub);
        files::write_atomic(&dir, name, bytes).map_err(|e| {
            let fix = records::write_fix(&e, &dir);
            io_error(&dir, e, &fix)
        })
    }

    /// Writes `name` in the directory all at once.
    fn write(&self, name: &str, bytes: &[u8]) -> Result<()> {
        files::write_atomic(&self.real, name, bytes).map_err(|e| {
            let fix = records::write_fix(&e, &self.real);
            io_error(&self.real, e, &fix)
        })
    }
}

/// Takes the lock of `dir`: `.flitsim.lock`, opened without following a link or waiting on a
/// FIFO, and a regular file; it then holds this process's id for the message a second opener
/// gets.
fn take_lock(dir: &Path) -> Result<File> {
    let path = dir.join(LOCK);
    let mut lock = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(&path)
        .map_err(|e| match e.raw_os_error() {
            Some(libc::ELOOP) => refuse_entry(&path, LINK),
            _ => io_error(&path, e, "give --out a directory you can write"),
        })?;
    let kind = lock
        .metadata()
        .map_err(|e| io_error(&path, e, "give --out a directory you can write"))?
        .file_type();
    if !kind.is_file() {
        return Err(refuse_entry(
            &path,
            not_regular(kind).unwrap_or("not a regular file"),
        ));
    }
    match lock.try_lock() {
        Ok(()) => {}
        Err(fs::TryLockError::WouldBlock) => {
            let holder = read_regular_text(&path, 64).unwrap_or_default();
            let holder = holder.trim();
            let pid = if holder.is_empty() {
                String::new()
            } else {
                format!(" (pid {holder})")
            };
            return Err(Error::Io(format!(
                "{}: another flitsim command is writing to this directory{pid}; fix: wait for it to finish, or give another --out",
                dir.display()
            )));
        }
        Err(fs::TryLockError::Error(e)) => {
            return Err(io_error(dir, e, "give --out a directory you can write"));
        }
    }
    // The process id is for the message a second opener gets: a full disk may refuse it.
    let _ = lock
        .set_len(0)
        .and_then(|()| write!(lock, "{}", std::process::id()));
    Ok(lock)
}

/// The refusal of an entry of an output directory that is not what flitsim keeps there (a
/// link, a FIFO, a device): exit 4, naming it and what it is.
fn refuse_entry(path: &Path, what: &str) -> Error {
    Error::Io(format!(
        "{}: {what}; fix: remove it (flitsim keeps only its own regular files and directories there), or give another --out",
        path.display()
    ))
}

/// The manifest of `dir`: its `.flitsim-manifest` (refused when not a regular file or not
/// flitsim's), an earlier flitsim's list of names with the owner its experiment.json gives, or
/// for a directory an earlier flitsim wrote without a manifest, the tables it then wrote.
fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let fix = "remove it if flitsim did not write it, or give another --out";
    let mut m = match kind_at(&path) {
        Ok(None) => Manifest::default(),
        Ok(Some(_)) => {
            let text = read_regular_text(&path, 1 << 20).map_err(|e| io_error(&path, e, fix))?;
            Manifest::parse(&text).ok_or_else(|| {
                Error::Io(format!(
                    "{}: not a flitsim manifest; fix: {fix}",
                    path.display()
                ))
            })?
        }
        Err(e) => return Err(io_error(&path, e, fix)),
    };
    if m.owner.is_none()
        && let Some(owner) = legacy_owner(dir)
    {
        m.owner = Some(owner);
        m.files.extend(
            WRITTEN
                .iter()
                .filter(|n| kind_at(&dir.join(n)).is_ok_and(|k| k.is_some_and(|k| k.is_file())))
                .map(|n| n.to_string()),
        );
    }
    Ok(m)
}

/// The owner an earlier flitsim's experiment.json names (its experiment hash, its shard).
fn legacy_owner(dir: &Path) -> Option<Owner> {
    let text = read_regular_text(&dir.join("experiment.json"), 1 << 30).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let hash = json["experiment_hash"].as_str()?.to_string();
    Some(match json["shard"].as_str() {
        Some(label) => Owner::Shard(label.to_string(), hash),
        None if dir.join("saturation.csv").exists() => Owner::Saturation("?".into(), hash),
        None => Owner::Run(hash),
    })
}

/// The entries of `dir` that are not flitsim's internals.
fn entries(dir: &Path) -> Result<Vec<String>> {
    let fix = "give --out a directory you can read and write";
    let mut out = Vec::new();
    for e in fs::read_dir(dir).map_err(|e| io_error(dir, e, fix))? {
        let name = e.map_err(|e| io_error(dir, e, fix))?.file_name();
        let name = name.to_string_lossy().to_string();
        if ![LOCK, MANIFEST, POINTS].contains(&name.as_str()) && !files::is_temporary(&name) {
            out.push(name);
        }
    }
    out.sort();
    Ok(out)
}

/// Whether `claim` may write into `dir` (`shown` in messages), whose manifest is `m` (module
/// doc); the refusals are bad input (exit 2) naming the directory, what it holds and the fix.
fn check_claim(dir: &Path, shown: &Path, m: &Manifest, claim: &Claim) -> Result<()> {
    let present = entries(dir)?;
    let theirs: Vec<String> = present.iter().filter(|n| !m.lists(n)).cloned().collect();
    if let Some(name) = theirs.iter().find(|n| WRITTEN.contains(&n.as_str())) {
        return Err(Error::Input(format!(
            "{}: not written by flitsim (the directory's manifest does not list it), and flitsim writes a file of that name there; fix: move it away, or give another --out",
            shown.join(name).display()
        )));
    }
    let held = m.owner.is_some()
        || m.files
            .iter()
            .chain(&m.plots)
            .chain(&m.dirs)
            .next()
            .is_some();
    if claim.owner == Owner::Plots || claim.replace || m.owner.as_ref() == Some(&claim.owner) {
        return Ok(());
    }
    if held {
        let mine = Manifest {
            owner: Some(claim.owner.clone()),
            scenario: claim.scenario.clone(),
            given: claim.given.clone(),
            ..Manifest::default()
        };
        return Err(Error::Input(format!(
            "{}: the directory holds {}, and this command writes {}; fix: give another --out, or add --replace to discard what it holds (flitsim's tables, plots and point records; files flitsim did not write are kept)",
            shown.display(),
            m.describe(),
            mine.describe()
        )));
    }
    if theirs.is_empty() {
        return Ok(());
    }
    Err(Error::Input(format!(
        "{}: the directory holds files flitsim did not write ({}) and no flitsim results; fix: give --out a new or empty directory, or add --replace to write beside them (flitsim never removes or overwrites them)",
        shown.display(),
        some_of(&theirs)
    )))
}
