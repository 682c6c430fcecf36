//! The key table's rows of the top level, `[topology]`, `[router]` and `[routing]`, each table
//! declared once as its serde struct and its rows (the `table!` macro of `keys.rs`), with the
//! defaults serde fills in.

use super::Allowed::{Any, Ints, Rule, Words};
use super::Need::{Default as D, Optional as O, Required as R};
use super::{Key, Ty};
use super::{Radix, absent};
use super::{RawRun, RawTraffic};

table! {
    /// A scenario file as parsed, before validation: one field per table or top-level key.
    RawScenario, SCENARIO, "" {
        name: String => {
            ty: Ty::Str,
            need: R,
            default: "",
            unit: "",
            allowed: Rule("letters, digits, `-`, `_`, `.`"),
            doc: "names the output directory `results/<name>/`",
        },
        #[serde(default = "default_seed")]
        seed: u64 => {
            ty: Ty::Uint,
            need: D,
            default: "1",
            unit: "",
            allowed: Any,
            doc: "the seed of every random stream of the run",
        },
        seeds: Option<Vec<u64>> => {
            ty: Ty::List(&Ty::Uint),
            need: O,
            default: "",
            unit: "",
            allowed: Any,
            doc: "replications: every load point runs once per seed (one summary row each); replaces `seed`",
        },
        topology: RawTopology => {
            ty: Ty::Table("topology"),
            need: R,
            default: "",
            unit: "",
            allowed: Any,
            doc: "the network",
        },
        #[serde(default)]
        router: RawRouter => {
            ty: Ty::Table("router"),
            need: D,
            default: "",
            unit: "",
            allowed: Any,
            doc: "the router's buffers and timing",
        },
        #[serde(default)]
        routing: RawRouting => {
            ty: Ty::Table("routing"),
            need: D,
            default: "",
            unit: "",
            allowed: Any,
            doc: "the routing algorithm and its options",
        },
        traffic: RawTraffic => {
            ty: Ty::Table("traffic"),
            need: R,
            default: "",
            unit: "",
            allowed: Any,
            doc: "where messages go, their lengths and the offered loads",
        },
        #[serde(default)]
        run: RawRun => {
            ty: Ty::Table("run"),
            need: D,
            default: "",
            unit: "",
            allowed: Any,
            doc: "the phases of each load point",
        },
    }
}

table! {
    /// `[topology]` as written (required).
    RawTopology, TOPOLOGY, "topology" {
        kind: String => {
            ty: Ty::Str,
            need: R,
            default: "",
            unit: "",
            allowed: Words(&["mesh", "torus", "hypercube", "mway", "hyperx", "dragonfly", "fat-tree"]),
            doc: "the network family: a k-ary n-cube (mesh, torus, hypercube), a k-ary m-way network, a HyperX, a dragonfly or a fat tree (k-ary n-tree)",
        },
        k: Option<Radix> => {
            ty: Ty::Radix,
            need: O,
            default: "required (not for `hypercube`)",
            unit: "",
            allowed: Ints(2, 65535),
            doc: "radix: nodes per dimension, one for every dimension or a list with one per dimension; `fat-tree`: one k, the ports each way of a switch (at most 48)",
        },
        n: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required unless `k` is a list",
            unit: "",
            allowed: Ints(1, 22),
            doc: "dimensions; `fat-tree`: levels of switches (k^n processors)",
        },
        links: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"unidirectional\"` for a torus",
            unit: "",
            allowed: Words(&["unidirectional", "bidirectional"]),
            doc: "torus links (meshes and hypercubes are always bidirectional); a bidirectional torus needs k ≥ 3; not for `mway`",
        },
        wrap: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"torus\"`",
            unit: "",
            allowed: Words(&["torus", "mesh"]),
            doc: "`mway` only: rings or linear arrays of channels in each dimension; the mesh with k = 2 is the m-way hypercube",
        },
        processors: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"channels\"`",
            unit: "",
            allowed: Words(&["channels", "routers"]),
            doc: "`mway` only: processors linked to channels (m = 2n + p) or one inside each router (m = 2n)",
        },
        processor_factor: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "1",
            unit: "",
            allowed: Ints(1, 64),
            doc: "`mway` with processors on channels only: p, processors per channel",
        },
        p: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required for `dragonfly`",
            unit: "processors",
            allowed: Ints(1, 256),
            doc: "`dragonfly` only: processors per router",
        },
        a: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required for `dragonfly`",
            unit: "routers",
            allowed: Ints(1, 1024),
            doc: "`dragonfly` only: routers per group, fully connected by local channels",
        },
        h: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required for `dragonfly`",
            unit: "channels",
            allowed: Ints(1, 256),
            doc: "`dragonfly` only: global channels per router",
        },
        groups: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "a·h + 1",
            unit: "groups",
            allowed: Rule("1..a·h + 1"),
            doc: "`dragonfly` only: groups; each pair of groups is joined by ⌊a·h / (groups − 1)⌋ global channels each way",
        },
        concentration: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "1",
            unit: "processors",
            allowed: Ints(1, 64),
            doc: "`mesh`, `torus`, `hypercube` and `hyperx` only: c, processors per router, each with its own injection and ejection channel; processor i is on router ⌊i / c⌋",
        },
        global_latency: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "`link_latency`",
            unit: "cycles",
            allowed: Ints(1, 100),
            doc: "`dragonfly` only: the link latency of global channels (local channels take `link_latency`)",
        },
        link_latency: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "1",
            unit: "cycles",
            allowed: Ints(1, 100),
            doc: "L: a flit crossing a network link arrives L cycles later and its credit takes L cycles back; not for `mway`, nor with `early_free`",
        },
    }
}

table! {
    /// `[router]` as written (defaults when absent).
    RawRouter, ROUTER, "router" {
        #[serde(default = "default_vcs")]
        vcs: i64 => {
            ty: Ty::Int,
            need: D,
            default: "2",
            unit: "",
            allowed: Ints(1, 32),
            doc: "virtual channels V per physical channel (also on the injection channel); in an m-way network the buffers B of each buffer set",
        },
        #[serde(default = "default_depth")]
        buffer_depth: i64 => {
            ty: Ty::Int,
            need: D,
            default: "4",
            unit: "flits",
            allowed: Ints(1, 4096),
            doc: "depth of each virtual-channel buffer (S in paper 004); 2 or more for full pipelining",
        },
        #[serde(default)]
        early_free: bool => {
            ty: Ty::Bool,
            need: D,
            default: "false",
            unit: "",
            allowed: Any,
            doc: "`dor` on meshes and hypercubes only: a buffer takes the next message's header once its message's tail has arrived (paper 004 section 3.5)",
        },
        #[serde(default)]
        delay: i64 => {
            ty: Ty::Int,
            need: D,
            default: "0",
            unit: "cycles",
            allowed: Ints(0, 100),
            doc: "D: a header may cross the crossbar D cycles after it reaches the front of its buffer; not for `mway`",
        },
        crossbar: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"per-vc\"`",
            unit: "",
            allowed: Words(&["per-vc", "per-port"]),
            doc: "an input per virtual channel (paper 000's (n+1)V-way crossbar), or one per input port, which sends at most one flit per cycle; not for `mway`",
        },
    }
    /// The `[router]` keys that are plain (see `Plain`): each a typed value with its default.
    plain RouterOptions {}
}

table! {
    /// `[routing]` as written (defaults when absent).
    RawRouting, ROUTING, "routing" {
        algorithm: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"dor\"`; `\"min\"` on a dragonfly, `\"nca\"` on a fat tree",
            unit: "",
            allowed: Words(&[
                "dor",
                "pcube",
                "duato",
                "duato-timeout",
                "dor-ring",
                "adaptive",
                "adaptive-ring",
                "min",
                "valiant",
                "ugal-l",
                "ugal-l-vch",
                "ugal-g",
                "nca",
            ]),
            doc: "the routing; `\"e-cube\"` and `\"ecube\"` are aliases of `dor`, `\"p-cube\"` of `pcube`",
        },
        timeout: Option<i64> => {
            ty: Ty::Int,
            need: O,
            default: "required for `duato-timeout`",
            unit: "cycles",
            allowed: Ints(0, 1_000_000),
            doc: "τ: how long a blocked header waits for an adaptive virtual channel before it waits only for its escape channel; `duato-timeout` only",
        },
        selection: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"random\"`; `\"avail\"` on `mway`; `\"least-multiplexed\"` for `nca`",
            unit: "",
            allowed: Words(&["random", "least-multiplexed", "most-free", "avail"]),
            doc: "how a header chooses among several free candidate virtual channels of the same priority",
        },
        #[serde(default = "default_true")]
        deadlock_check: bool => {
            ty: Ty::Bool,
            need: D,
            default: "true",
            unit: "",
            allowed: Any,
            doc: "false runs a routing the deadlock check refuses (e.g. DOR on a torus with V = 1), to study deadlock; the watchdog then reports it",
        },
        tie: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"random\"` on bidirectional tori, else `\"plus\"`",
            unit: "",
            allowed: Words(&["plus", "random"]),
            doc: "the way a `dor` message (and `duato`'s escape class) goes exactly half-way round a ring: always `+`, or each way with probability 1/2",
        },
        dateline: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"on-entry\"` on bidirectional tori, else `\"at-wrap\"`",
            unit: "",
            allowed: Words(&["at-wrap", "on-entry"]),
            doc: "when a `dor` message takes a ring's upper dateline class: on the wrap-around link, or on entering the dimension; `on-entry` is refused on unidirectional tori",
        },
        up: Option<String> => {
            ty: Ty::Str,
            need: O,
            default: "`\"adaptive\"` for `nca`",
            unit: "",
            allowed: Words(&["deterministic", "adaptive"]),
            doc: "`nca` only: a fat tree switch's up port, the destination's digit at the switch's level (d-mod-k), or any of the k, the selection picking a free one",
        },
    }
}

fn default_seed() -> u64 {
    1
}
fn default_vcs() -> i64 {
    2
}
fn default_depth() -> i64 {
    4
}
fn default_true() -> bool {
    true
}

impl Default for RawRouter {
    fn default() -> Self {
        absent()
    }
}

impl Default for RawRouting {
    fn default() -> Self {
        absent()
    }
}
