//! Read sets of expressions: which fields an expression looks at.

use crate::HashSet;

use p4cost_syntax::ast::{Expr, ExprKind};

use crate::scope::expr_name;

/// Methods on a header (or stack) that read its validity or contents.
const HEADER_METHODS: &[&str] = &[
    "isValid",
    "isInvalid",
    "setValid",
    "setInvalid",
    "minSizeInBits",
    "minSizeInBytes",
];

/// Names in first-seen order without duplicates. A short list (most read
/// sets hold a handful of names) is searched in place; past
/// [`NameList::SCAN`] names, membership is a hash lookup, so collecting N
/// names costs O(N), not O(N^2).
#[derive(Debug, Default)]
pub struct NameList {
    list: Vec<String>,
    /// Every name of `list` once it is longer than [`NameList::SCAN`],
    /// else empty.
    seen: HashSet<String>,
}

impl NameList {
    /// The longest list searched by comparing names rather than hashing.
    const SCAN: usize = 16;

    /// Adds `n` unless it is already there.
    pub fn push(&mut self, n: String) {
        if self.list.len() < Self::SCAN {
            if !self.list.contains(&n) {
                self.list.push(n);
            }
            return;
        }
        if self.seen.is_empty() {
            self.seen.extend(self.list.iter().cloned());
        }
        if !self.seen.contains(&n) {
            self.seen.insert(n.clone());
            self.list.push(n);
        }
    }

    /// The names in first-seen order.
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.list.iter()
    }

    /// The names in first-seen order, without spare capacity: the list
    /// ends up in the IR (a read set per statement), where a vector grown
    /// by pushes would hold room for at least four names.
    pub fn into_vec(self) -> Vec<String> {
        let mut list = self.list;
        list.shrink_to_fit();
        list
    }
}

/// Adds every field, variable or header `e` reads to `out` (deduplicated,
/// in first-seen order). `skip` filters names that are not state (global
/// constants, enum members, actions).
pub fn reads(e: &Expr, skip: &dyn Fn(&str) -> bool, out: &mut NameList) {
    let push = |n: String, out: &mut NameList| {
        let root = n.split(['.', '[']).next().unwrap_or(&n);
        if !skip(root) {
            out.push(n);
        }
    };
    match &e.kind {
        ExprKind::Path(_) | ExprKind::Member { .. } | ExprKind::Index { .. } => {
            if is_place(e) {
                push(expr_name(e), out);
            } else if let ExprKind::Member { base, .. } | ExprKind::Index { base, .. } = &e.kind {
                reads(base, skip, out);
            }
            if let ExprKind::Index { index, .. } = &e.kind {
                reads(index, skip, out);
            }
        }
        ExprKind::Slice { base, .. } => reads(base, skip, out),
        ExprKind::WidthSlice { base, start, .. } => {
            reads(base, skip, out);
            reads(start, skip, out);
        }
        ExprKind::Call { callee, args, .. } => {
            if let ExprKind::Member { base, member } = &callee.kind {
                if matches!(member.name.as_str(), "isValid" | "isInvalid") && is_place(base) {
                    // Validity is a bit of its own (`$valid`, as p4c's
                    // BMv2 JSON names it), not the header's fields.
                    push(format!("{}.$valid", expr_name(base)), out);
                } else if HEADER_METHODS.contains(&member.name.as_str()) && is_place(base) {
                    push(expr_name(base), out);
                } else if !is_place(base) {
                    reads(base, skip, out);
                }
            }
            for a in args {
                reads(&a.value, skip, out);
            }
        }
        ExprKind::Cast { expr, .. } | ExprKind::Unary { expr, .. } => reads(expr, skip, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            reads(lhs, skip, out);
            reads(rhs, skip, out);
        }
        ExprKind::Ternary { cond, then, els } => {
            reads(cond, skip, out);
            reads(then, skip, out);
            reads(els, skip, out);
        }
        ExprKind::List(items) => {
            for i in items {
                reads(i, skip, out);
            }
        }
        ExprKind::Struct { fields, .. } => {
            for f in fields {
                reads(&f.value, skip, out);
            }
        }
        _ => {}
    }
}

/// True for `a`, `a.b.c`, `a[0].b` (a storage location).
pub fn is_place(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Path(_) => true,
        ExprKind::Member { base, .. } => is_place(base),
        ExprKind::Index { base, index } => is_place(base) && matches!(index.kind, ExprKind::Int(_)),
        _ => false,
    }
}

/// True when the expression does arithmetic (what the Tofino model's
/// training did not cover).
pub fn has_arithmetic(e: &Expr) -> bool {
    use p4cost_syntax::ast::BinaryOp::*;
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(
                op,
                Add | Sub | AddSat | SubSat | Mul | Div | Mod | Shl | Shr
            ) || has_arithmetic(lhs)
                || has_arithmetic(rhs)
        }
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => has_arithmetic(expr),
        ExprKind::Ternary { cond, then, els } => {
            has_arithmetic(cond) || has_arithmetic(then) || has_arithmetic(els)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::NameList;

    #[test]
    fn a_name_list_keeps_first_seen_order_without_repeats_past_the_scanned_length() {
        let mut l = NameList::default();
        let names: Vec<String> = (0..40).map(|i| format!("h.f{}", i % 25)).collect();
        for n in names.iter().chain(names.iter().rev()) {
            l.push(n.clone());
        }
        let want: Vec<String> = (0..25).map(|i| format!("h.f{i}")).collect();
        assert_eq!(l.iter().cloned().collect::<Vec<_>>(), want);
        assert_eq!(l.into_vec(), want);
    }
}
