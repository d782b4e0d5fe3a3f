//! Declarations: top level, parser and control locals, tables.

use super::{fit, lexer, span, P};
use crate::ast::*;
use crate::builder::wrap_dims;

impl<'t> P<'t> {
    /// `declaration = annotations ~ decl_body`: the declarations it makes.
    pub(super) fn declaration(&mut self) -> Option<Decl> {
        if self.at() >= self.b.len() {
            return None;
        }
        let ann = self.annotations()?;
        let lo = self.at();
        let w = self.peek_word();
        let d = match w {
            b"const" => Decl::Const(self.const_decl(ann)?),
            b"extern" => self.extern_decl(ann)?,
            b"action" => Decl::Action(self.action_decl(ann)?),
            b"parser" => self.parser_decl(ann)?,
            b"control" => self.control_decl(ann)?,
            b"package" => {
                self.kw(w);
                let proto = self.container_type(ann)?;
                self.expect(b";")?;
                Decl::Package(self.finish_proto(proto, lo))
            }
            b"header" | b"header_union" | b"struct" => Decl::Struct(self.struct_decl(ann, lo)?),
            b"enum" => Decl::Enum(self.enum_decl(ann, lo)?),
            b"typedef" | b"type" => self.typedef(ann, lo)?,
            b"error" | b"match_kind" if self.word_after().0.is_empty() => {
                self.ident_list_decl(ann, lo)?
            }
            _ => self.instantiation_or_function(ann)?,
        };
        Some(d)
    }

    pub(super) fn finish_proto(
        &self,
        mut proto: ContainerTypeDecl,
        lo: usize,
    ) -> ContainerTypeDecl {
        proto.span = span(lo, self.last);
        proto
    }

    /// `ident ~ type_params? ~ params` after a `parser` / `control` /
    /// `package` keyword (the span is set by the caller).
    pub(super) fn container_type(
        &mut self,
        annotations: Vec<Annotation>,
    ) -> Option<ContainerTypeDecl> {
        let name = self.ident()?;
        let type_params = self.type_params()?;
        let params = self.params()?;
        Some(ContainerTypeDecl {
            annotations,
            name,
            type_params,
            params,
            span: Span::default(),
        })
    }

    /// `const_decl = kw_const ~ type_ref ~ ident ~ "=" ~ expr ~ ";"`
    pub(super) fn const_decl(&mut self, annotations: Vec<Annotation>) -> Option<ConstDecl> {
        let lo = self.at();
        self.kw(b"const");
        let ty = self.type_ref()?;
        let name = self.ident()?;
        self.expect(b"=")?;
        let value = self.expr()?;
        self.expect(b";")?;
        Some(ConstDecl {
            annotations,
            ty,
            name,
            value,
            span: span(lo, self.last),
        })
    }

    /// `instantiation | function_decl`
    fn instantiation_or_function(&mut self, ann: Vec<Annotation>) -> Option<Decl> {
        if let Some(i) = self.attempt(|p| p.instantiation(ann.clone())) {
            return Some(Decl::Instantiation(i));
        }
        if self.abort {
            return None;
        }
        Some(Decl::Function(self.function_decl(ann)?))
    }

    /// `instantiation = type_ref ~ args ~ ident ~ stack_size* ~ ("=" ~
    /// obj_init)? ~ ";"`
    pub(super) fn instantiation(&mut self, annotations: Vec<Annotation>) -> Option<Instantiation> {
        let lo = self.at();
        let ty = self.type_ref()?;
        let args = self.args()?;
        let name = self.ident()?;
        let dims = self.stack_sizes()?.into_iter().map(|(e, _)| e).collect();
        let initializer = if self.peek() == b'=' {
            self.eat(b"=");
            Some(self.obj_init()?)
        } else {
            None
        };
        if !self.eat(b";") {
            return if initializer.is_some() {
                self.stop()
            } else {
                None
            };
        }
        Some(Instantiation {
            annotations,
            ty,
            args,
            name,
            dims: fit(dims),
            initializer,
            span: span(lo, self.last),
        })
    }

    /// `obj_init = "{" ~ obj_decl* ~ "}"`; a failure aborts.
    fn obj_init(&mut self) -> Option<Vec<ObjDecl>> {
        if !self.eat(b"{") {
            return self.stop();
        }
        let mut out = Vec::new();
        while self.peek() != b'}' {
            let ann = self.annotations()?;
            if let Some(i) = self.attempt(|p| p.instantiation(ann.clone())) {
                out.push(ObjDecl::Instantiation(i));
                continue;
            }
            match self.function_decl(ann) {
                Some(f) if !self.abort => out.push(ObjDecl::Function(f)),
                _ => return self.stop(),
            }
        }
        self.eat(b"}");
        Some(fit(out))
    }

    /// `function_decl = function_proto ~ block`; a failure aborts.
    fn function_decl(&mut self, ann: Vec<Annotation>) -> Option<FunctionDecl> {
        let lo = self.at();
        let Some(proto) = self.function_proto(ann, false) else {
            return self.stop();
        };
        let body = self.block()?;
        Some(FunctionDecl {
            proto,
            body,
            span: span(lo, self.last),
        })
    }

    /// `function_proto = type_or_void ~ ident ~ type_params? ~ params`
    fn function_proto(
        &mut self,
        annotations: Vec<Annotation>,
        is_abstract: bool,
    ) -> Option<FunctionProto> {
        let lo = self.at();
        let ret = self.type_or_void()?;
        let name = self.ident()?;
        let type_params = self.type_params()?;
        let params = self.params()?;
        Some(FunctionProto {
            annotations,
            is_abstract,
            ret,
            name,
            type_params,
            params,
            span: span(lo, self.last),
        })
    }

    /// `extern_decl`: an object, a forward declaration or a function.
    fn extern_decl(&mut self, annotations: Vec<Annotation>) -> Option<Decl> {
        let lo = self.at();
        self.kw(b"extern");
        let (next, after) = self.word_after();
        let _ = next;
        let w = self.peek_word();
        let is_name = !w.is_empty() && w != b"_" && !lexer::is_reserved(w);
        if is_name && (after == b'{' || after == b'<' || after == b';') {
            let m = self.mark();
            let name = self.ident()?;
            if self.eat(b";") {
                return Some(Decl::Extern(ExternDecl {
                    annotations,
                    name,
                    type_params: Vec::new(),
                    methods: Vec::new(),
                    forward: true,
                    span: span(lo, self.last),
                }));
            }
            let tp = self.attempt(|p| p.type_params());
            if self.peek() == b'{' {
                let type_params = tp.unwrap_or_default();
                return self.extern_object(annotations, name, type_params, lo);
            }
            self.reset(m);
        }
        let mut f = self.function_proto(annotations, false)?;
        self.expect(b";")?;
        f.span = span(lo, self.last);
        Some(Decl::ExternFunction(f))
    }

    fn extern_object(
        &mut self,
        annotations: Vec<Annotation>,
        name: Ident,
        type_params: Vec<Ident>,
        lo: usize,
    ) -> Option<Decl> {
        self.eat(b"{");
        let mut methods = Vec::new();
        while self.peek() != b'}' {
            methods.push(self.method_proto()?);
        }
        self.eat(b"}");
        Some(Decl::Extern(ExternDecl {
            annotations,
            name,
            type_params,
            methods: fit(methods),
            forward: false,
            span: span(lo, self.last),
        }))
    }

    /// `method_proto = annotations ~ (constructor_proto | kw_abstract? ~
    /// function_proto) ~ ";"`
    fn method_proto(&mut self) -> Option<Method> {
        let annotations = self.annotations()?;
        let lo = self.at();
        let we = self.word_end_at(lo);
        let w = self.peek_word();
        let ctor = !w.is_empty()
            && w != b"_"
            && !lexer::is_reserved(w)
            && self.byte(lexer::skip_ws(self.b, we)) == b'(';
        if ctor {
            let name = self.ident()?;
            let params = self.params()?;
            self.expect(b";")?;
            return Some(Method::Constructor {
                annotations,
                name,
                params,
                span: span(lo, self.last),
            });
        }
        let is_abstract = self.kw(b"abstract");
        let mut f = self.function_proto(annotations, is_abstract)?;
        self.expect(b";")?;
        f.span = span(lo, self.last);
        Some(Method::Method(f))
    }

    /// `action_decl = kw_action ~ ident ~ params ~ block`
    pub(super) fn action_decl(&mut self, annotations: Vec<Annotation>) -> Option<ActionDecl> {
        let lo = self.at();
        self.kw(b"action");
        let name = self.ident()?;
        let params = self.params()?;
        let body = self.block()?;
        Some(ActionDecl {
            annotations,
            name,
            params,
            body,
            span: span(lo, self.last),
        })
    }

    /// `header`, `header_union` or `struct` with its fields.
    fn struct_decl(&mut self, annotations: Vec<Annotation>, lo: usize) -> Option<StructDecl> {
        let kind = match self.peek_word() {
            b"header" => StructKind::Header,
            b"header_union" => StructKind::HeaderUnion,
            _ => StructKind::Struct,
        };
        let w = self.peek_word();
        self.kw(w);
        let name = self.ident()?;
        let type_params = self.type_params()?;
        self.expect(b"{")?;
        let mut fields = std::mem::take(&mut self.bufs.fields);
        while self.peek() != b'}' {
            let annotations = self.annotations()?;
            let flo = self.at();
            let ty = self.type_ref()?;
            let name = self.ident()?;
            let ty = wrap_dims(ty, self.stack_sizes()?);
            self.expect(b";")?;
            fields.push(Field {
                annotations,
                ty,
                name,
                span: span(flo, self.last),
            });
        }
        self.eat(b"}");
        let list = super::exact(&mut fields);
        self.bufs.fields = fields;
        Some(StructDecl {
            annotations,
            kind,
            name,
            type_params,
            fields: list,
            span: span(lo, self.last),
        })
    }

    /// `enum_decl = kw_enum ~ (enum_plain | enum_ser)`
    fn enum_decl(&mut self, annotations: Vec<Annotation>, lo: usize) -> Option<EnumDecl> {
        self.kw(b"enum");
        let (_, after) = self.word_after();
        let w = self.peek_word();
        let plain = after == b'{' && !w.is_empty() && w != b"_" && !lexer::is_reserved(w);
        let underlying = if plain { None } else { Some(self.type_ref()?) };
        let name = self.ident()?;
        self.expect(b"{")?;
        let mut members = Vec::new();
        loop {
            let annotations = self.annotations()?;
            let mlo = self.at();
            let name = self.ident()?;
            let value = if plain {
                None
            } else {
                self.expect(b"=")?;
                Some(self.expr()?)
            };
            members.push(EnumMember {
                annotations,
                name,
                value,
                span: span(mlo, self.last),
            });
            if !self.eat(b",") || self.peek() == b'}' {
                break;
            }
        }
        self.expect(b"}")?;
        Some(EnumDecl {
            annotations,
            underlying,
            name,
            members: fit(members),
            span: span(lo, self.last),
        })
    }

    /// `typedef_decl` (an inline declaration is left to the slow path) or
    /// `newtype_decl`.
    fn typedef(&mut self, annotations: Vec<Annotation>, lo: usize) -> Option<Decl> {
        let newtype = self.peek_word() == b"type";
        let w = self.peek_word();
        self.kw(w);
        if !newtype
            && matches!(
                self.peek_word(),
                b"header" | b"header_union" | b"struct" | b"enum"
            )
        {
            return self.stop();
        }
        let ty = self.type_ref()?;
        let name = self.ident()?;
        self.expect(b";")?;
        Some(Decl::Typedef(TypedefDecl {
            annotations,
            newtype,
            ty,
            name,
            span: span(lo, self.last),
        }))
    }

    /// `error { ... }` or `match_kind { ... }`
    fn ident_list_decl(&mut self, annotations: Vec<Annotation>, lo: usize) -> Option<Decl> {
        let is_error = self.peek_word() == b"error";
        let w = self.peek_word();
        self.kw(w);
        self.expect(b"{")?;
        let mut members = Vec::new();
        loop {
            members.push(self.ident()?);
            if !self.eat(b",") || self.peek() == b'}' {
                break;
            }
        }
        self.expect(b"}")?;
        let d = IdentListDecl {
            annotations,
            members: fit(members),
            span: span(lo, self.last),
        };
        Some(if is_error {
            Decl::Error(d)
        } else {
            Decl::MatchKind(d)
        })
    }
}
