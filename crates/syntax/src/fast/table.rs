//! Tables and their properties.

use super::{exact, fit, lexer, span, P};
use crate::ast::*;

impl<'t> P<'t> {
    /// `table_decl = kw_table ~ ident ~ "{" ~ table_prop* ~ "}"`
    pub(super) fn table_decl(
        &mut self,
        annotations: Vec<Annotation>,
        lo: usize,
    ) -> Option<TableDecl> {
        self.kw(b"table");
        let name = self.ident()?;
        self.expect(b"{")?;
        let mut properties = std::mem::take(&mut self.bufs.properties);
        while self.peek() != b'}' {
            properties.push(self.table_prop()?);
        }
        self.eat(b"}");
        let list = exact(&mut properties);
        self.bufs.properties = properties;
        Some(TableDecl {
            annotations,
            name,
            properties: list,
            span: span(lo, self.last),
        })
    }

    /// True when the word at the cursor is followed by `= {`.
    fn opens_list(&mut self, skip_const: bool) -> bool {
        let at = self.at();
        let mut i = self.word_end_at(at);
        if skip_const {
            i = lexer::word_end(self.b, lexer::skip_ws(self.b, i));
        }
        let eq = lexer::skip_ws(self.b, i);
        self.byte(eq) == b'=' && self.byte(lexer::skip_ws(self.b, eq + 1)) == b'{'
    }

    fn table_prop(&mut self) -> Option<TableProperty> {
        let annotations = self.annotations()?;
        let lo = self.at();
        let w = self.peek_word();
        let after_const = w == b"const" && self.word_after().0 == b"entries";
        let mut is_const = false;
        let kind = if w == b"key" && self.opens_list(false) {
            self.kw(w);
            self.skip_eq_brace();
            TablePropertyKind::Key(self.key_elements()?)
        } else if w == b"actions" && self.opens_list(false) {
            self.kw(w);
            self.skip_eq_brace();
            TablePropertyKind::Actions(self.action_refs()?)
        } else if (w == b"entries" || after_const) && self.opens_list(after_const) {
            is_const = self.kw(b"const");
            self.kw(b"entries");
            self.skip_eq_brace();
            TablePropertyKind::Entries(self.entries()?)
        } else {
            is_const = self.kw(b"const");
            let name = self.ident()?;
            self.expect(b"=")?;
            let value = self.expr()?;
            self.expect(b";")?;
            TablePropertyKind::Custom { name, value }
        };
        Some(TableProperty {
            annotations,
            is_const,
            kind,
            span: span(lo, self.last),
        })
    }

    fn skip_eq_brace(&mut self) {
        self.eat(b"=");
        self.eat(b"{");
    }

    /// `key_element* ~ "}"`; a failure aborts.
    fn key_elements(&mut self) -> Option<Vec<KeyElement>> {
        let mut out = std::mem::take(&mut self.bufs.keys);
        while self.peek() != b'}' {
            let lo = self.at();
            let Some(expr) = self.expr() else {
                return self.stop();
            };
            self.expect(b":")?;
            let match_kind = self.ident()?;
            let annotations = self.annotations()?;
            self.expect(b";")?;
            out.push(KeyElement {
                expr,
                match_kind,
                annotations,
                span: span(lo, self.last),
            });
        }
        self.eat(b"}");
        let list = exact(&mut out);
        self.bufs.keys = out;
        Some(list)
    }

    /// `(action_ref ~ ";")* ~ "}"`
    fn action_refs(&mut self) -> Option<Vec<ActionRef>> {
        let mut out = std::mem::take(&mut self.bufs.action_refs);
        while self.peek() != b'}' {
            let annotations = self.annotations()?;
            let lo = self.at();
            let (name, args) = self.action_target()?;
            out.push(ActionRef {
                annotations,
                name,
                args,
                span: span(lo, self.last),
            });
            self.expect(b";")?;
        }
        self.eat(b"}");
        let list = exact(&mut out);
        self.bufs.action_refs = out;
        Some(list)
    }

    /// `path ~ args?`
    fn action_target(&mut self) -> Option<(Path, Option<Vec<Argument>>)> {
        let name = self.path()?;
        let args = if self.peek() == b'(' {
            let a = self.args();
            if self.abort {
                return None;
            }
            a
        } else {
            None
        };
        Some((name, args))
    }

    /// `entry* ~ "}"`
    fn entries(&mut self) -> Option<Vec<Entry>> {
        let mut out = Vec::new();
        while self.peek() != b'}' {
            out.push(self.entry()?);
        }
        self.eat(b"}");
        Some(fit(out))
    }

    /// `entry = kw_const? ~ entry_priority? ~ keyset ~ ":" ~ entry_action ~
    /// annotations ~ ";"`
    fn entry(&mut self) -> Option<Entry> {
        let lo = self.at();
        let is_const = self.kw(b"const");
        let priority = if self.peek_word() == b"priority" {
            let p = self.attempt(|p| p.entry_priority());
            if self.abort {
                return None;
            }
            p
        } else {
            None
        };
        let keyset = self.keyset()?;
        self.expect(b":")?;
        let alo = self.at();
        let (name, args) = self.action_target()?;
        let action = ActionRef {
            annotations: Vec::new(),
            name,
            args,
            span: span(alo, self.last),
        };
        let annotations = self.annotations()?;
        self.expect(b";")?;
        Some(Entry {
            is_const,
            priority,
            keyset,
            action,
            annotations,
            span: span(lo, self.last),
        })
    }

    /// `kw_priority ~ "=" ~ (int_lit | "(" ~ expr ~ ")") ~ ":"`
    fn entry_priority(&mut self) -> Option<Expr> {
        self.kw(b"priority");
        self.expect(b"=")?;
        let e = if self.peek() == b'(' {
            self.eat(b"(");
            let e = self.expr()?;
            self.expect(b")")?;
            e
        } else {
            self.int_expr()?
        };
        self.expect(b":")?;
        Some(e)
    }
}
