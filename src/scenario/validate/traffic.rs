//! `[traffic]`: the pattern's matrix, message lengths, arrival process, source concurrency and
//! offered loads.

use super::*;

/// `[traffic] source_concurrency`: 1 (the default) to the injection virtual channels, V on a
/// k-ary n-cube or HyperX and 1 in a k-ary m-way network (its processors inject into one
/// buffer), or "vcs" for all of them.
fn source_concurrency(
    c: &Checker,
    t: &crate::spec::keys::RawTraffic,
    topo: &TopologySpec,
    router: &RouterSpec,
) -> Result<u32> {
    use crate::spec::keys::Count;
    const KEY: &str = "[traffic] source_concurrency";
    let mway = topo.mway().is_some();
    let inj_vcs = if mway { 1 } else { router.vcs };
    let channels = if mway {
        "a k-ary m-way network's processor injects into 1 buffer".to_string()
    } else if inj_vcs == 1 {
        "the injection channel has 1 virtual channel ([router] vcs = 1)".to_string()
    } else {
        format!("the injection channel has {inj_vcs} virtual channels ([router] vcs = {inj_vcs})")
    };
    let fix = if inj_vcs == 1 {
        "use 1 (or \"vcs\", which is 1 here), or leave the key out".to_string()
    } else {
        format!("use a whole number from 1 to {inj_vcs}, or \"vcs\" for {inj_vcs}")
    };
    match &t.source_concurrency {
        None => Ok(1),
        Some(Count::Name(name)) if name == "vcs" => Ok(inj_vcs),
        Some(Count::Name(name)) => Err(c.err(
            KEY,
            format!("unknown value {} (a whole number or \"vcs\")", quoted(name)),
            fix,
        )),
        Some(Count::Number(n)) if *n < 1 => Err(c.err(
            KEY,
            format!("{n} messages at once is out of range (at least 1)"),
            fix,
        )),
        Some(Count::Number(n)) if *n > inj_vcs as i64 => Err(c.err(
            KEY,
            format!("{n} messages at once need {n} injection virtual channels, but {channels}"),
            fix,
        )),
        Some(Count::Number(n)) => Ok(*n as u32),
    }
}

pub(super) fn traffic(
    c: &Checker,
    t: &crate::spec::keys::RawTraffic,
    topo: &TopologySpec,
    router: &RouterSpec,
) -> Result<TrafficSpec> {
    let pattern = pattern(c, t, topo)?;
    if let Some(name) = &t.trace {
        return super::trace::traffic(c, t, topo, name);
    }
    super::trace::no_trace_keys(c, t)?;
    let pattern_fractions = match &t.pattern_fraction {
        Some(x) => c.probs("[traffic] pattern_fraction", &x.to_vec())?,
        None => vec![1.0],
    };
    let (lengths, length_probabilities) = lengths(c, t)?;
    let process = c.choice(
        "[traffic] process",
        "arrival process",
        t.process.as_deref(),
        Process::default(),
        Process::ALL,
        Process::name,
    )?;
    if process != Process::OnOff && t.burst_length.is_some() {
        return Err(c.err(
            "[traffic] burst_length",
            format!(
                "only the on-off process has bursts, not {}",
                quoted(process.name())
            ),
            "remove burst_length, or use process = \"on-off\"",
        ));
    }
    let source_concurrency = source_concurrency(c, t, topo, router)?;
    let mean = lengths
        .iter()
        .zip(&length_probabilities)
        .map(|(&l, &p)| l as f64 * p)
        .sum::<f64>();
    let matrix = match pattern {
        Pattern::Matrix => Some(std::sync::Arc::new(super::matrix::read(c, t, topo)?)),
        _ => None,
    };
    // The busiest source: its row and its rate relative to λ.
    let (row, busiest) = matrix.as_ref().map_or((0, 1.0), |m| {
        m.weights()
            .into_iter()
            .enumerate()
            .fold((0, 0.0), |b, (s, w)| if w > b.1 { (s, w) } else { b })
    });
    let (key, list, per_flit) = loads(c, t, matrix.as_deref())?;
    if list.is_empty() {
        return Err(c.err(key, "the list is empty", "list at least one load"));
    }
    let load = Load {
        key,
        per_flit,
        mean,
        process,
        busiest,
        row,
    };
    let rates = list
        .iter()
        .map(|&v| load.rate(c, v))
        .collect::<Result<Vec<f64>>>()?;
    c.distinct(key, &list, |&v| number(v))?;
    let hotspot_fractions = match &t.hotspot_fraction {
        Some(h) if matches!(pattern, Pattern::Hotspot { .. }) => {
            c.probs("[traffic] hotspot_fraction", &h.to_vec())?
        }
        _ => vec![],
    };
    Ok(TrafficSpec {
        options: c.plain(crate::spec::keys::TrafficOptions::read(t))?,
        pattern,
        pattern_fraction: pattern_fractions[0],
        pattern_fractions,
        hotspot_fractions,
        lengths,
        length_probabilities,
        rates,
        process,
        source_concurrency,
        flit_rates: per_flit.then_some(list),
        matrix,
        trace: None,
    })
}

/// The key giving the offered loads, the loads as given, and whether in flits/node/cycle:
/// `rates` or `flit_rates`, or an absolute matrix's mean row sum (neither given).
fn loads(
    c: &Checker,
    t: &crate::spec::keys::RawTraffic,
    matrix: Option<&crate::spec::TrafficMatrix>,
) -> Result<(&'static str, Vec<f64>, bool)> {
    Ok(match (&t.rates, &t.flit_rates, matrix) {
        (None, None, Some(m)) if m.absolute => {
            // The cells are flits/cycle: the offered load is the mean row sum, total / N.
            let flits = vec![m.total() / m.n as f64];
            ("[traffic] matrix", flits, true)
        }
        (Some(_), _, Some(m)) | (_, Some(_), Some(m)) if m.absolute => {
            return Err(c.err(
                if t.rates.is_some() { "[traffic] rates" } else { "[traffic] flit_rates" },
                "matrix_scale = \"absolute\" gives the load in the matrix's cells (flits/cycle), so there are no loads to list",
                "remove rates and flit_rates, or use matrix_scale = \"relative\" to scale the matrix to them",
            ));
        }
        (Some(r), None, _) => ("[traffic] rates", r.clone(), false),
        (None, Some(r), _) => ("[traffic] flit_rates", r.clone(), true),
        (Some(_), Some(_), _) => {
            return Err(c.err(
                "[traffic] rates",
                "both rates and flit_rates are given",
                "keep one: rates in messages/node/cycle or flit_rates in flits/node/cycle",
            ));
        }
        (None, None, _) => {
            return Err(c.err(
                "[traffic] rates",
                "missing",
                "list the offered loads, e.g. rates = [0.001, 0.002] (messages/node/cycle) or flit_rates = [0.1] (flits/node/cycle)",
            ));
        }
    })
}

/// How the offered loads of one key are read and bounded.
struct Load {
    /// The key that gives them, as messages name it.
    key: &'static str,
    /// In flits/node/cycle (else messages/node/cycle).
    per_flit: bool,
    /// M̄, the mean message length.
    mean: f64,
    process: Process,
    /// The busiest source's rate relative to λ (a traffic matrix's largest N·rowsum/total; 1
    /// for the other patterns).
    busiest: f64,
    /// The busiest source's row of the matrix.
    row: usize,
}

impl Load {
    /// λ of load `v`, refused when not positive or more than the busiest source can carry.
    fn rate(&self, c: &Checker, v: f64) -> Result<f64> {
        let key = self.key;
        if !v.is_finite() || v <= 0.0 {
            return Err(c.err(
                key,
                format!("load {} is not positive", number(v)),
                "give loads > 0",
            ));
        }
        let rate = if self.per_flit { v / self.mean } else { v };
        let flits = rate * self.mean;
        let busiest = if self.busiest == 1.0 {
            String::new()
        } else {
            format!(
                " at the busiest source (row {} of the matrix, 0-based, {} times the mean)",
                self.row,
                number(self.busiest)
            )
        };
        let (rate_b, flits_b) = (rate * self.busiest, flits * self.busiest);
        if key == "[traffic] matrix" && (flits_b > 1.0 || self.process != Process::Poisson) {
            return self.absolute(c, rate, rate_b, flits_b);
        }
        // Checked before the flit rate (which bounds λ by 1 / mean length already, but for
        // rounding), so that a Bernoulli scenario is told why λ itself is bounded.
        if self.process == Process::Bernoulli && rate_b > 1.0 {
            return Err(c.err(
                key,
                format!(
                    "load {} is λ = {} messages/node/cycle{busiest}, but a Bernoulli source makes one trial per cycle, so λ is at most 1",
                    number(v),
                    number(rate_b)
                ),
                "give loads whose λ (flit rate divided by the mean message length) is at most 1 message/node/cycle",
            ));
        }
        if self.process == Process::OnOff && flits_b >= 1.0 {
            return Err(c.err(
                key,
                format!(
                    "load {} is {} flits/node/cycle{busiest}, but an on-off source bursts at its peak rate of 1 flit/cycle (one message per M̄ cycles) and must also spend time off, so its flit rate is below 1",
                    number(v),
                    number(flits_b)
                ),
                "give loads whose flit rate (λ times the mean message length) is below 1, or use process = \"poisson\"",
            ));
        }
        if flits_b > 1.0 {
            return Err(c.err(
                key,
                format!(
                    "load {} is {} flits/node/cycle{busiest}, above the injection channel's 1 flit/cycle",
                    number(v),
                    number(flits_b)
                ),
                "give loads whose flit rate (λ times the mean message length) is at most 1",
            ));
        }
        Ok(rate)
    }

    /// λ of an absolute matrix, refused when its busiest row sums to more than its source's
    /// process carries (1 flit/cycle; below 1 on-off; at most 1 message/cycle Bernoulli).
    fn absolute(&self, c: &Checker, rate: f64, rate_b: f64, flits_b: f64) -> Result<f64> {
        let over = match self.process {
            Process::OnOff => flits_b >= 1.0,
            Process::Bernoulli => rate_b > 1.0 || flits_b > 1.0,
            Process::Poisson => flits_b > 1.0,
        };
        if !over {
            return Ok(rate);
        }
        Err(c.err(
            self.key,
            format!(
                "row {} (0-based) sums to {} flits/cycle, more than its source's {} can carry",
                self.row,
                number(flits_b),
                match self.process {
                    Process::OnOff => "on-off process (below 1 flit/cycle)",
                    Process::Bernoulli => "Bernoulli process (1 message/cycle and 1 flit/cycle)",
                    Process::Poisson => "injection channel (1 flit/cycle)",
                }
            ),
            "scale the matrix down so that every row sums to at most 1 flit/cycle (below 1 on-off), or use matrix_scale = \"relative\" with flit_rates",
        ))
    }
}

fn lengths(c: &Checker, t: &crate::spec::keys::RawTraffic) -> Result<(Vec<u32>, Vec<f64>)> {
    match (
        t.message_length,
        &t.message_lengths,
        &t.length_probabilities,
    ) {
        (Some(_), Some(_), _) => Err(c.err(
            "[traffic] message_lengths",
            "both message_length and message_lengths are given",
            "keep message_length = M for one length, or message_lengths with length_probabilities",
        )),
        (m, None, None) => Ok((
            vec![c.ranged("[traffic] message_length", m.unwrap_or(32))? as u32],
            vec![1.0],
        )),
        (_, None, Some(_)) => Err(c.err(
            "[traffic] length_probabilities",
            "given without message_lengths",
            "list the lengths too, e.g. message_lengths = [8, 64]",
        )),
        (None, Some(ls), probs) => {
            if ls.is_empty() {
                return Err(c.err(
                    "[traffic] message_lengths",
                    "the list is empty",
                    "list at least one length",
                ));
            }
            let lengths = ls
                .iter()
                .map(|&l| c.ranged("[traffic] message_lengths", l).map(|l| l as u32))
                .collect::<Result<Vec<_>>>()?;
            let probs = match probs {
                None if ls.len() == 1 => vec![1.0],
                None => {
                    return Err(c.err(
                        "[traffic] length_probabilities",
                        "missing: several message lengths need their probabilities",
                        format!("give {} probabilities summing to 1", ls.len()),
                    ));
                }
                Some(p) => p.clone(),
            };
            if probs.len() != lengths.len()
                || probs.iter().any(|p| !(0.0..=1.0).contains(p))
                || (probs.iter().sum::<f64>() - 1.0).abs() > 1e-9
            {
                return Err(c.err(
                    "[traffic] length_probabilities",
                    format!(
                        "{} is not one probability per length summing to 1",
                        echoed(&format!("{probs:?}"))
                    ),
                    format!("give {} numbers from 0 to 1 that sum to 1", lengths.len()),
                ));
            }
            Ok((lengths, probs))
        }
    }
}
