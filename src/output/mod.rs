//! Output: the CSV tables of a sweep, written so that a failed run leaves earlier results alone.

mod channels;
mod columns;
mod csv_tables;
pub mod experiment_tables;
pub mod files;
pub mod plot;
pub mod pooled;
pub mod report;
mod row;
mod summary;
pub mod terminal;
pub mod validation;

pub use channels::channels_csv;
pub use columns::decimal;
pub use columns::{Cell, Column, markdown as markdown_columns};
pub use csv_tables::{
    histogram_csv, hops_csv, mway_channels_csv, nodes_csv, trace_csv, vc_occupancy_csv,
};
use row::NumTexts;

/// The CSV tables that have a column list, each as its file name and its columns as a markdown
/// table (`| column | unit | meaning |`): summary.csv, channels.csv, nodes.csv, histogram.csv,
/// hops.csv, vc_occupancy.csv, mway_channels.csv and trace.csv. The book's column reference is
/// made of them.
pub fn column_tables() -> Vec<(&'static str, String)> {
    let mut tables = vec![
        ("summary.csv", markdown_columns(SUMMARY)),
        ("channels.csv", channels::channels_markdown()),
    ];
    tables.extend(csv_tables::tables_markdown());
    tables
}
pub use row::Row;
pub use summary::{SUMMARY, summary_csv};

use crate::error::{Error, Result};
use crate::scenario::Scenario;
use crate::stats::PointResult;
use std::path::Path;

/// Writes summary.csv, channels.csv, nodes.csv, histogram.csv, hops.csv, vc_occupancy.csv,
/// mway_channels.csv for an m-way network, trace.csv for a trace replay, and a copy of the
/// scenario into `dir`. Each file is
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
    if let Some(text) = trace_csv(results) {
        files.push(("trace.csv", text));
    }
    for (name, text) in files {
        write_file(dir, name, &text)?;
    }
    Ok(())
}

/// Writes `dir/name` all at once ([`files::write_atomic`]), creating `dir`.
pub fn write_file(dir: &Path, name: &str, text: &str) -> Result<()> {
    let io = |e: std::io::Error| Error::Io(format!("{}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    files::write_atomic(dir, name, text.as_bytes()).map_err(io)
}

/// A CSV file's text: the header, then the rows.
pub fn csv_text(header: &[&str], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    Table::new(header.to_vec(), rows).text()
}

/// A CSV table whose rows are made as they are written, so that a table of millions of rows
/// (channels.csv of a sweep of a million-node network) is never held whole in memory.
pub struct Table<'a> {
    header: Vec<&'a str>,
    rows: Rows<'a>,
}

/// A table's rows: made one at a time, or their cells made in batches on every thread of the
/// current rayon pool (the large per-channel and per-node tables).
enum Rows<'a> {
    /// Each row's cells, made on the writing thread.
    OneByOne(Box<dyn Iterator<Item = Vec<String>> + 'a>),
    /// Writes every row: its cells made in parallel, its text written in row order.
    Batched(Box<WriteRows<'a>>),
}

/// What writes a batched table's rows to a sink.
type WriteRows<'a> = dyn FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + 'a;

/// Rows a batch of a [`Table::batched`] table holds: their contexts, and then their text, are
/// what the table holds at once (a few MB).
pub const BATCH: usize = 1 << 16;

/// Rows one thread makes at a time within a batch.
const CHUNK: usize = 1 << 12;

impl<'a> Table<'a> {
    /// The table with `header` and `rows`.
    pub fn new(header: Vec<&'a str>, rows: impl IntoIterator<Item = Vec<String>> + 'a) -> Self {
        Table {
            header,
            rows: Rows::OneByOne(Box::new(rows.into_iter())),
        }
    }

    /// The table with `header` and a row for each `x` of `items`, in order, its cells written
    /// by `cells(x, row)`. The items are taken on the writing thread, a batch at a time, and
    /// the batch's rows made on every thread of the current rayon pool: the text is the same
    /// as [`Table::new`]'s of the same cells, whatever the threads.
    pub fn batched<X: Sync + 'a>(
        header: Vec<&'a str>,
        items: impl IntoIterator<Item = X> + 'a,
        cells: impl Fn(&X, &mut Row) + Sync + 'a,
    ) -> Self {
        let write = move |w: &mut dyn std::io::Write| -> std::io::Result<()> {
            let mut items = items.into_iter();
            let mut made: Vec<Vec<u8>> = Vec::new();
            loop {
                let batch: Vec<X> = items.by_ref().take(BATCH).collect();
                let mut texts: Vec<Vec<u8>> = batch.chunks(CHUNK).map(|_| Vec::new()).collect();
                // The batch's rows are made on the pool while this thread writes the last.
                let mut written = Ok(());
                rayon::in_place_scope(|s| {
                    for (chunk, text) in batch.chunks(CHUNK).zip(&mut texts) {
                        let cells = &cells;
                        s.spawn(move |_| {
                            let mut nums = NumTexts::default();
                            for x in chunk {
                                let mut row = Row::new(text, &mut nums);
                                cells(x, &mut row);
                                row.end();
                            }
                        });
                    }
                    written = made.iter().try_for_each(|t| w.write_all(t));
                });
                written?;
                made = texts;
                if batch.len() < BATCH {
                    return made.iter().try_for_each(|t| w.write_all(t));
                }
            }
        };
        Table {
            header,
            rows: Rows::Batched(Box::new(write)),
        }
    }

    /// Writes the header, then each row as it is made, to `w`.
    pub fn write_to(self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        match self.rows {
            Rows::OneByOne(rows) => {
                let mut csv = csv::Writer::from_writer(w);
                csv.write_record(&self.header)?;
                for r in rows {
                    csv.write_record(&r)?;
                }
                csv.flush()
            }
            Rows::Batched(write) => {
                let mut text = Vec::new();
                let mut nums = NumTexts::default();
                let mut row = Row::new(&mut text, &mut nums);
                self.header.iter().for_each(|h| row.cell(h));
                row.end();
                w.write_all(&text)?;
                write(w)
            }
        }
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
    columns::Cell::Num(x).to_string()
}

#[cfg(test)]
mod tests {
    use super::columns::Cell;
    use super::{BATCH, CHUNK, Table};

    /// Row `i` of a table of `width` (1 or 3) columns: numbers, cells that need quoting (each
    /// for one reason: a comma, a carriage return, quotes, a newline) and, in the one-column
    /// table, empty rows (which the CSV writer quotes), so that a row out of place or encoded
    /// otherwise changes the text.
    fn row(width: usize, i: usize) -> Vec<String> {
        let quoted = match i % 5 {
            0 => format!("a,{i}"),
            1 => format!("{i}\r"),
            2 => format!("\"{i}\""),
            3 => format!("{i}\n"),
            _ => String::new(),
        };
        match width {
            1 => vec![if i % 7 == 3 { String::new() } else { quoted }],
            _ => vec![i.to_string(), format!("{}", i as f64 / 3.0), quoted],
        }
    }

    #[test]
    fn batched_tables_write_the_rows_of_one_by_one_tables_on_any_pool() {
        for (width, header) in [(1, vec!["s"]), (3, vec!["n", "x", "s"])] {
            for rows in [0, 1, CHUNK + 1, 2 * BATCH + CHUNK + 17] {
                let one_by_one = Table::new(header.clone(), (0..rows).map(|i| row(width, i)));
                let text = one_by_one.text();
                let records = csv::Reader::from_reader(text.as_bytes()).records().count();
                assert_eq!(records, rows);
                for threads in [1, 2, 3] {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("a pool");
                    let batched = pool.install(|| {
                        Table::batched(header.clone(), 0..rows, |&i, line| {
                            row(width, i).iter().for_each(|c| line.cell(c))
                        })
                        .text()
                    });
                    assert!(
                        batched == text,
                        "{rows} rows of {width} on {threads} threads differ"
                    );
                }
            }
        }
    }

    /// Typed cells of every kind: integers and numbers at their edges, text needing quotes or
    /// not, and empty cells.
    const TYPED: [Cell<'static>; 16] = [
        Cell::Int(0),
        Cell::Int(u64::MAX),
        Cell::Num(0.1 + 0.2),
        Cell::Num(2.0),
        Cell::Num(-0.0),
        Cell::Num(1e-7),
        Cell::Num(1e300),
        Cell::Num(f64::NAN),
        Cell::Num(f64::INFINITY),
        Cell::Num(f64::NEG_INFINITY),
        Cell::Text("+"),
        Cell::Text("a,b"),
        Cell::Text("say \"x\""),
        Cell::Text("0->1\n"),
        Cell::Text(""),
        Cell::Empty,
    ];

    #[test]
    fn typed_cells_read_as_the_csvs_write_numbers() {
        let text: Vec<String> = TYPED[..10].iter().map(Cell::to_string).collect();
        let want = [
            "0",
            "18446744073709551615",
            "0.30000000000000004",
            "2",
            "-0",
            "0.0000001",
            &format!("1{}", "0".repeat(300)),
            "NaN",
            "inf",
            "-inf",
        ];
        assert_eq!(text, want);
        assert_eq!(Cell::Empty.to_string(), "");
        assert_eq!(Cell::opt(None), Cell::Empty);
        assert_eq!(Cell::opt(Some(7)), Cell::Int(7));
        assert_eq!(Cell::bool(true).to_string(), "true");
        assert_eq!(Cell::bool(false).to_string(), "false");
        assert_eq!(super::num(f64::NAN), "NaN");
    }

    #[test]
    fn typed_cells_are_written_into_a_row_as_their_text_would_be() {
        // Each cell alone on a line (an empty one is quoted), then every cell in each place of
        // lines of three.
        let n = TYPED.len();
        for width in [1, 3] {
            let lines: Vec<Vec<Cell>> = (0..n * width)
                .map(|i| (0..width).map(|j| TYPED[(i + 5 * j) % n]).collect())
                .collect();
            let text = |l: &Vec<Cell>| l.iter().map(Cell::to_string).collect::<Vec<_>>();
            let header = vec!["a"; width];
            let one_by_one = Table::new(header.clone(), lines.iter().map(text)).text();
            let batched =
                Table::batched(header, &lines, |l, row| l.iter().for_each(|&c| row.put(c)));
            assert_eq!(batched.text(), one_by_one, "lines of {width}");
        }
    }
}
