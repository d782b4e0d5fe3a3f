//! `p4cost parse`: does every file parse and lower?

use std::io::Write;

use crate::args::ParseArgs;
use crate::diagnostics::Snippets;
use crate::exit::{CliError, Exit};
use crate::Ui;
use p4cost_engine::programs::{collect, included};

pub fn run(a: &ParseArgs, out: &mut dyn Write, ui: &Ui) -> Result<Exit, CliError> {
    let mut snippets = Snippets::new(ui.color_out);
    let mut files = Vec::new();
    for p in &a.paths {
        collect(p, &mut files)?;
    }
    if files
        .iter()
        .filter(|f| p4cost_engine::read::is_stdin(&f.path))
        .count()
        > 1
    {
        return Err(CliError::input("`-` (stdin) can be given only once"));
    }
    let fragments = included(&files, &a.source.include_dirs);
    let (mut ok, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    let mut sources_ok = false;
    let mut text = String::new();
    for (i, f) in files.iter().enumerate() {
        let shown = p4cost_engine::read::shown(&f.path);
        if p4cost_engine::programs::is_fragment(f, &fragments) {
            skipped += 1;
            if !a.summary {
                text.push_str(&format!("incl   {shown} (included by another file here)\n"));
            }
            continue;
        }
        // The last program, and its syntax tree, are left to the exit
        // (freeing the 1 MB generated program took 7.8 % of `p4cost
        // parse`); the others are freed, so a directory's programs never
        // pile up.
        let last = ui.at_exit && i + 1 == files.len();
        let mut source = a.source.options();
        source.leave_to_exit = last;
        match p4cost_engine::input::load(&f.path, &source) {
            Ok(loaded) => {
                ok += 1;
                sources_ok |= loaded.program.input == p4cost_ir::InputKind::P4Source;
                if !a.summary {
                    text.push_str(&format!("ok     {shown}\n"));
                }
                p4cost_engine::drop_later::leave(last, loaded);
            }
            Err(e) => {
                failed += 1;
                let first = e.to_string();
                let first = first.lines().next().unwrap_or("");
                if a.summary {
                    // Name the file that failed, not only the include
                    // where the error is.
                    if first.starts_with(&shown) {
                        text.push_str(&format!("{first}\n"));
                    } else {
                        text.push_str(&format!("{shown}: {first}\n"));
                    }
                } else {
                    text.push_str(&format!("FAILED {shown}\n  {first}\n"));
                    if let Some(rich) = snippets.error(&e) {
                        // The message is on the line above: the source line and caret.
                        text.push_str(&crate::diagnostics::indented(&rich, 1, "  "));
                    }
                }
            }
        }
    }
    text.push_str(&format!("{ok} parsed, {failed} failed"));
    if skipped > 0 {
        text.push_str(&format!(
            ", {skipped} included by other files (checked through them)"
        ));
    }
    text.push('\n');
    if sources_ok {
        // "ok" is parsed and lowered, no more: say so once, first.
        text.insert_str(
            0,
            &format!("P4 sources {}\n", crate::render::NOT_TYPE_CHECKED),
        );
    }
    out.write_all(text.as_bytes()).map_err(CliError::output)?;
    Ok(if failed == 0 { Exit::Ok } else { Exit::Failed })
}
