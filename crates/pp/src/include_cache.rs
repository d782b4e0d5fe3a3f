//! Includes preprocessed by an earlier run, taken back when the state they
//! start from is the same, so an editor's keystroke in the root file does
//! not preprocess `core.p4`, `tna.p4` or a program's own headers again.
//!
//! Only an `#include` of the root file itself is kept. Its effect is a
//! function of the state at the directive: the options, the root file's
//! text before the directive (its macros, conditionals and locations), the
//! files read so far, the macro table (macros defined by the root before
//! the `#include` included), `#pragma once` files, `#line` names, the
//! counters the limits judge, the output's length and last byte and
//! segment (where the include's first token is glued and mapped), and what
//! the [`crate::Files`] answer. An entry keeps that state and every question
//! the include asked the files (found, key, text, refusal); it is taken
//! back only when all are equal again (the files asked again), so the
//! output, source map, warnings and state after are a fresh run's. An
//! include that enters the root file again is not kept.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use crate::engine::{FastHash, Lexed, Preprocessor, State};
use crate::error::PpWarning;
use crate::macros::Macro;
use crate::source_map::Segment;
use crate::{Options, SourceFile};

/// Entries kept per cache: a program's includes of its root file, and
/// those of the last few variants (a define toggled).
const KEEP: usize = 64;

/// A question an include asked the files, with its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    IsFile(PathBuf, bool),
    Key(PathBuf, String),
    Refusal(PathBuf, Option<&'static str>),
    Read(PathBuf, String),
}

/// The state an include starts from (see the module comment).
struct Before {
    opts: Options,
    file: usize,
    root_prefix: String,
    files: Vec<SourceFile>,
    by_key: HashMap<String, usize, FastHash>,
    macros: HashMap<Rc<str>, Rc<Macro>, FastHash>,
    once: HashSet<usize, FastHash>,
    names: Vec<String>,
    counters: (usize, usize, u64),
    out_len: usize,
    last_byte: Option<u8>,
    last_seg: Option<Segment>,
    delta_name: (i64, Option<u32>),
}

/// What an include left: the state after it and what it added.
struct After {
    files: Vec<SourceFile>,
    lexed: Vec<Rc<Lexed>>,
    starts: Vec<Vec<usize>>,
    keys: Vec<(String, usize)>,
    macros: HashMap<Rc<str>, Rc<Macro>, FastHash>,
    once: HashSet<usize, FastHash>,
    names: Vec<String>,
    /// Macro tokens spent, includes and bytes entered by the include.
    spent: (usize, usize, u64),
    text: String,
    segs: Vec<Segment>,
    warnings: Vec<PpWarning>,
}

struct Entry {
    before: Before,
    probes: Vec<Probe>,
    after: After,
}

/// Preprocessed includes of a root file, kept between the runs of one
/// document (an editor's). Use one cache with one [`crate::Bundled`]: the
/// bundled texts are taken to be the same from run to run.
#[derive(Default)]
pub struct IncludeCache {
    entries: Vec<Entry>,
    hits: usize,
    /// The files' lexings, by text (see [`crate::lexings`]).
    pub(crate) lexings: crate::lexings::Lexings,
}

impl IncludeCache {
    /// An empty cache.
    pub fn new() -> IncludeCache {
        IncludeCache::default()
    }

    /// How many includes were taken back.
    pub fn hits(&self) -> usize {
        self.hits
    }

    /// How many files were taken back lexed (their text unchanged).
    pub fn lexed_hits(&self) -> usize {
        self.lexings.hits()
    }
}

impl std::fmt::Debug for IncludeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "IncludeCache({} entries, {} hits, {} lexings, {} lexed hits)",
            self.entries.len(),
            self.hits,
            self.lexings.len(),
            self.lexings.hits()
        )
    }
}

fn counters(st: &State) -> (usize, usize, u64) {
    (st.budget, st.includes, st.entered_bytes)
}

impl Before {
    fn take(pp: &Preprocessor<'_>, file: usize, root_end: usize) -> Before {
        let st = &pp.st;
        let root = st.files.first().map_or("", |f| f.text.as_str());
        Before {
            opts: pp.opts.clone(),
            file,
            root_prefix: root.get(..root_end).unwrap_or(root).to_owned(),
            files: st.files.get(1..).unwrap_or(&[]).to_vec(),
            by_key: st.by_key.clone(),
            macros: st.macros.clone(),
            once: st.once.clone(),
            names: st.names.clone(),
            counters: counters(st),
            out_len: st.out.text.len(),
            last_byte: st.out.last_byte(),
            last_seg: st.out.segs.last().copied(),
            delta_name: (st.out.delta, st.out.name),
        }
    }

    /// Whether `pp`, about to enter `file` from the root at `root_end`,
    /// is in this state.
    fn matches(&self, pp: &Preprocessor<'_>, file: usize, root_end: usize) -> bool {
        let st = &pp.st;
        let root = st.files.first().map_or("", |f| f.text.as_str());
        self.file == file
            && st.budget >= self.counters.0
            && self.out_len == st.out.text.len()
            && self.last_byte == st.out.last_byte()
            && self.last_seg == st.out.segs.last().copied()
            && self.delta_name == (st.out.delta, st.out.name)
            && root.get(..root_end) == Some(self.root_prefix.as_str())
            && st.files.get(1..) == Some(&self.files[..])
            && self.by_key == st.by_key
            && self.once == st.once
            && self.names == st.names
            && same_options(&self.opts, pp.opts)
            && same_macros(&self.macros, &st.macros)
    }
}

fn same_options(a: &Options, b: &Options) -> bool {
    a.defines == b.defines && a.include_dirs == b.include_dirs && a.limits == b.limits
}

fn same_macros(
    a: &HashMap<Rc<str>, Rc<Macro>, FastHash>,
    b: &HashMap<Rc<str>, Rc<Macro>, FastHash>,
) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, m)| b.get(k).is_some_and(|n| Rc::ptr_eq(m, n) || m == n))
}

impl Preprocessor<'_> {
    /// Enters `file`, included by the root file at `root_end` (the
    /// directive's offset), from the cache when an entry started from
    /// this state, else afresh, keeping what it did.
    pub(crate) fn enter_cached(
        &mut self,
        file: usize,
        root_end: usize,
    ) -> Result<(), crate::PpError> {
        let Some(cache) = self.cache.take() else {
            return self.enter(file);
        };
        let hit = cache.entries.iter().position(|e| {
            e.before.matches(self, file, root_end)
                && self.fits(e.after.spent)
                && self.answers(&e.probes)
        });
        let r = match hit {
            Some(k) => {
                cache.hits += 1;
                self.replay(&cache.entries[k].after);
                Ok(())
            }
            None => self.record(cache, file, root_end),
        };
        self.cache = Some(cache);
        r
    }

    /// Whether the includes and bytes an include entered stay within the
    /// limits from here (the root's own length counts in the bytes
    /// entered, so they may differ from the recorded run's): each check
    /// the include made passed then and passes now. (The macro budget at
    /// the directive is the recorded one or more: see `matches`.)
    fn fits(&self, spent: (usize, usize, u64)) -> bool {
        let l = self.opts.limits;
        self.st.includes.saturating_add(spent.1) <= l.max_includes
            && self.st.entered_bytes.saturating_add(spent.2) <= l.max_total_bytes
    }

    /// Whether the files answer every question as they did.
    fn answers(&self, probes: &[Probe]) -> bool {
        let max = self.opts.limits.max_file_bytes;
        probes.iter().all(|p| match p {
            Probe::IsFile(path, b) => self.files.is_file(path) == *b,
            Probe::Key(path, k) => self.files.key(path) == *k,
            Probe::Refusal(path, r) => self.files.refusal(path) == *r,
            Probe::Read(path, text) => self
                .files
                .read(path, max)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .is_some_and(|t| t == *text),
        })
    }

    /// Enters `file` afresh, asking the files through a record; keeps the
    /// entry when it succeeded without entering the root again.
    fn record(
        &mut self,
        cache: &mut IncludeCache,
        file: usize,
        root_end: usize,
    ) -> Result<(), crate::PpError> {
        let before = Before::take(self, file, root_end);
        let n_files = self.st.files.len();
        let (n_segs, n_warn) = (self.st.out.segs.len(), self.st.warnings.len());
        self.st.probes = Some(Vec::new());
        self.st.used_root = false;
        let r = self.enter(file);
        let probes = self.st.probes.take().unwrap_or_default();
        if r.is_err() || self.st.used_root {
            return r;
        }
        let st = &self.st;
        let mut keys: Vec<(String, usize)> = st
            .by_key
            .iter()
            .filter(|(_, &i)| i >= n_files)
            .map(|(k, &i)| (k.clone(), i))
            .collect();
        keys.sort_by_key(|&(_, i)| i);
        let after = After {
            files: st.files[n_files..].to_vec(),
            lexed: st.lexed.get(n_files..).unwrap_or(&[]).to_vec(),
            starts: st.starts.get(n_files..).unwrap_or(&[]).to_vec(),
            keys,
            macros: st.macros.clone(),
            once: st.once.clone(),
            names: st.names.clone(),
            spent: (
                before.counters.0.saturating_sub(st.budget),
                st.includes.saturating_sub(before.counters.1),
                st.entered_bytes.saturating_sub(before.counters.2),
            ),
            text: st.out.text.get(before.out_len..).unwrap_or("").to_owned(),
            segs: st.out.segs.get(n_segs..).unwrap_or(&[]).to_vec(),
            warnings: st.warnings.get(n_warn..).unwrap_or(&[]).to_vec(),
        };
        if cache.entries.len() >= KEEP {
            cache.entries.remove(0);
        }
        cache.entries.push(Entry {
            before,
            probes,
            after,
        });
        Ok(())
    }

    /// Leaves the state as entering the include did.
    fn replay(&mut self, a: &After) {
        let st = &mut self.st;
        st.files.extend(a.files.iter().cloned());
        st.lexed.extend(a.lexed.iter().cloned());
        st.starts.extend(a.starts.iter().cloned());
        st.by_key.extend(a.keys.iter().cloned());
        st.macros = a.macros.clone();
        st.macro_filter = crate::macros::MacroFilter::of(st.macros.keys().map(|k| &**k));
        st.once = a.once.clone();
        st.names = a.names.clone();
        st.budget = st.budget.saturating_sub(a.spent.0);
        st.includes = st.includes.saturating_add(a.spent.1);
        st.entered_bytes = st.entered_bytes.saturating_add(a.spent.2);
        st.out.text.push_str(&a.text);
        st.out.segs.extend(a.segs.iter().copied());
        st.warnings.extend(a.warnings.iter().cloned());
    }

    /// Notes a question to the files while an include is recorded.
    pub(crate) fn probe(&mut self, p: impl FnOnce() -> Probe) {
        if let Some(v) = &mut self.st.probes {
            v.push(p());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NoBundled, Output};
    use std::path::Path;

    fn run(root: &Path, text: &str, opts: &Options, cache: Option<&mut IncludeCache>) -> Output {
        let mut pp = Preprocessor::new(opts, &NoBundled);
        if let Some(c) = cache {
            pp = pp.with_include_cache(c);
        }
        pp.run_file_text(root, text.to_string())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Each run through the cache gives a fresh run's output, source map,
    /// files and warnings; `hits` counts the includes taken back.
    #[test]
    fn a_cached_include_is_a_fresh_one_and_misses_when_its_state_changed() {
        let dir = std::env::temp_dir().join(format!("p4cost-pp-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let write = |name: &str, text: &str| {
            std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{e}"))
        };
        write(
            "a.p4",
            "#ifndef A_P4\n#define A_P4\n#ifdef FAST\nconst bit<8> x = 1;\n#else\n\
             const bit<8> x = W;\n#endif\n#define M(v) (v + 1)\n#warning in a\n\
             #include \"b.p4\"\n#endif\n",
        );
        write("b.p4", "#pragma once\nconst bit<8> y = M(3);\n");
        let root = dir.join("main.p4");
        let opts = Options::default();
        let mut cache = IncludeCache::new();
        let mut check = |text: &str, opts: &Options, hits: usize| {
            let cached = run(&root, text, opts, Some(&mut cache));
            let fresh = run(&root, text, opts, None);
            assert_eq!(format!("{cached:?}"), format!("{fresh:?}"), "{text}");
            assert_eq!(cache.hits(), hits, "{text}");
        };
        let main = "#define W 7\n#include \"a.p4\"\n#include \"b.p4\"\nconst bit<8> z = M(1);\n";
        check(main, &opts, 0);
        // An edit after the includes: both taken back.
        check(&main.replace("M(1)", "M(2) + x"), &opts, 1);
        // A macro the include reads, changed before it: a miss, its value read.
        check(&main.replace("W 7", "W 9"), &opts, 1);
        check(&format!("#define FAST\n{main}"), &opts, 1);
        // The state before it back: taken back again.
        check(main, &opts, 2);
        // A define on the command line: a miss.
        let mut with = Options::default();
        with.defines.push(("FAST".to_string(), None));
        check(main, &with, 2);
        // A file it includes changed on disk: a miss.
        write("b.p4", "#pragma once\nconst bit<8> y = M(4);\n");
        check(main, &opts, 2);
        check(&main.replace("M(1)", "M(5)"), &opts, 3);
        // Lines added before the include: the root's prefix differs.
        check(&format!("\n\n{main}"), &opts, 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Files whose text did not change are taken back lexed, the root
    /// file when its text is that of an earlier run (an edit undone); a
    /// file changed on disk or a root edited is lexed again, and each run
    /// is a fresh run's.
    #[test]
    fn unchanged_files_are_taken_back_lexed() {
        let dir = std::env::temp_dir().join(format!("p4cost-pp-lexed-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let inc = dir.join("inc.p4");
        std::fs::write(&inc, "#define V 2\nconst bit<8> a = V;\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let root = dir.join("main.p4");
        let opts = Options::default();
        let mut cache = IncludeCache::new();
        let mut check = |text: &str, lexed_hits: usize| {
            let cached = run(&root, text, &opts, Some(&mut cache));
            let fresh = run(&root, text, &opts, None);
            assert_eq!(format!("{cached:?}"), format!("{fresh:?}"), "{text}");
            assert_eq!(cache.lexed_hits(), lexed_hits, "{text}");
        };
        let main = "#include \"inc.p4\"\nconst bit<8> b = V;\n";
        check(main, 0);
        // The root edited: the include's lexing taken back.
        check(&main.replace("b = V", "b = V + 1"), 1);
        // The root as it was: both taken back.
        check(main, 3);
        // The include changed on disk: lexed again, the root taken back.
        std::fs::write(&inc, "#define V 3\nconst bit<8> a = V;\n")
            .unwrap_or_else(|e| panic!("{e}"));
        check(main, 4);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
