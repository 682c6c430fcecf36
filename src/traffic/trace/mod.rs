//! Traces to replay (`[traffic] trace`): their two file formats, netrace v1 and CSV, read into
//! [`TraceMessages`](crate::spec::TraceMessages). A reader's refusal is a [`Refusal`]: what is wrong (naming the file's
//! place) and the fix.

mod csv;
mod netrace;

pub use csv::read_csv;
pub use netrace::read_netrace;

/// Why a trace file is refused: the problem (naming where in the file) and its fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// What is wrong, and where.
    pub problem: String,
    /// How to fix it.
    pub fix: String,
}

impl Refusal {
    fn new(problem: impl Into<String>, fix: impl Into<String>) -> Refusal {
        Refusal {
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

/// Refuses a trace that addresses more processors than the network has (`nodes` against
/// `processors`); netrace's nodes are the network's processors of the same ids (identity).
fn fits(nodes: u32, processors: u64, what: &str) -> Result<(), Refusal> {
    if nodes as u64 > processors {
        return Err(Refusal::new(
            format!("{what} addresses {nodes} nodes, but the network has {processors} processors"),
            format!("use a network of at least {nodes} processors (trace node i is processor i)"),
        ));
    }
    Ok(())
}
