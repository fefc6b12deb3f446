//! Irreducible regions made single-entry: controlled node splitting under a word budget, else a dispatch
//! header around the region alone.

use super::graph::{Csr, Dom, NONE};
use super::{Cfg, Limits, Origin, StructureReport, Term};

/// An edge of the working graph: the target and, for a target that is a dispatch header, the route value
/// the edge sets (NONE otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Edge {
    pub to: u32,
    pub route: u32,
}

impl Edge {
    fn plain(to: u32) -> Edge {
        Edge { to, route: NONE }
    }
}

#[derive(Debug, Clone)]
pub enum WTerm {
    Exit,
    Goto(Edge),
    Cond(Edge, Edge),
    CondExit(Edge),
    Switch(Vec<Edge>),
}

impl WTerm {
    pub fn for_each(&self, mut f: impl FnMut(Edge)) {
        match self {
            WTerm::Exit => {}
            WTerm::Goto(e) | WTerm::CondExit(e) => f(*e),
            WTerm::Cond(a, b) => {
                f(*a);
                f(*b);
            }
            WTerm::Switch(v) => v.iter().for_each(|e| f(*e)),
        }
    }
    pub fn for_each_mut(&mut self, mut f: impl FnMut(&mut Edge)) {
        match self {
            WTerm::Exit => {}
            WTerm::Goto(e) | WTerm::CondExit(e) => f(e),
            WTerm::Cond(a, b) => {
                f(a);
                f(b);
            }
            WTerm::Switch(v) => v.iter_mut().for_each(f),
        }
    }
    /// The plain terminator (targets only).
    pub fn to_term(&self) -> Term {
        match self {
            WTerm::Exit => Term::Exit,
            WTerm::Goto(e) => Term::Goto(e.to),
            WTerm::Cond(a, b) => Term::Cond(a.to, b.to),
            WTerm::CondExit(e) => Term::CondExit(e.to),
            WTerm::Switch(v) => Term::Switch(v.iter().map(|e| e.to).collect()),
        }
    }
}

#[derive(Debug, Clone)]
pub struct WNode {
    pub origin: Origin,
    pub term: WTerm,
    pub weight: u32,
}

/// The graph being made reducible.
#[derive(Debug, Clone)]
pub struct Work {
    pub entry: u32,
    pub nodes: Vec<WNode>,
    pub regions: u32,
}

impl Work {
    pub fn from_cfg(cfg: &Cfg) -> Work {
        let nodes = cfg
            .terms
            .iter()
            .zip(&cfg.weights)
            .enumerate()
            .map(|(i, (t, w))| WNode {
                origin: Origin::Node(i as u32),
                term: match t {
                    Term::Exit => WTerm::Exit,
                    Term::Goto(x) => WTerm::Goto(Edge::plain(*x)),
                    Term::Cond(a, b) => WTerm::Cond(Edge::plain(*a), Edge::plain(*b)),
                    Term::CondExit(x) => WTerm::CondExit(Edge::plain(*x)),
                    Term::Switch(v) => WTerm::Switch(v.iter().map(|x| Edge::plain(*x)).collect()),
                },
                weight: *w,
            })
            .collect();
        Work { entry: cfg.entry, nodes, regions: 0 }
    }

    pub fn csr(&self) -> Csr {
        let mut offsets = Vec::with_capacity(self.nodes.len() + 1);
        let mut targets = Vec::with_capacity(self.nodes.len() * 2);
        offsets.push(0);
        for n in &self.nodes {
            n.term.for_each(|e| targets.push(e.to));
            offsets.push(targets.len() as u32);
        }
        Csr { offsets, targets }
    }
}

/// Makes `work` reducible, recording what it did in `report`.
pub fn make_reducible(work: &mut Work, limits: &Limits, report: &mut StructureReport) {
    let mut budget = limits.split_words;
    let mut rounds = 0usize;
    let mut scratch = Scratch::default();
    loop {
        let succ = work.csr();
        let dom = Dom::compute(&succ, work.entry);
        // Quick test: a retreating edge whose target does not dominate its source.
        let irreducible = dom
            .rpo
            .iter()
            .any(|&u| succ.of(u).iter().any(|&v| dom.num[v as usize] <= dom.num[u as usize] && !dom.dominates(v, u)));
        if !irreducible {
            return;
        }
        rounds += 1;
        if rounds > 4 * work.nodes.len() + 64 {
            // Splitting keeps finding work (copies of copies): dispatch from now on.
            budget = 0;
        }
        let pred = succ.reversed();
        let regions = regions(work, &succ, &pred, &dom);
        if regions.is_empty() {
            return;
        }
        for (region, entries) in regions {
            let words: u64 = region.iter().map(|&v| u64::from(work.nodes[v as usize].weight)).sum();
            let cost = words.saturating_mul(entries.len() as u64 - 1);
            if cost <= budget {
                budget -= cost;
                split(work, &region, &entries, &pred, &dom, &mut scratch);
                report.split_regions += 1;
                report.copied_nodes += region.len() * (entries.len() - 1);
                report.copied_words += cost;
            } else {
                let why = format!(
                    "{} entries into {} blocks; copying ~{} words exceeds the {} left of the budget",
                    entries.len(),
                    region.len(),
                    cost,
                    budget
                );
                dispatch(work, &entries, &pred, &mut scratch);
                report.dispatch_regions.push(why);
            }
        }
    }
}

/// Scratch marks reused across regions (stamps, so that no per-region pass over all nodes is needed).
#[derive(Default)]
struct Scratch {
    mark: Vec<u32>,
    stamp: u32,
    clone_of: Vec<u32>,
}

impl Scratch {
    fn begin(&mut self, n: usize) -> u32 {
        if self.mark.len() < n {
            self.mark.resize(n, 0);
            self.clone_of.resize(n, NONE);
        }
        self.stamp += 1;
        self.stamp
    }
}

/// The strongly connected regions with several entries, searched level by level (a single-entry component
/// is a reducible loop whose body, without its header, is searched next). Within one level they come sinks
/// first, so fixing them in order never leaves an edge from a copy into an entry already fixed.
fn regions(work: &Work, succ: &Csr, pred: &Csr, dom: &Dom) -> Vec<(Vec<u32>, Vec<u32>)> {
    let mut found = Vec::new();
    let n = succ.len();
    let mut mark = vec![0u32; n];
    let mut stamp = 0u32;
    let mut sets: Vec<Vec<u32>> = vec![dom.rpo.clone()];
    let mut tarjan = Tarjan::new(n);
    while let Some(set) = sets.pop() {
        stamp += 1;
        for &v in &set {
            mark[v as usize] = stamp;
        }
        let set_stamp = stamp;
        let sccs = tarjan.run(&set, succ, |w| mark[w as usize] == set_stamp);
        for scc in sccs {
            let cyclic = scc.len() > 1 || succ.of(scc[0]).contains(&scc[0]);
            if !cyclic {
                continue;
            }
            stamp += 1;
            for &v in &scc {
                mark[v as usize] = stamp;
            }
            let entries: Vec<u32> = scc
                .iter()
                .copied()
                .filter(|&v| {
                    v == work.entry || pred.of(v).iter().any(|&p| dom.reachable(p) && mark[p as usize] != stamp)
                })
                .collect();
            if entries.len() > 1 {
                let mut entries = entries;
                entries.sort_by_key(|&v| dom.num[v as usize]);
                let mut scc = scc;
                scc.sort_by_key(|&v| dom.num[v as usize]);
                found.push((scc, entries));
                continue;
            }
            if let Some(&h) = entries.first() {
                let rest: Vec<u32> = scc.into_iter().filter(|&v| v != h).collect();
                if !rest.is_empty() {
                    sets.push(rest);
                }
            }
        }
    }
    found
}

/// Copies the region once per entry but the first; outside edges into entry j go to copy j.
fn split(work: &mut Work, region: &[u32], entries: &[u32], pred: &Csr, dom: &Dom, sc: &mut Scratch) {
    let n0 = work.nodes.len();
    let stamp = sc.begin(n0);
    for &v in region {
        sc.mark[v as usize] = stamp;
    }
    let mark = &sc.mark;
    let in_region = |v: u32| (v as usize) < n0 && mark[v as usize] == stamp;
    // The kernel entry (if in the region) keeps the originals.
    let mut order: Vec<u32> = entries.to_vec();
    if let Some(i) = order.iter().position(|&e| e == work.entry) {
        order.swap(0, i);
    }
    let clone_of = &mut sc.clone_of;
    for &e in &order[1..] {
        let base = work.nodes.len() as u32;
        for (k, &v) in region.iter().enumerate() {
            clone_of[v as usize] = base + k as u32;
        }
        for &v in region {
            let mut node = work.nodes[v as usize].clone();
            node.origin = match node.origin {
                Origin::Node(x) | Origin::Copy(x) => Origin::Copy(x),
                d => d,
            };
            node.term.for_each_mut(|ed| {
                if in_region(ed.to) {
                    ed.to = clone_of[ed.to as usize];
                }
            });
            work.nodes.push(node);
        }
        let target = clone_of[e as usize];
        let mut preds: Vec<u32> = pred.of(e).iter().copied().filter(|&p| !in_region(p)).collect();
        preds.dedup();
        for p in preds {
            if !dom.reachable(p) {
                continue;
            }
            work.nodes[p as usize].term.for_each_mut(|ed| {
                if ed.to == e {
                    ed.to = target;
                }
            });
        }
    }
}

/// Gives the region one header that switches on a route variable; every edge into an entry sets it.
fn dispatch(work: &mut Work, entries: &[u32], pred: &Csr, sc: &mut Scratch) {
    let d = work.nodes.len() as u32;
    let r = work.regions;
    work.regions += 1;
    let stamp = sc.begin(work.nodes.len());
    for &e in entries {
        sc.mark[e as usize] = stamp;
    }
    let is_entry = |v: u32| sc.mark.get(v as usize) == Some(&stamp);
    // Distinct (target, route) pairs, in entry order, then route order.
    let mut arms: Vec<Edge> = Vec::new();
    let mut sources: Vec<u32> = Vec::new();
    for &e in entries {
        for &p in pred.of(e) {
            sources.push(p);
            work.nodes[p as usize].term.for_each(|ed| {
                if ed.to == e {
                    arms.push(ed);
                }
            });
        }
        if e == work.entry {
            arms.push(Edge::plain(e));
        }
    }
    arms.sort_by_key(|a| (entries.iter().position(|&e| e == a.to), a.route));
    arms.dedup();
    sources.sort_unstable();
    sources.dedup();
    for p in sources {
        work.nodes[p as usize].term.for_each_mut(|ed| {
            if is_entry(ed.to) {
                if let Ok(i) = arms.binary_search_by_key(&(entries.iter().position(|&e| e == ed.to), ed.route), |a| {
                    (entries.iter().position(|&e| e == a.to), a.route)
                }) {
                    *ed = Edge { to: d, route: i as u32 };
                }
            }
        });
    }
    let weight = 8 + 2 * arms.len() as u32;
    let entry_arm = arms.iter().position(|a| a.to == work.entry && a.route == NONE);
    work.nodes.push(WNode { origin: Origin::Dispatch(r), term: WTerm::Switch(arms), weight });
    if let Some(i) = entry_arm {
        // The kernel starts inside the region: a trampoline sets the route first.
        let start = work.nodes.len() as u32;
        work.nodes.push(WNode {
            origin: Origin::Dispatch(r),
            term: WTerm::Goto(Edge { to: d, route: i as u32 }),
            weight: 2,
        });
        work.entry = start;
    }
}

/// Tarjan's strongly connected components, iterative, restricted to a node set.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stamp_of: Vec<u32>,
    stamp: u32,
}

impl Tarjan {
    fn new(n: usize) -> Tarjan {
        Tarjan { index: vec![0; n], low: vec![0; n], on_stack: vec![false; n], stamp_of: vec![0; n], stamp: 0 }
    }

    fn run(&mut self, set: &[u32], succ: &Csr, inside: impl Fn(u32) -> bool) -> Vec<Vec<u32>> {
        self.stamp += 1;
        let stamp = self.stamp;
        let mut next = 0u32;
        let mut out = Vec::new();
        let mut stack: Vec<u32> = Vec::new();
        let mut call: Vec<(u32, u32)> = Vec::new();
        for &root in set {
            if self.stamp_of[root as usize] == stamp {
                continue;
            }
            call.push((root, 0));
            self.stamp_of[root as usize] = stamp;
            self.index[root as usize] = next;
            self.low[root as usize] = next;
            next += 1;
            stack.push(root);
            self.on_stack[root as usize] = true;
            while let Some(&mut (v, ref mut i)) = call.last_mut() {
                let s = succ.of(v);
                if (*i as usize) < s.len() {
                    let w = s[*i as usize];
                    *i += 1;
                    if !inside(w) {
                        continue;
                    }
                    if self.stamp_of[w as usize] != stamp {
                        self.stamp_of[w as usize] = stamp;
                        self.index[w as usize] = next;
                        self.low[w as usize] = next;
                        next += 1;
                        stack.push(w);
                        self.on_stack[w as usize] = true;
                        call.push((w, 0));
                    } else if self.on_stack[w as usize] {
                        let lw = self.index[w as usize];
                        if lw < self.low[v as usize] {
                            self.low[v as usize] = lw;
                        }
                    }
                } else {
                    call.pop();
                    if let Some(&(u, _)) = call.last() {
                        let lv = self.low[v as usize];
                        if lv < self.low[u as usize] {
                            self.low[u as usize] = lv;
                        }
                    }
                    if self.low[v as usize] == self.index[v as usize] {
                        let mut comp = Vec::new();
                        while let Some(w) = stack.pop() {
                            self.on_stack[w as usize] = false;
                            comp.push(w);
                            if w == v {
                                break;
                            }
                        }
                        out.push(comp);
                    }
                }
            }
        }
        out
    }
}
