//! A property of random histories: whatever a user does to a few directories (runs of three
//! experiments with and without `--replace`, runs killed while simulating or while publishing,
//! shards and merges into the same and other directories, files of their own placed there,
//! some under names flitsim writes), every file the user placed survives unchanged and every
//! directory holds one experiment's tables whole, or none.

use super::{TORUS, scenario};
use crate::common::temp_dir;
use rand::{Rng, SeedableRng};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// The tables of `dir` (name → bytes), experiment.json (it holds the command line) and the
/// user's files (named `user-*`) left out.
fn tables(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let Ok(entries) = fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| !n.starts_with('.') && !n.starts_with("user-") && n != "experiment.json")
        .filter(|n| dir.join(n).is_file())
        .map(|n| (n.clone(), fs::read(dir.join(&n)).unwrap()))
        .collect()
}

/// Runs `flitsim args` in `d` with `env`; its exit code (None when killed).
fn flitsim(d: &Path, args: &[String], env: Option<(&str, String)>) -> Option<i32> {
    let mut c = Command::new(env!("CARGO_BIN_EXE_flitsim"));
    c.args(args)
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some((k, v)) = env {
        c.env(k, v);
    }
    c.status().unwrap().code()
}

/// Starts `flitsim args` and kills it (SIGKILL) after `ms` milliseconds, if it still runs.
fn killed_after(d: &Path, args: &[String], ms: u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(args)
        .current_dir(d)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(ms));
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn random_histories_lose_no_file_and_leave_whole_sets() {
    let tmp = temp_dir("exp-property");
    let d = tmp.path();
    let text = TORUS
        .replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.05, 0.1, 0.15]")
        .replace("seed = 1", "seeds = [1, 2]");
    let s = scenario(d, "s.toml", &text);
    // The three experiments, and the tables a single run of each writes.
    let experiments: [Vec<String>; 3] = [
        vec![],
        vec!["--set".into(), "router.vcs=4".into()],
        vec!["--seed".into(), "5".into()],
    ];
    let run = |e: &[String], out: &str| -> Vec<String> {
        let mut a: Vec<String> = ["run", &s, "--quiet", "--out", out]
            .map(String::from)
            .to_vec();
        a.extend(e.iter().cloned());
        a
    };
    let wholes: Vec<BTreeMap<String, Vec<u8>>> = experiments
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let out = format!("reference{i}");
            assert_eq!(flitsim(d, &run(e, &out), None), Some(0));
            tables(&d.join(out))
        })
        .collect();
    let dirs = ["a", "b", "c"];
    let mut placed: Vec<(String, String)> = Vec::new();
    for history in 0..10u64 {
        let mut rng = rand_pcg::Pcg64::seed_from_u64(history);
        for step in 0..10 {
            let dir = dirs[rng.gen_range(0..dirs.len())];
            let e = &experiments[rng.gen_range(0..3)];
            let mut args = run(e, dir);
            if rng.gen_bool(0.4) {
                args.push("--replace".into());
            }
            let action = rng.gen_range(0..6);
            match action {
                0 | 1 => {
                    let _ = flitsim(d, &args, None);
                }
                2 => killed_after(d, &args, rng.gen_range(1..40)),
                3 => {
                    let fault = format!("kill:{}", rng.gen_range(1..40));
                    let _ = flitsim(d, &args, Some(("FLITSIM_TEST_FAULT", fault)));
                }
                4 => {
                    // Shards of experiment 0 beside the directories, merged into one of them.
                    for i in 1..=2 {
                        let mut a = run(&experiments[0], &format!("shard{i}"));
                        a.extend(["--shard".into(), format!("{i}/2")]);
                        assert_eq!(flitsim(d, &a, None), Some(0));
                    }
                    let mut a: Vec<String> = ["merge", dir, "shard1", "shard2"]
                        .map(String::from)
                        .to_vec();
                    if rng.gen_bool(0.5) {
                        a.push("--replace".into());
                    }
                    let _ = flitsim(d, &a, None);
                }
                _ => {
                    // A file of the user's; one time in four under a name flitsim writes.
                    fs::create_dir_all(d.join(dir)).unwrap();
                    let name = if rng.gen_bool(0.25) {
                        ["summary.csv", "latency.svg", "model.csv"][rng.gen_range(0..3)].to_string()
                    } else {
                        format!("user-{history}-{step}.txt")
                    };
                    let path = format!("{dir}/{name}");
                    if !d.join(&path).exists() {
                        let body = format!("written by the user at {history}.{step}");
                        fs::write(d.join(&path), &body).unwrap();
                        placed.push((path, body));
                    }
                }
            }
            let context = format!("history {history}, step {step}, action {action}, {args:?}");
            for (path, body) in &placed {
                let now = fs::read_to_string(d.join(path));
                assert_eq!(now.ok().as_ref(), Some(body), "{path} lost; {context}");
            }
            for dir in dirs {
                let mut now = tables(&d.join(dir));
                // The user's files under flitsim's names are theirs, not a set's.
                now.retain(|n, _| !placed.iter().any(|(p, _)| *p == format!("{dir}/{n}")));
                assert!(
                    now.is_empty() || wholes.contains(&now),
                    "{dir} holds no whole set: {:?}; {context}",
                    now.keys()
                );
            }
        }
    }
}
