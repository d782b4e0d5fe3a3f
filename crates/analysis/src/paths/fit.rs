//! Which parse paths a packet of a given size can take: those whose packet
//! headers (program headers; not metadata) fit in it. A path's header bits
//! add up along it, so "fits" is not a property of a graph node; tracking
//! the bits so far exactly would multiply every node by the sizes it can be
//! reached with. [`FitsPacket`] tracks them only while they matter: at each
//! node it knows the fewest and the most bits the paths from there to
//! accept extract, so as soon as every completion fits (or none does) the
//! bits are forgotten (one state, [`Fit::Decided`]) or the path is cut.
//! Only where a path's fate is still open do the bits so far stay in the
//! state. The result is exact; its size is the graph's when every path
//! fits or none does (the usual case: a packet is far larger than its
//! headers), and at most one state per node and distinct bits-so-far
//! below the limit where the packet size cuts through the paths.

use super::graph::{Next, PathAutomaton, PathGraph};
use super::PathState;
use p4cost_ir::Origin;

/// How far a path's fit is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fit {
    /// Every way on from here is on the wanted side.
    Decided,
    /// Not yet: the packet header bits so far.
    Bits(u64),
}

/// `inner`'s paths whose packet headers fit in `packet_bytes` (or, made
/// with [`FitsPacket::exceeding`], those whose headers do not).
pub struct FitsPacket<'a, A> {
    inner: &'a A,
    limit_bits: u64,
    want_fit: bool,
    bits: Vec<u64>,
    /// Per node: fewest and most packet header bits from it (itself
    /// included) to accept.
    lo: Vec<u64>,
    hi: Vec<u64>,
}

/// Packet header bits one visit extracts.
pub fn packet_bits(st: &PathState) -> u64 {
    st.extracts
        .iter()
        .filter(|e| e.origin == Origin::Program)
        .map(|e| e.bits)
        .sum()
}

impl<'a, A: PathAutomaton> FitsPacket<'a, A> {
    /// The paths `inner` accepts whose headers fit in `packet_bytes`.
    pub fn fitting(pg: &PathGraph<'_>, inner: &'a A, packet_bytes: u32) -> Self {
        Self::new(pg, inner, packet_bytes, true)
    }

    /// The paths `inner` accepts whose headers exceed `packet_bytes`.
    pub fn exceeding(pg: &PathGraph<'_>, inner: &'a A, packet_bytes: u32) -> Self {
        Self::new(pg, inner, packet_bytes, false)
    }

    fn new(pg: &PathGraph<'_>, inner: &'a A, packet_bytes: u32, want_fit: bool) -> Self {
        let n = pg.len();
        let bits: Vec<u64> = (0..n as u32).map(|i| packet_bits(&pg.visit(i))).collect();
        let (lo, hi) = rest_bits(pg, &bits);
        FitsPacket {
            inner,
            limit_bits: u64::from(packet_bytes) * 8,
            want_fit,
            bits,
            lo,
            hi,
        }
    }

    /// True when a path with `b` header bits is wanted.
    fn wanted(&self, b: u64) -> bool {
        (b <= self.limit_bits) == self.want_fit
    }

    fn fit_step(&self, f: Fit, node: u32) -> Option<Fit> {
        let Fit::Bits(b) = f else {
            return Some(Fit::Decided);
        };
        let i = node as usize;
        let (lo, hi) = (
            b.saturating_add(*self.lo.get(i)?),
            b.saturating_add(*self.hi.get(i)?),
        );
        match (self.wanted(lo), self.wanted(hi)) {
            (true, true) => Some(Fit::Decided),
            (false, false) => None,
            _ => Some(Fit::Bits(b.saturating_add(self.bits[i]))),
        }
    }
}

impl<A: PathAutomaton> PathAutomaton for FitsPacket<'_, A> {
    type S = (A::S, Fit);
    fn initial(&self) -> Self::S {
        (self.inner.initial(), Fit::Bits(0))
    }
    fn step(&self, _: Self::S, _: &PathState) -> Option<Self::S> {
        None // only ever run through `step_at`, which knows the node
    }
    fn step_at(&self, s: Self::S, node: u32, st: &PathState) -> Option<Self::S> {
        let f = self.fit_step(s.1, node)?;
        Some((self.inner.step_at(s.0, node, st)?, f))
    }
    fn accepts(&self, s: Self::S) -> bool {
        self.inner.accepts(s.0)
            && match s.1 {
                Fit::Decided => true,
                Fit::Bits(b) => self.wanted(b),
            }
    }
}

/// Per node, the fewest and the most of `bits` summed from it (itself
/// included) to accept over the paths that reach accept; `u64::MAX` and 0
/// for a node none leaves. Iterative, successors first.
fn rest_bits(pg: &PathGraph<'_>, bits: &[u64]) -> (Vec<u64>, Vec<u64>) {
    let n = pg.len();
    let mut lo = vec![u64::MAX; n];
    let mut hi = vec![0u64; n];
    // 0 unvisited, 1 on the stack, 2 done.
    let mut mark = vec![0u8; n];
    for root in 0..n as u32 {
        if mark[root as usize] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root as usize] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            let succ = pg.successors(v);
            if let Some(&s) = succ.get(*next) {
                *next += 1;
                if let Next::Node(m) = s {
                    if mark[m as usize] == 0 {
                        mark[m as usize] = 1;
                        stack.push((m, 0));
                    }
                }
                continue;
            }
            stack.pop();
            mark[v as usize] = 2;
            let (mut l, mut h, mut any) = (u64::MAX, 0u64, false);
            for &s in succ {
                let (sl, sh) = match s {
                    Next::Accept => (0, 0),
                    Next::Node(m) if lo[m as usize] != u64::MAX => (lo[m as usize], hi[m as usize]),
                    Next::Node(_) => continue,
                };
                any = true;
                l = l.min(sl);
                h = h.max(sh);
            }
            if any {
                lo[v as usize] = l.saturating_add(bits[v as usize]);
                hi[v as usize] = h.saturating_add(bits[v as usize]);
            }
        }
    }
    (lo, hi)
}
