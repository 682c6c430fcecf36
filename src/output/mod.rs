//! Output: the CSV tables of a sweep, written so that a failed run leaves earlier results alone.

mod channels;
mod columns;
mod csv_tables;
pub mod directory;
pub mod experiment_tables;
pub mod plot;
pub mod pooled;
mod summary;
pub mod terminal;
pub mod validation;

pub use channels::channels_csv;
pub use columns::{Column, markdown as markdown_columns};
pub use csv_tables::{histogram_csv, hops_csv, mway_channels_csv, nodes_csv, vc_occupancy_csv};
pub use summary::{SUMMARY, summary_csv};

use crate::error::{Error, Result};
use crate::scenario::Scenario;
use crate::stats::PointResult;
use std::path::Path;

/// Writes summary.csv, channels.csv, nodes.csv, histogram.csv, hops.csv, vc_occupancy.csv,
/// mway_channels.csv for an m-way network, and a copy of the scenario into `dir`. Each file is
/// written to a temporary name and renamed into place.
pub fn write_results(
    dir: &Path,
    s: &Scenario,
    scenario_text: &str,
    results: &[PointResult],
) -> Result<()> {
    let net = crate::network::Network::for_scenario(s);
    // channels.csv names routers: an m-way network's hot processor sits at its (first) channel.
    let pattern = match s.traffic.pattern {
        crate::scenario::Pattern::Hotspot { node, fraction } => crate::scenario::Pattern::Hotspot {
            node: net.proc_at[(node * net.attach) as usize],
            fraction,
        },
        p => p,
    };
    let mut files = vec![
        ("summary.csv", summary_csv(results)),
        ("channels.csv", channels_csv(results, &net, &pattern)),
        ("nodes.csv", nodes_csv(results)),
        ("histogram.csv", histogram_csv(results, s.run.histogram_bin)),
        ("hops.csv", hops_csv(results)),
        ("vc_occupancy.csv", vc_occupancy_csv(results)),
        ("scenario.toml", scenario_text.to_string()),
    ];
    if net.shared {
        files.push(("mway_channels.csv", mway_channels_csv(results, &net)));
    }
    for (name, text) in files {
        write_file(dir, name, &text)?;
    }
    Ok(())
}

/// Writes `dir/name` by way of a temporary file renamed into place, creating `dir`.
pub fn write_file(dir: &Path, name: &str, text: &str) -> Result<()> {
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, dir.join(name)).map_err(io)
}

/// A CSV file's text: the header, then the rows.
pub fn csv_text(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    Table::new(header.to_vec(), rows).text()
}

/// A CSV table whose rows are made as they are written, so that a table of millions of rows
/// (channels.csv of a sweep of a million-node network) is never held whole in memory.
pub struct Table<'a> {
    header: Vec<&'a str>,
    rows: Box<dyn Iterator<Item = Vec<String>> + 'a>,
}

impl<'a> Table<'a> {
    /// The table with `header` and `rows`.
    pub fn new(header: Vec<&'a str>, rows: impl IntoIterator<Item = Vec<String>> + 'a) -> Self {
        Table {
            header,
            rows: Box::new(rows.into_iter()),
        }
    }

    /// Writes the header, then each row as it is made, to `w`.
    pub fn write_to(self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut csv = csv::Writer::from_writer(w);
        csv.write_record(&self.header)?;
        for r in self.rows {
            csv.write_record(&r)?;
        }
        csv.flush()
    }

    /// The table's text.
    pub fn text(self) -> String {
        let mut bytes = Vec::new();
        self.write_to(&mut bytes).expect("in-memory write");
        String::from_utf8(bytes).expect("utf-8")
    }
}

/// A number as written in the CSVs: shortest round-trip form, `NaN` when undefined.
pub fn num(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else {
        format!("{x}")
    }
}

/// An optional integer, empty when undefined.
pub fn opt(x: Option<u64>) -> String {
    x.map(|v| v.to_string()).unwrap_or_default()
}
