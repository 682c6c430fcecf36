//! Hand-written SVG plots: axes (linear or logarithmic) with ticks, and the marks the
//! sections draw on them (curves of points carrying their values for the tooltip, error bars,
//! bars). Written as strings so that every point can carry data attributes.

use super::page::esc;
use crate::output::num;
use crate::output::plot::look::Look;

/// One axis: its range, whether it is logarithmic, and its title.
#[derive(Clone, Debug)]
pub struct Axis {
    /// The lower end (positive on a log axis).
    pub lo: f64,
    /// The upper end.
    pub hi: f64,
    /// Logarithmic (base 10).
    pub log: bool,
    /// The title.
    pub title: String,
}

impl Axis {
    /// A linear axis from 0 to 5% above `max` (to 1 when `max` is not positive).
    pub fn linear(title: &str, max: f64) -> Axis {
        let hi = if max.is_finite() && max > 0.0 {
            max * 1.05
        } else {
            1.0
        };
        Axis {
            lo: 0.0,
            hi,
            log: false,
            title: title.to_string(),
        }
    }

    /// A linear axis from `lo` to `hi`.
    pub fn range(title: &str, lo: f64, hi: f64) -> Axis {
        Axis {
            lo,
            hi: if hi > lo { hi } else { lo + 1.0 },
            log: false,
            title: title.to_string(),
        }
    }

    /// A logarithmic axis over the decades that hold `min`..`max` (positive values).
    pub fn log(title: &str, min: f64, max: f64) -> Axis {
        let (min, max) = match (min.is_finite() && min > 0.0, max.is_finite() && max > 0.0) {
            (true, true) => (min, max),
            _ => (1.0, 10.0),
        };
        let lo = 10f64.powf(min.log10().floor());
        let mut hi = 10f64.powf(max.log10().ceil());
        if hi <= lo {
            hi = lo * 10.0;
        }
        Axis {
            lo,
            hi,
            log: true,
            title: title.to_string(),
        }
    }

    /// Where `v` falls between the ends, 0 at `lo` and 1 at `hi`.
    fn frac(&self, v: f64) -> f64 {
        if self.log {
            (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }

    /// The ticks: 1, 2 or 5 times a power of ten about six times over a linear axis; the
    /// powers of ten on a log axis (with 2 and 5 times them over less than two decades).
    pub fn ticks(&self) -> Vec<f64> {
        if self.log {
            let decades = (self.hi / self.lo).log10().round() as i32;
            let steps: &[f64] = if decades < 2 {
                &[1.0, 2.0, 5.0]
            } else {
                &[1.0]
            };
            let mut out = Vec::new();
            for d in 0..=decades {
                for s in steps {
                    let v = self.lo * 10f64.powi(d) * s;
                    if v <= self.hi * (1.0 + 1e-9) {
                        out.push(v);
                    }
                }
            }
            return out;
        }
        let step = nice_step((self.hi - self.lo) / 6.0);
        let mut out = Vec::new();
        let mut i = (self.lo / step).ceil() as i64;
        while (i as f64) * step <= self.hi * (1.0 + 1e-9) {
            out.push(i as f64 * step);
            i += 1;
        }
        out
    }
}

/// 1, 2 or 5 times a power of ten, the smallest at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * p)
}

/// A tick's label: at most four decimals, without trailing zeros.
pub fn tick_label(v: f64) -> String {
    if v != 0.0 && (v.abs() >= 1e5 || v.abs() < 1e-3) {
        return format!("{v:e}");
    }
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// `v` to four significant digits.
pub fn sig4(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return num(v);
    }
    let decimals = (3 - v.abs().log10().floor() as i32).max(0) as usize;
    num(format!("{v:.decimals$}").parse().unwrap_or(v))
}

/// A plot being drawn: its size, its axes and its marks so far.
pub struct Plot {
    width: f64,
    height: f64,
    /// The x axis.
    pub x: Axis,
    /// The y axis.
    pub y: Axis,
    body: String,
}

/// The margins around the plotting area: left, right, top, bottom.
const MARGIN: (f64, f64, f64, f64) = (58.0, 14.0, 12.0, 42.0);

impl Plot {
    /// An empty plot of `width` × `height` pixels on axes `x` and `y`.
    pub fn new(width: f64, height: f64, x: Axis, y: Axis) -> Plot {
        Plot {
            width,
            height,
            x,
            y,
            body: String::new(),
        }
    }

    /// The pixel column of `x`.
    pub fn px(&self, x: f64) -> f64 {
        MARGIN.0 + self.x.frac(x) * (self.width - MARGIN.0 - MARGIN.1)
    }

    /// The pixel row of `y` (clamped to the plotting area).
    pub fn py(&self, y: f64) -> f64 {
        let f = self.y.frac(y).clamp(-0.02, 1.02);
        self.height - MARGIN.3 - f * (self.height - MARGIN.2 - MARGIN.3)
    }

    /// Whether `(x, y)` can be drawn: finite, within the x range and, on a log axis, positive.
    pub fn shows(&self, x: f64, y: f64) -> bool {
        x.is_finite() && y.is_finite() && (!self.y.log || y > 0.0) && x <= self.x.hi
    }

    /// Adds raw SVG marks.
    pub fn push(&mut self, svg: &str) {
        self.body.push_str(svg);
    }

    /// A curve (class `curve`, `data-curve` = `id`): its line through `points` (x, y, half
    /// width, tooltip), its error bars and its markers, in `look`'s colour, line style and
    /// marker; each marker has class `pt`, its values and its tooltip text.
    pub fn curve(&mut self, id: &str, look: Look, points: &[(f64, f64, f64, String)]) {
        let colour = hex(look);
        let shown: Vec<&(f64, f64, f64, String)> =
            points.iter().filter(|p| self.shows(p.0, p.1)).collect();
        let mut g = format!("<g class=\"curve\" data-curve=\"{}\">", esc(id));
        let line: Vec<String> = shown
            .iter()
            .map(|p| format!("{:.1},{:.1}", self.px(p.0), self.py(p.1)))
            .collect();
        g.push_str(&format!(
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"{} points=\"{}\"/>",
            dash_attr(look.dash()),
            line.join(" ")
        ));
        for p in &shown {
            if p.2.is_finite() && p.2 > 0.0 {
                let lo = if self.y.log {
                    (p.1 - p.2).max(self.y.lo)
                } else {
                    p.1 - p.2
                };
                let (x, y0, y1) = (self.px(p.0), self.py(lo), self.py(p.1 + p.2));
                g.push_str(&format!(
                    "<path class=\"err\" stroke=\"{colour}\" d=\"M{:.1} {y0:.1}V{y1:.1}M{:.1} {y0:.1}h6M{:.1} {y1:.1}h6\"/>",
                    x,
                    x - 3.0,
                    x - 3.0
                ));
            }
        }
        for p in &shown {
            let data = format!("data-x=\"{}\" data-y=\"{}\"", num(p.0), num(p.1));
            g.push_str(&marker(look, (self.px(p.0), self.py(p.1)), &p.3, &data));
        }
        g.push_str("</g>");
        self.body.push_str(&g);
    }

    /// The SVG: the frame, ticks (`tick-x`, `tick-y`), axis titles and the marks; `class`
    /// and `data` (attributes) go on the `svg` element.
    pub fn svg(&self, class: &str, data: &str) -> String {
        let (w, h) = (self.width, self.height);
        let (l, b) = (MARGIN.0, h - MARGIN.3);
        let (r, t) = (w - MARGIN.1, MARGIN.2);
        let mut s = format!(
            "<svg class=\"{}\" {data} width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\">",
            esc(class)
        );
        s.push_str(&format!(
            "<rect x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>",
            r - l,
            b - t
        ));
        let (mut marks, mut grid, mut labels) = (String::new(), String::new(), String::new());
        for v in self.x.ticks() {
            let x = self.px(v);
            marks.push_str(&format!("M{x:.1} {b}v4"));
            labels.push_str(&format!(
                "<text class=\"tick-x\" x=\"{x:.1}\" y=\"{}\">{}</text>",
                b + 15.0,
                tick_label(v)
            ));
        }
        for v in self.y.ticks() {
            let y = self.py(v);
            grid.push_str(&format!("M{l} {y:.1}H{r}"));
            labels.push_str(&format!(
                "<text class=\"tick-y\" x=\"{}\" y=\"{:.1}\">{}</text>",
                l - 5.0,
                y + 4.0,
                tick_label(v)
            ));
        }
        s.push_str(&format!(
            "<path d=\"{grid}\" stroke=\"#eee\"/><path d=\"{marks}\" stroke=\"#999\"/>{labels}"
        ));
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            (l + r) / 2.0,
            h - 6.0,
            esc(&self.x.title)
        ));
        s.push_str(&format!(
            "<text transform=\"translate(13 {:.1}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
            (t + b) / 2.0,
            esc(&self.y.title)
        ));
        s.push_str(&self.body);
        s.push_str("</svg>");
        s
    }
}

/// A look's colour as `#rrggbb`.
pub fn hex(look: Look) -> String {
    let c = look.colour();
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// The stroke-dasharray of line style `dash` (as `flitsim plot` draws them), or nothing.
fn dash_attr(dash: usize) -> &'static str {
    match dash {
        1 => " stroke-dasharray=\"8,5\"",
        2 => " stroke-dasharray=\"2,4\"",
        _ => "",
    }
}

/// A marker of `look` at (x, y) with class `pt` and tooltip `tip`: a filled circle, a
/// triangle, a cross or an open circle, as `flitsim plot`'s.
pub fn marker(look: Look, (x, y): (f64, f64), tip: &str, data: &str) -> String {
    let c = hex(look);
    let tip = match tip.is_empty() {
        true => data.to_string(),
        false => format!("{data} data-tip=\"{}\"", esc(tip)),
    };
    match look.marker() {
        0 => format!(
            "<circle class=\"pt\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"{c}\" {tip}/>"
        ),
        1 => format!(
            "<path class=\"pt\" d=\"M{x:.1} {:.1}l4.5 8h-9z\" fill=\"{c}\" {tip}/>",
            y - 5.0
        ),
        2 => format!(
            "<path class=\"pt\" d=\"M{:.1} {:.1}l8 8m0 -8l-8 8\" stroke=\"{c}\" stroke-width=\"2\" {tip}/>",
            x - 4.0,
            y - 4.0
        ),
        _ => format!(
            "<circle class=\"pt\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"#fff\" stroke=\"{c}\" {tip}/>"
        ),
    }
}

/// A legend sample of `look`: a short line in its style with its marker.
pub fn sample(look: Look) -> String {
    format!(
        "<svg width=\"28\" height=\"12\"><path d=\"M1 6H27\" stroke=\"{}\" stroke-width=\"2\"{}/>{}</svg>",
        hex(look),
        dash_attr(look.dash()),
        marker(look, (14.0, 6.0), "", "")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round_and_cover_the_axis() {
        let a = Axis::linear("x", 0.5 / 1.05);
        assert_eq!(a.ticks(), [0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5]);
        let labels: Vec<String> = a.ticks().into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "0.1", "0.2", "0.3", "0.4", "0.5"]);
        assert_eq!(nice_step(13.0), 20.0);
        assert_eq!(nice_step(0.07), 0.1);
    }

    #[test]
    fn a_log_axis_spans_whole_decades_and_ticks_its_powers() {
        let a = Axis::log("y", 12.0, 350.0);
        assert_eq!((a.lo, a.hi), (10.0, 1000.0));
        assert_eq!(a.ticks(), [10.0, 100.0, 1000.0]);
        let b = Axis::log("y", 12.0, 35.0);
        assert_eq!(b.ticks(), [10.0, 20.0, 50.0, 100.0]);
        let p = Plot::new(400.0, 300.0, Axis::linear("x", 1.0), a);
        // The decades are equally spaced: 100 is half-way up.
        let mid = (p.py(10.0) + p.py(1000.0)) / 2.0;
        assert!((p.py(100.0) - mid).abs() < 1e-9);
        assert!(!p.shows(0.5, 0.0), "no 0 on a log axis");
    }

    #[test]
    fn a_curve_carries_its_id_its_tooltips_and_its_error_bars() {
        let mut p = Plot::new(
            400.0,
            300.0,
            Axis::linear("x", 1.0),
            Axis::linear("y", 10.0),
        );
        let pts = vec![
            (0.1, 2.0, 0.5, "a <b>".to_string()),
            (0.2, 4.0, f64::NAN, "c".to_string()),
        ];
        p.curve("c7", Look::nth(1), &pts);
        let s = p.svg("plot", "data-kind=\"t\"");
        assert!(s.contains("<g class=\"curve\" data-curve=\"c7\">"));
        assert_eq!(s.matches("class=\"pt\"").count(), 2);
        assert_eq!(
            s.matches("class=\"err\"").count(),
            1,
            "no bar for a NaN half-width"
        );
        assert!(s.contains("data-tip=\"a &lt;b&gt;\""));
        assert!(
            s.contains("#56b4e9"),
            "the second colour of flitsim plot's palette"
        );
    }
}
