//! Structured gateway conditions: what an `if` (a Tofino gateway) tests.
//!
//! A condition is a small expression tree stored flat: `nodes` in post
//! order (every node's operands come before it), `root` the last node. The
//! flat form keeps every walk a loop over a vector (no recursion whose depth
//! the input controls, in Drop and serde too). Field names are the
//! program's canonical names (`hdr.ipv4.ttl`, `ig_md.port`); a header's
//! validity is [`CondNode::IsValid`] on the header name.

use serde::{Deserialize, Serialize};

/// Comparison operators a gateway evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The P4 spelling.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// One node of a [`Cond`]. Operands are indexes of earlier nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum CondNode {
    /// `true` / `false`.
    Bool {
        /// The value.
        value: bool,
    },
    /// An integer constant (decimal text, exact whatever its width).
    Int {
        /// The value in decimal.
        value: String,
    },
    /// A field, metadata or local variable read.
    Field {
        /// Canonical name.
        name: String,
    },
    /// `base[hi:lo]`.
    Slice {
        /// Operand.
        base: u32,
        /// High bit.
        hi: u32,
        /// Low bit.
        lo: u32,
    },
    /// `h.isValid()`.
    IsValid {
        /// Header (or stack element) name.
        header: String,
    },
    /// `t.apply().hit` (`hit: true`) or `.miss`.
    TableHit {
        /// Table name as the condition names it.
        table: String,
        /// True for `hit`, false for `miss`.
        hit: bool,
    },
    /// `!a`.
    Not {
        /// Operand.
        arg: u32,
    },
    /// `a && b`.
    And {
        /// Left operand.
        lhs: u32,
        /// Right operand.
        rhs: u32,
    },
    /// `a || b`.
    Or {
        /// Left operand.
        lhs: u32,
        /// Right operand.
        rhs: u32,
    },
    /// `a op b`.
    Cmp {
        /// The comparison.
        cmp: CmpOp,
        /// Left operand.
        lhs: u32,
        /// Right operand.
        rhs: u32,
    },
    /// Anything else (arithmetic, bitwise operators, casts, calls): kept as
    /// text with the fields it reads as operands.
    Other {
        /// Source text or operator.
        text: String,
        /// Operand nodes.
        args: Vec<u32>,
    },
}

impl CondNode {
    /// Operand indexes of this node.
    pub fn operands(&self) -> Vec<u32> {
        match self {
            CondNode::Bool { .. }
            | CondNode::Int { .. }
            | CondNode::Field { .. }
            | CondNode::IsValid { .. }
            | CondNode::TableHit { .. } => vec![],
            CondNode::Slice { base, .. } => vec![*base],
            CondNode::Not { arg } => vec![*arg],
            CondNode::And { lhs, rhs }
            | CondNode::Or { lhs, rhs }
            | CondNode::Cmp { lhs, rhs, .. } => {
                vec![*lhs, *rhs]
            }
            CondNode::Other { args, .. } => args.clone(),
        }
    }
}

/// A structured condition (post-order node list, root last).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cond {
    /// Nodes in post order; operands index earlier nodes.
    pub nodes: Vec<CondNode>,
}

impl Cond {
    /// The root node index, `None` for an empty condition (unknown).
    pub fn root(&self) -> Option<u32> {
        self.nodes.len().checked_sub(1).map(|i| i as u32)
    }

    /// Appends a node whose operands are already in the list; returns its
    /// index. Operands that do not point to an earlier node are a bug of
    /// the caller and are clamped to the node itself's predecessor range by
    /// [`Cond::is_well_formed`] checks, never followed blindly.
    pub fn push(&mut self, node: CondNode) -> u32 {
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// True when every operand points to an earlier node.
    pub fn is_well_formed(&self) -> bool {
        self.nodes
            .iter()
            .enumerate()
            .all(|(i, n)| n.operands().iter().all(|&o| (o as usize) < i))
    }

    /// Fields read (`Field`, in first-seen order, deduplicated) and headers
    /// whose validity is tested (as `<header>.$valid`).
    pub fn reads(&self) -> Vec<String> {
        /// The longest list searched by comparing names rather than hashing
        /// (most conditions read a handful).
        const SCAN: usize = 16;
        let mut out: Vec<String> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for n in &self.nodes {
            let name = match n {
                CondNode::Field { name } => name.clone(),
                CondNode::IsValid { header } => format!("{header}.$valid"),
                _ => continue,
            };
            if out.len() < SCAN {
                if !out.contains(&name) {
                    out.push(name);
                }
                continue;
            }
            if seen.is_empty() {
                seen.extend(out.iter().cloned());
            }
            if seen.insert(name.clone()) {
                out.push(name);
            }
        }
        out
    }

    /// Renders the condition as P4-like text, without recursion.
    pub fn text(&self) -> String {
        let mut done: Vec<String> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            // Each operand has one parent (a tree), so it is taken, not
            // copied: rendering stays linear in the text's length.
            let mut get = |i: u32| {
                done.get_mut(i as usize)
                    .map(std::mem::take)
                    .unwrap_or_else(|| "?".into())
            };
            let s = match n {
                CondNode::Bool { value } => value.to_string(),
                CondNode::Int { value } => value.clone(),
                CondNode::Field { name } => name.clone(),
                CondNode::Slice { base, hi, lo } => format!("{}[{hi}:{lo}]", get(*base)),
                CondNode::IsValid { header } => format!("{header}.isValid()"),
                CondNode::TableHit { table, hit } => {
                    format!("{table}.apply().{}", if *hit { "hit" } else { "miss" })
                }
                CondNode::Not { arg } => format!("!({})", get(*arg)),
                CondNode::And { lhs, rhs } => format!("({} && {})", get(*lhs), get(*rhs)),
                CondNode::Or { lhs, rhs } => format!("({} || {})", get(*lhs), get(*rhs)),
                CondNode::Cmp { cmp, lhs, rhs } => {
                    format!("{} {} {}", get(*lhs), cmp.symbol(), get(*rhs))
                }
                CondNode::Other { text, args } => {
                    let a: Vec<String> = args.iter().map(|i| get(*i)).collect();
                    format!("{text}({})", a.join(", "))
                }
            };
            done.push(s);
        }
        done.pop().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_text_of_a_validity_and_comparison() {
        let mut c = Cond::default();
        let v = c.push(CondNode::IsValid {
            header: "hdr.ipv4".into(),
        });
        let f = c.push(CondNode::Field {
            name: "hdr.ipv4.ttl".into(),
        });
        let k = c.push(CondNode::Int { value: "1".into() });
        let cmp = c.push(CondNode::Cmp {
            cmp: CmpOp::Gt,
            lhs: f,
            rhs: k,
        });
        c.push(CondNode::And { lhs: v, rhs: cmp });
        assert!(c.is_well_formed());
        assert_eq!(c.reads(), vec!["hdr.ipv4.$valid", "hdr.ipv4.ttl"]);
        assert_eq!(c.text(), "(hdr.ipv4.isValid() && hdr.ipv4.ttl > 1)");
    }

    #[test]
    fn forward_operands_are_not_well_formed() {
        let c = Cond {
            nodes: vec![CondNode::Not { arg: 0 }],
        };
        assert!(!c.is_well_formed());
    }
}
