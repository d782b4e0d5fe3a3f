//! Types, type arguments, parameters and call arguments.

use super::{fit, lexer, span, P};
use crate::ast::{Argument, Direction, Expr, Param, Type, TypeKind};
use crate::builder::wrap_dims;

impl<'t> P<'t> {
    /// `type_ref = type_core ~ stack_size*`; fails without consuming.
    pub(super) fn type_ref(&mut self) -> Option<Type> {
        self.attempts += 1;
        if self.attempts > self.budget {
            return self.stop();
        }
        let m = self.mark();
        self.enter()?;
        let r = self.type_ref_inner();
        self.leave();
        if r.is_none() {
            self.reset(m);
        }
        r
    }

    fn type_ref_inner(&mut self) -> Option<Type> {
        let core = self.type_core()?;
        let saved = (self.own, self.inner_req);
        self.own = 0;
        self.inner_req = 0;
        let mut sizes = Vec::new();
        while self.peek() == b'[' {
            let m = self.mark();
            match self.stack_size() {
                Some(s) => {
                    self.count_op()?;
                    sizes.push(s);
                }
                None if self.abort => return None,
                None => {
                    self.reset(m);
                    break;
                }
            }
        }
        let req = self.own + self.inner_req;
        self.ops -= self.own.min(self.ops);
        self.own = saved.0;
        self.inner_req = saved.1.max(req);
        if req > crate::builder::MAX_EXPR_DEPTH {
            return self.stop();
        }
        Some(wrap_dims(core, sizes))
    }

    /// `"[" ~ expr ~ "]"` with its span.
    pub(super) fn stack_size(&mut self) -> Option<(Expr, crate::ast::Span)> {
        let lo = self.at();
        self.expect(b"[")?;
        let e = self.expr()?;
        self.expect(b"]")?;
        Some((e, span(lo, self.last)))
    }

    fn type_core(&mut self) -> Option<Type> {
        let lo = self.at();
        let w = self.peek_word();
        let kind = match w {
            b"bit" | b"int" | b"varbit" => {
                self.kw(w);
                let width = self.width();
                if self.abort {
                    return None;
                }
                match (w, width) {
                    (b"bit", width) => TypeKind::Bit { width },
                    (b"int", width) => TypeKind::Int { width },
                    (_, Some(width)) => TypeKind::Varbit { width },
                    (_, None) => return None,
                }
            }
            b"bool" | b"string" | b"error" | b"match_kind" => {
                self.kw(w);
                match w {
                    b"bool" => TypeKind::Bool,
                    b"string" => TypeKind::String,
                    b"error" => TypeKind::Error,
                    _ => TypeKind::MatchKind,
                }
            }
            b"tuple" => {
                self.kw(w);
                TypeKind::Tuple(self.type_arg_list()?)
            }
            b"list" => match self.list_type() {
                Some(k) => k,
                None if self.abort => return None,
                None => self.named_type()?,
            },
            _ => self.named_type()?,
        };
        Some(Type {
            kind,
            span: span(lo, self.last),
        })
    }

    /// `kw_list ~ "<" ~ type_arg ~ ">"`, failing without consuming.
    fn list_type(&mut self) -> Option<TypeKind> {
        let m = self.mark();
        self.kw(b"list");
        let r = (|| {
            self.expect(b"<")?;
            let t = self.type_arg()?;
            self.expect(b">")?;
            Some(TypeKind::List(Box::new(t)))
        })();
        if r.is_none() {
            self.reset(m);
        }
        r
    }

    /// `path ~ type_arg_list?`
    fn named_type(&mut self) -> Option<TypeKind> {
        let base = self.path()?;
        if self.peek() != b'<' {
            return Some(TypeKind::Name(base));
        }
        let m = self.mark();
        match self.type_arg_list() {
            Some(args) => Some(TypeKind::Specialized { base, args }),
            None if self.abort => None,
            None => {
                self.reset(m);
                Some(TypeKind::Name(base))
            }
        }
    }

    /// `width?` of `bit` / `int` / `varbit`: `"<" ~ width_expr ~ ">"`.
    fn width(&mut self) -> Option<Box<Expr>> {
        if self.peek() != b'<' {
            return None;
        }
        let m = self.mark();
        self.eat(b"<");
        if let Some(w) = self.plain_width() {
            if w.is_none() {
                self.reset(m);
            }
            return w.map(Box::new);
        }
        let r = self.width_expr().filter(|_| self.eat(b">"));
        if r.is_none() {
            self.reset(m);
        }
        r.map(Box::new)
    }

    /// The commonest width, an integer literal then `>`, read as
    /// `width_expr` reads it (one expression level, no operator) without
    /// its machinery: `None` when the width is not one.
    fn plain_width(&mut self) -> Option<Option<Expr>> {
        let lo = self.at();
        let end = lexer::int_lit_end(self.b, lo)?;
        if self.byte(lexer::skip_ws(self.b, end)) != b'>' {
            return None;
        }
        if self.depth >= crate::builder::MAX_DEPTH {
            return Some(self.stop());
        }
        let e = self.int_expr();
        Some(e.filter(|_| self.eat(b">")))
    }

    /// `type_arg_list = "<" ~ (type_arg ~ ("," ~ type_arg)*)? ~ ">"`,
    /// failing without consuming.
    pub(super) fn type_arg_list(&mut self) -> Option<Vec<Type>> {
        let m = self.mark();
        let r = (|| {
            self.expect(b"<")?;
            let mut out = Vec::new();
            if let Some(first) = self.type_arg() {
                out.push(first);
                while self.eat(b",") {
                    out.push(self.type_arg()?);
                }
            }
            if self.abort {
                return None;
            }
            self.expect(b">")?;
            Some(fit(out))
        })();
        if r.is_none() {
            self.reset(m);
        }
        r
    }

    /// `type_arg = dontcare | kw_void | type_ref`
    pub(super) fn type_arg(&mut self) -> Option<Type> {
        let lo = self.at();
        match self.peek_word() {
            b"_" => {
                self.take_to(lo + 1);
                Some(Type {
                    kind: TypeKind::DontCare,
                    span: span(lo, lo + 1),
                })
            }
            b"void" => self.type_or_void(),
            _ => self.type_ref(),
        }
    }

    /// `type_or_void = kw_void | type_ref`
    pub(super) fn type_or_void(&mut self) -> Option<Type> {
        let lo = self.at();
        if self.kw(b"void") {
            return Some(Type {
                kind: TypeKind::Void,
                span: span(lo, self.last),
            });
        }
        self.type_ref()
    }

    /// `"(" ~ (param ~ ("," ~ param)*)? ~ ")"`
    pub(super) fn params(&mut self) -> Option<Vec<Param>> {
        self.expect(b"(")?;
        let mut out = std::mem::take(&mut self.bufs.params);
        if self.peek() != b')' {
            loop {
                out.push(self.param()?);
                if !self.eat(b",") {
                    break;
                }
            }
        }
        self.expect(b")")?;
        let list = super::exact(&mut out);
        self.bufs.params = out;
        Some(list)
    }

    fn param(&mut self) -> Option<Param> {
        let annotations = self.annotations()?;
        let lo = self.at();
        let direction = match self.peek_word() {
            b"in" => Direction::In,
            b"out" => Direction::Out,
            b"inout" => Direction::InOut,
            _ => Direction::None,
        };
        if direction != Direction::None {
            let w = self.peek_word();
            self.kw(w);
        }
        let ty = self.type_ref()?;
        let name = self.ident()?;
        let default = if self.eat(b"=") {
            Some(self.expr()?)
        } else {
            None
        };
        Some(Param {
            annotations,
            direction,
            ty,
            name,
            default,
            span: span(lo, self.last),
        })
    }

    /// `args = "(" ~ ")" | "(" ~ arg ~ ("," ~ arg)* ~ ")"`
    pub(super) fn args(&mut self) -> Option<Vec<Argument>> {
        let m = self.mark();
        let r = (|| {
            self.expect(b"(")?;
            let mut out = std::mem::take(&mut self.bufs.args);
            if !self.eat(b")") {
                loop {
                    out.push(self.arg()?);
                    if !self.eat(b",") {
                        break;
                    }
                }
                self.expect(b")")?;
            }
            let list = super::exact(&mut out);
            self.bufs.args = out;
            Some(list)
        })();
        if r.is_none() {
            self.reset(m);
        }
        r
    }

    /// `arg = named_arg | expr`
    fn arg(&mut self) -> Option<Argument> {
        let lo = self.at();
        let word = self.word_end_at(lo);
        if word > lo && self.byte(lexer::skip_ws(self.b, word)) == b'=' {
            let m = self.mark();
            if let Some(name) = self.ident() {
                if self.eat(b"=") {
                    if let Some(value) = self.expr() {
                        return Some(Argument {
                            name: Some(name),
                            value,
                            span: span(lo, self.last),
                        });
                    }
                }
            }
            if self.abort {
                return None;
            }
            self.reset(m);
        }
        let value = self.expr()?;
        Some(Argument {
            name: None,
            value,
            span: span(lo, self.last),
        })
    }
}
