//! Typed syntax tree for P4-16 programs.
//!
//! Plain data: every node is `Debug + Clone + PartialEq` with public fields,
//! and every node that stands for source text carries a [`Span`] of byte
//! offsets into the parsed text, so a consumer can always print the original
//! text of a node with [`Span::text`].

/// Byte range `lo..hi` of a node in the parsed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    /// Offset of the first byte.
    pub lo: u32,
    /// Offset one past the last byte.
    pub hi: u32,
}

impl Span {
    /// Creates a span from two byte offsets.
    pub fn new(lo: u32, hi: u32) -> Self {
        Span { lo, hi }
    }

    /// The source text the span covers, or `""` when the span does not fit
    /// `text` (for instance when it belongs to another input).
    pub fn text<'a>(&self, text: &'a str) -> &'a str {
        text.get(self.lo as usize..self.hi as usize).unwrap_or("")
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(&self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// A name as written in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    /// The name (shared with its other occurrences).
    pub name: crate::Name,
    /// Where the name is written.
    pub span: Span,
}

/// A possibly dot-prefixed name (`x` or `.x`, the latter naming the
/// top-level declaration `x`).
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// True for `.x`.
    pub absolute: bool,
    /// The name.
    pub name: Ident,
    /// The whole path including the leading dot.
    pub span: Span,
}

// ------------------------------------------------------------------ program

/// A whole P4 program: its top-level declarations in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// Top-level declarations (empty `;` declarations are dropped).
    pub decls: Vec<Decl>,
    /// The whole input.
    pub span: Span,
}

/// A top-level declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum Decl {
    /// `const T x = e;`
    Const(ConstDecl),
    /// `extern E<T> { ... }` or the forward declaration `extern E;`.
    Extern(ExternDecl),
    /// `extern R f<T>(params);`
    ExternFunction(FunctionProto),
    /// `R f<T>(params) { ... }`
    Function(FunctionDecl),
    /// `action a(params) { ... }`
    Action(ActionDecl),
    /// `parser P(params)(ctor params) { ... }`
    Parser(ParserDecl),
    /// `parser P<T>(params);`
    ParserType(ContainerTypeDecl),
    /// `control C(params)(ctor params) { ... }`
    Control(ControlDecl),
    /// `control C<T>(params);`
    ControlType(ContainerTypeDecl),
    /// `package P<T>(params);`
    Package(ContainerTypeDecl),
    /// `T(args) name;` / `T(args) name = { ... };`
    Instantiation(Instantiation),
    /// `header`, `header_union` or `struct` declaration.
    Struct(StructDecl),
    /// `enum E { A, B }` or `enum bit<8> E { A = 1 }`
    Enum(EnumDecl),
    /// `typedef T N;` or `type T N;`
    Typedef(TypedefDecl),
    /// `error { A, B }`
    Error(IdentListDecl),
    /// `match_kind { a, b }`
    MatchKind(IdentListDecl),
}

// ------------------------------------------------------------------ annotations

/// An annotation such as `@name("x")`, `@a[k = v]` or `@pragma stage 1`.
#[derive(Debug, Clone, PartialEq)]
pub struct Annotation {
    /// The annotation's name (`name` in `@name(...)`; `stage` in
    /// `@pragma stage 1`).
    pub name: Ident,
    /// The annotation's argument, if any.
    pub body: AnnotationBody,
    /// The whole annotation.
    pub span: Span,
}

/// The argument of an annotation.
#[derive(Debug, Clone, PartialEq)]
pub enum AnnotationBody {
    /// `@name` alone.
    Empty,
    /// `@name(tokens)`: arbitrary balanced tokens.
    Unstructured(RawAnnotationBody),
    /// `@pragma name tokens` up to the end of the line.
    Pragma(RawAnnotationBody),
    /// `@name[e1, e2]`
    Expressions(Vec<Expr>),
    /// `@name[k1 = e1, k2 = e2]`
    KeyValues(Vec<KeyValue>),
}

/// The text of an unstructured annotation argument.
#[derive(Debug, Clone, PartialEq)]
pub struct RawAnnotationBody {
    /// The text between the parentheses (or after the pragma name), trimmed.
    pub text: String,
    /// Where that text is.
    pub span: Span,
    /// The text parsed as a comma-separated expression list, when it is one
    /// (`@name("x")` gives one string literal).
    pub exprs: Option<Vec<Expr>>,
}

/// `key = expr` in a structured annotation or a structure expression.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyValue {
    /// The key.
    pub key: Ident,
    /// The value.
    pub value: Expr,
    /// The whole pair.
    pub span: Span,
}

// ------------------------------------------------------------------ types

/// A type as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Type {
    /// What type it is.
    pub kind: TypeKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of type expression.
#[derive(Debug, Clone, PartialEq)]
pub enum TypeKind {
    /// `bool`
    Bool,
    /// `error`
    Error,
    /// `match_kind`
    MatchKind,
    /// `string`
    String,
    /// `void` (only as a return type or type argument)
    Void,
    /// `_` as a type argument.
    DontCare,
    /// `bit<W>`; `width` is `None` for plain `bit` (one bit).  The width is
    /// an integer literal or the parenthesised expression of `bit<(e)>`.
    Bit {
        /// The width expression.
        width: Option<Box<Expr>>,
    },
    /// `int<W>`; `width` is `None` for the arbitrary-precision `int`.
    Int {
        /// The width expression.
        width: Option<Box<Expr>>,
    },
    /// `varbit<W>`
    Varbit {
        /// The maximum width expression.
        width: Box<Expr>,
    },
    /// A named type `T`.
    Name(Path),
    /// A specialised generic type `T<A, B>`.
    Specialized {
        /// The generic type's name.
        base: Path,
        /// The type arguments.
        args: Vec<Type>,
    },
    /// A header stack or array `T[n]`.  `T[a][b]` is an `a`-element array
    /// of `T[b]` (the first size is the outermost), as is the field or
    /// variable declarator `T x[a][b]`.
    Stack {
        /// The element type.
        elem: Box<Type>,
        /// The size expression.
        size: Box<Expr>,
    },
    /// `tuple<A, B>`
    Tuple(Vec<Type>),
    /// `list<T>`
    List(Box<Type>),
}

// ------------------------------------------------------------------ expressions

/// An expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// What expression it is.
    pub kind: ExprKind,
    /// Where it is written (parentheses around it are not included unless
    /// they are part of a cast).
    pub span: Span,
}

/// The kinds of expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(IntLit),
    /// `true` / `false`
    Bool(bool),
    /// A string literal; the text between the quotes, escapes left as written.
    Str(String),
    /// A name, `.name`, or the keyword `error` (as the path `error`, so that
    /// `error.NoError` is a member of it).
    Path(Path),
    /// `this`
    This,
    /// `_`
    DontCare,
    /// `...`
    Dots,
    /// `{#}`, the invalid header.
    InvalidHeader,
    /// `base.member`
    Member {
        /// The expression whose member is taken.
        base: Box<Expr>,
        /// The member name.
        member: Ident,
    },
    /// `base[index]`
    Index {
        /// The indexed expression.
        base: Box<Expr>,
        /// The index.
        index: Box<Expr>,
    },
    /// `base[start +: width]` (bits `start + width - 1 .. start`) or
    /// `base[start -: width]` (bits `start .. start - width + 1`): a slice
    /// whose width is constant while its position may not be.
    WidthSlice {
        /// The sliced expression.
        base: Box<Expr>,
        /// The low bit (`+:`) or high bit (`-:`) index.
        start: Box<Expr>,
        /// The number of bits.
        width: Box<Expr>,
        /// True for `+:` (the slice runs upwards from `start`).
        up: bool,
    },
    /// `T<A>` followed by a member, as in `MyParser<bit>.apply(x)` (the
    /// direct invocation of a specialised parser or control type).
    Specialize {
        /// The generic name.
        base: Box<Expr>,
        /// The type arguments.
        type_args: Vec<Type>,
    },
    /// `base[hi:lo]`
    Slice {
        /// The sliced expression.
        base: Box<Expr>,
        /// The high bit index.
        hi: Box<Expr>,
        /// The low bit index.
        lo: Box<Expr>,
    },
    /// `callee<type_args>(args)`; also constructor calls such as
    /// `Register<bit<32>, _>(1024)` and `sizeof(x)`.
    Call {
        /// The called expression.
        callee: Box<Expr>,
        /// Explicit type arguments (a boxed slice, as `args`: two words
        /// where a vector takes three, in every expression node).
        type_args: Box<[Type]>,
        /// The arguments.
        args: Box<[Argument]>,
    },
    /// `(T) expr`
    Cast {
        /// The target type (boxed: types are large and casts rare, and
        /// every expression node is as large as its largest kind).
        ty: Box<Type>,
        /// The converted expression.
        expr: Box<Expr>,
    },
    /// A prefix operator application.
    Unary {
        /// The operator.
        op: UnaryOp,
        /// The operand.
        expr: Box<Expr>,
    },
    /// A binary operator application.
    Binary {
        /// The operator.
        op: BinaryOp,
        /// Left operand.
        lhs: Box<Expr>,
        /// Right operand.
        rhs: Box<Expr>,
    },
    /// `cond ? then : els`
    Ternary {
        /// The condition.
        cond: Box<Expr>,
        /// Value when true.
        then: Box<Expr>,
        /// Value when false.
        els: Box<Expr>,
    },
    /// `{a, b}`: tuple / list expression.
    List(Vec<Expr>),
    /// `{a = 1, b = 2}` (with `rest` true for a trailing `, ...`).
    Struct {
        /// The fields.
        fields: Vec<KeyValue>,
        /// True when the list ends with `...`.
        rest: bool,
    },
}

/// Prefix operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `!`
    Not,
    /// `~`
    Complement,
    /// `-`
    Neg,
    /// `+`
    Plus,
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `>`
    Gt,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `++`
    Concat,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `|+|`
    AddSat,
    /// `|-|`
    SubSat,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

impl BinaryOp {
    /// Binding strength (higher binds tighter; the ternary, not a binary
    /// operator, is 1). p4c's precedence: the bitwise `&`, `^`, `|` bind
    /// tighter than the comparisons. The printer and the fast parser both
    /// read it, so they cannot disagree.
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Or => 2,
            And => 3,
            Eq | Ne => 4,
            Lt | Gt | Le | Ge => 5,
            BitOr => 6,
            BitXor => 7,
            BitAnd => 8,
            Shl | Shr => 9,
            Concat | Add | Sub | AddSat | SubSat => 10,
            Mul | Div | Mod => 11,
        }
    }
}

impl BinaryOp {
    /// The operator as written in P4.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Or => "||",
            BinaryOp::And => "&&",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::BitOr => "|",
            BinaryOp::BitXor => "^",
            BinaryOp::BitAnd => "&",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Concat => "++",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::AddSat => "|+|",
            BinaryOp::SubSat => "|-|",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
        }
    }
}

impl UnaryOp {
    /// The operator as written in P4.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Not => "!",
            UnaryOp::Complement => "~",
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
        }
    }
}

/// An integer literal such as `42`, `0x2A`, `8w0x0F` or `32s5`.
#[derive(Debug, Clone, PartialEq)]
pub struct IntLit {
    /// The magnitude.
    pub value: IntValue,
    /// The `8w` / `8s` prefix, if any.
    pub width: Option<IntWidth>,
    /// The radix the digits are written in (2, 8, 10 or 16).
    pub radix: u8,
}

/// The magnitude of an integer literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntValue {
    /// Fits in 128 bits.
    Small(U128),
    /// Too large for `u128`: the digits (without `_` separators or base
    /// prefix) in the literal's radix.
    Big(Box<str>),
}

/// A `u128` kept as two 64-bit halves. A `u128` field is 16-byte aligned,
/// which would make every expression node (an integer literal is one kind
/// of expression) 16-byte aligned and 16 bytes larger.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct U128 {
    hi: u64,
    lo: u64,
}

impl U128 {
    /// The value.
    pub fn get(self) -> u128 {
        (u128::from(self.hi) << 64) | u128::from(self.lo)
    }
}

impl From<u128> for U128 {
    fn from(v: u128) -> Self {
        U128 {
            hi: (v >> 64) as u64,
            lo: v as u64,
        }
    }
}

impl From<U128> for u128 {
    fn from(v: U128) -> Self {
        v.get()
    }
}

impl std::fmt::Display for U128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.get(), f)
    }
}

impl std::fmt::Debug for U128 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.get(), f)
    }
}

/// The explicit width and signedness of an integer literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntWidth {
    /// Width in bits.
    pub bits: u32,
    /// True for `s` (signed), false for `w`.
    pub signed: bool,
}

/// A call argument: positional (`e`), named (`name = e`) or don't-care (`_`,
/// represented as an [`ExprKind::DontCare`] value).
#[derive(Debug, Clone, PartialEq)]
pub struct Argument {
    /// The parameter name for named arguments.
    pub name: Option<Ident>,
    /// The argument value.
    pub value: Expr,
    /// The whole argument.
    pub span: Span,
}

// ------------------------------------------------------------------ declarations

/// Direction of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// No direction written.
    None,
    /// `in`
    In,
    /// `out`
    Out,
    /// `inout`
    InOut,
}

/// A parameter of a parser, control, action, function, method or package.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Annotations such as `@optional`.
    pub annotations: Vec<Annotation>,
    /// Direction.
    pub direction: Direction,
    /// Type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Default value (`= e`).
    pub default: Option<Expr>,
    /// The whole parameter.
    pub span: Span,
}

/// `const T name = value;`
#[derive(Debug, Clone, PartialEq)]
pub struct ConstDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Declared type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Value.
    pub value: Expr,
    /// Whole declaration.
    pub span: Span,
}

/// `T name [= init];`
#[derive(Debug, Clone, PartialEq)]
pub struct VarDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Declared type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Initializer.
    pub init: Option<Expr>,
    /// Whole declaration.
    pub span: Span,
}

/// `T<A>(args) name [= { ... }];`
#[derive(Debug, Clone, PartialEq)]
pub struct Instantiation {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// The instantiated type (possibly specialised).
    pub ty: Type,
    /// Constructor arguments.
    pub args: Vec<Argument>,
    /// Instance name.
    pub name: Ident,
    /// Array sizes of `T(args) name[n];`, outermost first (empty for a
    /// single instance).
    pub dims: Vec<Expr>,
    /// Initializer block (e.g. the `apply` of a `RegisterAction`).
    pub initializer: Option<Vec<ObjDecl>>,
    /// Whole declaration.
    pub span: Span,
}

/// A declaration inside an instantiation's initializer block.
#[derive(Debug, Clone, PartialEq)]
pub enum ObjDecl {
    /// A function (e.g. `void apply(inout bit<32> v) { ... }`).
    Function(FunctionDecl),
    /// A nested instantiation.
    Instantiation(Instantiation),
}

/// `header`, `header_union` or `struct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StructKind {
    /// `header`
    Header,
    /// `header_union`
    HeaderUnion,
    /// `struct`
    Struct,
}

/// A `header` / `header_union` / `struct` declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct StructDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Which of the three.
    pub kind: StructKind,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Fields in order.
    pub fields: Vec<Field>,
    /// Whole declaration.
    pub span: Span,
}

/// A field of a header, header union or struct.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Type.
    pub ty: Type,
    /// Name.
    pub name: Ident,
    /// Whole field.
    pub span: Span,
}

/// `enum [T] E { ... }`
#[derive(Debug, Clone, PartialEq)]
pub struct EnumDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Underlying type of a serializable enum (`enum bit<8> E`).
    pub underlying: Option<Type>,
    /// Name.
    pub name: Ident,
    /// Members in order.
    pub members: Vec<EnumMember>,
    /// Whole declaration.
    pub span: Span,
}

/// A member of an enum.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumMember {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Value (serializable enums only).
    pub value: Option<Expr>,
    /// Whole member.
    pub span: Span,
}

/// `typedef T N;` or `type T N;`
#[derive(Debug, Clone, PartialEq)]
pub struct TypedefDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// True for `type` (a new type), false for `typedef` (an alias).
    pub newtype: bool,
    /// The aliased type.
    pub ty: Type,
    /// The new name.
    pub name: Ident,
    /// Whole declaration.
    pub span: Span,
}

/// `error { ... }` or `match_kind { ... }`
#[derive(Debug, Clone, PartialEq)]
pub struct IdentListDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Declared names.
    pub members: Vec<Ident>,
    /// Whole declaration.
    pub span: Span,
}

/// `extern E<T> { methods }`; a forward declaration `extern E;` has
/// `forward` set and no methods.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Constructors and methods in order.
    pub methods: Vec<Method>,
    /// True for `extern E;`.
    pub forward: bool,
    /// Whole declaration.
    pub span: Span,
}

/// A member of an extern object declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum Method {
    /// `E(params);`
    Constructor {
        /// Annotations.
        annotations: Vec<Annotation>,
        /// The extern's name as written.
        name: Ident,
        /// Parameters.
        params: Vec<Param>,
        /// Whole prototype.
        span: Span,
    },
    /// `[abstract] R m<T>(params);` (see [`FunctionProto::is_abstract`]).
    Method(FunctionProto),
}

/// A function or method prototype.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionProto {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// True for `abstract` methods.
    pub is_abstract: bool,
    /// Return type (`void` is [`TypeKind::Void`]).
    pub ret: Type,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// The prototype (without a trailing `;` or body).
    pub span: Span,
}

/// A function with a body.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDecl {
    /// The prototype (its annotations are the function's).
    pub proto: FunctionProto,
    /// The body.
    pub body: Block,
    /// Whole declaration.
    pub span: Span,
}

/// `action a(params) { ... }`
#[derive(Debug, Clone, PartialEq)]
pub struct ActionDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Parameters (directionless ones are action data).
    pub params: Vec<Param>,
    /// Body.
    pub body: Block,
    /// Whole declaration.
    pub span: Span,
}

/// The prototype of a parser, control or package type:
/// `parser P<T>(params);`, `control C(params);`, `package S<T>(params);`.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerTypeDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Parameters.
    pub params: Vec<Param>,
    /// Whole declaration.
    pub span: Span,
}

/// A declaration local to a parser or control.
#[derive(Debug, Clone, PartialEq)]
pub enum LocalDecl {
    /// `const T x = e;`
    Const(ConstDecl),
    /// `T x [= e];`
    Var(VarDecl),
    /// `T(args) x;`
    Instantiation(Instantiation),
    /// `value_set<T>(n) name;` (parsers)
    ValueSet(ValueSetDecl),
    /// `action` (controls)
    Action(ActionDecl),
    /// `table` (controls)
    Table(TableDecl),
}

/// `value_set<T>(size) name;`
#[derive(Debug, Clone, PartialEq)]
pub struct ValueSetDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Element type.
    pub elem: Type,
    /// Size expression.
    pub size: Expr,
    /// Name.
    pub name: Ident,
    /// Whole declaration.
    pub span: Span,
}

/// A parser with its body.
#[derive(Debug, Clone, PartialEq)]
pub struct ParserDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Apply parameters.
    pub params: Vec<Param>,
    /// Constructor parameters (empty when none are written).
    pub ctor_params: Vec<Param>,
    /// Local declarations before the states.
    pub locals: Vec<LocalDecl>,
    /// States in source order.
    pub states: Vec<ParserState>,
    /// Whole declaration.
    pub span: Span,
}

/// `state name { statements transition }`
#[derive(Debug, Clone, PartialEq)]
pub struct ParserState {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Statements before the transition.
    pub stmts: Vec<Stmt>,
    /// The transition (absent means `transition reject`).
    pub transition: Option<Transition>,
    /// Whole state.
    pub span: Span,
}

/// A `transition` statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    /// Where it goes.
    pub kind: TransitionKind,
    /// Whole statement.
    pub span: Span,
}

/// The target of a transition.
#[derive(Debug, Clone, PartialEq)]
pub enum TransitionKind {
    /// `transition state;`
    Direct(Ident),
    /// `transition select(exprs) { cases }`
    Select {
        /// The selector expressions.
        exprs: Vec<Expr>,
        /// The cases in order.
        cases: Vec<SelectCase>,
    },
}

/// `keyset: state;`
#[derive(Debug, Clone, PartialEq)]
pub struct SelectCase {
    /// The keyset.
    pub keyset: Keyset,
    /// The next state.
    pub next: Ident,
    /// Whole case.
    pub span: Span,
}

/// A keyset in a select case or a table entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyset {
    /// What keyset it is.
    pub kind: KeysetKind,
    /// Where it is written.
    pub span: Span,
}

/// The kinds of keyset.
#[derive(Debug, Clone, PartialEq)]
pub enum KeysetKind {
    /// A plain value (including value-set names).
    Expr(Expr),
    /// `value &&& mask`
    Mask {
        /// The value.
        value: Expr,
        /// The mask.
        mask: Expr,
    },
    /// `lo .. hi`
    Range {
        /// Lower bound.
        lo: Expr,
        /// Upper bound.
        hi: Expr,
    },
    /// `default`
    Default,
    /// `_`
    DontCare,
    /// `(k1, k2, ...)`, one keyset per selector expression.
    Tuple(Vec<Keyset>),
}

/// A control with its body.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Type parameters.
    pub type_params: Vec<Ident>,
    /// Apply parameters.
    pub params: Vec<Param>,
    /// Constructor parameters (empty when none are written).
    pub ctor_params: Vec<Param>,
    /// Local declarations (actions, tables, instances, variables, constants).
    pub locals: Vec<LocalDecl>,
    /// The `apply { ... }` block.
    pub apply: Block,
    /// Whole declaration.
    pub span: Span,
}

/// `table name { properties }`
#[derive(Debug, Clone, PartialEq)]
pub struct TableDecl {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// Name.
    pub name: Ident,
    /// Properties in source order.
    pub properties: Vec<TableProperty>,
    /// Whole declaration.
    pub span: Span,
}

impl TableDecl {
    /// The value of the first `name = expr;` property called `name`
    /// (e.g. `size`, `default_action`, `implementation`).
    pub fn custom(&self, name: &str) -> Option<&TableProperty> {
        self.properties.iter().find(|p| match &p.kind {
            TablePropertyKind::Custom { name: n, .. } => n.name == name,
            _ => false,
        })
    }

    /// The key elements, if the table has a `key` property.
    pub fn key(&self) -> Option<&[KeyElement]> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Key(k) => Some(k.as_slice()),
            _ => None,
        })
    }

    /// The action list, if the table has an `actions` property.
    pub fn actions(&self) -> Option<&[ActionRef]> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Actions(a) => Some(a.as_slice()),
            _ => None,
        })
    }

    /// The entries, if the table has an `entries` property.
    pub fn entries(&self) -> Option<&[Entry]> {
        self.properties.iter().find_map(|p| match &p.kind {
            TablePropertyKind::Entries(e) => Some(e.as_slice()),
            _ => None,
        })
    }
}

/// One table property.
#[derive(Debug, Clone, PartialEq)]
pub struct TableProperty {
    /// Annotations.
    pub annotations: Vec<Annotation>,
    /// True when written with `const` (`const default_action`, `const entries`).
    pub is_const: bool,
    /// What property it is.
    pub kind: TablePropertyKind,
    /// Whole property.
    pub span: Span,
}

/// The kinds of table property.
#[derive(Debug, Clone, PartialEq)]
pub enum TablePropertyKind {
    /// `key = { ... }`
    Key(Vec<KeyElement>),
    /// `actions = { ... }`
    Actions(Vec<ActionRef>),
    /// `entries = { ... }`
    Entries(Vec<Entry>),
    /// Any other `name = expr;` (`size`, `default_action`, `implementation`,
    /// `counters`, `idle_timeout`, ...).
    Custom {
        /// Property name.
        name: Ident,
        /// Property value.
        value: Expr,
    },
}

/// `expr : match_kind @annotations;`
#[derive(Debug, Clone, PartialEq)]
pub struct KeyElement {
    /// The matched expression.
    pub expr: Expr,
    /// The match kind name (`exact`, `ternary`, `lpm`, ...).
    pub match_kind: Ident,
    /// Annotations written after the match kind.
    pub annotations: Vec<Annotation>,
    /// Whole element.
    pub span: Span,
}

/// An action in a table's `actions` list or an entry: `a` or `a(args)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionRef {
    /// Annotations (`@defaultonly`, `@tableonly`).
    pub annotations: Vec<Annotation>,
    /// The action's name.
    pub name: Path,
    /// Bound arguments, when written with parentheses.
    pub args: Option<Vec<Argument>>,
    /// Whole reference.
    pub span: Span,
}

/// A table entry `keyset : action(args);`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// True for `const` entries inside a non-const `entries` list.
    pub is_const: bool,
    /// `priority = n :` if written.
    pub priority: Option<Expr>,
    /// The keyset.
    pub keyset: Keyset,
    /// The action and its arguments.
    pub action: ActionRef,
    /// Annotations written after the action.
    pub annotations: Vec<Annotation>,
    /// Whole entry.
    pub span: Span,
}

// ------------------------------------------------------------------ statements

/// `{ statements }`
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    /// Annotations written before the brace (`apply @noWarn("x") { ... }`).
    pub annotations: Vec<Annotation>,
    /// Statements and declarations in order.
    pub stmts: Vec<Stmt>,
    /// Including the braces.
    pub span: Span,
}

/// A statement or a local declaration inside a block or parser state.
///
/// 32 bytes: every statement of the input is one (a million of them for
/// 1 MB of `;`), so every kind with more than one pointer of data keeps it
/// behind one box, and the annotations (rarely any) are one pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    /// Annotations written before the statement (for declarations these are
    /// also copied into the declaration node).
    pub annotations: Annotations,
    /// What statement it is.
    pub kind: StmtKind,
    /// Whole statement (including annotations).
    pub span: Span,
}

/// The annotations of a statement: a slice (`stmt.annotations.iter()`,
/// `.is_empty()`, `&stmt.annotations[..]`) kept behind a single pointer,
/// null when there are none.
#[derive(Clone, PartialEq, Default)]
// A boxed vector on purpose: one thin pointer, where a `Vec` is three
// words and a boxed slice two.
#[allow(clippy::box_collection)]
pub struct Annotations(Option<Box<Vec<Annotation>>>);

impl Annotations {
    /// No annotations.
    pub fn new() -> Self {
        Annotations(None)
    }

    /// The annotations as a vector.
    pub fn into_vec(self) -> Vec<Annotation> {
        self.0.map(|b| *b).unwrap_or_default()
    }

    /// The annotations to change in place (none when empty).
    pub(crate) fn as_vec_mut(&mut self) -> Option<&mut Vec<Annotation>> {
        self.0.as_deref_mut()
    }
}

impl From<Vec<Annotation>> for Annotations {
    fn from(v: Vec<Annotation>) -> Self {
        if v.is_empty() {
            Annotations(None)
        } else {
            Annotations(Some(Box::new(v)))
        }
    }
}

impl std::ops::Deref for Annotations {
    type Target = [Annotation];

    fn deref(&self) -> &[Annotation] {
        self.0.as_deref().map_or(&[], |v| v.as_slice())
    }
}

impl<'a> IntoIterator for &'a Annotations {
    type Item = &'a Annotation;
    type IntoIter = std::slice::Iter<'a, Annotation>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for Annotations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The kinds of statement.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `lhs = rhs;`.  A compound assignment `lhs op= rhs;` is represented
    /// as `lhs = lhs op rhs` (the right-hand side is a [`ExprKind::Binary`]
    /// whose span is the whole statement and whose left operand is a copy
    /// of `lhs`).
    Assign(Box<AssignStmt>),
    /// `call(...);` — the expression is always an [`ExprKind::Call`].
    Call(Box<Expr>),
    /// `if (cond) then [else els]`
    If(Box<IfStmt>),
    /// `switch (expr) { cases }`
    Switch(Box<SwitchStmt>),
    /// A nested block.
    Block(Box<Block>),
    /// `return [e];`
    Return(Option<Box<Expr>>),
    /// `exit;`
    Exit,
    /// `break;`
    Break,
    /// `continue;`
    Continue,
    /// `;`
    Empty,
    /// `for (init; cond; update) body`
    For(Box<ForStmt>),
    /// `for (T x in collection) body`
    ForIn(Box<ForInStmt>),
    /// Local constant.
    Const(Box<ConstDecl>),
    /// Local variable.
    Var(Box<VarDecl>),
    /// Local instantiation.
    Instantiation(Box<Instantiation>),
}

/// `lhs = rhs;` (see [`StmtKind::Assign`]).
#[derive(Debug, Clone, PartialEq)]
pub struct AssignStmt {
    /// Assigned location.
    pub lhs: Expr,
    /// Value.
    pub rhs: Expr,
}

/// `if (cond) then [else els]`
#[derive(Debug, Clone, PartialEq)]
pub struct IfStmt {
    /// Condition.
    pub cond: Expr,
    /// Then branch.
    pub then: Stmt,
    /// Else branch.
    pub els: Option<Stmt>,
}

/// `switch (expr) { cases }`
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchStmt {
    /// The switched expression (often `t.apply().action_run`).
    pub expr: Expr,
    /// Cases in order.
    pub cases: Vec<SwitchCase>,
}

/// `for (init; cond; update) body`
#[derive(Debug, Clone, PartialEq)]
pub struct ForStmt {
    /// Initialisation statements (declarations, assignments or calls).
    pub init: Vec<Stmt>,
    /// Loop condition.
    pub cond: Option<Expr>,
    /// Update statements (assignments or calls).
    pub update: Vec<Stmt>,
    /// Body.
    pub body: Stmt,
}

/// `for (T x in collection) body`
#[derive(Debug, Clone, PartialEq)]
pub struct ForInStmt {
    /// Declared type of the loop variable, if written.
    pub ty: Option<Type>,
    /// Loop variable.
    pub var: Ident,
    /// The collection; a `lo .. hi` range is [`ForCollection::Range`].
    pub collection: ForCollection,
    /// Body.
    pub body: Stmt,
}

/// What a `for ... in` loop iterates over.
#[derive(Debug, Clone, PartialEq)]
pub enum ForCollection {
    /// An expression (a list, header stack, ...).
    Expr(Expr),
    /// `lo .. hi`
    Range {
        /// Lower bound.
        lo: Expr,
        /// Upper bound.
        hi: Expr,
    },
}

/// One case of a switch statement.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchCase {
    /// The label.
    pub label: SwitchLabel,
    /// The body; `None` for a label that falls through to the next case.
    pub body: Option<Block>,
    /// Whole case.
    pub span: Span,
}

/// A switch label.
#[derive(Debug, Clone, PartialEq)]
pub enum SwitchLabel {
    /// `default`
    Default,
    /// An action name or a constant expression.
    Expr(Expr),
}
