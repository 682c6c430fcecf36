//! `flitsim model` and `flitsim validate`: the model's table and CSV, validation.csv and its
//! plot, and a clear refusal (exit 2) when no model covers a scenario.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_flitsim"))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flitsim-model-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
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
    let d = tmp("cube");
    std::fs::write(d.join("s.toml"), CUBE).unwrap();
    let out = d.join("out");
    let o = bin()
        .args([
            "model",
            d.join("s.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
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
    let d = tmp("validate");
    std::fs::write(d.join("s.toml"), CUBE).unwrap();
    let out = d.join("out");
    let o = bin()
        .args([
            "validate",
            d.join("s.toml").to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
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
    let d = tmp("mesh");
    let text =
        "name = \"x\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nrates = [0.001]\n";
    std::fs::write(d.join("s.toml"), text).unwrap();
    for cmd in ["model", "validate"] {
        let out = d.join(cmd);
        let o = bin()
            .args([
                cmd,
                d.join("s.toml").to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ])
            .output()
            .unwrap();
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
