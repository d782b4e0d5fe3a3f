//! Why each unit of a stage-placement estimate is in its stage and not an
//! earlier one (issue 28, item 4), as plain data: the dependency that set
//! its earliest stage (which field, written or read by which unit in which
//! stage), the resource that was full in the stage before its own, or
//! "first stage". It follows what bf-p4c itself logs under `stage_advance`
//! (`bf-p4c/mau/table_placement.cpp`, `TablePlacement::find_dependency_stages`:
//! the earliest stage a table's placed predecessors allow; a table placed
//! later than that was "delayed" by the stages' resources).

use serde::Serialize;

use p4cost_analysis::deps::{DepGraph, DepKind, Through, UnitKind};
use p4cost_ir::Gress;

/// Why a unit is in its stage.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum Why {
    /// Nothing holds it back: stage 0.
    FirstStage,
    /// A dependency on an earlier unit sets its earliest stage.
    Dependency {
        /// `match` or `action` (one stage after `on`'s last), `control` or
        /// `reverse_read` (not before `on`'s first).
        kind: DepKind,
        /// The field (for `control`, the outcome of `on`).
        field: String,
        /// The earlier unit.
        on: String,
        /// The stage of `on` that counts (its last for match and action,
        /// its first otherwise).
        on_stage: u32,
        /// For an action dependency, whether the unit reads the field, also
        /// writes it, or writes another field of its container (the
        /// sentence only).
        #[serde(skip)]
        access: Access,
    },
    /// Its dependencies allowed stage `earliest`, but the stages from there
    /// to the one before its own had no room; `what` ran out in the last.
    Resource {
        /// The earliest stage its dependencies allow.
        earliest: u32,
        /// The last stage that had no room.
        full_stage: u32,
        /// What ran out there.
        what: String,
        /// The other gress whose units took it, when the stage would have
        /// held this unit without them (the gresses share every stage).
        #[serde(skip_serializing_if = "Option::is_none")]
        taken_by: Option<TakenBy>,
    },
    /// A gateway goes with a table it controls (the compiler merges it
    /// into one, `TablePlacement::gateway_merge`): placed in that table's
    /// first stage, later than its condition alone allows.
    WithTable {
        /// The table it rides with.
        table: String,
        /// The earliest stage its condition allows.
        earliest: u32,
    },
}

/// How a unit with an action dependency meets the field.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Access {
    /// Its action reads the field.
    #[default]
    Reads,
    /// It writes the field too (write after write).
    AlsoWrites,
    /// It writes another field of the field's PHV container (bf-p4c's
    /// container conflict).
    SameContainer,
}

impl Why {
    /// The reason as a sentence.
    pub fn sentence(&self) -> String {
        match self {
            Why::FirstStage => "first stage".to_string(),
            Why::Dependency {
                kind,
                field,
                on,
                on_stage,
                access,
            } => match (kind, access) {
                (DepKind::Match, _) => format!(
                    "match dependency: reads {field} written by {on} (stage {on_stage})"
                ),
                (DepKind::Action, Access::Reads) => format!(
                    "action dependency: its action reads {field}, written by {on} (stage {on_stage})"
                ),
                (DepKind::Action, Access::AlsoWrites) => format!(
                    "action dependency: it also writes {field}, written by {on} (stage {on_stage})"
                ),
                (DepKind::Action, Access::SameContainer) => format!(
                    "container conflict: it writes {field}, which shares a PHV container with a \
                     field {on} (stage {on_stage}) writes"
                ),
                (DepKind::Control, _) => format!(
                    "control dependency: runs on the {field} outcome of {on} (stage {on_stage}), \
                     not before it"
                ),
                (DepKind::ReverseRead, _) => format!(
                    "reverse-read dependency: writes {field}, which {on} (stage {on_stage}) reads, \
                     not before it"
                ),
            },
            Why::Resource {
                earliest,
                full_stage,
                what,
                taken_by,
            } if earliest == full_stage => format!(
                "resources: its dependencies allow stage {earliest}, which is full ({what}{})",
                TakenBy::clause(taken_by.as_ref())
            ),
            Why::Resource {
                earliest,
                full_stage,
                what,
                taken_by,
            } => format!(
                "resources: its dependencies allow stage {earliest}; stages {earliest}-{full_stage} \
                 are full (stage {full_stage}: {what}{})",
                TakenBy::clause(taken_by.as_ref())
            ),
            Why::WithTable { table, earliest } => format!(
                "placed with {table}, the table it controls (its condition allows stage {earliest})"
            ),
        }
    }
}

/// The other gress's share of a stage that was full for a unit.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TakenBy {
    /// The gress.
    pub gress: Gress,
    /// What its units hold of the resource that ran out (`9 logical
    /// tables`).
    pub holds: String,
}

impl TakenBy {
    /// `; egress tables hold 9 logical tables of it`.
    fn clause(t: Option<&TakenBy>) -> String {
        t.map_or(String::new(), |t| {
            let g = match t.gress {
                Gress::Ingress => "ingress",
                Gress::Egress => "egress",
                Gress::Ghost => "ghost",
                Gress::Unknown => "the other gress's",
            };
            format!("; {g} tables hold {} of it", t.holds)
        })
    }
}

/// One unit of the estimate: where it went and why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct UnitPlace {
    /// Table name, gateway `if (...)` or statement table `tbl_...`.
    pub unit: String,
    /// `table`, `gateway` or `statements`.
    pub kind: &'static str,
    /// The first stage it occupies.
    pub stage: u32,
    /// The last stage it occupies (a table split over stages).
    pub last_stage: u32,
    /// Why not earlier.
    pub why: Why,
    /// How it spans several stages, when it does: a table larger than a
    /// stage's memory split into parts, or an ALPM table's pre-classifier
    /// and ATCAM partitions (`split over stages 0-1: 245760 + 54240
    /// entries`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
}

/// What the placement recorded per unit, from which [`explain`] builds the
/// reasons.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// The earliest stage its dependencies allow.
    pub earliest: Vec<u32>,
    /// The edge (index into `graph.edges`) that set `earliest`.
    pub edge: Vec<Option<usize>>,
    /// The last stage with no room before its first, and what ran out.
    pub full: Vec<Option<(u32, &'static str)>>,
    /// For a gateway, the controlled unit whose stage it took.
    pub with: Vec<Option<usize>>,
    /// The other gress that took what ran out in `full`'s stage, when the
    /// unit would have fit there without it.
    pub taken_by: Vec<Option<TakenBy>>,
}

impl Trace {
    /// An empty trace for `n` units.
    pub fn new(n: usize) -> Trace {
        Trace {
            earliest: vec![0; n],
            edge: vec![None; n],
            full: vec![None; n],
            with: vec![None; n],
            taken_by: vec![None; n],
        }
    }
}

/// Each unit's stages and the reason it is not earlier.
pub fn explain(graph: &DepGraph, span: &[(u32, u32)], t: &Trace) -> Vec<UnitPlace> {
    (0..graph.units.len().min(span.len()))
        .map(|u| {
            let (first, last) = span[u];
            let earliest = t.earliest.get(u).copied().unwrap_or(0);
            UnitPlace {
                unit: graph.units[u].name.clone(),
                kind: match graph.units[u].kind {
                    UnitKind::Table { .. } => "table",
                    UnitKind::Gateway => "gateway",
                    UnitKind::Statements => "statements",
                },
                stage: first,
                last_stage: last,
                why: why_of(graph, span, t, u, earliest),
                split: None,
            }
        })
        .collect()
}

fn why_of(graph: &DepGraph, span: &[(u32, u32)], t: &Trace, u: usize, earliest: u32) -> Why {
    let first = span[u].0;
    if first > earliest {
        if let Some(w) = t.with.get(u).copied().flatten() {
            return Why::WithTable {
                table: graph.units[w].name.clone(),
                earliest,
            };
        }
        if let Some((full_stage, what)) = t.full.get(u).copied().flatten() {
            return Why::Resource {
                earliest,
                full_stage,
                what: what.to_string(),
                taken_by: t.taken_by.get(u).cloned().flatten(),
            };
        }
    }
    match t.edge.get(u).copied().flatten().map(|i| &graph.edges[i]) {
        Some(e) if earliest > 0 => Why::Dependency {
            kind: e.kind,
            field: e.field.clone(),
            on: graph.units[e.from].name.clone(),
            on_stage: match e.kind {
                DepKind::Match | DepKind::Action => span[e.from].1,
                DepKind::Control | DepKind::ReverseRead => span[e.from].0,
            },
            access: if e.through == Through::ContainerWrite {
                Access::SameContainer
            } else if graph.units[u].action_reads.contains(&e.field) {
                Access::Reads
            } else {
                Access::AlsoWrites
            },
        },
        _ => Why::FirstStage,
    }
}
