//! The scenario schema checked on the parsed TOML before serde runs, so that an unknown key, a
//! missing key or a value of the wrong type is described from our own schema, never by reading
//! serde's or toml's error text.
//!
//! The check follows what `toml::from_str::<RawScenario>` does, step by step and in the same order
//! (keys in the order the parsed table iterates them, missing keys after a table's keys, a list
//! given for a table read as the table's fields in order), so that the first problem it reports
//! is the one serde would have stopped at, with the same span. The key lists come from the key
//! table (`keys.rs`), whose unit test reads the `Raw*` structs' field names from serde itself.

use super::keys::keys_of;
use crate::error::{number, quoted};
use crate::spec::keys::{Need, Ty};
use std::ops::Range;
use toml::Spanned;
use toml::de::{DeArray, DeTable, DeValue};

/// What `Values` says when a value is neither a number nor a list of numbers (its `expecting`).
pub(super) const VALUES_EXPECTING: &str = "a number or a list of numbers";
/// `Radix`'s words for what it expects.
const RADIX_EXPECTED: &str = "a whole number or a list of whole numbers";

/// A schema problem, before it is turned into a message.
#[derive(Debug)]
pub(super) enum Problem {
    /// A key the table does not have: the table (`""`: the top level) and the key.
    Unknown(&'static str, String),
    /// A required key (or table) left out.
    Missing(&'static str),
    /// A value of the wrong type or range: `what` (e.g. "invalid type: integer `5`") and the
    /// expected kind in plain words (e.g. "a string in double quotes").
    Mismatch {
        what: String,
        expected: &'static str,
    },
    /// Anything else, told as it is (a number too large for any integer type, say).
    Other(String),
}

/// A schema problem and the span it is about (`None`: the whole document).
#[derive(Debug)]
pub(super) struct SchemaError {
    /// What is wrong.
    pub problem: Problem,
    /// Where, in bytes of the scenario text.
    pub span: Option<Range<usize>>,
}

type Check = Result<(), SchemaError>;

fn at(problem: Problem, span: &Range<usize>) -> SchemaError {
    SchemaError {
        problem,
        span: Some(span.clone()),
    }
}

/// A value as toml hands it to serde.
enum Found<'a> {
    Str(&'a str),
    Int(i64),
    Uint(u64),
    /// An integer beyond 64 bits (and within 128), described: "integer `N`".
    Wide(String),
    Float(f64),
    Bool(bool),
    Seq(&'a DeArray<'a>),
    Map(&'a DeTable<'a>),
    Datetime,
}

/// The value as toml hands it to a visitor; a number too large for toml is an error there.
fn found<'a>(v: &'a DeValue<'a>) -> Result<Found<'a>, Problem> {
    Ok(match v {
        DeValue::String(s) => Found::Str(s),
        DeValue::Integer(i) => {
            let (s, r) = (i.as_str(), i.radix());
            if let Ok(n) = i64::from_str_radix(s, r) {
                Found::Int(n)
            } else if let Ok(n) = u64::from_str_radix(s, r) {
                Found::Uint(n)
            } else if let Ok(n) = i128::from_str_radix(s, r)
                .map(|n| n.to_string())
                .or_else(|_| u128::from_str_radix(s, r).map(|n| n.to_string()))
            {
                Found::Wide(format!("integer `{n}`"))
            } else {
                return Err(Problem::Other("integer number overflowed".into()));
            }
        }
        DeValue::Float(x) => match x.as_str().parse::<f64>() {
            // As toml: an infinity is an overflow unless written as `inf`.
            Ok(f) if !f.is_infinite() || x.as_str().contains("inf") => Found::Float(f),
            _ => return Err(Problem::Other("floating-point number overflowed".into())),
        },
        DeValue::Boolean(b) => Found::Bool(*b),
        DeValue::Datetime(_) => Found::Datetime,
        DeValue::Array(a) => Found::Seq(a),
        DeValue::Table(t) => Found::Map(t),
    })
}

/// A found value described as in "invalid type: <this>, expected ...": strings cut and
/// numbers compact as messages show them (`floating point `1e300``, not 301 digits).
fn describe(v: &Found) -> String {
    match v {
        Found::Str(s) => format!("string {}", quoted(s)),
        Found::Int(n) => format!("integer `{n}`"),
        Found::Uint(n) => format!("integer `{n}`"),
        Found::Wide(s) => s.clone(),
        Found::Float(x) => {
            let shown = number(*x);
            let whole = x.is_finite() && !shown.contains(['.', 'e']);
            format!("floating point `{shown}{}`", if whole { ".0" } else { "" })
        }
        Found::Bool(b) => format!("boolean `{b}`"),
        Found::Seq(_) => "sequence".into(),
        Found::Map(_) | Found::Datetime => "map".into(),
    }
}

fn invalid(kind: &str, v: &Found, expected: &'static str) -> Problem {
    Problem::Mismatch {
        what: format!("invalid {kind}: {}", describe(v)),
        expected,
    }
}

/// Checks the whole parsed file; `span` is the document's.
pub(super) fn check_document(doc: &DeTable, span: &Range<usize>) -> Check {
    check_table(doc, "", span)
}

/// Checks a table's keys in the table's order, then the required keys it lacks.
fn check_table(t: &DeTable, table: &'static str, span: &Range<usize>) -> Check {
    for (k, v) in t.iter() {
        let name = k.get_ref().as_ref();
        match keys_of(table).find(|f| f.name == name) {
            Some(field) => check(v, field.ty)?,
            None => return Err(at(Problem::Unknown(table, name.to_string()), &k.span())),
        }
    }
    let missing = keys_of(table)
        .find(|f| f.need == Need::Required && !t.iter().any(|(k, _)| k.get_ref() == f.name));
    match missing {
        Some(f) => Err(at(Problem::Missing(f.name), span)),
        None => Ok(()),
    }
}

/// Checks a list given for a table: serde reads its items as the fields in order, and a field
/// past the end of the list is an error unless it has a default.
fn check_table_list(items: &DeArray, table: &'static str, span: &Range<usize>) -> Check {
    for (i, field) in keys_of(table).enumerate() {
        match items.get(i) {
            Some(item) => check(item, field.ty)?,
            None if field.need == Need::Default => {}
            None => {
                let what = format!("invalid length {i}");
                let expected = "a table";
                return Err(at(Problem::Mismatch { what, expected }, span));
            }
        }
    }
    Ok(())
}

/// Checks one value against its type.
pub(super) fn check(v: &Spanned<DeValue>, ty: Ty) -> Check {
    let span = v.span();
    let value = found(v.get_ref()).map_err(|p| at(p, &span))?;
    let wrong = |expected| Err(at(invalid("type", &value, expected), &span));
    match ty {
        Ty::Str => match value {
            Found::Str(_) => Ok(()),
            _ => wrong("a string in double quotes"),
        },
        Ty::Bool => match value {
            Found::Bool(_) => Ok(()),
            _ => wrong("true or false (without quotes)"),
        },
        Ty::Int => match value {
            Found::Int(_) => Ok(()),
            Found::Uint(n) => Err(at(
                Problem::Mismatch {
                    what: format!("integer `{n}` is out of range"),
                    expected: "a smaller whole number (see docs/src/reference/keys.md)",
                },
                &span,
            )),
            _ => wrong("a whole number"),
        },
        Ty::Uint => match value {
            Found::Int(n) if n < 0 => {
                Err(at(invalid("value", &value, "a whole number >= 0"), &span))
            }
            Found::Int(_) | Found::Uint(_) => Ok(()),
            _ => wrong("a whole number >= 0"),
        },
        Ty::IntOrStr => match value {
            Found::Int(_) | Found::Str(_) => Ok(()),
            Found::Uint(n) => Err(at(
                Problem::Mismatch {
                    what: format!("integer `{n}` is out of range"),
                    expected: "a smaller whole number (see docs/src/reference/keys.md)",
                },
                &span,
            )),
            _ => wrong("a whole number or a string in double quotes"),
        },
        Ty::Num => match value {
            Found::Int(_) | Found::Uint(_) | Found::Float(_) => Ok(()),
            _ => wrong("a number"),
        },
        Ty::List(item) => match value {
            Found::Seq(items) => items.iter().try_for_each(|i| check(i, *item)),
            _ => wrong("a list, e.g. [1, 2]"),
        },
        Ty::Table(schema) => match value {
            Found::Map(t) => check_table(t, schema, &span),
            // [[name]]: an array of tables where one table belongs.
            Found::Seq(items) if items.iter().any(|i| i.get_ref().is_table()) => Err(at(
                Problem::Mismatch {
                    what: "invalid type: an array of tables".into(),
                    expected: "one table, written [name] (not [[name]])",
                },
                &span,
            )),
            // A date or time reaches serde as a table with one key of toml's own.
            Found::Datetime => Err(at(Problem::Unknown(schema, String::new()), &span)),
            Found::Seq(items) => check_table_list(items, schema, &span),
            _ => wrong("a table"),
        },
        Ty::Radix | Ty::Values => {
            // Serde first reads the whole value, then tries each variant.
            capture(v)?;
            let whole = |x: &Found| matches!(x, Found::Int(_));
            let number = |x: &Found| matches!(x, Found::Int(_) | Found::Uint(_) | Found::Float(_));
            let fits: &dyn Fn(&Found) -> bool = if matches!(ty, Ty::Radix) {
                &whole
            } else {
                &number
            };
            let ok = match &value {
                Found::Seq(items) => items
                    .iter()
                    .all(|i| found(i.get_ref()).is_ok_and(|x| fits(&x))),
                x => fits(x),
            };
            match (ok, ty) {
                (true, _) => Ok(()),
                (false, Ty::Radix) => Err(at(
                    Problem::Mismatch {
                        what: "invalid value".into(),
                        expected: RADIX_EXPECTED,
                    },
                    &span,
                )),
                (false, _) => Err(at(Problem::Other(VALUES_EXPECTING.into()), &span)),
            }
        }
    }
}

/// Reads a value whole, as serde does before trying the variants of an untagged enum: only
/// integers beyond 64 bits and numbers too large for toml fail.
fn capture(v: &Spanned<DeValue>) -> Check {
    let span = v.span();
    match found(v.get_ref()).map_err(|p| at(p, &span))? {
        Found::Wide(w) => Err(at(
            Problem::Mismatch {
                what: format!("{w} is too large"),
                expected: "a smaller number (see docs/src/reference/keys.md)",
            },
            &span,
        )),
        Found::Seq(items) => items.iter().try_for_each(capture),
        Found::Map(t) => t.iter().try_for_each(|(_, v)| capture(v)),
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "schema_check_tests.rs"]
mod tests;
