//! Lowering controls: actions with read/write sets, tables, and the apply
//! block as a control-flow graph. Sub-controls applied from a control are
//! inlined into its graph, so their tables count where they run.

use std::borrow::Cow;
use std::rc::Rc;

use crate::HashMap;

use p4cost_ir as ir;
use p4cost_syntax::ast::{
    self, ActionDecl, AnnotationBody, AssignStmt, ControlDecl, Expr, ExprKind, IfStmt, LocalDecl,
    Stmt, StmtKind, SwitchLabel, TableDecl, TablePropertyKind, UnaryOp,
};

use crate::effects::{self, Canon};
use crate::lower::{expr_width, Cx, Locals};
use crate::names::{has_arithmetic, reads, NameList};
use crate::scope::expr_name;
use crate::FrontError;

/// What a lowered control declaration defines. The maps are shared (a
/// copy from the cache costs no allocation): they are complete once the
/// declaration is lowered, and only `locals` changes after that.
#[derive(Clone, Default)]
pub struct ControlSyms<'a> {
    pub locals: Locals<'a>,
    /// The control's tables and actions by name, with ids to move by
    /// `shift` (see [`ControlSyms::table`]): an instance copied from a
    /// template shares its template's maps.
    pub tables: Rc<HashMap<&'a str, ir::TableId>>,
    pub actions: Rc<HashMap<&'a str, ir::ActionId>>,
    /// How the ids of `tables` and `actions` move for these symbols (none
    /// but for an instance copied from a template).
    pub shift: crate::template::Shift,
    /// Local instance name -> instantiated type name.
    pub instances: Rc<HashMap<&'a str, String>>,
    /// Local instance name -> its declaration.
    pub inst_decls: Rc<HashMap<&'a str, &'a ast::Instantiation>>,
    /// Canonical naming of the control's parameters (shared by the
    /// copies of the symbols: an instance's cache entry and its walk).
    pub canon: Rc<Canon>,
    /// The control declaration these are the symbols of (its address;
    /// 0 for none): part of a [`MemoKey`].
    pub owner: usize,
}

/// Everything the lowering of an action (or the keys, attached resources
/// and annotations of a table) depends on beyond the syntax tree: two
/// lowerings with equal keys push equal actions (tables alike but for
/// their actions and size).
#[derive(PartialEq, Eq, Hash)]
pub struct MemoKey {
    /// The action or table declaration (its address in the syntax tree).
    decl: usize,
    /// The control whose symbols (instances, constants, actions) it sees.
    owner: usize,
    /// The renamed parameters of the control (other than to themselves),
    /// sorted.
    roots: Vec<(String, String)>,
    /// The action's parameters bound to the caller's fields, sorted.
    bound: Vec<String>,
    /// How many top-level actions were lowered: a call of one not yet
    /// lowered inlines nothing.
    globals: usize,
}

impl ControlSyms<'_> {
    /// The control's table named `name`.
    pub fn table(&self, name: &str) -> Option<ir::TableId> {
        self.tables.get(name).map(|t| self.shift.table(*t))
    }

    /// The control's action named `name`.
    pub fn action(&self, name: &str) -> Option<ir::ActionId> {
        self.actions.get(name).map(|a| self.shift.action(*a))
    }

    /// The control's tables, in no particular order.
    fn table_ids(&self) -> impl Iterator<Item = ir::TableId> + '_ {
        self.tables.values().map(|t| self.shift.table(*t))
    }
}

impl MemoKey {
    fn new(decl: usize, syms: &ControlSyms<'_>, bound: &[&str], globals: usize) -> Self {
        let roots = syms.canon.renamed();
        let mut bound: Vec<String> = bound.iter().map(|b| b.to_string()).collect();
        bound.sort_unstable();
        MemoKey {
            decl,
            owner: syms.owner,
            roots,
            bound,
            globals,
        }
    }
}

/// A table's keys, (implementation, attached resources) and annotations:
/// what another instance of its control may copy.
type TableParts = (
    Vec<ir::TableKey>,
    (Option<String>, Vec<String>),
    Vec<ir::Annotation>,
);

/// The constructor parameter values a control is lowered with.
struct CtorValues {
    values: HashMap<String, i128>,
    /// See [`Locals::declaration_only`].
    declaration_only: bool,
}

/// Lowers annotations to IR annotations.
pub fn annotations(cx: &Cx<'_, '_>, anns: &[ast::Annotation]) -> Vec<ir::Annotation> {
    anns.iter()
        .map(|a| ir::Annotation {
            name: a.name.name.as_str().to_owned(),
            body: match &a.body {
                AnnotationBody::Empty => String::new(),
                AnnotationBody::Unstructured(r) | AnnotationBody::Pragma(r) => r.text.clone(),
                AnnotationBody::Expressions(_) | AnnotationBody::KeyValues(_) => {
                    let t = cx.text(a.span);
                    t.split_once('[')
                        .map(|(_, b)| b.trim_end_matches(']').to_string())
                        .unwrap_or_default()
                }
            },
            span: cx.spans.ir(a.span),
        })
        .collect()
}

/// The type name of an instantiation (`Register` for
/// `Register<bit<32>, _>(1024) r;`).
fn type_name(t: &ast::Type) -> String {
    crate::scope::type_base_name(t)
        .unwrap_or_default()
        .to_string()
}

impl<'a, 'o> Cx<'a, 'o> {
    /// Lowers (once) the symbols of a control declaration.
    pub fn control_syms(&mut self, decl: &'a ControlDecl) -> Result<ControlSyms<'a>, FrontError> {
        let canon = effects::control_headers_param(&self.g, &decl.params);
        // A top-level control's constructor arguments (in the package
        // instantiation) are not followed: its parameters get their defaults.
        let no = HashMap::default();
        let values = crate::ctor::values(&self.g, &decl.ctor_params, &[], &no, &HashMap::default());
        let values = CtorValues {
            values,
            declaration_only: self.declared.contains(decl.name.name.as_str()),
        };
        self.control_syms_in(
            decl,
            decl.name.name.as_str().to_owned(),
            self.shared_canon(canon),
            values,
        )
    }

    /// Lowers (once per `key`) the symbols of a control declaration with
    /// its parameters named by `canon`. A sub-control instance has its
    /// own key, so each instance has its own tables and actions, reading
    /// and writing its caller's arguments, as the compiler makes them,
    /// and its constructor parameters have the instance's `values`.
    fn control_syms_in(
        &mut self,
        decl: &'a ControlDecl,
        key: String,
        canon: Rc<Canon>,
        values: CtorValues,
    ) -> Result<ControlSyms<'a>, FrontError> {
        if let Some(r) = &mut self.rec {
            r.read_control(&decl.name.name);
        }
        if let Some(s) = self.control_cache.get(&key) {
            return Ok(s.clone());
        }
        self.note_values(decl, &values);
        let mut syms = declared_syms(decl, canon, &self.no_locals);
        syms.locals.ctor_bound = crate::ctor::bound_in(&self.ctor, &decl.name.name);
        syms.locals.ctor_values = values.values;
        syms.locals.declaration_only = values.declaration_only;
        for l in &decl.locals {
            if let LocalDecl::Action(a) = l {
                let id = self.lower_action(a, &syms, &decl.name.name)?;
                Rc::make_mut(&mut syms.actions).insert(a.name.name.as_str(), id);
            }
        }
        for l in &decl.locals {
            if let LocalDecl::Table(t) = l {
                let id = self.lower_table(t, &mut syms)?;
                Rc::make_mut(&mut syms.tables).insert(t.name.name.as_str(), id);
            }
        }
        self.control_cache.insert(key, syms.clone());
        Ok(syms)
    }

    /// Records the constructor values of an instance of `decl` lowered
    /// for a pipeline (the `instance_values` of [`Cx`]).
    fn note_values(&mut self, decl: &'a ControlDecl, values: &CtorValues) {
        if values.declaration_only {
            return;
        }
        let name = decl.name.name.as_str();
        match self.instance_values.get_mut(name) {
            Some(seen) if seen.contains(&values.values) => {}
            Some(seen) => seen.push(values.values.clone()),
            None => {
                let first = vec![values.values.clone()];
                self.instance_values.insert(name.to_owned(), first);
            }
        }
        if let Some(r) = &mut self.rec {
            r.values
                .push((decl.name.name.as_str().to_owned(), values.values.clone()));
        }
    }

    /// The action named `name` in the control, else the global one
    /// (lowered on first use).
    fn resolve_action(
        &mut self,
        name: &str,
        syms: &mut ControlSyms<'a>,
    ) -> Result<Option<ir::ActionId>, FrontError> {
        if let Some(id) = syms.action(name) {
            return Ok(Some(id));
        }
        self.resolve_global_action(name)
    }

    /// The top-level action named `name` (lowered on first use).
    fn resolve_global_action(&mut self, name: &str) -> Result<Option<ir::ActionId>, FrontError> {
        if let Some(id) = self.global_actions.get(name) {
            return Ok(Some(*id));
        }
        let Some(decl) = self.g.actions.get(name).copied() else {
            return Ok(None);
        };
        let empty = ControlSyms::default();
        let id = self.lower_action(decl, &empty, "")?;
        self.global_actions.insert(decl.name.name.as_str(), id);
        Ok(Some(id))
    }

    /// A direct call of a top-level action with directional parameters
    /// (`add_bridged_md(hdr.bridged_md, local_md)`): p4c inlines the call
    /// with the arguments for the parameters (`frontends/p4/inlining.cpp`),
    /// so the copy lowered here reads and writes the caller's fields
    /// (`hdr.bridged_md.src`) rather than the parameter's name. `None` for
    /// an action of the control, a call with named arguments, or one whose
    /// directional arguments are no places.
    fn bind_global_action(
        &mut self,
        name: &str,
        args: &[ast::Argument],
        syms: &ControlSyms<'a>,
    ) -> Result<Option<ir::ActionId>, FrontError> {
        if syms.action(name).is_some() || args.iter().any(|a| a.name.is_some()) {
            return Ok(None);
        }
        let Some(decl) = self.g.actions.get(name).copied() else {
            return Ok(None);
        };
        let mut roots = HashMap::default();
        for (p, a) in decl.params.iter().zip(args) {
            if p.direction != ast::Direction::None && crate::names::is_place(&a.value) {
                roots.insert(
                    p.name.name.as_str().to_owned(),
                    syms.canon.name(expr_name(&a.value)),
                );
            }
        }
        if roots.is_empty() {
            return Ok(None);
        }
        let bound: Vec<String> = roots.keys().cloned().collect();
        let bound: Vec<&str> = bound.iter().map(String::as_str).collect();
        let caller = ControlSyms {
            canon: Rc::new(Canon { roots }),
            ..ControlSyms::default()
        };
        self.lower_action_bound(decl, &caller, &bound).map(Some)
    }

    fn lower_action(
        &mut self,
        a: &'a ActionDecl,
        syms: &ControlSyms<'a>,
        _control: &str,
    ) -> Result<ir::ActionId, FrontError> {
        self.lower_action_bound(a, syms, &[])
    }

    /// Lowers action `a`; its parameters named in `bound` stand for the
    /// caller's fields (per `syms.canon`), not for action data.
    fn lower_action_bound(
        &mut self,
        a: &'a ActionDecl,
        syms: &ControlSyms<'a>,
        bound: &[&str],
    ) -> Result<ir::ActionId, FrontError> {
        // Not while a lowering is recorded for reuse: a copy reads no
        // places, and the record must name every declaration read.
        let key = self.rec.is_none().then(|| {
            MemoKey::new(
                a as *const ActionDecl as usize,
                syms,
                bound,
                self.global_actions.len(),
            )
        });
        if let Some(id) = key.as_ref().and_then(|k| self.action_memo.get(k)) {
            if let Some(done) = self.program.actions.get(id.index()) {
                let copy = done.clone();
                self.program.actions.push(copy);
                return Ok(ir::ActionId((self.program.actions.len() - 1) as u32));
            }
        }
        let id = self.lower_action_walked(a, syms, bound);
        if let Some(k) = key {
            self.action_memo.insert(k, id);
        }
        Ok(id)
    }

    /// [`Self::lower_action_bound`] by walking the action's body.
    fn lower_action_walked(
        &mut self,
        a: &'a ActionDecl,
        syms: &ControlSyms<'a>,
        bound: &[&str],
    ) -> ir::ActionId {
        // Action data: the directionless parameters, which the control
        // plane supplies; a directional one is bound where the action is
        // listed or called (`fib_hit(local_md)`), as the compiler's
        // context.json lists them.
        let params = a
            .params
            .iter()
            .filter(|p| p.direction == ast::Direction::None)
            .map(|p| ir::Param {
                name: p.name.name.as_str().to_owned(),
                width_bits: self
                    .g
                    .shape(&p.ty, 0)
                    .ok()
                    .and_then(|s| self.g.fixed_bits(&s))
                    .and_then(|b| u32::try_from(b).ok()),
            })
            .collect();
        let param_names: Vec<&str> = a
            .params
            .iter()
            .map(|p| p.name.name.as_str())
            .filter(|n| !bound.contains(n))
            .collect();
        let mut body = ActionBody {
            keep_copies: may_call(&a.body.stmts),
            ..ActionBody::default()
        };
        self.walk_action(&a.body.stmts, syms, &param_names, &mut body);
        self.program.actions.push(std::sync::Arc::new(ir::Action {
            name: a.name.name.as_str().to_owned(),
            params,
            reads: with_inlined(syms.canon.names(body.reads.into_vec()), body.inlined_reads),
            writes: with_inlined(
                syms.canon.names(body.writes.into_vec()),
                body.inlined_writes,
            ),
            primitives: body.primitives,
            externs: body.externs,
            validity: body
                .validity
                .into_iter()
                .map(|v| ir::ValiditySet {
                    header: syms.canon.name(v.header),
                    valid: v.valid,
                })
                .collect(),
            flags: body
                .flags
                .into_iter()
                .map(|f| ir::FlagSet {
                    field: syms.canon.name(f.field),
                    value: f.value,
                })
                .collect(),
            annotations: annotations(self, &a.annotations),
            span: self.spans.ir(a.span),
        }));
        ir::ActionId((self.program.actions.len() - 1) as u32)
    }

    /// The nodes that copy a `bool` argument `arg` into the flag `flag` of
    /// a sub-control instance before its body (`entry`): the constant when
    /// it is one, else a condition on `arg` (in the caller's scope) whose
    /// ways set the flag to 1 and to 0.
    fn copy_in(
        &mut self,
        flag: String,
        arg: &Expr,
        entry: Option<ir::NodeId>,
        call: ast::Span,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
    ) -> Option<ir::NodeId> {
        let span = self.spans.ir(arg.span);
        let set = |b: &mut Flow, value: bool| {
            b.push(
                ir::NodeKind::Statement {
                    what: format!("{flag} = {value} (argument)").into(),
                    reads: vec![].into(),
                    writes: vec![flag.clone()].into(),
                    externs: vec![].into(),
                    validity: vec![].into(),
                    flags: vec![ir::FlagSet {
                        field: flag.clone(),
                        value,
                    }]
                    .into(),
                    next: entry,
                },
                span,
            )
        };
        match self.const_flag(arg, syms) {
            Some(v) => Some(set(b, v)),
            None => {
                let t = set(b, true);
                let f = set(b, false);
                self.build_if(arg, Some(t), Some(f), call, syms, b)
            }
        }
    }

    /// The statement `target = rhs` (the flag it sets when `rhs` is the
    /// constant 0 or 1), after the tables `rhs` applies.
    fn assign_node(
        &mut self,
        target: String,
        rhs: &Expr,
        next: Option<ir::NodeId>,
        span: ir::Span,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
    ) -> Option<ir::NodeId> {
        let r = syms.canon.names(self.reads_of(rhs));
        let flags: Vec<ir::FlagSet> = self
            .const_flag(rhs, syms)
            .map(|value| ir::FlagSet {
                field: target.clone(),
                value,
            })
            .into_iter()
            .collect();
        let n = b.push(
            ir::NodeKind::Statement {
                what: "assign".into(),
                reads: r.into(),
                writes: vec![target.clone()].into(),
                externs: {
                    let mut x = self.extern_calls_in(rhs, syms);
                    effects::set_result(&mut x, &target);
                    x.into()
                },
                validity: vec![].into(),
                flags: flags.into(),
                next,
            },
            span,
        );
        self.applies_before(rhs, Some(n), syms, b)
    }

    /// The constant 0 or 1 (`false` / `true`) that `e` always is, if it
    /// is one: what an assignment of `e` leaves in a flag.
    fn const_flag(&self, e: &Expr, syms: &ControlSyms<'a>) -> Option<bool> {
        match self.g.eval(e, &syms.locals.consts)? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// Adds what the statements of an action body read, write and call
    /// to `out`; `params` are the action's data parameters (not state).
    fn walk_action(
        &self,
        stmts: &'a [Stmt],
        syms: &ControlSyms<'a>,
        params: &[&str],
        out: &mut ActionBody,
    ) {
        let skip = |n: &str| {
            params.contains(&n) || self.g.consts.contains_key(n) || syms.instances.contains_key(n)
        };
        for s in stmts {
            match &s.kind {
                StmtKind::Assign(a) => self.walk_assign(s, a, syms, &skip, out),
                StmtKind::Call(call) => self.walk_call(s, call, syms, &skip, out),
                StmtKind::If(i) => {
                    let IfStmt { cond, then, els } = &**i;
                    reads(cond, &skip, &mut out.reads);
                    out.externs.extend(self.extern_calls_in(cond, syms));
                    // What holds after the `if`: what both ways leave.
                    let before = (out.validity.clone(), out.flags.clone());
                    self.walk_action(std::slice::from_ref(then), syms, params, out);
                    let after_then = std::mem::replace(&mut out.validity, before.0);
                    let flags_then = std::mem::replace(&mut out.flags, before.1);
                    if let Some(e) = els {
                        self.walk_action(std::slice::from_ref(e), syms, params, out);
                    }
                    out.validity = ir::ValiditySet::common(&after_then, &out.validity);
                    out.flags = ir::FlagSet::common(&flags_then, &out.flags);
                }
                StmtKind::Block(b) => self.walk_action(&b.stmts, syms, params, out),
                StmtKind::Var(v) => {
                    if let Some(init) = &v.init {
                        let place = || syms.canon.name(v.name.name.as_str().to_owned());
                        self.read_into(init, place, syms, &skip, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// Adds what `rhs` reads to the body's reads, and its value to the
    /// place `place` gives (see [`Self::assigned_from`]). In a body that
    /// calls nothing (see [`may_call`]) `rhs` has no extern calls and no
    /// copy is kept: its reads go straight to the body's, and `place` is
    /// not named.
    fn read_into(
        &self,
        rhs: &Expr,
        place: impl FnOnce() -> String,
        syms: &ControlSyms<'a>,
        skip: &dyn Fn(&str) -> bool,
        out: &mut ActionBody,
    ) {
        if out.keep_copies {
            let from = self.reads_of(rhs);
            push_reads(&from, skip, &mut out.reads);
            self.assigned_from(rhs, place(), from, syms, out);
        } else {
            // What `push_reads` of `reads_of` adds, in one walk.
            reads(rhs, skip, &mut out.reads);
        }
    }

    /// The extern calls of `rhs`, whose result goes to `place`, and the
    /// copy of what `rhs` reads (`from`, its [`Cx::reads_of`]) into `place`.
    fn assigned_from(
        &self,
        rhs: &Expr,
        place: String,
        from: Vec<String>,
        syms: &ControlSyms<'a>,
        out: &mut ActionBody,
    ) {
        let mut x = self.extern_calls_in(rhs, syms);
        out.expand(&mut x);
        effects::set_result(&mut x, &place);
        out.externs.extend(x);
        out.copy(place, syms.canon.names(from));
    }

    /// `lhs = rhs;` in an action body.
    fn walk_assign(
        &self,
        s: &Stmt,
        a: &AssignStmt,
        syms: &ControlSyms<'a>,
        skip: &dyn Fn(&str) -> bool,
        out: &mut ActionBody,
    ) {
        let AssignStmt { lhs, rhs } = a;
        let w = expr_name(lhs);
        self.read_into(rhs, || syms.canon.name(w.clone()), syms, skip, out);
        ir::ValiditySet::clobber(&mut out.validity, &w);
        ir::FlagSet::clobber(&mut out.flags, &w);
        if let Some(v) = self.const_flag(rhs, syms) {
            ir::FlagSet::record(&mut out.flags, &w, v);
        }
        out.writes.push(w);
        out.primitives.push(ir::Primitive {
            op: if has_arithmetic(rhs) {
                "arith"
            } else {
                "assign"
            }
            .into(),
            span: self.spans.ir(s.span),
        });
    }

    /// A call statement in an action body: an extern method, a header
    /// method, a function or another action.
    fn walk_call(
        &self,
        s: &Stmt,
        call: &Expr,
        syms: &ControlSyms<'a>,
        skip: &dyn Fn(&str) -> bool,
        out: &mut ActionBody,
    ) {
        let ExprKind::Call { callee, args, .. } = &call.kind else {
            return;
        };
        for a in args {
            reads(&a.value, skip, &mut out.reads);
        }
        let mut x = self.extern_calls_in(call, syms);
        out.expand(&mut x);
        out.externs.extend(x);
        for w in self.out_args(callee, args, syms) {
            out.copies.remove(&syms.canon.name(w.clone()));
            ir::ValiditySet::clobber(&mut out.validity, &w);
            ir::FlagSet::clobber(&mut out.flags, &w);
            out.writes.push(w);
        }
        let span = self.spans.ir(s.span);
        let op = match &callee.kind {
            ExprKind::Member { base, member } => self.method_call(base, &member.name, syms, out),
            ExprKind::Path(p) => {
                out.externs
                    .extend(effects::function_call(&p.name.name, span));
                self.inline_called_action(&p.name.name, syms, out);
                p.name.name.as_str().to_owned()
            }
            _ => "call".into(),
        };
        out.primitives.push(ir::Primitive { op, span });
    }

    /// The primitive of `base.method(...)` in an action body
    /// (`Register.write`, `hdr.vlan.setValid`), recording the validity a
    /// header method sets and what it writes.
    fn method_call(
        &self,
        base: &Expr,
        method: &str,
        syms: &ControlSyms<'a>,
        out: &mut ActionBody,
    ) -> String {
        let inst = expr_name(base);
        let ext = syms.instances.get(inst.as_str()).cloned().or_else(|| {
            self.g
                .instances
                .get(inst.as_str())
                .map(|i| type_name(&i.ty))
        });
        if let Some(t) = ext {
            return format!("{t}.{method}");
        }
        match method {
            "setValid" | "setInvalid" => {
                ir::ValiditySet::record(&mut out.validity, &inst, method == "setValid");
                out.writes.push(format!("{inst}.$valid"))
            }
            "push_front" | "pop_front" => {
                ir::ValiditySet::clobber(&mut out.validity, &inst);
                out.writes.push(inst.clone())
            }
            _ => {}
        }
        format!("{inst}.{method}")
    }

    /// An action calling another action of the control (or a global one
    /// already lowered) does what the callee does: its reads, writes and
    /// extern calls become the caller's, as the compiler inlines it (p4c's
    /// `InlineActions` pass, frontends/p4/inlining.cpp) before the
    /// back end's dependency graph sees the tables.
    fn inline_called_action(&self, name: &str, syms: &ControlSyms<'a>, out: &mut ActionBody) {
        let Some(id) = syms.action(name).or_else(|| {
            // The callee's spans are copied: its place is read.
            if let Some(d) = self.g.actions.get(name) {
                self.spans.seen.touch(d.span.lo);
            }
            self.global_actions.get(name).copied()
        }) else {
            return;
        };
        let callee = self.program.action(id);
        let own = |n: &&String| {
            let root = n.split(['.', '[']).next().unwrap_or("");
            !callee.params.iter().any(|p| p.name == root)
        };
        out.inlined_reads
            .extend(callee.reads.iter().filter(own).cloned());
        out.inlined_writes
            .extend(callee.writes.iter().filter(own).cloned());
        out.externs.extend(callee.externs.iter().cloned());
    }

    /// The type of an extern instance visible in the control.
    fn instance_type(&self, name: &str, syms: &ControlSyms<'a>) -> Option<String> {
        syms.instances.get(name).cloned().or_else(|| {
            self.g
                .instances
                .get(name)
                .map(|i| type_name(&i.ty))
                .filter(|t| !t.is_empty())
        })
    }

    /// Extern method calls inside `e` (stateful ALUs, hashes, meters ...).
    fn extern_calls_in(&self, e: &Expr, syms: &ControlSyms<'a>) -> Vec<ir::ExternCall> {
        if calls_nothing(e) {
            return Vec::new();
        }
        let type_of = |n: &str| self.instance_type(n, syms);
        let divides_of = |n: &str| {
            syms.inst_decls
                .get(n)
                .copied()
                .or_else(|| self.g.instances.get(n).copied())
                .is_some_and(effects::initializer_divides)
        };
        let span = |s: ast::Span| self.spans.ir(s);
        let mut calls = effects::extern_calls(e, &type_of, &divides_of, &span);
        for c in &mut calls {
            c.index_reads = syms.canon.names(std::mem::take(&mut c.index_reads));
            c.result = c.result.take().map(|r| syms.canon.name(r));
        }
        calls
    }

    /// Places passed to `out`/`inout` parameters of a called function or
    /// extern method (what the call writes).
    fn out_args(
        &self,
        callee: &Expr,
        args: &[ast::Argument],
        syms: &ControlSyms<'a>,
    ) -> Vec<String> {
        let params: Option<&[ast::Param]> = match &callee.kind {
            ExprKind::Path(p) => self
                .g
                .functions
                .get(p.name.name.as_str())
                .map(|f| &f.params[..]),
            ExprKind::Member { base, member } => self
                .instance_type(&expr_name(base), syms)
                .and_then(|t| self.g.externs.get(t.as_str()).copied())
                .and_then(|x| {
                    x.methods.iter().find_map(|m| match m {
                        ast::Method::Method(f) if f.name.name == member.name => Some(&f.params[..]),
                        _ => None,
                    })
                }),
            _ => None,
        };
        let Some(params) = params else {
            return vec![];
        };
        args.iter()
            .zip(params)
            .filter(|(a, p)| {
                matches!(p.direction, ast::Direction::Out | ast::Direction::InOut)
                    && crate::names::is_place(&a.value)
            })
            .map(|(a, _)| expr_name(&a.value))
            .collect()
    }

    /// The structured form of a condition.
    fn cond_of(&self, e: &Expr, syms: &ControlSyms<'a>) -> ir::Cond {
        let text = |s: ast::Span| self.text(s);
        let table = |t: &Expr| {
            syms.table(expr_name(t).as_str())
                .and_then(|id| self.program.tables.get(id.index()))
                .map(|t| t.name.clone())
        };
        let cx = effects::CondCx {
            g: &self.g,
            consts: &syms.locals.consts,
            canon: &syms.canon,
            text: &text,
            table: &table,
        };
        effects::cond_of(&cx, e)
    }

    fn lower_table(
        &mut self,
        t: &'a TableDecl,
        syms: &mut ControlSyms<'a>,
    ) -> Result<ir::TableId, FrontError> {
        // As for actions: not while a lowering is recorded for reuse.
        let memo = self
            .rec
            .is_none()
            .then(|| MemoKey::new(t as *const TableDecl as usize, syms, &[], 0));
        let (keys, (implementation, attached), annotations) =
            self.table_parts(t, syms, memo.as_ref());
        let mut actions = self.table_actions(t, syms)?;
        let size = match t.custom("size").map(|p| &p.kind) {
            Some(TablePropertyKind::Custom { value, .. }) => self.table_size(t, value, syms)?,
            _ => None,
        };
        let default_action = self.table_default_action(t, &mut actions, syms)?;
        self.program.tables.push(ir::Table {
            name: t.name.name.as_str().to_owned(),
            control: None,
            keys,
            size,
            actions,
            default_action,
            default_action_const: t.properties.iter().any(|p| {
                p.is_const
                    && matches!(&p.kind, TablePropertyKind::Custom { name, .. } if name.name == "default_action")
            }),
            const_entries: t.entries().map_or(0, |e| e.len() as u64),
            implementation,
            attached,
            stages: vec![],
            annotations,
            span: self.spans.ir(t.span),
        });
        let id = ir::TableId((self.program.tables.len() - 1) as u32);
        if let Some(k) = memo {
            self.table_memo.entry(k).or_insert(id);
        }
        Ok(id)
    }

    /// A table's keys, attached resources and annotations: copied from the
    /// table an equal `memo` key lowered before, else lowered (each of them
    /// reads the program, never changes it).
    fn table_parts(
        &self,
        t: &'a TableDecl,
        syms: &ControlSyms<'a>,
        memo: Option<&MemoKey>,
    ) -> TableParts {
        let copied = memo
            .and_then(|k| self.table_memo.get(k))
            .and_then(|id| self.program.tables.get(id.index()));
        match copied {
            Some(d) => (
                d.keys.clone(),
                (d.implementation.clone(), d.attached.clone()),
                d.annotations.clone(),
            ),
            None => (
                self.table_keys(t, syms),
                self.table_attached(t),
                annotations(self, &t.annotations),
            ),
        }
    }

    /// A table's keys: their fields, widths and what they read.
    fn table_keys(&self, t: &'a TableDecl, syms: &ControlSyms<'a>) -> Vec<ir::TableKey> {
        t.key()
            .unwrap_or(&[])
            .iter()
            .map(|k| ir::TableKey {
                field: self.text(k.expr.span),
                width_bits: expr_width(&self.g, &syms.locals, &k.expr),
                match_kind: ir::MatchKind::from_name(&k.match_kind.name),
                reads: syms.canon.names(self.reads_of(&k.expr)),
                span: self.spans.ir(k.span),
            })
            .collect()
    }

    /// The actions a table lists; an error for one that is no action.
    fn table_actions(
        &mut self,
        t: &'a TableDecl,
        syms: &mut ControlSyms<'a>,
    ) -> Result<Vec<ir::ActionId>, FrontError> {
        let mut actions = Vec::new();
        for a in t.actions().unwrap_or(&[]) {
            match self.resolve_action(&a.name.name.name, syms)? {
                Some(id) => actions.push(id),
                None => {
                    return Err(self.err(
                        a.name.span,
                        format!(
                            "table `{}` lists unknown action `{}`",
                            t.name.name, a.name.name.name
                        ),
                    ))
                }
            }
        }
        Ok(actions)
    }

    /// A table's action profile or selector (its text), and the counters,
    /// meters and registers attached to it.
    fn table_attached(&self, t: &TableDecl) -> (Option<String>, Vec<String>) {
        let implementation = t.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Custom { name, value }
                if matches!(
                    name.name.as_str(),
                    "implementation" | "action_profile" | "action_selector"
                ) =>
            {
                Some(self.text(value.span))
            }
            _ => None,
        });
        let attached = t
            .properties
            .iter()
            .filter_map(|p| match &p.kind {
                TablePropertyKind::Custom { name, value }
                    if matches!(name.name.as_str(), "counters" | "meters" | "registers") =>
                {
                    Some(expr_name(value))
                }
                _ => None,
            })
            .collect();
        (implementation, attached)
    }

    /// A table's `size` property: its value, `None` when it depends on
    /// a constructor parameter (with a warning), an error when negative
    /// or not a compile-time constant.
    fn table_size(
        &mut self,
        t: &'a TableDecl,
        value: &Expr,
        syms: &ControlSyms<'a>,
    ) -> Result<Option<u64>, FrontError> {
        let values = &syms.locals.ctor_values;
        match self.g.eval_in(value, &syms.locals.consts, values) {
            Some(v) if v >= 0 => Ok(Some(v as u64)),
            // A constructor parameter is compile-time known but differs
            // per instance.
            None if self.mentions_var(value, &syms.locals) => {
                // What an instance warns depends on its context.
                self.trace.impure += 1;
                if !syms.locals.declaration_only {
                    let text = self.text(value.span);
                    self.warn(
                        value.span,
                        format!(
                            "table `{}`: size `{text}` depends on a constructor parameter; treated as unknown",
                            t.name.name
                        ),
                    );
                }
                Ok(None)
            }
            Some(v) => Err(self.err(
                value.span,
                format!("table `{}`: size {v} is negative", t.name.name),
            )),
            None => {
                let why = match self.g.first_unknown_name(value) {
                    Some(n) if !syms.locals.consts.contains_key(n.name.name.as_str()) => {
                        format!(": `{}` is not a declared constant", n.name.name)
                    }
                    _ => String::new(),
                };
                Err(self.err(
                    value.span,
                    format!(
                        "table `{}`: size `{}` is not a compile-time constant{why}",
                        t.name.name,
                        self.text(value.span)
                    ),
                ))
            }
        }
    }

    /// A table's default action: the one it declares, else core.p4's
    /// (global) NoAction, which p4c lists among its actions (added to
    /// `actions` here), so a source and its compiler output have the same
    /// actions (and a switch on action_run the same arms).
    fn table_default_action(
        &mut self,
        t: &'a TableDecl,
        actions: &mut Vec<ir::ActionId>,
        syms: &mut ControlSyms<'a>,
    ) -> Result<Option<ir::ActionId>, FrontError> {
        if let Some(ast::TableProperty {
            kind: TablePropertyKind::Custom { value, .. },
            ..
        }) = t.custom("default_action")
        {
            let name = match &value.kind {
                ExprKind::Call { callee, .. } => expr_name(callee),
                _ => expr_name(value),
            };
            let name = name.trim_start_matches('.').to_string();
            return self.resolve_action(&name, syms);
        }
        let implicit = self.resolve_global_action("NoAction")?;
        if let Some(a) = implicit.filter(|a| !actions.contains(a)) {
            actions.push(a);
        }
        Ok(implicit)
    }

    /// True when `e` names a parameter or variable in `locals`.
    fn mentions_var(&self, e: &Expr, locals: &Locals<'a>) -> bool {
        let mut names = NameList::default();
        reads(e, &|_| false, &mut names);
        let found = names.iter().any(|n| {
            let root = n.split(['.', '[']).next().unwrap_or(n);
            locals.vars.contains_key(root)
        });
        found
    }

    /// The constructor parameter values of the sub-control instance `name`
    /// of `decl`: its local instantiation's arguments (evaluated in the
    /// caller's scope), else a global instantiation's, else the defaults.
    fn instance_values(
        &self,
        decl: &'a ControlDecl,
        name: &str,
        syms: &ControlSyms<'a>,
    ) -> HashMap<String, i128> {
        let no = HashMap::default();
        let (args, consts, values) = match syms.inst_decls.get(name) {
            Some(i) => (&i.args[..], &*syms.locals.consts, &syms.locals.ctor_values),
            None => match self.g.instances.get(name) {
                Some(i) => (&i.args[..], &no, &HashMap::default()),
                None => (&[][..], &no, &HashMap::default()),
            },
        };
        crate::ctor::values(&self.g, &decl.ctor_params, args, consts, values)
    }

    /// Lowers a control declaration into an IR control.
    pub fn lower_control(&mut self, decl: &'a ControlDecl) -> Result<ir::ControlId, FrontError> {
        let start = self.template_start();
        let mut syms = self.control_syms(decl)?;
        let id = ir::ControlId(self.program.controls.len() as u32);
        for t in syms.table_ids() {
            if let Some(tab) = self.program.tables.get_mut(t.index()) {
                tab.control.get_or_insert(id);
            }
        }
        let mut b = Flow::default();
        let mut stack = vec![decl.name.name.as_str()];
        self.instance_path = vec![decl.name.name.as_str().to_owned()];
        let mid = self.template_start();
        let (entry, template) = match self.taken.remove(decl.name.name.as_str()) {
            Some(stmts) => (
                self.build_taken(decl, stmts, &mut syms, &mut b, &mut stack)?,
                None,
            ),
            None => {
                let template = self.template_syms(decl, &syms, start, mid);
                let entry =
                    self.build_seq(&decl.apply.stmts, None, &mut syms, &mut b, &mut stack)?;
                (entry, template)
            }
        };
        self.instance_path.clear();
        self.program.controls.push(ir::Control {
            name: decl.name.name.as_str().to_owned(),
            role: ir::ControlRole::Other,
            gress: ir::Gress::Unknown,
            flow: ir::ControlFlow {
                nodes: b.nodes,
                entry,
            },
            span: self.spans.ir(decl.span),
        });
        if let Some(t) = template {
            self.template_keep(decl, t, id, mid);
        }
        Ok(id)
    }

    /// The graph of the apply block of `decl` taken out of the tree (see
    /// [`crate::bodies`]), keeping its emit order for the deparsers.
    fn build_taken(
        &mut self,
        decl: &'a ControlDecl,
        stmts: Vec<Stmt>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        let locals = Locals::from_params(&decl.params);
        let mut order = Vec::new();
        crate::extras::emits(self, &locals, &stmts, &mut order);
        self.taken_emits
            .insert(decl.name.name.as_str().to_owned(), order);
        self.build_seq_owned(stmts, None, syms, b, stack)
    }

    fn build_seq(
        &mut self,
        stmts: &[Stmt],
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        let mut cur = next;
        b.expect(stmts.len());
        for s in stmts.iter().rev() {
            cur = self.build_stmt(s, cur, syms, b, stack)?;
        }
        Ok(cur)
    }

    /// [`Self::build_seq`] over statements it owns, each freed once
    /// lowered (nested blocks too): the syntax tree of a long apply block
    /// is not kept beside its graph.
    fn build_seq_owned(
        &mut self,
        mut stmts: Vec<Stmt>,
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        let mut cur = next;
        b.expect(stmts.len());
        while let Some(s) = stmts.pop() {
            cur = self.build_stmt_owned(s, cur, syms, b, stack)?;
            if stmts.len() < stmts.capacity() / 2 {
                stmts.shrink_to_fit();
            }
        }
        Ok(cur)
    }

    /// [`Self::build_stmt`] for a statement it owns: a block or `if` is
    /// lowered from its parts, each freed once lowered.
    fn build_stmt_owned(
        &mut self,
        s: Stmt,
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        match s.kind {
            StmtKind::Block(bl) => self.build_seq_owned(bl.stmts, next, syms, b, stack),
            StmtKind::If(i) => {
                let IfStmt { cond, then, els } = *i;
                if let Some(taken) = crate::ctor::constant_condition(&self.g, &cond, &syms.locals) {
                    // Only the branch taken is in the program.
                    return match (taken, els) {
                        (true, _) => self.build_stmt_owned(then, next, syms, b, stack),
                        (false, Some(e)) => self.build_stmt_owned(e, next, syms, b, stack),
                        (false, None) => Ok(next),
                    };
                }
                let then_id = self.build_stmt_owned(then, next, syms, b, stack)?;
                let else_id = match els {
                    Some(e) => self.build_stmt_owned(e, next, syms, b, stack)?,
                    None => next,
                };
                Ok(self.build_if(&cond, then_id, else_id, s.span, syms, b))
            }
            _ => self.build_stmt(&s, next, syms, b, stack),
        }
    }

    /// The nodes of `if (cond)` whose branches start at `then_id` and
    /// `else_id`: a table's hit/miss, or a condition.
    fn build_if(
        &mut self,
        cond: &Expr,
        then_id: Option<ir::NodeId>,
        else_id: Option<ir::NodeId>,
        stmt: ast::Span,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
    ) -> Option<ir::NodeId> {
        if let Some((table, hit)) = hit_miss(cond, syms) {
            crate::naming::record_apply(self, table);
            let (h, m) = if hit {
                (then_id, else_id)
            } else {
                (else_id, then_id)
            };
            Some(b.push(
                ir::NodeKind::Table {
                    table,
                    next: ir::TableNext::HitMiss { hit: h, miss: m },
                },
                self.spans.ir(stmt),
            ))
        } else {
            let structured = self.cond_of(cond, syms);
            let r = structured.reads();
            let c = b.push(
                ir::NodeKind::Condition {
                    expr: self.text(cond.span),
                    reads: r,
                    cond: structured,
                    then_next: then_id,
                    else_next: else_id,
                },
                self.spans.ir(cond.span),
            );
            self.applies_before(cond, Some(c), syms, b)
        }
    }

    fn build_stmt(
        &mut self,
        s: &Stmt,
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        self.trace.stmts += 1;
        if stack.len() > 1 {
            // Inside an applied sub-control: a copied statement.
            self.charge_inlined(1, s.span, "control", stack)?;
        }
        let span = self.spans.ir(s.span);
        Ok(match &s.kind {
            StmtKind::Block(bl) => self.build_seq(&bl.stmts, next, syms, b, stack)?,
            StmtKind::Exit => Some(b.push(ir::NodeKind::Exit, span)),
            // `return` leaves the control body it is in: the whole control
            // at the top level, an applied sub-control for its caller's
            // next statement.
            StmtKind::Return(_) => Some({
                self.trace.impure += 1;
                b.push(
                    ir::NodeKind::Statement {
                        what: "return".into(),
                        reads: vec![].into(),
                        writes: vec![].into(),
                        externs: vec![].into(),
                        validity: vec![].into(),
                        flags: vec![].into(),
                        next: self.return_to.last().copied().flatten(),
                    },
                    span,
                )
            }),
            StmtKind::If(i) => {
                let IfStmt { cond, then, els } = &**i;
                if let Some(taken) = crate::ctor::constant_condition(&self.g, cond, &syms.locals) {
                    // Only the branch taken is in the program.
                    return match (taken, els) {
                        (true, _) => self.build_stmt(then, next, syms, b, stack),
                        (false, Some(e)) => self.build_stmt(e, next, syms, b, stack),
                        (false, None) => Ok(next),
                    };
                }
                let then_id = self.build_stmt(then, next, syms, b, stack)?;
                let else_id = match els {
                    Some(e) => self.build_stmt(e, next, syms, b, stack)?,
                    None => next,
                };
                self.build_if(cond, then_id, else_id, s.span, syms, b)
            }
            StmtKind::Switch(sw) => {
                self.build_switch(&sw.expr, &sw.cases, next, syms, b, stack, span)?
            }
            StmtKind::Call(call) => self.build_call(call, next, syms, b, stack, span)?,
            StmtKind::Assign(a) => {
                let AssignStmt { lhs, rhs } = &**a;
                let w = syms.canon.name(expr_name(lhs));
                self.assign_node(w, rhs, next, span, syms, b)
            }
            StmtKind::Var(v) => match &v.init {
                Some(init) => {
                    Rc::make_mut(&mut syms.locals.vars).insert(
                        v.name.name.as_str().to_owned(),
                        std::borrow::Cow::Owned(v.ty.clone()),
                    );
                    self.assign_node(v.name.name.as_str().to_owned(), init, next, span, syms, b)
                }
                None => {
                    Rc::make_mut(&mut syms.locals.vars).insert(
                        v.name.name.as_str().to_owned(),
                        std::borrow::Cow::Owned(v.ty.clone()),
                    );
                    next
                }
            },
            StmtKind::For(f) => {
                self.warn(s.span, "loop in a control: its body is counted once");
                self.build_stmt(&f.body, next, syms, b, stack)?
            }
            StmtKind::ForIn(f) => {
                self.warn(s.span, "loop in a control: its body is counted once");
                self.build_stmt(&f.body, next, syms, b, stack)?
            }
            StmtKind::Const(_)
            | StmtKind::Instantiation(_)
            | StmtKind::Empty
            | StmtKind::Break
            | StmtKind::Continue => next,
        })
    }

    /// Table nodes for every `t.apply()` inside `e`, chained before `then`.
    fn applies_before(
        &mut self,
        e: &Expr,
        then: Option<ir::NodeId>,
        syms: &ControlSyms<'a>,
        b: &mut Flow,
    ) -> Option<ir::NodeId> {
        let mut found = Vec::new();
        table_applies(e, syms, &mut found);
        let mut cur = then;
        for (t, sp) in found.into_iter().rev() {
            crate::naming::record_apply(self, t);
            cur = Some(b.push(
                ir::NodeKind::Table {
                    table: t,
                    next: ir::TableNext::Always { next: cur },
                },
                self.spans.ir(sp),
            ));
        }
        cur
    }

    #[allow(clippy::too_many_arguments)]
    fn build_switch(
        &mut self,
        expr: &Expr,
        cases: &[ast::SwitchCase],
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
        span: ir::Span,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        // Bodies first (fall-through labels share the next body).
        let mut labelled: Vec<(&SwitchLabel, Option<ir::NodeId>)> = Vec::new();
        let mut pending: Vec<&SwitchLabel> = Vec::new();
        for c in cases {
            pending.push(&c.label);
            if let Some(body) = &c.body {
                let entry = self.build_seq(&body.stmts, next, syms, b, stack)?;
                for l in pending.drain(..) {
                    labelled.push((l, entry));
                }
            }
        }
        for l in pending.drain(..) {
            labelled.push((l, next));
        }
        if let Some(table) = action_run(expr, syms) {
            let mut arms = Vec::new();
            let mut default = next;
            for (l, entry) in labelled {
                match l {
                    SwitchLabel::Default => default = entry,
                    SwitchLabel::Expr(e) => {
                        let name = expr_name(e);
                        match self.resolve_action(name.trim_start_matches('.'), syms)? {
                            Some(a) => arms.push((a, entry)),
                            None => {
                                return Err(self.err(
                                    e.span,
                                    format!("switch label `{name}` is not an action"),
                                ));
                            }
                        }
                    }
                }
            }
            crate::naming::record_apply(self, table);
            return Ok(Some(b.push(
                ir::NodeKind::Table {
                    table,
                    next: ir::TableNext::ByAction { arms, default },
                },
                span,
            )));
        }
        // A switch on a value: a chain of comparisons.
        let r = syms.canon.names(self.reads_of(expr));
        let subject = self.text(expr.span);
        let mut cur = labelled
            .iter()
            .find(|(l, _)| matches!(l, SwitchLabel::Default))
            .map_or(next, |(_, e)| *e);
        for (l, entry) in labelled.iter().rev() {
            if let SwitchLabel::Expr(e) = l {
                let mut cond = self.cond_of(expr, syms);
                let lhs = cond.root().unwrap_or(0);
                let label = self.cond_of(e, syms);
                let off = cond.nodes.len() as u32;
                for n in label.nodes {
                    cond.push(shift(n, off));
                }
                let rhs = cond.root().unwrap_or(0);
                cond.push(ir::CondNode::Cmp {
                    cmp: ir::CmpOp::Eq,
                    lhs,
                    rhs,
                });
                cur = Some(b.push(
                    ir::NodeKind::Condition {
                        expr: format!("{subject} == {}", self.text(e.span)),
                        reads: r.clone(),
                        cond,
                        then_next: *entry,
                        else_next: cur,
                    },
                    span,
                ));
            }
        }
        Ok(self.applies_before(expr, cur, syms, b))
    }

    /// A call statement in an apply block: a table or sub-control
    /// `apply`, an action, or another call (extern, function, header
    /// method) as a statement node.
    fn build_call(
        &mut self,
        call: &Expr,
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
        span: ir::Span,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        let ExprKind::Call { callee, args, .. } = &call.kind else {
            return Ok(next);
        };
        if let ExprKind::Member { base, member } = &callee.kind {
            if member.name == "apply" {
                let name = expr_name(base);
                if let Some(t) = syms.table(name.as_str()) {
                    crate::naming::record_apply(self, t);
                    return Ok(Some(b.push(
                        ir::NodeKind::Table {
                            table: t,
                            next: ir::TableNext::Always { next },
                        },
                        span,
                    )));
                }
                if let Some(decl) = self.applied_control(&name, call.span, syms) {
                    let at = Applied {
                        call,
                        name: &name,
                        args,
                        next,
                    };
                    return self.inline_sub_control(decl, at, syms, b, stack);
                }
            }
        }
        if let ExprKind::Path(p) = &callee.kind {
            let bound = self.bind_global_action(&p.name.name, args, syms)?;
            if let Some(a) =
                bound.map_or_else(|| self.resolve_action(&p.name.name, syms), |a| Ok(Some(a)))?
            {
                return Ok(Some(b.push(ir::NodeKind::Action { action: a, next }, span)));
            }
        }
        Ok(self.call_statement(call, callee, args, next, syms, b, span))
    }

    /// The control declaration `name.apply()` inlines: a sub-control
    /// instance, or a control applied by its type name (direct
    /// invocation) when the name is not an instance. `None`, with a
    /// warning, when `name` is neither a table nor a control.
    fn applied_control(
        &mut self,
        name: &str,
        call: ast::Span,
        syms: &ControlSyms<'a>,
    ) -> Option<&'a ControlDecl> {
        let ty = syms
            .instances
            .get(name)
            .cloned()
            .or_else(|| self.g.instances.get(name).map(|i| type_name(&i.ty)))
            .or_else(|| syms.locals.ctor_bound.get(name).cloned())
            .or_else(|| {
                (!syms.locals.vars.contains_key(name) && self.g.controls.contains_key(name))
                    .then(|| name.to_string())
            });
        let decl = ty.as_deref().and_then(|t| self.g.controls.get(t).copied());
        if decl.is_none() {
            let what = match &ty {
                Some(t) => format!("`{name}` is an instance of `{t}`, not a table or control"),
                None if syms.locals.vars.contains_key(name) => format!(
                    "`{name}` is a parameter, and which control is passed in is not tracked"
                ),
                None => format!("`{name}` is not a table or control of this program"),
            };
            self.warn(
                call,
                format!("`{name}.apply()` is not followed: {what}; nothing it applies is counted"),
            );
        }
        decl
    }

    /// Inlines the apply block of sub-control `decl` applied at `at`, its
    /// parameters standing for the caller's arguments; the entry of the
    /// copy (after the copies-in of its `bool` arguments).
    fn inline_sub_control(
        &mut self,
        decl: &'a ControlDecl,
        at: Applied<'_>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        stack: &mut Vec<&'a str>,
    ) -> Result<Option<ir::NodeId>, FrontError> {
        let Applied {
            call,
            name,
            args,
            next,
        } = at;
        self.trace.impure += 1;
        self.check_inlinable(decl, call.span, stack)?;
        let (roots, copied_in) = self.bind_sub_control(decl, name, args, syms);
        let key = self.instance_key(name);
        self.charge_instance(decl, &key, call.span, stack)?;
        let values = CtorValues {
            values: self.instance_values(decl, name, syms),
            // Under a declaration's own lowering, as it is.
            declaration_only: syms.locals.declaration_only,
        };
        let canon = self.shared_canon(Canon { roots });
        let (mut sub, shift) = self.instance_syms(decl, key, canon, values)?;
        stack.push(decl.name.name.as_str());
        self.instance_path.push(name.to_string());
        self.return_to.push(next);
        let copied = shift.and_then(|s| self.template_copy(decl, &s, next, b));
        let entry = match copied {
            Some(entry) => Ok(entry),
            None => self.build_seq(&decl.apply.stmts, next, &mut sub, b, stack),
        };
        self.return_to.pop();
        self.instance_path.pop();
        let mut entry = entry?;
        stack.pop();
        for (flag, arg) in copied_in.into_iter().rev() {
            entry = self.copy_in(flag, arg, entry, call.span, syms, b);
        }
        Ok(entry)
    }

    /// The symbols of instance `key` of control `decl`: those it has, else
    /// copies of its template's (with how their ids moved) when it has
    /// one made in the same context, else lowered.
    fn instance_syms(
        &mut self,
        decl: &'a ControlDecl,
        key: String,
        canon: Rc<Canon>,
        values: CtorValues,
    ) -> Result<(ControlSyms<'a>, Option<crate::template::Shift>), FrontError> {
        if !self.control_cache.contains_key(&key) {
            if let Some((mut syms, shift)) = self.template_syms_copy(decl, &canon, &values.values) {
                self.note_values(decl, &values);
                syms.locals.declaration_only = values.declaration_only;
                self.control_cache.insert(key, syms.clone());
                return Ok((syms, Some(shift)));
            }
        }
        Ok((self.control_syms_in(decl, key, canon, values)?, None))
    }

    /// An error when control `decl` cannot be inlined at `call`: its
    /// body was freed, or it is being inlined already (`stack`).
    fn check_inlinable(
        &self,
        decl: &'a ControlDecl,
        call: ast::Span,
        stack: &[&str],
    ) -> Result<(), FrontError> {
        let ctl = decl.name.name.as_str();
        if self.taken.contains_key(ctl) || self.taken_emits.contains_key(ctl) {
            // `bodies` keeps the body of every control it sees
            // applied; this is a bug there, not in the input.
            return Err(self.err(
                call,
                format!("internal error: the apply block of control `{ctl}` was freed before this instance of it"),
            ));
        }
        if stack.iter().any(|s| *s == decl.name.name.as_str()) {
            return Err(self.err(call, format!("control `{ctl}` applies itself")));
        }
        Ok(())
    }

    /// The cache key of sub-control instance `name` applied from the
    /// control body being lowered: its instance path (`Ig.c0`), as
    /// `format!("{}.{name}", path.join("."))` spells it.
    fn instance_key(&self, name: &str) -> String {
        let path = &self.instance_path;
        let len = path.iter().map(|p| p.len() + 1).sum::<usize>() + name.len();
        let mut key = String::with_capacity(len.max(name.len() + 1));
        for (i, p) in path.iter().enumerate() {
            if i > 0 {
                key.push('.');
            }
            key.push_str(p);
        }
        key.push('.');
        key.push_str(name);
        key
    }

    /// Charges the inlining budget for the tables and actions a new
    /// instance (`key`) of control `decl` copies.
    fn charge_instance(
        &mut self,
        decl: &'a ControlDecl,
        key: &str,
        call: ast::Span,
        stack: &mut Vec<&'a str>,
    ) -> Result<(), FrontError> {
        if self.control_cache.contains_key(key) {
            return Ok(());
        }
        let copies = decl
            .locals
            .iter()
            .filter(|l| matches!(l, LocalDecl::Table(_) | LocalDecl::Action(_)))
            .count();
        stack.push(decl.name.name.as_str());
        let charged = self.charge_inlined(copies, call, "control", stack);
        stack.pop();
        charged
    }

    /// What the parameters of sub-control `decl`, applied as `name` with
    /// `args`, stand for: the caller's places (a constant argument keeps
    /// the parameter's name), and the flags of `bool` parameters bound to
    /// an expression or a constant, with that argument. The value is
    /// copied in at the call, so a flag of this instance holds it (set
    /// before the body), and tests of the parameter read the flag.
    #[allow(clippy::type_complexity)]
    fn bind_sub_control<'e>(
        &self,
        decl: &'a ControlDecl,
        name: &str,
        args: &'e [ast::Argument],
        syms: &ControlSyms<'a>,
    ) -> (HashMap<String, String>, Vec<(String, &'e Expr)>) {
        // Most parameters are not renamed (see below): no room reserved.
        let mut roots = HashMap::default();
        let mut copied_in: Vec<(String, &Expr)> = Vec::new();
        for (p, a) in decl.params.iter().zip(args.iter()) {
            if crate::names::is_place(&a.value) {
                // A parameter standing for a place of its own name (`hdr`
                // passed as `hdr`) is not renamed: a canon without it
                // names everything alike, and one with no roots at all
                // returns names as they are, with no copy.
                let to = syms.canon.name(expr_name(&a.value));
                if to != p.name.name.as_str() {
                    roots.insert(p.name.name.as_str().to_owned(), to);
                }
            } else if matches!(p.ty.kind, ast::TypeKind::Bool) {
                let flag = format!("{}.{name}.{}", self.instance_path.join("."), p.name.name);
                roots.insert(p.name.name.as_str().to_owned(), flag.clone());
                copied_in.push((flag, &a.value));
            }
        }
        (roots, copied_in)
    }

    /// The statement node of a call that applies nothing itself (an
    /// extern or header method, a function), after the tables its
    /// arguments apply.
    #[allow(clippy::too_many_arguments)]
    fn call_statement(
        &mut self,
        call: &Expr,
        callee: &Expr,
        args: &[ast::Argument],
        next: Option<ir::NodeId>,
        syms: &mut ControlSyms<'a>,
        b: &mut Flow,
        span: ir::Span,
    ) -> Option<ir::NodeId> {
        let mut r = NameList::default();
        for a in args {
            for x in self.reads_of(&a.value) {
                r.push(syms.canon.name(x));
            }
        }
        let r = r.into_vec();
        let mut w: Vec<String> = self
            .out_args(callee, args, syms)
            .into_iter()
            .map(|n| syms.canon.name(n))
            .collect();
        let mut validity = Vec::new();
        if let ExprKind::Member { base, member } = &callee.kind {
            if matches!(member.name.as_str(), "setValid" | "setInvalid")
                && crate::names::is_place(base)
            {
                let h = syms.canon.name(expr_name(base));
                w.push(format!("{h}.$valid"));
                ir::ValiditySet::record(&mut validity, &h, member.name == "setValid");
            }
        }
        let mut externs = self.extern_calls_in(call, syms);
        if let ExprKind::Path(p) = &callee.kind {
            externs.extend(effects::function_call(&p.name.name, span));
        }
        let n = b.push(
            ir::NodeKind::Statement {
                what: self.text_after("call ", callee.span).into(),
                reads: r.into(),
                writes: w.into(),
                externs: externs.into(),
                validity: validity.into(),
                flags: vec![].into(),
                next,
            },
            span,
        );
        let mut cur = Some(n);
        for a in args.iter().rev() {
            cur = self.applies_before(&a.value, cur, syms, b);
        }
        cur
    }
}

/// How many of `decl`'s local declarations `is` picks.
pub(crate) fn count_locals(decl: &ControlDecl, is: fn(&LocalDecl) -> bool) -> usize {
    decl.locals.iter().filter(|l| is(l)).count()
}

/// A map with room for `n` entries.
fn map_for<K: std::hash::Hash + Eq, V>(n: usize) -> HashMap<K, V> {
    let mut m = HashMap::default();
    m.reserve(n);
    m
}

/// Empty maps of constants and instances, shared by the symbols of every
/// control that declares none (most) rather than each allocating its own
/// (a shared map that changes is copied first).
#[derive(Default)]
pub struct NoLocals<'a> {
    consts: Rc<HashMap<&'a str, &'a Expr>>,
    instances: Rc<HashMap<&'a str, String>>,
    inst_decls: Rc<HashMap<&'a str, &'a ast::Instantiation>>,
}

/// `map` shared, or `empty` when it is empty.
fn shared<K, V>(map: HashMap<K, V>, empty: &Rc<HashMap<K, V>>) -> Rc<HashMap<K, V>> {
    if map.is_empty() {
        Rc::clone(empty)
    } else {
        Rc::new(map)
    }
}

/// The symbols `decl` declares before its actions and tables are lowered:
/// its parameters, constructor parameters, variables, constants and
/// instances, each map made once with room for all of its entries (and
/// for the actions and tables to come); `no` has the empty ones.
fn declared_syms<'a>(
    decl: &'a ControlDecl,
    canon: Rc<Canon>,
    no: &NoLocals<'a>,
) -> ControlSyms<'a> {
    let n = |is: fn(&LocalDecl) -> bool| count_locals(decl, is);
    let mut vars =
        map_for(decl.params.len() + decl.ctor_params.len() + n(|l| matches!(l, LocalDecl::Var(_))));
    let mut consts = map_for(n(|l| matches!(l, LocalDecl::Const(_))));
    let inst = n(|l| matches!(l, LocalDecl::Instantiation(_)));
    let (mut instances, mut inst_decls) = (map_for(inst), map_for(inst));
    for p in decl.params.iter().chain(&decl.ctor_params) {
        vars.insert(p.name.name.as_str().to_owned(), Cow::Borrowed(&p.ty));
    }
    for l in &decl.locals {
        match l {
            LocalDecl::Var(v) => {
                vars.insert(v.name.name.as_str().to_owned(), Cow::Borrowed(&v.ty));
            }
            LocalDecl::Const(c) => {
                consts.insert(c.name.name.as_str(), &c.value);
            }
            LocalDecl::Instantiation(i) => {
                instances.insert(i.name.name.as_str(), type_name(&i.ty));
                inst_decls.insert(i.name.name.as_str(), i);
            }
            _ => {}
        }
    }
    ControlSyms {
        // Every field named: `..Locals::default()` would make (and free)
        // two shared maps.
        locals: Locals {
            vars: Rc::new(vars),
            consts: shared(consts, &no.consts),
            ctor_bound: HashMap::default(),
            ctor_values: HashMap::default(),
            declaration_only: false,
        },
        tables: Rc::new(map_for(n(|l| matches!(l, LocalDecl::Table(_))))),
        actions: Rc::new(map_for(n(|l| matches!(l, LocalDecl::Action(_))))),
        instances: shared(instances, &no.instances),
        inst_decls: shared(inst_decls, &no.inst_decls),
        canon,
        owner: decl as *const ControlDecl as usize,
        shift: Default::default(),
    }
}

/// A sub-control application: `name.apply(args)` at `call`, followed by
/// `next`.
struct Applied<'e> {
    call: &'e Expr,
    name: &'e str,
    args: &'e [ast::Argument],
    next: Option<ir::NodeId>,
}

/// Adds the names of `from` (what [`Cx::reads_of`] gives) whose root
/// `skip` does not filter to `out`: what [`reads`] with `skip` adds, without
/// a second walk of the expression.
fn push_reads(from: &[String], skip: &dyn Fn(&str) -> bool, out: &mut NameList) {
    for n in from {
        let root = n.split(['.', '[']).next().unwrap_or(n);
        if !skip(root) {
            out.push(n.clone());
        }
    }
}

/// True when `e` is a place or a literal, or an operator applied to such
/// operands (`hdr.ipv4.ttl - 1`): an expression with no call in it, found
/// without collecting its subexpressions.
fn calls_nothing(e: &Expr) -> bool {
    let leaf = |x: &Expr| {
        crate::names::is_place(x) || matches!(x.kind, ExprKind::Int(_) | ExprKind::Bool(_))
    };
    match &e.kind {
        ExprKind::Binary { lhs, rhs, .. } => leaf(lhs) && leaf(rhs),
        ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => leaf(expr),
        _ => leaf(e),
    }
}

/// False when no statement of an action body (nested ones too) calls
/// anything: no call statement, and every right-hand side, initializer and
/// condition [`calls_nothing`] (so its extern calls are none).
fn may_call(stmts: &[Stmt]) -> bool {
    // Nested bodies still to look at (none in most actions: no allocation).
    let mut todo: Vec<&[Stmt]> = Vec::new();
    let mut cur = stmts;
    loop {
        for s in cur {
            match &s.kind {
                StmtKind::Call(_) => return true,
                StmtKind::Assign(a) if !calls_nothing(&a.rhs) => return true,
                StmtKind::Var(v) if v.init.as_ref().is_some_and(|i| !calls_nothing(i)) => {
                    return true
                }
                StmtKind::If(i) => {
                    if !calls_nothing(&i.cond) {
                        return true;
                    }
                    todo.push(std::slice::from_ref(&i.then));
                    todo.extend(i.els.as_ref().map(std::slice::from_ref));
                }
                StmtKind::Block(b) => todo.push(&b.stmts),
                _ => {}
            }
        }
        match todo.pop() {
            Some(next) => cur = next,
            None => return false,
        }
    }
}

/// `names` then those of `inlined` not among them.
fn with_inlined(mut names: Vec<String>, inlined: Vec<String>) -> Vec<String> {
    for n in inlined {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// What an action body does.
#[derive(Default)]
struct ActionBody {
    reads: NameList,
    writes: NameList,
    /// What actions it calls read and write (names already canonical).
    inlined_reads: Vec<String>,
    inlined_writes: Vec<String>,
    primitives: Vec<ir::Primitive>,
    externs: Vec<ir::ExternCall>,
    /// Headers set valid or invalid for certain so far (names as written).
    validity: Vec<ir::ValiditySet>,
    /// Fields set to 0 or 1 for certain so far (names as written).
    flags: Vec<ir::FlagSet>,
    /// Place (canonical) -> the places the value last assigned to it was
    /// read from, through earlier copies: what a register index held in a
    /// local (`idx = (f << 12) + o; t1.write(idx, ts)`) comes from.
    copies: HashMap<String, Vec<String>>,
    /// Whether `copies` is kept: only the index reads of extern calls
    /// look into it, and a body that calls nothing has none.
    keep_copies: bool,
}

impl ActionBody {
    /// The calls' index reads with what each was copied from.
    fn expand(&self, calls: &mut [ir::ExternCall]) {
        for c in calls {
            c.index_reads = self.through(&c.index_reads);
        }
    }

    /// `names` and what each was copied from, at most
    /// [`ir::MAX_INDEX_READS`] (a chain of copies `a = b; c = a; ...`
    /// would otherwise grow with the square of its length).
    fn through(&self, names: &[String]) -> Vec<String> {
        let mut out = NameList::default();
        for n in names {
            out.push(n.clone());
            for c in self.copies.get(n).into_iter().flatten() {
                out.push(c.clone());
            }
        }
        let mut v = out.into_vec();
        v.truncate(ir::MAX_INDEX_READS);
        v
    }

    /// Records that `place` now holds a value read from `from`.
    fn copy(&mut self, place: String, from: Vec<String>) {
        if !self.keep_copies {
            return;
        }
        // Most values are read from places no copy wrote, named once:
        // [`Self::through`] would give `from` back.
        let plain = from.len() <= ir::MAX_INDEX_READS
            && from
                .iter()
                .enumerate()
                .all(|(i, n)| !self.copies.contains_key(n) && !from[..i].contains(n));
        let from = if plain { from } else { self.through(&from) };
        self.copies.insert(place, from);
    }
}

/// A condition node with its operand indexes moved by `off` (appending
/// one condition's nodes after another's).
fn shift(n: ir::CondNode, off: u32) -> ir::CondNode {
    use ir::CondNode as C;
    match n {
        C::Slice { base, hi, lo } => C::Slice {
            base: base + off,
            hi,
            lo,
        },
        C::Not { arg } => C::Not { arg: arg + off },
        C::And { lhs, rhs } => C::And {
            lhs: lhs + off,
            rhs: rhs + off,
        },
        C::Or { lhs, rhs } => C::Or {
            lhs: lhs + off,
            rhs: rhs + off,
        },
        C::Cmp { cmp, lhs, rhs } => C::Cmp {
            cmp,
            lhs: lhs + off,
            rhs: rhs + off,
        },
        C::Other { text, args } => C::Other {
            text,
            args: args.into_iter().map(|a| a + off).collect(),
        },
        leaf => leaf,
    }
}

/// Nodes under construction.
#[derive(Default)]
pub(crate) struct Flow {
    pub(crate) nodes: Vec<ir::Node>,
}

impl Flow {
    fn push(&mut self, kind: ir::NodeKind, span: ir::Span) -> ir::NodeId {
        self.expect(1);
        self.nodes.push(ir::Node { kind, span });
        ir::NodeId((self.nodes.len() - 1) as u32)
    }

    /// Makes room for `more` nodes (about one per statement of a block
    /// about to be lowered). Grows by a quarter at least, not by doubling:
    /// the graph of a long apply block is most of the program's memory,
    /// and a doubled vector would leave up to half of it unused.
    pub(crate) fn expect(&mut self, more: usize) {
        let (len, cap) = (self.nodes.len(), self.nodes.capacity());
        let need = len.saturating_add(more);
        if need > cap {
            let grown = need.max(cap + cap / 4).max(8);
            self.nodes.reserve_exact(grown - len);
        }
    }
}

/// `t.apply()` where `t` is a table of the control.
fn applied_table(e: &Expr, syms: &ControlSyms<'_>) -> Option<ir::TableId> {
    if let ExprKind::Call { callee, .. } = &e.kind {
        if let ExprKind::Member { base, member } = &callee.kind {
            if member.name == "apply" {
                return syms.table(expr_name(base).as_str());
            }
        }
    }
    None
}

/// `t.apply().hit` (true) / `t.apply().miss` (false), possibly negated.
fn hit_miss(cond: &Expr, syms: &ControlSyms<'_>) -> Option<(ir::TableId, bool)> {
    match &cond.kind {
        ExprKind::Member { base, member } if matches!(member.name.as_str(), "hit" | "miss") => {
            applied_table(base, syms).map(|t| (t, member.name == "hit"))
        }
        ExprKind::Unary {
            op: UnaryOp::Not,
            expr,
        } => hit_miss(expr, syms).map(|(t, h)| (t, !h)),
        _ => None,
    }
}

/// `t.apply().action_run`.
fn action_run(e: &Expr, syms: &ControlSyms<'_>) -> Option<ir::TableId> {
    match &e.kind {
        ExprKind::Member { base, member } if member.name == "action_run" => {
            applied_table(base, syms)
        }
        _ => None,
    }
}

/// Every `t.apply()` inside an expression, in evaluation order.
fn table_applies(e: &Expr, syms: &ControlSyms<'_>, out: &mut Vec<(ir::TableId, ast::Span)>) {
    if let Some(t) = applied_table(e, syms) {
        out.push((t, e.span));
        return;
    }
    match &e.kind {
        ExprKind::Member { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::WidthSlice { base, .. } => table_applies(base, syms, out),
        ExprKind::Call { callee, args, .. } => {
            table_applies(callee, syms, out);
            for a in args {
                table_applies(&a.value, syms, out);
            }
        }
        ExprKind::Cast { expr, .. } | ExprKind::Unary { expr, .. } => {
            table_applies(expr, syms, out)
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            table_applies(lhs, syms, out);
            table_applies(rhs, syms, out);
        }
        ExprKind::Ternary { cond, then, els } => {
            table_applies(cond, syms, out);
            table_applies(then, syms, out);
            table_applies(els, syms, out);
        }
        _ => {}
    }
}
