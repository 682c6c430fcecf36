//! Per-link heatmaps: `flitsim::output::plot::heatmaps` embeds channels.csv's values (the mean
//! over the seeds) link by link, one heatmap per configuration and load; `flitsim plot DIR`
//! writes heatmap.svg at each configuration's highest load below saturation; a channels.csv
//! that does not match the scenario's network is refused (exit 2).

use flitsim::output::plot::heatmaps;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
}

/// Runs `scenario` into `out` under a fresh temporary directory.
fn run(tag: &str, scenario: &str) -> (TempDir, PathBuf) {
    run_beside(tag, scenario, &[])
}

/// [`run`] with `files` (name, text) written beside the scenario.
fn run_beside(tag: &str, scenario: &str, files: &[(&str, &str)]) -> (TempDir, PathBuf) {
    let tmp = crate::common::temp_dir(&format!("heatmap-{tag}"));
    for (name, text) in files {
        std::fs::write(tmp.path().join(name), text).unwrap();
    }
    let file = tmp.path().join("s.toml");
    std::fs::write(&file, scenario).unwrap();
    let out = tmp.path().join("out");
    let o = bin()
        .args(["run", file.to_str().unwrap(), "--out"])
        .arg(&out)
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    (tmp, out)
}

/// A CSV file as its header and rows of cells.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text
        .lines()
        .map(|l| l.split(',').map(String::from).collect());
    (lines.next().unwrap(), lines.collect())
}

/// The value of attribute `name` in each element of `svg` of class `link`, in order.
fn link_attr(svg: &str, name: &str) -> Vec<String> {
    svg.split("class=\"link\"")
        .skip(1)
        .map(|e| {
            let v = e.split(&format!("{name}=\"")).nth(1).unwrap();
            v[..v.find('"').unwrap()].to_string()
        })
        .collect()
}

const SWEPT: &str = "name = \"hm\"\nseeds = [1, 2]\n[topology]\nkind = \"torus\"\n\
    links = \"bidirectional\"\nk = 4\nn = 2\n[sweep]\n\"router.vcs\" = [2, 3]\n[traffic]\n\
    message_length = 8\nflit_rates = [0.05, 0.2]\n[run]\nwarmup_cycles = 200\n\
    measure_cycles = 1000\n";

/// Every configuration and load has a heatmap whose 64 links (4 x 4 torus, both ways) carry
/// channels.csv's channel ids, ends and dimensions, and the mean of its two seeds'
/// flits_per_cycle; the hottest ten are the ten largest, in order.
#[test]
fn heatmaps_embed_the_mean_of_channels_csv_over_the_seeds() {
    let (_tmp, out) = run("embed", SWEPT);
    let maps = heatmaps(&out).unwrap();
    assert_eq!(maps.len(), 2 * 2, "configurations x loads");
    let (header, rows) = csv(&out.join("channels.csv"));
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let (vcs, rate, channel) = (col("router.vcs"), col("rate"), col("channel"));
    let (src, dst, util) = (col("src"), col("dst"), col("flits_per_cycle"));
    for m in &maps {
        assert!(m.svg.starts_with("<svg") && !m.svg.contains("<?xml"));
        let v = m.config.strip_prefix("V=").unwrap();
        let mine: Vec<&Vec<String>> = rows
            .iter()
            .filter(|r| r[vcs] == v && r[rate].parse::<f64>().unwrap() == m.rate)
            .collect();
        assert_eq!(mine.len(), 64 * 2, "two seeds' rows");
        let channels = link_attr(&m.svg, "data-channel");
        let utils = link_attr(&m.svg, "data-util");
        assert_eq!(channels.len(), 64);
        for (c, u) in channels.iter().zip(&utils) {
            let seeds: Vec<&&Vec<String>> = mine.iter().filter(|r| &r[channel] == c).collect();
            assert_eq!(seeds.len(), 2);
            let sum: f64 = seeds.iter().map(|r| r[util].parse::<f64>().unwrap()).sum();
            assert_eq!(u.parse::<f64>().unwrap(), sum / 2.0, "channel {c}");
            let title = format!(
                "<title>channel {c}: {}→{} dim ",
                seeds[0][src], seeds[0][dst]
            );
            assert!(m.svg.contains(&title), "{title}");
        }
        let mut sorted: Vec<f64> = utils.iter().map(|u| u.parse().unwrap()).collect();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let hot: Vec<f64> = m.hottest.iter().map(|h| h.util).collect();
        assert_eq!(hot, sorted[..10]);
    }
}

/// heatmap.svg: one panel per configuration at its highest offered load below saturation
/// (summary.csv's), each of a 4 x 4 mesh's 48 links drawn once.
#[test]
fn plot_draws_heatmap_svg_at_the_highest_load_below_saturation() {
    let (_tmp, out) = run(
        "plot",
        "name = \"p\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nmessage_length = 8\n\
         flit_rates = [0.05, 0.2, 0.9]\n[run]\nwarmup_cycles = 200\nmeasure_cycles = 2000\n",
    );
    let o = bin().arg("plot").arg(&out).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    let svg = std::fs::read_to_string(out.join("heatmap.svg")).unwrap();
    assert_eq!(link_attr(&svg, "data-channel").len(), 48);
    let (header, rows) = csv(&out.join("summary.csv"));
    let col = |n: &str| header.iter().position(|h| h == n).unwrap();
    let below = rows
        .iter()
        .filter(|r| r[col("saturated")] == "false")
        .map(|r| r[col("offered_flits")].parse::<f64>().unwrap())
        .fold(f64::NAN, f64::max);
    assert!(
        rows.iter().any(|r| r[col("saturated")] == "true"),
        "0.9 saturates"
    );
    assert!(
        svg.contains(&format!("p at {below} flits/node/cycle")),
        "{below}"
    );
    assert!(svg.contains("(flits/cycle)") && svg.contains("hottest links:"));
}

/// A channels.csv row naming a link the scenario's network does not have is refused, naming
/// the file and the fix.
#[test]
fn a_channels_csv_of_another_network_is_refused() {
    let (_tmp, out) = run("bad", SWEPT);
    let path = out.join("channels.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    // The first row's link 0 → 1 becomes 0 → 2, which no 4 x 4 torus link is.
    let bad = text.replacen(",0,0,1,0,+,", ",0,0,2,0,+,", 1);
    assert_ne!(bad, text);
    std::fs::write(&path, bad).unwrap();
    let o = bin().arg("plot").arg(&out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("channels.csv") && err.contains("channel 0 (0→2") && err.contains("fix:"),
        "{err}"
    );
}

/// A network of more than `MAX_LINKS` links (a 33 x 33 torus both ways: 4,356) gets no
/// heatmap: `heatmaps` gives none and `flitsim plot` writes no heatmap.svg.
#[test]
fn a_network_too_large_to_see_gets_no_heatmap() {
    const { assert!(2 * 2 * 33 * 33 > flitsim::output::plot::MAX_LINKS) };
    let (_tmp, out) = run(
        "large",
        "name = \"l\"\n[topology]\nkind = \"torus\"\nlinks = \"bidirectional\"\nk = 33\nn = 2\n\
         [traffic]\nmessage_length = 4\nflit_rates = [0.01]\n[run]\nwarmup_cycles = 50\n\
         measure_cycles = 200\n",
    );
    assert!(out.join("channels.csv").exists());
    assert!(heatmaps(&out).unwrap().is_empty());
    let o = bin().arg("plot").arg(&out).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(out.join("latency.svg").exists() && !out.join("heatmap.svg").exists());
}

/// A scenario that names a file beside it (a traffic matrix) is drawn from the scenario file
/// experiment.json names, since the results directory's copy of the scenario has no matrix
/// beside it; with that file gone too, plot draws the other plots and no heatmap.
#[test]
fn a_matrix_scenario_s_heatmap_reads_the_scenario_the_run_was_given() {
    let (tmp, out) = run_beside(
        "matrix",
        "name = \"mx\"\n[topology]\nkind = \"mesh\"\nk = 2\nn = 2\n[traffic]\n\
         pattern = \"matrix\"\nmatrix = \"m.csv\"\nmessage_length = 4\nflit_rates = [0.1]\n\
         [run]\nwarmup_cycles = 50\nmeasure_cycles = 300\n",
        &[("m.csv", "0,1,1,1\n1,0,1,1\n1,1,0,1\n1,1,1,0\n")],
    );
    let maps = heatmaps(&out).unwrap();
    assert_eq!(maps.len(), 1);
    assert_eq!(link_attr(&maps[0].svg, "data-channel").len(), 8);
    std::fs::remove_file(tmp.path().join("m.csv")).unwrap();
    assert!(heatmaps(&out).unwrap().is_empty());
    let o = bin().arg("plot").arg(&out).output().unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(out.join("latency.svg").exists() && !out.join("heatmap.svg").exists());
}
