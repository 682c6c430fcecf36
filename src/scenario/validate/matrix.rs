//! `[traffic] matrix`: the traffic matrix's CSV file, read and checked. Rows and columns are
//! named by processor id (0-based: row s is source s, column d destination d), with the line
//! of the file.

use super::*;
use crate::spec::TrafficMatrix;
use crate::spec::keys::RawTraffic;

/// Most processors a traffic matrix may address (its N² cells are read and kept).
pub const MAX_MATRIX_PROCESSORS: u64 = 4096;

/// The largest matrix file read, in bytes: 64 per cell of the largest matrix.
const MAX_MATRIX_BYTES: u64 = 64 * MAX_MATRIX_PROCESSORS * MAX_MATRIX_PROCESSORS;

/// The matrix `t.matrix` names (relative to the scenario's directory), checked: N rows of N
/// cells for N processors, every cell a number ≥ 0, a zero diagonal and a positive total.
/// Blank lines and lines starting with `#` are skipped.
pub(super) fn read(c: &Checker, t: &RawTraffic, topo: &TopologySpec) -> Result<TrafficMatrix> {
    const KEY: &str = "[traffic] matrix";
    let Some(name) = &t.matrix else {
        return Err(c.err(
            KEY,
            "missing: the matrix pattern needs its matrix",
            "give matrix = \"file.csv\", an N x N CSV of rates (row = source, column = destination), relative to the scenario's directory",
        ));
    };
    let absolute = match t.matrix_scale.as_deref() {
        None | Some("relative") => false,
        Some("absolute") => true,
        Some(other) => {
            return Err(c.err(
                "[traffic] matrix_scale",
                format!("unknown matrix scale {}", quoted(other)),
                "use \"relative\" or \"absolute\"",
            ));
        }
    };
    let n = topo.processors();
    if n > MAX_MATRIX_PROCESSORS {
        return Err(c.err(
            KEY,
            format!("this network has {n} processors, and a matrix of {n}² cells is too large"),
            format!(
                "use a network of at most {MAX_MATRIX_PROCESSORS} processors, or another pattern"
            ),
        ));
    }
    let path = c.dir.join(name);
    let text = text(c, &path)?;
    let cells = cells(c, &path, &text, n as usize)?;
    if cells.iter().all(|&x| x == 0.0) {
        return Err(c.err(
            KEY,
            format!("{}: every cell is 0, so no processor sends", path.display()),
            "give at least one positive rate off the diagonal",
        ));
    }
    Ok(TrafficMatrix {
        file: name.clone(),
        hash: format!("{:016x}", fnv1a(text.as_bytes())),
        absolute,
        cells,
        n: n as usize,
    })
}

/// The file's text, refused when it cannot be read, is too large or is not UTF-8.
fn text(c: &Checker, path: &std::path::Path) -> Result<String> {
    const KEY: &str = "[traffic] matrix";
    let file = super::beside::Beside {
        key: KEY,
        kind: "CSV file",
        max: MAX_MATRIX_BYTES,
        too_large: "give the matrix's CSV file, one row of numbers per source",
    };
    let bytes = file.read(c, path)?;
    let shown = path.display();
    String::from_utf8(bytes).map_err(|e| {
        c.err(
            KEY,
            format!(
                "{shown} is not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
            "save the matrix as a UTF-8 (or ASCII) CSV file",
        )
    })
}

/// The N² cells of `text`, row by row, each refused with its line, row and column.
fn cells(c: &Checker, path: &std::path::Path, text: &str, n: usize) -> Result<Vec<f64>> {
    const KEY: &str = "[traffic] matrix";
    let shown = path.display();
    let rows: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    if rows.len() != n {
        return Err(c.err(
            KEY,
            format!(
                "{shown} has {} rows, but the network has {n} processors",
                rows.len()
            ),
            format!("give {n} rows of {n} numbers, one row per source processor"),
        ));
    }
    let mut cells = Vec::with_capacity(n * n);
    for (s, &(line, row)) in rows.iter().enumerate() {
        let at =
            |d: usize| format!("{shown} line {line}: row {s}, column {d} (0-based processor ids)");
        let fields: Vec<&str> = row.split(',').map(str::trim).collect();
        if fields.len() != n {
            return Err(c.err(
                KEY,
                format!(
                    "{shown} line {line}: row {s} (0-based) has {} columns, but the network has {n} processors",
                    fields.len()
                ),
                format!("give {n} comma-separated numbers in every row"),
            ));
        }
        for (d, f) in fields.into_iter().enumerate() {
            let x: f64 = match f.parse() {
                Ok(x) if f64::is_finite(x) => x,
                _ => {
                    return Err(c.err(
                        KEY,
                        format!("{}: {} is not a number", at(d), echoed(f)),
                        "write every cell as a finite number ≥ 0, e.g. 0.5",
                    ));
                }
            };
            if x < 0.0 {
                return Err(c.err(
                    KEY,
                    format!("{}: {} is negative", at(d), number(x)),
                    "write every cell as a rate ≥ 0",
                ));
            }
            if s == d && x != 0.0 {
                return Err(c.err(
                    KEY,
                    format!(
                        "{}: the diagonal cell is {}, but a processor does not send to itself",
                        at(d),
                        number(x)
                    ),
                    "write 0 on the diagonal",
                ));
            }
            cells.push(x);
        }
    }
    Ok(cells)
}

/// FNV-1a, 64 bits: the matrix (or trace) file's content hash.
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
