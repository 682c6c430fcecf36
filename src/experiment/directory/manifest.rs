//! The manifest (`.flitsim-manifest`): who owns an output directory and which of its entries
//! flitsim wrote. Its text is deterministic (no dates, no process ids), so a tracked results
//! directory regenerated from the same scenario keeps the same manifest:
//!
//! ```text
//! flitsim output directory 2
//! owner run 1f0e2d3c4b5a6978
//! scenario mesh-8x8-dor
//! given --set router.vcs=4 --seed 7
//! file summary.csv
//! plot latency.svg
//! dir slurm
//! ```
//!
//! `file` entries are the tables of the directory's current set (replaced as one set),
//! `plot` entries the plots `flitsim plot` drew from them, `dir` entries subdirectories flitsim
//! made (the scripts and shards of `flitsim slurm`). Everything else in the directory is the
//! user's and is never touched.

use std::collections::BTreeSet;
use std::fmt;

/// The manifest's first line.
const HEADER: &str = "flitsim output directory 2";

/// What an output directory holds: one experiment's results of one kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    /// A whole run (`run`, `validate`, `merge`, `model`, `slurm`'s merged directory) of the
    /// experiment with this hash.
    Run(String),
    /// One shard (`I/N`) of the experiment with this hash.
    Shard(String, String),
    /// A saturation search with this tolerance (as given) of the experiment with this hash.
    Saturation(String, String),
    /// Plots only (`flitsim plot ... --out DIR`).
    Plots,
}

impl Owner {
    /// The owner as the manifest's `owner` line gives it (after the word).
    fn encode(&self) -> String {
        match self {
            Owner::Run(h) => format!("run {h}"),
            Owner::Shard(label, h) => format!("shard {label} {h}"),
            Owner::Saturation(t, h) => format!("saturation {t} {h}"),
            Owner::Plots => "plots".into(),
        }
    }

    /// The owner of an `owner` line's words, if they are one.
    fn decode(words: &[&str]) -> Option<Owner> {
        match words {
            ["run", h] => Some(Owner::Run(h.to_string())),
            ["shard", l, h] => Some(Owner::Shard(l.to_string(), h.to_string())),
            ["saturation", t, h] => Some(Owner::Saturation(t.to_string(), h.to_string())),
            ["plots"] => Some(Owner::Plots),
            _ => None,
        }
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Owner::Run(h) => write!(f, "the results of experiment {h}"),
            Owner::Shard(l, h) => write!(f, "shard {l} of experiment {h}"),
            Owner::Saturation(t, h) => {
                write!(f, "a saturation search (--tolerance {t}) of experiment {h}")
            }
            Owner::Plots => write!(f, "plots drawn by `flitsim plot`"),
        }
    }
}

/// An output directory's manifest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    /// Who owns the directory (None: no one yet, or a manifest of an earlier flitsim that did
    /// not say).
    pub owner: Option<Owner>,
    /// The scenario's name, for messages.
    pub scenario: String,
    /// The command line's `--set`s and `--seed` that made the experiment, for messages.
    pub given: String,
    /// The tables of the current set.
    pub files: BTreeSet<String>,
    /// The plots drawn from them.
    pub plots: BTreeSet<String>,
    /// Subdirectories flitsim made.
    pub dirs: BTreeSet<String>,
}

/// Whether `name` may be an entry: one plain name, not hidden, nothing a line could break.
pub fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.contains('/')
        && !name.chars().any(char::is_control)
}

impl Manifest {
    /// The manifest's text.
    pub fn text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        if let Some(o) = &self.owner {
            out += &format!("owner {}\n", o.encode());
        }
        for (key, text) in [("scenario", &self.scenario), ("given", &self.given)] {
            if !text.is_empty() {
                let line: String = text
                    .chars()
                    .map(|c| if c.is_control() { '?' } else { c })
                    .collect();
                out += &format!("{key} {line}\n");
            }
        }
        for (kind, names) in [
            ("file", &self.files),
            ("plot", &self.plots),
            ("dir", &self.dirs),
        ] {
            for n in names {
                out += &format!("{kind} {n}\n");
            }
        }
        out
    }

    /// The manifest of `text`: this format, or an earlier flitsim's list of file names (then
    /// without an owner). None when the text is neither (not flitsim's).
    pub fn parse(text: &str) -> Option<Manifest> {
        let mut lines = text.lines();
        let mut m = Manifest::default();
        if lines.next() != Some(HEADER) {
            for name in text.lines() {
                if !plain_name(name) {
                    return None;
                }
                m.files.insert(name.to_string());
            }
            return Some(m);
        }
        for line in lines {
            let (kind, rest) = line.split_once(' ')?;
            match kind {
                "owner" => {
                    let words: Vec<&str> = rest.split(' ').collect();
                    m.owner = Some(Owner::decode(&words)?);
                }
                "scenario" => m.scenario = rest.to_string(),
                "given" => m.given = rest.to_string(),
                "file" | "plot" | "dir" if plain_name(rest) => {
                    let set = match kind {
                        "file" => &mut m.files,
                        "plot" => &mut m.plots,
                        _ => &mut m.dirs,
                    };
                    set.insert(rest.to_string());
                }
                _ => return None,
            }
        }
        Some(m)
    }

    /// The experiment as messages name it: its owner, scenario and what the command line
    /// gave.
    pub fn describe(&self) -> String {
        let Some(o) = &self.owner else {
            return "the results of an earlier flitsim, of an unknown experiment".into();
        };
        let mut out = o.to_string();
        if !self.scenario.is_empty() {
            out += &format!(" (scenario '{}'", self.scenario);
            if !self.given.is_empty() {
                out += &format!(" with {}", self.given);
            }
            out += ")";
        }
        out
    }

    /// Whether flitsim wrote the entry `name` (a table, a plot or a subdirectory).
    pub fn lists(&self, name: &str) -> bool {
        self.files.contains(name) || self.plots.contains(name) || self.dirs.contains(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_back_as_written_and_refuses_what_is_not_one() {
        let m = Manifest {
            owner: Some(Owner::Shard("2/8".into(), "00ff".into())),
            scenario: "a\nb".into(),
            given: "--seed 7".into(),
            files: ["summary.csv".to_string()].into(),
            plots: ["latency.svg".to_string()].into(),
            dirs: ["slurm".to_string()].into(),
        };
        let back = Manifest::parse(&m.text()).unwrap();
        assert_eq!(back.owner, m.owner);
        assert_eq!(back.scenario, "a?b");
        assert_eq!(back.given, "--seed 7");
        assert_eq!(
            (back.files, back.plots, back.dirs),
            (m.files, m.plots, m.dirs)
        );
        for o in [
            Owner::Run("1".into()),
            Owner::Saturation("0.005".into(), "2".into()),
            Owner::Plots,
        ] {
            let m = Manifest {
                owner: Some(o.clone()),
                ..Manifest::default()
            };
            assert_eq!(Manifest::parse(&m.text()).unwrap().owner, Some(o));
        }
        let old = Manifest::parse("summary.csv\nhops.csv\n").unwrap();
        assert_eq!(old.owner, None);
        assert!(old.lists("hops.csv") && !old.lists("x"));
        assert_eq!(Manifest::parse("../etc/passwd\n"), None);
        assert_eq!(Manifest::parse(&format!("{HEADER}\nfile ../x\n")), None);
        assert_eq!(Manifest::parse(&format!("{HEADER}\nowner nobody\n")), None);
    }
}
