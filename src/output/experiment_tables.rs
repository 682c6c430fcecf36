//! An experiment's files: every table with the experiment's coordinates (`scenario` and one
//! column per swept key) in front of each row, `pooled.csv` when there are replications, the
//! scenario file and `experiment.json`.

use super::{
    channels_csv, histogram_csv, hops_csv, mway_channels_csv, nodes_csv, summary_csv,
    vc_occupancy_csv,
};
use crate::experiment::Experiment;
use crate::network::Network;
use crate::scenario::Pattern;
use crate::stats::PointResult;

/// One file of a result directory: its name and bytes.
pub type File = (String, Vec<u8>);

/// A table made per configuration: the configuration's scenario and network, its results.
type PerConfig<'a> = dyn Fn(&Experiment, usize, &[PointResult]) -> Option<String> + 'a;

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

/// A table assembled from each configuration's: its header once, every row after the
/// coordinates of its configuration. `None` when no configuration has the table.
pub fn with_coordinates(
    exp: &Experiment,
    results: &[PointResult],
    table: &PerConfig,
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
    let lead_header = record(&exp.lead_header());
    let mut out = Vec::new();
    for c in 0..exp.configurations.len() {
        let Some(text) = table(c) else {
            continue;
        };
        let text = prefix_lines(text, &lead_header, &record(&exp.lead(c)));
        if out.is_empty() {
            out = text;
        } else {
            let header = text.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1);
            out.extend_from_slice(&text[header..]);
        }
    }
    (!out.is_empty()).then(|| String::from_utf8(out).expect("UTF-8 text cut at line ends"))
}

/// `text` with `lead_header` and a comma in front of its first line (the header), `lead` and a
/// comma in front of every other, each line ended by a newline. Done in place: the text is
/// widened once and its lines moved back from the end, so that a table of millions of rows
/// (channels.csv of a million-node network) is never held twice.
fn prefix_lines(text: String, lead_header: &str, lead: &str) -> Vec<u8> {
    let mut b = text.into_bytes();
    if b.last() != Some(&b'\n') {
        b.push(b'\n');
    }
    let header = b.iter().position(|&c| c == b'\n').map_or(0, |i| i + 1);
    let rows = b[header..].iter().filter(|&&c| c == b'\n').count();
    let (first, each) = (lead_header.len() + 1, lead.len() + 1);
    let mut end = b.len();
    let mut to = end + first + rows * each;
    b.resize(to, 0);
    while end > header {
        let start = b[..end - 1]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        to -= end - start;
        b.copy_within(start..end, to);
        to -= each;
        b[to..to + each - 1].copy_from_slice(lead.as_bytes());
        b[to + each - 1] = b',';
        end = start;
    }
    b.copy_within(0..header, first);
    b[..first - 1].copy_from_slice(lead_header.as_bytes());
    b[first - 1] = b',';
    b
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
/// histogram.csv, hops.csv, vc_occupancy.csv, mway_channels.csv for m-way networks, pooled.csv
/// with several seeds), the scenario file as scenario.toml, and experiment.json.
pub fn experiment_files(
    exp: &Experiment,
    results: &[PointResult],
    command: &[String],
) -> Vec<File> {
    let tables: Vec<(&str, Box<PerConfig>)> = vec![
        ("summary.csv", Box::new(|_, _, r| Some(summary_csv(r)))),
        (
            "channels.csv",
            Box::new(|e, c, r| {
                let (net, pattern) = network(e, c);
                Some(channels_csv(r, &net, &pattern))
            }),
        ),
        ("nodes.csv", Box::new(|_, _, r| Some(nodes_csv(r)))),
        (
            "histogram.csv",
            Box::new(|e, c, r| {
                Some(histogram_csv(
                    r,
                    e.configurations[c].scenario.run.histogram_bin,
                ))
            }),
        ),
        ("hops.csv", Box::new(|_, _, r| Some(hops_csv(r)))),
        (
            "vc_occupancy.csv",
            Box::new(|_, _, r| Some(vc_occupancy_csv(r))),
        ),
        (
            "mway_channels.csv",
            Box::new(|e, c, r| {
                let net = Network::for_scenario(&e.configurations[c].scenario);
                net.shared.then(|| mway_channels_csv(r, &net))
            }),
        ),
    ];
    let mut files: Vec<File> = tables
        .iter()
        .filter_map(|(name, t)| {
            with_coordinates(exp, results, t.as_ref())
                .map(|text| (name.to_string(), text.into_bytes()))
        })
        .collect();
    if exp.several_seeds() {
        files.push(("pooled.csv".into(), pooled(exp, results).into_bytes()));
    }
    files.push(("scenario.toml".into(), exp.text.clone().into_bytes()));
    files.push((
        "experiment.json".into(),
        experiment_json(exp, command, None).into_bytes(),
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
    use super::prefix_lines;

    /// What `prefix_lines` must give: each line copied after its lead.
    fn copied(text: &str, lead_header: &str, lead: &str) -> String {
        let mut lines = text.lines();
        let mut out = format!("{lead_header},{}\n", lines.next().unwrap_or_default());
        for line in lines {
            out += &format!("{lead},{line}\n");
        }
        out
    }

    #[test]
    fn leads_are_put_in_place_as_a_copy_would_put_them() {
        let texts = [
            "rate,seed,x\n0.1,1,\"a,b\"\n0.2,1,é\n",
            "rate,seed\n",
            "rate\n1\n2\n3",
            "a\n\nb\n",
            "",
        ];
        for text in texts {
            for (h, l) in [
                ("scenario", "torus"),
                ("scenario,vcs", "\"x, y\",4"),
                ("s", ""),
            ] {
                let got = String::from_utf8(prefix_lines(text.to_string(), h, l)).unwrap();
                assert_eq!(got, copied(text, h, l), "{text:?} {h:?} {l:?}");
            }
        }
    }
}
