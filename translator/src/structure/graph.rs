//! Graph analyses over compressed successor lists: reverse postorder, dominators and their DFS intervals,
//! predecessors. All iterative (no recursion), linear or near-linear.

pub const NONE: u32 = u32::MAX;

/// Successor lists in compressed form: the successors of `v` are `targets[offsets[v]..offsets[v + 1]]`.
#[derive(Debug, Clone, Default)]
pub struct Csr {
    pub offsets: Vec<u32>,
    pub targets: Vec<u32>,
}

impl Csr {
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    #[inline]
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
    /// The reversed graph (predecessor lists), keeping multiplicity.
    pub fn reversed(&self) -> Csr {
        let n = self.len();
        let mut count = vec![0u32; n + 1];
        for &t in &self.targets {
            count[t as usize + 1] += 1;
        }
        for i in 0..n {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        let mut targets = vec![0u32; self.targets.len()];
        for v in 0..n {
            for &t in self.of(v as u32) {
                targets[fill[t as usize] as usize] = v as u32;
                fill[t as usize] += 1;
            }
        }
        Csr { offsets: count, targets }
    }
}

/// Reverse postorder, dominators and dominator-tree intervals of the nodes reachable from `entry`.
#[derive(Debug, Clone)]
pub struct Dom {
    /// Reachable nodes in reverse postorder.
    pub rpo: Vec<u32>,
    /// Position of each node in `rpo` (NONE when unreachable).
    pub num: Vec<u32>,
    /// Immediate dominator (the entry's is itself; NONE when unreachable).
    pub idom: Vec<u32>,
    /// Dominator tree DFS entry and exit times: `a` dominates `b` iff `pre[a] <= pre[b] && post[b] <= post[a]`.
    pub pre: Vec<u32>,
    pub post: Vec<u32>,
}

impl Dom {
    pub fn compute(succ: &Csr, entry: u32) -> Dom {
        let n = succ.len();
        // Iterative DFS postorder.
        let mut num = vec![NONE; n];
        let mut post_order = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        let mut stack: Vec<(u32, u32)> = vec![(entry, 0)];
        visited[entry as usize] = true;
        while let Some(top) = stack.last_mut() {
            let (v, i) = *top;
            let s = succ.of(v);
            if (i as usize) < s.len() {
                top.1 += 1;
                let w = s[i as usize];
                if !visited[w as usize] {
                    visited[w as usize] = true;
                    stack.push((w, 0));
                }
            } else {
                post_order.push(v);
                stack.pop();
            }
        }
        let rpo: Vec<u32> = post_order.into_iter().rev().collect();
        for (i, &v) in rpo.iter().enumerate() {
            num[v as usize] = i as u32;
        }
        // Cooper-Harvey-Kennedy over RPO numbers.
        let pred = succ.reversed();
        let mut idom_num = vec![NONE; rpo.len()]; // indexed by rpo number
        if !rpo.is_empty() {
            idom_num[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..rpo.len() {
                let v = rpo[b];
                let mut new = NONE;
                for &p in pred.of(v) {
                    let pn = num[p as usize];
                    if pn == NONE || idom_num[pn as usize] == NONE {
                        continue;
                    }
                    new = if new == NONE { pn } else { intersect(&idom_num, pn, new) };
                }
                if new != idom_num[b] {
                    idom_num[b] = new;
                    changed = true;
                }
            }
        }
        let mut idom = vec![NONE; n];
        for (b, &v) in rpo.iter().enumerate() {
            idom[v as usize] = rpo[idom_num[b] as usize];
        }
        // Dominator tree children (in RPO order) and DFS intervals.
        let mut child_count = vec![0u32; rpo.len() + 1];
        for &p in idom_num.iter().skip(1) {
            child_count[p as usize + 1] += 1;
        }
        for i in 0..rpo.len() {
            child_count[i + 1] += child_count[i];
        }
        let mut fill = child_count.clone();
        let mut children = vec![0u32; rpo.len().saturating_sub(1)];
        for b in 1..rpo.len() {
            let p = idom_num[b] as usize;
            children[fill[p] as usize] = b as u32;
            fill[p] += 1;
        }
        let mut pre = vec![NONE; n];
        let mut post = vec![NONE; n];
        let mut clock = 0u32;
        if !rpo.is_empty() {
            let mut st: Vec<(u32, u32)> = vec![(0, child_count[0])];
            pre[rpo[0] as usize] = clock;
            clock += 1;
            while let Some(top) = st.last_mut() {
                let (b, i) = *top;
                if i < child_count[b as usize + 1] {
                    top.1 += 1;
                    let c = children[i as usize];
                    pre[rpo[c as usize] as usize] = clock;
                    clock += 1;
                    st.push((c, child_count[c as usize]));
                } else {
                    post[rpo[b as usize] as usize] = clock;
                    clock += 1;
                    st.pop();
                }
            }
        }
        Dom { rpo, num, idom, pre, post }
    }

    #[inline]
    pub fn reachable(&self, v: u32) -> bool {
        self.num[v as usize] != NONE
    }

    /// Whether `a` dominates `b` (both reachable).
    #[inline]
    pub fn dominates(&self, a: u32, b: u32) -> bool {
        let (a, b) = (a as usize, b as usize);
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }
}

fn intersect(idom: &[u32], mut a: u32, mut b: u32) -> u32 {
    while a != b {
        while a > b {
            a = idom[a as usize];
        }
        while b > a {
            b = idom[b as usize];
        }
    }
    a
}
