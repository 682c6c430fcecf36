//! Selection: among the routing's candidates, the free buffer a header asks for. Candidates
//! are grouped by tier; a later tier is looked at only when no earlier one has a free buffer.
//! Within a tier the policy chooses (ARCHITECTURE.md: routing yields candidates, selection
//! picks one with a free buffer).

use super::parts::{Buf, CNT, MSG};
use crate::network::{NONE, Network};
use crate::records::Records;
use crate::routing::{Candidate, Candidates};
use crate::scenario::Selection;
use rand::Rng;
use rand_pcg::Pcg64;

/// Picks (channel, buffer) for a header, or None when every candidate's class is busy. The
/// buffer is NONE for the ejection channel, which never blocks. `queued` is the early-free
/// queue (empty when buffers free only once empty); only single-candidate routings use it.
/// `bufs` ends with the sentinel buffer `nbuf`.
#[inline(always)]
pub(super) fn select(
    net: &Network,
    bufs: &(impl Records<Buf> + ?Sized),
    queued: &[u32],
    cand: &Candidates,
    policy: Selection,
    rng: &mut Pcg64,
) -> Option<(u32, u32)> {
    let all = cand.as_slice();
    if let [only] = all {
        return if only.chan >= net.links {
            Some((only.chan, NONE))
        } else if queued.is_empty() {
            first_free(net, bufs, only)
        } else {
            first_free_early(net, bufs, queued, only)
        };
    }
    if let Some(paths) = cand.compare {
        return ugal(net, bufs, all, paths);
    }
    let mut start = 0;
    while start < all.len() {
        let tier = all[start].tier;
        let end = start + all[start..].iter().take_while(|c| c.tier == tier).count();
        let group = &all[start..end];
        if group[0].chan >= net.links {
            return Some((group[0].chan, NONE));
        }
        let pick = if group.len() == 1 {
            first_free(net, bufs, &group[0])
        } else {
            match policy {
                Selection::Random => random_free(net, bufs, group, rng),
                Selection::LeastMultiplexed => best_channel(net, bufs, group, rng, |c| {
                    let base = (c.chan * net.vcs) as usize;
                    let busy = (base..base + net.vcs as usize)
                        .filter(|&t| bufs.peek(t, MSG) != NONE)
                        .count();
                    u32::MAX - busy as u32
                }),
                Selection::MostFree => best_channel(net, bufs, group, rng, |c| {
                    let base = (c.chan * net.vcs) as usize;
                    (base + c.vc_lo as usize..base + c.vc_hi as usize)
                        .map(|t| (net.depth - bufs.peek(t, CNT)) as u32)
                        .sum()
                }),
                Selection::Avail => best_channel(net, bufs, group, rng, |c| {
                    let base = (c.chan * net.vcs) as usize;
                    (base + c.vc_lo as usize..base + c.vc_hi as usize)
                        .filter(|&t| bufs.peek(t, MSG) == NONE)
                        .count() as u32
                }),
            }
        };
        if pick.is_some() {
            return pick;
        }
        start = end;
    }
    None
}

/// UGAL (Kim et al. 2008): the minimal path (the first candidate) unless its queue times its
/// hops exceeds the non-minimal path's (the second), q_min·H_min > q_nm·H_nm, q a channel's
/// flits in its virtual channels' buffers (under UGAL-L_VCH, in the candidate's own class's
/// when both take one channel); then a free virtual channel of the chosen candidate's
/// class, or none (the header waits and is routed again).
#[inline(never)]
fn ugal(
    net: &Network,
    bufs: &(impl Records<Buf> + ?Sized),
    all: &[Candidate],
    paths: [crate::routing::Weighed; 2],
) -> Option<(u32, u32)> {
    let q = |w: &crate::routing::Weighed, c: &Candidate| -> u64 {
        let base = w.queue * net.vcs;
        let (lo, hi) = match w.own_vcs {
            true => (c.vc_lo as u32, c.vc_hi as u32),
            false => (0, net.vcs),
        };
        (base + lo..base + hi)
            .map(|t| bufs.peek(t as usize, CNT) as u64)
            .sum()
    };
    let [min, nm] = paths;
    let pick = (q(&min, &all[0]) * min.hops as u64 > q(&nm, &all[1]) * nm.hops as u64) as usize;
    first_free(net, bufs, &all[pick])
}

/// Early free (paper 004 section 3.5): the lowest virtual channel of a candidate's class that
/// is empty, or whose message's tail has arrived, with room behind it and no message queued.
fn first_free_early(
    net: &Network,
    bufs: &(impl Records<Buf> + ?Sized),
    queued: &[u32],
    c: &Candidate,
) -> Option<(u32, u32)> {
    let tail_in = (bufs.len() - 1) as u32;
    let base = c.chan * net.vcs;
    (base + c.vc_lo as u32..base + c.vc_hi as u32)
        .find(|&t| {
            let b = &bufs[t as usize];
            b.msg == NONE || (b.up == tail_in && queued[t as usize] == NONE && b.cnt < net.depth)
        })
        .map(|t| (c.chan, t))
}

/// The lowest free virtual channel of a candidate's class.
#[inline]
fn first_free(
    net: &Network,
    bufs: &(impl Records<Buf> + ?Sized),
    c: &Candidate,
) -> Option<(u32, u32)> {
    let base = c.chan * net.vcs;
    (base + c.vc_lo as u32..base + c.vc_hi as u32)
        .find(|&t| bufs.peek(t as usize, MSG) == NONE)
        .map(|t| (c.chan, t))
}

/// Uniformly at random among all free virtual channels of the group (reservoir sampling).
fn random_free(
    net: &Network,
    bufs: &(impl Records<Buf> + ?Sized),
    group: &[Candidate],
    rng: &mut Pcg64,
) -> Option<(u32, u32)> {
    let mut seen = 0u32;
    let mut pick = None;
    for c in group {
        let base = c.chan * net.vcs;
        for t in base + c.vc_lo as u32..base + c.vc_hi as u32 {
            if bufs.peek(t as usize, MSG) == NONE {
                seen += 1;
                if rng.gen_range(0..seen) == 0 {
                    pick = Some((c.chan, t));
                }
            }
        }
    }
    pick
}

/// The candidate with a free virtual channel that scores highest, ties uniformly at random;
/// then its lowest free virtual channel.
fn best_channel(
    net: &Network,
    bufs: &(impl Records<Buf> + ?Sized),
    group: &[Candidate],
    rng: &mut Pcg64,
    score: impl Fn(&Candidate) -> u32,
) -> Option<(u32, u32)> {
    let mut best: Option<((u32, u32), u32)> = None;
    let mut ties = 0u32;
    for c in group {
        let Some(free) = first_free(net, bufs, c) else {
            continue;
        };
        let s = score(c);
        match best {
            Some((_, b)) if s < b => {}
            Some((_, b)) if s == b => {
                ties += 1;
                if rng.gen_range(0..ties) == 0 {
                    best = Some((free, s));
                }
            }
            _ => {
                best = Some((free, s));
                ties = 1;
            }
        }
    }
    best.map(|(p, _)| p)
}
