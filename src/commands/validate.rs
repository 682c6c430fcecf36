//! `validate`: simulation and model on the same loads.

use super::model::{model_of, rows_of};
use super::{commit, load_experiment, open_out, out_lines, run_points};
use crate::RunArgs;
use flitsim::Result;
use flitsim::experiment::Experiment;
use flitsim::experiment::directory::Owner;
use flitsim::model::Model;
use flitsim::output::experiment_tables::{
    Made, Maker, chunks, made, with_coordinates, write_per_configuration,
};
use flitsim::output::plot::configuration_label;
use flitsim::output::terminal;
use flitsim::output::validation::{
    ModelRow, PlotConfiguration, model_csv, validation_channels_table, validation_csv,
    validation_distance_csv, validation_plot, validation_vc_csv,
};
use flitsim::stats::PointResult;

/// Runs the experiment and compares it with each configuration's latency model and/or its
/// channel rates and mean distances, writing the comparison files with the run's tables as one
/// set and, unless `--quiet`, the tables.
pub fn validate(args: &RunArgs) -> Result<()> {
    let exp = load_experiment(args)?;
    super::refuse_trace(&exp, "validate")?;
    let points = exp.points();
    // Channel rates and mean distances side by side wherever every point has them; a latency
    // model is needed only when they are missing.
    let channels = points
        .iter()
        .map(|&p| flitsim::model::LinkRates::for_scenario(exp.scenario(p)))
        .collect::<Option<Vec<_>>>();
    let models = exp
        .configurations
        .iter()
        .map(|c| model_of(&args.scenario, &c.scenario))
        .collect::<Result<Vec<_>>>();
    let models = match (models, &channels) {
        (Ok(m), _) => Some(m),
        (Err(_), Some(_)) => None,
        (Err(e), None) => return Err(e),
    };
    if args.shard.is_some() {
        return Err(flitsim::Error::Input(
            "validate: --shard is for `flitsim run`; fix: run the shards with `flitsim run --shard I/N`, merge them, then validate the whole scenario".into(),
        ));
    }
    let dir = open_out(args, &exp, Owner::Run(exp.hash()))?;
    let all: Vec<usize> = (0..points.len()).collect();
    let outcome = run_points(args, &exp, &dir, &all)?;
    let results = &outcome.results;
    let mut extra = Vec::new();
    let mut print = Vec::new();
    if let Some(models) = &models {
        latency_files(&exp, results, models, &mut extra, &mut print)?;
    }
    if let Some(channels) = &channels {
        let rates: Vec<Vec<f64>> = points
            .iter()
            .zip(channels)
            .map(|(&p, c)| c.rates(exp.scenario(p), exp.rate(p), p.seed))
            .collect();
        let distance: Vec<f64> = points
            .iter()
            .map(|&p| flitsim::model::mean_distance(exp.scenario(p), p.seed).unwrap_or(f64::NAN))
            .collect();
        let names: Vec<&str> = channels.iter().map(|c| c.name()).collect();
        print.push(format!("channel rates: {}", dedup(names).join("; ")));
        print.extend(terminal::channels_table(results, &rates, &distance));
        let offsets = offsets(&exp);
        let distances = with_coordinates(&exp, results, &|_, c, r| {
            let at = offsets[c];
            Some(validation_distance_csv(r, &distance[at..at + r.len()]))
        });
        // A row per link and point: made as it is written, like channels.csv.
        let (exp, chunks) = (&exp, chunks(&exp, results));
        let maker: Maker = Box::new(move |w| {
            write_per_configuration(
                exp,
                &|c, w| {
                    let s = &exp.configurations[c].scenario;
                    let net = flitsim::network::Network::for_scenario(s);
                    let (r, at) = (chunks[c], offsets[c]);
                    validation_channels_table(r, &net.topology, &rates[at..at + r.len()])
                        .write_to(w)
                        .map(|()| true)
                },
                w,
            )
        });
        extra.push(("validation_channels.csv".to_string(), maker));
        extra.extend(
            distances.map(|t| ("validation_distance.csv".to_string(), made(t.into_bytes()))),
        );
    }
    let written = commit(&exp, &dir, results, extra)?;
    if !args.quiet {
        out_lines(print);
        out!(
            "written to {}/ ({})",
            dir.path().display(),
            written.join(", ")
        );
    }
    Ok(())
}

/// The latency model's files (model.csv, validation.csv, validation_vc.csv where every
/// configuration's model gives P_v, validation.svg) added to `extra`, and its lines of the
/// printed report to `print`.
fn latency_files<'a>(
    exp: &Experiment,
    results: &[PointResult],
    models: &[Model],
    extra: &mut Vec<Made<'a>>,
    print: &mut Vec<String>,
) -> Result<()> {
    let rows: Vec<Vec<ModelRow>> = exp
        .configurations
        .iter()
        .zip(models)
        .map(|(c, m)| rows_of(m, &c.scenario))
        .collect();
    let sat: Vec<f64> = exp
        .configurations
        .iter()
        .zip(models)
        .map(|(c, m)| m.saturation(1.0 / c.scenario.traffic.mean_length()))
        .collect();
    let table = |name: &str, f: &dyn Fn(usize, &[PointResult]) -> String| {
        with_coordinates(exp, results, &|_, c, r| Some(f(c, r)))
            .map(|t| (name.to_string(), made(t.into_bytes())))
    };
    extra.extend(table("model.csv", &|c, _| model_csv(&rows[c], sat[c])));
    extra.extend(table("validation.csv", &|c, r| validation_csv(r, &rows[c])));
    if models.iter().all(|m| m.gives_vc_occupancy()) {
        extra.extend(table("validation_vc.csv", &|c, r| {
            validation_vc_csv(r, &rows[c])
        }));
    }
    let sims = chunks(exp, results);
    let keys: Vec<String> = exp.axes.iter().map(|a| a.key.clone()).collect();
    let plotted: Vec<PlotConfiguration> = exp
        .configurations
        .iter()
        .zip(&sims)
        .zip(&rows)
        .map(|((c, sim), model)| PlotConfiguration {
            label: configuration_label(&keys, &c.coordinates),
            mean_length: c.scenario.traffic.mean_length(),
            sim,
            model,
        })
        .collect();
    let svg = validation_plot(&plotted)?;
    extra.push(("validation.svg".into(), made(svg.into_bytes())));
    let names: Vec<&str> = models.iter().map(|m| m.name()).collect();
    print.push(format!("model: {}", dedup(names).join("; ")));
    let parts: Vec<(&[PointResult], &[ModelRow])> = sims
        .into_iter()
        .zip(rows.iter().map(Vec::as_slice))
        .collect();
    print.extend(terminal::validation_table(&parts));
    let sats: Vec<String> = sat.iter().map(|s| format!("{s:.6}")).collect();
    print.push(format!(
        "model saturation: {} messages/node/cycle",
        dedup(sats.iter().map(String::as_str).collect()).join("; ")
    ));
    Ok(())
}

/// The index of each configuration's first point.
fn offsets(exp: &Experiment) -> Vec<usize> {
    let mut at = 0;
    exp.configurations
        .iter()
        .map(|c| {
            let here = at;
            at += c.scenario.traffic.rates.len() * c.scenario.seeds.len();
            here
        })
        .collect()
}

/// Names with consecutive repeats removed.
fn dedup(mut v: Vec<&str>) -> Vec<&str> {
    v.dedup();
    v
}
