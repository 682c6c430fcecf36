//! The schema check's own wording against the serde types it mirrors.

use super::*;

#[test]
fn values_expecting_agrees_with_the_enum() {
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct W {
        v: crate::spec::keys::Values,
    }
    let e = toml::from_str::<W>("v = \"x\"").err().unwrap();
    assert_eq!(e.message(), VALUES_EXPECTING);
}
