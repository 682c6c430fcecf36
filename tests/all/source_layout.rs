//! The engine's source layout rules (ARCHITECTURE.md): the `Engine` itself has methods in
//! three files, and no engine function (tests aside) is over 120 lines.

use std::fs;
use std::path::{Path, PathBuf};

/// Every non-test Rust file under `dir`, with its text up to its inline test module.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if name.ends_with(".rs") && !name.contains("tests") {
            let text = fs::read_to_string(&path).unwrap();
            let code = match text.find("#[cfg(test)]\nmod tests {") {
                Some(i) => text[..i].to_string(),
                None => text,
            };
            out.push((path, code));
        }
    }
    out
}

fn engine_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/engine")
}

/// The functions of `code` (by a line that opens `fn` and the line closing it at the same
/// indentation), each with its first line number and length in lines.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let opens = [
            "fn ",
            "pub fn ",
            "pub(super) fn ",
            "pub(crate) fn ",
            "const fn ",
        ]
        .iter()
        .any(|p| body.starts_with(p))
            || body.starts_with("pub(in ");
        if !opens || !body.contains("fn ") || body.ends_with(';') {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = (i..lines.len()).find(|&j| lines[j] == close) {
            let name = body
                .split("fn ")
                .nth(1)
                .unwrap_or("")
                .split(['(', '<'])
                .next();
            out.push((name.unwrap_or("").to_string(), i + 1, end - i + 1));
        }
    }
    out
}

#[test]
fn the_engine_has_methods_in_three_files() {
    let mut files: Vec<String> = sources(&engine_dir())
        .into_iter()
        .filter(|(_, code)| code.lines().any(|l| l.starts_with("impl Engine {")))
        .map(|(p, _)| p.strip_prefix(engine_dir()).unwrap().display().to_string())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["diagnostics.rs", "mod.rs", "probes.rs"],
        "`impl Engine` blocks belong in mod.rs (the cycle), probes.rs (the measurement) and \
         diagnostics.rs (invariants, deadlock, memory); fix: make the work a method of the part \
         it changes (`Sources`, `Buffers`, `LinkPipe`, `Split`, ...)"
    );
}

#[test]
fn no_engine_function_is_over_120_lines() {
    let mut long = Vec::new();
    for (path, code) in sources(&engine_dir()) {
        for (name, line, len) in functions(&code) {
            if len > 120 {
                long.push(format!("{}:{line} {name}: {len} lines", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "engine functions over 120 lines: {long:?}; fix: split them"
    );
}

#[test]
fn the_function_scanner_measures_a_known_function() {
    let code = "impl X {\n    /// Doc.\n    pub fn f(&self) -> u32 {\n        1\n    }\n}\n\
                fn g() {\n}\n";
    assert_eq!(
        functions(code),
        [("f".to_string(), 3, 3), ("g".to_string(), 7, 2)]
    );
}

/// The crate's layers, lowest first (ARCHITECTURE.md): a module reads only modules of its own
/// layer or below. `spec` is the typed spec the lower layers read; `scenario` loads it from
/// TOML, above them.
const LAYERS: &[&[&str]] = &[
    &[
        "alloc_guard",
        "huge_pages",
        "threads",
        "records",
        "deadlock",
        "error",
    ],
    &["spec"],
    &["topology"],
    &["network"],
    &["routing", "traffic", "stats"],
    &["scenario"],
    &["engine", "model"],
    &["experiment", "output", "sweep"],
];

/// Modules of the crate each top-level module names (`crate::x`) in its non-test code.
fn crate_imports() -> Vec<(String, Vec<String>)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for (path, code) in sources(&src) {
        let rel = path
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let mut deps: Vec<String> = Vec::new();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for part in line.split("crate::").skip(1) {
                let name: String = part
                    .chars()
                    .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                    .collect();
                if !name.is_empty() && name != top && !deps.contains(&name) {
                    deps.push(name);
                }
            }
        }
        match out.iter_mut().find(|(m, _)| *m == top) {
            Some((_, d)) => {
                for x in deps {
                    if !d.contains(&x) {
                        d.push(x);
                    }
                }
            }
            None => out.push((top, deps)),
        }
    }
    out
}

#[test]
fn each_module_reads_only_its_layer_or_below() {
    let layer = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let mut broken = Vec::new();
    for (module, deps) in crate_imports() {
        let Some(at) = layer(&module) else { continue };
        for dep in deps {
            if layer(&dep).is_none_or(|d| d > at) {
                broken.push(format!("{module} reads {dep}"));
            }
        }
    }
    broken.sort();
    assert!(
        broken.is_empty(),
        "layering broken: {broken:?}; fix: move the shared item down to a lower layer \
         (ARCHITECTURE.md, Layers)"
    );
}
