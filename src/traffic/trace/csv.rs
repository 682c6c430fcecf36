//! CSV traces, for hand-made ones: a header line `id,cycle,src,dst,length,deps`, then one
//! message per line: a unique id, its cycle, source and destination processors, length in
//! flits (1 to 65535) and the ids of the messages it waits for, `;`-separated (empty for
//! none), each of a message on an earlier line. Blank lines and lines starting with `#` are
//! skipped.

use super::Refusal;
use crate::spec::TraceMessages;
use std::collections::HashMap;

/// The header line.
const HEADER: &str = "id,cycle,src,dst,length,deps";
/// The columns' names, in order.
const COLUMNS: [&str; 6] = ["id", "cycle", "src", "dst", "length", "deps"];

/// The messages of the CSV trace `text` (`shown` names it in refusals, with the line and
/// column of each problem) on a network of `processors`.
pub fn read_csv(text: &str, shown: &str, processors: u64) -> Result<TraceMessages, Refusal> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    match lines.next() {
        Some((_, h)) if h.split(',').map(str::trim).eq(HEADER.split(',')) => {}
        Some((line, h)) => {
            return Err(Refusal::new(
                format!("{shown} line {line}: the header is {h:?}, not {HEADER:?}"),
                format!("start the file with the line {HEADER}"),
            ));
        }
        None => {
            return Err(Refusal::new(
                format!("{shown} has no header line"),
                format!("start the file with the line {HEADER}, then one message per line"),
            ));
        }
    }
    let rows: Vec<(usize, Vec<&str>)> = lines
        .map(|(line, l)| (line, l.split(',').map(str::trim).collect()))
        .collect();
    let mut ids: HashMap<u64, u32> = HashMap::new();
    let mut messages = Vec::with_capacity(rows.len());
    for (i, (line, cells)) in rows.iter().enumerate() {
        let at = |col: usize| format!("{shown} line {line}, column {} ({})", col + 1, COLUMNS[col]);
        if cells.len() != COLUMNS.len() {
            return Err(Refusal::new(
                format!("{shown} line {line} has {} cells, not 6", cells.len()),
                format!("write each message as {HEADER}, deps empty for none"),
            ));
        }
        let num = |col: usize| -> Result<u64, Refusal> {
            cells[col].parse::<u64>().map_err(|_| {
                Refusal::new(
                    format!("{}: {:?} is not a whole number ≥ 0", at(col), cells[col]),
                    "write a whole number",
                )
            })
        };
        let id = num(0)?;
        let cycle = num(1)?;
        let (src, dst) = (num(2)?, num(3)?);
        for (col, p) in [(2, src), (3, dst)] {
            if p >= processors {
                return Err(Refusal::new(
                    format!(
                        "{}: processor {p}, but the network has {processors}",
                        at(col)
                    ),
                    format!("use processors 0 to {}", processors - 1),
                ));
            }
        }
        let len = num(4)?;
        if !(1..=u16::MAX as u64).contains(&len) {
            return Err(Refusal::new(
                format!("{}: a length of {len} flits", at(4)),
                "give a length from 1 to 65535 flits",
            ));
        }
        if ids.insert(id, i as u32).is_some() {
            return Err(Refusal::new(
                format!("{}: id {id} is used by an earlier line", at(0)),
                "give every message its own id",
            ));
        }
        messages.push((cycle, src as u32, dst as u32, len as u16));
    }
    let edges = edges(&rows, &ids, shown)?;
    let nodes = messages
        .iter()
        .map(|&(_, s, d, _)| s.max(d) + 1)
        .max()
        .unwrap_or(0);
    Ok(TraceMessages::build(nodes, messages, &edges))
}

/// The dependencies of `rows` as pairs (a, b): message b waits for message a (indices), each
/// refused where it names no message, the message itself or a later line.
fn edges(
    rows: &[(usize, Vec<&str>)],
    ids: &HashMap<u64, u32>,
    shown: &str,
) -> Result<Vec<(u32, u32)>, Refusal> {
    let mut edges = Vec::new();
    for (i, (line, cells)) in rows.iter().enumerate() {
        let at = format!("{shown} line {line}, column 6 (deps)");
        for d in cells[5].split(';').map(str::trim).filter(|d| !d.is_empty()) {
            let fix = "list, separated by ';', the ids of messages on earlier lines";
            let Ok(d) = d.parse::<u64>() else {
                return Err(Refusal::new(
                    format!("{at}: {d:?} is not an id (a whole number ≥ 0)"),
                    fix,
                ));
            };
            let why = match ids.get(&d) {
                Some(&a) if (a as usize) < i => {
                    edges.push((a, i as u32));
                    continue;
                }
                Some(&a) if a as usize == i => "the message itself",
                Some(_) => "a message on a later line",
                None => "no message's id",
            };
            return Err(Refusal::new(format!("{at}: id {d} is {why}"), fix));
        }
    }
    Ok(edges)
}
