//! Field facts that a parse path decides (issue 9): `hdr.ethernet.ether_type
//! == 0x800` is true on every path that took the IPv4 case of the select on
//! that field, false on the paths that took another case, and unknown
//! where the field was extracted and not selected on. `meta.l4 == 6` is
//! true on the paths whose parser set `meta.l4 = 6` last.
//!
//! An [`Atom`] is a comparison of a field with a constant that a control's
//! condition makes and that some parser selects on or sets to a constant.
//! Along a parse path, each atom has an **event** (the last thing that set
//! the field): none, true, false or unknown. Extracting the field's header
//! or writing the field in a parser statement makes it unknown, unless the
//! statement writes a constant into the field, which decides it; taking a
//! select edge keyed on the field makes it what the edge's keysets say. The class
//! analysis keeps two bits per atom in a path's signature ([`Event::bits`])
//! and the last event wins when a path's pieces are composed.

use std::collections::{HashMap, HashSet};

use p4cost_ir::{CmpOp, Cond, CondNode, Keyset, ParserOp, Target, Transition};

/// A comparison `field cmp value` (`!=` is kept as a negated `==`, and
/// `value cmp field` is turned around).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Atom {
    /// The field, canonical (`hdr.ethernet.ether_type`).
    pub field: String,
    /// Its header (`hdr.ethernet`).
    pub header: String,
    /// `==`, `<`, `<=`, `>` or `>=`.
    pub cmp: CmpOp,
    /// The constant.
    pub value: u128,
}

impl Atom {
    /// `hdr.ethernet.ether_type == 0x800`.
    pub fn text(&self) -> String {
        let v = if self.value > 9 {
            format!("{:#x}", self.value)
        } else {
            self.value.to_string()
        };
        format!("{} {} {v}", self.field, self.cmp.symbol())
    }
}

/// What the parse path last did to an atom's field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Nothing: the field keeps what an earlier step left.
    None,
    /// The comparison holds for certain.
    True,
    /// It fails for certain.
    False,
    /// The field holds packet data or a value the analysis does not know.
    Unknown,
}

impl Event {
    /// The signature bits: (true bit, false bit); unknown sets both.
    pub fn bits(self) -> (bool, bool) {
        match self {
            Event::None => (false, false),
            Event::True => (true, false),
            Event::False => (false, true),
            Event::Unknown => (true, true),
        }
    }

    fn of(known: Option<bool>) -> Event {
        match known {
            Some(true) => Event::True,
            Some(false) => Event::False,
            None => Event::Unknown,
        }
    }
}

/// An integer as the readers write keyset values and conditions write
/// constants: decimal, `0x`/`0o`/`0b` with `_` separators, with or without
/// a width prefix (`16w0x800`, `8s5`). `None` for anything else (names,
/// expressions, negative or wider than 128 bits).
pub fn parse_int(text: &str) -> Option<u128> {
    let t = text.trim();
    let t = match t.find(['w', 's']) {
        Some(i) if i > 0 && t[..i].bytes().all(|b| b.is_ascii_digit()) => &t[i + 1..],
        _ => t,
    };
    let (digits, radix) = match t.get(..2).map(|p| p.to_ascii_lowercase()) {
        Some(p) if p == "0x" => (&t[2..], 16),
        Some(p) if p == "0o" => (&t[2..], 8),
        Some(p) if p == "0b" => (&t[2..], 2),
        Some(p) if p == "0d" => (&t[2..], 10),
        _ => (t, 10),
    };
    let mut value: u128 = 0;
    let mut any = false;
    for c in digits.chars().filter(|c| *c != '_') {
        let d = c.to_digit(radix)?;
        value = value
            .checked_mul(u128::from(radix))?
            .checked_add(u128::from(d))?;
        any = true;
    }
    any.then_some(value)
}

/// True when `v cmp c` holds.
fn holds(cmp: CmpOp, v: u128, c: u128) -> bool {
    match cmp {
        CmpOp::Eq => v == c,
        CmpOp::Ne => v != c,
        CmpOp::Lt => v < c,
        CmpOp::Le => v <= c,
        CmpOp::Gt => v > c,
        CmpOp::Ge => v >= c,
    }
}

/// The header of a field: everything before its last `.`.
fn header_of(field: &str) -> Option<&str> {
    field.rfind('.').map(|i| &field[..i])
}

/// The atom that node `i` of `cond` compares, and whether the node is its
/// negation (`!=`): a comparison of a field (no stack index) with an
/// integer constant.
pub fn atom_at(cond: &Cond, i: usize) -> Option<(Atom, bool)> {
    let (field, cmp, value, negated) = atom_parts(cond, i)?;
    Some((
        Atom {
            field: field.to_string(),
            header: header_of(field)?.to_string(),
            cmp,
            value,
        },
        negated,
    ))
}

/// [`atom_at`] without allocating: field, comparison, constant, negated.
pub fn atom_parts(cond: &Cond, i: usize) -> Option<(&str, CmpOp, u128, bool)> {
    let CondNode::Cmp { cmp, lhs, rhs } = cond.nodes.get(i)? else {
        return None;
    };
    let node = |j: u32| cond.nodes.get(j as usize).filter(|_| (j as usize) < i);
    let (field, value, cmp) = match (node(*lhs)?, node(*rhs)?) {
        (CondNode::Field { name }, CondNode::Int { value }) => (name, value, *cmp),
        (CondNode::Int { value }, CondNode::Field { name }) => (
            name,
            value,
            match cmp {
                CmpOp::Lt => CmpOp::Gt,
                CmpOp::Le => CmpOp::Ge,
                CmpOp::Gt => CmpOp::Lt,
                CmpOp::Ge => CmpOp::Le,
                c => *c,
            },
        ),
        _ => return None,
    };
    if field.contains('[') {
        return None;
    }
    header_of(field)?;
    let value = parse_int(value)?;
    let (cmp, negated) = match cmp {
        CmpOp::Ne => (CmpOp::Eq, true),
        c => (c, false),
    };
    Some((field.as_str(), cmp, value, negated))
}

/// The value of a comparison of two integer constants at node `i`, if it is
/// one.
pub fn constant_cmp(cond: &Cond, i: usize) -> Option<bool> {
    let CondNode::Cmp { cmp, lhs, rhs } = cond.nodes.get(i)? else {
        return None;
    };
    let int = |j: u32| match cond.nodes.get(j as usize).filter(|_| (j as usize) < i) {
        Some(CondNode::Int { value }) => parse_int(value),
        _ => None,
    };
    Some(holds(*cmp, int(*lhs)?, int(*rhs)?))
}

/// The fields a parse path may decide: every select-key field of the
/// program's parsers and every field a parser statement sets to a constant
/// (`meta.l4 = 6`).
pub fn parser_decided_fields(program: &p4cost_ir::Program) -> HashSet<&str> {
    let mut out = HashSet::new();
    for p in &program.parsers {
        for s in &p.states {
            if let Transition::Select { keys, .. } = &s.transition {
                out.extend(keys.iter().filter_map(|k| k.field.as_deref()));
            }
            for op in &s.ops {
                if let ParserOp::Statement {
                    writes,
                    constant: Some(_),
                    ..
                } = op
                {
                    out.extend(writes.iter().map(String::as_str));
                }
            }
        }
    }
    out
}

/// The event of a parse state's operations on `atom`: the last extract of
/// its header or write of the field (or of a struct or header holding it).
/// A constant written into the field itself decides the comparison.
pub fn ops_event(atom: &Atom, ops: &[ParserOp]) -> Event {
    let mut ev = Event::None;
    for op in ops {
        match op {
            ParserOp::Extract { header, stack, .. }
                if stack.is_none() && *header == atom.header =>
            {
                ev = Event::Unknown;
            }
            ParserOp::Statement {
                writes, constant, ..
            } if writes.iter().any(|w| covers(w, &atom.field)) => {
                ev = match (constant, writes.as_slice()) {
                    (Some(v), [w]) if *w == atom.field => {
                        Event::of(Some(holds(atom.cmp, *v, atom.value)))
                    }
                    _ => Event::Unknown,
                };
            }
            _ => {}
        }
    }
    ev
}

/// True when a write of `w` may change `field`: the field itself, a
/// header or struct holding it.
pub fn covers(w: &str, field: &str) -> bool {
    let w = w.strip_suffix(".$valid").unwrap_or(w);
    field == w
        || (field.len() > w.len()
            && field.starts_with(w)
            && matches!(field.as_bytes()[w.len()], b'.' | b'['))
}

/// The event of each select edge of `tr` on `atom`, by target: what the
/// cases leading to the target say of the field, given that no earlier case
/// matched. A transition that does not select on the field has no event.
pub fn edge_events(atom: &Atom, tr: &Transition) -> HashMap<Target, Event> {
    let mut out: HashMap<Target, Option<Option<bool>>> = HashMap::new();
    let Transition::Select { keys, cases } = tr else {
        return HashMap::new();
    };
    let Some(k) = keys
        .iter()
        .position(|key| key.field.as_deref() == Some(atom.field.as_str()))
    else {
        return HashMap::new();
    };
    let full = keys[k].width_bits.map(|w| match w {
        0 => 0,
        w if w >= 128 => u128::MAX,
        w => (1u128 << w) - 1,
    });
    let c = atom.value;
    // Values of the key that an earlier case took whatever the other keys:
    // no later case sees them.
    let mut taken: HashSet<u128> = HashSet::new();
    for case in cases {
        let comp = if case.keysets.len() == keys.len() {
            Some(&case.keysets[k])
        } else if case.matches_all() {
            Some(&Keyset::Default)
        } else {
            None // a malformed tuple: nothing is known of it
        };
        let others_default = case
            .keysets
            .iter()
            .enumerate()
            .all(|(i, ks)| i == k || *ks == Keyset::Default);
        let exact = match comp {
            Some(Keyset::Value { value }) => parse_int(value),
            Some(Keyset::Mask { value, mask }) => match (parse_int(mask), full) {
                (Some(m), Some(f)) if m & f == f => parse_int(value),
                _ => None,
            },
            Some(Keyset::Range { lo, hi }) => match (parse_int(lo), parse_int(hi)) {
                (Some(l), Some(h)) if l == h => Some(l),
                _ => None,
            },
            _ => None,
        };
        let truth: Option<Option<bool>> = match (comp, exact) {
            // Unreachable: an earlier case took this value.
            (_, Some(v)) if taken.contains(&v) => None,
            (_, Some(v)) => Some(Some(holds(atom.cmp, v, c))),
            (Some(Keyset::Mask { value, mask }), None) => {
                Some(match (parse_int(value), parse_int(mask), atom.cmp) {
                    (Some(v), Some(m), CmpOp::Eq) if v & m != c & m => Some(false),
                    _ => None,
                })
            }
            (Some(Keyset::Range { lo, hi }), None) => {
                Some(match (parse_int(lo), parse_int(hi)) {
                    (Some(l), Some(h)) if l <= h => {
                        let (a, b) = (holds(atom.cmp, l, c), holds(atom.cmp, h, c));
                        match atom.cmp {
                            // Monotone in v: the ends decide the range.
                            CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge if a == b => Some(a),
                            CmpOp::Eq if c < l || c > h => Some(false),
                            _ => None,
                        }
                    }
                    _ => None,
                })
            }
            (Some(Keyset::Default), None) => Some(match atom.cmp {
                CmpOp::Eq if taken.contains(&c) => Some(false),
                _ => None,
            }),
            _ => Some(None),
        };
        if let Some(t) = truth {
            out.entry(case.target)
                .and_modify(|prev| {
                    if *prev != Some(t) {
                        *prev = Some(None);
                    }
                })
                .or_insert(Some(t));
        }
        if let (Some(v), true) = (exact, others_default) {
            taken.insert(v);
        }
        if case.matches_all() {
            break;
        }
    }
    out.into_iter()
        .map(|(t, v)| (t, Event::of(v.flatten())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_ir::{extract, sp};
    use p4cost_ir::{SelectCase, SelectKey, StateId};

    fn atom(cmp: CmpOp, value: u128) -> Atom {
        Atom {
            field: "hdr.eth.ty".into(),
            header: "hdr.eth".into(),
            cmp,
            value,
        }
    }

    fn select(keys: &[&str], cases: Vec<(Vec<Keyset>, u32)>) -> Transition {
        Transition::Select {
            keys: keys
                .iter()
                .map(|k| SelectKey {
                    expr: k.to_string(),
                    width_bits: Some(16),
                    field: Some(k.to_string()),
                    span: sp(),
                })
                .collect(),
            cases: cases
                .into_iter()
                .map(|(keysets, t)| SelectCase {
                    keysets,
                    target: Target::State(StateId(t)),
                    span: sp(),
                })
                .collect(),
        }
    }

    fn v(x: &str) -> Keyset {
        Keyset::Value { value: x.into() }
    }

    fn at(m: &HashMap<Target, Event>, t: u32) -> Event {
        m.get(&Target::State(StateId(t)))
            .copied()
            .unwrap_or(Event::None)
    }

    #[test]
    fn parses_the_integer_spellings_the_readers_write() {
        assert_eq!(parse_int("0x0800"), Some(0x800));
        assert_eq!(parse_int("16w0x800"), Some(0x800));
        assert_eq!(parse_int("2048"), Some(2048));
        assert_eq!(parse_int("0b1_0"), Some(2));
        assert_eq!(parse_int("8s5"), Some(5));
        assert_eq!(parse_int("ETHERTYPE_IPV4"), None);
        assert_eq!(parse_int("-1"), None);
    }

    #[test]
    fn a_case_value_decides_equality_and_default_excludes_taken_values() {
        let tr = select(
            &["hdr.eth.ty"],
            vec![
                (vec![v("0x800")], 1),
                (vec![v("0x86dd")], 2),
                (vec![Keyset::Default], 3),
            ],
        );
        let e = edge_events(&atom(CmpOp::Eq, 0x800), &tr);
        assert_eq!(at(&e, 1), Event::True);
        assert_eq!(at(&e, 2), Event::False);
        // Default: 0x800 went to case 1, so it is not 0x800 here.
        assert_eq!(at(&e, 3), Event::False);
        // But whether it is 0x8100 is unknown on the default edge.
        let e = edge_events(&atom(CmpOp::Eq, 0x8100), &tr);
        assert_eq!(at(&e, 3), Event::Unknown);
        assert_eq!(at(&e, 1), Event::False);
    }

    #[test]
    fn two_cases_to_one_state_agree_or_make_it_unknown() {
        let tr = select(
            &["hdr.eth.ty"],
            vec![
                (vec![v("0x800")], 1),
                (vec![v("0x86dd")], 1),
                (vec![v("5")], 2),
            ],
        );
        assert_eq!(
            at(&edge_events(&atom(CmpOp::Eq, 0x800), &tr), 1),
            Event::Unknown
        );
        assert_eq!(at(&edge_events(&atom(CmpOp::Eq, 5), &tr), 1), Event::False);
        assert_eq!(at(&edge_events(&atom(CmpOp::Gt, 4), &tr), 1), Event::True);
    }

    #[test]
    fn tuples_masks_and_ranges() {
        let tr = select(
            &["hdr.x.a", "hdr.eth.ty"],
            vec![
                (vec![v("1"), v("0x800")], 1),
                (vec![Keyset::Default, Keyset::Default], 2),
            ],
        );
        // (1, 0x800) went to 1, but (2, 0x800) reaches the default: unknown.
        assert_eq!(
            at(&edge_events(&atom(CmpOp::Eq, 0x800), &tr), 1),
            Event::True
        );
        assert_eq!(
            at(&edge_events(&atom(CmpOp::Eq, 0x800), &tr), 2),
            Event::Unknown
        );
        let tr = select(
            &["hdr.eth.ty"],
            vec![
                (
                    vec![Keyset::Mask {
                        value: "0x8000".into(),
                        mask: "0xf000".into(),
                    }],
                    1,
                ),
                (
                    vec![Keyset::Range {
                        lo: "0".into(),
                        hi: "0x5dc".into(),
                    }],
                    2,
                ),
            ],
        );
        let e = edge_events(&atom(CmpOp::Eq, 0x800), &tr);
        assert_eq!(at(&e, 1), Event::False);
        assert_eq!(at(&e, 2), Event::False);
        let e = edge_events(&atom(CmpOp::Eq, 0x8847), &tr);
        assert_eq!(at(&e, 1), Event::Unknown);
        assert_eq!(
            at(&edge_events(&atom(CmpOp::Le, 0x600), &tr), 2),
            Event::True
        );
        // A select on another field says nothing.
        let other = select(&["hdr.ip.proto"], vec![(vec![v("6")], 1)]);
        assert!(edge_events(&atom(CmpOp::Eq, 6), &other).is_empty());
    }

    #[test]
    fn extracting_or_writing_the_field_makes_it_unknown() {
        let a = atom(CmpOp::Eq, 1);
        assert_eq!(
            ops_event(&a, &[extract("hdr.eth", 112, false)]),
            Event::Unknown
        );
        let write = |w: &str| ParserOp::Statement {
            what: "assign".into(),
            reads: vec![],
            writes: vec![w.into()],
            constant: None,
            span: sp(),
        };
        assert_eq!(ops_event(&a, &[write("hdr.eth")]), Event::Unknown);
        assert_eq!(ops_event(&a, &[write("hdr.eth.tyx")]), Event::None);
        assert_eq!(ops_event(&a, &[]), Event::None);
    }

    #[test]
    fn a_constant_written_into_the_field_decides_it() {
        let set = |w: &str, v: u128| ParserOp::Statement {
            what: "assign".into(),
            reads: vec![],
            writes: vec![w.into()],
            constant: Some(v),
            span: sp(),
        };
        let eq1 = atom(CmpOp::Eq, 1);
        assert_eq!(ops_event(&eq1, &[set("hdr.eth.ty", 1)]), Event::True);
        assert_eq!(ops_event(&eq1, &[set("hdr.eth.ty", 7)]), Event::False);
        let gt5 = atom(CmpOp::Gt, 5);
        assert_eq!(ops_event(&gt5, &[set("hdr.eth.ty", 7)]), Event::True);
        // The last write wins; a constant into the whole header says nothing
        // of one field.
        assert_eq!(
            ops_event(
                &eq1,
                &[set("hdr.eth.ty", 1), extract("hdr.eth", 112, false)]
            ),
            Event::Unknown
        );
        assert_eq!(
            ops_event(
                &eq1,
                &[extract("hdr.eth", 112, false), set("hdr.eth.ty", 1)]
            ),
            Event::True
        );
        assert_eq!(ops_event(&eq1, &[set("hdr.eth", 0)]), Event::Unknown);
    }
}
