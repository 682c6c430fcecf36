//! The files a scenario names beside it (`[traffic] matrix`, `[traffic] trace`), read whole
//! and refused, naming the key, when they cannot be read, are not regular files or are too
//! large.

use super::Checker;
use crate::error::Result;

/// A file a scenario's key names: what it is called in messages, the most bytes it may have,
/// and the fix when it has more.
pub(super) struct Beside<'a> {
    /// The key that names the file, e.g. `[traffic] matrix`.
    pub key: &'a str,
    /// What the file is, e.g. `CSV file`.
    pub kind: &'a str,
    /// The most bytes it may have.
    pub max: u64,
    /// The fix of a file larger than `max`.
    pub too_large: &'a str,
}

impl Beside<'_> {
    /// The bytes of the file at `path`.
    pub(super) fn read(&self, c: &Checker, path: &std::path::Path) -> Result<Vec<u8>> {
        use std::io::Read;
        let (key, kind, max) = (self.key, self.kind, self.max);
        let shown = path.display();
        let cannot = |e: std::io::Error| {
            c.err(
                key,
                format!("cannot read {shown} ({e})"),
                format!("give the path of a readable {kind}, relative to the scenario's directory"),
            )
        };
        let meta = std::fs::metadata(path).map_err(cannot)?;
        if !meta.is_file() {
            return Err(c.err(
                key,
                format!("{shown} is not a regular file"),
                format!("give the path of a {kind} saved on disk"),
            ));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
            .map_err(cannot)?;
        if bytes.len() as u64 > max {
            return Err(c.err(
                key,
                format!("{shown} is larger than {max} bytes"),
                self.too_large,
            ));
        }
        Ok(bytes)
    }
}
