//! The record store (`.points/`): one file per finished point, named by its key, each with a
//! header (magic, length, FNV-1a checksum) so that a torn or foreign file is never trusted, and
//! each read without following a link, from a regular file only, bounded by what a record of
//! that point can hold.

use super::{POINTS, io_error};
use crate::error::{Error, Result};
use crate::output::files::{
    is_temporary, kind_at, not_regular, read_regular, temporary, write_new,
};
use std::fs;
use std::path::Path;

/// The first bytes of a record file.
const MAGIC: &[u8; 8] = b"flitpt1\n";
/// The header: magic, length, checksum.
const HEADER: u64 = 24;

/// Whether `key` names a record: hex digits and letters only.
pub fn is_key(key: &str) -> bool {
    !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric())
}

/// A record file's bytes: the header, then `bytes`.
pub fn wrap(bytes: &[u8]) -> Vec<u8> {
    let mut data = Vec::with_capacity(bytes.len() + HEADER as usize);
    data.extend_from_slice(MAGIC);
    data.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
    data.extend_from_slice(&crate::experiment::fnv1a(bytes).to_le_bytes());
    data.extend_from_slice(bytes);
    data
}

/// The bytes of a record file, if its header and checksum are whole.
pub fn unwrap_record(data: &[u8]) -> Option<&[u8]> {
    let rest = data.strip_prefix(MAGIC.as_slice())?;
    let len = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?) as usize;
    let sum = u64::from_le_bytes(rest.get(8..16)?.try_into().ok()?);
    let bytes = rest.get(16..)?;
    (bytes.len() == len && crate::experiment::fnv1a(bytes) == sum).then_some(bytes)
}

/// The fix for a failed write, by what failed.
pub fn write_fix(e: &std::io::Error, dir: &Path) -> String {
    use std::io::ErrorKind::*;
    let d = dir.display();
    match e.kind() {
        StorageFull | QuotaExceeded => {
            format!("free space on the disk holding {d}, or give another --out")
        }
        PermissionDenied | ReadOnlyFilesystem => {
            format!("make {d} writable (e.g. chmod u+w), or give another --out")
        }
        NotADirectory => format!("{d} must be a directory; give another --out"),
        _ => "check the disk and the directory, or give another --out".into(),
    }
}

/// Persists one finished point's record under `.points/<key>` of `dir`: written to a
/// temporary name, synced, renamed into place, so that after any interruption it is there
/// whole or not at all. The error names the records directory and the fix for what failed.
pub fn save(dir: &Path, key: &str, bytes: &[u8]) -> Result<()> {
    if !is_key(key) {
        return Err(Error::Io(format!("{key:?} is not a record key")));
    }
    let points = dir.join(POINTS);
    let tmp = temporary(&points, key);
    let fail = |e: std::io::Error| {
        let fix = write_fix(&e, &points);
        io_error(
            &points,
            e,
            &format!("{fix}; the points saved so far are kept"),
        )
    };
    if let Err(e) = write_new(&tmp, &wrap(bytes)) {
        let _ = fs::remove_file(&tmp);
        return Err(fail(e));
    }
    fs::rename(&tmp, points.join(key)).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        fail(e)
    })
}

/// The record `key` of the output directory `dir`, if one is there whole. A record of at most
/// `max` bytes is read; anything there that is not a regular file (a link, a FIFO, a device)
/// is refused naming it (exit 4), never followed or waited on. A torn, foreign or oversized
/// file is no record (the point runs again).
pub fn read(dir: &Path, key: &str, max: u64) -> Result<Option<Vec<u8>>> {
    if !is_key(key) {
        return Ok(None);
    }
    let path = dir.join(POINTS).join(key);
    match read_regular(&path, max.saturating_add(HEADER)) {
        Ok(mut data) => {
            let Some(len) = unwrap_record(&data).map(<[u8]>::len) else {
                return Ok(None);
            };
            data.drain(..data.len() - len);
            Ok(Some(data))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => Ok(None),
        Err(e) => Err(io_error(
            &path,
            e,
            "remove it: only flitsim's own record files belong in .points/",
        )),
    }
}

/// The fix when a directory has no usable record store.
const NOT_A_RUN: &str =
    "give an output directory written by `flitsim run` (it keeps its points in .points/)";

/// Checks that `dir` holds a record store (`.points/`, a real directory, not a link), as a
/// directory `flitsim run` wrote does.
pub fn check_store(dir: &Path) -> Result<()> {
    let points = dir.join(POINTS);
    match kind_at(&points) {
        Ok(Some(k)) if k.is_dir() => Ok(()),
        Ok(Some(k)) => Err(Error::Io(format!(
            "{}: {}; fix: {NOT_A_RUN}",
            points.display(),
            not_regular(k).unwrap_or("a file, not a directory")
        ))),
        Ok(None) => Err(Error::Io(format!(
            "{}: no such directory; fix: {NOT_A_RUN}",
            points.display()
        ))),
        Err(e) => Err(io_error(&points, e, NOT_A_RUN)),
    }
}

/// Removes the temporary files an interrupted run left among the records of `dir`.
pub fn remove_temporaries(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir.join(POINTS)) {
        for entry in entries.flatten() {
            if is_temporary(&entry.file_name().to_string_lossy()) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_with_a_flipped_byte_or_cut_short_is_refused() {
        let bytes = b"hello record".to_vec();
        let data = wrap(&bytes);
        assert_eq!(unwrap_record(&data), Some(&bytes[..]));
        let mut flipped = data.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(unwrap_record(&flipped), None);
        assert_eq!(unwrap_record(&data[..data.len() - 1]), None);
        assert_eq!(unwrap_record(b"flitpt1\n"), None);
    }
}
