//! STUB until h-tables lands.
use crate::stats::PointResult;
/// Stub.
pub struct PointTable;
impl PointTable {
    /// Stub.
    pub fn new(_lead_header: &[String], _leads: &[Vec<String>], _several_seeds: bool) -> Self {
        PointTable
    }
    /// Stub.
    pub fn header(&self) -> Vec<String> {
        vec!["lead rate offered accepted latency".into()]
    }
    /// Stub.
    pub fn row(&self, lead: &[String], r: &PointResult) -> String {
        format!(
            "{} {} {} {} {}",
            lead.join(" "),
            r.rate,
            r.offered_flits(),
            r.accepted_flits,
            r.stats.mean()
        )
    }
    /// Stub.
    pub fn footer(&self, _results: &[&PointResult]) -> Vec<String> {
        vec![]
    }
}
