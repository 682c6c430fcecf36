//! Experiments: a scenario's configurations (every combination of its swept keys), each run at
//! every load with every seed. A point is one (configuration, load, seed); its results are
//! kept on disk under a key that is a content hash of everything that determines them, so that
//! an interrupted run resumes with the points it has, and a changed key reruns exactly the
//! points it affects.

pub mod directory;
pub mod footprint;
pub mod limits;
pub mod merge;
pub mod record;
pub mod runner;
pub mod saturation;
pub mod shard;

use crate::error::{Error, Result};
use crate::scenario::Scenario;
use crate::scenario::document::{self, Axis, Configuration};
use std::path::Path;

/// Most points one experiment may have: configurations × loads × seeds.
pub const MAX_POINTS: usize = 1_000_000;

/// A scenario file with its overrides, expanded into configurations.
#[derive(Clone, Debug)]
pub struct Experiment {
    /// The scenario's `name`.
    pub name: String,
    /// The scenario file as messages name it.
    pub file: String,
    /// The scenario file's text, copied next to the results.
    pub text: String,
    /// The `--set KEY=VALUE` overrides, in order.
    pub sets: Vec<String>,
    /// The `--seed` that replaced the scenario's seeds, if any.
    pub seed: Option<u64>,
    /// The swept keys, first outermost.
    pub axes: Vec<Axis>,
    /// Every configuration, in run order.
    pub configurations: Vec<Configuration>,
}

/// One point of an experiment: a configuration at one load with one seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// Index into [`Experiment::configurations`].
    pub config: usize,
    /// Index into the configuration's `traffic.rates`.
    pub load: usize,
    /// The seed.
    pub seed: u64,
}

impl Experiment {
    /// Reads a scenario file and expands it with `sets`; `seed` replaces the seeds.
    pub fn load(path: &Path, sets: &[String], seed: Option<u64>) -> Result<Experiment> {
        let text = Scenario::read(path)?;
        Self::from_text(text, &path.display().to_string(), sets, seed)
    }

    /// Expands scenario text with `sets`; `file` names it in messages; `seed` replaces the
    /// seeds.
    pub fn from_text(
        text: String,
        file: &str,
        sets: &[String],
        seed: Option<u64>,
    ) -> Result<Experiment> {
        let mut e = document::expand(&text, file, sets)?;
        if let Some(seed) = seed {
            for c in &mut e.configurations {
                c.scenario.seeds = vec![seed];
            }
        }
        let first = &e.configurations[0].scenario;
        let points = e.configurations.len() as u128
            * first.traffic.rates.len() as u128
            * first.seeds.len() as u128;
        if points > MAX_POINTS as u128 {
            return Err(Error::Input(format!(
                "{file}: the experiment has {points} points (configurations × loads × seeds), more than {MAX_POINTS}; fix: sweep fewer values, loads or seeds, or split the study"
            )));
        }
        distinct_configurations(&e.configurations, &e.axes, file)?;
        Ok(Experiment {
            name: first.name.clone(),
            file: file.to_string(),
            text,
            sets: sets.to_vec(),
            seed,
            axes: e.axes,
            configurations: e.configurations,
        })
    }

    /// The first configuration's scenario (the only one when nothing is swept).
    pub fn base(&self) -> &Scenario {
        &self.configurations[0].scenario
    }

    /// The most threads any configuration sets per point (`[run] threads_per_point`; 0: left
    /// to the run).
    pub fn most_threads_per_point(&self) -> usize {
        self.configurations
            .iter()
            .map(|c| c.scenario.run.threads_per_point)
            .max()
            .unwrap_or(0)
    }

    /// Every point, configuration outermost, then load, then seed.
    pub fn points(&self) -> Vec<Point> {
        let mut out = Vec::new();
        for (config, c) in self.configurations.iter().enumerate() {
            for load in 0..c.scenario.traffic.rates.len() {
                for &seed in &c.scenario.seeds {
                    out.push(Point { config, load, seed });
                }
            }
        }
        out
    }

    /// Whether each configuration runs with two or more seeds.
    pub fn several_seeds(&self) -> bool {
        self.base().seeds.len() > 1
    }

    /// The names of the columns every table begins with: `scenario`, then each swept key.
    pub fn lead_header(&self) -> Vec<String> {
        std::iter::once("scenario".to_string())
            .chain(self.axes.iter().map(|a| a.key.clone()))
            .collect()
    }

    /// The cells every row of a configuration's points begins with.
    pub fn lead(&self, config: usize) -> Vec<String> {
        std::iter::once(self.name.clone())
            .chain(self.configurations[config].coordinates.iter().cloned())
            .collect()
    }

    /// The scenario of a point.
    pub fn scenario(&self, p: Point) -> &Scenario {
        &self.configurations[p.config].scenario
    }

    /// The point's offered load λ in messages/node/cycle.
    pub fn rate(&self, p: Point) -> f64 {
        self.scenario(p).traffic.rates[p.load]
    }

    /// The point's load as the scenario gave it in flits/node/cycle, if it did.
    pub fn given_flit_rate(&self, p: Point) -> Option<f64> {
        let t = &self.scenario(p).traffic;
        t.flit_rates.as_ref().map(|f| f[p.load])
    }

    /// Most cycles the point can simulate: warm-up, window and drain cap.
    pub fn max_cycles(&self, p: Point) -> u64 {
        let r = &self.scenario(p).run;
        r.max_warmup() + r.max_measure() + r.drain_cycles
    }

    /// The point's estimated cost, for the progress bar's ETA: its planned cycles
    /// ([`planned_cycles`]) times its network's size times its offered
    /// flit rate (the engine's work follows the flits moving), with a floor for the per-cycle
    /// work of every router.
    pub fn cost(&self, p: Point) -> f64 {
        let s = self.scenario(p);
        let flits = self.rate(p) * s.traffic.mean_length();
        let cycles = planned_cycles(&s.run) as f64;
        cycles * s.nodes() as f64 * (flits + 0.01)
    }

    /// The point's key: the text of everything its results depend on (flitsim's version, the
    /// configuration's resolved scenario without its name, the load and the seed), and its
    /// 64-bit FNV-1a hash as 16 hex digits, which names its record.
    pub fn key(&self, p: Point) -> (String, String) {
        let mut s = self.scenario(p).clone();
        s.name = String::new();
        s.traffic.rates = vec![self.rate(p)];
        s.traffic.flit_rates = self.given_flit_rate(p).map(|f| vec![f]);
        s.seeds = vec![p.seed];
        let text = format!(
            "flitsim {}\n{}",
            env!("CARGO_PKG_VERSION"),
            serde_json::to_string(&s).expect("a scenario serializes")
        );
        (format!("{:016x}", fnv1a(text.as_bytes())), text)
    }
}

impl Experiment {
    /// A hash of every point's key: two experiments with the same hash run the same points with
    /// the same configurations (shards of one study agree on it).
    pub fn hash(&self) -> String {
        let mut h = Vec::new();
        for p in self.points() {
            h.extend_from_slice(self.key(p).1.as_bytes());
            h.push(0);
        }
        format!("{:016x}", fnv1a(&h))
    }

    /// A point as messages name it: its coordinates, load and seed.
    pub fn describe(&self, p: Point) -> String {
        let mut parts: Vec<String> = self
            .axes
            .iter()
            .zip(&self.configurations[p.config].coordinates)
            .map(|(a, v)| format!("{} = {v}", a.key))
            .collect();
        parts.push(format!("rate {}", crate::output::decimal(self.rate(p))));
        parts.push(format!("seed {}", p.seed));
        parts.join(", ")
    }
}

/// Refuses two configurations that resolve to the same scenario (swept values that differ in
/// writing only, say): their points would be the same points, run twice under one record.
fn distinct_configurations(configs: &[Configuration], axes: &[Axis], file: &str) -> Result<()> {
    let mut seen = std::collections::HashMap::new();
    let at = |c: &Configuration| -> String {
        let pairs: Vec<String> = axes
            .iter()
            .zip(&c.coordinates)
            .map(|(a, v)| format!("{} = {v}", a.key))
            .collect();
        pairs.join(", ")
    };
    let text = |c: &Configuration| {
        let mut s = c.scenario.clone();
        s.name = String::new();
        serde_json::to_string(&s).expect("a scenario serializes")
    };
    for (i, c) in configs.iter().enumerate() {
        let mine = text(c);
        let hash = fnv1a(mine.as_bytes());
        if let Some(&j) = seen.get(&hash)
            && text(&configs[j]) == mine
        {
            let first: &Configuration = &configs[j];
            return Err(Error::Input(format!(
                "{file}: [sweep]: the configurations ({}) and ({}) are the same scenario, and would run the same points; fix: sweep values that differ",
                at(first),
                at(c)
            )));
        }
        seen.insert(hash, i);
    }
    Ok(())
}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The cycles a point of `run` is planned to run before its drain, for estimates: its warm-up
/// (an automatic one at its shortest, [`crate::stats::mser::MIN_AUTO_WARMUP`]) and its first
/// window.
pub fn planned_cycles(run: &crate::spec::RunSpec) -> u64 {
    let warmup = match run.auto_warmup {
        Some(_) => crate::stats::mser::MIN_AUTO_WARMUP,
        None => run.warmup_cycles,
    };
    warmup + run.measure_cycles
}
