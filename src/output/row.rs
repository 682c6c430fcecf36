//! One line of a large table, encoded into its chunk's text a cell at a time, and the texts of
//! the numbers its chunk wrote last.

use super::columns::Cell;
use std::io::Write;

/// One CSV line being written into a text, a cell at a time, encoded as the `csv` crate's
/// writer of [`super::Table::new`] encodes it: cells joined by commas, a cell holding a comma,
/// a quote or a line break quoted (its quotes doubled), and a line with no text written as `""`.
pub struct Row<'t> {
    text: &'t mut Vec<u8>,
    nums: &'t mut NumTexts,
    start: usize,
    cells: usize,
}

impl<'t> Row<'t> {
    /// A line appended to `text`, its numbers' texts looked up in `nums` first.
    pub(super) fn new(text: &'t mut Vec<u8>, nums: &'t mut NumTexts) -> Self {
        let start = text.len();
        Row {
            text,
            nums,
            start,
            cells: 0,
        }
    }

    /// Appends a cell.
    pub fn cell(&mut self, cell: &str) {
        self.next();
        let bytes = cell.as_bytes();
        if !bytes
            .iter()
            .any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'))
        {
            self.text.extend_from_slice(bytes);
            return;
        }
        self.text.push(b'"');
        for &b in bytes {
            if b == b'"' {
                self.text.push(b'"');
            }
            self.text.push(b);
        }
        self.text.push(b'"');
    }

    /// Appends a typed cell: a number straight into the text (it never needs quoting), text
    /// as [`Row::cell`] writes it.
    pub fn put(&mut self, cell: Cell) {
        match cell {
            Cell::Text(s) => self.cell(s),
            Cell::Empty => self.cell(""),
            Cell::Int(v) => {
                self.next();
                self.text
                    .extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
            }
            Cell::Num(x) => {
                self.next();
                self.nums.write(x, self.text);
            }
        }
    }

    /// Starts a cell: a comma after the line's first.
    fn next(&mut self) {
        if self.cells > 0 {
            self.text.push(b',');
        }
        self.cells += 1;
    }

    /// Ends the line.
    pub(super) fn end(self) {
        if self.text.len() == self.start {
            self.text.extend_from_slice(b"\"\"");
        }
        self.text.push(b'\n');
    }
}

/// Numbers' texts a chunk of rows wrote last, by their bits, in slots chosen by a hash. A large
/// table's figures are counts over one window (and its rate is the point's on every line), so
/// few distinct numbers fill its millions of lines, and each is formatted once a chunk.
pub struct NumTexts {
    slots: Box<[Slot; SLOTS]>,
}

/// The slots of a [`NumTexts`]: a power of two.
const SLOTS: usize = 256;

/// A number's bits and its text, `len` bytes long (0: the slot is empty).
#[derive(Clone, Copy)]
struct Slot {
    bits: u64,
    len: u8,
    text: [u8; 23],
}

impl Default for NumTexts {
    fn default() -> Self {
        NumTexts {
            slots: Box::new(
                [Slot {
                    bits: 0,
                    len: 0,
                    text: [0; 23],
                }; SLOTS],
            ),
        }
    }
}

impl NumTexts {
    /// Appends `x`'s text to `text`, [`Cell::Num`]'s, from its slot when it holds `x`.
    pub fn write(&mut self, x: f64, text: &mut Vec<u8>) {
        let bits = x.to_bits();
        // Fibonacci hashing: the top bits of the bits times 2^64 / φ.
        let hash = bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SLOTS.trailing_zeros());
        let slot = &mut self.slots[hash as usize];
        if slot.len > 0 && slot.bits == bits {
            text.extend_from_slice(&slot.text[..slot.len as usize]);
            return;
        }
        let start = text.len();
        write!(text, "{}", Cell::Num(x)).expect("in-memory write");
        let written = &text[start..];
        if written.len() <= slot.text.len() {
            slot.bits = bits;
            slot.len = written.len() as u8;
            slot.text[..written.len()].copy_from_slice(written);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Cell, NumTexts};

    #[test]
    fn numbers_written_through_their_slots_read_as_formatted_afresh() {
        // Counts over a window (more values than slots, so slots are taken over), each seen
        // twice, with numbers whose text fills a slot, overflows it, or shares it by bits.
        let mut xs: Vec<f64> = (0..3000).map(|k| k as f64 / 2000.0).collect();
        xs.extend((0..3000).rev().map(|k| k as f64 / 2000.0));
        xs.extend([
            1e-20,
            1e-22,
            1e-22,
            1e300,
            1e300,
            0.1 + 0.2,
            0.0,
            -0.0,
            -0.0,
            0.0,
        ]);
        xs.extend([f64::NAN, f64::from_bits(f64::NAN.to_bits() ^ 1), -f64::NAN]);
        xs.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MIN_POSITIVE,
            f64::MAX,
        ]);
        let mut nums = NumTexts::default();
        for round in 0..2 {
            for &x in &xs {
                let mut text = b"a,".to_vec();
                nums.write(x, &mut text);
                let want = format!("a,{}", Cell::Num(x));
                assert_eq!(
                    String::from_utf8(text).unwrap(),
                    want,
                    "{x:?} in round {round}"
                );
            }
        }
    }
}
