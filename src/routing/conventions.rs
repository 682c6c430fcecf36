//! Torus conventions of dimension-order routing: how a message exactly half-way round a
//! bidirectional ring picks its direction (`[routing] tie`), and when it takes the upper of a
//! ring's two dateline buffer classes (`[routing] dateline`). They apply to `dor` and to the
//! dimension-order escape class b of `duato` and `duato-timeout`.
//!
//! Tie. `plus`: a message at distance exactly k/2 goes `+` (the papers' e-cube), so on an
//! 8-ary ring under uniform traffic the `+` links carry 10/8 of the mean load. `random`: each
//! message draws one bit per dimension when it is generated (from a stream of its own, a hash
//! of the seed and the message's serial number, so the arrival and selection streams are those
//! of `plus`), and goes `−` on a tie when the bit is set. A tie can only arise where the message
//! enters the dimension (after one hop the rest is shorter than k/2), so the direction is
//! fixed for the whole dimension.
//!
//! Dateline (Dally and Seitz). Each ring's buffers split into a lower and an upper class.
//! `at-wrap`: a message enters a dimension in the lower class and moves to the upper class on
//! the wrap-around link; the upper class never reaches the wrap-around link again and the lower
//! class never crosses it, so both are acyclic whatever the route length (uni- and
//! bidirectional rings). `on-entry`: the class is chosen when the message enters the dimension,
//! the upper class for the whole dimension if its route there crosses the wrap-around link, the
//! lower class otherwise. Deadlock freedom on a bidirectional ring of k nodes: lower-class
//! messages never cross the wrap-around link, so the lower class's dependencies on each ring
//! direction form a path. An upper-class route is minimal, at most ⌊k/2⌋ links, and contains
//! the wrap-around link w = (k−1 → 0) (for `+`); a route containing the consecutive pair of
//! links opposite it, (⌊k/2⌋−1 → ⌊k/2⌋) and (⌊k/2⌋ → ⌊k/2⌋+1), as well as w would need at least
//! ⌈k/2⌉+1 > ⌊k/2⌋ links. So no upper-class dependency joins that pair, and the upper class's
//! dependencies on the ring form a path too. Across dimensions dimension order adds only
//! dependencies from lower to higher dimensions. On a unidirectional ring routes reach k−1
//! links, every consecutive pair is on some wrap-crossing route, and `on-entry` can deadlock:
//! the deadlock check refuses it there.
//!
//! Duato's escape class b must be a function of position and destination only (a class carried
//! over from the input buffer would let adaptive hops join the classes into a cycle), and the
//! entry point of a dimension is not known from those. So class b keeps paper 000's rule
//! whatever `dateline` says: the upper class while the rest of the route in the dimension
//! crosses the wrap-around link, the lower class once it does not. The tie rule applies to it.
//! The ring algorithms (`dor-ring`, `adaptive-ring`) replace the dateline with paper 004's ring
//! groups and offer both directions at a tie, so neither key changes them.

/// How a message at distance exactly k/2 on a bidirectional ring chooses its direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tie {
    /// Always `+` (the papers' e-cube).
    Plus,
    /// `+` or `−` with probability 1/2 each, drawn once per message and dimension.
    Random,
}

/// When a message takes the upper dateline class of a ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dateline {
    /// Lower class until the wrap-around link, upper from it on (Dally and Seitz; papers 000
    /// and 003).
    AtWrap,
    /// Chosen on entering the dimension: upper for the whole dimension if the route there
    /// crosses the wrap-around link, else lower.
    OnEntry,
}

impl Tie {
    /// Every tie rule, in the order messages list them.
    pub const ALL: [Tie; 2] = [Tie::Plus, Tie::Random];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            Tie::Plus => "plus",
            Tie::Random => "random",
        }
    }
}

impl Dateline {
    /// Every dateline rule, in the order messages list them.
    pub const ALL: [Dateline; 2] = [Dateline::AtWrap, Dateline::OnEntry];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            Dateline::AtWrap => "at-wrap",
            Dateline::OnEntry => "on-entry",
        }
    }
}

/// The defaults: the widely used pair (`random`, `on-entry`) on bidirectional tori, the
/// papers' (`plus`, `at-wrap`) elsewhere (a unidirectional torus has no tie).
pub fn defaults(bidirectional_torus: bool) -> (Tie, Dateline) {
    if bidirectional_torus {
        (Tie::Random, Dateline::OnEntry)
    } else {
        (Tie::Plus, Dateline::AtWrap)
    }
}
