//! An experiment's files: every table with the experiment's coordinates (`scenario` and one
//! column per swept key) in front of each row, `pooled.csv` when there are replications, the
//! scenario file and `experiment.json`.

use super::channels::channels_table;
use super::csv_tables::{mway_channels_table, nodes_table, trace_csv};
use super::{histogram_csv, hops_csv, summary_csv, vc_occupancy_csv};
use crate::experiment::Experiment;
use crate::network::Network;
use crate::scenario::Pattern;
use crate::stats::PointResult;
use crate::topology::Family;
use std::io::{self, Write};

/// What writes one file of a result directory, as it is made, and says whether the
/// experiment has the file at all (false: nothing was written and there is no such file).
pub type Maker<'a> = Box<dyn Fn(&mut dyn Write) -> io::Result<bool> + 'a>;

/// One file of a result directory made as it is written: its name and its maker.
pub type Made<'a> = (String, Maker<'a>);

/// The maker of a file whose bytes are already made.
pub fn made(bytes: Vec<u8>) -> Maker<'static> {
    Box::new(move |w| w.write_all(&bytes).map(|()| true))
}

/// A table made per configuration (its scenario, its results) as a text, or None.
type PerConfigText<'a> = dyn Fn(&Experiment, usize, &[PointResult]) -> Option<String> + 'a;

/// A table made per configuration (its scenario, its results) and written to a sink; false
/// when the configuration has no such table.
type PerConfig<'a> =
    dyn Fn(&Experiment, usize, &[PointResult], &mut dyn Write) -> io::Result<bool> + 'a;

/// The points of each configuration: a configuration's points are consecutive, loads × seeds.
pub fn chunks<'a>(exp: &Experiment, results: &'a [PointResult]) -> Vec<&'a [PointResult]> {
    let mut out = Vec::new();
    let mut rest = results;
    for c in &exp.configurations {
        let n = c.scenario.traffic.rates.len() * c.scenario.seeds.len();
        let (head, tail) = rest.split_at(n.min(rest.len()));
        out.push(head);
        rest = tail;
    }
    out
}

/// One CSV record's text, without the line end.
fn record(cells: &[String]) -> String {
    let text = super::csv_text(&cells.iter().map(String::as_str).collect::<Vec<_>>(), []);
    text.trim_end_matches('\n').to_string()
}

/// A table assembled from each configuration's (`table(exp, c, results)`, a CSV text with its
/// header, or `None` when the configuration has no such table): its header once, every row
/// after the coordinates of its configuration. `None` when no configuration has the table.
pub fn with_coordinates(
    exp: &Experiment,
    results: &[PointResult],
    table: &PerConfigText,
) -> Option<String> {
    let chunks = chunks(exp, results);
    per_configuration(exp, &|c| table(exp, c, chunks[c]))
}

/// A table assembled from each configuration's (`table(c)`, a CSV text with its header, or
/// `None` when the configuration has no such table): the header once, then every row after
/// the coordinates of its configuration.
pub fn per_configuration(
    exp: &Experiment,
    table: &dyn Fn(usize) -> Option<String>,
) -> Option<String> {
    let mut out = Vec::new();
    let any = write_per_configuration(
        exp,
        &|c, w| match table(c) {
            Some(text) => w.write_all(text.as_bytes()).map(|()| true),
            None => Ok(false),
        },
        &mut out,
    )
    .expect("in-memory write");
    any.then(|| String::from_utf8(out).expect("UTF-8 text cut at line ends"))
}

/// Writes to `out` the table assembled from each configuration's (`table(c, w)` writes
/// configuration c's CSV, its header first, to `w`, or says false when it has none): the
/// header once, then every row after the coordinates of its configuration. Nothing is held
/// whole: a table of millions of rows (channels.csv of a sweep of a million-node network)
/// goes to its file as it is made. False when no configuration has the table.
pub fn write_per_configuration(
    exp: &Experiment,
    table: &dyn Fn(usize, &mut dyn Write) -> io::Result<bool>,
    out: &mut dyn Write,
) -> io::Result<bool> {
    let lead_header = record(&exp.lead_header());
    let mut any = false;
    for c in 0..exp.configurations.len() {
        let lead = record(&exp.lead(c));
        let header = (!any).then_some(lead_header.as_str());
        let mut w = Prefixed::new(out, header, &lead);
        if table(c, &mut w)? {
            w.finish()?;
            any = true;
        }
    }
    Ok(any)
}

/// A sink that puts `lead` and a comma in front of every line of a CSV text but the first
/// (its header), which gets `header` and a comma, or is dropped when `header` is None (a
/// later configuration's copy of the header). The last line is ended by a newline.
struct Prefixed<'a> {
    out: &'a mut dyn Write,
    header: Option<&'a str>,
    lead: &'a str,
    /// Still in the first line.
    in_header: bool,
    /// The next byte begins a line.
    line_start: bool,
    /// Nothing has been written yet.
    empty: bool,
    /// The text of one `write`, its leads in place, handed on whole (reused).
    text: Vec<u8>,
}

impl<'a> Prefixed<'a> {
    fn new(out: &'a mut dyn Write, header: Option<&'a str>, lead: &'a str) -> Self {
        Prefixed {
            out,
            header,
            lead,
            in_header: true,
            line_start: true,
            empty: true,
            text: Vec::new(),
        }
    }

    /// Ends the text: an empty text still has its (empty) header line, and a last line
    /// without a newline gets one.
    fn finish(mut self) -> io::Result<()> {
        if self.empty {
            self.write_all(b"\n")?;
        }
        if !self.line_start {
            self.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl Write for Prefixed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.empty &= buf.is_empty();
        let mut rest = buf;
        while !rest.is_empty() {
            let line_end = memchr::memchr(b'\n', rest);
            let (part, ends) = match line_end {
                Some(i) => (&rest[..=i], true),
                None => (rest, false),
            };
            let kept = !self.in_header || self.header.is_some();
            if kept {
                if self.line_start {
                    let lead = if self.in_header {
                        self.header.unwrap_or_default()
                    } else {
                        self.lead
                    };
                    self.text.extend_from_slice(lead.as_bytes());
                    self.text.push(b',');
                }
                self.text.extend_from_slice(part);
            }
            self.line_start = ends;
            self.in_header &= !ends;
            rest = &rest[part.len()..];
        }
        let written = self.out.write_all(&self.text);
        self.text.clear();
        written.map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// The network of a configuration, and its traffic pattern with the hot node named by router
/// (channels.csv names routers: an m-way network's hot processor sits at its first channel).
fn network(exp: &Experiment, c: usize) -> (Network, Pattern) {
    let s = &exp.configurations[c].scenario;
    let net = Network::for_scenario(s);
    let pattern = match s.traffic.pattern {
        Pattern::Hotspot { node, fraction } => Pattern::Hotspot {
            node: net.proc_at[(node * net.attach) as usize],
            fraction,
        },
        p => p,
    };
    (net, pattern)
}

/// Every table of a finished experiment (summary.csv, channels.csv, nodes.csv,
/// histogram.csv, hops.csv, vc_occupancy.csv, mway_channels.csv for m-way networks, trace.csv
/// for trace replays, pooled.csv with several seeds), the scenario file as scenario.toml, and experiment.json: each made as
/// it is written, so that a sweep of a large network never holds a whole table (or two).
pub fn experiment_files<'a>(
    exp: &'a Experiment,
    results: &'a [PointResult],
    command: &[String],
) -> Vec<Made<'a>> {
    let text = |f: fn(&[PointResult]) -> String| -> Box<PerConfig<'a>> {
        Box::new(move |_, _, r, w| w.write_all(f(r).as_bytes()).map(|()| true))
    };
    let tables: Vec<(&str, Box<PerConfig<'a>>)> = vec![
        ("summary.csv", text(summary_csv)),
        (
            "channels.csv",
            Box::new(|e, c, r, w| {
                let (net, pattern) = network(e, c);
                channels_table(r, &net, &pattern).write_to(w).map(|()| true)
            }),
        ),
        (
            "nodes.csv",
            Box::new(|_, _, r, w| nodes_table(r).write_to(w).map(|()| true)),
        ),
        (
            "histogram.csv",
            Box::new(|e, c, r, w| {
                let bin = e.configurations[c].scenario.run.histogram_bin;
                w.write_all(histogram_csv(r, bin).as_bytes()).map(|()| true)
            }),
        ),
        ("hops.csv", text(hops_csv)),
        ("vc_occupancy.csv", text(vc_occupancy_csv)),
        (
            "mway_channels.csv",
            Box::new(|e, c, r, w| {
                // Only an m-way network has the table (others are not built for nothing).
                let s = &e.configurations[c].scenario;
                if !matches!(s.topology.family, Family::MWay(_)) {
                    return Ok(false);
                }
                let net = Network::for_scenario(s);
                mway_channels_table(r, &net).write_to(w).map(|()| true)
            }),
        ),
        (
            "trace.csv",
            Box::new(|_, _, r, w| match trace_csv(r) {
                Some(text) => w.write_all(text.as_bytes()).map(|()| true),
                None => Ok(false),
            }),
        ),
    ];
    let chunks = chunks(exp, results);
    let mut files: Vec<Made<'a>> = tables
        .into_iter()
        .map(|(name, table)| {
            let chunks = chunks.clone();
            let maker: Maker<'a> = Box::new(move |w| {
                write_per_configuration(exp, &|c, w| table(exp, c, chunks[c], w), w)
            });
            (name.to_string(), maker)
        })
        .collect();
    if exp.several_seeds() {
        files.push(("pooled.csv".into(), made(pooled(exp, results).into_bytes())));
    }
    files.push(("scenario.toml".into(), made(exp.text.clone().into_bytes())));
    files.push((
        "experiment.json".into(),
        made(experiment_json(exp, command, None).into_bytes()),
    ));
    files
}

/// pooled.csv: one row per configuration and load, over its seeds.
fn pooled(exp: &Experiment, results: &[PointResult]) -> String {
    let mut groups: Vec<(Vec<String>, Vec<&PointResult>)> = Vec::new();
    for (c, chunk) in chunks(exp, results).into_iter().enumerate() {
        let seeds = exp.configurations[c].scenario.seeds.len();
        for load in chunk.chunks(seeds) {
            groups.push((exp.lead(c), load.iter().collect()));
        }
    }
    super::pooled::pooled_csv(&exp.lead_header(), &groups)
}

/// experiment.json: flitsim's version and git revision, the command line, the scenario file,
/// its overrides, `--seed` and sweep, the experiment's hash (of every point's key), the shard
/// (`I/N`) a shard's directory holds, and every configuration's fully resolved scenario
/// (defaults filled in).
pub fn experiment_json(exp: &Experiment, command: &[String], shard: Option<&str>) -> String {
    let configurations: Vec<serde_json::Value> = exp
        .configurations
        .iter()
        .map(|c| {
            let coordinates: serde_json::Map<String, serde_json::Value> = exp
                .axes
                .iter()
                .zip(&c.coordinates)
                .map(|(a, v)| (a.key.clone(), serde_json::Value::String(v.clone())))
                .collect();
            serde_json::json!({ "coordinates": coordinates, "scenario": c.scenario })
        })
        .collect();
    let sweep: Vec<serde_json::Value> = exp
        .axes
        .iter()
        .map(|a| serde_json::json!({ "key": a.key, "values": a.values }))
        .collect();
    let doc = serde_json::json!({
        "flitsim": {
            "version": env!("CARGO_PKG_VERSION"),
            "git_revision": env!("FLITSIM_GIT_REVISION"),
        },
        "command": command,
        "scenario_file": exp.file,
        "name": exp.name,
        "sets": exp.sets,
        "seed": exp.seed,
        "sweep": sweep,
        "experiment_hash": exp.hash(),
        "shard": shard,
        "points": exp.points().len(),
        "configurations": configurations,
    });
    serde_json::to_string_pretty(&doc).expect("json serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::Prefixed;
    use std::io::Write;

    /// What `Prefixed` must give: each line copied after its lead, the header after
    /// `lead_header` (or dropped when there is none).
    fn copied(text: &str, lead_header: Option<&str>, lead: &str) -> String {
        let text = if text.is_empty() { "\n" } else { text };
        let mut lines = text.lines();
        let first = lines.next().unwrap_or_default();
        let mut out = lead_header.map_or(String::new(), |h| format!("{h},{first}\n"));
        for line in lines {
            out += &format!("{lead},{line}\n");
        }
        out
    }

    /// The leads are put in front of the lines as a copy line by line would put them, whatever
    /// pieces the text arrives in (a CSV writer hands over its buffer at arbitrary places).
    #[test]
    fn leads_are_put_in_front_as_a_copy_would_put_them() {
        let texts = [
            "rate,seed,x\n0.1,1,\"a,b\"\n0.2,1,é\n",
            "rate,seed\n",
            "rate\n1\n2\n3",
            "a\n\nb\n",
            "",
        ];
        for text in texts {
            for (h, l) in [
                (Some("scenario"), "torus"),
                (Some("scenario,vcs"), "\"x, y\",4"),
                (Some("s"), ""),
                (None, "torus"),
            ] {
                let bytes = text.as_bytes();
                for cut in 0..=bytes.len() {
                    for second in cut..=bytes.len() {
                        let mut out = Vec::new();
                        let mut w = Prefixed::new(&mut out, h, l);
                        w.write_all(&bytes[..cut]).unwrap();
                        w.write_all(&bytes[cut..second]).unwrap();
                        w.write_all(&bytes[second..]).unwrap();
                        w.finish().unwrap();
                        let got = String::from_utf8(out).unwrap();
                        assert_eq!(
                            got,
                            copied(text, h, l),
                            "{text:?} {h:?} {l:?} {cut} {second}"
                        );
                    }
                }
            }
        }
    }
}
