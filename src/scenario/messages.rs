//! The messages of a scenario file's syntax and schema errors: the file, the line and column,
//! the key and the fix, on one line.

use super::keys::{self, keys_of};
use super::schema_check::{Problem, SchemaError};

/// Whether `name` is a table of a scenario file (the key table's, or `[sweep]`); a missing one
/// is reported as a table, not a key.
fn is_table(name: &str) -> bool {
    name == "sweep" || keys::table_names().any(|t| t == name)
}

/// The fix for the key `written`, unknown in `table` (`""`: the top level): the right table or
/// a close spelling when the key table has one, else the table's keys.
pub(super) fn unknown_key_fix(table: &'static str, written: &str) -> String {
    match keys::hint(table, written) {
        Some(h) => keys::hint_text(&h),
        None => {
            let names: Vec<&str> = keys_of(table).map(|k| k.name).collect();
            format!(
                "remove it or correct its spelling (expected {})",
                one_of(&names)
            )
        }
    }
}

/// Line and column (both from 1, the column in characters) of a byte offset.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// The text of a line, trimmed and shortened so that a message stays readable.
fn line_text(text: &str, line: usize) -> String {
    let l = text.lines().nth(line - 1).unwrap_or("").trim();
    if l.chars().count() > 60 {
        format!("{}...", l.chars().take(57).collect::<String>())
    } else {
        l.to_string()
    }
}

/// A message of the toml or serde crates on one line.
fn one_line(msg: &str) -> String {
    msg.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One line for a TOML syntax error: `file:line:col: TOML syntax error: ...; fix: ...`.
pub(super) fn syntax_error(file: &str, text: &str, e: &toml::de::Error) -> String {
    let msg = one_line(e.message());
    let fix = if msg.contains("duplicate key") {
        "give each key only once per table"
    } else {
        "correct the TOML syntax there (strings in double quotes, tables as [name], lists as [a, b])"
    };
    match e.span() {
        Some(span) => {
            let (line, col) = line_col(text, span.start);
            let at = line_text(text, line);
            format!("{file}:{line}:{col}: TOML syntax error: {msg} (at `{at}`); fix: {fix}")
        }
        None => format!("{file}: TOML syntax error: {msg}; fix: {fix}"),
    }
}

/// The dotted path of the innermost key whose key or value span contains the byte offset `at`,
/// outermost key first (empty when no key does), and whether `at` is inside its value's list
/// (an item of it, not the list itself). A table opened
/// by a `[header]` has the header as its span, so its keys are searched whatever that span.
fn key_path(table: &toml::de::DeTable, at: usize) -> (Vec<String>, bool) {
    fn walk(
        t: &toml::de::DeTable,
        at: usize,
        cur: &mut Vec<String>,
        best: &mut (Vec<String>, bool),
    ) {
        for (k, v) in t.iter() {
            cur.push(k.get_ref().to_string());
            if (k.span().contains(&at) || v.span().contains(&at)) && cur.len() > best.0.len() {
                // An item of a list, not the list itself (nor its key).
                let inside = v.get_ref().is_array() && v.span().start < at;
                *best = (cur.clone(), inside);
            }
            if let Some(child) = v.get_ref().as_table() {
                walk(child, at, cur, best);
            }
            cur.pop();
        }
    }
    let mut best = (Vec::new(), false);
    walk(table, at, &mut Vec::new(), &mut best);
    best
}

/// A key as the messages name it: `name` at the top level, `[router] vcs` inside a table.
fn key_name(path: &[String]) -> String {
    match path {
        [] => String::new(),
        [k] => k.clone(),
        [t, rest @ ..] if is_table(t) => format!("[{t}] {}", rest.join(".")),
        _ => path.join("."),
    }
}

/// Names listed as alternatives: "`a`", "`a` or `b`", "one of `a`, `b`, `c`".
fn one_of(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match q.as_slice() {
        [] => "nothing".to_string(),
        [a] => a.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => format!("one of {}", q.join(", ")),
    }
}

/// One line for a schema error (unknown key, wrong type, missing key):
/// `file:line:col: [table] key: problem; fix: ...`.
pub(super) fn schema_error(
    file: &str,
    text: &str,
    doc: &toml::de::DeTable,
    e: SchemaError,
) -> String {
    // Where: `file:line:col` and the offending line, or just `file` when the error is about the
    // whole document (its span is then empty).
    let ((mut path, is_list), place, at) = match e.span {
        Some(span) if !span.is_empty() => {
            let (line, col) = line_col(text, span.start);
            let at = format!(" (at `{}`)", line_text(text, line));
            (
                key_path(doc, span.start),
                format!("{file}:{line}:{col}"),
                at,
            )
        }
        _ => ((Vec::new(), false), file.to_string(), String::new()),
    };
    let (problem, fix) = match e.problem {
        Problem::Unknown(table, written) => {
            // The span is the unknown key itself, so `path` already ends with it.
            ("unknown key".to_string(), unknown_key_fix(table, &written))
        }
        Problem::Missing(key) => {
            let key = key.to_string();
            // The span is the table that lacks the key, or empty for the top level.
            let top = path.is_empty();
            if top && is_table(&key) {
                (
                    format!("missing table [{key}]"),
                    format!("add a [{key}] table (see docs/src/reference/keys.md)"),
                )
            } else if top {
                path.push(key.clone());
                (
                    "missing key".to_string(),
                    format!("add `{key} = ...` at the top of the file, before the first [table]"),
                )
            } else {
                let table = format!("[{}]", path.join("."));
                path.push(key.clone());
                (
                    "missing key".to_string(),
                    format!("add `{key} = ...` to {table} (see docs/src/reference/keys.md)"),
                )
            }
        }
        Problem::Mismatch { what, expected } => {
            let key = match path.last() {
                // A wrong item inside a list: the list itself has the right type.
                Some(k) if is_list && !expected.contains("a list") => {
                    format!("each item of `{k}`")
                }
                Some(k) => format!("`{k}`"),
                None => "the value".to_string(),
            };
            (
                format!("{}, expected {expected}", one_line(&what)),
                format!("give {key} as {expected}"),
            )
        }
        Problem::Other(msg) => (
            one_line(&msg),
            "correct the value (see docs/src/reference/keys.md)".to_string(),
        ),
    };
    let key = crate::error::echoed(&key_name(&path));
    let key = if key.is_empty() {
        String::new()
    } else {
        format!(" {key}:")
    };
    format!("{place}:{key} {problem}{at}; fix: {fix}")
}
