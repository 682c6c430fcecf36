//! A network's properties in the terms of paper 004's Fig. 3, as a typed record.

/// What `flitsim info` and `flitsim check` print about a built network.
#[derive(Clone, Debug, PartialEq)]
pub struct Properties {
    /// The topology's name, e.g. "torus" or "k-ary m-way mesh".
    pub topology: String,
    /// Radix of each dimension (a fat tree: its one k).
    pub radix: Vec<u32>,
    /// Fat trees: the levels of switches (n), printed instead of the dimensions.
    pub levels: Option<u32>,
    /// k-ary n-cubes: "unidirectional" or "bidirectional" links.
    pub links: Option<&'static str>,
    /// m-way networks: where processors are linked, e.g. "channels (p = 1)".
    pub processors_on: Option<String>,
    /// m-way networks: the sharing factor m (the most ways of one channel).
    pub m: Option<u32>,
    /// Message sources and sinks.
    pub processors: u64,
    /// Routers.
    pub routers: u64,
    /// Channels: unidirectional point-to-point links, or m-way channels.
    pub channels: u64,
    /// The most network channels a router drives.
    pub degree: u32,
    /// The largest distance between processors (m-way: channel crossings).
    pub diameter: u32,
    /// The mean distance over ordered pairs of distinct processors under uniform traffic.
    pub mean_distance: f64,
    /// m-way networks: the mean number of routers passed.
    pub mean_hops: Option<f64>,
}

impl Properties {
    /// The properties as (name, value) rows, in the order `flitsim info` prints them.
    pub fn rows(&self) -> Vec<(&'static str, String)> {
        let radix = self
            .radix
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join("x");
        let mut rows = vec![("topology", self.topology.clone()), ("radix", radix)];
        match self.levels {
            Some(n) => rows.push(("levels", n.to_string())),
            None => rows.push(("dimensions", self.radix.len().to_string())),
        }
        if let Some(l) = self.links {
            rows.push(("links", l.to_string()));
        }
        if let Some(p) = &self.processors_on {
            rows.push(("processors_on", p.clone()));
        }
        if let Some(m) = self.m {
            rows.push(("m", m.to_string()));
        }
        rows.extend([
            ("processors", self.processors.to_string()),
            ("routers", self.routers.to_string()),
            ("channels", self.channels.to_string()),
            ("degree", self.degree.to_string()),
            ("diameter", self.diameter.to_string()),
            ("mean_distance", format!("{}", self.mean_distance)),
        ]);
        if let Some(h) = self.mean_hops {
            rows.push(("mean_hops", format!("{h}")));
        }
        rows
    }
}
