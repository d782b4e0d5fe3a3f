//! Sub-parsers: a parser state that applies another parser (`sub.apply(pkt,
//! hdr)`) is split at the call, and the applied parser's states are copied
//! into the caller with their names prefixed by the instance name. Inside
//! a copy, names are relative to the sub-parser's parameters; the
//! [`Renamer`] maps them back to the caller's arguments so extracts land on
//! the caller's header instances.

use crate::{HashMap, HashSet};

use p4cost_ir as ir;
use p4cost_syntax::ast::{self, Argument, Expr, ExprKind, Instantiation, ParserDecl, Stmt, Type};

use crate::lower::{resolve_access, Cx, Locals};
use crate::names::is_place;
use crate::scope::{expr_name, Globals, Shape};

/// Maps names of a copied parser's scope (parameters, locals) to names of
/// the top-level parser's scope.
#[derive(Debug, Clone, Default)]
pub struct Renamer {
    map: HashMap<String, String>,
    /// Parameters bound to one element of a caller's header stack.
    elements: HashMap<String, Element>,
}

/// A header-stack element passed as an argument (`h[1]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// The stack, named in the top-level scope.
    pub stack: String,
    /// The element's index.
    pub index: u32,
    /// The stack's size.
    pub size: u32,
}

impl Renamer {
    /// Makes the local `name` of a copy with prefix `prefix` distinct
    /// (`sub.tmp`). Nothing to do at the top level (empty prefix).
    pub fn local(&mut self, prefix: &str, name: &str) {
        if !prefix.is_empty() {
            self.map.insert(name.to_string(), format!("{prefix}{name}"));
        }
    }

    /// The stack element the parameter `name` is bound to, if it is one.
    pub fn element(&self, name: &str) -> Option<Element> {
        self.elements.get(name).cloned()
    }

    /// [`Renamer::name`] of an owned name: itself when nothing is renamed.
    pub fn name_owned(&self, text: String) -> String {
        if self.map.is_empty() {
            return text;
        }
        self.name(&text)
    }

    /// Rewrites the identifiers of `text` that start a name (not those
    /// after a `.`, which are fields or methods).
    pub fn name(&self, text: &str) -> String {
        if self.map.is_empty() {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut prev_sig: Option<char> = None;
        let mut it = text.char_indices().peekable();
        while let Some((i, c)) = it.next() {
            if c.is_ascii_alphabetic() || c == '_' || c.is_ascii_digit() {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = it.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        end = j + d.len_utf8();
                        it.next();
                    } else {
                        break;
                    }
                }
                let word = &text[i..end];
                let starts_name = !c.is_ascii_digit() && prev_sig != Some('.');
                match self.map.get(word) {
                    Some(to) if starts_name => out.push_str(to),
                    _ => out.push_str(word),
                }
                prev_sig = word.chars().last();
            } else {
                out.push(c);
                if !c.is_whitespace() {
                    prev_sig = Some(c);
                }
            }
        }
        out
    }

    /// Renames what a statement op reads and writes. Extracts are named
    /// when they are built (the name picks the header instance).
    pub fn op(&self, op: &mut ir::ParserOp) {
        if self.map.is_empty() {
            return;
        }
        if let ir::ParserOp::Statement {
            what,
            reads,
            writes,
            ..
        } = op
        {
            *what = self.name(what).into();
            for r in reads.iter_mut().chain(writes.iter_mut()) {
                *r = self.name(r);
            }
        }
    }

    /// Renames the select expressions of a transition.
    pub fn transition(&self, t: &mut ir::Transition) {
        if self.map.is_empty() {
            return;
        }
        if let ir::Transition::Select { keys, .. } = t {
            for k in keys {
                k.expr = self.name(&k.expr);
            }
        }
    }
}

/// How one copy of a parser body is lowered.
pub struct Frame<'a> {
    /// Prefix of the copy's state and local names (`""` at the top level,
    /// `sub.` for the instance `sub`).
    pub prefix: String,
    /// Names of the copy's scope -> top-level names.
    pub rename: Renamer,
    /// Where the copy's `accept` goes.
    pub accept: ir::Target,
    /// Parameter types that replace generic ones (`out H h` bound to a
    /// `headers_t` argument).
    pub param_types: Vec<(String, std::borrow::Cow<'a, Type>)>,
    /// Constructor parameters bound to the instantiation's arguments.
    pub ctor_consts: Vec<(&'a str, &'a Expr)>,
}

impl<'a> Frame<'a> {
    /// The frame of a top-level parser: nothing renamed.
    pub fn top() -> Frame<'a> {
        Frame {
            prefix: String::new(),
            rename: Renamer::default(),
            accept: ir::Target::Accept,
            param_types: Vec::new(),
            ctor_consts: Vec::new(),
        }
    }

    /// The frame of the copy of `call.decl` labelled `label`, applied from
    /// a scope with `locals` and `rename`; its `accept` goes to `cont`.
    pub fn for_call(
        g: &Globals<'a>,
        locals: &Locals<'a>,
        rename: &Renamer,
        call: &SubCall<'a>,
        label: &str,
        cont: ir::StateId,
    ) -> Frame<'a> {
        let prefix = format!("{label}.");
        let decl = call.decl;
        let mut inner = Renamer::default();
        let mut param_types = Vec::new();
        for (i, p) in decl.params.iter().enumerate() {
            let arg = argument(call.args, i, &p.name.name);
            let bound = arg.filter(|a| is_place(a) && !matches!(a.kind, ExprKind::DontCare));
            let to = match bound {
                Some(a) => rename.name_owned(expr_name(a)),
                None => format!("{prefix}{}", p.name.name),
            };
            inner.map.insert(p.name.name.as_str().to_owned(), to);
            if let Some(e) = bound.and_then(|a| element_of(g, locals, rename, a)) {
                inner.elements.insert(p.name.name.as_str().to_owned(), e);
            }
            let generic = matches!(&p.ty.kind, ast::TypeKind::Name(n)
                if decl.type_params.iter().any(|t| t.name == n.name.name));
            if generic {
                if let Some(t) = bound.and_then(|a| type_of_place(g, locals, a)) {
                    param_types.push((
                        p.name.name.as_str().to_owned(),
                        std::borrow::Cow::Owned(t.clone()),
                    ));
                }
            }
        }
        let ctor_consts = decl
            .ctor_params
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                argument(call.ctor_args, i, &p.name.name).map(|a| (p.name.name.as_str(), a))
            })
            .collect();
        Frame {
            prefix,
            rename: inner,
            accept: ir::Target::State(cont),
            param_types,
            ctor_consts,
        }
    }
}

/// The argument for parameter `i` named `name`: by name when the call
/// names its arguments, else by position.
fn argument<'a>(args: &'a [Argument], i: usize, name: &str) -> Option<&'a Expr> {
    if args.iter().any(|a| a.name.is_some()) {
        args.iter()
            .find(|a| a.name.as_ref().is_some_and(|n| n.name == name))
            .map(|a| &a.value)
    } else {
        args.get(i).map(|a| &a.value)
    }
}

/// `a` as a constant-index element of a header stack (`hdr.h[1]`), or as
/// a parameter already bound to one.
fn element_of(g: &Globals<'_>, locals: &Locals<'_>, rename: &Renamer, a: &Expr) -> Option<Element> {
    match &a.kind {
        ExprKind::Index { base, index } => {
            let ExprKind::Int(ast::IntLit {
                value: ast::IntValue::Small(i),
                ..
            }) = &index.kind
            else {
                return None;
            };
            match resolve_access(g, locals, base)?.shape {
                Shape::Stack(_, size) => Some(Element {
                    stack: rename.name_owned(expr_name(base)),
                    index: u32::try_from(i.get()).ok()?,
                    size,
                }),
                _ => None,
            }
        }
        ExprKind::Path(p) => rename.element(&p.name.name),
        _ => None,
    }
}

/// The declared type of a place (`hdr`, `hdr.inner`), when known.
fn type_of_place<'l, 'a: 'l>(
    g: &'l Globals<'a>,
    locals: &'l Locals<'a>,
    e: &Expr,
) -> Option<&'l Type> {
    match &e.kind {
        ExprKind::Path(p) => locals.vars.get(p.name.name.as_str()).map(|t| &**t),
        ExprKind::Member { base, member } => {
            let bt = type_of_place(g, locals, base)?;
            match g.shape(bt, 0).ok()? {
                Shape::Aggregate(d) => d
                    .fields
                    .iter()
                    .find(|f| f.name.name == member.name)
                    .map(|f| &f.ty),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A resolved sub-parser call.
pub struct SubCall<'a> {
    /// The applied parser.
    pub decl: &'a ParserDecl,
    /// The instance name (or the parser's name when applied by type).
    pub label: String,
    /// Constructor arguments of the instance.
    pub ctor_args: &'a [Argument],
    /// Arguments of `apply`.
    pub args: &'a [Argument],
}

/// The parser applied by `callee` (`sub.apply`): a local instance, a
/// top-level instance, or a parser declaration applied by its name.
pub fn resolve_sub_parser<'a>(
    cx: &Cx<'a, '_>,
    locals: &Locals<'a>,
    instances: &HashMap<&'a str, &'a Instantiation>,
    callee: &Expr,
) -> Option<(&'a ParserDecl, String, &'a [Argument])> {
    let ExprKind::Member { base, member } = &callee.kind else {
        return None;
    };
    if member.name != "apply" {
        return None;
    }
    let ExprKind::Path(p) = &base.kind else {
        return None;
    };
    let name = p.name.name.as_str();
    let parser_of = |i: &'a Instantiation| match &i.ty.kind {
        ast::TypeKind::Name(n) | ast::TypeKind::Specialized { base: n, .. } => {
            cx.g.parsers.get(n.name.name.as_str()).copied()
        }
        _ => None,
    };
    if let Some(i) = instances.get(name).copied() {
        return parser_of(i).map(|d| (d, name.to_string(), i.args.as_slice()));
    }
    if locals.vars.contains_key(name) {
        // A constructor parameter every instantiation binds to one parser.
        return locals
            .ctor_bound
            .get(name)
            .and_then(|t| cx.g.parsers.get(t.as_str()).copied())
            .map(|d| (d, name.to_string(), &[][..]));
    }
    if let Some(i) = cx.g.instances.get(name).copied() {
        return parser_of(i).map(|d| (d, name.to_string(), i.args.as_slice()));
    }
    cx.g.parsers
        .get(name)
        .map(|d| (*d, d.name.name.as_str().to_owned(), &[][..]))
}

/// `st` as an unconditional sub-parser call, when it is one.
pub fn sub_parser_call<'a>(
    cx: &Cx<'a, '_>,
    locals: &Locals<'a>,
    instances: &HashMap<&'a str, &'a Instantiation>,
    st: &'a Stmt,
) -> Option<SubCall<'a>> {
    let ast::StmtKind::Call(call) = &st.kind else {
        return None;
    };
    let ExprKind::Call { callee, args, .. } = &call.kind else {
        return None;
    };
    let (decl, label, ctor_args) = resolve_sub_parser(cx, locals, instances, callee)?;
    Some(SubCall {
        decl,
        label,
        ctor_args,
        args,
    })
}

/// The states of a parser under construction: slots are reserved first so
/// transitions can name them, and filled once lowered.
#[derive(Default)]
pub struct Out {
    /// The states; `None` until lowered.
    pub states: Vec<Option<ir::ParseState>>,
    /// Labels of the copies made so far.
    pub labels: HashSet<String>,
    /// Parsers being lowered, outermost first (to refuse recursion).
    pub stack: Vec<String>,
    /// Parameters of the top-level parser that are neither the packet nor
    /// the headers parameter: extracts into them land in metadata
    /// ([`ir::Origin::Metadata`]).
    pub metadata_params: HashSet<String>,
    /// The top-level parser's headers parameter (the first after the
    /// `packet_in`), shown as `hdr` in header names.
    pub headers_param: Option<String>,
}

impl Out {
    /// Reserves a state slot.
    pub fn reserve(&mut self) -> ir::StateId {
        self.states.push(None);
        ir::StateId((self.states.len() - 1) as u32)
    }

    /// Fills a state slot.
    pub fn set(&mut self, id: ir::StateId, state: ir::ParseState) {
        if let Some(slot) = self.states.get_mut(id.index()) {
            *slot = Some(state);
        }
    }

    /// A label for a new copy of `base` inside the copy `prefix`, unique in
    /// the parser: `prefix` + `base`, then `base#2`, `base#3`, ... for
    /// further copies of the same instance.
    pub fn label(&mut self, prefix: &str, base: &str) -> String {
        let mut label = format!("{prefix}{base}");
        let mut n = 2;
        while self.labels.contains(&label) {
            label = format!("{prefix}{base}#{n}");
            n += 1;
        }
        self.labels.insert(label.clone());
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renamer(pairs: &[(&str, &str)]) -> Renamer {
        Renamer {
            map: pairs
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            elements: HashMap::default(),
        }
    }

    #[test]
    fn renames_roots_only() {
        let r = renamer(&[("h", "hdr.inner"), ("tmp", "sub.tmp")]);
        assert_eq!(r.name("h.ipv4"), "hdr.inner.ipv4");
        assert_eq!(r.name("h.vlan[0].vid"), "hdr.inner.vlan[0].vid");
        // A field called like a parameter is not renamed.
        assert_eq!(r.name("x.h + h.h"), "x.h + hdr.inner.h");
        assert_eq!(r.name("tmp == 8w3"), "sub.tmp == 8w3");
        assert_eq!(
            r.name("verify(h . t == 1, error.Bad)"),
            "verify(hdr.inner . t == 1, error.Bad)"
        );
        // Identifiers inside a longer one are left alone.
        assert_eq!(r.name("htmp + tmp_x"), "htmp + tmp_x");
    }

    #[test]
    fn empty_renamer_is_identity() {
        assert_eq!(Renamer::default().name("h.ipv4"), "h.ipv4");
    }

    #[test]
    fn labels_are_unique() {
        let mut o = Out::default();
        assert_eq!(o.label("", "sub"), "sub");
        assert_eq!(o.label("", "sub"), "sub#2");
        assert_eq!(o.label("sub.", "inner"), "sub.inner");
        assert_eq!(o.label("", "sub"), "sub#3");
    }
}
