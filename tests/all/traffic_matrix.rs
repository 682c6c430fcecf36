//! The traffic matrix (`pattern = "matrix"`, `matrix`, `matrix_scale`): a run's per-pair and
//! per-source message counts against the matrix, the exact distribution the enumerations use,
//! the absolute scale's load, the point key's dependence on the file's contents, and the
//! refusals of a bad matrix (each naming the key, the row and column, and the fix).

use crate::cli::{GOOD, edit};
use crate::common::{chi2_9999, temp_dir};
use flitsim::Scenario;
use flitsim::engine::build_engine;
use flitsim::experiment::Experiment;
use flitsim::network::Network;
use flitsim::traffic::{Addresses, Traffic};
use std::path::Path;

/// 16 processors (the 4x4 mesh of `GOOD`).
const N: usize = 16;

/// A structured 16 x 16 matrix: neighbours in id order weigh 1 or 3, every other pair 0.1 or
/// 0, processor 5's row is zero (it sends nothing), and 0 → 15 is a hot pair of weight 6.
fn matrix() -> Vec<Vec<f64>> {
    (0..N)
        .map(|s| {
            (0..N)
                .map(|d| match (s, d) {
                    _ if s == d || s == 5 => 0.0,
                    (0, 15) => 6.0,
                    _ if (s + 1) % N == d => 3.0,
                    _ if (d + 1) % N == s => 1.0,
                    _ if (s + d) % 3 == 0 => 0.0,
                    _ => 0.1,
                })
                .collect()
        })
        .collect()
}

fn csv(m: &[Vec<f64>]) -> String {
    let rows: Vec<String> = m
        .iter()
        .map(|r| {
            r.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    format!("# a test matrix\n{}\n", rows.join("\n"))
}

/// `GOOD` with the matrix pattern reading `m.csv` and `traffic` lines (loads, scale) in place
/// of its rates, written with `m` into `dir`; returns the scenario file's path.
fn write(dir: &Path, matrix_csv: &str, traffic: &str) -> std::path::PathBuf {
    std::fs::write(dir.join("m.csv"), matrix_csv).unwrap();
    let text = edit(
        &edit(
            GOOD,
            "pattern = \"uniform\"",
            "pattern = \"matrix\"\nmatrix = \"m.csv\"",
        ),
        "rates = [0.005, 0.01]",
        traffic,
    );
    let f = dir.join("s.toml");
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn a_runs_pairs_and_sources_follow_the_matrix() {
    let tmp = temp_dir("matrix-run");
    let f = write(tmp.path(), &csv(&matrix()), "rates = [0.02]");
    let s = Scenario::load(&f).unwrap();
    let lambda = 0.02;
    let mut e = build_engine(&s, lambda, 7);
    e.log_deliveries = true;
    let cycles = 60_000;
    for _ in 0..cycles {
        e.step();
    }
    let generated = e.generated_msgs;
    let mut counts = vec![vec![0u64; N]; N];
    let mut seen = 0;
    while seen < generated {
        assert!(e.cycle < cycles + 20_000, "{seen} of {generated} delivered");
        e.step();
        for d in e.deliveries.drain(..) {
            counts[d.src as usize][d.dst as usize] += 1;
            seen += 1;
        }
    }
    let m = matrix();
    let total: f64 = m.iter().flatten().sum();
    // Source s sends to d at λ·N·m[s][d]/total messages/cycle: Poisson counts, independent.
    let expect = |s: usize, d: usize| lambda * N as f64 * m[s][d] / total * cycles as f64;
    let (mut chi2, mut df) = (0.0, 0);
    for (s, row) in counts.iter().enumerate() {
        for (d, &o) in row.iter().enumerate() {
            let e = expect(s, d);
            if e == 0.0 {
                assert_eq!(o, 0, "{s} -> {d} has no rate");
            } else if e >= 5.0 {
                chi2 += (o as f64 - e).powi(2) / e;
                df += 1;
            }
        }
    }
    assert!(df > 40, "{df} pairs of expected count >= 5");
    assert!(
        chi2 < chi2_9999(df),
        "pairs: chi-square {chi2} over {df} pairs"
    );
    let (mut chi2, mut df) = (0.0, 0);
    for (s, row) in counts.iter().enumerate() {
        let e: f64 = (0..N).map(|d| expect(s, d)).sum();
        let o: u64 = row.iter().sum();
        if e == 0.0 {
            assert_eq!(o, 0, "source {s}'s row is zero");
        } else {
            chi2 += (o as f64 - e).powi(2) / e;
            df += 1;
        }
    }
    assert!(chi2 < chi2_9999(df), "sources: chi-square {chi2} over {df}");
}

#[test]
fn the_distribution_is_each_pairs_rate_over_lambda() {
    let tmp = temp_dir("matrix-dist");
    let f = write(tmp.path(), &csv(&matrix()), "rates = [0.02]");
    let s = Scenario::load(&f).unwrap();
    let net = Network::for_scenario(&s);
    let t = Traffic::new(&s.traffic, Addresses::of_processors(&net.topology), 1);
    let m = matrix();
    let total: f64 = m.iter().flatten().sum();
    for (src, row) in m.iter().enumerate() {
        let got = t.distribution(src as u32);
        let want: Vec<(u32, f64)> = row
            .iter()
            .enumerate()
            .filter(|&(_, &x)| x > 0.0)
            .map(|(d, &x)| (d as u32, N as f64 * x / total))
            .collect();
        assert_eq!(got.len(), want.len(), "source {src}");
        for ((gd, gp), (wd, wp)) in got.iter().zip(&want) {
            assert_eq!(gd, wd);
            assert!((gp - wp).abs() < 1e-12, "{src} -> {gd}: {gp} against {wp}");
        }
    }
}

/// A permutation matrix (s → s + 1) has the `shift` pattern's bound, which `check` prints.
#[test]
fn check_prints_the_bound_of_a_matrix() {
    let tmp = temp_dir("matrix-bound");
    let shift: Vec<Vec<f64>> = (0..N)
        .map(|s| {
            (0..N)
                .map(|d| f64::from(u8::from((s + 1) % N == d)))
                .collect()
        })
        .collect();
    let f = write(tmp.path(), &csv(&shift), "flit_rates = [0.1]");
    let (code, out, err) = crate::common::check_file(&f, &[]);
    assert_eq!(code, Some(0), "{err}");
    let g = tmp.path().join("g.toml");
    let text = edit(
        &edit(
            GOOD,
            "pattern = \"uniform\"",
            "pattern = \"shift\"\nshift_offset = 1",
        ),
        "rates = [0.005, 0.01]",
        "flit_rates = [0.1]",
    );
    std::fs::write(&g, text).unwrap();
    let (code, want, err) = crate::common::check_file(&g, &[]);
    assert_eq!(code, Some(0), "{err}");
    let bound = |o: &str| {
        o.lines()
            .find(|l| l.contains("throughput bound"))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no bound in {o}"))
    };
    assert_eq!(bound(&out), bound(&want));
}

#[test]
fn an_absolute_matrix_gives_the_load() {
    let tmp = temp_dir("matrix-absolute");
    let m = matrix();
    let (err, _) = refused(&write(tmp.path(), &csv(&m), "matrix_scale = \"absolute\""));
    assert!(
        err.contains("row 0 (0-based) sums to 9.9 flits") && err.contains("fix: scale"),
        "{err}"
    );
    let m: Vec<Vec<f64>> = m
        .iter()
        .map(|r| r.iter().map(|x| x * 0.05).collect())
        .collect();
    let total: f64 = m.iter().flatten().sum();
    let f = write(tmp.path(), &csv(&m), "matrix_scale = \"absolute\"");
    let s = Scenario::load(&f).unwrap();
    let flits = total / N as f64;
    assert_eq!(s.traffic.flit_rates, Some(vec![flits]));
    assert!((s.traffic.rates[0] - flits / 8.0).abs() < 1e-15);
    let f = write(
        tmp.path(),
        &csv(&m),
        "matrix_scale = \"absolute\"\nrates = [0.01]",
    );
    let (err, _) = refused(&f);
    assert!(
        err.contains("[traffic] rates") && err.contains("fix: remove rates"),
        "{err}"
    );
}

/// `check`'s refusal of `f`: its one-line message (exit code 2 checked).
fn refused(f: &Path) -> (String, ()) {
    let (code, _, err) = crate::common::check_file(f, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    (err, ())
}

#[test]
fn the_point_key_changes_with_the_matrix_file() {
    let tmp = temp_dir("matrix-key");
    let mut m = matrix();
    let f = write(tmp.path(), &csv(&m), "rates = [0.02]");
    let key = |f: &Path| {
        let e = Experiment::load(f, &[], None).unwrap();
        e.key(e.points()[0]).0
    };
    let before = key(&f);
    m[2][9] += 1.0;
    write(tmp.path(), &csv(&m), "rates = [0.02]");
    assert_ne!(before, key(&f));
}

#[test]
fn bad_matrices_are_refused_with_row_column_and_fix() {
    let good = matrix();
    let set = |s: usize, d: usize, v: &str| {
        let mut rows: Vec<Vec<String>> = good
            .iter()
            .map(|r| r.iter().map(|x| x.to_string()).collect())
            .collect();
        rows[s][d] = v.to_string();
        let lines: Vec<String> = rows.iter().map(|r| r.join(",")).collect();
        lines.join("\n") + "\n"
    };
    let full = csv(&good);
    let short_rows = full.lines().take(N).collect::<Vec<_>>().join("\n");
    let mut short_col: Vec<String> = full.lines().map(str::to_string).collect();
    short_col[4] = short_col[4].rsplit_once(',').unwrap().0.to_string();
    let zero = csv(&vec![vec![0.0; N]; N]);
    let cases: [(String, &str, &[&str]); 6] = [
        (
            short_rows,
            "rates = [0.02]",
            &["has 15 rows", "16 processors", "fix: give 16 rows"],
        ),
        (
            short_col.join("\n"),
            "rates = [0.02]",
            &["line 5: row 3", "has 15 columns", "fix:"],
        ),
        (
            set(2, 7, "-1"),
            "rates = [0.02]",
            &["row 2, column 7", "negative", "fix:"],
        ),
        (
            set(3, 4, "x"),
            "rates = [0.02]",
            &["row 3, column 4", "is not a number", "fix:"],
        ),
        (
            set(6, 6, "2"),
            "rates = [0.02]",
            &["row 6, column 6", "diagonal", "fix: write 0"],
        ),
        (zero, "rates = [0.02]", &["every cell is 0", "fix:"]),
    ];
    for (i, (text, loads, expect)) in cases.iter().enumerate() {
        let tmp = temp_dir("matrix-bad");
        let f = write(tmp.path(), text, loads);
        let (code, _, err) = crate::common::check_file(&f, &[]);
        assert_eq!(code, Some(2), "case {i}: {err}");
        assert!(err.contains("[traffic] matrix"), "case {i}: {err}");
        for e in *expect {
            assert!(err.contains(e), "case {i}: {e:?} not in {err}");
        }
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
}

#[test]
fn matrix_keys_and_loads_are_refused_where_they_do_not_fit() {
    let tmp = temp_dir("matrix-misc");
    // The busiest source (row 0 with its hot pair) cannot carry this load.
    let f = write(tmp.path(), &csv(&matrix()), "flit_rates = [0.8]");
    let (code, _, err) = crate::common::check_file(&f, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("busiest source") && err.contains("fix:"),
        "{err}"
    );
    let g = tmp.path().join("g.toml");
    std::fs::write(&g, edit(GOOD, "[traffic]", "[traffic]\nmatrix = \"m.csv\"")).unwrap();
    let (code, _, err) = crate::common::check_file(&g, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("[traffic] matrix") && err.contains("fix: remove matrix"),
        "{err}"
    );
    let h = tmp.path().join("h.toml");
    std::fs::write(
        &h,
        edit(GOOD, "pattern = \"uniform\"", "pattern = \"matrix\""),
    )
    .unwrap();
    let (code, _, err) = crate::common::check_file(&h, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("[traffic] matrix: missing"), "{err}");
    let f = write(tmp.path(), "0,1\n1,0\n", "rates = [0.01]");
    std::fs::remove_file(tmp.path().join("m.csv")).unwrap();
    let (code, _, err) = crate::common::check_file(&f, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("cannot read") && err.contains("fix:"), "{err}");
}
