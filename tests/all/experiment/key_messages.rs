//! Messages read off the key table: an unknown key's close spelling or right table, in a file,
//! a `--set` and a `[sweep]` line; `--set` lists of bare words; a `--set` sweep keeping the
//! file's sweep order; and loads printed as the scenario gave them.

use super::{TORUS, csv, flitsim, ok, refused, scenario};
use crate::common::temp_dir;

/// `TORUS` with `line` added under `[table]`.
fn with_line(table: &str, line: &str) -> String {
    TORUS.replace(&format!("[{table}]\n"), &format!("[{table}]\n{line}\n"))
}

/// The one line `flitsim check` printed on stderr, refused with exit code 2.
fn refusal(args: &[&str], text: &str) -> String {
    let tmp = temp_dir("exp-keys-msg");
    let d = tmp.path();
    let s = scenario(d, "s.toml", text);
    let mut all = vec!["check", s.as_str()];
    all.extend_from_slice(args);
    let o = flitsim(d, "check", &all);
    refused(&o, &[]);
    o.stderr.replace(&s, "s.toml").trim_end().to_string()
}

#[test]
fn a_misspelt_key_in_the_file_gets_did_you_mean() {
    assert_eq!(
        refusal(&[], &with_line("router", "vc = 2")),
        "flitsim: error: s.toml:11:1: [router] vc: unknown key (at `vc = 2`); fix: did you mean `vcs`?"
    );
    assert_eq!(
        refusal(&[], &with_line("run", "wramup_cycles = 2")),
        "flitsim: error: s.toml:22:1: [run] wramup_cycles: unknown key (at `wramup_cycles = 2`); fix: did you mean `warmup_cycles`?"
    );
}

#[test]
fn a_key_in_the_wrong_table_is_pointed_to_the_right_one() {
    assert_eq!(
        refusal(&[], &with_line("traffic", "vcs = 4")),
        "flitsim: error: s.toml:18:1: [traffic] vcs: unknown key (at `vcs = 4`); fix: `vcs` belongs in [router]: move it there"
    );
    assert_eq!(
        refusal(&[], &with_line("traffic", "buffer_dept = 4")),
        "flitsim: error: s.toml:18:1: [traffic] buffer_dept: unknown key (at `buffer_dept = 4`); fix: did you mean `buffer_depth`? it belongs in [router]"
    );
}

#[test]
fn a_far_key_lists_the_table_keys() {
    assert_eq!(
        refusal(&[], &with_line("router", "colour = 2")),
        "flitsim: error: s.toml:11:1: [router] colour: unknown key (at `colour = 2`); fix: remove it or correct its spelling (expected one of `vcs`, `buffer_depth`, `early_free`, `delay`, `crossbar`)"
    );
}

#[test]
fn a_set_key_gets_did_you_mean_or_its_table() {
    assert_eq!(
        refusal(&["--set", "router.vcz=3"], TORUS),
        "flitsim: error: --set router.vcz=3: router.vcz: unknown key; fix: did you mean `router.vcs`?"
    );
    assert_eq!(
        refusal(&["--set", "traffic.vcs=3"], TORUS),
        "flitsim: error: --set traffic.vcs=3: traffic.vcs: `vcs` belongs in [router]; fix: give it as router.vcs"
    );
    assert_eq!(
        refusal(&["--set", "sweep.routing.algoritm=[dor]"], TORUS),
        "flitsim: error: --set sweep.routing.algoritm=[dor]: routing.algoritm: unknown key; fix: did you mean `routing.algorithm`?"
    );
}

#[test]
fn a_sweep_line_gets_did_you_mean() {
    let text = format!("{TORUS}\n[sweep]\n\"router.vc\" = [2, 3]\n");
    assert_eq!(
        refusal(&[], &text),
        "flitsim: error: s.toml:26:1: [sweep] router.vc: unknown key; fix: did you mean `router.vcs`?"
    );
}

/// The `sweep:` lines `flitsim check` prints.
fn sweep_lines(text: &str, sets: &[&str]) -> Vec<String> {
    let tmp = temp_dir("exp-keys-sweep");
    let d = tmp.path();
    let s = scenario(d, "s.toml", text);
    let mut args = vec!["check", s.as_str()];
    for set in sets {
        args.extend(["--set", set]);
    }
    let o = flitsim(d, "check", &args);
    ok(&o);
    o.stdout
        .lines()
        .filter(|l| l.starts_with("  sweep: "))
        .map(str::to_string)
        .collect()
}

#[test]
fn set_takes_bare_words_inside_lists() {
    let bare = sweep_lines(TORUS, &["sweep.routing.algorithm=[duato,dor]"]);
    let quoted = sweep_lines(TORUS, &["sweep.routing.algorithm=[\"duato\", \"dor\"]"]);
    assert_eq!(bare, ["  sweep: routing.algorithm = [duato, dor]"]);
    assert_eq!(bare, quoted);
    // Numbers and quoted items stay as TOML beside bare words.
    let mixed = sweep_lines(
        TORUS,
        &["sweep.topology.links=[bidirectional, \"unidirectional\"]"],
    );
    assert_eq!(
        mixed,
        ["  sweep: topology.links = [bidirectional, unidirectional]"]
    );
    // A bare word where a number belongs is refused as a wrong type, at the `--set`.
    assert_eq!(
        refusal(&["--set", "sweep.router.vcs=[2,four]"], TORUS),
        "flitsim: error: --set sweep.router.vcs=[2,four]: router.vcs: invalid type: string \"four\", expected a whole number; fix: give each value of router.vcs as a whole number"
    );
}

#[test]
fn set_of_a_swept_key_keeps_the_file_sweep_order() {
    let text = format!(
        "{TORUS}\n[sweep]\n\"router.vcs\" = [3, 4]\n\"routing.algorithm\" = [\"dor\", \"duato\"]\n"
    );
    assert_eq!(
        sweep_lines(&text, &["sweep.router.vcs=[5,6]"]),
        [
            "  sweep: router.vcs = [5, 6]",
            "  sweep: routing.algorithm = [dor, duato]"
        ]
    );
    // A key the file does not sweep comes after the file's.
    assert_eq!(
        sweep_lines(&text, &["sweep.router.buffer_depth=[2,8]"]),
        [
            "  sweep: router.vcs = [3, 4]",
            "  sweep: routing.algorithm = [dor, duato]",
            "  sweep: router.buffer_depth = [2, 8]"
        ]
    );
}

/// Loads print as the scenario wrote them: message rates in `rate`, flit rates in
/// `offered_flits`, and a message rate derived from a flit rate as a person writes it.
#[test]
fn rates_print_as_given() {
    let tmp = temp_dir("exp-keys-rates");
    let d = tmp.path();
    let text = TORUS.replace("flit_rates = [0.05, 0.1]", "rates = [0.0035, 0.007]");
    let s = scenario(d, "s.toml", &text);
    ok(&flitsim(d, "run", &["run", &s, "--out", "m", "--quiet"]));
    let (header, rows) = csv(&d.join("m").join("summary.csv"));
    let col = header.iter().position(|h| h == "rate").unwrap();
    let rates: Vec<&str> = rows.iter().map(|r| r[col].as_str()).collect();
    assert_eq!(rates, ["0.0035", "0.007"]);
    let text = TORUS.replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.07, 0.035]");
    let s = scenario(d, "f.toml", &text);
    ok(&flitsim(d, "run", &["run", &s, "--out", "f", "--quiet"]));
    let (header, rows) = csv(&d.join("f").join("summary.csv"));
    let col = header.iter().position(|h| h == "offered_flits").unwrap();
    let rates: Vec<&str> = rows.iter().map(|r| r[col].as_str()).collect();
    assert_eq!(rates, ["0.07", "0.035"]);
    // A message rate derived from a flit rate: 0.07 / 20 is 0.0035000000000000005 in binary.
    let text = TORUS
        .replace("flit_rates = [0.05, 0.1]", "flit_rates = [0.07]")
        .replace("message_length = 8", "message_length = 20");
    let s = scenario(d, "d.toml", &text);
    ok(&flitsim(d, "run", &["run", &s, "--out", "d", "--quiet"]));
    for table in ["summary.csv", "nodes.csv"] {
        let (header, rows) = csv(&d.join("d").join(table));
        let col = header.iter().position(|h| h == "rate").unwrap();
        assert!(rows.iter().all(|r| r[col] == "0.0035"), "{table}: {rows:?}");
    }
}
