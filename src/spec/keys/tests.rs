//! `table!`'s plain keys on a table of the tests' own: one row each gives the raw field, the
//! key table's row, the typed value with its default and range check, and a serialization that
//! leaves defaults out.

use super::Allowed::{Any, Between, Ints};
use super::Need::Required as R;
use super::{Key, Need, Ty};

table! {
    /// A table of the tests' own.
    RawFixture, FIXTURE, "fixture" {
        label: String => {
            ty: Ty::Str,
            need: R,
            default: "",
            unit: "",
            allowed: Any,
            doc: "a key that is not plain",
        },
    }
    /// The fixture's plain keys.
    plain FixtureOptions {
        depth: u32 = 4 => { unit: "flits", allowed: Ints(1, 8), doc: "a whole number" },
        share: f64 = 0.5 => { unit: "", allowed: Between(0.0, 1.0), doc: "a number" },
        on: bool = false => { unit: "", allowed: Any, doc: "a switch" },
    }
}

fn raw(text: &str) -> RawFixture {
    toml::from_str(text).expect("a fixture table")
}

#[test]
fn a_plain_key_is_a_row_of_the_key_table() {
    let rows: Vec<(&str, &str, bool)> = FIXTURE
        .iter()
        .map(|k: &Key| (k.name, k.default, k.need == Need::Optional))
        .collect();
    assert_eq!(
        rows,
        [
            ("label", "", false),
            ("depth", "4", true),
            ("share", "0.5", true),
            ("on", "false", true)
        ]
    );
    assert!(matches!(FIXTURE[1].ty, Ty::Int));
    assert!(matches!(FIXTURE[2].ty, Ty::Num));
    assert_eq!(FIXTURE[1].unit, "flits");
    assert_eq!(FIXTURE[1].table, "fixture");
}

#[test]
fn a_plain_key_left_out_takes_its_default_and_is_not_serialized() {
    let r = raw("label = \"x\"");
    assert_eq!(r.label, "x");
    let o = FixtureOptions::read(&r).expect("defaults");
    assert_eq!(o, FixtureOptions::default());
    assert_eq!((o.depth, o.share, o.on), (4, 0.5, false));
    assert_eq!(serde_json::to_string(&o).unwrap(), "{}");
}

#[test]
fn a_plain_key_given_is_read_and_serialized() {
    let o = FixtureOptions::read(&raw("label = \"x\"\ndepth = 8\non = true")).expect("in range");
    assert_eq!((o.depth, o.share, o.on), (8, 0.5, true));
    assert_eq!(
        serde_json::to_string(&o).unwrap(),
        r#"{"depth":8,"on":true}"#
    );
}

#[test]
fn a_plain_key_out_of_range_is_refused_with_its_range() {
    let r = FixtureOptions::read(&raw("label = \"x\"\ndepth = 9")).unwrap_err();
    assert_eq!(r.key, "[fixture] depth");
    assert_eq!(r.problem, "9 is out of range");
    assert_eq!(r.fix, "use a whole number from 1 to 8");
    let r = FixtureOptions::read(&raw("label = \"x\"\ndepth = -1")).unwrap_err();
    assert_eq!(r.problem, "-1 is out of range");
    let r = FixtureOptions::read(&raw("label = \"x\"\nshare = 1.5")).unwrap_err();
    assert_eq!(
        (r.key.as_str(), r.fix.as_str()),
        ("[fixture] share", "use a number from 0 to 1")
    );
    let r = FixtureOptions::read(&raw("label = \"x\"\nshare = nan")).unwrap_err();
    assert_eq!(r.problem, "NaN is out of range");
}
