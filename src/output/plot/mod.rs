//! SVG plots of results directories: latency against offered load (with its 95% confidence
//! interval as error bars), accepted against offered load, latency standard deviation and
//! channel traffic (paper 004 Figs. 8-11) against offered load. One curve per configuration
//! of each directory (pooled over the seeds when the run had several: `curves.rs`), labelled by
//! the swept keys' values; several directories are overlaid with each directory's label in
//! front. Saturated points are left out of the latency and standard-deviation plots. The
//! legend is drawn beside the plotting area, never over the data; a curve's colour, line style
//! and marker follow its swept keys' values in that order (`look.rs`). With a swept key to
//! panel by, each plot has a panel per value of it (`panels.rs`).

mod curves;
mod format;
mod heatmap;
mod heatmap_svg;
mod hist;
mod layout;
pub(crate) mod look;
mod panels;
mod scale;
mod table;

pub use curves::{
    Curve, DirCurves, Row, configuration_label, coordinate_label, panel_title, read_dir,
};
pub use format::Format;
pub use heatmap::{
    Heatmap, HeatmapSeries, HotLink, MAX_LINKS, SeriesLoad, heatmap_series, heatmaps,
};
pub(crate) use heatmap_svg::colour;

use crate::error::{Error, Result};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::ops::Range;
use std::path::{Path, PathBuf};

use look::Look;
pub use scale::Scale;

type Drawn = std::result::Result<(), Box<dyn std::error::Error>>;

/// A chart of offered load (x) against a y axis of coordinates `Y` (linear or logarithmic).
type Chart<'a, 'b, Y> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, Y>>;

/// A plot's points of a curve: (x, y, half-width of y; NaN for none).
type Points = dyn Fn(&[Row]) -> Vec<(f64, f64, f64)>;

/// The plotting area's size in pixels; the legend's column is added to its right.
const PLOT: (u32, u32) = (800, 560);

/// What `flitsim plot` was asked for beyond the directories.
#[derive(Clone, Debug, Default)]
pub struct PlotOptions {
    /// Replaces the plots' titles' common part (`--title`).
    pub title: Option<String>,
    /// One label per directory, replacing the directory labels (`--label`, repeatable).
    pub labels: Vec<String>,
    /// A swept key: each plot gets a panel per value of it (`--panels`).
    pub panels: Option<String>,
    /// The axes: `--x-range` on every plot, `--y-range` and `--log-y` on latency.svg.
    pub scale: Scale,
    /// The files' format (`--format`).
    pub format: Format,
}

/// A curve to draw: its full label, its points and its look (colour, line style, marker).
struct Series<'a> {
    label: String,
    rows: &'a [Row],
    look: Look,
}

/// What a plot draws: every curve on one pair of axes, or panels side by side under one
/// legend (its entries' rows are empty).
enum Layout<'a> {
    Single(Vec<Series<'a>>),
    Panels {
        panels: Vec<panels::Panel<'a>>,
        legend: Vec<Series<'a>>,
    },
}

/// Plots the directories' curves into `out` (latency.svg, throughput.svg, latency_std.svg,
/// traffic.svg; from one directory also latency_hist.svg and heatmap.svg where it has their
/// data), in `opts.format`; returns the files written.
pub fn plot(dirs: &[PathBuf], out: &Path, opts: &PlotOptions) -> Result<Vec<String>> {
    if !opts.labels.is_empty() && opts.labels.len() != dirs.len() {
        return Err(Error::Input(format!(
            "plot: --label given {} time(s) for {} directories; fix: give one --label per directory, in the same order",
            opts.labels.len(),
            dirs.len()
        )));
    }
    opts.scale.check()?;
    let read: Vec<DirCurves> = dirs.iter().map(|d| read_dir(d)).collect::<Result<_>>()?;
    let names = dir_labels(dirs, &read, &opts.labels);
    let layout = match &opts.panels {
        Some(key) => panels::layout(dirs, &read, &names, key)?,
        None => {
            let mut series = Vec::new();
            for (i, (name, d)) in names.iter().zip(&read).enumerate() {
                for (c, at) in d.curves.iter().zip(d.value_indices(None)) {
                    series.push(Series {
                        label: full_label(dirs.len() > 1, name, &c.label),
                        rows: &c.rows,
                        look: look_at(dirs.len() > 1, i, &at),
                    });
                }
            }
            Layout::Single(series)
        }
    };
    let mut extra = Vec::new();
    if let ([dir], [curves]) = (dirs, &read[..])
        && let Some(dists) = hist::read(dir, curves)?
        && !dists.is_empty()
    {
        let caption = match opts.title.as_deref() {
            Some(t) => format!("{t}: latency distribution"),
            None => "Latency distribution at each load below saturation".to_string(),
        };
        let mut svg = String::new();
        hist::draw(&mut svg, &dists, &caption)
            .map_err(|e| Error::Io(format!("{}: {e}", out.display())))?;
        extra.push(("latency_hist.svg".to_string(), look::dash_lines(svg)));
    }
    if let [dir] = dirs {
        let caption = match opts.title.as_deref() {
            Some(t) => format!("{t}: link utilisation"),
            None => "Link utilisation at the highest load below saturation".to_string(),
        };
        if let Some(svg) = heatmap::heatmap_svg(dir, &caption)? {
            extra.push(("heatmap.svg".to_string(), svg));
        }
    }
    let files = write_plots(out, &layout, opts.title.as_deref(), opts.scale, extra)?;
    format::write(out, files, opts.format)
}

/// A curve's look: from its directory's place `dir` among `several`, then its swept keys'
/// values' places `at` (see [`Look::of`]).
pub(crate) fn look_at(several: bool, dir: usize, at: &[usize]) -> Look {
    match several {
        true => Look::of(&[&[dir], at].concat()),
        false => Look::of(at),
    }
}

/// A curve's label in the legend: its directory's label `name` in front of its own when there
/// are `several` directories, its own alone, or the directory's when its own is empty.
pub(crate) fn full_label(several: bool, name: &str, label: &str) -> String {
    match (several, name.is_empty(), label.is_empty()) {
        (false, _, false) => label.to_string(),
        (_, _, true) => name.to_string(),
        (true, true, false) => label.to_string(),
        (true, false, false) => format!("{name}: {label}"),
    }
}

/// Each directory's label: `--label`, else its scenario name, else (when two directories
/// share a scenario name or a folder name) its path.
pub(crate) fn dir_labels(dirs: &[PathBuf], read: &[DirCurves], given: &[String]) -> Vec<String> {
    if !given.is_empty() {
        return given.to_vec();
    }
    let folder = |d: &PathBuf| d.file_name().map(|n| n.to_string_lossy().into_owned());
    dirs.iter()
        .zip(read)
        .enumerate()
        .map(|(i, (d, r))| {
            let clash =
                dirs.iter().zip(read).enumerate().any(|(j, (e, s))| {
                    j != i && (s.scenario == r.scenario || folder(e) == folder(d))
                });
            if clash || r.scenario.is_empty() {
                d.display().to_string()
            } else {
                r.scenario.clone()
            }
        })
        .collect()
}

/// The four plots' SVGs (latency.svg, throughput.svg, latency_std.svg, traffic.svg), then
/// `extra`'s, by file name (a failure to draw names `dir`).
fn write_plots(
    dir: &Path,
    layout: &Layout,
    title: Option<&str>,
    scale: Scale,
    extra: Vec<(String, String)>,
) -> Result<Vec<(String, String)>> {
    let io = |e: String| Error::Io(format!("{}: {e}", dir.display()));
    let caption = |what: &str| match title {
        Some(t) => format!("{t}: {what}"),
        None => format!("{}{}", what[..1].to_uppercase(), &what[1..]),
    };
    let mut files: Vec<(String, String)> = Vec::new();
    let mut emit = |name: &str, draw: &dyn Fn(&mut String) -> Drawn| -> Result<()> {
        let mut svg = String::new();
        draw(&mut svg).map_err(|e| io(e.to_string()))?;
        files.push((name.to_string(), look::dash_lines(svg)));
        Ok(())
    };
    emit("latency.svg", &|s| {
        draw(
            s,
            layout,
            &caption("mean latency against offered load"),
            (OFFERED, LATENCY),
            &latency_points,
            (false, scale),
        )
    })?;
    emit("throughput.svg", &|s| {
        let pts = |r: &[Row]| -> Vec<(f64, f64, f64)> {
            r.iter()
                .filter(|r| r.accepted.is_finite())
                .map(|r| (r.offered, r.accepted, r.accepted_ci))
                .collect()
        };
        draw(
            s,
            layout,
            &caption("accepted against offered load"),
            (OFFERED, "accepted load (flits/node/cycle)"),
            &pts,
            (true, scale.x_only()),
        )
    })?;
    emit("latency_std.svg", &|s| {
        let pts = |r: &[Row]| -> Vec<(f64, f64, f64)> {
            r.iter()
                .filter(|r| !r.saturated)
                .map(|r| (r.offered, r.std, f64::NAN))
                .collect()
        };
        draw(
            s,
            layout,
            &caption("latency standard deviation against offered load"),
            (OFFERED, "latency std dev (cycles)"),
            &pts,
            (false, scale.x_only()),
        )
    })?;
    emit("traffic.svg", &|s| {
        let pts = |r: &[Row]| -> Vec<(f64, f64, f64)> {
            r.iter().map(|r| (r.offered, r.traffic, f64::NAN)).collect()
        };
        draw(
            s,
            layout,
            &caption("mean channel traffic against offered load"),
            (OFFERED, "traffic (% of cycles a channel carries a flit)"),
            &pts,
            (false, scale.x_only()),
        )
    })?;
    files.extend(extra);
    Ok(files)
}

/// Draws one plot of `layout` under `caption` on axes `scale`, with a y = x diagonal when
/// `diagonal` is set.
fn draw(
    svg: &mut String,
    layout: &Layout,
    caption: &str,
    descs: (&str, &str),
    points: &Points,
    (diagonal, scale): (bool, Scale),
) -> Drawn {
    match layout {
        Layout::Single(series) => {
            let d = diagonal.then(|| scale.x_range(x_max(series)).end);
            draw_curves(svg, series, caption, descs, points, (d, scale))
        }
        Layout::Panels { panels, legend } => panels::draw(
            svg,
            panels,
            legend,
            caption,
            descs,
            (points, diagonal, scale),
        ),
    }
}

/// The plots' x axis.
const OFFERED: &str = "offered load (flits/node/cycle)";

/// The latency plots' y axis.
const LATENCY: &str = "latency (cycles)";

/// A latency curve's points: mean latency with its 95% half-width, saturated points left out.
fn latency_points(r: &[Row]) -> Vec<(f64, f64, f64)> {
    r.iter()
        .filter(|r| !r.saturated && r.latency.is_finite())
        .map(|r| (r.offered, r.latency, r.ci95))
        .collect()
}

/// An SVG of latency curves against offered load, drawn as `flitsim plot`'s latency.svg is
/// (colours, markers, error bars, the legend beside the plot; each curve's points in the order
/// given), under `caption`: `validate`'s validation.svg.
pub(crate) fn latency_svg(
    curves: &[Curve],
    caption: &str,
) -> std::result::Result<String, Box<dyn std::error::Error>> {
    let series: Vec<Series> = curves
        .iter()
        .enumerate()
        .map(|(i, c)| Series {
            label: c.label.clone(),
            rows: &c.rows,
            // Curves in pairs, a configuration's simulation and model: one colour, solid
            // and dashed.
            look: Look::of(&[i / 2, i % 2]),
        })
        .collect();
    let descs = (OFFERED, LATENCY);
    let mut svg = String::new();
    let axes_as_data = (None, Scale::default());
    draw_curves(
        &mut svg,
        &series,
        caption,
        descs,
        &latency_points,
        axes_as_data,
    )?;
    Ok(look::dash_lines(svg))
}

/// The largest finite value (0 if none).
fn finite_max(v: impl Iterator<Item = f64>) -> f64 {
    v.filter(|x| x.is_finite()).fold(0.0, f64::max)
}

/// One plot: each curve's points (x, y, half-width; NaN or infinite values left out, a NaN
/// half-width drawn without an error bar) as lines with markers, an optional y = x diagonal up
/// to the given x, and the legend in a column to the right of the plotting area.
fn draw_curves(
    svg: &mut String,
    series: &[Series],
    caption: &str,
    descs: (&str, &str),
    points: &Points,
    (diagonal, scale): (Option<f64>, Scale),
) -> Drawn {
    let root =
        SVGBackend::with_string(svg, (PLOT.0 + legend_width(series), PLOT.1)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot_area, legend_area) = root.split_horizontally(PLOT.0);
    let area = Area {
        on: &plot_area,
        caption,
        size: 22,
    };
    draw_on(area, series, descs, points, (diagonal, scale))?;
    legend(&legend_area, series)?;
    root.present()?;
    Ok(())
}

/// Where a plot (or panel) is drawn: its area, its caption and the caption's type size.
struct Area<'a, 'b> {
    on: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &'a str,
    size: u32,
}

/// Draws `series` on `area`'s axes, as `scale` bounds them (x from 0 to 5% past the largest
/// load, y from 0 to 10% above the highest point, unless given; y logarithmic under
/// `--log-y`), with the diagonal up to `diagonal` if given.
fn draw_on(
    area: Area,
    series: &[Series],
    descs: (&str, &str),
    points: &Points,
    (diagonal, scale): (Option<f64>, Scale),
) -> Drawn {
    let pts = series_points(series, points);
    let xr = scale.x_range(x_max(series));
    let yr = scale.y_range(&pts, y_max(&pts, diagonal));
    let pts = scale.keep(pts, &xr, &yr);
    let (lo, hi) = (yr.start, yr.end);
    if scale.log_y {
        let mut chart = axes(area, descs, xr, (yr.log_scale(), true))?;
        draw_lines(&mut chart, series, &pts, (diagonal, lo..hi))?;
    } else {
        let mut chart = axes(area, descs, xr, (yr, false))?;
        draw_lines(&mut chart, series, &pts, (diagonal, lo..hi))?;
    }
    Ok(())
}

/// Each series' points (x, y, half-width), those with a NaN or infinite x or y left out.
fn series_points(series: &[Series], points: &Points) -> Vec<Vec<(f64, f64, f64)>> {
    series
        .iter()
        .map(|c| {
            points(c.rows)
                .into_iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .collect()
        })
        .collect()
}

/// The x axis' end: 5% past the largest offered load of the series.
fn x_max(series: &[Series]) -> f64 {
    finite_max(series.iter().flat_map(|c| c.rows).map(|r| r.offered)) * 1.05
}

/// The y axis' end: the diagonal's end, else 10% above the highest point or error bar.
fn y_max(pts: &[Vec<(f64, f64, f64)>], diagonal: Option<f64>) -> f64 {
    let top = |&(_, y, c): &(f64, f64, f64)| if c.is_finite() { y + c } else { y };
    match diagonal {
        Some(d) => d,
        None => finite_max(pts.iter().flatten().map(top)) * 1.1,
    }
}

/// The legend column's width in pixels, from its longest label.
fn legend_width(series: &[Series]) -> u32 {
    let longest = series
        .iter()
        .map(|c| c.label.chars().count())
        .max()
        .unwrap_or(0);
    (longest as u32 * 8 + 50).clamp(120, 480)
}

/// Draws on `chart` the y = x diagonal up to `diagonal` if given, then each series' points
/// (`pts`, beside `series`) as a line with its error bars and markers in the series' style.
fn draw_lines<Y: Ranged<ValueType = f64>>(
    chart: &mut Chart<'_, '_, Y>,
    series: &[Series],
    pts: &[Vec<(f64, f64, f64)>],
    (diagonal, y): (Option<f64>, Range<f64>),
) -> Drawn {
    if let Some(d) = diagonal {
        chart.draw_series(LineSeries::new([(0.0, 0.0), (d, d)], BLACK.mix(0.3)))?;
    }
    // Error bars end at the axis' ends (a log axis has no 0).
    let bar = |c: f64, y0: f64| ((y0 - c).max(y.start), (y0 + c).min(y.end));
    for (c, p) in series.iter().zip(pts) {
        let (color, m) = (c.look.colour(), c.look.marker());
        let line = p.iter().map(|&(x, y, _)| (x, y));
        chart.draw_series(LineSeries::new(line, c.look.line()))?;
        chart.draw_series(p.iter().filter(|q| q.2.is_finite()).map(|&(x, y0, c)| {
            let (lo, hi) = bar(c, y0);
            ErrorBar::new_vertical(x, lo, y0, hi, color.filled(), 6)
        }))?;
        let at = p.iter().map(|&(x, y, _)| (x, y));
        match m {
            0 => chart.draw_series(at.map(|q| Circle::new(q, 3, color.filled())))?,
            1 => chart.draw_series(at.map(|q| TriangleMarker::new(q, 4, color.filled())))?,
            2 => chart.draw_series(at.map(|q| Cross::new(q, 4, color.stroke_width(2))))?,
            _ => chart.draw_series(at.map(|q| Circle::new(q, 3, color.stroke_width(1))))?,
        };
    }
    Ok(())
}

/// The legend: one line per curve (a line sample with its marker, then the label), in the
/// column beside the plot.
fn legend(area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>, series: &[Series]) -> Drawn {
    let font = ("sans-serif", 14).into_font().color(&BLACK);
    for (i, c) in series.iter().enumerate() {
        let (color, m) = (c.look.colour(), c.look.marker());
        let y = 60 + 20 * i as i32;
        area.draw(&PathElement::new(vec![(5, y), (30, y)], c.look.line()))?;
        look::marker(area, (17, y), color, m)?;
        area.draw(&Text::new(c.label.clone(), (38, y - 7), font.clone()))?;
    }
    Ok(())
}

/// The axes every flitsim plot (or panel) has on `area`: its caption, the axis titles, and the
/// mesh over `x` × `y` (y linear or logarithmic).
fn axes<'a, 'b, Y>(
    area: Area<'a, 'b>,
    (x_desc, y_desc): (&str, &str),
    x: Range<f64>,
    (y, log): (Y, bool),
) -> std::result::Result<Chart<'a, 'b, Y::CoordDescType>, Box<dyn std::error::Error>>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area.on)
        .caption(area.caption, ("sans-serif", area.size))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        // A log axis' light lines crowd below each power of 10: its labelled lines suffice.
        .y_max_light_lines(if log { 0 } else { 10 })
        .draw()?;
    Ok(chart)
}
