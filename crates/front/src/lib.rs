//! p4cost-front: P4-16 source to the program model.
//!
//! Runs the preprocessor (`p4cost-pp`, with the bundled architecture
//! includes of `p4cost-arch` as the fallback for `#include <...>`), parses
//! with the pest grammar (`p4cost-syntax`), and lowers the syntax tree into
//! a [`p4cost_ir::Program`]: types and widths, the parse graph, controls as
//! control-flow graphs, tables and actions, every item with a span in the
//! original file.
//!
//! Dependencies: `p4cost-ir`, `p4cost-pp`, `p4cost-syntax`, `p4cost-arch`,
//! `thiserror`.

pub mod diagnostic;
pub mod drop_later;
pub mod stages;

pub use diagnostic::{Diagnostic, FrontError};
pub use p4cost_pp::{read_limited, refusal, Disk, Files, Limits};

/// The text of a bundled architecture include (`tna.p4`, `v1model.p4`,
/// ...), by the name written in `#include <name>`.
pub fn bundled_text(name: &str) -> Option<&'static str> {
    p4cost_arch::lookup(name)
}

use std::path::PathBuf;

/// Default of [`Options::max_inlined`]: far above what real programs copy
/// (fabric-tna: a few hundred), far below what a few kilobytes of
/// sub-controls instantiated twice per level can ask for (2^20 and more).
pub const DEFAULT_MAX_INLINED: usize = 200_000;

/// Most fields a struct, header or header union may flatten to, nested
/// structs, stack elements and arrays counted one by one (a header stack of
/// 4096 ten-field headers is 40,960). Far above real programs, far below
/// what a few hundred bytes of structs of two copies of the one before ask
/// for (2^26 after 26 lines); a type over it is an error at its name.
pub const MAX_FLAT_FIELDS: u64 = 1 << 20;

/// Front-end options: the `-D` and `-I` flags and the inlining budget.
#[derive(Debug, Clone)]
pub struct Options {
    /// `-D NAME[=VALUE]`.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I DIR`, searched before the bundled includes.
    pub include_dirs: Vec<PathBuf>,
    /// The preprocessor's budgets (file size, includes, macro output).
    pub limits: p4cost_pp::Limits,
    /// Most parse states and statements that sub-parser and sub-control
    /// calls may copy into their callers, over the whole program (each
    /// application of a sub-parser copies its states, each application of
    /// a sub-control its statements, recursively).  Exceeding it is an
    /// error at the call that did, naming the chain of calls.
    pub max_inlined: usize,
    /// The process exits once this program is answered (a command's last
    /// program): its syntax tree and the lowering's context are left to
    /// the exit, which takes the whole heap back at once, instead of being
    /// freed node by node. Off by default; never for a long-lived caller.
    pub tree_to_exit: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            defines: Vec::new(),
            include_dirs: Vec::new(),
            limits: p4cost_pp::Limits::default(),
            max_inlined: DEFAULT_MAX_INLINED,
            tree_to_exit: false,
        }
    }
}

/// A lowered program and the warnings the front end collected.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The program.
    pub program: p4cost_ir::Program,
    /// Preprocessor and lowering warnings.
    pub warnings: Vec<Diagnostic>,
}

mod bodies;
mod control;
mod ctor;
mod effects;
mod extras;
mod free_tree;
mod lower;
mod names;
mod naming;
mod package;
mod parser;
mod reuse;
mod scope;
mod subparser;
mod template;

/// The hash maps and sets of the lowering, keyed by program names: hashed
/// with foldhash (seeded per process), as the preprocessor and parser
/// do; SipHash was a tenth of lowering switch_p4_16.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
/// See [`HashMap`].
pub(crate) type HashSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;

use std::path::Path;

use p4cost_ir as ir;
use p4cost_syntax::ast;

/// The bundled architecture includes, as the preprocessor's fallback.
struct ArchBundle;

impl p4cost_pp::Bundled for ArchBundle {
    fn lookup(&self, name: &str) -> Option<&'static str> {
        p4cost_arch::lookup(name)
    }
}

fn pp_options(opts: &Options) -> p4cost_pp::Options {
    // What p4c itself predefines; user -D flags come after and win.
    let mut defines = vec![("__p4c__".to_string(), Some("1".to_string()))];
    defines.extend(opts.defines.iter().cloned());
    p4cost_pp::Options {
        defines,
        include_dirs: opts.include_dirs.clone(),
        limits: opts.limits,
    }
}

fn pp_error(e: p4cost_pp::PpError) -> FrontError {
    let loc = e.location().clone();
    let full = e.to_string();
    let prefix = format!("{loc}: ");
    let message = full.strip_prefix(&prefix).unwrap_or(&full).to_string();
    FrontError::Preprocess(Diagnostic {
        file: loc.path,
        line: loc.line,
        col: loc.col,
        message,
    })
}

/// Reads, preprocesses, parses and lowers a P4-16 file.
pub fn load_file(path: &Path, opts: &Options) -> Result<Loaded, FrontError> {
    let ppo = pp_options(opts);
    let mut pp = p4cost_pp::Preprocessor::new(&ppo, &ArchBundle);
    let out = pp.run_file(path).map_err(pp_error)?;
    lower_output(out, &file_stem(path), opts)
}

/// The program's name from its file: the file name without extension.
fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Like [`load_file`] for the text of the file at `path`, already read by the caller (so that
/// a pipe or stdin is read once).
pub fn load_file_text(path: &Path, text: String, opts: &Options) -> Result<Loaded, FrontError> {
    load_file_text_from(path, text, opts, &p4cost_pp::Disk)
}

/// Like [`load_file_text`], reading the includes from `files` (a git
/// revision, say) instead of the disk.
pub fn load_file_text_from(
    path: &Path,
    text: String,
    opts: &Options,
    files: &dyn Files,
) -> Result<Loaded, FrontError> {
    let ppo = pp_options(opts);
    let mut pp = p4cost_pp::Preprocessor::new(&ppo, &ArchBundle).with_files(files);
    let out = pp.run_file_text(path, text).map_err(pp_error)?;
    lower_output(out, &file_stem(path), opts)
}

/// What an editor keeps between the analyses of one document so that a
/// keystroke redoes only what it changed: the top-level declarations of
/// the last successful parse (see [`p4cost_syntax::Reuse`]) and the
/// preprocessed includes of the root file (see [`p4cost_pp::IncludeCache`])
/// and the lowering of each control (see [`reuse::LowerCache`]).
#[derive(Debug, Default)]
pub struct Reuse {
    parse: p4cost_syntax::Reuse,
    includes: p4cost_pp::IncludeCache,
    lower: reuse::LowerCache,
}

impl Reuse {
    /// Nothing to reuse yet.
    pub fn new() -> Reuse {
        Reuse::default()
    }

    /// How many top-level declarations the last load took back from the
    /// one before, and how many it parsed.
    pub fn parse_counts(&self) -> (usize, usize) {
        self.parse.counts()
    }

    /// How many includes the loads through it took back preprocessed.
    pub fn include_hits(&self) -> usize {
        self.includes.hits()
    }

    /// How many files the loads through it took back lexed (their text
    /// unchanged since a load before).
    pub fn lexed_hits(&self) -> usize {
        self.includes.lexed_hits()
    }

    /// How many controls the last load took back lowered, and how many
    /// it lowered.
    pub fn lower_counts(&self) -> (usize, usize) {
        self.lower.counts()
    }
}

/// [`load_file_text_from`] taking back from `reuse` what the last load
/// through it parsed and the text still has, and leaving this load's parse
/// in it: the program, warnings and errors are a fresh load's.
pub fn load_file_text_reusing(
    path: &Path,
    text: String,
    opts: &Options,
    files: &dyn Files,
    reuse: &mut Reuse,
) -> Result<Loaded, FrontError> {
    let ppo = pp_options(opts);
    let out = p4cost_pp::Preprocessor::new(&ppo, &ArchBundle)
        .with_files(files)
        .with_include_cache(&mut reuse.includes)
        .run_file_text(path, text)
        .map_err(pp_error)?;
    let reuse = (&mut reuse.parse, &mut reuse.lower);
    lower_output_reusing(&out, &file_stem(path), opts, reuse)
}

/// Like [`load_file`] for text in memory (`name` is used in messages).
pub fn load_source(name: &str, text: &str, opts: &Options) -> Result<Loaded, FrontError> {
    let ppo = pp_options(opts);
    let mut pp = p4cost_pp::Preprocessor::new(&ppo, &ArchBundle);
    let out = pp.run_source(name, text).map_err(pp_error)?;
    let stem = name
        .rsplit('/')
        .next()
        .unwrap_or(name)
        .trim_end_matches(".p4");
    lower_output(out, stem, opts)
}

/// Waits until the lowering worker of the last load has freed what it
/// built (a load that does not reuse answers first and frees after), and
/// until the syntax trees handed to the freeing thread are freed. For
/// a process's last step: the freeing is then done before it exits,
/// whatever the scheduling, so a run executes the same work every time.
pub fn finish_freeing() {
    free_tree::finish();
}

/// Stack of the thread that lowers the syntax tree (and of the one that
/// frees it, [`free_tree`]).  The tree's
/// depth is bounded by the parser's nesting limits (1000 nested blocks and
/// brackets, expressions 4096 operators deep), and every pass over it
/// recurses at most that deep; this stack holds that in a debug build too,
/// whatever the caller's stack.  Only touched pages are allocated.
/// It also parses (on the same thread, so that the tree's memory, freed as
/// apply blocks are lowered, is reused for the graph), so it is at least the
/// parser's.
const LOWER_STACK_BYTES: usize = if p4cost_syntax::PARSE_STACK_BYTES > 256 << 20 {
    p4cost_syntax::PARSE_STACK_BYTES
} else {
    256 << 20
};

/// Parses preprocessed output and lowers it, on a worker thread with a
/// stack of [`LOWER_STACK_BYTES`] that owns `out`. The worker hands the
/// program back as soon as it is lowered, then frees what the lowering
/// built (symbols, memos, copied graphs: 5 % of the front end's time on a
/// generated 5 MB program) while the caller goes on; the tree goes to
/// [`free_tree`]. Each call waits, once answered, for the worker of the
/// call before it to have finished freeing, so at most one worker per
/// caller frees behind it.
fn lower_output(out: p4cost_pp::Output, name: &str, opts: &Options) -> Result<Loaded, FrontError> {
    let out = std::sync::Arc::new(out);
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let job = {
        let (out, name, opts) = (std::sync::Arc::clone(&out), name.to_owned(), opts.clone());
        move || {
            let parsed = p4cost_syntax::parse_on_current_thread(&out.text);
            let answer = |loaded| drop(tx.send(Ok(loaded)));
            if let Err(e) = lower_parsed(&out, &name, &opts, parsed, None, answer) {
                drop(tx.send(Err(e)));
            }
        }
    };
    let worker = std::thread::Builder::new()
        .name("p4cost-front".to_string())
        .stack_size(LOWER_STACK_BYTES)
        .spawn(job);
    let Ok(handle) = worker else {
        return lower_on_small_stack(&out, name, opts);
    };
    match rx.recv() {
        Ok(answer) => {
            free_tree::behind(handle);
            answer
        }
        // The worker answers once on every path: it panicked.
        Err(_) => match handle.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => lower_on_small_stack(&out, name, opts),
        },
    }
}

/// What a load takes back: the last parse and the last lowering.
type Taken<'r> = (&'r mut p4cost_syntax::Reuse, &'r mut reuse::LowerCache);

/// [`lower_output`], the parse and lowering taking back what `reuse` holds
/// (borrowed: this worker is joined, and frees what it built before it
/// answers).
fn lower_output_reusing(
    out: &p4cost_pp::Output,
    name: &str,
    opts: &Options,
    reuse: Taken<'_>,
) -> Result<Loaded, FrontError> {
    std::thread::scope(|scope| {
        let worker = std::thread::Builder::new()
            .name("p4cost-front".to_string())
            .stack_size(LOWER_STACK_BYTES)
            .spawn_scoped(scope, || lower_on_this_thread(out, name, opts, reuse));
        match worker {
            Ok(handle) => match handle.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => lower_on_small_stack(out, name, opts),
        }
    })
}

/// [`lower_on_this_thread`] where no thread with a big stack could be
/// made: parsed on a parser thread of its own, nothing reused.
fn lower_on_small_stack(
    out: &p4cost_pp::Output,
    name: &str,
    opts: &Options,
) -> Result<Loaded, FrontError> {
    let parsed = p4cost_syntax::parse(&out.text);
    returned(out, |answer| {
        lower_parsed(out, name, opts, parsed, None, answer)
    })
}

/// A construct only P4-14 has, at the start of a line, if `text` has one:
/// `header_type x {`, `parser_exception`, `field_list`, `control ingress {`.
fn p4_14_sign(text: &str) -> Option<&'static str> {
    const SIGNS: &[(&str, &str)] = &[
        ("header_type ", "header_type"),
        ("parser_exception ", "parser_exception"),
        ("field_list ", "field_list"),
        ("field_list_calculation ", "field_list_calculation"),
        ("control ingress {", "control ingress { ... }"),
    ];
    text.lines().find_map(|l| {
        let l = l.trim_start();
        SIGNS
            .iter()
            .find(|(start, _)| l.starts_with(start))
            .map(|(_, sign)| *sign)
    })
}

/// Parses and lowers on this thread, whose stack is
/// [`LOWER_STACK_BYTES`] (enough to parse on), taking back what `reuse`
/// holds.
fn lower_on_this_thread(
    out: &p4cost_pp::Output,
    name: &str,
    opts: &Options,
    (parse, units): Taken<'_>,
) -> Result<Loaded, FrontError> {
    let parsed = p4cost_syntax::parse_reusing_on_current_thread(&out.text, parse);
    returned(out, |answer| {
        lower_parsed(out, name, opts, parsed, Some(units), answer)
    })
}

/// The program a lowering (`lower`) hands to its answer, for a caller that
/// waits for the lowering to end anyway; an internal error should it end
/// without one, which [`lower_tree_then`] never does.
fn returned(
    out: &p4cost_pp::Output,
    lower: impl FnOnce(&mut dyn FnMut(Loaded)) -> Result<(), FrontError>,
) -> Result<Loaded, FrontError> {
    let mut loaded = None;
    lower(&mut |l| loaded = Some(l))?;
    loaded.ok_or_else(|| {
        let spans = lower::Spans::new(out);
        FrontError::Lower(spans.diag(
            ast::Span::new(0, 0),
            "internal error: the lowering ended without a program",
        ))
    })
}

/// Lowers the parse `parsed` of `out.text` (see [`lower_tree_then`]).
fn lower_parsed(
    out: &p4cost_pp::Output,
    name: &str,
    opts: &Options,
    parsed: Result<ast::Program, p4cost_syntax::SyntaxError>,
    units: Option<&mut reuse::LowerCache>,
    answer: impl FnOnce(Loaded),
) -> Result<(), FrontError> {
    let tree = parsed.map_err(|e| syntax_error(out, e))?;
    lower_tree_then(out, tree, name, opts, units, answer)
}

/// A syntax error of `out.text` as a diagnostic at its place in the
/// original file.
fn syntax_error(out: &p4cost_pp::Output, e: p4cost_syntax::SyntaxError) -> FrontError {
    let spans = lower::Spans::new(out);
    let s = ast::Span::new(e.offset as u32, e.offset as u32);
    let message = match p4_14_sign(&out.text) {
        Some(sign) => format!(
            "{} (this looks like a P4-14 program: `{sign}`; p4cost reads P4-16, which p4c \
             translates it to: `p4test --std p4-14 --pp out.p4 in.p4`)",
            e.message
        ),
        None => e.message.clone(),
    };
    FrontError::Syntax(spans.diag(s, message))
}

/// How many entries the lowering's big maps will hold at least, counted
/// from the tree's declarations so that they are made once at their size
/// (growing them one rehash at a time was 4 % of lowering a generated
/// program of 1,000 controls).
struct MapSizes {
    /// Control declarations.
    controls: usize,
    /// Actions declared in controls.
    actions: usize,
    /// Tables declared in controls.
    tables: usize,
}

impl MapSizes {
    fn of(tree: &ast::Program) -> MapSizes {
        let mut sizes = MapSizes {
            controls: 0,
            actions: 0,
            tables: 0,
        };
        for d in &tree.decls {
            if let ast::Decl::Control(c) = d {
                sizes.controls += 1;
                for l in &c.locals {
                    match l {
                        ast::LocalDecl::Action(_) => sizes.actions += 1,
                        ast::LocalDecl::Table(_) => sizes.tables += 1,
                        _ => {}
                    }
                }
            }
        }
        sizes
    }
}

/// An empty map with room for `n` entries.
fn with_room<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, Default::default())
}

/// The lowering context of `tree`, the syntax tree of `out.text`,
/// for the program `name`: an empty program with `out`'s files, and the
/// preprocessor's warnings first among the lowering's.
fn new_cx<'a, 'o>(
    out: &'o p4cost_pp::Output,
    tree: &'a ast::Program,
    name: &str,
    opts: &Options,
    taken: bodies::TakenBodies,
) -> lower::Cx<'a, 'o> {
    let spans = lower::Spans::new(out);
    let mut program = ir::Program::new(name, ir::InputKind::P4Source);
    for f in &out.files {
        program.files.push(ir::SourceFile {
            path: f.path.clone(),
        });
    }
    let pp_warnings = pp_warnings(out);
    let sizes = MapSizes::of(tree);
    lower::Cx {
        g: scope::Globals::new(tree),
        spans,
        program,
        type_ids: HashMap::default(),
        control_cache: with_room(sizes.controls),
        global_actions: HashMap::default(),
        action_memo: with_room(sizes.actions),
        table_memo: with_room(sizes.tables),
        instance_path: Vec::new(),
        return_to: Vec::new(),
        applied_as: with_room(sizes.tables),
        header_ids: HashMap::default(),
        header_ids_more: Vec::new(),
        inlined: lower::InlineBudget {
            limit: opts.max_inlined,
            used: 0,
        },
        warned: pp_warnings.iter().cloned().collect(),
        warnings: pp_warnings,
        ctor: ctor::Bindings::default(),
        declared: ctor::declared(tree),
        instance_values: HashMap::default(),
        taken,
        taken_emits: HashMap::default(),
        rec: None,
        templates: with_room(sizes.controls),
        trace: template::Trace::default(),
        no_canon: std::rc::Rc::default(),
        no_locals: control::NoLocals::default(),
    }
}

/// The preprocessor's warnings, as the front end's diagnostics.
fn pp_warnings(out: &p4cost_pp::Output) -> Vec<Diagnostic> {
    out.warnings
        .iter()
        .map(|w| Diagnostic {
            file: w.loc.path.clone(),
            line: w.loc.line,
            col: w.loc.col,
            message: w.message.clone(),
        })
        .collect()
}

/// Lowers `tree`, the syntax tree of `out.text`, into the program model
/// (see [`lower_tree_then`]).
fn lower_tree(
    out: &p4cost_pp::Output,
    tree: ast::Program,
    name: &str,
    opts: &Options,
    units: Option<&mut reuse::LowerCache>,
) -> Result<Loaded, FrontError> {
    returned(out, |answer| {
        lower_tree_then(out, tree, name, opts, units, answer)
    })
}

/// Lowers `tree`, the syntax tree of `out.text`, into the program model,
/// replaying from `units` the controls whose lowering it recorded and
/// nothing they read changed, and hands the program to `answer` before
/// what the lowering built is freed (on the calling thread: the caller of
/// a worker that answers through a channel need not wait for it).
fn lower_tree_then(
    out: &p4cost_pp::Output,
    mut tree: ast::Program,
    name: &str,
    opts: &Options,
    units: Option<&mut reuse::LowerCache>,
    answer: impl FnOnce(Loaded),
) -> Result<(), FrontError> {
    let taken = bodies::take_lowered_once(&mut tree, &out.text);
    let tree = tree;
    let mut cx = new_cx(out, &tree, name, opts, taken);
    cx.ctor = ctor::bindings(&cx.g, &tree);
    cx.lower_types(&tree)?;
    let mut units = units.map(|u| reuse::Units::new(u, out, &tree, &cx));
    let mut parsers = HashMap::default();
    let mut controls = HashMap::default();
    for (i, d) in tree.decls.iter().enumerate() {
        match d {
            ast::Decl::Parser(p) => {
                let id = parser::lower_parser(&mut cx, p, ir::Gress::Unknown)?;
                parsers.insert(p.name.name.as_str().to_owned(), id);
            }
            ast::Decl::Control(c) => {
                let id = match &mut units {
                    Some(u) => u.control(&mut cx, i, c)?,
                    None => cx.lower_control(c)?,
                };
                controls.insert(c.name.name.as_str().to_owned(), id);
            }
            _ => {}
        }
    }
    package::bind(&mut cx, &parsers, &controls);
    naming::qualify_tables(&mut cx);
    cx.program.close_action_switches();
    cx.program.arch = package::detect_arch(&cx);
    extras::deparsers(&mut cx, &tree);
    extras::externs(&mut cx, &tree);
    if let Some(u) = units {
        u.finish();
    }
    let empty = ir::Program::new("", ir::InputKind::P4Source);
    answer(Loaded {
        program: std::mem::replace(&mut cx.program, empty),
        warnings: std::mem::take(&mut cx.warnings),
    });
    // What borrows the tree goes first; the tree itself is freed on a
    // thread of its own. A command's last program leaves both to the exit.
    if opts.tree_to_exit {
        std::mem::forget(cx);
        std::mem::forget(tree);
    } else {
        drop(cx);
        free_tree::free_later(tree);
    }
    Ok(())
}
