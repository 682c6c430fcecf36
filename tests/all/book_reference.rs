//! The book's generated reference pages (`docs/src/reference/columns.md` and `commands.md`)
//! against `flitsim::reference`, so that they cannot drift from the code; the command line's
//! help and `--version`. `FLITSIM_BLESS=1 cargo test book_reference` rewrites the pages.

use clap::CommandFactory;
use flitsim::cli::Cli;
use flitsim::output::{SUMMARY, markdown_columns};
use std::path::Path;

/// The book's source directory.
fn book_src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")
}

/// Each committed generated page is the generated text, byte for byte; with FLITSIM_BLESS=1 the
/// pages are written instead.
#[test]
fn book_reference_pages_are_generated() {
    let bless = std::env::var_os("FLITSIM_BLESS").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for (page, text) in flitsim::reference::pages() {
        let path = book_src().join(page);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != text {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "{} differ from flitsim::reference's text; fix: FLITSIM_BLESS=1 cargo test book_reference",
        stale.join(", ")
    );
}

/// The book's summary.csv section is the table rendered from `SUMMARY`, verbatim.
#[test]
fn book_reference_summary_columns_are_the_column_table() {
    let columns = std::fs::read_to_string(book_src().join("reference/columns.md")).unwrap();
    let expected = format!("## `summary.csv`\n\n{}", markdown_columns(SUMMARY));
    assert!(columns.contains(&expected), "columns.md lacks:\n{expected}");
}

/// The book's column reference names every pooled.csv column.
#[test]
fn book_reference_lists_the_pooled_columns() {
    let columns = std::fs::read_to_string(book_src().join("reference/columns.md")).unwrap();
    for (name, _) in flitsim::output::pooled::POOLED {
        assert!(
            columns.contains(&format!("`{name}`")),
            "columns.md does not name pooled.csv's column {name}"
        );
    }
}

/// Every command has an about and a long help, and every argument and flag a description in
/// `--help`.
#[test]
fn every_argument_has_help() {
    let mut cli = Cli::command();
    cli.build();
    let mut missing = Vec::new();
    for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
        if sub.get_about().is_none() || sub.get_long_about().is_none() {
            missing.push(format!("flitsim {} (about or long about)", sub.get_name()));
        }
        for arg in sub.get_arguments() {
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                missing.push(format!("flitsim {} {}", sub.get_name(), arg.get_id()));
            }
        }
    }
    assert!(missing.is_empty(), "no help for: {}", missing.join(", "));
}

/// `flitsim --version` prints the version and the git revision it was built from.
#[test]
fn version_names_the_git_revision() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    let expected = format!(
        "flitsim {} (git {})\n",
        env!("CARGO_PKG_VERSION"),
        flitsim::cli::VERSION
            .split("(git ")
            .nth(1)
            .unwrap()
            .trim_end_matches(')')
    );
    assert_eq!(text, expected);
    let revision = expected
        .split("(git ")
        .nth(1)
        .unwrap()
        .trim_end_matches(")\n");
    let hex = revision.trim_end_matches("-dirty");
    assert!(
        revision == "unknown" || (hex.len() == 40 && hex.chars().all(|c| c.is_ascii_hexdigit())),
        "not a git revision: {revision}"
    );
}
