//! End-to-end tests of the preprocessor through its public API.

use std::path::{Path, PathBuf};

use crate::{Bundled, Options, Output, PpError, Preprocessor};

/// In-memory bundled files.
struct Mem(Vec<(&'static str, &'static str)>);

impl Bundled for Mem {
    fn lookup(&self, name: &str) -> Option<&'static str> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
    }
}

fn run_with(opts: &Options, bundled: &Mem, src: &str) -> Result<Output, PpError> {
    Preprocessor::new(opts, bundled).run_source("test.p4", src)
}

fn run(src: &str) -> Result<Output, PpError> {
    run_with(&Options::default(), &Mem(vec![]), src)
}

/// Whitespace-normalized output (or the error's text).
fn pp(src: &str) -> String {
    match run(src) {
        Ok(o) => norm(&o.text),
        Err(e) => format!("ERROR {e}"),
    }
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn err(src: &str) -> PpError {
    match run(src) {
        Ok(o) => panic!("expected an error, got output {:?}", o.text),
        Err(e) => e,
    }
}

/// (line, col) of the first occurrence of `needle` in the output, through the source map.
fn where_is(o: &Output, needle: &str) -> (String, u32, u32) {
    let off = o
        .text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in {:?}", o.text));
    let l = o.map.lookup(off);
    (o.display_path(&l).to_owned(), l.line, l.col)
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("p4cost-pp-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("mkdir {}: {e}", d.display()));
        TempDir(d)
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.0.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir: {e}"));
        }
        std::fs::write(&p, text).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
        p
    }
    fn path(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run_file(opts: &Options, bundled: &Mem, p: &Path) -> Result<Output, PpError> {
    Preprocessor::new(opts, bundled).run_file(p)
}

// ----- plain text -----

#[test]
fn text_without_directives_is_unchanged_and_maps_identically() {
    let src = "control C(inout h hdr) {\n    apply { x = 8w1 + y; }\n}\n";
    let o = run(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text, src);
    for (i, _) in src.char_indices() {
        let l = o.map.lookup(i);
        assert_eq!((l.file, l.offset), (0, i));
    }
    assert_eq!(o.map.segment_count(), 1);
}

/// Plain tokens (copied to the output as they are) and macro names
/// side by side: the output and where each token maps are those of
/// tokens expanded one by one, comments and splices included.
#[test]
fn plain_tokens_between_macros_keep_text_and_places() {
    let o = run("#define W w\nx W/**/y+W z\na\\\nb c // d\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text.lines().nth(1), Some("x w    y+w z"));
    assert_eq!(where_is(&o, "y"), ("test.p4".into(), 2, 8));
    assert_eq!(where_is(&o, "z"), ("test.p4".into(), 2, 12));
    assert_eq!(where_is(&o, "ab"), ("test.p4".into(), 3, 1));
    assert_eq!(where_is(&o, "c"), ("test.p4".into(), 4, 3));
}

#[test]
fn comments_become_spaces_and_keep_lines() {
    let o = run("a /* x\ny */ b // c\nd").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text, "a     \n     b     \nd");
    assert_eq!(where_is(&o, "d"), ("test.p4".into(), 3, 1));
}

#[test]
fn directives_inside_comments_are_ignored() {
    assert_eq!(pp("/*\n#error no\n#define X 1\n*/ X // #error no"), "X");
}

#[test]
fn unterminated_comment_reports_opening() {
    let e = err("a\n  b /* open\n more");
    assert_eq!(e.to_string(), "test.p4:2:5: unterminated comment");
}

#[test]
fn strings_are_not_expanded() {
    assert_eq!(pp("#define X 1\n\"X and X\" X"), "\"X and X\" 1");
}

#[test]
fn directive_lines_become_empty_lines() {
    let src = "#define A 1\na\n#if 0\nskipped\n#endif\nA\n#define L \\\n  2\nL\n";
    let o = run(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text.matches('\n').count(), src.matches('\n').count());
    assert_eq!(o.text.lines().nth(5).map(str::trim), Some("1"));
    assert_eq!(where_is(&o, "2"), ("test.p4".into(), 9, 1));
}

// ----- macros -----

#[test]
fn object_like_and_undef() {
    assert_eq!(pp("#define N 4\nbit<N> x;\n#undef N\nN"), "bit<4> x; N");
}

#[test]
fn indented_directives_with_space_after_hash_and_continuations() {
    assert_eq!(
        pp("   #   define  SUM(a, b) \\\n   ((a) + \\\n (b))\n  SUM(1, 2)"),
        "((1) + (2))"
    );
}

#[test]
fn function_like_basic_and_not_invoked_without_parens() {
    assert_eq!(pp("#define F(x) [x]\nF(1) F + F (2)"), "[1] F + [2]");
}

#[test]
fn nested_function_like_macros() {
    let src =
        "#define ADD(a,b) (a+b)\n#define TWICE(x) ADD(x,x)\n#define ID(x) x\nID(TWICE(ID(3)))";
    assert_eq!(pp(src), "(3+3)");
}

#[test]
fn args_with_parentheses_and_commas() {
    assert_eq!(
        pp("#define F(a, b) <a|b>\nF((1, 2), f(3, (4)))"),
        "<(1, 2)|f(3, (4))>"
    );
    assert_eq!(pp("#define F(a, b) <a|b>\nF(, )"), "<|>");
}

#[test]
fn wrong_argument_count_is_an_error() {
    let e = err("#define F(a, b) a\n\n  F(1)");
    assert_eq!(
        e.to_string(),
        "test.p4:3:3: macro 'F' expects 2 arguments, got 1"
    );
    assert!(matches!(
        err("#define F(a) a\nF(1,2)"),
        PpError::Macro { .. }
    ));
    assert!(matches!(err("#define F(a) a\nF(1"), PpError::Macro { .. }));
    assert_eq!(pp("#define Z() z\nZ()"), "z");
    assert!(matches!(err("#define Z() z\nZ(1)"), PpError::Macro { .. }));
}

#[test]
fn invocation_spanning_lines_keeps_line_count() {
    let src = "#define F(a, b) a b\nx F(1,\n  2) y\nz\n";
    let o = run(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "x 1 2 y z");
    assert_eq!(o.text.matches('\n').count(), 4);
    assert_eq!(where_is(&o, "z"), ("test.p4".into(), 4, 1));
    // the name on the next line: F \n (1, 2)
    assert_eq!(pp("#define F(a, b) a b\nF\n(1, 2)"), "1 2");
}

#[test]
fn stringify() {
    assert_eq!(
        pp("#define S(x) #x\nS(a  +  \"b\\n\") S() S( p  q )"),
        r#""a + \"b\\n\"" "" "p q""#
    );
    // the argument of # is not expanded
    assert_eq!(pp("#define A 1\n#define S(x) #x\nS(A)"), "\"A\"");
}

#[test]
fn paste_builds_identifiers_and_numbers() {
    let src = "#define CAT(a, b) a ## b\n#define FIELD(n) hdr.f ## n ## _valid\n#define xy 42\nCAT(x, y) FIELD(3) CAT(1, 2) CAT(, z) CAT(z, )";
    // CAT(x, y) pastes to `xy` which is then rescanned and expands to 42
    assert_eq!(pp(src), "42 hdr.f3_valid 12 z z");
}

#[test]
fn paste_operands_are_not_expanded_but_result_is() {
    let src = "#define A a\n#define B b\n#define CAT(x, y) x ## y\n#define XCAT(x, y) CAT(x, y)\n#define ab done\nCAT(A, B) XCAT(A, B)";
    assert_eq!(pp(src), "AB done");
}

#[test]
fn variadic_macros() {
    let src = "#define V(f, ...) call(f, __VA_ARGS__)\n#define N(args...) [args]\n#define G(f, ...) g(f , ## __VA_ARGS__)\nV(1, 2, (3, 4)) N(a, b) G(x) G(x, y, z) V(9)";
    assert_eq!(
        pp(src),
        "call(1, 2, (3, 4)) [a, b] g(x) g(x , y, z) call(9,)"
    );
}

#[test]
fn recursion_guard_paints_names_blue() {
    assert_eq!(pp("#define foo foo + 1\nfoo"), "foo + 1");
    assert_eq!(pp("#define a b\n#define b a\na b"), "a b");
    assert_eq!(pp("#define f(x) x + f(x)\nf(2)"), "2 + f(2)");
    // f produced by its own expansion stays painted even when followed by '('
    assert_eq!(pp("#define f(x) x f\nf(1)(2)"), "1 f(2)");
    // a macro name in an argument that would recurse is painted too
    assert_eq!(pp("#define g(x) x\n#define h g(h)\nh"), "h");
}

#[test]
fn rescan_uses_following_text() {
    // `f` at the end of an expansion picks up `(2)` from the source
    assert_eq!(pp("#define f(x) <x>\n#define g f\ng(2)"), "<2>");
    // the C standard's classic: the result of expansion can form a new invocation
    assert_eq!(
        pp("#define q(x) x\n#define r(x,y) x ## y\nq(r)(1, 2)"),
        "12"
    );
}

#[test]
fn macro_redefinition_warns_identical_does_not() {
    let o = run("#define A 1\n#define A  1\n#define A 2\nA").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "2");
    assert_eq!(o.warnings.len(), 1);
    assert_eq!(
        o.warnings[0].to_string(),
        "test.p4:3:9: warning: 'A' redefined"
    );
}

#[test]
fn bad_define_is_an_error_at_the_token() {
    assert_eq!(
        err("#define 3 x").to_string(),
        "test.p4:1:9: macro name must be an identifier"
    );
    assert!(matches!(err("#define F(x) #y"), PpError::Directive { .. }));
}

#[test]
fn expansion_depth_and_size_limits_do_not_crash() {
    let mut src = String::from("#define F(x) x\n");
    src.push_str(&"F(".repeat(400));
    src.push('1');
    src.push_str(&")".repeat(400));
    assert!(matches!(run(&src), Err(PpError::Limit { .. })));
    let mut src = String::from("#define A0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    src.push_str("A39\n");
    assert!(matches!(run(&src), Err(PpError::Limit { .. })));
}

// ----- conditionals -----

#[test]
fn if_arithmetic_and_precedence() {
    let src = "#if 1 + 2 * 3 == 7 && (8 >> 1) == 4 && -1 < 0 && 0x10 == 16 && (5 % 3 ? 1 : 0) && ~0 == -1 && !0\nyes\n#else\nno\n#endif\n#if 2 + 3 * 4 == 20\nwrong\n#endif";
    assert_eq!(pp(src), "yes");
}

#[test]
fn if_with_macros_defined_and_undefined_identifiers() {
    let src = "#define V 3\n#define TWO() 2\n#if V * TWO() == 6 && defined V && defined(TWO) && !defined(NOPE) && NOPE == 0\nok\n#endif";
    assert_eq!(pp(src), "ok");
}

#[test]
fn ifdef_ifndef() {
    assert_eq!(
        pp("#define X\n#ifdef X\na\n#endif\n#ifndef X\nb\n#endif\n#ifndef Y\nc\n#endif"),
        "a c"
    );
}

#[test]
fn elif_chains_take_only_the_first_true_branch() {
    let src = |v: u32| {
        format!("#define V {v}\n#if V == 1\none\n#elif V == 2\ntwo\n#elif V >= 2\nbig\n#else\nother\n#endif")
    };
    assert_eq!(pp(&src(1)), "one");
    assert_eq!(pp(&src(2)), "two");
    assert_eq!(pp(&src(7)), "big");
    assert_eq!(pp(&src(0)), "other");
}

#[test]
fn nested_conditionals() {
    let src = "#if 1\n a\n #if 0\n  b\n  #if 1\n   c\n  #else\n   d\n  #endif\n #elif 1\n  e\n #else\n  f\n #endif\n g\n#else\n h\n #if 1\n i\n #endif\n#endif";
    assert_eq!(pp(src), "a e g");
}

#[test]
fn skipped_branches_may_hold_invalid_directives() {
    let src = "#if 0\n#frobnicate\n#error never\n#include \"missing.p4\"\n#define F(\n#if 1/0\n#endif\n#else\nkept\n#endif";
    assert_eq!(pp(src), "kept");
    // once a branch is taken, later #elif expressions are not evaluated
    assert_eq!(
        pp("#if 1\nkept\n#elif garbage (((\n#else\n#bogus\n#endif"),
        "kept"
    );
    // but an #elif reached with no branch taken yet is evaluated
    assert!(matches!(
        run("#if 0\n#elif garbage (((\n#endif"),
        Err(PpError::Expression { .. })
    ));
}

#[test]
fn unbalanced_conditionals_are_errors() {
    assert_eq!(
        err("a\n#endif").to_string(),
        "test.p4:2:1: #endif without #if"
    );
    assert_eq!(
        err("#if 1\n #ifdef X\n#endif").to_string(),
        "test.p4:1:1: unterminated #if"
    );
    assert!(matches!(err("#else"), PpError::Conditional { .. }));
    assert!(matches!(err("#elif 1"), PpError::Conditional { .. }));
    assert!(matches!(
        err("#if 1\n#else\n#else\n#endif"),
        PpError::Conditional { .. }
    ));
    assert!(matches!(
        err("#if 1\n#else\n#elif 1\n#endif"),
        PpError::Conditional { .. }
    ));
}

#[test]
fn bad_if_expressions() {
    assert_eq!(
        err("#if 1 +\n#endif").to_string(),
        "test.p4:1:7: unexpected end of #if expression"
    );
    assert!(matches!(
        err("#if 1 / 0\n#endif"),
        PpError::Expression { .. }
    ));
    assert!(matches!(err("#if\n#endif"), PpError::Expression { .. }));
    assert!(matches!(
        err("#if defined\n#endif"),
        PpError::Expression { .. }
    ));
    assert!(matches!(err("#ifdef\n#endif"), PpError::Directive { .. }));
}

// ----- options and builtins -----

#[test]
fn command_line_defines() {
    let opts = Options {
        defines: vec![
            ("FLAG".into(), None),
            ("SIZE".into(), Some("1024".into())),
            ("SQ(x)".into(), Some("((x)*(x))".into())),
        ],
        include_dirs: vec![],
        ..Options::default()
    };
    let o = run_with(
        &opts,
        &Mem(vec![]),
        "#if FLAG && SIZE > 1000\nbig SIZE SQ(3)\n#endif",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "big 1024 ((3)*(3))");
    assert_eq!(o.files[0].path, "test.p4");
}

#[test]
fn line_and_file_builtins() {
    assert_eq!(
        pp("a\n__LINE__ __FILE__\n\n  __LINE__"),
        "a 2 \"test.p4\" 4"
    );
    // in a macro, __LINE__ is the invocation's line
    assert_eq!(pp("#define L __LINE__\n\nL"), "3");
    assert_eq!(pp("#ifdef __LINE__\ny\n#endif"), "y");
}

#[test]
fn line_directive_changes_reported_location() {
    let o = run("a\n#line 100\nb __LINE__\n#line 7 \"other.p4\"\nc __FILE__ __LINE__\n#error stop")
        .err()
        .map(|e| e.to_string());
    assert_eq!(o.as_deref(), Some("other.p4:8:1: #error stop"));
    let o = run("a\n#line 100\nb __LINE__\n#line 7 \"other.p4\"\nc __FILE__ __LINE__\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "a b 100 c \"other.p4\" 7");
    assert_eq!(where_is(&o, "b"), ("test.p4".into(), 100, 1));
    assert_eq!(where_is(&o, "c"), ("other.p4".into(), 7, 1));
    let l = o.map.lookup(o.text.find('c').unwrap_or(0));
    assert_eq!(l.file, 0, "the real file index stays");
    assert!(matches!(err("#line x"), PpError::Directive { .. }));
}

#[test]
fn error_and_warning_directives() {
    let e = err("a\n\n   #  error  bad thing  happened\n");
    assert_eq!(e.to_string(), "test.p4:3:4: #error bad thing  happened");
    let o = run("#warning careful now\nx").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.warnings.len(), 1);
    assert_eq!(
        o.warnings[0].to_string(),
        "test.p4:1:1: warning: careful now"
    );
    assert_eq!(norm(&o.text), "x");
}

#[test]
fn pragma_passes_through_and_unknown_directive_is_dropped_with_a_warning() {
    let o = run("#pragma p4 thing(1)\nx").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text, "#pragma p4 thing(1)\nx");
    // p4c's `cpp -x assembler-with-cpp` passes `#frob` through and its lexer
    // skips the line: the line is gone, and p4cost says so.
    let o = run("a\n  #frob x\n# copybara:strip(y)\n####\n#}\nb").unwrap_or_else(|e| panic!("{e}"));
    // `####` is no directive (`##` is one token) and passes through, as in
    // cpp; the parser blanks every `#` line as p4c's lexer skips it.
    assert_eq!(norm(&o.text), "a #### b");
    let w: Vec<String> = o.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(
        w,
        [
            "test.p4:2:3: warning: unknown directive #frob ignored, and any after it in this file \
          (p4c ignores lines that start with an unknown directive)"
        ]
    );
    // Another warning in between: the next unknown directive is named again.
    let o = run("#frob\n#warning w\n#knob\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.warnings.len(), 3);
    assert!(o.warnings[2].message.contains("#knob"));
    // In a skipped group it is not even looked at.
    let o = run("#if 0\n#frob\n#endif\nx").unwrap_or_else(|e| panic!("{e}"));
    assert!(o.warnings.is_empty());
    assert_eq!(pp("#\nx"), "x");
}

// ----- includes -----

const TNA: &str = "#ifndef _TNA_\n#define _TNA_\nextern Tna {}\n#endif\n";

#[test]
fn bundled_include_and_guard_stops_reinclusion() {
    let b = Mem(vec![("tna.p4", TNA)]);
    let o = run_with(
        &Options::default(),
        &b,
        "#include <tna.p4>\n#include \"tna.p4\"\nx",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "extern Tna {} x");
    assert_eq!(o.files.len(), 2);
    assert_eq!(o.files[1].path, "<bundled>/tna.p4");
    assert!(o.files[1].bundled);
}

#[test]
fn guard_without_idiom_shape_still_stops_reinclusion() {
    // a trailing comment-free line after #endif defeats guard detection; the guard still works
    let b = Mem(vec![("g.p4", "#ifndef G\n#define G\ng\n#endif\nafter\n")]);
    let o = run_with(
        &Options::default(),
        &b,
        "#include <g.p4>\n#include <g.p4>\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "g after after");
}

#[test]
fn include_inside_a_control_body_with_source_map() {
    let b = Mem(vec![("body.p4", "// comment line\n  t.apply();\n")]);
    let src = "control C() {\n    apply {\n#include <body.p4>\n        u.apply();\n    }\n}\n";
    let o = run_with(&Options::default(), &b, src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        norm(&o.text),
        "control C() { apply { t.apply(); u.apply(); } }"
    );
    assert_eq!(where_is(&o, "t.apply"), ("<bundled>/body.p4".into(), 2, 3));
    assert_eq!(where_is(&o, "u.apply"), ("test.p4".into(), 4, 9));
    let l = o.map.lookup(o.text.find("t.apply").unwrap_or(0));
    assert_eq!((l.file, l.offset), (1, 18));
}

#[test]
fn quoted_search_order_and_disk_wins_over_bundled() {
    let t = TempDir::new("order");
    t.write(
        "main/main.p4",
        "#include \"a.p4\"\n#include <b.p4>\n#include \"c.p4\"\n",
    );
    t.write("main/a.p4", "a_local\n");
    t.write("inc/a.p4", "a_inc\n");
    t.write("inc/b.p4", "b_inc\n");
    let b = Mem(vec![
        ("a.p4", "a_bundled\n"),
        ("b.p4", "b_bundled\n"),
        ("c.p4", "c_bundled\n"),
    ]);
    let opts = Options {
        defines: vec![],
        include_dirs: vec![t.path("inc")],
        ..Options::default()
    };
    let o = run_file(&opts, &b, &t.path("main/main.p4")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "a_local b_inc c_bundled");
    // angled includes do not search the includer's directory
    t.write("main/d.p4", "d_local\n");
    t.write("main/main2.p4", "#include <d.p4>\n");
    let e = run_file(&opts, &b, &t.path("main/main2.p4")).err();
    assert!(matches!(e, Some(PpError::IncludeNotFound { .. })));
}

#[test]
fn nested_includes_resolve_relative_to_the_includer() {
    let t = TempDir::new("nested");
    t.write("top.p4", "#include \"sub/one.p4\"\nend\n");
    t.write("sub/one.p4", "#include \"two.p4\"\none\n");
    t.write("sub/two.p4", "two\n");
    let o = run_file(&Options::default(), &Mem(vec![]), &t.path("top.p4"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "two one end");
    let (path, line, col) = where_is(&o, "one");
    assert!(path.ends_with("one.p4"), "{path}");
    assert_eq!((line, col), (2, 1));
}

#[test]
fn include_cycle_names_the_chain() {
    let b = Mem(vec![
        ("a.p4", "#include <b.p4>\n"),
        ("b.p4", "x\n#include <a.p4>\n"),
    ]);
    let e = run_with(&Options::default(), &b, "#include <a.p4>\n").err();
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        Some(
            "<bundled>/b.p4:2:1: include cycle: <bundled>/a.p4 -> <bundled>/b.p4 -> <bundled>/a.p4"
        )
    );
}

#[test]
fn self_include_of_root_is_a_cycle() {
    let t = TempDir::new("self");
    t.write("s.p4", "#include \"s.p4\"\n");
    let e = run_file(&Options::default(), &Mem(vec![]), &t.path("s.p4")).err();
    assert!(matches!(e, Some(PpError::IncludeCycle { .. })), "{e:?}");
}

#[test]
fn guarded_mutual_includes_are_not_cycles() {
    let b = Mem(vec![
        ("a.p4", "#ifndef A\n#define A\n#include <b.p4>\na\n#endif\n"),
        ("b.p4", "#ifndef B\n#define B\n#include <a.p4>\nb\n#endif\n"),
    ]);
    let o = run_with(
        &Options::default(),
        &b,
        "#include <a.p4>\n#include <b.p4>\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "b a");
}

#[test]
fn pragma_once() {
    let b = Mem(vec![
        ("o.p4", "#pragma once\nonce\n#include <p.p4>\n"),
        ("p.p4", "#include <o.p4>\np\n"),
    ]);
    let o = run_with(
        &Options::default(),
        &b,
        "#include <o.p4>\n#include <o.p4>\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "once p");
}

#[test]
fn missing_include_reports_the_directive() {
    let e = err("x\n  #include \"nope.p4\"\n");
    assert_eq!(
        e.to_string(),
        "test.p4:2:3: include file 'nope.p4' not found (searched: ., the bundled includes \
         (core.p4, v1model.p4, tna.p4, ...))"
    );
    assert!(matches!(err("#include nope"), PpError::Directive { .. }));
    assert!(matches!(err("#include <nope"), PpError::Directive { .. }));
}

#[test]
fn computed_include() {
    let b = Mem(vec![("arch.p4", "arch\n")]);
    let o = run_with(
        &Options::default(),
        &b,
        "#define ARCH \"arch.p4\"\n#include ARCH\n#define A2 <arch.p4>\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "arch");
}

#[test]
fn macros_from_includes_are_visible_after() {
    let b = Mem(vec![("defs.p4", "#define W 16\n")]);
    let o = run_with(&Options::default(), &b, "#include <defs.p4>\nbit<W> f;")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "bit<16> f;");
}

#[test]
fn errors_inside_included_files_use_that_file() {
    let b = Mem(vec![("bad.p4", "ok\n#error inner\n")]);
    let e = run_with(&Options::default(), &b, "\n#include <bad.p4>\n").err();
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        Some("<bundled>/bad.p4:2:1: #error inner")
    );
    let b = Mem(vec![("open.p4", "#if 1\n")]);
    let e = run_with(&Options::default(), &b, "#include <open.p4>\n#endif\n").err();
    assert!(matches!(e, Some(PpError::Conditional { .. })));
    let b = Mem(vec![("c.p4", "x /* open\n")]);
    let e = run_with(&Options::default(), &b, "#include <c.p4>\n").err();
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        Some("<bundled>/c.p4:1:3: unterminated comment")
    );
}

#[test]
fn missing_root_file_is_io_error() {
    let e = run_file(
        &Options::default(),
        &Mem(vec![]),
        Path::new("/nonexistent/x.p4"),
    )
    .err();
    assert!(matches!(e, Some(PpError::Io { .. })));
}

// ----- source map -----

#[test]
fn macro_expansion_maps_to_the_invocation_and_args_to_themselves() {
    let src = "#define F(x) (x + k)\nfoo = F(bar);\n";
    let o = run(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "foo = (bar + k);");
    assert_eq!(where_is(&o, "(bar"), ("test.p4".into(), 2, 7));
    assert_eq!(where_is(&o, "k)"), ("test.p4".into(), 2, 7));
    assert_eq!(where_is(&o, "bar"), ("test.p4".into(), 2, 9));
    assert_eq!(where_is(&o, ";"), ("test.p4".into(), 2, 13));
}

#[test]
fn lookup_past_end_is_clamped() {
    let o = run("ab\n").unwrap_or_else(|e| panic!("{e}"));
    let l = o.map.lookup(1000);
    assert_eq!((l.file, l.offset), (0, 3));
}

/// What a run gives, comparable: the text, segments, line starts and
/// warnings, or the error.
fn outcome(opts: &Options, bundled: &Mem, src: &str) -> String {
    match run_with(opts, bundled, src) {
        Ok(o) => format!(
            "{:?}\n{:?}\n{:?}\n{:?}",
            o.text, o.map.segs, o.map.line_starts, o.warnings
        ),
        Err(e) => format!("ERROR {e:?}"),
    }
}

/// A run whose files are lexed into whole simple lines gives what one
/// lexed token by token gives.
fn same_as_fine(opts: &Options, bundled: &Mem, src: &str) -> Result<(), String> {
    let coarse = outcome(opts, bundled, src);
    crate::lexer::FINE_ONLY.set(true);
    let fine = outcome(opts, bundled, src);
    crate::lexer::FINE_ONLY.set(false);
    if coarse == fine {
        Ok(())
    } else {
        Err(format!("{src:?}\ncoarse {coarse}\nfine   {fine}"))
    }
}

#[test]
fn simple_lines_expand_as_tokens_do() {
    let b = Mem(vec![(
        "y.p4",
        "#ifndef Y\n#define Y\nY_T y;\n  F(y,\n  z)\n#endif\n",
    )]);
    let mut opts = Options::default();
    opts.defines.push(("D".into(), Some("d + 1".into())));
    for src in [
        "a b;\nc d;\n",
        "#define F(x, y) <x|y>\nF(a,\n  b) c;\nd F\n(e, f);\nF\n\n(1, 2)\n",
        "#define F(x) [x]\nv F\n  (w) u;\n  F\n#define Q\n(q)\n",
        "#if 0\na b;\n#else\nc d;\n#endif\n  __LINE__ x;\nD;\n",
        "x = 1.e5 + .5e + a.b + 8w3;\n#define e E\n1.e + e;\n",
        "a;\r\nb;\r\n#define b B\r\nb;\r\n",
        "a\\\nb;\nc d;\n#define c C\nc \\\n d;\n",
        "#include <y.p4>\n#define F(a, b) a.b\n#include <y.p4>\nY_T\n",
        "p /* c\n q */ r;\ns t;\n#define s S\ns // t\ns t\n",
        "#line 7 \"n\"\na b;\n#define a __FILE__ __LINE__\na b;\nlast",
    ] {
        same_as_fine(&opts, &b, src).unwrap_or_else(|e| panic!("{e}"));
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z_][a-z0-9_]{0,6}".prop_map(|s| s),
            "[0-9]{1,4}".prop_map(|s| s),
            prop::sample::select(vec![
                "+", "-", "(", ")", "{", "}", ";", "<", ">", "&&&", ".", ","
            ])
            .prop_map(str::to_owned),
            prop::sample::select(vec![" ", "  ", "\t", "\n", "\n\n"]).prop_map(str::to_owned),
        ]
    }

    proptest! {
        #[test]
        fn macro_free_text_is_identity(pieces in prop::collection::vec(piece(), 0..60)) {
            let src: String = pieces.concat();
            let o = run(&src).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&o.text, &src);
            for i in 0..src.len() {
                prop_assert_eq!(o.map.lookup(i).offset, i);
            }
        }

        #[test]
        fn never_panics_on_arbitrary_input(src in "[#a-z()\"/*\\\\ ,\n\r0-9<>!=&|é.]{0,80}") {
            let _ = run(&src);
        }

        #[test]
        fn never_panics_on_directive_soup(pieces in prop::collection::vec(prop::sample::select(vec![
            "#define X \"\u{e9}\n", "#define F(a, ...) a ## __VA_ARGS__ #a\n", "#define G(x) F(x, x) G\n",
            "#include X\n", "#include <y.p4>\n", "#if X\n", "#elif F(1)\n", "#else\n", "#endif\n",
            "#line 0 \"q\"\n", "#undef X\n", "F(", "G(", ")", ",", "X", "__LINE__", "\n", "/*", "*/",
            "\\\n", "#pragma once\n", "#if defined(\n", "\"s\"",
        ]), 0..40)) {
            let b = Mem(vec![("y.p4", "#include <y.p4>\nF(y)\n")]);
            let _ = run_with(&Options::default(), &b, &pieces.concat());
        }

        #[test]
        fn simple_lines_change_nothing(pieces in prop::collection::vec(prop::sample::select(vec![
            "#define X x\n", "#define F(a, ...) a ## __VA_ARGS__ #a\n", "#define G(x) F(x, x) G\n",
            "#include <y.p4>\n", "#if X\n", "#elif F(1)\n", "#else\n", "#endif\n",
            "#line 9 \"q\"\n", "#undef X\n", "F(", "G(", ")", ",", "X", "__LINE__", "\n", "/*", "*/",
            "\\\n", "\"s\"", "a b;\n", "  c(d);\n", "\te.f = 1;\n", " \n", "F\n", "(\n", "1.e\n",
            "X;\r\n", "y\n", "\u{e9}\n", "w ", "#define y Y\n", "#undef y\n",
        ]), 0..40)) {
            let b = Mem(vec![("y.p4", "#include <y.p4>\nF(y)\na b;\nX\n")]);
            let src = pieces.concat();
            same_as_fine(&Options::default(), &b, &src).map_err(TestCaseError::fail)?;
        }

        #[test]
        fn expanded_output_maps_into_the_file(n in 1usize..30) {
            let mut src = String::from("#define M(x) <x>\n");
            for i in 0..n {
                src.push_str(&format!("M(v{i}) w{i}\n"));
            }
            let o = run(&src).map_err(|e| TestCaseError::fail(e.to_string()))?;
            for i in 0..n {
                let (_, line, col) = where_is(&o, &format!("w{i}\n"));
                prop_assert_eq!((line, col), (u32::try_from(i).unwrap_or(0) + 2, 7 + u32::from(i >= 10)));
            }
        }
    }
}

#[test]
fn non_idiomatic_guard_on_an_open_file_is_not_a_cycle() {
    // `after` follows the #endif, so the guard idiom is not detected; the guard still stops
    // the recursion on re-entry.
    let b = Mem(vec![
        (
            "a.p4",
            "#ifndef A\n#define A\n#include <b.p4>\na\n#endif\nafter_a\n",
        ),
        ("b.p4", "#include <a.p4>\nb\n"),
    ]);
    let o =
        run_with(&Options::default(), &b, "#include <a.p4>\n").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(norm(&o.text), "after_a b a after_a");
}

// ----- global budgets -----

/// The message and location of a limit error, or a panic.
fn limit(r: Result<Output, PpError>) -> (String, String) {
    match r {
        Err(PpError::Limit { loc, message }) => (loc.to_string(), message),
        Err(e) => panic!("expected a limit error, got {e}"),
        Ok(o) => panic!("expected a limit error, got {} bytes", o.text.len()),
    }
}

/// A doubling macro chain: `A{n}` expands to 2^n copies of `x`.
fn doubling_chain(n: usize) -> String {
    let mut s = String::from("#define A0 x\n");
    for i in 1..=n {
        s.push_str(&format!("#define A{i} A{} A{}\n", i - 1, i - 1));
    }
    s
}

#[test]
fn macro_budget_is_global_not_per_line() {
    // each line costs about 2^13 tokens, far below the budget; 64 lines together exceed it
    let mut src = doubling_chain(12);
    src.push_str(&"A12\n".repeat(64));
    let opts = Options {
        limits: crate::Limits {
            max_macro_tokens: 100_000,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let (loc, message) = limit(run_with(&opts, &Mem(vec![]), &src));
    // per line: 4095 expansions of A1..A12 at 2 + 1 tokens and 4096 of A0 at 1 + 1, so
    // 20,477 tokens; the 5th use (line 18, after 13 #define lines) crosses 100,000
    assert_eq!(loc, "test.p4:18:1");
    assert!(message.contains("100000 tokens"), "{message}");
    assert!(message.contains("max-macro-output"), "{message}");
    // the same lines fit a budget large enough for all of them
    let mut ok = doubling_chain(12);
    ok.push_str(&"A12\n".repeat(2));
    let o = run_with(&opts, &Mem(vec![]), &ok).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text.matches('x').count(), 2 * 4096);
}

#[test]
fn macro_bomb_over_many_lines_stops_quickly() {
    let mut src = doubling_chain(21);
    src.push_str(&"A19\n".repeat(400));
    let t = cpu_time::ThreadTime::now(); // not stretched by a loaded machine
    let (loc, message) = limit(run(&src));
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    // one A19 line costs (2^19 - 1) * 3 + 2^19 * 2, about 2.6M tokens: the default 4M
    // budget ends in the second such line (line 24, after 22 #define lines)
    assert_eq!(loc, "test.p4:24:1");
    assert!(message.contains("max-macro-output"), "{message}");
}

#[test]
fn one_substitution_cannot_multiply_an_argument_past_the_budget() {
    // the body repeats its argument 64 times; the argument is 64 tokens: 4096 tokens built
    // by one substitution, before any per-expansion accounting
    let params = "x ".repeat(64);
    let arg = "a ".repeat(64);
    let src = format!("#define M(x) {params}\nM({arg})\n");
    let opts = Options {
        limits: crate::Limits {
            max_macro_tokens: 1000,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let (loc, message) = limit(run_with(&opts, &Mem(vec![]), &src));
    assert_eq!(loc, "test.p4:2:1");
    assert!(message.contains("1000 tokens"), "{message}");
}

#[test]
fn include_bomb_stops_at_the_include_budget() {
    let d = TempDir::new("bomb");
    for i in 0..18 {
        d.write(
            &format!("f{i}.p4"),
            &format!("#include \"f{}.p4\"\n#include \"f{}.p4\"\n", i + 1, i + 1),
        );
    }
    d.write("f18.p4", "const bit<8> X = 1;\n");
    let opts = Options::default();
    let t = cpu_time::ThreadTime::now(); // not stretched by a loaded machine
    let r = Preprocessor::new(&opts, &Mem(vec![])).run_file(&d.path("f0.p4"));
    let (loc, message) = limit(r);
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    assert!(loc.ends_with(":1:1") || loc.ends_with(":2:1"), "{loc}");
    assert!(
        message.contains("10000 files entered by #include"),
        "{message}"
    );
    assert!(message.contains("max-includes"), "{message}");
}

#[test]
fn guarded_reincludes_are_free() {
    // 50,000 includes of one guarded file: only the first enters it, so a budget of 1 holds
    let d = TempDir::new("guarded");
    d.write(
        "g.p4",
        "#ifndef G_H\n#define G_H\nconst bit<8> G = 1;\n#endif\n",
    );
    d.write("main.p4", &"#include \"g.p4\"\n".repeat(50_000));
    let opts = Options {
        limits: crate::Limits {
            max_includes: 1,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let t = cpu_time::ThreadTime::now(); // not stretched by a loaded machine
    let o = Preprocessor::new(&opts, &Mem(vec![]))
        .run_file(&d.path("main.p4"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(t.elapsed().as_secs() < 5, "{:?}", t.elapsed());
    assert_eq!(o.text.matches("const bit<8> G = 1;").count(), 1);
    // an unguarded file is entered each time and counted
    d.write("u.p4", "const bit<8> U = 1;\n");
    d.write("two.p4", "#include \"u.p4\"\n#include \"u.p4\"\n");
    let (loc, message) = limit(Preprocessor::new(&opts, &Mem(vec![])).run_file(&d.path("two.p4")));
    assert!(loc.ends_with("two.p4:2:1"), "{loc}");
    assert!(message.contains("more than 1 files"), "{message}");
}

#[test]
fn include_depth_is_a_limit() {
    let d = TempDir::new("deep");
    for i in 0..10 {
        d.write(
            &format!("d{i}.p4"),
            &format!("#include \"d{}.p4\"\n", i + 1),
        );
    }
    d.write("d10.p4", "\n");
    let opts = Options {
        limits: crate::Limits {
            max_include_depth: 5,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let (loc, message) = limit(Preprocessor::new(&opts, &Mem(vec![])).run_file(&d.path("d0.p4")));
    assert!(loc.ends_with("d4.p4:1:1"), "{loc}");
    assert!(message.contains("more than 5 deep"), "{message}");
}

#[test]
fn files_larger_than_the_budget_are_not_read() {
    let d = TempDir::new("big");
    d.write("big.p4", &"x".repeat(2000));
    d.write("main.p4", "#include \"big.p4\"\n");
    let opts = Options {
        limits: crate::Limits {
            max_file_bytes: 1000,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let (loc, message) = limit(Preprocessor::new(&opts, &Mem(vec![])).run_file(&d.path("main.p4")));
    assert!(loc.ends_with("main.p4:1:1"), "{loc}");
    assert!(message.contains("larger than 1000 bytes"), "{message}");
    assert!(message.contains("max-input-bytes"), "{message}");
    let (_, message) = limit(Preprocessor::new(&opts, &Mem(vec![])).run_file(&d.path("big.p4")));
    assert!(message.contains("larger than 1000 bytes"), "{message}");
}

#[test]
fn output_and_entered_bytes_are_limits() {
    // long tokens made by a macro: few tokens, many bytes
    let long = "y".repeat(10_000);
    let src = format!("#define L {long}\n{}", "L L L L L L L L L L\n".repeat(10));
    let opts = Options {
        limits: crate::Limits {
            max_total_bytes: 500_000,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let (_, message) = limit(run_with(&opts, &Mem(vec![]), &src));
    assert!(
        message.contains("preprocessed text is larger than 500000 bytes"),
        "{message}"
    );
    // an unguarded file entered again and again: its bytes add up even when it emits nothing
    let d = TempDir::new("entered");
    d.write("e.p4", &format!("#if 0\n{long}\n#endif\n"));
    d.write("main.p4", &"#include \"e.p4\"\n".repeat(60));
    let (loc, message) = limit(Preprocessor::new(&opts, &Mem(vec![])).run_file(&d.path("main.p4")));
    assert!(loc.ends_with("e.p4:1:1"), "{loc}");
    assert!(
        message.contains("total more than 500000 bytes"),
        "{message}"
    );
}

#[test]
fn plain_lines_keep_strings_and_blank_comments_in_one_run() {
    // Lines without macros are copied whole: comments between tokens blanked, a
    // `//` inside a string kept, every byte mapped to its own offset.
    let src = "a \"x//y\" /* c */ b; // tail\nc/**/d\n";
    let o = run(src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(o.text, "a \"x//y\"         b;        \nc    d\n");
    assert_eq!(o.map.segment_count(), 1);
    for i in 0..o.text.len() {
        assert_eq!(o.map.lookup(i).offset, i, "byte {i}");
    }
}

#[test]
fn output_limit_is_reported_at_the_token_that_passes_it() {
    // A plain line copied whole: the limit still falls on the token that passes
    // it (line 4's `bbbb`: 50 bytes out before it, 55 after; 51 bytes in).
    let opts = Options {
        limits: crate::Limits {
            max_total_bytes: 52,
            ..crate::Limits::default()
        },
        ..Options::default()
    };
    let src = "#define A yyyyyyyyyy\n#define B A A A A\nB\naaaa bbbb\n";
    let (loc, message) = limit(run_with(&opts, &Mem(vec![]), src));
    assert!(loc.ends_with("test.p4:4:6"), "{loc}");
    assert!(message.contains("larger than 52 bytes"), "{message}");
}
