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

/// Each text the SVG draws: (x, y, anchor, text).
fn texts(svg: &str) -> Vec<(f64, f64, String, String)> {
    let lines: Vec<&str> = svg.lines().collect();
    let attr = |line: &str, name: &str| -> Option<String> {
        let rest = line.split(&format!(" {name}=\"")).nth(1)?;
        Some(rest.split('"').next()?.to_string())
    };
    lines
        .windows(2)
        .filter(|w| w[0].starts_with("<text "))
        .filter_map(|w| {
            let x = attr(w[0], "x")?.parse().ok()?;
            let y = attr(w[0], "y")?.parse().ok()?;
            Some((x, y, attr(w[0], "text-anchor")?, w[1].to_string()))
        })
        .collect()
}

/// The legend's entries of a panelled plot: the texts anchored at their start (axis labels
/// and titles are centred or right-aligned).
fn panel_legend(svg: &str) -> Vec<String> {
    texts(svg)
        .into_iter()
        .filter(|t| t.2 == "start")
        .map(|t| t.3)
        .collect()
}

/// The stroke colour of each series line (more than one load point).
fn curve_colours(svg: &str) -> Vec<String> {
    svg.lines()
        .filter(|l| l.starts_with("<polyline"))
        .filter(|l| l.split("points=\"").nth(1).unwrap().split(' ').count() > 3)
        .map(|l| l.split("stroke=\"").nth(1).unwrap()[..7].to_string())
        .collect()
}

/// The four plots of directory `dir`, by file name.
fn plots(dir: &std::path::Path) -> Vec<(String, String)> {
    [
        "latency.svg",
        "throughput.svg",
        "latency_std.svg",
        "traffic.svg",
    ]
    .iter()
    .map(|f| (f.to_string(), std::fs::read_to_string(dir.join(f)).unwrap()))
    .collect()
}

/// A study sweeping routing.algorithm over two routings and traffic.pattern over five
/// patterns, run in `d` into `c`.
fn pattern_study(d: &std::path::Path) {
    std::fs::write(
        d.join("s.toml"),
        "name = \"c\"\n[sweep]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n\
         \"traffic.pattern\" = [\"uniform\", \"bit-reversal\", \"matrix-transpose\", \
         \"bit-complement\", \"tornado\"]\n[router]\nvcs = 3\n[topology]\nkind = \"mesh\"\nk = 4\n\
         n = 2\n[traffic]\nmessage_length = 8\nflit_rates = [0.05, 0.1, 0.2]\n[run]\n\
         warmup_cycles = 200\nmeasure_cycles = 2000\n",
    )
    .unwrap();
    let o = run_in(d, &["run", "s.toml", "--out", "c", "--quiet"]);
    assert!(o.status.success(), "{o:?}");
}

/// `--panels traffic.pattern`: a panel per pattern, titled `pattern = ...`, in rows of three,
/// each with one curve per routing labelled by the routing alone, a routing's colour the same
/// in every panel, one legend; several directories keep their labels in front.
#[test]
fn panels_one_per_value_of_the_swept_key() {
    let dir = tmp("panels");
    let d = dir.path();
    pattern_study(d);
    let o = run_in(d, &["plot", "c", "--panels", "traffic.pattern"]);
    assert!(o.status.success(), "{o:?}");
    let patterns = [
        "uniform",
        "bit-reversal",
        "matrix-transpose",
        "bit-complement",
        "tornado",
    ];
    for (f, svg) in plots(&d.join("c")) {
        let t = texts(&svg);
        let titles: Vec<&(f64, f64, String, String)> =
            t.iter().filter(|t| t.3.starts_with("pattern = ")).collect();
        let names: Vec<String> = titles.iter().map(|t| t.3.clone()).collect();
        let want: Vec<String> = patterns.iter().map(|p| format!("pattern = {p}")).collect();
        assert_eq!(names, want, "{f}: one panel title per pattern, in order");
        let mut rows: Vec<i64> = titles.iter().map(|t| t.1 as i64).collect();
        rows.dedup();
        assert_eq!(rows.len(), 2, "{f}: five panels wrap into two rows");
        assert_eq!(
            titles.iter().filter(|t| t.1 == titles[0].1).count(),
            3,
            "{f}: three panels a row"
        );
        assert_eq!(
            panel_legend(&svg),
            ["dor", "duato"],
            "{f}: one shared legend"
        );
        assert_eq!(
            t.iter()
                .filter(|t| t.3 == "offered load (flits/node/cycle)")
                .count(),
            5,
            "{f}: each panel has its own x axis"
        );
    }
    let traffic = std::fs::read_to_string(d.join("c").join("traffic.svg")).unwrap();
    let colours = curve_colours(&traffic);
    assert_eq!(colours.len(), 10, "two curves in each of five panels");
    for pair in colours.chunks(2) {
        assert_eq!(
            pair,
            &colours[..2],
            "a routing's colour is the same in every panel"
        );
    }
    assert_ne!(colours[0], colours[1]);
    // Two directories: the directory's label stays in front of the routing.
    std::fs::create_dir_all(d.join("c2")).unwrap();
    std::fs::copy(d.join("c/summary.csv"), d.join("c2/summary.csv")).unwrap();
    let o = run_in(
        d,
        &[
            "plot",
            "c",
            "c2",
            "--out",
            "both",
            "--panels",
            "traffic.pattern",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(d.join("both").join("traffic.svg")).unwrap();
    assert_eq!(
        panel_legend(&svg),
        ["c: dor", "c: duato", "c2: dor", "c2: duato"]
    );
    assert_eq!(curve_colours(&svg).len(), 20, "four curves in each panel");
}

/// A --panels key that is not swept (by every directory) is refused with exit code 2 in one
/// line naming the swept keys, and nothing is written; without --panels the plots are those of
/// one plotting area with every configuration, written byte for byte the same after a
/// panelled plot of the same directory.
#[test]
fn panels_refuses_an_unswept_key_and_leaves_plain_plots_alone() {
    let dir = tmp("panels-refused");
    let d = dir.path();
    pattern_study(d);
    let o = run_in(d, &["plot", "c"]);
    assert!(o.status.success(), "{o:?}");
    let plain = plots(&d.join("c"));
    let o = run_in(d, &["plot", "c", "--panels", "router.vcs", "--out", "p"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        "flitsim: error: plot: --panels router.vcs is not a swept key of c (its swept keys: \
         routing.algorithm, traffic.pattern); fix: give --panels one of routing.algorithm, \
         traffic.pattern\n"
    );
    assert!(!d.join("p").exists(), "nothing written");
    std::fs::create_dir_all(d.join("one")).unwrap();
    let summary = std::fs::read_to_string(d.join("c/summary.csv")).unwrap();
    let only_dor: String = summary
        .lines()
        .filter(|l| !l.contains(",duato,"))
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells.remove(1);
            cells.join(",") + "\n"
        })
        .collect();
    std::fs::write(d.join("one/summary.csv"), only_dor).unwrap();
    let o = run_in(
        d,
        &[
            "plot",
            "c",
            "one",
            "--out",
            "q",
            "--panels",
            "routing.algorithm",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("not a swept key of one (its swept keys: traffic.pattern); fix: give --panels a key every directory sweeps: traffic.pattern"),
        "{err}"
    );
    let o = run_in(d, &["plot", "c", "--panels", "traffic.pattern"]);
    assert!(o.status.success(), "{o:?}");
    assert!(plots(&d.join("c"))[0].1.contains("pattern = uniform"));
    let o = run_in(d, &["plot", "c"]);
    assert!(o.status.success(), "{o:?}");
    assert!(
        plots(&d.join("c")) == plain,
        "unchanged after a panelled plot"
    );
    let latency = &plain[0].1;
    assert!(latency.starts_with("<svg width=\""), "one plotting area");
    assert_eq!(
        legend(latency).len(),
        10,
        "one legend entry per configuration"
    );
    assert_eq!(legend(latency)[0], "dor, uniform");
    assert!(!latency.contains("pattern = "), "no panel titles");
}

/// The points of each series' polyline (more than one load point).
fn polyline_points(svg: &str) -> Vec<usize> {
    svg.lines()
        .filter(|l| l.starts_with("<polyline"))
        .map(|l| {
            let pts = l
                .split("points=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            pts.split_whitespace().count()
        })
        .collect()
}

/// The y axis' tick labels of a single plot: the numbers anchored at their end.
fn y_ticks(svg: &str) -> Vec<f64> {
    texts(svg)
        .into_iter()
        .filter(|t| t.2 == "end")
        .filter_map(|t| t.3.trim().parse().ok())
        .collect()
}

/// `--x-range 0:0.15` keeps the loads in it on every plot (two of the study's three);
/// `--log-y --y-range 5:1000` gives latency.svg a log axis within the range, labelled at the
/// powers of 10 in it, and leaves the other plots linear; a range a log axis cannot show, or
/// a malformed one, is refused with exit code 2 and nothing written.
#[test]
fn axis_options_bound_and_scale_the_plots() {
    let dir = tmp("axes");
    let d = dir.path();
    pattern_study(d);
    let o = run_in(
        d,
        &[
            "plot",
            "c",
            "--x-range",
            "0:0.15",
            "--log-y",
            "--y-range",
            "5:1000",
        ],
    );
    assert!(o.status.success(), "{o:?}");
    let got = plots(&d.join("c"));
    for (name, svg) in &got {
        let lines = polyline_points(svg);
        let curves: Vec<&usize> = lines.iter().filter(|&&n| n > 0).collect();
        assert!(!curves.is_empty(), "{name}");
        // The diagonal of throughput.svg has two points, as has every curve now.
        assert!(lines.iter().all(|&n| n <= 2), "{name}: {lines:?}");
    }
    let latency = y_ticks(&got[0].1);
    assert!(
        latency.iter().all(|&y| (5.0..=1000.0).contains(&y)),
        "{latency:?}"
    );
    assert!(
        latency.contains(&10.0) && latency.contains(&100.0),
        "{latency:?}"
    );
    let throughput = y_ticks(&got[1].1);
    assert!(
        throughput.contains(&0.0),
        "throughput stays linear: {throughput:?}"
    );
    let before = plots(&d.join("c"));
    for args in [
        ["--log-y", "--y-range", "0:100"],
        ["--x-range", "0.3:0.1", "--log-y"],
        ["--y-range", "ten:20", "--log-y"],
    ] {
        let mut all = vec!["plot", "c"];
        all.extend(args);
        let o = run_in(d, &all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("fix:") && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    assert!(before == plots(&d.join("c")), "nothing written");
}

/// Each curve's colour and dash array (none for a solid line), in drawing order.
fn looks(svg: &str) -> Vec<(String, String)> {
    svg.lines()
        .filter(|l| l.starts_with("<polyline"))
        .filter(|l| l.split("points=\"").nth(1).unwrap().split(' ').count() > 3)
        .map(|l| {
            let colour = l.split("stroke=\"").nth(1).unwrap()[..7].to_string();
            let dash = l
                .split("stroke-dasharray=\"")
                .nth(1)
                .map_or("", |d| d.split('"').next().unwrap());
            (colour, dash.to_string())
        })
        .collect()
}

/// Two swept keys: the first (the routing) picks a curve's colour, the second (the pattern)
/// its line style, solid, dashed, dotted, then solid again with the next marker; every line
/// is one SVG polyline, its dashes a dash array.
#[test]
fn swept_keys_map_to_colour_then_line_style_then_marker() {
    let dir = tmp("looks");
    let d = dir.path();
    pattern_study(d);
    let o = run_in(d, &["plot", "c"]);
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(d.join("c").join("latency.svg")).unwrap();
    let got = looks(&svg);
    assert_eq!(got.len(), 10, "{got:?}");
    let dashes = ["", "8,5", "2,4", "", "8,5"];
    for (routing, curves) in got.chunks(5).enumerate() {
        let colour = &curves[0].0;
        assert!(
            curves.iter().all(|c| &c.0 == colour),
            "routing {routing}: {curves:?}"
        );
        let styles: Vec<&str> = curves.iter().map(|c| c.1.as_str()).collect();
        assert_eq!(styles, dashes, "routing {routing}");
    }
    assert_ne!(got[0].0, got[5].0, "two routings, two colours");
    // The fourth and fifth patterns repeat the first two line styles with triangles (and
    // only they: the other markers are circles and crosses).
    assert!(svg.contains("<polygon"), "triangle markers");
}

/// latency_hist.svg: a panel per configuration titled by its label, under one legend of the
/// loads below saturation; written for one directory, not for an overlay of several.
#[test]
fn latency_hist_has_a_panel_per_configuration_and_a_curve_per_load() {
    let dir = tmp("hist");
    let d = dir.path();
    pattern_study(d);
    let o = run_in(d, &["plot", "c"]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("latency_hist.svg"));
    let svg = std::fs::read_to_string(d.join("c").join("latency_hist.svg")).unwrap();
    let latency = std::fs::read_to_string(d.join("c").join("latency.svg")).unwrap();
    let configurations = legend(&latency);
    let titles: Vec<String> = texts(&svg)
        .into_iter()
        .filter(|t| t.2 == "middle" && configurations.contains(&t.3))
        .map(|t| t.3)
        .collect();
    assert_eq!(
        titles, configurations,
        "a panel per configuration, in order"
    );
    // The loads offered below saturation, in increasing order: the study's three, and those
    // of the patterns that leave some processors silent (bit-reversal and transpose map some
    // onto themselves), rounded to four decimals.
    let loads: Vec<f64> = panel_legend(&svg)
        .iter()
        .map(|l| {
            l.strip_suffix(" flits/node/cycle")
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert!(loads.windows(2).all(|w| w[0] < w[1]), "{loads:?}");
    for x in [0.05, 0.1, 0.2] {
        assert!(loads.contains(&x), "{loads:?}");
    }
    assert!(
        loads.iter().all(|x| (x * 1e4).round() == x * 1e4),
        "{loads:?}"
    );
    let o = run_in(d, &["plot", "c", "c", "--out", "both"]);
    assert!(o.status.success(), "{o:?}");
    assert!(!d.join("both").join("latency_hist.svg").exists());
}
