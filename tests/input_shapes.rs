//! Legal input shapes that once exploded (issue 25, items 8 and 9),
//! generated here: each ends within a generous limit (the machine may be
//! loaded, the binary is a debug build) with its answer or a clear error.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{p4cost, scratch, Run};

const LIMIT: Duration = Duration::from_secs(20);

/// Runs `p4cost args...`, requiring it to end within [`LIMIT`].
fn timed(args: &[&str]) -> Run {
    let t = Instant::now();
    let r = p4cost(args);
    assert!(t.elapsed() < LIMIT, "{args:?} took {:?}", t.elapsed());
    r
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write");
    p.to_string_lossy().into_owned()
}

/// 26 lines of `struct S{i+1} { S{i} a; S{i} b; }` (749 bytes) took 20 s
/// to `parse`, doubling per line: sizes are memoised per type, and the
/// first type past the flattened-field budget is an error at its name.
#[test]
fn doubling_structs_end_at_the_flattened_field_budget() {
    let dir = scratch("doubling-structs");
    let mut src = String::from("struct S0 { bit<8> x; }\n");
    for i in 0..25 {
        src.push_str(&format!("struct S{} {{ S{i} a; S{i} b; }}\n", i + 1));
    }
    let f = write(&dir, "structs.p4", &src);
    let r = timed(&["predict", &f]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "structs.p4:22:8: struct `S21` flattens to 2097152 fields (nested structs and stack \
             elements counted one by one), more than p4cost's limit of 1048576"
        ),
        "{}",
        r.stderr
    );
}

/// Other shapes of the same class: a header union of unions, structs
/// nested in a header, arrays of billions of elements; each is the same
/// error, at once.
#[test]
fn unions_nested_structs_and_large_arrays_end_at_the_budget() {
    let dir = scratch("flat-shapes");
    let mut unions = String::from(
        "header a_t { bit<8> x; }\nheader b_t { bit<16> y; }\nheader_union U0 { a_t a; b_t b; }\n",
    );
    for i in 0..30 {
        unions.push_str(&format!("header_union U{} {{ U{i} a; U{i} b; }}\n", i + 1));
    }
    let mut in_header = String::from("struct S0 { bit<8> x; bit<8> y; }\n");
    for i in 0..40 {
        in_header.push_str(&format!("struct S{} {{ S{i} a; S{i} b; }}\n", i + 1));
    }
    in_header.push_str("header H { S40 s; }\n");
    let arrays = "struct S { bit<8>[100000000] a; }\n";
    for (name, text, want) in [
        (
            "unions.p4",
            unions.as_str(),
            "unions.p4:23:14: header union `U20` flattens to 2097152 fields",
        ),
        (
            "in_header.p4",
            in_header.as_str(),
            "in_header.p4:21:8: struct `S20` flattens to 2097152 fields",
        ),
        (
            "arrays.p4",
            arrays,
            "arrays.p4:1:8: struct `S` flattens to 100000000 fields",
        ),
    ] {
        let f = write(&dir, name, text);
        let r = timed(&["parse", &f]);
        assert_eq!(r.code, 1, "{name}: {}", r.stdout);
        assert!(r.stdout.contains(want), "{name}: {}", r.stdout);
    }
}

/// A struct that contains itself has no width: an error at its name
/// (it was lowered as zero bits wide).
#[test]
fn a_struct_that_contains_itself_is_an_error() {
    let dir = scratch("struct-cycle");
    let f = write(&dir, "cycle.p4", "struct A { B b; }\nstruct B { A a; }\n");
    let r = timed(&["predict", &f]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("cycle.p4:1:8: struct `A` nests types more than 32 levels deep"),
        "{}",
        r.stderr
    );
}

/// Long but small chains are fine: 5,000 typedefs of the one before (an
/// error past 32 before) and 100 structs each wrapping the one before.
#[test]
fn long_typedef_and_struct_chains_parse() {
    let dir = scratch("type-chains");
    let mut src = String::from("typedef bit<8> T0;\n");
    for i in 1..=5000 {
        src.push_str(&format!("typedef T{} T{i};\n", i - 1));
    }
    src.push_str("struct W0 { T5000 x; }\n");
    for i in 1..=100 {
        src.push_str(&format!("struct W{i} {{ W{} w; }}\n", i - 1));
    }
    src.push_str("header h_t { W100 w; }\n");
    let f = write(&dir, "chains.p4", &src);
    let r = timed(&["parse", &f]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

/// A megabyte of top-level `;` took 7.4 s (140 KB/s in a release build):
/// each went through a pest parse that first tried every declaration.
/// 2 MB of them at the top level and in an apply block.
#[test]
fn megabytes_of_empty_declarations_and_statements_parse_fast() {
    let dir = scratch("semicolons");
    let semis = ";".repeat(2 << 20);
    let top = write(&dir, "top.p4", &format!("{semis}\n"));
    let apply = write(
        &dir,
        "apply.p4",
        &format!("control C() {{ apply {{ {semis} }} }}\n"),
    );
    for f in [top, apply] {
        let r = timed(&["parse", &f]);
        assert_eq!(r.code, 0, "{f}: {}", r.stdout);
    }
}

/// `-j 100000` spent 42 s starting threads before "cannot start the
/// threads": it is capped at the CPUs, with one note on stderr.
#[test]
fn jobs_above_the_cores_are_capped_with_a_note() {
    let files = [
        "p4-samples/tofino/tc3_edge_mpls.p4",
        "p4-samples/tofino/tc2_datacenter.p4",
    ];
    for cmd in [
        vec!["predict", "-j", "100000", files[0], files[1]],
        vec![
            "check",
            "--jobs",
            "100000",
            "--max-latency",
            "100000",
            files[0],
            files[1],
        ],
    ] {
        let r = timed(&cmd);
        assert_eq!(r.code, 0, "{cmd:?}: {}", r.stderr);
        assert_eq!(
            r.stderr.matches("note: --jobs 100000 capped at ").count(),
            1,
            "{cmd:?}: {}",
            r.stderr
        );
    }
    let r = timed(&["predict", "-j", "1", files[0], files[1]]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stderr.contains("capped"), "{}", r.stderr);
}
