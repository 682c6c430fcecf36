//! One `--set KEY=VALUE`: its value read as TOML (bare words taken as strings, in a list too)
//! and checked against the key table's schema before any configuration is built.

use super::{field_at, not_swept, repeated, repeated_why};
use crate::error::{Error, Result, echoed, sized};
use crate::scenario::keys::keys_of;
use crate::scenario::schema_check::{self, Problem, SchemaError};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A value given on the command line, parsed.
pub(super) struct Override<'a> {
    /// The key's path segments.
    pub path: Vec<String>,
    /// The value.
    pub value: Spanned<DeValue<'a>>,
}

/// Problem text and fix for a value that failed the schema check (a `--set`'s value).
fn value_problem(e: SchemaError, key: &str) -> String {
    match e.problem {
        Problem::Mismatch { what, expected } => {
            format!("{what}, expected {expected}; fix: give {key} as {expected}")
        }
        Problem::Unknown(table, _) => {
            let names: Vec<String> = keys_of(table).map(|f| format!("`{}`", f.name)).collect();
            format!(
                "unknown key inside the value; fix: use only {}",
                names.join(", ")
            )
        }
        Problem::Missing(k) => format!("missing key `{k}` inside the value; fix: add it"),
        Problem::Other(msg) => {
            format!("{msg}; fix: correct the value (see docs/src/reference/keys.md)")
        }
    }
}

/// Parses one `--set KEY=VALUE` (its value also given as the document `v = VALUE`) and checks
/// it against the schema.
pub(super) fn parse_set<'a>(set: &str, value_doc: &'a str) -> Result<Override<'a>> {
    let err = |msg: String| Error::Input(format!("--set {}: {msg}", set_label(set)));
    let Some((key, value)) = set.split_once('=') else {
        return Err(err(
            "expected KEY=VALUE; fix: give e.g. --set router.vcs=4".into()
        ));
    };
    let key = key.trim();
    let path: Vec<String> = key.split('.').map(|s| s.trim().to_string()).collect();
    if path.iter().any(String::is_empty) {
        return Err(err(format!(
            "`{}` is not a dotted key; fix: give e.g. router.vcs or sweep.router.vcs",
            echoed(key)
        )));
    }
    let sweep = path[0] == "sweep";
    let target = if sweep { &path[1..] } else { &path[..] };
    if target.is_empty() {
        return Err(err(
            "`sweep` alone is not a key; fix: give the key to sweep, e.g. --set sweep.router.vcs=[2,4]"
                .into(),
        ));
    }
    let dotted = target.join(".");
    let named = echoed(&dotted);
    let field = field_at(target).map_err(|m| err(format!("{named}: {m}")))?;
    let value = parse_value(value.trim(), value_doc)
        .ok_or_else(|| err(format!("`{}` is not a TOML value; fix: write strings as text or \"text\", lists as [a, b], numbers as 4 or 0.5", echoed(value.trim()))))?;
    if sweep {
        if let Some(why) = not_swept(&dotted) {
            return Err(err(format!("{named} cannot be swept; fix: {why}")));
        }
        match value.get_ref() {
            DeValue::Array(items) if !items.is_empty() => {
                for item in items.iter() {
                    schema_check::check(item, field.ty).map_err(|e| {
                        err(format!(
                            "{named}: {}",
                            value_problem(e, &format!("each value of {named}"))
                        ))
                    })?;
                }
                if let Some(v) = repeated(items) {
                    return Err(err(format!("{named}: {}", repeated_why(&v))));
                }
            }
            _ => {
                return Err(err(format!(
                    "the values to sweep are not a non-empty list; fix: give them as a list, e.g. --set sweep.{named}=[a, b]"
                )));
            }
        }
    } else {
        schema_check::check(&value, field.ty).map_err(|e| {
            err(format!(
                "{named}: {}",
                value_problem(e, &format!("`{named}`"))
            ))
        })?;
    }
    Ok(Override { path, value })
}

/// Whether `text` is a bare word a `--set` value may give unquoted (`duato`, `bit-reversal`).
fn bare_word(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./+".contains(c))
}

/// A command-line value with the bare words of a list quoted (`[duato,dor]` as
/// `["duato","dor"]`); any other value as it is. An item that is TOML already (a number, a
/// quoted string, `true`) stays as written.
pub(super) fn words_quoted(text: &str) -> String {
    let is_toml = |t: &str| DeTable::parse(&format!("v = {t}")).is_ok();
    let inner = match text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        Some(inner) if !is_toml(text) && !inner.contains(['[', ']', '\'', '\\']) => inner,
        _ => return text.to_string(),
    };
    // The items, split at the commas outside double quotes.
    let mut items = vec![String::new()];
    let mut quoted = false;
    for c in inner.chars() {
        match c {
            ',' if !quoted => items.push(String::new()),
            c => {
                quoted ^= c == '"';
                if let Some(item) = items.last_mut() {
                    item.push(c);
                }
            }
        }
    }
    let items: Vec<String> = items
        .iter()
        .map(|i| i.trim())
        .map(|item| match item {
            i if !is_toml(i) && bare_word(i) => format!("\"{i}\""),
            i => i.to_string(),
        })
        .collect();
    format!("[{}]", items.join(", "))
}

/// A command-line value as TOML; a bare word that is not TOML (`duato`, `bit-reversal`) is
/// taken as a string.
fn parse_value<'a>(text: &str, doc: &'a str) -> Option<Spanned<DeValue<'a>>> {
    match DeTable::parse(doc) {
        Ok(t) if t.get_ref().len() == 1 => t.into_inner().into_iter().next().map(|(_, v)| v),
        _ => bare_word(text)
            .then(|| Spanned::new(0..0, DeValue::String(std::borrow::Cow::Owned(text.into())))),
    }
}

/// A `--set KEY=VALUE` as a message names it: its key (cut when long) and its value, by its
/// length only when long.
pub(super) fn set_label(set: &str) -> String {
    match set.split_once('=') {
        Some((key, value)) => format!("{}={}", echoed(key), sized(value)),
        None => echoed(set),
    }
}
