//! Moving a recorded control's IR to where its text now is: every span
//! in a file the edit moved gets the file's byte and line delta (columns
//! stay: reuse is declined when a declaration's first column changed).

use crate::HashMap;

use p4cost_ir as ir;

/// Byte and line delta by file index; files not in it did not move.
pub type Moves = HashMap<usize, (i64, i64)>;

fn add(x: u32, d: i64) -> u32 {
    u32::try_from(i64::from(x) + d).unwrap_or(x)
}

/// Moves one span.
pub fn span(s: &mut ir::Span, m: &Moves) {
    if let Some(&(db, dl)) = m.get(&(s.file.0 as usize)) {
        s.lo = add(s.lo, db);
        s.hi = add(s.hi, db);
        s.line = add(s.line, dl);
    }
}

fn annotations(a: &mut [ir::Annotation], m: &Moves) {
    for a in a {
        span(&mut a.span, m);
    }
}

fn externs(e: &mut [ir::ExternCall], m: &Moves) {
    for e in e {
        span(&mut e.span, m);
    }
}

/// Moves an action's spans.
pub fn action(a: &mut ir::Action, m: &Moves) {
    span(&mut a.span, m);
    annotations(&mut a.annotations, m);
    externs(&mut a.externs, m);
    for p in &mut a.primitives {
        span(&mut p.span, m);
    }
}

/// Moves a table's spans.
pub fn table(t: &mut ir::Table, m: &Moves) {
    span(&mut t.span, m);
    annotations(&mut t.annotations, m);
    for k in &mut t.keys {
        span(&mut k.span, m);
    }
}

/// Moves a control's spans.
pub fn control(c: &mut ir::Control, m: &Moves) {
    span(&mut c.span, m);
    for n in &mut c.flow.nodes {
        span(&mut n.span, m);
        if let ir::NodeKind::Statement { externs: e, .. } = &mut n.kind {
            externs(e, m);
        }
    }
}
