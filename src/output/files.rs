//! Files in output and shard directories, opened the one safe way: a symbolic link is never
//! followed (`O_NOFOLLOW`), a FIFO never waited on (`O_NONBLOCK`), anything but a regular file
//! refused before a byte is read, and every read bounded by what the file can hold. A
//! directory a user or another program arranged (a link to `/dev/zero`, a FIFO named like a
//! record) then costs one refusal naming it, never a hang, a 4 GB read or a write elsewhere.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A symbolic link, in words.
const LINK: &str = "a symbolic link, which flitsim does not follow";

/// What a path in an output directory is, when it is not a regular file: in words, for
/// messages ("a symbolic link, which flitsim does not follow").
pub fn not_regular(kind: std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_symlink() {
        Some(LINK)
    } else if kind.is_dir() {
        Some("a directory, not a file")
    } else if kind.is_fifo() {
        Some("a FIFO (named pipe), not a regular file")
    } else if kind.is_block_device() || kind.is_char_device() {
        Some("a device, not a regular file")
    } else if kind.is_socket() {
        Some("a socket, not a regular file")
    } else {
        Some("not a regular file")
    }
}

/// An error saying what `path` is instead of a regular file.
fn refused(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what.to_string())
}

/// Opens `path` for reading, refusing (with an [`io::ErrorKind::InvalidInput`] error saying
/// what it is) a symbolic link, a FIFO, a device, a socket or a directory; returns the file and
/// its length. Never blocks, never follows a link.
pub fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| match e.raw_os_error() {
            // O_NOFOLLOW on a link: ELOOP.
            Some(libc::ELOOP) => refused(LINK),
            _ => e,
        })?;
    let meta = file.metadata()?;
    if let Some(what) = not_regular(meta.file_type()) {
        return Err(refused(what));
    }
    Ok((file, meta.len()))
}

/// Reads the regular file `path` whole, if it is at most `max` bytes (else an
/// [`io::ErrorKind::InvalidData`] error giving both sizes); refuses what [`open_regular`]
/// refuses. The read stops at `max` + 1 bytes whatever the file does while it is read.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path)?;
    if len > max {
        return Err(too_big(len, max));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_big(bytes.len() as u64, max));
    }
    Ok(bytes)
}

/// A file longer than a read allows.
fn too_big(len: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("{len} bytes, more than the {max} it can hold"),
    )
}

/// Reads the regular file `path` as UTF-8 text of at most `max` bytes, as [`read_regular`].
pub fn read_regular_text(path: &Path, max: u64) -> io::Result<String> {
    String::from_utf8(read_regular(path, max)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// What is at `path` without following a link: None when nothing is there.
pub fn kind_at(path: &Path) -> io::Result<Option<std::fs::FileType>> {
    match std::fs::symlink_metadata(path) {
        Ok(m) => Ok(Some(m.file_type())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// A temporary name for `name` in `dir` (`.NAME.PID-N.tmp`), unique to this process and call.
pub fn temporary(dir: &Path, name: &str) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = name.trim_start_matches('.');
    dir.join(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Whether `name` is a temporary file flitsim makes (`.NAME.PID-N.tmp`, or an earlier
/// flitsim's `.NAME.PID.tmp`).
pub fn is_temporary(name: &str) -> bool {
    let Some(stem) = name.strip_prefix('.').and_then(|n| n.strip_suffix(".tmp")) else {
        return false;
    };
    stem.rsplit_once('.').is_some_and(|(_, tag)| {
        !tag.is_empty() && tag.chars().all(|c| c.is_ascii_digit() || c == '-')
    })
}

/// Creates the new file `path` for writing: fails if anything (a link included) is there.
pub fn create_new(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)
}

/// Writes `bytes` to a new file `path` (never through a link or over another file) and syncs
/// it.
pub fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = create_new(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Writes `bytes` as `dir/name` all at once: a new temporary file, synced, renamed over
/// whatever was there (a link there is replaced, never written through).
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<()> {
    let tmp = temporary(dir, name);
    write_new(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, dir.join(name)))
        .inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_fifos_and_devices_are_refused_at_once_and_reads_are_bounded() {
        let dir = std::env::temp_dir().join(format!("flitsim-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert_eq!(read_regular(&file, 5).unwrap(), b"12345");
        assert_eq!(
            read_regular(&file, 4).unwrap_err().kind(),
            io::ErrorKind::InvalidData
        );
        let link = dir.join("l");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let e = read_regular(&link, 1 << 40).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        let fifo = dir.join("p");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path that lives across the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo, 10).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
        let e = read_regular(Path::new("/dev/null"), 10).unwrap_err();
        assert!(e.to_string().contains("device"), "{e}");
        let e = read_regular(&dir, 10).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
