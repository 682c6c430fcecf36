//! The validated `[routing]` choices: the algorithm a scenario names, and the torus
//! conventions (tie rule, dateline rule) of `routing::conventions`.

/// The routing algorithms a scenario can name (`[routing] algorithm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Dimension-order (e-cube) routing, lowest dimension first; dateline classes on a torus.
    Dor,
    /// The hypercube's partially adaptive p-cube routing (paper 002 Fig. 1b).
    PCube,
    /// Duato's fully adaptive routing: adaptive class a, dimension-order escape class b.
    Duato,
    /// Duato's routing with the time-out selection of paper 001 (Duato 1994).
    DuatoTimeout,
    /// Dimension order with the ring algorithm's low/high classes (paper 004, DOR_RING).
    DorRing,
    /// Fully adaptive with deterministic and adaptive classes (paper 004, ADAPTIVE).
    Adaptive,
    /// Fully adaptive with low, high and adaptive classes (paper 004, ADAPTIVE_RING).
    AdaptiveRing,
    /// A dragonfly's minimal routing: local, global, local (Kim et al. 2008).
    Min,
    /// Valiant's routing on a dragonfly: minimally to a random intermediate group, then
    /// minimally to the destination (Kim et al. 2008).
    Valiant,
    /// UGAL-L on a dragonfly: at the source, minimal or Valiant by hops times the source
    /// router's output queue (Kim et al. 2008).
    UgalL,
    /// UGAL-L_VCH on a dragonfly (Kim et al. 2008): UGAL-L, but where both paths leave by the
    /// same channel each is weighed by its own virtual channels' occupancy.
    UgalLVch,
    /// UGAL-G on a dragonfly: the same with the queue of the global channel each path takes.
    UgalG,
    /// Fat trees: up to a nearest common ancestor, then the unique way down.
    Nca,
}

/// The one name table: each algorithm's scenario name, a gloss for messages, and the other
/// names a scenario may use for it.
const NAMES: [(Algorithm, &str, &str, &[&str]); 13] = [
    (
        Algorithm::Dor,
        "dor",
        " (dimension-order / e-cube)",
        &["e-cube", "ecube"],
    ),
    (Algorithm::PCube, "pcube", "", &["p-cube"]),
    (Algorithm::Duato, "duato", "", &[]),
    (Algorithm::DuatoTimeout, "duato-timeout", "", &[]),
    (Algorithm::DorRing, "dor-ring", "", &[]),
    (Algorithm::Adaptive, "adaptive", "", &[]),
    (Algorithm::AdaptiveRing, "adaptive-ring", "", &[]),
    (Algorithm::Min, "min", "", &[]),
    (Algorithm::Valiant, "valiant", "", &[]),
    (Algorithm::UgalL, "ugal-l", "", &[]),
    (Algorithm::UgalLVch, "ugal-l-vch", "", &[]),
    (Algorithm::UgalG, "ugal-g", "", &[]),
    (Algorithm::Nca, "nca", "", &[]),
];

impl Algorithm {
    /// The algorithm's name in scenarios and tables.
    pub fn name(self) -> &'static str {
        NAMES.iter().find(|e| e.0 == self).map_or("", |e| e.1)
    }

    /// The algorithm a scenario's name (or alias) stands for.
    pub fn parse(name: &str) -> Option<Algorithm> {
        NAMES
            .iter()
            .find(|e| e.1 == name || e.3.contains(&name))
            .map(|e| e.0)
    }

    /// Every name, quoted, for the fix of an unknown-routing message.
    pub fn choices() -> String {
        let names: Vec<String> = NAMES
            .iter()
            .map(|e| format!("\"{}\"{}", e.1, e.2))
            .collect();
        let (last, rest) = names.split_last().expect("routings exist");
        format!("{} or {last}", rest.join(", "))
    }
}

/// How `nca` chooses a fat tree switch's up port (`[routing] up`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum UpPorts {
    /// Up port p_l at level l, p the destination (d-mod-k: destinations spread over the ports).
    Deterministic,
    /// All k up ports are candidates of one tier; the selection picks a free one.
    Adaptive,
}

impl UpPorts {
    /// Both choices, in the order messages list them.
    pub const ALL: [UpPorts; 2] = [UpPorts::Deterministic, UpPorts::Adaptive];

    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            UpPorts::Deterministic => "deterministic",
            UpPorts::Adaptive => "adaptive",
        }
    }
}

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
pub fn default_conventions(bidirectional_torus: bool) -> (Tie, Dateline) {
    if bidirectional_torus {
        (Tie::Random, Dateline::OnEntry)
    } else {
        (Tie::Plus, Dateline::AtWrap)
    }
}
