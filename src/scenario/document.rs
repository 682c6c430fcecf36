//! The scenario document: the file's TOML with the command line's `--set KEY=VALUE` overrides
//! applied, and its sweep (the `[sweep]` table, and list-valued `pattern_fraction` /
//! `hotspot_fraction`) expanded into configurations, each validated as a scenario of its own.
//!
//! Overrides and swept values are checked against the same schema as the file's own values,
//! before any configuration is built, so that their errors name the `--set` or the `[sweep]`
//! line they came from.

mod set;

use super::keys::keys_of;
use super::schema_check;
use super::{RawScenario, Scenario};
use crate::error::{Error, Result, echoed, number, sized};
use crate::spec::keys::{Key, Ty};
use serde::Deserialize;
use set::{Override, parse_set, set_label, words_quoted};
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// Most configurations one experiment may have (the product of its sweep's lists).
pub const MAX_CONFIGURATIONS: usize = 100_000;

/// One swept key and its values, in the order the points run.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The key's dotted path, e.g. `router.vcs`.
    pub key: String,
    /// Each value as the scenario gave it (strings bare, numbers in shortest form).
    pub values: Vec<String>,
}

/// One combination of the swept keys' values, validated.
#[derive(Clone, Debug)]
pub struct Configuration {
    /// The value of each axis, in axis order (as in [`Axis::values`]).
    pub coordinates: Vec<String>,
    /// The scenario with those values.
    pub scenario: Scenario,
}

/// A scenario's sweep: its axes and every configuration, first axis outermost.
#[derive(Clone, Debug)]
pub struct Expanded {
    /// The swept keys: `[sweep]`'s in file order (a `--set sweep.KEY` of one of them replaces
    /// its values in place), then the other `--set sweep.KEY` ones, then the
    /// list-valued `traffic.hotspot_fraction` and `traffic.pattern_fraction`.
    pub axes: Vec<Axis>,
    /// Every combination, validated.
    pub configurations: Vec<Configuration>,
}

/// Keys that cannot be swept, and why: each is already a dimension of every experiment, or
/// names its output.
const NOT_SWEPT: [(&str, &str); 5] = [
    (
        "name",
        "the name names the output directory: run one scenario file per name",
    ),
    (
        "seed",
        "list the replications in `seeds = [...]`: every configuration runs with every seed",
    ),
    (
        "seeds",
        "list the replications in `seeds = [...]`: every configuration runs with every seed",
    ),
    (
        "traffic.rates",
        "list the loads in [traffic] rates: every configuration runs at every load",
    ),
    (
        "traffic.flit_rates",
        "list the loads in [traffic] flit_rates: every configuration runs at every load",
    ),
];

/// Parses `text`, applies `sets` and expands the sweep; `file` names the file in messages.
pub fn expand(text: &str, file: &str, sets: &[String]) -> Result<Expanded> {
    let mut doc = DeTable::parse(text)
        .map_err(|e| Error::Input(super::messages::syntax_error(file, text, &e)))?;
    let doc_span = doc.span();
    // Each value's text as a one-key document, kept here so that the parsed values may borrow
    // from it as the file's do from `text`.
    let value_docs: Vec<String> = sets
        .iter()
        .map(|s| {
            format!(
                "v = {}",
                words_quoted(s.split_once('=').map_or("", |(_, v)| v.trim()))
            )
        })
        .collect();
    // The [sweep] table's axes, checked against the schema where the file gives them.
    let mut axes = file_axes(doc.get_ref(), text, file)?;
    remove(doc.get_mut(), "sweep");
    let mut sweep_sets = Vec::new();
    let mut value_sets = Vec::new();
    for (set, value_doc) in sets.iter().zip(&value_docs) {
        let o = parse_set(set, value_doc)?;
        if o.path.first().map(String::as_str) == Some("sweep") {
            sweep_sets.push(o);
        } else {
            value_sets.push(o);
        }
    }
    for o in &value_sets {
        let key = o.path.join(".");
        // A value set for this run replaces the sweep of that key.
        axes.retain(|a| a.0 != key);
        insert(doc.get_mut(), &o.path, o.value.clone());
    }
    add_swept(&mut axes, sweep_sets);
    schema_check::check_document(doc.get_ref(), &doc_span)
        .map_err(|e| Error::Input(super::messages::schema_error(file, text, doc.get_ref(), e)))?;
    implicit_axes(doc.get_ref(), &mut axes, file)?;
    let total = axes
        .iter()
        .try_fold(1usize, |n, a| n.checked_mul(a.1.len()));
    if total.is_none_or(|n| n > MAX_CONFIGURATIONS) {
        return Err(Error::Input(format!(
            "{file}: [sweep]: the sweep has more than {MAX_CONFIGURATIONS} combinations; fix: sweep fewer keys or fewer values per key, or split the study into several scenarios"
        )));
    }
    let out_axes: Vec<Axis> = axes
        .iter()
        .map(|(key, items)| Axis {
            key: key.clone(),
            values: items.iter().map(|v| display(v.get_ref())).collect(),
        })
        .collect();
    let mut configurations = Vec::with_capacity(total.unwrap_or(0));
    let sets_label = if sets.is_empty() {
        String::new()
    } else {
        let given: Vec<String> = sets.iter().map(|s| set_label(s)).collect();
        format!(" with --set {}", given.join(" --set "))
    };
    for combo in Odometer::new(axes.iter().map(|a| a.1.len()).collect()) {
        let mut d = doc.clone();
        for (a, &i) in axes.iter().zip(&combo) {
            let path: Vec<String> = a.0.split('.').map(str::to_string).collect();
            insert(d.get_mut(), &path, a.1[i].clone());
        }
        let coordinates: Vec<String> = out_axes
            .iter()
            .zip(&combo)
            .map(|(a, &i)| a.values[i].clone())
            .collect();
        let at = if axes.is_empty() {
            String::new()
        } else {
            let pairs: Vec<String> = axes
                .iter()
                .zip(&combo)
                .map(|(a, &i)| format!("{} = {}", echoed(&a.0), shown(a.1[i].get_ref())))
                .collect();
            format!(" at {}", pairs.join(", "))
        };
        let label = format!("{file}{sets_label}{at}");
        let raw = RawScenario::deserialize(toml::de::Deserializer::from(d)).map_err(|e| {
            Error::Input(format!(
                "{label}: {}; fix: correct the value (see docs/src/reference/keys.md)",
                e.message()
            ))
        })?;
        let dir = std::path::Path::new(file)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        let scenario = super::validate::validate(raw, &label, dir)?;
        configurations.push(Configuration {
            coordinates,
            scenario,
        });
    }
    Ok(Expanded {
        axes: out_axes,
        configurations,
    })
}

/// Adds the `--set sweep.KEY=[...]` axes: a key the file sweeps too keeps its place in the
/// file's order with the new values; any other goes after the file's.
fn add_swept<'a>(axes: &mut Vec<(String, Vec<Spanned<DeValue<'a>>>)>, sets: Vec<Override<'a>>) {
    for o in sets {
        let key = o.path[1..].join(".");
        // `parse_set` has checked that a swept value is a list.
        let DeValue::Array(items) = o.value.get_ref() else {
            continue;
        };
        match axes.iter_mut().find(|a| a.0 == key) {
            Some(axis) => axis.1 = items.to_vec(),
            None => axes.push((key, items.to_vec())),
        }
    }
}

/// Removes `key` from a table.
fn remove(t: &mut DeTable<'_>, key: &str) {
    t.remove(key);
}

/// Sets `path` in the document to `value`, creating the tables on the way (with empty spans,
/// so that a message about them names the file, not a place in it).
fn insert<'a>(t: &mut DeTable<'a>, path: &[String], value: Spanned<DeValue<'a>>) {
    let (first, rest) = path.split_first().expect("a non-empty path");
    let key = Spanned::new(0..0, std::borrow::Cow::Owned(first.clone()));
    if rest.is_empty() {
        remove(t, first);
        t.insert(key, value);
        return;
    }
    let exists = t
        .iter()
        .any(|(k, v)| k.get_ref() == first && v.get_ref().is_table());
    if !exists {
        remove(t, first);
        t.insert(key, Spanned::new(0..0, DeValue::Table(DeTable::new())));
    }
    let child = t
        .iter_mut()
        .find(|(k, _)| k.get_ref() == first)
        .map(|(_, v)| v)
        .expect("just inserted");
    if let DeValue::Table(inner) = child.get_mut() {
        insert(inner, rest, value);
    }
}

/// The fix for a dotted key unknown in `table`: the key's dotted path where the key table has
/// it in another table or spelled closely, else the table's keys.
fn unknown_dotted(table: &'static str, seg: &str) -> String {
    use super::keys::Hint;
    match super::keys::hint(table, seg) {
        Some(Hint::Elsewhere(k)) => format!(
            "`{seg}` belongs in {}; fix: give it as {}",
            super::keys::table_label(k.table),
            k.dotted()
        ),
        Some(Hint::Spelling(k) | Hint::SpellingElsewhere(k)) => {
            format!("unknown key; fix: did you mean `{}`?", k.dotted())
        }
        None => {
            let names: Vec<String> = keys_of(table).map(|f| format!("`{}`", f.name)).collect();
            let within = match table {
                "" => "at the top level".to_string(),
                t => format!("in [{t}]"),
            };
            format!(
                "unknown key; fix: correct its spelling (keys {within}: {})",
                names.join(", ")
            )
        }
    }
}

/// The key table's key at a dotted path, or the problem with the path.
fn field_at(path: &[String]) -> std::result::Result<&'static Key, String> {
    let mut table = "";
    let mut here: Vec<&str> = Vec::new();
    for (i, seg) in path.iter().enumerate() {
        let Some(field) = keys_of(table).find(|f| f.name == seg) else {
            return Err(unknown_dotted(table, seg));
        };
        here.push(field.name);
        match (field.ty, i + 1 == path.len()) {
            (Ty::Table(t), true) => {
                let first = keys_of(t).next().map_or("", |k| k.name);
                return Err(format!(
                    "is a table; fix: give one of its keys, e.g. {}.{first}",
                    path.join(".")
                ));
            }
            (Ty::Table(t), false) => table = t,
            (_, true) => return Ok(field),
            (_, false) => {
                return Err(format!(
                    "`{}` is not a table; fix: give the key as {}",
                    here.join("."),
                    here.join(".")
                ));
            }
        }
    }
    Err("the key is empty; fix: give a dotted key such as router.vcs".into())
}

/// Why a key cannot be swept, if it cannot.
fn not_swept(key: &str) -> Option<&'static str> {
    NOT_SWEPT
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, why)| *why)
}

/// Why the swept value `v`, listed twice, is refused.
fn repeated_why(v: &str) -> String {
    format!(
        "{} is listed twice, and the two would run the same points; fix: list each value once",
        echoed(v)
    )
}

/// The first value (as shown) that `items` list twice, if any.
fn repeated(items: &[Spanned<DeValue<'_>>]) -> Option<String> {
    let shown: Vec<String> = items.iter().map(|i| display(i.get_ref())).collect();
    shown
        .iter()
        .enumerate()
        .find(|(i, v)| shown[..*i].contains(v))
        .map(|(_, v)| v.clone())
}

/// The `[sweep]` table's axes in file order, each key and item checked against the schema.
fn file_axes<'a>(
    doc: &DeTable<'a>,
    text: &str,
    file: &str,
) -> Result<Vec<(String, Vec<Spanned<DeValue<'a>>>)>> {
    let Some((_, sweep)) = doc.iter().find(|(k, _)| k.get_ref() == "sweep") else {
        return Ok(Vec::new());
    };
    let place = |span: std::ops::Range<usize>| {
        let (line, col) = super::messages::line_col(text, span.start);
        format!("{file}:{line}:{col}")
    };
    let DeValue::Table(t) = sweep.get_ref() else {
        return Err(Error::Input(format!(
            "{}: [sweep]: not a table; fix: write [sweep] and under it one line per swept key, e.g. \"router.vcs\" = [2, 4]",
            place(sweep.span())
        )));
    };
    let mut entries: Vec<_> = t.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut axes = Vec::new();
    for (k, v) in entries {
        let key = k.get_ref().to_string();
        let path: Vec<String> = key.split('.').map(str::to_string).collect();
        let at = place(k.span());
        if v.get_ref().is_table() {
            return Err(Error::Input(format!(
                "{at}: [sweep] {}: a table, not a list of values; fix: quote the dotted key, e.g. \"router.vcs\" = [2, 4]",
                echoed(&key)
            )));
        }
        let field = field_at(&path)
            .map_err(|m| Error::Input(format!("{at}: [sweep] {}: {m}", echoed(&key))))?;
        if let Some(why) = not_swept(&key) {
            return Err(Error::Input(format!(
                "{at}: [sweep] {key}: cannot be swept; fix: {why}"
            )));
        }
        let items = match v.get_ref() {
            DeValue::Array(items) if !items.is_empty() => items,
            _ => {
                return Err(Error::Input(format!(
                    "{at}: [sweep] {key}: the values to sweep are not a non-empty list; fix: give them as a list, e.g. \"{key}\" = [a, b]"
                )));
            }
        };
        for item in items.iter() {
            schema_check::check(item, field.ty)
                .map_err(|e| Error::Input(super::messages::schema_error(file, text, doc, e)))?;
        }
        if let Some(v) = repeated(items) {
            return Err(Error::Input(format!(
                "{at}: [sweep] {key}: {}",
                repeated_why(&v)
            )));
        }
        axes.push((key, items.to_vec()));
    }
    Ok(axes)
}

/// `pattern_fraction` and (for the hotspot pattern) `hotspot_fraction` given as lists are
/// sweeps of those keys: they become axes, hotspot fraction outermost.
fn implicit_axes<'a>(
    doc: &DeTable<'a>,
    axes: &mut Vec<(String, Vec<Spanned<DeValue<'a>>>)>,
    file: &str,
) -> Result<()> {
    let Some(traffic) = doc
        .iter()
        .find(|(k, _)| k.get_ref() == "traffic")
        .and_then(|(_, v)| v.get_ref().as_table())
    else {
        return Ok(());
    };
    let get = |name: &str| {
        traffic
            .iter()
            .find(|(k, _)| k.get_ref() == name)
            .map(|(_, v)| v.get_ref())
    };
    let hotspot = matches!(get("pattern"), Some(DeValue::String(s)) if s == "hotspot");
    for (name, applies) in [("hotspot_fraction", hotspot), ("pattern_fraction", true)] {
        if let (true, Some(DeValue::Array(items))) = (applies, get(name)) {
            let key = format!("traffic.{name}");
            if axes.iter().any(|a| a.0 == key) {
                return Err(Error::Input(format!(
                    "{file}: [traffic] {name}: given as a list and also in [sweep]; fix: give its values once, in [sweep]"
                )));
            }
            if items.is_empty() {
                return Err(Error::Input(format!(
                    "{file}: [traffic] {name}: the list is empty; fix: give at least one value, e.g. {name} = [0.5]"
                )));
            }
            if let Some(v) = repeated(items) {
                return Err(Error::Input(format!(
                    "{file}: [traffic] {name}: {}",
                    repeated_why(&v)
                )));
            }
            axes.push((key, items.to_vec()));
        }
    }
    Ok(())
}

/// A value as coordinates and messages show it: strings bare, numbers in shortest form.
pub fn display(v: &DeValue<'_>) -> String {
    match v {
        DeValue::String(s) => s.to_string(),
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .map(|n| n.to_string())
            .unwrap_or_else(|_| i.as_str().to_string()),
        DeValue::Float(f) => f
            .as_str()
            .parse::<f64>()
            .map(|x| format!("{x}"))
            .unwrap_or_else(|_| f.as_str().to_string()),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(a) => {
            let items: Vec<String> = a.iter().map(|i| display(i.get_ref())).collect();
            format!("[{}]", items.join(", "))
        }
        DeValue::Table(_) => "{...}".into(),
    }
}

/// A configuration's value as a message names it: numbers compact (`1e300`), a long text by
/// its length only.
fn shown(v: &DeValue<'_>) -> String {
    match v {
        DeValue::Float(f) => f
            .as_str()
            .parse::<f64>()
            .map_or_else(|_| sized(f.as_str()), number),
        v => sized(&display(v)),
    }
}

/// Every combination of indices `0..len[i]`, the first index outermost (one empty combination
/// when there are no axes).
struct Odometer {
    lens: Vec<usize>,
    next: Option<Vec<usize>>,
}

impl Odometer {
    fn new(lens: Vec<usize>) -> Self {
        let next = (!lens.contains(&0)).then(|| vec![0; lens.len()]);
        Odometer { lens, next }
    }
}

impl Iterator for Odometer {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let cur = self.next.take()?;
        let mut n = cur.clone();
        let mut i = n.len();
        loop {
            if i == 0 {
                break;
            }
            i -= 1;
            n[i] += 1;
            if n[i] < self.lens[i] {
                self.next = Some(n);
                break;
            }
            n[i] = 0;
        }
        Some(cur)
    }
}
