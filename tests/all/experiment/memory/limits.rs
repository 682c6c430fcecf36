//! The limit in force: under an address-space limit (`ulimit -v`, set in the child with
//! `setrlimit`), a data-segment limit (`ulimit -d`) or a cgroup's `memory.max`, a scenario
//! that needs more is refused at once naming the limit, and one that `check` accepts runs to
//! completion under it.

use crate::common::temp_dir;
use crate::experiment::{Outcome, finish, ok, refused, scenario};
use std::ffi::CString;
use std::fs::{self, File};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};

/// A 16-ary 4-cube (65,536 nodes, arrays large enough to be cleared on every thread of the
/// pool) whose engine is what its estimate is made of: a backlog of one message per processor.
const SMALL: &str = "name = \"small\"\n[topology]\nkind = \"torus\"\nk = [16, 16, 16, 16]\n\
    links = \"bidirectional\"\n[router]\nvcs = 2\nbuffer_depth = 8\n[traffic]\n\
    message_length = 16\nflit_rates = [0.002]\n[run]\nwarmup_cycles = 500\n\
    measure_cycles = 1000\nmax_backlog = 1\n";

/// A mebibyte.
const MIB: u64 = 1 << 20;

/// `flitsim args...` in `d`, its output going to `<tag>.out` and `<tag>.err`, with `prepare`
/// run in the child before it starts flitsim, and any thread pool of rayon's default size made
/// of 16 threads, as on a machine of 16 cores.
fn flitsim_with(
    d: &Path,
    tag: &str,
    args: &[&str],
    prepare: impl FnMut() -> std::io::Result<()> + Send + Sync + 'static,
) -> Outcome {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flitsim"));
    cmd.args(args)
        .env("RAYON_NUM_THREADS", "16")
        .current_dir(d)
        .stdin(Stdio::null())
        .stdout(File::create(d.join(format!("{tag}.out"))).unwrap())
        .stderr(File::create(d.join(format!("{tag}.err"))).unwrap());
    // SAFETY: `prepare` makes only system calls (setrlimit; open, write, close), which are
    // safe between fork and exec.
    unsafe { cmd.pre_exec(prepare) };
    finish(d, tag, cmd.spawn().unwrap())
}

/// `flitsim args...` with the soft limit on `resource` set to `bytes`, as `ulimit` sets it.
fn limited(
    d: &Path,
    tag: &str,
    resource: libc::__rlimit_resource_t,
    bytes: u64,
    args: &[&str],
) -> Outcome {
    flitsim_with(d, tag, args, move || {
        let mut r = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read and write one rlimit record, which `r` is.
        let set = unsafe {
            libc::getrlimit(resource, &mut r);
            r.rlim_cur = bytes.min(r.rlim_max);
            libc::setrlimit(resource, &r)
        };
        if set == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    })
}

/// The least address-space limit, to a mebibyte, under which `check` accepts scenario `s`;
/// every probe below it is refused as bad input naming the limit, never aborted.
fn least_accepted(d: &Path, s: &str) -> u64 {
    let (mut lo, mut hi) = (64 * MIB, 64 << 30);
    let accepted = |limit: u64| {
        let o = limited(d, "probe", libc::RLIMIT_AS, limit, &["check", s]);
        if o.code != Some(0) {
            refused(&o, &["left by the address-space limit (ulimit -v)"]);
        }
        o.code == Some(0)
    };
    assert!(accepted(hi) && !accepted(lo));
    while hi - lo > MIB {
        let mid = (lo + hi) / 2;
        if accepted(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Just under the least address-space limit `check` accepts, `check` refuses the scenario,
/// naming the limit, what it leaves and the fixes; at it (and 16 MiB more for the run's own
/// start) `check` names the limit in force and a run on one thread completes under it and
/// under every larger limit up to 256 MiB more. A run
/// with a thread per core needs more room for its threads' stacks and malloc arenas: it
/// completes or is refused, never aborted; well under the limit, a run is refused too.
#[test]
fn an_address_space_limit_refuses_what_it_cannot_hold_and_runs_what_check_accepts() {
    let tmp = temp_dir("exp-ulimit-v");
    let d = tmp.path();
    let s = scenario(d, "small.toml", SMALL);
    let least = least_accepted(d, &s);
    let why = [
        "a point needs about",
        "with the stacks and malloc arenas of the",
        "more than the",
        "left by the address-space limit (ulimit -v)",
        "fewer threads (--threads 1)",
        "raise the limit (ulimit -v)",
        "--force",
    ];
    let o = limited(
        d,
        "check-under",
        libc::RLIMIT_AS,
        least - MIB,
        &["check", &s],
    );
    refused(&o, &why);
    let run = |tag: &str, limit: u64, threads: &[&str]| {
        let args = [&["run", &s, "--quiet", "--out", tag][..], threads].concat();
        limited(d, tag, libc::RLIMIT_AS, limit, &args)
    };
    let at = least + 16 * MIB;
    let o = limited(d, "check-at", libc::RLIMIT_AS, at, &["check", &s]);
    ok(&o);
    assert!(
        o.stdout
            .contains("memory limit in force: the address-space limit (ulimit -v), "),
        "{}",
        o.stdout
    );
    ok(&run("at", at, &["--threads", "1"]));
    assert!(d.join("at/summary.csv").exists());
    // Nor does any larger limit make it abort: glibc reserves a thread's malloc arena only
    // where the address space has room for it, so a run under a limit too small for its
    // threads' arenas can fail above where it succeeds.
    for more in 1..=16 {
        ok(&run(
            "above",
            at + more * 16 * MIB,
            &["--threads", "1", "--fresh"],
        ));
    }
    let o = run("cores", at, &[]);
    if o.code != Some(0) {
        refused(&o, &why);
    }
    // Well under (the run's own start, its thread pool, is in its address space already).
    refused(&run("under", least / 4 * 3, &["--threads", "1"]), &why);
    assert!(!d.join("under").exists());
}

/// A data-segment limit (`ulimit -d`) too small for the scenario's engine is the one named.
#[test]
fn a_data_segment_limit_is_named_when_it_is_the_tightest() {
    let tmp = temp_dir("exp-ulimit-d");
    let d = tmp.path();
    let s = scenario(d, "small.toml", SMALL);
    for (tag, args) in [
        ("check", &["check", &s][..]),
        ("run", &["run", &s, "--out", "o"]),
    ] {
        let o = limited(d, tag, libc::RLIMIT_DATA, 40 * MIB, args);
        refused(
            &o,
            &[
                "with the stacks of the",
                "left by the data-segment limit (ulimit -d)",
                "raise the limit (ulimit -d)",
            ],
        );
    }
    assert!(!d.join("o").exists());
}

/// Inside a cgroup v2 child whose memory.max is 64 MiB, the memory scenario (a 64-ary 3-cube)
/// is refused naming the cgroup's limit. The child can be made only as root, with the cgroup
/// v2 hierarchy writable and the memory controller in the test's cgroup's subtree_control;
/// elsewhere the test says why it is skipped.
#[test]
fn a_cgroup_memory_max_is_named_when_it_is_the_tightest() {
    let test = "a_cgroup_memory_max_is_named_when_it_is_the_tightest";
    let child = match cgroup_child() {
        Ok(child) => child,
        Err(why) => {
            eprintln!("SKIPPED {test}: {why}");
            return;
        }
    };
    let procs = CString::new(child.join("cgroup.procs").to_str().unwrap()).unwrap();
    let join = move || {
        // SAFETY: the path is a valid C string; the calls only open, write and close a file.
        let written = unsafe {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
            let n = libc::write(fd, b"0\n".as_ptr().cast(), 2);
            libc::close(fd);
            n
        };
        if written == 2 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    let mut probe = Command::new("true");
    // SAFETY: `join` makes only system calls, which are safe between fork and exec.
    unsafe { probe.pre_exec(join.clone()) };
    if let Err(e) = probe.status() {
        let _ = fs::remove_dir(&child);
        eprintln!(
            "SKIPPED {test}: cannot start a process in {}: {e}",
            child.display()
        );
        return;
    }
    let tmp = temp_dir("exp-cgroup");
    let d = tmp.path();
    let scenario = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/torus-64x64x64-memory.toml"
    );
    let o = flitsim_with(d, "check", &["check", scenario], join);
    let _ = fs::remove_dir(&child);
    refused(
        &o,
        &[
            "left by the cgroup's memory.max (",
            "ask the job for more memory",
        ],
    );
}

/// A new cgroup v2 child of this process's cgroup with a memory.max of 64 MiB, or why it
/// cannot be made.
fn cgroup_child() -> Result<std::path::PathBuf, String> {
    // SAFETY: geteuid reads the process's effective user id.
    if unsafe { libc::geteuid() } != 0 {
        return Err("not root".into());
    }
    let dir = flitsim::experiment::limits::cgroup_v2().ok_or("no cgroup v2 hierarchy mounted")?;
    let control = fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
    if !control.split_whitespace().any(|c| c == "memory") {
        return Err(format!(
            "the memory controller is not in {}/cgroup.subtree_control",
            dir.display()
        ));
    }
    let child = dir.join(format!("flitsim-test-{}", std::process::id()));
    fs::create_dir(&child).map_err(|e| format!("cannot make {}: {e}", child.display()))?;
    fs::write(child.join("memory.max"), format!("{}\n", 64 * MIB)).map_err(|e| {
        let _ = fs::remove_dir(&child);
        format!("cannot set {}/memory.max: {e}", child.display())
    })?;
    Ok(child)
}
