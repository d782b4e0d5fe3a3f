//! Blocks and statements. A statement that fails aborts the declaration:
//! the grammar's recovery from a failed statement only ever leads to an
//! error, which the slow path reports.

use super::{fit, lexer, span, P};
use crate::ast::*;
use crate::builder::wrap_dims;

impl<'t> P<'t> {
    /// `block = annotations ~ "{" ~ stmt* ~ "}"`; a failure aborts.
    pub(super) fn block(&mut self) -> Option<Block> {
        let lo = self.at();
        self.enter()?;
        let r = self.block_inner(lo);
        self.leave();
        if r.is_none() {
            return self.stop();
        }
        r
    }

    fn block_inner(&mut self, lo: usize) -> Option<Block> {
        let annotations = self.annotations()?;
        self.expect(b"{")?;
        let mut buf = std::mem::take(&mut self.bufs.stmts);
        while self.peek() != b'}' {
            buf.push(self.stmt()?);
        }
        self.eat(b"}");
        let stmts = super::exact(&mut buf);
        self.bufs.stmts = buf;
        Some(Block {
            annotations,
            stmts,
            span: span(lo, self.last),
        })
    }

    /// `stmt = annotations ~ stmt_body`; a failure aborts.
    pub(super) fn stmt(&mut self) -> Option<Stmt> {
        let lo = self.at();
        self.enter()?;
        let r = self.stmt_inner(lo);
        self.leave();
        if r.is_none() {
            return self.stop();
        }
        r
    }

    fn stmt_inner(&mut self, lo: usize) -> Option<Stmt> {
        let annotations = self.annotations()?;
        let mut kind = if self.peek() == b'{' {
            StmtKind::Block(Box::new(self.block()?))
        } else {
            self.stmt_other(&annotations)?
        };
        let sp = span(lo, self.last);
        match &mut kind {
            StmtKind::Const(d) => d.span = sp,
            StmtKind::Var(d) => d.span = sp,
            StmtKind::Instantiation(d) => d.span = sp,
            StmtKind::Assign(a) => {
                if let ExprKind::Binary { lhs, .. } = &a.rhs.kind {
                    if a.rhs.span == PENDING {
                        a.rhs.span = Span::new(lhs.span.lo, sp.hi.max(lhs.span.hi));
                    }
                }
            }
            _ => {}
        }
        Some(Stmt {
            annotations: annotations.into(),
            kind,
            span: sp,
        })
    }

    /// The grammar's `stmt_other`, in its order.
    fn stmt_other(&mut self, ann: &[Annotation]) -> Option<StmtKind> {
        let i = self.at();
        match self.peek_word() {
            b"if" => return self.if_stmt(),
            b"switch" => return self.switch_stmt(),
            b"return" => {
                self.kw(b"return");
                let e = if self.peek() == b';' {
                    None
                } else {
                    Some(Box::new(self.expr()?))
                };
                self.expect(b";")?;
                return Some(StmtKind::Return(e));
            }
            w @ (b"exit" | b"break" | b"continue") => {
                self.kw(w);
                self.expect(b";")?;
                return Some(match w {
                    b"exit" => StmtKind::Exit,
                    b"break" => StmtKind::Break,
                    _ => StmtKind::Continue,
                });
            }
            b"for" => return self.stop(),
            b"const" => return Some(StmtKind::Const(Box::new(self.const_decl(ann.to_vec())?))),
            _ => {}
        }
        if self.byte(i) == b';' {
            self.take_to(i + 1);
            return Some(StmtKind::Empty);
        }
        if let Some(k) = self.assignment()? {
            return Some(k);
        }
        self.decl_or_expr_stmt(ann, i)
    }

    /// `assignment = place ~ assign_rhs ~ ";"`: `Some(None)` when no place
    /// followed by an assignment operator starts here.
    fn assignment(&mut self) -> Option<Option<StmtKind>> {
        let m = self.mark();
        if !may_assign(self.b, self.at()) {
            return Some(None);
        }
        let Some(lhs) = self.place() else {
            self.reset(m);
            return if self.abort { None } else { Some(None) };
        };
        if assign_op(self.b, self.at()).is_none() {
            self.reset(m);
            return Some(None);
        }
        let k = self.assign_rhs(lhs)?;
        self.expect(b";")?;
        Some(Some(k))
    }

    /// `assign_rhs = assign_op ~ expr`, desugared as the builder does; the
    /// span of a compound assignment's value is set with the statement's.
    fn assign_rhs(&mut self, lhs: Expr) -> Option<StmtKind> {
        let i = self.at();
        let (op, len) = assign_op(self.b, i)?;
        self.take_to(i + len);
        let rhs = self.expr()?;
        let Some(op) = op else {
            return Some(StmtKind::Assign(Box::new(AssignStmt { lhs, rhs })));
        };
        let value = Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs.clone()),
                rhs: Box::new(rhs),
            },
            span: PENDING,
        };
        Some(StmtKind::Assign(Box::new(AssignStmt { lhs, rhs: value })))
    }

    /// `!member_ahead ~ (!call_ahead ~ var_decl | instantiation) |
    /// assign_or_call`
    fn decl_or_expr_stmt(&mut self, ann: &[Annotation], i: usize) -> Option<StmtKind> {
        let we = self.word_end_at(i);
        let member_ahead = we > i && self.byte(we) == b'.';
        if !member_ahead {
            let call_ahead = we > i && self.byte(lexer::skip_ws(self.b, we)) == b'(';
            if !call_ahead {
                if let Some(v) = self.attempt(|p| p.var_decl(ann.to_vec())) {
                    return Some(StmtKind::Var(Box::new(v)));
                }
            }
            if let Some(d) = self.attempt(|p| p.instantiation(ann.to_vec())) {
                return Some(StmtKind::Instantiation(Box::new(d)));
            }
        }
        if self.abort {
            return None;
        }
        let e = self.expr()?;
        if self.peek() != b';' {
            let k = self.assign_rhs(e)?;
            self.expect(b";")?;
            return Some(k);
        }
        self.eat(b";");
        match e.kind {
            ExprKind::Call { .. } => Some(StmtKind::Call(Box::new(e))),
            _ => self.stop(),
        }
    }

    /// Runs `f`, putting the cursor back when it fails.
    pub(super) fn attempt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<T> {
        let m = self.mark();
        let r = f(self);
        if r.is_none() {
            self.reset(m);
        }
        r
    }

    /// `var_decl = type_ref ~ ident ~ stack_size* ~ ("=" ~ expr)? ~ ";"`
    pub(super) fn var_decl(&mut self, annotations: Vec<Annotation>) -> Option<VarDecl> {
        let lo = self.at();
        let ty = self.type_ref()?;
        let name = self.ident()?;
        let ty = wrap_dims(ty, self.stack_sizes()?);
        let init = match self.attempt(|p| {
            p.expect(b"=")?;
            p.expr()
        }) {
            Some(e) => Some(e),
            None if self.abort => return None,
            None => None,
        };
        self.expect(b";")?;
        Some(VarDecl {
            annotations,
            ty,
            name,
            init,
            span: span(lo, self.last),
        })
    }

    /// `stack_size*`
    pub(super) fn stack_sizes(&mut self) -> Option<Vec<(Expr, Span)>> {
        let mut out = Vec::new();
        while self.peek() == b'[' {
            match self.attempt(|p| p.stack_size()) {
                Some(s) => out.push(s),
                None if self.abort => return None,
                None => break,
            }
        }
        Some(out)
    }

    fn if_stmt(&mut self) -> Option<StmtKind> {
        self.kw(b"if");
        self.expect(b"(")?;
        let cond = self.expr()?;
        self.expect(b")")?;
        let then = self.stmt()?;
        let els = if self.kw(b"else") {
            Some(self.stmt()?)
        } else {
            None
        };
        Some(StmtKind::If(Box::new(IfStmt { cond, then, els })))
    }

    fn switch_stmt(&mut self) -> Option<StmtKind> {
        self.kw(b"switch");
        self.expect(b"(")?;
        let expr = self.expr()?;
        self.expect(b")")?;
        self.expect(b"{")?;
        let mut cases = Vec::new();
        while self.peek() != b'}' {
            let lo = self.at();
            let label = if self.kw(b"default") {
                SwitchLabel::Default
            } else {
                SwitchLabel::Expr(self.expr()?)
            };
            self.expect(b":")?;
            let body = match self.peek() {
                b'{' => Some(self.block()?),
                b'@' => return self.stop(),
                _ => None,
            };
            cases.push(SwitchCase {
                label,
                body,
                span: span(lo, self.last),
            });
        }
        self.eat(b"}");
        Some(StmtKind::Switch(Box::new(SwitchStmt {
            expr,
            cases: fit(cases),
        })))
    }
}

/// False when no `place` followed by an assignment operator starts at
/// `i` (`t.apply();`, `f(x);`), read without building anything: dotted
/// words, then an assignment operator. Only a `[` leaves it open.
fn may_assign(b: &[u8], i: usize) -> bool {
    let mut j = i;
    if b.get(j) == Some(&b'.') {
        j = lexer::skip_ws(b, j + 1);
    }
    let mut e = lexer::word_end(b, j);
    loop {
        if e == j {
            return false;
        }
        let k = lexer::skip_ws(b, e);
        match b.get(k) {
            Some(b'.') => {
                j = lexer::skip_ws(b, k + 1);
                e = lexer::word_end(b, j);
            }
            Some(b'[') => return true,
            _ => return assign_op(b, k).is_some(),
        }
    }
}

/// Marks the span of a compound assignment's value until the statement's
/// end is known.
const PENDING: Span = Span {
    lo: u32::MAX,
    hi: 0,
};

/// The assignment operator at `i` (`None` inside for plain `=`) and its
/// length, as the grammar's `assign_op` reads it.
fn assign_op(b: &[u8], i: usize) -> Option<(Option<BinaryOp>, usize)> {
    use BinaryOp::*;
    let s = b.get(i..).unwrap_or(&[]);
    let table: [(&[u8], BinaryOp); 12] = [
        (b"|+|=", AddSat),
        (b"|-|=", SubSat),
        (b"<<=", Shl),
        (b">>=", Shr),
        (b"+=", Add),
        (b"-=", Sub),
        (b"*=", Mul),
        (b"/=", Div),
        (b"%=", Mod),
        (b"&=", BitAnd),
        (b"|=", BitOr),
        (b"^=", BitXor),
    ];
    for (text, op) in table {
        if s.starts_with(text) {
            return Some((Some(op), text.len()));
        }
    }
    (s.first() == Some(&b'=') && s.get(1) != Some(&b'=')).then_some((None, 1))
}
