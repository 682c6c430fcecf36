//! The cgroup limit read from a made-up /proc/self/cgroup and mountinfo over files in a
//! temporary directory: v2 and v1, the least over a cgroup and its ancestors, unset limits.

use super::*;
use std::fs;

/// Writes `files` ((path under `root`, text)) and returns the root as a string.
fn tree(root: &Path, files: &[(&str, &str)]) -> String {
    for (path, text) in files {
        let p = root.join(path);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    root.to_str().unwrap().to_string()
}

/// A mountinfo line mounting `fstype` (super options `opts`) at `point`, from `root`.
fn mount(point: &str, root: &str, fstype: &str, opts: &str) -> String {
    format!("35 31 0:32 {root} {point} rw,relatime shared:9 - {fstype} cgroup rw,{opts}\n")
}

#[test]
fn a_v2_limit_is_the_least_over_the_cgroup_and_its_ancestors() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tree(
        tmp.path(),
        &[
            ("memory.max", "max\n"),
            ("job/memory.max", "1000000\n"),
            ("job/memory.current", "300000\n"),
            ("job/step/memory.max", "max\n"),
            ("job/step/memory.current", "100000\n"),
            ("job/step/task/memory.max", "900000\n"),
            ("job/step/task/memory.current", "50000\n"),
        ],
    );
    let mounts = mount(&top, "/", "cgroup2", "nsdelegate");
    let l = cgroup_limit("0::/job/step/task\n", &mounts).unwrap();
    assert_eq!(l.left, 700000.0);
    assert_eq!(l.kind, Kind::Cgroup(tmp.path().join("job/memory.max")));
    assert!(
        l.what().starts_with("the cgroup's memory.max ("),
        "{}",
        l.what()
    );
    // Where the task's own limit is the tighter, it is the one named.
    fs::write(tmp.path().join("job/step/task/memory.current"), "600000\n").unwrap();
    let l = cgroup_limit("0::/job/step/task\n", &mounts).unwrap();
    assert_eq!(l.left, 300000.0);
    assert_eq!(
        l.kind,
        Kind::Cgroup(tmp.path().join("job/step/task/memory.max"))
    );
}

#[test]
fn a_v1_limit_is_read_from_the_memory_controller_and_unlimited_is_none() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tree(
        tmp.path(),
        &[
            ("slurm/memory.limit_in_bytes", "9223372036854771712\n"),
            ("slurm/memory.usage_in_bytes", "5000000\n"),
            ("slurm/job_7/memory.limit_in_bytes", "4000000\n"),
            ("slurm/job_7/memory.usage_in_bytes", "1500000\n"),
        ],
    );
    // The mount's root is the cgroup path's first part, as in a cgroup namespace.
    let mounts = mount("/elsewhere", "/", "cgroup", "cpu") + &mount(&top, "/", "cgroup", "memory");
    let cgroup = "5:cpu,cpuacct:/slurm/job_7\n4:memory:/slurm/job_7\n0::/\n";
    let l = cgroup_limit(cgroup, &mounts).unwrap();
    assert_eq!(l.left, 2500000.0);
    assert!(l.what().contains("memory.limit_in_bytes"), "{}", l.what());
    // Usage above the limit leaves nothing, not a negative room.
    fs::write(
        tmp.path().join("slurm/job_7/memory.usage_in_bytes"),
        "4100000\n",
    )
    .unwrap();
    assert_eq!(cgroup_limit(cgroup, &mounts).unwrap().left, 0.0);
    // Without a limit anywhere on the path there is none.
    fs::write(
        tmp.path().join("slurm/job_7/memory.limit_in_bytes"),
        "9223372036854771712\n",
    )
    .unwrap();
    assert_eq!(cgroup_limit(cgroup, &mounts), None);
}

#[test]
fn a_mount_of_part_of_the_hierarchy_maps_the_path_below_its_root() {
    let tmp = tempfile::tempdir().unwrap();
    let top = tree(
        tmp.path(),
        &[
            ("memory.max", "2000000\n"),
            ("memory.current", "500000\n"),
            ("inner/memory.max", "max\n"),
        ],
    );
    let mounts = mount(&top, "/outer", "cgroup2", "");
    let l = cgroup_limit("0::/outer/inner\n", &mounts).unwrap();
    assert_eq!(l.left, 1500000.0);
    // A cgroup outside the mounted part is not seen.
    assert_eq!(cgroup_limit("0::/other\n", &mounts), None);
    assert_eq!(cgroup_limit("0::/outerly\n", &mounts), None);
}

#[test]
fn mountinfo_escapes_are_undone() {
    assert_eq!(
        unescape("/sys/fs/my\\040cgroup\\134x"),
        "/sys/fs/my cgroup\\x"
    );
}

#[test]
fn this_process_is_read_from_proc() {
    let p = process().unwrap();
    assert!(p.mapped >= p.data && p.data > 0.0, "{p:?}");
    assert!(p.threads >= 1);
}
