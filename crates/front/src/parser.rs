//! Lowering parsers: states, what each extracts, skips and inspects, and
//! their transitions.

use crate::{HashMap, HashSet};

use p4cost_ir as ir;
use p4cost_syntax::ast::{
    self, AssignStmt, Expr, ExprKind, IfStmt, KeysetKind, LocalDecl, ParserDecl, Stmt, StmtKind,
    TransitionKind,
};

use crate::lower::{expr_width, resolve_access, Cx, Locals};
use crate::scope::{expr_name, Shape};
use crate::subparser::{sub_parser_call, Frame, Out, Renamer, SubCall};
use crate::FrontError;

/// Per-parser lowering state.
struct Px<'a> {
    locals: Locals<'a>,
    value_sets: HashSet<&'a str>,
    /// Local instantiations (`D() sub;`) by name.
    instances: HashMap<&'a str, &'a ast::Instantiation>,
    states: HashMap<&'a str, ir::StateId>,
    /// Where this copy's `accept` goes.
    accept: ir::Target,
    /// Names of this copy's scope -> names in the top-level parser's scope.
    rename: Renamer,
    /// The top-level parser's metadata parameters (see [`metadata_params`]).
    metadata_params: HashSet<String>,
    /// The top-level parser's headers parameter (see [`headers_param`]).
    headers_param: Option<String>,
}

/// Lowers one parser declaration and returns its id. Sub-parsers it
/// applies are inlined (see [`crate::subparser`]).
pub fn lower_parser<'a>(
    cx: &mut Cx<'a, '_>,
    decl: &'a ParserDecl,
    gress: ir::Gress,
) -> Result<ir::ParserId, FrontError> {
    let mut out = Out {
        stack: vec![decl.name.name.as_str().to_owned()],
        metadata_params: metadata_params(&decl.params),
        headers_param: headers_param(&decl.params),
        ..Out::default()
    };
    let start = lower_body(cx, decl, Frame::top(), &mut out)?;
    let mut states = Vec::with_capacity(out.states.len());
    for s in out.states {
        match s {
            Some(s) => states.push(s),
            None => {
                return Err(cx.err(
                    decl.span,
                    format!(
                        "internal error: a state of parser `{}` was not lowered",
                        decl.name.name
                    ),
                ))
            }
        }
    }
    cx.program.parsers.push(ir::Parser {
        name: decl.name.name.as_str().to_owned(),
        gress,
        states,
        start,
        span: cx.spans.ir(decl.span),
    });
    Ok(ir::ParserId((cx.program.parsers.len() - 1) as u32))
}

/// The parameters of a top-level parser that hold metadata: every one
/// after the headers parameter, which is the first parameter after the
/// `packet_in` (the layout of every architecture: TNA, T2NA, v1model, PSA,
/// PNA, eBPF, uBPF, XDP). A program header extracted into one of them is
/// not a packet header (`md.resubmit` on Tofino): the baseline rule of the
/// Tofino model treats it as metadata.
fn is_packet(p: &ast::Param) -> bool {
    match &p.ty.kind {
        ast::TypeKind::Name(path) => path.name.name == "packet_in",
        _ => false,
    }
}

/// The headers parameter of a top-level parser: the first after the
/// `packet_in`. Its extracts are named `hdr.<field>` whatever the program
/// calls it, as p4c's BMv2 JSON (which drops the name) is read
/// (ARCHITECTURE.md, "Names").
fn headers_param(params: &[ast::Param]) -> Option<String> {
    let i = params.iter().position(is_packet)?;
    params.get(i + 1).map(|p| p.name.name.as_str().to_owned())
}

fn metadata_params(params: &[ast::Param]) -> HashSet<String> {
    match params.iter().position(is_packet) {
        Some(i) => params
            .iter()
            .skip(i + 2)
            .map(|p| p.name.name.as_str().to_owned())
            .collect(),
        None => HashSet::default(),
    }
}

/// Lowers the states of `decl` into `out` (slots reserved in declaration
/// order) and returns the id of its start state.
fn lower_body<'a>(
    cx: &mut Cx<'a, '_>,
    decl: &'a ParserDecl,
    frame: Frame<'a>,
    out: &mut Out,
) -> Result<ir::StateId, FrontError> {
    let prefix = frame.prefix.clone();
    let mut px = parser_scope(cx, decl, frame, out);
    let base = out.states.len();
    let start = index_states(cx, decl, &mut px, base)?;
    out.states.extend(decl.states.iter().map(|_| None));
    for (i, s) in decl.states.iter().enumerate() {
        lower_state(cx, &mut px, out, &prefix, s, ir::StateId((base + i) as u32))?;
    }
    Ok(start)
}

/// The names in scope in (a copy of) parser `decl`: its parameters and
/// constructor parameters, locals, value sets and instances.
fn parser_scope<'a>(
    cx: &mut Cx<'a, '_>,
    decl: &'a ParserDecl,
    frame: Frame<'a>,
    out: &Out,
) -> Px<'a> {
    let mut px = Px {
        locals: Locals::from_params(&decl.params),
        value_sets: HashSet::default(),
        instances: HashMap::default(),
        states: HashMap::default(),
        accept: frame.accept,
        rename: frame.rename,
        metadata_params: out.metadata_params.clone(),
        headers_param: out.headers_param.clone(),
    };
    for (name, ty) in frame.param_types {
        std::rc::Rc::make_mut(&mut px.locals.vars).insert(name, ty);
    }
    for p in &decl.ctor_params {
        std::rc::Rc::make_mut(&mut px.locals.vars).insert(
            p.name.name.as_str().to_owned(),
            std::borrow::Cow::Borrowed(&p.ty),
        );
    }
    px.locals.ctor_bound = crate::ctor::bound_in(&cx.ctor, &decl.name.name);
    for (name, value) in frame.ctor_consts {
        std::rc::Rc::make_mut(&mut px.locals.consts).insert(name, value);
    }
    let prefix = frame.prefix;
    for l in &decl.locals {
        match l {
            LocalDecl::Var(v) => {
                std::rc::Rc::make_mut(&mut px.locals.vars).insert(
                    v.name.name.as_str().to_owned(),
                    std::borrow::Cow::Borrowed(&v.ty),
                );
                px.rename.local(&prefix, &v.name.name);
            }
            LocalDecl::Const(c) => {
                std::rc::Rc::make_mut(&mut px.locals.consts).insert(&c.name.name, &c.value);
            }
            LocalDecl::ValueSet(vs) => {
                px.value_sets.insert(&vs.name.name);
            }
            LocalDecl::Instantiation(i) => {
                px.instances.insert(&i.name.name, i);
                px.rename.local(&prefix, &i.name.name);
            }
            _ => {}
        }
    }
    px
}

/// Numbers the states of `decl` from `base` into `px.states`; the id of
/// its `start` state. An error for a state declared twice, one named
/// `accept` or `reject`, or no `start`.
fn index_states<'a>(
    cx: &Cx<'a, '_>,
    decl: &'a ParserDecl,
    px: &mut Px<'a>,
    base: usize,
) -> Result<ir::StateId, FrontError> {
    for (i, s) in decl.states.iter().enumerate() {
        if px
            .states
            .insert(&s.name.name, ir::StateId((base + i) as u32))
            .is_some()
        {
            return Err(cx.err(
                s.name.span,
                format!(
                    "state `{}` is declared twice in parser `{}`",
                    s.name.name, decl.name.name
                ),
            ));
        }
        if matches!(s.name.name.as_str(), "accept" | "reject") {
            return Err(cx.err(
                s.name.span,
                format!("`{}` is a reserved state name", s.name.name),
            ));
        }
    }
    match px.states.get("start") {
        Some(&start) => Ok(start),
        None => Err(cx.err(
            decl.name.span,
            format!("parser `{}` has no `start` state", decl.name.name),
        )),
    }
}

/// Lowers declared state `s` (numbered `id`) of a parser copy named by
/// `prefix` (empty at the top level).
fn lower_state<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    out: &mut Out,
    prefix: &str,
    s: &'a ast::ParserState,
    id: ir::StateId,
) -> Result<(), FrontError> {
    if !prefix.is_empty() {
        // A copy of a sub-parser: its states and statements count
        // against the program's inlining budget.
        cx.charge_inlined(1 + s.stmts.len(), s.span, "parser", &out.stack)?;
    }
    let ops = Vec::new();
    // Variables declared inside the state are in scope for its extracts
    // (a state without any keeps the parser's scope as it is).
    let saved = declares(&s.stmts).then(|| {
        let mut locals = px.locals.clone();
        collect_vars(&s.stmts, &mut locals);
        let saved = std::mem::replace(&mut px.locals, locals);
        (saved, px.rename.clone())
    });
    if !prefix.is_empty() && saved.is_some() {
        let mut names = Vec::new();
        state_var_names(&s.stmts, &mut names);
        for n in names {
            px.rename.local(prefix, n);
        }
    }
    let mut sc = StateCx {
        prefix,
        name: format!("{prefix}{}", s.name.name),
        annotations: crate::control::annotations(cx, &s.annotations),
        span: cx.spans.ir(s.span),
        splits: 0,
    };
    // The state being filled: the declared one, then after each
    // sub-parser call or split `if`, the state that resumes it.
    let mut open = Open {
        id,
        name: sc.name.clone(),
        ops,
    };
    let mut flat = Vec::new();
    flatten(&s.stmts, &mut flat);
    lower_stmts(cx, px, out, &mut sc, &flat, &mut open)?;
    let transition = match &s.transition {
        None => ir::Transition::Direct {
            target: ir::Target::Reject,
        },
        Some(t) => lower_transition(cx, px, t, &mut open.ops)?,
    };
    close(px, out, &sc, open, transition);
    if let Some((locals, rename)) = saved {
        px.locals = locals;
        px.rename = rename;
    }
    Ok(())
}

/// What the pieces of one declared state share.
struct StateCx<'s> {
    /// The copy's prefix (empty at the top level).
    prefix: &'s str,
    /// The state's name in the lowered parser (prefix included).
    name: String,
    annotations: Vec<ir::Annotation>,
    span: ir::Span,
    /// `if`s split so far (numbers the pieces' names).
    splits: usize,
}

/// A lowered state still being filled.
struct Open {
    id: ir::StateId,
    name: String,
    ops: Vec<ir::ParserOp>,
}

/// Fills the slot of `open` with its operations (named in the top-level
/// scope) and `transition`.
fn close(px: &mut Px<'_>, out: &mut Out, sc: &StateCx<'_>, open: Open, transition: ir::Transition) {
    let Open { id, name, mut ops } = open;
    let mut transition = transition;
    px.rename.transition(&mut transition);
    for op in &mut ops {
        px.rename.op(op);
    }
    out.set(
        id,
        ir::ParseState {
            name,
            ops,
            transition,
            annotations: sc.annotations.clone(),
            span: sc.span,
        },
    );
}

/// Lowers `stmts` into `open`, splitting it where the path forks or
/// enters another parser: at a sub-parser call (the state goes to the
/// copy's start, and the copy's `accept` to a new state that resumes
/// this one), and at an `if` whose branches extract, skip or apply a
/// sub-parser (the state ends in a select on the condition, as p4c's
/// midend makes it: `1` to the then branch, `default` to the else branch
/// or past the `if`; each branch is a state of its own, and both lead to a
/// new state that resumes this one). On return `open` is the state that
/// the statements after `stmts` fill.
fn lower_stmts<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    out: &mut Out,
    sc: &mut StateCx<'_>,
    stmts: &[&'a Stmt],
    open: &mut Open,
) -> Result<(), FrontError> {
    for &st in stmts {
        if let Some(call) = sub_parser_call(cx, &px.locals, &px.instances, st) {
            enter_sub_parser(cx, px, out, sc, st, &call, open)?;
            continue;
        }
        if let StmtKind::If(i) = &st.kind {
            if forks_path(cx, px, st) {
                fork_at_if(cx, px, out, sc, i, open)?;
                continue;
            }
        }
        lower_stmt(cx, px, st, &mut open.ops)?;
    }
    Ok(())
}

/// The sub-parser `call` (statement `st`): `open` goes to the copy's
/// start and becomes the state the copy's `accept` resumes this one in.
/// A parser applied inside itself is an error.
fn enter_sub_parser<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    out: &mut Out,
    sc: &mut StateCx<'_>,
    st: &'a Stmt,
    call: &SubCall<'a>,
    open: &mut Open,
) -> Result<(), FrontError> {
    let label = out.label(sc.prefix, &call.label);
    if out.stack.iter().any(|s| *s == call.decl.name.name) {
        let chain = out.stack.join("` -> `");
        let m = format!(
            "parser `{}` is applied inside itself (sub-parser calls `{chain}` -> `{}`)",
            call.decl.name.name, call.decl.name.name
        );
        return Err(cx.err(st.span, m));
    }
    let cont = out.reserve();
    let sub_frame = Frame::for_call(&cx.g, &px.locals, &px.rename, call, &label, cont);
    out.stack.push(call.decl.name.name.as_str().to_owned());
    let sub_start = lower_body(cx, call.decl, sub_frame, out)?;
    out.stack.pop();
    let short = label.strip_prefix(sc.prefix).unwrap_or(&label);
    let resumed = Open {
        id: cont,
        name: format!("{}.after_{short}", sc.name),
        ops: Vec::new(),
    };
    let done = std::mem::replace(open, resumed);
    let to_sub = ir::Transition::Direct {
        target: ir::Target::State(sub_start),
    };
    close(px, out, sc, done, to_sub);
    Ok(())
}

/// An `if` whose branches fork the path: `open` ends in a select on its
/// condition, each branch is lowered into a state of its own, and both
/// lead to the state that resumes this one, left in `open`.
fn fork_at_if<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    out: &mut Out,
    sc: &mut StateCx<'_>,
    i: &'a IfStmt,
    open: &mut Open,
) -> Result<(), FrontError> {
    let IfStmt { cond, then, els } = i;
    lookaheads(cx, px, cond, &mut open.ops);
    sc.splits += 1;
    let k = sc.splits;
    let then_id = out.reserve();
    let else_id = els.as_ref().map(|_| out.reserve());
    let after_id = out.reserve();
    let select = if_select(cx, cond, then_id, else_id.unwrap_or(after_id));
    let resumed = Open {
        id: after_id,
        name: format!("{}.after_if{k}", sc.name),
        ops: Vec::new(),
    };
    let done = std::mem::replace(open, resumed);
    close(px, out, sc, done, select);
    let branches = std::iter::once((then_id, "then", then))
        .chain(else_id.zip(els.as_ref()).map(|(id, e)| (id, "else", e)));
    for (id, what, body) in branches {
        let mut piece = Open {
            id,
            name: format!("{}.if{k}_{what}", sc.name),
            ops: Vec::new(),
        };
        let mut flat = Vec::new();
        flatten(std::slice::from_ref(body), &mut flat);
        lower_stmts(cx, px, out, sc, &flat, &mut piece)?;
        let to_after = ir::Transition::Direct {
            target: ir::Target::State(after_id),
        };
        close(px, out, sc, piece, to_after);
    }
    Ok(())
}

/// A select on `cond` as p4c's midend makes it of an `if`: `1` to
/// `then_id`, `default` to `else_id`.
fn if_select(
    cx: &Cx<'_, '_>,
    cond: &Expr,
    then_id: ir::StateId,
    else_id: ir::StateId,
) -> ir::Transition {
    let span = cx.spans.ir(cond.span);
    ir::Transition::Select {
        keys: vec![ir::SelectKey {
            expr: cx.text(cond.span).to_string(),
            width_bits: Some(1),
            field: None,
            span,
        }],
        cases: vec![
            ir::SelectCase {
                keysets: vec![ir::Keyset::Value {
                    value: "1".to_string(),
                }],
                target: ir::Target::State(then_id),
                span,
            },
            ir::SelectCase {
                keysets: vec![ir::Keyset::Default],
                target: ir::Target::State(else_id),
                span,
            },
        ],
    }
}

/// True when `st` (an `if`, through its branches, blocks and nested `if`s)
/// extracts, skips or applies a sub-parser: the parse path forks there.
fn forks_path<'a>(cx: &Cx<'a, '_>, px: &Px<'a>, st: &'a Stmt) -> bool {
    let mut stack: Vec<&Stmt> = vec![st];
    while let Some(s) = stack.pop() {
        match &s.kind {
            StmtKind::Block(b) => stack.extend(b.stmts.iter()),
            StmtKind::If(i) => {
                stack.push(&i.then);
                stack.extend(i.els.iter());
            }
            StmtKind::Call(call) => {
                let ExprKind::Call { callee, .. } = &call.kind else {
                    continue;
                };
                if matches!(&callee.kind, ExprKind::Member { member, .. }
                    if member.name == "extract" || member.name == "advance")
                    || sub_parser_call(cx, &px.locals, &px.instances, s).is_some()
                {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// The statements of a state with unconditional blocks flattened, so a
/// sub-parser call inside `{ ... }` still splits the state.
fn flatten<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a Stmt>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Block(b) => flatten(&b.stmts, out),
            _ => out.push(s),
        }
    }
}

/// Names of the variables and constants declared in a state.
fn state_var_names<'a>(stmts: &'a [Stmt], out: &mut Vec<&'a str>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Var(v) => out.push(&v.name.name),
            StmtKind::Block(b) => state_var_names(&b.stmts, out),
            _ => {}
        }
    }
}

/// True when `stmts` declare a variable or constant (in nested blocks
/// too): what [`collect_vars`] and [`state_var_names`] look for.
fn declares(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Var(_) | StmtKind::Const(_) => true,
        StmtKind::Block(b) => declares(&b.stmts),
        _ => false,
    })
}

fn collect_vars<'a>(stmts: &'a [Stmt], locals: &mut Locals<'a>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Var(v) => {
                std::rc::Rc::make_mut(&mut locals.vars).insert(
                    v.name.name.as_str().to_owned(),
                    std::borrow::Cow::Borrowed(&v.ty),
                );
            }
            StmtKind::Const(c) => {
                std::rc::Rc::make_mut(&mut locals.consts).insert(&c.name.name, &c.value);
            }
            StmtKind::Block(b) => collect_vars(&b.stmts, locals),
            _ => {}
        }
    }
}

/// Lowers one statement that does not fork the parse path (an `if` here
/// neither extracts, skips nor applies a sub-parser: [`lower_stmts`]
/// splits those).
fn lower_stmt<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    st: &'a Stmt,
    ops: &mut Vec<ir::ParserOp>,
) -> Result<(), FrontError> {
    match &st.kind {
        StmtKind::Call(call) => lower_call(cx, px, call, ops),
        StmtKind::Assign(a) => {
            let AssignStmt { lhs, rhs } = &**a;
            lookaheads(cx, px, rhs, ops);
            let r = cx.reads_of(rhs);
            let constant =
                cx.g.eval(rhs, &px.locals.consts)
                    .and_then(|v| u128::try_from(v).ok());
            ops.push(ir::ParserOp::Statement {
                what: "assign".into(),
                reads: r,
                writes: vec![canonical(px, expr_name(lhs))],
                constant,
                span: cx.spans.ir(st.span),
            });
            Ok(())
        }
        StmtKind::Var(v) => {
            if let Some(init) = &v.init {
                lookaheads(cx, px, init, ops);
                let r = cx.reads_of(init);
                ops.push(ir::ParserOp::Statement {
                    what: "assign".into(),
                    reads: r,
                    writes: vec![v.name.name.as_str().to_owned()],
                    constant: None,
                    span: cx.spans.ir(st.span),
                });
            }
            Ok(())
        }
        StmtKind::Block(b) => {
            for s in &b.stmts {
                lower_stmt(cx, px, s, ops)?;
            }
            Ok(())
        }
        StmtKind::If(i) => {
            let IfStmt { cond, then, els } = &**i;
            let r = cx.reads_of(cond);
            ops.push(ir::ParserOp::Statement {
                what: "if".into(),
                reads: r,
                writes: vec![],
                constant: None,
                span: cx.spans.ir(cond.span),
            });
            lower_stmt(cx, px, then, ops)?;
            if let Some(e) = els {
                lower_stmt(cx, px, e, ops)?;
            }
            Ok(())
        }
        StmtKind::Const(_) | StmtKind::Empty => Ok(()),
        StmtKind::Instantiation(_) => Ok(()),
        _ => {
            ops.push(ir::ParserOp::Statement {
                what: cx.text(st.span).into(),
                reads: vec![],
                writes: vec![],
                constant: None,
                span: cx.spans.ir(st.span),
            });
            Ok(())
        }
    }
}

/// Adds a [`ir::ParserOp::Lookahead`] for every `lookahead` call inside `e`.
fn lookaheads<'a>(cx: &mut Cx<'a, '_>, px: &Px<'a>, e: &'a Expr, ops: &mut Vec<ir::ParserOp>) {
    let _ = px;
    match &e.kind {
        ExprKind::Call {
            callee,
            type_args,
            args,
        } => {
            if let ExprKind::Member { member, .. } = &callee.kind {
                if member.name == "lookahead" {
                    let bits = type_args
                        .first()
                        .and_then(|t| cx.g.shape(t, 0).ok())
                        .and_then(|s| cx.g.fixed_bits(&s));
                    ops.push(ir::ParserOp::Lookahead {
                        bits,
                        span: cx.spans.ir(e.span),
                    });
                }
            }
            for a in args {
                lookaheads(cx, px, &a.value, ops);
            }
        }
        ExprKind::Member { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::WidthSlice { base, .. }
        | ExprKind::Index { base, .. } => lookaheads(cx, px, base, ops),
        ExprKind::Cast { expr, .. } | ExprKind::Unary { expr, .. } => lookaheads(cx, px, expr, ops),
        ExprKind::Binary { lhs, rhs, .. } => {
            lookaheads(cx, px, lhs, ops);
            lookaheads(cx, px, rhs, ops);
        }
        ExprKind::List(items) => {
            for i in items {
                lookaheads(cx, px, i, ops);
            }
        }
        _ => {}
    }
}

fn lower_call<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    call: &'a Expr,
    ops: &mut Vec<ir::ParserOp>,
) -> Result<(), FrontError> {
    let ExprKind::Call {
        callee,
        type_args,
        args,
    } = &call.kind
    else {
        return Ok(());
    };
    let span = cx.spans.ir(call.span);
    let method = match &callee.kind {
        ExprKind::Member { member, .. } => member.name.as_str(),
        ExprKind::Path(p) => p.name.name.as_str(),
        _ => "",
    };
    let is_member = matches!(callee.kind, ExprKind::Member { .. });
    match (method, is_member) {
        ("extract", true) if !args.is_empty() => {
            let target = &args[0].value;
            if matches!(target.kind, ExprKind::DontCare) {
                let bits = skipped_bits(cx, call, type_args);
                ops.push(ir::ParserOp::Advance { bits, span });
                return Ok(());
            }
            let op = lower_extract(cx, px, target, args.len() >= 2, span)?;
            ops.push(op);
        }
        ("advance", true) if !args.is_empty() => {
            let bits =
                cx.g.eval(&args[0].value, &px.locals.consts)
                    .and_then(|v| u64::try_from(v).ok());
            ops.push(ir::ParserOp::Advance { bits, span });
        }
        ("port_metadata_unpack", false) => {
            let bits = port_metadata_bits(cx, type_args);
            ops.push(ir::ParserOp::Advance { bits, span });
        }
        _ => lower_other_call(
            cx,
            px,
            call,
            callee,
            args,
            method == "apply" && is_member,
            ops,
        ),
    }
    Ok(())
}

/// `p.extract<H>(_)` reads an `H` and throws it away: the parser moves
/// past sizeof(H) bits (unknown, with a warning, when `H` has no known
/// width).
fn skipped_bits(cx: &mut Cx<'_, '_>, call: &Expr, type_args: &[ast::Type]) -> Option<u64> {
    let bits = type_args
        .first()
        .and_then(|t| cx.g.shape(t, 0).ok())
        .and_then(|s| cx.g.fixed_bits(&s));
    if bits.is_none() {
        cx.warn(
            call.span,
            "extract into `_` of a type without a known width: the bits skipped are unknown",
        );
    }
    bits
}

/// Tofino's `port_metadata_unpack` reads the whole port-metadata block
/// whatever T is: `PORT_METADATA_SIZE`, else T's width.
fn port_metadata_bits(cx: &Cx<'_, '_>, type_args: &[ast::Type]) -> Option<u64> {
    let no = HashMap::default();
    cx.g.consts
        .get("PORT_METADATA_SIZE")
        .and_then(|c| cx.g.eval(&c.value, &no))
        .and_then(|v| u64::try_from(v).ok())
        .or_else(|| {
            type_args
                .first()
                .and_then(|t| cx.g.shape(t, 0).ok())
                .and_then(|s| cx.g.fixed_bits(&s))
        })
}

/// Whether `e` is a header stack.
fn is_stack<'a>(cx: &Cx<'a, '_>, px: &Px<'a>, e: &Expr) -> bool {
    matches!(
        resolve_access(&cx.g, &px.locals, e).map(|a| a.shape),
        Some(Shape::Stack(..))
    )
}

/// `stack.next.m` / `stack[i].m`: one member of a header union held in a
/// stack. The stack element is what is filled (returned as the target);
/// the member's shape is what is read (returned beside it).
fn union_member_target<'a, 'e>(
    cx: &Cx<'a, '_>,
    px: &Px<'a>,
    target: &'e Expr,
) -> (&'e Expr, Option<Shape<'a>>) {
    let ExprKind::Member { base: elem, .. } = &target.kind else {
        return (target, None);
    };
    let in_stack = matches!(&elem.kind,
        ExprKind::Member { base: s, member } if member.name == "next" && is_stack(cx, px, s))
        || matches!(&elem.kind, ExprKind::Index { base: s, .. } if is_stack(cx, px, s));
    if !in_stack {
        return (target, None);
    }
    match resolve_access(&cx.g, &px.locals, elem).map(|a| a.shape) {
        Some(Shape::Aggregate(u)) if u.kind == ast::StructKind::HeaderUnion => (
            elem.as_ref(),
            resolve_access(&cx.g, &px.locals, target).map(|a| a.shape),
        ),
        _ => (target, None),
    }
}

/// The header an extract fills and which element of a stack: `.next`
/// (the stack operation only on a stack: a header may well have a field
/// called `next`), a constant index, or an index not known at compile
/// time (`None`, with a warning).
fn stack_access<'e>(
    cx: &mut Cx<'_, '_>,
    px: &Px<'_>,
    target: &'e Expr,
) -> (&'e Expr, Option<ir::StackAccess>) {
    match &target.kind {
        ExprKind::Member { base, member } if member.name == "next" && is_stack(cx, px, base) => {
            (base.as_ref(), Some(ir::StackAccess::Next))
        }
        ExprKind::Index { base, index } => {
            match cx
                .g
                .eval(index, &px.locals.consts)
                .and_then(|i| u32::try_from(i).ok())
            {
                Some(i) => (base.as_ref(), Some(ir::StackAccess::Index(i))),
                None => {
                    if is_stack(cx, px, base) {
                        cx.warn(
                            index.span,
                            format!("extract into `{}` with an index that is not a compile-time constant: which stack element is filled is not tracked", cx.text(target.span)),
                        );
                    }
                    (base.as_ref(), None)
                }
            }
        }
        _ => (target, None),
    }
}

/// The extract of `target` (`varbit`: a second argument, the variable
/// part's length, was given).
fn lower_extract<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    target: &'a Expr,
    varbit: bool,
    span: ir::Span,
) -> Result<ir::ParserOp, FrontError> {
    let (target, member_shape) = union_member_target(cx, px, target);
    let (base, stack) = stack_access(cx, px, target);
    let header = px.rename.name_owned(expr_name(base));
    let access = resolve_access(&cx.g, &px.locals, base).map(|a| a.shape);
    let dynamic_index = stack.is_none() && matches!(target.kind, ExprKind::Index { .. });
    let (elem, stack_size) = match (access, stack) {
        (Some(Shape::Stack(e, n)), Some(_)) => (*e, Some(n)),
        (Some(Shape::Stack(e, n)), None) if dynamic_index => (*e, Some(n)),
        (Some(s), None) => (s, None),
        (Some(_), Some(_)) => {
            return Err(cx.err(target.span, format!("`{header}` is not a header stack")));
        }
        (None, _) => {
            return Err(cx.err(
                target.span,
                format!(
                    "cannot tell which header `{}` is: {}",
                    cx.text(target.span),
                    crate::lower::explain_unresolved(&cx.g, &px.locals, base)
                ),
            ));
        }
    };
    // Inside a sub-parser, a parameter bound to the caller's
    // `stack[i]` is that stack element.
    let element = match &base.kind {
        ExprKind::Path(p) if stack.is_none() => px.rename.element(&p.name.name),
        _ => None,
    };
    let (header, stack, stack_size) = match element {
        Some(e) => (e.stack, Some(ir::StackAccess::Index(e.index)), Some(e.size)),
        None => (header, stack, stack_size),
    };
    let Shape::Aggregate(d) = elem else {
        return Err(cx.err(
            target.span,
            format!("`{}` is not a header", cx.text(target.span)),
        ));
    };
    let read = member_shape.unwrap_or(Shape::Aggregate(d));
    let bits = cx.g.fixed_bits(&read).unwrap_or(0);
    let max = cx.g.max_bits(&read).unwrap_or(bits);
    let varbit_max_bits = if varbit { max - bits } else { 0 };
    let instance = cx.instance(&header, d, stack_size, base.span);
    let (header, origin) = extract_origin(cx, px, header, instance);
    Ok(ir::ParserOp::Extract {
        header,
        instance,
        stack,
        bits,
        varbit_max_bits,
        origin,
        span,
    })
}

/// An extracted header's canonical name and origin: a program header
/// landing in a metadata parameter is metadata, and the headers
/// parameter is shown as `hdr`.
fn extract_origin(
    cx: &Cx<'_, '_>,
    px: &Px<'_>,
    header: String,
    instance: Option<ir::HeaderId>,
) -> (String, ir::Origin) {
    let origin = instance
        .map(|i| cx.program.header_type(cx.program.header(i).ty).origin)
        .unwrap_or(ir::Origin::Program);
    let root = header.split(['.', '[']).next().unwrap_or(&header);
    let origin = if origin == ir::Origin::Program && px.metadata_params.contains(root) {
        ir::Origin::Metadata
    } else {
        origin
    };
    let header = match (&px.headers_param, header.strip_prefix(root)) {
        (Some(hp), Some(rest)) if hp == root && root != "hdr" => format!("hdr{rest}"),
        _ => header,
    };
    (header, origin)
}

/// Any other call: a statement reading its arguments (after their
/// lookaheads); a sub-parser `apply` that reaches here is not followed,
/// with a warning saying why.
fn lower_other_call<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    call: &'a Expr,
    callee: &'a Expr,
    args: &'a [ast::Argument],
    applies: bool,
    ops: &mut Vec<ir::ParserOp>,
) {
    for a in args {
        lookaheads(cx, px, &a.value, ops);
    }
    let mut r = Vec::new();
    for a in args {
        r.extend(cx.reads_of(&a.value));
    }
    if applies {
        let sub = cx.text(callee.span);
        let root = match &callee.kind {
            ExprKind::Member { base, .. } => expr_name(base),
            _ => String::new(),
        };
        let why = if crate::subparser::resolve_sub_parser(cx, &px.locals, &px.instances, callee)
            .is_some()
        {
            "it is applied where p4cost cannot split the state"
        } else if px.locals.vars.contains_key(&root) {
            "it is a parameter, and which parser is passed in is not tracked"
        } else {
            "it is not a parser of this program"
        };
        cx.warn(
            call.span,
            format!("sub-parser call `{sub}`: its states are not followed ({why}); the headers it extracts are not counted"),
        );
    }
    ops.push(ir::ParserOp::Statement {
        what: format!("call {}", cx.text(callee.span)).into(),
        reads: r,
        writes: vec![],
        constant: None,
        span: cx.spans.ir(call.span),
    });
}

fn lower_transition<'a>(
    cx: &mut Cx<'a, '_>,
    px: &mut Px<'a>,
    t: &'a ast::Transition,
    ops: &mut Vec<ir::ParserOp>,
) -> Result<ir::Transition, FrontError> {
    let target =
        |cx: &Cx<'a, '_>, px: &Px<'a>, id: &ast::Ident| -> Result<ir::Target, FrontError> {
            match id.name.as_str() {
                "accept" => Ok(px.accept),
                "reject" => Ok(ir::Target::Reject),
                n => px
                    .states
                    .get(n)
                    .map(|s| ir::Target::State(*s))
                    .ok_or_else(|| cx.err(id.span, format!("transition to unknown state `{n}`"))),
            }
        };
    match &t.kind {
        TransitionKind::Direct(id) => Ok(ir::Transition::Direct {
            target: target(cx, px, id)?,
        }),
        TransitionKind::Select { exprs, cases } => {
            let mut keys = Vec::new();
            for e in exprs {
                lookaheads(cx, px, e, ops);
                let width_bits = match &e.kind {
                    ExprKind::Call {
                        callee, type_args, ..
                    } if matches!(&callee.kind, ExprKind::Member { member, .. } if member.name == "lookahead") => {
                        type_args
                            .first()
                            .and_then(|t| cx.g.shape(t, 0).ok())
                            .and_then(|s| cx.g.fixed_bits(&s))
                            .and_then(|b| u32::try_from(b).ok())
                    }
                    _ => expr_width(&cx.g, &px.locals, e),
                };
                keys.push(ir::SelectKey {
                    expr: cx.text(e.span),
                    width_bits,
                    field: key_field(px, e),
                    span: cx.spans.ir(e.span),
                });
            }
            let mut out = Vec::new();
            for c in cases {
                let keysets = match &c.keyset.kind {
                    KeysetKind::Tuple(ks) => ks.iter().map(|k| keyset(cx, px, k)).collect(),
                    _ => vec![keyset(cx, px, &c.keyset)],
                };
                out.push(ir::SelectCase {
                    keysets,
                    target: target(cx, px, &c.next)?,
                    span: cx.spans.ir(c.span),
                });
            }
            Ok(ir::Transition::Select { keys, cases: out })
        }
    }
}

/// The canonical name of a select key that is a plain field
/// (`hdr.ethernet.ether_type` whatever the parser calls its headers
/// parameter, a sub-parser's parameters as the caller's arguments).
fn key_field(px: &Px<'_>, e: &Expr) -> Option<String> {
    let mut at = e;
    loop {
        match &at.kind {
            ExprKind::Member { base, member } => {
                if matches!(member.name.as_str(), "next" | "last") {
                    return None;
                }
                at = base;
            }
            ExprKind::Path(_) => break,
            _ => return None,
        }
    }
    Some(canonical(px, expr_name(e)))
}

/// A name of this parser copy as the top-level parser's scope names it, the
/// headers parameter as `hdr` (ARCHITECTURE.md, "Names").
fn canonical(px: &Px<'_>, name: String) -> String {
    let name = px.rename.name_owned(name);
    let root = name.split(['.', '[']).next().unwrap_or(&name);
    match (&px.headers_param, name.strip_prefix(root)) {
        (Some(hp), Some(rest)) if hp == root && root != "hdr" => format!("hdr{rest}"),
        _ => name,
    }
}

/// A keyset expression's text: its value as a number when it is a
/// compile-time constant (`ETHERTYPE_IPV4` is `0x800`), else as written.
fn keyset_value(cx: &Cx<'_, '_>, px: &Px<'_>, e: &Expr) -> String {
    match cx.g.eval(e, &px.locals.consts) {
        Some(v) if v >= 0 && !matches!(e.kind, ExprKind::Int(_)) => format!("{v:#x}"),
        _ => cx.text(e.span),
    }
}

fn keyset(cx: &Cx<'_, '_>, px: &Px<'_>, k: &ast::Keyset) -> ir::Keyset {
    match &k.kind {
        KeysetKind::Default | KeysetKind::DontCare => ir::Keyset::Default,
        KeysetKind::Expr(e) => match &e.kind {
            ExprKind::Path(p) if px.value_sets.contains(p.name.name.as_str()) => {
                ir::Keyset::ValueSet {
                    name: p.name.name.as_str().to_owned(),
                }
            }
            _ => ir::Keyset::Value {
                value: keyset_value(cx, px, e),
            },
        },
        KeysetKind::Mask { value, mask } => ir::Keyset::Mask {
            value: keyset_value(cx, px, value),
            mask: keyset_value(cx, px, mask),
        },
        KeysetKind::Range { lo, hi } => ir::Keyset::Range {
            lo: keyset_value(cx, px, lo),
            hi: keyset_value(cx, px, hi),
        },
        KeysetKind::Tuple(_) => ir::Keyset::Value {
            value: cx.text(k.span),
        },
    }
}
