//! [`Shift`]: moves every span of a syntax tree by the same number of
//! bytes, so a declaration the last parse built is right where its bytes
//! now sit in an edited text (an editor's keystroke before it). Every
//! struct is taken apart field by field, without `..`: a field added to
//! the tree is a compile error here until it is shifted too. The tree's
//! depth is bounded by the parser's nesting limits, as for every pass
//! over it.

use crate::ast::*;

/// A syntax tree node whose spans can be moved.
pub(crate) trait Shift {
    /// Adds `by` to every offset (the result stays in the text: the node
    /// now sits `by` bytes from where it was parsed).
    fn shift(&mut self, by: i64);
}

impl Shift for Span {
    fn shift(&mut self, by: i64) {
        let at = |x: u32| u32::try_from(i64::from(x) + by).unwrap_or(x);
        self.lo = at(self.lo);
        self.hi = at(self.hi);
    }
}

impl<T: Shift> Shift for Vec<T> {
    fn shift(&mut self, by: i64) {
        self.iter_mut().for_each(|x| x.shift(by));
    }
}

impl<T: Shift> Shift for Box<[T]> {
    fn shift(&mut self, by: i64) {
        self.iter_mut().for_each(|x| x.shift(by));
    }
}

impl<T: Shift> Shift for Option<T> {
    fn shift(&mut self, by: i64) {
        if let Some(x) = self {
            x.shift(by);
        }
    }
}

impl<T: Shift> Shift for Box<T> {
    fn shift(&mut self, by: i64) {
        (**self).shift(by);
    }
}

impl Shift for Annotations {
    fn shift(&mut self, by: i64) {
        if let Some(v) = self.as_vec_mut() {
            v.shift(by);
        }
    }
}

impl Shift for Ident {
    fn shift(&mut self, by: i64) {
        let Ident { name: _, span } = self;
        span.shift(by);
    }
}

impl Shift for Path {
    fn shift(&mut self, by: i64) {
        let Path {
            absolute: _,
            name,
            span,
        } = self;
        name.shift(by);
        span.shift(by);
    }
}

impl Shift for Decl {
    fn shift(&mut self, by: i64) {
        match self {
            Decl::Const(d) => d.shift(by),
            Decl::Extern(d) => d.shift(by),
            Decl::ExternFunction(d) => d.shift(by),
            Decl::Function(d) => d.shift(by),
            Decl::Action(d) => d.shift(by),
            Decl::Parser(d) => d.shift(by),
            Decl::ParserType(d) | Decl::ControlType(d) | Decl::Package(d) => d.shift(by),
            Decl::Control(d) => d.shift(by),
            Decl::Instantiation(d) => d.shift(by),
            Decl::Struct(d) => d.shift(by),
            Decl::Enum(d) => d.shift(by),
            Decl::Typedef(d) => d.shift(by),
            Decl::Error(d) | Decl::MatchKind(d) => d.shift(by),
        }
    }
}

impl Shift for Annotation {
    fn shift(&mut self, by: i64) {
        let Annotation { name, body, span } = self;
        name.shift(by);
        span.shift(by);
        match body {
            AnnotationBody::Empty => {}
            AnnotationBody::Unstructured(r) | AnnotationBody::Pragma(r) => r.shift(by),
            AnnotationBody::Expressions(e) => e.shift(by),
            AnnotationBody::KeyValues(k) => k.shift(by),
        }
    }
}

impl Shift for RawAnnotationBody {
    fn shift(&mut self, by: i64) {
        let RawAnnotationBody {
            text: _,
            span,
            exprs,
        } = self;
        span.shift(by);
        exprs.shift(by);
    }
}

impl Shift for KeyValue {
    fn shift(&mut self, by: i64) {
        let KeyValue { key, value, span } = self;
        key.shift(by);
        value.shift(by);
        span.shift(by);
    }
}

impl Shift for Type {
    fn shift(&mut self, by: i64) {
        let Type { kind, span } = self;
        span.shift(by);
        match kind {
            TypeKind::Bool
            | TypeKind::Error
            | TypeKind::MatchKind
            | TypeKind::String
            | TypeKind::Void
            | TypeKind::DontCare => {}
            TypeKind::Bit { width } | TypeKind::Int { width } => width.shift(by),
            TypeKind::Varbit { width } => width.shift(by),
            TypeKind::Name(p) => p.shift(by),
            TypeKind::Specialized { base, args } => {
                base.shift(by);
                args.shift(by);
            }
            TypeKind::Stack { elem, size } => {
                elem.shift(by);
                size.shift(by);
            }
            TypeKind::Tuple(t) => t.shift(by),
            TypeKind::List(t) => t.shift(by),
        }
    }
}

impl Shift for Expr {
    fn shift(&mut self, by: i64) {
        let Expr { kind, span } = self;
        span.shift(by);
        match kind {
            ExprKind::Int(_)
            | ExprKind::Bool(_)
            | ExprKind::Str(_)
            | ExprKind::This
            | ExprKind::DontCare
            | ExprKind::Dots
            | ExprKind::InvalidHeader => {}
            ExprKind::Path(p) => p.shift(by),
            ExprKind::Member { base, member } => {
                base.shift(by);
                member.shift(by);
            }
            ExprKind::Index { base, index } => {
                base.shift(by);
                index.shift(by);
            }
            ExprKind::WidthSlice {
                base,
                start,
                width,
                up: _,
            } => {
                base.shift(by);
                start.shift(by);
                width.shift(by);
            }
            ExprKind::Specialize { base, type_args } => {
                base.shift(by);
                type_args.shift(by);
            }
            ExprKind::Slice { base, hi, lo } => {
                base.shift(by);
                hi.shift(by);
                lo.shift(by);
            }
            ExprKind::Call {
                callee,
                type_args,
                args,
            } => {
                callee.shift(by);
                type_args.shift(by);
                args.shift(by);
            }
            ExprKind::Cast { ty, expr } => {
                ty.shift(by);
                expr.shift(by);
            }
            ExprKind::Unary { op: _, expr } => expr.shift(by),
            ExprKind::Binary { op: _, lhs, rhs } => {
                lhs.shift(by);
                rhs.shift(by);
            }
            ExprKind::Ternary { cond, then, els } => {
                cond.shift(by);
                then.shift(by);
                els.shift(by);
            }
            ExprKind::List(e) => e.shift(by),
            ExprKind::Struct { fields, rest: _ } => fields.shift(by),
        }
    }
}

impl Shift for Argument {
    fn shift(&mut self, by: i64) {
        let Argument { name, value, span } = self;
        name.shift(by);
        value.shift(by);
        span.shift(by);
    }
}

impl Shift for Param {
    fn shift(&mut self, by: i64) {
        let Param {
            annotations,
            direction: _,
            ty,
            name,
            default,
            span,
        } = self;
        annotations.shift(by);
        ty.shift(by);
        name.shift(by);
        default.shift(by);
        span.shift(by);
    }
}

impl Shift for ConstDecl {
    fn shift(&mut self, by: i64) {
        let ConstDecl {
            annotations,
            ty,
            name,
            value,
            span,
        } = self;
        annotations.shift(by);
        ty.shift(by);
        name.shift(by);
        value.shift(by);
        span.shift(by);
    }
}

impl Shift for VarDecl {
    fn shift(&mut self, by: i64) {
        let VarDecl {
            annotations,
            ty,
            name,
            init,
            span,
        } = self;
        annotations.shift(by);
        ty.shift(by);
        name.shift(by);
        init.shift(by);
        span.shift(by);
    }
}

impl Shift for Instantiation {
    fn shift(&mut self, by: i64) {
        let Instantiation {
            annotations,
            ty,
            args,
            name,
            dims,
            initializer,
            span,
        } = self;
        annotations.shift(by);
        ty.shift(by);
        args.shift(by);
        name.shift(by);
        dims.shift(by);
        initializer.shift(by);
        span.shift(by);
    }
}

impl Shift for ObjDecl {
    fn shift(&mut self, by: i64) {
        match self {
            ObjDecl::Function(f) => f.shift(by),
            ObjDecl::Instantiation(i) => i.shift(by),
        }
    }
}

impl Shift for StructDecl {
    fn shift(&mut self, by: i64) {
        let StructDecl {
            annotations,
            kind: _,
            name,
            type_params,
            fields,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        type_params.shift(by);
        fields.shift(by);
        span.shift(by);
    }
}

impl Shift for Field {
    fn shift(&mut self, by: i64) {
        let Field {
            annotations,
            ty,
            name,
            span,
        } = self;
        annotations.shift(by);
        ty.shift(by);
        name.shift(by);
        span.shift(by);
    }
}

impl Shift for EnumDecl {
    fn shift(&mut self, by: i64) {
        let EnumDecl {
            annotations,
            underlying,
            name,
            members,
            span,
        } = self;
        annotations.shift(by);
        underlying.shift(by);
        name.shift(by);
        members.shift(by);
        span.shift(by);
    }
}

impl Shift for EnumMember {
    fn shift(&mut self, by: i64) {
        let EnumMember {
            annotations,
            name,
            value,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        value.shift(by);
        span.shift(by);
    }
}

impl Shift for TypedefDecl {
    fn shift(&mut self, by: i64) {
        let TypedefDecl {
            annotations,
            newtype: _,
            ty,
            name,
            span,
        } = self;
        annotations.shift(by);
        ty.shift(by);
        name.shift(by);
        span.shift(by);
    }
}

impl Shift for IdentListDecl {
    fn shift(&mut self, by: i64) {
        let IdentListDecl {
            annotations,
            members,
            span,
        } = self;
        annotations.shift(by);
        members.shift(by);
        span.shift(by);
    }
}

impl Shift for ExternDecl {
    fn shift(&mut self, by: i64) {
        let ExternDecl {
            annotations,
            name,
            type_params,
            methods,
            forward: _,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        type_params.shift(by);
        methods.shift(by);
        span.shift(by);
    }
}

impl Shift for Method {
    fn shift(&mut self, by: i64) {
        match self {
            Method::Constructor {
                annotations,
                name,
                params,
                span,
            } => {
                annotations.shift(by);
                name.shift(by);
                params.shift(by);
                span.shift(by);
            }
            Method::Method(p) => p.shift(by),
        }
    }
}

impl Shift for FunctionProto {
    fn shift(&mut self, by: i64) {
        let FunctionProto {
            annotations,
            is_abstract: _,
            ret,
            name,
            type_params,
            params,
            span,
        } = self;
        annotations.shift(by);
        ret.shift(by);
        name.shift(by);
        type_params.shift(by);
        params.shift(by);
        span.shift(by);
    }
}

impl Shift for FunctionDecl {
    fn shift(&mut self, by: i64) {
        let FunctionDecl { proto, body, span } = self;
        proto.shift(by);
        body.shift(by);
        span.shift(by);
    }
}

impl Shift for ActionDecl {
    fn shift(&mut self, by: i64) {
        let ActionDecl {
            annotations,
            name,
            params,
            body,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        params.shift(by);
        body.shift(by);
        span.shift(by);
    }
}

impl Shift for ContainerTypeDecl {
    fn shift(&mut self, by: i64) {
        let ContainerTypeDecl {
            annotations,
            name,
            type_params,
            params,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        type_params.shift(by);
        params.shift(by);
        span.shift(by);
    }
}

impl Shift for LocalDecl {
    fn shift(&mut self, by: i64) {
        match self {
            LocalDecl::Const(d) => d.shift(by),
            LocalDecl::Var(d) => d.shift(by),
            LocalDecl::Instantiation(d) => d.shift(by),
            LocalDecl::ValueSet(d) => d.shift(by),
            LocalDecl::Action(d) => d.shift(by),
            LocalDecl::Table(d) => d.shift(by),
        }
    }
}

impl Shift for ValueSetDecl {
    fn shift(&mut self, by: i64) {
        let ValueSetDecl {
            annotations,
            elem,
            size,
            name,
            span,
        } = self;
        annotations.shift(by);
        elem.shift(by);
        size.shift(by);
        name.shift(by);
        span.shift(by);
    }
}

impl Shift for ParserDecl {
    fn shift(&mut self, by: i64) {
        let ParserDecl {
            annotations,
            name,
            type_params,
            params,
            ctor_params,
            locals,
            states,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        type_params.shift(by);
        params.shift(by);
        ctor_params.shift(by);
        locals.shift(by);
        states.shift(by);
        span.shift(by);
    }
}

impl Shift for ParserState {
    fn shift(&mut self, by: i64) {
        let ParserState {
            annotations,
            name,
            stmts,
            transition,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        stmts.shift(by);
        transition.shift(by);
        span.shift(by);
    }
}

impl Shift for Transition {
    fn shift(&mut self, by: i64) {
        let Transition { kind, span } = self;
        span.shift(by);
        match kind {
            TransitionKind::Direct(i) => i.shift(by),
            TransitionKind::Select { exprs, cases } => {
                exprs.shift(by);
                cases.shift(by);
            }
        }
    }
}

impl Shift for SelectCase {
    fn shift(&mut self, by: i64) {
        let SelectCase { keyset, next, span } = self;
        keyset.shift(by);
        next.shift(by);
        span.shift(by);
    }
}

impl Shift for Keyset {
    fn shift(&mut self, by: i64) {
        let Keyset { kind, span } = self;
        span.shift(by);
        match kind {
            KeysetKind::Expr(e) => e.shift(by),
            KeysetKind::Mask { value, mask } => {
                value.shift(by);
                mask.shift(by);
            }
            KeysetKind::Range { lo, hi } => {
                lo.shift(by);
                hi.shift(by);
            }
            KeysetKind::Default | KeysetKind::DontCare => {}
            KeysetKind::Tuple(k) => k.shift(by),
        }
    }
}

impl Shift for ControlDecl {
    fn shift(&mut self, by: i64) {
        let ControlDecl {
            annotations,
            name,
            type_params,
            params,
            ctor_params,
            locals,
            apply,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        type_params.shift(by);
        params.shift(by);
        ctor_params.shift(by);
        locals.shift(by);
        apply.shift(by);
        span.shift(by);
    }
}

impl Shift for TableDecl {
    fn shift(&mut self, by: i64) {
        let TableDecl {
            annotations,
            name,
            properties,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        properties.shift(by);
        span.shift(by);
    }
}

impl Shift for TableProperty {
    fn shift(&mut self, by: i64) {
        let TableProperty {
            annotations,
            is_const: _,
            kind,
            span,
        } = self;
        annotations.shift(by);
        span.shift(by);
        match kind {
            TablePropertyKind::Key(k) => k.shift(by),
            TablePropertyKind::Actions(a) => a.shift(by),
            TablePropertyKind::Entries(e) => e.shift(by),
            TablePropertyKind::Custom { name, value } => {
                name.shift(by);
                value.shift(by);
            }
        }
    }
}

impl Shift for KeyElement {
    fn shift(&mut self, by: i64) {
        let KeyElement {
            expr,
            match_kind,
            annotations,
            span,
        } = self;
        expr.shift(by);
        match_kind.shift(by);
        annotations.shift(by);
        span.shift(by);
    }
}

impl Shift for ActionRef {
    fn shift(&mut self, by: i64) {
        let ActionRef {
            annotations,
            name,
            args,
            span,
        } = self;
        annotations.shift(by);
        name.shift(by);
        args.shift(by);
        span.shift(by);
    }
}

impl Shift for Entry {
    fn shift(&mut self, by: i64) {
        let Entry {
            is_const: _,
            priority,
            keyset,
            action,
            annotations,
            span,
        } = self;
        priority.shift(by);
        keyset.shift(by);
        action.shift(by);
        annotations.shift(by);
        span.shift(by);
    }
}

impl Shift for Block {
    fn shift(&mut self, by: i64) {
        let Block {
            annotations,
            stmts,
            span,
        } = self;
        annotations.shift(by);
        stmts.shift(by);
        span.shift(by);
    }
}

impl Shift for Stmt {
    fn shift(&mut self, by: i64) {
        let Stmt {
            annotations,
            kind,
            span,
        } = self;
        annotations.shift(by);
        span.shift(by);
        match kind {
            StmtKind::Assign(a) => {
                let AssignStmt { lhs, rhs } = &mut **a;
                lhs.shift(by);
                rhs.shift(by);
            }
            StmtKind::Call(e) => e.shift(by),
            StmtKind::If(i) => {
                let IfStmt { cond, then, els } = &mut **i;
                cond.shift(by);
                then.shift(by);
                els.shift(by);
            }
            StmtKind::Switch(s) => {
                let SwitchStmt { expr, cases } = &mut **s;
                expr.shift(by);
                cases.shift(by);
            }
            StmtKind::Block(b) => b.shift(by),
            StmtKind::Return(e) => e.shift(by),
            StmtKind::Exit | StmtKind::Break | StmtKind::Continue | StmtKind::Empty => {}
            StmtKind::For(f) => {
                let ForStmt {
                    init,
                    cond,
                    update,
                    body,
                } = &mut **f;
                init.shift(by);
                cond.shift(by);
                update.shift(by);
                body.shift(by);
            }
            StmtKind::ForIn(f) => {
                let ForInStmt {
                    ty,
                    var,
                    collection,
                    body,
                } = &mut **f;
                ty.shift(by);
                var.shift(by);
                match collection {
                    ForCollection::Expr(e) => e.shift(by),
                    ForCollection::Range { lo, hi } => {
                        lo.shift(by);
                        hi.shift(by);
                    }
                }
                body.shift(by);
            }
            StmtKind::Const(d) => d.shift(by),
            StmtKind::Var(d) => d.shift(by),
            StmtKind::Instantiation(d) => d.shift(by),
        }
    }
}

impl Shift for SwitchCase {
    fn shift(&mut self, by: i64) {
        let SwitchCase { label, body, span } = self;
        if let SwitchLabel::Expr(e) = label {
            e.shift(by);
        }
        body.shift(by);
        span.shift(by);
    }
}
