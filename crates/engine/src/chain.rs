//! Chains of hops: a packet crosses several programs (a service chain of
//! switches, or a switch, a VNF and a switch again) with fixed link or VNF
//! delays between them. Each segment of the chain has a priority threshold
//! PL and a drop threshold DL (PL <= DL), as in the latency-control scheme
//! for service chains on BMv2 (`docs/models.md`, "BMv2 service chains"): a
//! packet whose segment latency passes PL is prioritised, one that passes
//! DL is late and dropped. The chain may also have an end-to-end budget.
//!
//! A packet is identified by its header sequence: in each program hop it
//! takes the parse path that extracts those headers and is charged that
//! path's slowest packet class. A packet one hop cannot parse does not
//! cross the chain and is counted apart.

use serde::Serialize;

use crate::error::Error;
use crate::options::PredictOptions;
use crate::session::Session;

/// Most packets (header sequences) a chain judges when it lists them from
/// its first program (all are counted).
pub const DEFAULT_MAX_CHAIN_PACKETS: usize = 64;

/// What a hop is.
#[derive(Debug, Clone)]
pub enum HopKind {
    /// A P4 program, predicted with these options.
    Program(Box<PredictOptions>),
    /// A fixed delay: a link, a VNF, a queue.
    Delay {
        /// Its latency in ns.
        ns: f64,
    },
}

/// One hop of a chain.
#[derive(Debug, Clone)]
pub struct Hop {
    /// Its name in reports.
    pub name: String,
    /// What it is.
    pub kind: HopKind,
}

/// A segment: hops `from..=to` with its thresholds.
#[derive(Debug, Clone)]
pub struct Segment {
    /// Its name in reports.
    pub name: String,
    /// Index of its first hop.
    pub from: usize,
    /// Index of its last hop (inclusive).
    pub to: usize,
    /// PL: above it a packet is prioritised (a warning, not a failure).
    pub priority_ns: Option<f64>,
    /// DL: above it a packet is late (a failure).
    pub drop_ns: f64,
    /// Where it was declared.
    pub origin: String,
}

/// A chain of hops and its budgets.
#[derive(Debug, Clone)]
pub struct Chain {
    /// Its name.
    pub name: String,
    /// The hops in packet order.
    pub hops: Vec<Hop>,
    /// Per-segment budgets.
    pub segments: Vec<Segment>,
    /// End-to-end budget in ns, with where it was set.
    pub max_latency: Option<(f64, String)>,
    /// The packets to judge, as header sequences; empty: the parse paths
    /// of the first program hop.
    pub packets: Vec<Vec<String>>,
    /// Most packets listed from the first program when `packets` is empty.
    pub max_packets: usize,
    /// A token-bucket flow (`arrival` in p4cost.toml): each packet and
    /// segment is then judged on its network-calculus delay bound, the
    /// hops composed as rate-latency servers (least rate, summed latency,
    /// the burst paid once), not on the latency sum alone.
    pub arrival: Option<p4cost_model::nc::TokenBucket>,
}

/// One hop's share of a packet's latency.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct HopFigure {
    /// The hop.
    pub hop: String,
    /// Its latency for this packet (a program: the slowest class of the
    /// packet's parse path).
    pub ns: f64,
    /// The model, for a program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its service rate, bit/s (a program's port; with an `arrival` only;
    /// a delay hop has none: it delays, it does not limit the rate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate_bps: Option<f64>,
}

/// One segment for one packet.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SegmentVerdict {
    /// The segment.
    pub segment: String,
    /// Sum of its hops.
    pub ns: f64,
    /// With an `arrival`: the segment's delay bound, its hops as one
    /// rate-latency server (`None` when the flow is faster than it); PL
    /// and DL are held against it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delay_bound_ns: Option<f64>,
    /// PL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_ns: Option<f64>,
    /// DL.
    pub drop_ns: f64,
    /// `drop_ns - ns` (the delay bound with an `arrival`): negative when
    /// late.
    pub margin_ns: f64,
    /// `ok`, `priority` (above PL, within DL) or `over` (above DL).
    pub status: &'static str,
    /// Where the segment was declared.
    pub origin: String,
}

/// One packet through the chain.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct PacketVerdict {
    /// Its headers.
    pub headers: Vec<String>,
    /// Each hop's latency.
    pub hops: Vec<HopFigure>,
    /// Sum of all hops.
    pub total_ns: f64,
    /// With an `arrival`: the whole chain as one rate-latency server and
    /// the flow's bounds through it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<ChainBound>,
    /// End-to-end margin, with an end-to-end budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin_ns: Option<f64>,
    /// Each segment.
    pub segments: Vec<SegmentVerdict>,
    /// `ok`, `priority` or `over`.
    pub status: &'static str,
}

/// A packet's path through a chain as one rate-latency server.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ChainBound {
    /// The least rate of its program hops, bit/s (none: only delays).
    pub rate_bps: Option<f64>,
    /// The summed latency of its hops, ns.
    pub latency_ns: f64,
    /// T + b/R, ns; `None` when the flow's rate exceeds R.
    pub delay_bound_ns: Option<f64>,
    /// b + r T, bytes; `None` when the flow's rate exceeds R.
    pub backlog_bound_bytes: Option<f64>,
    /// Why there is no bound, when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unbounded: Option<String>,
}

/// The delay bound of `hops` as one server for `flow`, and why there is
/// none (r above the least rate). Hops without a rate (delays) limit no
/// rate: with none at all, the bound is their latency.
fn hops_bound(
    hops: &[HopFigure],
    flow: p4cost_model::nc::TokenBucket,
) -> (ChainBound, Option<f64>) {
    let latency_ns: f64 = hops.iter().map(|h| h.ns).sum();
    let rate = hops.iter().filter_map(|h| h.rate_bps).reduce(f64::min);
    let Some(rate_bps) = rate else {
        let b = ChainBound {
            rate_bps: None,
            latency_ns,
            delay_bound_ns: Some(latency_ns),
            backlog_bound_bytes: Some((flow.burst_bits + flow.rate_bps * latency_ns * 1e-9) / 8.0),
            unbounded: None,
        };
        return (b, Some(latency_ns));
    };
    let server = p4cost_model::nc::RateLatency {
        rate_bps,
        latency_ns,
    };
    match p4cost_model::nc::bounds(flow, server) {
        Ok(b) => (
            ChainBound {
                rate_bps: Some(rate_bps),
                latency_ns,
                delay_bound_ns: Some(b.delay_bound_ns),
                backlog_bound_bytes: Some(b.backlog_bound_bytes),
                unbounded: None,
            },
            Some(b.delay_bound_ns),
        ),
        Err(u) => (
            ChainBound {
                rate_bps: Some(rate_bps),
                latency_ns,
                delay_bound_ns: None,
                backlog_bound_bytes: None,
                unbounded: Some(format!(
                    "the flow's rate r = {} exceeds the least service rate R = {}: no bound",
                    crate::bound::rate_text(u.arrival_bps),
                    crate::bound::rate_text(u.service_bps)
                )),
            },
            None,
        ),
    }
}

/// A chain's verdict.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ChainVerdict {
    /// The chain.
    pub name: String,
    /// End-to-end budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_latency_ns: Option<f64>,
    /// Where the end-to-end budget was set (`p4cost.toml:L:C`); not in
    /// the JSON report, a place for SARIF results.
    #[serde(skip)]
    pub max_latency_origin: Option<String>,
    /// Packets judged.
    pub packets: Vec<PacketVerdict>,
    /// Header sequences some program hop cannot parse: not crossing.
    pub not_crossing: Vec<Vec<String>>,
    /// When the packets were listed from the first program: its parse
    /// paths in all (decimal), which may be more than were judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub paths_total: Option<String>,
    /// Packets over a DL or the end-to-end budget.
    pub over: usize,
    /// Packets above a PL but within every DL.
    pub prioritised: usize,
}

/// Judges a chain.
pub fn judge(session: &mut Session, c: &Chain) -> Result<ChainVerdict, Error> {
    let (packets, paths_total) = if c.packets.is_empty() {
        first_hop_packets(session, c)?
    } else {
        (c.packets.clone(), None)
    };
    let mut out = ChainVerdict {
        name: c.name.clone(),
        max_latency_ns: c.max_latency.as_ref().map(|m| m.0),
        max_latency_origin: c.max_latency.as_ref().map(|m| m.1.clone()),
        packets: Vec::new(),
        not_crossing: Vec::new(),
        paths_total,
        over: 0,
        prioritised: 0,
    };
    for headers in packets {
        match packet_hops(session, c, &headers)? {
            Some(hops) => {
                let v = packet_verdict(c, headers, hops);
                match v.status {
                    "over" => out.over += 1,
                    "priority" => out.prioritised += 1,
                    _ => {}
                }
                out.packets.push(v);
            }
            None => out.not_crossing.push(headers),
        }
    }
    // The worst packets first.
    out.packets
        .sort_by(|x, y| y.total_ns.total_cmp(&x.total_ns));
    Ok(out)
}

/// Each hop's figure for the packet extracting `headers`; `None` when a
/// program hop has no parse path extracting them (the packet does not
/// cross the chain).
fn packet_hops(
    session: &mut Session,
    c: &Chain,
    headers: &[String],
) -> Result<Option<Vec<HopFigure>>, Error> {
    let mut hops = Vec::with_capacity(c.hops.len());
    for h in &c.hops {
        let figure = match &h.kind {
            HopKind::Delay { ns } => HopFigure {
                hop: h.name.clone(),
                ns: *ns,
                model: None,
                rate_bps: None,
            },
            HopKind::Program(o) => match program_hop(session, c, h, o, headers)? {
                Some(f) => f,
                None => return Ok(None),
            },
        };
        hops.push(figure);
    }
    Ok(Some(hops))
}

/// Program hop `h`'s figure for the packet extracting `headers`: its
/// path's latency alone (`None` without such a path).
fn program_hop(
    session: &mut Session,
    c: &Chain,
    h: &Hop,
    o: &PredictOptions,
    headers: &[String],
) -> Result<Option<HopFigure>, Error> {
    let mut o = o.clone();
    o.path = Some(headers.to_vec());
    o.top = None;
    o.max_paths = 1;
    o.max_classes = Some(0);
    // The packet's path alone: not the figures over all paths, which the
    // chain does not read.
    o.listed_only = true;
    let rs = match session.reports(&o) {
        Ok(rs) => rs,
        Err(Error::NoPath(_)) => return Ok(None),
        Err(e) => return Err(Error::input(format!("chain `{}`: {e}", c.name))),
    };
    let Some((r, p)) = rs.iter().find_map(|r| r.paths.first().map(|p| (r, p))) else {
        return Ok(None);
    };
    let rate_bps = match c.arrival {
        Some(_) => Some(hop_rate(c, h, r, &o)?),
        None => None,
    };
    Ok(Some(HopFigure {
        hop: h.name.clone(),
        ns: p.latency_ns,
        model: Some(r.model.name.clone()),
        rate_bps,
    }))
}

/// One packet's verdict from its hops' figures: its total (or delay
/// bound, with an arrival curve) against the chain's budget, and each
/// segment's against its thresholds.
fn packet_verdict(c: &Chain, headers: Vec<String>, hops: Vec<HopFigure>) -> PacketVerdict {
    let total_ns: f64 = hops.iter().map(|h| h.ns).sum();
    let segments: Vec<SegmentVerdict> = c
        .segments
        .iter()
        .map(|s| segment_verdict(c, s, &hops))
        .collect();
    let bound = c.arrival.map(|f| hops_bound(&hops, f).0);
    let judged = match &bound {
        Some(b) => b.delay_bound_ns.unwrap_or(f64::INFINITY),
        None => total_ns,
    };
    let margin_ns = c.max_latency.as_ref().map(|m| m.0 - judged);
    let status = if margin_ns.is_some_and(|m| m < 0.0)
        || segments.iter().any(|s| s.status == "over")
        || bound.as_ref().is_some_and(|b| b.unbounded.is_some())
    {
        "over"
    } else if segments.iter().any(|s| s.status == "priority") {
        "priority"
    } else {
        "ok"
    };
    PacketVerdict {
        headers,
        hops,
        total_ns,
        bound,
        margin_ns,
        segments,
        status,
    }
}

/// Segment `s`'s verdict over its part of `hops`: its sum (or delay
/// bound, with an arrival curve) against DL, then PL.
fn segment_verdict(c: &Chain, s: &Segment, hops: &[HopFigure]) -> SegmentVerdict {
    let part = hops.get(s.from..=s.to).unwrap_or(&[]);
    let ns: f64 = part.iter().map(|h| h.ns).sum();
    let delay_bound_ns = c.arrival.map(|f| hops_bound(part, f).1);
    // With an arrival the bound is judged (none at all: late).
    let judged = match delay_bound_ns {
        Some(b) => b.unwrap_or(f64::INFINITY),
        None => ns,
    };
    let status = if judged > s.drop_ns {
        "over"
    } else if s.priority_ns.is_some_and(|pl| judged > pl) {
        "priority"
    } else {
        "ok"
    };
    SegmentVerdict {
        segment: s.name.clone(),
        ns,
        delay_bound_ns: delay_bound_ns.flatten(),
        priority_ns: s.priority_ns,
        drop_ns: s.drop_ns,
        margin_ns: s.drop_ns - judged,
        status,
        origin: s.origin.clone(),
    }
}

/// A program hop's service rate, bit/s: its port's.
fn hop_rate(
    c: &Chain,
    h: &Hop,
    r: &crate::report::Report,
    o: &PredictOptions,
) -> Result<f64, Error> {
    r.port_gbps
        .or(o.target.port_gbps)
        .map(|g| f64::from(g) * 1e9)
        .ok_or_else(|| {
            Error::input(format!(
                "chain `{}`, hop `{}`: model {} names no port, so the hop has no rate for `arrival`: give the hop a `port`",
                c.name, h.name, r.model.name
            ))
        })
}

/// The header sequences of the first program hop's parse paths (at most
/// `max_packets`) and its count of paths.
fn first_hop_packets(
    session: &mut Session,
    c: &Chain,
) -> Result<(Vec<Vec<String>>, Option<String>), Error> {
    let Some(o) = c.hops.iter().find_map(|h| match &h.kind {
        HopKind::Program(o) => Some(o),
        HopKind::Delay { .. } => None,
    }) else {
        return Err(Error::input(format!(
            "chain `{}`: no hop is a program, so no packet crosses it",
            c.name
        )));
    };
    let mut o = (**o).clone();
    o.path = None;
    o.top = None;
    o.max_paths = c.max_packets;
    o.max_classes = Some(0);
    let rs = session
        .reports(&o)
        .map_err(|e| Error::input(format!("chain `{}`: {e}", c.name)))?;
    let Some(r) = rs.first() else {
        return Ok((Vec::new(), None));
    };
    let mut seen = std::collections::HashSet::new();
    let packets = r
        .paths
        .iter()
        .map(|p| p.headers.clone())
        .filter(|h| seen.insert(h.clone()))
        .collect();
    Ok((packets, Some(r.path_count_text.clone())))
}
