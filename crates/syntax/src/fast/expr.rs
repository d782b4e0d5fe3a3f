//! Expressions: the grammar's flat `prefix* primary postfix* (infix ...)*`
//! sequence read into the tree the builder's Pratt parser makes of it
//! (p4c's precedence: the bitwise operators bind tighter than the
//! comparisons; `?:` lowest and right-associative).

use super::{fit, lexer, span, P};
use crate::ast::{BinaryOp, Expr, ExprKind, Path, Type, UnaryOp};
use crate::builder::MAX_EXPR_DEPTH;

/// An infix operator of the grammar's `infix_alts`.
#[derive(Clone, Copy)]
enum Infix {
    Ternary,
    Bin(BinaryOp),
}

/// The infix operator at `i` and its length, tried in the grammar's order;
/// `width` leaves out `>`, `>=` and `>>` (`width_infix`).
fn infix_at(b: &[u8], i: usize, width: bool) -> Option<(Infix, usize)> {
    use BinaryOp::*;
    let c = |k: usize| b.get(i + k).copied().unwrap_or(0);
    let bin = |op, n| Some((Infix::Bin(op), n));
    match c(0) {
        b'?' => Some((Infix::Ternary, 1)),
        b'|' if c(1) == b'|' => bin(Or, 2),
        b'|' if c(1) == b'+' && c(2) == b'|' => bin(AddSat, 3),
        b'|' if c(1) == b'-' && c(2) == b'|' => bin(SubSat, 3),
        b'|' => bin(BitOr, 1),
        b'&' if c(1) == b'&' => (c(2) != b'&').then_some((Infix::Bin(And), 2)),
        b'&' => bin(BitAnd, 1),
        b'=' if c(1) == b'=' => bin(Eq, 2),
        b'!' if c(1) == b'=' => bin(Ne, 2),
        b'<' if c(1) == b'=' => bin(Le, 2),
        b'<' if c(1) == b'<' => bin(Shl, 2),
        b'<' => bin(Lt, 1),
        b'>' if width => None,
        b'>' if c(1) == b'=' => bin(Ge, 2),
        b'>' if c(1) == b'>' => bin(Shr, 2),
        b'>' => bin(Gt, 1),
        b'+' if c(1) == b'+' => bin(Concat, 2),
        b'+' => bin(Add, 1),
        b'-' => bin(Sub, 1),
        b'*' => bin(Mul, 1),
        b'/' => bin(Div, 1),
        b'%' => bin(Mod, 1),
        b'^' => bin(BitXor, 1),
        _ => None,
    }
}

impl<'t> P<'t> {
    /// The grammar's `expr`: fails without consuming.
    pub(super) fn expr(&mut self) -> Option<Expr> {
        self.expr_rule(Flavor::Full)
    }

    /// `width_expr` (inside `bit<...>`).
    pub(super) fn width_expr(&mut self) -> Option<Expr> {
        self.expr_rule(Flavor::Width)
    }

    /// The `place` of an assignment (`path ~ (member | index)*`), built as
    /// the builder builds it: as an expression.
    pub(super) fn place(&mut self) -> Option<Expr> {
        self.expr_rule(Flavor::Place)
    }

    /// One `expr` node of the builder: a nesting level, and its operators
    /// on top of the enclosing expressions' (see `MAX_EXPR_DEPTH`).
    fn expr_rule(&mut self, flavor: Flavor) -> Option<Expr> {
        let m = self.mark();
        self.enter()?;
        let saved = (self.own, self.inner_req, self.ended, self.ops);
        self.own = 0;
        self.inner_req = 0;
        self.ended = false;
        let r = match flavor {
            Flavor::Place => self.place_chain(),
            _ => self.binary(1, flavor == Flavor::Width),
        };
        let req = self.own + self.inner_req;
        self.own = saved.0;
        self.inner_req = saved.1.max(req);
        self.ended = saved.2;
        self.ops = saved.3;
        self.leave();
        if req > MAX_EXPR_DEPTH {
            return self.stop();
        }
        if r.is_none() {
            self.reset(m);
        }
        r
    }

    /// Counts one operator of the expression being read.
    pub(super) fn count_op(&mut self) -> Option<()> {
        self.own += 1;
        self.ops += 1;
        if self.ops > MAX_EXPR_DEPTH {
            return self.stop();
        }
        Some(())
    }

    /// Operands joined by infix operators binding at least `min`; an
    /// operator whose operand fails ends the whole sequence before it.
    fn binary(&mut self, min: u8, width: bool) -> Option<Expr> {
        let mut lhs = self.operand()?;
        while !self.ended {
            let m = self.mark();
            let i = self.at();
            let Some((op, len)) = infix_at(self.b, i, width) else {
                break;
            };
            let (pw, right) = match op {
                Infix::Ternary => (1, true),
                Infix::Bin(b) => (b.precedence(), false),
            };
            if pw < min {
                break;
            }
            self.take_to(i + len);
            let then = match op {
                Infix::Ternary => match self.expr().filter(|_| self.eat(b":")) {
                    Some(t) => Some(t),
                    None => {
                        self.end_at(m);
                        break;
                    }
                },
                Infix::Bin(_) => None,
            };
            self.count_op()?;
            let Some(rhs) = self.binary(if right { pw } else { pw + 1 }, width) else {
                if self.abort {
                    return None;
                }
                self.end_at(m);
                break;
            };
            lhs = combine(op, lhs, then, rhs);
        }
        Some(lhs)
    }

    /// Ends the expression sequence before the operator at `m`.
    fn end_at(&mut self, m: super::Mark) {
        self.reset(m);
        self.ended = true;
    }

    /// `prefix_op* ~ primary ~ postfix_op*`, prefix operators applied
    /// after the postfix ones (they bind less tightly).
    fn operand(&mut self) -> Option<Expr> {
        let lo = self.at();
        match self.byte(lo) {
            b'!' | b'~' | b'-' | b'+' => {
                let op = match self.byte(lo) {
                    b'!' => UnaryOp::Not,
                    b'~' => UnaryOp::Complement,
                    b'-' => UnaryOp::Neg,
                    _ => UnaryOp::Plus,
                };
                self.take_to(lo + 1);
                self.count_op()?;
                let e = self.operand()?;
                let sp = span(lo, lo + 1).to(e.span);
                Some(Expr {
                    kind: ExprKind::Unary {
                        op,
                        expr: Box::new(e),
                    },
                    span: sp,
                })
            }
            b'(' => match self.cast()? {
                Some(ty) => {
                    let cast_hi = self.last;
                    self.count_op()?;
                    let e = self.operand()?;
                    let sp = span(lo, cast_hi).to(e.span);
                    Some(Expr {
                        kind: ExprKind::Cast {
                            ty: Box::new(ty),
                            expr: Box::new(e),
                        },
                        span: sp,
                    })
                }
                None => self.postfixed(),
            },
            _ => self.postfixed(),
        }
    }

    /// `cast` at a `(`: `Some(Some(type))` when one is taken, `Some(None)`
    /// when the parenthesis is no cast (nothing consumed).
    fn cast(&mut self) -> Option<Option<Type>> {
        let m = self.mark();
        self.take_to(self.pos + 1);
        let builtin = match self.peek_word() {
            b"bit" | b"int" | b"varbit" | b"bool" | b"tuple" | b"string" => true,
            b"list" => {
                let after = lexer::skip_ws(self.b, self.pos + 4);
                self.byte(after) == b'<'
            }
            _ => false,
        };
        let ty = self.type_ref().filter(|_| self.eat(b")"));
        if self.abort {
            return None;
        }
        match ty {
            Some(ty) if builtin || self.cast_follows() => Some(Some(ty)),
            _ => {
                self.reset(m);
                Some(None)
            }
        }
    }

    /// `&cast_follow`: what can only start an operand.
    fn cast_follows(&mut self) -> bool {
        let i = self.at();
        match self.byte(i) {
            b'(' | b'!' | b'~' | b'{' => true,
            b'"' => lexer::string_end(self.b, i).is_some(),
            b'0'..=b'9' => lexer::int_lit_end(self.b, i).is_some(),
            _ => {
                let w = self.peek_word();
                matches!(w, b"true" | b"false" | b"this" | b"error")
                    || !(w.is_empty() || w == b"_" || lexer::is_reserved(w))
            }
        }
    }

    /// `primary ~ postfix_op*`
    fn postfixed(&mut self) -> Option<Expr> {
        let mut e = self.primary()?;
        loop {
            let lo = self.at();
            let kind = match self.byte(lo) {
                b'.' => match self.member(e) {
                    Ok(x) => x,
                    Err(x) => return Some(x),
                },
                b'[' | b'(' | b'<' => {
                    let m = self.mark();
                    match self.bracket_postfix(&mut e)? {
                        Some(k) => k,
                        None => {
                            self.reset(m);
                            return Some(e);
                        }
                    }
                }
                _ => return Some(e),
            };
            self.count_op()?;
            let sp = e_span_to(&kind, lo, self.last);
            e = Expr { kind, span: sp };
        }
    }

    /// `member = "." ~ ident` after `base`: `Err(base)` back when no
    /// member follows.
    fn member(&mut self, base: Expr) -> Result<ExprKind, Expr> {
        let m = self.mark();
        self.eat(b".");
        match self.ident() {
            Some(member) => Ok(ExprKind::Member {
                base: Box::new(base),
                member,
            }),
            None => {
                self.reset(m);
                Err(base)
            }
        }
    }

    /// `index`, `call`, `generic_call` or `specialize` after `e` (which is
    /// moved into the result): `Some(None)` when none matches.
    fn bracket_postfix(&mut self, e: &mut Expr) -> Option<Option<ExprKind>> {
        let lo = self.pos;
        let mut base = || Box::new(std::mem::replace(e, placeholder()));
        match self.byte(lo) {
            b'[' => {
                let Some(k) = self.index_tail()? else {
                    return Some(None);
                };
                Some(Some(k.with_base(base())))
            }
            b'(' => match self.args() {
                Some(args) => Some(Some(ExprKind::Call {
                    callee: base(),
                    type_args: Box::default(),
                    args: args.into(),
                })),
                None if self.abort => None,
                None => Some(None),
            },
            _ => {
                let Some(type_args) = self.type_arg_list() else {
                    return if self.abort { None } else { Some(None) };
                };
                if let Some(args) = self.args() {
                    return Some(Some(ExprKind::Call {
                        callee: base(),
                        type_args: type_args.into(),
                        args: args.into(),
                    }));
                }
                if self.abort || !self.member_follows() {
                    return if self.abort { None } else { Some(None) };
                }
                Some(Some(ExprKind::Specialize {
                    base: base(),
                    type_args,
                }))
            }
        }
    }

    /// `&("." ~ ident)`
    fn member_follows(&mut self) -> bool {
        let m = self.mark();
        let ok = self.eat(b".") && self.ident().is_some();
        self.reset(m);
        ok
    }

    /// `"[" ~ expr ~ (slice_tail | up_slice_tail | down_slice_tail)? ~ "]"`
    fn index_tail(&mut self) -> Option<Option<IndexTail>> {
        self.eat(b"[");
        let Some(first) = self.expr() else {
            return if self.abort { None } else { Some(None) };
        };
        let tail = if self.eat(b":") {
            Some((0u8, self.expr()))
        } else if self.eat(b"+:") {
            Some((1, self.expr()))
        } else if self.eat(b"-:") {
            Some((2, self.expr()))
        } else {
            None
        };
        let r = match tail {
            None => IndexTail::Index(first),
            Some((_, None)) => return self.stop(),
            Some((0, Some(lo))) => IndexTail::Slice(first, lo),
            Some((k, Some(w))) => IndexTail::Width(first, w, k == 1),
        };
        if !self.eat(b"]") {
            return self.stop();
        }
        Some(Some(r))
    }

    /// The grammar's `primary`.
    fn primary(&mut self) -> Option<Expr> {
        let lo = self.at();
        let c = self.byte(lo);
        let kind = match c {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' | b'.' => self.word_primary(lo)?,
            b'0'..=b'9' => return self.int_expr(),
            b'"' => {
                let end = lexer::string_end(self.b, lo)?;
                if !lexer::string_is_plain(self.b.get(lo..end)?) {
                    return self.stop();
                }
                self.take_to(end);
                ExprKind::Str(self.text.get(lo + 1..end - 1)?.to_string())
            }
            b'{' => return self.brace_primary(lo),
            b'(' => {
                self.take_to(lo + 1);
                let mut e = self.expr()?;
                self.expect(b")")?;
                e.span = span(lo, self.last);
                return Some(e);
            }
            _ => return None,
        };
        Some(Expr {
            kind,
            span: span(lo, self.last),
        })
    }

    /// `path | kw_true | kw_false | kw_this | kw_error | dots | dontcare`
    fn word_primary(&mut self, lo: usize) -> Option<ExprKind> {
        if let Some(p) = self.path() {
            return Some(ExprKind::Path(p));
        }
        let w = self.peek_word();
        let kind = match w {
            b"true" => ExprKind::Bool(true),
            b"false" => ExprKind::Bool(false),
            b"this" => ExprKind::This,
            b"error" => {
                let name = self.ident_at(lo, lo + 5);
                ExprKind::Path(Path {
                    absolute: false,
                    span: name.span,
                    name,
                })
            }
            b"_" => ExprKind::DontCare,
            b"" if self.b.get(lo..lo + 3) == Some(b"...") => {
                self.take_to(lo + 3);
                return Some(ExprKind::Dots);
            }
            _ => return None,
        };
        self.take_to(lo + w.len());
        Some(kind)
    }

    /// An integer literal, its value as `parse_int` reads it.
    pub(super) fn int_expr(&mut self) -> Option<Expr> {
        let lo = self.at();
        let end = lexer::int_lit_end(self.b, lo)?;
        let Ok(lit) = crate::builder::parse_int(self.text.get(lo..end)?) else {
            return self.stop();
        };
        self.take_to(end);
        Some(Expr {
            kind: ExprKind::Int(lit),
            span: span(lo, end),
        })
    }

    /// `invalid_header | struct_expr | list_expr` at a `{`.
    fn brace_primary(&mut self, lo: usize) -> Option<Expr> {
        let mut i = lo + 1;
        while matches!(self.byte(i), b' ' | b'\t') {
            i += 1;
        }
        if self.byte(i) == b'#' {
            let mut j = i + 1;
            while matches!(self.byte(j), b' ' | b'\t') {
                j += 1;
            }
            if self.byte(j) == b'}' {
                self.take_to(j + 1);
                return Some(Expr {
                    kind: ExprKind::InvalidHeader,
                    span: span(lo, j + 1),
                });
            }
        }
        let kind = match self.struct_expr() {
            Some(k) => k,
            None if self.abort => return None,
            None => self.list_expr()?,
        };
        Some(Expr {
            kind,
            span: span(lo, self.last),
        })
    }

    /// `"{" ~ kv_pair ~ ("," ~ kv_pair)* ~ ("," ~ dots)? ~ ","? ~ "}"`
    fn struct_expr(&mut self) -> Option<ExprKind> {
        let m = self.mark();
        self.eat(b"{");
        let mut fields = Vec::new();
        let mut rest = false;
        let ok = (|| {
            fields.push(self.kv_pair()?);
            while self.eat(b",") {
                if self.eat(b"...") {
                    rest = true;
                    self.eat(b",");
                    break;
                }
                match self.kv_pair() {
                    Some(kv) => fields.push(kv),
                    None => break,
                }
            }
            self.expect(b"}")
        })();
        if ok.is_none() {
            self.reset(m);
            return None;
        }
        Some(ExprKind::Struct {
            fields: fit(fields),
            rest,
        })
    }

    /// `"{" ~ (expr ~ ("," ~ expr)*)? ~ ","? ~ "}"`
    fn list_expr(&mut self) -> Option<ExprKind> {
        self.eat(b"{");
        let mut items = Vec::new();
        if let Some(first) = self.expr() {
            items.push(first);
            while self.eat(b",") {
                match self.expr() {
                    Some(e) => items.push(e),
                    None => break,
                }
            }
        }
        if self.abort {
            return None;
        }
        self.expect(b"}")?;
        Some(ExprKind::List(fit(items)))
    }

    /// `path ~ (member | index)*`
    fn place_chain(&mut self) -> Option<Expr> {
        let lo = self.at();
        let p = self.path()?;
        let mut e = Expr {
            span: p.span,
            kind: ExprKind::Path(p),
        };
        loop {
            let at = self.at();
            let kind = match self.byte(at) {
                b'.' => match self.member(e) {
                    Ok(k) => k,
                    Err(x) => return Some(x),
                },
                b'[' => {
                    let m = self.mark();
                    match self.index_tail()? {
                        Some(t) => t.with_base(Box::new(e)),
                        None => {
                            self.reset(m);
                            return Some(e);
                        }
                    }
                }
                _ => return Some(e),
            };
            self.count_op()?;
            e = Expr {
                kind,
                span: span(lo, self.last),
            };
        }
    }
}

/// Which expression rule is read.
#[derive(Clone, Copy, PartialEq)]
enum Flavor {
    Full,
    Width,
    Place,
}

/// What an `index` postfix holds.
enum IndexTail {
    Index(Expr),
    Slice(Expr, Expr),
    Width(Expr, Expr, bool),
}

impl IndexTail {
    fn with_base(self, base: Box<Expr>) -> ExprKind {
        match self {
            IndexTail::Index(i) => ExprKind::Index {
                base,
                index: Box::new(i),
            },
            IndexTail::Slice(hi, lo) => ExprKind::Slice {
                base,
                hi: Box::new(hi),
                lo: Box::new(lo),
            },
            IndexTail::Width(start, width, up) => ExprKind::WidthSlice {
                base,
                start: Box::new(start),
                width: Box::new(width),
                up,
            },
        }
    }
}

fn placeholder() -> Expr {
    Expr {
        kind: ExprKind::Dots,
        span: crate::ast::Span::default(),
    }
}

/// The span of a postfix application: its base's span to the operator's
/// end.
fn e_span_to(kind: &ExprKind, lo: usize, hi: usize) -> crate::ast::Span {
    let base = match kind {
        ExprKind::Member { base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::WidthSlice { base, .. }
        | ExprKind::Specialize { base, .. } => base.span,
        ExprKind::Call { callee, .. } => callee.span,
        _ => span(lo, hi),
    };
    base.to(span(lo, hi))
}

fn combine(op: Infix, lhs: Expr, then: Option<Expr>, rhs: Expr) -> Expr {
    let sp = lhs.span.to(rhs.span);
    let kind = match op {
        Infix::Bin(op) => ExprKind::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        Infix::Ternary => ExprKind::Ternary {
            cond: Box::new(lhs),
            then: Box::new(then.unwrap_or_else(placeholder)),
            els: Box::new(rhs),
        },
    };
    Expr { kind, span: sp }
}
