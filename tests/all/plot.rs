//! `flitsim plot DIR` draws SVG plots from a results directory, `flitsim plot DIR... --out D`
//! overlays several, and a directory without summary.csv is refused with exit code 2.

use std::process::Command;
use tempfile::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
}

/// A fresh temporary directory, removed when dropped.
fn tmp(name: &str) -> TempDir {
    crate::common::temp_dir(&format!("plot-{name}"))
}

#[test]
fn plots_a_run() {
    let dir = tmp("run");
    let d = dir.path();
    let scenario = d.join("s.toml");
    std::fs::write(
        &scenario,
        "name = \"p\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nmessage_length = 8\n\
         flit_rates = [0.05, 0.2, 0.9]\n[run]\nwarmup_cycles = 200\nmeasure_cycles = 2000\n",
    )
    .unwrap();
    let out = d.join("out");
    let o = bin()
        .args([
            "run",
            scenario.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let o = bin()
        .args(["plot", out.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    for f in [
        "latency.svg",
        "throughput.svg",
        "latency_std.svg",
        "traffic.svg",
    ] {
        let svg = std::fs::read_to_string(out.join(f)).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("offered load"),
            "{f}"
        );
        // one polyline per series plus the diagonal of the throughput plot
        assert!(svg.contains("<polyline"), "{f}");
    }
    // Two directories overlaid: one series each, named after its directory.
    let other = d.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(out.join("summary.csv"), other.join("summary.csv")).unwrap();
    let both = d.join("both");
    let o = bin()
        .args(["plot", out.to_str().unwrap(), other.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "several directories need --out");
    let o = bin()
        .args([
            "plot",
            out.to_str().unwrap(),
            other.to_str().unwrap(),
            "--out",
            both.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(both.join("traffic.svg")).unwrap();
    assert!(
        svg.contains("\nout\n</text>") && svg.contains("\nother\n</text>"),
        "legend names"
    );
    // Series lines join the three load points (axis ticks have two points).
    let lines = svg
        .lines()
        .filter(|l| l.starts_with("<polyline"))
        .filter(|l| l.split("points=\"").nth(1).unwrap().split(' ').count() > 3)
        .count();
    assert_eq!(lines, 2, "one line per directory");
}

#[test]
fn refuses_a_directory_without_results() {
    let dir = tmp("empty");
    let d = dir.path().to_path_buf();
    let o = bin().args(["plot", d.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("flitsim: error: ") && err.contains("summary.csv"),
        "{err}"
    );
    assert!(
        std::fs::read_dir(&d).unwrap().next().is_none(),
        "nothing written"
    );
}
