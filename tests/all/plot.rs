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
    // Two directories of the same scenario overlaid: one curve each, told apart by path.
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
    let labels = legend(&svg);
    assert_eq!(
        labels,
        [out.display().to_string(), other.display().to_string()],
        "legend names"
    );
    assert_eq!(curves(&svg), 2, "one line per directory");
}

/// The legend's labels: the texts drawn right of the 800-pixel plotting area.
fn legend(svg: &str) -> Vec<String> {
    let lines: Vec<&str> = svg.lines().collect();
    lines
        .windows(2)
        .filter_map(|w| {
            let x: f64 = w[0]
                .strip_prefix("<text x=\"")?
                .split('"')
                .next()?
                .parse()
                .ok()?;
            (x > 800.0).then(|| w[1].to_string())
        })
        .collect()
}

/// Series lines joining more than one load point (axis ticks and legend samples have two
/// points).
fn curves(svg: &str) -> usize {
    svg.lines()
        .filter(|l| l.starts_with("<polyline"))
        .filter(|l| l.split("points=\"").nth(1).unwrap().split(' ').count() > 3)
        .count()
}

/// Runs `flitsim` with `args` in `dir`, returning the output.
fn run_in(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

/// A sweep over two keys with two seeds: pooled.csv is plotted, one curve per configuration
/// labelled by the swept values only, with error bars; the legend lies right of the plotting
/// area; --title and --label work, and a --label count that does not match is refused.
#[test]
fn one_curve_per_configuration_labelled_by_its_values() {
    let dir = tmp("config");
    let d = dir.path();
    std::fs::write(
        d.join("s.toml"),
        "name = \"c\"\nseeds = [1, 2]\n[sweep]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n\
         \"router.vcs\" = [3, 5]\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\n\
         message_length = 64\nflit_rates = [0.05, 0.1, 0.2]\n[run]\nwarmup_cycles = 200\n\
         measure_cycles = 2000\n",
    )
    .unwrap();
    assert!(
        run_in(d, &["run", "s.toml", "--out", "c", "--quiet"])
            .status
            .success()
    );
    assert!(d.join("c").join("pooled.csv").exists());
    let o = run_in(d, &["plot", "c", "--title", "A study"]);
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(d.join("c").join("latency.svg")).unwrap();
    assert_eq!(
        legend(&svg),
        ["dor, V=3", "dor, V=5", "duato, V=3", "duato, V=5"]
    );
    assert_eq!(curves(&svg), 4, "one curve per configuration, not per seed");
    assert!(svg.contains("A study: mean latency"), "title");
    // Error bars: the half-widths across the two replications.
    let throughput = std::fs::read_to_string(d.join("c").join("throughput.svg")).unwrap();
    assert!(
        throughput
            .lines()
            .filter(|l| l.starts_with("<line") || l.starts_with("<polyline"))
            .count()
            > 40,
        "error bars drawn"
    );
    // Same folder name under two parents: two directories, two sets of curves.
    std::fs::create_dir_all(d.join("a")).unwrap();
    std::fs::create_dir_all(d.join("b")).unwrap();
    for sub in ["a/c", "b/c"] {
        assert!(
            run_in(
                d,
                &[
                    "run",
                    "s.toml",
                    "--out",
                    sub,
                    "--quiet",
                    "--set",
                    "sweep.router.vcs=[3]"
                ]
            )
            .status
            .success()
        );
    }
    let o = run_in(
        d,
        &[
            "plot", "a/c", "b/c", "--out", "ab", "--label", "first", "--label", "second",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(d.join("ab").join("latency.svg")).unwrap();
    assert_eq!(
        legend(&svg),
        [
            "first: dor, V=3",
            "first: duato, V=3",
            "second: dor, V=3",
            "second: duato, V=3"
        ]
    );
    let o = run_in(d, &["plot", "a/c", "b/c", "--out", "ab2"]);
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(d.join("ab2").join("latency.svg")).unwrap();
    assert_eq!(curves(&svg), 4, "a/c and b/c do not merge");
    assert!(legend(&svg)[0].starts_with("a/c: "), "{:?}", legend(&svg));
    let o = run_in(d, &["plot", "a/c", "b/c", "--out", "ab3", "--label", "one"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("--label"));
}

/// A summary.csv of an earlier flitsim (no `scenario` column) is refused, naming the fix.
#[test]
fn an_old_summary_is_refused_with_the_fix() {
    let dir = tmp("old");
    let d = dir.path();
    std::fs::write(
        d.join("summary.csv"),
        "rate,seed,offered_flits,accepted_flits,latency_mean,latency_ci95,saturated\n0.1,1,0.1,0.1,20,1,false\n",
    )
    .unwrap();
    let o = bin().args(["plot", d.to_str().unwrap()]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("rerun `flitsim run`"));
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
