//! Range and combination checks that turn a `RawScenario` into a `Scenario`.

mod beside;
mod matrix;
mod replies;
mod router;
mod routing;
mod run;
mod topology;
mod trace;
mod traffic;

use super::*;
use crate::error::{echoed, number, quoted};
use crate::spec::keys::RawScenario;
use replies::replies;
use router::router;
use routing::routing;
use run::run;
use topology::topology;
use traffic::traffic;

/// Longest scenario name in bytes: it names a directory, and file systems allow 255 bytes per
/// name (this leaves room for the temporary names beside it).
pub const MAX_NAME_BYTES: usize = 200;

/// Largest supported network, in nodes (memory stays well under 2 GiB at low load).
const MAX_NODES: usize = 1 << 22;

struct Checker<'a> {
    file: &'a str,
    /// The directory the scenario's own paths (`[traffic] matrix`) are relative to.
    dir: &'a std::path::Path,
}

impl Checker<'_> {
    fn err(
        &self,
        key: &str,
        problem: impl std::fmt::Display,
        fix: impl std::fmt::Display,
    ) -> Error {
        Error::Input(format!("{}: {key}: {problem}; fix: {fix}", self.file))
    }

    /// Refuses a list that gives a value twice: the two would be the same points of the
    /// experiment, run twice (seeds, loads).
    fn distinct<T: PartialEq>(
        &self,
        key: &str,
        list: &[T],
        show: impl Fn(&T) -> String,
    ) -> Result<()> {
        match list
            .iter()
            .enumerate()
            .find(|(i, v)| list[..*i].contains(v))
        {
            Some((_, v)) => Err(self.err(
                key,
                format!(
                    "{} is listed twice, and the two would run the same points",
                    show(v)
                ),
                "list each value once",
            )),
            None => Ok(()),
        }
    }

    fn prob(&self, key: &str, v: f64) -> Result<f64> {
        if !(0.0..=1.0).contains(&v) {
            return Err(self.err(
                key,
                format!("{} is not a probability", number(v)),
                "give a number from 0 to 1",
            ));
        }
        Ok(v)
    }

    fn probs(&self, key: &str, v: &[f64]) -> Result<Vec<f64>> {
        if v.is_empty() {
            return Err(self.err(
                key,
                "the list is empty",
                "give at least one number from 0 to 1",
            ));
        }
        v.iter().map(|&x| self.prob(key, x)).collect()
    }

    /// A refusal of the key table's checks, as the file's error.
    fn refused(&self, r: crate::spec::keys::Refusal) -> Error {
        self.err(&r.key, r.problem, r.fix)
    }

    /// A table's plain keys as `read` from it, a refusal reported as any other key's.
    fn plain<T>(&self, read: std::result::Result<T, crate::spec::keys::Refusal>) -> Result<T> {
        read.map_err(|r| self.refused(r))
    }

    /// A whole number within the range the key table allows for `key` (`[table] name`).
    fn ranged(&self, key: &str, v: i64) -> Result<u64> {
        let (lo, hi) = super::keys::range(key);
        self.int(key, v, lo, hi)
    }

    fn int(&self, key: &str, v: i64, lo: i64, hi: i64) -> Result<u64> {
        if v < lo || v > hi {
            return Err(self.refused(crate::spec::keys::out_of_range(key, v, lo, hi)));
        }
        Ok(v as u64)
    }

    /// The choice `name` stands for among `all` (each named by `name_of`), or `default` when
    /// the key is absent; an unknown name is refused as `unknown {what} "name"`, with the
    /// choices.
    fn choice<T: Copy, const N: usize>(
        &self,
        key: &str,
        what: &str,
        name: Option<&str>,
        default: T,
        all: [T; N],
        name_of: fn(T) -> &'static str,
    ) -> Result<T> {
        let Some(name) = name else {
            return Ok(default);
        };
        all.into_iter()
            .find(|&x| name_of(x) == name)
            .ok_or_else(|| {
                self.err(
                    key,
                    format!("unknown {what} {}", quoted(name)),
                    format!("use {}", quoted_choices(&all.map(name_of))),
                )
            })
    }
}

/// Validates `raw`, read from `file` (as messages name it); the paths it gives are relative
/// to `dir`.
pub(super) fn validate(raw: RawScenario, file: &str, dir: &std::path::Path) -> Result<Scenario> {
    let c = Checker { file, dir };
    if raw.name.is_empty()
        || !raw
            .name
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || "-_.".contains(ch))
        || raw.name.starts_with('.')
    {
        return Err(c.err(
            "name",
            format!("{} is not usable as a directory name", quoted(&raw.name)),
            "use letters, digits, '-', '_' and '.', not starting with '.'",
        ));
    }
    if raw.name.len() > MAX_NAME_BYTES {
        return Err(c.err(
            "name",
            format!(
                "the name is {} bytes long, too long for a directory name",
                raw.name.len()
            ),
            format!("use at most {MAX_NAME_BYTES} characters"),
        ));
    }
    let seeds = match raw.seeds {
        Some(s) if s.is_empty() => {
            return Err(c.err(
                "seeds",
                "the list is empty",
                "list at least one seed, or use seed = N",
            ));
        }
        Some(s) => s,
        None => vec![raw.seed],
    };
    c.distinct("seeds", &seeds, |s| s.to_string())?;
    let topology = topology(&c, &raw.topology)?;
    let router = router(&c, &raw.router, &raw.topology, &topology)?;
    let routing = routing(&c, &raw.routing, &topology, &router)?;
    let traffic = traffic(&c, &raw.traffic, &topology, &router)?;
    replies(&c, &traffic, &routing, &topology, &router)?;
    let run = run(&c, &raw.run)?;
    Ok(Scenario {
        name: raw.name,
        seeds,
        topology,
        router,
        routing,
        traffic,
        run,
    })
}

fn pattern(c: &Checker, t: &crate::spec::keys::RawTraffic, topo: &TopologySpec) -> Result<Pattern> {
    let nodes = topo.processors();
    let name = t.pattern.as_str();
    if let Some((problem, fix)) = topo.refuses_pattern(name) {
        return Err(c.err("[traffic] pattern", problem, fix));
    }
    let unused = |key: &str, given: bool, needs: &str| -> Result<()> {
        if given {
            return Err(c.err(
                &format!("[traffic] {key}"),
                format!(
                    "only the {needs} pattern has this key, not {}",
                    quoted(name)
                ),
                format!("remove {key}, or use pattern = \"{needs}\""),
            ));
        }
        Ok(())
    };
    if name != "hotspot" {
        unused("hotspot_node", t.hotspot_node.is_some(), "hotspot")?;
        unused("hotspot_fraction", t.hotspot_fraction.is_some(), "hotspot")?;
    }
    if name != "shift" {
        unused("shift_offset", t.shift_offset.is_some(), "shift")?;
    }
    if name != "matrix" {
        unused("matrix", t.matrix.is_some(), "matrix")?;
        unused("matrix_scale", t.matrix_scale.is_some(), "matrix")?;
    }
    if name != "matrix" {
        unused("matrix", t.matrix.is_some(), "matrix")?;
        unused("matrix_scale", t.matrix_scale.is_some(), "matrix")?;
    }
    if name != "locality" {
        unused("locality_model", t.locality_model.is_some(), "locality")?;
        unused("locality_factor", t.locality_factor.is_some(), "locality")?;
        unused("locality_radius", t.locality_radius.is_some(), "locality")?;
        unused(
            "locality_probability",
            t.locality_probability.is_some(),
            "locality",
        )?;
    }
    let equal_radices = topo.radix.windows(2).all(|w| w[0] == w[1]);
    Ok(match name {
        "uniform" => Pattern::Uniform,
        "hotspot" => {
            let Some(h) = &t.hotspot_fraction else {
                return Err(c.err(
                    "[traffic] hotspot_fraction",
                    "missing",
                    "give the fraction h of messages sent to the hot node, e.g. hotspot_fraction = 0.2",
                ));
            };
            Pattern::Hotspot {
                node: c.int(
                    "[traffic] hotspot_node",
                    t.hotspot_node.unwrap_or(0),
                    0,
                    nodes as i64 - 1,
                )? as u32,
                fraction: c.probs("[traffic] hotspot_fraction", &h.to_vec())?[0],
            }
        }
        "bit-reversal" => {
            if !nodes.is_power_of_two() {
                return Err(c.err(
                    "[traffic] pattern",
                    format!("bit-reversal needs a power-of-two node count; this network has {nodes} nodes"),
                    "use radices that are powers of two, or another pattern (matrix-transpose has a coordinate version)",
                ));
            }
            Pattern::BitReversal
        }
        "matrix-transpose" => {
            if !nodes.is_power_of_two() && (!equal_radices || topo.radix.len() < 2) {
                return Err(c.err(
                    "[traffic] pattern",
                    "matrix-transpose on a network whose node count is not a power of two swaps coordinates, which needs at least 2 dimensions of equal radix",
                    "use equal radices in every dimension (k = one number) and n >= 2",
                ));
            }
            Pattern::MatrixTranspose
        }
        "bit-complement" => Pattern::BitComplement,
        "tornado" => {
            if topo.radix.iter().all(|&k| k == 2) {
                return Err(c.err(
                    "[traffic] pattern",
                    "tornado maps every node of a radix-2 network onto itself",
                    "use bit-complement on a hypercube",
                ));
            }
            Pattern::Tornado
        }
        "neighbor" => Pattern::Neighbor,
        "permutation" | "random-permutation" => Pattern::Permutation,
        "group-shift" => Pattern::GroupShift,
        "matrix" => Pattern::Matrix,
        "shift" => {
            let Some(offset) = t.shift_offset else {
                return Err(c.err(
                    "[traffic] shift_offset",
                    "missing",
                    "give the offset in processor ids, e.g. shift_offset = 1",
                ));
            };
            Pattern::Shift {
                offset: c.int("[traffic] shift_offset", offset, 1, nodes as i64 - 1)? as u32,
            }
        }
        "locality" => Pattern::Locality(match t.locality_model.as_deref() {
            None | Some("decreasing") => {
                if t.locality_radius.is_some() || t.locality_probability.is_some() {
                    return Err(c.err(
                        "[traffic] locality_radius",
                        "the decreasing-probability model has no radius or probability",
                        "set locality_model = \"sphere\", or give only locality_factor",
                    ));
                }
                let f = t.locality_factor.ok_or_else(|| {
                    c.err(
                        "[traffic] locality_factor",
                        "missing",
                        "give the decay φ in (0, 1], e.g. locality_factor = 0.5",
                    )
                })?;
                if !(f > 0.0 && f <= 1.0) {
                    return Err(c.err(
                        "[traffic] locality_factor",
                        format!("{} is out of range", number(f)),
                        "give φ in (0, 1]",
                    ));
                }
                Locality::Decreasing { factor: f }
            }
            Some("sphere") => {
                if t.locality_factor.is_some() {
                    return Err(c.err(
                        "[traffic] locality_factor",
                        "the sphere model has no decay factor",
                        "give locality_radius and locality_probability, or use locality_model = \"decreasing\"",
                    ));
                }
                let r = t.locality_radius.ok_or_else(|| {
                    c.err(
                        "[traffic] locality_radius",
                        "missing",
                        "give the sphere's radius L in hops, e.g. locality_radius = 2",
                    )
                })?;
                let p = t.locality_probability.ok_or_else(|| {
                    c.err(
                        "[traffic] locality_probability",
                        "missing",
                        "give the probability p of a destination inside the sphere",
                    )
                })?;
                Locality::Sphere {
                    radius: c.ranged("[traffic] locality_radius", r)? as u32,
                    probability: c.prob("[traffic] locality_probability", p)?,
                }
            }
            Some(other) => {
                return Err(c.err(
                    "[traffic] locality_model",
                    format!("unknown locality model {}", quoted(other)),
                    "use \"decreasing\" or \"sphere\"",
                ));
            }
        }),
        other => {
            return Err(c.err(
                "[traffic] pattern",
                format!("unknown pattern {}", quoted(other)),
                format!("use {}", quoted_choices(&PATTERN_NAMES)),
            ));
        }
    })
}
