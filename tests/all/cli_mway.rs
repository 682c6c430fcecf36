//! k-ary m-way scenarios that cannot work are refused at `check` time: exit code 2, one line on
//! stderr "flitsim: error: <file>: <key>: <problem>; fix: <fix>", naming the key and saying
//! what to do. Each refusal has a positive control: the fixed scenario is accepted, so a
//! refusal broader than its reason would fail here too.

/// `flitsim check` on a scenario made of the given tables' lines.
fn check(topology: &str, vcs: u32, routing: &str, traffic: &str) -> (Option<i32>, String) {
    let text = format!(
        "name = \"m\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\n[routing]\n{routing}\n\
         [traffic]\n{traffic}\nrates = [0.001]\n"
    );
    crate::common::flitsim_check(&text, "cli-mway")
}

const TORUS: &str = "kind = \"mway\"\nk = 4\nn = 2\nwrap = \"torus\"";
const MESH: &str = "kind = \"mway\"\nk = 4\nn = 2\nwrap = \"mesh\"";
const CUBE: &str = "kind = \"mway\"\nk = 2\nn = 4\nwrap = \"mesh\"";
const ROUTERS_TORUS: &str =
    "kind = \"mway\"\nk = 4\nn = 2\nwrap = \"torus\"\nprocessors = \"routers\"";

fn refused(topology: &str, vcs: u32, routing: &str, traffic: &str, key: &str, words: &[&str]) {
    let (code, err) = check(topology, vcs, routing, traffic);
    let ctx = format!("[{topology}] V={vcs} [{routing}] [{traffic}]");
    assert_eq!(code, Some(2), "{ctx}: {err}");
    assert!(
        err.starts_with("flitsim: error: ") && err.lines().count() == 1,
        "{ctx}: {err}"
    );
    assert!(err.contains(key), "{ctx}: key {key:?} missing in {err}");
    assert!(err.contains("; fix: "), "{ctx}: {err}");
    // The key comes before the fix, which says something.
    let fix = err.split("; fix: ").nth(1).unwrap().trim();
    assert!(
        err.find(key).unwrap() < err.find("; fix: ").unwrap(),
        "{err}"
    );
    assert!(fix.len() > 5, "{ctx}: empty fix in {err}");
    for w in words {
        assert!(err.contains(w), "{ctx}: {w:?} missing in {err}");
    }
}

fn accepted(topology: &str, vcs: u32, routing: &str, traffic: &str) {
    let (code, err) = check(topology, vcs, routing, traffic);
    assert_eq!(code, Some(0), "[{topology}] V={vcs} [{routing}]: {err}");
}

const DOR_RING: &str = "algorithm = \"dor-ring\"";
const ADAPTIVE: &str = "algorithm = \"adaptive\"";
const ADAPTIVE_RING: &str = "algorithm = \"adaptive-ring\"";

#[test]
fn ring_routings_only_on_tori() {
    for topo in [MESH, CUBE] {
        for r in [DOR_RING, ADAPTIVE_RING] {
            refused(topo, 3, r, "", "[routing] algorithm", &["adaptive"]);
        }
        accepted(topo, 2, ADAPTIVE, "");
    }
    accepted(TORUS, 2, DOR_RING, "");
    accepted(TORUS, 3, ADAPTIVE_RING, "");
}

#[test]
fn adaptive_not_on_a_torus() {
    for topo in [TORUS, ROUTERS_TORUS] {
        refused(
            topo,
            2,
            ADAPTIVE,
            "",
            "[routing] algorithm",
            &["deadlocks", "adaptive-ring"],
        );
    }
    accepted(MESH, 2, ADAPTIVE, "");
}

#[test]
fn buffer_classes_need_buffers() {
    refused(TORUS, 2, ADAPTIVE_RING, "", "[router] vcs", &["vcs = 3"]);
    accepted(TORUS, 3, ADAPTIVE_RING, "");
    refused(TORUS, 1, DOR_RING, "", "[router] vcs", &["vcs = 2"]);
    accepted(TORUS, 2, DOR_RING, "");
    refused(MESH, 1, ADAPTIVE, "", "[router] vcs", &["vcs = 2"]);
    // DOR with one buffer per set deadlocks on the rings of an m-way torus, not on a mesh.
    refused(
        TORUS,
        1,
        "algorithm = \"dor\"",
        "",
        "[router] vcs",
        &["deadlocks"],
    );
    accepted(MESH, 1, "algorithm = \"dor\"", "");
    accepted(CUBE, 1, "algorithm = \"dor\"", "");
}

#[test]
fn topology_keys() {
    let base = "kind = \"mway\"\nk = 4\nn = 2";
    let r = "algorithm = \"dor\"";
    refused(
        &format!("{base}\nwrap = \"ring\""),
        2,
        r,
        "",
        "[topology] wrap",
        &["\"ring\"", "mesh"],
    );
    refused(
        &format!("{base}\nprocessors = \"nodes\""),
        2,
        r,
        "",
        "[topology] processors",
        &["\"nodes\"", "routers"],
    );
    refused(
        &format!("{base}\nprocessor_factor = 0"),
        2,
        r,
        "",
        "[topology] processor_factor",
        &["out of range"],
    );
    accepted(&format!("{base}\nprocessor_factor = 3"), 2, r, "");
    refused(
        &format!("{base}\nprocessors = \"routers\"\nprocessor_factor = 1"),
        2,
        r,
        "",
        "[topology] processor_factor",
        &["remove processor_factor"],
    );
    accepted(&format!("{base}\nprocessors = \"routers\""), 2, r, "");
    refused(
        "kind = \"mway\"\nk = 2\nn = 3\nwrap = \"torus\"",
        2,
        r,
        "",
        "[topology] k",
        &["wrap = \"mesh\""],
    );
    refused(
        "kind = \"mway\"\nk = 2\nn = 3",
        2,
        r,
        "",
        "[topology] k",
        &["k = 3"],
    );
    accepted("kind = \"mway\"\nk = 2\nn = 3\nwrap = \"mesh\"", 2, r, "");
    refused(
        &format!("{base}\nlinks = \"bidirectional\""),
        2,
        r,
        "",
        "[topology] links",
        &["remove links"],
    );
    for key in [
        "wrap = \"mesh\"",
        "processors = \"routers\"",
        "processor_factor = 2",
    ] {
        let name = key.split(' ').next().unwrap();
        refused(
            &format!("kind = \"mesh\"\nk = 4\nn = 2\n{key}"),
            2,
            r,
            "",
            &format!("[topology] {name}"),
            &["kind = \"mway\""],
        );
    }
}

#[test]
fn coordinate_patterns_need_one_processor_per_channel() {
    let r = "algorithm = \"dor\"";
    for topo in [
        ROUTERS_TORUS.to_string(),
        format!("{TORUS}\nprocessor_factor = 2"),
    ] {
        for pattern in ["matrix-transpose", "tornado", "bit-complement", "neighbor"] {
            refused(
                &topo,
                2,
                r,
                &format!("pattern = \"{pattern}\""),
                "[traffic] pattern",
                &[pattern, "uniform"],
            );
        }
        for ok in ["uniform", "permutation"] {
            accepted(&topo, 2, r, &format!("pattern = \"{ok}\""));
        }
    }
    accepted(TORUS, 2, r, "pattern = \"matrix-transpose\"");
    accepted(TORUS, 2, r, "pattern = \"tornado\"");
}

/// Processors inside the routers of a two-channel line: one router, one processor, nobody to
/// send to (uniform traffic could not draw a destination).
#[test]
fn a_single_processor_is_refused() {
    let line = |k: u32| {
        format!("kind = \"mway\"\nk = {k}\nn = 1\nwrap = \"mesh\"\nprocessors = \"routers\"")
    };
    refused(
        &line(2),
        2,
        "algorithm = \"dor\"",
        "",
        "[topology] k",
        &["single router"],
    );
    accepted(&line(3), 2, "algorithm = \"dor\"", "");
}

/// A hotspot processor inside a router: the run writes channels.csv, whose hotspot columns
/// measure from the hot processor's channel (one channel is at distance 0, with 4 links
/// leaving it on a 2-D torus).
#[test]
fn hotspot_inside_a_router_runs() {
    let tmp = crate::common::temp_dir("mway-hot");
    let d = tmp.path();
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "name = \"h\"\n[topology]\nkind = \"mway\"\nk = 4\nn = 2\nprocessors = \"routers\"\n\
         [router]\nvcs = 2\n[routing]\nalgorithm = \"dor-ring\"\n[traffic]\npattern = \"hotspot\"\n\
         hotspot_node = 31\nhotspot_fraction = 0.2\nmessage_length = 4\nrates = [0.002]\n\
         [run]\nwarmup_cycles = 100\nmeasure_cycles = 1000\n",
    )
    .unwrap();
    let out = d.join("out");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args([
            "run",
            f.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(out.join("channels.csv")).unwrap();
    let at_hot: Vec<&str> = csv
        .lines()
        .skip(1)
        .filter(|l| l.split(',').nth(12) == Some("0"))
        .map(|l| l.split(',').nth(4).unwrap())
        .collect();
    assert_eq!(at_hot.len(), 4, "links leaving the hot channel");
    assert!(at_hot.iter().all(|&c| c == at_hot[0]), "one hot channel");
}

/// An m-way 8x8 mesh with e-cube routing and one buffer per set looks like paper 003's mesh to
/// a model that reads only kind, radix, routing and V: `model` and `validate` must refuse it.
#[test]
fn no_latency_model_covers_an_mway_network() {
    let tmp = crate::common::temp_dir("mway-model");
    let d = tmp.path();
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "name = \"mm\"\n[topology]\nkind = \"mway\"\nk = 8\nn = 2\nwrap = \"mesh\"\n\
         [router]\nvcs = 1\n[routing]\nalgorithm = \"dor\"\n[traffic]\nmessage_length = 20\n\
         rates = [0.001]\n",
    )
    .unwrap();
    for cmd in ["model", "validate"] {
        let out = d.join(cmd);
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
            .args([cmd, f.to_str().unwrap(), "--out", out.to_str().unwrap()])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert!(
            err.contains("m-way") && err.contains("; fix: "),
            "{cmd}: {err}"
        );
        assert!(!out.exists(), "{cmd} wrote {}", out.display());
    }
}
