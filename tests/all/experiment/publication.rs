//! The tables of a run appear all at once or not at all: a commit killed (SIGKILL) or failing
//! (an injected EIO) at each of its steps leaves the directory with the earlier set or the new
//! one, whole, never a mix; the user's files, directories and links stay in place at every
//! step; and the next command clears what the interrupted one left (staging directories,
//! temporaries) and publishes the new set.

use super::{TORUS, flitsim, ok, scenario};
use crate::common::temp_dir;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Every entry under `dir` (relative path → contents; a link's target, a directory's marker),
/// flitsim's hidden entries, experiment.json (it holds the command line) and the user's
/// entries left out.
fn visible(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.') && n != "experiment.json" && !USERS.contains(&n.as_str()))
        .map(|n| {
            let bytes = fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect()
}

/// The user's entries placed in the directory.
const USERS: [&str; 3] = ["notes.txt", "mine", ".myconfig"];

/// Places the user's entries: a file, a hidden file, a directory with a file and a link.
fn place_users(dir: &Path) {
    fs::write(dir.join("notes.txt"), "my notes").unwrap();
    fs::write(dir.join(".myconfig"), "x = 1").unwrap();
    fs::create_dir(dir.join("mine")).unwrap();
    fs::write(dir.join("mine/data.txt"), "my data").unwrap();
    std::os::unix::fs::symlink("data.txt", dir.join("mine/link")).unwrap();
}

/// The user's entries are all in `dir`, unchanged.
fn users_intact(dir: &Path, context: &str) {
    let read =
        |p: &str| fs::read_to_string(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}; {context}"));
    assert_eq!(read("notes.txt"), "my notes", "{context}");
    assert_eq!(read(".myconfig"), "x = 1", "{context}");
    assert_eq!(read("mine/data.txt"), "my data", "{context}");
    assert_eq!(
        fs::read_link(dir.join("mine/link")).unwrap(),
        Path::new("data.txt"),
        "{context}"
    );
}

/// Entries beside or under `dir` that a commit leaves only when interrupted: staging and
/// aside directories, markers, temporaries.
fn leftovers(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir.parent().unwrap()).unwrap() {
        let n = e.unwrap().file_name().to_string_lossy().to_string();
        if n.contains(".flitsim-") {
            out.push(n);
        }
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let n = e.file_name().to_string_lossy().to_string();
            if n.ends_with(".tmp") || n == ".flitsim-staged" {
                out.push(e.path().display().to_string());
            }
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            }
        }
    }
    out
}

/// `flitsim ARGS` in `dir` with the fault hook set; its exit code (None: killed by a signal).
fn faulted(dir: &Path, fault: &str, args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(args)
        .current_dir(dir)
        .env("FLITSIM_TEST_FAULT", fault)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn a_commit_killed_or_failing_at_any_step_leaves_one_whole_set() {
    let tmp = temp_dir("exp-publish");
    let d = tmp.path();
    // Paper 003's model covers dor on the unidirectional torus with V = 2: validate writes
    // model.csv and the validation tables, which the new run does not.
    let text = TORUS
        .replace("links = \"bidirectional\"", "links = \"unidirectional\"")
        .replace("vcs = 3", "vcs = 2")
        .replace("measure_cycles = 2000", "measure_cycles = 500");
    let s = scenario(d, "s.toml", &text);
    ok(&flitsim(
        d,
        "old",
        &["validate", &s, "--out", "pristine", "--quiet"],
    ));
    ok(&flitsim(d, "plot", &["plot", "pristine"]));
    place_users(&d.join("pristine"));
    let old = visible(&d.join("pristine"));
    assert!(old.contains_key("validation.csv") && old.contains_key("latency.svg"));
    // The new set: two seeds (pooled.csv), taking the directory over.
    let new_args = ["run", &s, "--quiet", "--set", "seeds=[1, 2]", "--replace"];
    ok(&flitsim(
        d,
        "new",
        &[&new_args[..], &["--out", "reference"]].concat(),
    ));
    let new = visible(&d.join("reference"));
    assert!(new.contains_key("pooled.csv") && !new.contains_key("validation.csv"));
    let mut steps = 0;
    for fault in ["kill", "fail"] {
        for n in 1.. {
            let out = d.join(format!("{fault}{n}"));
            let cp = Command::new("cp")
                .arg("-a")
                .arg(d.join("pristine"))
                .arg(&out)
                .status();
            assert!(cp.unwrap().success());
            let o = out.to_str().unwrap();
            let (code, err) = faulted(
                d,
                &format!("{fault}:{n}"),
                &[&new_args[..], &["--out", o]].concat(),
            );
            let context = format!("{fault} at step {n}: exit {code:?}, {err}");
            let now = visible(&out);
            assert!(
                now == old || now == new,
                "a mix of the two sets; {context}: {:?}",
                now.keys()
            );
            users_intact(&out, &context);
            match (fault, code) {
                ("kill", Some(0)) => {
                    // Past the last step: no fault happened.
                    assert_eq!(now, new, "{context}");
                    steps = n - 1;
                }
                ("kill", None) => {}
                ("fail", Some(4)) => {
                    assert_eq!(now, old, "{context}");
                    assert!(
                        err.contains("the earlier results are unchanged"),
                        "{context}"
                    );
                    assert!(
                        leftovers(&out).is_empty(),
                        "{context}: {:?}",
                        leftovers(&out)
                    );
                }
                // A failure after the exchange is past the commit: the new set stands.
                ("fail", Some(0)) => assert_eq!(now, new, "{context}"),
                _ => panic!("unexpected outcome; {context}"),
            }
            // The next command clears what was left and publishes the new set.
            ok(&flitsim(
                d,
                "again",
                &[&new_args[..], &["--out", o]].concat(),
            ));
            assert_eq!(visible(&out), new, "{context}");
            users_intact(&out, &context);
            assert!(
                leftovers(&out).is_empty(),
                "{context}: {:?}",
                leftovers(&out)
            );
            let records = fs::read_dir(out.join(".points")).unwrap().count();
            assert_eq!(records, 4, "the new set's records only; {context}");
            fs::remove_dir_all(&out).unwrap();
            if (fault == "kill" && steps > 0) || (fault == "fail" && n == steps) {
                break;
            }
        }
    }
    assert!(steps >= 20, "the commit has {steps} steps");
}
