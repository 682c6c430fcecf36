//! Shards: an experiment's points cut into N deterministic shares balanced by estimated cost
//! (cycles × network size × load, [`Experiment::cost`]), so that N jobs, on one machine or a
//! cluster, each run one share into its own directory and `flitsim merge` assembles them.

use super::Experiment;
use crate::error::{Error, Result};

/// The I-th of N shares (I from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// I, from 1 to N.
    pub index: usize,
    /// N.
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` (1 ≤ I ≤ N); the error names `--shard` and the fix.
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
        let (i, n): (usize, usize) = (
            i.trim()
                .parse()
                .map_err(|_| bad("I is not a whole number"))?,
            n.trim()
                .parse()
                .map_err(|_| bad("N is not a whole number"))?,
        );
        if n == 0 || i == 0 || i > n {
            return Err(bad("I is not from 1 to N"));
        }
        Ok(Shard { index: i, count: n })
    }

    /// The indices (into [`Experiment::points`]) of this share's points, in point order.
    pub fn points(self, exp: &Experiment) -> Vec<usize> {
        let owner = assign(exp, self.count);
        (0..owner.len())
            .filter(|&i| owner[i] == self.index - 1)
            .collect()
    }
}

/// The share (0-based) of every point: longest processing time first — points by decreasing
/// cost (ties by point order) each to the share with the least cost so far (ties to the lowest
/// share) — which depends on nothing but the experiment, so every job computes the same cut.
pub fn assign(exp: &Experiment, n: usize) -> Vec<usize> {
    let points = exp.points();
    let cost: Vec<f64> = points.iter().map(|&p| exp.cost(p)).collect();
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| cost[b].total_cmp(&cost[a]).then(a.cmp(&b)));
    let mut load = vec![0.0f64; n];
    let mut owner = vec![0; points.len()];
    for i in order {
        let s = (0..n)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
            .expect("at least one share");
        owner[i] = s;
        load[s] += cost[i];
    }
    owner
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
                let pts = Shard { index, count }.points(&exp);
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
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("3").is_err());
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
    }
}
