//! Bad values in a well-formed scenario: out of range, impossible combinations, unknown kinds.
//! Exit code 2, one clear line, nothing written.

use super::{GOOD, assert_refused, edit, edits};

#[test]
fn radix_below_two() {
    let text = edit(GOOD, "k = 4", "k = 1");
    assert_refused(
        "k",
        Some(&text),
        &["[topology] k: 1 is out of range", "from 2"],
    );
    let text = edit(GOOD, "k = 4", "k = [4, 1]");
    assert_refused("k-list", Some(&text), &["[topology] k: 1 is out of range"]);
}

#[test]
fn dimensions_below_one() {
    let text = edit(GOOD, "n = 2", "n = 0");
    assert_refused(
        "n",
        Some(&text),
        &["[topology] n: 0 is out of range", "from 1"],
    );
}

#[test]
fn virtual_channels_below_one() {
    let text = edit(GOOD, "vcs = 2", "vcs = 0");
    assert_refused(
        "vcs",
        Some(&text),
        &["[router] vcs: 0 is out of range", "from 1"],
    );
}

#[test]
fn message_length_below_one() {
    let text = edit(GOOD, "message_length = 8", "message_length = 0");
    assert_refused(
        "length",
        Some(&text),
        &["[traffic] message_length: 0 is out of range", "from 1"],
    );
}

#[test]
fn buffer_depth_below_one() {
    let text = edit(GOOD, "buffer_depth = 4", "buffer_depth = 0");
    assert_refused(
        "depth",
        Some(&text),
        &["[router] buffer_depth: 0 is out of range", "from 1"],
    );
}

#[test]
fn load_not_positive() {
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [0.005, 0.0]");
    assert_refused(
        "rate-zero",
        Some(&text),
        &[
            "[traffic] rates: load 0 is not positive",
            "fix: give loads > 0",
        ],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [-0.01]");
    assert_refused(
        "rate-negative",
        Some(&text),
        &["[traffic] rates: load -0.01 is not positive"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "flit_rates = [0.0]");
    assert_refused(
        "flit-rate-zero",
        Some(&text),
        &["[traffic] flit_rates: load 0 is not positive"],
    );
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = []");
    assert_refused(
        "rates-empty",
        Some(&text),
        &["[traffic] rates: the list is empty"],
    );
}

#[test]
fn flit_rate_above_one() {
    let text = edit(GOOD, "rates = [0.005, 0.01]", "flit_rates = [0.5, 1.5]");
    assert_refused(
        "flit-rate",
        Some(&text),
        &[
            "[traffic] flit_rates: load 1.5",
            "above the injection channel's 1 flit/cycle",
        ],
    );
    // 0.2 messages of 8 flits is 1.6 flits/node/cycle.
    let text = edit(GOOD, "rates = [0.005, 0.01]", "rates = [0.2]");
    assert_refused(
        "rate-flits",
        Some(&text),
        &[
            "[traffic] rates: load 0.2 is 1.6 flits/node/cycle",
            "at most 1",
        ],
    );
}

#[test]
fn dimension_order_on_torus_with_one_vc_deadlocks() {
    for (test, links) in [
        ("dor-torus-uni", "unidirectional"),
        ("dor-torus-bi", "bidirectional"),
    ] {
        let text = edits(
            GOOD,
            &[
                (
                    "kind = \"mesh\"",
                    &format!("kind = \"torus\"\nlinks = \"{links}\""),
                ),
                ("vcs = 2", "vcs = 1"),
            ],
        );
        assert_refused(
            test,
            Some(&text),
            &[
                "[router] vcs:",
                "dimension-order routing on a torus with 1 virtual channel deadlocks",
                "fix: set vcs = 2 or more",
            ],
        );
    }
}

#[test]
fn hypercube_given_k() {
    let text = edit(GOOD, "kind = \"mesh\"", "kind = \"hypercube\"");
    assert_refused(
        "hypercube-k",
        Some(&text),
        &["[topology] k: a hypercube has k = 2", "remove k"],
    );
}

#[test]
fn both_rates_and_flit_rates() {
    let text = edit(
        GOOD,
        "rates = [0.005, 0.01]",
        "rates = [0.005]\nflit_rates = [0.04]",
    );
    assert_refused(
        "both-rates",
        Some(&text),
        &[
            "[traffic] rates: both rates and flit_rates are given",
            "keep one",
        ],
    );
}

#[test]
fn unknown_topology_kind() {
    let text = edit(GOOD, "kind = \"mesh\"", "kind = \"ring\"");
    assert_refused(
        "kind",
        Some(&text),
        &[
            "[topology] kind: unknown topology \"ring\"",
            "\"mesh\", \"torus\", \"hypercube\" or \"mway\"",
        ],
    );
}

#[test]
fn bad_links_value() {
    let text = edit(
        GOOD,
        "kind = \"mesh\"",
        "kind = \"torus\"\nlinks = \"sideways\"",
    );
    assert_refused(
        "links",
        Some(&text),
        &[
            "[topology] links: unknown link kind \"sideways\"",
            "\"unidirectional\" or \"bidirectional\"",
        ],
    );
    let text = edit(
        GOOD,
        "kind = \"mesh\"",
        "kind = \"mesh\"\nlinks = \"unidirectional\"",
    );
    assert_refused(
        "links-mesh",
        Some(&text),
        &[
            "[topology] links: \"unidirectional\" is not possible on a mesh",
            "remove the key",
        ],
    );
}
