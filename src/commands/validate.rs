//! `validate`: simulation and model on the same loads.

use super::model::{model_of, model_rows};
use super::{load_run, out_lines, sweep};
use crate::RunArgs;
use flitsim::output::terminal;
use flitsim::output::validation::{model_csv, validation_csv, validation_plot};
use flitsim::{Result, Scenario};
use std::path::Path;

/// Runs the sweep and compares it with the scenario's latency model and/or its channel rates
/// and mean distances, writing the comparison files and, unless `--quiet`, the tables.
pub fn validate(args: &RunArgs) -> Result<()> {
    let (text, s, dir) = load_run(args)?;
    let points = flitsim::sweep::points(&s);
    // Channel rates and mean distances side by side wherever every point has them; a latency
    // model is needed only when they are missing.
    let channels = points
        .iter()
        .map(|(v, _, _)| flitsim::model::LinkRates::for_scenario(v))
        .collect::<Option<Vec<_>>>();
    let m = match (model_of(&args.scenario, &s), &channels) {
        (Ok(m), _) => Some(m),
        (Err(_), Some(_)) => None,
        (Err(e), None) => return Err(e),
    };
    let results = sweep(args, &s)?;
    flitsim::output::write_results(&dir, &s, &text, &results)?;
    let mut written = vec![];
    if let Some(m) = &m {
        validate_latency(args, &s, &dir, m, &results)?;
        written.extend(["validation.csv", "validation.svg", "model.csv"]);
        if m.gives_vc_occupancy() {
            written.push("validation_vc.csv");
        }
    }
    if let Some(channels) = channels {
        let rates: Vec<Vec<f64>> = points
            .iter()
            .zip(&channels)
            .map(|((v, rate, seed), c)| c.rates(v, *rate, *seed))
            .collect();
        let distance: Vec<f64> = points
            .iter()
            .map(|(v, _, seed)| flitsim::model::mean_distance(v, *seed).unwrap_or(f64::NAN))
            .collect();
        let net = flitsim::network::Network::for_scenario(&s);
        flitsim::output::write_file(
            &dir,
            "validation_channels.csv",
            &flitsim::output::validation::validation_channels_csv(
                &results,
                net.topology.links(),
                &rates,
            ),
        )?;
        flitsim::output::write_file(
            &dir,
            "validation_distance.csv",
            &flitsim::output::validation::validation_distance_csv(&results, &distance),
        )?;
        written.extend(["validation_channels.csv", "validation_distance.csv"]);
        if !args.quiet {
            let mut names: Vec<&str> = channels.iter().map(|c| c.name()).collect();
            names.dedup();
            out!("channel rates: {}", names.join("; "));
            out_lines(terminal::channels_table(&results, &rates, &distance));
        }
    }
    if !args.quiet {
        out!(
            "written to {}/ ({} and the run's CSVs)",
            dir.display(),
            written.join(", ")
        );
    }
    Ok(())
}

/// `validate` with a latency model: model.csv, validation.csv, validation.svg and, where the
/// model gives P_v, validation_vc.csv; the latency table unless `--quiet`.
fn validate_latency(
    args: &RunArgs,
    s: &Scenario,
    dir: &Path,
    m: &flitsim::model::Model,
    results: &[flitsim::stats::PointResult],
) -> Result<()> {
    let rows = model_rows(m, s);
    let sat = m.saturation(1.0 / s.traffic.mean_length());
    flitsim::output::write_file(dir, "model.csv", &model_csv(&rows, sat))?;
    flitsim::output::write_file(dir, "validation.csv", &validation_csv(results, &rows))?;
    validation_plot(&dir.join("validation.svg"), results, &rows)?;
    if m.gives_vc_occupancy() {
        flitsim::output::write_file(
            dir,
            "validation_vc.csv",
            &flitsim::output::validation::validation_vc_csv(results, &rows),
        )?;
    }
    if !args.quiet {
        out!("model: {}", m.name());
        out_lines(terminal::validation_table(results, &rows));
        out!("model saturation: {sat:.6} messages/node/cycle");
    }
    Ok(())
}
