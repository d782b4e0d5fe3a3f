//! Syntax errors and their human-readable messages.

use pest::error::{ErrorVariant, InputLocation};

use crate::grammar::Rule;

/// A syntax error: where parsing stopped and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("syntax error at byte {offset}: {message}")]
pub struct SyntaxError {
    /// Byte offset into the input text.
    pub offset: usize,
    /// Readable description, e.g. "expected `;`, found `}`".
    pub message: String,
}

impl SyntaxError {
    /// 1-based line and column (in characters) of the error in `text`.
    pub fn line_col(&self, text: &str) -> (usize, usize) {
        let upto = text.get(..self.offset.min(text.len())).unwrap_or(text);
        let line = upto.matches('\n').count() + 1;
        let col = upto
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        (line, col)
    }
}

/// Human name of a grammar rule for "expected ..." lists; `None` for rules
/// that should not be mentioned.
fn rule_name(rule: Rule) -> Option<&'static str> {
    use Rule::*;
    Some(match rule {
        EOI => "end of input",
        ident => "identifier",
        annot_name => "annotation name",
        int_lit => "integer",
        string_lit => "string literal",
        declaration => "declaration",
        annotation | annotation_list => "annotation",
        type_ref | type_or_void | type_arg => "type",
        type_params => "type parameters",
        type_arg_list => "`<`",
        expr => "expression",
        expr_list => "expression",
        stmt => "statement",
        block => "`{`",
        params | ctor_params | args | call => "`(`",
        param => "parameter",
        arg => "argument",
        field => "field",
        field_list => "`{`",
        keyset | simple_keyset | tuple_keyset => "keyset",
        select_case => "select case",
        transition => "`transition`",
        parser_state => "`state`",
        parser_local => "parser local declaration",
        control_local => "control local declaration",
        table_prop => "table property",
        key_element => "key element",
        action_ref => "action",
        entry => "table entry",
        switch_case => "switch case",
        method_proto => "method declaration",
        kv_pair => "`name = value`",
        stack_size | index => "`[`",
        member => "`.`",
        path => "name",
        dontcare => "`_`",
        dots => "`...`",
        invalid_header => "`{#}`",
        cast | paren => "`(`",
        lnot => "`!`",
        bnot => "`~`",
        neg | sub => "`-`",
        pos | add => "`+`",
        ternary => "`?`",
        lor => "`||`",
        land => "`&&`",
        eq => "`==`",
        ne => "`!=`",
        le => "`<=`",
        ge => "`>=`",
        shr => "`>>`",
        shl => "`<<`",
        lt => "`<`",
        gt => "`>`",
        concat => "`++`",
        add_sat => "`|+|`",
        sub_sat => "`|-|`",
        mul => "`*`",
        div => "`/`",
        modulo => "`%`",
        bor => "`|`",
        bxor => "`^`",
        band => "`&`",
        generic_call => "`<`",
        mask_tail => "`&&&`",
        range_tail => "`..`",
        assign_rhs => "`=`",
        empty_decl | proto_end | empty_stmt => "`;`",
        direction => "direction",
        kw_abstract => "`abstract`",
        kw_action => "`action`",
        kw_bit => "`bit`",
        kw_bool => "`bool`",
        kw_break => "`break`",
        kw_const => "`const`",
        kw_continue => "`continue`",
        kw_control => "`control`",
        kw_default => "`default`",
        kw_else => "`else`",
        kw_enum => "`enum`",
        kw_error => "`error`",
        kw_exit => "`exit`",
        kw_extern => "`extern`",
        kw_false => "`false`",
        kw_for => "`for`",
        kw_header => "`header`",
        kw_header_union => "`header_union`",
        kw_if => "`if`",
        kw_in => "`in`",
        kw_inout => "`inout`",
        kw_int => "`int`",
        kw_match_kind => "`match_kind`",
        kw_out => "`out`",
        kw_package => "`package`",
        kw_parser => "`parser`",
        kw_return => "`return`",
        kw_select => "`select`",
        kw_string => "`string`",
        kw_struct => "`struct`",
        kw_switch => "`switch`",
        kw_table => "`table`",
        kw_this => "`this`",
        kw_transition => "`transition`",
        kw_true => "`true`",
        kw_tuple => "`tuple`",
        kw_typedef => "`typedef`",
        kw_varbit => "`varbit`",
        kw_value_set => "`value_set`",
        kw_void => "`void`",
        kw_apply => "`apply`",
        kw_key => "`key`",
        kw_actions => "`actions`",
        kw_entries => "`entries`",
        kw_state => "`state`",
        kw_type => "`type`",
        kw_priority => "`priority`",
        kw_list => "`list`",
        _ => return None,
    })
}

/// Tokens that merely continue an expression; they are left out of
/// "expected" lists after a complete expression when something more
/// specific (such as `;`) is possible.
fn is_continuation(s: &str) -> bool {
    matches!(
        s,
        "`.`"
            | "`[`"
            | "`(`"
            | "`<`"
            | "`?`"
            | "`||`"
            | "`&&`"
            | "`==`"
            | "`!=`"
            | "`<=`"
            | "`>=`"
            | "`>>`"
            | "`<<`"
            | "`>`"
            | "`++`"
            | "`|+|`"
            | "`|-|`"
            | "`+`"
            | "`-`"
            | "`*`"
            | "`/`"
            | "`%`"
            | "`|`"
            | "`^`"
            | "`&`"
            | "`&&&`"
            | "`..`"
    )
}

/// Tokens that can start an operand; collapsed into "expression".
fn is_operand_start(s: &str) -> bool {
    matches!(
        s,
        "`!`"
            | "`~`"
            | "`-`"
            | "`+`"
            | "`(`"
            | "`{`"
            | "`...`"
            | "`_`"
            | "`.`"
            | "`{#}`"
            | "integer"
            | "string literal"
            | "identifier"
            | "name"
            | "`true`"
            | "`false`"
            | "`this`"
            | "`error`"
    )
}

/// Tokens that can start a type; collapsed into "type".
fn is_type_start(s: &str) -> bool {
    matches!(
        s,
        "`bit`"
            | "`int`"
            | "`varbit`"
            | "`bool`"
            | "`string`"
            | "`error`"
            | "`match_kind`"
            | "`tuple`"
            | "`list`"
            | "identifier"
            | "name"
            | "`.`"
    )
}

/// P4 punctuation reported by pest as literal tokens.  Other literals (digit
/// prefixes inside integer literals, comment openers, ...) are noise.
fn is_punctuation(t: &str) -> bool {
    matches!(
        t,
        ";" | ","
            | ":"
            | "("
            | ")"
            | "{"
            | "}"
            | "["
            | "]"
            | "<"
            | ">"
            | "="
            | "."
            | "@"
            | "..."
            | ".."
            | "&&&"
            | "!"
            | "~"
            | "-"
            | "+"
            | "*"
            | "/"
            | "%"
            | "|"
            | "^"
            | "&"
            | "||"
            | "&&"
            | "=="
            | "!="
            | "<="
            | ">="
            | "<<"
            | ">>"
            | "++"
            | "|+|"
            | "|-|"
            | "?"
    )
}

/// Builds the list of expected things, most specific first, from pest's
/// positives and expected literal tokens.
fn expected_list(positives: &[Rule], tokens: &[String]) -> Vec<String> {
    use Rule::*;
    let mut items: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !items.contains(&s) {
            items.push(s);
        }
    };
    for t in tokens {
        if is_punctuation(t) {
            push(format!("`{t}`"));
        }
    }
    for r in positives {
        if let Some(n) = rule_name(*r) {
            push(n.to_string());
        }
    }
    let after_expr = positives.iter().any(|r| {
        matches!(
            r,
            ternary
                | lor
                | land
                | eq
                | ne
                | le
                | ge
                | shr
                | shl
                | lt
                | gt
                | concat
                | add_sat
                | sub_sat
                | add
                | sub
                | mul
                | div
                | modulo
                | bor
                | bxor
                | band
                | member
                | index
        )
    });
    if after_expr {
        let rest: Vec<String> = items
            .iter()
            .filter(|s| !is_continuation(s))
            .cloned()
            .collect();
        items = if rest.is_empty() {
            vec!["operator".to_string()]
        } else {
            rest
        };
    }
    let has = |items: &[String], s: &str| items.iter().any(|i| i == s);
    // An operand was expected: the prefix operators were tried, or (when
    // their first-character guard failed) the literal operands were.
    if (has(&items, "`!`") && has(&items, "`~`"))
        || (has(&items, "`true`") && has(&items, "`false`"))
        || (has(&items, "argument") && items.iter().all(|s| is_operand_start(s) || s == "argument"))
    {
        items.retain(|s| !is_operand_start(s) && s != "expression");
        items.insert(0, "expression".to_string());
    }
    if has(&items, "`bit`") && has(&items, "`varbit`") {
        items.retain(|s| !is_type_start(s) && s != "type");
        items.insert(0, "type".to_string());
    }
    if has(&items, "expression") {
        items.retain(|s| s != "argument");
    }
    if has(&items, "`<`") {
        items.retain(|s| s != "type parameters");
    }
    let noise = |s: &String| s == "`@`" || s == "annotation";
    if items.iter().any(|s| !noise(s)) {
        items.retain(|s| !noise(s));
    }
    items
}

/// Moves `offset` past whitespace and comments so that it points at the
/// next token.
fn skip_trivia(text: &str, mut offset: usize) -> usize {
    loop {
        let Some(rest) = text.get(offset..) else {
            return offset;
        };
        let trimmed = rest.trim_start();
        if trimmed.len() != rest.len() {
            offset += rest.len() - trimmed.len();
        } else if rest.starts_with("//") {
            offset += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            match rest.find("*/") {
                Some(end) => offset += end + 2,
                None => return offset,
            }
        } else {
            return offset;
        }
    }
}

/// Describes the token that starts at `offset`.
fn found_at(text: &str, offset: usize) -> String {
    let Some(rest) = text.get(offset..) else {
        return "end of input".to_string();
    };
    let Some(c) = rest.chars().next() else {
        return "end of input".to_string();
    };
    if c.is_ascii_alphanumeric() || c == '_' {
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(40)
            .collect();
        return format!("`{word}`");
    }
    if c == '"' {
        return "string literal".to_string();
    }
    const PUNCT: [&str; 24] = [
        "&&&", "|+|", "|-|", "...", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "++", "..",
        "<", ">", "(", ")", "{", "}", "[", "]", ";", ":",
    ];
    for p in PUNCT {
        if rest.starts_with(p) {
            return format!("`{p}`");
        }
    }
    if c.is_whitespace() {
        return "whitespace".to_string();
    }
    format!("`{c}`")
}

/// Converts a pest error into a [`SyntaxError`] with a readable message.
pub(crate) fn from_pest(err: &pest::error::Error<Rule>, text: &str) -> SyntaxError {
    let offset = match err.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let positives: Vec<Rule> = match &err.variant {
        ErrorVariant::ParsingError { positives, .. } => positives.clone(),
        ErrorVariant::CustomError { message } => {
            let message = if message.contains("call limit") {
                format!(
                    "the parser gives up here: the input needs more than {} parsing steps per byte (limit {}, plus {} per declaration); something makes the grammar backtrack, such as a long chain of `<` that might open type arguments",
                    crate::PARSE_STEPS_PER_BYTE,
                    crate::PARSE_STEPS_PER_BYTE,
                    crate::MIN_PARSE_STEPS
                )
            } else if message.contains("limit") {
                "program is nested too deeply to parse".to_string()
            } else {
                message.clone()
            };
            return SyntaxError { offset, message };
        }
    };
    let mut offset = skip_trivia(text, offset);
    let mut list = expected_list(&positives, &[]);
    if let Some(attempts) = err.parse_attempts() {
        let tokens: Vec<String> = attempts
            .expected_tokens()
            .iter()
            .map(|t| t.to_string())
            .collect();
        let max = skip_trivia(text, attempts.max_position);
        if max == offset {
            list = expected_list(&positives, &tokens);
        } else if max > offset {
            // pest's detailed tracking got further than the rule-level
            // error; trust it when it names real tokens there (attempts made
            // inside lookaheads only produce character-level noise).
            let further = expected_list(&[], &tokens);
            if !further.is_empty() {
                offset = max;
                list = further;
            }
        }
    }
    let found = found_at(text, offset);
    let message = match list.len() {
        0 => format!("unexpected {found}"),
        1 => format!("expected {}, found {found}", list.join("")),
        2..=6 => {
            let (last, init) = match list.split_last() {
                Some(x) => x,
                None => {
                    return SyntaxError {
                        offset,
                        message: format!("unexpected {found}"),
                    }
                }
            };
            format!("expected {} or {last}, found {found}", init.join(", "))
        }
        _ => {
            let shown: Vec<&str> = list.iter().take(6).map(String::as_str).collect();
            format!("expected one of {}, ..., found {found}", shown.join(", "))
        }
    };
    SyntaxError { offset, message }
}
