//! A plot's axes as `flitsim plot` is asked for them: `--x-range LO:HI` on every plot,
//! `--y-range LO:HI` and `--log-y` on the latency plot; the ranges otherwise run from 0 to a
//! margin past the data (on a log axis from below the lowest point).

use crate::error::{Error, Result};
use std::ops::Range;

/// How a plot's axes are bounded and scaled.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scale {
    /// The y axis is logarithmic (base 10).
    pub log_y: bool,
    /// The x axis' range, when given.
    pub x: Option<(f64, f64)>,
    /// The y axis' range, when given.
    pub y: Option<(f64, f64)>,
}

impl Scale {
    /// The range `text` (`LO:HI`, LO < HI, both finite) of option `flag`, or the refusal.
    pub fn parse_range(flag: &str, text: &str) -> Result<(f64, f64)> {
        let bad = |why: &str| {
            Error::Input(format!(
                "plot: {flag} {text}: {why}; fix: give two numbers LO:HI with LO < HI, e.g. {flag} 0:0.5"
            ))
        };
        let (lo, hi) = text.split_once(':').ok_or_else(|| bad("no ':'"))?;
        let num = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        match (num(lo), num(hi)) {
            (Some(lo), Some(hi)) if lo < hi => Ok((lo, hi)),
            (Some(_), Some(_)) => Err(bad("LO is not below HI")),
            _ => Err(bad("not two numbers")),
        }
    }

    /// Refuses a y range that a log axis cannot show (LO ≤ 0).
    pub fn check(&self) -> Result<()> {
        match (self.log_y, self.y) {
            (true, Some((lo, _))) if lo <= 0.0 => Err(Error::Input(format!(
                "plot: --y-range starts at {lo}, and a log axis (--log-y) shows only positive values; fix: give a LO above 0, e.g. --y-range 1:1000"
            ))),
            _ => Ok(()),
        }
    }

    /// The same axes with only the x range kept (the plots other than latency's).
    pub fn x_only(&self) -> Scale {
        Scale {
            x: self.x,
            ..Scale::default()
        }
    }

    /// The x axis: the given range, else [0, `xmax`].
    pub fn x_range(&self, xmax: f64) -> Range<f64> {
        match self.x {
            Some((lo, hi)) => lo..hi,
            None => 0.0..xmax.max(1e-9),
        }
    }

    /// The y axis: the given range, else [0, `ymax`], or on a log axis from the power of 10
    /// at or below the lowest positive point (or error bar's foot) to `ymax`.
    pub fn y_range(&self, pts: &[Vec<(f64, f64, f64)>], ymax: f64) -> Range<f64> {
        match (self.y, self.log_y) {
            (Some((lo, hi)), _) => lo..hi,
            (None, false) => 0.0..ymax.max(1e-9),
            (None, true) => {
                let foot = |&(_, y, c): &(f64, f64, f64)| {
                    if c.is_finite() && y - c > 0.0 {
                        y - c
                    } else {
                        y
                    }
                };
                let low = pts
                    .iter()
                    .flatten()
                    .map(foot)
                    .filter(|&y| y > 0.0)
                    .fold(f64::INFINITY, f64::min);
                // Down to the power of 10 below, whose label the axis then shows.
                let low = match low.is_finite() {
                    true => 10f64.powf(low.log10().floor()),
                    false => 1.0,
                };
                low..ymax.max(low * 10.0)
            }
        }
    }

    /// The points a plot shows: inside the axes' ranges (and positive on a log axis).
    pub fn keep(
        &self,
        pts: Vec<Vec<(f64, f64, f64)>>,
        x: &Range<f64>,
        y: &Range<f64>,
    ) -> Vec<Vec<(f64, f64, f64)>> {
        pts.into_iter()
            .map(|p| {
                p.into_iter()
                    .filter(|&(px, _, _)| x.contains(&px) || px == x.end)
                    .filter(|&(_, py, _)| {
                        (y.contains(&py) || py == y.end) && (!self.log_y || py > 0.0)
                    })
                    .collect()
            })
            .collect()
    }
}
