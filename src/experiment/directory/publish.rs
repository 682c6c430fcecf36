//! Publishing a set of tables all at once or not at all.
//!
//! A commit builds the new state of the output directory `D` in a fresh sibling,
//! `.D.flitsim-commit.PID`, and swaps the two with one `renameat2(RENAME_EXCHANGE)`:
//!
//! 1. the sibling gets a marker (`.flitsim-staged`), the manifest of the new set (listing every
//!    table it may hold, before any is written), the new tables, and then every other entry of
//!    `D` (the lock, the user's files and directories, `flitsim slurm`'s, the plots and records
//!    kept) mirrored while it stays in place: regular files as hard links, directories as
//!    directories of such entries, symbolic links as copies (never followed); only what cannot
//!    be linked (a FIFO, a socket) is moved;
//! 2. one exchange makes the sibling `D` (the marker goes with it and is then removed);
//! 3. the previous state, now the sibling, is folded back: what it shares with `D` (its twins)
//!    and what its manifest lists (the previous set) is removed, records not kept are dropped,
//!    and anything that appeared in `D` meanwhile is moved into the new `D`.
//!
//! A failure before the exchange folds the sibling back the other way (its new tables and
//! twins removed, what was moved returned): `D` keeps its previous set. A process killed at any step leaves
//! `D` with its previous set or the new one, whole, and a sibling that the next command to open
//! `D` folds back the same way: with the marker it is an unfinished commit, without it the
//! previous state. On a file system without `RENAME_EXCHANGE`, `D` is renamed aside
//! (`.D.flitsim-old.PID`) and the sibling renamed in: for an instant there is no `D`, never a
//! mix, and an interruption there is undone on the next open.
//!
//! A shell whose working directory was `D` is left in the previous directory (removed): `cd`
//! into `D` again.

use super::manifest::Manifest;
use super::records::is_key;
use super::{MANIFEST, POINTS};
use crate::output::experiment_tables::Made;
use crate::output::files::{create_new, is_temporary, read_regular_text, write_atomic, write_new};
use std::collections::BTreeSet;
use std::ffi::CString;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The marker of a staging directory that has not been swapped in.
const STAGED: &str = ".flitsim-staged";

/// Test hook: `FLITSIM_TEST_FAULT=kill:N` kills the process (SIGKILL) at the N-th step of this
/// process's commits, `fail:N` makes that step fail with EIO, as a rename on a failing disk
/// can. Tests use it to show that every step leaves a whole set.
fn step() -> io::Result<()> {
    static FAULT: OnceLock<Option<(bool, usize)>> = OnceLock::new();
    static STEPS: AtomicUsize = AtomicUsize::new(0);
    let fault = FAULT.get_or_init(|| {
        let v = std::env::var("FLITSIM_TEST_FAULT").ok()?;
        let (kind, n) = v.split_once(':')?;
        Some((kind == "kill", n.parse().ok()?))
    });
    let n = STEPS.fetch_add(1, Ordering::SeqCst) + 1;
    match *fault {
        Some((true, at)) if at == n => {
            // SAFETY: raise sends a signal to this process; it reads nothing of ours.
            unsafe { libc::raise(libc::SIGKILL) };
            Ok(())
        }
        Some((false, at)) if at == n => Err(io::Error::from_raw_os_error(libc::EIO)),
        _ => Ok(()),
    }
}

/// The sibling of `dir` named `.NAME.flitsim-WHAT.PID`.
fn sibling(dir: &Path, what: &str) -> PathBuf {
    let name = dir.file_name().unwrap_or_default().to_string_lossy();
    dir.with_file_name(format!(".{name}.flitsim-{what}.{}", std::process::id()))
}

/// The siblings of `dir` that commits left (`.NAME.flitsim-commit.PID`,
/// `.NAME.flitsim-old.PID`), each with whether it is an aside directory (`old`).
fn siblings(dir: &Path) -> Vec<(PathBuf, bool)> {
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Vec::new();
    };
    let name = name.to_string_lossy();
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().to_string();
        for (what, aside) in [("commit", false), ("old", true)] {
            let prefix = format!(".{name}.flitsim-{what}.");
            if let Some(pid) = n.strip_prefix(&prefix)
                && !pid.is_empty()
                && pid.chars().all(|c| c.is_ascii_digit())
            {
                out.push((e.path(), aside));
            }
        }
    }
    out.sort();
    out
}

/// Before `dir` is created: an aside directory left where the exchange fell back to two
/// renames and was interrupted between them is `dir`'s previous state; it is renamed back.
pub(super) fn restore_aside(dir: &Path) {
    if dir.exists() {
        return;
    }
    if let Some((old, _)) = siblings(dir).into_iter().find(|(_, aside)| *aside) {
        let _ = fs::rename(old, dir);
    }
}

/// Folds back every sibling that an interrupted commit of `dir` left (the caller holds `dir`'s
/// lock, so none is in use), and removes a marker left in `dir` after its exchange.
pub(super) fn recover(dir: &Path) {
    for (s, _) in siblings(dir) {
        let staged = s.join(STAGED).exists();
        fold(&s, dir, !staged);
    }
    let _ = fs::remove_file(dir.join(STAGED));
}

/// Whether `a` is a twin of `b`: the same regular file (a hard link of it), or a symbolic
/// link to the same place (a copy a commit made).
fn twin(a: &Path, b: &Path) -> bool {
    match (fs::symlink_metadata(a), fs::symlink_metadata(b)) {
        (Ok(x), Ok(y)) if x.file_type().is_file() => x.dev() == y.dev() && x.ino() == y.ino(),
        (Ok(x), Ok(y)) if x.file_type().is_symlink() && y.file_type().is_symlink() => {
            fs::read_link(a).ok() == fs::read_link(b).ok()
        }
        _ => false,
    }
}

/// Folds the sibling `sib` back into `dir` and removes it when nothing is left: its twins of
/// `dir`'s entries (links, copies of links, directories of twins) and the tables and plots its
/// manifest lists (of a set `dir` does not hold) are removed, with flitsim's internals and
/// temporaries; when `previous` (it holds the state `dir` replaced) records not in `dir` were
/// dropped from the set and are removed too; anything else that `dir` lacks is moved into
/// `dir`, and the rest is left where it is.
fn fold(sib: &Path, dir: &Path, previous: bool) {
    let listed = read_regular_text(&sib.join(MANIFEST), 1 << 20)
        .ok()
        .and_then(|t| Manifest::parse(&t))
        .map(|m| m.files.into_iter().chain(m.plots).collect::<BTreeSet<_>>())
        .unwrap_or_default();
    let points = sib.join(POINTS);
    if fs::symlink_metadata(&points).is_ok_and(|m| m.is_dir()) {
        let _ = fs::create_dir(dir.join(POINTS));
        fold_entries(&points, &dir.join(POINTS), &|name| previous && is_key(name));
        let _ = fs::remove_dir(&points);
    }
    fold_entries(sib, dir, &|name| {
        listed.contains(name) || [MANIFEST, STAGED].contains(&name)
    });
    let _ = fs::remove_dir(sib);
}

/// Folds the entries of `from` into `to`: twins, flitsim's temporaries and the regular files
/// `discard` names are removed; a directory `to` has too is folded into it (its own entries
/// judged as twins only); what `to` lacks is moved there; the rest stays.
fn fold_entries(from: &Path, to: &Path, discard: &dyn Fn(&str) -> bool) {
    let Ok(entries) = fs::read_dir(from) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let Ok(kind) = fs::symlink_metadata(&src).map(|m| m.file_type()) else {
            continue;
        };
        if twin(&src, &dst) || (kind.is_file() && (is_temporary(&name) || discard(&name))) {
            let _ = fs::remove_file(&src);
        } else if fs::symlink_metadata(&dst).is_err() {
            let _ = fs::rename(&src, &dst);
        } else if kind.is_dir() && fs::symlink_metadata(&dst).is_ok_and(|m| m.is_dir()) {
            fold_entries(&src, &dst, &|_| false);
            let _ = fs::remove_dir(&src);
        }
    }
}

/// Swaps `a` and `b` (both present) in one step: `renameat2(RENAME_EXCHANGE)`.
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    let a = CString::new(a.as_os_str().as_bytes())?;
    let b = CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: renameat2 reads two NUL-terminated paths that live across the call.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// What a commit publishes: the new manifest (its owner, scenario, the plots and
/// subdirectories it keeps), the tables' makers, and the records to keep (all others dropped).
pub(super) struct NewSet<'a> {
    /// The manifest of the new set; its `files` are filled with the tables made.
    pub manifest: Manifest,
    /// The tables, each made as it is written.
    pub files: &'a [Made<'a>],
    /// The records of the new set.
    pub keep: &'a BTreeSet<String>,
}

/// Publishes `new` in `dir`, whose current manifest is `old`, as the module doc describes;
/// returns the names of the tables made, in order. An error means `dir` holds its previous
/// set, as it did; once the exchange is made the commit has succeeded (what is left of the
/// previous state is folded back now, or by the next open if this is interrupted).
pub(super) fn publish(dir: &Path, old: &Manifest, new: NewSet) -> io::Result<Vec<String>> {
    let staging = sibling(dir, "commit");
    let built = stage(dir, &staging, old, new);
    let names = match built {
        Ok(names) => names,
        Err(e) => {
            fold(&staging, dir, false);
            return Err(e);
        }
    };
    let swapped = step().and_then(|()| match exchange(&staging, dir) {
        Err(e)
            if [libc::EINVAL, libc::ENOSYS, libc::ENOTSUP]
                .contains(&e.raw_os_error().unwrap_or(0)) =>
        {
            two_renames(&staging, dir)
        }
        r => r.map(|()| staging.clone()),
    });
    let previous = match swapped {
        Ok(p) => p,
        Err(e) => {
            fold(&staging, dir, false);
            return Err(e);
        }
    };
    let _ = fs::remove_file(dir.join(STAGED));
    // A kill here leaves the new set published and the previous state for the next open.
    let _ = step();
    fold(&previous, dir, true);
    Ok(names)
}

/// Without `RENAME_EXCHANGE`: `dir` aside, then the staging directory in its place (undone if
/// that fails); returns where the previous state now is.
fn two_renames(staging: &Path, dir: &Path) -> io::Result<PathBuf> {
    let aside = sibling(dir, "old");
    fs::rename(dir, &aside)?;
    step()
        .and_then(|()| fs::rename(staging, dir))
        .inspect_err(|_| {
            let _ = fs::rename(&aside, dir);
        })?;
    Ok(aside)
}

/// Builds the staging directory of `new` beside `dir`: marker, manifest, tables, then links of
/// the regular files and the records kept, then the other entries moved.
fn stage(dir: &Path, staging: &Path, old: &Manifest, new: NewSet) -> io::Result<Vec<String>> {
    step()?;
    fs::create_dir(staging)?;
    fs::set_permissions(staging, fs::metadata(dir)?.permissions())?;
    step()?;
    write_new(&staging.join(STAGED), b"")?;
    let mut manifest = new.manifest;
    manifest.files = new.files.iter().map(|(n, _)| n.clone()).collect();
    step()?;
    write_manifest(staging, &manifest)?;
    let mut names = Vec::new();
    for (name, make) in new.files {
        step()?;
        let path = staging.join(name);
        let mut w = io::BufWriter::with_capacity(1 << 20, create_new(&path)?);
        if make(&mut w)? {
            w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
            names.push(name.clone());
        } else {
            drop(w);
            fs::remove_file(&path)?;
        }
    }
    manifest.files = names.iter().cloned().collect();
    step()?;
    write_manifest(staging, &manifest)?;
    for e in fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        let dropped = old.files.contains(&name)
            || (old.plots.contains(&name) && !manifest.plots.contains(&name))
            || manifest.files.contains(&name);
        if dropped || is_temporary(&name) || [MANIFEST, STAGED].contains(&name.as_str()) {
            continue;
        }
        if name == POINTS && e.file_type()?.is_dir() {
            mirror(&e.path(), &staging.join(POINTS), &|n| new.keep.contains(n))?;
        } else {
            carry(&e.path(), &staging.join(&name))?;
        }
    }
    Ok(names)
}

/// Carries the entry `from` into the staging directory as `to`, leaving `from` in place where
/// it can: a regular file as a hard link, a directory as a directory of its entries carried, a
/// symbolic link as a copy of the link (never followed); anything else (a FIFO, a socket, a
/// file that cannot be linked) is moved.
fn carry(from: &Path, to: &Path) -> io::Result<()> {
    step()?;
    let kind = fs::symlink_metadata(from)?.file_type();
    if kind.is_dir() {
        return mirror(from, to, &|_| true);
    }
    let copied = if kind.is_file() {
        fs::hard_link(from, to)
    } else if kind.is_symlink() {
        fs::read_link(from).and_then(|target| std::os::unix::fs::symlink(target, to))
    } else {
        Err(io::ErrorKind::Unsupported.into())
    };
    match copied {
        Ok(()) => Ok(()),
        Err(_) => fs::rename(from, to),
    }
}

/// Makes the directory `to` (with `from`'s permissions) and carries into it each entry of the
/// directory `from` whose name `wanted` accepts.
fn mirror(from: &Path, to: &Path, wanted: &dyn Fn(&str) -> bool) -> io::Result<()> {
    step()?;
    fs::create_dir(to)?;
    fs::set_permissions(to, fs::metadata(from)?.permissions())?;
    for e in fs::read_dir(from)? {
        let e = e?;
        if wanted(&e.file_name().to_string_lossy()) {
            carry(&e.path(), &to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// Writes `m` as the manifest of `dir`, all at once.
pub(super) fn write_manifest(dir: &Path, m: &Manifest) -> io::Result<()> {
    write_atomic(dir, MANIFEST, m.text().as_bytes())
}
