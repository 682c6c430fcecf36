//! The validated `[topology]`: the family of network, its wrap and radices, and where an m-way
//! network's processors are.

/// Where processors are linked (paper 004 section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// `p` processors on each channel (processor factor p, m = 2n + p).
    Channels(u32),
    /// One processor inside each router (m = 2n).
    Routers,
}

/// Which family a k-ary n-cube belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// No wrap-around links.
    Mesh,
    /// Wrap-around links in every dimension.
    Torus,
    /// The 2-ary n-cube.
    Hypercube,
}

impl Kind {
    /// The name used in scenarios and tables.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mesh => "mesh",
            Kind::Torus => "torus",
            Kind::Hypercube => "hypercube",
        }
    }
}

/// The family of network a scenario describes, with what the family alone needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// A k-ary n-cube with crossbar routers and `concentration` processors per router.
    KAryNCube,
    /// A k-ary m-way network (paper 004) on the channel graph of its `kind`.
    MWay(Placement),
    /// A HyperX: every router linked to each router that differs in one coordinate.
    HyperX,
    /// A dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): groups of fully connected
    /// routers, the groups joined by global channels.
    Dragonfly(DragonflyShape),
    /// A fat tree, the k-ary n-tree: `radix` is n copies of k, its k^n processors on k^(n-1)
    /// leaf switches.
    FatTree,
}

/// A dragonfly's parameters: `p` processors per router, `a` routers per group, `h` global
/// channels per router, `groups` groups (at most a·h + 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DragonflyShape {
    /// Processors per router.
    pub p: u32,
    /// Routers per group.
    pub a: u32,
    /// Global channels per router.
    pub h: u32,
    /// Groups.
    pub groups: u32,
}

impl DragonflyShape {
    /// Routers: a per group.
    pub fn routers(&self) -> u64 {
        self.a as u64 * self.groups as u64
    }

    /// Global channels joining each ordered pair of groups: ⌊a·h / (g − 1)⌋ (0 with one
    /// group); a group's other a·h − m(g − 1) global ports stay unconnected.
    pub fn copies(&self) -> u32 {
        match self.groups {
            0 | 1 => 0,
            g => self.a * self.h / (g - 1),
        }
    }

    /// Unidirectional links: a(a − 1) local ones per group, m(g − 1) global ones leaving each.
    pub fn links(&self) -> u64 {
        let (a, g) = (self.a as u64, self.groups as u64);
        g * a * (a - 1) + g * (g.max(1) - 1) * self.copies() as u64
    }
}

impl Family {
    /// The family in a sentence's words, for refusals ("not {describe}").
    pub fn describe(self) -> &'static str {
        match self {
            Family::KAryNCube => "a k-ary n-cube",
            Family::MWay(_) => {
                "the shared channels of a k-ary m-way network (paper 004 has no model)"
            }
            Family::HyperX => "a HyperX (no paper models it)",
            Family::Dragonfly(_) => "a dragonfly (no paper models it)",
            Family::FatTree => "a fat tree (no paper models it)",
        }
    }
}

/// The validated `[topology]` of a scenario: what `topology::Topology::build` builds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TopologySpec {
    /// The family of network.
    pub family: Family,
    /// The wrap of the (router or channel) graph: mesh, torus or hypercube.
    pub kind: Kind,
    /// Radix of each dimension.
    pub radix: Vec<u32>,
    /// Torus links in both directions (always true for mesh and hypercube).
    pub bidirectional: bool,
    /// Processors per router of a k-ary n-cube or HyperX (1 on every other family, whose
    /// processors are placed by its own parameters); left out of the record when 1.
    #[serde(skip_serializing_if = "is_one")]
    pub concentration: u32,
}

/// True for 1 (a key left out of the record at its default).
fn is_one(c: &u32) -> bool {
    *c == 1
}

impl TopologySpec {
    /// The placement of an m-way network's processors, or None for other families.
    pub fn mway(&self) -> Option<Placement> {
        match self.family {
            Family::MWay(p) => Some(p),
            _ => None,
        }
    }

    /// The topology's name in messages: its kind (mesh, torus, hypercube).
    pub fn name(&self) -> &'static str {
        match self.family {
            Family::KAryNCube | Family::MWay(_) => self.kind.name(),
            Family::HyperX => "hyperx",
            Family::Dragonfly(_) => "dragonfly",
            Family::FatTree => "fat-tree",
        }
    }

    /// True when the network is a cube graph with coordinates (routers, or m-way channels),
    /// which every routing but dimension order and every coordinate pattern need.
    pub fn cube_coordinates(&self) -> bool {
        match self.family {
            Family::KAryNCube | Family::MWay(_) => true,
            Family::HyperX | Family::Dragonfly(_) | Family::FatTree => false,
        }
    }

    /// True for a k-ary n-cube of one processor per router (the networks the analytical
    /// models describe).
    pub fn is_kary_ncube(&self) -> bool {
        self.family == Family::KAryNCube && self.concentration == 1
    }

    /// The network in a sentence's words, for refusals ("not {describe}").
    pub fn describe(&self) -> String {
        match self.concentration {
            1 => self.family.describe().to_string(),
            c => format!(
                "a {} of {c} processors per router (no paper models a concentrated network)",
                self.name()
            ),
        }
    }

    /// Number of processors (message sources and sinks).
    pub fn processors(&self) -> u64 {
        let routers: u64 = self.radix.iter().map(|&k| k as u64).product();
        match self.family {
            Family::Dragonfly(d) => d.routers() * d.p as u64,
            Family::KAryNCube | Family::HyperX => routers * self.concentration as u64,
            Family::FatTree => routers,
            Family::MWay(Placement::Channels(p)) => routers * p as u64,
            // One router per adjacent pair of channels: k per ring, k − 1 per line.
            Family::MWay(Placement::Routers) => self
                .radix
                .iter()
                .map(|&k| {
                    let per_line = if self.kind == Kind::Torus { k } else { k - 1 };
                    routers / k as u64 * per_line as u64
                })
                .sum(),
        }
    }

    /// True when processor i is router (or m-way channel) i, so that patterns defined on
    /// coordinates apply.
    pub fn processors_are_routers(&self) -> bool {
        self.concentration == 1
            && matches!(
                self.family,
                Family::KAryNCube | Family::HyperX | Family::MWay(Placement::Channels(1))
            )
    }

    /// Why the network's processors cannot use traffic pattern `name`, with the fix, or None
    /// when they can.
    pub fn refuses_pattern(&self, name: &str) -> Option<(String, String)> {
        let anywhere = matches!(
            name,
            "uniform" | "hotspot" | "permutation" | "random-permutation" | "shift"
        );
        let dragonfly = matches!(self.family, Family::Dragonfly(_));
        if name == "group-shift" && !dragonfly {
            return Some((
                "group-shift sends from each dragonfly group to the next, and this network has no groups".into(),
                "use kind = \"dragonfly\", or another pattern (e.g. \"shift\")".into(),
            ));
        }
        if dragonfly && !anywhere && name != "group-shift" {
            return Some((
                format!("{name:?} is defined on router coordinates, and a dragonfly has none"),
                "use pattern = \"uniform\", \"hotspot\", \"random-permutation\", \"shift\" or \"group-shift\"".into(),
            ));
        }
        if self.family == Family::FatTree && !anywhere {
            return Some((
                format!(
                    "{name:?} is defined on router coordinates, and a fat tree's processors have none (they are numbered 0 to k^n - 1 on its leaf switches)"
                ),
                "use pattern = \"uniform\", \"hotspot\", \"random-permutation\" or \"shift\""
                    .into(),
            ));
        }
        if self.concentration > 1 && !anywhere {
            return Some((
                format!(
                    "{name:?} is defined on router coordinates, and this network has {} processors per router (processor i is on router i / {0})",
                    self.concentration
                ),
                "use pattern = \"uniform\", \"hotspot\", \"permutation\", \"random-permutation\" or \"shift\", or concentration = 1".into(),
            ));
        }
        if !self.processors_are_routers() && !anywhere && !dragonfly {
            return Some((
                format!("{name:?} is defined on router coordinates, and this m-way network's processors are not one per channel"),
                "use pattern = \"uniform\", \"hotspot\", \"permutation\" or \"shift\", or processors = \"channels\" with processor_factor = 1".into(),
            ));
        }
        if self.family == Family::HyperX && name == "locality" {
            return Some((
                "locality draws destinations by k-ary n-cube distance, not a HyperX's".into(),
                "use another pattern".into(),
            ));
        }
        None
    }
}
