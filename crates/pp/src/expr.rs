//! Evaluation of `#if`/`#elif` integer constant expressions (after macro expansion and
//! `defined` replacement). Arithmetic is 64-bit signed and wraps; identifiers are 0.

use crate::lexer::{Kind, Tok};

/// Why an expression failed, with the index of the offending token (if any).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ExprError {
    pub at: Option<usize>,
    pub message: String,
}

const MAX_NESTING: usize = 256;

struct Parser<'t> {
    toks: &'t [Tok],
    pos: usize,
    depth: usize,
}

type R = Result<i64, ExprError>;

/// Evaluates a whole token list; trailing tokens are an error.
pub(crate) fn eval(toks: &[Tok]) -> R {
    if toks.is_empty() {
        return Err(ExprError {
            at: None,
            message: "#if with no expression".into(),
        });
    }
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    let v = p.cond(true)?;
    if p.pos < toks.len() {
        return Err(p.err(format!("missing binary operator before '{}'", p.text())));
    }
    Ok(v)
}

/// Parses an integer literal with optional `u`/`l` suffixes (decimal, 0x hex, 0b binary, 0 octal).
pub(crate) fn parse_int(text: &str) -> Option<i64> {
    let t = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else if t.len() > 1 && t.starts_with('0') {
        (&t[1..], 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() {
        return None;
    }
    // Values beyond i64 wrap like unsigned C arithmetic would.
    u64::from_str_radix(digits, radix).ok().map(|v| v as i64)
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn text(&self) -> &str {
        self.peek().map_or("", |t| &t.text)
    }

    fn err(&self, message: String) -> ExprError {
        ExprError {
            at: Some(self.pos.min(self.toks.len().saturating_sub(1))),
            message,
        }
    }

    fn eat(&mut self, p: &str) -> bool {
        if self.peek().is_some_and(|t| t.is_punct(p)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn cond(&mut self, ev: bool) -> R {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.err("expression nested too deeply".into()));
        }
        let c = self.binary(1, ev)?;
        let r = if self.eat("?") {
            let a = self.cond(ev && c != 0)?;
            if !self.eat(":") {
                return Err(self.err("expected ':' in conditional expression".into()));
            }
            let b = self.cond(ev && c == 0)?;
            if c != 0 {
                a
            } else {
                b
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(r)
    }

    /// The binary operator at the cursor and its precedence (1 = `||` ... 10 = `* / %`).
    fn binop(&self) -> Option<(&'static str, u8)> {
        const OPS: [(&str, u8); 18] = [
            ("||", 1),
            ("&&", 2),
            ("|", 3),
            ("^", 4),
            ("&", 5),
            ("==", 6),
            ("!=", 6),
            ("<", 7),
            (">", 7),
            ("<=", 7),
            (">=", 7),
            ("<<", 8),
            (">>", 8),
            ("+", 9),
            ("-", 9),
            ("*", 10),
            ("/", 10),
            ("%", 10),
        ];
        let t = self.peek()?;
        if t.kind != Kind::Punct {
            return None;
        }
        OPS.iter().find(|(op, _)| *op == &*t.text).copied()
    }

    /// Precedence climbing over left-associative binary operators of precedence >= `min`.
    fn binary(&mut self, min: u8, ev: bool) -> R {
        let mut l = self.unary(ev)?;
        while let Some((op, prec)) = self.binop() {
            if prec < min {
                break;
            }
            let op_pos = self.pos;
            self.pos += 1;
            let rev = match op {
                "&&" => ev && l != 0,
                "||" => ev && l == 0,
                _ => ev,
            };
            let r = self.binary(prec + 1, rev)?;
            l = match op {
                "||" => i64::from(l != 0 || r != 0),
                "&&" => i64::from(l != 0 && r != 0),
                "|" => l | r,
                "^" => l ^ r,
                "&" => l & r,
                "==" => i64::from(l == r),
                "!=" => i64::from(l != r),
                "<" => i64::from(l < r),
                ">" => i64::from(l > r),
                "<=" => i64::from(l <= r),
                ">=" => i64::from(l >= r),
                "<<" => shift(l, r, true),
                ">>" => shift(l, r, false),
                "+" => l.wrapping_add(r),
                "-" => l.wrapping_sub(r),
                "*" => l.wrapping_mul(r),
                _ => {
                    if r == 0 {
                        if ev {
                            return Err(ExprError {
                                at: Some(op_pos),
                                message: "division by zero in #if".into(),
                            });
                        }
                        0
                    } else if op == "/" {
                        l.wrapping_div(r)
                    } else {
                        l.wrapping_rem(r)
                    }
                }
            };
        }
        Ok(l)
    }

    fn unary(&mut self, ev: bool) -> R {
        let Some(t) = self.peek() else {
            return Err(self.err("unexpected end of #if expression".into()));
        };
        let t = t.clone();
        match (t.kind, &*t.text) {
            (Kind::Punct, op @ ("+" | "-" | "!" | "~")) => {
                self.pos += 1;
                self.depth += 1;
                if self.depth > MAX_NESTING {
                    return Err(self.err("expression nested too deeply".into()));
                }
                let v = self.unary(ev)?;
                self.depth -= 1;
                Ok(match op {
                    "+" => v,
                    "-" => v.wrapping_neg(),
                    "!" => i64::from(v == 0),
                    _ => !v,
                })
            }
            (Kind::Punct, "(") => {
                self.pos += 1;
                let v = self.cond(ev)?;
                if !self.eat(")") {
                    return Err(self.err("expected ')' in #if expression".into()));
                }
                Ok(v)
            }
            (Kind::Number, s) => {
                let v = parse_int(s)
                    .ok_or_else(|| self.err(format!("invalid integer '{s}' in #if")))?;
                self.pos += 1;
                Ok(v)
            }
            (Kind::Ident, _) => {
                self.pos += 1;
                Ok(0)
            }
            _ => Err(self.err(format!("unexpected '{}' in #if expression", t.text))),
        }
    }
}

fn shift(l: i64, r: i64, left: bool) -> i64 {
    match (left, u32::try_from(r)) {
        (true, Ok(n)) if n < 64 => l.wrapping_shl(n),
        (false, Ok(n)) if n < 64 => l >> n,
        (true, _) => 0,
        (false, _) => {
            if l < 0 {
                -1
            } else {
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lexer::{lex, splice};

    fn ev(s: &str) -> R {
        let toks = lex(&splice(s), 0).unwrap_or_default();
        eval(&toks)
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(ev("1 + 2 * 3"), Ok(7));
        assert_eq!(ev("(1 + 2) * 3"), Ok(9));
        assert_eq!(ev("10 - 3 - 2"), Ok(5));
        assert_eq!(ev("100 / 10 / 5"), Ok(2));
        assert_eq!(ev("1 << 2 + 1"), Ok(8));
        assert_eq!(ev("1 | 6 ^ 3 & 5"), Ok(7));
        assert_eq!(ev("1 < 2 == 1"), Ok(1));
        assert_eq!(ev("7 % 4 >= 3 && 2 != 2 || 5 > 4"), Ok(1));
        assert_eq!(ev("-3 + ~0 + !0 + !5"), Ok(-3));
        assert_eq!(ev("0x10 + 010 + 0b11 + 1u + 2UL"), Ok(16 + 8 + 3 + 1 + 2));
        assert_eq!(ev("1 ? 2 : 3"), Ok(2));
        assert_eq!(ev("0 ? 2 : 0 ? 3 : 4"), Ok(4));
        assert_eq!(ev("FOO + 1"), Ok(1));
        assert_eq!(ev("-8 >> 1"), Ok(-4));
    }

    #[test]
    fn short_circuit_suppresses_division_errors() {
        assert_eq!(ev("0 && 1 / 0"), Ok(0));
        assert_eq!(ev("1 || 1 % 0"), Ok(1));
        assert_eq!(ev("1 ? 2 : 1 / 0"), Ok(2));
        assert!(ev("1 / 0").is_err());
    }

    #[test]
    fn malformed_expressions() {
        assert!(ev("").is_err());
        assert!(ev("1 +").is_err());
        assert!(ev("(1").is_err());
        assert!(ev("1 2").is_err());
        assert!(ev("1 ? 2").is_err());
        assert!(ev("8w3").is_err());
        assert!(ev(&"(".repeat(5000)).is_err());
        assert!(ev(&"-".repeat(5000)).is_err());
    }
}
