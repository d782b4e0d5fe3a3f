//! Reuse of lowered controls between loads of an edited document.
//!
//! Each top-level control is a unit: the first load records what lowering
//! it added (its actions, tables and control, the tables' applied names,
//! the top-level actions it lowered first, the constructor values, the
//! warnings); a later load replays that instead of lowering the control
//! again when nothing its lowering read changed:
//! - its own text, and the text of every control it instantiated
//!   (transitively: each is lowered through the same path);
//! - the tokens of every other top-level declaration (types, externs,
//!   constants, actions...: a comment typed in one changes nothing), the
//!   names of all parsers and controls, the files, the constructor
//!   bindings, and the inlining budget (the environment);
//! - the program as it was when its lowering started, as far as lowering
//!   reads it: the number of actions, tables and controls, the top-level
//!   actions lowered so far with their ids, the inlining budget used;
//! - the place of every declaration whose spans it turned into IR spans or
//!   diagnostics: each must have moved as a whole (same column, same map
//!   of its bytes relative to its start), and all those of one file by the
//!   same delta, which the replay adds to the recorded spans.
//!
//! The result is the program a cold lowering gives (tests/lower_reuse.rs
//! checks it over random edits).

mod seen;
mod shift;

use crate::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use p4cost_ir as ir;
use p4cost_pp::RangeShape;
use p4cost_syntax::ast;

use crate::lower::{Cx, Spans};
use crate::{Diagnostic, FrontError};

pub use seen::Seen;

/// The recorded lowering of each control of the last load, by name.
#[derive(Debug, Default)]
pub struct LowerCache {
    entries: HashMap<String, Entry>,
    replayed: usize,
    lowered: usize,
}

impl LowerCache {
    /// How many controls the last load replayed, and how many it lowered.
    pub fn counts(&self) -> (usize, usize) {
        (self.replayed, self.lowered)
    }
}

/// One control's recorded lowering and what it read.
#[derive(Debug)]
struct Entry {
    /// Hash of the control's text.
    own: u64,
    /// Hash of the environment (see the module documentation).
    env: u64,
    /// Hash of the program's state at the start (see [`state`]).
    state: u64,
    /// The controls lowered under it, with the hash of their text.
    controls: Vec<(String, u64)>,
    /// The declarations whose places it read: text hash and place.
    places: Vec<(u64, RangeShape)>,
    delta: Delta,
}

/// What lowering a control added to the program and the lowering state.
#[derive(Debug)]
struct Delta {
    actions: Vec<std::sync::Arc<ir::Action>>,
    tables: Vec<ir::Table>,
    control: ir::Control,
    applied: Vec<(u32, Vec<String>)>,
    globals: Vec<(String, ir::ActionId)>,
    values: Vec<(String, HashMap<String, i128>)>,
    warnings: Vec<(Diagnostic, usize)>,
    emits: Option<Vec<String>>,
    inlined: usize,
}

/// What a control's lowering does beyond the program, noted as it runs.
#[derive(Debug, Default)]
pub struct Rec {
    /// Constructor parameter values offered to `Cx::instance_values`.
    pub values: Vec<(String, HashMap<String, i128>)>,
    warnings: Vec<(Diagnostic, usize)>,
    controls: Vec<String>,
}

impl Rec {
    /// A warning given (repeat or not), with the file it is in.
    pub fn warn(&mut self, spans: &Spans<'_>, s: ast::Span, d: &Diagnostic) {
        let file = spans.out.map.lookup(s.lo as usize).file;
        self.warnings.push((d.clone(), file));
    }

    /// A control declaration lowered (as the unit or under it).
    pub fn read_control(&mut self, name: &str) {
        if !self.controls.iter().any(|c| c == name) {
            self.controls.push(name.to_string());
        }
    }
}

fn hash_of(x: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// Hash of `text`'s tokens: runs of whitespace (the preprocessor blanked
/// the comments) outside string literals count as one space, so a comment
/// typed in a declaration changes its place but not this.
fn token_hash(text: &str) -> u64 {
    let mut h = DefaultHasher::new();
    let (mut in_string, mut escaped, mut gap) = (false, false, false);
    for b in text.bytes() {
        if !in_string && b.is_ascii_whitespace() {
            gap = true;
            continue;
        }
        if gap {
            h.write_u8(b' ');
            gap = false;
        }
        h.write_u8(b);
        if in_string {
            in_string = escaped || b != b'"';
            escaped = !escaped && b == b'\\';
        } else {
            in_string = b == b'"';
        }
    }
    h.finish()
}

/// The byte range of a top-level declaration.
fn decl_span(d: &ast::Decl) -> ast::Span {
    use ast::Decl::*;
    match d {
        Const(x) => x.span,
        Extern(x) => x.span,
        ExternFunction(x) => x.span,
        Function(x) => x.span,
        Action(x) => x.span,
        Parser(x) => x.span,
        ParserType(x) | ControlType(x) | Package(x) => x.span,
        Control(x) => x.span,
        Instantiation(x) => x.span,
        Struct(x) => x.span,
        Enum(x) => x.span,
        Typedef(x) => x.span,
        Error(x) | MatchKind(x) => x.span,
    }
}

/// The state of the program a control's lowering reads (see the module
/// documentation).
fn state(cx: &Cx<'_, '_>) -> u64 {
    let mut g: Vec<(&str, u32)> = cx.global_actions.iter().map(|(k, v)| (*k, v.0)).collect();
    g.sort_unstable();
    let p = &cx.program;
    hash_of((
        (p.actions.len(), p.tables.len(), p.controls.len()),
        cx.inlined.used,
        g,
    ))
}

/// One load's view of the cache: what the text's declarations are, and
/// the entries this load leaves for the next.
pub(crate) struct Units<'c> {
    cache: &'c mut LowerCache,
    next: HashMap<String, Entry>,
    out: &'c p4cost_pp::Output,
    env: u64,
    /// Each top-level declaration's byte range and text hash.
    decls: Vec<(ast::Span, u64)>,
    /// Text hash -> the one declaration with it (`None`: several).
    by_text: HashMap<u64, Option<usize>>,
    /// Control name -> its text hash (`None`: several controls have it).
    controls: HashMap<String, Option<u64>>,
    shapes: HashMap<usize, Option<RangeShape>>,
}

impl<'c> Units<'c> {
    /// Indexes `tree` (of `out.text`) for `cache`, and arms `cx` to note
    /// the places lowering reads. Call after `cx`'s bindings are made.
    pub fn new(
        cache: &'c mut LowerCache,
        out: &'c p4cost_pp::Output,
        tree: &ast::Program,
        cx: &Cx<'_, '_>,
    ) -> Units<'c> {
        let decls: Vec<(ast::Span, u64)> = tree
            .decls
            .iter()
            .map(|d| {
                let s = decl_span(d);
                (s, hash_of(out.text.get(s.lo as usize..s.hi as usize)))
            })
            .collect();
        let mut by_text = HashMap::default();
        for (i, (_, h)) in decls.iter().enumerate() {
            by_text
                .entry(*h)
                .and_modify(|x| *x = None)
                .or_insert(Some(i));
        }
        let mut controls = HashMap::default();
        for (d, (_, h)) in tree.decls.iter().zip(&decls) {
            if let ast::Decl::Control(c) = d {
                controls
                    .entry(c.name.name.to_string())
                    .and_modify(|x| *x = None)
                    .or_insert(Some(*h));
            }
        }
        cx.spans
            .seen
            .arm(decls.iter().map(|(s, _)| (s.lo, s.hi)).collect());
        cache.replayed = 0;
        cache.lowered = 0;
        Units {
            env: env(out, tree, &decls, cx),
            cache,
            next: HashMap::default(),
            out,
            decls,
            by_text,
            controls,
            shapes: HashMap::default(),
        }
    }

    /// Leaves this load's entries for the next.
    pub fn finish(self) {
        self.cache.entries = self.next;
    }

    fn shape(&mut self, i: usize) -> Option<RangeShape> {
        let (s, _) = *self.decls.get(i)?;
        let map = &self.out.map;
        *self
            .shapes
            .entry(i)
            .or_insert_with(|| map.range_shape(s.lo as usize, s.hi as usize))
    }

    /// Lowers control `c`, declaration `i` of the tree, or replays its
    /// recorded lowering when nothing it read changed.
    pub fn control<'a>(
        &mut self,
        cx: &mut Cx<'a, '_>,
        i: usize,
        c: &'a ast::ControlDecl,
    ) -> Result<ir::ControlId, FrontError> {
        let name = c.name.name.as_str();
        if !matches!(self.controls.get(name), Some(Some(_))) {
            return cx.lower_control(c);
        }
        let st = state(cx);
        if let Some(mut e) = self.cache.entries.remove(name) {
            if let Some(moves) = self.moves(&e, i, st, cx) {
                move_entry(&mut e, &moves);
                let id = replay(cx, name, &e.delta);
                self.cache.replayed += 1;
                self.next.insert(name.to_string(), e);
                return Ok(id);
            }
        }
        self.cache.lowered += 1;
        self.record(cx, i, c, st)
    }

    /// How the declarations `e` read the places of moved, when `e` may
    /// be replayed here.
    fn moves(&mut self, e: &Entry, i: usize, st: u64, cx: &Cx<'_, '_>) -> Option<shift::Moves> {
        let own = self.decls.get(i)?.1;
        if e.own != own || e.env != self.env || e.state != st {
            return None;
        }
        let same = |(n, h): &(String, u64)| self.controls.get(n) == Some(&Some(*h));
        if !e.controls.iter().all(same)
            || !e
                .delta
                .globals
                .iter()
                .all(|(n, _)| cx.g.actions.contains_key(n.as_str()))
        {
            return None;
        }
        let mut moves = shift::Moves::default();
        for (h, old) in &e.places {
            let j = (*self.by_text.get(h)?)?;
            let new = self.shape(j)?;
            if (new.file, new.col, new.form) != (old.file, old.col, old.form) {
                return None;
            }
            let d = (
                new.offset as i64 - old.offset as i64,
                i64::from(new.line) - i64::from(old.line),
            );
            if *moves.entry(new.file).or_insert(d) != d {
                return None;
            }
        }
        moves.retain(|_, d| *d != (0, 0));
        Some(moves)
    }

    /// Lowers `c` and records what it did.
    fn record<'a>(
        &mut self,
        cx: &mut Cx<'a, '_>,
        i: usize,
        c: &'a ast::ControlDecl,
        st: u64,
    ) -> Result<ir::ControlId, FrontError> {
        let name = c.name.name.as_str();
        let before = Before {
            actions: cx.program.actions.len(),
            tables: cx.program.tables.len(),
            inlined: cx.inlined.used,
            emits: cx.taken_emits.contains_key(name),
        };
        cx.spans.seen.start();
        cx.rec = Some(Rec::default());
        let lowered = cx.lower_control(c);
        let read = cx.spans.seen.stop();
        let rec = cx.rec.take();
        let id = lowered?;
        let (Some(read), Some(mut rec)) = (read, rec) else {
            return Ok(id);
        };
        let places = read.into_iter().map(|j| self.place(j)).collect();
        let controls = std::mem::take(&mut rec.controls)
            .into_iter()
            .map(|n| Some((n.clone(), (*self.controls.get(&n)?)?)))
            .collect();
        let (Some(places), Some(controls)) = (places, controls) else {
            return Ok(id);
        };
        if let Some(delta) = delta(cx, name, id, &before, rec) {
            let e = Entry {
                own: self.decls[i].1,
                env: self.env,
                state: st,
                controls,
                places,
                delta,
            };
            self.next.insert(name.to_string(), e);
        }
        Ok(id)
    }

    /// Declaration `j`'s text hash and place, when no other declaration
    /// has its text (so that the next load finds it by its text).
    fn place(&mut self, j: usize) -> Option<(u64, RangeShape)> {
        let h = self.decls.get(j)?.1;
        let k = (*self.by_text.get(&h)?)?;
        (k == j).then_some(())?;
        Some((h, self.shape(j)?))
    }
}

/// The program's and lowering's counts before a control was lowered.
struct Before {
    actions: usize,
    tables: usize,
    inlined: usize,
    /// The control's emit order was kept already.
    emits: bool,
}

/// What lowering control `name` (now `id`) added since `b`.
fn delta(cx: &Cx<'_, '_>, name: &str, id: ir::ControlId, b: &Before, rec: Rec) -> Option<Delta> {
    let p = &cx.program;
    Some(Delta {
        actions: p.actions.get(b.actions..)?.to_vec(),
        tables: p.tables.get(b.tables..)?.to_vec(),
        control: p.controls.get(id.index())?.clone(),
        applied: cx
            .applied_as
            .iter()
            .filter(|(t, _)| **t as usize >= b.tables)
            .map(|(t, n)| (*t, n.clone()))
            .collect(),
        globals: cx
            .global_actions
            .iter()
            .filter(|(_, a)| a.index() >= b.actions)
            .map(|(n, a)| (n.to_string(), *a))
            .collect(),
        values: rec.values,
        warnings: rec.warnings,
        emits: if b.emits {
            None
        } else {
            cx.taken_emits.get(name).cloned()
        },
        inlined: cx.inlined.used.checked_sub(b.inlined)?,
    })
}

/// Hash of what every control's lowering reads besides controls (see the
/// module documentation).
fn env(
    out: &p4cost_pp::Output,
    tree: &ast::Program,
    decls: &[(ast::Span, u64)],
    cx: &Cx<'_, '_>,
) -> u64 {
    let mut h = DefaultHasher::new();
    for f in &out.files {
        (&f.path, f.bundled).hash(&mut h);
    }
    out.map.presumed_names().hash(&mut h);
    for (d, (s, _)) in tree.decls.iter().zip(decls) {
        match d {
            ast::Decl::Control(c) => ("control", &c.name.name).hash(&mut h),
            ast::Decl::Parser(p) => ("parser", &p.name.name).hash(&mut h),
            _ => token_hash(out.text.get(s.lo as usize..s.hi as usize).unwrap_or("")).hash(&mut h),
        }
    }
    let mut ctor: Vec<(&String, Vec<_>)> = cx
        .ctor
        .iter()
        .map(|(k, m)| {
            let mut v: Vec<_> = m.iter().collect();
            v.sort_unstable();
            (k, v)
        })
        .collect();
    ctor.sort_unstable();
    ctor.hash(&mut h);
    let mut declared: Vec<&String> = cx.declared.iter().collect();
    declared.sort_unstable();
    declared.hash(&mut h);
    let mut taken: Vec<&String> = cx.taken.keys().collect();
    taken.sort_unstable();
    taken.hash(&mut h);
    (cx.inlined.limit, &cx.program.name).hash(&mut h);
    h.finish()
}

/// Moves a recorded entry to where its declarations now are.
fn move_entry(e: &mut Entry, m: &shift::Moves) {
    if m.is_empty() {
        return;
    }
    let d = &mut e.delta;
    let moved = |a: &mut std::sync::Arc<ir::Action>| shift::action(std::sync::Arc::make_mut(a), m);
    d.actions.iter_mut().for_each(moved);
    d.tables.iter_mut().for_each(|t| shift::table(t, m));
    shift::control(&mut d.control, m);
    for (w, file) in &mut d.warnings {
        if let Some(&(_, dl)) = m.get(file) {
            w.line = u32::try_from(i64::from(w.line) + dl).unwrap_or(w.line);
        }
    }
    for (_, s) in &mut e.places {
        if let Some(&(db, dl)) = m.get(&s.file) {
            s.offset = usize::try_from(s.offset as i64 + db).unwrap_or(s.offset);
            s.line = u32::try_from(i64::from(s.line) + dl).unwrap_or(s.line);
        }
    }
}

/// Adds a recorded lowering of control `name` to `cx` as lowering it would.
fn replay<'a>(cx: &mut Cx<'a, '_>, name: &str, d: &Delta) -> ir::ControlId {
    let id = ir::ControlId(cx.program.controls.len() as u32);
    cx.program.actions.extend(d.actions.iter().cloned());
    cx.program.tables.extend(d.tables.iter().cloned());
    cx.program.controls.push(d.control.clone());
    for (t, names) in &d.applied {
        cx.applied_as.insert(*t, names.clone());
    }
    for (n, a) in &d.globals {
        if let Some(decl) = cx.g.actions.get(n.as_str()) {
            cx.global_actions.insert(decl.name.name.as_str(), *a);
        }
    }
    for (n, v) in &d.values {
        let seen = cx.instance_values.entry(n.clone()).or_default();
        if !seen.contains(v) {
            seen.push(v.clone());
        }
    }
    cx.taken.remove(name);
    if let Some(order) = &d.emits {
        cx.taken_emits.insert(name.to_string(), order.clone());
    }
    cx.inlined.used = cx.inlined.used.saturating_add(d.inlined);
    for (w, _) in &d.warnings {
        if cx.warned.insert(w.clone()) {
            cx.warnings.push(w.clone());
        }
    }
    cx.instance_path.clear();
    id
}

#[cfg(test)]
mod tests {
    use super::token_hash;

    #[test]
    fn token_hash_ignores_spacing_but_not_tokens_or_strings() {
        let h = token_hash;
        assert_eq!(h("const bit<8> X = 1;"), h("const  bit<8>\n X = 1;   "));
        assert_ne!(h("const bit<8> X = 1;"), h("const bit<8> XY = 1;"));
        assert_ne!(h("a b"), h("ab"));
        assert_ne!(h("@name(\"a b\") x;"), h("@name(\"a  b\") x;"));
        assert_ne!(h("@name(\"a\\\" b\") x;"), h("@name(\"a\\\"  b\") x;"));
        assert_eq!(h("@name(\"a\")  x;"), h("@name(\"a\") x;"));
    }
}
