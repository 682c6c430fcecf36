//! Shared helpers of the `mway_*` integration tests: a k-ary m-way network (paper 004 section
//! 2.1) built here from channel coordinates, independently of the library's topology code, with
//! distances by breadth-first search over its processor/channel/router graph; and scenarios
//! from TOML text.

use flitsim::Scenario;
use flitsim::engine::{Engine, build_engine};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    Torus,
    /// A mesh; with k = 2 the m-way hypercube.
    Mesh,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Procs {
    /// p processors linked to each channel (m = 2n + p).
    Channels(u32),
    /// One processor inside each router (m = 2n).
    Routers,
}

/// A k-ary m-way network from coordinates: channel c has address a_{n-1} … a_0 with
/// c = Σ a_d k^d; a router joins channels differing by +1 (mod k on a torus) in one digit.
#[derive(Clone, Debug)]
pub struct Model {
    pub wrap: Wrap,
    pub k: u32,
    pub n: usize,
    pub procs: Procs,
    pub channels: u32,
    /// Each router: (channel, its +1 neighbour in dimension d, d).
    pub routers: Vec<(u32, u32, usize)>,
    /// Channels of each processor (this model's own numbering of processors).
    pub proc_chans: Vec<Vec<u32>>,
    /// Routers passed between channels a and b: `chan_dist[a * C + b]`, by BFS.
    chan_dist: Vec<u32>,
}

impl Model {
    pub fn new(wrap: Wrap, k: u32, n: usize, procs: Procs) -> Model {
        let channels = k.pow(n as u32);
        let mut routers = Vec::new();
        for c in 0..channels {
            for d in 0..n {
                let a = (c / k.pow(d as u32)) % k;
                if wrap == Wrap::Torus || a + 1 < k {
                    let b = (a + 1) % k;
                    let nb = c - a * k.pow(d as u32) + b * k.pow(d as u32);
                    routers.push((c, nb, d));
                }
            }
        }
        let proc_chans = match procs {
            Procs::Channels(p) => (0..channels * p).map(|x| vec![x / p]).collect(),
            Procs::Routers => routers.iter().map(|&(a, b, _)| vec![a, b]).collect(),
        };
        let mut m = Model {
            wrap,
            k,
            n,
            procs,
            channels,
            routers,
            proc_chans,
            chan_dist: Vec::new(),
        };
        let adj = m.adjacency();
        m.chan_dist = (0..channels as usize)
            .flat_map(|c| {
                let d = m.bfs(&adj, &[c], false);
                (0..channels as usize).map(move |x| d[x] / 2)
            })
            .collect();
        m
    }

    pub fn processors(&self) -> u32 {
        self.proc_chans.len() as u32
    }

    /// Vertices: channels `0..C`, routers `C..C+R`, processors `C+R..`.
    fn adjacency(&self) -> Vec<Vec<usize>> {
        let c = self.channels as usize;
        let r = self.routers.len();
        let mut adj = vec![Vec::new(); c + r + self.proc_chans.len()];
        for (i, &(a, b, _)) in self.routers.iter().enumerate() {
            for x in [a, b] {
                adj[c + i].push(x as usize);
                adj[x as usize].push(c + i);
            }
        }
        for (p, chans) in self.proc_chans.iter().enumerate() {
            for &x in chans {
                adj[c + r + p].push(x as usize);
                adj[x as usize].push(c + r + p);
            }
        }
        adj
    }

    /// Edge distances from the vertices `starts` over the bipartite graph. Processors are
    /// sinks (they do not relay), so with `with_procs` a processor-to-processor distance is
    /// twice the channels crossed.
    fn bfs(&self, adj: &[Vec<usize>], starts: &[usize], with_procs: bool) -> Vec<u32> {
        let first_proc = self.channels as usize + self.routers.len();
        let mut dist = vec![u32::MAX; adj.len()];
        let mut q = VecDeque::new();
        for &s in starts {
            dist[s] = 0;
            q.push_back(s);
        }
        while let Some(v) = q.pop_front() {
            if v >= first_proc && !starts.contains(&v) {
                continue;
            }
            for &w in &adj[v] {
                if w >= first_proc && !with_procs {
                    continue;
                }
                if dist[w] == u32::MAX {
                    dist[w] = dist[v] + 1;
                    q.push_back(w);
                }
            }
        }
        dist
    }

    /// Routers passed between two channels (BFS).
    pub fn chan_dist(&self, a: u32, b: u32) -> u32 {
        self.chan_dist[(a * self.channels + b) as usize]
    }

    /// Routers passed by a minimal path between processors linked to channels `s` and `t`.
    pub fn routers_passed(&self, s: &[u32], t: &[u32]) -> u32 {
        s.iter()
            .flat_map(|&a| t.iter().map(move |&b| (a, b)))
            .map(|(a, b)| self.chan_dist(a, b))
            .min()
            .unwrap()
    }

    /// Channel crossings (routers passed plus one) between every ordered pair of distinct
    /// processors, by BFS from each processor over the processor/channel/router graph:
    /// `crossings[s * P + t]` (0 on the diagonal).
    pub fn crossings(&self) -> Vec<u32> {
        let first_proc = self.channels as usize + self.routers.len();
        let p = self.processors() as usize;
        let adj = self.adjacency();
        let mut out = vec![0; p * p];
        for s in 0..p {
            let d = self.bfs(&adj, &[first_proc + s], true);
            for t in 0..p {
                if s != t {
                    let e = d[first_proc + t];
                    assert!(
                        e.is_multiple_of(2) && e != u32::MAX,
                        "odd or infinite distance"
                    );
                    out[s * p + t] = e / 2;
                }
            }
        }
        out
    }

    /// Largest and mean crossings over ordered pairs of distinct processors.
    pub fn diameter_and_mean(&self) -> (u32, f64) {
        let x = self.crossings();
        let p = self.processors() as f64;
        let max = *x.iter().max().unwrap();
        let sum: u64 = x.iter().map(|&v| v as u64).sum();
        (max, sum as f64 / (p * (p - 1.0)))
    }

    /// Paper 004's sharing factor m: the most routers and processors linked to one channel
    /// (a processor inside a router drives its channels through that router).
    pub fn sharing_factor(&self) -> u32 {
        let mut ways = vec![0u32; self.channels as usize];
        for &(a, b, _) in &self.routers {
            ways[a as usize] += 1;
            ways[b as usize] += 1;
        }
        if let Procs::Channels(p) = self.procs {
            ways.iter_mut().for_each(|w| *w += p);
        }
        ways.into_iter().max().unwrap()
    }

    /// True when channels a and b are joined by a router of this model.
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        self.routers
            .iter()
            .any(|&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
    }

    /// The `[topology]` table of a scenario for this network.
    pub fn topology_toml(&self) -> String {
        let wrap = match self.wrap {
            Wrap::Torus => "torus",
            Wrap::Mesh => "mesh",
        };
        let procs = match self.procs {
            Procs::Channels(p) => format!("processors = \"channels\"\nprocessor_factor = {p}"),
            Procs::Routers => "processors = \"routers\"".to_string(),
        };
        format!(
            "[topology]\nkind = \"mway\"\nk = {}\nn = {}\nwrap = \"{wrap}\"\n{procs}\n",
            self.k, self.n
        )
    }

    /// A scenario: `routing` and `traffic` hold lines of those tables, `run` extra `[run]` lines.
    pub fn scenario(
        &self,
        vcs: u32,
        depth: u32,
        routing: &str,
        traffic: &str,
        run: &str,
    ) -> Scenario {
        let text = format!(
            "name = \"mway-test\"\n{}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\n\
             [routing]\n{routing}\n\n[traffic]\n{traffic}\n\n[run]\n{run}\n",
            self.topology_toml()
        );
        Scenario::from_toml(&text, "mway-test.toml")
            .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
    }

    /// An engine without sources (messages only through `Engine::send`), deliveries logged.
    pub fn quiet_engine(&self, vcs: u32, depth: u32, routing: &str) -> Engine {
        let s = self.scenario(vcs, depth, routing, "rates = [0.001]", "");
        let mut e = build_engine(&s, 0.0, 1);
        e.log_deliveries = true;
        e
    }
}

/// Checks that the library's processors are this model's (each linked to the channels of a
/// distinct processor here) and returns each library processor's channels.
pub fn library_processors(m: &Model, e: &Engine) -> Vec<Vec<u32>> {
    let mw = e.net.topology.mway().expect("an m-way network");
    assert_eq!(mw.processors, m.processors(), "processors");
    let mut mine: Vec<Vec<u32>> = m
        .proc_chans
        .iter()
        .map(|v| {
            let mut v = v.clone();
            v.sort_unstable();
            v
        })
        .collect();
    let lib: Vec<Vec<u32>> = (0..mw.processors)
        .map(|p| mw.channels_of(p).to_vec())
        .collect();
    let mut theirs: Vec<Vec<u32>> = lib
        .iter()
        .map(|v| {
            let mut v = v.clone();
            v.sort_unstable();
            v
        })
        .collect();
    mine.sort_unstable();
    theirs.sort_unstable();
    assert!(mine == theirs, "processor placement differs from the model");
    lib
}
