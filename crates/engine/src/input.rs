//! Loading an input file by its content, not its extension.

use std::path::Path;
use std::sync::Arc;

use p4cost_ir::Program;

use crate::combine;
use crate::error::{Error, Site};
use crate::git::GitTree;
use crate::options::{PredictOptions, SourceOptions};
use crate::read;

/// What [`load_text_reusing`] keeps between the loads of one document.
pub use p4cost_front::Reuse;

/// A warning found while loading, with its stable code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWarning {
    /// Machine-readable code (`front_end`, `table_names_differ`, ...).
    pub code: String,
    /// The sentence, already `file:line:col: message` where located.
    pub message: String,
}

impl LoadWarning {
    /// A new warning.
    pub fn new(code: &str, message: impl Into<String>) -> LoadWarning {
        LoadWarning {
            code: code.to_string(),
            message: message.into(),
        }
    }
}

/// What an input turned out to be, and what its reader noticed.
#[derive(Debug, Clone)]
pub struct LoadedInput {
    /// The program model.
    pub program: Program,
    /// Reader warnings.
    pub warnings: Vec<LoadWarning>,
}

/// Reads `path` (stdin for `-`) once, within the input budget, and lowers
/// it: JSON is sniffed as BMv2 or Tofino context.json; anything else is
/// P4-16 source.
pub fn load(path: &Path, src: &SourceOptions) -> Result<LoadedInput, Error> {
    let tree = revision_tree(path, src)?;
    load_in(path, src, tree.as_ref())
}

/// The tree of `src.revision` (the repository of `path`), when one is
/// asked for.
fn revision_tree(path: &Path, src: &SourceOptions) -> Result<Option<GitTree>, Error> {
    match &src.revision {
        Some(_) if read::is_stdin(path) => Err(Error::input(
            "`-` (stdin) has no git revision: give the file's path with --base",
        )),
        Some(rev) => GitTree::open(path, rev).map(Some),
        None => Ok(None),
    }
}

/// [`load`], reading from `tree` (a git revision) when given.
fn load_in(path: &Path, src: &SourceOptions, tree: Option<&GitTree>) -> Result<LoadedInput, Error> {
    let (shown, text) = read_text(path, src.max_input_bytes, tree)?;
    let files: &dyn p4cost_front::Files = match tree {
        Some(t) => t,
        None => &p4cost_front::Disk,
    };
    load_read(path, &shown, text, src, files, None)
}

/// Lowers `text`, the content of `path` as an editor holds it (unsaved),
/// reading its includes through `files` (an editor's overlay of open
/// buffers over the disk). JSON is sniffed as for [`load`].
pub fn load_text(
    path: &Path,
    text: String,
    src: &SourceOptions,
    files: &dyn p4cost_front::Files,
) -> Result<LoadedInput, Error> {
    if text.len() as u64 > src.max_input_bytes {
        return Err(Error::input(format!(
            "{}: larger than the input budget of {} bytes (--max-input-bytes)",
            read::shown(path),
            src.max_input_bytes
        )));
    }
    load_read(path, &read::shown(path), text, src, files, None)
}

/// The program of a P4 source `text` (its includes from the built-in
/// architecture files or the disk), for unit tests.
#[cfg(test)]
pub(crate) fn program_of_text(text: &str) -> p4cost_ir::Program {
    let path = Path::new("test.p4");
    load_text(
        path,
        text.to_string(),
        &SourceOptions::default(),
        &p4cost_front::Disk,
    )
    .expect("the test's program loads")
    .program
}

/// [`load_text`] taking back from `reuse` what the last load through it
/// parsed and `text` still has (an editor's document between keystrokes),
/// and leaving this load's parse in it. The answer is [`load_text`]'s.
pub fn load_text_reusing(
    path: &Path,
    text: String,
    src: &SourceOptions,
    files: &dyn p4cost_front::Files,
    reuse: &mut p4cost_front::Reuse,
) -> Result<LoadedInput, Error> {
    if text.len() as u64 > src.max_input_bytes {
        return load_text(path, text, src, files);
    }
    load_read(path, &read::shown(path), text, src, files, Some(reuse))
}

fn load_read(
    path: &Path,
    shown: &str,
    text: String,
    src: &SourceOptions,
    files: &dyn p4cost_front::Files,
    reuse: Option<&mut p4cost_front::Reuse>,
) -> Result<LoadedInput, Error> {
    // A byte order mark before JSON (Windows editors write one) is no P4.
    let json = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if json
        .trim_start_matches(|c: char| c.is_ascii_whitespace())
        .starts_with('{')
    {
        return load_json(shown, json);
    }
    let loaded = lower_source(path, shown, text, src, files, reuse)?;
    Ok(LoadedInput {
        program: loaded.program,
        warnings: loaded
            .warnings
            .iter()
            .map(|d| LoadWarning::new("front_end", d.to_string()))
            .collect(),
    })
}

/// Preprocesses, parses and lowers `text`, the P4-16 source read from
/// `path` (quoted includes relative to its directory; to the working
/// directory for stdin).
fn lower_source(
    path: &Path,
    shown: &str,
    text: String,
    src: &SourceOptions,
    files: &dyn p4cost_front::Files,
    reuse: Option<&mut p4cost_front::Reuse>,
) -> Result<p4cost_front::Loaded, Error> {
    let opts = src.front();
    // The text of the file an error is in is read again on error only (a
    // copy kept all along would cost memory for every input); stdin cannot
    // be read again, so its text stays until the error is built.
    let (loaded, stdin_text) = if read::is_stdin(path) {
        let loaded = p4cost_front::load_source(shown, &text, &opts);
        (loaded, Some(text))
    } else {
        let loaded = match reuse {
            Some(r) => p4cost_front::load_file_text_reusing(path, text, &opts, files, r),
            None => p4cost_front::load_file_text_from(path, text, &opts, files),
        };
        (loaded, None)
    };
    loaded.map_err(|e| match e.diagnostic() {
        Some(d) => {
            let text = match (&stdin_text, d.file == shown) {
                (Some(t), true) => Some(Arc::from(t.as_str())),
                (None, true) => source_text(&path.to_string_lossy(), files, src.max_input_bytes),
                _ => source_text(&d.file, files, src.max_input_bytes),
            };
            Error::at(Site {
                file: d.file.clone(),
                line: d.line,
                col: d.col,
                message: d.message.clone(),
                text,
            })
        }
        None => Error::input(e.to_string()),
    })
}

/// The text of a file an error names: a bundled architecture file, or a
/// file read through `files` within the input budget. `None` when it
/// cannot be read (the error is still reported, without its line).
pub fn source_text(file: &str, files: &dyn p4cost_front::Files, max: u64) -> Option<Arc<str>> {
    if let Some(name) = file.strip_prefix("<bundled>/") {
        return p4cost_front::bundled_text(name).map(Arc::from);
    }
    // Only regular files are read again: a FIFO would block.
    if file.starts_with('<') || !files.is_file(Path::new(file)) {
        return None;
    }
    let bytes = files.read(Path::new(file), max).ok()?;
    String::from_utf8(bytes).ok().map(Arc::from)
}

/// The input of `predict`: FILE alone, FILE with `--context` (and
/// `--bfrt`), or a context.json FILE with `--bfrt`.
pub fn load_for_predict(a: &PredictOptions) -> Result<LoadedInput, Error> {
    let shown = read::shown(&a.file);
    let stdin_twice = [Some(&a.file), a.context.as_ref(), a.bfrt.as_ref()]
        .into_iter()
        .flatten()
        .filter(|p| read::is_stdin(p))
        .count()
        > 1;
    if stdin_twice {
        return Err(Error::input(
            "`-` (stdin) can be given for only one of FILE, --context and --bfrt",
        ));
    }
    let max = a.source.max_input_bytes;
    let tree = revision_tree(&a.file, &a.source)?;
    let tree = tree.as_ref();
    match (&a.context, &a.bfrt) {
        (Some(ctx), bfrt) => {
            let source = load_in(&a.file, &a.source, tree)?;
            if source.program.input == p4cost_ir::InputKind::TofinoContext {
                return Err(Error::input(format!(
                    "{shown}: is itself a context.json: with --context, FILE must be the P4 \
                     source (or BMv2 JSON) that supplies the parse graph"
                )));
            }
            let mut source = source;
            if let Some(name) = &a.pipe {
                let keep = source
                    .program
                    .pipelines
                    .iter()
                    .position(|p| &p.name == name);
                match keep {
                    Some(i) => {
                        let p = source.program.pipelines.swap_remove(i);
                        source.program.pipelines = vec![p];
                    }
                    None => {
                        return Err(crate::predict::unknown_pipe(&shown, name, &source.program))
                    }
                }
            }
            let context = load_context_in(ctx, bfrt.as_deref(), max, tree)?;
            let combined = combine::combine(
                source.program,
                &shown,
                context,
                &read::shown(ctx),
                bfrt.as_ref().map(|b| read::shown(b)).as_deref(),
            );
            let mut warnings = source.warnings;
            warnings.extend(combined.warnings);
            Ok(LoadedInput {
                program: combined.program,
                warnings,
            })
        }
        (None, Some(bfrt)) => {
            let mut first = load_in(&a.file, &a.source, tree)?;
            if first.program.input != p4cost_ir::InputKind::TofinoContext {
                return Err(Error::input(format!(
                    "--bfrt {}: needs --context CONTEXT.json, or a context.json as FILE ({shown} is not one)",
                    bfrt.display()
                )));
            }
            // FILE was read (once) and is a context.json: merge the bfrt.json into it.
            let bshown = read::shown(bfrt);
            let (_, btext) = read_text(bfrt, max, tree)?;
            p4cost_tofino::merge_bfrt(&mut first.program, &btext, &bshown)
                .map_err(|e| Error::input(e.to_string()))?;
            Ok(first)
        }
        (None, None) => load_in(&a.file, &a.source, tree),
    }
}

/// Reads a file given as `--context` (with its `--bfrt`): it must be a
/// Tofino context.json; anything else is an input error that says what
/// the file looks like instead.
pub fn load_context(path: &Path, bfrt: Option<&Path>, max: u64) -> Result<Program, Error> {
    load_context_in(path, bfrt, max, None)
}

fn load_context_in(
    path: &Path,
    bfrt: Option<&Path>,
    max: u64,
    tree: Option<&GitTree>,
) -> Result<Program, Error> {
    let want = "--context expects the Tofino compiler's context.json (the `pipe/context.json` \
                of a bf-p4c build)";
    let (shown, bytes) = read_bytes(path, max, tree)?;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if first != Some(b'{') {
        return Err(Error::input(format!(
            "{shown}: not a context.json (not a JSON object): {want}"
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::input(format!("{shown}: not UTF-8 text: {e}")))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::input(format!(
            "{shown}:{}:{}: invalid JSON: {e}",
            e.line(),
            e.column()
        ))
    })?;
    if !p4cost_tofino::looks_like_context(&v) {
        let what = if p4cost_bmv2::looks_like_bmv2(&v) {
            "this is p4c's BMv2 JSON"
        } else if p4cost_tofino::looks_like_bfrt(&v) {
            "this is a BF-RT bfrt.json (give it with --bfrt)"
        } else {
            "JSON without the context's `tables` array and `schema_version`/`program_name`"
        };
        return Err(Error::input(format!(
            "{shown}: not a context.json: {what}; {want}"
        )));
    }
    // The document is already parsed for detection: read it as it is.
    let mut program =
        p4cost_tofino::read_context_value(&v, &shown).map_err(|e| Error::input(e.to_string()))?;
    if let Some(b) = bfrt {
        let bshown = read::shown(b);
        let (_, btext) = read_text(b, max, tree)?;
        p4cost_tofino::merge_bfrt(&mut program, &btext, &bshown)
            .map_err(|e| Error::input(e.to_string()))?;
    }
    Ok(program)
}

/// Reads `path` (stdin for `-`) once as UTF-8 text within the budget,
/// with the name messages show for it.
fn read_text(path: &Path, max: u64, tree: Option<&GitTree>) -> Result<(String, String), Error> {
    let (shown, bytes) = read_bytes(path, max, tree)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| Error::input(format!("{shown}: not UTF-8 text: {e}")))?;
    Ok((shown, text))
}

/// Reads `path` once within the budget: from the disk (stdin for `-`), or
/// as of `tree`'s revision.
fn read_bytes(path: &Path, max: u64, tree: Option<&GitTree>) -> Result<(String, Vec<u8>), Error> {
    match tree {
        Some(t) => Ok((read::shown(path), t.read_input(path, max)?)),
        None => {
            let read::ReadInput { shown, bytes } = read::read_input(path, max)?;
            Ok((shown, bytes))
        }
    }
}

/// The loaded input of a BMv2 reader's result.
fn bmv2_program(
    read: Result<p4cost_ir::Program, p4cost_bmv2::Bmv2Error>,
    shown: &str,
) -> Result<LoadedInput, Error> {
    let program = read.map_err(|e| Error::input(format!("{shown}: {e}")))?;
    Ok(LoadedInput {
        program,
        warnings: Vec::new(),
    })
}

fn load_json(shown: &str, text: &str) -> Result<LoadedInput, Error> {
    let invalid = |e: serde_json::Error| {
        Error::at(Site {
            file: shown.to_string(),
            line: e.line() as u32,
            col: e.column() as u32,
            message: format!("invalid JSON: {e}"),
            text: Some(Arc::from(text)),
        })
    };
    // BMv2 JSON is read from the reader's own borrowed document (cheaper
    // than a `serde_json::Value`); a text without the key it needs cannot
    // be BMv2 JSON unless the key is escaped, which the general path
    // below still reads.
    if text.contains("\"header_types\"") {
        let doc = p4cost_bmv2::Document::parse(text).map_err(invalid)?;
        if doc.is_bmv2() {
            return bmv2_program(p4cost_bmv2::read_document(&doc, shown), shown);
        }
    }
    let v: serde_json::Value = serde_json::from_str(text).map_err(invalid)?;
    if p4cost_bmv2::looks_like_bmv2(&v) {
        return bmv2_program(p4cost_bmv2::read_value(&v, shown), shown);
    }
    if p4cost_tofino::looks_like_context(&v) {
        let program = p4cost_tofino::read_context_value(&v, shown)
            .map_err(|e| Error::input(e.to_string()))?;
        return Ok(LoadedInput {
            program,
            warnings: Vec::new(),
        });
    }
    if p4cost_tofino::looks_like_bfrt(&v) {
        return Err(Error::input(format!(
            "{shown}: this is a BF-RT bfrt.json; it has tables but no stage placement or parse graph: give the context.json next to it"
        )));
    }
    Err(Error::input(format!(
        "{shown}: JSON, but neither p4c BMv2 JSON (expected `header_types`, `parsers` and `pipelines`) nor a Tofino context.json (expected `tables` and `schema_version`)"
    )))
}
