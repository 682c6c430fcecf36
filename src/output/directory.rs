//! STUB until the h-outdir branch lands: the output directory.

use crate::error::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The output directory.
pub struct OutDir {
    path: PathBuf,
}

impl OutDir {
    /// Opens it.
    pub fn open(path: &Path) -> Result<OutDir> {
        std::fs::create_dir_all(path.join(".points")).map_err(|e| Error::Io(e.to_string()))?;
        Ok(OutDir {
            path: path.to_path_buf(),
        })
    }
    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Saves a point.
    pub fn save_point(&self, key: &str, bytes: &[u8]) -> Result<()> {
        let tmp = self.path.join(".points").join(format!(".{key}.tmp"));
        std::fs::write(&tmp, bytes).map_err(|e| Error::Io(e.to_string()))?;
        std::fs::rename(&tmp, self.path.join(".points").join(key))
            .map_err(|e| Error::Io(e.to_string()))
    }
    /// Loads points.
    pub fn load_points(&self) -> Result<BTreeMap<String, Vec<u8>>> {
        let mut out = BTreeMap::new();
        for e in
            std::fs::read_dir(self.path.join(".points")).map_err(|e| Error::Io(e.to_string()))?
        {
            let e = e.map_err(|e| Error::Io(e.to_string()))?;
            let name = e.file_name().to_string_lossy().to_string();
            if !name.starts_with('.') {
                out.insert(
                    name,
                    std::fs::read(e.path()).map_err(|e| Error::Io(e.to_string()))?,
                );
            }
        }
        Ok(out)
    }
    /// Prunes points.
    pub fn prune_points(&self, keep: &BTreeSet<String>) -> Result<()> {
        for k in self.load_points()?.keys() {
            if !keep.contains(k) {
                let _ = std::fs::remove_file(self.path.join(".points").join(k));
            }
        }
        Ok(())
    }
    /// Commits the tables.
    pub fn commit(&self, files: &[(String, Vec<u8>)]) -> Result<()> {
        for (name, bytes) in files {
            std::fs::write(self.path.join(name), bytes).map_err(|e| Error::Io(e.to_string()))?;
        }
        Ok(())
    }
}
