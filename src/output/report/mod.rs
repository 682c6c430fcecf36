//! `flitsim report`: one self-contained HTML page that shows results directories whole. The
//! page (`page.rs`) is a list of sections, each added by one call and shown only where its
//! data exist: provenance (`provenance.rs`); latency and accepted throughput against offered
//! load, every directory's curves overlaid, with saturation marks (`curves.rs`); per
//! directory, the saturation table, model against simulation (`validation.rs`), the latency
//! distributions (`distributions.rs`), and the hop counts and VC occupancy against the
//! exact and model distributions (`occupancy.rs`). The plots are SVG written by hand
//! (`svg.rs`), so that each point carries its values; CSS and a small script are inline, and
//! nothing is fetched.

mod curves;
mod distributions;
mod heatmap;
mod occupancy;
mod page;
mod provenance;
mod svg;
mod tables;
mod validation;

pub use page::{GENERATOR, Page, Section, esc, load_selector};

use crate::error::{Error, Result};
use crate::output::files::{self, kind_at};
use crate::output::num;
use crate::output::plot::{DirCurves, Row, read_dir};
use std::path::{Path, PathBuf};

/// The report's file name in a results directory.
pub const REPORT: &str = "report.html";

/// A results directory as the report reads it.
pub struct Dir {
    /// The directory.
    pub path: PathBuf,
    /// Its place among the directories given.
    pub index: usize,
    /// Its label in legends and headings (empty with one directory).
    pub label: String,
    /// Its load curves (pooled.csv, else summary.csv), if it has either.
    pub curves: Option<DirCurves>,
}

impl Dir {
    /// A per-directory section's heading: `what`, then the directory's label when there are
    /// several.
    pub fn title(&self, what: &str) -> String {
        match self.label.is_empty() {
            true => what.to_string(),
            false => format!("{what}: {}", self.label),
        }
    }

    /// The curve's row of the configuration `coords` at `rate` (messages/node/cycle, as a
    /// table writes it).
    pub fn row(&self, coords: &[String], rate: &str) -> Option<&Row> {
        let rate: f64 = rate.parse().ok()?;
        let c = self.curves.as_ref()?;
        c.curves
            .iter()
            .zip(c.coordinates())
            .filter(|(_, k)| k.as_slice() == coords)
            .flat_map(|(c, _)| &c.rows)
            .find(|r| r.rate == rate)
    }

    /// The offered load (flits/node/cycle) of the configuration `coords` at `rate`.
    pub fn offered(&self, coords: &[String], rate: &str) -> Option<f64> {
        self.row(coords, rate).map(|r| r.offered)
    }

    /// A load selector `id` of per-configuration figures (coordinates, rate, HTML): one
    /// panel per load, in the order the loads first come, holding each configuration's figure
    /// at that load.
    pub fn load_panels(&self, id: &str, figures: Vec<(Vec<String>, String, String)>) -> String {
        let mut panels: Vec<(String, String)> = Vec::new();
        for (coords, rate, html) in figures {
            let label = self.load_label(&coords, &rate);
            match panels.iter_mut().find(|p| p.0 == label) {
                Some(p) => p.1.push_str(&html),
                None => panels.push((label, html)),
            }
        }
        for p in &mut panels {
            p.1 = format!("<div class=\"figures\">{}</div>", p.1);
        }
        load_selector(id, &panels)
    }

    /// A load's label: its offered flits/node/cycle, else its rate in messages/node/cycle.
    pub fn load_label(&self, coords: &[String], rate: &str) -> String {
        match self.offered(coords, rate) {
            Some(x) => format!("{} flits/node/cycle", num(x)),
            None => format!("{rate} messages/node/cycle"),
        }
    }

    /// The label of configuration `coords` within the directory.
    pub fn config_label(&self, coords: &[String]) -> String {
        let keys = self.curves.as_ref().map_or(&[][..], |c| &c.keys[..]);
        let label = crate::output::plot::configuration_label(keys, coords);
        if label.is_empty() {
            "all points".to_string()
        } else {
            label
        }
    }
}

/// The tables one of which makes a directory a results directory.
const TABLES: [&str; 3] = ["summary.csv", "pooled.csv", "saturation.csv"];

/// Reads the directories; a path that is not a results directory is refused (exit 2) naming
/// it and the fix.
pub fn read_dirs(paths: &[PathBuf]) -> Result<Vec<Dir>> {
    let mut read: Vec<Option<DirCurves>> = Vec::new();
    for path in paths {
        let has = |name: &str| kind_at(&path.join(name)).ok().flatten().is_some();
        if !path.is_dir() || !TABLES.iter().any(|t| has(t)) {
            return Err(Error::Input(format!(
                "{}: not a results directory (no summary.csv, pooled.csv or saturation.csv in it); fix: give a directory that `flitsim run`, `validate`, `merge` or `saturation` wrote",
                path.display()
            )));
        }
        let curves = has("summary.csv") || has("pooled.csv");
        read.push(curves.then(|| read_dir(path)).transpose()?);
    }
    // Several directories: those with curves labelled as `flitsim plot` labels them, the
    // others by their paths.
    let mut labels: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    if paths.len() == 1 {
        labels[0].clear();
    } else {
        let (with, curves): (Vec<PathBuf>, Vec<DirCurves>) = paths
            .iter()
            .zip(&mut read)
            .filter_map(|(p, c)| Some((p.clone(), c.take()?)))
            .unzip();
        let mut named = crate::output::plot::dir_labels(&with, &curves, &[]).into_iter();
        let mut curves = curves.into_iter();
        for (p, (label, c)) in paths.iter().zip(labels.iter_mut().zip(&mut read)) {
            if with.contains(p) {
                *label = named.next().unwrap_or_default();
                *c = curves.next();
            }
        }
    }
    Ok(paths
        .iter()
        .zip(read)
        .zip(labels)
        .enumerate()
        .map(|(index, ((path, curves), label))| Dir {
            path: path.clone(),
            index,
            label,
            curves,
        })
        .collect())
}

/// The page of the directories: every section whose data exist.
pub fn page(dirs: &[Dir]) -> Result<Page> {
    let title = match dirs {
        [one] => format!("flitsim report: {}", provenance::scenario_name(one)),
        _ => "flitsim report".to_string(),
    };
    let mut page = Page::new(&title);
    for d in dirs {
        page.add(provenance::section(d)?);
    }
    if let Some(s) = curves::section(dirs)? {
        page.add(s);
    }
    for d in dirs {
        for s in [
            curves::saturation_section(d)?,
            validation::section(d)?,
            heatmap::section(d)?,
            distributions::section(d)?,
            occupancy::hops_section(d)?,
            occupancy::vc_section(d)?,
        ]
        .into_iter()
        .flatten()
        {
            page.add(s);
        }
    }
    Ok(page)
}

/// Writes the report of the results directories `paths`: into `out` if given, else into the
/// one directory as report.html (listed in its manifest as flitsim's, like `plot`'s plots).
/// Returns the file written and its size. An `out` that exists and is not a report flitsim
/// wrote is refused (exit 2), never overwritten.
pub fn report(paths: &[PathBuf], out: Option<&Path>) -> Result<(PathBuf, usize)> {
    let dirs = read_dirs(paths)?;
    let html = page(&dirs)?.html();
    let path = match (out, paths) {
        (Some(out), _) => {
            write_out(out, &html)?;
            out.to_path_buf()
        }
        (None, [one]) => {
            let claim = crate::experiment::directory::Claim {
                owner: crate::experiment::directory::Owner::Plots,
                scenario: String::new(),
                given: String::new(),
                replace: false,
            };
            let dir = crate::experiment::directory::OutDir::open(one, claim)?;
            dir.add_plots(&[(REPORT.to_string(), html.clone().into_bytes())])?;
            one.join(REPORT)
        }
        (None, _) => {
            return Err(Error::Input(
                "report: several results directories need one file for the report; fix: add --out FILE".into(),
            ));
        }
    };
    Ok((path, html.len()))
}

/// Writes `html` to `out` all at once, refusing (exit 2) an `out` that holds anything but a
/// report flitsim wrote (one whose head has [`GENERATOR`]).
fn write_out(out: &Path, html: &str) -> Result<()> {
    let refuse = |what: &str| {
        Error::Input(format!(
            "{}: {what}, which flitsim does not overwrite; fix: give --out a new file (or move it away)",
            out.display()
        ))
    };
    match kind_at(out) {
        Ok(None) => {}
        Ok(Some(k)) => {
            if let Some(what) = files::not_regular(k) {
                return Err(refuse(what));
            }
            let head = files::open_regular(out)
                .and_then(|(f, _)| {
                    let mut head = Vec::new();
                    std::io::Read::read_to_end(&mut std::io::Read::take(f, 512), &mut head)
                        .map(|_| head)
                })
                .map_err(|e| {
                    Error::Io(format!(
                        "{}: {e}; fix: give --out a file you can read and write",
                        out.display()
                    ))
                })?;
            if !String::from_utf8_lossy(&head).contains(GENERATOR) {
                return Err(refuse("a file that is not a report flitsim wrote"));
            }
        }
        Err(e) => {
            return Err(Error::Io(format!(
                "{}: {e}; fix: give --out a path you can write",
                out.display()
            )));
        }
    }
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = out
        .file_name()
        .ok_or_else(|| refuse("not a file name"))?
        .to_string_lossy()
        .to_string();
    files::write_atomic(parent, &name, html.as_bytes()).map_err(|e| {
        Error::Io(format!(
            "{}: {e}; fix: give --out a path you can write",
            out.display()
        ))
    })
}
