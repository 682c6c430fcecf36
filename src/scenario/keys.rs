//! The loader's readings of the key table (`crate::spec::keys`): the schema check reads its key
//! lists from it (`schema_check.rs`), unknown-key messages search it for a close spelling or the
//! right table (`messages.rs`), and [`keys_reference_markdown`] writes the key reference,
//! `docs/src/reference/keys.md`, from it. A unit test checks its key lists against the fields
//! serde reads.

use crate::spec::keys::{Allowed, Key, Need, Ty, all_keys};

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
         Every key of a scenario file, generated from the key table (`src/spec/keys/`).\n\
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
