//! Shards: an experiment's points cut into N deterministic shares balanced by estimated cost
//! (cycles × network size × load, [`Experiment::cost`]), so that N jobs, on one machine or a
//! cluster, each run one share into its own directory and `flitsim merge` assembles them.
//!
//! N is at most the experiment's points ([`check_count`]): a share beyond them would hold
//! nothing, and nothing here allocates or loops in proportion to N, so a count such as
//! `1/18446744073709551615` costs one refusal. The shard directories a merge job assembles
//! come from a list file ([`read_dir_list`]), not its command line, whose length the kernel
//! bounds.

use super::Experiment;
use crate::error::{Error, Result};
use crate::output::files::read_regular_text;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::num::IntErrorKind;
use std::path::{Path, PathBuf};

/// The most bytes a `--dirs-from` list may hold: 16 MiB, room for a hundred thousand shard
/// directories of paths 160 bytes long.
pub const MAX_DIR_LIST_BYTES: u64 = 16 << 20;

/// The I-th of N shares (I from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// I, from 1 to N.
    pub index: usize,
    /// N.
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` (1 ≤ I ≤ N); the error names `--shard` and the fix. N is checked against
    /// an experiment's points by [`Shard::points`].
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = |why: &str| {
            Error::Input(format!(
                "--shard {}: {why}; fix: give --shard I/N with 1 <= I <= N, e.g. --shard 2/8",
                crate::error::echoed(text)
            ))
        };
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| bad("not of the form I/N"))?;
        let whole = |s: &str, name: &str| {
            s.trim().parse::<usize>().map_err(|e| match e.kind() {
                IntErrorKind::PosOverflow => bad(&format!("{name} is more than {}", usize::MAX)),
                _ => bad(&format!("{name} is not a whole number")),
            })
        };
        let (i, n) = (whole(i, "I")?, whole(n, "N")?);
        if n == 0 || i == 0 || i > n {
            return Err(bad("I is not from 1 to N"));
        }
        Ok(Shard { index: i, count: n })
    }

    /// The indices (into [`Experiment::points`]) of this share's points, in point order; N
    /// more than the experiment's points is refused ([`check_count`]).
    pub fn points(self, exp: &Experiment) -> Result<Vec<usize>> {
        check_count(
            &format!("--shard {}/{}", self.index, self.count),
            "N",
            self.count,
            exp.points().len(),
        )?;
        let owner = assign(exp, self.count);
        Ok((0..owner.len())
            .filter(|&i| owner[i] == self.index - 1)
            .collect())
    }
}

/// Refuses to cut `points` points into `count` shares unless 1 ≤ `count` ≤ `points` (beyond,
/// a share would hold no point): the error starts with `flag` (how the command line gave the
/// count, e.g. `--tasks 20`) and its fix names `name` (`N`, `--tasks`) and the points.
pub fn check_count(flag: &str, name: &str, count: usize, points: usize) -> Result<()> {
    if (1..=points).contains(&count) {
        return Ok(());
    }
    Err(Error::Input(format!(
        "{flag}: {count} shares of an experiment of {points} points, so a share would hold no point; fix: give {name} from 1 to {points}"
    )))
}

/// A share's cost so far and its index, ordered by cost (`total_cmp`), then index.
#[derive(PartialEq)]
struct Load(f64, usize);

impl Eq for Load {}

impl Ord for Load {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(self.1.cmp(&other.1))
    }
}

impl PartialOrd for Load {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The share (0-based) of every point: longest processing time first — points by decreasing
/// cost (ties by point order) each to the share with the least cost so far (ties to the lowest
/// share) — which depends on nothing but the experiment, so every job computes the same cut.
/// Only the first min(`n`, points) shares can receive a point (an empty share has the least
/// cost, and the lowest empty one is taken first), so only they are kept: memory and time
/// are the points', whatever `n`.
pub fn assign(exp: &Experiment, n: usize) -> Vec<usize> {
    let points = exp.points();
    let cost: Vec<f64> = points.iter().map(|&p| exp.cost(p)).collect();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| cost[b].total_cmp(&cost[a]).then(a.cmp(&b)));
    let mut shares: BinaryHeap<Reverse<Load>> = (0..n.min(points.len()))
        .map(|s| Reverse(Load(0.0, s)))
        .collect();
    let mut owner = vec![0; points.len()];
    for i in order {
        let Reverse(Load(load, s)) = shares.pop().expect("at least one share");
        owner[i] = s;
        shares.push(Reverse(Load(load + cost[i], s)));
    }
    owner
}

/// The shard directories a `flitsim merge --dirs-from FILE` list names, in its order: one per
/// line, each taken exactly as written (spaces included; relative to the current directory,
/// as the directories given after OUT are), and empty lines skipped (a final newline, a blank
/// line between groups). Refused, naming the file: anything but a regular file (a symbolic
/// link, a FIFO: at once, never followed or waited on), more than [`MAX_DIR_LIST_BYTES`],
/// text not UTF-8, a line holding a control character (a CRLF file's carriage return), or a
/// list of no directory.
pub fn read_dir_list(path: &Path) -> Result<Vec<PathBuf>> {
    let bad = |what: String| {
        Error::Input(format!(
            "--dirs-from {}: {what}; fix: give --dirs-from a regular file (not a link) listing one shard directory per line",
            path.display()
        ))
    };
    let text = read_regular_text(path, MAX_DIR_LIST_BYTES).map_err(|e| bad(e.to_string()))?;
    let mut dirs = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        if let Some(c) = line.chars().find(|c| c.is_control()) {
            return Err(bad(format!(
                "line {} holds a control character (U+{:04X})",
                i + 1,
                c as u32
            )));
        }
        if !line.is_empty() {
            dirs.push(PathBuf::from(line));
        }
    }
    if dirs.is_empty() {
        return Err(bad("it lists no directory".into()));
    }
    Ok(dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_point_once_and_balance_cost() {
        let text = "name = \"s\"\nseeds = [1, 2]\n[sweep]\n\"topology.k\" = [4, 8]\n[topology]\n\
            kind = \"mesh\"\nk = 4\nn = 2\n[traffic]\nmessage_length = 8\n\
            flit_rates = [0.05, 0.1, 0.2, 0.3]\n";
        let exp = Experiment::from_text(text.into(), "s", &[], None).unwrap();
        let n = exp.points().len();
        for count in [1, 3, 5] {
            let mut seen = vec![0; n];
            let mut costs = Vec::new();
            for index in 1..=count {
                let pts = Shard { index, count }.points(&exp).unwrap();
                for &i in &pts {
                    seen[i] += 1;
                }
                let points = exp.points();
                costs.push(pts.iter().map(|&i| exp.cost(points[i])).sum::<f64>());
            }
            assert!(seen.iter().all(|&c| c == 1), "every point in one share");
            let max = costs.iter().cloned().fold(0.0, f64::max);
            let biggest = exp
                .points()
                .iter()
                .map(|&p| exp.cost(p))
                .fold(0.0, f64::max);
            let mean = costs.iter().sum::<f64>() / count as f64;
            // LPT: no share exceeds the mean by more than the costliest point.
            assert!(max <= mean + biggest, "{costs:?}");
        }
        // Counts beyond the points cut the same way (shares past the points stay empty).
        assert_eq!(assign(&exp, n + 7), assign(&exp, n));
        assert_eq!(assign(&exp, usize::MAX), assign(&exp, n));
        let e = Shard::parse(&format!("1/{}", n + 1))
            .unwrap()
            .points(&exp)
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "--shard 1/{}: {} shares of an experiment of {n} points, so a share would hold no point; fix: give N from 1 to {n}",
                n + 1,
                n + 1
            )
        );
        assert!(
            Shard::parse("1/18446744073709551616")
                .unwrap_err()
                .to_string()
                .contains("N is more than 18446744073709551615")
        );
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("3").is_err());
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
    }

    #[test]
    fn a_dir_list_is_one_directory_a_line_with_empty_lines_skipped() {
        let dir = std::env::temp_dir().join(format!("flitsim-dirlist-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let list = dir.join("list");
        let read = |text: &str| {
            std::fs::write(&list, text).unwrap();
            read_dir_list(&list)
        };
        assert_eq!(
            read("a\n\n b c \n/d/e").unwrap(),
            [
                PathBuf::from("a"),
                PathBuf::from(" b c "),
                PathBuf::from("/d/e")
            ]
        );
        let e = read("a\r\nb\n").unwrap_err().to_string();
        assert!(
            e.contains("line 1 holds a control character (U+000D)"),
            "{e}"
        );
        let e = read("\n\n").unwrap_err().to_string();
        assert!(e.contains("it lists no directory"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
