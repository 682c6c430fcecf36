//! `flitsim merge`: the shards of one experiment, each run into its own directory by
//! `flitsim run --shard I/N`, assembled into one output directory whose tables are
//! byte-identical to those of a single run of the whole experiment.

use super::{Experiment, record};
use crate::error::{Error, Result};
use crate::experiment::directory::records;
use crate::output::files::read_regular_text;
use crate::stats::PointResult;
use std::path::{Path, PathBuf};

/// How many points a message lists before "and N more".
const SHOWN: usize = 8;

/// The most bytes of a shard's experiment.json or scenario.toml merge reads.
const MAX_TEXT: u64 = 1 << 30;

/// A file of a shard directory as text: a regular file, not followed through a link, bounded.
fn read_text(path: &Path) -> Result<String> {
    read_regular_text(path, MAX_TEXT).map_err(|e| {
        Error::Input(format!(
            "{}: cannot read it ({e}); fix: give the output directories of `flitsim run --shard I/N`",
            path.display()
        ))
    })
}

/// A shard directory's experiment.json.
fn experiment_json(dir: &Path) -> Result<serde_json::Value> {
    let path = dir.join("experiment.json");
    let text = read_text(&path)?;
    serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!(
            "{}: not flitsim's experiment.json ({e}); fix: give the output directories of `flitsim run --shard I/N`",
            path.display()
        ))
    })
}

/// The experiment a directory holds, rebuilt from its scenario.toml and experiment.json (the
/// `--set`s and `--seed` it ran with), and the hash it recorded.
fn experiment_of(dir: &Path) -> Result<(Experiment, String)> {
    let json = experiment_json(dir)?;
    let bad = |what: &str| {
        Error::Input(format!(
            "{}: experiment.json has no {what}; fix: give the output directories of `flitsim run --shard I/N`",
            dir.join("experiment.json").display()
        ))
    };
    let text = read_text(&dir.join("scenario.toml"))?;
    let file = json["scenario_file"]
        .as_str()
        .ok_or_else(|| bad("scenario_file"))?;
    let sets: Vec<String> = json["sets"]
        .as_array()
        .ok_or_else(|| bad("sets"))?
        .iter()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect();
    let seed = json["seed"].as_u64();
    let hash = json["experiment_hash"]
        .as_str()
        .ok_or_else(|| bad("experiment_hash"))?
        .to_string();
    Ok((Experiment::from_text(text, file, &sets, seed)?, hash))
}

/// Lists points for a message: the first few, then how many more.
fn listed(exp: &Experiment, points: &[usize]) -> String {
    let all = exp.points();
    let mut shown: Vec<String> = points
        .iter()
        .take(SHOWN)
        .map(|&i| format!("({})", exp.describe(all[i])))
        .collect();
    if points.len() > SHOWN {
        shown.push(format!("and {} more", points.len() - SHOWN));
    }
    shown.join(", ")
}

/// The experiment of `dirs` and every point's results, in point order: every directory must
/// hold a shard of the same experiment (same hash), and every point must be in exactly one of
/// them. A missing or duplicated point, or a directory of another experiment, is an error
/// naming them.
pub fn gather(dirs: &[PathBuf]) -> Result<(Experiment, Vec<PointResult>)> {
    let first = dirs.first().ok_or_else(|| {
        Error::Input("merge: no directory given; fix: give the shard directories to merge".into())
    })?;
    let (exp, hash) = experiment_of(first)?;
    if hash != exp.hash() {
        return Err(Error::Input(format!(
            "{}: its experiment.json's hash {hash} is not its scenario's {}; fix: rerun the shard with this flitsim",
            first.display(),
            exp.hash()
        )));
    }
    for d in dirs {
        let json = experiment_json(d)?;
        let theirs = json["experiment_hash"].as_str().unwrap_or("");
        if theirs != hash {
            return Err(Error::Input(format!(
                "{}: a shard of another experiment (hash {theirs}, not {hash} as {}); fix: merge only the shards of one scenario, run with the same --set and --seed",
                d.display(),
                first.display()
            )));
        }
        records::check_store(d)?;
    }
    let points = exp.points();
    let mut results = Vec::with_capacity(points.len());
    let (mut missing, mut twice) = (Vec::new(), Vec::new());
    for (i, &p) in points.iter().enumerate() {
        let (key, text) = exp.key(p);
        // One record read at a time, so that merging never holds every record's bytes.
        let max = record::max_bytes(exp.scenario(p));
        let mut found = Vec::new();
        for d in dirs {
            if let Some(r) = records::read(d, &key, max)?.and_then(|b| record::decode(&b, &text)) {
                found.push(r);
            }
        }
        match found.len() {
            0 => missing.push(i),
            1 => results.extend(found),
            _ => twice.push(i),
        }
    }
    if !missing.is_empty() {
        return Err(Error::Input(format!(
            "merge: {} of {} points are in none of the directories: {}; fix: run the missing shards (or resume the interrupted ones) and merge again",
            missing.len(),
            points.len(),
            listed(&exp, &missing)
        )));
    }
    if !twice.is_empty() {
        return Err(Error::Input(format!(
            "merge: {} points are in more than one directory: {}; fix: give each shard's directory once",
            twice.len(),
            listed(&exp, &twice)
        )));
    }
    Ok((exp, results))
}
