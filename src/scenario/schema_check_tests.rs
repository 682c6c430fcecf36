//! The schema of `schema_check.rs` against the `Raw*` structs, read from serde itself.

use super::*;
use crate::scenario::schema::{
    RawRouter, RawRouting, RawRun, RawScenario, RawTopology, RawTraffic,
};
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

fn names(t: &Table) -> Vec<&'static str> {
    t.fields.iter().map(|f| f.name).collect()
}

#[test]
fn key_lists_agree_with_the_raw_structs() {
    assert_eq!(names(&SCENARIO), serde_fields::<RawScenario>());
    assert_eq!(names(&TOPOLOGY), serde_fields::<RawTopology>());
    assert_eq!(names(&ROUTER), serde_fields::<RawRouter>());
    assert_eq!(names(&ROUTING), serde_fields::<RawRouting>());
    assert_eq!(names(&TRAFFIC), serde_fields::<RawTraffic>());
    assert_eq!(names(&RUN), serde_fields::<RawRun>());
}

/// Every key the schema calls optional or defaulted can be left out, every required one cannot:
/// an empty table of each struct fails on exactly the required keys, first one first.
#[test]
fn required_keys_agree_with_the_raw_structs() {
    fn first_missing<T: for<'de> Deserialize<'de>>(t: &Table) -> Option<&'static str> {
        let want = t
            .fields
            .iter()
            .find(|f| f.need == Need::Required)
            .map(|f| f.name);
        let got = toml::from_str::<T>("")
            .err()
            .map(|e| e.message().to_string());
        assert_eq!(got.is_some(), want.is_some(), "{got:?} {want:?}");
        if let (Some(got), Some(want)) = (&got, want) {
            assert!(got.contains(&format!("`{want}`")), "{got} {want}");
        }
        want
    }
    first_missing::<RawScenario>(&SCENARIO);
    first_missing::<RawTopology>(&TOPOLOGY);
    first_missing::<RawRouter>(&ROUTER);
    first_missing::<RawRouting>(&ROUTING);
    first_missing::<RawTraffic>(&TRAFFIC);
    first_missing::<RawRun>(&RUN);
}

#[test]
fn values_expecting_agrees_with_the_enum() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct W {
        v: crate::scenario::schema::Values,
    }
    let e = toml::from_str::<W>("v = \"x\"").err().unwrap();
    assert_eq!(e.message(), VALUES_EXPECTING);
}
