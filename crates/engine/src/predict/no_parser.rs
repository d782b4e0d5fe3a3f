//! Why a program has no ingress parser to predict from: what `main` is
//! (or that there is none) and which parsers the program declares, so a
//! program p4cost could not bind (a type error p4cost does not check for,
//! an architecture it does not know) says what was found instead.

use p4cost_ir::{InputKind, Program};

/// Most parser names the error lists; the rest are counted.
const LISTED_PARSERS: usize = 5;

/// The parenthesised reason of the "no ingress parser found" error for
/// `program`, whose pipeline `pipe` (when it binds several) has none.
pub(super) fn reason(program: &Program, pipe: Option<&str>) -> String {
    if program.input == InputKind::TofinoContext {
        return "context.json has none: give the P4 source with the context (`predict prog.p4 \
                --context context.json`), use `--model tofino1-mau-cycles`, or `p4cost stages`"
            .to_string();
    }
    let bound = match (program.input, &program.main_package, pipe) {
        (_, _, Some(p)) => format!("pipeline `{p}` binds no parser"),
        (InputKind::P4Source, Some(ty), None) => {
            format!("`main` is a `{ty}`, whose arguments bind no ingress parser")
        }
        (InputKind::P4Source, None, None) => {
            "the program has no `main` package instantiation".to_string()
        }
        _ => "no parser is bound to a package".to_string(),
    };
    format!("{bound}; {}", declared(program))
}

/// `parsers declared: A, B (and 3 more)`, or that there is none.
fn declared(program: &Program) -> String {
    let n = program.parsers.len();
    if n == 0 {
        return "the program declares no parser".to_string();
    }
    let names: Vec<&str> = program
        .parsers
        .iter()
        .take(LISTED_PARSERS)
        .map(|p| p.name.as_str())
        .collect();
    let more = match n.saturating_sub(LISTED_PARSERS) {
        0 => String::new(),
        m => format!(" and {m} more"),
    };
    format!("parsers declared: {}{more}", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::{Gress, Parser, Span, StateId};

    fn program(main: Option<&str>, parsers: usize) -> Program {
        let mut p = Program::new("t", InputKind::P4Source);
        p.main_package = main.map(str::to_string);
        let file = p.add_file("t.p4");
        for i in 0..parsers {
            p.parsers.push(Parser {
                name: format!("P{i}"),
                gress: Gress::Unknown,
                states: Vec::new(),
                start: StateId(0),
                span: Span::file_start(file),
            });
        }
        p
    }

    #[test]
    fn names_main_and_the_parsers_found() {
        assert_eq!(
            reason(&program(Some("top"), 0), None),
            "`main` is a `top`, whose arguments bind no ingress parser; \
             the program declares no parser"
        );
        assert_eq!(
            reason(&program(None, 2), None),
            "the program has no `main` package instantiation; parsers declared: P0, P1"
        );
    }

    #[test]
    fn lists_five_parsers_and_counts_the_rest() {
        assert_eq!(
            reason(&program(Some("Switch"), 8), Some("pipe1")),
            "pipeline `pipe1` binds no parser; parsers declared: P0, P1, P2, P3, P4 and 3 more"
        );
    }
}
