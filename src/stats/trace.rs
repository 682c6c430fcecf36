//! What a trace replay measures beyond a point's latency and throughput (trace.csv).

/// The results of one replay of a trace.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TraceStats {
    /// The trace's messages.
    pub messages: u64,
    /// Messages whose source is their destination: delivered in the cycle they are
    /// generated, without entering the network.
    pub local: u64,
    /// Messages delivered (all of them unless the replay stopped early).
    pub delivered: u64,
    /// The cycle the last message's tail was delivered in (the replay's runtime).
    pub runtime_cycles: u64,
    /// The trace's own last cycle after speedup: the last message's scheduled cycle.
    pub trace_cycles: u64,
    /// The mean over messages of the cycle each was generated in minus the cycle it was
    /// scheduled at: the delay its dependencies added (0 in a trace without dependencies).
    pub mean_slowdown: f64,
    /// The largest such delay.
    pub max_slowdown: u64,
}
