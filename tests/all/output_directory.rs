//! The output directory through the library: a commit replaces the earlier set as a whole and
//! leaves the user's files alone; a failed commit (a full disk) changes nothing; the lock
//! refuses a second opener; records round-trip and only the kept ones survive a commit; a
//! directory of another owner, or of files flitsim did not write, is refused; links and special
//! files there are refused, never followed.

use crate::common::{fifo, temp_dir};
use flitsim::experiment::directory::{Claim, OutDir, Owner};
use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

fn files(list: &[(&str, &str)]) -> Vec<(String, Vec<u8>)> {
    list.iter()
        .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec()))
        .collect()
}

/// A claim for the results of experiment `hash`.
fn run(hash: &str) -> Claim {
    Claim {
        owner: Owner::Run(hash.into()),
        scenario: "s".into(),
        given: String::new(),
        replace: false,
    }
}

/// The names in `dir` (hidden ones too), sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

/// No temporary or staging entry is left in `dir` or beside it.
fn nothing_left(dir: &Path) {
    let beside: Vec<String> = names(dir.parent().unwrap())
        .into_iter()
        .filter(|n| n.contains("flitsim-"))
        .collect();
    assert!(beside.is_empty(), "{beside:?}");
    let tmps: Vec<String> = names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".tmp") || n.contains("staged"))
        .collect();
    assert!(tmps.is_empty(), "{tmps:?}");
}

#[test]
fn a_commit_replaces_the_earlier_set_and_leaves_the_users_files() {
    let tmp = temp_dir("dir-commit");
    let d = tmp.path().join("out");
    let dir = OutDir::open(&d, run("a1")).unwrap();
    let none = BTreeSet::new();
    dir.commit(
        &files(&[
            ("summary.csv", "a"),
            ("mway_channels.csv", "b"),
            ("model.csv", "m"),
        ]),
        &none,
    )
    .unwrap();
    dir.add_plots(&[("latency.svg".into(), "a plot".into())])
        .unwrap();
    fs::write(d.join("notes.txt"), "mine").unwrap();
    fs::create_dir(d.join("drafts")).unwrap();
    fs::write(d.join("drafts").join("x"), "draft").unwrap();
    dir.commit(&files(&[("summary.csv", "A")]), &none).unwrap();
    assert_eq!(fs::read_to_string(d.join("summary.csv")).unwrap(), "A");
    for gone in ["mway_channels.csv", "model.csv"] {
        assert!(!d.join(gone).exists(), "{gone} of the earlier set removed");
    }
    // The same experiment's plots stay; the user's file and directory are untouched.
    assert_eq!(fs::read_to_string(d.join("latency.svg")).unwrap(), "a plot");
    assert_eq!(fs::read_to_string(d.join("notes.txt")).unwrap(), "mine");
    assert_eq!(fs::read_to_string(d.join("drafts/x")).unwrap(), "draft");
    nothing_left(&d);
    drop(dir);
    // Taken over by another experiment: its plots go with its tables, the user's files stay.
    let mut other = run("b2");
    other.replace = true;
    let dir = OutDir::open(&d, other).unwrap();
    dir.commit(&files(&[("hops.csv", "h")]), &none).unwrap();
    assert_eq!(
        names(&d),
        [
            ".flitsim-manifest",
            ".flitsim.lock",
            ".points",
            "drafts",
            "hops.csv",
            "notes.txt"
        ]
    );
    nothing_left(&d);
}

#[test]
fn a_directory_of_another_owner_or_of_the_users_files_is_refused() {
    let tmp = temp_dir("dir-owner");
    let d = tmp.path().join("out");
    OutDir::open(&d, run("a1"))
        .unwrap()
        .commit(&files(&[("summary.csv", "a")]), &BTreeSet::new())
        .unwrap();
    for owner in [
        Owner::Run("b2".into()),
        Owner::Shard("1/2".into(), "a1".into()),
        Owner::Saturation("0.005".into(), "a1".into()),
    ] {
        let claim = Claim {
            owner: owner.clone(),
            ..run("")
        };
        let e = OutDir::open(&d, claim).err().expect("another owner");
        assert_eq!(e.exit_code(), 2, "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("experiment a1") && msg.contains("--replace"),
            "{msg}"
        );
        assert!(msg.contains(&owner.to_string()), "{msg}");
    }
    // A directory flitsim never wrote: refused unless --replace, which writes beside its files.
    let mine = tmp.path().join("mine");
    fs::create_dir(&mine).unwrap();
    fs::write(mine.join("data.txt"), "x").unwrap();
    let e = OutDir::open(&mine, run("a1")).err().expect("not flitsim's");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("data.txt"), "{e}");
    // A file flitsim would write under a name it did not write: refused even with --replace.
    fs::write(mine.join("summary.csv"), "the user's").unwrap();
    let mut replace = run("a1");
    replace.replace = true;
    let e = OutDir::open(&mine, replace.clone())
        .err()
        .expect("collision");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("summary.csv"), "{e}");
    fs::remove_file(mine.join("summary.csv")).unwrap();
    OutDir::open(&mine, replace)
        .unwrap()
        .commit(&files(&[("summary.csv", "ours")]), &BTreeSet::new())
        .unwrap();
    assert_eq!(fs::read_to_string(mine.join("data.txt")).unwrap(), "x");
}

#[test]
fn the_lock_refuses_a_second_opener_until_the_first_is_gone() {
    let tmp = temp_dir("dir-lock");
    let d = tmp.path().join("out");
    let first = OutDir::open(&d, run("a1")).unwrap();
    let e = OutDir::open(&d, run("a1"))
        .err()
        .expect("refused while locked");
    assert_eq!(e.exit_code(), 4);
    let msg = e.to_string();
    assert!(msg.contains("another flitsim command"), "{msg}");
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
        match OutDir::open(&d, run("a1")) {
            Ok(_) => break,
            Err(e) if std::time::Instant::now() < deadline => {
                assert!(e.to_string().contains("another flitsim command"), "{e}");
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => panic!("still locked 10 s after the first opener was dropped: {e}"),
        }
    }
}

#[test]
fn records_round_trip_skip_corruption_and_only_the_kept_survive_a_commit() {
    let tmp = temp_dir("dir-records");
    let d = tmp.path().join("out");
    let dir = OutDir::open(&d, run("a1")).unwrap();
    dir.check_store_writable().unwrap();
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
    fs::write(p.join(".dd04.1-0.tmp"), b"partial").unwrap();
    assert_eq!(dir.read_point("aa01", 100).unwrap().unwrap(), b"first");
    assert_eq!(
        dir.read_point("aa01", 2).unwrap(),
        None,
        "larger than allowed"
    );
    assert_eq!(dir.read_point("bb02", 100).unwrap(), None);
    assert_eq!(dir.read_point("cc03", 100).unwrap(), None);
    dir.remove_temporaries();
    assert!(!p.join(".dd04.1-0.tmp").exists(), "leftover removed");
    assert!(dir.save_point("../x", b"no").is_err());
    dir.save_point("ee05", b"fifth").unwrap();
    dir.commit(
        &[],
        &BTreeSet::from(["ee05".to_string(), "aa01".to_string()]),
    )
    .unwrap();
    assert_eq!(names(&p), ["aa01", "ee05"]);
    assert_eq!(dir.read_point("ee05", 100).unwrap().unwrap(), b"fifth");
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
    let dir = OutDir::open(&d, run("a1")).unwrap();
    let none = BTreeSet::new();
    dir.commit(
        &files(&[("summary.csv", "small"), ("hops.csv", "h")]),
        &none,
    )
    .unwrap();
    let big = "x".repeat(200_000);
    let e = dir
        .commit(
            &files(&[("summary.csv", &big), ("channels.csv", &big)]),
            &none,
        )
        .expect_err("does not fit");
    assert_eq!(e.exit_code(), 4);
    assert!(e.to_string().contains("free space"), "{e}");
    assert_eq!(fs::read_to_string(d.join("summary.csv")).unwrap(), "small");
    assert_eq!(fs::read_to_string(d.join("hops.csv")).unwrap(), "h");
    assert!(!d.join("channels.csv").exists());
    nothing_left(&d);
}

/// A link or a special file where flitsim keeps its lock, manifest or records is refused at
/// once, naming it; its target is never written or read.
#[test]
fn links_and_special_files_in_the_directory_are_refused_not_followed() {
    let tmp = temp_dir("dir-links");
    let victim = tmp.path().join("victim");
    fs::create_dir(&victim).unwrap();
    fs::write(victim.join("precious"), "keep").unwrap();
    type Make<'a> = &'a dyn Fn(&Path);
    let cases: [(&str, Make); 5] = [
        (".points", &|p| {
            std::os::unix::fs::symlink(&victim, p).unwrap()
        }),
        (".flitsim.lock", &|p| {
            std::os::unix::fs::symlink(victim.join("precious"), p).unwrap()
        }),
        (".flitsim.lock", &|p| fifo(p)),
        (".flitsim-manifest", &|p| fifo(p)),
        (".flitsim-manifest", &|p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
    ];
    for (i, (name, make)) in cases.iter().enumerate() {
        let d = tmp.path().join(format!("out{i}"));
        fs::create_dir(&d).unwrap();
        make(&d.join(name));
        let t = std::time::Instant::now();
        let e = OutDir::open(&d, run("a1")).err().expect("refused");
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
        assert_eq!(e.exit_code(), 4, "{e}");
        assert!(e.to_string().contains(name), "{e}");
    }
    assert_eq!(names(&victim), ["precious"]);
    assert_eq!(fs::read_to_string(victim.join("precious")).unwrap(), "keep");
    // A record that is a link or a FIFO is refused when read, naming it.
    let d = tmp.path().join("records");
    let dir = OutDir::open(&d, run("a1")).unwrap();
    dir.check_store_writable().unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join(".points/ab12")).unwrap();
    fifo(&d.join(".points/cd34"));
    for key in ["ab12", "cd34"] {
        let e = dir.read_point(key, 1 << 40).expect_err("refused");
        assert_eq!(e.exit_code(), 4);
        assert!(e.to_string().contains(key), "{e}");
    }
}
