//! A heatmap's SVG, written by hand (each link an element with its own attributes and hover
//! text, which plotters' backend does not give): the caption, one panel per heatmap in rows of
//! at most three (its title, its routers and links, its hottest links listed), and the colour
//! scale from 0 to 1 flits/cycle beside them.

use super::heatmap::HotLink;
use super::layout::{Layout, ROUTER, Shape, Stroke};
use std::fmt::Write;

/// A panel's drawing is scaled down to fit this many pixels either way.
const PANEL_MAX: f64 = 480.0;

/// A panel's least width, pixels (room for its hottest links' lines).
const PANEL_MIN_WIDTH: f64 = 300.0;

/// Panels per row at most.
const COLUMNS: usize = 3;

/// The caption's height, pixels.
const CAPTION: f64 = 40.0;

/// A line of text's height, pixels.
const LINE: f64 = 16.0;

/// The colour scale's column width, pixels.
const SCALE_WIDTH: f64 = 150.0;

/// The colour scale: utilisation 0, 0.25, 0.5, 0.75 and 1 as pale blue, blue, orange, red and
/// dark red (interpolated linearly in between).
const STOPS: [(u8, u8, u8); 5] = [
    (0xC6, 0xD4, 0xE1),
    (0x43, 0x93, 0xC3),
    (0xF4, 0xA5, 0x82),
    (0xD6, 0x30, 0x27),
    (0x67, 0x00, 0x0D),
];

/// One heatmap to draw: its title, its topology's layout, every link (by channel id) and the
/// hottest links to list under it.
pub(super) struct Panel<'a> {
    /// Its title, above it.
    pub title: String,
    /// Where its routers and links are drawn.
    pub layout: &'a Layout,
    /// Every link, by channel id (beside the layout's strokes).
    pub links: &'a [HotLink],
    /// The links listed under it.
    pub hottest: &'a [HotLink],
}

/// The colour of utilisation `u` (flits/cycle, clamped to 0..1) as `#rrggbb`.
pub(crate) fn colour(u: f64) -> String {
    let x = if u.is_finite() {
        u.clamp(0.0, 1.0)
    } else {
        0.0
    } * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let t = x - i as f64;
    let mix = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(a.0, b.0),
        mix(a.1, b.1),
        mix(a.2, b.2)
    )
}

/// Text made safe inside an SVG element or attribute.
pub(super) fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The layout's notes on how it draws links, a line each.
fn notes(l: &Layout) -> impl Iterator<Item = &'static str> {
    l.note.split("; ").filter(|n| !n.is_empty())
}

/// A panel's drawing scale and its cell's size (width, height) in pixels.
fn cell(p: &Panel) -> (f64, (f64, f64)) {
    let (w, h) = p.layout.size;
    let s = (PANEL_MAX / w.max(h)).min(1.0);
    let notes = notes(p.layout).count();
    let lines = usize::from(!p.hottest.is_empty()) + p.hottest.len() + notes;
    let width = (w * s).max(PANEL_MIN_WIDTH) + 20.0;
    (s, (width, LINE * 2.0 + h * s + LINE * lines as f64 + 10.0))
}

/// The SVG of `panels` under `caption`, with one colour scale.
pub(super) fn heatmap(panels: &[Panel], caption: &str) -> String {
    let columns = panels.len().clamp(1, COLUMNS);
    let rows = panels.len().div_ceil(columns).max(1);
    let cells: Vec<(f64, (f64, f64))> = panels.iter().map(cell).collect();
    let cw = cells.iter().map(|c| c.1.0).fold(0.0, f64::max);
    let ch = cells.iter().map(|c| c.1.1).fold(0.0, f64::max);
    // Wide enough for the caption too (22-pixel type: about 11 pixels a character).
    let width = (cw * columns as f64).max(caption.chars().count() as f64 * 11.0) + SCALE_WIDTH;
    let height = (CAPTION + ch * rows as f64).max(CAPTION + 300.0);
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif">"#
    );
    let _ = write!(
        s,
        r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/><text x="{:.1}" y="27" font-size="22" text-anchor="middle">{}</text>"#,
        (width - SCALE_WIDTH) / 2.0,
        escape(caption)
    );
    for (i, (p, &(scale, _))) in panels.iter().zip(&cells).enumerate() {
        let origin = (
            cw * (i % columns) as f64 + 10.0,
            CAPTION + ch * (i / columns) as f64,
        );
        draw_panel(&mut s, p, origin, scale);
    }
    colour_scale(&mut s, (width - SCALE_WIDTH + 20.0, CAPTION + 30.0));
    s.push_str("</svg>\n");
    s
}

/// Draws panel `p` with its top left at `origin`, its layout scaled by `scale`.
fn draw_panel(s: &mut String, p: &Panel, origin: (f64, f64), scale: f64) {
    let (x0, y0) = (origin.0, origin.1 + LINE * 1.5);
    let _ = write!(
        s,
        r#"<text x="{x0:.1}" y="{:.1}" font-size="15">{}</text>"#,
        origin.1 + LINE,
        escape(&p.title)
    );
    let at = |q: (f64, f64)| (x0 + q.0 * scale, y0 + q.1 * scale);
    let _ = write!(s, r##"<g fill="#606060">"##);
    for &r in &p.layout.routers {
        let (x, y) = at(r);
        let _ = match p.layout.bars {
            true => write!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}"/>"#,
                x - 8.0 * scale,
                y - 2.5 * scale,
                16.0 * scale,
                5.0 * scale
            ),
            false => write!(
                s,
                r#"<circle cx="{x:.1}" cy="{y:.1}" r="{:.1}"/>"#,
                ROUTER * scale
            ),
        };
    }
    let width = (3.4 * scale).clamp(0.6, 2.4);
    let _ = write!(
        s,
        r#"</g><g fill="none" stroke-width="{width:.2}" stroke-linecap="round">"#
    );
    for (stroke, l) in p.layout.links.iter().zip(p.links) {
        link(s, stroke, l, &at);
    }
    s.push_str("</g>");
    let mut y = y0 + p.layout.size.1 * scale + LINE;
    let mut line = |s: &mut String, text: &str| {
        let _ = write!(
            s,
            r#"<text x="{x0:.1}" y="{y:.1}" font-size="12">{}</text>"#,
            escape(text)
        );
        y += LINE;
    };
    for note in notes(p.layout) {
        line(s, note);
    }
    if !p.hottest.is_empty() {
        line(s, "hottest links:");
    }
    for h in p.hottest {
        line(s, &h.describe());
    }
}

/// One link's element: its path, coloured by its utilisation, with its channel id, its
/// utilisation and its hover text.
fn link(s: &mut String, k: &Stroke, l: &HotLink, at: &dyn Fn((f64, f64)) -> (f64, f64)) {
    let (a, c, b) = (at(k.from), at(k.ctl), at(k.to));
    let d = match k.shape {
        Shape::Arc => format!(
            "M{:.1},{:.1} Q{:.1},{:.1} {:.1},{:.1}",
            a.0, a.1, c.0, c.1, b.0, b.1
        ),
        Shape::Line | Shape::Stub => format!("M{:.1},{:.1} L{:.1},{:.1}", a.0, a.1, b.0, b.1),
    };
    let _ = write!(
        s,
        r#"<path class="link" data-channel="{}" data-util="{}" d="{d}" stroke="{}"><title>{}</title></path>"#,
        l.channel,
        l.util,
        colour(l.util),
        escape(&l.describe())
    );
}

/// The colour scale with its top left at `at`: a bar from 1 (top) to 0 flits/cycle, its
/// ticks labelled, its units above.
fn colour_scale(s: &mut String, at: (f64, f64)) {
    let (steps, height, w) = (40, 240.0, 16.0);
    let _ = write!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="13">utilisation</text><text x="{:.1}" y="{:.1}" font-size="13">(flits/cycle)</text>"#,
        at.0,
        at.1 - 2.0 * LINE + 4.0,
        at.0,
        at.1 - LINE + 4.0
    );
    for i in 0..steps {
        let u = 1.0 - (f64::from(i) + 0.5) / f64::from(steps);
        let y = at.1 + height * f64::from(i) / f64::from(steps);
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{y:.2}" width="{w}" height="{:.2}" fill="{}"/>"#,
            at.0,
            height / f64::from(steps) + 0.3,
            colour(u)
        );
    }
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let y = at.1 + height * (1.0 - t);
        let _ = write!(
            s,
            r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="black"/><text x="{:.1}" y="{:.1}" font-size="12">{t:.2}</text>"#,
            at.0 + w,
            at.0 + w + 4.0,
            at.0 + w + 7.0,
            y + 4.0
        );
    }
}
