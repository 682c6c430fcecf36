//! Scenarios: the TOML file a user writes, parsed and validated into a `Scenario` (the typed
//! spec of `crate::spec`): the loader, above the layers that read the spec.
//!
//! Every error names the file, the key and a fix, and is reported before anything is written.

pub mod document;
mod keys;
mod messages;
mod schema_check;
mod validate;

use crate::error::{Error, Result};
pub use crate::spec::{
    Algorithm, Crossbar, Locality, PATTERN_NAMES, Pattern, Process, RouterSpec, RoutingSpec,
    RunSpec, Scenario, Selection, TopologySpec, TrafficSpec, quoted_choices,
};
use messages::{schema_error, syntax_error};
use schema_check::{Problem, SchemaError};
use std::path::Path;

pub use crate::spec::keys::RawScenario;
pub use keys::keys_reference_markdown;

/// The largest scenario file read, in bytes (1 MiB: scenarios are a few kilobytes).
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;

impl Scenario {
    /// Reads and validates a scenario file.
    pub fn load(path: &Path) -> Result<Scenario> {
        Self::from_toml(&Self::read(path)?, &path.display().to_string())
    }

    /// Reads a scenario file's text; the error names the file and a fix. Only a regular file
    /// of at most [`MAX_SCENARIO_BYTES`] is read: a FIFO, a device or a directory is refused
    /// without being opened for reading, and the read is bounded whatever the file does.
    pub fn read(path: &Path) -> Result<String> {
        use std::io::Read;
        let file = path.display();
        let refuse = |what: String, fix: &str| Error::Input(format!("{file}: {what}; fix: {fix}"));
        let meta = std::fs::metadata(path).map_err(|e| {
            let fix = match e.kind() {
                std::io::ErrorKind::NotFound => {
                    "check the path: give an existing .toml scenario file"
                }
                std::io::ErrorKind::PermissionDenied => {
                    "make the file readable, or give another path"
                }
                _ => "give the path of a readable .toml scenario file",
            };
            refuse(format!("cannot read the scenario file ({e})"), fix)
        })?;
        if meta.is_dir() {
            return Err(refuse(
                "cannot read the scenario file (it is a directory)".into(),
                "give the path of a .toml file, not a directory",
            ));
        }
        if !meta.is_file() {
            return Err(refuse(
                "not a regular file (a pipe, a device or a socket)".into(),
                "give the path of a .toml scenario file saved on disk",
            ));
        }
        let too_big = |n: u64| {
            refuse(
                format!(
                    "the scenario file is {n} bytes, more than the {MAX_SCENARIO_BYTES} bytes a scenario can need"
                ),
                "give a scenario file (a few kilobytes of TOML), not another file",
            )
        };
        if meta.len() > MAX_SCENARIO_BYTES {
            return Err(too_big(meta.len()));
        }
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_SCENARIO_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| {
                refuse(
                    format!("cannot read the scenario file ({e})"),
                    "make the file readable, or give another path",
                )
            })?;
        if bytes.len() as u64 > MAX_SCENARIO_BYTES {
            return Err(too_big(bytes.len() as u64));
        }
        String::from_utf8(bytes).map_err(|e| {
            Error::Input(format!(
                "{file}: the scenario file is not UTF-8 text (invalid byte at offset {}); fix: save it as UTF-8",
                e.utf8_error().valid_up_to()
            ))
        })
    }

    /// Parses and validates scenario text; `file` names it in error messages.
    pub fn from_toml(text: &str, file: &str) -> Result<Scenario> {
        // Parse the syntax first: a syntax error is reported as such, and the parsed document's
        // spans let a schema error name the key it is about.
        let doc = toml::de::DeTable::parse(text)
            .map_err(|e| Error::Input(syntax_error(file, text, &e)))?;
        // Check the keys and types against our own schema first, so that the message comes
        // from it and not from serde's wording; serde then deserializes what passed.
        schema_check::check_document(doc.get_ref(), &doc.span())
            .map_err(|e| Error::Input(schema_error(file, text, doc.get_ref(), e)))?;
        let raw: RawScenario = toml::from_str(text).map_err(|e| {
            // Not reached for any case the schema check models: serde's message as it is.
            let e = SchemaError {
                problem: Problem::Other(e.message().to_string()),
                span: e.span(),
            };
            Error::Input(schema_error(file, text, doc.get_ref(), e))
        })?;
        // The scenario's own paths are relative to its directory (`file` is its path).
        let dir = Path::new(file).parent().unwrap_or(Path::new(""));
        validate::validate(raw, file, dir)
    }

    /// One scenario per traffic variant of the sweep (each hotspot fraction × each pattern
    /// fraction), in that order.
    pub fn variants(&self) -> Vec<Scenario> {
        let hs: Vec<Option<f64>> = if self.traffic.hotspot_fractions.is_empty() {
            vec![None]
        } else {
            self.traffic
                .hotspot_fractions
                .iter()
                .map(|&h| Some(h))
                .collect()
        };
        let mut out = Vec::new();
        for h in &hs {
            for &x in &self.traffic.pattern_fractions {
                let mut v = self.clone();
                v.traffic.pattern_fraction = x;
                if let (Some(h), Pattern::Hotspot { fraction, .. }) = (h, &mut v.traffic.pattern) {
                    *fraction = *h;
                }
                out.push(v);
            }
        }
        out
    }

    /// Vertices of the network's graph, ∏ k_i: the routers (and processors) of a k-ary n-cube
    /// or HyperX, the m-way channels of an m-way network, a fat tree's k^n processors.
    pub fn nodes(&self) -> usize {
        self.topology.radix.iter().map(|&k| k as usize).product()
    }
}
