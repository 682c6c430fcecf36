//! `model`: the analytical model's latency at each load point, and its saturation load.

use super::out_lines;
use flitsim::experiment::Experiment;
use flitsim::output::validation::{ModelRow, model_csv};
use flitsim::{Error, Result, Scenario};
use std::path::{Path, PathBuf};

/// The scenario's model, or a bad-input error naming the file and the models there are.
pub(super) fn model_of(path: &Path, s: &Scenario) -> Result<flitsim::model::Model> {
    flitsim::model::Model::for_scenario(s).map_err(|why| {
        Error::Input(format!(
            "{}: no analytical model covers this scenario: {why}; fix: models exist for {}",
            path.display(),
            flitsim::model::coverage()
        ))
    })
}

/// The model's rows of one configuration: one per load, in the scenario's order (the model
/// does not depend on the seed).
pub(super) fn rows_of(m: &flitsim::model::Model, s: &Scenario) -> Vec<ModelRow> {
    s.traffic
        .rates
        .iter()
        .map(|&rate| ModelRow {
            rate,
            outcome: m.predict(rate),
        })
        .collect()
}

/// Writes model.csv into `out` (default: results/<scenario name>; a directory of the same
/// experiment's results, or another's with `replace`) and prints, per
/// configuration, the model's table and saturation load.
pub fn model(path: &Path, out: Option<PathBuf>, sets: &[String], replace: bool) -> Result<()> {
    let exp = Experiment::load(path, sets, None)?;
    super::refuse_trace(&exp, "model")?;
    let models = exp
        .configurations
        .iter()
        .map(|c| model_of(path, &c.scenario))
        .collect::<Result<Vec<_>>>()?;
    let rows: Vec<Vec<ModelRow>> = exp
        .configurations
        .iter()
        .zip(&models)
        .map(|(c, m)| rows_of(m, &c.scenario))
        .collect();
    let sat: Vec<f64> = exp
        .configurations
        .iter()
        .zip(&models)
        .map(|(c, m)| m.saturation(1.0 / c.scenario.traffic.mean_length()))
        .collect();
    let path_out = out.unwrap_or_else(|| Path::new("results").join(&exp.name));
    let owner = flitsim::experiment::directory::Owner::Run(exp.hash());
    let dir = flitsim::experiment::directory::OutDir::open(
        &path_out,
        super::claim(&exp, owner, replace),
    )?;
    let text = flitsim::output::experiment_tables::per_configuration(&exp, &|c| {
        Some(model_csv(&rows[c], sat[c]))
    })
    .unwrap_or_default();
    dir.add("model.csv", text.as_bytes())?;
    for (c, conf) in exp.configurations.iter().enumerate() {
        if exp.configurations.len() > 1 {
            let at: Vec<String> = exp
                .axes
                .iter()
                .zip(&conf.coordinates)
                .map(|(a, v)| format!("{} = {v}", a.key))
                .collect();
            out!("configuration {}:", at.join(", "));
        }
        out!("model: {}", models[c].name());
        out_lines(flitsim::output::terminal::model_table(&rows[c]));
        let max_rate = 1.0 / conf.scenario.traffic.mean_length();
        if sat[c] >= max_rate {
            out!(
                "model saturation: none below the injection channel's capacity (1 flit/node/cycle)"
            );
        } else {
            out!(
                "model saturation: {:.6} messages/node/cycle ({:.4} flits/node/cycle)",
                sat[c],
                sat[c] * conf.scenario.traffic.mean_length()
            );
        }
    }
    out!("written to {}/model.csv", dir.path().display());
    Ok(())
}
