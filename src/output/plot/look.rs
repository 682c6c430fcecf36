//! How a curve looks: its colour, line style and marker. A configuration's swept keys map to
//! them in that order (the first key's value to the colour, the second's to the line style,
//! the others' to the marker); with one key or none, the i-th curve takes the i-th colour,
//! and the line style changes only when the seven colours are used up, then the marker. The
//! colours are Okabe and Ito's colour-blind-safe palette without its yellow (pale on white).

use plotters::prelude::*;

/// Okabe and Ito's palette without yellow: orange, sky blue, bluish green, blue, vermillion,
/// reddish purple, black.
const PALETTE: [RGBColor; 7] = [
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0x00, 0x00, 0x00),
];

/// Line styles: solid, dashed, dotted.
const DASHES: usize = 3;

/// Markers: filled circle, triangle, cross, open circle.
const MARKERS: usize = 4;

/// A curve's colour, line style and marker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Look {
    colour: usize,
    dash: usize,
    marker: usize,
}

impl Look {
    /// The i-th look: colours first, then line styles, then markers.
    pub(crate) fn nth(i: usize) -> Look {
        let (c, d) = (PALETTE.len(), PALETTE.len() * DASHES);
        Look {
            colour: i % c,
            dash: (i / c) % DASHES,
            marker: (i / d) % MARKERS,
        }
    }

    /// The look of a configuration whose swept keys' values are the `at`-th of each key's
    /// values: the first key's to the colour (a key of more than seven values moves on to the
    /// line style), the second's to the line style (beyond three, on to the marker), the
    /// rest to the marker.
    pub(crate) fn of(at: &[usize]) -> Look {
        match at {
            [] => Look::nth(0),
            [i] => Look::nth(*i),
            [a, b, rest @ ..] => {
                let line = b + a / PALETTE.len();
                let rest = rest.iter().fold(0, |m, &x| m * MARKERS + x);
                Look {
                    colour: a % PALETTE.len(),
                    dash: line % DASHES,
                    marker: (line / DASHES + rest) % MARKERS,
                }
            }
        }
    }

    /// The colour.
    pub(crate) fn colour(&self) -> RGBColor {
        PALETTE[self.colour]
    }

    /// The line's style: its colour and its stroke width, which [`dash_lines`] turns into the
    /// width 2 of every curve and the dash array of its line style.
    pub(super) fn line(&self) -> ShapeStyle {
        self.colour().stroke_width(2 + self.dash as u32)
    }

    /// The line style: 0 solid, 1 dashed, 2 dotted.
    pub(crate) fn dash(&self) -> usize {
        self.dash
    }

    /// The marker: 0 filled circle, 1 triangle, 2 cross, 3 open circle.
    pub(crate) fn marker(&self) -> usize {
        self.marker
    }
}

/// Gives the lines [`Look::line`] drew their line styles: plotters' SVG has no dash arrays
/// (its dashed series are a path per dash), so a dashed or dotted line is drawn as one line of
/// stroke width 3 or 4, widths no other element of a flitsim plot has, and given here its
/// dash array and the width 2.
pub(super) fn dash_lines(svg: String) -> String {
    svg.replace(
        "stroke-width=\"3\"",
        "stroke-width=\"2\" stroke-dasharray=\"8,5\"",
    )
    .replace(
        "stroke-width=\"4\"",
        "stroke-width=\"2\" stroke-dasharray=\"2,4\"",
    )
}

/// Draws marker `m` of `color` at `at` on `area` (the legend's sample).
pub(super) fn marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    at: (i32, i32),
    color: RGBColor,
    m: usize,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match m {
        0 => area.draw(&Circle::new(at, 3, color.filled())),
        1 => area.draw(&TriangleMarker::new(at, 4, color.filled())),
        2 => area.draw(&Cross::new(at, 4, color.stroke_width(2))),
        _ => area.draw(&Circle::new(at, 3, color.stroke_width(1))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One key: the seven colours before any line style repeats a colour, then dashed, then
    /// dotted, then the next marker; two keys: the first's value picks the colour and the
    /// second's the line style.
    #[test]
    fn colours_then_line_styles_then_markers() {
        let looks: Vec<Look> = (0..22).map(Look::nth).collect();
        for i in 0..7 {
            assert_eq!((looks[i].colour, looks[i].dash, looks[i].marker), (i, 0, 0));
            assert_eq!((looks[i + 7].colour, looks[i + 7].dash), (i, 1));
            assert_eq!((looks[i + 14].colour, looks[i + 14].dash), (i, 2));
        }
        assert_eq!(looks[21].marker, 1);
        for a in 0..3 {
            for b in 0..3 {
                let l = Look::of(&[a, b]);
                assert_eq!((l.colour, l.dash, l.marker), (a, b, 0));
                assert_eq!(Look::of(&[a, b, 2]).marker, 2);
            }
        }
        let fourth = Look::of(&[1, 3]);
        assert_eq!((fourth.colour, fourth.dash, fourth.marker), (1, 0, 1));
        assert_eq!(Look::of(&[9]), Look::nth(9));
        assert_eq!(Look::of(&[]), Look::nth(0));
    }
}
