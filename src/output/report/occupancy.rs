//! Discrete distributions per configuration at a chosen load: the hop counts (hops.csv)
//! against the network's exact distance distribution where flitsim enumerates it (k-ary
//! n-cubes, meshes and hypercubes of at most `ENUMERATION_MAX_NODES` processors: every
//! source-destination pair of the traffic pattern, `model::enumerate`), and the VC occupancy
//! P_v (vc_occupancy.csv) against the model's (validation_vc.csv, where `validate` wrote it).
//! Bars are the simulation (the seeds' counts summed, or their probabilities' mean); dots
//! the reference.

use super::svg::{Axis, Plot, sig4};
use super::tables::{ByLoad, Csv, by_load, mean};
use super::{Dir, Section, esc};
use crate::error::Result;
use crate::experiment::Experiment;
use crate::output::num;

/// A plot's size in pixels.
const SIZE: (f64, f64) = (340.0, 230.0);

/// A bar chart of the simulated `bars` (x, y) with the `reference` (x, y) as dots, titled
/// `label`, on axes `titles`; each bar's tooltip gives its value and the reference's (four
/// significant digits).
fn bars_figure(
    label: &str,
    titles: (&str, &str),
    bars: &[(f64, f64)],
    reference: &[(f64, f64)],
) -> String {
    let x_top = bars
        .iter()
        .chain(reference)
        .map(|b| b.0)
        .fold(0.0, f64::max)
        + 0.5;
    let y_top = bars
        .iter()
        .chain(reference)
        .map(|b| b.1)
        .filter(|y| y.is_finite())
        .fold(0.0, f64::max);
    let mut p = Plot::new(
        SIZE.0,
        SIZE.1,
        Axis::range(titles.0, -0.5, x_top),
        Axis::linear(titles.1, y_top),
    );
    let half = ((p.px(1.0) - p.px(0.0)) * 0.35).max(1.0);
    let reference: Vec<&(f64, f64)> = reference.iter().filter(|r| r.1.is_finite()).collect();
    for &(x, y) in bars {
        let (cx, top, base) = (p.px(x), p.py(y), p.py(0.0));
        let refers = match reference.iter().find(|r| r.0 == x) {
            Some(r) => format!(", reference {}", sig4(r.1)),
            None => String::new(),
        };
        p.push(&format!(
            "<rect class=\"bar\" x=\"{:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#56b4e9\" data-tip=\"{} {}: {}{refers}\"/>",
            cx - half,
            2.0 * half,
            (base - top).max(0.0),
            esc(titles.0),
            num(x),
            sig4(y),
        ));
    }
    for (x, y) in reference {
        p.push(&format!(
            "<circle class=\"ref\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#d55e00\"/>",
            p.px(*x),
            p.py(*y)
        ));
    }
    format!(
        "<figure data-config=\"{}\"><figcaption>{}</figcaption>{}</figure>",
        esc(label),
        esc(label),
        p.svg("plot bars", "")
    )
}

/// Each configuration's exact hop distribution, by its swept keys' values, where flitsim
/// enumerates it: the scenario.toml of the directory with its run's `--set`s (from
/// experiment.json; none when the directory has neither it nor a manifest naming
/// overrides), the first seed's traffic.
fn exact_hops(d: &Dir) -> Vec<(Vec<String>, Vec<f64>)> {
    use crate::topology::Topology;
    let Ok(text) = crate::output::files::read_regular_text(&d.path.join("scenario.toml"), 1 << 26)
    else {
        return Vec::new();
    };
    let sets: Vec<String> = match super::provenance::experiment_json(d) {
        Some(j) => j["sets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect(),
        None if overrides_unknown(d) => return Vec::new(),
        None => Vec::new(),
    };
    let file = d.path.join("scenario.toml").display().to_string();
    let Ok(exp) = Experiment::from_text(text, &file, &sets, None) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in &exp.configurations {
        let s = &c.scenario;
        if s.topology.processors() as usize > crate::model::ENUMERATION_MAX_NODES {
            continue;
        }
        let topo = Topology::build(&s.topology);
        let Topology::KAryNCube(cube) = &topo else {
            continue;
        };
        let addr = crate::traffic::Addresses::of_processors(&topo);
        let traffic =
            crate::traffic::Traffic::new(&s.traffic, addr, s.seeds.first().copied().unwrap_or(1));
        out.push((
            c.coordinates.clone(),
            crate::model::enumerate::hop_distribution(cube, &traffic),
        ));
    }
    out
}

/// Whether the directory's manifest names `--set`s or a `--seed` that are not recorded
/// elsewhere (experiment.json being absent).
fn overrides_unknown(d: &Dir) -> bool {
    let path = d.path.join(".flitsim-manifest");
    let text = crate::output::files::read_regular_text(&path, 1 << 20).unwrap_or_default();
    crate::experiment::directory::Manifest::parse(&text).is_some_and(|m| !m.given.is_empty())
}

/// A per-load section of bar figures: `groups` (per configuration and rate, the seeds'
/// values per x) drawn with `bars` and `reference`, under `kind`, `title` and `note`.
struct Bars<'a> {
    kind: &'static str,
    title: &'a str,
    note: String,
    titles: (&'a str, &'a str),
}

/// The section of `spec` from `groups`, their bars made by `bars` and reference by `reference`.
fn bars_section(
    d: &Dir,
    spec: Bars,
    groups: &[ByLoad],
    bars: impl Fn(&ByLoad) -> Vec<(f64, f64)>,
    reference: impl Fn(&ByLoad) -> Vec<(f64, f64)>,
) -> Option<Section> {
    let figures: Vec<(Vec<String>, String, String)> = groups
        .iter()
        .map(|g| {
            let fig = bars_figure(
                &d.config_label(&g.coords),
                spec.titles,
                &bars(g),
                &reference(g),
            );
            (g.coords.clone(), g.rate.clone(), fig)
        })
        .collect();
    if figures.is_empty() {
        return None;
    }
    let id = format!("{}-loads-{}", spec.kind, d.index);
    Some(Section {
        kind: spec.kind,
        id: format!("{}-{}", spec.kind, d.index),
        title: d.title(spec.title),
        body: format!(
            "<p class=\"note\">{}</p>{}",
            spec.note,
            d.load_panels(&id, figures)
        ),
    })
}

/// The hop-count section of a directory with hops.csv.
pub fn hops_section(d: &Dir) -> Result<Option<Section>> {
    let Some(csv) = Csv::read(&d.path, "hops.csv", "rate")? else {
        return Ok(None);
    };
    let groups = by_load(
        &csv,
        csv.col("hops", "hops.csv")?,
        csv.col("count", "hops.csv")?,
    );
    let exact = exact_hops(d);
    let note = match exact.is_empty() {
        true => "The fraction of the measured messages that crossed h links (hops.csv, the seeds' messages together); flitsim has no exact distance distribution of this network and traffic.".to_string(),
        false => "The fraction of the measured messages that crossed h links (hops.csv, the seeds' messages together; bars) against the exact distance distribution of the network and traffic pattern, every source-destination pair enumerated (dots): minimal routes cross exactly the distance.".to_string(),
    };
    let spec = Bars {
        kind: "hops",
        title: "Hop counts",
        note,
        titles: ("hops", "fraction of messages"),
    };
    let bars = |g: &ByLoad| {
        let total: f64 = g.values.iter().flat_map(|v| &v.1).sum();
        g.values
            .iter()
            .map(|(h, c)| (*h, c.iter().sum::<f64>() / total))
            .collect()
    };
    let reference = |g: &ByLoad| {
        exact
            .iter()
            .find(|e| e.0 == g.coords)
            .map(|e| {
                e.1.iter()
                    .enumerate()
                    .map(|(h, p)| (h as f64, *p))
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(bars_section(d, spec, &groups, bars, reference))
}

/// The VC-occupancy section of a directory with vc_occupancy.csv.
pub fn vc_section(d: &Dir) -> Result<Option<Section>> {
    let Some(csv) = Csv::read(&d.path, "vc_occupancy.csv", "rate")? else {
        return Ok(None);
    };
    let f = "vc_occupancy.csv";
    let groups = by_load(&csv, csv.col("busy_vcs", f)?, csv.col("probability", f)?);
    let model = match Csv::read(&d.path, "validation_vc.csv", "rate")? {
        Some(v) => {
            let f = "validation_vc.csv";
            by_load(&v, v.col("busy_vcs", f)?, v.col("model_probability", f)?)
        }
        None => Vec::new(),
    };
    let note = format!(
        "P_v, the probability that v virtual channels of a network channel are busy (vc_occupancy.csv, the seeds' mean; bars){}.",
        if model.is_empty() {
            ""
        } else {
            ", against the model's (validation_vc.csv; dots)"
        }
    );
    let spec = Bars {
        kind: "vc-occupancy",
        title: "Virtual-channel occupancy",
        note,
        titles: ("busy VCs", "probability"),
    };
    let bars = |g: &ByLoad| g.values.iter().map(|(v, p)| (*v, mean(p))).collect();
    let reference = |g: &ByLoad| {
        model
            .iter()
            .find(|m| m.coords == g.coords && m.rate == g.rate)
            .map(|m| m.values.iter().map(|(v, p)| (*v, mean(p))).collect())
            .unwrap_or_default()
    };
    Ok(bars_section(d, spec, &groups, bars, reference))
}
