//! `model`: the analytical model's latency at each load point, and its saturation load.

use super::out_lines;
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

/// The model's rows for every load point (variants × rates × seeds, as the sweep).
pub(super) fn model_rows(m: &flitsim::model::Model, s: &Scenario) -> Vec<ModelRow> {
    flitsim::sweep::points(s)
        .into_iter()
        .map(|(_, rate, _)| ModelRow {
            rate,
            outcome: m.predict(rate),
        })
        .collect()
}

/// Writes model.csv into `out` (default: results/<scenario name>) and prints the model's table
/// and saturation load.
pub fn model(path: &Path, out: Option<PathBuf>) -> Result<()> {
    let s = Scenario::load(path)?;
    let m = model_of(path, &s)?;
    let rows = model_rows(&m, &s);
    let max_rate = 1.0 / s.traffic.mean_length();
    let sat = m.saturation(max_rate);
    let dir = out.unwrap_or_else(|| Path::new("results").join(&s.name));
    flitsim::output::write_file(&dir, "model.csv", &model_csv(&rows, sat))?;
    out!("model: {}", m.name());
    out_lines(flitsim::output::terminal::model_table(&rows));
    if sat >= max_rate {
        out!("model saturation: none below the injection channel's capacity (1 flit/node/cycle)");
    } else {
        out!(
            "model saturation: {sat:.6} messages/node/cycle ({:.4} flits/node/cycle)",
            sat * s.traffic.mean_length()
        );
    }
    out!("written to {}/model.csv", dir.display());
    Ok(())
}
