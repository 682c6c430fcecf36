//! Per-link heatmaps: each network link drawn on its topology's layout (`layout.rs`) and
//! coloured by its utilisation, the flits that crossed it per cycle in the measurement window
//! (channels.csv's `flits_per_cycle`, the mean over the seeds). A link carries at most one
//! flit a cycle, so that rate is its utilisation, from 0 (idle) to 1 (busy every cycle); the
//! colour scale spans 0 to 1 flits/cycle in every heatmap, so that heatmaps of different loads
//! and configurations compare.
//!
//! [`heatmaps`] gives one heatmap per configuration and offered load (the HTML report's load
//! selector); `flitsim plot` writes heatmap.svg, one panel per configuration at its highest
//! offered load below saturation (at its lowest when every load saturated). Networks of more
//! than [`MAX_LINKS`] links get none: their links would be too thin to see.

use super::curves::{DirCurves, configuration_label, read_dir};
use super::heatmap_svg::{self as svg, Panel};
use super::layout::{Layout, layout};
use super::table::{open_table, table_error};
use crate::error::Result;
use crate::experiment::Experiment;
use crate::output::files::read_regular_text;
use crate::topology::Topology;
use std::path::Path;

/// The most links a heatmap draws; a larger network gets no heatmap.
pub const MAX_LINKS: usize = 4096;

/// How many of the hottest links a heatmap lists.
const HOTTEST: usize = 10;

/// How many of each panel's hottest links heatmap.svg lists under it.
const HOTTEST_IN_PANEL: usize = 5;

/// One link of a heatmap: channels.csv's naming of it and its utilisation.
#[derive(Clone, Debug, PartialEq)]
pub struct HotLink {
    /// Its channel id (channels.csv's `channel`).
    pub channel: usize,
    /// The router it leaves.
    pub src: u32,
    /// The router it enters.
    pub dst: u32,
    /// Its dimension (`dim`).
    pub dim: u32,
    /// Its direction, `+` or `-` (`dir`).
    pub dir: String,
    /// Flits per cycle, the mean over the seeds of `flits_per_cycle`: its utilisation.
    pub util: f64,
}

impl HotLink {
    /// The link as its hover text names it: `channel 12: 3→4 dim 0 +, 0.734 flits/cycle`.
    pub fn describe(&self) -> String {
        format!(
            "channel {}: {}→{} dim {} {}, {:.3} flits/cycle",
            self.channel, self.src, self.dst, self.dim, self.dir, self.util
        )
    }
}

/// One configuration's links at one offered load, drawn.
#[derive(Clone, Debug)]
pub struct Heatmap {
    /// The configuration's label, by its swept keys' values (`duato, V=5`; empty when nothing
    /// is swept).
    pub config: String,
    /// The offered load, flits/node/cycle.
    pub offered: f64,
    /// The offered load as the tables' `rate`, messages/node/cycle.
    pub rate: f64,
    /// Whether the point saturated (any seed).
    pub saturated: bool,
    /// One self-contained `<svg>` element (no XML prolog): each link a `<path class="link">`
    /// with `data-channel` (its channel id), `data-util` (its flits/cycle, as [`HotLink::util`]
    /// exactly) and a `<title>` ([`HotLink::describe`]); the colour scale; the hottest links
    /// listed.
    pub svg: String,
    /// The 10 hottest links (`HOTTEST`), hottest first (the lower channel id on a tie).
    pub hottest: Vec<HotLink>,
}

/// One configuration's links at one load, before drawing.
struct Load {
    /// The configuration's index in the experiment.
    config: usize,
    /// The tables' `rate`.
    rate: f64,
    /// Every link, by channel id.
    links: Vec<HotLink>,
}

/// Every configuration's heatmap at every offered load of directory `dir` (a results
/// directory of `flitsim run`: scenario.toml, channels.csv, summary.csv or pooled.csv), in
/// channels.csv's order (configuration, then load). Empty when the directory has no
/// channels.csv or its networks have more than [`MAX_LINKS`] links. Refused (exit 2) when
/// channels.csv does not match the scenario's networks.
pub fn heatmaps(dir: &Path) -> Result<Vec<Heatmap>> {
    let Some((exp, topologies, loads)) = read(dir)? else {
        return Ok(Vec::new());
    };
    let curves = read_dir(dir)?;
    let layouts: Vec<Option<Layout>> = topologies.iter().map(|t| t.as_ref().map(layout)).collect();
    let mut out = Vec::new();
    for load in &loads {
        let c = load.config;
        let Some(drawn) = &layouts[c] else { continue };
        let (offered, saturated) = offered(&curves, &exp.configurations[c].coordinates, load);
        let config = configuration_label(&axes(&exp), &exp.configurations[c].coordinates);
        let hottest = hottest(&load.links, HOTTEST);
        let panel = Panel {
            title: panel_title(&config, &exp.name, offered),
            layout: drawn,
            links: &load.links,
            hottest: &hottest,
        };
        out.push(Heatmap {
            svg: svg::heatmap(&[panel], "Link utilisation"),
            config,
            offered,
            rate: load.rate,
            saturated,
            hottest,
        });
    }
    Ok(out)
}

/// One configuration's heatmaps at every offered load, drawn once: what the HTML report
/// embeds, its page recolouring the one drawing for the load chosen (a drawing per load would
/// make the page of a large sweep megabytes long).
#[derive(Clone, Debug)]
pub struct HeatmapSeries {
    /// The configuration's label, as [`Heatmap::config`].
    pub config: String,
    /// One self-contained `<svg>` element titled by the configuration, no load or hottest
    /// links in it, coloured for its first load; its links' `<path class="link">` elements in
    /// channel-id order, as [`Heatmap::svg`]'s.
    pub svg: String,
    /// Its loads, in channels.csv's order.
    pub loads: Vec<SeriesLoad>,
}

/// One offered load of a [`HeatmapSeries`].
#[derive(Clone, Debug)]
pub struct SeriesLoad {
    /// The offered load, flits/node/cycle.
    pub offered: f64,
    /// Whether the point saturated (any seed).
    pub saturated: bool,
    /// Every link's utilisation (flits/cycle), by channel id: the order of the drawing's links.
    pub utils: Vec<f64>,
    /// The 10 hottest links (`HOTTEST`), hottest first.
    pub hottest: Vec<HotLink>,
}

/// Every configuration's [`HeatmapSeries`] in directory `dir`, in channels.csv's order; empty
/// and refused as [`heatmaps`] is.
pub fn heatmap_series(dir: &Path) -> Result<Vec<HeatmapSeries>> {
    let Some((exp, topologies, loads)) = read(dir)? else {
        return Ok(Vec::new());
    };
    let curves = read_dir(dir)?;
    let keys = axes(&exp);
    let mut out: Vec<(usize, HeatmapSeries)> = Vec::new();
    for load in &loads {
        let c = load.config;
        let Some(topology) = &topologies[c] else {
            continue;
        };
        let coords = &exp.configurations[c].coordinates;
        let (offered, saturated) = offered(&curves, coords, load);
        let this = SeriesLoad {
            offered,
            saturated,
            utils: load.links.iter().map(|l| l.util).collect(),
            hottest: hottest(&load.links, HOTTEST),
        };
        match out.iter_mut().find(|(i, _)| *i == c) {
            Some((_, series)) => series.loads.push(this),
            None => {
                let config = configuration_label(&keys, coords);
                let panel = Panel {
                    title: if config.is_empty() {
                        exp.name.clone()
                    } else {
                        config.clone()
                    },
                    layout: &layout(topology),
                    links: &load.links,
                    hottest: &[],
                };
                let svg = svg::heatmap(&[panel], "");
                out.push((
                    c,
                    HeatmapSeries {
                        config,
                        svg,
                        loads: vec![this],
                    },
                ));
            }
        }
    }
    Ok(out.into_iter().map(|(_, s)| s).collect())
}

/// heatmap.svg's text, titled `caption`: a panel per configuration at its highest offered load
/// below saturation (its lowest when every load saturated); None when [`heatmaps`] would give
/// none.
pub(super) fn heatmap_svg(dir: &Path, caption: &str) -> Result<Option<String>> {
    let Some((exp, topologies, loads)) = read(dir)? else {
        return Ok(None);
    };
    let curves = read_dir(dir)?;
    let below = |l: &&Load| !offered(&curves, &exp.configurations[l.config].coordinates, l).1;
    let by_rate = |a: &&&Load, b: &&&Load| a.rate.total_cmp(&b.rate);
    let mut chosen: Vec<&Load> = Vec::new();
    for c in 0..exp.configurations.len() {
        let mine: Vec<&Load> = loads.iter().filter(|l| l.config == c).collect();
        let highest_below = mine.iter().filter(|l| below(l)).max_by(by_rate);
        chosen.extend(highest_below.or_else(|| mine.iter().min_by(by_rate)));
    }
    let layouts: Vec<Option<Layout>> = topologies.iter().map(|t| t.as_ref().map(layout)).collect();
    let keys = axes(&exp);
    let mut hottest = Vec::new();
    let mut panels = Vec::new();
    for load in &chosen {
        let Some(l) = &layouts[load.config] else {
            continue;
        };
        let coords = &exp.configurations[load.config].coordinates;
        let (offered, _) = offered(&curves, coords, load);
        hottest.push(self::hottest(&load.links, HOTTEST_IN_PANEL));
        panels.push((
            panel_title(&configuration_label(&keys, coords), &exp.name, offered),
            l,
            &load.links,
        ));
    }
    let panels: Vec<Panel> = panels
        .into_iter()
        .zip(&hottest)
        .map(|((title, layout, links), hot)| Panel {
            title,
            layout,
            links,
            hottest: hot,
        })
        .collect();
    Ok((!panels.is_empty()).then(|| svg::heatmap(&panels, caption)))
}

/// A panel's title: the configuration's label (the scenario's name when nothing is swept) and
/// the offered load.
fn panel_title(config: &str, scenario: &str, offered: f64) -> String {
    let name = if config.is_empty() { scenario } else { config };
    format!(
        "{name} at {} flits/node/cycle",
        super::hist::load_label(offered)
    )
}

/// The experiment's swept keys.
fn axes(exp: &Experiment) -> Vec<String> {
    exp.axes.iter().map(|a| a.key.clone()).collect()
}

/// The `n` hottest of `links`, hottest first, the lower channel id first on a tie.
fn hottest(links: &[HotLink], n: usize) -> Vec<HotLink> {
    let mut sorted: Vec<&HotLink> = links.iter().collect();
    sorted.sort_by(|a, b| b.util.total_cmp(&a.util).then(a.channel.cmp(&b.channel)));
    sorted.into_iter().take(n).cloned().collect()
}

/// The offered load (flits/node/cycle) of `load` and whether it saturated, from the
/// directory's curves (NaN and false when they do not have it).
fn offered(curves: &DirCurves, coords: &[String], load: &Load) -> (f64, bool) {
    curves
        .curves
        .iter()
        .zip(curves.coordinates())
        .filter(|(_, c)| c.as_slice() == coords)
        .flat_map(|(c, _)| &c.rows)
        .find(|r| r.rate == load.rate)
        .map_or((f64::NAN, false), |r| (r.offered, r.saturated))
}

/// What a directory's heatmaps are drawn from.
type Read = (Experiment, Vec<Option<Topology>>, Vec<Load>);

/// The directory's experiment, each configuration's network (None above [`MAX_LINKS`] links)
/// and its channels.csv's loads; None without channels.csv or a network to draw.
fn read(dir: &Path) -> Result<Option<Read>> {
    let path = dir.join("channels.csv");
    if std::fs::symlink_metadata(&path).is_err() {
        return Ok(None);
    }
    let Some(exp) = experiment(dir) else {
        return Ok(None);
    };
    let topologies: Vec<Option<Topology>> = exp
        .configurations
        .iter()
        .map(|c| {
            let spec = &c.scenario.topology;
            // The processors bound the links from below on every family: a cheap refusal of
            // a huge network before it is built.
            (spec.processors() <= MAX_LINKS as u64)
                .then(|| Topology::build(spec))
                .filter(|t| t.links().len() <= MAX_LINKS)
        })
        .collect();
    if topologies.iter().all(Option::is_none) {
        return Ok(None);
    }
    let loads = read_channels(&path, &exp, &topologies)?;
    Ok(Some((exp, topologies, loads)))
}

/// The experiment of a results directory: its scenario.toml with the `--set`s and `--seed`
/// its experiment.json recorded (none when it has none); where the copy names files beside
/// the scenario that the directory does not hold (a traffic matrix, a trace), the scenario
/// file experiment.json names, read from where the run was started; None when neither reads.
fn experiment(dir: &Path) -> Option<Experiment> {
    let json: serde_json::Value = read_regular_text(&dir.join("experiment.json"), 1 << 30)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let sets: Vec<String> = json["sets"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let original = json["scenario_file"].as_str().map(std::path::PathBuf::from);
    [Some(dir.join("scenario.toml")), original]
        .into_iter()
        .flatten()
        .find_map(|path| {
            let text = read_regular_text(&path, 1 << 30).ok()?;
            let shown = path.display().to_string();
            Experiment::from_text(text, &shown, &sets, json["seed"].as_u64()).ok()
        })
}

/// channels.csv's links per (configuration, load), each link's `flits_per_cycle` the mean
/// over its seeds' rows; the rows of networks not drawn skipped. Refused when a row names a
/// configuration the scenario does not have, or a link its network does not have.
fn read_channels(path: &Path, exp: &Experiment, topos: &[Option<Topology>]) -> Result<Vec<Load>> {
    let bad = |m: String| table_error(path, m);
    let names = [
        "rate",
        "channel",
        "src",
        "dst",
        "dim",
        "dir",
        "flits_per_cycle",
    ];
    let (mut r, [rate, columns @ ..]) = open_table(path, 1 << 36, names)?;
    // Per (configuration, rate): each channel's sum over the seeds and their count. The rows
    // come a load at a time: the last row's coordinates and rate, and its load.
    let mut loads: Vec<(Load, Vec<u32>)> = Vec::new();
    let (mut key, mut at): (Vec<String>, Option<usize>) = (Vec::new(), None);
    for rec in r.records() {
        let rec = rec.map_err(|e| bad(e.to_string()))?;
        if key.is_empty() || !(1..=rate).all(|i| rec[i] == key[i - 1]) {
            key = (1..=rate).map(|i| rec[i].to_string()).collect();
            at = load_of(&key, exp, topos, &mut loads).map_err(bad)?;
        }
        if let Some(at) = at {
            let (load, seen) = &mut loads[at];
            add_row(&rec, columns, load, seen).map_err(bad)?;
        }
    }
    Ok(loads
        .into_iter()
        .map(|(mut load, seen)| {
            for (l, &n) in load.links.iter_mut().zip(&seen) {
                l.util /= f64::from(n.max(1));
            }
            load
        })
        .collect())
}

/// The index in `loads` of the load a row's coordinates and rate `key` name, added (every link
/// at 0) when it is the first row of it; None when its network is not drawn.
fn load_of(
    key: &[String],
    exp: &Experiment,
    topos: &[Option<Topology>],
    loads: &mut Vec<(Load, Vec<u32>)>,
) -> std::result::Result<Option<usize>, String> {
    let (coords, rate) = key.split_at(key.len() - 1);
    let config = exp
        .configurations
        .iter()
        .position(|c| c.coordinates == coords)
        .ok_or_else(|| {
            format!(
                "a row of configuration ({}) that scenario.toml does not have",
                coords.join(", ")
            )
        })?;
    let Some(topo) = &topos[config] else {
        return Ok(None);
    };
    let rate: f64 = rate[0]
        .parse()
        .map_err(|_| format!("rate {} is not a number", rate[0]))?;
    if let Some(i) = loads
        .iter()
        .position(|(l, _)| l.config == config && l.rate == rate)
    {
        return Ok(Some(i));
    }
    let links = topo
        .listed_links()
        .enumerate()
        .map(|(c, l)| HotLink {
            channel: c,
            src: l.src,
            dst: l.dst,
            dim: u32::from(l.dim),
            dir: l.dir.sign().to_string(),
            util: 0.0,
        })
        .collect();
    let seen = vec![0; topo.links().len()];
    loads.push((
        Load {
            config,
            rate,
            links,
        },
        seen,
    ));
    Ok(Some(loads.len() - 1))
}

/// Adds a channels.csv row (its columns `channel`, `src`, `dst`, `dim`, `dir` and
/// `flits_per_cycle` at `cols`) to its link of `load`, counting it in `seen`; refused when
/// the link is not the network's link of that id.
fn add_row(
    rec: &csv::StringRecord,
    cols: [usize; 6],
    load: &mut Load,
    seen: &mut [u32],
) -> std::result::Result<(), String> {
    let [channel, src, dst, dim, dir, util] = cols;
    let int = |i: usize| -> std::result::Result<u32, String> {
        rec[i]
            .parse()
            .map_err(|_| format!("{} is not a count", &rec[i]))
    };
    let c = int(channel)? as usize;
    let row = (int(src)?, int(dst)?, int(dim)?, &rec[dir]);
    match load.links.get_mut(c) {
        Some(l) if (l.src, l.dst, l.dim, l.dir.as_str()) == row => {
            l.util += rec[util]
                .parse::<f64>()
                .map_err(|_| format!("{} is not a number", &rec[util]))?;
            seen[c] += 1;
            Ok(())
        }
        _ => Err(format!(
            "channel {c} ({}→{} dim {} {}) is not a link of the scenario's network",
            row.0, row.1, row.2, row.3
        )),
    }
}
