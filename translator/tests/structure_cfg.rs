//! Hand-built CFGs through the structurizer: each is checked statically (labels, placement, coverage) and
//! by running the graph and the structured program under the same branch decisions (many decision
//! sequences per graph): the sequences of nodes run must be identical.

use sassport_translator::structure::{
    check, simulate, structure, walk_cfg, Cfg, Limits, Refusal, Stmt, Structured, Term,
};
use Term::*;

fn cfg(terms: Vec<Term>) -> Cfg {
    let weights = vec![10; terms.len()];
    Cfg { entry: 0, terms, weights }
}

/// A deterministic decision source: arm of the k-th visit of node v under seed s.
fn decide(seed: u64) -> impl FnMut(u32, u32) -> u32 {
    let mut visits = std::collections::HashMap::<u32, u64>::new();
    move |v, arms| {
        let k = visits.entry(v).or_insert(0);
        *k += 1;
        let mut x = seed ^ (u64::from(v) << 32) ^ *k;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51afd7ed558ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ceb9fe1a85ec53);
        x ^= x >> 33;
        (x % u64::from(arms.max(1))) as u32
    }
}

fn structured(g: &Cfg, limits: &Limits) -> Structured {
    let s = structure(g, limits).unwrap_or_else(|e| panic!("refused: {e}"));
    check(g, &s).unwrap_or_else(|e| panic!("invariant: {e}\n{:#?}", s.body));
    for seed in 0..200 {
        let (want, want_end) = walk_cfg(g, decide(seed), 300);
        let (got, got_end) = simulate(&s, decide(seed), 300).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!((got, got_end), (want, want_end), "seed {seed}\n{:#?}", s.body);
    }
    s
}

fn st(g: &Cfg) -> Structured {
    structured(g, &Limits::default())
}

/// Counts statements of each kind: (blocks, loops, ifs, switches, brs, route sets).
fn shape(body: &[Stmt]) -> [usize; 6] {
    let mut c = [0; 6];
    fn go(b: &[Stmt], c: &mut [usize; 6]) {
        for s in b {
            match s {
                Stmt::Block { body, .. } => {
                    c[0] += 1;
                    go(body, c)
                }
                Stmt::Loop { body, .. } => {
                    c[1] += 1;
                    go(body, c)
                }
                Stmt::If { then_, else_, .. } => {
                    c[2] += 1;
                    go(then_, c);
                    go(else_, c)
                }
                Stmt::Switch { arms, .. } => {
                    c[3] += 1;
                    arms.iter().for_each(|a| go(a, c))
                }
                Stmt::Br(_) => c[4] += 1,
                Stmt::SetRoute { .. } => c[5] += 1,
                _ => {}
            }
        }
    }
    go(body, &mut c);
    c
}

/// The statements that directly contain `Code(node)` inside a loop, if any.
fn in_a_loop(body: &[Stmt], node: u32) -> bool {
    fn go(b: &[Stmt], node: u32, inside: bool) -> Option<bool> {
        for s in b {
            let r = match s {
                Stmt::Code(x) if *x == node => Some(inside),
                Stmt::Block { body, .. } => go(body, node, inside),
                Stmt::Loop { body, .. } => go(body, node, true),
                Stmt::If { then_, else_, .. } => go(then_, node, inside).or_else(|| go(else_, node, inside)),
                Stmt::Switch { arms, .. } => arms.iter().find_map(|a| go(a, node, inside)),
                _ => None,
            };
            if r.is_some() {
                return r;
            }
        }
        None
    }
    go(body, node, false).expect("node placed")
}

#[test]
fn straight_line() {
    let s = st(&cfg(vec![Goto(1), Goto(2), Exit]));
    assert_eq!(s.body, vec![Stmt::Code(0), Stmt::Code(1), Stmt::Code(2), Stmt::Exit]);
}

#[test]
fn diamond() {
    let s = st(&cfg(vec![Cond(1, 2), Goto(3), Goto(3), Exit]));
    assert_eq!(shape(&s.body), [1, 0, 1, 0, 2, 0]);
    assert_eq!(s.report.loops, 0);
}

#[test]
fn triangle_and_conditional_exit() {
    st(&cfg(vec![Cond(1, 2), Goto(2), CondExit(3), Exit]));
}

#[test]
fn nested_loops() {
    // 0 -> 1 (outer header) -> 2 (inner header) -> 3 -> {2, 4}; 4 -> {1, 5}; 5 exit
    let s = st(&cfg(vec![Goto(1), Goto(2), Goto(3), Cond(2, 4), Cond(1, 5), Exit]));
    assert_eq!(s.report.loops, 2);
    assert!(!in_a_loop(&s.body, 5), "code after the loops moved into a loop: {:#?}", s.body);
}

#[test]
fn loop_with_several_exits() {
    // header 1; body 2 may leave to 4, 3 may leave to 5, 3 continues to 1; 4 and 5 join at 6.
    let s = st(&cfg(vec![Goto(1), Cond(2, 6), Cond(3, 4), Cond(1, 5), Goto(6), Goto(6), Exit]));
    for n in [4, 5, 6] {
        assert!(!in_a_loop(&s.body, n), "exit block {n} inside the loop: {:#?}", s.body);
    }
}

#[test]
fn minimal_loop_single_exit_tail() {
    // while (c) { A } B: B is reached only from the header, and must stay out of the loop.
    let s = st(&cfg(vec![Goto(1), Cond(2, 3), Goto(1), Goto(4), Exit]));
    assert!(in_a_loop(&s.body, 2));
    assert!(!in_a_loop(&s.body, 3));
    assert!(!in_a_loop(&s.body, 4));
}

#[test]
fn break_from_inside_an_if_in_a_loop() {
    // loop { if c { A; break } ; B } C  (rust-gpu #944's shape). Minimal loops (SPIR-T's choice): the loop is
    // its strongly connected part {1, 3}; A runs after the loop's merge, where SM86 code puts the BSYNC.
    let s = st(&cfg(vec![Goto(1), Cond(2, 3), Goto(4), Goto(1), Exit]));
    assert!(in_a_loop(&s.body, 3));
    assert!(!in_a_loop(&s.body, 2));
    assert!(!in_a_loop(&s.body, 4));
}

#[test]
fn multi_level_break() {
    // outer 1 { inner 2 { 3: break both -> 6, or continue inner, or 4 } 4 -> 1 or 5 } 5,6 -> 7
    let s = st(&cfg(vec![Goto(1), Goto(2), Goto(3), Switch(vec![6, 2, 4]), Cond(1, 5), Goto(7), Goto(7), Exit]));
    assert_eq!(s.report.loops, 2);
    assert!(!in_a_loop(&s.body, 6));
}

#[test]
fn shared_return_tail() {
    // several paths end in one return block.
    st(&cfg(vec![Cond(1, 2), Cond(3, 4), Cond(4, 5), Goto(6), Goto(6), Goto(6), Exit]));
}

#[test]
fn early_return_inside_loops() {
    // loop 1 { 2: return if c; 3: inner loop 4 { 5: return if c; -> 4 or 6 } 6 -> 1 or 7 } 7 exit
    st(&cfg(vec![Goto(1), CondExit(3), Goto(4), Goto(4), CondExit(5), Cond(4, 6), Cond(1, 7), Exit]));
}

#[test]
fn switch_with_fallthrough() {
    // switch on 0: case 1 falls through to case 2, case 2 and 3 break to 4, default 4.
    let s = st(&cfg(vec![Switch(vec![1, 2, 3, 4]), Goto(2), Goto(4), Goto(4), Exit]));
    assert_eq!(shape(&s.body)[3], 1);
}

#[test]
fn switch_inside_loop_with_continue() {
    st(&cfg(vec![Goto(1), Switch(vec![2, 3, 1, 4]), Goto(1), Cond(1, 4), Exit]));
}

#[test]
fn two_entry_loop_is_split() {
    // 0 -> {1, 2}; 1 <-> 2 (a loop entered at both); 2 -> 3 exit.
    let g = cfg(vec![Cond(1, 2), Goto(2), Cond(1, 3), Exit]);
    let s = st(&g);
    assert_eq!(s.report.split_regions, 1);
    assert!(s.report.dispatch_regions.is_empty());
    assert_eq!(shape(&s.body)[5], 0, "no route variables when splitting");
}

#[test]
fn two_entry_loop_over_budget_is_dispatched() {
    let g = cfg(vec![Cond(1, 2), Goto(2), Cond(1, 3), Exit]);
    let s = structured(&g, &Limits { split_words: 5, ..Limits::default() });
    assert_eq!(s.report.split_regions, 0);
    assert_eq!(s.report.dispatch_regions.len(), 1, "{}", s.report);
    assert!(shape(&s.body)[5] > 0);
}

#[test]
fn irreducible_at_the_entry() {
    // The kernel entry is inside a two-entry cycle.
    let g = Cfg { entry: 0, terms: vec![Cond(1, 3), Cond(0, 2), Goto(3), Cond(1, 2)], weights: vec![10; 4] };
    let mut g = g;
    g.terms[2] = Exit;
    st(&g);
    structured(&g, &Limits { split_words: 0, ..Limits::default() });
}

#[test]
fn three_entry_region_dispatched() {
    let g = cfg(vec![Switch(vec![1, 2, 3]), Cond(2, 4), Cond(3, 4), Cond(1, 4), Exit]);
    let s = structured(&g, &Limits { split_words: 0, ..Limits::default() });
    assert_eq!(s.report.dispatch_regions.len(), 1);
}

#[test]
fn calls_inlined_per_call_site() {
    // A device function (nodes 4..=5) inlined at two call sites: the caller's graph refers to two copies.
    // 0 -> call f (4) -> 1 -> call f (6) -> 2 exit; f: 4 -> {5 | ret}, 5 -> ret.
    st(&cfg(vec![Goto(4), Goto(6), Exit, Exit, Cond(5, 1), Goto(1), Cond(7, 2), Goto(2)]));
}

#[test]
fn unreachable_nodes_are_left_out() {
    let s = st(&cfg(vec![Exit, Goto(0)]));
    assert_eq!(s.report.nodes, 1);
}

#[test]
fn self_loop() {
    let s = st(&cfg(vec![Goto(1), Cond(1, 2), Exit]));
    assert_eq!(s.report.loops, 1);
}

#[test]
fn malformed_graphs_refused() {
    assert!(structure(&cfg(vec![Goto(5)]), &Limits::default()).is_err());
    assert!(structure(&Cfg { entry: 3, terms: vec![Exit], weights: vec![1] }, &Limits::default()).is_err());
    assert!(structure(&Cfg { entry: 0, terms: vec![Exit], weights: vec![] }, &Limits::default()).is_err());
}

#[test]
fn deep_nesting_refused_not_overflowed() {
    // A chain of nested ifs 3000 deep (each arm inlines the next).
    let n = 3000u32;
    let mut terms = Vec::new();
    for i in 0..n {
        terms.push(Cond(i + 1, n + 1 + i));
    }
    terms.push(Exit);
    for _ in 0..n {
        terms.push(Exit);
    }
    let g = cfg(terms);
    // Default limits, on a test thread's 2 MiB stack, in a debug build.
    let r = structure(&g, &Limits::default());
    assert!(matches!(r, Err(Refusal::TooDeep(_))), "{:?}", r.map(|s| s.report));
    // Just under the limit still structures.
    let n = Limits::default().max_depth / 2 - 2;
    let mut terms = Vec::new();
    for i in 0..n {
        terms.push(Cond(i + 1, n + 1 + i));
    }
    terms.push(Exit);
    for _ in 0..n {
        terms.push(Exit);
    }
    let s = structure(&cfg(terms.clone()), &Limits::default()).expect("structures");
    check(&cfg(terms), &s).expect("valid");
}

#[test]
fn long_chain_of_diamonds_stays_shallow() {
    let mut terms = Vec::new();
    let k = 20_000u32;
    for i in 0..k {
        let b = 3 * i;
        terms.push(Cond(b + 1, b + 2));
        terms.push(Goto(b + 3));
        terms.push(Goto(b + 3));
    }
    terms.push(Exit);
    let s = structure(&cfg(terms), &Limits::default()).expect("structures");
    assert!(s.report.depth < 10, "depth {}", s.report.depth);
}
