//! Model against simulation (validation.csv, in directories `flitsim validate` wrote): per
//! configuration, the simulated mean latency (the seeds' mean of the points `validate`
//! shows) and the model's against offered load, drawn as validation.svg pairs them (one
//! colour, the simulation solid and the model dashed), and the table's rows.

use super::svg::{Axis, Plot, sample};
use super::tables::{Csv, mean};
use super::{Dir, Section, esc};
use crate::error::Result;
use crate::output::num;
use crate::output::plot::look::Look;

/// A configuration's load in validation.csv: its rate, the seeds' simulated latencies that
/// `validate` shows, and the model's latency (NaN past its saturation).
type Load = (String, Vec<f64>, f64);

/// Per configuration (its swept keys' values), its loads in validation.csv.
fn configurations(csv: &Csv) -> Result<Vec<(Vec<String>, Vec<Load>)>> {
    let f = "validation.csv";
    let (lat, shown, sim_sat) = (
        csv.col("latency_mean", f)?,
        csv.col("shown", f)?,
        csv.col("sim_saturated", f)?,
    );
    let (model, model_sat) = (csv.col("model_latency", f)?, csv.col("model_saturated", f)?);
    // Per configuration, per rate: the shown simulated latencies and the model's.
    let mut configs: Vec<(Vec<String>, Vec<Load>)> = Vec::new();
    for row in &csv.rows {
        let coords = csv.coords(row).to_vec();
        let at = match configs.iter().position(|c| c.0 == coords) {
            Some(i) => i,
            None => {
                configs.push((coords, Vec::new()));
                configs.len() - 1
            }
        };
        let rate = row[csv.lead].clone();
        let sim = (row[shown] == "true" && row[sim_sat] != "true").then(|| Csv::num(row, lat));
        let m = if row[model_sat] == "true" {
            f64::NAN
        } else {
            Csv::num(row, model)
        };
        let loads = &mut configs[at].1;
        match loads.iter_mut().find(|l| l.0 == rate) {
            Some(l) => l.1.extend(sim),
            None => loads.push((rate, sim.into_iter().collect(), m)),
        }
    }
    Ok(configs)
}

/// validation.csv's rows as a table: the swept keys, the rate and seed, the two latencies,
/// the relative error and the two multiplexing degrees.
fn table(csv: &Csv) -> String {
    let keep: Vec<usize> = [
        "rate",
        "seed",
        "latency_mean",
        "model_latency",
        "rel_error",
        "vbar",
        "model_vbar",
    ]
    .iter()
    .filter_map(|c| csv.header.iter().position(|h| h == c))
    .collect();
    let header: Vec<String> = (1..csv.lead)
        .chain(keep.iter().copied())
        .map(|i| csv.header[i].clone())
        .collect();
    let rows: Vec<Vec<String>> = csv
        .rows
        .iter()
        .map(|r| {
            (1..csv.lead)
                .chain(keep.iter().copied())
                .map(|i| r[i].clone())
                .collect()
        })
        .collect();
    super::page::table("validation", &header, &rows)
}

/// The validation section of a directory with validation.csv.
pub fn section(d: &Dir) -> Result<Option<Section>> {
    let Some(csv) = Csv::read(&d.path, "validation.csv", "rate")? else {
        return Ok(None);
    };
    let configs = configurations(&csv)?;
    let mut legend = String::from("<ul class=\"legend\">");
    let mut curves = Vec::new();
    let mut top = 0.0f64;
    let mut x_top = 0.0f64;
    for (i, (coords, loads)) in configs.iter().enumerate() {
        let label = d.config_label(coords);
        let x = |rate: &str| d.offered(coords, rate).unwrap_or(f64::NAN);
        let sim: Vec<(f64, f64, f64, String)> = loads
            .iter()
            .filter(|l| !l.1.is_empty())
            .map(|l| {
                let y = mean(&l.1);
                let tip = format!(
                    "{label}, simulation: rate {}; latency {} cycles",
                    l.0,
                    num(y)
                );
                (x(&l.0), y, f64::NAN, tip)
            })
            .collect();
        let model: Vec<(f64, f64, f64, String)> = loads
            .iter()
            .filter(|l| l.2.is_finite())
            .map(|l| {
                let tip = format!("{label}, model: rate {}; latency {} cycles", l.0, num(l.2));
                (x(&l.0), l.2, f64::NAN, tip)
            })
            .collect();
        for (what, pts, dash) in [("simulation", sim, 0), ("model", model, 1)] {
            let look = Look::of(&[i, dash]);
            let id = format!("v{}-{i}-{dash}", d.index);
            legend.push_str(&format!(
                "<li data-curve=\"{}\">{}<span>{}</span></li>",
                esc(&id),
                sample(look),
                esc(&format!("{label}: {what}"))
            ));
            top = pts.iter().map(|p| p.1).fold(top, f64::max);
            x_top = pts
                .iter()
                .map(|p| p.0)
                .filter(|x| x.is_finite())
                .fold(x_top, f64::max);
            curves.push((id, look, pts));
        }
    }
    legend.push_str("</ul>");
    let x = Axis::linear("offered load (flits/node/cycle)", x_top);
    let mut plot = Plot::new(600.0, 400.0, x, Axis::linear("latency (cycles)", top));
    for (id, look, pts) in &curves {
        plot.curve(id, *look, pts);
    }
    let body = format!(
        "<p class=\"note\">The analytical model against the simulation at the same loads (validation.csv): the simulation's mean latency over the seeds at the loads `validate` shows, the model's where it is below its saturation.</p>\
         <div class=\"figure\">{legend}<figure>{}</figure></div><details><summary>validation.csv</summary>{}</details>",
        plot.svg("plot validation", "data-plot=\"validation\""),
        table(&csv)
    );
    Ok(Some(Section {
        kind: "validation",
        id: format!("validation-{}", d.index),
        title: d.title("Model against simulation"),
        body,
    }))
}
