//! The output directory through the library: a commit replaces the earlier set as a whole and
//! leaves foreign files alone; a failed commit (a full disk) changes nothing; the lock refuses
//! a second opener; records round-trip and are pruned to the given keys.

use crate::common::temp_dir;
use flitsim::output::directory::OutDir;
use std::collections::BTreeSet;
use std::fs;

fn files(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    list.iter()
        .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec()))
        .collect()
}

#[test]
fn a_commit_replaces_the_earlier_set_and_leaves_foreign_files() {
    let tmp = temp_dir("dir-commit");
    let d = tmp.path().join("out");
    let dir = OutDir::open(&d).unwrap();
    dir.commit(&files(&[
        ("summary.csv", "a"),
        ("mway_channels.csv", "b"),
        ("model.csv", "m"),
    ]))
    .unwrap();
    fs::write(d.join("notes.txt"), "mine").unwrap();
    fs::write(d.join("latency.svg"), "an old plot").unwrap();
    dir.commit(&files(&[("summary.csv", "A")])).unwrap();
    assert_eq!(fs::read_to_string(d.join("summary.csv")).unwrap(), "A");
    for gone in ["mway_channels.csv", "model.csv", "latency.svg"] {
        assert!(!d.join(gone).exists(), "{gone} of the earlier set removed");
    }
    assert_eq!(fs::read_to_string(d.join("notes.txt")).unwrap(), "mine");
    let names: Vec<String> = fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

#[test]
fn the_lock_refuses_a_second_opener_until_the_first_is_gone() {
    let tmp = temp_dir("dir-lock");
    let d = tmp.path().join("out");
    let first = OutDir::open(&d).unwrap();
    let e = OutDir::open(&d).err().expect("refused while locked");
    assert_eq!(e.exit_code(), 4);
    let msg = e.to_string();
    assert!(msg.contains("another flitsim run"), "{msg}");
    assert!(
        msg.contains(&format!("pid {}", std::process::id())),
        "{msg}"
    );
    drop(first);
    // The lock goes with the last copy of its descriptor: a process that another test thread
    // is spawning holds a copy from its fork until its exec, so the lock may outlive the drop
    // by that moment.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match OutDir::open(&d) {
            Ok(_) => break,
            Err(e) if std::time::Instant::now() < deadline => {
                assert!(e.to_string().contains("another flitsim run"), "{e}");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => panic!("still locked 10 s after the first opener was dropped: {e}"),
        }
    }
}

#[test]
fn records_round_trip_skip_corruption_and_prune() {
    let tmp = temp_dir("dir-records");
    let d = tmp.path().join("out");
    let dir = OutDir::open(&d).unwrap();
    dir.save_point("aa01", b"first").unwrap();
    dir.save_point("bb02", b"second").unwrap();
    dir.save_point("cc03", b"third").unwrap();
    // A torn record, a flipped byte and a leftover temporary file.
    let p = d.join(".points");
    let whole = fs::read(p.join("bb02")).unwrap();
    fs::write(p.join("bb02"), &whole[..whole.len() - 2]).unwrap();
    let mut flipped = fs::read(p.join("cc03")).unwrap();
    *flipped.last_mut().unwrap() ^= 0x40;
    fs::write(p.join("cc03"), flipped).unwrap();
    fs::write(p.join(".dd04.1.tmp"), b"partial").unwrap();
    let got = dir.load_points().unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got["aa01"], b"first");
    assert!(!p.join(".dd04.1.tmp").exists(), "leftover removed");
    assert!(dir.save_point("../x", b"no").is_err());
    dir.save_point("ee05", b"fifth").unwrap();
    dir.prune_points(&BTreeSet::from(["ee05".to_string()]))
        .unwrap();
    let left: Vec<String> = fs::read_dir(&p)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(left, ["ee05"]);
}

/// A commit that does not fit on the disk changes nothing and leaves no temporary file.
/// Skipped, saying so, where a tmpfs cannot be mounted.
#[test]
fn a_commit_that_does_not_fit_changes_nothing() {
    let tmp = temp_dir("dir-full");
    let mnt = tmp.path().join("mnt");
    fs::create_dir(&mnt).unwrap();
    let Some(_guard) =
        crate::common::small_tmpfs(&mnt, "256k", "a_commit_that_does_not_fit_changes_nothing")
    else {
        return;
    };
    let d = mnt.join("out");
    let dir = OutDir::open(&d).unwrap();
    dir.commit(&files(&[("summary.csv", "small"), ("hops.csv", "h")]))
        .unwrap();
    let big = "x".repeat(200_000);
    let e = dir
        .commit(&files(&[("summary.csv", &big), ("channels.csv", &big)]))
        .expect_err("does not fit");
    assert_eq!(e.exit_code(), 4);
    assert_eq!(fs::read_to_string(d.join("summary.csv")).unwrap(), "small");
    assert_eq!(fs::read_to_string(d.join("hops.csv")).unwrap(), "h");
    assert!(!d.join("channels.csv").exists());
    let tmps: Vec<String> = fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(tmps.is_empty(), "{tmps:?}");
}
