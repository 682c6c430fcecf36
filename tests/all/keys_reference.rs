//! The committed key reference, `docs/src/reference/keys.md`, against the page generated from
//! the key table (`flitsim::scenario::keys_reference_markdown`), so that it cannot drift.

use flitsim::scenario::keys_reference_markdown;
use std::path::Path;

/// The committed page equals the generated one; with `FLITSIM_BLESS=1` the test writes the
/// generated page instead.
#[test]
fn committed_key_reference_is_the_generated_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/reference/keys.md");
    let generated = keys_reference_markdown();
    if std::env::var_os("FLITSIM_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("a parent directory"))
            .and_then(|()| std::fs::write(&path, &generated))
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} differs from the page generated from the key table (src/spec/keys/); \
         fix: run `FLITSIM_BLESS=1 cargo test --test all keys_reference` and commit the page",
        path.display()
    );
}

/// The page has one section per table and a row for a key of each.
#[test]
fn key_reference_lists_every_table() {
    let page = keys_reference_markdown();
    assert!(page.starts_with("# Scenario keys\n"));
    for section in [
        "## Top level",
        "## [topology]",
        "## [router]",
        "## [routing]",
        "## [traffic]",
        "## [run]",
        "## [sweep]",
    ] {
        assert!(page.contains(&format!("\n{section}\n")), "{section}");
    }
    assert!(page.contains("| `vcs` | integer | 2 | — | virtual channels V"));
}
