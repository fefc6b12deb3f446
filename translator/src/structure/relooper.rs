//! Beyond Relooper over a reducible graph, with minimal loops.

use super::graph::{Csr, Dom, NONE};
use super::irreducible::{Edge, WTerm, Work};
use super::{Label, Limits, Node, Refusal, Stmt, StructureReport, Structured};

struct Relooper<'a> {
    work: &'a Work,
    dom: Dom,
    is_header: Vec<bool>,
    is_merge: Vec<bool>,
    /// Loop forest: innermost loop header of each node (a header maps to itself), parent loop of each header,
    /// and DFS intervals of the forest.
    loop_of: Vec<u32>,
    lpre: Vec<u32>,
    lpost: Vec<u32>,
    /// Merge nodes placed under each node, highest RPO number first.
    children: Vec<Vec<u32>>,
    block_label: Vec<Label>,
    loop_label: Vec<Label>,
    labels: u32,
    max_depth: u32,
    deepest: u32,
}

pub fn run(work: Work, limits: &Limits, mut report: StructureReport) -> Result<Structured, Refusal> {
    let succ = work.csr();
    let dom = Dom::compute(&succ, work.entry);
    let n = work.nodes.len();
    let pred = succ.reversed();

    // Loop headers: targets of retreating edges (the graph is reducible, so each is a back edge).
    let mut is_header = vec![false; n];
    for &u in &dom.rpo {
        for &v in succ.of(u) {
            if dom.num[v as usize] <= dom.num[u as usize] {
                is_header[v as usize] = true;
            }
        }
    }
    let (loop_of, loop_parent) = loop_forest(&succ, &pred, &dom, &is_header);
    let (lpre, lpost) = forest_intervals(&loop_parent, &is_header);
    let contains = |h: u32, v: u32| -> bool {
        let l = loop_of[v as usize];
        l != NONE && lpre[h as usize] <= lpre[l as usize] && lpost[l as usize] <= lpost[h as usize]
    };

    // Merge nodes.
    let mut forward_in = vec![0u32; n];
    let mut is_merge = vec![false; n];
    for &u in &dom.rpo {
        let lu = loop_of[u as usize];
        for &v in succ.of(u) {
            if dom.num[v as usize] > dom.num[u as usize] {
                forward_in[v as usize] += 1;
                if lu != NONE && !contains(lu, v) {
                    is_merge[v as usize] = true;
                }
            }
        }
        if let WTerm::Switch(edges) = &work.nodes[u as usize].term {
            for e in edges {
                is_merge[e.to as usize] = true;
            }
        }
    }
    for v in 0..n {
        if forward_in[v] >= 2 {
            is_merge[v] = true;
        }
    }

    // Placement: under the immediate dominator, or after the outermost loop the node leaves.
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    for &v in dom.rpo.iter().skip(1) {
        if !is_merge[v as usize] {
            continue;
        }
        let mut p = dom.idom[v as usize];
        let mut l = loop_of[p as usize];
        let mut best = NONE;
        while l != NONE && !contains(l, v) {
            best = l;
            l = loop_parent[l as usize];
        }
        if best != NONE {
            p = best;
        }
        children[p as usize].push(v);
    }
    for c in &mut children {
        c.sort_unstable_by_key(|&v| std::cmp::Reverse(dom.num[v as usize]));
        if c.len() as u32 > limits.max_depth {
            return Err(Refusal::TooDeep(limits.max_depth));
        }
    }
    report.nodes = dom.rpo.len();
    report.loops = is_header.iter().filter(|h| **h).count();

    let entry = work.entry;
    let mut r = Relooper {
        work: &work,
        dom,
        is_header,
        is_merge,
        loop_of,
        lpre,
        lpost,
        children,
        block_label: vec![NONE; n],
        loop_label: vec![NONE; n],
        labels: 0,
        max_depth: limits.max_depth,
        deepest: 0,
    };
    let mut body = Vec::new();
    r.do_tree(entry, &mut body, 1)?;
    report.depth = r.deepest;
    let labels = r.labels;
    let nodes = work.nodes.iter().map(|w| Node { origin: w.origin, term: w.term.to_term() }).collect();
    Ok(Structured { nodes, body, labels, report })
}

impl Relooper<'_> {
    fn label(&mut self) -> Label {
        let l = self.labels;
        self.labels += 1;
        l
    }

    fn in_loop(&self, h: u32, v: u32) -> bool {
        let l = self.loop_of[v as usize];
        l != NONE && self.lpre[h as usize] <= self.lpre[l as usize] && self.lpost[l as usize] <= self.lpost[h as usize]
    }

    /// `doTree(x)`: x, the merge nodes placed under it, and x's loop if it heads one; appended to `out`.
    fn do_tree(&mut self, mut x: u32, out: &mut Vec<Stmt>, depth: u32) -> Result<(), Refusal> {
        if depth > self.max_depth {
            return Err(Refusal::TooDeep(self.max_depth));
        }
        self.deepest = self.deepest.max(depth);
        loop {
            let children = std::mem::take(&mut self.children[x as usize]);
            let header = self.is_header[x as usize];
            for &c in &children {
                let l = self.label();
                self.block_label[c as usize] = l;
            }
            if header {
                let l = self.label();
                self.loop_label[x as usize] = l;
            }
            let (inside, outside): (Vec<u32>, Vec<u32>) = children.iter().partition(|&&c| header && self.in_loop(x, c));
            let mut inner = Vec::new();
            self.node_code(x, &mut inner, depth)?;
            for &c in inside.iter().rev() {
                inner = vec![Stmt::Block { label: self.block_label[c as usize], body: inner }];
                self.do_tree(c, &mut inner, depth + 1)?;
            }
            if header {
                inner = vec![Stmt::Loop { label: self.loop_label[x as usize], body: inner }];
            }
            for &c in outside.iter().skip(1).rev() {
                inner = vec![Stmt::Block { label: self.block_label[c as usize], body: inner }];
                self.do_tree(c, &mut inner, depth + 1)?;
            }
            match outside.first() {
                Some(&c) => {
                    out.push(Stmt::Block { label: self.block_label[c as usize], body: inner });
                    x = c; // tail position: no recursion for chains of merges
                }
                None => {
                    out.extend(inner);
                    return Ok(());
                }
            }
        }
    }

    /// x's code and terminator; single-successor chains continue in place.
    fn node_code(&mut self, mut x: u32, out: &mut Vec<Stmt>, depth: u32) -> Result<(), Refusal> {
        loop {
            out.push(Stmt::Code(x));
            let tail = match &self.work.nodes[x as usize].term {
                WTerm::Exit => {
                    out.push(Stmt::Exit);
                    return Ok(());
                }
                WTerm::Goto(e) => *e,
                WTerm::CondExit(e) => {
                    out.push(Stmt::If { node: x, then_: vec![Stmt::Exit], else_: Vec::new() });
                    *e
                }
                WTerm::Cond(a, b) => {
                    let (a, b) = (*a, *b);
                    match (self.jumps(x, a), self.jumps(x, b)) {
                        (true, _) => {
                            let mut t = Vec::new();
                            self.branch(x, a, &mut t, depth)?;
                            out.push(Stmt::If { node: x, then_: t, else_: Vec::new() });
                            b
                        }
                        (false, true) => {
                            let mut f = Vec::new();
                            self.branch(x, b, &mut f, depth)?;
                            out.push(Stmt::If { node: x, then_: Vec::new(), else_: f });
                            a
                        }
                        (false, false) => {
                            let mut t = Vec::new();
                            self.branch(x, a, &mut t, depth + 1)?;
                            let mut f = Vec::new();
                            self.branch(x, b, &mut f, depth + 1)?;
                            out.push(Stmt::If { node: x, then_: t, else_: f });
                            return Ok(());
                        }
                    }
                }
                WTerm::Switch(edges) => {
                    let edges = edges.clone();
                    let mut arms = Vec::with_capacity(edges.len());
                    for e in edges {
                        let mut arm = Vec::new();
                        self.branch(x, e, &mut arm, depth + 1)?;
                        arms.push(arm);
                    }
                    out.push(Stmt::Switch { node: x, arms });
                    return Ok(());
                }
            };
            // Tail edge: a jump, or the successor's tree in place.
            if tail.route != NONE {
                out.push(Stmt::SetRoute { dispatch: tail.to, value: tail.route });
            }
            if self.jumps(x, tail) {
                out.push(self.br(x, tail.to));
                return Ok(());
            }
            let y = tail.to;
            if !self.is_header[y as usize] && self.children[y as usize].is_empty() {
                x = y;
                continue;
            }
            return self.do_tree(y, out, depth + 1);
        }
    }

    /// Whether the edge x→e is a `br` (continue or exit) rather than the successor's code in place.
    fn jumps(&self, x: u32, e: Edge) -> bool {
        self.dom.num[e.to as usize] <= self.dom.num[x as usize] || self.is_merge[e.to as usize]
    }

    fn br(&self, x: u32, y: u32) -> Stmt {
        if self.dom.num[y as usize] <= self.dom.num[x as usize] {
            Stmt::Br(self.loop_label[y as usize])
        } else {
            Stmt::Br(self.block_label[y as usize])
        }
    }

    /// `doBranch(x, e)` into `out`.
    fn branch(&mut self, x: u32, e: Edge, out: &mut Vec<Stmt>, depth: u32) -> Result<(), Refusal> {
        if e.route != NONE {
            out.push(Stmt::SetRoute { dispatch: e.to, value: e.route });
        }
        if self.jumps(x, e) {
            out.push(self.br(x, e.to));
            Ok(())
        } else {
            self.do_tree(e.to, out, depth + 1)
        }
    }
}

/// Innermost loop of each node and parent of each loop, by union-find over back edges, innermost first.
fn loop_forest(succ: &Csr, pred: &Csr, dom: &Dom, is_header: &[bool]) -> (Vec<u32>, Vec<u32>) {
    let n = succ.len();
    let mut loop_of = vec![NONE; n];
    let mut loop_parent = vec![NONE; n];
    let mut uf: Vec<u32> = (0..n as u32).collect();
    let mut seen = vec![NONE; n];
    fn find(uf: &mut [u32], mut v: u32) -> u32 {
        let mut root = v;
        while uf[root as usize] != root {
            root = uf[root as usize];
        }
        while uf[v as usize] != root {
            let next = uf[v as usize];
            uf[v as usize] = root;
            v = next;
        }
        root
    }
    let mut work: Vec<u32> = Vec::new();
    for &h in dom.rpo.iter().rev() {
        if !is_header[h as usize] {
            continue;
        }
        loop_of[h as usize] = h;
        seen[h as usize] = h;
        for &p in pred.of(h) {
            if dom.reachable(p) && dom.num[p as usize] >= dom.num[h as usize] && p != h {
                work.push(p);
            }
        }
        while let Some(p) = work.pop() {
            let r = find(&mut uf, p);
            if r == h || seen[r as usize] == h {
                continue;
            }
            seen[r as usize] = h;
            if is_header[r as usize] {
                loop_parent[r as usize] = h;
            } else {
                loop_of[r as usize] = h;
            }
            uf[r as usize] = h;
            for &q in pred.of(r) {
                if dom.reachable(q) {
                    work.push(q);
                }
            }
        }
    }
    (loop_of, loop_parent)
}

/// DFS intervals of the loop forest.
fn forest_intervals(loop_parent: &[u32], is_header: &[bool]) -> (Vec<u32>, Vec<u32>) {
    let n = loop_parent.len();
    let mut first_child = vec![NONE; n];
    let mut next_sibling = vec![NONE; n];
    let mut roots = Vec::new();
    for h in (0..n).rev() {
        if !is_header[h] {
            continue;
        }
        let p = loop_parent[h];
        if p == NONE {
            roots.push(h as u32);
        } else {
            next_sibling[h] = first_child[p as usize];
            first_child[p as usize] = h as u32;
        }
    }
    let mut pre = vec![NONE; n];
    let mut post = vec![NONE; n];
    let mut clock = 0u32;
    for &r in roots.iter().rev() {
        let mut stack: Vec<(u32, u32)> = vec![(r, first_child[r as usize])];
        pre[r as usize] = clock;
        clock += 1;
        while let Some(top) = stack.last_mut() {
            let (v, c) = *top;
            if c != NONE {
                top.1 = next_sibling[c as usize];
                pre[c as usize] = clock;
                clock += 1;
                stack.push((c, first_child[c as usize]));
            } else {
                post[v as usize] = clock;
                clock += 1;
                stack.pop();
            }
        }
    }
    (pre, post)
}
