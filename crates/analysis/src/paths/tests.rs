use super::*;
use p4cost_ir::*;

use crate::test_ir::{accept, extract, go, sel, sp, Everything};

/// A tiny builder for hand-made parsers.
struct B {
    p: Program,
    states: Vec<ParseState>,
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
            .map(|(h, bits, next)| extract(h, *bits, *next))
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
    let r = parse_paths(&p, ParserId(0), &PathOptions::default()).unwrap();
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
    let r = parse_paths(&p, ParserId(0), &PathOptions::default()).unwrap();
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
    let r = parse_paths(&p, ParserId(0), &PathOptions::default()).unwrap();
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
    let r = parse_paths(&p, ParserId(0), &PathOptions::default()).unwrap();
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
    )
    .unwrap();
    assert_eq!(r.count.value, 1u128 << 100);
    assert_eq!(r.paths.len(), 5);
    assert!(r.truncated);
}

/// `top` over `binary_chain(n, bits)`: the paths, as the states each
/// skips (`x{i}` not visited), with their weights.
fn top_skips(n: u32, bits: u64, k: usize) -> Vec<(f64, Vec<u32>)> {
    let p = binary_chain(n, bits);
    let mut w = Vec::new();
    let pg = path_graph(&p, p.parser(ParserId(0)), &PathOptions::default(), &mut w).unwrap();
    let prod = Product::build(&pg, &Everything, 10_000).unwrap();
    let wts: Vec<f64> = prod
        .nodes
        .iter()
        .map(|n| pg.visit(n.node).extracted_bits as f64)
        .collect();
    let t = cpu_time::ThreadTime::now(); // not stretched by a loaded machine
    let top = prod.top(&wts, k, usize::MAX);
    assert!(t.elapsed().as_secs() < 5, "top {k} of 2^{n} tied paths");
    top.iter()
        .map(|(v, path)| {
            let names: Vec<String> = pg
                .path(&prod.graph_nodes(path))
                .states
                .iter()
                .map(|s| s.name.clone())
                .collect();
            let skips = (0..n)
                .filter(|i| !names.contains(&format!("x{i}")))
                .collect();
            (*v, skips)
        })
        .collect()
}

#[test]
fn top_of_tied_paths_is_the_listing_without_exponential_work() {
    // 2^70 paths of weight 0: the first five listed, as listed (the first
    // skips nothing, then the last choices flip first).
    let top = top_skips(70, 0, 5);
    let skips: Vec<Vec<u32>> = top.into_iter().map(|t| t.1).collect();
    assert_eq!(
        skips,
        vec![vec![], vec![69], vec![68], vec![68, 69], vec![67]]
    );
    // Past 2^128 the listing indexes saturate; the order does not change.
    let top = top_skips(140, 0, 3);
    let skips: Vec<Vec<u32>> = top.into_iter().map(|t| t.1).collect();
    assert_eq!(skips, vec![vec![], vec![139], vec![138]]);
}

#[test]
fn top_ranks_by_weight_then_listing_order() {
    // x{i} weighs 8: all visited is heaviest; then the 70 paths that skip
    // one tie, listed from the last choice back.
    let top = top_skips(70, 8, 4);
    assert_eq!(
        top,
        vec![
            (560.0, vec![]),
            (552.0, vec![69]),
            (552.0, vec![68]),
            (552.0, vec![67]),
        ]
    );
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
    )
    .unwrap();
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
    let r = parse_paths(&p, ParserId(0), &PathOptions::default()).unwrap();
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
    let r = parse_paths(&p, ParserId(0), &PathOptions::default()).unwrap();
    assert_eq!(r.count.value, 1);
    assert_eq!(r.paths[0].states.len(), n as usize);
}

/// The first path `--path want` selects, with the number of paths that
/// match and whether the leading Ethernet header was left out.
fn find(p: &Program, want: &[&str]) -> Option<(ParsePath, u128, bool)> {
    let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
    let opts = PathOptions::default();
    let mut w = Vec::new();
    let pg = path_graph(p, p.parser(ParserId(0)), &opts, &mut w).unwrap();
    let (prod, skipped) = match_headers(&pg, &want, 1000).unwrap()?;
    let first = prod.first()?;
    Some((
        pg.path(&prod.graph_nodes(&first)),
        prod.total().value,
        skipped,
    ))
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
    let full = find(&p, &["hdr.ethernet", "hdr.mpls", "hdr.mpls", "hdr.ipv4"]);
    assert_eq!(
        full.map(|(p, n, skip)| (p.header_chain(), n, skip)),
        Some((
            "hdr.ethernet -> hdr.mpls[0] -> hdr.mpls[1] -> hdr.ipv4".to_string(),
            1,
            false
        ))
    );
    let skip = find(&p, &["mpls", "mpls[1]", "mpls", "ipv4"]).map(|(p, _, s)| (p.states.len(), s));
    assert_eq!(skip, Some((5, true)));
    assert!(find(&p, &["mpls", "mpls", "mpls", "mpls", "mpls", "ipv4"]).is_none());
    assert!(find(&p, &["ipv6"]).is_none());
}

/// A random parser: state `i` extracts `bits[i]` (into a 3-element stack
/// when `stack[i]`) and goes to states after it, to itself (a stack loop),
/// to accept or to reject.
fn random_parser(spec: &[(u64, bool, Vec<u8>)]) -> Program {
    let n = spec.len() as u32;
    let mut b = B::new();
    b.stack("hdr.s", 3);
    for (i, (bits, stack, edges)) in spec.iter().enumerate() {
        let i = i as u32;
        let mut targets = Vec::new();
        for e in edges {
            let t = match e % 4 {
                0 => Target::Accept,
                1 => Target::Reject,
                2 if *stack => Target::State(StateId(i)),
                _ => {
                    let to = i + 1 + u32::from(*e) / 4;
                    if to < n {
                        Target::State(StateId(to))
                    } else {
                        Target::Accept
                    }
                }
            };
            targets.push(t);
        }
        if targets.is_empty() {
            targets.push(Target::Accept);
        }
        let name = if *stack { "hdr.s" } else { "hdr.h" };
        b.state(&format!("s{i}"), &[(name, *bits, *stack)], sel(&targets));
    }
    b.build()
}

/// Every path by brute force (no memo), as state-name lists.
fn brute_force(p: &Program) -> Vec<(Vec<String>, u64)> {
    let parser = p.parser(ParserId(0));
    let mut out = Vec::new();
    // (state, stack fill, names so far, bits so far); state u32::MAX marks
    // a finished path.
    let mut work = vec![(parser.start, 0u32, Vec::<String>::new(), 0u64)];
    while let Some((s, fill, mut names, bits)) = work.pop() {
        if s == StateId(u32::MAX) {
            out.push((names, bits));
            continue;
        }
        let st = parser.state(s);
        let mut fill = fill;
        let mut ok = true;
        let mut add = 0;
        for op in &st.ops {
            if let ParserOp::Extract {
                stack: Some(StackAccess::Next),
                bits: b,
                ..
            } = op
            {
                if fill >= 3 {
                    ok = false;
                }
                fill += 1;
                add += b;
            } else if let ParserOp::Extract { bits: b, .. } = op {
                add += b;
            }
        }
        if !ok {
            continue;
        }
        names.push(st.name.clone());
        // Push in reverse so the stack pops in listing order.
        for t in st.transition.targets().into_iter().rev() {
            match t {
                Target::Accept => work.push((StateId(u32::MAX), 0, names.clone(), bits + add)),
                Target::Reject => {}
                Target::State(n) => work.push((n, fill, names.clone(), bits + add)),
            }
        }
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    #[test]
    fn dp_counts_index_and_extremes_equal_enumeration(
        spec in proptest::collection::vec(
            (0u64..4, proptest::bool::ANY, proptest::collection::vec(0u8..24, 0..4)),
            1..8,
        )
    ) {
        let p = random_parser(&spec);
        let want = brute_force(&p);
        let opts = PathOptions::default();
        let mut w = Vec::new();
        let pg = path_graph(&p, p.parser(ParserId(0)), &opts, &mut w).unwrap();
        proptest::prop_assert_eq!(pg.total().value, want.len() as u128);
        let listed = pg.list(usize::MAX);
        let names: Vec<(Vec<String>, u64)> = listed
            .iter()
            .map(|n| {
                let path = pg.path(n);
                let bits = path.states.iter().map(|s| s.extracted_bits).sum();
                (path.states.iter().map(|s| s.name.clone()).collect(), bits)
            })
            .collect();
        proptest::prop_assert_eq!(&names, &want);
        for (i, n) in listed.iter().enumerate() {
            proptest::prop_assert_eq!(pg.index_of(n).value, i as u128);
            let nth = pg.nth(i as u128);
            proptest::prop_assert_eq!(nth.as_ref(), Some(n));
        }
        proptest::prop_assert_eq!(pg.nth(listed.len() as u128), None);
        // The paths a packet of each size can take, by the fit automaton,
        // against the listing (all extracts here are program headers).
        for bytes in [0u32, 1, 2, 3, 5, 8, 13, 40] {
            let fits = |want_fit: bool| {
                listed
                    .iter()
                    .filter(|n| {
                        let b: u64 = n.iter().map(|&i| crate::packet_bits(&pg.visit(i))).sum();
                        (b <= u64::from(bytes) * 8) == want_fit
                    })
                    .count() as u128
            };
            let f = crate::FitsPacket::fitting(&pg, &Everything, bytes);
            let x = crate::FitsPacket::exceeding(&pg, &Everything, bytes);
            let pf = Product::build(&pg, &f, 10_000).unwrap();
            let px = Product::build(&pg, &x, 10_000).unwrap();
            proptest::prop_assert_eq!(pf.total().value, fits(true));
            proptest::prop_assert_eq!(px.total().value, fits(false));
            // The fitting paths listed are the listing's, in its order,
            // and a short listing is their first ones.
            let fitting: Vec<&Vec<u32>> = listed
                .iter()
                .filter(|n| {
                    let b: u64 = n.iter().map(|&i| crate::packet_bits(&pg.visit(i))).sum();
                    b <= u64::from(bytes) * 8
                })
                .collect();
            let got: Vec<Vec<u32>> = pf
                .list_within(usize::MAX, usize::MAX)
                .iter()
                .map(|p| pf.graph_nodes(p))
                .collect();
            proptest::prop_assert_eq!(got.iter().collect::<Vec<_>>(), fitting.clone());
            let two: Vec<Vec<u32>> =
                pf.list_within(2, usize::MAX).iter().map(|p| pf.graph_nodes(p)).collect();
            proptest::prop_assert_eq!(two.iter().collect::<Vec<_>>(), fitting.iter().take(2).copied().collect::<Vec<_>>());
        }
        // Extremes, distribution and top-k of the extracted bits.
        let prod = Product::build(&pg, &Everything, 10_000).unwrap();
        proptest::prop_assert_eq!(prod.total().value, want.len() as u128);
        let wts: Vec<f64> = prod
            .nodes
            .iter()
            .map(|n| pg.visit(n.node).extracted_bits as f64)
            .collect();
        let iw: Vec<[u64; 1]> = prod
            .nodes
            .iter()
            .map(|n| [pg.visit(n.node).extracted_bits])
            .collect();
        if want.is_empty() {
            proptest::prop_assert!(prod.extreme(&wts, true).is_none());
        } else {
            let max = want.iter().map(|x| x.1).max().unwrap();
            let min = want.iter().map(|x| x.1).min().unwrap();
            let first_max = want.iter().position(|x| x.1 == max).unwrap();
            let first_min = want.iter().position(|x| x.1 == min).unwrap();
            let e = prod.extreme(&wts, true).unwrap();
            proptest::prop_assert_eq!(e.value, max as f64);
            proptest::prop_assert_eq!(prod.index_of(&pg, &e.path).value, first_max as u128);
            let e = prod.extreme(&wts, false).unwrap();
            proptest::prop_assert_eq!(e.value, min as f64);
            proptest::prop_assert_eq!(prod.index_of(&pg, &e.path).value, first_min as u128);
            let d = prod.distribution(&iw, 100_000).unwrap();
            for (v, c) in &d {
                let n = want.iter().filter(|x| x.1 == v[0]).count();
                proptest::prop_assert_eq!(c.value, n as u128);
            }
            proptest::prop_assert_eq!(d.values().map(|c| c.value).sum::<u128>(), want.len() as u128);
            // (bits, states) pairs, exactly the enumeration's, also with a
            // group key folded along the path (its first state's bits).
            let iw2: Vec<[u64; 2]> = iw.iter().map(|w| [w[0], 1]).collect();
            let mut pairs: std::collections::BTreeMap<[u64; 2], u128> = Default::default();
            let mut grouped: std::collections::BTreeMap<(u64, [u64; 2]), u128> = Default::default();
            for (i, (states, bits)) in want.iter().enumerate() {
                let pair = [*bits, states.len() as u64];
                *pairs.entry(pair).or_default() += 1;
                let first = pg.visit(listed[i][0]).extracted_bits;
                *grouped.entry((first, pair)).or_default() += 1;
            }
            let got: std::collections::BTreeMap<[u64; 2], u128> = prod
                .distribution(&iw2, 100_000)
                .unwrap()
                .into_iter()
                .map(|(k, c)| (k, c.value))
                .collect();
            proptest::prop_assert_eq!(&got, &pairs);
            let start = prod.start_node().unwrap();
            let got: std::collections::BTreeMap<(u64, [u64; 2]), u128> = prod
                .grouped_sums(start, &iw2, 100_000, |i, _| iw[i as usize][0])
                .unwrap()
                .into_iter()
                .map(|(k, c)| (k, c.value))
                .collect();
            proptest::prop_assert_eq!(&got, &grouped);
            // Paths through a state that extracts 3 bits.
            let mark: Vec<bool> = prod
                .nodes
                .iter()
                .map(|n| pg.visit(n.node).extracted_bits == 3)
                .collect();
            let (c, first) = prod.through(&mark);
            let through: Vec<usize> = listed
                .iter()
                .enumerate()
                .filter(|(_, n)| n.iter().any(|&x| pg.visit(x).extracted_bits == 3))
                .map(|(i, _)| i)
                .collect();
            proptest::prop_assert_eq!(c.value, through.len() as u128);
            proptest::prop_assert_eq!(
                first.map(|f| prod.index_of(&pg, &f).value),
                through.first().map(|&i| i as u128)
            );
            let top = prod.top(&wts, 3, usize::MAX);
            // A stable sort keeps listing order among equal weights.
            let mut ranked: Vec<(usize, u64)> =
                want.iter().enumerate().map(|(i, x)| (i, x.1)).collect();
            ranked.sort_by_key(|x| std::cmp::Reverse(x.1));
            let got: Vec<(f64, u128)> = top
                .iter()
                .map(|t| (t.0, prod.index_of(&pg, &t.1).value))
                .collect();
            let exp: Vec<(f64, u128)> = ranked
                .iter()
                .take(3)
                .map(|&(i, b)| (b as f64, i as u128))
                .collect();
            proptest::prop_assert_eq!(got, exp);
        }
    }
}

#[test]
fn analysis_state_budget_ends_with_an_error() {
    // Five 16-deep stacks in one loop: 17^5 fill vectors.
    let mut b = B::new();
    let names = ["hdr.a", "hdr.b", "hdr.c", "hdr.d", "hdr.e"];
    for n in names {
        b.stack(n, 16);
    }
    let all: Vec<Target> = (0..5)
        .map(|i| Target::State(StateId(i)))
        .chain([Target::Accept])
        .collect();
    for (i, n) in names.iter().enumerate() {
        b.state(&format!("s{i}"), &[(n, 8, true)], sel(&all));
    }
    let p = b.build();
    let opts = PathOptions {
        max_analysis_states: 100_000,
        ..Default::default()
    };
    let t = cpu_time::ThreadTime::now(); // not stretched by a loaded machine
    let e = parse_paths(&p, ParserId(0), &opts).err();
    assert_eq!(
        e.map(|e| e.limit),
        Some(100_000),
        "17^5 > 100000 nodes must hit the budget"
    );
    assert!(t.elapsed().as_secs() < 10);
}

#[test]
fn huge_stack_loop_hits_the_budget_without_allocating_per_element() {
    let mut b = B::new();
    b.stack("hdr.s", 999_999_999);
    b.state(
        "s",
        &[("hdr.s", 8, true)],
        sel(&[Target::State(StateId(0)), Target::Accept]),
    );
    let p = b.build();
    let e = parse_paths(&p, ParserId(0), &PathOptions::default()).err();
    assert_eq!(e.map(|e| e.limit), Some(DEFAULT_MAX_ANALYSIS_STATES));
}

/// A chain where every state may end the packet: state `s{i}` extracts
/// 8 bits, then goes on or accepts. Path k (k = 1..=n) visits k states and
/// extracts 8k bits, so exactly n - t paths extract more than 8t bits.
/// The per-node tables of such a chain, all kept, would hold about
/// n * (t + 2) entries; dropping each once read keeps two alive, so the
/// count fits a budget far below that.
#[test]
fn threshold_count_on_a_long_exit_anywhere_chain_stays_within_a_small_budget() {
    let n = 3000u32;
    let mut b = B::new();
    for i in 0..n {
        let next = if i + 1 == n {
            Target::Accept
        } else {
            Target::State(StateId(i + 1))
        };
        b.state(
            &format!("s{i}"),
            &[("hdr.x", 8, false)],
            sel(&[next, Target::Accept]),
        );
    }
    let p = b.build();
    let mut w = Vec::new();
    let pg = path_graph(&p, p.parser(ParserId(0)), &PathOptions::default(), &mut w).unwrap();
    let prod = Product::build(&pg, &Everything, 100_000).unwrap();
    let bits: Vec<u64> = prod
        .nodes
        .iter()
        .map(|x| pg.visit(x.node).extracted_bits)
        .collect();
    // 3000 * 102 entries if every table were kept; 20,000 live at most.
    let c = prod.count_sum_above(&bits, 8 * 100, 20_000);
    assert_eq!(c.map(|c| c.value), Some(u128::from(n - 100)));
    // The work bound still holds: a budget too small for the merges fails.
    assert_eq!(prod.count_sum_above(&bits, 8 * 100, 1_000), None);
}

/// Every rejected path by brute force: (state names up to the rejecting
/// state, bits extracted up to it), for every visit that may reject (a
/// stack overflow, a transition to reject, a select with no default).
fn brute_force_rejects(p: &Program) -> Vec<(Vec<String>, u64)> {
    let parser = p.parser(ParserId(0));
    let mut out = Vec::new();
    let mut work = vec![(parser.start, 0u32, Vec::<String>::new(), 0u64)];
    while let Some((s, fill, mut names, bits)) = work.pop() {
        let st = parser.state(s);
        let (mut fill, mut add, mut overflow) = (fill, 0, false);
        for op in &st.ops {
            if let ParserOp::Extract { stack, bits: b, .. } = op {
                if *stack == Some(StackAccess::Next) {
                    overflow |= fill >= 3;
                    fill += 1;
                }
                add += b;
            }
        }
        names.push(st.name.clone());
        let targets = st.transition.targets();
        let no_default = match &st.transition {
            Transition::Select { cases, .. } => !cases.iter().any(|c| c.matches_all()),
            Transition::Direct { .. } => false,
        };
        if overflow || no_default || targets.contains(&Target::Reject) {
            out.push((names.clone(), bits + add));
        }
        if overflow {
            continue;
        }
        for t in targets {
            if let Target::State(n) = t {
                work.push((n, fill, names.clone(), bits + add));
            }
        }
    }
    out
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    #[test]
    fn rejected_paths_are_counted_with_their_extremes(
        spec in proptest::collection::vec(
            (0u64..4, proptest::bool::ANY, proptest::collection::vec(0u8..24, 0..4)),
            1..8,
        )
    ) {
        let p = random_parser(&spec);
        let want = brute_force_rejects(&p);
        let opts = PathOptions::default();
        let mut w = Vec::new();
        let pg = path_graph(&p, p.parser(ParserId(0)), &opts, &mut w).unwrap();
        let r = pg.rejects(&Everything, &|v: &PathState, _| v.extracted_bits as f64);
        proptest::prop_assert_eq!(r.count.value, want.len() as u128);
        if want.is_empty() {
            proptest::prop_assert!(r.min.is_none());
        } else {
            let lo = want.iter().map(|x| x.1).min().unwrap() as f64;
            let hi = want.iter().map(|x| x.1).max().unwrap() as f64;
            let (min, max) = (r.min.unwrap(), r.max.unwrap());
            proptest::prop_assert_eq!(min.value, lo);
            proptest::prop_assert_eq!(max.value, hi);
            // The witnesses are rejected paths that weigh what they claim.
            for (e, v) in [(&min, lo), (&max, hi)] {
                let names: Vec<String> = e.path.iter().map(|&n| pg.visit(n).name).collect();
                let bits: u64 = e.path.iter().map(|&n| pg.visit(n).extracted_bits).sum();
                proptest::prop_assert_eq!(bits as f64, v);
                proptest::prop_assert!(want.iter().any(|x| x.0 == names), "{:?}", names);
            }
        }
    }
}
