//! The global environment of a program: its declarations by name, constant
//! evaluation and type widths.

use crate::HashMap;
use std::cell::RefCell;

use p4cost_syntax::ast::{
    self, BinaryOp, ConstDecl, ControlDecl, Decl, EnumDecl, Expr, ExprKind, Instantiation,
    IntValue, ParserDecl, StructDecl, StructKind, Type, TypeKind, TypedefDecl, UnaryOp,
};

/// The widest `bit<>` or `int<>` type: p4c's
/// `maximumWidthSupported` (ir/configuration.h), past which it reports
/// "Compiler only supports widths up to 2048".
pub const MAX_BIT_WIDTH: u32 = 2048;

/// A width that could not be computed, with the node that stopped it.
#[derive(Debug, Clone)]
pub struct WidthError {
    /// What was not understood.
    pub message: String,
    /// Where.
    pub span: ast::Span,
}

/// The resolved shape of a type, as far as widths go.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape<'a> {
    /// `bit<n>`, `int<n>`, `bool` (1), serializable enums, `error`...
    Bits(u32),
    /// `varbit<n>`.
    Varbit(u32),
    /// A header, header union or struct declaration.
    Aggregate(&'a StructDecl),
    /// `T[n]`.
    Stack(Box<Shape<'a>>, u32),
    /// Anything without a width here (externs, generics, `int`, strings).
    Opaque,
}

/// Declarations of a program by name.
#[derive(Default)]
pub struct Globals<'a> {
    pub consts: HashMap<&'a str, &'a ConstDecl>,
    pub typedefs: HashMap<&'a str, &'a TypedefDecl>,
    pub structs: HashMap<&'a str, &'a StructDecl>,
    pub enums: HashMap<&'a str, &'a EnumDecl>,
    pub parsers: HashMap<&'a str, &'a ParserDecl>,
    pub controls: HashMap<&'a str, &'a ControlDecl>,
    pub actions: HashMap<&'a str, &'a ast::ActionDecl>,
    pub instances: HashMap<&'a str, &'a Instantiation>,
    pub packages: HashMap<&'a str, &'a ast::ContainerTypeDecl>,
    pub externs: HashMap<&'a str, &'a ast::ExternDecl>,
    /// Top-level functions and extern functions by name.
    pub functions: HashMap<&'a str, &'a ast::FunctionProto>,
    /// The fields of every struct in `structs` with more than a few
    /// fields, by name (the first of a repeated name), so field lookups
    /// stay O(1) in structs with thousands of headers. Keyed by the
    /// declaration (the one `structs` holds for its name).
    field_index: HashMap<*const StructDecl, HashMap<&'a str, &'a ast::Field>>,
    /// What each type name is, in the order `named` tries them
    /// (typedef, then struct-like, then enum): one lookup per name.
    type_names: HashMap<&'a str, NamedType<'a>>,
    /// The value of each global constant that has one, evaluated in
    /// declaration order so a constant defined by the one before it costs
    /// one step, however long the chain (expression depth stays bounded
    /// per declaration).
    const_values: HashMap<&'a str, i128>,
    /// The shape of each typedef that has one, resolved in declaration
    /// order (like `const_values`), so a chain of thousands of typedefs
    /// costs one step per name, not [`MAX_TYPE_NESTING`] and a
    /// "nest too deeply" error.
    typedef_shapes: HashMap<&'a str, Shape<'a>>,
    /// Widths and field counts of the struct-like declarations computed
    /// so far, by declaration (see `Globals::aggregate`).
    flat_memo: RefCell<HashMap<*const StructDecl, Flat>>,
}

/// A type name's declaration (see `Globals::type_names`).
#[derive(Clone, Copy)]
enum NamedType<'a> {
    Typedef(&'a TypedefDecl),
    Struct(&'a StructDecl),
    Enum(&'a EnumDecl),
}

/// Structs with at most this many fields are searched linearly.
const INDEXED_FIELDS: usize = 8;

impl<'a> Globals<'a> {
    /// Indexes the top-level declarations (later declarations of the same
    /// name do not replace earlier ones, except forward externs).
    pub fn new(program: &'a ast::Program) -> Globals<'a> {
        let mut g = Globals::default();
        for d in &program.decls {
            match d {
                Decl::Const(c) => {
                    g.consts.entry(&c.name.name).or_insert(c);
                }
                Decl::Typedef(t) => {
                    g.typedefs.entry(&t.name.name).or_insert(t);
                }
                Decl::Struct(s) => {
                    g.structs.entry(&s.name.name).or_insert(s);
                }
                Decl::Enum(e) => {
                    g.enums.entry(&e.name.name).or_insert(e);
                }
                Decl::Parser(p) => {
                    g.parsers.entry(&p.name.name).or_insert(p);
                }
                Decl::Control(c) => {
                    g.controls.entry(&c.name.name).or_insert(c);
                }
                Decl::Action(a) => {
                    g.actions.entry(&a.name.name).or_insert(a);
                }
                Decl::Instantiation(i) => {
                    g.instances.entry(&i.name.name).or_insert(i);
                }
                Decl::Package(p) => {
                    g.packages.entry(&p.name.name).or_insert(p);
                }
                Decl::ExternFunction(f) => {
                    g.functions.entry(&f.name.name).or_insert(f);
                }
                Decl::Function(f) => {
                    g.functions.entry(&f.proto.name.name).or_insert(&f.proto);
                }
                Decl::Extern(e) => {
                    let slot = g.externs.entry(&e.name.name).or_insert(e);
                    if slot.forward && !e.forward {
                        *slot = e;
                    }
                }
                _ => {}
            }
        }
        for s in g.structs.values() {
            if s.fields.len() > INDEXED_FIELDS {
                let mut by_name = HashMap::default();
                for f in &s.fields {
                    by_name.entry(f.name.name.as_str()).or_insert(f);
                }
                g.field_index.insert(*s as *const StructDecl, by_name);
            }
        }
        g.index_type_names();
        let no = HashMap::default();
        for d in &program.decls {
            if let Decl::Const(c) = d {
                let first = g
                    .consts
                    .get(c.name.name.as_str())
                    .is_some_and(|f| std::ptr::eq(*f, c));
                if let Some(v) = g.eval(&c.value, &no).filter(|_| first) {
                    g.const_values.insert(&c.name.name, v);
                }
            }
        }
        for d in &program.decls {
            if let Decl::Typedef(t) = d {
                let first = g
                    .typedefs
                    .get(t.name.name.as_str())
                    .is_some_and(|f| std::ptr::eq(*f, t));
                if let Some(s) = g.shape(&t.ty, 0).ok().filter(|_| first) {
                    g.typedef_shapes.insert(&t.name.name, s);
                }
            }
        }
        g
    }

    /// The field `name` of the struct, header or union `d` (the first one
    /// when the name repeats).
    pub fn field(&self, d: &'a StructDecl, name: &str) -> Option<&'a ast::Field> {
        // Only structs with more fields than that are indexed.
        let indexed = if d.fields.len() > INDEXED_FIELDS {
            self.field_index.get(&(d as *const StructDecl))
        } else {
            None
        };
        match indexed {
            Some(by_name) => by_name.get(name).copied(),
            None => d.fields.iter().find(|f| f.name.name == name),
        }
    }

    /// Evaluates a compile-time integer expression. `locals` are constants
    /// in scope before the globals.
    pub fn eval(&self, e: &Expr, locals: &HashMap<&str, &'a Expr>) -> Option<i128> {
        self.eval_depth(e, locals, None, 0)
    }

    /// [`Globals::eval`] with the values of constructor parameters
    /// (`values`, looked up after `locals`, before the globals).
    pub fn eval_in(
        &self,
        e: &Expr,
        locals: &HashMap<&str, &'a Expr>,
        values: &HashMap<String, i128>,
    ) -> Option<i128> {
        self.eval_depth(e, locals, Some(values), 0)
    }

    fn eval_depth(
        &self,
        e: &Expr,
        locals: &HashMap<&str, &'a Expr>,
        values: Option<&HashMap<String, i128>>,
        depth: u32,
    ) -> Option<i128> {
        if depth > 64 {
            return None;
        }
        let ev = |x: &Expr| self.eval_depth(x, locals, values, depth + 1);
        match &e.kind {
            ExprKind::Int(lit) => int_value(lit),
            ExprKind::Bool(b) => Some(i128::from(*b)),
            ExprKind::Path(p) => {
                let name = p.name.name.as_str();
                if let Some(x) = locals.get(name) {
                    return ev(x);
                }
                if let Some(v) = values.and_then(|m| m.get(name)) {
                    return Some(*v);
                }
                if let Some(v) = self.const_values.get(name) {
                    return Some(*v);
                }
                self.consts.get(name).and_then(|c| ev(&c.value))
            }
            ExprKind::Cast { ty, expr } => {
                let v = ev(expr)?;
                match self.shape(ty, 0) {
                    Ok(Shape::Bits(w)) if w > 0 && w < 127 => Some(v & ((1i128 << w) - 1)),
                    _ => Some(v),
                }
            }
            ExprKind::Unary { op, expr } => {
                let v = ev(expr)?;
                Some(match op {
                    UnaryOp::Neg => v.checked_neg()?,
                    UnaryOp::Plus => v,
                    UnaryOp::Not => i128::from(v == 0),
                    UnaryOp::Complement => !v,
                })
            }
            ExprKind::Binary { op, lhs, rhs } => binary(*op, ev(lhs)?, ev(rhs)?),
            ExprKind::Slice { base, hi, lo } => {
                let (v, h, l) = (ev(base)?, ev(hi)?, ev(lo)?);
                if !(0..127).contains(&l) || h < l || h - l >= 127 {
                    return None;
                }
                Some((v >> l) & ((1i128 << (h - l + 1)) - 1))
            }
            ExprKind::Ternary { cond, then, els } => {
                if ev(cond)? != 0 {
                    ev(then)
                } else {
                    ev(els)
                }
            }
            ExprKind::Call {
                callee, type_args, ..
            } => self.size_call(callee, type_args),
            _ => None,
        }
    }

    /// `sizeInBits<T>()`, `sizeInBytes`, `sizeof`, `minSizeInBits` ...:
    /// the fixed size of the type argument.
    fn size_call(&self, callee: &Expr, type_args: &[Type]) -> Option<i128> {
        let name = match &callee.kind {
            ExprKind::Path(p) => p.name.name.as_str(),
            ExprKind::Member { member, .. } => member.name.as_str(),
            _ => return None,
        };
        let target_bits = type_args
            .first()
            .and_then(|t| self.shape(t, 0).ok())
            .and_then(|s| self.fixed_bits(&s));
        match name {
            "sizeInBits" | "minSizeInBits" | "maxSizeInBits" => target_bits.map(i128::from),
            "sizeInBytes" | "minSizeInBytes" | "maxSizeInBytes" | "sizeof" => {
                target_bits.map(|b| i128::from(b.div_ceil(8)))
            }
            _ => None,
        }
    }

    /// Resolves a type to its shape.
    pub fn shape(&self, t: &Type, depth: u32) -> Result<Shape<'a>, WidthError> {
        let no = HashMap::default();
        if depth > 32 {
            return Err(WidthError {
                message: "type definitions nest too deeply (a cycle?)".into(),
                span: t.span,
            });
        }
        let width = |w: &Expr| -> Result<u32, WidthError> {
            match self.eval(w, &no) {
                Some(v) if (0..=u32::MAX as i128).contains(&v) => Ok(v as u32),
                Some(v) => Err(WidthError {
                    message: format!("width {v} is out of range"),
                    span: w.span,
                }),
                None => Err(match self.first_unknown_name(w) {
                    Some(n) => WidthError {
                        message: format!(
                            "width uses `{}`, which is undefined (not a declared constant)",
                            n.name.name
                        ),
                        span: n.span,
                    },
                    None => WidthError {
                        message: "width is not a compile-time constant".into(),
                        span: w.span,
                    },
                }),
            }
        };
        // p4c refuses wider `bit<>` and `int<>` types (its
        // `maximumWidthSupported`; `varbit<>` has no such limit there); a
        // stack's size is not a width.
        let bit_width = |w: &Expr| -> Result<u32, WidthError> {
            let n = width(w)?;
            if n > MAX_BIT_WIDTH {
                return Err(WidthError {
                    message: format!(
                        "width {n} is above {MAX_BIT_WIDTH}, the widest bit<> or int<> p4c supports"
                    ),
                    span: w.span,
                });
            }
            Ok(n)
        };
        Ok(match &t.kind {
            TypeKind::Bool => Shape::Bits(1),
            TypeKind::Bit { width: None } => Shape::Bits(1),
            TypeKind::Bit { width: Some(w) } | TypeKind::Int { width: Some(w) } => {
                Shape::Bits(bit_width(w)?)
            }
            TypeKind::Varbit { width: w } => Shape::Varbit(width(w)?),
            TypeKind::Stack { elem, size } => {
                let n = width(size)?;
                Shape::Stack(Box::new(self.shape(elem, depth + 1)?), n)
            }
            TypeKind::Name(p) | TypeKind::Specialized { base: p, .. } => {
                self.named(&p.name.name, t.span, depth)?
            }
            _ => Shape::Opaque,
        })
    }

    /// The first name in `e` that is not a known constant.
    pub fn first_unknown_name<'e>(&self, e: &'e Expr) -> Option<&'e ast::Path> {
        match &e.kind {
            ExprKind::Path(p) if !self.consts.contains_key(p.name.name.as_str()) => Some(p),
            ExprKind::Binary { lhs, rhs, .. } => self
                .first_unknown_name(lhs)
                .or_else(|| self.first_unknown_name(rhs)),
            ExprKind::Unary { expr, .. } | ExprKind::Cast { expr, .. } => {
                self.first_unknown_name(expr)
            }
            ExprKind::Ternary { cond, then, els } => self
                .first_unknown_name(cond)
                .or_else(|| self.first_unknown_name(then))
                .or_else(|| self.first_unknown_name(els)),
            _ => None,
        }
    }

    /// True when `name` is a declared type (typedef, struct-like, enum,
    /// extern, parser, control or package).
    pub fn knows_type(&self, name: &str) -> bool {
        self.typedefs.contains_key(name)
            || self.structs.contains_key(name)
            || self.enums.contains_key(name)
            || self.externs.contains_key(name)
            || self.parsers.contains_key(name)
            || self.controls.contains_key(name)
            || self.packages.contains_key(name)
            || matches!(name, "packet_in" | "packet_out")
    }

    /// Fills `type_names` from `typedefs`, `structs` and `enums`, the
    /// first kind a name has winning.
    fn index_type_names(&mut self) {
        let n = self.typedefs.len() + self.structs.len() + self.enums.len();
        let mut m = HashMap::default();
        m.reserve(n);
        for (k, t) in &self.typedefs {
            m.insert(*k, NamedType::Typedef(t));
        }
        for (k, s) in &self.structs {
            m.entry(*k).or_insert(NamedType::Struct(s));
        }
        for (k, e) in &self.enums {
            m.entry(*k).or_insert(NamedType::Enum(e));
        }
        self.type_names = m;
    }

    fn named(&self, name: &str, span: ast::Span, depth: u32) -> Result<Shape<'a>, WidthError> {
        let _ = span;
        match self.type_names.get(name) {
            Some(NamedType::Typedef(td)) => match self.typedef_shapes.get(name) {
                Some(s) => Ok(s.clone()),
                None => self.shape(&td.ty, depth + 1),
            },
            Some(NamedType::Struct(s)) => Ok(Shape::Aggregate(s)),
            Some(NamedType::Enum(e)) => match &e.underlying {
                Some(u) => self.shape(u, depth + 1),
                None => Ok(Shape::Opaque),
            },
            None => Ok(Shape::Opaque),
        }
    }

    /// Fixed width in bits of a shape (varbits count 0; `None` for opaque).
    pub fn fixed_bits(&self, s: &Shape<'a>) -> Option<u64> {
        self.flat(s, 0).ok().and_then(|f| f.fixed)
    }

    /// Maximum width in bits (varbits at their maximum).
    pub fn max_bits(&self, s: &Shape<'a>) -> Option<u64> {
        self.flat(s, 0).ok().and_then(|f| f.max)
    }

    /// The number of fields a struct, header or union flattens to (nested
    /// structs, stack elements and arrays counted element by element).
    pub fn flat_fields(&self, d: &'a StructDecl) -> Result<u64, TooDeep> {
        self.aggregate(d, 0).map(|f| f.fields)
    }

    fn flat(&self, s: &Shape<'a>, depth: u32) -> Result<Flat, TooDeep> {
        Ok(match s {
            Shape::Bits(w) => Flat::leaf(Some(u64::from(*w)), Some(u64::from(*w))),
            Shape::Varbit(w) => Flat::leaf(Some(0), Some(u64::from(*w))),
            Shape::Stack(e, n) => {
                let e = self.flat(e, depth + 1)?;
                let n = u64::from(*n);
                Flat {
                    fixed: e.fixed.map(|b| b.saturating_mul(n)),
                    max: e.max.map(|b| b.saturating_mul(n)),
                    fields: e.fields.saturating_mul(n),
                }
            }
            Shape::Aggregate(d) => self.aggregate(d, depth)?,
            Shape::Opaque => Flat::leaf(None, None),
        })
    }

    /// Widths and field count of a struct-like declaration, computed once
    /// per declaration: a struct of two copies of the one before, 26 times
    /// over, costs 26 steps, not 2^26. Nesting deeper than
    /// [`MAX_TYPE_NESTING`] levels (a cycle, or absurd input) is
    /// [`TooDeep`], never cached, so every caller sees it.
    fn aggregate(&self, d: &'a StructDecl, depth: u32) -> Result<Flat, TooDeep> {
        let key: *const StructDecl = d;
        if let Some(f) = self.flat_memo.borrow().get(&key) {
            return Ok(*f);
        }
        if depth > MAX_TYPE_NESTING {
            return Err(TooDeep);
        }
        let mut out = Flat {
            fixed: Some(0),
            max: Some(0),
            fields: 0,
        };
        let union = d.kind == StructKind::HeaderUnion;
        let join = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) if union => Some(a.max(b)),
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            _ => None,
        };
        for f in &d.fields {
            // `shape` bounds typedef chains on its own; `depth` counts the
            // struct and stack levels.
            let fs = match self.shape(&f.ty, 0) {
                Ok(s) => self.flat(&s, depth + 1)?,
                Err(_) => Flat::leaf(None, None),
            };
            out.fixed = join(out.fixed, fs.fixed);
            out.max = join(out.max, fs.max);
            out.fields = out.fields.saturating_add(fs.fields);
        }
        self.flat_memo.borrow_mut().insert(key, out);
        Ok(out)
    }
}

/// Struct-like types nested more deeply than this (each struct or stack
/// level counts; typedef chains are bounded apart, in `Globals::shape`)
/// have no width; [`Globals::flat_fields`] says [`TooDeep`].
pub const MAX_TYPE_NESTING: u32 = 32;

/// A type nested more than [`MAX_TYPE_NESTING`] levels deep (or a cycle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep;

/// What a type flattens to: its fixed and maximum widths in bits (`None`
/// when some part has no width) and its number of fields.
#[derive(Debug, Clone, Copy)]
struct Flat {
    fixed: Option<u64>,
    max: Option<u64>,
    fields: u64,
}

impl Flat {
    fn leaf(fixed: Option<u64>, max: Option<u64>) -> Flat {
        Flat {
            fixed,
            max,
            fields: 1,
        }
    }
}

/// The value of an integer literal (masked to its width), `None` for a
/// big one.
fn int_value(lit: &ast::IntLit) -> Option<i128> {
    match lit.value {
        IntValue::Small(v) => {
            let v = i128::try_from(v.get()).ok()?;
            Some(match lit.width {
                Some(w) if w.bits < 127 => v & ((1i128 << w.bits) - 1),
                _ => v,
            })
        }
        IntValue::Big(_) => None,
    }
}

/// `a op b` on compile-time integers; `None` on overflow, a division by
/// zero, or a concatenation.
fn binary(op: BinaryOp, a: i128, b: i128) -> Option<i128> {
    Some(match op {
        BinaryOp::Add | BinaryOp::AddSat => a.checked_add(b)?,
        BinaryOp::Sub | BinaryOp::SubSat => a.checked_sub(b)?,
        BinaryOp::Mul => a.checked_mul(b)?,
        BinaryOp::Div => a.checked_div(b)?,
        BinaryOp::Mod => a.checked_rem(b)?,
        BinaryOp::Shl => a.checked_shl(u32::try_from(b).ok()?)?,
        BinaryOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
        BinaryOp::BitAnd => a & b,
        BinaryOp::BitOr => a | b,
        BinaryOp::BitXor => a ^ b,
        BinaryOp::Eq => i128::from(a == b),
        BinaryOp::Ne => i128::from(a != b),
        BinaryOp::Lt => i128::from(a < b),
        BinaryOp::Gt => i128::from(a > b),
        BinaryOp::Le => i128::from(a <= b),
        BinaryOp::Ge => i128::from(a >= b),
        BinaryOp::And => i128::from(a != 0 && b != 0),
        BinaryOp::Or => i128::from(a != 0 || b != 0),
        BinaryOp::Concat => return None,
    })
}

/// The dotted name of a path/member/index expression (`hdr.ipv4.ttl`,
/// `hdr.vlan[0]`), or its kind when it is something else.
pub fn expr_name(e: &Expr) -> String {
    // Most names (`hdr.ipv4.ttl`) fit without regrowing; 24 bytes is
    // what the smallest heap block holds anyway.
    let mut out = String::with_capacity(24);
    write_name(e, &mut out);
    out
}

/// Appends the dotted name of `e` (see [`expr_name`]) to `out`.
pub(crate) fn write_name(e: &Expr, out: &mut String) {
    match &e.kind {
        ExprKind::Path(p) => {
            if p.absolute {
                out.push('.');
            }
            out.push_str(&p.name.name);
        }
        ExprKind::Member { base, member } => {
            write_name(base, out);
            out.push('.');
            out.push_str(&member.name);
        }
        ExprKind::Index { base, index } => {
            write_name(base, out);
            out.push('[');
            match &index.kind {
                ExprKind::Int(ast::IntLit {
                    value: IntValue::Small(v),
                    ..
                }) => push_decimal(out, v.get()),
                _ => write_name(index, out),
            }
            out.push(']');
        }
        ExprKind::WidthSlice {
            base,
            start,
            width,
            up,
        } => {
            write_name(base, out);
            out.push('[');
            write_name(start, out);
            out.push_str(if *up { "+:" } else { "-:" });
            write_name(width, out);
            out.push(']');
        }
        ExprKind::Slice { base, hi, lo } => {
            write_name(base, out);
            out.push('[');
            write_name(hi, out);
            out.push(':');
            write_name(lo, out);
            out.push(']');
        }
        ExprKind::Int(ast::IntLit {
            value: IntValue::Small(v),
            ..
        }) => push_decimal(out, v.get()),
        ExprKind::Call { callee, .. } => {
            write_name(callee, out);
            out.push_str("()");
        }
        ExprKind::This => out.push_str("this"),
        _ => out.push_str("<expr>"),
    }
}

/// Appends `v` in decimal (what `v.to_string()` gives, without the
/// formatting machinery and its allocation).
pub(crate) fn push_decimal(out: &mut String, v: u128) {
    let mut buf = [0u8; 39];
    let mut i = buf.len();
    let mut put = |d: u8| {
        i -= 1;
        buf[i] = b'0' + d;
    };
    match u64::try_from(v) {
        Ok(mut x) => loop {
            put((x % 10) as u8);
            x /= 10;
            if x == 0 {
                break;
            }
        },
        Err(_) => {
            let mut x = v;
            loop {
                put((x % 10) as u8);
                x /= 10;
                if x == 0 {
                    break;
                }
            }
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// `v` in decimal (see [`push_decimal`]).
pub(crate) fn decimal(v: u128) -> String {
    let mut s = String::with_capacity(8);
    push_decimal(&mut s, v);
    s
}

/// The name of a named or specialised type (`Register` for
/// `Register<bit<32>, _>`), `None` for other types.
pub fn type_base_name(t: &ast::Type) -> Option<&str> {
    match &t.kind {
        ast::TypeKind::Name(p) | ast::TypeKind::Specialized { base: p, .. } => {
            Some(p.name.name.as_str())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `const bit<32> C0 = 8;` then `n` constants, each the one before + 1.
    fn chain(n: usize) -> String {
        let mut s = String::from("const bit<32> C0 = 8;\n");
        for i in 1..=n {
            s.push_str(&format!("const bit<32> C{i} = C{} + 1;\n", i - 1));
        }
        s.push_str(&format!("header h_t {{ bit<C{n}> a; }}\n"));
        s
    }

    /// `struct S0 { bit<8> x; varbit<8> v; }` then `n` structs of two
    /// copies of the one before.
    fn doubling(n: usize) -> String {
        let mut s = String::from("struct S0 { bit<8> x; varbit<8> v; }\n");
        for i in 1..=n {
            s.push_str(&format!("struct S{i} {{ S{} a; S{} b; }}\n", i - 1, i - 1));
        }
        s
    }

    /// Widths and field counts are memoised per declaration: 40 doublings
    /// (2^41 fields) take 40 steps. Before, `bits_of` walked every field
    /// of every copy, 20 s for 26 lines.
    #[test]
    fn doubling_structs_are_sized_once_per_declaration() {
        let prog = p4cost_syntax::parse(&doubling(40)).expect("parses");
        let g = Globals::new(&prog);
        // This thread's CPU time: a loaded machine stretches wall time.
        let t = cpu_time::ThreadTime::now();
        for (n, want) in [(3u32, 8u64), (25, 1 << 25), (40, 1 << 40)] {
            let s = g.structs.get(format!("S{n}").as_str()).expect("struct");
            let shape = Shape::Aggregate(s);
            assert_eq!(g.flat_fields(s), Ok(2 * want), "S{n}");
            assert_eq!(g.fixed_bits(&shape), Some(8 * want), "S{n}");
            assert_eq!(g.max_bits(&shape), Some(16 * want), "S{n}");
        }
        assert!(
            t.elapsed() < std::time::Duration::from_secs(2),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn a_struct_that_contains_itself_nests_too_deeply() {
        let prog = p4cost_syntax::parse("struct A { B b; }\nstruct B { A a; }\n").expect("parses");
        let g = Globals::new(&prog);
        let a = g.structs.get("A").expect("struct");
        assert_eq!(g.flat_fields(a), Err(TooDeep));
        assert_eq!(g.fixed_bits(&Shape::Aggregate(a)), None);
    }

    #[test]
    fn a_union_is_as_wide_as_its_widest_member_and_stacks_multiply() {
        let src = "header a_t { bit<8> x; }\nheader b_t { bit<16> y; bit<4> z; }\n\
                   header_union u_t { a_t a; b_t b; }\nstruct s_t { u_t[3] u; bit<2>[5] w; }\n";
        let prog = p4cost_syntax::parse(src).expect("parses");
        let g = Globals::new(&prog);
        let s = g.structs.get("s_t").expect("struct");
        assert_eq!(g.fixed_bits(&Shape::Aggregate(s)), Some(3 * 20 + 5 * 2));
        assert_eq!(g.flat_fields(s), Ok(3 * 3 + 5));
    }

    /// Typedefs resolve in declaration order, one step each: a chain of
    /// 5000 was "type definitions nest too deeply" past 32.
    #[test]
    fn a_long_chain_of_typedefs_resolves() {
        let mut src = String::from("typedef bit<8> T0;\n");
        for i in 1..=5000 {
            src.push_str(&format!("typedef T{} T{i};\n", i - 1));
        }
        src.push_str("header h_t { T5000 a; }\n");
        let prog = p4cost_syntax::parse(&src).expect("parses");
        let g = Globals::new(&prog);
        let h = g.structs.get("h_t").expect("header");
        assert_eq!(g.shape(&h.fields[0].ty, 0).ok(), Some(Shape::Bits(8)));
    }

    #[test]
    fn a_long_chain_of_constants_evaluates() {
        for n in [63, 64, 65, 1000] {
            let prog = p4cost_syntax::parse(&chain(n)).expect("parses");
            let g = Globals::new(&prog);
            let last = g.consts.get(format!("C{n}").as_str()).expect("const");
            assert_eq!(
                g.eval(&last.value, &HashMap::default()),
                Some(8 + n as i128),
                "{n}"
            );
            let h = g.structs.get("h_t").expect("header");
            assert_eq!(
                g.shape(&h.fields[0].ty, 0).ok(),
                Some(Shape::Bits(8 + n as u32)),
                "{n}"
            );
        }
    }
}
