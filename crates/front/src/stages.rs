//! The front end's three stages one at a time, for callers that time or
//! cache them apart (the `stages` bench): [`preprocess_source`], [`parse`],
//! [`lower`]. Run in a row they give what [`crate::load_source`] gives.

use p4cost_syntax::ast;

use crate::{FrontError, Loaded, Options};

/// The preprocessor's output for `text` (named `name` in messages), with the
/// bundled architecture includes as the fallback for `#include <...>` and
/// p4c's predefined macros: the first stage of [`crate::load_source`].
pub fn preprocess_source(
    name: &str,
    text: &str,
    opts: &Options,
) -> Result<p4cost_pp::Output, FrontError> {
    let ppo = crate::pp_options(opts);
    let mut pp = p4cost_pp::Preprocessor::new(&ppo, &crate::ArchBundle);
    pp.run_source(name, text).map_err(crate::pp_error)
}

/// A preprocessed text and its syntax tree, what [`lower`] takes (the two
/// belong together: the tree's spans are offsets into that text).
#[derive(Debug)]
pub struct Parsed<'a> {
    out: &'a p4cost_pp::Output,
    tree: ast::Program,
}

impl Parsed<'_> {
    /// The syntax tree.
    pub fn tree(&self) -> &ast::Program {
        &self.tree
    }
}

/// Parses the preprocessed text of `out` (on a worker thread with the
/// parser's stack); a syntax error is placed in the original file.
pub fn parse(out: &p4cost_pp::Output) -> Result<Parsed<'_>, FrontError> {
    match p4cost_syntax::parse(&out.text) {
        Ok(tree) => Ok(Parsed { out, tree }),
        Err(e) => Err(crate::syntax_error(out, e)),
    }
}

/// Lowers a parsed program into the program model named `name`, on a
/// worker thread with the lowering's stack: the last stage of
/// [`crate::load_source`].
pub fn lower(parsed: Parsed<'_>, name: &str, opts: &Options) -> Result<Loaded, FrontError> {
    let Parsed { out, tree } = parsed;
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("p4cost-front".to_string())
            .stack_size(crate::LOWER_STACK_BYTES)
            .spawn_scoped(scope, move || {
                crate::lower_tree(out, tree, name, opts, None)
            });
        match worker {
            Ok(handle) => match handle.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread: as `load_source` does then, parse again (the
            // tree went with the closure) and lower on this thread.
            Err(_) => match p4cost_syntax::parse(&out.text) {
                Ok(tree) => crate::lower_tree(out, tree, name, opts, None),
                Err(e) => Err(crate::syntax_error(out, e)),
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROGRAM: &str = "#include <core.p4>\n#include <v1model.p4>\n
header h_t { bit<8> k; }
struct hs { h_t h; }
struct m_t { }
parser P(packet_in pkt, out hs hdr, inout m_t m, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control I(inout hs hdr, inout m_t m, inout standard_metadata_t sm) {
    action a() { }
    table t { key = { hdr.h.k : exact; } actions = { a; NoAction; } }
    apply { if (hdr.h.isValid()) { t.apply(); } }
}
control E(inout hs hdr, inout m_t m, inout standard_metadata_t sm) { apply { } }
control V(inout hs hdr, inout m_t m) { apply { } }
control C(inout hs hdr, inout m_t m) { apply { } }
control D(packet_out pkt, in hs hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), V(), I(), E(), C(), D()) main;
";

    /// The three stages in a row give what `load_source` gives.
    #[test]
    fn stages_in_a_row_are_load_source() {
        let o = Options::default();
        let out = preprocess_source("x.p4", PROGRAM, &o).expect("preprocesses");
        let parsed = parse(&out).expect("parses");
        assert!(!parsed.tree().decls.is_empty());
        let staged = lower(parsed, "x", &o).expect("lowers");
        let whole = crate::load_source("x.p4", PROGRAM, &o).expect("loads");
        assert_eq!(
            format!("{:?}", staged.program),
            format!("{:?}", whole.program)
        );
        assert_eq!(staged.program.tables.len(), 1);
    }

    /// A syntax error is placed in the original file, as `load_source`
    /// places it.
    #[test]
    fn parse_error_is_located_like_load_source() {
        let o = Options::default();
        let bad = "#include <core.p4>\nheader h_t { bit<8> k }\n";
        let out = preprocess_source("bad.p4", bad, &o).expect("preprocesses");
        let staged = parse(&out).expect_err("a syntax error").to_string();
        let whole = crate::load_source("bad.p4", bad, &o)
            .expect_err("a syntax error")
            .to_string();
        assert_eq!(staged, whole);
        assert!(staged.starts_with("bad.p4:2:"), "{staged}");
    }
}
