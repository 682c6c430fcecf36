//! The key table: every scenario key declared once, with its type, whether it may be left out
//! (and its default as text), its unit, a one-line doc and the check of its value.
//!
//! Each table is declared once, as its serde struct and its rows (`table!`, in `network.rs` and
//! `workload.rs`). The schema check reads its key lists from it (`schema_check.rs`), unknown-key messages
//! search it for a close spelling or the right table (`messages.rs`), and
//! [`keys_reference_markdown`] writes the key reference, `docs/src/reference/keys.md`, from it.
//! A unit test checks its key lists against the fields serde reads.

/// Declares one table once: its serde struct (`Raw*`, one field per key, documented by the
/// key's doc) and its rows of the key table (a static slice named by the second argument).
macro_rules! table {
    (
        $(#[$meta:meta])*
        $raw:ident, $rows:ident, $table:literal {
            $(
                $(#[$attr:meta])*
                $field:ident : $fty:ty => {
                    ty: $ty:expr,
                    need: $need:expr,
                    default: $default:literal,
                    unit: $unit:literal,
                    allowed: $allowed:expr,
                    doc: $doc:literal $(,)?
                }
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(serde::Deserialize, Debug, Clone)]
        #[serde(deny_unknown_fields)]
        pub struct $raw {
            $(
                $(#[$attr])*
                #[doc = $doc]
                pub $field: $fty,
            )*
        }

        /// The table's rows of the key table, in its struct's field order.
        pub(super) static $rows: &[Key] = &[
            $(
                Key {
                    table: $table,
                    name: stringify!($field),
                    ty: $ty,
                    need: $need,
                    default: $default,
                    unit: $unit,
                    allowed: $allowed,
                    doc: $doc,
                },
            )*
        ];
    };
}

mod network;
mod workload;

pub use network::{RawRouter, RawRouting, RawScenario, RawTopology};
pub use workload::{RawRun, RawTraffic};

/// The key table: every table's rows, the top level first, then the tables in file order.
static TABLES: [&[Key]; 6] = [
    network::SCENARIO,
    network::TOPOLOGY,
    network::ROUTER,
    network::ROUTING,
    workload::TRAFFIC,
    workload::RUN,
];

/// Every key of the key table, table by table.
fn all_keys() -> impl Iterator<Item = &'static Key> + Clone {
    TABLES.iter().flat_map(|t| t.iter())
}

/// What a key's value must be, as the `Raw*` structs declare it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ty {
    /// `String`.
    Str,
    /// `bool`.
    Bool,
    /// `i64`.
    Int,
    /// `u64`.
    Uint,
    /// `f64`.
    Num,
    /// `Vec<_>` of the inner type.
    List(&'static Ty),
    /// `Radix`: a whole number or a list of whole numbers (untagged).
    Radix,
    /// `Values`: a number or a list of numbers (untagged).
    Values,
    /// `Count`: a whole number or a string (untagged).
    IntOrStr,
    /// A nested `Raw*` struct: the table of that name.
    Table(&'static str),
}

impl Ty {
    /// The type in the reference's words.
    fn words(self) -> String {
        match self {
            Ty::Str => "text".into(),
            Ty::Bool => "true/false".into(),
            Ty::Int => "integer".into(),
            Ty::Uint => "integer ≥ 0".into(),
            Ty::Num => "number".into(),
            Ty::List(t) => format!("list of {}", plural(t.words())),
            Ty::Radix => "integer, or a list of integers".into(),
            Ty::Values => "number, or a list to sweep".into(),
            Ty::IntOrStr => "integer or text".into(),
            Ty::Table(t) => format!("table [{t}]"),
        }
    }
}

/// A type's words for the items of a list.
fn plural(words: String) -> String {
    match words.as_str() {
        "integer ≥ 0" => "integers ≥ 0".into(),
        w => format!("{w}s"),
    }
}

/// Whether a key may be left out, and how serde fills it in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// No default: leaving the key out is an error.
    Required,
    /// An `Option` without `#[serde(default)]`: `None` when left out of a table.
    Optional,
    /// `#[serde(default)]`: its default when left out.
    Default,
}

/// The values a key accepts beyond its type, checked when the scenario is validated.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Allowed {
    /// Any value of its type.
    Any,
    /// One of these words.
    Words(&'static [&'static str]),
    /// A whole number from the first to the second, both included.
    Ints(i64, i64),
    /// A rule in words (a range of numbers, a condition).
    Rule(&'static str),
}

impl Allowed {
    /// The allowed values in the reference's words.
    fn words(self) -> String {
        match self {
            Allowed::Any => String::new(),
            Allowed::Words(w) => {
                let q: Vec<String> = w.iter().map(|w| format!("`\"{w}\"`")).collect();
                q.join(", ")
            }
            Allowed::Ints(lo, hi) => format!("{}..{}", power(lo), power(hi)),
            Allowed::Rule(r) => r.to_string(),
        }
    }
}

/// A bound as the reference writes it: a large power of two as `2^k`.
fn power(n: i64) -> String {
    if n >= 1 << 20 && n.count_ones() == 1 {
        format!("2^{}", n.trailing_zeros())
    } else {
        n.to_string()
    }
}

/// One key of a scenario file.
#[derive(Debug)]
pub(crate) struct Key {
    /// The table it belongs in (`""`: the top level, before the first table).
    pub table: &'static str,
    /// The key, as spelled in scenario files.
    pub name: &'static str,
    /// Its value's type.
    pub ty: Ty,
    /// Whether it may be left out.
    pub need: Need,
    /// Its value when left out, as the reference shows it (empty: none, or see the doc).
    pub default: &'static str,
    /// Its unit (empty when it has none).
    pub unit: &'static str,
    /// The values it accepts beyond its type.
    pub allowed: Allowed,
    /// One line of markdown saying what it does.
    pub doc: &'static str,
}

impl Key {
    /// The key as messages and `--set` name it: `name`, or `table.name`.
    pub fn dotted(&self) -> String {
        match self.table {
            "" => self.name.to_string(),
            t => format!("{t}.{}", self.name),
        }
    }
}

/// The range of whole numbers the key table allows for `label` (`[table] name`, or `name` at
/// the top level); every number when the key has no such range.
pub(crate) fn range(label: &str) -> (i64, i64) {
    let (table, name) = match label.strip_prefix('[').and_then(|l| l.split_once("] ")) {
        Some((t, n)) => (t, n),
        None => ("", label),
    };
    let found = all_keys()
        .find(|k| k.table == table && k.name == name)
        .map(|k| k.allowed);
    debug_assert!(
        matches!(found, Some(Allowed::Ints(..))),
        "{label} has no range in the key table"
    );
    match found {
        Some(Allowed::Ints(lo, hi)) => (lo, hi),
        _ => (i64::MIN, i64::MAX),
    }
}

/// The keys of one table (`""`: the top level), in the order of its struct's fields.
pub(crate) fn keys_of(table: &'static str) -> impl Iterator<Item = &'static Key> + Clone {
    all_keys().filter(move |k| k.table == table)
}

/// The names of the tables a scenario file may hold (besides `[sweep]`), in file order.
pub(crate) fn table_names() -> impl Iterator<Item = &'static str> {
    keys_of("").filter_map(|k| match k.ty {
        Ty::Table(t) => Some(t),
        _ => None,
    })
}

/// Levenshtein distance between two keys, in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// Whether `written` is close enough to `key` to suggest it: at most two edits, at most a third
/// of its length (one edit for short keys), and fewer edits than its length.
fn close(written: &str, key: &str) -> bool {
    let n = written.chars().count();
    let d = distance(written, key);
    d <= 2 && d <= (n / 3).max(1) && d < n
}

/// What an unknown key most likely meant.
#[derive(Debug)]
pub(crate) enum Hint {
    /// The key exists, in another table (`""`: the top level).
    Elsewhere(&'static Key),
    /// A key of the same table spelled closely.
    Spelling(&'static Key),
    /// A key of another table spelled closely.
    SpellingElsewhere(&'static Key),
}

/// The hint for `written`, unknown in `table` (`""`: the top level): the key of that name in
/// another table, else the closest key of the same table, else the closest of another table.
pub(crate) fn hint(table: &str, written: &str) -> Option<Hint> {
    let keys = || all_keys().filter(|k| !matches!(k.ty, Ty::Table(_)));
    if let Some(k) = keys().find(|k| k.name == written && k.table != table) {
        return Some(Hint::Elsewhere(k));
    }
    let closest = |same: bool| {
        keys()
            .filter(|k| (k.table == table) == same && close(written, k.name))
            .min_by_key(|k| distance(written, k.name))
    };
    closest(true)
        .map(Hint::Spelling)
        .or_else(|| closest(false).map(Hint::SpellingElsewhere))
}

/// A table's name as messages and the reference write it: `[router]`, or "the top level".
pub(crate) fn table_label(table: &str) -> String {
    match table {
        "" => "the top level (before the first [table])".into(),
        t => format!("[{t}]"),
    }
}

/// The hint as the fix of a message: "did you mean `vcs`?", "`vcs` belongs in [router]".
pub(crate) fn hint_text(h: &Hint) -> String {
    match h {
        Hint::Elsewhere(k) => format!(
            "`{}` belongs in {}: move it there",
            k.name,
            table_label(k.table)
        ),
        Hint::Spelling(k) => format!("did you mean `{}`?", k.name),
        Hint::SpellingElsewhere(k) => format!(
            "did you mean `{}`? it belongs in {}",
            k.name,
            table_label(k.table)
        ),
    }
}

/// A markdown table cell: `|` escaped, and "—" for an empty one.
fn cell(s: &str) -> String {
    if s.is_empty() {
        "—".into()
    } else {
        s.replace('|', "\\|")
    }
}

/// The key reference: a page `# Scenario keys` with one section per table and a markdown
/// table of its keys (type, default or required, unit, meaning, allowed values), generated from
/// the key table; `docs/src/reference/keys.md` holds it, and a test checks that it is current.
pub fn keys_reference_markdown() -> String {
    let mut out = String::from(
        "# Scenario keys\n\n\
         Every key of a scenario file, generated from the key table (`src/scenario/keys/`).\n\
         Unknown keys are errors; `flitsim check SCENARIO.toml` validates a file against this table.\n",
    );
    let sections = std::iter::once("").chain(table_names());
    for table in sections {
        let title = match table {
            "" => "Top level".to_string(),
            t => format!("[{t}]"),
        };
        out += &format!("\n## {title}\n\n");
        out += "| key | type | default | unit | meaning | allowed values |\n";
        out += "|---|---|---|---|---|---|\n";
        for k in keys_of(table).filter(|k| !matches!(k.ty, Ty::Table(_))) {
            let default = match k.need {
                Need::Required => "required",
                _ => k.default,
            };
            out += &format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                k.name,
                cell(&k.ty.words()),
                cell(default),
                cell(k.unit),
                cell(k.doc),
                cell(&k.allowed.words())
            );
        }
    }
    out += "\n## [sweep]\n\n\
            Each line sweeps one key: its dotted path in quotes and a list of values, e.g. \
            `\"router.vcs\" = [2, 4]`; every combination of the swept values is one configuration. \
            `--set sweep.KEY=[a,b]` does the same from the command line. `name`, `seed`, `seeds`, \
            `traffic.rates` and `traffic.flit_rates` cannot be swept.\n";
    out
}

#[cfg(test)]
mod tests;
