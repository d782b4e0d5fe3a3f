//! Read sets of expressions: which fields an expression looks at.

use crate::HashSet;

use p4cost_syntax::ast::{Expr, ExprKind};

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

    /// The longest list grown one name at a time: most read sets have one
    /// or two names, and a list that holds exactly its names needs no
    /// shrinking in [`NameList::into_vec`].
    const EXACT: usize = 4;

    /// True when `n` is in the list.
    fn contains(&self, n: &str) -> bool {
        if self.list.len() <= Self::SCAN {
            self.list.iter().any(|x| x == n)
        } else {
            self.seen.contains(n)
        }
    }

    /// Appends `n`, known not to be in the list.
    fn push_new(&mut self, n: String) {
        if self.list.len() == self.list.capacity() && self.list.len() < Self::EXACT {
            self.list.reserve_exact(1);
        }
        if self.list.len() >= Self::SCAN {
            if self.seen.is_empty() {
                self.seen.extend(self.list.iter().cloned());
            }
            self.seen.insert(n.clone());
        }
        self.list.push(n);
    }

    /// Adds `n` unless it is already there.
    pub fn push(&mut self, n: String) {
        if !self.contains(&n) {
            self.push_new(n);
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
        if list.len() < list.capacity() {
            list.shrink_to_fit();
        }
        list
    }
}

/// Adds every field, variable or header `e` reads to `out` (deduplicated,
/// in first-seen order). `skip` filters names that are not state (global
/// constants, enum members, actions): it is given a name's root (`hdr` of
/// `hdr.ipv4.ttl`, empty for an absolute `.x`).
pub fn reads(e: &Expr, skip: &dyn Fn(&str) -> bool, out: &mut NameList) {
    let mut w = Reads {
        skip,
        out,
        spare: String::new(),
    };
    w.expr(e);
}

/// One [`reads`] walk: a name is written only when its root is not
/// skipped, and the buffer of a name already in the list is kept for the
/// next one, so a repeated name costs no allocation.
struct Reads<'w> {
    skip: &'w dyn Fn(&str) -> bool,
    out: &'w mut NameList,
    spare: String,
}

impl Reads<'_> {
    /// Adds the place `e` (with `suffix` appended) unless skipped or there.
    fn place(&mut self, e: &Expr, suffix: &str) {
        if (self.skip)(root_name(e)) {
            return;
        }
        let mut n = std::mem::take(&mut self.spare);
        n.clear();
        // Most names (`hdr.ipv4.ttl`) fit without regrowing.
        n.reserve(24);
        crate::scope::write_name(e, &mut n);
        n.push_str(suffix);
        if self.out.contains(&n) {
            self.spare = n;
        } else {
            self.out.push_new(n);
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Path(_) | ExprKind::Member { .. } | ExprKind::Index { .. } => {
                if is_place(e) {
                    self.place(e, "");
                } else if let ExprKind::Member { base, .. } | ExprKind::Index { base, .. } = &e.kind
                {
                    self.expr(base);
                }
                if let ExprKind::Index { index, .. } = &e.kind {
                    self.expr(index);
                }
            }
            ExprKind::Slice { base, .. } => self.expr(base),
            ExprKind::WidthSlice { base, start, .. } => {
                self.expr(base);
                self.expr(start);
            }
            ExprKind::Call { callee, args, .. } => {
                if let ExprKind::Member { base, member } = &callee.kind {
                    if matches!(member.name.as_str(), "isValid" | "isInvalid") && is_place(base) {
                        // Validity is a bit of its own (`$valid`, as p4c's
                        // BMv2 JSON names it), not the header's fields.
                        self.place(base, ".$valid");
                    } else if HEADER_METHODS.contains(&member.name.as_str()) && is_place(base) {
                        self.place(base, "");
                    } else if !is_place(base) {
                        self.expr(base);
                    }
                }
                for a in args {
                    self.expr(&a.value);
                }
            }
            ExprKind::Cast { expr, .. } | ExprKind::Unary { expr, .. } => self.expr(expr),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs);
                self.expr(rhs);
            }
            ExprKind::Ternary { cond, then, els } => {
                self.expr(cond);
                self.expr(then);
                self.expr(els);
            }
            ExprKind::List(items) => {
                for i in items {
                    self.expr(i);
                }
            }
            ExprKind::Struct { fields, .. } => {
                for f in fields {
                    self.expr(&f.value);
                }
            }
            _ => {}
        }
    }
}

/// The root of a place's name (what its name starts with, up to the
/// first `.` or `[`): the name of its leftmost path, empty for an
/// absolute path (written `.x`).
fn root_name(mut e: &Expr) -> &str {
    loop {
        match &e.kind {
            ExprKind::Path(p) if p.absolute => return "",
            ExprKind::Path(p) => return p.name.name.as_str(),
            ExprKind::Member { base, .. } | ExprKind::Index { base, .. } => e = base,
            _ => return "",
        }
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
