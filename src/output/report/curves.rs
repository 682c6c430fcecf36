//! The load curves: mean latency (linear or log axis) and accepted throughput against offered
//! load (flits/node/cycle), one curve per configuration of every directory, overlaid and
//! looking as `flitsim plot` draws them (colour by the first swept key, line style by the
//! second, marker by the rest); 95% half-widths as error bars; saturated points left out of
//! latency; saturation.csv's loads marked on the throughput plot. And the saturation table.

use super::svg::{Axis, Plot, sample};
use super::tables::Csv;
use super::{Dir, Section, esc};
use crate::error::Result;
use crate::output::files::kind_at;
use crate::output::num;
use crate::output::plot::look::Look;
use crate::output::plot::{Curve, Row, full_label, look_at};

/// A plot's size in pixels.
const SIZE: (f64, f64) = (600.0, 400.0);

/// A curve as the page draws it: its element id, full label, look and points.
struct Drawn<'a> {
    id: String,
    label: String,
    look: Look,
    curve: &'a Curve,
    /// Its scenario and swept keys' values, to find its saturation row.
    scenario: &'a str,
    coords: &'a [String],
}

/// Every directory's curves, with their ids (`c{directory}-{curve}`), labels and looks.
fn drawn(dirs: &[Dir]) -> Vec<Drawn<'_>> {
    let several = dirs.len() > 1;
    let mut out = Vec::new();
    for d in dirs {
        let Some(c) = &d.curves else { continue };
        let at = c.value_indices(None);
        for (i, ((curve, coords), at)) in c.curves.iter().zip(c.coordinates()).zip(at).enumerate() {
            let label = full_label(several, &d.label, &curve.label);
            out.push(Drawn {
                id: format!("c{}-{i}", d.index),
                label: if label.is_empty() {
                    "all points".into()
                } else {
                    label
                },
                look: look_at(several, d.index, &at),
                curve,
                scenario: &c.scenario,
                coords,
            });
        }
    }
    out
}

/// A point's tooltip: the curve, its offered and accepted loads and its latency, as the
/// table gives them.
fn tip(label: &str, r: &Row) -> String {
    let mut t = format!(
        "{label}: offered {} flits/node/cycle; latency {}",
        num(r.offered),
        num(r.latency)
    );
    if r.ci95.is_finite() {
        t.push_str(&format!(" ± {}", num(r.ci95)));
    }
    t.push_str(&format!(" cycles; accepted {}", num(r.accepted)));
    if r.accepted_ci.is_finite() {
        t.push_str(&format!(" ± {}", num(r.accepted_ci)));
    }
    if r.saturated {
        t.push_str(" (saturated)");
    }
    t
}

/// The latency plot on a linear or log axis: saturated and undefined points left out.
fn latency_plot(curves: &[Drawn], log: bool) -> String {
    let pts = points(curves, |r| {
        (!r.saturated && r.latency.is_finite()).then_some((r.latency, r.ci95))
    });
    let top = pts
        .iter()
        .flatten()
        .map(|p| if p.2.is_finite() { p.1 + p.2 } else { p.1 })
        .fold(0.0, f64::max);
    let y = match log {
        true => {
            let low = pts
                .iter()
                .flatten()
                .map(|p| p.1)
                .fold(f64::INFINITY, f64::min);
            Axis::log("latency (cycles)", low, top)
        }
        false => Axis::linear("latency (cycles)", top),
    };
    let mut plot = Plot::new(SIZE.0, SIZE.1, Axis::linear(OFFERED, x_max(curves)), y);
    for (c, p) in curves.iter().zip(&pts) {
        plot.curve(&c.id, c.look, p);
    }
    let scale = if log { "log" } else { "linear" };
    plot.svg(
        "plot latency",
        &format!("data-plot=\"latency\" data-scale=\"{scale}\""),
    )
}

/// Each curve's points (offered load, value, half-width, hover text), the rows `value` gives
/// a value and half-width for.
fn points(
    curves: &[Drawn],
    value: impl Fn(&Row) -> Option<(f64, f64)>,
) -> Vec<Vec<(f64, f64, f64, String)>> {
    curves
        .iter()
        .map(|c| {
            c.curve
                .rows
                .iter()
                .filter_map(|r| value(r).map(|(y, ci)| (r.offered, y, ci, tip(&c.label, r))))
                .collect()
        })
        .collect()
}

/// The x axis' title.
const OFFERED: &str = "offered load (flits/node/cycle)";

/// The largest offered load of the curves.
fn x_max(curves: &[Drawn]) -> f64 {
    curves
        .iter()
        .flat_map(|c| &c.curve.rows)
        .map(|r| r.offered)
        .filter(|x| x.is_finite())
        .fold(0.0, f64::max)
}

/// The accepted-throughput plot, with each curve's saturation load (`marks`: curve id, look,
/// saturation flits, accepted flits there) as a diamond.
fn throughput_plot(curves: &[Drawn], marks: &[(String, Look, f64, f64)]) -> String {
    let pts = points(curves, |r| {
        r.accepted
            .is_finite()
            .then_some((r.accepted, r.accepted_ci))
    });
    let top = pts.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let x = Axis::linear(OFFERED, x_max(curves));
    let mut plot = Plot::new(
        SIZE.0,
        SIZE.1,
        x,
        Axis::linear("accepted load (flits/node/cycle)", top),
    );
    for (c, p) in curves.iter().zip(&pts) {
        plot.curve(&c.id, c.look, p);
    }
    for (id, look, sat, acc) in marks {
        if !plot.shows(*sat, *acc) {
            continue;
        }
        let (x, y) = (plot.px(*sat), plot.py(*acc));
        plot.push(&format!(
            "<g class=\"curve\" data-curve=\"{}\"><path class=\"sat-mark\" d=\"M{x:.1} {:.1}l6 6l-6 6l-6 -6z\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" data-tip=\"saturation: {} flits/node/cycle, accepted {}\"/></g>",
            esc(id),
            y - 6.0,
            super::svg::hex(*look),
            num(*sat),
            num(*acc)
        ));
    }
    plot.svg("plot throughput", "data-plot=\"throughput\"")
}

/// A row of saturation.csv: its scenario, swept keys' values, saturation load and accepted
/// load there (flits/node/cycle).
type Saturation = (String, Vec<String>, f64, f64);

/// The saturation rows of every directory.
fn saturation_rows(dirs: &[Dir]) -> Result<Vec<Saturation>> {
    let mut out = Vec::new();
    for d in dirs {
        let Some(csv) = Csv::read(&d.path, "saturation.csv", "saturation_flits")? else {
            continue;
        };
        let acc = csv.col("accepted_flits_at_saturation", "saturation.csv")?;
        for row in &csv.rows {
            out.push((
                row[0].clone(),
                csv.coords(row).to_vec(),
                Csv::num(row, csv.lead),
                Csv::num(row, acc),
            ));
        }
    }
    Ok(out)
}

/// The load-curves section, when some directory has curves.
pub fn section(dirs: &[Dir]) -> Result<Option<Section>> {
    let curves = drawn(dirs);
    if curves.is_empty() {
        return Ok(None);
    }
    let sat = saturation_rows(dirs)?;
    let marks: Vec<(String, Look, f64, f64)> = curves
        .iter()
        .filter_map(|c| {
            let s = sat.iter().find(|s| s.0 == c.scenario && s.1 == c.coords)?;
            Some((c.id.clone(), c.look, s.2, s.3))
        })
        .collect();
    let mut legend = String::from("<ul class=\"legend\">");
    for c in &curves {
        legend.push_str(&format!(
            "<li data-curve=\"{}\" title=\"click to hide or show\">{}<span>{}</span></li>",
            esc(&c.id),
            sample(c.look),
            esc(&c.label)
        ));
    }
    legend.push_str("</ul>");
    let body = format!(
        "<p class=\"note\">One curve per configuration ({}); error bars are 95% half-widths; saturated points are left out of latency{}. Hover a point for its values; click a legend entry to hide or show its curve.</p>\
         <div class=\"figure\">{legend}<div class=\"figures\"><figure><div class=\"scales\"><button data-scale=\"linear\" aria-pressed=\"true\">linear</button><button data-scale=\"log\" aria-pressed=\"false\">log</button></div>\
         <div class=\"scale-view\" data-scale=\"linear\">{}</div><div class=\"scale-view\" data-scale=\"log\" hidden>{}</div><figcaption>Mean latency against offered load</figcaption></figure>\
         <figure>{}<figcaption>Accepted against offered load</figcaption></figure></div></div>",
        source(dirs),
        if marks.is_empty() {
            ""
        } else {
            "; diamonds mark saturation.csv's saturation loads"
        },
        latency_plot(&curves, false),
        latency_plot(&curves, true),
        throughput_plot(&curves, &marks),
    );
    Ok(Some(Section {
        kind: "curves",
        id: "curves".into(),
        title: "Latency and throughput against offered load".into(),
        body,
    }))
}

/// Which table the curves come from.
fn source(dirs: &[Dir]) -> &'static str {
    let pooled = dirs
        .iter()
        .any(|d| kind_at(&d.path.join("pooled.csv")).is_ok_and(|k| k.is_some()));
    match pooled {
        true => "pooled.csv: the mean over the seeds, or summary.csv where there is none",
        false => "summary.csv",
    }
}

/// The saturation table of a directory with saturation.csv.
pub fn saturation_section(d: &Dir) -> Result<Option<Section>> {
    let Some(csv) = Csv::read(&d.path, "saturation.csv", "saturation_flits")? else {
        return Ok(None);
    };
    let body = super::page::table("saturation", &csv.header, &csv.rows);
    Ok(Some(Section {
        kind: "saturation",
        id: format!("saturation-{}", d.index),
        title: d.title("Saturation"),
        body: format!(
            "<p class=\"note\">Each configuration's saturation throughput found by bisection (saturation.csv), in flits/node/cycle.</p>{body}"
        ),
    }))
}
