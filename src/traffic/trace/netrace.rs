//! netrace v1 traces (Hestness, Grot and Keckler, "Netrace: dependency-driven trace-based
//! network-on-chip simulation", NoCArc 2010). The layout, as the reference reader and writer
//! (`netrace.c` and `netrace.h` of the netrace distribution, `nt_read_trheader`,
//! `nt_read_packet`, `nt_dump_header`, `nt_dump_packet`) read and write it on a 64-bit
//! little-endian x86 build, in a bzip2 stream:
//!
//! - a 72-byte header: magic u32 = 0x484A5455, version f32 = 1.0, benchmark name (30 bytes),
//!   num_nodes u8, a pad byte, num_cycles u64, num_packets u64, notes_length u32 (with its
//!   NUL), num_regions u32, 8 bytes of padding;
//! - the notes (notes_length bytes), then num_regions region headers of 24 bytes (seek offset,
//!   cycles, packets: three u64);
//! - packets to the end of the stream, each 21 bytes: cycle u64, id u32, addr u32, type u8,
//!   src u8, dst u8, node_types u8, num_deps u8; then num_deps ids (u32).
//!
//! A packet's ids are the packets that depend on it (`nt_read_packet` counts a reference on
//! each, and `nt_clear_dependencies_free_packet` releases them when the packet is delivered):
//! each waits for it. The type gives the size in bytes (`nt_packet_sizes`: 8 for requests,
//! acknowledgements and invalidations, 72 for data; -1 for invalid types). Nodes are numbered
//! 0..num_nodes; trace node i is processor i.

use super::{Refusal, fits};
use crate::spec::TraceMessages;
use std::collections::HashMap;
use std::io::Read;

/// The header's magic number.
const MAGIC: u32 = 0x484A_5455;
/// The header's bytes before the notes.
const HEADER_BYTES: usize = 72;
/// A region header's bytes.
const REGION_BYTES: usize = 24;
/// A packet's bytes before its dependency ids.
const PACKET_BYTES: usize = 21;
/// The most decompressed bytes read: about 12 million packets.
const MAX_BYTES: u64 = 1 << 28;

/// Each packet type's size in bytes (`nt_packet_sizes`), 0 for the invalid types.
const PACKET_SIZES: [u32; 31] = [
    0, 8, 72, 72, 72, 8, 72, 0, 0, 0, 0, 0, 0, 8, 8, 8, 72, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 8, 8, 8,
    72,
];

/// The messages of the bzip2-compressed netrace v1 trace `compressed` (`shown` names it in
/// refusals), each packet of b bytes ⌈b / `flit_bytes`⌉ flits, on a network of `processors`.
pub fn read_netrace(
    compressed: &[u8],
    shown: &str,
    flit_bytes: u32,
    processors: u64,
) -> Result<TraceMessages, Refusal> {
    let mut bytes = Vec::new();
    let read = bzip2::read::MultiBzDecoder::new(compressed)
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes);
    if let Err(e) = read {
        return Err(Refusal::new(
            format!("{shown} is not a bzip2-compressed file ({e})"),
            "give a netrace v1 trace as distributed (.tra.bz2), or a CSV trace (.csv)",
        ));
    }
    if bytes.len() as u64 > MAX_BYTES {
        return Err(Refusal::new(
            format!("{shown} decompresses to more than {MAX_BYTES} bytes"),
            "replay a shorter region of the trace",
        ));
    }
    let mut r = Reader {
        bytes: &bytes,
        at: 0,
        shown,
    };
    let nodes = header(&mut r, processors)?;
    packets(&mut r, nodes, flit_bytes)
}

/// Reads the header, notes and region headers; returns num_nodes.
fn header(r: &mut Reader, processors: u64) -> Result<u32, Refusal> {
    let head = r.take(HEADER_BYTES, "the header")?;
    let magic = u32::from_le_bytes(head[0..4].try_into().expect("4 bytes"));
    if magic != MAGIC {
        return Err(Refusal::new(
            format!(
                "{} does not start with netrace's magic number 0x{MAGIC:08X} (it has 0x{magic:08X})",
                r.shown
            ),
            "give a netrace v1 trace (.tra.bz2), or a CSV trace (.csv)",
        ));
    }
    let version = f32::from_le_bytes(head[4..8].try_into().expect("4 bytes"));
    if version != 1.0 {
        return Err(Refusal::new(
            format!("{} is netrace version {version}, not 1.0", r.shown),
            "give a netrace v1 trace",
        ));
    }
    let nodes = head[38] as u32;
    fits(
        nodes,
        processors,
        &format!("{} (header num_nodes)", r.shown),
    )?;
    let notes = u32::from_le_bytes(head[56..60].try_into().expect("4 bytes")) as usize;
    let regions = u32::from_le_bytes(head[60..64].try_into().expect("4 bytes")) as usize;
    r.take(notes, "the header's notes")?;
    r.take(regions.saturating_mul(REGION_BYTES), "the region headers")?;
    Ok(nodes)
}

/// Reads the packets to the end.
fn packets(r: &mut Reader, nodes: u32, flit_bytes: u32) -> Result<TraceMessages, Refusal> {
    let mut rows = Vec::new();
    let mut ids: HashMap<u32, u32> = HashMap::new();
    // (packet index, id of a packet waiting for it)
    let mut listed: Vec<(u32, u32)> = Vec::new();
    while r.at < r.bytes.len() {
        let i = rows.len();
        let what = format!("packet {i} (0-based)");
        let p = r.take(PACKET_BYTES, &what)?;
        let cycle = u64::from_le_bytes(p[0..8].try_into().expect("8 bytes"));
        let id = u32::from_le_bytes(p[8..12].try_into().expect("4 bytes"));
        let (kind, src, dst, deps) = (p[16], p[17] as u32, p[18] as u32, p[20] as usize);
        let at = format!("{}: {what}, id {id}", r.shown);
        let size = PACKET_SIZES.get(kind as usize).copied().unwrap_or(0);
        if size == 0 {
            return Err(Refusal::new(
                format!("{at} has packet type {kind}, which netrace gives no size"),
                "give a netrace v1 trace whose packets are of the types netrace.c lists",
            ));
        }
        if src >= nodes || dst >= nodes {
            return Err(Refusal::new(
                format!(
                    "{at} goes from node {src} to node {dst}, but the header has {nodes} nodes"
                ),
                "give a trace whose nodes are below its header's num_nodes",
            ));
        }
        if ids.insert(id, i as u32).is_some() {
            return Err(Refusal::new(
                format!("{at}: the id is used by an earlier packet"),
                "give a trace whose packet ids are unique",
            ));
        }
        let list = r.take(deps * 4, &format!("{what}'s dependency ids"))?;
        for d in list.chunks_exact(4) {
            listed.push((i as u32, u32::from_le_bytes(d.try_into().expect("4 bytes"))));
        }
        let flits = size.div_ceil(flit_bytes).min(u16::MAX as u32) as u16;
        rows.push((cycle, src, dst, flits));
    }
    let mut edges = Vec::with_capacity(listed.len());
    for (a, waiting) in listed {
        match ids.get(&waiting) {
            Some(&b) if b > a => edges.push((a, b)),
            found => {
                let place = match found {
                    Some(_) => "not after it in the file",
                    None => "not in the trace",
                };
                return Err(Refusal::new(
                    format!(
                        "{}: packet {a} (0-based) lists packet id {waiting} as depending on it, {place}",
                        r.shown
                    ),
                    "give a trace whose packets list only later packets as their dependents",
                ));
            }
        }
    }
    Ok(TraceMessages::build(nodes, rows, &edges))
}

/// The decompressed bytes, read from the front.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    shown: &'a str,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes, refused as a truncated file where fewer are left.
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], Refusal> {
        let left = self.bytes.len() - self.at;
        if n > left {
            return Err(Refusal::new(
                format!(
                    "{} ends inside {what}: {n} bytes needed at offset {}, {left} left (decompressed)",
                    self.shown, self.at
                ),
                "give the whole trace file: it is truncated or corrupt",
            ));
        }
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }
}
