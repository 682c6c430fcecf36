//! summary.csv's column table (`flitsim::output::SUMMARY`) against the CSV header and against
//! README.md's column list, so that neither can drift from it.

use flitsim::output::{SUMMARY, markdown_columns, summary_csv};

/// README.md's text.
fn readme() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// README.md's summary.csv section is the table rendered from `SUMMARY`, verbatim, from its
/// heading line to the blank line after the last row.
#[test]
fn readme_summary_columns_are_the_column_table() {
    let expected = format!(
        "`summary.csv`, one row per load point and seed:\n\n{}\n",
        markdown_columns(SUMMARY)
    );
    let readme = readme();
    assert!(
        readme.contains(&expected),
        "README.md's summary.csv column list differs from flitsim::output::SUMMARY; it should \
         read:\n{expected}"
    );
}

/// summary.csv's header is the table's names (the experiment's coordinates go in front when
/// the tables of an experiment are assembled).
#[test]
fn summary_header_is_the_column_table() {
    let csv = summary_csv(&[]);
    let names: Vec<&str> = SUMMARY.iter().map(|c| c.name).collect();
    assert_eq!(csv, format!("{}\n", names.join(",")));
}

/// Every summary column has a distinct name and a doc.
#[test]
fn summary_columns_are_named_once_and_documented() {
    for (i, c) in SUMMARY.iter().enumerate() {
        assert!(!c.doc.is_empty(), "{} has no doc", c.name);
        assert!(
            SUMMARY[..i].iter().all(|d| d.name != c.name),
            "{} twice",
            c.name
        );
    }
}

/// README.md names every pooled.csv column that is not a summary column.
#[test]
fn readme_lists_the_pooled_columns() {
    let readme = readme();
    for (name, _) in flitsim::output::pooled::POOLED {
        assert!(
            readme.contains(&format!("`{name}`")),
            "README.md does not name pooled.csv's column {name}"
        );
    }
}
