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

pub use crate::spec::{Dateline, Tie, default_conventions as defaults};
