//! Macro definitions: parsing `#define` bodies, and the pure helpers of substitution
//! (stringify, token pasting).

use std::rc::Rc;

use crate::lexer::{lex_snippet, HideSet, Kind, Tok};

/// What kind of macro a name is bound to.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MacroKind {
    /// `#define NAME body`
    Object,
    /// `#define NAME(params) body`; a variadic macro's last parameter collects the extra
    /// arguments (`__VA_ARGS__` or a GNU named `args...`).
    Function {
        params: Vec<Rc<str>>,
        variadic: bool,
    },
    /// `__LINE__`
    Line,
    /// `__FILE__`
    File,
}

/// A macro definition.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Macro {
    pub name: Rc<str>,
    pub kind: MacroKind,
    pub body: Vec<Tok>,
}

impl Macro {
    /// Index of the parameter spelled by `t`, for function-like macros.
    pub fn param_index(&self, t: &Tok) -> Option<usize> {
        match &self.kind {
            MacroKind::Function { params, .. } if t.kind == Kind::Ident => {
                params.iter().position(|p| **p == *t.text)
            }
            _ => None,
        }
    }

    /// Whether two definitions are the same (identical redefinition is allowed silently).
    pub fn same_as(&self, other: &Macro) -> bool {
        let kinds = match (&self.kind, &other.kind) {
            (MacroKind::Object, MacroKind::Object) => true,
            (
                MacroKind::Function {
                    params: a,
                    variadic: va,
                },
                MacroKind::Function {
                    params: b,
                    variadic: vb,
                },
            ) => a == b && va == vb,
            _ => false,
        };
        kinds
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (x, y))| x.text == y.text && (i == 0 || x.space == y.space))
    }
}

/// Parses the tokens after `#define` into a macro. Errors are (token index, message).
pub(crate) fn parse_define(toks: &[Tok]) -> Result<Macro, (usize, String)> {
    let Some(name) = toks.first().filter(|t| t.kind == Kind::Ident) else {
        return Err((0, "macro name must be an identifier".into()));
    };
    if &*name.text == "defined" {
        return Err((0, "'defined' cannot be used as a macro name".into()));
    }
    let mut i = 1;
    let mut kind = MacroKind::Object;
    if toks.get(1).is_some_and(|t| t.is_punct("(") && !t.space) {
        i = 2;
        let mut params: Vec<Rc<str>> = Vec::new();
        let mut variadic = false;
        let mut expect_param = true;
        loop {
            let Some(t) = toks.get(i) else {
                return Err((
                    i.saturating_sub(1),
                    "missing ')' in macro parameter list".into(),
                ));
            };
            i += 1;
            if t.is_punct(")") && (!expect_param || params.is_empty()) {
                break;
            }
            if variadic {
                return Err((i - 1, "expected ')' after '...'".into()));
            }
            if expect_param {
                if t.is_punct("...") {
                    params.push(Rc::from("__VA_ARGS__"));
                    variadic = true;
                } else if t.kind == Kind::Ident {
                    if params.iter().any(|p| **p == *t.text) {
                        return Err((i - 1, format!("duplicate macro parameter '{}'", t.text)));
                    }
                    params.push(t.text.clone());
                    if toks.get(i).is_some_and(|n| n.is_punct("...")) {
                        i += 1;
                        variadic = true;
                    }
                } else {
                    return Err((
                        i - 1,
                        format!("expected parameter name, found '{}'", t.text),
                    ));
                }
                expect_param = false;
            } else if t.is_punct(",") {
                expect_param = true;
            } else {
                return Err((i - 1, format!("expected ',' or ')', found '{}'", t.text)));
            }
        }
        kind = MacroKind::Function { params, variadic };
    }
    let mut body: Vec<Tok> = toks.get(i..).unwrap_or(&[]).to_vec();
    for t in &mut body {
        t.bol = false;
        t.direct = false;
        t.hs = HideSet::default();
    }
    if let Some(first) = body.first_mut() {
        first.space = false;
    }
    if body.first().is_some_and(|t| t.is_punct("##")) {
        return Err((i, "'##' cannot appear at either end of a macro body".into()));
    }
    if body.last().is_some_and(|t| t.is_punct("##")) {
        return Err((
            toks.len() - 1,
            "'##' cannot appear at either end of a macro body".into(),
        ));
    }
    let m = Macro {
        name: name.text.clone(),
        kind,
        body,
    };
    if matches!(m.kind, MacroKind::Function { .. }) {
        for (k, t) in m.body.iter().enumerate() {
            if t.is_punct("#") && m.body.get(k + 1).is_none_or(|n| m.param_index(n).is_none()) {
                return Err((i + k, "'#' is not followed by a macro parameter".into()));
            }
        }
    }
    Ok(m)
}

/// The string literal spelling of an argument (`#x`).
pub(crate) fn stringify(arg: &[Tok]) -> String {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && t.space {
            s.push(' ');
        }
        if t.kind == Kind::Str {
            for c in t.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.text);
        }
    }
    s.push('"');
    s
}

/// Pastes two tokens (`a ## b`); the result is re-lexed. Placemarkers vanish. A paste that
/// does not form one token yields the re-lexed pieces (lenient, never an error).
pub(crate) fn paste(l: &Tok, r: &Tok, at: &Tok) -> Vec<Tok> {
    if l.kind == Kind::Placemarker {
        return vec![r.clone()];
    }
    if r.kind == Kind::Placemarker {
        return vec![l.clone()];
    }
    let text = format!("{}{}", l.text, r.text);
    let hs = l.hs.intersect(&r.hs);
    let mut v = lex_snippet(&text, at);
    for (k, t) in v.iter_mut().enumerate() {
        t.space = k == 0 && l.space;
        t.hs = hs.clone();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::{lex, splice};

    fn toks(s: &str) -> Vec<Tok> {
        lex(&splice(s), 0).unwrap_or_default()
    }

    #[test]
    fn parses_object_and_function_macros() {
        let m = parse_define(&toks("A 1 + 2")).map_err(|e| e.1);
        let m = m
            .as_ref()
            .map(|m| (m.body.len(), matches!(m.kind, MacroKind::Object)));
        assert_eq!(m, Ok((3, true)));
        let m = parse_define(&toks("F(a, b) a+b")).map_err(|e| e.1);
        assert!(matches!(
            m.as_ref().map(|m| &m.kind),
            Ok(MacroKind::Function { params, variadic: false }) if params.len() == 2
        ));
        // space before '(' makes it object-like
        let m = parse_define(&toks("F (a) a")).map_err(|e| e.1);
        assert!(matches!(m.map(|m| m.kind), Ok(MacroKind::Object)));
        let m = parse_define(&toks("V(x, ...) x __VA_ARGS__")).map_err(|e| e.1);
        assert!(matches!(
            m.map(|m| m.kind),
            Ok(MacroKind::Function { params, variadic: true }) if &*params[1] == "__VA_ARGS__"
        ));
        let m = parse_define(&toks("G(rest...) rest")).map_err(|e| e.1);
        assert!(matches!(
            m.map(|m| m.kind),
            Ok(MacroKind::Function { params, variadic: true }) if &*params[0] == "rest"
        ));
        let m = parse_define(&toks("E() 1")).map_err(|e| e.1);
        assert!(
            matches!(m.map(|m| m.kind), Ok(MacroKind::Function { params, .. }) if params.is_empty())
        );
    }

    #[test]
    fn rejects_bad_definitions() {
        for bad in [
            "",
            "1 x",
            "defined 1",
            "F(a",
            "F(a,) x",
            "F(a a) x",
            "F(a, a) x",
            "F(...,x) y",
            "A ## b ##",
            "## b",
            "F(x) #y",
            "F(1) x",
        ] {
            assert!(parse_define(&toks(bad)).is_err(), "{bad}");
        }
        // '#' in an object-like macro is just a token
        assert!(parse_define(&toks("A # b")).is_ok());
    }

    #[test]
    fn stringify_escapes_strings_and_collapses_space() {
        let t = toks("a   +\"q\\n\"  b");
        assert_eq!(stringify(&t), r#""a +\"q\\n\" b""#);
        assert_eq!(stringify(&[]), "\"\"");
    }

    #[test]
    fn identical_redefinition() {
        let a = parse_define(&toks("A 1  +  2")).map_err(|e| e.1);
        let b = parse_define(&toks("A 1 + 2")).map_err(|e| e.1);
        let c = parse_define(&toks("A 1+2")).map_err(|e| e.1);
        match (a, b, c) {
            (Ok(a), Ok(b), Ok(c)) => {
                assert!(a.same_as(&b));
                assert!(!a.same_as(&c));
            }
            _ => panic!("definitions should parse"),
        }
    }
}

/// A superset of the defined macros' names, by a few bits of each name (its
/// first and last byte and its length): most identifiers of a program name
/// no macro, and this says so without hashing them. It also keeps the
/// bytes the names start with, for a scan of a line for names.
#[derive(Clone, Debug)]
pub(crate) struct MacroFilter {
    bits: [u64; 16],
    first: NameStarts,
}

/// The bytes names start with: a table, and the bytes themselves while
/// they are few (a scan for a few bytes goes a word at a time).
#[derive(Clone, Debug)]
pub(crate) struct NameStarts {
    /// Whether a name starts with the byte.
    pub(crate) table: [bool; 256],
    /// The bytes, when at most [`NameStarts::FEW`] (else empty).
    pub(crate) few: Vec<u8>,
    /// How many bytes the table holds.
    count: usize,
}

impl NameStarts {
    /// Most bytes [`NameStarts::few`] holds.
    pub(crate) const FEW: usize = 4;

    fn add(&mut self, c: u8) {
        let seen = &mut self.table[usize::from(c)];
        if *seen {
            return;
        }
        *seen = true;
        self.count += 1;
        if self.count <= Self::FEW {
            self.few.push(c);
        } else {
            self.few.clear();
        }
    }
}

impl Default for MacroFilter {
    fn default() -> Self {
        MacroFilter {
            bits: [0; 16],
            first: NameStarts {
                table: [false; 256],
                few: Vec::new(),
                count: 0,
            },
        }
    }
}

impl MacroFilter {
    #[inline]
    fn bit(name: &str) -> usize {
        let b = name.as_bytes();
        let first = b.first().map_or(0, |&c| usize::from(c));
        let last = b.last().map_or(0, |&c| usize::from(c));
        (first * 31 + last * 7 + b.len()) & 1023
    }

    /// Lets `name` through from now on.
    pub(crate) fn add(&mut self, name: &str) {
        let k = Self::bit(name);
        self.bits[k >> 6] |= 1 << (k & 63);
        if let Some(&c) = name.as_bytes().first() {
            self.first.add(c);
        }
    }

    /// False when no macro named `name` was added.
    #[inline]
    pub(crate) fn may_have(&self, name: &str) -> bool {
        let k = Self::bit(name);
        self.bits[k >> 6] & (1 << (k & 63)) != 0
    }

    /// The bytes the names added start with (a superset: a name may be
    /// gone).
    #[inline]
    pub(crate) fn starts(&self) -> &NameStarts {
        &self.first
    }

    /// The filter of exactly `names`.
    pub(crate) fn of<'n>(names: impl Iterator<Item = &'n str>) -> Self {
        let mut f = MacroFilter::default();
        names.for_each(|n| f.add(n));
        f
    }
}
