//! Parser and control declarations: their locals, states, transitions,
//! keysets and tables.

use super::{exact, fit, span, P};
use crate::ast::*;

impl<'t> P<'t> {
    /// `parser_decl`: a prototype or a parser with its body.
    pub(super) fn parser_decl(&mut self, ann: Vec<Annotation>) -> Option<Decl> {
        let lo = self.at();
        self.kw(b"parser");
        let proto = self.container_type(ann)?;
        if self.eat(b";") {
            return Some(Decl::ParserType(self.finish_proto(proto, lo)));
        }
        let ctor_params = self.ctor_params()?;
        self.expect(b"{")?;
        let mut locals = std::mem::take(&mut self.bufs.locals);
        while self.peek() != b'}' {
            let m = self.mark();
            let ann = self.annotations()?;
            if self.peek_word() == b"state" && self.word_after().1 == b'{' {
                self.reset(m);
                break;
            }
            locals.push(self.local(ann, true)?);
        }
        let mut states = std::mem::take(&mut self.bufs.states);
        while self.peek() != b'}' {
            states.push(self.parser_state()?);
        }
        self.eat(b"}");
        let states_list = exact(&mut states);
        self.bufs.states = states;
        let locals_list = exact(&mut locals);
        self.bufs.locals = locals;
        Some(Decl::Parser(ParserDecl {
            annotations: proto.annotations,
            name: proto.name,
            type_params: proto.type_params,
            params: proto.params,
            ctor_params,
            locals: locals_list,
            states: states_list,
            span: span(lo, self.last),
        }))
    }

    /// `ctor_params?`
    fn ctor_params(&mut self) -> Option<Vec<Param>> {
        if self.peek() == b'(' {
            self.params()
        } else {
            Some(Vec::new())
        }
    }

    /// `control_decl`: a prototype or a control with its body.
    pub(super) fn control_decl(&mut self, ann: Vec<Annotation>) -> Option<Decl> {
        let lo = self.at();
        self.kw(b"control");
        let proto = self.container_type(ann)?;
        if self.eat(b";") {
            return Some(Decl::ControlType(self.finish_proto(proto, lo)));
        }
        let ctor_params = self.ctor_params()?;
        self.expect(b"{")?;
        let mut locals = std::mem::take(&mut self.bufs.locals);
        loop {
            if self.peek_word() == b"apply" {
                let after = super::lexer::skip_ws(self.b, self.pos + 5);
                if matches!(self.byte(after), b'{' | b'@') {
                    break;
                }
            }
            let ann = self.annotations()?;
            locals.push(self.local(ann, false)?);
        }
        let locals_list = exact(&mut locals);
        self.bufs.locals = locals;
        self.kw(b"apply");
        let apply = self.block()?;
        self.expect(b"}")?;
        Some(Decl::Control(ControlDecl {
            annotations: proto.annotations,
            name: proto.name,
            type_params: proto.type_params,
            params: proto.params,
            ctor_params,
            locals: locals_list,
            apply,
            span: span(lo, self.last),
        }))
    }

    /// `parser_local` / `control_local` after its annotations.
    fn local(&mut self, ann: Vec<Annotation>, parser: bool) -> Option<LocalDecl> {
        let lo = self.at();
        let w = self.peek_word();
        match w {
            b"const" => return Some(LocalDecl::Const(self.const_decl(ann)?)),
            b"value_set" if parser => return self.value_set(ann, lo),
            b"action" if !parser => return Some(LocalDecl::Action(self.action_decl(ann)?)),
            b"table" if !parser => return Some(LocalDecl::Table(self.table_decl(ann, lo)?)),
            _ => {}
        }
        let we = self.word_end_at(lo);
        let call_ahead = we > lo && self.byte(super::lexer::skip_ws(self.b, we)) == b'(';
        if !call_ahead {
            if let Some(v) = self.attempt(|p| p.var_decl(ann.clone())) {
                return Some(LocalDecl::Var(v));
            }
            if self.abort {
                return None;
            }
        }
        Some(LocalDecl::Instantiation(self.instantiation(ann)?))
    }

    /// `value_set_decl = kw_value_set ~ "<" ~ type_ref ~ ">" ~ "(" ~ expr
    /// ~ ")" ~ ident ~ ";"`
    fn value_set(&mut self, annotations: Vec<Annotation>, lo: usize) -> Option<LocalDecl> {
        self.kw(b"value_set");
        self.expect(b"<")?;
        let elem = self.type_ref()?;
        self.expect(b">")?;
        self.expect(b"(")?;
        let size = self.expr()?;
        self.expect(b")")?;
        let name = self.ident()?;
        self.expect(b";")?;
        Some(LocalDecl::ValueSet(ValueSetDecl {
            annotations,
            elem,
            size,
            name,
            span: span(lo, self.last),
        }))
    }

    /// `parser_state = annotations ~ kw_state ~ ident ~ "{" ~ stmt* ~
    /// transition? ~ "}"`
    fn parser_state(&mut self) -> Option<ParserState> {
        let annotations = self.annotations()?;
        let lo = self.at();
        if !self.kw(b"state") {
            return None;
        }
        let name = self.ident()?;
        self.expect(b"{")?;
        let mut stmts = Vec::new();
        while self.peek() != b'}' && self.peek_word() != b"transition" {
            stmts.push(self.stmt()?);
        }
        let transition = if self.peek_word() == b"transition" {
            Some(self.transition()?)
        } else {
            None
        };
        self.expect(b"}")?;
        Some(ParserState {
            annotations,
            name,
            stmts: fit(stmts),
            transition,
            span: span(lo, self.last),
        })
    }

    /// `transition = kw_transition ~ (select_expr ~ ";"? | ident ~ ";")`
    fn transition(&mut self) -> Option<Transition> {
        let lo = self.at();
        self.kw(b"transition");
        let kind = if self.kw(b"select") {
            self.expect(b"(")?;
            let exprs = self.expr_list()?;
            self.expect(b")")?;
            self.expect(b"{")?;
            let mut cases = std::mem::take(&mut self.bufs.cases);
            while self.peek() != b'}' {
                let clo = self.at();
                let keyset = self.keyset()?;
                self.expect(b":")?;
                let next = self.ident()?;
                self.expect(b";")?;
                cases.push(SelectCase {
                    keyset,
                    next,
                    span: span(clo, self.last),
                });
            }
            self.eat(b"}");
            self.eat(b";");
            let list = exact(&mut cases);
            self.bufs.cases = cases;
            TransitionKind::Select { exprs, cases: list }
        } else {
            let next = self.ident()?;
            self.expect(b";")?;
            TransitionKind::Direct(next)
        };
        Some(Transition {
            kind,
            span: span(lo, self.last),
        })
    }

    /// `keyset = tuple_keyset | simple_keyset`
    pub(super) fn keyset(&mut self) -> Option<Keyset> {
        if self.peek() == b'(' {
            if let Some(k) = self.attempt(|p| p.tuple_keyset()) {
                return Some(k);
            }
            if self.abort {
                return None;
            }
        }
        self.simple_keyset()
    }

    /// `"(" ~ simple_keyset ~ ("," ~ simple_keyset)* ~ ")" ~ &":"`
    fn tuple_keyset(&mut self) -> Option<Keyset> {
        let lo = self.at();
        self.eat(b"(");
        let mut elems = vec![self.simple_keyset()?];
        while self.eat(b",") {
            elems.push(self.simple_keyset()?);
        }
        self.expect(b")")?;
        let sp = span(lo, self.last);
        if self.peek() != b':' {
            return None;
        }
        if elems.len() == 1 {
            if let Some(Keyset {
                kind: KeysetKind::Expr(mut e),
                ..
            }) = elems.pop()
            {
                e.span = sp;
                return Some(Keyset {
                    kind: KeysetKind::Expr(e),
                    span: sp,
                });
            }
            return self.stop();
        }
        Some(Keyset {
            kind: KeysetKind::Tuple(fit(elems)),
            span: sp,
        })
    }

    /// `simple_keyset = kw_default | dontcare | expr ~ (mask_tail |
    /// range_tail)?`
    fn simple_keyset(&mut self) -> Option<Keyset> {
        let lo = self.at();
        let kind = if self.kw(b"default") {
            KeysetKind::Default
        } else if self.peek_word() == b"_" {
            self.take_to(lo + 1);
            KeysetKind::DontCare
        } else {
            let e = self.expr()?;
            if self.eat(b"&&&") {
                KeysetKind::Mask {
                    value: e,
                    mask: self.expr()?,
                }
            } else if self.eat(b"..") {
                KeysetKind::Range {
                    lo: e,
                    hi: self.expr()?,
                }
            } else {
                KeysetKind::Expr(e)
            }
        };
        Some(Keyset {
            kind,
            span: span(lo, self.last),
        })
    }
}
