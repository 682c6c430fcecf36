//! Routings a topology or V cannot support are refused at `check` time (exit 2) with the reason
//! and the minimum that works; the keys of one routing are refused on another.

use std::process::Command;

fn check(routing: &str, topology: &str, vcs: u32) -> (Option<i32>, String) {
    let text = format!(
        "name = \"r\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\n[routing]\n{routing}\n\
         [traffic]\nrates = [0.001]\n"
    );
    crate::common::flitsim_check(&text, "cli-routing")
}

const MESH: &str = "kind = \"mesh\"\nk = 4\nn = 2";
const TORUS: &str = "kind = \"torus\"\nk = 4\nn = 2";
const CUBE: &str = "kind = \"hypercube\"\nn = 4";

fn refused(routing: &str, topology: &str, vcs: u32, key: &str, words: &[&str]) {
    let (code, err) = check(routing, topology, vcs);
    assert_eq!(code, Some(2), "{routing} on {topology} V={vcs}: {err}");
    assert!(
        err.starts_with("flitsim: error: ") && err.lines().count() == 1,
        "{err}"
    );
    assert!(err.contains(key) && err.contains("; fix: "), "{err}");
    for w in words {
        assert!(err.contains(w), "{w:?} missing in {err}");
    }
}

#[test]
fn pcube_off_a_hypercube() {
    for topo in [MESH, TORUS] {
        refused(
            "algorithm = \"pcube\"",
            topo,
            2,
            "[routing] algorithm",
            &["hypercubes only"],
        );
    }
    assert_eq!(check("algorithm = \"pcube\"", CUBE, 1).0, Some(0));
}

#[test]
fn duato_with_too_few_virtual_channels() {
    refused(
        "algorithm = \"duato\"",
        TORUS,
        2,
        "[router] vcs",
        &["deadlocks", "vcs = 3"],
    );
    refused(
        "algorithm = \"duato\"",
        MESH,
        1,
        "[router] vcs",
        &["vcs = 2"],
    );
    refused(
        "algorithm = \"duato\"",
        CUBE,
        1,
        "[router] vcs",
        &["vcs = 2"],
    );
    refused(
        "algorithm = \"duato-timeout\"\ntimeout = 4",
        TORUS,
        2,
        "[router] vcs",
        &["vcs = 3"],
    );
    assert_eq!(check("algorithm = \"duato\"", TORUS, 3).0, Some(0));
    assert_eq!(check("algorithm = \"duato\"", MESH, 2).0, Some(0));
    assert_eq!(check("algorithm = \"duato\"", CUBE, 2).0, Some(0));
}

#[test]
fn dateline_free_dor_on_a_torus() {
    refused(
        "algorithm = \"dor\"",
        TORUS,
        1,
        "[router] vcs",
        &["deadlocks", "vcs = 2"],
    );
    assert_eq!(check("algorithm = \"dor\"", TORUS, 2).0, Some(0));
}

#[test]
fn torus_convention_keys() {
    let bi = "kind = \"torus\"\nk = 4\nn = 2\nlinks = \"bidirectional\"";
    let uni = "kind = \"torus\"\nk = 4\nn = 2\nlinks = \"unidirectional\"";
    refused(
        "tie = \"minus\"",
        bi,
        2,
        "[routing] tie",
        &["unknown tie rule \"minus\"", "\"plus\" or \"random\""],
    );
    refused(
        "dateline = \"late\"",
        bi,
        2,
        "[routing] dateline",
        &["\"at-wrap\" or \"on-entry\""],
    );
    refused(
        "dateline = \"on-entry\"",
        uni,
        2,
        "[routing] dateline",
        &["unidirectional torus deadlocks", "at-wrap"],
    );
    for ok in [
        "dateline = \"on-entry\"\ntie = \"plus\"",
        "dateline = \"at-wrap\"\ntie = \"random\"",
    ] {
        assert_eq!(check(ok, bi, 2).0, Some(0), "{ok}");
    }
    assert_eq!(check("dateline = \"at-wrap\"", uni, 2).0, Some(0));
    let (code, _) = check("dateline = \"on-entry\"\ndeadlock_check = false", uni, 2);
    assert_eq!(
        code,
        Some(0),
        "the deadlock check off runs it, to study deadlock"
    );
}

#[test]
fn timeout_keys() {
    refused(
        "algorithm = \"duato-timeout\"",
        MESH,
        2,
        "[routing] timeout",
        &["missing"],
    );
    refused(
        "algorithm = \"duato\"\ntimeout = 3",
        MESH,
        2,
        "[routing] timeout",
        &["only duato-timeout"],
    );
    refused(
        "algorithm = \"duato-timeout\"\ntimeout = -1",
        MESH,
        2,
        "[routing] timeout",
        &["out of range"],
    );
    refused(
        "algorithm = \"duato\"\nselection = \"best\"",
        MESH,
        2,
        "[routing] selection",
        &["least-multiplexed"],
    );
    refused(
        "algorithm = \"west-first\"",
        MESH,
        2,
        "[routing] algorithm",
        &["duato-timeout"],
    );
}

#[test]
fn info_prints_the_network_properties() {
    let tmp = crate::common::temp_dir("info");
    let d = tmp.path();
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "name = \"i\"\n[topology]\nkind = \"torus\"\nk = 5\nn = 2\n[traffic]\nrates = [0.001]\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(["info", "--csv", f.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let text = String::from_utf8_lossy(&o.stdout);
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "property,value");
    // Unidirectional 5-ary 2-cube: 25 processors and routers, n·N = 50 channels, degree 2,
    // diameter n(k−1) = 8, mean distance n·(k−1)/2·N/(N−1) = 4·25/24.
    for want in [
        "processors,25",
        "routers,25",
        "channels,50",
        "degree,2",
        "diameter,8",
    ] {
        assert!(rows.contains(&want), "{want} in {rows:?}");
    }
    let md: f64 = rows
        .iter()
        .find_map(|r| r.strip_prefix("mean_distance,"))
        .unwrap()
        .parse()
        .unwrap();
    assert!((md - 4.0 * 25.0 / 24.0).abs() < 1e-12, "{md}");
}
