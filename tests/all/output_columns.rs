//! summary.csv's column table (`flitsim::output::SUMMARY`) against the CSV header; the book's
//! column reference is checked in `book_reference`.

use flitsim::output::{SUMMARY, summary_csv};

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
