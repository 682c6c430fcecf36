//! The key table: every scenario key declared once, with its type, whether it may be left out
//! (and its default as text), its unit, a one-line doc and the check of its value; and the
//! `Raw*` structs serde reads a scenario file into, declared by the same rows.
//!
//! Each table is declared once, as its serde struct and its rows (`table!`, in `network.rs` and
//! `workload.rs`). A table's *plain* keys (a number or a switch whose only check is its range)
//! are declared with their typed value and default as well: `table!` then also writes the typed
//! struct the spec carries (`TrafficOptions`, `RouterOptions`) and its reading from the raw
//! table, so that such a key is one row here and its use where it acts. The loader
//! (`crate::scenario`) reads the table for its schema check, its messages and the key reference.

/// Declares one table once: its serde struct (`Raw*`, one field per key, documented by the
/// key's doc), its rows of the key table (a static slice named by the second argument) and,
/// when it has a `plain` section, the typed struct of those keys (see [`Plain`]).
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
        $(
            $(#[$ometa:meta])*
            plain $opts:ident {
                $(
                    $pfield:ident : $pty:ty = $pdef:literal => {
                        unit: $punit:literal,
                        allowed: $pallowed:expr,
                        doc: $pdoc:literal $(,)?
                    }
                ),* $(,)?
            }
        )?
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
            $($(
                #[doc = $pdoc]
                pub $pfield: Option<<$pty as $crate::spec::keys::Plain>::Raw>,
            )*)?
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
            $($(
                Key {
                    table: $table,
                    name: stringify!($pfield),
                    ty: <$pty as $crate::spec::keys::Plain>::TY,
                    need: $crate::spec::keys::Need::Optional,
                    default: stringify!($pdef),
                    unit: $punit,
                    allowed: $pallowed,
                    doc: $pdoc,
                },
            )*)?
        ];

        $(
            $(#[$ometa])*
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct $opts {
                $(
                    #[doc = $pdoc]
                    pub $pfield: $pty,
                )*
            }

            impl Default for $opts {
                fn default() -> Self {
                    $opts { $($pfield: $pdef,)* }
                }
            }

            impl $opts {
                /// The plain keys of a table as written, each checked against its range and
                /// its default where left out.
                pub fn read(raw: &$raw) -> Result<Self, $crate::spec::keys::Refusal> {
                    let _ = raw;
                    Ok($opts {
                        $($pfield: $crate::spec::keys::Plain::read(
                            raw.$pfield,
                            $pdef,
                            $pallowed,
                            concat!("[", $table, "] ", stringify!($pfield)),
                        )?,)*
                    })
                }
            }

            /// Only the keys given a value other than their default, so that a new plain key
            /// leaves every existing scenario's serialization (and point keys) unchanged.
            impl serde::Serialize for $opts {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    use serde::ser::SerializeMap;
                    let _default = Self::default();
                    #[allow(unused_mut)] // a table without plain keys writes no entry
                    let mut map = s.serialize_map(None)?;
                    $(
                        if self.$pfield != _default.$pfield {
                            map.serialize_entry(stringify!($pfield), &self.$pfield)?;
                        }
                    )*
                    map.end()
                }
            }
        )?
    };
}

mod network;
mod workload;

pub use network::{RawRouter, RawRouting, RawScenario, RawTopology, RouterOptions};
pub use workload::{RawRun, RawTraffic, TrafficOptions};

/// The key table: every table's rows, the top level first, then the tables in file order.
pub(crate) static TABLES: [&[Key]; 6] = [
    network::SCENARIO,
    network::TOPOLOGY,
    network::ROUTER,
    network::ROUTING,
    workload::TRAFFIC,
    workload::RUN,
];

/// Every key of the key table, table by table.
pub(crate) fn all_keys() -> impl Iterator<Item = &'static Key> + Clone {
    TABLES.iter().flat_map(|t| t.iter())
}

/// What a key's value must be, as the `Raw*` structs declare it.
#[derive(Clone, Copy, Debug)]
pub enum Ty {
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
    pub(crate) fn words(self) -> String {
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
pub enum Need {
    /// No default: leaving the key out is an error.
    Required,
    /// An `Option` without `#[serde(default)]`: `None` when left out of a table.
    Optional,
    /// `#[serde(default)]`: its default when left out.
    Default,
}

/// The values a key accepts beyond its type, checked when the scenario is validated.
#[derive(Clone, Copy, Debug)]
pub enum Allowed {
    /// Any value of its type.
    Any,
    /// One of these words.
    Words(&'static [&'static str]),
    /// A whole number from the first to the second, both included.
    Ints(i64, i64),
    /// A finite number from the first to the second, both included.
    Between(f64, f64),
    /// A rule in words (a range of numbers, a condition).
    Rule(&'static str),
}

impl Allowed {
    /// The allowed values in the reference's words.
    pub(crate) fn words(self) -> String {
        match self {
            Allowed::Any => String::new(),
            Allowed::Words(w) => {
                let q: Vec<String> = w.iter().map(|w| format!("`\"{w}\"`")).collect();
                q.join(", ")
            }
            Allowed::Ints(lo, hi) => format!("{}..{}", power(lo), power(hi)),
            Allowed::Between(lo, hi) => format!("[{lo}, {hi}]"),
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
pub struct Key {
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

/// A plain key's value refused: the key as messages name it (`[table] name`), what is wrong
/// and the fix.
#[derive(Debug)]
pub struct Refusal {
    /// The key, `[table] name`.
    pub key: String,
    /// What is wrong with the value.
    pub problem: String,
    /// How to put it right.
    pub fix: String,
}

/// The value of a plain key: a number or a switch whose only check is its range (an
/// `Allowed::Ints` for whole numbers, an `Allowed::Between` for other numbers, `Any` else).
pub trait Plain: Copy + PartialEq + serde::Serialize {
    /// The type the `Raw*` struct reads: a signed integer for whole numbers, so that a negative
    /// one is told the key's range rather than serde's type.
    type Raw: Copy + std::fmt::Debug + for<'de> serde::Deserialize<'de>;
    /// The type in the key table.
    const TY: Ty;
    /// The value written (`raw`), or `default` when left out; refused outside `allowed`.
    fn read(
        raw: Option<Self::Raw>,
        default: Self,
        allowed: Allowed,
        key: &'static str,
    ) -> Result<Self, Refusal>;
}

/// A whole number within `allowed` (every number of `T` when it gives no range).
fn whole<T: TryFrom<i64> + Into<i128>>(
    raw: Option<i64>,
    default: T,
    allowed: Allowed,
    key: &'static str,
) -> Result<T, Refusal> {
    debug_assert!(
        matches!(allowed, Allowed::Ints(..) | Allowed::Any),
        "{key}: a plain whole number's check is Ints or Any"
    );
    let Some(v) = raw else { return Ok(default) };
    let (lo, hi) = match allowed {
        Allowed::Ints(lo, hi) => (lo, hi),
        _ => (i64::MIN, i64::MAX),
    };
    match T::try_from(v) {
        Ok(t) if (lo..=hi).contains(&v) => Ok(t),
        _ => Err(out_of_range(key, v, lo, hi)),
    }
}

/// The refusal of a whole number `v` outside `lo..=hi`.
pub(crate) fn out_of_range(key: &str, v: i64, lo: i64, hi: i64) -> Refusal {
    Refusal {
        key: key.to_string(),
        problem: format!("{v} is out of range"),
        fix: format!("use a whole number from {lo} to {hi}"),
    }
}

/// Whole numbers are plain: read as `i64`, checked by [`whole`].
macro_rules! whole_plain {
    ($($t:ty),*) => {$(
        impl Plain for $t {
            type Raw = i64;
            const TY: Ty = Ty::Int;
            fn read(raw: Option<i64>, d: $t, a: Allowed, key: &'static str) -> Result<$t, Refusal> {
                whole(raw, d, a, key)
            }
        }
    )*};
}

whole_plain!(u32, u64);

impl Plain for f64 {
    type Raw = f64;
    const TY: Ty = Ty::Num;
    fn read(raw: Option<f64>, d: f64, a: Allowed, key: &'static str) -> Result<f64, Refusal> {
        debug_assert!(
            matches!(a, Allowed::Between(..) | Allowed::Any),
            "{key}: a plain number's check is Between or Any"
        );
        let Some(v) = raw else { return Ok(d) };
        let (lo, hi) = match a {
            Allowed::Between(lo, hi) => (lo, hi),
            _ => (f64::MIN, f64::MAX),
        };
        if v.is_finite() && (lo..=hi).contains(&v) {
            return Ok(v);
        }
        Err(Refusal {
            key: key.to_string(),
            problem: format!("{v} is out of range"),
            fix: format!("use a number from {lo} to {hi}"),
        })
    }
}

impl Plain for bool {
    type Raw = bool;
    const TY: Ty = Ty::Bool;
    fn read(raw: Option<bool>, d: bool, _: Allowed, _: &'static str) -> Result<bool, Refusal> {
        Ok(raw.unwrap_or(d))
    }
}

/// A table whose keys are all left out: what serde fills in (each key's default, `None` for
/// an optional one), so that a table's defaults are written once, in its rows.
pub(crate) fn absent<T: for<'de> serde::Deserialize<'de>>() -> T {
    let empty = std::iter::empty::<(&str, i64)>();
    let map = serde::de::value::MapDeserializer::<_, serde::de::value::Error>::new(empty);
    T::deserialize(map).expect("every key of the table may be left out")
}

/// A radix: one number for every dimension, or a list with one per dimension.
#[derive(serde::Deserialize, Debug, Clone)]
#[serde(
    untagged,
    expecting = "invalid value, expected a whole number or a list of whole numbers"
)]
pub enum Radix {
    /// The same radix in every dimension.
    One(i64),
    /// One radix per dimension.
    PerDim(Vec<i64>),
}

/// A number, or a list of numbers to sweep over.
#[derive(serde::Deserialize, Debug, Clone)]
#[serde(untagged, expecting = "a number or a list of numbers")]
pub enum Values {
    /// One value.
    One(f64),
    /// Values to sweep over.
    Many(Vec<f64>),
}

impl Values {
    /// The values as a list.
    pub fn to_vec(&self) -> Vec<f64> {
        match self {
            Values::One(x) => vec![*x],
            Values::Many(v) => v.clone(),
        }
    }
}

/// A count given as a whole number or by name (e.g. `source_concurrency = "vcs"`).
#[derive(serde::Deserialize, Debug, Clone)]
#[serde(untagged, expecting = "a whole number or a string")]
pub enum Count {
    /// A number.
    Number(i64),
    /// A name standing for a number.
    Name(String),
}

#[cfg(test)]
mod tests;
