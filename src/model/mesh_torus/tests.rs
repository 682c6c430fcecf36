use super::*;
use crate::model::enumerate::dor_link_rates;
use crate::network::Network as Net;
use crate::routing::Dor;
use crate::traffic::{Addresses, Traffic};
use std::collections::HashMap;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

fn mesh_net(k: u32) -> Net {
    Net::new(KAryNCube::new(Kind::Mesh, vec![k, k], true), 1, 4)
}

fn torus_net(k: u32) -> Net {
    Net::new(KAryNCube::new(Kind::Torus, vec![k, k], false), 2, 4)
}

/// The simulator's dimension-order route from `s` to `d`, as its links.
fn route(net: &Net, s: u32, d: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut at = s;
    while let Some(l) = Dor::next_link(net, at, d, 0) {
        out.push(l);
        at = net.cube().links[l as usize].dst;
    }
    out
}

/// Every ordered pair of distinct nodes with its route.
fn routes(net: &Net) -> Vec<(u32, u32, Vec<u32>)> {
    let mut out = Vec::new();
    for s in 0..net.nodes {
        for d in 0..net.nodes {
            if s != d {
                out.push((s, d, route(net, s, d)));
            }
        }
    }
    out
}

#[test]
fn mean_distances_are_exact() {
    // Eq. 15's D̄ − 2 and Appendix A's D̄ over every pair of distinct nodes.
    for k in 2..=9 {
        let mesh = KAryNCube::new(Kind::Mesh, vec![k, k], true);
        let torus = KAryNCube::new(Kind::Torus, vec![k, k], false);
        assert!(close(mesh_mean_distance(k), mesh.mean_distance(), 1e-14));
        assert!(close(torus_mean_distance(k), torus.mean_distance(), 1e-14));
    }
}

#[test]
fn mesh_rates_equal_enumeration() {
    // Eqs. 9-10 on every link against the exact DOR rates; eq. 8: every node sends and
    // receives λ.
    let lambda = 0.013;
    for k in 2..=7 {
        let net = mesh_net(k);
        let traffic = Traffic::uniform(Addresses::of(net.cube()), 8);
        let exact = dor_link_rates(&net, &traffic, lambda, crate::routing::Tie::Plus);
        let model = Model::mesh(k, 8).link_rates(net.cube(), lambda);
        for (l, (a, b)) in exact.iter().zip(&model).enumerate() {
            assert!(close(*a, *b, 1e-13), "k={k} link {l}: {a} vs {b}");
        }
        let mut received = vec![0.0; net.nodes as usize];
        for s in 0..net.nodes {
            for (d, q) in traffic.distribution(s) {
                received[d as usize] += lambda * q;
            }
        }
        assert!(received.iter().all(|&r| close(r, lambda, 1e-13)));
    }
}

#[test]
fn mesh_routing_probabilities_equal_enumeration() {
    // Section 3.2's R: for every link, the fraction of its messages that eject after it,
    // go straight on, or turn west or east; for every injection channel the four
    // directions. Pairs are equally likely (uniform traffic).
    for k in 2..=7 {
        let net = mesh_net(k);
        let t = net.cube();
        // Per link: [eject, straight, west, east, total]; per node: [N, S, E, W, total].
        let mut link = vec![[0u64; 5]; net.links as usize];
        let mut inj = vec![[0u64; 5]; net.nodes as usize];
        for (s, _, r) in routes(&net) {
            let first = &t.links[r[0] as usize];
            let dir = match (first.dim, first.dir) {
                (0, Dir::Plus) => 0,
                (0, Dir::Minus) => 1,
                (_, Dir::Plus) => 2,
                (_, Dir::Minus) => 3,
            };
            inj[s as usize][dir] += 1;
            inj[s as usize][4] += 1;
            for (h, &l) in r.iter().enumerate() {
                let here = &t.links[l as usize];
                let what = match r.get(h + 1).map(|&n| &t.links[n as usize]) {
                    None => 0,
                    Some(n) if n.dim == here.dim && n.dir == here.dir => 1,
                    Some(n) if n.dir == Dir::Minus => 2,
                    Some(_) => 3,
                };
                link[l as usize][what] += 1;
                link[l as usize][4] += 1;
            }
        }
        for (l, c) in link.iter().enumerate() {
            let f = |i: usize| c[i] as f64 / c[4] as f64;
            match mesh_link_class(t, &t.links[l]) {
                MeshClass::X(j0) => {
                    let r = mesh_x_routing(j0);
                    assert!(close(f(0), r.eject, 1e-14) && close(f(1), r.straight, 1e-14));
                    assert_eq!(c[2] + c[3], 0, "x channels never turn");
                }
                MeshClass::Y(j0, j1) => {
                    let r = mesh_y_routing(k, j0, j1);
                    // West and east are the paper's: a north-bound channel's mirror keeps
                    // x, so its west turn is the mirror class's west turn too.
                    for (got, want) in [
                        (f(0), r.eject),
                        (f(1), r.straight),
                        (f(2), r.west),
                        (f(3), r.east),
                    ] {
                        assert!(close(got, want, 1e-14), "k={k} link {l} ⟨{j0},{j1}⟩");
                    }
                }
            }
        }
        for (s, c) in inj.iter().enumerate() {
            let (j0, j1) = (t.coord(s as u32, 1), t.coord(s as u32, 0));
            let r = mesh_injection_routing(k, j0, j1);
            let f = |i: usize| c[i] as f64 / c[4] as f64;
            for (got, want) in [
                (f(0), r.north),
                (f(1), r.south),
                (f(2), r.east),
                (f(3), r.west),
            ] {
                assert!(close(got, want, 1e-14), "k={k} node {s}");
            }
        }
    }
}

/// Eqs. 3-7 and 2 applied channel by channel on the simulator's mesh, with the rates and
/// routing probabilities enumerated from its routes (no equivalence classes): (service time
/// of every link, x_inj of every node, eq. 2's L̄).
fn mesh_by_channel(k: u32, m: f64, lambda: f64) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let net = mesh_net(k);
    let traffic = Traffic::uniform(Addresses::of(net.cube()), m as u32);
    let rate = dor_link_rates(&net, &traffic, lambda, crate::routing::Tie::Plus);
    const EJECT: u32 = u32::MAX;
    // next[l]: (next link or EJECT) -> count; inj[s] likewise.
    let mut next: Vec<HashMap<u32, u64>> = vec![HashMap::new(); net.links as usize];
    let mut inj: Vec<HashMap<u32, u64>> = vec![HashMap::new(); net.nodes as usize];
    for (s, _, r) in routes(&net) {
        *inj[s as usize].entry(r[0]).or_default() += 1;
        for (h, &l) in r.iter().enumerate() {
            *next[l as usize]
                .entry(*r.get(h + 1).unwrap_or(&EJECT))
                .or_default() += 1;
        }
    }
    // Resolve the links in reverse order of their distance to the end of the routes: DOR
    // on a mesh has no cycles, so repeated passes settle every link.
    let mut x: Vec<Option<f64>> = vec![None; net.links as usize];
    let mut w = vec![0.0; net.links as usize];
    // Eq. 7 for an incoming channel with rate `lin` and next-channel counts `c`.
    let eq7 = |lin: f64, c: &HashMap<u32, u64>, x: &[Option<f64>], w: &[f64]| {
        let total: u64 = c.values().sum();
        let mut s = 0.0;
        for (&j, &n) in c {
            let r = n as f64 / total as f64;
            s += r * if j == EJECT {
                // Eq. 11: service M, no wait at the ejection channel.
                m
            } else {
                // Eqs. 3, 5, 6 (no wait, and 0/0 in eq. 6, at λ = 0).
                let wj = w[j as usize];
                let p = if wj > 0.0 {
                    1.0 - lin * r / rate[j as usize]
                } else {
                    0.0
                };
                x[j as usize]? + p * wj
            };
        }
        Some(s)
    };
    while x.iter().any(|v| v.is_none()) {
        for l in 0..net.links as usize {
            if x[l].is_none()
                && let Some(v) = eq7(rate[l], &next[l], &x, &w)
            {
                x[l] = Some(v);
                // Eq. 4.
                w[l] = mg1_wait(rate[l], v, m)?;
            }
        }
    }
    let x: Vec<f64> = x.into_iter().map(Option::unwrap).collect();
    let xs: Vec<f64> = (0..net.nodes as usize)
        .map(|s| {
            eq7(
                lambda,
                &inj[s],
                &x.iter().map(|&v| Some(v)).collect::<Vec<_>>(),
                &w,
            )
        })
        .collect::<Option<_>>()?;
    let mut l = 0.0;
    for &xi in &xs {
        l += mg1_wait(lambda, xi, m)? + xi;
    }
    let nodes = net.nodes as f64;
    // Eq. 2 with D̄ = d̄ + 2.
    Some((x, xs, l / nodes + net.cube().mean_distance() + 2.0 - 1.0))
}

#[test]
fn mesh_closed_forms_are_eq7_on_every_channel() {
    // Eqs. 12-15 (equivalence classes, printed blocking factors) against eqs. 2-7 applied on
    // each link of the simulator's mesh with enumerated rates and routing probabilities.
    for (k, m) in [(2, 8), (3, 20), (4, 8), (5, 32), (6, 20)] {
        let model = Model::mesh(k, m);
        let sat = crate::model::saturation_load(|l| model.predict(l), 1.0 / m as f64);
        let net = mesh_net(k);
        let t = net.cube();
        for frac in [0.0, 0.3, 0.6, 0.9, 0.99] {
            let lambda = frac * sat;
            let sol = model.solve(lambda).unwrap();
            let (x, xs, l) = mesh_by_channel(k, m as f64, lambda).unwrap();
            let Classes::Mesh { x_x, x_y, .. } = &sol.classes else {
                unreachable!()
            };
            for (li, link) in t.links.iter().enumerate() {
                let want = match mesh_link_class(t, link) {
                    MeshClass::X(j0) => x_x[j0 as usize],
                    MeshClass::Y(j0, j1) => x_y[j0 as usize][j1 as usize],
                };
                assert!(close(x[li], want, 1e-12), "k={k} λ={lambda} link {li}");
            }
            for s in 0..net.nodes {
                let (j0, j1) = (t.coord(s, 1) as usize, t.coord(s, 0) as usize);
                assert!(close(xs[s as usize], sol.x_inj[j0][j1], 1e-12));
            }
            assert!(close(l, sol.paper_latency, 1e-12), "k={k} λ={lambda}");
        }
    }
}

#[test]
fn torus_rates_equal_enumeration() {
    // λ_net on every link (exact DOR rates); λ_j, λ_new and λ_sw by enumeration of the
    // simulator's routes, in both dimensions (the appendix's classes are per dimension).
    let lambda = 0.011;
    for k in 2..=7 {
        let net = torus_net(k);
        let t = net.cube();
        let traffic = Traffic::uniform(Addresses::of(t), 8);
        let rates = torus_rates(k, lambda);
        for r in dor_link_rates(&net, &traffic, lambda, crate::routing::Tie::Plus) {
            assert!(close(r, rates.net, 1e-13), "k={k}");
        }
        let q = lambda / (net.nodes - 1) as f64;
        // class[l][j]: rate on link l of messages with distance >= j in its dimension.
        let mut class = vec![vec![0.0; k as usize]; net.links as usize];
        let mut new = vec![0.0; net.links as usize];
        let mut sw = vec![0.0; net.nodes as usize];
        for (s, d, r) in routes(&net) {
            for (h, &l) in r.iter().enumerate() {
                let link = &t.links[l as usize];
                let dim = link.dim as usize;
                let dist = t.dim_route(dim, t.coord(s, dim), t.coord(d, dim)).1;
                for c in class[l as usize].iter_mut().take(dist as usize + 1) {
                    *c += q;
                }
                let prev = h.checked_sub(1).map(|p| &t.links[r[p] as usize]);
                if prev.is_none_or(|p| p.dim != link.dim) {
                    new[l as usize] += q;
                }
                if prev.is_some_and(|p| p.dim != link.dim) {
                    sw[link.src as usize] += q;
                }
            }
        }
        for (l, (per_class, entering)) in class.iter().zip(&new).enumerate() {
            for (j, (got, want)) in per_class.iter().zip(&rates.class).enumerate() {
                assert!(
                    close(*got, *want, 1e-13),
                    "k={k} link {l} j={j}: {got} vs {want}"
                );
            }
            assert!(close(*entering, rates.new, 1e-13), "k={k} link {l}");
        }
        assert!(sw.iter().all(|&x| close(x, rates.sw, 1e-13)), "k={k}");
        assert!(close(rates.class[0], rates.net, 0.0) && close(rates.class[1], rates.net, 0.0));
    }
}

#[test]
fn torus_routing_probabilities_equal_enumeration() {
    // The appendix's probabilities: class j on its last hop 2/(k + j − 1); after the last
    // hop of the first dimension eject 1/k; injection to the last dimension directly
    // 1/(k + 1). And eq. 6: the printed λ_new/λ_{j−1} is 1 − λ_j R/λ_{j−1}; the switching
    // traffic of class j is λ_sw (k − j)/(k − 1), not the printed λ_sw/2 (module doc).
    for k in 2..=7u32 {
        let net = torus_net(k);
        let t = net.cube();
        let q = 1.0 / (net.nodes - 1) as f64;
        // Per dimension and class j: [messages, last hop in the dimension].
        let mut last = vec![vec![[0.0f64; 2]; k as usize]; 2];
        let (mut leave_first, mut eject_after_first) = (0.0, 0.0);
        let mut direct = 0.0;
        // Switching traffic at node 0 into its dimension-1 link, by class.
        let mut sw_class = vec![0.0; k as usize];
        for (s, d, r) in routes(&net) {
            if t.links[r[0] as usize].dim == 1 {
                direct += q / net.nodes as f64;
            }
            for (h, &l) in r.iter().enumerate() {
                let link = &t.links[l as usize];
                let dim = link.dim as usize;
                let dist = t.dim_route(dim, t.coord(s, dim), t.coord(d, dim)).1;
                let next = r.get(h + 1).map(|&n| &t.links[n as usize]);
                let is_last = next.is_none_or(|n| n.dim != link.dim);
                for c in last[dim].iter_mut().take(dist as usize + 1) {
                    c[0] += q;
                    c[1] += q * is_last as u8 as f64;
                }
                if dim == 0 && is_last {
                    leave_first += q;
                    eject_after_first += q * next.is_none() as u8 as f64;
                }
                let prev = h.checked_sub(1).map(|p| &t.links[r[p] as usize]);
                if dim == 1 && link.src == 0 && prev.is_some_and(|p| p.dim == 0) {
                    for c in sw_class.iter_mut().take(dist as usize + 1) {
                        *c += q;
                    }
                }
            }
        }
        for per_dim in &last {
            for j in 1..k {
                let [all, fin] = per_dim[j as usize];
                assert!(close(fin / all, torus_last_hop(k, j), 1e-13), "k={k} j={j}");
            }
        }
        assert!(close(
            eject_after_first / leave_first,
            1.0 / k as f64,
            1e-13
        ));
        let (to_last, to_first) = torus_injection_split(k);
        assert!(close(direct, to_last, 1e-13) && close(to_last + to_first, 1.0, 1e-15));
        let rates = torus_rates(k, 1.0);
        for j in 1..k {
            let cont = 1.0 - torus_last_hop(k, j);
            let eq6 = 1.0 - rates.class[j as usize] * cont / rates.class[j as usize - 1];
            assert!(close(rates.new / rates.class[j as usize - 1], eq6, 1e-13));
            let want = rates.sw * (k - j) as f64 / (k - 1) as f64;
            assert!(close(sw_class[j as usize], want, 1e-13), "k={k} j={j}");
        }
    }
}

fn scenario(topology: &str, vcs: u32, m: u32, extra: &str) -> Scenario {
    let text = format!(
        "name = \"t\"\n[topology]\n{topology}\n[router]\nvcs = {vcs}\nbuffer_depth = 4\n\
         [routing]\nalgorithm = \"dor\"\n[traffic]\nmessage_length = {m}\nrates = [0.001]\n{extra}"
    );
    Scenario::from_toml(&text, "test").unwrap()
}

fn mesh_topo(k: u32) -> String {
    format!("kind = \"mesh\"\nk = {k}\nn = 2")
}

fn torus_topo(k: u32) -> String {
    format!("kind = \"torus\"\nk = {k}\nn = 2\nlinks = \"unidirectional\"")
}

#[test]
fn zero_load_latency_is_the_simulators() {
    // The simulator's zero-load latency of an h-hop message is exactly M + h (the book's router model):
    // averaged over every pair, M + d̄; the model's (the paper's L̄ − 1) equals it.
    for (topo, vcs, k) in [
        (mesh_topo(4), 1, 4),
        (mesh_topo(8), 1, 8),
        (mesh_topo(16), 1, 16),
        (torus_topo(4), 2, 4),
        (torus_topo(8), 2, 8),
        (torus_topo(16), 2, 16),
    ] {
        for m in [20, 32, 64] {
            let s = scenario(&topo, vcs, m, "");
            let t = KAryNCube::new(s.topology.kind, vec![k, k], false);
            let mut sum = 0u64;
            for a in 0..t.nodes as u32 {
                for b in 0..t.nodes as u32 {
                    sum += (m + t.distance(a, b)) as u64 * (a != b) as u64;
                }
            }
            let want = sum as f64 / (t.nodes * (t.nodes - 1)) as f64;
            let model = Model::from_scenario(&s).unwrap();
            let sol = model.solve(0.0).unwrap();
            let p = sol.prediction();
            assert!(close(p.latency, want, 1e-14), "{} vs {want}", p.latency);
            assert!(close(p.network_latency, want, 1e-14) && p.source_wait == 0.0);
            assert!(close(sol.paper_latency, want + 1.0, 1e-14));
            for lambda in [1e-9, 1e-7] {
                let Outcome::Stable(p) = model.predict(lambda) else {
                    panic!("a tiny load is stable")
                };
                assert!(
                    close(p.latency, want, 1e3 * lambda),
                    "{} vs {want}",
                    p.latency
                );
                assert!(p.latency > want);
            }
        }
    }
}

#[test]
fn monotone_below_saturation_and_saturated_above() {
    for model in [
        Model::mesh(2, 8),
        Model::mesh(4, 20),
        Model::mesh(8, 32),
        Model::mesh(16, 64),
        Model::torus(2, 8),
        Model::torus(4, 20),
        Model::torus(8, 32),
        Model::torus(16, 64),
    ] {
        // The injection channel alone bounds the load: λ x_inj >= λ M.
        let bound = 1.0 / model.length;
        let sat = crate::model::saturation_load(|l| model.predict(l), bound);
        assert!(sat > 0.0 && sat < bound, "{model:?}: {sat}");
        // Just past saturation a channel or an injection queue is full.
        assert!(model.solve(sat * (1.0 + 1e-3)).is_err());
        let mut last: Option<Solution> = None;
        let mut saturated = false;
        for step in 0..=400 {
            let lambda = bound * step as f64 / 400.0;
            match model.solve(lambda) {
                Ok(sol) => {
                    assert!(!saturated, "stable at {lambda} above a saturated load");
                    assert!(lambda <= sat * (1.0 + 1e-3));
                    let p = sol.prediction();
                    for x in [p.latency, p.network_latency, p.source_wait] {
                        assert!(x.is_finite() && x >= 0.0);
                    }
                    assert!(close(p.latency, p.network_latency + p.source_wait, 1e-14));
                    assert!(close(sol.paper_latency, p.latency + 1.0, 1e-14));
                    for v in sol.x_inj.iter().chain(&sol.w_inj).flatten() {
                        assert!(v.is_finite() && *v >= 0.0);
                    }
                    if let Some(prev) = &last {
                        assert!(p.latency > prev.prediction().latency);
                        assert!(p.source_wait >= prev.source_wait);
                        assert!(p.network_latency >= prev.network_latency);
                        for (a, b) in sol.x_inj.iter().flatten().zip(prev.x_inj.iter().flatten()) {
                            assert!(a >= b, "service times grow with the load");
                        }
                    }
                    last = Some(sol);
                }
                Err(why) => {
                    assert!(why != Saturation::BadLoad);
                    saturated = true;
                    assert!(lambda >= sat);
                    assert_eq!(model.predict(lambda), Outcome::Saturated);
                }
            }
        }
        assert!(saturated);
        for bad in [-1.0, -1e-12, f64::NAN, f64::INFINITY] {
            assert_eq!(model.solve(bad), Err(Saturation::BadLoad));
            assert_eq!(model.predict(bad), Outcome::Saturated);
        }
    }
}

#[test]
fn the_torus_saturates_before_the_mesh() {
    // The paper's comparison (section 4): the torus saturates at about half the mesh's load.
    for (k, m) in [(8, 20), (8, 32), (16, 32), (16, 64)] {
        let mesh = Model::mesh(k, m);
        let torus = Model::torus(k, m);
        let bound = 1.0 / m as f64;
        let sm = crate::model::saturation_load(|l| mesh.predict(l), bound);
        let st = crate::model::saturation_load(|l| torus.predict(l), bound);
        assert!(st < sm, "k={k} M={m}: torus {st} vs mesh {sm}");
    }
}

#[test]
fn applies_to_the_papers_networks_only() {
    assert!(applies(&scenario(&mesh_topo(8), 1, 32, "")).is_ok());
    assert!(applies(&scenario(&torus_topo(8), 2, 32, "")).is_ok());
    assert!(matches!(
        Model::from_scenario(&scenario(&torus_topo(4), 2, 20, "")),
        Ok(Model {
            network: Network::Torus,
            k: 4,
            ..
        })
    ));
    let rejected = [
        scenario(&mesh_topo(8), 2, 32, ""),
        scenario(&torus_topo(8), 4, 32, ""),
        scenario(
            "kind = \"torus\"\nk = 8\nn = 2\nlinks = \"bidirectional\"",
            2,
            32,
            "",
        ),
        scenario("kind = \"mesh\"\nk = 4\nn = 3", 1, 32, ""),
        scenario("kind = \"mesh\"\nk = [4, 8]", 1, 32, ""),
        scenario("kind = \"hypercube\"\nn = 2", 1, 32, ""),
    ];
    for s in &rejected {
        assert!(applies(s).is_err(), "{:?}", s.topology);
    }
    let mut s = scenario(&torus_topo(8), 2, 32, "");
    s.router.vcs = 1;
    assert!(applies(&s).is_err());
    let mut s = scenario(&mesh_topo(8), 1, 32, "");
    s.traffic.pattern = Pattern::BitComplement;
    assert!(applies(&s).is_err());
    s.traffic.pattern_fraction = 0.0;
    assert!(applies(&s).is_ok());
    let mut s = scenario(&mesh_topo(8), 1, 32, "");
    s.routing.algorithm = Algorithm::Duato;
    assert!(applies(&s).is_err());
    let mut s = scenario(&mesh_topo(8), 1, 32, "");
    s.router.buffer_depth = 1;
    assert!(applies(&s).is_err());
    let mut s = scenario(&mesh_topo(8), 1, 32, "");
    s.traffic.lengths = vec![8, 64];
    s.traffic.length_probabilities = vec![0.5, 0.5];
    assert!(applies(&s).is_err());
}
