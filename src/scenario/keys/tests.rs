//! The key table against the `Raw*` structs, read from serde itself, its messages, and the
//! spec structs' defaults against a scenario that leaves its optional keys out.

use super::*;
use crate::scenario::{RouterSpec, RoutingSpec, RunSpec, Scenario, TrafficSpec};
use crate::spec::keys::{RawRouter, RawRouting, RawRun, RawScenario, RawTopology, RawTraffic};
use serde::de::{self, Deserialize, Deserializer, Visitor};
use std::cell::Cell;

/// A deserializer that only records the field names serde asks a struct for.
struct FieldNames<'a>(&'a Cell<&'static [&'static str]>);

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.set(fields);
        Err(de::Error::custom("recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// The field names of a struct, in order, as its `Deserialize` implementation declares them.
fn serde_fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    let cell = Cell::new(&[][..]);
    let _ = T::deserialize(FieldNames(&cell));
    cell.get()
}

/// Where a table's keys (`table`, in order) and a struct's serde fields differ, if they do:
/// the first key missing from either side, or the first out of order.
fn disagreement(name: &str, table: &[&str], serde: &[&str]) -> Option<String> {
    if let Some(k) = table.iter().find(|k| !serde.contains(k)) {
        return Some(format!(
            "[{name}] `{k}` is in the key table but not a field of the serde struct; fix: add the field or remove the key"
        ));
    }
    if let Some(k) = serde.iter().find(|k| !table.contains(k)) {
        return Some(format!(
            "[{name}] `{k}` is a field of the serde struct but not in the key table; fix: add it to src/spec/keys/"
        ));
    }
    (table != serde).then(|| {
        format!("[{name}] the key table lists {table:?}, serde {serde:?}; fix: list the keys in the struct's field order")
    })
}

/// Every table of the key table with its struct's serde fields.
fn tables() -> [(&'static str, &'static [&'static str]); 6] {
    [
        ("", serde_fields::<RawScenario>()),
        ("topology", serde_fields::<RawTopology>()),
        ("router", serde_fields::<RawRouter>()),
        ("routing", serde_fields::<RawRouting>()),
        ("traffic", serde_fields::<RawTraffic>()),
        ("run", serde_fields::<RawRun>()),
    ]
}

#[test]
fn key_table_agrees_with_the_raw_structs() {
    for (table, serde) in tables() {
        let names: Vec<&str> = keys_of(table).map(|k| k.name).collect();
        assert_eq!(disagreement(table, &names, serde), None);
    }
    let tables: Vec<&str> = table_names().collect();
    assert_eq!(tables, ["topology", "router", "routing", "traffic", "run"]);
}

/// The check fails on a key the table has and serde does not, and on the reverse.
#[test]
fn key_table_check_fails_on_a_key_on_one_side_only() {
    let serde = serde_fields::<RawRouter>();
    let mut extra: Vec<&str> = keys_of("router").map(|k| k.name).collect();
    extra.push("arbiter");
    assert_eq!(
        disagreement("router", &extra, serde).as_deref(),
        Some(
            "[router] `arbiter` is in the key table but not a field of the serde struct; fix: add the field or remove the key"
        )
    );
    let fewer: Vec<&str> = keys_of("router")
        .map(|k| k.name)
        .filter(|&k| k != "delay")
        .collect();
    assert_eq!(
        disagreement("router", &fewer, serde).as_deref(),
        Some(
            "[router] `delay` is a field of the serde struct but not in the key table; fix: add it to src/spec/keys/"
        )
    );
    let mut swapped: Vec<&str> = keys_of("router").map(|k| k.name).collect();
    swapped.swap(0, 1);
    assert!(disagreement("router", &swapped, serde).is_some());
}

/// Every key the table calls optional or defaulted can be left out, every required one cannot:
/// an empty table of each struct fails on exactly the required keys, first one first.
#[test]
fn required_keys_agree_with_the_raw_structs() {
    fn first_missing<T: for<'de> Deserialize<'de>>(table: &'static str) {
        let want = keys_of(table)
            .find(|f| f.need == Need::Required)
            .map(|f| f.name);
        let got = toml::from_str::<T>("")
            .err()
            .map(|e| e.message().to_string());
        assert_eq!(got.is_some(), want.is_some(), "{got:?} {want:?}");
        if let (Some(got), Some(want)) = (&got, want) {
            assert!(got.contains(&format!("`{want}`")), "{got} {want}");
        }
    }
    first_missing::<RawScenario>("");
    first_missing::<RawTopology>("topology");
    first_missing::<RawRouter>("router");
    first_missing::<RawRouting>("routing");
    first_missing::<RawTraffic>("traffic");
    first_missing::<RawRun>("run");
}

/// The words the table allows are the names the scenario's enums accept.
#[test]
fn allowed_words_agree_with_the_enums() {
    use crate::routing::{Algorithm, Dateline, Tie};
    use crate::scenario::{Crossbar, Process, Selection};
    let words = |table, name| {
        let k = keys_of(table).find(|k| k.name == name).expect("a key");
        match k.allowed {
            Allowed::Words(w) => w.to_vec(),
            other => panic!("{name}: {other:?}"),
        }
    };
    assert_eq!(
        words("router", "crossbar"),
        Crossbar::ALL.map(Crossbar::name).to_vec()
    );
    assert_eq!(
        words("routing", "selection"),
        Selection::ALL.map(Selection::name).to_vec()
    );
    assert_eq!(words("routing", "tie"), Tie::ALL.map(Tie::name).to_vec());
    assert_eq!(
        words("routing", "dateline"),
        Dateline::ALL.map(Dateline::name).to_vec()
    );
    assert_eq!(
        words("traffic", "process"),
        Process::ALL.map(Process::name).to_vec()
    );
    for w in words("routing", "algorithm") {
        assert_eq!(Algorithm::parse(w).map(Algorithm::name), Some(w));
    }
}

#[test]
fn hints_point_to_the_right_table_or_a_close_spelling() {
    let text = |table, written| hint(table, written).map(|h| hint_text(&h));
    assert_eq!(
        text("traffic", "vcs").as_deref(),
        Some("`vcs` belongs in [router]: move it there")
    );
    assert_eq!(
        text("", "vcs").as_deref(),
        Some("`vcs` belongs in [router]: move it there")
    );
    assert_eq!(text("router", "vc").as_deref(), Some("did you mean `vcs`?"));
    assert_eq!(
        text("router", "bufer_depth").as_deref(),
        Some("did you mean `buffer_depth`?")
    );
    assert_eq!(
        text("traffic", "buffer_dept").as_deref(),
        Some("did you mean `buffer_depth`? it belongs in [router]")
    );
    assert_eq!(
        text("topology", "seed").as_deref(),
        Some("`seed` belongs in the top level (before the first [table]): move it there")
    );
    // Nothing close: no guess.
    assert_eq!(text("router", "colour").as_deref(), None);
    assert_eq!(text("topology", "x").as_deref(), None);
}

#[test]
fn distance_counts_edits() {
    assert_eq!(distance("vcs", "vcs"), 0);
    assert_eq!(distance("vc", "vcs"), 1);
    assert_eq!(distance("kitten", "sitting"), 3);
    assert!(close("wramup_cycles", "warmup_cycles"));
    assert!(!close("ab", "vcs"));
}

/// The ranges the table gives where another part of the crate sets the bound.
#[test]
fn ranges_agree_with_the_crate() {
    let max = crate::threads::MAX_THREADS as i64;
    assert_eq!(range("[run] threads_per_point"), (0, max));
    assert_eq!(range("[router] vcs"), (1, 32));
}

/// The defaults are what a scenario leaving every optional key out resolves to.
#[test]
fn defaults_are_a_scenario_without_optional_keys() {
    let text =
        "name = \"d\"\n[topology]\nkind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nrates = [0.01]\n";
    let s = Scenario::from_toml(text, "d.toml").expect("a valid scenario");
    assert_eq!(json(&s.router), json(&RouterSpec::default()));
    assert_eq!(json(&s.routing), json(&RoutingSpec::default()));
    assert_eq!(json(&s.run), json(&RunSpec::default()));
    assert_eq!(
        s.run.threads_per_point,
        RunSpec::default().threads_per_point
    );
    let traffic = TrafficSpec {
        rates: vec![0.01],
        ..Default::default()
    };
    assert_eq!(json(&s.traffic), json(&traffic));
}

/// A spec as JSON, to compare specs that do not implement `PartialEq`.
fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}
