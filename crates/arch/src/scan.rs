//! Test-only scanners over the bundled files: comment stripping, bracket
//! balance, `#include` targets and a tiny header-width calculator that
//! understands `bit<N> name;` fields, `#define NAME N` and
//! `typedef bit<N> Name;`. Not a P4 parser; just enough to check facts.

use std::collections::HashMap;

use crate::{lookup, FILES};

/// The text with comments blanked out (string literals are kept and
/// their contents are not mistaken for comments).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                    }
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
                out.push(' ');
            }
            '"' => {
                out.push('"');
                let mut escaped = false;
                for n in chars.by_ref() {
                    out.push(n);
                    if n == '"' && !escaped {
                        break;
                    }
                    escaped = n == '\\' && !escaped;
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Text without comments and without string literal contents.
fn code_only(text: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    for c in strip_comments(text).chars() {
        if c == '"' {
            in_string = !in_string;
            out.push('"');
        } else if !in_string {
            out.push(c);
        }
    }
    out
}

/// Checks that (), {} and [] nest properly; returns a description of the
/// first problem found.
fn check_balance(text: &str) -> Result<(), String> {
    let mut stack = Vec::new();
    for (line_no, line) in code_only(text).lines().enumerate() {
        for c in line.chars() {
            match c {
                '(' | '{' | '[' => stack.push((c, line_no + 1)),
                ')' | '}' | ']' => {
                    let want = match c {
                        ')' => '(',
                        '}' => '{',
                        _ => '[',
                    };
                    match stack.pop() {
                        Some((open, _)) if open == want => {}
                        other => return Err(format!("line {}: {c} closes {other:?}", line_no + 1)),
                    }
                }
                _ => {}
            }
        }
    }
    match stack.last() {
        None => Ok(()),
        Some((c, line)) => Err(format!("{c} opened on line {line} is never closed")),
    }
}

/// Preprocessor directive lines: (directive, rest), comments removed.
fn directives(text: &str) -> Vec<(String, String)> {
    strip_comments(text)
        .lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .map(|l| {
            let l = l.trim();
            let (d, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (d.to_string(), rest.trim().to_string())
        })
        .collect()
}

/// Names named by `#include <x>` or `#include "x"`.
fn includes(text: &str) -> Vec<String> {
    directives(text)
        .into_iter()
        .filter(|(d, _)| d == "include")
        .map(|(_, r)| {
            r.trim_matches(|c| c == '<' || c == '>' || c == '"')
                .to_string()
        })
        .collect()
}

/// The names a width expression may use: object-like `#define`s with an
/// integer value and `typedef bit<..> Name;` declarations.
#[derive(Default)]
struct Widths {
    macros: HashMap<String, u32>,
    types: HashMap<String, u32>,
}

impl Widths {
    /// Collects definitions from the given bundled files, in order.
    fn from_files(names: &[&str]) -> Widths {
        let mut w = Widths::default();
        for name in names {
            let text = lookup(name).unwrap_or_default();
            for (d, rest) in directives(text) {
                if d != "define" {
                    continue;
                }
                let mut parts = rest.split_whitespace();
                if let (Some(n), Some(v)) = (parts.next(), parts.next()) {
                    if let Ok(v) = v.parse() {
                        w.macros.insert(n.to_string(), v);
                    }
                }
            }
            for stmt in code_only(text).split(';') {
                let stmt = strip_annotations(stmt);
                let toks: Vec<&str> = stmt.split_whitespace().collect();
                if let [.., "typedef", ty, name] = toks.as_slice() {
                    if let Some(bits) = w.width_of(ty) {
                        w.types.insert(name.to_string(), bits);
                    }
                }
            }
        }
        w
    }

    /// Width of `bit<N>`, `bit<MACRO>` or a known typedef name.
    fn width_of(&self, ty: &str) -> Option<u32> {
        if let Some(inner) = ty.strip_prefix("bit<").and_then(|t| t.strip_suffix('>')) {
            return inner
                .parse()
                .ok()
                .or_else(|| self.macros.get(inner).copied());
        }
        self.types.get(ty).copied()
    }
}

/// Removes `@name` and `@name(...)` annotations from a statement.
fn strip_annotations(stmt: &str) -> String {
    let mut out = String::new();
    let mut chars = stmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '@' {
            out.push(c);
            continue;
        }
        while chars
            .peek()
            .is_some_and(|n| n.is_alphanumeric() || *n == '_')
        {
            chars.next();
        }
        if chars.peek() == Some(&'(') {
            let mut depth = 0;
            for n in chars.by_ref() {
                match n {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        out.push(' ');
    }
    out
}

/// Fields of `header NAME { ... }` or `struct NAME { ... }` in `text`:
/// (field name, width if known). Preprocessor lines inside are skipped.
fn fields(text: &str, kind: &str, name: &str, w: &Widths) -> Option<Vec<(String, Option<u32>)>> {
    let code = code_only(text);
    let opener = format!("{kind} {name} {{");
    let start = code.find(&opener)? + opener.len();
    let end = start + code.get(start..)?.find('}')?;
    let body: String = code
        .get(start..end)?
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = Vec::new();
    for stmt in body.split(';') {
        let stmt = strip_annotations(stmt);
        let toks: Vec<&str> = stmt.split_whitespace().collect();
        if let [ty, field] = toks.as_slice() {
            out.push((field.to_string(), w.width_of(ty)));
        } else if !toks.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// Total width of a header or struct whose fields are all known.
fn total(text: &str, kind: &str, name: &str, w: &Widths) -> Option<u32> {
    fields(text, kind, name, w)?
        .into_iter()
        .map(|(_, bits)| bits)
        .sum()
}

/// Names of all `header` declarations in a file.
fn header_names(text: &str) -> Vec<String> {
    let code = code_only(text);
    let toks: Vec<&str> = code.split_whitespace().collect();
    toks.windows(3)
        .filter(|t| t[0] == "header" && t[2] == "{")
        .map(|t| t[1].to_string())
        .collect()
}

fn text(name: &str) -> &'static str {
    lookup(name).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the scanners themselves ------------------------------------------

    #[test]
    fn balance_checker_rejects_bad_nesting() {
        assert!(check_balance("a(b{c}[d])").is_ok());
        assert!(check_balance("a(b{c)}").is_err());
        assert!(check_balance("a(").is_err());
        assert!(check_balance("a) // (").is_err());
        assert!(check_balance("x /* ( */ y \"(\"").is_ok());
    }

    #[test]
    fn width_scanner_reads_macros_typedefs_and_annotations() {
        let text = "#define W 9\n header h { bit<3> a; @padding bit<W> b; @x(\"y;\") T c; }";
        let mut w = Widths::default();
        w.macros.insert("W".into(), 9);
        w.types.insert("T".into(), 4);
        assert_eq!(total(text, "header", "h", &w), Some(16));
        w.types.clear();
        assert_eq!(total(text, "header", "h", &w), None);
    }

    // ---- every file ---------------------------------------------------------

    #[test]
    fn files_are_non_empty_and_balanced() {
        for (name, text) in FILES {
            assert!(!code_only(text).trim().is_empty(), "{name} is empty");
            if let Err(e) = check_balance(text) {
                panic!("{name}: {e}");
            }
        }
    }

    #[test]
    fn includes_name_bundled_files() {
        for (name, text) in FILES {
            for inc in includes(text) {
                assert!(lookup(&inc).is_some(), "{name} includes unknown {inc}");
                assert_ne!(inc, *name, "{name} includes itself");
            }
        }
    }

    #[test]
    fn conditionals_nest_and_guards_are_unique() {
        let mut guards = Vec::new();
        for (name, text) in FILES {
            let ds = directives(text);
            let mut depth = 0i32;
            for (d, _) in &ds {
                match d.as_str() {
                    "if" | "ifdef" | "ifndef" => depth += 1,
                    "endif" => depth -= 1,
                    "elif" | "else" => assert!(depth > 0, "{name}: stray #{d}"),
                    _ => {}
                }
                assert!(depth >= 0, "{name}: #endif without #if");
            }
            assert_eq!(depth, 0, "{name}: unclosed conditional");
            // A flavour that only includes its base file (`bmv2/psa.p4`)
            // is guarded by that file's guard.
            let base = name.rsplit('/').next().unwrap_or(name);
            if base != *name && ds.iter().all(|(d, _)| d == "include") {
                assert_eq!(includes(text), [base], "{name}");
                continue;
            }
            // Guard: #ifndef G / #define G first, #endif last.
            let (first, second, last) = (&ds[0], &ds[1], &ds[ds.len() - 1]);
            assert_eq!(first.0, "ifndef", "{name}");
            assert_eq!(second, &("define".to_string(), first.1.clone()), "{name}");
            assert_eq!(last.0, "endif", "{name}");
            // Target flavours of one file (`psa.p4`, `bmv2/psa.p4`) share its guard, as in
            // p4c: a program includes one of them.
            let other = guards.iter().find(|(g, _)| g == &first.1);
            assert!(
                other.is_none_or(|(_, b)| b == &base),
                "{name}: guard reused"
            );
            guards.push((first.1.clone(), base));
        }
    }

    /// Every include chain ends, and every Tofino entry point reaches core.p4.
    #[test]
    fn include_graph_is_acyclic_and_reaches_core() {
        fn reach(name: &str, path: &mut Vec<String>, seen: &mut Vec<String>) {
            assert!(
                !path.iter().any(|p| p == name),
                "cycle through {name}: {path:?}"
            );
            if seen.iter().any(|s| s == name) {
                return;
            }
            seen.push(name.to_string());
            path.push(name.to_string());
            for inc in includes(text(name)) {
                reach(&inc, path, seen);
            }
            path.pop();
        }
        for (name, _) in FILES {
            let mut seen = Vec::new();
            reach(name, &mut Vec::new(), &mut seen);
            if *name != "core.p4" {
                assert!(seen.iter().any(|s| s == "core.p4"), "{name} misses core.p4");
            }
        }
    }

    // ---- core.p4 ------------------------------------------------------------

    #[test]
    fn core_declares_the_builtins() {
        let code = code_only(text("core.p4"));
        let squeezed: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(squeezed.contains(
            "error { NoError, PacketTooShort, NoMatch, StackOutOfBounds, HeaderTooShort, \
             ParserTimeout, ParserInvalidArgument }"
        ));
        assert!(squeezed.contains("match_kind { exact, ternary, lpm }"));
        for needle in [
            "extern packet_in {",
            "void extract<T>(out T hdr);",
            "void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);",
            "T lookahead<T>();",
            "void advance(in bit<32> sizeInBits);",
            "bit<32> length();",
            "extern packet_out {",
            "void emit<T>(in T hdr);",
            "extern void verify(in bool check, in error toSignal);",
            "action NoAction() {}",
            "extern bool static_assert(bool check, string message);",
            "extern bool static_assert(bool check);",
        ] {
            assert!(squeezed.contains(needle), "core.p4 lacks {needle}");
        }
    }

    // ---- Tofino -------------------------------------------------------------

    const T1: &[&str] = &["tofino1_specs.p4", "tofino1_base.p4"];
    const T2: &[&str] = &["tofino2_specs.p4", "tofino2_base.p4"];

    #[test]
    fn tofino_type_widths() {
        let t1 = Widths::from_files(T1);
        let t2 = Widths::from_files(T2);
        for (ty, w1, w2) in [
            ("PortId_t", 9, 9),
            ("MulticastGroupId_t", 16, 16),
            ("QueueId_t", 5, 7),
            ("MirrorType_t", 3, 4),
            ("MirrorId_t", 10, 8),
            ("ResubmitType_t", 3, 3),
            ("DigestType_t", 3, 3),
            ("ReplicationId_t", 16, 16),
            ("L1ExclusionId_t", 16, 16),
            ("L2ExclusionId_t", 9, 9),
        ] {
            assert_eq!(t1.types.get(ty), Some(&w1), "Tofino 1 {ty}");
            assert_eq!(t2.types.get(ty), Some(&w2), "Tofino 2 {ty}");
        }
        assert_eq!(t2.types.get("CloneId_t"), Some(&4));
    }

    #[test]
    fn port_metadata_size() {
        let find = |name: &str| {
            code_only(text(name))
                .lines()
                .find(|l| l.contains("PORT_METADATA_SIZE ="))
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        };
        assert!(find("tofino1_specs.p4").is_some_and(|l| l.ends_with("= 32w64;")));
        assert!(find("tofino2_specs.p4").is_some_and(|l| l.ends_with("= 32w192;")));
    }

    #[test]
    fn tna_ingress_intrinsic_metadata_is_64_bits_in_order() {
        let w = Widths::from_files(T1);
        let got = fields(
            text("tofino1_base.p4"),
            "header",
            "ingress_intrinsic_metadata_t",
            &w,
        );
        let want = [
            ("resubmit_flag", 1),
            ("_pad1", 1),
            ("packet_version", 2),
            ("_pad2", 3),
            ("ingress_port", 9),
            ("ingress_mac_tstamp", 48),
        ];
        let want: Vec<(String, Option<u32>)> = want
            .iter()
            .map(|(n, b)| (n.to_string(), Some(*b)))
            .collect();
        assert_eq!(got, Some(want));
        assert_eq!(
            total(
                text("tofino1_base.p4"),
                "header",
                "ingress_intrinsic_metadata_t",
                &w
            ),
            Some(64)
        );
        let w2 = Widths::from_files(T2);
        assert_eq!(
            total(
                text("tofino2_base.p4"),
                "header",
                "ingress_intrinsic_metadata_t",
                &w2
            ),
            Some(64)
        );
    }

    #[test]
    fn egress_intrinsic_metadata_sizes() {
        // Tofino 1: 27 bytes; Tofino 2: 28 bytes (padded to 4-byte multiple).
        let w1 = Widths::from_files(T1);
        assert_eq!(
            total(
                text("tofino1_base.p4"),
                "header",
                "egress_intrinsic_metadata_t",
                &w1
            ),
            Some(216)
        );
        let w2 = Widths::from_files(T2);
        assert_eq!(
            total(
                text("tofino2_base.p4"),
                "header",
                "egress_intrinsic_metadata_t",
                &w2
            ),
            Some(224)
        );
        // tna.p4 compiled for Tofino 2 pairs tofino1_base with Tofino 2 widths.
        let mixed = Widths::from_files(&["tofino2_specs.p4", "tofino1_base.p4"]);
        assert_eq!(
            total(
                text("tofino1_base.p4"),
                "header",
                "egress_intrinsic_metadata_t",
                &mixed
            ),
            Some(216)
        );
    }

    #[test]
    fn every_tofino_header_is_whole_bytes() {
        for (files, base) in [(T1, "tofino1_base.p4"), (T2, "tofino2_base.p4")] {
            let w = Widths::from_files(files);
            let names = header_names(text(base));
            assert!(names.len() >= 6, "{base}: {names:?}");
            for h in names {
                let bits = total(text(base), "header", &h, &w);
                assert!(
                    bits.is_some_and(|b| b > 0 && b % 8 == 0),
                    "{base} {h}: {bits:?}"
                );
            }
        }
        let w2 = Widths::from_files(T2);
        let t2 = text("tofino2_base.p4");
        assert_eq!(
            total(t2, "header", "ghost_intrinsic_metadata_t", &w2),
            Some(32)
        );
        assert_eq!(total(t2, "header", "pktgen_pfc_header_t", &w2), Some(48));
        assert_eq!(total(t2, "header", "ptp_metadata_t", &w2), Some(64));
    }

    #[test]
    fn intrinsic_struct_widths() {
        let w1 = Widths::from_files(T1);
        let t1 = text("tofino1_base.p4");
        // 9+1+1+3+5+3+1+2+1+1+16+16+13+13+16+9+16
        assert_eq!(
            total(t1, "struct", "ingress_intrinsic_metadata_for_tm_t", &w1),
            Some(126)
        );
        assert_eq!(
            total(
                t1,
                "struct",
                "ingress_intrinsic_metadata_from_parser_t",
                &w1
            ),
            Some(96)
        );
        assert_eq!(
            total(
                t1,
                "struct",
                "ingress_intrinsic_metadata_for_deparser_t",
                &w1
            ),
            Some(12)
        );
        assert_eq!(
            total(
                t1,
                "struct",
                "egress_intrinsic_metadata_for_deparser_t",
                &w1
            ),
            Some(14)
        );
        assert_eq!(
            total(
                t1,
                "struct",
                "egress_intrinsic_metadata_for_output_port_t",
                &w1
            ),
            Some(2)
        );
        let w2 = Widths::from_files(T2);
        let t2 = text("tofino2_base.p4");
        // 3+3+3+4 + 1+13+3+1+1+9+7+8+32+14+1 + 1+14+10
        assert_eq!(
            total(
                t2,
                "struct",
                "ingress_intrinsic_metadata_for_deparser_t",
                &w2
            ),
            Some(128)
        );
    }

    fn declares(file: &str, what: &str) -> bool {
        let code = code_only(text(file));
        let squeezed = code.split_whitespace().collect::<Vec<_>>().join(" ");
        squeezed.contains(what)
    }

    #[test]
    fn tofino_externs_and_enums() {
        let common = [
            "Checksum",
            "ParserCounter",
            "ParserPriority",
            "CRCPolynomial<T>",
            "Hash<W>",
            "Random<W>",
            "Counter<W, I>",
            "DirectCounter<W>",
            "Meter<I>",
            "DirectMeter",
            "Lpf<T, I>",
            "DirectLpf<T>",
            "Wred<T, I>",
            "DirectWred<T>",
            "Register<T, I>",
            "DirectRegister<T>",
            "RegisterParam<T>",
            "DirectRegisterAction<T, U>",
            "MathUnit<T>",
            "ActionProfile",
            "ActionSelector",
            "SelectorAction",
            "Mirror",
            "Resubmit",
            "Digest<T>",
            "Atcam",
            "Alpm",
        ];
        for file in ["tofino1_base.p4", "tofino2_base.p4"] {
            for e in common {
                assert!(
                    declares(file, &format!("extern {e} {{")),
                    "{file}: extern {e}"
                );
            }
            for f in [
                "extern T port_metadata_unpack<T>(packet_in pkt);",
                "extern bit<32> sizeInBits<H>(in H h);",
                "extern bit<32> sizeInBytes<H>(in H h);",
                "extern void invalidate<T>(in T field);",
                "extern bool is_validated<T>(in T field);",
                "extern T max<T>(in T t1, in T t2);",
                "extern T min<T>(in T t1, in T t2);",
                "enum MeterType_t",
                "enum bit<8> MeterColor_t { GREEN = 8w0, YELLOW = 8w1, RED = 8w3 }",
                "enum CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }",
                "enum SelectorMode_t { FAIR, RESILIENT }",
                "enum HashAlgorithm_t",
                "enum MathOp_t",
            ] {
                assert!(declares(file, f), "{file}: {f}");
            }
        }
        assert!(declares(
            "tofino1_base.p4",
            "extern RegisterAction<T, I, U> {"
        ));
        assert!(declares(
            "tofino2_base.p4",
            "extern RegisterAction<T, H, U> {"
        ));
        assert!(declares("tofino2_base.p4", "extern Pktgen {"));
        assert!(declares("tofino2_base.p4", "dleft_hash,"));
        assert!(!declares("tofino1_base.p4", "dleft_hash"));
        for n in 2..=4 {
            for fam in [
                "RegisterAction",
                "DirectRegisterAction",
                "LearnAction",
                "MinMaxAction",
            ] {
                assert!(
                    declares("tofino2_base.p4", &format!("extern {fam}{n}<")),
                    "{fam}{n}"
                );
            }
        }
    }

    #[test]
    fn tofino_packages() {
        for file in ["tofino1_arch.p4", "tofino2_arch.p4"] {
            for d in [
                "parser IngressParserT<H, M>(",
                "control IngressT<H, M>(",
                "control IngressDeparserT<H, M>(",
                "parser EgressParserT<H, M>(",
                "control EgressT<H, M>(",
                "control EgressDeparserT<H, M>(",
                "package Pipeline<IH, IM, EH, EM>(",
                "package Switch<IH0, IM0, EH0, EM0, IH1, IM1, EH1, EM1, IH2, IM2, EH2, EM2, \
                 IH3, IM3, EH3, EM3>( Pipeline<IH0, IM0, EH0, EM0> pipe0, \
                 @optional Pipeline<IH1, IM1, EH1, EM1> pipe1,",
            ] {
                assert!(declares(file, d), "{file}: {d}");
            }
        }
        assert!(declares("tofino1_arch.p4", "package MultiParserSwitch<"));
        assert!(declares(
            "tofino1_arch.p4",
            "@optional IngressParserT<H, M> prsr17);"
        ));
        assert!(declares(
            "tofino2_arch.p4",
            "control GhostT(in ghost_intrinsic_metadata_t gh_intr_md);"
        ));
        assert!(declares("tofino2_arch.p4", "@optional GhostT ghost);"));
    }

    #[test]
    fn tna_selects_specs_by_target() {
        let ds = directives(text("tna.p4"));
        let pos = |d: &str, r: &str| ds.iter().position(|(a, b)| a == d && b == r);
        let if2 = pos("if", "__TARGET_TOFINO__ == 2");
        let t2 = pos("include", "<tofino2_specs.p4>");
        let els = pos("else", "");
        let t1 = pos("include", "<tofino1_specs.p4>");
        assert!(if2 < t2 && t2 < els && els < t1, "{ds:?}");
        assert!(if2.is_some() && t1.is_some());
        assert_eq!(
            includes(text("t2na.p4")),
            ["tofino2_specs.p4", "tofino2_arch.p4"]
        );
    }

    // ---- v1model, psa, pna ----------------------------------------------------

    #[test]
    fn v1model_standard_metadata() {
        let w = Widths::default();
        let got = fields(text("v1model.p4"), "struct", "standard_metadata_t", &w);
        let got = got.unwrap_or_default();
        let width = |n: &str| got.iter().rev().find(|(f, _)| f == n).and_then(|(_, b)| *b);
        for (n, b) in [
            ("ingress_port", 9),
            ("egress_spec", 9),
            ("egress_port", 9),
            ("instance_type", 32),
            ("packet_length", 32),
            ("enq_timestamp", 32),
            ("enq_qdepth", 19),
            ("deq_timedelta", 32),
            ("deq_qdepth", 19),
            ("ingress_global_timestamp", 48),
            ("egress_global_timestamp", 48),
            ("mcast_grp", 16),
            ("egress_rid", 16),
            ("checksum_error", 1),
            ("priority", 3),
        ] {
            assert_eq!(width(n), Some(b), "standard_metadata_t.{n}");
        }
        assert!(got.iter().any(|(f, b)| f == "parser_error" && b.is_none()));
    }

    #[test]
    fn v1model_externs_and_package() {
        for d in [
            "match_kind { range, optional, selector }",
            "enum HashAlgorithm { crc32, crc32_custom, crc16, crc16_custom, random, identity, csum16, xor16 }",
            "enum CloneType { I2E, E2E }",
            "extern direct_counter {",
            "extern direct_meter<T> {",
            "extern action_profile {",
            "extern action_selector {",
            "extern void mark_to_drop();",
            "extern void mark_to_drop(inout standard_metadata_t standard_metadata);",
            "extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);",
            "extern void verify_checksum_with_payload<T, O>(",
            "extern void update_checksum_with_payload<T, O>(",
            "extern void resubmit_preserving_field_list(bit<8> index);",
            "extern void recirculate_preserving_field_list(bit<8> index);",
            "extern void clone(in CloneType type, in bit<32> session);",
            "extern void clone3<T>(",
            "extern void clone_preserving_field_list(",
            "extern void truncate(in bit<32> length);",
            "extern void log_msg<T>(string msg, in T data);",
            "package V1Switch<H, M>(Parser<H, M> p, VerifyChecksum<H, M> vr, Ingress<H, M> ig, \
             Egress<H, M> eg, ComputeChecksum<H, M> ck, Deparser<H> dep);",
        ] {
            assert!(declares("v1model.p4", d), "v1model.p4: {d}");
        }
    }

    #[test]
    fn psa_and_pna_packages() {
        for d in [
            "package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>(",
            "package IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM>(",
            "package EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM>(",
            "type PortIdUint_t PortId_t;",
            "extern InternetChecksum {",
        ] {
            assert!(declares("psa.p4", d), "psa.p4: {d}");
        }
        for d in [
            "package PNA_NIC<PH, PM, MH, MM>( MainParserT<MH, MM> main_parser, \
             PreControlT<PH, PM> pre_control, MainControlT<MH, MM> main_control, \
             MainDeparserT<MH, MM> main_deparser);",
            "parser MainParserT<MH, MM>(",
            "control MainControlT<MH, MM>(",
            "typedef bit<3> PassNumberUint_t;",
        ] {
            assert!(declares("pna.p4", d), "pna.p4: {d}");
        }
    }

    // ---- target flavours of PSA and PNA --------------------------------------

    #[test]
    fn bmv2_psa_is_plain_psa() {
        assert_eq!(includes(text("bmv2/psa.p4")), ["psa.p4"]);
        let w = Widths::from_files(&["bmv2/psa.p4", "psa.p4"]);
        for (ty, bits) in [
            ("PortIdUint_t", 32),
            ("MulticastGroupUint_t", 32),
            ("CloneSessionIdUint_t", 16),
            ("ClassOfServiceUint_t", 8),
            ("PacketLengthUint_t", 16),
            ("EgressInstanceUint_t", 16),
            ("TimestampUint_t", 64),
        ] {
            assert_eq!(w.types.get(ty), Some(&bits), "bmv2/psa.p4 {ty}");
        }
    }

    #[test]
    fn dpdk_flavours_keep_the_portable_widths() {
        for (dpdk, plain, n) in [("dpdk/psa.p4", "psa.p4", 14), ("dpdk/pna.p4", "pna.p4", 26)] {
            let d = Widths::from_files(&[dpdk]);
            let p = Widths::from_files(&[plain]);
            assert_eq!(d.types.len(), n, "{dpdk}: {:?}", d.types);
            assert_eq!(d.types, p.types, "{dpdk} vs {plain}");
            assert_eq!(includes(text(dpdk)), ["core.p4"], "{dpdk}");
        }
        let pna = Widths::from_files(&["dpdk/pna.p4"]);
        assert_eq!(pna.types.get("PassNumberUint_t"), Some(&3));
        assert_eq!(pna.types.get("PassNumberInHeaderUint_t"), Some(&8));
        assert_eq!(pna.types.get("MirrorSlotIdUint_t"), Some(&8));
        assert_eq!(pna.types.get("SecurityAssocIdUint_t"), Some(&32));
        let psa = Widths::from_files(&["dpdk/psa.p4"]);
        assert_eq!(psa.types.get("PortIdUint_t"), Some(&32));
        assert_eq!(psa.types.get("TimestampUint_t"), Some(&64));
    }

    #[test]
    fn dpdk_counters_and_meters_take_the_packet_length() {
        for (file, color) in [("dpdk/psa.p4", "PSA"), ("dpdk/pna.p4", "PNA")] {
            for d in [
                "void count(in S index);".to_string(),
                "void count(in S index, in bit<32> pkt_len);".to_string(),
                "void count();".to_string(),
                "void count(in bit<32> pkt_len);".to_string(),
                format!("{color}_MeterColor_t execute(in S index);"),
                format!(
                    "{color}_MeterColor_t dpdk_execute(in S index, in {color}_MeterColor_t color, \
                     in bit<32> pkt_len);"
                ),
                format!("{color}_MeterColor_t dpdk_execute(in S index, in bit<32> pkt_len);"),
                format!(
                    "{color}_MeterColor_t dpdk_execute(in {color}_MeterColor_t color, \
                     in bit<32> pkt_len);"
                ),
                format!("{color}_MeterColor_t dpdk_execute(in bit<32> pkt_len);"),
            ] {
                assert!(declares(file, &d), "{file}: {d}");
            }
            assert!(!declares(file, "@optional"), "{file} has @optional");
        }
        for plain in ["psa.p4", "pna.p4"] {
            assert!(!declares(plain, "dpdk_execute"), "{plain}");
        }
        assert!(declares("pna.p4", "@optional in bit<32> increment"));
        assert!(declares(
            "psa.p4",
            "package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>("
        ));
        assert!(declares(
            "dpdk/psa.p4",
            "package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>("
        ));
    }

    #[test]
    fn dpdk_pna_extras() {
        let f = "dpdk/pna.p4";
        for d in [
            "TOEPLITZ,",
            "enum ipsec_status { IPSEC_SUCCESS, IPSEC_ERROR }",
            "extern ipsec_accelerator {",
            "void set_sa_index<T>(in T sa_index);",
            "void set_ip_header_offset<T>(in T offset);",
            "bool from_ipsec(out ipsec_status status);",
            "package PNA_NIC<PH, PM, MH, MM>( MainParserT<MH, MM> main_parser, \
             PreControlT<PH, PM> pre_control, MainControlT<MH, MM> main_control, \
             MainDeparserT<MH, MM> main_deparser);",
            "extern T SelectByDirection<T>(",
        ] {
            assert!(declares(f, d), "{f}: {d}");
        }
        assert!(!declares("pna.p4", "ipsec_accelerator"));
        assert!(!declares("pna.p4", "TOEPLITZ"));
    }

    // ---- eBPF, XDP, uBPF ----------------------------------------------------

    #[test]
    fn ebpf_filter_model() {
        for d in [
            "extern CounterArray { CounterArray(bit<32> max_index, bool sparse); \
             void increment(in bit<32> index); void add(in bit<32> index, in bit<32> value); }",
            "extern array_table { array_table(bit<32> size); }",
            "extern hash_table { hash_table(bit<32> size); }",
            "parser parse<H>(packet_in packet, out H headers);",
            "control filter<H>(inout H headers, out bool accept);",
            "package ebpfFilter<H>(parse<H> prs, filter<H> filt);",
        ] {
            assert!(declares("ebpf_model.p4", d), "ebpf_model.p4: {d}");
        }
        assert_eq!(includes(text("ebpf_model.p4")), ["core.p4"]);
    }

    #[test]
    fn xdp_model() {
        let f = "xdp_model.p4";
        assert_eq!(includes(text(f)), ["core.p4", "ebpf_model.p4"]);
        let w = Widths::default();
        assert_eq!(total(text(f), "struct", "xdp_input", &w), Some(32));
        assert_eq!(
            fields(text(f), "struct", "xdp_output", &w),
            Some(vec![
                ("output_action".to_string(), None),
                ("output_port".to_string(), Some(32)),
            ])
        );
        for d in [
            "enum xdp_action { XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT }",
            "extern bit<16> csum_replace2(in bit<16> csum, in bit<16> old, in bit<16> new);",
            "extern bit<16> csum_replace4(in bit<16> csum, in bit<32> old, in bit<32> new);",
            "extern bit<16> ebpf_ipv4_checksum(in bit<4> version, in bit<4> ihl, \
             in bit<8> diffserv, in bit<16> totalLen, in bit<16> identification, \
             in bit<3> flags, in bit<13> fragOffset, in bit<8> ttl, in bit<8> protocol, \
             in bit<32> srcAddr, in bit<32> dstAddr);",
            "extern bit<32> BPF_KTIME_GET_NS();",
            "control xdp_switch<H>(inout H headers, in xdp_input imd, out xdp_output omd);",
            "control xdp_deparse<H>(in H headers, packet_out packet);",
            "package xdp<H>(xdp_parse<H> p, xdp_switch<H> s, xdp_deparse<H> d);",
        ] {
            assert!(declares(f, d), "{f}: {d}");
        }
    }

    #[test]
    fn ubpf_model() {
        let f = "ubpf_model.p4";
        let w = Widths::default();
        let got = fields(text(f), "struct", "standard_metadata", &w);
        let want: Vec<(String, Option<u32>)> = [
            ("input_port", Some(32)),
            ("packet_length", Some(32)),
            ("output_action", None),
            ("output_port", Some(32)),
            ("clone", None),
            ("clone_port", Some(32)),
        ]
        .iter()
        .map(|(n, b)| (n.to_string(), *b))
        .collect();
        assert_eq!(got, Some(want));
        let ds = directives(text(f));
        assert!(ds.contains(&("define".into(), "UBPF_MODEL_VERSION 20200515".into())));
        assert!(ds.contains(&("if".into(), "UBPF_MODEL_VERSION >= 20200515".into())));
        for d in [
            "enum ubpf_action { ABORT, DROP, PASS, REDIRECT }",
            "extern void mark_to_drop();",
            "extern void mark_to_pass();",
            "extern bit<48> ubpf_time_get_ns();",
            "extern void truncate(in bit<32> len);",
            "enum HashAlgorithm { lookup3 }",
            "extern void hash<D>(out bit<32> result, in HashAlgorithm algo, in D data);",
            "extern Register<T, S> { Register(bit<32> size); T read(in S index); \
             void write(in S index, in T value); }",
            "control pipeline<H, M>(inout H headers, inout M meta, inout standard_metadata std);",
            "control pipeline<H, M>(inout H headers, inout M meta);",
            "@deparser control deparser<H>(packet_out b, in H headers);",
            "package ubpf<H, M>(parse<H, M> prs, pipeline<H, M> p, deparser<H> dprs);",
        ] {
            assert!(declares(f, d), "{f}: {d}");
        }
    }
}
