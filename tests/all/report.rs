//! `flitsim report`: the page of a small sweep (tests/browser/sweep.toml) embeds pooled.csv's
//! values and the exact hop distribution of its network, and the command refuses what is not
//! a results directory and never overwrites a file it did not write. Its behaviour in a
//! browser is tests/browser/'s.

use std::path::Path;
use std::process::{Command, Output};

fn flitsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .args(args)
        .output()
        .unwrap()
}

fn text(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The browser test's sweep (two routings, three loads, two seeds) run into `out`.
fn sweep(out: &Path) {
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/sweep.toml");
    let o = flitsim(&["run", text(&scenario), "--out", text(out), "--quiet"]);
    assert!(o.status.success(), "{o:?}");
}

/// The value of attribute `name` in each element of `html` that has it, in order.
fn attributes<'a>(html: &'a str, name: &str) -> Vec<&'a str> {
    let key = format!(" {name}=\"");
    html.split(&key)
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect()
}

#[test]
fn the_page_embeds_pooled_csv_s_points_and_the_exact_hop_distribution() {
    let tmp = crate::common::temp_dir("report-values");
    let dir = tmp.path().join("sweep");
    sweep(&dir);
    let o = flitsim(&["report", text(&dir)]);
    assert!(o.status.success(), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stdout).contains("report.html ("));
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    let manifest = std::fs::read_to_string(dir.join(".flitsim-manifest")).unwrap();
    assert!(
        manifest.lines().any(|l| l == "plot report.html"),
        "{manifest}"
    );
    // The linear latency plot: one curve per routing, a point per load below saturation,
    // each at pooled.csv's offered load and mean latency, as the table writes them.
    let linear = html
        .split("data-plot=\"latency\" data-scale=\"linear\"")
        .nth(1)
        .unwrap()
        .split("</svg>")
        .next()
        .unwrap();
    assert_eq!(linear.matches("<g class=\"curve\"").count(), 2);
    let mut r = csv::Reader::from_path(dir.join("pooled.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (alg, off, lat, sat) = (
        col("routing.algorithm"),
        col("offered_flits"),
        col("latency_mean"),
        col("saturated"),
    );
    let mut expected = Vec::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let id = if &rec[alg] == "dor" { "c0-0" } else { "c0-1" };
        if &rec[sat] == "0" {
            expected.push((id.to_string(), rec[off].to_string(), rec[lat].to_string()));
        }
    }
    assert!(expected.len() >= 4, "{expected:?}");
    let mut embedded = Vec::new();
    for curve in linear.split("<g class=\"curve\" data-curve=\"").skip(1) {
        let id = &curve[..curve.find('"').unwrap()];
        for (x, y) in attributes(curve, "data-x")
            .into_iter()
            .zip(attributes(curve, "data-y"))
        {
            embedded.push((id.to_string(), x.to_string(), y.to_string()));
        }
    }
    assert_eq!(embedded, expected);
    // Uniform traffic on the 4-ary 2-cube: of the 15 other nodes, 4 at distance 1, 6 at 2,
    // 4 at 3 and 1 at 4.
    for (h, p) in [(1, "0.2667"), (2, "0.4"), (3, "0.2667"), (4, "0.06667")] {
        let tips = attributes(&html, "data-tip");
        let at = format!("hops {h}: ");
        let refs: Vec<&&str> = tips.iter().filter(|t| t.starts_with(&at)).collect();
        assert_eq!(refs.len(), 2 * 3, "two routings at three loads");
        assert!(
            refs.iter()
                .all(|t| t.ends_with(&format!(", reference {p}"))),
            "{refs:?}"
        );
    }
    for kind in [
        "provenance",
        "curves",
        "latency-distribution",
        "hops",
        "vc-occupancy",
    ] {
        assert!(html.contains(&format!("data-section=\"{kind}\"")), "{kind}");
    }
    assert!(
        !html.contains("data-section=\"validation\""),
        "no validation.csv here"
    );
    assert!(
        !html.contains("<script src") && !html.contains("<link"),
        "nothing fetched"
    );
}

#[test]
fn what_is_not_a_results_directory_or_not_flitsim_s_is_refused() {
    let tmp = crate::common::temp_dir("report-refusals");
    let d = tmp.path();
    let o = flitsim(&["report", text(d)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{}: not a results directory", d.display())),
        "{err}"
    );
    assert!(err.contains("fix:"), "{err}");
    let dir = d.join("sweep");
    sweep(&dir);
    // A report.html flitsim did not write stays as it is.
    std::fs::write(dir.join("report.html"), "mine").unwrap();
    let o = flitsim(&["report", text(&dir)]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert_eq!(
        std::fs::read_to_string(dir.join("report.html")).unwrap(),
        "mine"
    );
    std::fs::remove_file(dir.join("report.html")).unwrap();
    // --out: a new file, then the same file again (flitsim's), never another file.
    let out = d.join("page.html");
    assert!(
        flitsim(&["report", text(&dir), "--out", text(&out)])
            .status
            .success()
    );
    assert!(
        flitsim(&["report", text(&dir), "--out", text(&out)])
            .status
            .success()
    );
    let other = d.join("notes.html");
    std::fs::write(&other, "<html>notes</html>").unwrap();
    let o = flitsim(&["report", text(&dir), "--out", text(&other)]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a report flitsim wrote"));
    assert_eq!(
        std::fs::read_to_string(&other).unwrap(),
        "<html>notes</html>"
    );
    // Several directories need --out.
    let o = flitsim(&["report", text(&dir), text(&dir)]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("fix: add --out FILE"));
}

/// The heatmap section: one drawing per routing with the 4-ary 2-cube's 64 links, and for
/// each routing and load the utilisations the page recolours them with: channels.csv's
/// flits_per_cycle, the mean over the two seeds, in thousandths of a flit per cycle, by
/// channel id; each load's hottest links listed.
#[test]
fn the_heatmap_section_embeds_channels_csv_s_utilisations_by_load() {
    let tmp = crate::common::temp_dir("report-heatmap");
    let dir = tmp.path().join("sweep");
    sweep(&dir);
    assert!(flitsim(&["report", text(&dir)]).status.success());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("data-section=\"heatmap\""));
    let figures: Vec<&str> = html.split("<figure class=\"heatmap\">").skip(1).collect();
    assert_eq!(figures.len(), 2, "one drawing per routing");
    for f in &figures {
        let svg = &f[..f.find("</svg>").unwrap()];
        assert_eq!(svg.matches("<path class=\"link\"").count(), 64);
    }
    let data = html
        .split("<script type=\"application/json\" id=\"heatmap-0-data\">")
        .nth(1)
        .unwrap();
    let data: serde_json::Value =
        serde_json::from_str(&data[..data.find("</script>").unwrap()]).unwrap();
    assert_eq!(data["palette"].as_array().unwrap().len(), 1001);
    // (routing, rate) -> per channel, the sum over seeds and the seeds counted.
    let mut r = csv::Reader::from_path(dir.join("channels.csv")).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (alg, rate, chan, fpc) = (
        col("routing.algorithm"),
        col("rate"),
        col("channel"),
        col("flits_per_cycle"),
    );
    type Sums = (String, String, Vec<(f64, u32)>);
    let mut sums: Vec<Sums> = Vec::new();
    for rec in r.records() {
        let rec = rec.unwrap();
        let i = match sums
            .iter()
            .position(|s| s.0 == rec[alg] && s.1 == rec[rate])
        {
            Some(i) => i,
            None => {
                sums.push((
                    rec[alg].to_string(),
                    rec[rate].to_string(),
                    vec![(0.0, 0); 64],
                ));
                sums.len() - 1
            }
        };
        let c: usize = rec[chan].parse().unwrap();
        sums[i].2[c].0 += rec[fpc].parse::<f64>().unwrap();
        sums[i].2[c].1 += 1;
    }
    assert_eq!(sums.len(), 2 * 3);
    for (routing, rate, links) in &sums {
        let series = &data["series"][if routing == "dor" { 0 } else { 1 }];
        // The message rate times M = 8 is the offered load the selector names.
        let offered = rate.parse::<f64>().unwrap() * 8.0;
        let (_, loads) = series
            .as_object()
            .unwrap()
            .iter()
            .find(|(label, _)| {
                let x: f64 = label.split(' ').next().unwrap().parse().unwrap();
                (x - offered).abs() < 1e-9
            })
            .unwrap_or_else(|| panic!("{routing} at {offered}: {series}"));
        let embedded: Vec<u64> = loads
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let expected: Vec<u64> = links
            .iter()
            .map(|&(sum, n)| (sum / f64::from(n) * 1000.0).round() as u64)
            .collect();
        assert_eq!(embedded, expected, "{routing} at {rate}");
        assert!(expected.iter().any(|&u| u > 0));
    }
    assert_eq!(html.matches("<figure class=\"hottest\">").count(), 2 * 3);
}
