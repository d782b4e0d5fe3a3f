//! Lowering a syntax tree into the program model: the shared context,
//! header types and header instances. Parsers, controls and the package
//! binding have modules of their own.

use crate::{HashMap, HashSet};

use p4cost_ir as ir;
use p4cost_syntax::ast::{self, Decl, Expr, ExprKind, StructKind, Type, TypeKind};

use crate::scope::{expr_name, Globals, Shape};
use crate::{Diagnostic, FrontError};

/// Maps syntax-tree spans (offsets in the preprocessed text) to IR spans
/// in the original files, and builds diagnostics.
pub struct Spans<'o> {
    pub out: &'o p4cost_pp::Output,
    /// The top-level declarations whose places were read, while a unit's
    /// lowering is recorded (see [`crate::reuse`]).
    pub seen: crate::reuse::Seen,
    /// Where the last lookup in the source map ended: lowering reads
    /// places near each other (statement after statement, a span's
    /// first and last byte), each found from the one before.
    pub cursor: std::cell::Cell<p4cost_pp::Cursor>,
    /// The last first byte looked up and its location: a declaration's
    /// place is read more than once in a row (its file, then its span).
    last: std::cell::Cell<Option<(usize, p4cost_pp::Location)>>,
}

impl<'o> Spans<'o> {
    /// Spans of `out`.
    pub fn new(out: &'o p4cost_pp::Output) -> Spans<'o> {
        Spans {
            out,
            seen: crate::reuse::Seen::default(),
            cursor: std::cell::Cell::default(),
            last: std::cell::Cell::default(),
        }
    }

    /// The original location of output offset `at`, the first byte of a
    /// span.
    fn lookup(&self, at: usize) -> p4cost_pp::Location {
        if let Some((o, loc)) = self.last.get() {
            if o == at {
                return loc;
            }
        }
        let mut c = self.cursor.get();
        let loc = self.out.map.lookup_near(&mut c, at);
        self.cursor.set(c);
        self.last.set(Some((at, loc)));
        loc
    }

    /// The original file and offset of output offset `at`, the last byte
    /// of a span (not remembered: the next span starts elsewhere; its line
    /// is not looked up: a span keeps only its first byte's).
    fn origin_of_last(&self, at: usize) -> (usize, usize) {
        let mut c = self.cursor.get();
        let origin = self.out.map.origin_near(&mut c, at);
        self.cursor.set(c);
        origin
    }

    /// The IR span of a syntax span.
    pub fn ir(&self, s: ast::Span) -> ir::Span {
        self.seen.touch(s.lo);
        let lo = self.lookup(s.lo as usize);
        let hi = if s.hi > s.lo {
            let (file, offset) = self.origin_of_last(s.hi as usize - 1);
            if file == lo.file && offset >= lo.offset {
                offset + 1
            } else {
                lo.offset
            }
        } else {
            lo.offset
        };
        ir::Span {
            file: ir::FileId(lo.file as u32),
            lo: lo.offset as u32,
            hi: hi as u32,
            line: lo.line,
            col: lo.col,
        }
    }

    /// A diagnostic at a syntax span.
    pub fn diag(&self, s: ast::Span, message: impl Into<String>) -> Diagnostic {
        self.seen.touch(s.lo);
        let loc = self.lookup(s.lo as usize);
        Diagnostic {
            file: self.out.display_path(&loc).to_string(),
            line: loc.line,
            col: loc.col,
            message: message.into(),
        }
    }

    /// True when the span lies in an architecture include.
    pub fn in_arch_file(&self, s: ast::Span) -> bool {
        self.seen.touch(s.lo);
        let loc = self.lookup(s.lo as usize);
        self.out.files.get(loc.file).is_some_and(is_arch_file)
    }
}

/// `t` with runs of whitespace collapsed to one space and none at either
/// end (`t.split_whitespace()` joined by spaces), built in one allocation
/// of the exact length.
pub fn collapse_whitespace(t: &str) -> String {
    if t.is_ascii() {
        return collapse_ascii_whitespace(t);
    }
    let (mut len, mut words) = (0, 0);
    for w in t.split_whitespace() {
        len += w.len();
        words += 1;
    }
    let mut out = String::with_capacity(len + words.max(1) - 1);
    for w in t.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// [`collapse_whitespace`] of ASCII text, byte by byte (the whitespace of
/// `char::is_whitespace`: space and `\t` to `\r`); text that is one line
/// with single spaces, as most expressions are, is copied as it is.
fn collapse_ascii_whitespace(t: &str) -> String {
    let ws = |c: u8| matches!(c, b' ' | b'\t'..=b'\r');
    if is_collapsed_ascii(t) {
        return t.to_owned();
    }
    let words = || t.split(|c: char| ws(c as u8)).filter(|w| !w.is_empty());
    let (len, n) = words().fold((0, 0), |(l, n), w| (l + w.len(), n + 1));
    let mut out = String::with_capacity(len + n.max(1) - 1);
    for w in words() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// True when ASCII text `t` is what [`collapse_whitespace`] leaves as it
/// is: one line, single spaces, none at either end.
fn is_collapsed_ascii(t: &str) -> bool {
    let ws = |c: u8| matches!(c, b' ' | b'\t'..=b'\r');
    let b = t.as_bytes();
    !b.first().is_some_and(|&c| ws(c))
        && !b.last().is_some_and(|&c| ws(c))
        && !b.windows(2).any(|w| ws(w[0]) && (w[0] != b' ' || ws(w[1])))
}

/// True for bundled files and files named like an architecture include.
pub fn is_arch_file(f: &p4cost_pp::SourceFile) -> bool {
    if f.bundled {
        return true;
    }
    let base = f.path.rsplit(['/', '\\']).next().unwrap_or(&f.path);
    p4cost_arch::FILES.iter().any(|(n, _)| *n == base)
}

/// State shared by all lowering passes.
pub struct Cx<'a, 'o> {
    pub g: Globals<'a>,
    pub spans: Spans<'o>,
    pub program: ir::Program,
    /// Header type name -> id.
    pub type_ids: HashMap<String, ir::HeaderTypeId>,
    /// Lowered control declarations by name.
    pub control_cache: HashMap<String, crate::control::ControlSyms<'a>>,
    /// Lowered top-level actions by name.
    pub global_actions: HashMap<&'a str, ir::ActionId>,
    /// Actions already lowered, by everything their lowering reads (see
    /// [`crate::control::MemoKey`]): another instance of the same
    /// control gets a copy instead of a second walk of the body.
    pub action_memo: HashMap<crate::control::MemoKey, ir::ActionId>,
    /// Tables already lowered, likewise: another instance copies their
    /// keys, attached resources and annotations.
    pub table_memo: HashMap<crate::control::MemoKey, ir::TableId>,
    /// Header instances by the hash of (name, type, stack size), the key
    /// [`Cx::instance`] matches on (the instance itself holds them, so
    /// the key is not copied), the first of a hash.
    pub header_ids: HashMap<u64, ir::HeaderId>,
    /// The header instances whose hash another instance had first.
    pub header_ids_more: Vec<ir::HeaderId>,
    pub warnings: Vec<Diagnostic>,
    /// Control instance path of the apply block being lowered (the
    /// top-level control's name, then sub-control instance names).
    pub instance_path: Vec<String>,
    /// Where a `return` goes in each control body being lowered,
    /// innermost last: the end of a top-level control (`None`), or, inside
    /// an applied sub-control, what follows the call in its caller.
    pub return_to: Vec<Option<p4cost_ir::NodeId>>,
    /// Table index -> the qualified names it was applied under
    /// (see [`crate::naming`]).
    pub applied_as: HashMap<u32, Vec<String>>,
    /// The warnings already in `warnings`, to drop repeats in O(1).
    pub warned: HashSet<Diagnostic>,
    /// States and statements copied by sub-parser and sub-control calls.
    pub inlined: InlineBudget,
    /// Constructor parameters bound to parsers and controls.
    pub ctor: crate::ctor::Bindings,
    /// Parsers and controls instantiated by a declaration (`T(...) t;`),
    /// whose tables count through those instances (see [`crate::ctor`]).
    pub declared: crate::HashSet<String>,
    /// Control declaration name -> the distinct constructor parameter
    /// values of its instances lowered for a pipeline (not under a
    /// declaration's own lowering), for the externs it declares
    /// (see [`crate::extras::externs`]).
    pub instance_values: HashMap<String, Vec<HashMap<String, i128>>>,
    /// Apply blocks taken out of the tree, lowered (and freed) once
    /// (see [`crate::bodies`]).
    pub taken: crate::bodies::TakenBodies,
    /// The emit order of each control whose apply block was taken, kept
    /// for [`crate::extras::deparsers`].
    pub taken_emits: HashMap<String, Vec<String>>,
    /// What the control being lowered does beyond the program, while its
    /// lowering is recorded for reuse (see [`crate::reuse`]).
    pub rec: Option<crate::reuse::Rec>,
    /// Graphs of controls lowered on their own that their instances copy
    /// (see [`crate::template`]), by declaration address.
    pub templates: HashMap<usize, crate::template::Template<'a>>,
    /// What graph building did so far besides adding nodes.
    pub trace: crate::template::Trace,
    /// The canon that renames nothing, shared by the symbols of every
    /// control lowered with it (most are).
    pub no_canon: std::rc::Rc<crate::effects::Canon>,
    /// Empty constant and instance maps, likewise.
    pub no_locals: crate::control::NoLocals<'a>,
}

/// The program-wide budget of states and statements that inlining may copy
/// (see `Options::max_inlined`).
#[derive(Debug, Clone, Copy)]
pub struct InlineBudget {
    /// The most that may be copied.
    pub limit: usize,
    /// Copied so far.
    pub used: usize,
}

impl<'a, 'o> Cx<'a, 'o> {
    pub fn err(&self, s: ast::Span, m: impl Into<String>) -> FrontError {
        FrontError::Lower(self.spans.diag(s, m))
    }

    pub fn warn(&mut self, s: ast::Span, m: impl Into<String>) {
        self.trace.impure += 1;
        let d = self.spans.diag(s, m);
        if let Some(r) = &mut self.rec {
            r.warn(&self.spans, s, &d);
        }
        if self.warned.insert(d.clone()) {
            self.warnings.push(d);
        }
    }

    /// Charges `n` copied states or statements to the inlining budget;
    /// past the limit, an error at `at` naming the chain of calls (`kind`:
    /// "parser" or "control") that was being inlined.
    pub fn charge_inlined<S: std::borrow::Borrow<str>>(
        &mut self,
        n: usize,
        at: ast::Span,
        kind: &str,
        chain: &[S],
    ) -> Result<(), FrontError> {
        self.inlined.used = self.inlined.used.saturating_add(n);
        if self.inlined.used <= self.inlined.limit {
            return Ok(());
        }
        let limit = self.inlined.limit;
        Err(self.err(
            at,
            format!(
                "inlining budget exhausted: sub-parser and sub-control calls copy more than {limit} states and statements into their callers (limit {limit}; --max-inlined raises it); reached while inlining {kind} `{}`",
                chain.join("` -> `")
            ),
        ))
    }

    /// What `e` reads, global constants left out.
    pub fn reads_of(&self, e: &Expr) -> Vec<String> {
        let mut r = crate::names::NameList::default();
        crate::names::reads(e, &|n: &str| self.g.consts.contains_key(n), &mut r);
        r.into_vec()
    }

    /// `canon` shared: the one that renames nothing when it is that.
    pub fn shared_canon(&self, canon: crate::effects::Canon) -> std::rc::Rc<crate::effects::Canon> {
        if canon.roots.is_empty() {
            std::rc::Rc::clone(&self.no_canon)
        } else {
            std::rc::Rc::new(canon)
        }
    }

    /// The source text of a span, with runs of whitespace collapsed.
    pub fn text(&self, s: ast::Span) -> String {
        collapse_whitespace(s.text(&self.spans.out.text))
    }

    /// `prefix` then [`Cx::text`] of `s`, in one allocation when the text
    /// needs no collapsing (as most does).
    pub fn text_after(&self, prefix: &str, s: ast::Span) -> String {
        let t = s.text(&self.spans.out.text);
        let collapsed;
        let t = if t.is_ascii() && is_collapsed_ascii(t) {
            t
        } else {
            collapsed = collapse_whitespace(t);
            &collapsed
        };
        let mut out = String::with_capacity(prefix.len() + t.len());
        out.push_str(prefix);
        out.push_str(t);
        out
    }

    /// Lowers every header, header union and struct declaration.
    pub fn lower_types(&mut self, program: &'a ast::Program) -> Result<(), FrontError> {
        for d in &program.decls {
            let Decl::Struct(s) = d else { continue };
            if self.type_ids.contains_key(s.name.name.as_str()) {
                continue;
            }
            let origin = if self.spans.in_arch_file(s.span) {
                ir::Origin::Architecture
            } else {
                ir::Origin::Program
            };
            // Right after `in_arch_file`, which looked up its first byte.
            let span = self.spans.ir(s.span);
            self.check_flat_size(s)?;
            let mut fields = Vec::with_capacity(s.fields.len());
            for f in &s.fields {
                let generic = type_mentions(&f.ty, &s.type_params);
                let (width_bits, varbit) = match self.g.shape(&f.ty, 0) {
                    Ok(sh) => match sh {
                        Shape::Varbit(w) => (w, true),
                        Shape::Opaque if s.kind != StructKind::Struct && !generic => {
                            return Err(self.err(
                                f.ty.span,
                                format!("field `{}` of header `{}` has a type without a known width: `{}`",
                                    f.name.name, s.name.name, self.text(f.ty.span)),
                            ))
                        }
                        other => (self.g.max_bits(&other).map_or(0, |b| b.min(u64::from(u32::MAX)) as u32), false),
                    },
                    Err(e) if s.kind == StructKind::Struct && generic => {
                        let _ = e;
                        (0, false)
                    }
                    Err(e) => return Err(self.err(e.span, e.message)),
                };
                fields.push(ir::Field {
                    name: f.name.name.as_str().to_owned(),
                    width_bits,
                    varbit,
                    span: self.spans.ir(f.span),
                });
            }
            self.program.header_types.push(ir::HeaderType {
                name: s.name.name.as_str().to_owned(),
                kind: match s.kind {
                    StructKind::Header => ir::HeaderKind::Header,
                    StructKind::HeaderUnion => ir::HeaderKind::Union,
                    StructKind::Struct => ir::HeaderKind::Struct,
                },
                fields,
                origin,
                span,
            });
            let id = ir::HeaderTypeId((self.program.header_types.len() - 1) as u32);
            self.type_ids.insert(s.name.name.as_str().to_owned(), id);
        }
        Ok(())
    }

    /// Refuses a struct, header or union that flattens to more than
    /// [`crate::MAX_FLAT_FIELDS`] fields or nests types more than
    /// [`crate::scope::MAX_TYPE_NESTING`] levels deep (a cycle).
    fn check_flat_size(&self, s: &'a ast::StructDecl) -> Result<(), FrontError> {
        let kind = match s.kind {
            StructKind::Header => "header",
            StructKind::HeaderUnion => "header union",
            StructKind::Struct => "struct",
        };
        match self.g.flat_fields(s) {
            Ok(n) if n > crate::MAX_FLAT_FIELDS => Err(self.err(
                s.name.span,
                format!(
                    "{kind} `{}` flattens to {n} fields (nested structs and stack elements \
                     counted one by one), more than p4cost's limit of {}",
                    s.name.name,
                    crate::MAX_FLAT_FIELDS
                ),
            )),
            Ok(_) => Ok(()),
            Err(crate::scope::TooDeep) => Err(self.err(
                s.name.span,
                format!(
                    "{kind} `{}` nests types more than {} levels deep (does it contain itself?)",
                    s.name.name,
                    crate::scope::MAX_TYPE_NESTING
                ),
            )),
        }
    }

    /// Finds or adds the header instance `name` of declaration `decl` (a
    /// stack of `stack` elements). A parser lowered on its own may use the
    /// same name for a single header that a caller passes a stack element
    /// for, so the stack size is part of the match.
    pub fn instance(
        &mut self,
        name: &str,
        decl: &StructDecl,
        stack: Option<u32>,
        span: ast::Span,
    ) -> Option<ir::HeaderId> {
        use std::hash::BuildHasher;
        let ty = *self.type_ids.get(decl.name.name.as_str())?;
        let key = self.header_ids.hasher().hash_one((name, ty, stack));
        let is = |h: &ir::HeaderInstance| h.name == name && h.ty == ty && h.stack_size == stack;
        let found = self
            .header_ids
            .get(&key)
            .into_iter()
            .chain(&self.header_ids_more);
        if let Some(id) = found.copied().find(|id| is(self.program.header(*id))) {
            return Some(id);
        }
        self.program.headers.push(ir::HeaderInstance {
            name: name.to_string(),
            ty,
            stack_size: stack,
            metadata: decl.kind == StructKind::Struct,
            span: self.spans.ir(span),
        });
        let id = ir::HeaderId((self.program.headers.len() - 1) as u32);
        match self.header_ids.entry(key) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => self.header_ids_more.push(id),
        }
        Some(id)
    }
}

use ast::StructDecl;

/// True when a type mentions one of the type parameters.
fn type_mentions(t: &Type, params: &[ast::Ident]) -> bool {
    match &t.kind {
        TypeKind::Name(p) => params.iter().any(|x| x.name == p.name.name),
        TypeKind::Specialized { base, args } => {
            params.iter().any(|x| x.name == base.name.name)
                || args.iter().any(|a| type_mentions(a, params))
        }
        TypeKind::Stack { elem, .. } => type_mentions(elem, params),
        _ => false,
    }
}

/// Names in scope in a parser or control: parameters and local variables
/// with their types.
#[derive(Default, Clone)]
pub struct Locals<'a> {
    /// Variables and parameters with their types: borrowed from the
    /// syntax tree, or owned for the locals of an apply block (whose
    /// statements are freed as they are lowered). Shared, as are the
    /// constants: the symbols of a control are cloned for its cache and
    /// its instances, and only a variable declared changes them.
    pub vars: std::rc::Rc<HashMap<String, std::borrow::Cow<'a, Type>>>,
    pub consts: std::rc::Rc<HashMap<&'a str, &'a Expr>>,
    /// Constructor parameters -> the parser or control type every
    /// instantiation binds them to (see [`crate::ctor`]).
    pub ctor_bound: HashMap<String, String>,
    /// Constructor parameters -> the compile-time value this instance
    /// gets (its argument, else the parameter's default).
    pub ctor_values: HashMap<String, i128>,
    /// The control's own lowering, apart from its declared instances
    /// (which lower it again with their arguments): a constructor
    /// parameter without a value is not reported here.
    pub declaration_only: bool,
}

impl<'a> Locals<'a> {
    pub fn from_params(params: &'a [ast::Param]) -> Locals<'a> {
        let mut vars = HashMap::default();
        vars.reserve(params.len());
        for p in params {
            vars.insert(
                p.name.name.as_str().to_owned(),
                std::borrow::Cow::Borrowed(&p.ty),
            );
        }
        Locals {
            vars: std::rc::Rc::new(vars),
            ..Locals::default()
        }
    }
}

/// What an access expression like `hdr.vlan[1].vid` resolves to.
pub struct Access<'a> {
    /// The shape of the accessed thing.
    pub shape: Shape<'a>,
}

/// Resolves the type of a place expression through parameter/local types
/// and struct fields.
pub fn resolve_access<'a>(g: &Globals<'a>, locals: &Locals<'a>, e: &Expr) -> Option<Access<'a>> {
    match &e.kind {
        ExprKind::Path(p) => {
            let t = locals.vars.get(p.name.name.as_str())?;
            Some(Access {
                shape: g.shape(t, 0).ok()?,
            })
        }
        ExprKind::Member { base, member } => {
            let b = resolve_access(g, locals, base)?;
            match b.shape {
                Shape::Aggregate(d) => {
                    let f = g.field(d, &member.name)?;
                    Some(Access {
                        shape: g.shape(&f.ty, 0).ok()?,
                    })
                }
                Shape::Stack(elem, _) if matches!(member.name.as_str(), "next" | "last") => {
                    Some(Access { shape: *elem })
                }
                _ => None,
            }
        }
        ExprKind::Index { base, .. } => match resolve_access(g, locals, base)?.shape {
            Shape::Stack(elem, _) => Some(Access { shape: *elem }),
            _ => None,
        },
        _ => None,
    }
}

/// Why [`resolve_access`] cannot resolve the place `e`: names the first
/// undeclared variable, undeclared type or missing field on the way.
pub fn explain_unresolved(g: &Globals<'_>, locals: &Locals<'_>, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Path(p) => match locals.vars.get(p.name.name.as_str()) {
            None => format!("`{}` is not a parameter or local variable", p.name.name),
            Some(t) => match &t.kind {
                TypeKind::Name(n) | TypeKind::Specialized { base: n, .. }
                    if !g.knows_type(&n.name.name) =>
                {
                    format!(
                        "`{}` has type `{}`, which is not declared",
                        p.name.name, n.name.name
                    )
                }
                _ => format!("the type of `{}` has no known layout", p.name.name),
            },
        },
        ExprKind::Member { base, member } => match resolve_access(g, locals, base) {
            None => explain_unresolved(g, locals, base),
            Some(a) => match a.shape {
                Shape::Aggregate(d) => format!("`{}` has no field `{}`", d.name.name, member.name),
                _ if matches!(base.kind, ExprKind::Path(_)) => explain_unresolved(g, locals, base),
                _ => format!("`{}` is not a struct or header", expr_name(base)),
            },
        },
        ExprKind::Index { base, .. } => match resolve_access(g, locals, base) {
            None => explain_unresolved(g, locals, base),
            Some(_) => format!("`{}` is not a header stack", expr_name(base)),
        },
        _ => "it is not a header, struct field or stack element".to_string(),
    }
}

/// Width of the value returned by a call to the function `name`: its
/// declared return type, or for a generic return type `T`, the width of
/// the first argument whose parameter has type `T`.
fn call_width(
    g: &Globals<'_>,
    locals: &Locals<'_>,
    name: &str,
    args: &[ast::Argument],
) -> Option<u32> {
    let f = g.functions.get(name)?;
    if let TypeKind::Name(t) = &f.ret.kind {
        if f.type_params.iter().any(|p| p.name == t.name.name) {
            let i = f.params.iter().position(
                |p| matches!(&p.ty.kind, TypeKind::Name(n) if n.name.name == t.name.name),
            )?;
            return expr_width(g, locals, &args.get(i)?.value);
        }
    }
    match g.shape(&f.ret, 0).ok()? {
        Shape::Bits(w) => Some(w),
        _ => None,
    }
}

/// Width in bits of an expression used as a key or select field, when it
/// can be known.
pub fn expr_width(g: &Globals<'_>, locals: &Locals<'_>, e: &Expr) -> Option<u32> {
    match &e.kind {
        ExprKind::Slice { hi, lo, .. } => {
            let no = HashMap::default();
            let (h, l) = (g.eval(hi, &no)?, g.eval(lo, &no)?);
            u32::try_from(h - l + 1).ok()
        }
        ExprKind::WidthSlice { width, .. } => u32::try_from(g.eval(width, &locals.consts)?).ok(),
        ExprKind::Cast { ty, .. } => match g.shape(ty, 0).ok()? {
            Shape::Bits(w) => Some(w),
            _ => None,
        },
        ExprKind::Int(ast::IntLit { width: Some(w), .. }) => Some(w.bits),
        ExprKind::Bool(_) => Some(1),
        ExprKind::Ternary { then, els, .. } => {
            expr_width(g, locals, then).or_else(|| expr_width(g, locals, els))
        }
        ExprKind::Unary { op, expr } => match op {
            ast::UnaryOp::Not => Some(1),
            _ => expr_width(g, locals, expr),
        },
        // `t.apply().hit` / `.miss`
        ExprKind::Member { base, member }
            if matches!(member.name.as_str(), "hit" | "miss")
                && matches!(base.kind, ExprKind::Call { .. }) =>
        {
            Some(1)
        }
        ExprKind::Call { callee, args, .. } => match &callee.kind {
            ExprKind::Member { member, .. }
                if matches!(member.name.as_str(), "isValid" | "isInvalid") =>
            {
                Some(1)
            }
            ExprKind::Path(p) => call_width(g, locals, &p.name.name, args),
            _ => None,
        },
        ExprKind::Binary { op, lhs, rhs } => {
            use ast::BinaryOp::*;
            match op {
                Concat => Some(expr_width(g, locals, lhs)? + expr_width(g, locals, rhs)?),
                Eq | Ne | Lt | Gt | Le | Ge | And | Or => Some(1),
                _ => expr_width(g, locals, lhs).or_else(|| expr_width(g, locals, rhs)),
            }
        }
        _ => match resolve_access(g, locals, e)?.shape {
            Shape::Bits(w) => Some(w),
            _ => None,
        },
    }
}

#[cfg(test)]
mod text_tests {
    use super::collapse_whitespace;

    #[test]
    fn collapsing_whitespace_is_splitting_and_joining_by_one_space() {
        for t in [
            "",
            "   ",
            "a",
            " a ",
            "hdr.a.x  ==\n\t 1",
            "\u{a0}x\u{2003}y ",
            "f(a,  b)\r\n",
            "a b",
            "a\x0bb",
            "a \x0cb",
            "a\n",
            "\ta == b",
            "x . y",
        ] {
            let want = t.split_whitespace().collect::<Vec<_>>().join(" ");
            let got = collapse_whitespace(t);
            assert_eq!(got, want, "{t:?}");
        }
    }
}
