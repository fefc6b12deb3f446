//! Property tests of the structurizer: random reducible graphs structure with no copies and no dispatch;
//! random graphs of any shape never panic; in both, the structured program passes the static checks and
//! runs the same node sequence as the graph under the same branch decisions.

use proptest::prelude::*;
use sassport_translator::structure::{check, simulate, structure, walk_cfg, Cfg, Limits, Term};

/// Raw node: kind selector and up to four target seeds.
type RawNode = (u8, [u32; 4], u8);

fn term_of(kind: u8, t: [u32; 4], arms: u8, pick: impl Fn(u32) -> u32) -> Term {
    match kind % 8 {
        0 => Term::Exit,
        1 | 2 => Term::Goto(pick(t[0])),
        3..=5 => Term::Cond(pick(t[0]), pick(t[1])),
        6 => Term::CondExit(pick(t[0])),
        _ => Term::Switch((0..2 + u32::from(arms % 3)).map(|i| pick(t[i as usize])).collect()),
    }
}

/// Any graph: targets anywhere.
fn any_cfg(raw: &[RawNode]) -> Cfg {
    let n = raw.len() as u32;
    let terms = raw.iter().map(|(k, t, a)| term_of(*k, *t, *a, |x| x % n)).collect();
    Cfg { entry: 0, terms, weights: raw.iter().map(|r| 1 + u32::from(r.2 % 16)).collect() }
}

/// A reducible graph: nodes in a chain cut by barriers; forward edges stay before the next barrier (or
/// reach it), backward edges go to a barrier at or before the source, which dominates it.
fn reducible_cfg(raw: &[RawNode], barriers: &[bool]) -> Cfg {
    let n = raw.len() as u32;
    let is_barrier = |i: u32| i == 0 || barriers.get(i as usize).copied().unwrap_or(false);
    let next_barrier = |i: u32| (i + 1..n).find(|&j| is_barrier(j)).unwrap_or(n - 1);
    let barriers_upto: Vec<Vec<u32>> = (0..n).map(|i| (0..=i).filter(|&j| is_barrier(j)).collect()).collect();
    let terms = raw
        .iter()
        .enumerate()
        .map(|(i, (k, t, a))| {
            let i = i as u32;
            let hi = next_barrier(i);
            let pick = |x: u32| {
                if i + 1 < n && (x % 4 != 0 || hi == i) {
                    // forward, up to the next barrier
                    i + 1 + x % (hi.max(i + 1) - i)
                } else {
                    let b = &barriers_upto[i as usize];
                    b[(x as usize / 4) % b.len()]
                }
            };
            if i + 1 == n && *k % 8 != 0 {
                // the last node may only loop back or exit
                return term_of(*k, *t, *a, |x| {
                    let b = &barriers_upto[i as usize];
                    b[(x as usize) % b.len()]
                });
            }
            term_of(*k, *t, *a, pick)
        })
        .collect();
    Cfg { entry: 0, terms, weights: raw.iter().map(|r| 1 + u32::from(r.2 % 16)).collect() }
}

fn decide(seed: u64) -> impl FnMut(u32, u32) -> u32 {
    let mut visits = std::collections::HashMap::<u32, u64>::new();
    move |v, arms| {
        let k = visits.entry(v).or_insert(0);
        *k += 1;
        let mut x = seed.wrapping_mul(0x9e3779b97f4a7c15) ^ (u64::from(v) << 32) ^ *k;
        x ^= x >> 31;
        x = x.wrapping_mul(0xbf58476d1ce4e5b9);
        x ^= x >> 29;
        (x % u64::from(arms.max(1))) as u32
    }
}

fn agrees(g: &Cfg, limits: &Limits) -> Result<Option<sassport_translator::structure::Structured>, TestCaseError> {
    let s = match structure(g, limits) {
        Ok(s) => s,
        Err(_) => return Ok(None),
    };
    if let Err(e) = check(g, &s) {
        return Err(TestCaseError::fail(format!("{e}\n{g:?}\n{:#?}", s.body)));
    }
    for seed in 0..24 {
        let want = walk_cfg(g, decide(seed), 200);
        let got = simulate(&s, decide(seed), 200).map_err(|e| TestCaseError::fail(format!("{e}\n{g:?}")))?;
        prop_assert_eq!(&got, &want, "seed {} graph {:?}\n{:#?}", seed, g, s.body);
    }
    Ok(Some(s))
}

fn raw_nodes(max: usize) -> impl Strategy<Value = Vec<RawNode>> {
    prop::collection::vec((any::<u8>(), any::<[u32; 4]>(), any::<u8>()), 1..max)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn reducible_graphs_structure_without_copies(raw in raw_nodes(40), barriers in prop::collection::vec(any::<bool>(), 40)) {
        let g = reducible_cfg(&raw, &barriers);
        let s = agrees(&g, &Limits::default())?;
        let s = s.ok_or_else(|| TestCaseError::fail(format!("refused {g:?}")))?;
        prop_assert_eq!(s.report.split_regions, 0, "{:?}", g);
        prop_assert!(s.report.dispatch_regions.is_empty(), "{:?}", g);
    }

    #[test]
    fn any_graph_structures_or_is_refused(raw in raw_nodes(24)) {
        let g = any_cfg(&raw);
        let s = agrees(&g, &Limits::default())?;
        prop_assert!(s.is_some(), "a well-formed small graph was refused: {:?}", g);
    }

    #[test]
    fn any_graph_without_budget_dispatches(raw in raw_nodes(24)) {
        let g = any_cfg(&raw);
        let s = agrees(&g, &Limits { split_words: 0, ..Limits::default() })?;
        let s = s.ok_or_else(|| TestCaseError::fail(format!("refused {g:?}")))?;
        prop_assert_eq!(s.report.split_regions, 0);
    }

    #[test]
    fn any_graph_with_small_budget(raw in raw_nodes(24), budget in 0u64..64) {
        let g = any_cfg(&raw);
        let s = agrees(&g, &Limits { split_words: budget, ..Limits::default() })?;
        let s = s.ok_or_else(|| TestCaseError::fail(format!("refused {g:?}")))?;
        prop_assert!(s.report.copied_words <= budget);
    }
}
