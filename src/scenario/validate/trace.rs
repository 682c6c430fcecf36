//! `[traffic] trace`: the trace file, resolved relative to the scenario's directory (as
//! `matrix` is), read and checked; its format from the file's name (`.csv`: CSV; `.bz2`:
//! netrace v1); and the keys that describe sources, refused beside it.

use super::*;
use crate::spec::keys::RawTraffic;
use crate::spec::{TraceFormat, TraceSpec};
use crate::traffic::trace::{Refusal, read_csv, read_netrace};

/// The largest trace file read, in bytes.
const MAX_TRACE_BYTES: u64 = 1 << 30;

/// The key of the trace.
const KEY: &str = "[traffic] trace";

/// The `[traffic]` of a scenario with the trace `name`: its trace checked, one point (rate 0: the
/// trace gives the load), and the source keys refused. `pattern` has a default, so a written
/// `pattern = "uniform"` cannot be told from none and is ignored; any other pattern is refused.
pub(super) fn traffic(
    c: &Checker,
    t: &RawTraffic,
    topo: &TopologySpec,
    name: &str,
) -> Result<TrafficSpec> {
    refuse_sources(c, t)?;
    let speedup = t.speedup.unwrap_or(1.0);
    if !speedup.is_finite() || speedup <= 0.0 {
        return Err(c.err(
            "[traffic] speedup",
            format!("{} is not positive", number(speedup)),
            "give a number > 0 (2 replays the trace's cycles twice as fast)",
        ));
    }
    let format = format_of(c, name)?;
    let flit_bytes = match (format, t.trace_flit_bytes) {
        (TraceFormat::Csv, Some(_)) => {
            return Err(c.err(
                "[traffic] trace_flit_bytes",
                "a CSV trace gives its lengths in flits",
                "remove trace_flit_bytes",
            ));
        }
        (TraceFormat::Csv, None) => 0,
        (TraceFormat::Netrace, b) => c.ranged("[traffic] trace_flit_bytes", b.unwrap_or(8))? as u32,
    };
    let path = c.dir.join(name);
    let shown = path.display().to_string();
    let bytes = read(c, &path)?;
    let processors = topo.processors();
    let refused = |r: Refusal| c.err(KEY, r.problem, r.fix);
    let messages = match format {
        TraceFormat::Csv => {
            let text = std::str::from_utf8(&bytes).map_err(|e| {
                c.err(
                    KEY,
                    format!(
                        "{shown} is not UTF-8 text (invalid byte at offset {})",
                        e.valid_up_to()
                    ),
                    "save the trace as a UTF-8 (or ASCII) CSV file",
                )
            })?;
            read_csv(text, &shown, processors).map_err(refused)?
        }
        TraceFormat::Netrace => {
            read_netrace(&bytes, &shown, flit_bytes, processors).map_err(refused)?
        }
    };
    if messages.is_empty() {
        return Err(c.err(
            KEY,
            format!("{shown} has no messages"),
            "give a trace of at least one message",
        ));
    }
    let trace = TraceSpec {
        file: name.to_string(),
        hash: format!("{:016x}", super::matrix::fnv1a(&bytes)),
        format,
        speedup,
        flit_bytes,
        messages,
    };
    // The trace's lengths and the share of its messages of each.
    let mut counts = std::collections::BTreeMap::new();
    for &l in &trace.messages.len {
        *counts.entry(l as u32).or_insert(0u64) += 1;
    }
    let n = trace.messages.len() as f64;
    Ok(TrafficSpec {
        options: c.plain(crate::spec::keys::TrafficOptions::read(t))?,
        lengths: counts.keys().copied().collect(),
        length_probabilities: counts.values().map(|&k| k as f64 / n).collect(),
        rates: vec![0.0],
        source_concurrency: 1,
        trace: Some(std::sync::Arc::new(trace)),
        ..TrafficSpec::default()
    })
}

/// Refuses the keys that describe sources beside a trace (`pattern` only when not its default).
fn refuse_sources(c: &Checker, t: &RawTraffic) -> Result<()> {
    let sources = [
        ("rates", t.rates.is_some()),
        ("flit_rates", t.flit_rates.is_some()),
        ("process", t.process.is_some()),
        ("message_length", t.message_length.is_some()),
        ("message_lengths", t.message_lengths.is_some()),
        ("length_probabilities", t.length_probabilities.is_some()),
        ("pattern_fraction", t.pattern_fraction.is_some()),
        ("burst_length", t.burst_length.is_some()),
        ("pattern", t.pattern != "uniform"),
    ];
    if let Some((key, _)) = sources.iter().find(|(_, given)| *given) {
        return Err(c.err(
            &format!("[traffic] {key}"),
            "a trace gives the messages (their cycles, places and lengths), so sources have no loads, pattern, process or lengths",
            format!("remove {key}, or remove trace to use sources"),
        ));
    }
    Ok(())
}

/// The format of the trace file `name`, from its extension.
fn format_of(c: &Checker, name: &str) -> Result<TraceFormat> {
    Ok(if name.ends_with(".csv") {
        TraceFormat::Csv
    } else if name.ends_with(".bz2") {
        TraceFormat::Netrace
    } else {
        return Err(c.err(
            KEY,
            format!("{} is neither .csv nor .bz2", quoted(name)),
            "name a CSV trace file.csv, or a netrace v1 trace file.tra.bz2",
        ));
    })
}

/// Refuses `speedup` and `trace_flit_bytes` without a trace.
pub(super) fn no_trace_keys(c: &Checker, t: &RawTraffic) -> Result<()> {
    for (key, given) in [
        ("speedup", t.speedup.is_some()),
        ("trace_flit_bytes", t.trace_flit_bytes.is_some()),
    ] {
        if given {
            return Err(c.err(
                &format!("[traffic] {key}"),
                "only a trace has this key",
                format!("remove {key}, or give trace = \"file\""),
            ));
        }
    }
    Ok(())
}

/// The file's bytes, refused when it cannot be read or is too large.
fn read(c: &Checker, path: &std::path::Path) -> Result<Vec<u8>> {
    let file = super::beside::Beside {
        key: KEY,
        kind: "trace file",
        max: MAX_TRACE_BYTES,
        too_large: "replay a shorter trace",
    };
    file.read(c, path)
}
