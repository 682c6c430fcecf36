//! A finished point's record: its key text and its results, in postcard's binary form (exact
//! for every f64, NaN included), so that tables assembled from records are byte-identical to
//! those of the run that made them.

use crate::stats::PointResult;

/// The record's format; a record of another format is not trusted.
const FORMAT: u32 = 5;

/// The bytes of a record: the format, the key text, the results.
pub fn encode(key_text: &str, r: &PointResult) -> Vec<u8> {
    postcard::to_stdvec(&(FORMAT, key_text, r)).expect("a point's results serialize")
}

/// The results in a record, if it is of this format and made for `key_text`.
pub fn decode(bytes: &[u8], key_text: &str) -> Option<PointResult> {
    let (format, key, r): (u32, String, PointResult) = postcard::from_bytes(bytes).ok()?;
    (format == FORMAT && key == key_text).then_some(r)
}

/// The most bytes a record of a point of `s` can hold, with room to spare: 16 bytes (a
/// varint or a float, and more) for each bin of its latency histogram (one per cycle it may
/// run), each of its links' and nodes' counts, and its batches, and 1 MiB for the rest. A
/// file in the record store larger than this is not a record of the point, and is not read.
pub fn max_bytes(s: &crate::scenario::Scenario) -> u64 {
    let f = crate::experiment::footprint::footprint(s);
    let r = &s.run;
    let cells = (r.max_warmup())
        .saturating_add(r.max_measure())
        .saturating_add(r.drain_cycles)
        .saturating_add(f.links.saturating_mul(4))
        .saturating_add(f.nodes.saturating_mul(8))
        .saturating_add(2 * r.batches as u64);
    cells.saturating_mul(16).saturating_add(1 << 20)
}
