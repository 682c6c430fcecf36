//! A trace to replay (`[traffic] trace`): its messages, each with the cycle it is scheduled at,
//! its source, destination and length, and the messages it depends on. A message is generated
//! at its scheduled cycle or when the last message it depends on has been delivered, whichever
//! is later (the netrace model of closed-loop replay).

/// The file format of a trace, from its name's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    /// netrace v1, bzip2-compressed (`.tra.bz2`, or any name ending in `.bz2`).
    Netrace,
    /// Plain CSV, `id,cycle,src,dst,length,deps` (`.csv`).
    Csv,
}

impl TraceFormat {
    /// The format's name as tables and messages write it.
    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Netrace => "netrace",
            TraceFormat::Csv => "csv",
        }
    }
}

/// A trace as a scenario names it, with its messages.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TraceSpec {
    /// The file as the scenario names it.
    pub file: String,
    /// The FNV-1a hash of the file's bytes as 16 hex digits: a point's key changes with them.
    pub hash: String,
    /// The file's format.
    pub format: TraceFormat,
    /// The trace's cycle c is replayed at ⌊c / speedup⌋ (`[traffic] speedup`).
    pub speedup: f64,
    /// Bytes per flit: a netrace packet of b bytes is ⌈b / flit_bytes⌉ flits
    /// (`[traffic] trace_flit_bytes`; 0 for a CSV trace, whose lengths are in flits).
    pub flit_bytes: u32,
    /// The messages; not serialized (the hash and the keys above stand for them).
    #[serde(skip)]
    pub messages: TraceMessages,
}

impl TraceSpec {
    /// The cycle message `i` is scheduled at: its trace cycle c as ⌊c / speedup⌋.
    pub fn scheduled(&self, i: usize) -> u64 {
        (self.messages.cycle[i] as f64 / self.speedup).floor() as u64
    }

    /// The last scheduled cycle of any message (0 for an empty trace).
    pub fn last_scheduled(&self) -> u64 {
        (0..self.messages.len())
            .map(|i| self.scheduled(i))
            .max()
            .unwrap_or(0)
    }
}

/// A trace's messages, indexed in file order, with their dependencies as a graph: each
/// message's count of messages it waits for, and the messages waiting for it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceMessages {
    /// The processors the trace addresses (netrace's header `num_nodes`; for CSV one more
    /// than the largest source or destination).
    pub nodes: u32,
    /// Each message's trace cycle.
    pub cycle: Vec<u64>,
    /// Each message's source processor.
    pub src: Vec<u32>,
    /// Each message's destination processor.
    pub dst: Vec<u32>,
    /// Each message's length in flits.
    pub len: Vec<u16>,
    /// How many messages each waits for.
    pub waits: Vec<u32>,
    /// The messages waiting for message i are `waiting[first[i]..first[i + 1]]`.
    pub first: Vec<u32>,
    /// The messages waiting for each message, message by message.
    pub waiting: Vec<u32>,
}

impl TraceMessages {
    /// The messages.
    pub fn len(&self) -> usize {
        self.cycle.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.cycle.is_empty()
    }

    /// The messages waiting for message `i`.
    pub fn waiting_for(&self, i: usize) -> &[u32] {
        &self.waiting[self.first[i] as usize..self.first[i + 1] as usize]
    }

    /// The messages built from each one's cycle, source, destination and length, and the
    /// pairs (a, b): message b waits for message a (indices). `nodes` as the format gives it.
    pub fn build(nodes: u32, rows: Vec<(u64, u32, u32, u16)>, edges: &[(u32, u32)]) -> Self {
        let n = rows.len();
        let mut first = vec![0u32; n + 1];
        let mut waits = vec![0u32; n];
        for &(a, b) in edges {
            first[a as usize + 1] += 1;
            waits[b as usize] += 1;
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut at = first.clone();
        let mut waiting = vec![0u32; edges.len()];
        for &(a, b) in edges {
            waiting[at[a as usize] as usize] = b;
            at[a as usize] += 1;
        }
        let mut m = TraceMessages {
            nodes,
            waits,
            first,
            waiting,
            ..Default::default()
        };
        for (c, s, d, l) in rows {
            m.cycle.push(c);
            m.src.push(s);
            m.dst.push(d);
            m.len.push(l);
        }
        m
    }
}
