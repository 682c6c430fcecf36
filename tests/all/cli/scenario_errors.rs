//! Bad scenario files: a missing file, TOML syntax, duplicate or unknown keys and tables, wrong
//! types, missing keys. Exit code 2, one clear line, nothing written.

use super::{GOOD, assert_refused, edit, edits};

#[test]
fn missing_scenario_file() {
    assert_refused(
        "missing-file",
        None,
        &[
            "missing.toml: cannot read the scenario file",
            "fix: check the path",
        ],
    );
}

#[test]
fn toml_syntax_error_gives_line_and_column() {
    // Line 10 is `[router`: the `]` is missing where the line ends, at column 8.
    let text = edit(GOOD, "[router]", "[router");
    assert_refused(
        "syntax",
        Some(&text),
        &["bad.toml:10:8: TOML syntax error", "`[router`"],
    );
    // A string without its closing quote, on line 15.
    let text = edit(GOOD, "algorithm = \"dor\"", "algorithm = \"dor");
    assert_refused(
        "syntax-string",
        Some(&text),
        &["bad.toml:15:", "TOML syntax error"],
    );
}

#[test]
fn duplicate_key() {
    let text = edit(GOOD, "vcs = 2", "vcs = 2\nvcs = 3");
    assert_refused(
        "duplicate",
        Some(&text),
        &[
            "bad.toml:12:1: TOML syntax error: duplicate key",
            "fix: give each key only once",
        ],
    );
}

#[test]
fn unknown_top_level_key() {
    let text = edit(GOOD, "seed = 1", "seed = 1\ncolour = \"red\"");
    assert_refused(
        "unknown-top",
        Some(&text),
        &[
            "bad.toml:4:1: colour: unknown key",
            "correct its spelling",
            "`seeds`",
        ],
    );
}

#[test]
fn unknown_top_level_table() {
    let text = format!("{GOOD}\n[extras]\nx = 1\n");
    assert_refused(
        "unknown-table",
        Some(&text),
        &["extras: unknown key", "`traffic`"],
    );
}

#[test]
fn unknown_key_in_table() {
    let text = edit(GOOD, "vcs = 2", "vcs = 2\nvc_count = 2");
    assert_refused(
        "unknown-router",
        Some(&text),
        &[
            "bad.toml:12:1: [router] vc_count: unknown key",
            "`vcs`, `buffer_depth`, `early_free`",
        ],
    );
    let text = edit(
        GOOD,
        "measure_cycles = 2000",
        "measure_cycles = 2000\nwatchdog = 100",
    );
    assert_refused(
        "unknown-run",
        Some(&text),
        &["[run] watchdog: unknown key", "`watchdog_cycles`"],
    );
}

#[test]
fn wrong_type() {
    let text = edit(GOOD, "vcs = 2", "vcs = \"two\"");
    assert_refused(
        "type-vcs",
        Some(&text),
        &[
            "bad.toml:11:7: [router] vcs: invalid type: string \"two\", expected a whole number",
            "fix: give `vcs` as a whole number",
        ],
    );
    let text = edit(GOOD, "k = 4", "k = \"four\"");
    assert_refused(
        "type-k",
        Some(&text),
        &["[topology] k:", "a whole number or a list of whole numbers"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = 0.01");
    assert_refused(
        "type-rates",
        Some(&text),
        &["[traffic] rates:", "expected a list"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [0.005, \"0.01\"]");
    assert_refused(
        "type-rate-item",
        Some(&text),
        &[
            "[traffic] rates:",
            "expected a number",
            "each item of `rates`",
        ],
    );
    let text = edit(
        GOOD,
        "algorithm = \"dor\"",
        "algorithm = \"dor\"\ndeadlock_check = \"no\"",
    );
    assert_refused(
        "type-bool",
        Some(&text),
        &["[routing] deadlock_check:", "true or false"],
    );
    let text = edit(GOOD, "seed = 1", "seed = -1");
    assert_refused(
        "type-seed",
        Some(&text),
        &["bad.toml:3:8: seed:", "a whole number >= 0"],
    );
}

#[test]
fn missing_key_and_table() {
    let text = edit(GOOD, "kind = \"mesh\"", "");
    assert_refused(
        "missing-kind",
        Some(&text),
        &[
            "[topology] kind: missing key",
            "add `kind = ...` to [topology]",
        ],
    );
    let text = edit(GOOD, "name = \"t\"", "");
    assert_refused(
        "missing-name",
        Some(&text),
        &["bad.toml: name: missing key", "add `name = ...`"],
    );
    let text = edits(
        GOOD,
        &[
            ("[traffic]", ""),
            ("pattern = \"uniform\"", ""),
            ("message_length = 8", ""),
            ("rates = [0.005, 0.01]", ""),
        ],
    );
    assert_refused(
        "missing-traffic",
        Some(&text),
        &["missing table [traffic]", "add a [traffic] table"],
    );
}
