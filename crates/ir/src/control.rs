//! Controls and their bodies as control-flow graphs.
//!
//! The graph has the shape BMv2 uses for pipelines, which the source
//! lowering also produces: a node is a table application, a condition, a
//! direct action call or a plain statement; every node says where control
//! goes next, and `None` means the end of the control.

use serde::{Deserialize, Serialize};

use crate::{ActionId, Cond, ExternCall, FlagSet, Gress, NodeId, Span, TableId, ValiditySet};

/// What a control does in its package.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlRole {
    /// The ingress match-action control.
    Ingress,
    /// The egress match-action control.
    Egress,
    /// A deparser.
    Deparser,
    /// A checksum verification or update control (v1model).
    Checksum,
    /// Anything else (sub-controls, unbound controls).
    Other,
}

/// Where a table application goes next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TableNext {
    /// The same successor whatever happens.
    Always {
        /// The successor.
        next: Option<NodeId>,
    },
    /// Different successors on hit and on miss.
    HitMiss {
        /// Successor on a hit.
        hit: Option<NodeId>,
        /// Successor on a miss.
        miss: Option<NodeId>,
    },
    /// A `switch (t.apply().action_run)`: one successor per action.
    ByAction {
        /// `(action, successor)` pairs.
        arms: Vec<(ActionId, Option<NodeId>)>,
        /// Successor for actions not listed.
        default: Option<NodeId>,
    },
}

impl TableNext {
    /// All distinct successors.
    pub fn successors(&self) -> Vec<Option<NodeId>> {
        let mut out = Vec::new();
        let mut push = |n: Option<NodeId>| {
            if !out.contains(&n) {
                out.push(n);
            }
        };
        match self {
            TableNext::Always { next } => push(*next),
            TableNext::HitMiss { hit, miss } => {
                push(*hit);
                push(*miss);
            }
            TableNext::ByAction { arms, default } => {
                for (_, n) in arms {
                    push(*n);
                }
                push(*default);
            }
        }
        out
    }
}

impl TableNext {
    /// A copy with each successor mapped by `node` and each arm's action
    /// by `action`.
    pub fn map_ids(
        &self,
        node: &impl Fn(Option<NodeId>) -> Option<NodeId>,
        action: &impl Fn(ActionId) -> ActionId,
    ) -> TableNext {
        match self {
            TableNext::Always { next } => TableNext::Always { next: node(*next) },
            TableNext::HitMiss { hit, miss } => TableNext::HitMiss {
                hit: node(*hit),
                miss: node(*miss),
            },
            TableNext::ByAction { arms, default } => TableNext::ByAction {
                arms: arms.iter().map(|(a, n)| (action(*a), node(*n))).collect(),
                default: node(*default),
            },
        }
    }
}

/// One node of a control-flow graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeKind {
    /// `t.apply()`.
    Table {
        /// The table.
        table: TableId,
        /// Successors.
        next: TableNext,
    },
    /// `if (cond)`.
    Condition {
        /// The condition as text.
        expr: String,
        /// Fields read by the condition (`hdr.ipv4.$valid` for
        /// `hdr.ipv4.isValid()`).
        reads: Vec<String>,
        /// The condition as a structured expression (empty when the input
        /// gives only text).
        #[serde(default)]
        cond: Cond,
        /// Successor when true.
        then_next: Option<NodeId>,
        /// Successor when false.
        else_next: Option<NodeId>,
    },
    /// A direct action call in an apply block.
    Action {
        /// The action.
        action: ActionId,
        /// Successor.
        next: Option<NodeId>,
    },
    /// Any other statement (assignment, extern call), kept with its
    /// read/write sets.
    Statement {
        /// Short description.
        what: std::borrow::Cow<'static, str>,
        /// Fields read. (Boxed slices here: a long apply block is one node
        /// per statement, and a slice is two words where a vector is three.)
        reads: Box<[String]>,
        /// Fields written.
        writes: Box<[String]>,
        /// Extern calls the statement makes (`r.execute(i)`, `h.get(...)`).
        #[serde(default)]
        externs: Box<[ExternCall]>,
        /// Headers it makes valid or invalid (`hdr.vlan.setValid();`).
        #[serde(default)]
        validity: Box<[ValiditySet]>,
        /// Fields it sets to the constant 0 or 1 (`drop = true;`).
        #[serde(default)]
        flags: Flags,
        /// Successor.
        next: Option<NodeId>,
    },
    /// `exit`: leaves the control (and the pipeline).
    Exit,
}

/// A statement's [`FlagSet`]s, one pointer wide (most statements set none,
/// and a long apply block is one node per statement).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<FlagSet>", into = "Vec<FlagSet>")]
// The box keeps the field one pointer wide (a `Vec` is three words).
#[allow(clippy::box_collection)]
pub struct Flags(Option<Box<Vec<FlagSet>>>);

impl Flags {
    /// The flags set, in order.
    pub fn as_slice(&self) -> &[FlagSet] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl From<Vec<FlagSet>> for Flags {
    fn from(v: Vec<FlagSet>) -> Flags {
        Flags((!v.is_empty()).then(|| Box::new(v)))
    }
}

impl From<Flags> for Vec<FlagSet> {
    fn from(f: Flags) -> Vec<FlagSet> {
        f.0.map(|b| *b).unwrap_or_default()
    }
}

/// A node and its source site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// What the node does.
    pub kind: NodeKind,
    /// Site of the statement.
    pub span: Span,
}

impl Node {
    /// Every distinct successor of this node (`None` = end of control).
    pub fn successors(&self) -> Vec<Option<NodeId>> {
        match &self.kind {
            NodeKind::Table { next, .. } => next.successors(),
            NodeKind::Condition {
                then_next,
                else_next,
                ..
            } => {
                if then_next == else_next {
                    vec![*then_next]
                } else {
                    vec![*then_next, *else_next]
                }
            }
            NodeKind::Action { next, .. } | NodeKind::Statement { next, .. } => vec![*next],
            NodeKind::Exit => vec![],
        }
    }
}

impl NodeKind {
    /// A copy with its successors mapped by `node`, its table by `table`
    /// and its actions by `action` (a control's graph copied to other
    /// ids: an inlined instance, egress appended after ingress).
    pub fn map_ids(
        &self,
        node: &impl Fn(Option<NodeId>) -> Option<NodeId>,
        table: &impl Fn(TableId) -> TableId,
        action: &impl Fn(ActionId) -> ActionId,
    ) -> NodeKind {
        match self {
            NodeKind::Table { table: t, next } => NodeKind::Table {
                table: table(*t),
                next: next.map_ids(node, action),
            },
            NodeKind::Condition {
                expr,
                reads,
                cond,
                then_next,
                else_next,
            } => NodeKind::Condition {
                expr: expr.clone(),
                reads: reads.clone(),
                cond: cond.clone(),
                then_next: node(*then_next),
                else_next: node(*else_next),
            },
            NodeKind::Action { action: a, next } => NodeKind::Action {
                action: action(*a),
                next: node(*next),
            },
            NodeKind::Statement {
                what,
                reads,
                writes,
                externs,
                validity,
                flags,
                next,
            } => NodeKind::Statement {
                what: what.clone(),
                reads: reads.clone(),
                writes: writes.clone(),
                externs: externs.clone(),
                validity: validity.clone(),
                flags: flags.clone(),
                next: node(*next),
            },
            NodeKind::Exit => NodeKind::Exit,
        }
    }
}

/// A control body as a graph. Acyclic: P4 controls have no loops.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ControlFlow {
    /// Nodes, indexed by [`NodeId`].
    pub nodes: Vec<Node>,
    /// The first node, `None` for an empty body.
    pub entry: Option<NodeId>,
}

impl ControlFlow {
    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Tables applied anywhere in the graph, each once, in the order a
    /// depth-first walk from the entry meets them (source order for
    /// straight-line code); tables on unreachable nodes come last.
    pub fn tables(&self) -> Vec<TableId> {
        let mut out = Vec::new();
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = self.entry.into_iter().collect();
        let mut order = Vec::with_capacity(self.nodes.len());
        while let Some(id) = stack.pop() {
            match seen.get_mut(id.index()) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            order.push(id);
            for n in self.node(id).successors().into_iter().rev().flatten() {
                stack.push(n);
            }
        }
        order.extend(
            (0..self.nodes.len())
                .filter(|i| !seen[*i])
                .map(|i| NodeId(i as u32)),
        );
        // Table ids index the program's tables: a seen-flag per id keeps
        // this linear (a search of `out` made 80,000 tables quadratic).
        let mut listed: Vec<bool> = Vec::new();
        for id in order {
            if let NodeKind::Table { table, .. } = self.node(id).kind {
                let i = table.index();
                if listed.len() <= i {
                    listed.resize(i + 1, false);
                }
                if !listed[i] {
                    listed[i] = true;
                    out.push(table);
                }
            }
        }
        out
    }
}

/// A control block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Control {
    /// Name as declared (or the BMv2 pipeline name).
    pub name: String,
    /// Its role in the package.
    pub role: ControlRole,
    /// Ingress or egress.
    pub gress: Gress,
    /// The apply body.
    pub flow: ControlFlow,
    /// Declaration site.
    pub span: Span,
}

#[cfg(test)]
mod size_tests {
    /// A long apply block is one node per statement: the node's size is
    /// most of the graph's memory per input byte (issue 7).
    #[test]
    fn a_node_stays_small() {
        let n = std::mem::size_of::<super::Node>();
        assert!(n <= 128, "{n}");
    }
}

#[cfg(test)]
mod tables_tests {
    use super::{ControlFlow, Node, NodeKind, TableNext};
    use crate::{FileId, NodeId, Span, TableId};

    /// A straight line applying `tables` in order.
    fn line(tables: &[u32]) -> ControlFlow {
        let n = tables.len();
        let nodes = tables
            .iter()
            .enumerate()
            .map(|(i, t)| Node {
                kind: NodeKind::Table {
                    table: TableId(*t),
                    next: TableNext::Always {
                        next: (i + 1 < n).then(|| NodeId((i + 1) as u32)),
                    },
                },
                span: Span::file_start(FileId(0)),
            })
            .collect();
        ControlFlow {
            nodes,
            entry: (n > 0).then_some(NodeId(0)),
        }
    }

    /// Each table once, where the walk first meets it, whatever its id.
    #[test]
    fn tables_once_in_walk_order() {
        let f = line(&[7, 2, 7, 0, 2, 9]);
        let ids: Vec<u32> = f.tables().iter().map(|t| t.0).collect();
        assert_eq!(ids, [7, 2, 0, 9]);
        assert!(line(&[]).tables().is_empty());
    }
}
