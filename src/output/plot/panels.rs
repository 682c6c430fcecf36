//! Plots in panels: one panel per value of a swept key, side by side (in rows of at most
//! three), each titled by the key and its value (`pattern = uniform`) with its own axes and y
//! range, its curves the configurations of that value labelled by the other swept keys; a
//! label has the same look (colour, line style, marker: by the other keys' values) in every
//! panel, and one legend beside the panels names them all.

use super::{
    Area, DirCurves, Drawn, Layout, Points, Scale, Series, draw_on, full_label, legend,
    legend_width, look_at, panel_title, x_max,
};
use crate::error::{Error, Result};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::{Path, PathBuf};

/// A panel's size in pixels.
const PANEL: (u32, u32) = (560, 440);

/// Panels per row at most.
const COLUMNS: usize = 3;

/// The height in pixels of the plot's caption above the panels.
const CAPTION: u32 = 40;

/// A panel: its title and its curves.
pub(super) struct Panel<'a> {
    title: String,
    series: Vec<Series<'a>>,
}

/// The panels of the directories' curves by the swept key `key` (in the order of the values'
/// first curves), and the legend of their labels; refused when a directory does not sweep
/// `key`.
pub(super) fn layout<'a>(
    dirs: &[PathBuf],
    read: &'a [DirCurves],
    names: &[String],
    key: &str,
) -> Result<Layout<'a>> {
    let mut panels: Vec<Panel> = Vec::new();
    let mut entries: Vec<Series> = Vec::new();
    for (index, ((dir, d), name)) in dirs.iter().zip(read).zip(names).enumerate() {
        let Some(split) = d.split_by(key) else {
            return Err(refusal(read, dir, d, key));
        };
        let at = d.value_indices(Some(key));
        for ((c, (value, own)), at) in d.curves.iter().zip(split).zip(at) {
            let label = full_label(dirs.len() > 1, name, &own);
            let look = look_at(dirs.len() > 1, index, &at);
            if !entries.iter().any(|e| e.label == label) {
                entries.push(Series {
                    label: label.clone(),
                    rows: &[],
                    look,
                });
            }
            let title = panel_title(key, &value);
            let at = match panels.iter().position(|p| p.title == title) {
                Some(i) => i,
                None => {
                    panels.push(Panel {
                        title,
                        series: Vec::new(),
                    });
                    panels.len() - 1
                }
            };
            panels[at].series.push(Series {
                label,
                rows: &c.rows,
                look,
            });
        }
    }
    Ok(Layout::Panels {
        panels,
        legend: entries,
    })
}

/// The refusal of `--panels key` that directory `dir` (read as `d`) does not sweep, naming its
/// swept keys and those every directory sweeps.
fn refusal(read: &[DirCurves], dir: &Path, d: &DirCurves, key: &str) -> Error {
    let swept = match d.keys.len() {
        0 => "it sweeps no key".to_string(),
        _ => format!("its swept keys: {}", d.keys.join(", ")),
    };
    let common: Vec<&str> = d
        .keys
        .iter()
        .filter(|k| read.iter().all(|r| r.keys.contains(k)))
        .map(String::as_str)
        .collect();
    let fix = match (common.is_empty(), read.len()) {
        (true, 1) => "leave out --panels".to_string(),
        (true, _) => "leave out --panels (no key is swept by every directory given)".to_string(),
        (false, 1) => format!("give --panels one of {}", common.join(", ")),
        (false, _) => format!(
            "give --panels a key every directory sweeps: {}",
            common.join(", ")
        ),
    };
    Error::Input(format!(
        "plot: --panels {key} is not a swept key of {} ({swept}); fix: {fix}",
        dir.display()
    ))
}

/// One plot in panels: the caption over them, each panel's curves on its own axes (x and y
/// ranges from its own points; the y = x diagonal when `diagonal` is set), and the legend in a
/// column to the right of the panels.
pub(super) fn draw(
    svg: &mut String,
    panels: &[Panel],
    entries: &[Series],
    caption: &str,
    descs: (&str, &str),
    (points, diagonal, scale): (&Points, bool, Scale),
) -> Drawn {
    let columns = panels.len().clamp(1, COLUMNS);
    let rows = panels.len().div_ceil(columns).max(1);
    let width = PANEL.0 * columns as u32;
    let size = (
        width + legend_width(entries),
        CAPTION + PANEL.1 * rows as u32,
    );
    let root = SVGBackend::with_string(svg, size).into_drawing_area();
    root.fill(&WHITE)?;
    let (main, legend_area) = root.split_horizontally(width);
    let (top, grid) = main.split_vertically(CAPTION);
    top.draw(&Text::new(
        caption.to_string(),
        (width as i32 / 2, CAPTION as i32 / 2),
        ("sans-serif", 22)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center)),
    ))?;
    for (panel, cell) in panels.iter().zip(grid.split_evenly((rows, columns))) {
        let d = diagonal.then(|| scale.x_range(x_max(&panel.series)).end);
        let area = Area {
            on: &cell,
            caption: &panel.title,
            size: 18,
        };
        draw_on(area, &panel.series, descs, points, (d, scale))?;
    }
    legend(&legend_area, entries)?;
    root.present()?;
    Ok(())
}
