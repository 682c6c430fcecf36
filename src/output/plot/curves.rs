//! The curves of a results directory: one per configuration (the experiment's coordinates),
//! read from pooled.csv when the run had several seeds (means, with half-widths across
//! replications), else from summary.csv; and their labels, from the swept keys' values only.

use crate::error::{Error, Result};
use std::path::Path;

/// One load point of a curve.
pub struct Row {
    /// Offered load, messages/node/cycle (the tables' `rate`).
    pub rate: f64,
    /// Offered load, flits/node/cycle.
    pub offered: f64,
    /// Accepted load, flits/node/cycle.
    pub accepted: f64,
    /// 95% half-width of `accepted` (across replications; NaN for one seed).
    pub accepted_ci: f64,
    /// Mean latency, cycles.
    pub latency: f64,
    /// Its 95% half-width (across replications when pooled, else by batch means).
    pub ci95: f64,
    /// Latency standard deviation, cycles.
    pub std: f64,
    /// Mean channel traffic, % of cycles.
    pub traffic: f64,
    /// Past saturation (any replication saturated).
    pub saturated: bool,
}

/// A curve: its label within its directory and its points in load order.
pub struct Curve {
    /// The configuration's label (empty when nothing is swept).
    pub label: String,
    /// The load points.
    pub rows: Vec<Row>,
}

/// A results directory's curves and the scenario name its tables give.
pub struct DirCurves {
    /// The `scenario` column's value.
    pub scenario: String,
    /// The swept keys, in the tables' column order.
    pub keys: Vec<String>,
    /// One curve per configuration (and seed, for a summary of several seeds without pooling).
    pub curves: Vec<Curve>,
    /// Each curve's swept keys' values (in `keys`' order) and its seed when the curves are
    /// per seed, beside `curves`.
    places: Vec<(Vec<String>, Option<String>)>,
}

impl DirCurves {
    /// Each curve's value of the swept key `key` and its label by the other swept keys (and
    /// its seed when the curves are per seed); None when `key` is not swept.
    pub fn split_by(&self, key: &str) -> Option<Vec<(String, String)>> {
        let at = self.keys.iter().position(|k| k == key)?;
        let keys: Vec<String> = self.keys.iter().filter(|k| *k != key).cloned().collect();
        let split = self.places.iter().map(|(coords, seed)| {
            let mut others = coords.clone();
            let value = others.remove(at);
            (value, seeded(configuration_label(&keys, &others), seed))
        });
        Some(split.collect())
    }

    /// Each curve's swept keys' values, beside `curves`.
    pub fn coordinates(&self) -> impl Iterator<Item = &Vec<String>> {
        self.places.iter().map(|p| &p.0)
    }

    /// Each curve's swept keys' values, but `without`'s, and its seed when the curves are per
    /// seed, as the index of the value among that key's (or the seeds') values in the order
    /// they first come.
    pub fn value_indices(&self, without: Option<&str>) -> Vec<Vec<usize>> {
        let skip = without.and_then(|k| self.keys.iter().position(|x| x == k));
        let columns = |(coords, seed): &(Vec<String>, Option<String>)| -> Vec<String> {
            let kept = coords.iter().enumerate().filter(|&(i, _)| Some(i) != skip);
            kept.map(|(_, v)| v.clone()).chain(seed.clone()).collect()
        };
        let rows: Vec<Vec<String>> = self.places.iter().map(columns).collect();
        let mut seen: Vec<Vec<&String>> = vec![Vec::new(); rows.first().map_or(0, Vec::len)];
        rows.iter()
            .map(|row| {
                row.iter()
                    .zip(seen.iter_mut())
                    .map(|(v, values)| match values.iter().position(|x| *x == v) {
                        Some(i) => i,
                        None => {
                            values.push(v);
                            values.len() - 1
                        }
                    })
                    .collect()
            })
            .collect()
    }
}

/// A configuration's label followed by its seed, when given.
fn seeded(label: String, seed: &Option<String>) -> String {
    match seed {
        Some(s) if label.is_empty() => format!("seed {s}"),
        Some(s) => format!("{label}, seed {s}"),
        None => label,
    }
}

/// The short name some swept keys have in labels: `V` for router.vcs, `M` for
/// traffic.message_length, `depth`, `x`, `h`, `τ` for the buffer depth, the pattern and
/// hotspot fractions and the routing timeout.
fn short_name(key: &str) -> Option<&'static str> {
    match key {
        "router.vcs" => Some("V"),
        "traffic.message_length" => Some("M"),
        "router.buffer_depth" => Some("depth"),
        "traffic.pattern_fraction" => Some("x"),
        "traffic.hotspot_fraction" => Some("h"),
        "routing.timeout" => Some("τ"),
        _ => None,
    }
}

/// How a swept key is named in a label: its short name, else its last part (`pattern` for
/// traffic.pattern).
fn key_name(key: &str) -> &str {
    short_name(key).unwrap_or_else(|| key.rsplit('.').next().unwrap_or(key))
}

/// How a swept key's value is shown in a label: `V=5`, `M=64`, a bare string, `key=value`.
pub fn coordinate_label(key: &str, value: &str) -> String {
    let bare = value.parse::<f64>().is_err() && value != "true" && value != "false";
    if short_name(key).is_none() && bare {
        return value.to_string();
    }
    format!("{}={value}", key_name(key))
}

/// A panel's title: the swept key, named as in labels, and its value (`pattern = uniform`,
/// `V = 5`).
pub fn panel_title(key: &str, value: &str) -> String {
    format!("{} = {value}", key_name(key))
}

/// A configuration's label: each swept key's value as [`coordinate_label`] shows it, joined
/// by ", " (`duato, V=5, M=64`; empty when nothing is swept).
pub fn configuration_label(keys: &[String], values: &[String]) -> String {
    let parts: Vec<String> = keys
        .iter()
        .zip(values)
        .map(|(k, v)| coordinate_label(k, v))
        .collect();
    parts.join(", ")
}

/// Reads a directory's curves: pooled.csv if present, else summary.csv.
pub fn read_dir(dir: &Path) -> Result<DirCurves> {
    let pooled = dir.join("pooled.csv");
    if std::fs::symlink_metadata(&pooled).is_ok() {
        read_table(&pooled, true)
    } else {
        read_table(&dir.join("summary.csv"), false)
    }
}

/// Reads summary.csv or pooled.csv into curves, grouping rows by their coordinates.
fn read_table(path: &Path, pooled: bool) -> Result<DirCurves> {
    let bad = |m: String| {
        Error::Input(format!(
            "{}: {m}; fix: give a directory written by `flitsim run`",
            path.display()
        ))
    };
    // A regular file only, never a link followed or a FIFO waited on; at most 4 GiB.
    let (file, _) = crate::output::files::open_regular(path)
        .map_err(|e| bad(format!("cannot read it ({e})")))?;
    let mut r = csv::Reader::from_reader(std::io::Read::take(file, 1 << 32));
    let header = r.headers().map_err(|e| bad(e.to_string()))?.clone();
    if header.get(0) != Some("scenario") {
        return Err(Error::Input(format!(
            "{}: written by an earlier flitsim (no `scenario` column); fix: rerun `flitsim run` to regenerate it",
            path.display()
        )));
    }
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| bad(format!("no column {name}")))
    };
    let lead = col("rate")?;
    let keys: Vec<String> = header
        .iter()
        .take(lead)
        .skip(1)
        .map(str::to_string)
        .collect();
    let (off, acc, lat, ci, sat) = (
        col("offered_flits")?,
        col("accepted_flits")?,
        col("latency_mean")?,
        col("latency_ci95")?,
        col("saturated")?,
    );
    let optional = |name: &str| header.iter().position(|h| h == name).unwrap_or(usize::MAX);
    let (std, traffic, acc_ci) = (
        optional("latency_std"),
        optional("traffic_pct"),
        optional("accepted_flits_ci95"),
    );
    let seed = if pooled {
        None
    } else {
        header.iter().position(|h| h == "seed")
    };
    let mut scenario = String::new();
    let mut groups: Vec<(Vec<String>, Option<String>, Vec<Row>)> = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| bad(e.to_string()))?;
        let f = |i: usize| rec.get(i).unwrap_or("").parse::<f64>().unwrap_or(f64::NAN);
        scenario = rec.get(0).unwrap_or("").to_string();
        let coords: Vec<String> = (1..lead)
            .map(|i| rec.get(i).unwrap_or("").to_string())
            .collect();
        let s = seed.and_then(|i| rec.get(i)).map(str::to_string);
        let saturated = match rec.get(sat) {
            Some("true") => true,
            Some(n) => n.parse::<u64>().is_ok_and(|n| n > 0),
            None => false,
        };
        let row = Row {
            rate: f(lead),
            offered: f(off),
            accepted: f(acc),
            accepted_ci: f(acc_ci),
            latency: f(lat),
            ci95: f(ci),
            std: f(std),
            traffic: f(traffic),
            saturated,
        };
        match groups.iter_mut().find(|g| g.0 == coords && g.1 == s) {
            Some(g) => g.2.push(row),
            None => groups.push((coords, s, vec![row])),
        }
    }
    if groups.is_empty() {
        return Err(bad("no rows".into()));
    }
    let several_seeds = {
        let mut seeds: Vec<&Option<String>> = groups.iter().map(|g| &g.1).collect();
        seeds.sort();
        seeds.dedup();
        seeds.len() > 1
    };
    let mut curves = Vec::new();
    let mut places = Vec::new();
    for (coords, seed, rows) in groups {
        let seed = seed.filter(|_| several_seeds);
        let label = seeded(configuration_label(&keys, &coords), &seed);
        curves.push(Curve { label, rows });
        places.push((coords, seed));
    }
    Ok(DirCurves {
        scenario,
        keys,
        curves,
        places,
    })
}
