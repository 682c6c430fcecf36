//! Shared helpers of the `exact_*` integration tests: scenarios from TOML text, and the
//! topology facts (coordinates, distances) computed here from first principles, independently
//! of the library's own topology code.

use flitsim::Scenario;
use flitsim::engine::{Engine, EngineConfig, build_engine, build_engine_with};

/// The kinds of k-ary n-cube, as the tests see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Mesh,
    UniTorus,
    BiTorus,
    Hypercube,
}

/// A topology described independently of the library: its shape and one radix per dimension.
#[derive(Clone, Debug)]
pub struct Topo {
    pub shape: Shape,
    pub radix: Vec<u32>,
}

impl Topo {
    pub fn mesh(radix: &[u32]) -> Topo {
        Topo {
            shape: Shape::Mesh,
            radix: radix.to_vec(),
        }
    }
    pub fn uni_torus(k: u32, n: usize) -> Topo {
        Topo {
            shape: Shape::UniTorus,
            radix: vec![k; n],
        }
    }
    pub fn bi_torus(k: u32, n: usize) -> Topo {
        Topo {
            shape: Shape::BiTorus,
            radix: vec![k; n],
        }
    }
    pub fn hypercube(n: usize) -> Topo {
        Topo {
            shape: Shape::Hypercube,
            radix: vec![2; n],
        }
    }

    pub fn n(&self) -> usize {
        self.radix.len()
    }

    pub fn nodes(&self) -> u32 {
        self.radix.iter().product()
    }

    /// The `[topology]` table of a scenario for this network.
    pub fn toml(&self) -> String {
        let ks = self
            .radix
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        match self.shape {
            Shape::Mesh => format!("[topology]\nkind = \"mesh\"\nk = [{ks}]\n"),
            Shape::UniTorus => {
                format!("[topology]\nkind = \"torus\"\nk = [{ks}]\nlinks = \"unidirectional\"\n")
            }
            Shape::BiTorus => {
                format!("[topology]\nkind = \"torus\"\nk = [{ks}]\nlinks = \"bidirectional\"\n")
            }
            Shape::Hypercube => format!("[topology]\nkind = \"hypercube\"\nn = {}\n", self.n()),
        }
    }

    /// Coordinates of a node: index = Σ a_d · Π_{e<d} k_e, dimension 0 least significant.
    pub fn coords(&self, node: u32) -> Vec<u32> {
        let mut rest = node;
        self.radix
            .iter()
            .map(|&k| {
                let a = rest % k;
                rest /= k;
                a
            })
            .collect()
    }

    /// Hops needed in each dimension by a minimal path from `a` to `b`.
    pub fn dim_hops(&self, a: u32, b: u32) -> Vec<u32> {
        if self.shape == Shape::Hypercube {
            let x = a ^ b;
            return (0..self.n()).map(|d| (x >> d) & 1).collect();
        }
        let (ca, cb) = (self.coords(a), self.coords(b));
        (0..self.n())
            .map(|d| {
                let (x, y, k) = (ca[d] as i64, cb[d] as i64, self.radix[d] as i64);
                let h = match self.shape {
                    Shape::Mesh => (x - y).abs(),
                    Shape::UniTorus => (y - x).rem_euclid(k),
                    Shape::BiTorus => {
                        let up = (y - x).rem_euclid(k);
                        up.min(k - up)
                    }
                    Shape::Hypercube => unreachable!(),
                };
                h as u32
            })
            .collect()
    }

    /// Minimal distance: mesh Σ|dx|, unidirectional torus Σ (b-a) mod k, bidirectional torus
    /// Σ min(d, k-d), hypercube popcount(a xor b).
    pub fn dist(&self, a: u32, b: u32) -> u32 {
        if self.shape == Shape::Hypercube {
            return (a ^ b).count_ones();
        }
        self.dim_hops(a, b).iter().sum()
    }

    /// Exact distribution of the distance between a uniformly chosen ordered pair of distinct
    /// nodes (uniform traffic), by enumeration of all pairs: `p[h]`.
    pub fn hop_distribution(&self) -> Vec<f64> {
        let n = self.nodes();
        let mut count = vec![0u64; 1];
        for a in 0..n {
            for b in 0..n {
                if a == b {
                    continue;
                }
                let h = self.dist(a, b) as usize;
                if h >= count.len() {
                    count.resize(h + 1, 0);
                }
                count[h] += 1;
            }
        }
        let pairs = (n as u64 * (n as u64 - 1)) as f64;
        count.iter().map(|&c| c as f64 / pairs).collect()
    }
}

/// A scenario from TOML text, DOR routing, one rate.
#[allow(clippy::too_many_arguments)]
pub fn scenario(
    topo: &Topo,
    vcs: u32,
    depth: u32,
    m: u32,
    rate: f64,
    warmup: u64,
    measure: u64,
    seed: u64,
) -> Scenario {
    let text = format!(
        "name = \"exact-test\"\nseed = {seed}\n{}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\n\
         [routing]\nalgorithm = \"dor\"\n\n[traffic]\npattern = \"uniform\"\nmessage_length = {m}\n\
         rates = [{rate:?}]\n\n[run]\nwarmup_cycles = {warmup}\nmeasure_cycles = {measure}\n",
        topo.toml()
    );
    Scenario::from_toml(&text, "exact-test.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// An engine without Poisson sources: messages enter only through `Engine::send`.
pub fn quiet_engine(topo: &Topo, vcs: u32, depth: u32) -> Engine {
    // The scenario needs a positive rate to validate; the engine is built with rate 0.
    let s = scenario(topo, vcs, depth, 1, 0.001, 0, 100, 1);
    let mut e = build_engine(&s, 0.0, 1);
    e.log_deliveries = true;
    e
}

/// Standard normal quantile used for the chi-square bound below.
pub const Z_9999: f64 = 3.719;

/// Upper 0.9999 quantile of chi-square with `df` degrees of freedom (Wilson-Hilferty; slightly
/// generous for small df, accurate to about 1% for df >= 3).
pub fn chi2_9999(df: usize) -> f64 {
    let k = df as f64;
    let a = 2.0 / (9.0 * k);
    k * (1.0 - a + Z_9999 * a.sqrt()).powi(3)
}

/// A scenario from TOML text with any routing: `routing` holds the lines of the `[routing]`
/// table (e.g. `algorithm = "duato-timeout"\ntimeout = 4`), `run` extra lines of `[run]`.
#[allow(clippy::too_many_arguments)]
pub fn routing_scenario(
    topo: &Topo,
    vcs: u32,
    depth: u32,
    m: u32,
    rate: f64,
    warmup: u64,
    measure: u64,
    seed: u64,
    routing: &str,
    run: &str,
) -> Scenario {
    let text = format!(
        "name = \"routing-test\"\nseed = {seed}\n{}\n[router]\nvcs = {vcs}\nbuffer_depth = {depth}\n\n\
         [routing]\n{routing}\n\n[traffic]\npattern = \"uniform\"\nmessage_length = {m}\n\
         rates = [{rate:?}]\n\n[run]\nwarmup_cycles = {warmup}\nmeasure_cycles = {measure}\n{run}\n",
        topo.toml()
    );
    Scenario::from_toml(&text, "routing-test.toml")
        .unwrap_or_else(|e| panic!("test scenario rejected: {e}\n{text}"))
}

/// An engine with the given routing (lines of `[routing]`) and no Poisson sources: messages
/// enter only through `Engine::send`; deliveries are logged.
pub fn quiet_routing_engine(topo: &Topo, vcs: u32, depth: u32, routing: &str) -> Engine {
    quiet_routing_engine_with(topo, vcs, depth, routing, |_| {})
}

/// [`quiet_routing_engine`] with its configuration changed by `tune`.
pub fn quiet_routing_engine_with(
    topo: &Topo,
    vcs: u32,
    depth: u32,
    routing: &str,
    tune: impl FnOnce(&mut EngineConfig),
) -> Engine {
    let s = routing_scenario(topo, vcs, depth, 1, 0.001, 0, 100, 1, routing, "");
    let mut e = build_engine_with(&s, 0.0, 1, tune);
    e.log_deliveries = true;
    e
}

/// A message a test sent: (src, dst, created, len).
pub type Sent = (u32, u32, u64, u16);

/// One cycle of Bernoulli traffic through `Engine::send`: each of the `n` processors sends,
/// with probability `p`, a message to a uniform other processor, its length uniform in `lens`;
/// each message sent is logged in `sent`.
pub fn offer_bernoulli(
    e: &mut Engine,
    rng: &mut rand_pcg::Pcg64,
    n: u32,
    p: f64,
    lens: (u16, u16),
    sent: &mut Vec<Sent>,
) {
    use rand::Rng;
    for src in 0..n {
        if rng.gen_bool(p) {
            let mut dst = rng.gen_range(0..n - 1);
            if dst >= src {
                dst += 1;
            }
            let len = rng.gen_range(lens.0..=lens.1);
            e.send(src, dst, len);
            sent.push((src, dst, e.cycle, len));
        }
    }
}

/// Sends one message of `m` flits from `src` to `dst` in an empty network and returns its
/// delivery and the links it used, in the order of their ids.
pub fn one_message(
    e: &mut Engine,
    src: u32,
    dst: u32,
    m: u16,
) -> (flitsim::engine::Delivery, Vec<u32>) {
    e.log_deliveries = true;
    let before = e.c_msgs()[..e.net.links as usize].to_vec();
    e.deliveries.clear();
    let t0 = e.cycle;
    e.send(src, dst, m);
    while e.deliveries.is_empty() {
        assert!(e.cycle < t0 + 500, "{src}->{dst} not delivered");
        e.step();
    }
    assert!(e.idle(), "{src}->{dst}: network not empty");
    let used = (0..e.net.links)
        .filter(|&c| e.c_msgs()[c as usize] > before[c as usize])
        .collect();
    (e.deliveries[0], used)
}

/// Offers Bernoulli traffic ([`offer_bernoulli`]: probability `p` per processor and cycle,
/// lengths in `lens`, seed `seed`) to the `n` processors of `e` for `cycles` cycles, then
/// drains the network: the invariants hold every `every` cycles, the drained-copy deadlock
/// check stays silent, and every message sent is delivered exactly once (panics naming `ctx`
/// otherwise). Returns with `e.deliveries` holding the deliveries.
pub fn run_past_saturation(
    e: &mut Engine,
    n: u32,
    (p, lens): (f64, (u16, u16)),
    cycles: u64,
    (seed, every): (u64, u64),
    ctx: &str,
) {
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut sent: Vec<Sent> = Vec::new();
    e.log_deliveries = true;
    e.set_window(0, cycles, 1);
    while e.cycle < cycles || !e.idle() {
        if e.cycle < cycles {
            offer_bernoulli(e, &mut rng, n, p, lens, &mut sent);
        }
        assert!(e.cycle < cycles + 500_000, "{ctx}: not drained");
        e.step();
        if e.cycle.is_multiple_of(every) {
            e.check_invariants()
                .unwrap_or_else(|m| panic!("{ctx} cycle {}: {m}", e.cycle));
        }
        if e.cycle.is_multiple_of(500)
            && !e.stuck_buffers(500).is_empty()
            && let Some(frozen) = e.confirm_deadlock()
        {
            panic!("{ctx}: deadlock at cycle {}: {frozen:?}", e.cycle);
        }
    }
    e.check_invariants().unwrap();
    let mut got: Vec<Sent> = e
        .deliveries
        .iter()
        .map(|d| (d.src, d.dst, d.created, d.len))
        .collect();
    got.sort_unstable();
    sent.sort_unstable();
    assert_eq!(got, sent, "{ctx}: delivered once each");
    assert_eq!(e.live_messages(), 0, "{ctx}");
}

/// A fresh directory `flitsim-{tag}-XXXXXX` under the system temp dir, removed with all it holds
/// when the returned value is dropped, also when the test fails and unwinds: keep it alive
/// until the binary has finished and the assertions on what it wrote are done.
pub fn temp_dir(tag: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("flitsim-{tag}-"))
        .tempdir()
        .expect("create temp dir")
}

/// Runs `flitsim check` on a scenario text written to a fresh temporary file; returns the exit
/// code and stderr.
pub fn flitsim_check(text: &str, tag: &str) -> (Option<i32>, String) {
    let tmp = temp_dir(tag);
    let f = tmp.path().join("s.toml");
    std::fs::write(&f, text).unwrap();
    let (code, _, err) = check_file(&f, &[]);
    (code, err)
}

/// `flitsim check FILE ARGS...`: its exit code, stdout and stderr.
pub fn check_file(file: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_flitsim"))
        .arg("check")
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A small tmpfs of `size` (e.g. "256k") mounted on `dir`, unmounted when dropped; None (with
/// the reason printed as SKIPPED for `test`) where it cannot be mounted (not root, no mount).
pub fn small_tmpfs(dir: &std::path::Path, size: &str, test: &str) -> Option<Unmount> {
    let out = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
        .arg(dir)
        .output();
    match out {
        Ok(o) if o.status.success() => Some(Unmount(dir.to_path_buf())),
        Ok(o) => {
            eprintln!(
                "SKIPPED {test}: cannot mount a tmpfs ({})",
                String::from_utf8_lossy(&o.stderr).trim()
            );
            None
        }
        Err(e) => {
            eprintln!("SKIPPED {test}: no mount ({e})");
            None
        }
    }
}

/// Unmounts its directory when dropped, whether the test passed or failed.
pub struct Unmount(std::path::PathBuf);

impl Drop for Unmount {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

/// Makes a FIFO (named pipe) at `path`.
pub fn fifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}
