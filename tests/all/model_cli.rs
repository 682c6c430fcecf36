//! `flitsim model` and `flitsim validate`: the model's table and CSV, validation.csv and its
//! plot, the occupancy distribution side by side (validation_vc.csv), channel rates and mean
//! distances side by side where there is no latency model (validation_channels.csv,
//! validation_distance.csv), and a clear refusal (exit 2) when no model covers a scenario.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
}

/// A fresh temporary directory holding the scenario `text` as s.toml, removed when dropped.
fn tmp(name: &str, text: &str) -> TempDir {
    let d = crate::common::temp_dir(&format!("model-{name}"));
    std::fs::write(d.path().join("s.toml"), text).unwrap();
    d
}

/// `flitsim CMD DIR/s.toml --out DIR/OUT` (`validate` with `--quiet`): what it did, and OUT.
fn flitsim(cmd: &str, d: &Path, out: &str) -> (Output, PathBuf) {
    let out = d.join(out);
    let scenario = d.join("s.toml");
    let mut args = vec![
        cmd,
        scenario.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    if cmd == "validate" {
        args.push("--quiet");
    }
    (bin().args(args).output().unwrap(), out)
}

const CUBE: &str = "name = \"m\"\n[topology]\nkind = \"hypercube\"\nn = 3\n[router]\nvcs = 3\n\
    [routing]\nalgorithm = \"duato\"\n[traffic]\nmessage_length = 32\n\
    rates = [0.00000001, 0.004, 0.008, 0.03]\n[run]\nwarmup_cycles = 500\nmeasure_cycles = 4000\n";

fn column(csv: &str, name: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header
        .iter()
        .position(|h| *h == name)
        .unwrap_or_else(|| panic!("no {name}"));
    lines
        .map(|l| l.split(',').nth(i).unwrap().to_string())
        .collect()
}

#[test]
fn model_writes_its_table_and_zero_load_is_m_plus_dbar() {
    let d = tmp("cube", CUBE);
    let (o, out) = flitsim("model", d.path(), "out");
    assert!(o.status.success(), "{o:?}");
    let csv = std::fs::read_to_string(out.join("model.csv")).unwrap();
    let lat: Vec<f64> = column(&csv, "model_latency")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    // 3-cube, uniform: d̄ = 3/2 · 8/7 = 12/7; zero-load latency M + d̄.
    assert!((lat[0] - (32.0 + 12.0 / 7.0)).abs() < 1e-3, "{lat:?}");
    assert!(lat[1] > lat[0] && lat[2] > lat[1], "{lat:?}");
    assert_eq!(
        column(&csv, "saturated"),
        ["false", "false", "false", "true"]
    );
    assert!(lat[3].is_nan());
    let sat: f64 = column(&csv, "model_saturation_rate")[0].parse().unwrap();
    assert!(sat > 0.008 && sat < 0.03, "{sat}");
}

#[test]
fn validate_writes_both_sides_and_a_plot() {
    let (_tmp, out) = validate("validate", CUBE);
    let csv = std::fs::read_to_string(out.join("validation.csv")).unwrap();
    for c in [
        "rate",
        "latency_mean",
        "latency_ci95",
        "model_latency",
        "rel_error",
    ] {
        assert_eq!(column(&csv, c).len(), 4, "{c}");
    }
    // The first load generates (almost surely) no message: NaN on the simulation side.
    let sim: f64 = column(&csv, "latency_mean")[1].parse().unwrap();
    let model: f64 = column(&csv, "model_latency")[1].parse().unwrap();
    let rel: f64 = column(&csv, "rel_error")[1].parse().unwrap();
    assert!((rel - (model - sim) / sim).abs() < 1e-9);
    assert!(
        rel.abs() < 0.1,
        "at light load the model and simulation agree: {rel}"
    );
    let svg = std::fs::read_to_string(out.join("validation.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("model"));
    assert!(out.join("summary.csv").exists() && out.join("model.csv").exists());
    // Channel rates side by side: Duato on a 3-cube under uniform traffic loads every link
    // with λ d̄ / n = λ (12/7) / 3 (paper 000 eq. 7).
    let ch = std::fs::read_to_string(out.join("validation_channels.csv")).unwrap();
    let rates: Vec<f64> = column(&ch, "rate")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    let model: Vec<f64> = column(&ch, "model_messages_per_cycle")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    assert_eq!(rates.len(), 4 * 24, "4 loads x 24 links");
    for (r, m) in rates.iter().zip(&model) {
        assert!((m - r * 12.0 / 7.0 / 3.0).abs() < 1e-15, "{r} {m}");
    }
    let sim: Vec<f64> = column(&ch, "messages_per_cycle")
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
    // At λ = 0.004 over 4000 cycles a link sees about 9 messages: the mean over the 24 links
    // is within 5 sigma of λ d̄ / n.
    let at = &sim[24..48];
    let mean = at.iter().sum::<f64>() / 24.0;
    let want: f64 = 0.004 * 12.0 / 7.0 / 3.0;
    let sigma = (want / 4000.0 / 24.0).sqrt();
    assert!((mean - want).abs() < 5.0 * sigma, "{mean} vs {want}");
}

#[test]
fn no_model_is_bad_input() {
    // Duato's routing on a mesh: no latency model, and no channel-rate model (its adaptive
    // choices depend on the load).
    let text = "name = \"x\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[routing]\n\
        algorithm = \"duato\"\n[traffic]\nrates = [0.001]\n";
    let d = tmp("mesh", text);
    for cmd in ["model", "validate"] {
        let (o, out) = flitsim(cmd, d.path(), cmd);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {o:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("flitsim: error: ")
                && err.contains("no analytical model covers this scenario"),
            "{err}"
        );
        assert!(err.contains("fix: models exist for"), "{err}");
        assert!(!out.exists(), "{cmd}: nothing written");
    }
}

/// Runs `flitsim validate` on a scenario text; the temporary directory (keep it alive while
/// reading the output) and the output directory in it.
fn validate(name: &str, text: &str) -> (TempDir, PathBuf) {
    let d = tmp(name, text);
    let (o, out) = flitsim("validate", d.path(), "out");
    assert!(o.status.success(), "{o:?}");
    (d, out)
}

fn numbers(csv: &str, name: &str) -> Vec<f64> {
    column(csv, name)
        .iter()
        .map(|v| v.parse().unwrap())
        .collect()
}

/// validation_vc.csv: V + 1 rows per load, both distributions sum to 1, the model's P_v is the
/// library's (paper 000 eqs. 28-29 at the fixed point) and the simulated one is
/// vc_occupancy.csv's.
#[test]
fn validate_writes_the_occupancy_distribution_side_by_side() {
    let (_tmp, out) = validate("vc", CUBE);
    let s = flitsim::Scenario::from_toml(CUBE, "cube").unwrap();
    let model = flitsim::model::Model::for_scenario(&s).unwrap();
    let vcs = s.router.vcs as usize;
    let csv = std::fs::read_to_string(out.join("validation_vc.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert_eq!(
        header,
        "scenario,rate,seed,busy_vcs,sim_probability,model_probability"
    );
    let occupancy = std::fs::read_to_string(out.join("vc_occupancy.csv")).unwrap();
    let (rates, busy) = (numbers(&csv, "rate"), column(&csv, "busy_vcs"));
    let (sim, model_p) = (
        numbers(&csv, "sim_probability"),
        numbers(&csv, "model_probability"),
    );
    assert_eq!(rates.len(), s.traffic.rates.len() * (vcs + 1));
    // Simulated: vc_occupancy.csv's probability, the same text in the same order.
    assert_eq!(
        column(&csv, "sim_probability"),
        column(&occupancy, "probability")
    );
    assert_eq!(column(&csv, "rate"), column(&occupancy, "rate"));
    let mut stable = 0;
    for (i, &rate) in s.traffic.rates.iter().enumerate() {
        let rows = i * (vcs + 1)..(i + 1) * (vcs + 1);
        assert!(rows.clone().all(|j| rates[j] == rate), "{rate}");
        let v: Vec<String> = (0..=vcs).map(|v| v.to_string()).collect();
        assert_eq!(busy[rows.clone()], v[..], "busy_vcs 0..=V at {rate}");
        assert!(
            (sim[rows.clone()].iter().sum::<f64>() - 1.0).abs() < 1e-9,
            "{rate}"
        );
        match model.predict(rate) {
            flitsim::model::Outcome::Stable(p) => {
                stable += 1;
                let want = p.vc_occupancy.expect("paper 000 gives P_v");
                assert_eq!(model_p[rows.clone()], want[..], "model P_v at {rate}");
                assert!((want.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{rate}");
            }
            flitsim::model::Outcome::Saturated => {
                assert!(model_p[rows].iter().all(|p| p.is_nan()), "{rate}");
            }
        }
    }
    assert_eq!(stable, 3, "the last load is past the model's saturation");
    // Paper 003's model gives no P_v: no validation_vc.csv for it.
    let mesh = "name = \"m\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[router]\nvcs = 1\n\
        [traffic]\nmessage_length = 8\nrates = [0.004]\n[run]\nwarmup_cycles = 200\n\
        measure_cycles = 2000\n";
    let (_tmp, out) = validate("vc-mesh", mesh);
    assert!(out.join("validation.csv").exists() && !out.join("validation_vc.csv").exists());
}

/// A scenario with channel-rate models but no latency model (e-cube on a 4-cube under
/// bit-reversal mixed with uniform): `model` refuses it, `validate` writes the exact link
/// rates and mean distances beside the simulated ones, and no latency comparison.
#[test]
fn validate_without_latency_model_compares_channels_and_distance() {
    let text = "name = \"b\"\n[topology]\nkind = \"hypercube\"\nn = 4\n[router]\nvcs = 1\n\
        [traffic]\npattern = \"bit-reversal\"\npattern_fraction = [0.0, 0.5, 1.0]\n\
        message_length = 2\nrates = [0.01, 0.02]\n[run]\nwarmup_cycles = 500\n\
        measure_cycles = 5000\n";
    let d = tmp("dor-model", text);
    let (o, _) = flitsim("model", d.path(), "out");
    assert_eq!(o.status.code(), Some(2), "no latency model: {o:?}");
    let (_tmp, out) = validate("dor", text);
    for f in [
        "model.csv",
        "validation.csv",
        "validation.svg",
        "validation_vc.csv",
    ] {
        assert!(!out.join(f).exists(), "{f} without a latency model");
    }
    let s = flitsim::Scenario::from_toml(text, "b").unwrap();
    let points = flitsim::sweep::points(&s);
    assert_eq!(points.len(), 6, "3 variants x 2 rates");
    let net = flitsim::network::Network::for_scenario(&s);
    let links = net.cube().links.len();
    let ch = std::fs::read_to_string(out.join("validation_channels.csv")).unwrap();
    let dist = std::fs::read_to_string(out.join("validation_distance.csv")).unwrap();
    let channels = std::fs::read_to_string(out.join("channels.csv")).unwrap();
    let summary = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let model_rate = numbers(&ch, "model_messages_per_cycle");
    let (x_ch, x_dist) = (
        numbers(&ch, "traffic.pattern_fraction"),
        numbers(&dist, "traffic.pattern_fraction"),
    );
    assert_eq!(model_rate.len(), points.len() * links);
    assert_eq!(x_dist.len(), points.len());
    // The simulated side is the run's: channels.csv's headers per cycle, summary's hops.
    assert_eq!(
        column(&ch, "messages_per_cycle"),
        column(&channels, "messages_per_cycle")
    );
    assert_eq!(column(&dist, "hops_mean"), column(&summary, "hops_mean"));
    let (model_d, rel) = (
        numbers(&dist, "model_hops_mean"),
        numbers(&dist, "rel_error"),
    );
    let (sim_d, se) = (
        numbers(&dist, "hops_mean"),
        numbers(&dist, "hops_std_error"),
    );
    for (i, (v, rate, seed)) in points.iter().enumerate() {
        // Exact enumeration, through the library.
        let traffic = flitsim::traffic::Traffic::new(
            &v.traffic,
            flitsim::traffic::Addresses::of(net.cube()),
            *seed,
        );
        let by_id = flitsim::model::enumerate::dor_link_rates(&net, &traffic, *rate, v.routing.tie);
        let exact = net.topology.in_link_order(&by_id);
        let rows = i * links..(i + 1) * links;
        assert_eq!(model_rate[rows.clone()], exact[..], "point {i}");
        assert!(x_ch[rows].iter().all(|&x| x == v.traffic.pattern_fraction));
        let dbar = flitsim::model::enumerate::mean_distance(net.cube(), &traffic);
        assert!(
            (model_d[i] - dbar).abs() < 1e-12,
            "{} vs {dbar}",
            model_d[i]
        );
        assert_eq!(x_dist[i], v.traffic.pattern_fraction);
        assert!((rel[i] - (model_d[i] - sim_d[i]) / sim_d[i]).abs() < 1e-12);
        // Simulated hops within 5 standard errors of the exact mean distance.
        assert!(
            se[i] > 0.0 && (sim_d[i] - dbar).abs() < 5.0 * se[i],
            "point {i}"
        );
    }
    // The pure pattern: 8 sources 2 hops away, 4 sources 4 hops away (paper 002 eq. 7).
    assert!((model_d[4] - 8.0 / 3.0).abs() < 1e-12);
}

/// A sweep of two configurations, three seeds and three loads given out of order.
const SWEPT: &str = "name = \"w\"\nseeds = [1, 2, 3]\n[topology]\nkind = \"hypercube\"\nn = 3\n\
    [routing]\nalgorithm = \"duato\"\n[traffic]\nmessage_length = 16\n\
    rates = [0.008, 0.002, 0.005]\n[run]\nwarmup_cycles = 500\nmeasure_cycles = 4000\n\
    [sweep]\n\"router.vcs\" = [3, 4]\n";

/// The model does not depend on the seed: `model` and `validate` write one model.csv row per
/// configuration and load (the same file), while validation.csv keeps a row per seed, each
/// beside its own configuration's and load's model row.
#[test]
fn model_csv_has_one_row_per_configuration_and_load() {
    let d = tmp("swept-model", SWEPT);
    let (o, out) = flitsim("model", d.path(), "model");
    assert!(o.status.success(), "{o:?}");
    let model = std::fs::read_to_string(out.join("model.csv")).unwrap();
    let keys: Vec<(String, String)> = column(&model, "router.vcs")
        .into_iter()
        .zip(column(&model, "rate"))
        .collect();
    let want: Vec<(String, String)> = ["3", "4"]
        .iter()
        .flat_map(|v| ["0.008", "0.002", "0.005"].map(|r| (v.to_string(), r.to_string())))
        .collect();
    assert_eq!(keys, want, "{model}");
    let (_tmp, validated) = validate("swept-validate", SWEPT);
    let again = std::fs::read_to_string(validated.join("model.csv")).unwrap();
    assert_eq!(again, model, "validate writes the same model.csv");
    let csv = std::fs::read_to_string(validated.join("validation.csv")).unwrap();
    let rows: Vec<(String, String, String)> = column(&csv, "router.vcs")
        .into_iter()
        .zip(column(&csv, "rate"))
        .zip(column(&csv, "model_latency"))
        .map(|((v, r), m)| (v, r, m))
        .collect();
    assert_eq!(
        rows.len(),
        2 * 3 * 3,
        "a row per configuration, load and seed"
    );
    let latency = column(&model, "model_latency");
    for (i, (v, r, m)) in rows.iter().enumerate() {
        assert_eq!((v, r), (&want[i / 3].0, &want[i / 3].1), "row {i}");
        assert_eq!(m, &latency[i / 3], "row {i}: its own model row");
    }
}

/// The coloured lines of an SVG drawn left of `x_max` (the plotting area, not the legend):
/// each as its points.
fn curves(svg: &str, x_max: f64) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| !p.contains("stroke=\"#000000\""))
        .map(|p| {
            let points = p.split("points=\"").nth(1).unwrap();
            let points = &points[..points.find('"').unwrap()];
            points
                .split_whitespace()
                .map(|xy| {
                    let (x, y) = xy.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect::<Vec<(f64, f64)>>()
        })
        .filter(|c| c.iter().all(|&(x, _)| x < x_max))
        .collect()
}

/// validation.svg draws one simulation curve and one model curve per configuration, each in
/// increasing load, named by the swept keys' values as `flitsim plot` names its curves.
#[test]
fn validation_plot_has_two_curves_per_configuration() {
    let (_tmp, out) = validate("swept-plot", SWEPT);
    let svg = std::fs::read_to_string(out.join("validation.svg")).unwrap();
    let lines = curves(&svg, 800.0);
    assert_eq!(lines.len(), 2 * 2, "{lines:?}");
    for l in &lines {
        assert_eq!(l.len(), 3, "every load drawn: {l:?}");
        assert!(l.windows(2).all(|w| w[0].0 < w[1].0), "x increasing: {l:?}");
    }
    let labels: Vec<&str> = svg
        .split("text-anchor=\"start\"")
        .skip(1)
        .map(|t| {
            t.split('>')
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .trim()
        })
        .collect();
    assert_eq!(
        labels,
        [
            "V=3: simulation (95% CI)",
            "V=3: model",
            "V=4: simulation (95% CI)",
            "V=4: model"
        ]
    );
    // Each configuration one colour, its simulation solid and its model dashed.
    let styles: Vec<(&str, bool)> = svg
        .split("<polyline")
        .skip(1)
        .filter(|p| !p.contains("stroke=\"#000000\""))
        .take(4)
        .map(|p| {
            let colour = p.split("stroke=\"").nth(1).unwrap();
            (&colour[..7], p.contains("stroke-dasharray"))
        })
        .collect();
    assert_eq!(styles[0].0, styles[1].0);
    assert_eq!(styles[2].0, styles[3].0);
    assert_ne!(styles[0].0, styles[2].0);
    assert_eq!(
        styles.iter().map(|s| s.1).collect::<Vec<_>>(),
        [false, true, false, true]
    );
    // Offered load in flits/node/cycle: the rates 0.002 to 0.008 messages/node/cycle of
    // 16-flit messages reach 0.128, so the axis is labelled past 0.1.
    assert!(svg.contains("offered load (flits/node/cycle)"));
    let ticks: Vec<f64> = svg
        .split("text-anchor=\"middle\"")
        .skip(1)
        .filter_map(|t| t.split('>').nth(1)?.split('<').next()?.trim().parse().ok())
        .collect();
    assert!(ticks.iter().any(|&x| x > 0.1), "{ticks:?}");
}
