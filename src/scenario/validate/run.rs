//! The validated `[run]` table: the phases of a load point (warm-up, fixed or automatic;
//! window, fixed or lengthened to a precision; drain) and its run control.

use super::Checker;
use crate::error::{Result, quoted};
use crate::scenario::RunSpec;
use crate::spec::Precision;
use crate::spec::keys::{Count, RawRun};

/// The default `[run] max_warmup_cycles`: ten times the default fixed warm-up.
pub const DEFAULT_MAX_WARMUP: u64 = 100_000;

/// The default `[run] max_measure_cycles`, in multiples of `measure_cycles`.
pub const DEFAULT_MEASURE_CAP_FACTOR: u64 = 10;

/// The `[run]` table, its keys in range and consistent with each other.
pub(super) fn run(c: &Checker, r: &RawRun) -> Result<RunSpec> {
    let measure = c.ranged("[run] measure_cycles", r.measure_cycles)?;
    let batches = c.ranged("[run] batches", r.batches)? as u32;
    if measure < batches as u64 {
        return Err(c.err(
            "[run] measure_cycles",
            format!("{measure} cycles cannot be split into {batches} batches"),
            "make measure_cycles at least [run] batches",
        ));
    }
    let (warmup_cycles, auto_warmup) = warmup(c, r)?;
    Ok(RunSpec {
        warmup_cycles,
        auto_warmup,
        precision: precision(c, r, measure)?,
        measure_cycles: measure,
        drain_cycles: match r.drain_cycles {
            Some(d) => c.ranged("[run] drain_cycles", d)?,
            None => measure.max(10_000),
        },
        watchdog_cycles: c.ranged("[run] watchdog_cycles", r.watchdog_cycles)?,
        max_backlog: c.ranged("[run] max_backlog", r.max_backlog)?,
        batches,
        histogram_bin: c.ranged("[run] histogram_bin", r.histogram_bin)?,
        threads_per_point: c.ranged("[run] threads_per_point", r.threads_per_point)? as usize,
    })
}

/// `warmup_cycles` (a number, or "auto") and `max_warmup_cycles` (only with "auto"): the fixed
/// warm-up (0 when automatic) and the automatic warm-up's cap.
fn warmup(c: &Checker, r: &RawRun) -> Result<(u64, Option<u64>)> {
    const KEY: &str = "[run] warmup_cycles";
    let auto = match &r.warmup_cycles {
        None => false,
        Some(Count::Name(name)) if name == "auto" => true,
        Some(Count::Name(name)) => {
            return Err(c.err(
                KEY,
                format!(
                    "unknown value {} (a whole number or \"auto\")",
                    quoted(name)
                ),
                "give the warm-up in cycles, or \"auto\" to end it when the run has settled",
            ));
        }
        Some(Count::Number(n)) => return fixed(c, r, c.int(KEY, *n, 0, 1 << 40)?),
    };
    if !auto {
        return fixed(c, r, 10_000);
    }
    let cap = match r.max_warmup_cycles {
        Some(m) => c.ranged("[run] max_warmup_cycles", m)?,
        None => DEFAULT_MAX_WARMUP,
    };
    Ok((0, Some(cap)))
}

/// A fixed warm-up of `cycles`: `max_warmup_cycles` has no meaning then.
fn fixed(c: &Checker, r: &RawRun, cycles: u64) -> Result<(u64, Option<u64>)> {
    match r.max_warmup_cycles {
        Some(_) => Err(c.err(
            "[run] max_warmup_cycles",
            "it caps an automatic warm-up, but warmup_cycles is fixed",
            "remove max_warmup_cycles, or set warmup_cycles = \"auto\"",
        )),
        None => Ok((cycles, None)),
    }
}

/// `precision` in (0, 1) and `max_measure_cycles` (only with `precision`, at least
/// `measure_cycles`, whose window is the first one measured).
fn precision(c: &Checker, r: &RawRun, measure: u64) -> Result<Option<Precision>> {
    let Some(fraction) = r.precision else {
        return match r.max_measure_cycles {
            Some(_) => Err(c.err(
                "[run] max_measure_cycles",
                "it caps a window lengthened to a precision, but precision is not set",
                "remove max_measure_cycles, or set [run] precision (e.g. 0.01)",
            )),
            None => Ok(None),
        };
    };
    if !(fraction > 0.0 && fraction < 1.0) {
        return Err(c.err(
            "[run] precision",
            format!("{fraction} is not in (0, 1)"),
            "give the 95% half-width as a fraction of the mean latency, e.g. 0.01 for 1%",
        ));
    }
    let cap = match r.max_measure_cycles {
        Some(m) => c.ranged("[run] max_measure_cycles", m)?,
        None => measure.saturating_mul(DEFAULT_MEASURE_CAP_FACTOR),
    };
    if cap < measure {
        return Err(c.err(
            "[run] max_measure_cycles",
            format!("{cap} cycles is below measure_cycles = {measure}, the first window"),
            format!("make max_measure_cycles at least {measure}, or lower measure_cycles"),
        ));
    }
    Ok(Some(Precision {
        fraction,
        max_measure_cycles: cap,
    }))
}
