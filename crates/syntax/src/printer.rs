//! Pretty-printer that re-emits P4 source from the AST.
//!
//! The output parses back to the same tree (up to spans); expressions get
//! only the parentheses their precedence needs.

use crate::ast::*;

/// Re-emits `program` as P4 source text, one declaration after another,
/// indented with four spaces.
pub fn dump(program: &Program) -> String {
    let mut p = Printer::default();
    for d in &program.decls {
        p.decl(d);
    }
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

const PREC_TERNARY: u8 = 1;
const PREC_PREFIX: u8 = 12;
const PREC_POSTFIX: u8 = 13;

fn expr_prec(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Ternary { .. } => PREC_TERNARY,
        ExprKind::Binary { op, .. } => op.precedence(),
        ExprKind::Unary { .. } | ExprKind::Cast { .. } => PREC_PREFIX,
        _ => PREC_POSTFIX,
    }
}

fn join<T>(items: &[T], f: impl Fn(&T) -> String) -> String {
    items.iter().map(f).collect::<Vec<_>>().join(", ")
}

fn direction(d: Direction) -> &'static str {
    match d {
        Direction::None => "",
        Direction::In => "in ",
        Direction::Out => "out ",
        Direction::InOut => "inout ",
    }
}

/// Source text of an expression (minimal parentheses).
pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(i) => int_lit(i),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("\"{s}\""),
        ExprKind::Path(p) => path(p),
        ExprKind::This => "this".into(),
        ExprKind::DontCare => "_".into(),
        ExprKind::Dots => "...".into(),
        ExprKind::InvalidHeader => "{#}".into(),
        ExprKind::Member { base, member } => {
            format!("{}.{}", operand(base, PREC_POSTFIX), member.name)
        }
        ExprKind::Index { base, index } => {
            format!("{}[{}]", operand(base, PREC_POSTFIX), expr(index))
        }
        ExprKind::WidthSlice {
            base,
            start,
            width,
            up,
        } => format!(
            "{}[{} {} {}]",
            operand(base, PREC_POSTFIX),
            expr(start),
            if *up { "+:" } else { "-:" },
            expr(width)
        ),
        ExprKind::Specialize { base, type_args } => {
            format!("{}<{}>", operand(base, PREC_POSTFIX), join(type_args, ty))
        }
        ExprKind::Slice { base, hi, lo } => {
            format!("{}[{}:{}]", operand(base, PREC_POSTFIX), expr(hi), expr(lo))
        }
        ExprKind::Call {
            callee,
            type_args,
            args,
        } => {
            let targs = if type_args.is_empty() {
                String::new()
            } else {
                format!("<{}>", join(type_args, ty))
            };
            format!(
                "{}{}({})",
                operand(callee, PREC_POSTFIX),
                targs,
                arguments(args)
            )
        }
        ExprKind::Cast { ty: t, expr: inner } => {
            // A cast to a named type is only recognised before an operand
            // that cannot continue a binary expression, so signed operands
            // get parentheses.
            let arg = match inner.kind {
                ExprKind::Unary { .. } => format!("({})", expr(inner)),
                _ => operand(inner, PREC_PREFIX),
            };
            format!("({}){}", ty(t), arg)
        }
        ExprKind::Unary { op, expr: inner } => {
            // `- -x` must not become `--x`.
            let arg = operand(inner, PREC_PREFIX);
            if arg.starts_with(op.symbol()) {
                format!("{}({})", op.symbol(), arg)
            } else {
                format!("{}{}", op.symbol(), arg)
            }
        }
        ExprKind::Binary { op, lhs, rhs } => {
            let p = op.precedence();
            format!(
                "{} {} {}",
                operand(lhs, p),
                op.symbol(),
                operand(rhs, p + 1)
            )
        }
        ExprKind::Ternary { cond, then, els } => format!(
            "{} ? {} : {}",
            operand(cond, PREC_TERNARY + 1),
            expr(then),
            operand(els, PREC_TERNARY)
        ),
        ExprKind::List(items) => format!("{{{}}}", join(items, expr)),
        ExprKind::Struct { fields, rest } => {
            let mut parts: Vec<String> = fields
                .iter()
                .map(|f| format!("{} = {}", f.key.name, expr(&f.value)))
                .collect();
            if *rest {
                parts.push("...".into());
            }
            format!("{{{}}}", parts.join(", "))
        }
    }
}

/// `e` printed as an operand needing at least precedence `min`.
fn operand(e: &Expr, min: u8) -> String {
    let s = expr(e);
    if expr_prec(e) < min {
        format!("({s})")
    } else {
        s
    }
}

fn int_lit(i: &IntLit) -> String {
    let digits = match &i.value {
        IntValue::Small(v) => match (i.radix, v.get()) {
            (16, v) => format!("0x{v:X}"),
            (8, v) => format!("0o{v:o}"),
            (2, v) => format!("0b{v:b}"),
            (_, v) => v.to_string(),
        },
        IntValue::Big(d) => match i.radix {
            16 => format!("0x{d}"),
            8 => format!("0o{d}"),
            2 => format!("0b{d}"),
            _ => d.to_string(),
        },
    };
    match i.width {
        Some(w) => format!("{}{}{}", w.bits, if w.signed { "s" } else { "w" }, digits),
        None => digits,
    }
}

fn path(p: &Path) -> String {
    format!("{}{}", if p.absolute { "." } else { "" }, p.name.name)
}

fn arguments(args: &[Argument]) -> String {
    join(args, |a| match &a.name {
        Some(n) => format!("{} = {}", n.name, expr(&a.value)),
        None => expr(&a.value),
    })
}

fn width(w: &Expr) -> String {
    match w.kind {
        ExprKind::Int(_) => expr(w),
        _ => format!("({})", expr(w)),
    }
}

/// Source text of a type.
pub fn ty(t: &Type) -> String {
    match &t.kind {
        TypeKind::Bool => "bool".into(),
        TypeKind::Error => "error".into(),
        TypeKind::MatchKind => "match_kind".into(),
        TypeKind::String => "string".into(),
        TypeKind::Void => "void".into(),
        TypeKind::DontCare => "_".into(),
        TypeKind::Bit { width: None } => "bit".into(),
        TypeKind::Bit { width: Some(w) } => format!("bit<{}>", width(w)),
        TypeKind::Int { width: None } => "int".into(),
        TypeKind::Int { width: Some(w) } => format!("int<{}>", width(w)),
        TypeKind::Varbit { width: w } => format!("varbit<{}>", width(w)),
        TypeKind::Name(p) => path(p),
        TypeKind::Specialized { base, args } => format!("{}<{}>", path(base), join(args, ty)),
        TypeKind::Stack { elem, size } => {
            // `T[a][b]` nests as Stack(Stack(T, b), a): print outermost first.
            let mut dims = format!("[{}]", expr(size));
            let mut inner = elem;
            while let TypeKind::Stack { elem, size } = &inner.kind {
                dims.push_str(&format!("[{}]", expr(size)));
                inner = elem;
            }
            format!("{}{}", ty(inner), dims)
        }
        TypeKind::Tuple(args) => format!("tuple<{}>", join(args, ty)),
        TypeKind::List(elem) => format!("list<{}>", ty(elem)),
    }
}

fn annotation(a: &Annotation) -> String {
    match &a.body {
        AnnotationBody::Empty => format!("@{}", a.name.name),
        AnnotationBody::Unstructured(raw) => format!("@{}({})", a.name.name, raw.text),
        AnnotationBody::Pragma(raw) => format!("@pragma {} {}", a.name.name, raw.text),
        AnnotationBody::Expressions(es) => format!("@{}[{}]", a.name.name, join(es, expr)),
        AnnotationBody::KeyValues(kvs) => format!(
            "@{}[{}]",
            a.name.name,
            join(kvs, |kv| format!("{} = {}", kv.key.name, expr(&kv.value)))
        ),
    }
}

fn params(ps: &[Param]) -> String {
    join(ps, |p| {
        let mut s = String::new();
        for a in &p.annotations {
            s.push_str(&annotation(a));
            s.push(' ');
        }
        s.push_str(direction(p.direction));
        s.push_str(&ty(&p.ty));
        s.push(' ');
        s.push_str(&p.name.name);
        if let Some(d) = &p.default {
            s.push_str(" = ");
            s.push_str(&expr(d));
        }
        s
    })
}

fn type_params(tps: &[Ident]) -> String {
    if tps.is_empty() {
        String::new()
    } else {
        format!("<{}>", join(tps, |i| i.name.to_string()))
    }
}

fn keyset(k: &Keyset) -> String {
    match &k.kind {
        KeysetKind::Expr(e) => expr(e),
        KeysetKind::Mask { value, mask } => format!("{} &&& {}", expr(value), expr(mask)),
        KeysetKind::Range { lo, hi } => format!("{} .. {}", expr(lo), expr(hi)),
        KeysetKind::Default => "default".into(),
        KeysetKind::DontCare => "_".into(),
        KeysetKind::Tuple(items) => format!("({})", join(items, keyset)),
    }
}

fn action_ref(a: &ActionRef) -> String {
    let mut s = String::new();
    for an in &a.annotations {
        s.push_str(&annotation(an));
        s.push(' ');
    }
    s.push_str(&path(&a.name));
    if let Some(args) = &a.args {
        s.push_str(&format!("({})", arguments(args)));
    }
    s
}

fn proto(f: &FunctionProto) -> String {
    format!(
        "{}{} {}{}({})",
        if f.is_abstract { "abstract " } else { "" },
        ty(&f.ret),
        f.name.name,
        type_params(&f.type_params),
        params(&f.params)
    )
}

impl Printer {
    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn annotations(&mut self, anns: &[Annotation]) {
        for a in anns {
            let s = annotation(a);
            self.line(&s);
        }
    }

    fn open(&mut self, s: &str) {
        self.line(&format!("{s} {{"));
        self.indent += 1;
    }

    fn close(&mut self, s: &str) {
        self.indent = self.indent.saturating_sub(1);
        self.line(&format!("}}{s}"));
    }

    fn decl(&mut self, d: &Decl) {
        match d {
            Decl::Const(c) => self.const_decl(c),
            Decl::Extern(x) => {
                self.annotations(&x.annotations);
                if x.forward {
                    self.line(&format!("extern {};", x.name.name));
                    return;
                }
                self.open(&format!(
                    "extern {}{}",
                    x.name.name,
                    type_params(&x.type_params)
                ));
                for m in &x.methods {
                    match m {
                        Method::Constructor {
                            annotations,
                            name,
                            params: ps,
                            ..
                        } => {
                            self.annotations(annotations);
                            self.line(&format!("{}({});", name.name, params(ps)));
                        }
                        Method::Method(f) => {
                            self.annotations(&f.annotations);
                            self.line(&format!("{};", proto(f)));
                        }
                    }
                }
                self.close("");
            }
            Decl::ExternFunction(f) => {
                self.annotations(&f.annotations);
                self.line(&format!("extern {};", proto(f)));
            }
            Decl::Function(f) => self.function(f),
            Decl::Action(a) => self.action(a),
            Decl::Parser(p) => self.parser(p),
            Decl::ParserType(t) => self.container_type("parser", t),
            Decl::Control(c) => self.control(c),
            Decl::ControlType(t) => self.container_type("control", t),
            Decl::Package(t) => self.container_type("package", t),
            Decl::Instantiation(i) => self.instantiation(i),
            Decl::Struct(s) => {
                self.annotations(&s.annotations);
                let kw = match s.kind {
                    StructKind::Header => "header",
                    StructKind::HeaderUnion => "header_union",
                    StructKind::Struct => "struct",
                };
                self.open(&format!(
                    "{kw} {}{}",
                    s.name.name,
                    type_params(&s.type_params)
                ));
                for f in &s.fields {
                    self.annotations(&f.annotations);
                    self.line(&format!("{} {};", ty(&f.ty), f.name.name));
                }
                self.close("");
            }
            Decl::Enum(e) => {
                self.annotations(&e.annotations);
                let head = match &e.underlying {
                    Some(t) => format!("enum {} {}", ty(t), e.name.name),
                    None => format!("enum {}", e.name.name),
                };
                self.open(&head);
                let n = e.members.len();
                for (i, m) in e.members.iter().enumerate() {
                    self.annotations(&m.annotations);
                    let comma = if i + 1 < n { "," } else { "" };
                    match &m.value {
                        Some(v) => self.line(&format!("{} = {}{comma}", m.name.name, expr(v))),
                        None => self.line(&format!("{}{comma}", m.name.name)),
                    }
                }
                self.close("");
            }
            Decl::Typedef(t) => {
                self.annotations(&t.annotations);
                let kw = if t.newtype { "type" } else { "typedef" };
                self.line(&format!("{kw} {} {};", ty(&t.ty), t.name.name));
            }
            Decl::Error(l) => self.ident_list("error", l),
            Decl::MatchKind(l) => self.ident_list("match_kind", l),
        }
    }

    fn ident_list(&mut self, kw: &str, l: &IdentListDecl) {
        self.annotations(&l.annotations);
        self.line(&format!(
            "{kw} {{ {} }}",
            join(&l.members, |i| i.name.to_string())
        ));
    }

    fn container_type(&mut self, kw: &str, t: &ContainerTypeDecl) {
        self.annotations(&t.annotations);
        self.line(&format!(
            "{kw} {}{}({});",
            t.name.name,
            type_params(&t.type_params),
            params(&t.params)
        ));
    }

    fn const_decl(&mut self, c: &ConstDecl) {
        self.annotations(&c.annotations);
        self.line(&format!(
            "const {} {} = {};",
            ty(&c.ty),
            c.name.name,
            expr(&c.value)
        ));
    }

    fn var_decl(&mut self, v: &VarDecl) {
        self.annotations(&v.annotations);
        match &v.init {
            Some(i) => self.line(&format!("{} {} = {};", ty(&v.ty), v.name.name, expr(i))),
            None => self.line(&format!("{} {};", ty(&v.ty), v.name.name)),
        }
    }

    fn instantiation(&mut self, i: &Instantiation) {
        self.annotations(&i.annotations);
        let dims: String = i.dims.iter().map(|d| format!("[{}]", expr(d))).collect();
        let head = format!(
            "{}({}) {}{dims}",
            ty(&i.ty),
            arguments(&i.args),
            i.name.name
        );
        match &i.initializer {
            None => self.line(&format!("{head};")),
            Some(decls) => {
                self.open(&format!("{head} ="));
                for d in decls {
                    match d {
                        ObjDecl::Function(f) => self.function(f),
                        ObjDecl::Instantiation(inner) => self.instantiation(inner),
                    }
                }
                self.close(";");
            }
        }
    }

    fn function(&mut self, f: &FunctionDecl) {
        self.annotations(&f.proto.annotations);
        self.block_with_head(&proto(&f.proto), &f.body);
    }

    fn action(&mut self, a: &ActionDecl) {
        self.annotations(&a.annotations);
        self.block_with_head(
            &format!("action {}({})", a.name.name, params(&a.params)),
            &a.body,
        );
    }

    fn block_with_head(&mut self, head: &str, b: &Block) {
        let mut head = head.to_string();
        for a in &b.annotations {
            head.push(' ');
            head.push_str(&annotation(a));
        }
        self.open(&head);
        for s in &b.stmts {
            self.stmt(s);
        }
        self.close("");
    }

    fn ctor(ps: &[Param]) -> String {
        if ps.is_empty() {
            String::new()
        } else {
            format!("({})", params(ps))
        }
    }

    fn parser(&mut self, p: &ParserDecl) {
        self.annotations(&p.annotations);
        self.open(&format!(
            "parser {}{}({}){}",
            p.name.name,
            type_params(&p.type_params),
            params(&p.params),
            Self::ctor(&p.ctor_params)
        ));
        for l in &p.locals {
            self.local(l);
        }
        for s in &p.states {
            self.annotations(&s.annotations);
            self.open(&format!("state {}", s.name.name));
            for st in &s.stmts {
                self.stmt(st);
            }
            if let Some(t) = &s.transition {
                match &t.kind {
                    TransitionKind::Direct(n) => self.line(&format!("transition {};", n.name)),
                    TransitionKind::Select { exprs, cases } => {
                        self.open(&format!("transition select({})", join(exprs, expr)));
                        for c in cases {
                            self.line(&format!("{}: {};", keyset(&c.keyset), c.next.name));
                        }
                        self.close("");
                    }
                }
            }
            self.close("");
        }
        self.close("");
    }

    fn control(&mut self, c: &ControlDecl) {
        self.annotations(&c.annotations);
        self.open(&format!(
            "control {}{}({}){}",
            c.name.name,
            type_params(&c.type_params),
            params(&c.params),
            Self::ctor(&c.ctor_params)
        ));
        for l in &c.locals {
            self.local(l);
        }
        self.block_with_head("apply", &c.apply);
        self.close("");
    }

    fn local(&mut self, l: &LocalDecl) {
        match l {
            LocalDecl::Const(c) => self.const_decl(c),
            LocalDecl::Var(v) => self.var_decl(v),
            LocalDecl::Instantiation(i) => self.instantiation(i),
            LocalDecl::ValueSet(v) => {
                self.annotations(&v.annotations);
                self.line(&format!(
                    "value_set<{}>({}) {};",
                    ty(&v.elem),
                    expr(&v.size),
                    v.name.name
                ));
            }
            LocalDecl::Action(a) => self.action(a),
            LocalDecl::Table(t) => self.table(t),
        }
    }

    fn table(&mut self, t: &TableDecl) {
        self.annotations(&t.annotations);
        self.open(&format!("table {}", t.name.name));
        for p in &t.properties {
            self.annotations(&p.annotations);
            let konst = if p.is_const { "const " } else { "" };
            match &p.kind {
                TablePropertyKind::Key(elems) => {
                    self.open("key =");
                    for k in elems {
                        let mut s = format!("{} : {}", expr(&k.expr), k.match_kind.name);
                        for a in &k.annotations {
                            s.push(' ');
                            s.push_str(&annotation(a));
                        }
                        s.push(';');
                        self.line(&s);
                    }
                    self.close("");
                }
                TablePropertyKind::Actions(refs) => {
                    self.open("actions =");
                    for r in refs {
                        self.line(&format!("{};", action_ref(r)));
                    }
                    self.close("");
                }
                TablePropertyKind::Entries(entries) => {
                    self.open(&format!("{konst}entries ="));
                    for e in entries {
                        let mut s = String::new();
                        if e.is_const {
                            s.push_str("const ");
                        }
                        if let Some(p) = &e.priority {
                            s.push_str(&format!("priority = ({}): ", expr(p)));
                        }
                        s.push_str(&format!(
                            "{} : {}",
                            keyset(&e.keyset),
                            action_ref(&e.action)
                        ));
                        for a in &e.annotations {
                            s.push(' ');
                            s.push_str(&annotation(a));
                        }
                        s.push(';');
                        self.line(&s);
                    }
                    self.close("");
                }
                TablePropertyKind::Custom { name, value } => {
                    self.line(&format!("{konst}{} = {};", name.name, expr(value)));
                }
            }
        }
        self.close("");
    }

    fn stmt(&mut self, s: &Stmt) {
        // Declarations print their own annotations.
        if !matches!(
            s.kind,
            StmtKind::Const(_) | StmtKind::Var(_) | StmtKind::Instantiation(_)
        ) {
            self.annotations(&s.annotations);
        }
        match &s.kind {
            StmtKind::Assign(a) => self.line(&format!("{} = {};", expr(&a.lhs), expr(&a.rhs))),
            StmtKind::Call(e) => self.line(&format!("{};", expr(e))),
            StmtKind::If(i) => {
                let IfStmt { cond, then, els } = &**i;
                self.line(&format!("if ({})", expr(cond)));
                self.nested_stmt(then);
                if let Some(e) = els {
                    self.line("else");
                    self.nested_stmt(e);
                }
            }
            StmtKind::Switch(sw) => {
                let SwitchStmt { expr: e, cases } = &**sw;
                self.open(&format!("switch ({})", expr(e)));
                for c in cases {
                    let label = match &c.label {
                        SwitchLabel::Default => "default".to_string(),
                        SwitchLabel::Expr(l) => expr(l),
                    };
                    match &c.body {
                        Some(b) => self.block_with_head(&format!("{label}:"), b),
                        None => self.line(&format!("{label}:")),
                    }
                }
                self.close("");
            }
            StmtKind::Block(b) => {
                let anns: Vec<String> = b.annotations.iter().map(annotation).collect();
                self.line(&format!(
                    "{}{{",
                    anns.iter().map(|a| format!("{a} ")).collect::<String>()
                ));
                self.indent += 1;
                for st in &b.stmts {
                    self.stmt(st);
                }
                self.close("");
            }
            StmtKind::Return(Some(e)) => self.line(&format!("return {};", expr(e))),
            StmtKind::Return(None) => self.line("return;"),
            StmtKind::Exit => self.line("exit;"),
            StmtKind::Break => self.line("break;"),
            StmtKind::Continue => self.line("continue;"),
            StmtKind::Empty => self.line(";"),
            StmtKind::For(f) => {
                let ForStmt {
                    init,
                    cond,
                    update,
                    body,
                } = &**f;
                let simple = |v: &[Stmt]| join(v, simple_stmt);
                self.line(&format!(
                    "for ({}; {}; {})",
                    simple(init),
                    cond.as_ref().map(expr).unwrap_or_default(),
                    simple(update)
                ));
                self.nested_stmt(body);
            }
            StmtKind::ForIn(f) => {
                let ForInStmt {
                    ty: t,
                    var,
                    collection,
                    body,
                } = &**f;
                let coll = match collection {
                    ForCollection::Expr(e) => expr(e),
                    ForCollection::Range { lo, hi } => format!("{} .. {}", expr(lo), expr(hi)),
                };
                let decl = match t {
                    Some(t) => format!("{} {}", ty(t), var.name),
                    None => var.name.to_string(),
                };
                self.line(&format!("for ({decl} in {coll})"));
                self.nested_stmt(body);
            }
            StmtKind::Const(c) => self.const_decl(c),
            StmtKind::Var(v) => self.var_decl(v),
            StmtKind::Instantiation(i) => self.instantiation(i),
        }
    }

    fn nested_stmt(&mut self, s: &Stmt) {
        if matches!(s.kind, StmtKind::Block(_)) {
            self.stmt(s);
        } else {
            self.indent += 1;
            self.stmt(s);
            self.indent = self.indent.saturating_sub(1);
        }
    }
}

/// A statement of a `for` header, without its semicolon.
fn simple_stmt(s: &Stmt) -> String {
    match &s.kind {
        StmtKind::Var(v) => match &v.init {
            Some(i) => format!("{} {} = {}", ty(&v.ty), v.name.name, expr(i)),
            None => format!("{} {}", ty(&v.ty), v.name.name),
        },
        StmtKind::Assign(a) => format!("{} = {}", expr(&a.lhs), expr(&a.rhs)),
        StmtKind::Call(e) => expr(e),
        _ => String::new(),
    }
}
