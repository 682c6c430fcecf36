//! A finished point's record: its key text and its results, in postcard's binary form (exact
//! for every f64, NaN included), so that tables assembled from records are byte-identical to
//! those of the run that made them.

use crate::stats::PointResult;

/// The record's format; a record of another format is not trusted.
const FORMAT: u32 = 2;

/// The bytes of a record: the format, the key text, the results.
pub fn encode(key_text: &str, r: &PointResult) -> Vec<u8> {
    postcard::to_stdvec(&(FORMAT, key_text, r)).expect("a point's results serialize")
}

/// The results in a record, if it is of this format and made for `key_text`.
pub fn decode(bytes: &[u8], key_text: &str) -> Option<PointResult> {
    let (format, key, r): (u32, String, PointResult) = postcard::from_bytes(bytes).ok()?;
    (format == FORMAT && key == key_text).then_some(r)
}
