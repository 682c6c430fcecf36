//! `--set KEY=VALUE`: overrides one key for this run, on every command that reads a scenario,
//! with the same validation as the file and messages that name the `--set`; and
//! experiment.json, which records what ran.

use super::{TORUS, csv, flitsim, ok, refused, scenario};
use crate::common::temp_dir;

/// A scalar, a list, a key of a nested table and a bare string, each overriding the file's.
#[test]
fn set_overrides_a_scalar_a_list_a_nested_key_and_a_string() {
    let tmp = temp_dir("exp-set");
    let d = tmp.path();
    let s = scenario(d, "s.toml", TORUS);
    let args = [
        "run",
        &s,
        "--out",
        "out",
        "--quiet",
        "--set",
        "seed=5",
        "--set",
        "traffic.flit_rates=[0.02, 0.03, 0.04]",
        "--set",
        "run.warmup_cycles=300",
        "--set",
        "routing.algorithm=duato",
    ];
    ok(&flitsim(d, "run", &args));
    let (header, rows) = csv(&d.join("out").join("summary.csv"));
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    assert_eq!(rows.len(), 3, "three loads");
    let offered: Vec<&str> = rows
        .iter()
        .map(|r| r[col("offered_flits")].as_str())
        .collect();
    assert_eq!(offered, ["0.02", "0.03", "0.04"]);
    assert!(rows.iter().all(|r| r[col("seed")] == "5"));
    // duato uses class-a channels; dor has none.
    assert!(
        rows.iter()
            .all(|r| r[col("adaptive_hop_fraction")].parse::<f64>().unwrap() > 0.0)
    );
    let json = std::fs::read_to_string(d.join("out").join("experiment.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let resolved = &v["configurations"][0]["scenario"];
    assert_eq!(resolved["run"]["warmup_cycles"], 300);
    assert_eq!(resolved["routing"]["algorithm"], "duato");
    assert_eq!(resolved["seeds"], serde_json::json!([5]));
    // Defaults filled in: the drain cap the file never gave.
    assert!(resolved["run"]["drain_cycles"].as_u64().unwrap() > 0);
    assert_eq!(v["flitsim"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(!v["flitsim"]["git_revision"].as_str().unwrap().is_empty());
    assert_eq!(v["command"][1], "run");
    assert_eq!(v["sets"].as_array().unwrap().len(), 4);
}

/// `--set` works on check, info and model too.
#[test]
fn set_works_on_check_info_and_model() {
    let tmp = temp_dir("exp-set-cmds");
    let d = tmp.path();
    let s = scenario(d, "s.toml", TORUS);
    let o = flitsim(d, "check", &["check", &s, "--set", "router.vcs=6"]);
    ok(&o);
    assert!(o.stdout.contains("6 virtual channels"), "{}", o.stdout);
    let o = flitsim(d, "info", &["info", &s, "--csv", "--set", "topology.k=5"]);
    ok(&o);
    assert!(o.stdout.contains("processors,25"), "{}", o.stdout);
    // Paper 003's model covers dor on the unidirectional torus with V = 2.
    let o = flitsim(
        d,
        "model",
        &[
            "model",
            &s,
            "--out",
            "m",
            "--set",
            "topology.links=unidirectional",
            "--set",
            "router.vcs=2",
            "--set",
            "traffic.message_length=16",
        ],
    );
    ok(&o);
    let (_, rows) = csv(&d.join("m").join("model.csv"));
    assert_eq!(rows.len(), 2);
    let o = flitsim(
        d,
        "validate",
        &[
            "validate",
            &s,
            "--out",
            "v",
            "--quiet",
            "--set",
            "topology.links=unidirectional",
            "--set",
            "router.vcs=2",
        ],
    );
    ok(&o);
    let (_, rows) = csv(&d.join("v").join("validation.csv"));
    assert_eq!(rows.len(), 2);
}

/// Each kind of bad `--set` is refused with one line naming it: unknown key, bad type, out of
/// range, an invalid combination, and no `=`.
#[test]
fn bad_sets_are_refused_naming_the_set() {
    let tmp = temp_dir("exp-set-bad");
    let d = tmp.path();
    let s = scenario(d, "s.toml", TORUS);
    for (set, expect) in [
        (
            "router.vcz=3",
            &[
                "--set router.vcz=3",
                "unknown key",
                "did you mean `router.vcs`?",
            ][..],
        ),
        (
            "router.vcs=abc",
            &["--set router.vcs=abc", "expected a whole number"],
        ),
        (
            "router.vcs=0",
            &["--set router.vcs=0", "[router] vcs", "out of range"],
        ),
        (
            "routing.algorithm=duato",
            &["--set routing.algorithm=duato", "duato"],
        ),
        ("router.vcs", &["--set router.vcs", "KEY=VALUE"]),
        ("router=4", &["--set router=4", "is a table"]),
    ] {
        let text = TORUS.replace("vcs = 3", "vcs = 2");
        let f = scenario(d, "s2.toml", &text);
        let file = if set.starts_with("routing") { &f } else { &s };
        refused(&flitsim(d, "check", &["check", file, "--set", set]), expect);
        refused(
            &flitsim(d, "run", &["run", file, "--set", set, "--out", "o"]),
            expect,
        );
    }
    assert!(!d.join("o").exists());
}
