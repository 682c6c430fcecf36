//! The tables of a results directory as the report reads them: a CSV's header and its rows
//! as text (so that a value the page embeds is the CSV's own), read the one safe way
//! (`files.rs`: no link followed, no FIFO waited on, bounded).

use crate::error::{Error, Result};
use std::path::Path;

/// The most a table the report reads may hold.
const MAX_BYTES: u64 = 1 << 32;

/// A CSV table: its header and rows of cells.
pub struct Csv {
    /// The column names.
    pub header: Vec<String>,
    /// The rows, each as long as the header.
    pub rows: Vec<Vec<String>>,
    /// Where the swept keys end: the index of `rate` (or of the first column after the
    /// swept keys in saturation.csv), the columns before it being `scenario` and the keys.
    pub lead: usize,
}

impl Csv {
    /// Reads `dir/name`; None when there is no such file; a file that is not a flitsim
    /// table (no `scenario` column first, no column `after_keys`) is refused naming it.
    pub fn read(dir: &Path, name: &str, after_keys: &str) -> Result<Option<Csv>> {
        let path = dir.join(name);
        if crate::output::files::kind_at(&path)
            .ok()
            .flatten()
            .is_none()
        {
            return Ok(None);
        }
        let bad = |m: String| {
            Error::Input(format!(
                "{}: {m}; fix: give a results directory flitsim wrote (rerun the command that wrote it)",
                path.display()
            ))
        };
        let (file, _) = crate::output::files::open_regular(&path)
            .map_err(|e| bad(format!("cannot read it ({e})")))?;
        let mut r = csv::Reader::from_reader(std::io::Read::take(file, MAX_BYTES));
        let header: Vec<String> = r
            .headers()
            .map_err(|e| bad(e.to_string()))?
            .iter()
            .map(str::to_string)
            .collect();
        if header.first().map(String::as_str) != Some("scenario") {
            return Err(bad("no `scenario` column first".into()));
        }
        let lead = header
            .iter()
            .position(|h| h == after_keys)
            .ok_or_else(|| bad(format!("no column {after_keys}")))?;
        let mut rows = Vec::new();
        for rec in r.records() {
            let rec = rec.map_err(|e| bad(e.to_string()))?;
            rows.push(rec.iter().map(str::to_string).collect());
        }
        Ok(Some(Csv { header, rows, lead }))
    }

    /// The index of column `name`, or a refusal naming the file.
    pub fn col(&self, name: &str, file: &str) -> Result<usize> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            Error::Input(format!(
                "{file}: no column {name}; fix: rerun the command that wrote it"
            ))
        })
    }

    /// A row's swept keys' values (the cells between `scenario` and the lead's end).
    pub fn coords<'a>(&self, row: &'a [String]) -> &'a [String] {
        &row[1..self.lead]
    }

    /// Cell `i` of `row` as a number (NaN when empty or not one).
    pub fn num(row: &[String], i: usize) -> f64 {
        row.get(i)
            .and_then(|c| c.parse::<f64>().ok())
            .unwrap_or(f64::NAN)
    }
}

/// Per configuration and load of a per-point table (`rate`, `seed`, a `key` column, a
/// `value` column): the configuration's coordinates, its rate and, per key in order, the
/// values of the seeds' rows.
pub struct ByLoad {
    /// The swept keys' values.
    pub coords: Vec<String>,
    /// The rate (messages/node/cycle), as the table writes it.
    pub rate: String,
    /// (key, the seeds' values).
    pub values: Vec<(f64, Vec<f64>)>,
}

/// Groups `csv`'s rows by configuration and rate, the values of `value` per `key`.
pub fn by_load(csv: &Csv, key: usize, value: usize) -> Vec<ByLoad> {
    let mut out: Vec<ByLoad> = Vec::new();
    for row in &csv.rows {
        let coords = csv.coords(row);
        let rate = &row[csv.lead];
        let at = match out
            .iter()
            .position(|g| g.coords == coords && &g.rate == rate)
        {
            Some(i) => i,
            None => {
                out.push(ByLoad {
                    coords: coords.to_vec(),
                    rate: rate.clone(),
                    values: Vec::new(),
                });
                out.len() - 1
            }
        };
        let (k, v) = (Csv::num(row, key), Csv::num(row, value));
        let values = &mut out[at].values;
        match values.iter_mut().find(|e| e.0 == k) {
            Some(e) => e.1.push(v),
            None => values.push((k, vec![v])),
        }
    }
    out
}

/// The mean of `v` (NaN when empty).
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_group_by_configuration_and_load_with_every_seed() {
        let csv = Csv {
            header: [
                "scenario",
                "routing.algorithm",
                "rate",
                "seed",
                "hops",
                "count",
            ]
            .map(String::from)
            .to_vec(),
            rows: [
                ["s", "dor", "0.1", "1", "1", "3"],
                ["s", "dor", "0.1", "2", "1", "5"],
                ["s", "dor", "0.1", "1", "2", "7"],
                ["s", "duato", "0.1", "1", "1", "1"],
                ["s", "dor", "0.2", "1", "1", "2"],
            ]
            .map(|r| r.map(String::from).to_vec())
            .to_vec(),
            lead: 2,
        };
        let g = by_load(&csv, 4, 5);
        assert_eq!(g.len(), 3);
        assert_eq!(
            (g[0].coords.as_slice(), g[0].rate.as_str()),
            (&["dor".to_string()][..], "0.1")
        );
        assert_eq!(g[0].values, [(1.0, vec![3.0, 5.0]), (2.0, vec![7.0])]);
        assert_eq!(g[1].values, [(1.0, vec![1.0])]);
        assert_eq!(g[2].rate, "0.2");
        assert_eq!(mean(&[3.0, 5.0]), 4.0);
    }
}
