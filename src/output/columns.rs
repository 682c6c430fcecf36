//! Column tables: one list per CSV table gives each column's name, unit, one-line doc and cell,
//! so that the header, the rows and the book's column reference (docs/src/reference/columns.md) are read off the same list.

use crate::stats::PointResult;
use std::fmt;

/// A cell's value, typed, so that a large table's rows are written without a string per cell;
/// its text (`Display`) is the cell as every CSV writes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell<'a> {
    /// An integer, in decimal.
    Int(u64),
    /// A number: shortest round-trip form, `NaN` when undefined (as [`super::num`]).
    Num(f64),
    /// Text as it is (a CSV writer quotes it where needed).
    Text(&'a str),
    /// An empty cell: the column does not apply.
    Empty,
}

impl Cell<'_> {
    /// An integer, or an empty cell when undefined.
    pub fn opt(x: Option<u64>) -> Self {
        x.map_or(Cell::Empty, Cell::Int)
    }

    /// `true` or `false`.
    pub fn bool(b: bool) -> Self {
        Cell::Text(if b { "true" } else { "false" })
    }
}

impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Cell::Int(v) => write!(f, "{v}"),
            Cell::Num(x) if x.is_nan() => f.write_str("NaN"),
            Cell::Num(x) => write!(f, "{x}"),
            Cell::Text(s) => f.write_str(s),
            Cell::Empty => Ok(()),
        }
    }
}

/// One CSV column: its name, its unit and a one-line doc (markdown, as the book's column reference shows them),
/// and how its cell is written for a load point and a row context `R` (the sub-item a row
/// describes, e.g. a node index; `()` when a point has one row).
pub struct Column<R = ()> {
    /// The header cell.
    pub name: &'static str,
    /// The unit, empty when it has none.
    pub unit: &'static str,
    /// One line of markdown saying what the column holds.
    pub doc: &'static str,
    /// The cell of a row: the load point and the row's context.
    pub value: for<'a> fn(&'a PointResult, &'a R) -> Cell<'a>,
}

/// The header cells of `columns`, in order.
pub fn names<R>(columns: &[Column<R>]) -> Vec<&'static str> {
    columns.iter().map(|c| c.name).collect()
}

/// The cells of one row: each column's value for point `r` and context `x`.
pub fn cells<R>(columns: &[Column<R>], r: &PointResult, x: &R) -> Vec<String> {
    columns
        .iter()
        .map(|c| (c.value)(r, x).to_string())
        .collect()
}

/// Writes the cells of one row to `row`: each column's value for point `r` and context `x`.
pub fn write_cells<R>(columns: &[Column<R>], r: &PointResult, x: &R, row: &mut super::Row) {
    columns.iter().for_each(|c| row.put((c.value)(r, x)));
}

/// `columns` as the book's markdown table (`| column | unit | meaning |`, one line each, ending
/// in a newline). Consecutive columns with the same unit and doc share a line, their names joined
/// by ", ".
pub fn markdown<R>(columns: &[Column<R>]) -> String {
    let cell = |s: &str| {
        if s.is_empty() {
            " |".to_string()
        } else {
            format!(" {s} |")
        }
    };
    let mut text = String::from("| column | unit | meaning |\n|---|---|---|\n");
    let mut i = 0;
    while i < columns.len() {
        let c = &columns[i];
        let same = columns[i..]
            .iter()
            .take_while(|d| d.unit == c.unit && d.doc == c.doc)
            .count();
        let group: Vec<String> = columns[i..i + same]
            .iter()
            .map(|d| format!("`{}`", d.name))
            .collect();
        text += &format!(
            "|{}{}{}\n",
            cell(&group.join(", ")),
            cell(c.unit),
            cell(c.doc)
        );
        i += same;
    }
    text
}

/// A rate as a person writes it: `x` rounded to 15 significant digits, so that a message rate
/// derived from a flit rate (0.07 / 20 is 0.0035000000000000005 in binary) prints as 0.0035;
/// a rate of at most 15 significant digits, as every rate a user gives, prints as given.
pub fn decimal(x: f64) -> f64 {
    format!("{x:.14e}").parse().unwrap_or(x)
}

/// The `rate` column: the point's offered load λ.
pub const fn rate<R>() -> Column<R> {
    Column {
        name: "rate",
        unit: "messages/node/cycle",
        doc: "offered λ",
        value: |r, _| Cell::Num(decimal(r.rate)),
    }
}

/// The `seed` column: the point's seed.
pub const fn seed<R>() -> Column<R> {
    Column {
        name: "seed",
        unit: "",
        doc: "the point's seed",
        value: |r, _| Cell::Int(r.seed),
    }
}

#[cfg(test)]
mod tests {
    use super::decimal;

    /// A derived rate prints as a person writes it; a given one, and one of 15 significant
    /// digits, print unchanged; one of 17 loses its last two.
    #[test]
    fn rates_print_to_fifteen_significant_digits() {
        assert_eq!(format!("{}", 0.07 / 20.0), "0.0035000000000000005");
        assert_eq!(format!("{}", decimal(0.07 / 20.0)), "0.0035");
        for given in [0.0035, 0.007, 1e-6, 0.123456789012345, 3.0] {
            assert_eq!(decimal(given), given);
        }
        assert_eq!(format!("{}", decimal(1.0 / 3.0)), "0.333333333333333");
    }
}
