//! The limits a run's memory meets on Linux, each with what is left of it now: the memory
//! available to new work (`MemAvailable`), the address-space and data-segment limits
//! (`ulimit -v` and `ulimit -d`: `RLIMIT_AS` and `RLIMIT_DATA`, less what the process maps
//! now) and its cgroup's memory limit (v2: `memory.max` less `memory.current`; v1:
//! `memory.limit_in_bytes` less `memory.usage_in_bytes`; the least over the cgroup and its
//! ancestors). Every file is read with a bound; a limit that is not set or cannot be read is
//! left out.

use std::io::Read;
use std::path::{Path, PathBuf};

/// What a limit counts, and so which estimate it is held against.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// The memory available to new work on this machine (`/proc/meminfo`).
    Available,
    /// The address-space limit, `ulimit -v`: every mapping counts, reserved or not.
    AddressSpace,
    /// The data-segment limit, `ulimit -d`: private writable mappings (heap, thread stacks).
    DataSegment,
    /// A cgroup's memory limit, read from this file (`memory.max` or
    /// `memory.limit_in_bytes`): resident memory and page cache count.
    Cgroup(PathBuf),
}

/// One limit and the bytes left under it now.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    /// Which limit.
    pub kind: Kind,
    /// Bytes left under it.
    pub left: f64,
}

impl Limit {
    /// The limit as messages name it.
    pub fn what(&self) -> String {
        match &self.kind {
            Kind::Available => "MemAvailable (the memory available on this machine)".into(),
            Kind::AddressSpace => "the address-space limit (ulimit -v)".into(),
            Kind::DataSegment => "the data-segment limit (ulimit -d)".into(),
            Kind::Cgroup(file) => format!(
                "the cgroup's {} ({})",
                file.file_name().unwrap_or_default().to_string_lossy(),
                file.display()
            ),
        }
    }

    /// How to get more room under it.
    pub fn raise(&self) -> &'static str {
        match self.kind {
            Kind::Available => "a machine with more memory available",
            Kind::AddressSpace => "raise the limit (ulimit -v)",
            Kind::DataSegment => "raise the limit (ulimit -d)",
            Kind::Cgroup(_) => "ask the job for more memory (e.g. SLURM's --mem)",
        }
    }
}

/// The process now, from `/proc/self/status`: bytes mapped, bytes of its data segment, and its
/// threads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Process {
    /// Its address space (`VmSize`), bytes.
    pub mapped: f64,
    /// Its data segment (`VmData`), bytes.
    pub data: f64,
    /// Its threads, the calling one included.
    pub threads: usize,
}

/// The process as `/proc/self/status` shows it, if it can be read.
pub fn process() -> Option<Process> {
    let text = read_bounded(Path::new("/proc/self/status"), 64 << 10)?;
    let field = |name: &str| -> Option<f64> {
        let line = text.lines().find(|l| l.starts_with(name))?;
        line[name.len()..].split_whitespace().next()?.parse().ok()
    };
    Some(Process {
        mapped: field("VmSize:")? * 1024.0,
        data: field("VmData:")? * 1024.0,
        threads: field("Threads:")? as usize,
    })
}

/// Every limit that is set and can be read, with what is left of it now.
pub fn limits() -> Vec<Limit> {
    let mut all = Vec::new();
    if let Some(left) = available() {
        all.push(Limit {
            kind: Kind::Available,
            left,
        });
    }
    if let Some(now) = process() {
        for (resource, kind, used) in [
            (libc::RLIMIT_AS, Kind::AddressSpace, now.mapped),
            (libc::RLIMIT_DATA, Kind::DataSegment, now.data),
        ] {
            if let Some(limit) = rlimit(resource) {
                all.push(Limit {
                    kind,
                    left: (limit - used).max(0.0),
                });
            }
        }
    }
    if let Some((cgroup, mounts)) = cgroup_files() {
        all.extend(cgroup_limit(&cgroup, &mounts));
    }
    all
}

/// The memory available to new work on this machine (Linux's MemAvailable), bytes, if known.
fn available() -> Option<f64> {
    let text = read_bounded(Path::new("/proc/meminfo"), 64 << 10)?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024.0)
}

/// The soft limit on `resource` (bytes), unless it is unlimited.
fn rlimit(resource: libc::__rlimit_resource_t) -> Option<f64> {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit record, which `r` is.
    let ok = unsafe { libc::getrlimit(resource, &mut r) } == 0;
    (ok && r.rlim_cur != libc::RLIM_INFINITY).then_some(r.rlim_cur as f64)
}

/// The least memory a cgroup limit leaves, over the cgroup v2 and v1 memory controllers of
/// the process (`cgroup`: the text of /proc/self/cgroup; `mounts`: of /proc/self/mountinfo).
pub fn cgroup_limit(cgroup: &str, mounts: &str) -> Option<Limit> {
    let v2 = v2_dir(cgroup, mounts)
        .and_then(|(dir, top)| least_left(&dir, &top, "memory.max", "memory.current"));
    let v1 = cgroup
        .lines()
        .find_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
            controllers
                .split(',')
                .any(|c| c == "memory")
                .then_some(path)
        })
        .and_then(|path| {
            let memory =
                |fs: &str, opts: &str| fs == "cgroup" && opts.split(',').any(|o| o == "memory");
            let (dir, top) = mounted(mounts, path, memory)?;
            least_left(&dir, &top, "memory.limit_in_bytes", "memory.usage_in_bytes")
        });
    [v2, v1]
        .into_iter()
        .flatten()
        .min_by(|a, b| a.left.total_cmp(&b.left))
}

/// The directory of this process's cgroup v2, where the unified hierarchy is mounted.
pub fn cgroup_v2() -> Option<PathBuf> {
    let (cgroup, mounts) = cgroup_files()?;
    v2_dir(&cgroup, &mounts).map(|(dir, _)| dir)
}

/// The texts of /proc/self/cgroup and /proc/self/mountinfo.
fn cgroup_files() -> Option<(String, String)> {
    Some((
        read_bounded(Path::new("/proc/self/cgroup"), 64 << 10)?,
        read_bounded(Path::new("/proc/self/mountinfo"), 4 << 20)?,
    ))
}

/// The directory of the cgroup v2 that `cgroup` (/proc/self/cgroup) names, on the mount of
/// `mounts` (/proc/self/mountinfo), and that mount's top directory.
fn v2_dir(cgroup: &str, mounts: &str) -> Option<(PathBuf, PathBuf)> {
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    mounted(mounts, path, |fs, _| fs == "cgroup2")
}

/// Where cgroup `path` is on the mounted filesystem that `wanted(fstype, super options)`
/// picks, and that mount's top directory.
fn mounted(
    mounts: &str,
    path: &str,
    wanted: impl Fn(&str, &str) -> bool,
) -> Option<(PathBuf, PathBuf)> {
    mounts.lines().find_map(|line| {
        let (mine, theirs) = line.split_once(" - ")?;
        let mine: Vec<&str> = mine.split(' ').collect();
        let theirs: Vec<&str> = theirs.split(' ').collect();
        let (root, point) = (*mine.get(3)?, unescape(mine.get(4)?));
        if !wanted(theirs.first()?, theirs.get(2).unwrap_or(&"")) {
            return None;
        }
        let inside = if root == "/" {
            path
        } else {
            path.strip_prefix(root)
                .filter(|rest| rest.is_empty() || rest.starts_with('/'))?
        };
        let top = PathBuf::from(point);
        let inside = inside.trim_start_matches('/');
        let dir = if inside.is_empty() {
            top.clone()
        } else {
            top.join(inside)
        };
        Some((dir, top))
    })
}

/// A mountinfo field with its octal escapes (space, tab, newline, backslash) undone.
fn unescape(field: &str) -> String {
    field
        .replace("\\040", " ")
        .replace("\\011", "\t")
        .replace("\\012", "\n")
        .replace("\\134", "\\")
}

/// The least of `max` less `current` over `dir` and its ancestors up to `top`, where a limit
/// is set (not "max", nor the v1 controller's "unlimited", above 2^62).
fn least_left(dir: &Path, top: &Path, max: &str, current: &str) -> Option<Limit> {
    let bytes = |p: &Path| -> Option<f64> { read_bounded(p, 64)?.trim().parse().ok() };
    dir.ancestors()
        .take_while(|d| d.starts_with(top))
        .filter_map(|d| {
            let file = d.join(max);
            let limit = bytes(&file).filter(|&l| l < 2f64.powi(62))?;
            let used = bytes(&d.join(current)).unwrap_or(0.0);
            Some(Limit {
                kind: Kind::Cgroup(file),
                left: (limit - used).max(0.0),
            })
        })
        .min_by(|a, b| a.left.total_cmp(&b.left))
}

/// The text of `path`, at most `bound` bytes of it, if it can be read.
fn read_bounded(path: &Path, bound: u64) -> Option<String> {
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(bound)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

#[cfg(test)]
mod tests;
