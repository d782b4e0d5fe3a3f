use super::*;
use p4cost_ir::*;

/// A tiny builder for hand-made parsers.
struct B {
    p: Program,
    states: Vec<ParseState>,
}

fn sp() -> Span {
    Span::file_start(FileId(0))
}

impl B {
    fn new() -> B {
        let mut p = Program::new("t", InputKind::P4Source);
        p.add_file("t.p4");
        B {
            p,
            states: Vec::new(),
        }
    }
    fn stack(&mut self, name: &str, size: u32) {
        self.p.header_types.push(HeaderType {
            name: format!("{name}_t"),
            kind: HeaderKind::Header,
            fields: vec![],
            origin: Origin::Program,
            span: sp(),
        });
        self.p.headers.push(HeaderInstance {
            name: name.into(),
            ty: HeaderTypeId((self.p.header_types.len() - 1) as u32),
            stack_size: Some(size),
            metadata: false,
            span: sp(),
        });
    }
    fn state(&mut self, name: &str, extracts: &[(&str, u64, bool)], transition: Transition) {
        let ops = extracts
            .iter()
            .map(|(h, bits, next)| ParserOp::Extract {
                header: h.to_string(),
                instance: None,
                stack: next.then_some(StackAccess::Next),
                bits: *bits,
                varbit_max_bits: 0,
                origin: Origin::Program,
                span: sp(),
            })
            .collect();
        self.states.push(ParseState {
            name: name.into(),
            ops,
            transition,
            annotations: vec![],
            span: sp(),
        });
    }
    fn build(mut self) -> Program {
        self.p.parsers.push(Parser {
            name: "P".into(),
            gress: Gress::Ingress,
            states: self.states,
            start: StateId(0),
            span: sp(),
        });
        self.p
    }
}

fn go(t: u32) -> Transition {
    Transition::Direct {
        target: Target::State(StateId(t)),
    }
}
fn accept() -> Transition {
    Transition::Direct {
        target: Target::Accept,
    }
}
fn sel(targets: &[Target]) -> Transition {
    Transition::Select {
        keys: vec![],
        cases: targets
            .iter()
            .enumerate()
            .map(|(i, t)| SelectCase {
                keysets: vec![Keyset::Value {
                    value: i.to_string(),
                }],
                target: *t,
                span: sp(),
            })
            .collect(),
    }
}

#[test]
fn diamond_has_two_paths_with_their_bytes() {
    let mut b = B::new();
    b.state(
        "start",
        &[("hdr.eth", 112, false)],
        sel(&[Target::State(StateId(1)), Target::State(StateId(2))]),
    );
    b.state("v4", &[("hdr.ipv4", 160, false)], go(3));
    b.state("v6", &[("hdr.ipv6", 320, false)], go(3));
    b.state("udp", &[("hdr.udp", 64, false)], accept());
    let p = b.build();
    let r = parse_paths(&p, ParserId(0), &PathOptions::default());
    assert_eq!(r.count.value, 2);
    assert!(!r.truncated);
    assert_eq!(r.paths[0].header_chain(), "hdr.eth -> hdr.ipv4 -> hdr.udp");
    assert_eq!(r.paths[1].header_chain(), "hdr.eth -> hdr.ipv6 -> hdr.udp");
    assert_eq!(r.paths[1].states[1].extracted_bytes(), 40);
    assert_eq!(r.paths[0].extracted_bytes(), 14 + 20 + 8);
}

#[test]
fn cases_after_a_default_case_are_unreachable() {
    let mut b = B::new();
    let default_first = Transition::Select {
        keys: vec![],
        cases: vec![
            SelectCase {
                keysets: vec![Keyset::Default],
                target: Target::Accept,
                span: sp(),
            },
            SelectCase {
                keysets: vec![Keyset::Value { value: "1".into() }],
                target: Target::State(StateId(1)),
                span: sp(),
            },
        ],
    };
    b.state("start", &[], default_first);
    b.state("never", &[("hdr.x", 8, false)], accept());
    let p = b.build();
    let r = parse_paths(&p, ParserId(0), &PathOptions::default());
    assert_eq!(r.count.value, 1);
    assert_eq!(r.paths[0].states.len(), 1);
}

#[test]
fn reject_edges_do_not_count() {
    let mut b = B::new();
    b.state(
        "start",
        &[],
        sel(&[Target::Reject, Target::Accept, Target::State(StateId(1))]),
    );
    b.state(
        "dead",
        &[],
        Transition::Direct {
            target: Target::Reject,
        },
    );
    let p = b.build();
    let r = parse_paths(&p, ParserId(0), &PathOptions::default());
    assert_eq!(r.count.value, 1);
    assert_eq!(r.paths.len(), 1);
    assert_eq!(r.paths[0].states.len(), 1);
}

#[test]
fn stack_loop_unrolls_to_the_stack_size() {
    // start -> mpls (loop: mpls | accept)
    let mut b = B::new();
    b.stack("hdr.mpls", 3);
    b.state("start", &[], go(1));
    b.state(
        "mpls",
        &[("hdr.mpls", 32, true)],
        sel(&[Target::State(StateId(1)), Target::Accept]),
    );
    let p = b.build();
    let r = parse_paths(&p, ParserId(0), &PathOptions::default());
    // 1, 2 or 3 labels; a fourth would overflow the stack and reject.
    assert_eq!(r.count.value, 3);
    let chains: Vec<String> = r.paths.iter().map(|p| p.header_chain()).collect();
    assert!(chains.contains(&"hdr.mpls[0] -> hdr.mpls[1] -> hdr.mpls[2]".to_string()));
    assert!(r.warnings.is_empty());
}

/// `n` binary choices in a row (state `s{i}` either visits `x{i}`, which
/// extracts `bits`, or skips it): 2^n paths.
fn binary_chain(n: u32, bits: u64) -> Program {
    let mut b = B::new();
    let ex: &[(&str, u64, bool)] = if bits > 0 {
        &[("hdr.x", bits, false)]
    } else {
        &[]
    };
    for i in 0..n {
        let next = if i + 1 == n {
            Target::Accept
        } else {
            Target::State(StateId(2 * (i + 1)))
        };
        b.state(
            &format!("s{i}"),
            &[],
            sel(&[Target::State(StateId(2 * i + 1)), next]),
        );
        b.state(&format!("x{i}"), ex, Transition::Direct { target: next });
    }
    b.build()
}

#[test]
fn explosion_is_counted_not_listed() {
    let p = binary_chain(100, 8);
    let r = parse_paths(
        &p,
        ParserId(0),
        &PathOptions {
            max_paths: 5,
            ..Default::default()
        },
    );
    assert_eq!(r.count.value, 1u128 << 100);
    assert_eq!(r.paths.len(), 5);
    assert!(r.truncated);
}

#[test]
fn count_saturates_instead_of_overflowing() {
    let p = binary_chain(130, 0);
    let r = parse_paths(
        &p,
        ParserId(0),
        &PathOptions {
            max_paths: 1,
            ..Default::default()
        },
    );
    assert!(r.count.saturated);
    assert!(r.truncated);
}

#[test]
fn unbounded_loop_is_cut_with_a_warning() {
    let mut b = B::new();
    b.state("start", &[], go(1));
    b.state(
        "spin",
        &[("hdr.opt", 8, false)],
        sel(&[Target::State(StateId(1)), Target::Accept]),
    );
    let p = b.build();
    let r = parse_paths(&p, ParserId(0), &PathOptions::default());
    assert_eq!(r.count.value, 1);
    assert_eq!(r.warnings.len(), 1);
    assert!(r.warnings[0].contains("spin"));
}

#[test]
fn long_chain_does_not_overflow_the_call_stack() {
    let mut b = B::new();
    let n = 50_000u32;
    for i in 0..n {
        let t = if i + 1 == n { accept() } else { go(i + 1) };
        b.state(&format!("s{i}"), &[("hdr.h", 8, false)], t);
    }
    let p = b.build();
    let r = parse_paths(&p, ParserId(0), &PathOptions::default());
    assert_eq!(r.count.value, 1);
    assert_eq!(r.paths[0].states.len(), n as usize);
}

#[test]
fn find_path_matches_full_short_and_skip_first() {
    let mut b = B::new();
    b.stack("hdr.mpls", 4);
    b.state(
        "start",
        &[("hdr.ethernet", 112, false)],
        sel(&[Target::State(StateId(1)), Target::State(StateId(2))]),
    );
    b.state(
        "mpls",
        &[("hdr.mpls", 32, true)],
        sel(&[Target::State(StateId(1)), Target::State(StateId(2))]),
    );
    b.state("ipv4", &[("hdr.ipv4", 160, false)], accept());
    let p = b.build();
    let want = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let opts = PathOptions::default();
    let full = find_path(
        &p,
        ParserId(0),
        &want(&["hdr.ethernet", "hdr.mpls", "hdr.mpls", "hdr.ipv4"]),
        &opts,
    );
    assert_eq!(
        full.map(|p| p.header_chain()),
        Some("hdr.ethernet -> hdr.mpls[0] -> hdr.mpls[1] -> hdr.ipv4".to_string())
    );
    let skip = find_path(
        &p,
        ParserId(0),
        &want(&["mpls", "mpls[1]", "mpls", "ipv4"]),
        &opts,
    )
    .map(|p| p.states.len());
    assert_eq!(skip, Some(5));
    assert!(find_path(
        &p,
        ParserId(0),
        &want(&["mpls", "mpls", "mpls", "mpls", "mpls", "ipv4"]),
        &opts
    )
    .is_none());
    assert!(find_path(&p, ParserId(0), &want(&["ipv6"]), &opts).is_none());
}
