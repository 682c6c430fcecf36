//! The per-link heatmap section: each configuration's network drawn once on its topology's
//! layout (`plot::heatmap_series`), its links recoloured by the page's script for the offered
//! load chosen, and each load's hottest links listed.

use super::page::{load_selector, table};
use super::{Dir, Section, esc};
use crate::error::Result;
use crate::output::num;
use crate::output::plot::{HeatmapSeries, colour, heatmap_series};

/// Utilisations are embedded to this many steps of 1 flit/cycle, and the palette has a colour
/// for each step (the plots' colour scale, so the page and heatmap.svg agree).
const STEPS: u32 = 1000;

/// The heatmap section of directory `d`, or None when it has no channels.csv or its networks
/// are too large to draw.
pub fn section(d: &Dir) -> Result<Option<Section>> {
    let series = heatmap_series(&d.path)?;
    if series.is_empty() {
        return Ok(None);
    }
    let id = format!("heatmap-{}", d.index);
    let mut panels: Vec<(String, String)> = Vec::new();
    for s in &series {
        for load in &s.loads {
            let label = label(load.offered);
            let html = hottest_table(s, load);
            match panels.iter_mut().find(|p| p.0 == label) {
                Some(p) => p.1.push_str(&html),
                None => panels.push((label, html)),
            }
        }
    }
    for p in &mut panels {
        p.1 = format!("<div class=\"figures\">{}</div>", p.1);
    }
    let figures: String = series
        .iter()
        .map(|s| format!("<figure class=\"heatmap\">{}</figure>", s.svg))
        .collect();
    // The drawings go under the selector's drop-down, above its panels (the hottest links).
    let figures = format!("<div class=\"figures heatmaps\" data-loads=\"{id}\">{figures}</div>");
    let selector =
        load_selector(&id, &panels).replacen("</label>", &format!("</label>{figures}"), 1);
    let body = format!(
        "<p class=\"note\">Each network link coloured by its utilisation, the flits that crossed it per cycle in the measurement window (channels.csv's flits_per_cycle, the mean over the seeds), on a scale from 0 to 1 flits/cycle at every load; hover a link for its value. The drawings follow the offered load chosen.</p>{selector}<script type=\"application/json\" id=\"{id}-data\">{}</script>",
        data(&series)
    );
    Ok(Some(Section {
        kind: "heatmap",
        id: format!("heatmap-section-{}", d.index),
        title: d.title("Link utilisation"),
        body,
    }))
}

/// A load's label in the selector.
fn label(offered: f64) -> String {
    format!("{} flits/node/cycle", num(offered))
}

/// A configuration's hottest links at one load, as a captioned table.
fn hottest_table(s: &HeatmapSeries, load: &crate::output::plot::SeriesLoad) -> String {
    let header: Vec<String> = ["channel", "link", "dim", "dir", "flits/cycle"]
        .map(String::from)
        .to_vec();
    let rows: Vec<Vec<String>> = load
        .hottest
        .iter()
        .map(|h| {
            vec![
                h.channel.to_string(),
                format!("{}→{}", h.src, h.dst),
                h.dim.to_string(),
                h.dir.clone(),
                format!("{:.3}", h.util),
            ]
        })
        .collect();
    let mark = if load.saturated { " (saturated)" } else { "" };
    let name = if s.config.is_empty() {
        format!("hottest links{mark}")
    } else {
        format!("{}{mark}: hottest links", s.config)
    };
    format!(
        "<figure class=\"hottest\"><figcaption>{}</figcaption>{}</figure>",
        esc(&name),
        table("hottest", &header, &rows)
    )
}

/// The JSON the script recolours from: the palette (a colour per step of utilisation) and,
/// per configuration, each load's label and utilisations in steps.
fn data(series: &[HeatmapSeries]) -> String {
    let palette: Vec<String> = (0..=STEPS)
        .map(|i| format!("\"{}\"", colour(f64::from(i) / f64::from(STEPS))))
        .collect();
    let mut json = format!(
        "{{\"steps\":{STEPS},\"palette\":[{}],\"series\":[",
        palette.join(",")
    );
    for (i, s) in series.iter().enumerate() {
        if i > 0 {
            json.push(',');
        }
        json.push('{');
        for (j, load) in s.loads.iter().enumerate() {
            let steps: Vec<String> = load.utils.iter().map(|&u| step(u).to_string()).collect();
            let key = label(load.offered).replace('"', "");
            let sep = if j > 0 { "," } else { "" };
            json.push_str(&format!("{sep}\"{key}\":[{}]", steps.join(",")));
        }
        json.push('}');
    }
    json.push_str("]}");
    json
}

/// Utilisation `u` in steps of the palette (0 when not finite).
fn step(u: f64) -> u32 {
    match u.is_finite() {
        true => (u.clamp(0.0, 1.0) * f64::from(STEPS)).round() as u32,
        false => 0,
    }
}
