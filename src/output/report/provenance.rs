//! Provenance: where a directory's results come from. From experiment.json (the scenario, the
//! swept keys and their values, `--set`s, flitsim's version and git revision, the command
//! line, the points planned, and the file's date), else from what the tables and
//! scenario.toml say; with the scenario file's text.

use super::tables::Csv;
use super::{Dir, Section, esc};
use crate::error::Result;
use crate::output::files::read_regular_text;

/// The most experiment.json and scenario.toml the report reads.
const MAX_TEXT: u64 = 1 << 26;

/// The directory's scenario name: its tables', else its folder's.
pub fn scenario_name(d: &Dir) -> String {
    match &d.curves {
        Some(c) if !c.scenario.is_empty() => c.scenario.clone(),
        _ => d.path.file_name().map_or_else(
            || d.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ),
    }
}

/// experiment.json, parsed, if the directory has a readable one.
pub fn experiment_json(d: &Dir) -> Option<serde_json::Value> {
    let text = read_regular_text(&d.path.join("experiment.json"), MAX_TEXT).ok()?;
    serde_json::from_str(&text).ok()
}

/// A time in seconds since 1970 as a UTC date and time, `YYYY-MM-DD HH:MM:SS UTC`
/// (the civil date by Hinnant's days-from-civil inverse, "chrono-Compatible Low-Level Date
/// Algorithms").
fn utc(secs: u64) -> String {
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The rows of the provenance list: (what, value).
fn facts(d: &Dir) -> Result<Vec<(&'static str, String)>> {
    let mut out: Vec<(&'static str, String)> = vec![
        ("directory", d.path.display().to_string()),
        ("scenario", scenario_name(d)),
    ];
    let json = experiment_json(d);
    if let Some(j) = &json {
        let s = |v: &serde_json::Value| v.as_str().map(str::to_string);
        if let Some(f) = s(&j["scenario_file"]) {
            out.push(("scenario file", f));
        }
        let sweep: Vec<String> = j["sweep"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|a| {
                let values: Vec<String> = a["values"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                    .collect();
                format!(
                    "{} = [{}]",
                    a["key"].as_str().unwrap_or("?"),
                    values.join(", ")
                )
            })
            .collect();
        out.push(("swept keys", or_none(sweep.join("; "))));
        let sets: Vec<String> = j["sets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(s)
            .collect();
        if !sets.is_empty() {
            out.push(("--set", sets.join(" ")));
        }
        let version = s(&j["flitsim"]["version"]).unwrap_or_default();
        let rev = s(&j["flitsim"]["git_revision"]).unwrap_or_default();
        out.push(("flitsim", format!("{version} (git {rev})")));
        let cmd: Vec<String> = j["command"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(s)
            .collect();
        out.push(("command line", cmd.join(" ")));
        if let Ok(t) =
            std::fs::symlink_metadata(d.path.join("experiment.json")).and_then(|m| m.modified())
            && let Ok(since) = t.duration_since(std::time::UNIX_EPOCH)
        {
            out.push(("date (experiment.json written)", utc(since.as_secs())));
        }
        if let Some(n) = j["points"].as_u64() {
            out.push(("points in the experiment", n.to_string()));
        }
    } else {
        let keys = d
            .curves
            .as_ref()
            .map(|c| c.keys.join(", "))
            .unwrap_or_default();
        out.push(("swept keys", or_none(keys)));
        out.push((
            "flitsim, command line, date",
            "not recorded here (no experiment.json in the directory)".into(),
        ));
    }
    if let Some(summary) = Csv::read(&d.path, "summary.csv", "rate")? {
        let sat = summary.col("saturated", "summary.csv")?;
        let saturated = summary.rows.iter().filter(|r| r[sat] == "true").count();
        out.push((
            "points in summary.csv",
            format!("{} ({saturated} saturated)", summary.rows.len()),
        ));
    }
    Ok(out)
}

/// `(none)` for an empty value.
fn or_none(v: String) -> String {
    if v.is_empty() { "(none)".into() } else { v }
}

/// The provenance section of a directory.
pub fn section(d: &Dir) -> Result<Section> {
    let mut body = String::from("<dl class=\"provenance\">");
    for (what, value) in facts(d)? {
        body.push_str(&format!("<dt>{}</dt><dd>{}</dd>", esc(what), esc(&value)));
    }
    body.push_str("</dl>");
    if let Ok(text) = read_regular_text(&d.path.join("scenario.toml"), MAX_TEXT) {
        body.push_str(&format!(
            "<details><summary>scenario.toml</summary><pre>{}</pre></details>",
            esc(&text)
        ));
    }
    Ok(Section {
        kind: "provenance",
        id: format!("provenance-{}", d.index),
        title: d.title("Provenance"),
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        // 2000-02-29 12:34:56 UTC: a leap day of a year divisible by 400.
        assert_eq!(utc(951_827_696), "2000-02-29 12:34:56 UTC");
        assert_eq!(utc(1_798_761_599), "2026-12-31 23:59:59 UTC");
    }
}
