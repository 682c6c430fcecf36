//! SVG plots of a results directory, from its summary.csv: latency against offered load (with
//! the 95% confidence interval as error bars), accepted against offered load, latency standard
//! deviation and channel traffic (paper 004 Figs. 8-11) against offered load, one series per
//! traffic variant and seed; or the same plots over several directories, one series each.
//! Saturated points are left out of the latency and standard-deviation plots.

use crate::error::{Error, Result};
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// One summary row, as the plots need it.
struct Row {
    offered: f64,
    accepted: f64,
    latency: f64,
    ci95: f64,
    std: f64,
    /// Mean channel traffic, % of cycles (NaN in results written before the column existed).
    traffic: f64,
    saturated: bool,
}

type Series = BTreeMap<String, Vec<Row>>;
type Drawn = std::result::Result<(), Box<dyn std::error::Error>>;

/// Writes latency.svg, throughput.svg, latency_std.svg and traffic.svg into `dir` from
/// `dir/summary.csv`. Returns the files.
pub fn plot_dir(dir: &Path) -> Result<Vec<String>> {
    let series = read_summary(&dir.join("summary.csv"))?;
    write_plots(dir, &series)
}

/// The same plots over several results directories, one series per directory (and per
/// variant within it), written into `out`.
pub fn plot_dirs(dirs: &[std::path::PathBuf], out: &Path) -> Result<Vec<String>> {
    let mut all = Series::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        let series = read_summary(&dir.join("summary.csv"))?;
        let several = series.len() > 1;
        for (label, rows) in series {
            let key = if several {
                format!("{name} {label}")
            } else {
                name.clone()
            };
            all.insert(key, rows);
        }
    }
    write_plots(out, &all)
}

fn write_plots(dir: &Path, series: &Series) -> Result<Vec<String>> {
    let io = |e: String| Error::Io(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| io(e.to_string()))?;
    let mut files = Vec::new();
    let mut emit = |name: &str, draw: &dyn Fn(&Path) -> Drawn| -> Result<()> {
        let path = dir.join(name);
        draw(&path).map_err(|e| io(e.to_string()))?;
        files.push(path.display().to_string());
        Ok(())
    };
    emit("latency.svg", &|p| latency_plot(p, series))?;
    emit("throughput.svg", &|p| throughput_plot(p, series))?;
    emit("latency_std.svg", &|p| {
        value_plot(
            p,
            series,
            "Latency standard deviation against offered load",
            "latency std dev (cycles)",
            |r| (!r.saturated).then_some(r.std),
        )
    })?;
    if !series.values().flatten().any(|r| r.traffic.is_finite()) {
        // Results written before summary.csv had the column.
        return Ok(files);
    }
    emit("traffic.svg", &|p| {
        value_plot(
            p,
            series,
            "Mean channel traffic against offered load",
            "traffic (% of cycles a channel carries a flit)",
            |r| Some(r.traffic),
        )
    })?;
    Ok(files)
}

/// Rows grouped by series label (seed and traffic variant), in file order.
fn read_summary(path: &Path) -> Result<Series> {
    let bad = |m: String| {
        Error::Input(format!(
            "{}: {m}; fix: give a directory written by `flitsim run`",
            path.display()
        ))
    };
    let mut r = csv::Reader::from_path(path).map_err(|e| bad(e.to_string()))?;
    let header = r.headers().map_err(|e| bad(e.to_string()))?.clone();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| bad(format!("no column {name}")))
    };
    let (off, acc, lat, ci, sat) = (
        col("offered_flits")?,
        col("accepted_flits")?,
        col("latency_mean")?,
        col("latency_ci95")?,
        col("saturated")?,
    );
    let optional = |name: &str| header.iter().position(|h| h == name).unwrap_or(usize::MAX);
    let (std, traffic) = (optional("latency_std"), optional("traffic_pct"));
    let labels: Vec<usize> = ["seed", "pattern_fraction", "hotspot_fraction"]
        .iter()
        .filter_map(|n| header.iter().position(|h| h == *n))
        .collect();
    let mut series: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| bad(e.to_string()))?;
        let f = |i: usize| rec.get(i).unwrap_or("").parse::<f64>().unwrap_or(f64::NAN);
        let label = labels
            .iter()
            .map(|&i| format!("{}={}", &header[i], rec.get(i).unwrap_or("")))
            .filter(|l| !l.ends_with('='))
            .collect::<Vec<_>>()
            .join(" ");
        series.entry(label).or_default().push(Row {
            offered: f(off),
            accepted: f(acc),
            latency: f(lat),
            ci95: f(ci),
            std: f(std),
            traffic: f(traffic),
            saturated: rec.get(sat) == Some("true"),
        });
    }
    if series.is_empty() {
        return Err(bad("no rows".into()));
    }
    Ok(series)
}

fn finite_max(v: impl Iterator<Item = f64>) -> f64 {
    v.filter(|x| x.is_finite()).fold(0.0, f64::max)
}

fn latency_plot(
    path: &Path,
    series: &Series,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let stable = |rows: &[Row]| -> Vec<(f64, f64, f64)> {
        rows.iter()
            .filter(|r| !r.saturated && r.latency.is_finite())
            .map(|r| {
                (
                    r.offered,
                    r.latency,
                    if r.ci95.is_finite() { r.ci95 } else { 0.0 },
                )
            })
            .collect()
    };
    let xmax = finite_max(series.values().flatten().map(|r| r.offered)) * 1.05;
    let ymax = finite_max(
        series
            .values()
            .flat_map(|rows| stable(rows))
            .map(|(_, y, c)| y + c),
    ) * 1.1;
    svg_chart(
        path,
        "Mean latency against offered load",
        ("offered load (flits/node/cycle)", "latency (cycles)"),
        (xmax, ymax.max(1.0)),
        |chart| {
            for (i, (label, rows)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let pts = stable(rows);
                chart
                    .draw_series(LineSeries::new(pts.iter().map(|&(x, y, _)| (x, y)), color))?
                    .label(if label.is_empty() {
                        "simulation"
                    } else {
                        label
                    })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
                chart.draw_series(pts.iter().map(|&(x, y, c)| {
                    ErrorBar::new_vertical(x, y - c, y, y + c, color.filled(), 6)
                }))?;
            }
            Ok(())
        },
    )
}

/// One value of each row against offered load, as lines with dots (rows where `value` gives
/// None or NaN are left out).
fn value_plot(
    path: &Path,
    series: &Series,
    caption: &str,
    y_desc: &str,
    value: impl Fn(&Row) -> Option<f64>,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let pts = |rows: &[Row]| -> Vec<(f64, f64)> {
        rows.iter()
            .filter_map(|r| value(r).map(|v| (r.offered, v)))
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let xmax = finite_max(series.values().flatten().map(|r| r.offered)) * 1.05;
    let ymax = finite_max(series.values().flat_map(|rows| pts(rows)).map(|p| p.1)) * 1.1;
    svg_chart(
        path,
        caption,
        ("offered load (flits/node/cycle)", y_desc),
        (xmax, ymax.max(1.0)),
        |chart| {
            for (i, (label, rows)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let p = pts(rows);
                chart
                    .draw_series(LineSeries::new(p.iter().copied(), color))?
                    .label(if label.is_empty() {
                        "simulation"
                    } else {
                        label
                    })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
                chart.draw_series(p.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
            }
            Ok(())
        },
    )
}

fn throughput_plot(
    path: &Path,
    series: &Series,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let xmax = finite_max(series.values().flatten().map(|r| r.offered)) * 1.05;
    svg_chart(
        path,
        "Accepted against offered load",
        (
            "offered load (flits/node/cycle)",
            "accepted load (flits/node/cycle)",
        ),
        (xmax, xmax),
        |chart| {
            chart.draw_series(LineSeries::new([(0.0, 0.0), (xmax, xmax)], BLACK.mix(0.3)))?;
            for (i, (label, rows)) in series.iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                let pts: Vec<(f64, f64)> = rows
                    .iter()
                    .filter(|r| r.accepted.is_finite())
                    .map(|r| (r.offered, r.accepted))
                    .collect();
                chart
                    .draw_series(LineSeries::new(pts.iter().copied(), color))?
                    .label(if label.is_empty() {
                        "simulation"
                    } else {
                        label
                    })
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
                chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            }
            Ok(())
        },
    )
}

/// The drawing surface and axes shared by every flitsim plot: an 800x560 SVG, white, with a
/// caption and axis titles, over [0, xmax] × [0, ymax]. `draw` adds the series; the legend is
/// drawn after it.
pub(crate) fn svg_chart(
    path: &Path,
    caption: &str,
    (x_desc, y_desc): (&str, &str),
    (xmax, ymax): (f64, f64),
    draw: impl FnOnce(
        &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    ) -> std::result::Result<(), Box<dyn std::error::Error>>,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (800, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(65)
        .build_cartesian_2d(0.0..xmax.max(1e-9), 0.0..ymax.max(1e-9))?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()?;
    draw(&mut chart)?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
