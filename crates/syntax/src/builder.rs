//! Turns the pest parse tree into the typed AST of [`crate::ast`].
//!
//! The grammar guarantees the shape of every parse-tree node; the builder
//! still never panics on an unexpected shape and reports it as an internal
//! [`SyntaxError`] instead.

use std::iter::Peekable;
use std::sync::OnceLock;

use pest::iterators::{Pair, Pairs};
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;

use crate::ast::*;
use crate::error::SyntaxError;
use crate::grammar::{P4Parser, Rule};

type Result<T> = std::result::Result<T, SyntaxError>;

/// Deepest nesting of blocks, statements, types and bracketed expressions
/// the builder accepts (also checked on the raw text before pest runs, see
/// `crate::prescan`).  Every later pass over the AST recurses over this
/// nesting, so it is what bounds their stack use.
pub(crate) const MAX_DEPTH: u32 = 1000;

/// Deepest expression tree the builder accepts, counted as the number of
/// operators (prefix, postfix, binary, ternary) and array dimensions on the
/// way from the root of a statement's expression to its innermost operand.
/// A chain `a + b + ...` of N terms is N-1 deep; `- - - x` is 3 deep.  The
/// AST is a tree of boxes that later passes walk recursively, so this bounds
/// their stack use; 4096 keeps every realistic expression.
pub(crate) const MAX_EXPR_DEPTH: u32 = 4096;

fn pratt() -> &'static PrattParser<Rule> {
    static PRATT: OnceLock<PrattParser<Rule>> = OnceLock::new();
    PRATT.get_or_init(|| {
        // Lowest precedence first (follows p4c's grammar: the bitwise
        // operators bind tighter than the comparisons).
        PrattParser::new()
            .op(Op::infix(Rule::ternary, Assoc::Right))
            .op(Op::infix(Rule::lor, Assoc::Left))
            .op(Op::infix(Rule::land, Assoc::Left))
            .op(Op::infix(Rule::eq, Assoc::Left) | Op::infix(Rule::ne, Assoc::Left))
            .op(Op::infix(Rule::lt, Assoc::Left)
                | Op::infix(Rule::gt, Assoc::Left)
                | Op::infix(Rule::le, Assoc::Left)
                | Op::infix(Rule::ge, Assoc::Left))
            .op(Op::infix(Rule::bor, Assoc::Left))
            .op(Op::infix(Rule::bxor, Assoc::Left))
            .op(Op::infix(Rule::band, Assoc::Left))
            .op(Op::infix(Rule::shl, Assoc::Left) | Op::infix(Rule::shr, Assoc::Left))
            .op(Op::infix(Rule::concat, Assoc::Left)
                | Op::infix(Rule::add, Assoc::Left)
                | Op::infix(Rule::sub, Assoc::Left)
                | Op::infix(Rule::add_sat, Assoc::Left)
                | Op::infix(Rule::sub_sat, Assoc::Left))
            .op(Op::infix(Rule::mul, Assoc::Left)
                | Op::infix(Rule::div, Assoc::Left)
                | Op::infix(Rule::modulo, Assoc::Left))
            .op(Op::prefix(Rule::lnot)
                | Op::prefix(Rule::bnot)
                | Op::prefix(Rule::neg)
                | Op::prefix(Rule::pos)
                | Op::prefix(Rule::cast))
            .op(Op::postfix(Rule::member)
                | Op::postfix(Rule::index)
                | Op::postfix(Rule::call)
                | Op::postfix(Rule::generic_call)
                | Op::postfix(Rule::specialize))
    })
}

/// Builds the declarations of one `program_item` pair, parsed from the text
/// starting at byte `base`, into `out`.  Returns the item's end offset in
/// the whole text, or `None` at the end of the input.
pub(crate) fn build_item(
    text: &str,
    base: usize,
    pair: Pair<'_, Rule>,
    out: &mut Vec<Decl>,
) -> Result<Option<usize>> {
    let b = Builder::new(text, base as u32);
    let end = base + pair.as_span().end();
    let mut k = Kids::new(pair);
    let item = k.next()?;
    match item.as_rule() {
        Rule::EOI => return Ok(None),
        Rule::declaration => b.declaration(item, out)?,
        Rule::empty_decl => {}
        _ => return Err(b.unexpected(&item)),
    }
    Ok(Some(end))
}

/// One element of a parser or control declaration, parsed on its own by
/// `crate::pieces` with one of the `*_item` entry rules of the grammar.
pub(crate) enum Piece {
    /// `@a parser P<T>(params)(ctor params) {`, or the same for a control.
    Head(ContainerHead),
    /// A local declaration (parser or control).
    Local(LocalDecl),
    /// A parser state.
    State(ParserState),
    /// `apply @a {`: the apply block's annotations and its first byte.
    ApplyHead {
        annotations: Vec<Annotation>,
        lo: u32,
    },
    /// A whole statement of a block parsed in pieces.
    Stmt(Stmt),
    /// `@a {`: a block statement, open until its `}`.
    OpenBlock {
        /// The statement's annotations and first byte.
        annotations: Vec<Annotation>,
        lo: u32,
        /// The block's own annotations (none after the statement's) and
        /// its first byte.
        block_annotations: Vec<Annotation>,
        block_lo: u32,
    },
    /// `@a if (cond)`: an `if` statement, open until its last branch.
    OpenIf {
        annotations: Vec<Annotation>,
        lo: u32,
        cond: Expr,
    },
    /// `else`, after the then branch of an open `if`.
    Else,
    /// A closing `}`: the offset just past it.
    End(u32),
}

/// The head of a parser or control declaration up to its opening brace.
pub(crate) struct ContainerHead {
    pub(crate) is_parser: bool,
    /// Annotations, name, type parameters and parameters (its span is
    /// unset: the declaration's end is not known yet).
    pub(crate) proto: ContainerTypeDecl,
    pub(crate) ctor_params: Vec<Param>,
    /// First byte of the declaration (its annotations or keyword).
    pub(crate) lo: u32,
}

/// Builds the element that a `*_item` pair holds, parsed from the text
/// starting at byte `base`.  `depth` is the block nesting the element sits
/// in (1 for a statement of the apply block), so depth limits apply as
/// when the whole declaration is built at once.
pub(crate) fn build_piece(
    text: &str,
    base: usize,
    depth: u32,
    pair: Pair<'_, Rule>,
) -> Result<Piece> {
    let b = Builder::new(text, base as u32);
    b.depth.set(depth);
    let item = Kids::new(pair).next()?;
    match item.as_rule() {
        Rule::container_head => Ok(Piece::Head(b.container_head(item)?)),
        Rule::parser_local | Rule::control_local => Ok(Piece::Local(b.local_decl(item)?)),
        Rule::parser_state => Ok(Piece::State(b.parser_state(item)?)),
        Rule::apply_head => {
            let mut k = Kids::new(item);
            k.expect(Rule::kw_apply)?;
            let head = k.expect(Rule::block_head)?;
            let lo = b.span(&head).lo;
            let annotations = b.opt_annotations(&mut Kids::new(head))?;
            Ok(Piece::ApplyHead { annotations, lo })
        }
        Rule::stmt => Ok(Piece::Stmt(b.stmt(item)?)),
        Rule::open_stmt => b.open_stmt(item),
        Rule::kw_else => Ok(Piece::Else),
        Rule::body_end => Ok(Piece::End(b.span(&item).hi)),
        _ => Err(b.unexpected(&item)),
    }
}

/// The span of a whole program: from its start to its last token.
pub(crate) fn program_span(text: &str) -> Span {
    Span::new(0, trim_trivia_end(text).len() as u32)
}

/// Cursor over the children of one parse-tree node.
struct Kids<'i> {
    iter: Peekable<Pairs<'i, Rule>>,
    /// Offset reported when a required child is missing.
    at: usize,
}

impl<'i> Kids<'i> {
    fn new(pair: Pair<'i, Rule>) -> Self {
        let at = pair.as_span().start();
        Kids {
            iter: pair.into_inner().peekable(),
            at,
        }
    }

    fn internal(&self, what: &str) -> SyntaxError {
        SyntaxError {
            offset: self.at,
            message: format!("internal parser error: {what}"),
        }
    }

    /// The next child, whatever it is.
    fn next(&mut self) -> Result<Pair<'i, Rule>> {
        match self.iter.next() {
            Some(p) => Ok(p),
            None => Err(self.internal("missing syntax node")),
        }
    }

    /// The next child, which must be `rule`.
    fn expect(&mut self, rule: Rule) -> Result<Pair<'i, Rule>> {
        match self.iter.next() {
            Some(p) if p.as_rule() == rule => Ok(p),
            Some(p) => Err(self.internal(&format!(
                "expected {:?} node, found {:?}",
                rule,
                p.as_rule()
            ))),
            None => Err(self.internal(&format!("missing {rule:?} node"))),
        }
    }

    /// The next child if it is `rule`.
    fn opt(&mut self, rule: Rule) -> Option<Pair<'i, Rule>> {
        if self.peek_is(rule) {
            self.iter.next()
        } else {
            None
        }
    }

    fn peek_is(&mut self, rule: Rule) -> bool {
        self.iter.peek().map(|p| p.as_rule()) == Some(rule)
    }

    /// All remaining children that are `rule`, in order, one at a time: a
    /// block of a million statements never holds a million pairs at once.
    fn all(&mut self, rule: Rule) -> impl Iterator<Item = Pair<'i, Rule>> + '_ {
        std::iter::from_fn(move || self.opt(rule))
    }
}

struct Builder<'t> {
    text: &'t str,
    /// Added to every pest offset (non-zero when re-parsing a slice of the
    /// input, as for annotation bodies).
    base: u32,
    depth: std::cell::Cell<u32>,
    /// Operators (and array dimensions) of the expressions being built,
    /// bounded by [`MAX_EXPR_DEPTH`].
    expr_depth: std::cell::Cell<u32>,
}

fn internal_at(at: usize, what: &str) -> SyntaxError {
    SyntaxError {
        offset: at,
        message: format!("internal parser error: {what}"),
    }
}

impl<'t> Builder<'t> {
    fn new(text: &'t str, base: u32) -> Self {
        Builder {
            text,
            base,
            depth: std::cell::Cell::new(0),
            expr_depth: std::cell::Cell::new(0),
        }
    }

    /// The span of a node.  pest includes whitespace skipped before an
    /// optional element that then did not match, so trailing whitespace is
    /// trimmed off.
    fn span(&self, p: &Pair<'_, Rule>) -> Span {
        let s = p.as_span();
        let len = trim_trivia_end(s.as_str()).len();
        let start = self.base + s.start() as u32;
        Span::new(start, start + len as u32)
    }

    /// The span of a declaration (or field, parameter, state, table
    /// property...): from its first token after its annotations, so a
    /// report about it points at `table t`, not at `@hidden` above it.
    fn decl_span(&self, p: &Pair<'_, Rule>) -> Span {
        let span = self.span(p);
        let mut kids = p.clone().into_inner();
        match kids.next() {
            Some(a) if a.as_rule() == Rule::annotation_list => match kids.next() {
                Some(next) => Span::new(self.base + next.as_span().start() as u32, span.hi),
                None => span,
            },
            _ => span,
        }
    }

    fn offset(&self, p: &Pair<'_, Rule>) -> usize {
        self.base as usize + p.as_span().start()
    }

    fn unexpected(&self, p: &Pair<'_, Rule>) -> SyntaxError {
        internal_at(
            self.offset(p),
            &format!("unexpected {:?} node", p.as_rule()),
        )
    }

    /// Runs `f` one nesting level deeper, failing on excessive depth.
    fn nested<T>(&self, at: usize, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let d = self.depth.get();
        if d >= MAX_DEPTH {
            return Err(SyntaxError {
                offset: at,
                message: too_deep_message(),
            });
        }
        self.depth.set(d + 1);
        let r = f();
        self.depth.set(d);
        r
    }

    /// Runs `f` with `ops` more expression operators on the way from the
    /// root, failing when the expression tree would exceed
    /// [`MAX_EXPR_DEPTH`].
    fn with_ops<T>(&self, at: usize, ops: usize, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let d = self.expr_depth.get();
        let total = u32::try_from(ops).unwrap_or(u32::MAX).saturating_add(d);
        if total > MAX_EXPR_DEPTH {
            return Err(SyntaxError {
                offset: at,
                message: format!(
                    "expression nested too deeply (limit {MAX_EXPR_DEPTH} operators from the outermost to the innermost operand)"
                ),
            });
        }
        self.expr_depth.set(total);
        let r = f();
        self.expr_depth.set(d);
        r
    }

    // -------------------------------------------------------------- basics

    fn ident(&self, p: Pair<'_, Rule>) -> Ident {
        Ident {
            name: crate::name::intern(p.as_str()),
            span: self.span(&p),
        }
    }

    fn path(&self, p: Pair<'_, Rule>) -> Result<Path> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        let absolute = k.opt(Rule::dot_prefix).is_some();
        let name = self.ident(k.expect(Rule::ident)?);
        Ok(Path {
            absolute,
            name,
            span,
        })
    }

    /// The annotations at the cursor, if any (the grammar makes no node
    /// for an empty list).
    fn opt_annotations(&self, k: &mut Kids<'_>) -> Result<Vec<Annotation>> {
        match k.opt(Rule::annotation_list) {
            Some(list) => self.annotations(list),
            None => Ok(Vec::new()),
        }
    }

    fn annotations(&self, p: Pair<'_, Rule>) -> Result<Vec<Annotation>> {
        let mut out = Vec::new();
        for a in p.into_inner() {
            out.push(self.annotation(a)?);
        }
        Ok(fit(out))
    }

    fn annotation(&self, p: Pair<'_, Rule>) -> Result<Annotation> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        let first = k.next()?;
        match first.as_rule() {
            Rule::pragma_annotation => {
                let mut pk = Kids::new(first);
                let name = self.ident(pk.expect(Rule::annot_name)?);
                let raw = pk.expect(Rule::pragma_raw)?;
                Ok(Annotation {
                    name,
                    body: AnnotationBody::Pragma(self.raw_body(raw)),
                    span,
                })
            }
            Rule::at_name => {
                let mut nk = Kids::new(first);
                let name = self.ident(nk.expect(Rule::annot_name)?);
                let body = if let Some(parens) = k.opt(Rule::annot_parens) {
                    let raw = Kids::new(parens).expect(Rule::annot_raw)?;
                    AnnotationBody::Unstructured(self.raw_body(raw))
                } else if let Some(br) = k.opt(Rule::annot_brackets) {
                    let inner = Kids::new(br).next()?;
                    match inner.as_rule() {
                        Rule::kv_list => AnnotationBody::KeyValues(self.kv_list(inner)?),
                        Rule::expr_list => AnnotationBody::Expressions(self.expr_list(inner)?),
                        _ => return Err(self.unexpected(&inner)),
                    }
                } else {
                    AnnotationBody::Empty
                };
                Ok(Annotation { name, body, span })
            }
            _ => Err(self.unexpected(&first)),
        }
    }

    /// The trimmed text of an unstructured annotation body, plus its parse
    /// as an expression list when it is one.
    fn raw_body(&self, raw: Pair<'_, Rule>) -> RawAnnotationBody {
        self.raw_body_at(raw.as_str(), raw.as_span().start())
    }

    /// [`Self::raw_body`] of the body `full`, which starts at pest offset
    /// `at`.
    fn raw_body_at(&self, full: &str, at: usize) -> RawAnnotationBody {
        let lead = full.len() - full.trim_start().len();
        let trimmed = full.trim();
        let start = self.base + (at + lead) as u32;
        let span = Span::new(start, start + trimmed.len() as u32);
        let exprs = self.body_exprs(trimmed, start);
        RawAnnotationBody {
            text: trimmed.to_string(),
            span,
            exprs,
        }
    }

    /// The annotation body `trimmed` (at `start`) as an expression list,
    /// when it is one.
    fn body_exprs(&self, trimmed: &str, start: u32) -> Option<Vec<Expr>> {
        match string_body(trimmed) {
            // The most common body, `@name("...")`: what the parse below
            // makes of it, without parsing.
            Some(inner) => Some(vec![Expr {
                kind: ExprKind::Str(inner.to_string()),
                span: Span::new(start, start + trim_trivia_end(trimmed).len() as u32),
            }]),
            None => self.parsed_body_exprs(trimmed, start),
        }
    }

    /// [`Self::body_exprs`] by parsing the body with the grammar.
    fn parsed_body_exprs(&self, trimmed: &str, start: u32) -> Option<Vec<Expr>> {
        // The raw body keeps its comments (the grammar skips none).
        let blanked = crate::trivia::blank(trimmed);
        let mut pairs = P4Parser::parse(Rule::annotation_exprs, &blanked).ok()?;
        let top = pairs.next()?;
        let sub = Builder::new(self.text, start);
        let list = top.into_inner().find(|p| p.as_rule() == Rule::expr_list)?;
        sub.expr_list(list).ok()
    }

    fn kv_list(&self, p: Pair<'_, Rule>) -> Result<Vec<KeyValue>> {
        p.into_inner()
            .map(|kv| self.kv_pair(kv))
            .collect::<Result<_>>()
            .map(fit)
    }

    fn kv_pair(&self, p: Pair<'_, Rule>) -> Result<KeyValue> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        let key = self.ident(k.expect(Rule::ident)?);
        let value = self.expr(k.expect(Rule::expr)?)?;
        Ok(KeyValue { key, value, span })
    }

    fn expr_list(&self, p: Pair<'_, Rule>) -> Result<Vec<Expr>> {
        p.into_inner()
            .map(|e| self.expr(e))
            .collect::<Result<_>>()
            .map(fit)
    }

    // -------------------------------------------------------------- program

    /// Builds one declaration into `out` (two for `typedef struct S {..} T;`).
    fn declaration(&self, p: Pair<'_, Rule>, out: &mut Vec<Decl>) -> Result<()> {
        let span = self.decl_span(&p);
        let mut k = Kids::new(p);
        let ann = self.opt_annotations(&mut k)?;
        let body = k.next()?;
        let decl = match body.as_rule() {
            Rule::const_decl => Decl::Const(self.const_decl(ann, body, span)?),
            Rule::extern_decl => self.extern_decl(ann, body, span)?,
            Rule::action_decl => Decl::Action(self.action_decl(ann, body, span)?),
            Rule::parser_decl => self.parser_decl(ann, body, span)?,
            Rule::control_decl => self.control_decl(ann, body, span)?,
            Rule::package_decl => {
                let mut k = Kids::new(body);
                k.expect(Rule::kw_package)?;
                Decl::Package(self.container_type(ann, &mut k, span)?)
            }
            Rule::header_decl => {
                Decl::Struct(self.struct_decl(ann, StructKind::Header, body, span)?)
            }
            Rule::header_union_decl => {
                Decl::Struct(self.struct_decl(ann, StructKind::HeaderUnion, body, span)?)
            }
            Rule::struct_decl => {
                Decl::Struct(self.struct_decl(ann, StructKind::Struct, body, span)?)
            }
            Rule::enum_decl => Decl::Enum(self.enum_decl(ann, body, span)?),
            Rule::typedef_decl | Rule::newtype_decl => {
                let newtype = body.as_rule() == Rule::newtype_decl;
                let mut k = Kids::new(body);
                k.next()?; // keyword
                let target = k.next()?;
                let ty = match target.as_rule() {
                    Rule::type_ref => self.type_ref(target)?,
                    _ => {
                        let inline = self.inline_type_decl(target)?;
                        let (name, tspan) = match &inline {
                            Decl::Struct(d) => (d.name.clone(), d.span),
                            Decl::Enum(d) => (d.name.clone(), d.span),
                            _ => return Err(internal_at(span.lo as usize, "bad inline typedef")),
                        };
                        out.push(inline);
                        let path = Path {
                            absolute: false,
                            span: name.span,
                            name,
                        };
                        Type {
                            kind: TypeKind::Name(path),
                            span: tspan,
                        }
                    }
                };
                let name = self.ident(k.expect(Rule::ident)?);
                Decl::Typedef(TypedefDecl {
                    annotations: ann,
                    newtype,
                    ty,
                    name,
                    span,
                })
            }
            Rule::error_decl | Rule::match_kind_decl => {
                let is_error = body.as_rule() == Rule::error_decl;
                let mut k = Kids::new(body);
                k.next()?; // keyword
                let members = k
                    .expect(Rule::ident_list)?
                    .into_inner()
                    .map(|i| self.ident(i))
                    .collect::<Vec<_>>();
                let d = IdentListDecl {
                    annotations: ann,
                    members: fit(members),
                    span,
                };
                if is_error {
                    Decl::Error(d)
                } else {
                    Decl::MatchKind(d)
                }
            }
            Rule::instantiation => Decl::Instantiation(self.instantiation(ann, body, span)?),
            Rule::function_decl => Decl::Function(self.function_decl(ann, body, span)?),
            _ => return Err(self.unexpected(&body)),
        };
        out.push(decl);
        Ok(())
    }

    /// The type declared inside `typedef <decl> Name;`.
    fn inline_type_decl(&self, body: Pair<'_, Rule>) -> Result<Decl> {
        let span = self.span(&body);
        let kind = match body.as_rule() {
            Rule::header_decl => StructKind::Header,
            Rule::header_union_decl => StructKind::HeaderUnion,
            Rule::struct_decl => StructKind::Struct,
            Rule::enum_decl => return Ok(Decl::Enum(self.enum_decl(Vec::new(), body, span)?)),
            _ => return Err(self.unexpected(&body)),
        };
        Ok(Decl::Struct(self.struct_decl(
            Vec::new(),
            kind,
            body,
            span,
        )?))
    }

    /// Wraps `ty` into the array sizes that follow a declarator
    /// (`T x[a][b]` is `T[a][b] x`).
    fn declarator_dims(&self, ty: Type, k: &mut Kids<'_>) -> Result<Type> {
        let mut sizes = Vec::new();
        for s in k.all(Rule::stack_size) {
            let sspan = self.span(&s);
            sizes.push((self.expr(Kids::new(s).expect(Rule::expr)?)?, sspan));
        }
        Ok(wrap_dims(ty, sizes))
    }

    fn const_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<ConstDecl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_const)?;
        let ty = self.type_ref(k.expect(Rule::type_ref)?)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let value = self.expr(k.expect(Rule::expr)?)?;
        Ok(ConstDecl {
            annotations,
            ty,
            name,
            value,
            span,
        })
    }

    fn var_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<VarDecl> {
        let mut k = Kids::new(p);
        let ty = self.type_ref(k.expect(Rule::type_ref)?)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let ty = self.declarator_dims(ty, &mut k)?;
        let init = match k.opt(Rule::expr) {
            Some(e) => Some(self.expr(e)?),
            None => None,
        };
        Ok(VarDecl {
            annotations,
            ty,
            name,
            init,
            span,
        })
    }

    fn instantiation(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<Instantiation> {
        let mut k = Kids::new(p);
        let ty = self.type_ref(k.expect(Rule::type_ref)?)?;
        let args = self.args(k.expect(Rule::args)?)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let mut dims = Vec::new();
        for s in k.all(Rule::stack_size) {
            dims.push(self.expr(Kids::new(s).expect(Rule::expr)?)?);
        }
        let initializer = match k.opt(Rule::obj_init) {
            Some(init) => {
                let mut decls = Vec::new();
                for od in init.into_inner() {
                    let od_span = self.decl_span(&od);
                    let mut ok = Kids::new(od);
                    let ann = self.opt_annotations(&mut ok)?;
                    let body = ok.next()?;
                    decls.push(match body.as_rule() {
                        Rule::instantiation => {
                            ObjDecl::Instantiation(self.instantiation(ann, body, od_span)?)
                        }
                        Rule::function_decl => {
                            ObjDecl::Function(self.function_decl(ann, body, od_span)?)
                        }
                        _ => return Err(self.unexpected(&body)),
                    });
                }
                Some(fit(decls))
            }
            None => None,
        };
        Ok(Instantiation {
            annotations,
            ty,
            args,
            name,
            dims: fit(dims),
            initializer,
            span,
        })
    }

    fn type_params(&self, k: &mut Kids<'_>) -> Vec<Ident> {
        match k.opt(Rule::type_params) {
            Some(tp) => fit(tp.into_inner().map(|i| self.ident(i)).collect()),
            None => Vec::new(),
        }
    }

    fn params(&self, p: Pair<'_, Rule>) -> Result<Vec<Param>> {
        p.into_inner()
            .map(|x| self.param(x))
            .collect::<Result<_>>()
            .map(fit)
    }

    fn param(&self, p: Pair<'_, Rule>) -> Result<Param> {
        let span = self.decl_span(&p);
        let mut k = Kids::new(p);
        let annotations = self.opt_annotations(&mut k)?;
        let direction = match k.opt(Rule::direction) {
            Some(d) => match d.into_inner().next().map(|x| x.as_rule()) {
                Some(Rule::kw_in) => Direction::In,
                Some(Rule::kw_out) => Direction::Out,
                Some(Rule::kw_inout) => Direction::InOut,
                _ => Direction::None,
            },
            None => Direction::None,
        };
        let ty = self.type_ref(k.expect(Rule::type_ref)?)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let default = match k.opt(Rule::expr) {
            Some(e) => Some(self.expr(e)?),
            None => None,
        };
        Ok(Param {
            annotations,
            direction,
            ty,
            name,
            default,
            span,
        })
    }

    fn args(&self, p: Pair<'_, Rule>) -> Result<Vec<Argument>> {
        let mut out = Vec::new();
        for a in p.into_inner() {
            let span = self.span(&a);
            let inner = Kids::new(a).next()?;
            out.push(match inner.as_rule() {
                Rule::named_arg => {
                    let mut k = Kids::new(inner);
                    let name = self.ident(k.expect(Rule::ident)?);
                    let value = self.expr(k.expect(Rule::expr)?)?;
                    Argument {
                        name: Some(name),
                        value,
                        span,
                    }
                }
                Rule::expr => Argument {
                    name: None,
                    value: self.expr(inner)?,
                    span,
                },
                _ => return Err(self.unexpected(&inner)),
            });
        }
        Ok(fit(out))
    }

    fn container_type(
        &self,
        annotations: Vec<Annotation>,
        k: &mut Kids<'_>,
        span: Span,
    ) -> Result<ContainerTypeDecl> {
        let name = self.ident(k.expect(Rule::ident)?);
        let type_params = self.type_params(k);
        let params = self.params(k.expect(Rule::params)?)?;
        Ok(ContainerTypeDecl {
            annotations,
            name,
            type_params,
            params,
            span,
        })
    }

    fn struct_decl(
        &self,
        annotations: Vec<Annotation>,
        kind: StructKind,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<StructDecl> {
        let mut k = Kids::new(p);
        k.next()?; // keyword
        let name = self.ident(k.expect(Rule::ident)?);
        let type_params = self.type_params(&mut k);
        let mut fields = Vec::new();
        for f in k.expect(Rule::field_list)?.into_inner() {
            let fspan = self.decl_span(&f);
            let mut fk = Kids::new(f);
            let annotations = self.opt_annotations(&mut fk)?;
            let ty = self.type_ref(fk.expect(Rule::type_ref)?)?;
            let name = self.ident(fk.expect(Rule::ident)?);
            let ty = self.declarator_dims(ty, &mut fk)?;
            fields.push(Field {
                annotations,
                ty,
                name,
                span: fspan,
            });
        }
        Ok(StructDecl {
            annotations,
            kind,
            name,
            type_params,
            fields: fit(fields),
            span,
        })
    }

    fn enum_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<EnumDecl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_enum)?;
        let body = k.next()?;
        let serializable = body.as_rule() == Rule::enum_ser;
        let mut bk = Kids::new(body);
        let underlying = if serializable {
            Some(self.type_ref(bk.expect(Rule::type_ref)?)?)
        } else {
            None
        };
        let name = self.ident(bk.expect(Rule::ident)?);
        let mut members = Vec::new();
        for m in bk.iter.by_ref() {
            let mspan = self.decl_span(&m);
            let mut mk = Kids::new(m);
            let annotations = self.opt_annotations(&mut mk)?;
            let name = self.ident(mk.expect(Rule::ident)?);
            let value = match mk.opt(Rule::expr) {
                Some(e) => Some(self.expr(e)?),
                None => None,
            };
            members.push(EnumMember {
                annotations,
                name,
                value,
                span: mspan,
            });
        }
        Ok(EnumDecl {
            annotations,
            underlying,
            name,
            members: fit(members),
            span,
        })
    }

    // -------------------------------------------------------------- externs, functions

    fn extern_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<Decl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_extern)?;
        let body = k.next()?;
        match body.as_rule() {
            Rule::extern_object => {
                let mut bk = Kids::new(body);
                let name = self.ident(bk.expect(Rule::ident)?);
                let type_params = self.type_params(&mut bk);
                let mut methods = Vec::new();
                for m in bk.all(Rule::method_proto) {
                    methods.push(self.method_proto(m)?);
                }
                Ok(Decl::Extern(ExternDecl {
                    annotations,
                    name,
                    type_params,
                    methods: fit(methods),
                    forward: false,
                    span,
                }))
            }
            Rule::extern_forward => {
                let name = self.ident(Kids::new(body).expect(Rule::ident)?);
                Ok(Decl::Extern(ExternDecl {
                    annotations,
                    name,
                    type_params: Vec::new(),
                    methods: Vec::new(),
                    forward: true,
                    span,
                }))
            }
            Rule::extern_function => {
                let proto = Kids::new(body).expect(Rule::function_proto)?;
                let mut f = self.function_proto(annotations, false, proto)?;
                f.span = span;
                Ok(Decl::ExternFunction(f))
            }
            _ => Err(self.unexpected(&body)),
        }
    }

    fn method_proto(&self, p: Pair<'_, Rule>) -> Result<Method> {
        let span = self.decl_span(&p);
        let mut k = Kids::new(p);
        let annotations = self.opt_annotations(&mut k)?;
        if let Some(c) = k.opt(Rule::constructor_proto) {
            let mut ck = Kids::new(c);
            let name = self.ident(ck.expect(Rule::ident)?);
            let params = self.params(ck.expect(Rule::params)?)?;
            return Ok(Method::Constructor {
                annotations,
                name,
                params,
                span,
            });
        }
        let is_abstract = k.opt(Rule::kw_abstract).is_some();
        let mut f =
            self.function_proto(annotations, is_abstract, k.expect(Rule::function_proto)?)?;
        f.span = span;
        Ok(Method::Method(f))
    }

    fn function_proto(
        &self,
        annotations: Vec<Annotation>,
        is_abstract: bool,
        p: Pair<'_, Rule>,
    ) -> Result<FunctionProto> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        let ret = self.type_or_void(k.expect(Rule::type_or_void)?)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let type_params = self.type_params(&mut k);
        let params = self.params(k.expect(Rule::params)?)?;
        Ok(FunctionProto {
            annotations,
            is_abstract,
            ret,
            name,
            type_params,
            params,
            span,
        })
    }

    fn function_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<FunctionDecl> {
        let mut k = Kids::new(p);
        let proto = self.function_proto(annotations, false, k.expect(Rule::function_proto)?)?;
        let body = self.block(k.expect(Rule::block)?)?;
        Ok(FunctionDecl { proto, body, span })
    }

    fn action_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<ActionDecl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_action)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let params = self.params(k.expect(Rule::params)?)?;
        let body = self.block(k.expect(Rule::block)?)?;
        Ok(ActionDecl {
            annotations,
            name,
            params,
            body,
            span,
        })
    }

    // -------------------------------------------------------------- parsers

    fn parser_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<Decl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_parser)?;
        let proto = self.container_type(annotations, &mut k, span)?;
        let Some(body) = k.opt(Rule::parser_body) else {
            return Ok(Decl::ParserType(proto));
        };
        let mut bk = Kids::new(body);
        let ctor_params = match bk.opt(Rule::ctor_params) {
            Some(c) => self.params(c)?,
            None => Vec::new(),
        };
        let mut locals = Vec::new();
        for l in bk.all(Rule::parser_local) {
            locals.push(self.local_decl(l)?);
        }
        let mut states = Vec::new();
        for s in bk.all(Rule::parser_state) {
            states.push(self.parser_state(s)?);
        }
        Ok(Decl::Parser(ParserDecl {
            annotations: proto.annotations,
            name: proto.name,
            type_params: proto.type_params,
            params: proto.params,
            ctor_params,
            locals: fit(locals),
            states: fit(states),
            span,
        }))
    }

    /// The opening part of a block statement or an `if`, built as
    /// [`Builder::stmt`] builds those statements: one level deeper for the
    /// statement, another for a block.
    fn open_stmt(&self, p: Pair<'_, Rule>) -> Result<Piece> {
        let lo = self.span(&p).lo;
        self.nested(lo as usize, || {
            let mut k = Kids::new(p);
            let annotations = self.opt_annotations(&mut k)?;
            let head = k.next()?;
            match head.as_rule() {
                Rule::block_head => {
                    let block_lo = self.span(&head).lo;
                    self.nested(block_lo as usize, || {
                        let block_annotations = self.opt_annotations(&mut Kids::new(head))?;
                        Ok(Piece::OpenBlock {
                            annotations,
                            lo,
                            block_annotations,
                            block_lo,
                        })
                    })
                }
                Rule::if_head => {
                    let mut hk = Kids::new(head);
                    hk.expect(Rule::kw_if)?;
                    let cond = self.expr(hk.expect(Rule::expr)?)?;
                    Ok(Piece::OpenIf {
                        annotations,
                        lo,
                        cond,
                    })
                }
                _ => Err(self.unexpected(&head)),
            }
        })
    }

    /// `@a parser P<T>(params)(ctor params) {` (or `control`).
    fn container_head(&self, p: Pair<'_, Rule>) -> Result<ContainerHead> {
        let lo = self.decl_span(&p).lo;
        let mut k = Kids::new(p);
        let annotations = self.opt_annotations(&mut k)?;
        let head = k.next()?;
        let is_parser = match head.as_rule() {
            Rule::parser_head => true,
            Rule::control_head => false,
            _ => return Err(self.unexpected(&head)),
        };
        let mut hk = Kids::new(head);
        hk.next()?; // keyword
        let proto = self.container_type(annotations, &mut hk, Span::default())?;
        let ctor_params = match hk.opt(Rule::ctor_params) {
            Some(c) => self.params(c)?,
            None => Vec::new(),
        };
        Ok(ContainerHead {
            is_parser,
            proto,
            ctor_params,
            lo,
        })
    }

    fn local_decl(&self, p: Pair<'_, Rule>) -> Result<LocalDecl> {
        let span = self.decl_span(&p);
        let mut k = Kids::new(p);
        let ann = self.opt_annotations(&mut k)?;
        let body = k.next()?;
        Ok(match body.as_rule() {
            Rule::const_decl => LocalDecl::Const(self.const_decl(ann, body, span)?),
            Rule::var_decl => LocalDecl::Var(self.var_decl(ann, body, span)?),
            Rule::instantiation => LocalDecl::Instantiation(self.instantiation(ann, body, span)?),
            Rule::action_decl => LocalDecl::Action(self.action_decl(ann, body, span)?),
            Rule::table_decl => LocalDecl::Table(self.table_decl(ann, body, span)?),
            Rule::value_set_decl => {
                let mut vk = Kids::new(body);
                vk.expect(Rule::kw_value_set)?;
                let elem = self.type_ref(vk.expect(Rule::type_ref)?)?;
                let size = self.expr(vk.expect(Rule::expr)?)?;
                let name = self.ident(vk.expect(Rule::ident)?);
                LocalDecl::ValueSet(ValueSetDecl {
                    annotations: ann,
                    elem,
                    size,
                    name,
                    span,
                })
            }
            _ => return Err(self.unexpected(&body)),
        })
    }

    fn parser_state(&self, p: Pair<'_, Rule>) -> Result<ParserState> {
        let span = self.decl_span(&p);
        let mut k = Kids::new(p);
        let annotations = self.opt_annotations(&mut k)?;
        k.expect(Rule::kw_state)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let mut stmts = Vec::new();
        for s in k.all(Rule::stmt) {
            stmts.push(self.stmt(s)?);
        }
        let transition = match k.opt(Rule::transition) {
            Some(t) => Some(self.transition(t)?),
            None => None,
        };
        Ok(ParserState {
            annotations,
            name,
            stmts: fit(stmts),
            transition,
            span,
        })
    }

    fn transition(&self, p: Pair<'_, Rule>) -> Result<Transition> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        k.expect(Rule::kw_transition)?;
        let t = k.next()?;
        let kind = match t.as_rule() {
            Rule::ident => TransitionKind::Direct(self.ident(t)),
            Rule::select_expr => {
                let mut sk = Kids::new(t);
                sk.expect(Rule::kw_select)?;
                let exprs = self.expr_list(sk.expect(Rule::expr_list)?)?;
                let mut cases = Vec::new();
                for c in sk.all(Rule::select_case) {
                    let cspan = self.span(&c);
                    let mut ck = Kids::new(c);
                    let keyset = self.keyset(ck.expect(Rule::keyset)?)?;
                    let next = self.ident(ck.expect(Rule::ident)?);
                    cases.push(SelectCase {
                        keyset,
                        next,
                        span: cspan,
                    });
                }
                TransitionKind::Select {
                    exprs,
                    cases: fit(cases),
                }
            }
            _ => return Err(self.unexpected(&t)),
        };
        Ok(Transition { kind, span })
    }

    fn keyset(&self, p: Pair<'_, Rule>) -> Result<Keyset> {
        let inner = Kids::new(p).next()?;
        match inner.as_rule() {
            Rule::simple_keyset => self.simple_keyset(inner),
            Rule::tuple_keyset => {
                let span = self.span(&inner);
                let mut elems = Vec::new();
                for s in inner.into_inner() {
                    elems.push(self.simple_keyset(s)?);
                }
                // `(e)` with a single plain expression is just that expression.
                if elems.len() == 1 {
                    if let Some(KeysetKind::Expr(_)) = elems.first().map(|e| &e.kind) {
                        if let Some(mut only) = elems.pop() {
                            only.span = span;
                            if let KeysetKind::Expr(e) = &mut only.kind {
                                e.span = span;
                            }
                            return Ok(only);
                        }
                    }
                }
                Ok(Keyset {
                    kind: KeysetKind::Tuple(fit(elems)),
                    span,
                })
            }
            _ => Err(self.unexpected(&inner)),
        }
    }

    fn simple_keyset(&self, p: Pair<'_, Rule>) -> Result<Keyset> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        let first = k.next()?;
        let kind = match first.as_rule() {
            Rule::kw_default => KeysetKind::Default,
            Rule::dontcare => KeysetKind::DontCare,
            Rule::expr => {
                let e = self.expr(first)?;
                if let Some(m) = k.opt(Rule::mask_tail) {
                    let mask = self.expr(Kids::new(m).expect(Rule::expr)?)?;
                    KeysetKind::Mask { value: e, mask }
                } else if let Some(r) = k.opt(Rule::range_tail) {
                    let hi = self.expr(Kids::new(r).expect(Rule::expr)?)?;
                    KeysetKind::Range { lo: e, hi }
                } else {
                    KeysetKind::Expr(e)
                }
            }
            _ => return Err(self.unexpected(&first)),
        };
        Ok(Keyset { kind, span })
    }

    // -------------------------------------------------------------- controls

    fn control_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<Decl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_control)?;
        let proto = self.container_type(annotations, &mut k, span)?;
        let Some(body) = k.opt(Rule::control_body) else {
            return Ok(Decl::ControlType(proto));
        };
        let mut bk = Kids::new(body);
        let ctor_params = match bk.opt(Rule::ctor_params) {
            Some(c) => self.params(c)?,
            None => Vec::new(),
        };
        let mut locals = Vec::new();
        for l in bk.all(Rule::control_local) {
            locals.push(self.local_decl(l)?);
        }
        bk.expect(Rule::kw_apply)?;
        let apply = self.block(bk.expect(Rule::block)?)?;
        Ok(Decl::Control(ControlDecl {
            annotations: proto.annotations,
            name: proto.name,
            type_params: proto.type_params,
            params: proto.params,
            ctor_params,
            locals: fit(locals),
            apply,
            span,
        }))
    }

    fn table_decl(
        &self,
        annotations: Vec<Annotation>,
        p: Pair<'_, Rule>,
        span: Span,
    ) -> Result<TableDecl> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_table)?;
        let name = self.ident(k.expect(Rule::ident)?);
        let mut properties = Vec::new();
        for tp in k.all(Rule::table_prop) {
            properties.push(self.table_prop(tp)?);
        }
        Ok(TableDecl {
            annotations,
            name,
            properties: fit(properties),
            span,
        })
    }

    fn table_prop(&self, p: Pair<'_, Rule>) -> Result<TableProperty> {
        let span = self.decl_span(&p);
        let mut k = Kids::new(p);
        let annotations = self.opt_annotations(&mut k)?;
        let body = k.next()?;
        let rule = body.as_rule();
        let mut bk = Kids::new(body);
        let is_const = bk.opt(Rule::kw_const).is_some();
        let kind = match rule {
            Rule::key_prop => {
                bk.expect(Rule::kw_key)?;
                let mut elems = Vec::new();
                for ke in bk.all(Rule::key_element) {
                    let kspan = self.span(&ke);
                    let mut kk = Kids::new(ke);
                    let expr = self.expr(kk.expect(Rule::expr)?)?;
                    let match_kind = self.ident(kk.expect(Rule::ident)?);
                    let annotations = self.opt_annotations(&mut kk)?;
                    elems.push(KeyElement {
                        expr,
                        match_kind,
                        annotations,
                        span: kspan,
                    });
                }
                TablePropertyKind::Key(fit(elems))
            }
            Rule::actions_prop => {
                bk.expect(Rule::kw_actions)?;
                let mut refs = Vec::new();
                for ar in bk.all(Rule::action_ref) {
                    let aspan = self.decl_span(&ar);
                    let mut ak = Kids::new(ar);
                    let annotations = self.opt_annotations(&mut ak)?;
                    let (name, args) = self.action_target(&mut ak)?;
                    refs.push(ActionRef {
                        annotations,
                        name,
                        args,
                        span: aspan,
                    });
                }
                TablePropertyKind::Actions(fit(refs))
            }
            Rule::entries_prop => {
                bk.expect(Rule::kw_entries)?;
                let mut entries = Vec::new();
                for e in bk.all(Rule::entry) {
                    entries.push(self.entry(e)?);
                }
                TablePropertyKind::Entries(fit(entries))
            }
            Rule::custom_prop => {
                let name = self.ident(bk.expect(Rule::ident)?);
                let value = self.expr(bk.expect(Rule::expr)?)?;
                TablePropertyKind::Custom { name, value }
            }
            _ => return Err(internal_at(span.lo as usize, "unexpected table property")),
        };
        Ok(TableProperty {
            annotations,
            is_const,
            kind,
            span,
        })
    }

    fn action_target(&self, k: &mut Kids<'_>) -> Result<(Path, Option<Vec<Argument>>)> {
        let name = self.path(k.expect(Rule::path)?)?;
        let args = match k.opt(Rule::args) {
            Some(a) => Some(self.args(a)?),
            None => None,
        };
        Ok((name, args))
    }

    fn entry(&self, p: Pair<'_, Rule>) -> Result<Entry> {
        let span = self.span(&p);
        let mut k = Kids::new(p);
        let is_const = k.opt(Rule::kw_const).is_some();
        let priority = match k.opt(Rule::entry_priority) {
            Some(pr) => {
                let mut pk = Kids::new(pr);
                pk.expect(Rule::kw_priority)?;
                let v = pk.next()?;
                Some(match v.as_rule() {
                    Rule::int_lit => self.int_expr(v)?,
                    _ => self.expr(v)?,
                })
            }
            None => None,
        };
        let keyset = self.keyset(k.expect(Rule::keyset)?)?;
        let ea = k.expect(Rule::entry_action)?;
        let aspan = self.span(&ea);
        let mut ak = Kids::new(ea);
        let (name, args) = self.action_target(&mut ak)?;
        let annotations = self.opt_annotations(&mut k)?;
        Ok(Entry {
            is_const,
            priority,
            keyset,
            action: ActionRef {
                annotations: Vec::new(),
                name,
                args,
                span: aspan,
            },
            annotations,
            span,
        })
    }

    // -------------------------------------------------------------- statements

    fn block(&self, p: Pair<'_, Rule>) -> Result<Block> {
        let span = self.span(&p);
        let at = span.lo as usize;
        self.nested(at, || {
            let mut k = Kids::new(p);
            let annotations = self.opt_annotations(&mut k)?;
            let mut stmts = Vec::new();
            for s in k.all(Rule::stmt) {
                stmts.push(self.stmt(s)?);
            }
            Ok(Block {
                annotations,
                stmts: fit(stmts),
                span,
            })
        })
    }

    fn stmt(&self, p: Pair<'_, Rule>) -> Result<Stmt> {
        let span = self.span(&p);
        let at = span.lo as usize;
        self.nested(at, || {
            let mut k = Kids::new(p);
            let annotations = self.opt_annotations(&mut k)?;
            let body = k.next()?;
            let kind = self.stmt_kind(annotations.clone(), body, span)?;
            Ok(Stmt {
                annotations: annotations.into(),
                kind,
                span,
            })
        })
    }

    fn stmt_kind(
        &self,
        ann: Vec<Annotation>,
        body: Pair<'_, Rule>,
        span: Span,
    ) -> Result<StmtKind> {
        Ok(match body.as_rule() {
            Rule::if_stmt => {
                let mut k = Kids::new(body);
                k.expect(Rule::kw_if)?;
                let cond = self.expr(k.expect(Rule::expr)?)?;
                let then = self.stmt(k.expect(Rule::stmt)?)?;
                let els = if k.opt(Rule::kw_else).is_some() {
                    Some(self.stmt(k.expect(Rule::stmt)?)?)
                } else {
                    None
                };
                StmtKind::If(Box::new(IfStmt { cond, then, els }))
            }
            Rule::switch_stmt => {
                let mut k = Kids::new(body);
                k.expect(Rule::kw_switch)?;
                let expr = self.expr(k.expect(Rule::expr)?)?;
                let mut cases = Vec::new();
                for c in k.all(Rule::switch_case) {
                    let cspan = self.span(&c);
                    let mut ck = Kids::new(c);
                    let label_pair = ck.expect(Rule::switch_label)?;
                    let lp = Kids::new(label_pair).next()?;
                    let label = match lp.as_rule() {
                        Rule::kw_default => SwitchLabel::Default,
                        _ => SwitchLabel::Expr(self.expr(lp)?),
                    };
                    let body = match ck.opt(Rule::block) {
                        Some(b) => Some(self.block(b)?),
                        None => None,
                    };
                    cases.push(SwitchCase {
                        label,
                        body,
                        span: cspan,
                    });
                }
                StmtKind::Switch(Box::new(SwitchStmt {
                    expr,
                    cases: fit(cases),
                }))
            }
            Rule::return_stmt => {
                let mut k = Kids::new(body);
                k.expect(Rule::kw_return)?;
                match k.opt(Rule::expr) {
                    Some(e) => StmtKind::Return(Some(Box::new(self.expr(e)?))),
                    None => StmtKind::Return(None),
                }
            }
            Rule::exit_stmt => StmtKind::Exit,
            Rule::break_stmt => StmtKind::Break,
            Rule::continue_stmt => StmtKind::Continue,
            Rule::empty_stmt => StmtKind::Empty,
            Rule::block => StmtKind::Block(Box::new(self.block(body)?)),
            Rule::const_decl => StmtKind::Const(Box::new(self.const_decl(ann, body, span)?)),
            Rule::var_decl => StmtKind::Var(Box::new(self.var_decl(ann, body, span)?)),
            Rule::instantiation => {
                StmtKind::Instantiation(Box::new(self.instantiation(ann, body, span)?))
            }
            Rule::assign_or_call => {
                let mut k = Kids::new(body);
                let lhs = self.expr(k.expect(Rule::expr)?)?;
                match k.opt(Rule::assign_rhs) {
                    Some(r) => self.assign(lhs, r, span)?,
                    None => self.call_stmt(lhs)?,
                }
            }
            Rule::assignment => {
                let mut k = Kids::new(body);
                let lhs = self.expr(k.expect(Rule::place)?)?;
                self.assign(lhs, k.expect(Rule::assign_rhs)?, span)?
            }
            Rule::for_stmt => self.for_stmt(body)?,
            _ => return Err(self.unexpected(&body)),
        })
    }

    /// `lhs = rhs` or a compound assignment, desugared to
    /// `lhs = lhs op rhs`.
    fn assign(&self, lhs: Expr, r: Pair<'_, Rule>, span: Span) -> Result<StmtKind> {
        let mut k = Kids::new(r);
        let op = k.expect(Rule::assign_op)?;
        let rhs = self.expr(k.expect(Rule::expr)?)?;
        let bin = match op.as_str() {
            "=" => return Ok(StmtKind::Assign(Box::new(AssignStmt { lhs, rhs }))),
            "+=" => BinaryOp::Add,
            "-=" => BinaryOp::Sub,
            "*=" => BinaryOp::Mul,
            "/=" => BinaryOp::Div,
            "%=" => BinaryOp::Mod,
            "<<=" => BinaryOp::Shl,
            ">>=" => BinaryOp::Shr,
            "&=" => BinaryOp::BitAnd,
            "|=" => BinaryOp::BitOr,
            "^=" => BinaryOp::BitXor,
            "|+|=" => BinaryOp::AddSat,
            "|-|=" => BinaryOp::SubSat,
            _ => return Err(self.unexpected(&op)),
        };
        let value = Expr {
            kind: ExprKind::Binary {
                op: bin,
                lhs: Box::new(lhs.clone()),
                rhs: Box::new(rhs),
            },
            span: Span::new(lhs.span.lo, span.hi.max(lhs.span.hi)),
        };
        Ok(StmtKind::Assign(Box::new(AssignStmt { lhs, rhs: value })))
    }

    fn call_stmt(&self, e: Expr) -> Result<StmtKind> {
        if matches!(e.kind, ExprKind::Call { .. }) {
            Ok(StmtKind::Call(Box::new(e)))
        } else {
            Err(SyntaxError {
                offset: e.span.hi as usize,
                message: "expected `=` or `(`: an expression alone is not a statement".to_string(),
            })
        }
    }

    fn for_stmt(&self, p: Pair<'_, Rule>) -> Result<StmtKind> {
        let mut k = Kids::new(p);
        k.expect(Rule::kw_for)?;
        let head = k.next()?;
        let body_pair = k.expect(Rule::stmt)?;
        match head.as_rule() {
            Rule::for_in_head => {
                let mut hk = Kids::new(head);
                let _ann = self.opt_annotations(&mut hk)?;
                let ty = match hk.opt(Rule::type_ref) {
                    Some(t) => Some(self.type_ref(t)?),
                    None => None,
                };
                let var = self.ident(hk.expect(Rule::ident)?);
                hk.expect(Rule::kw_in)?;
                let mut ck = Kids::new(hk.expect(Rule::for_collection)?);
                let first = self.expr(ck.expect(Rule::expr)?)?;
                let collection = match ck.opt(Rule::range_tail) {
                    Some(r) => ForCollection::Range {
                        lo: first,
                        hi: self.expr(Kids::new(r).expect(Rule::expr)?)?,
                    },
                    None => ForCollection::Expr(first),
                };
                let body = self.stmt(body_pair)?;
                Ok(StmtKind::ForIn(Box::new(ForInStmt {
                    ty,
                    var,
                    collection,
                    body,
                })))
            }
            Rule::for_c_head => {
                let mut hk = Kids::new(head);
                let init = self.for_simple_list(hk.expect(Rule::for_init)?)?;
                let cond = match hk.opt(Rule::expr) {
                    Some(e) => Some(self.expr(e)?),
                    None => None,
                };
                let update = self.for_simple_list(hk.expect(Rule::for_update)?)?;
                let body = self.stmt(body_pair)?;
                Ok(StmtKind::For(Box::new(ForStmt {
                    init,
                    cond,
                    update,
                    body,
                })))
            }
            _ => Err(self.unexpected(&head)),
        }
    }

    fn for_simple_list(&self, p: Pair<'_, Rule>) -> Result<Vec<Stmt>> {
        let mut out = Vec::new();
        for s in p.into_inner() {
            let span = self.span(&s);
            let mut k = Kids::new(s);
            let first = k.next()?;
            let (annotations, kind) = match first.as_rule() {
                Rule::for_var => {
                    let mut vk = Kids::new(first);
                    let ann = self.opt_annotations(&mut vk)?;
                    let ty = self.type_ref(vk.expect(Rule::type_ref)?)?;
                    let name = self.ident(vk.expect(Rule::ident)?);
                    let init = Some(self.expr(vk.expect(Rule::expr)?)?);
                    (
                        ann.clone(),
                        StmtKind::Var(Box::new(VarDecl {
                            annotations: ann,
                            ty,
                            name,
                            init,
                            span,
                        })),
                    )
                }
                Rule::expr => {
                    let lhs = self.expr(first)?;
                    let kind = match k.opt(Rule::assign_rhs) {
                        Some(r) => self.assign(lhs, r, span)?,
                        None => self.call_stmt(lhs)?,
                    };
                    (Vec::new(), kind)
                }
                _ => return Err(self.unexpected(&first)),
            };
            out.push(Stmt {
                annotations: annotations.into(),
                kind,
                span,
            });
        }
        Ok(fit(out))
    }

    // -------------------------------------------------------------- types

    fn type_or_void(&self, p: Pair<'_, Rule>) -> Result<Type> {
        let inner = Kids::new(p).next()?;
        match inner.as_rule() {
            Rule::kw_void => Ok(Type {
                kind: TypeKind::Void,
                span: self.span(&inner),
            }),
            _ => self.type_ref(inner),
        }
    }

    fn type_arg(&self, p: Pair<'_, Rule>) -> Result<Type> {
        let inner = Kids::new(p).next()?;
        let span = self.span(&inner);
        match inner.as_rule() {
            Rule::kw_void => Ok(Type {
                kind: TypeKind::Void,
                span,
            }),
            Rule::dontcare => Ok(Type {
                kind: TypeKind::DontCare,
                span,
            }),
            _ => self.type_ref(inner),
        }
    }

    fn type_args(&self, p: Pair<'_, Rule>) -> Result<Vec<Type>> {
        p.into_inner()
            .map(|a| self.type_arg(a))
            .collect::<Result<_>>()
            .map(fit)
    }

    fn type_ref(&self, p: Pair<'_, Rule>) -> Result<Type> {
        let span = self.span(&p);
        let at = span.lo as usize;
        self.nested(at, || {
            let mut k = Kids::new(p);
            let core = k.next()?;
            let core_ty = self.type_core(core)?;
            let dims: Vec<_> = k.all(Rule::stack_size).collect();
            self.with_ops(at, dims.len(), || {
                let mut sizes = Vec::new();
                for s in dims {
                    let sspan = self.span(&s);
                    sizes.push((self.expr(Kids::new(s).expect(Rule::expr)?)?, sspan));
                }
                Ok(wrap_dims(core_ty, sizes))
            })
        })
    }

    fn width(&self, k: &mut Kids<'_>) -> Result<Option<Box<Expr>>> {
        match k.opt(Rule::width) {
            Some(w) => {
                let inner = Kids::new(w).expect(Rule::width_expr)?;
                Ok(Some(Box::new(self.expr(inner)?)))
            }
            None => Ok(None),
        }
    }

    fn type_core(&self, p: Pair<'_, Rule>) -> Result<Type> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::kw_bool => TypeKind::Bool,
            Rule::kw_string => TypeKind::String,
            Rule::kw_error => TypeKind::Error,
            Rule::kw_match_kind => TypeKind::MatchKind,
            Rule::bit_type => {
                let mut k = Kids::new(p);
                k.expect(Rule::kw_bit)?;
                TypeKind::Bit {
                    width: self.width(&mut k)?,
                }
            }
            Rule::int_type => {
                let mut k = Kids::new(p);
                k.expect(Rule::kw_int)?;
                TypeKind::Int {
                    width: self.width(&mut k)?,
                }
            }
            Rule::varbit_type => {
                let mut k = Kids::new(p);
                k.expect(Rule::kw_varbit)?;
                match self.width(&mut k)? {
                    Some(width) => TypeKind::Varbit { width },
                    None => return Err(internal_at(span.lo as usize, "varbit without width")),
                }
            }
            Rule::tuple_type => {
                let mut k = Kids::new(p);
                k.expect(Rule::kw_tuple)?;
                TypeKind::Tuple(self.type_args(k.expect(Rule::type_arg_list)?)?)
            }
            Rule::list_type => {
                let mut k = Kids::new(p);
                k.expect(Rule::kw_list)?;
                TypeKind::List(Box::new(self.type_arg(k.expect(Rule::type_arg)?)?))
            }
            Rule::named_type => {
                let mut k = Kids::new(p);
                let base = self.path(k.expect(Rule::path)?)?;
                match k.opt(Rule::type_arg_list) {
                    Some(a) => TypeKind::Specialized {
                        base,
                        args: self.type_args(a)?,
                    },
                    None => TypeKind::Name(base),
                }
            }
            _ => return Err(self.unexpected(&p)),
        };
        Ok(Type { kind, span })
    }

    // -------------------------------------------------------------- expressions

    fn expr(&self, p: Pair<'_, Rule>) -> Result<Expr> {
        let at = self.offset(&p);
        // The flat operand/operator sequence becomes a tree at most as deep
        // as it has operators; checking that count first also bounds the
        // recursion of the Pratt parser (one level per prefix operator).
        let mut ops = 0;
        let mut only_postfix = true;
        for c in p.clone().into_inner() {
            let r = c.as_rule();
            if !is_primary(r) {
                ops += 1;
                only_postfix &= is_postfix(r);
            }
        }
        self.nested(at, || {
            self.with_ops(at, ops, || {
                if only_postfix {
                    return self.postfix_chain(p.into_inner());
                }
                pratt()
                    .map_primary(|x| self.primary(x))
                    .map_prefix(|op, rhs| self.prefix(op, rhs?))
                    .map_postfix(|lhs, op| self.postfix(lhs?, op))
                    .map_infix(|lhs, op, rhs| self.infix(lhs?, op, rhs?))
                    .parse(p.into_inner())
            })
        })
    }

    /// An operand and its postfix operators (`hdr.ip.ttl`, `t.apply()`,
    /// most expressions), applied left to right as the Pratt parser
    /// would (they all bind tightest), without its per-expression set-up.
    fn postfix_chain(&self, mut kids: Pairs<'_, Rule>) -> Result<Expr> {
        let Some(first) = kids.next() else {
            return Err(internal_at(self.base as usize, "empty expression"));
        };
        let mut e = self.primary(first)?;
        for op in kids {
            e = self.postfix(e, op)?;
        }
        Ok(e)
    }

    fn int_expr(&self, p: Pair<'_, Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let lit = parse_int(p.as_str()).map_err(|m| SyntaxError {
            offset: span.lo as usize,
            message: m,
        })?;
        Ok(Expr {
            kind: ExprKind::Int(lit),
            span,
        })
    }

    fn primary(&self, p: Pair<'_, Rule>) -> Result<Expr> {
        let span = self.span(&p);
        let kind = match p.as_rule() {
            Rule::int_lit => return self.int_expr(p),
            Rule::string_lit => {
                let inner = p.into_inner().next().map(|s| s.as_str()).unwrap_or("");
                ExprKind::Str(inner.to_string())
            }
            Rule::kw_true => ExprKind::Bool(true),
            Rule::kw_false => ExprKind::Bool(false),
            Rule::kw_this => ExprKind::This,
            Rule::kw_error => ExprKind::Path(Path {
                absolute: false,
                name: Ident {
                    name: crate::name::intern("error"),
                    span,
                },
                span,
            }),
            Rule::dots => ExprKind::Dots,
            Rule::invalid_header => ExprKind::InvalidHeader,
            Rule::dontcare => ExprKind::DontCare,
            Rule::path => ExprKind::Path(self.path(p)?),
            Rule::paren => {
                let inner = Kids::new(p).expect(Rule::expr)?;
                let mut e = self.expr(inner)?;
                e.span = span;
                return Ok(e);
            }
            Rule::list_expr => ExprKind::List(
                p.into_inner()
                    .map(|e| self.expr(e))
                    .collect::<Result<_>>()
                    .map(fit)?,
            ),
            Rule::struct_expr => {
                let mut fields = Vec::new();
                let mut rest = false;
                for x in p.into_inner() {
                    match x.as_rule() {
                        Rule::kv_pair => fields.push(self.kv_pair(x)?),
                        Rule::dots => rest = true,
                        _ => return Err(self.unexpected(&x)),
                    }
                }
                ExprKind::Struct {
                    fields: fit(fields),
                    rest,
                }
            }
            _ => return Err(self.unexpected(&p)),
        };
        Ok(Expr { kind, span })
    }

    fn prefix(&self, op: Pair<'_, Rule>, rhs: Expr) -> Result<Expr> {
        let span = self.span(&op).to(rhs.span);
        let unary = match op.as_rule() {
            Rule::lnot => UnaryOp::Not,
            Rule::bnot => UnaryOp::Complement,
            Rule::neg => UnaryOp::Neg,
            Rule::pos => UnaryOp::Plus,
            Rule::cast => {
                let ty = self.type_ref(Kids::new(op).expect(Rule::type_ref)?)?;
                return Ok(Expr {
                    kind: ExprKind::Cast {
                        ty: Box::new(ty),
                        expr: Box::new(rhs),
                    },
                    span,
                });
            }
            _ => return Err(self.unexpected(&op)),
        };
        Ok(Expr {
            kind: ExprKind::Unary {
                op: unary,
                expr: Box::new(rhs),
            },
            span,
        })
    }

    fn postfix(&self, lhs: Expr, op: Pair<'_, Rule>) -> Result<Expr> {
        let span = lhs.span.to(self.span(&op));
        let kind = match op.as_rule() {
            Rule::member => ExprKind::Member {
                base: Box::new(lhs),
                member: self.ident(Kids::new(op).expect(Rule::ident)?),
            },
            Rule::index => {
                let mut k = Kids::new(op);
                let first = self.expr(k.expect(Rule::expr)?)?;
                match k.iter.next() {
                    Some(tail) => {
                        let rule = tail.as_rule();
                        let second = Box::new(self.expr(Kids::new(tail).expect(Rule::expr)?)?);
                        match rule {
                            Rule::slice_tail => ExprKind::Slice {
                                base: Box::new(lhs),
                                hi: Box::new(first),
                                lo: second,
                            },
                            _ => ExprKind::WidthSlice {
                                base: Box::new(lhs),
                                start: Box::new(first),
                                width: second,
                                up: rule == Rule::up_slice_tail,
                            },
                        }
                    }
                    None => ExprKind::Index {
                        base: Box::new(lhs),
                        index: Box::new(first),
                    },
                }
            }
            Rule::specialize => ExprKind::Specialize {
                base: Box::new(lhs),
                type_args: self.type_args(Kids::new(op).expect(Rule::type_arg_list)?)?,
            },
            Rule::call => ExprKind::Call {
                callee: Box::new(lhs),
                type_args: Box::default(),
                args: self.args(Kids::new(op).expect(Rule::args)?)?.into(),
            },
            Rule::generic_call => {
                let mut k = Kids::new(op);
                let type_args = self.type_args(k.expect(Rule::type_arg_list)?)?;
                let args = self.args(k.expect(Rule::args)?)?;
                ExprKind::Call {
                    callee: Box::new(lhs),
                    type_args: type_args.into(),
                    args: args.into(),
                }
            }
            _ => return Err(self.unexpected(&op)),
        };
        Ok(Expr { kind, span })
    }

    fn infix(&self, lhs: Expr, op: Pair<'_, Rule>, rhs: Expr) -> Result<Expr> {
        let span = lhs.span.to(rhs.span);
        let bin = match op.as_rule() {
            Rule::ternary => {
                let then = self.expr(Kids::new(op).expect(Rule::expr)?)?;
                return Ok(Expr {
                    kind: ExprKind::Ternary {
                        cond: Box::new(lhs),
                        then: Box::new(then),
                        els: Box::new(rhs),
                    },
                    span,
                });
            }
            Rule::lor => BinaryOp::Or,
            Rule::land => BinaryOp::And,
            Rule::eq => BinaryOp::Eq,
            Rule::ne => BinaryOp::Ne,
            Rule::lt => BinaryOp::Lt,
            Rule::gt => BinaryOp::Gt,
            Rule::le => BinaryOp::Le,
            Rule::ge => BinaryOp::Ge,
            Rule::bor => BinaryOp::BitOr,
            Rule::bxor => BinaryOp::BitXor,
            Rule::band => BinaryOp::BitAnd,
            Rule::shl => BinaryOp::Shl,
            Rule::shr => BinaryOp::Shr,
            Rule::concat => BinaryOp::Concat,
            Rule::add => BinaryOp::Add,
            Rule::sub => BinaryOp::Sub,
            Rule::add_sat => BinaryOp::AddSat,
            Rule::sub_sat => BinaryOp::SubSat,
            Rule::mul => BinaryOp::Mul,
            Rule::div => BinaryOp::Div,
            Rule::modulo => BinaryOp::Mod,
            _ => return Err(self.unexpected(&op)),
        };
        Ok(Expr {
            kind: ExprKind::Binary {
                op: bin,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        })
    }
}

/// The body of an annotation whose raw text is `text[lo..hi]`, as the
/// builder makes it (for the fast path, see `crate::fast`).
pub(crate) fn raw_annotation_body(text: &str, lo: usize, hi: usize) -> RawAnnotationBody {
    Builder::new(text, 0).raw_body_at(text.get(lo..hi).unwrap_or(""), lo)
}

/// `v` without spare capacity: a vector that grew by pushes holds up to
/// twice its length (at least 4 elements), and AST vectors live until the
/// program is lowered.
pub(crate) fn fit<T>(mut v: Vec<T>) -> Vec<T> {
    v.shrink_to_fit();
    v
}

/// `T` wrapped into array sizes given outermost first: `T[a][b]` is an
/// `a`-element array of `T[b]`.
/// The message for nesting beyond [`MAX_DEPTH`].
pub(crate) fn too_deep_message() -> String {
    format!("program nested too deeply (limit {MAX_DEPTH} nested blocks, statements, types and brackets)")
}

/// True for the rules that are operands in an `expr` / `width_expr`
/// sequence (everything else there is an operator).
fn is_primary(r: Rule) -> bool {
    matches!(
        r,
        Rule::path
            | Rule::int_lit
            | Rule::string_lit
            | Rule::kw_true
            | Rule::kw_false
            | Rule::kw_this
            | Rule::kw_error
            | Rule::dots
            | Rule::invalid_header
            | Rule::struct_expr
            | Rule::list_expr
            | Rule::paren
            | Rule::dontcare
    )
}

/// True for the postfix operators of an `expr` sequence.
fn is_postfix(r: Rule) -> bool {
    matches!(
        r,
        Rule::member | Rule::index | Rule::call | Rule::generic_call | Rule::specialize
    )
}

/// `T` wrapped into array sizes given outermost first (`T[2][3]`).
pub(crate) fn wrap_dims(core: Type, sizes: Vec<(Expr, Span)>) -> Type {
    let mut ty = core;
    for (size, sspan) in sizes.into_iter().rev() {
        let span = ty.span.to(sspan);
        ty = Type {
            kind: TypeKind::Stack {
                elem: Box::new(ty),
                size: Box::new(size),
            },
            span,
        };
    }
    ty
}

/// The value of `text` when it is exactly one string literal (as the
/// grammar's `string_lit` reads it: `"`, then any characters with `\\`
/// escaping the next one, then `"`), else `None`.
fn string_body(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return (i + 1 == b.len()).then(|| text.get(1..i)).flatten(),
            _ => i += 1,
        }
    }
    None
}

/// `text` without trailing whitespace and comments.
pub(crate) fn trim_trivia_end(text: &str) -> &str {
    let t = text.trim_end();
    // Every node's span is trimmed, and almost none ends in a comment:
    // one backward pass over the last line finds no `//` and no closing
    // `*/`, and the general walk below is skipped.
    if t.ends_with("*/") {
        return trim_comments_end(t);
    }
    let mut prev = 0u8;
    for &c in t.as_bytes().iter().rev() {
        if c == b'\n' {
            return t;
        }
        if c == b'/' && prev == b'/' {
            return trim_comments_end(t);
        }
        prev = c;
    }
    t
}

/// [`trim_trivia_end`] of `t`, already without trailing whitespace, whose
/// last line may hold a comment.
fn trim_comments_end(mut t: &str) -> &str {
    loop {
        if t.ends_with("*/") {
            match t.rfind("/*") {
                Some(i) => t = t.get(..i).unwrap_or("").trim_end(),
                None => return t,
            }
            continue;
        }
        let line_start = t.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let last_line = t.get(line_start..).unwrap_or("");
        // Every span is trimmed, and almost no line holds a comment: a
        // substring search is cheaper than the walk over quotes below.
        if !last_line.contains("//") {
            return t;
        }
        let mut in_string = false;
        let mut prev = '\0';
        let mut cut = None;
        for (i, c) in last_line.char_indices() {
            if c == '"' && prev != '\\' {
                in_string = !in_string;
            }
            if !in_string && c == '/' && prev == '/' {
                cut = Some(line_start + i - 1);
                break;
            }
            prev = c;
        }
        match cut {
            Some(i) if i > 0 => t = t.get(..i).unwrap_or("").trim_end(),
            _ => return t,
        }
    }
}

/// Parses the text of an integer literal (`42`, `0x2A`, `8w0x0F`, `32s5`,
/// `1_000`).
pub(crate) fn parse_int(text: &str) -> std::result::Result<IntLit, String> {
    let mut rest = text;
    let mut width = None;
    let lead = rest.bytes().take_while(u8::is_ascii_digit).count();
    if lead > 0 {
        let marker = rest.as_bytes().get(lead).copied();
        if marker == Some(b'w') || marker == Some(b's') {
            let bits: u32 = rest
                .get(..lead)
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| {
                    format!(
                        "integer width `{}` is too large",
                        rest.get(..lead).unwrap_or("")
                    )
                })?;
            width = Some(IntWidth {
                bits,
                signed: marker == Some(b's'),
            });
            rest = rest.get(lead + 1..).unwrap_or("");
        }
    }
    let (radix, digits): (u8, &str) = match rest.get(..2) {
        Some("0x") | Some("0X") => (16, rest.get(2..).unwrap_or("")),
        Some("0b") | Some("0B") => (2, rest.get(2..).unwrap_or("")),
        Some("0o") | Some("0O") => (8, rest.get(2..).unwrap_or("")),
        Some("0d") | Some("0D") => (10, rest.get(2..).unwrap_or("")),
        _ => (10, rest),
    };
    // The digits are read in place: only a literal too large for `u128`
    // keeps them (without `_`) in a string of its own.
    let clean = || digits.chars().filter(|c| *c != '_');
    if clean().next().is_none() {
        return Err(format!("integer literal `{text}` has no digits"));
    }
    let mut value: Option<u128> = Some(0);
    for c in clean() {
        let d = c
            .to_digit(u32::from(radix))
            .ok_or_else(|| format!("invalid digit `{c}` in integer literal `{text}`"))?;
        value = value
            .and_then(|v| v.checked_mul(u128::from(radix)))
            .and_then(|v| v.checked_add(u128::from(d)));
    }
    let value = match value {
        Some(v) => IntValue::Small(v.into()),
        None => IntValue::Big(clean().collect::<String>().into()),
    };
    Ok(IntLit {
        value,
        width,
        radix,
    })
}

#[cfg(test)]
mod string_body_tests {
    use super::{string_body, Builder};

    /// A body that is one string literal gets, without parsing, the
    /// expressions (value and span) the grammar gives it; other bodies
    /// are parsed.
    #[test]
    fn a_string_body_is_what_parsing_it_gives() {
        let strings = [
            r#""""#,
            r#""ingress.acl""#,
            r#""a \" b""#,
            r#""a\\""#,
            "\"two\nlines\"",
            r#""http://x/y""#,
            "\"one\nx//y\"",
            r#""é ü""#,
        ];
        for text in strings {
            let b = Builder::new(text, 7);
            assert!(string_body(text).is_some(), "{text}");
            let parsed = b.parsed_body_exprs(text, 7);
            assert!(parsed.is_some(), "{text}");
            assert_eq!(b.body_exprs(text, 7), parsed, "{text}");
        }
        let others = [
            r#""a" "b""#,
            r#""a", "b""#,
            r#""a" + 1"#,
            r#""a\""#,
            r#""unclosed"#,
            r#""a" // c"#,
            "x",
            "1, 2",
        ];
        for text in others {
            assert_eq!(string_body(text), None, "{text}");
        }
    }
}

#[cfg(test)]
mod fast_path_tests {
    use super::{pratt, trim_comments_end, trim_trivia_end, Builder, Kids};
    use crate::grammar::{P4Parser, Rule};
    use pest::Parser;

    /// The one-pass trim gives what the general comment walk gives.
    #[test]
    fn trimming_matches_the_comment_walk() {
        let texts = [
            "a ",
            "a // c",
            "@pragma x y // z  ",
            "a\n/* x */",
            "a /* x */ \n",
            "x = \"//\";",
            "f(\"a//b\") // c",
            "a\nb // c\nd",
            "a\nb\n// c",
            "*/",
            "/",
            "",
            "ab/ /c",
        ];
        for t in texts {
            assert_eq!(trim_trivia_end(t), trim_comments_end(t.trim_end()), "{t:?}");
        }
    }

    /// An operand with postfix operators only, built without the Pratt
    /// parser, is the tree the Pratt parser builds.
    #[test]
    fn postfix_chains_match_the_pratt_parser() {
        let exprs = [
            "a",
            "hdr.ip.ttl",
            "t.apply()",
            "a[1].b[2:0]",
            "x[3 +: 4]",
            "f<bit<8>>(x, y)",
            "P<bit>.apply",
            "(a + b).c",
            "8w5",
            "\"s\"",
            "{ a, b }.f",
        ];
        for text in exprs {
            let mut top = P4Parser::parse(Rule::annotation_exprs, text).expect(text);
            let list = top.next().expect(text).into_inner().next().expect(text);
            let e = Kids::new(list).expect(Rule::expr).expect(text);
            let b = Builder::new(text, 0);
            let fast = b.expr(e.clone()).expect(text);
            let slow = pratt()
                .map_primary(|x| b.primary(x))
                .map_prefix(|op, rhs| b.prefix(op, rhs?))
                .map_postfix(|lhs, op| b.postfix(lhs?, op))
                .map_infix(|lhs, op, rhs| b.infix(lhs?, op, rhs?))
                .parse(e.into_inner())
                .expect(text);
            assert_eq!(fast, slow, "{text}");
        }
    }
}
