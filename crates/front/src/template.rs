//! Sub-controls lowered once and copied per instance.
//!
//! A sub-control is lowered as a control of its own (its declaration)
//! and again for every instance a caller applies. When an instance's
//! context is the one its own lowering had (the same canonical names for
//! its parameters, the same constructor values, the same top-level
//! actions lowered), lowering it again gives the same actions and tables
//! and, walking its apply block, the same graph but for the ids: its
//! actions and tables are the instance's copies, its nodes are offset by
//! where the copy starts and its end is the caller's next node. They are
//! copied with those ids changed instead: the second lowering was about
//! half of lowering a generated program whose controls are all applied as
//! sub-controls.
//!
//! Only what a lowering that did nothing else made is kept: actions and
//! tables added one per declaration with no warning (nor a table size
//! whose warning depends on the instance), a graph built with no warning,
//! no sub-control applied, no `return`, no action or table added. The
//! inlining budget is charged for every statement the walk would have
//! copied; a copy that would exhaust it walks instead (for the error at
//! the statement that does). Nothing is kept or copied while a lowering
//! is recorded for reuse (see [`crate::reuse`]).

use std::rc::Rc;

use p4cost_ir as ir;
use p4cost_syntax::ast::{ControlDecl, LocalDecl};

use crate::control::{count_locals, ControlSyms, Flow};
use crate::effects::Canon;
use crate::lower::Cx;
use crate::HashMap;

/// What the building of a control's graph did besides adding nodes
/// (counted through the whole lowering; a template compares two counts).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Trace {
    /// Statements built (each a statement an instance's walk copies).
    pub stmts: usize,
    /// Warnings, sub-control applications, `return` statements and
    /// table sizes that depend on a constructor parameter.
    pub impure: usize,
}

/// What a control lowered on its own left for its instances to copy.
pub struct Template<'a> {
    /// Its symbols as control_syms left them (before its apply block
    /// declared variables).
    syms: ControlSyms<'a>,
    /// Its parameters' canonical names (other than themselves), sorted.
    roots: Vec<(String, String)>,
    /// How many top-level actions were lowered (the same number means
    /// the same ones: they are only added to).
    globals: usize,
    /// Its actions and tables: the first index and how many, in the
    /// order of their declarations.
    actions: (usize, usize),
    tables: (usize, usize),
    /// The control its apply block was lowered into and how many
    /// statements its walk built, when that walk did nothing else.
    graph: Option<(ir::ControlId, usize)>,
}

/// The program's counts a template's lowering is checked against.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Before {
    trace: Trace,
    actions: usize,
    tables: usize,
    globals: usize,
}

/// The key of control declaration `decl`'s template.
fn key(decl: &ControlDecl) -> usize {
    decl as *const ControlDecl as usize
}

impl<'a> Cx<'a, '_> {
    /// The counts before a control's own lowering adds its symbols, and
    /// again before it builds its graph.
    pub fn template_start(&self) -> Before {
        Before {
            trace: self.trace,
            actions: self.program.actions.len(),
            tables: self.program.tables.len(),
            globals: self.global_actions.len(),
        }
    }

    /// The template of control `decl` whose own lowering added `syms`
    /// between `b` and `mid`, when that did nothing else: each action and
    /// table of the declaration added once, in order, and nothing more.
    pub fn template_syms(
        &self,
        decl: &'a ControlDecl,
        syms: &ControlSyms<'a>,
        b: Before,
        mid: Before,
    ) -> Option<Template<'a>> {
        let actions = count_locals(decl, |l| matches!(l, LocalDecl::Action(_)));
        let tables = count_locals(decl, |l| matches!(l, LocalDecl::Table(_)));
        let pure = self.rec.is_none()
            && syms.owner == key(decl)
            && syms.shift.moves_nothing()
            && mid.trace.impure == b.trace.impure
            && mid.globals == b.globals
            && mid.actions == b.actions + actions
            && mid.tables == b.tables + tables;
        pure.then(|| Template {
            syms: syms.clone(),
            roots: syms.canon.renamed(),
            globals: b.globals,
            actions: (b.actions, actions),
            tables: (b.tables, tables),
            graph: None,
        })
    }

    /// Keeps template `t` of control `decl`, its graph too (lowered into
    /// `control`) when building it since `mid` did nothing else.
    pub fn template_keep(
        &mut self,
        decl: &'a ControlDecl,
        mut t: Template<'a>,
        control: ir::ControlId,
        mid: Before,
    ) {
        let pure = self.trace.impure == mid.trace.impure
            && self.program.actions.len() == mid.actions
            && self.program.tables.len() == mid.tables;
        if pure {
            t.graph = Some((control, self.trace.stmts - mid.trace.stmts));
        }
        self.templates.insert(key(decl), t);
    }

    /// The symbols of a new instance of control `decl` with `canon` and
    /// `values`, its actions and tables copied from its template, when it
    /// has one made in the same context; with how the ids moved.
    pub fn template_syms_copy(
        &mut self,
        decl: &'a ControlDecl,
        canon: &Rc<Canon>,
        values: &HashMap<String, i128>,
    ) -> Option<(ControlSyms<'a>, Shift)> {
        if self.rec.is_some() {
            return None;
        }
        let t = self.templates.get(&key(decl))?;
        if t.globals != self.global_actions.len()
            || t.syms.locals.ctor_values != *values
            || canon.renamed() != t.roots
        {
            return None;
        }
        let shift = Shift {
            actions: (t.actions.0, t.actions.1, self.program.actions.len()),
            tables: (t.tables.0, t.tables.1, self.program.tables.len()),
        };
        let p = &mut self.program;
        for i in t.actions.0..t.actions.0 + t.actions.1 {
            let copy = p.actions.get(i)?.clone();
            p.actions.push(copy);
        }
        for i in t.tables.0..t.tables.0 + t.tables.1 {
            let mut copy = p.tables.get(i)?.clone();
            copy.control = None;
            for a in &mut copy.actions {
                *a = shift.action(*a);
            }
            copy.default_action = copy.default_action.map(|a| shift.action(a));
            p.tables.push(copy);
        }
        // The template's maps, their ids moved: a template's symbols
        // have none moved (it was lowered, not copied).
        let syms = ControlSyms {
            locals: t.syms.locals.clone(),
            tables: Rc::clone(&t.syms.tables),
            actions: Rc::clone(&t.syms.actions),
            shift,
            instances: Rc::clone(&t.syms.instances),
            inst_decls: Rc::clone(&t.syms.inst_decls),
            canon: Rc::clone(canon),
            owner: t.syms.owner,
        };
        Some((syms, shift))
    }

    /// The entry of a copy of control `decl`'s kept graph, for an instance
    /// whose symbols were copied with `shift`, continuing at `next`,
    /// appended to `b`; `None` when there is no such graph or the copy
    /// would exhaust the inlining budget (then the caller walks the apply
    /// block).
    pub fn template_copy(
        &mut self,
        decl: &'a ControlDecl,
        shift: &Shift,
        next: Option<ir::NodeId>,
        b: &mut Flow,
    ) -> Option<Option<ir::NodeId>> {
        if self.rec.is_some() {
            return None;
        }
        let (control, stmts) = self.templates.get(&key(decl))?.graph?;
        let budget = self.inlined.used.checked_add(stmts)?;
        if budget > self.inlined.limit {
            return None;
        }
        let graph = &self.program.controls.get(control.index())?.flow;
        let off = u32::try_from(b.nodes.len()).ok()?;
        let at = |n: Option<ir::NodeId>| n.map_or(next, |n| Some(ir::NodeId(n.0 + off)));
        b.expect(graph.nodes.len());
        let start = b.nodes.len();
        for n in &graph.nodes {
            let kind = n
                .kind
                .map_ids(&at, &|t| shift.table(t), &|a| shift.action(a));
            b.nodes.push(ir::Node { kind, span: n.span });
        }
        let entry = at(graph.entry);
        self.inlined.used = budget;
        // As the walk records them: table by table, in the order of
        // their nodes.
        for n in &b.nodes[start..] {
            if let ir::NodeKind::Table { table, .. } = &n.kind {
                crate::naming::record_apply(self, *table);
            }
        }
        Some(entry)
    }
}

/// Where an instance's copies of its template's actions and tables are:
/// for each, (the template's first index, how many, the copy's first).
/// The default moves nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Shift {
    actions: (usize, usize, usize),
    tables: (usize, usize, usize),
}

/// Index `i` moved from the range at `from` (of `len`) to `to`.
fn moved(i: u32, (from, len, to): (usize, usize, usize)) -> u32 {
    let i = i as usize;
    if i >= from && i < from + len {
        (i - from + to) as u32
    } else {
        i as u32
    }
}

impl Shift {
    /// True for the shift of symbols that were lowered, not copied.
    pub fn moves_nothing(&self) -> bool {
        self.actions.1 == 0 && self.tables.1 == 0
    }

    /// Table `t` as the instance has it.
    pub fn table(&self, t: ir::TableId) -> ir::TableId {
        ir::TableId(moved(t.0, self.tables))
    }

    /// A control-local action is the instance's; a top-level one stays.
    pub fn action(&self, a: ir::ActionId) -> ir::ActionId {
        ir::ActionId(moved(a.0, self.actions))
    }
}
