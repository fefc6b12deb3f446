//! Structured control flow over a kernel's CFG: Beyond Relooper (Ramsey, ICFP 2022) with minimal loops,
//! bounded node splitting and region dispatch for irreducible flow.
//!
//! The input is a [`Cfg`]: nodes `0..n` (basic blocks), each with a terminator ([`Term`]) and an estimated
//! size in emitted words. The output is a [`Structured`] tree of wasm-like statements over node ids: blocks
//! and loops with labels, `if`/`switch` on a node's terminator, `br` to an enclosing label, exits, and
//! assignments of route variables. Nothing here knows SPIR-V; `control::structured` emits the tree.
//!
//! Steps, each linear or near-linear in the size of the graph:
//! 1. Reverse postorder and dominators (Cooper, Harvey and Kennedy's iterative algorithm over RPO), the
//!    dominator tree numbered by DFS intervals so that every dominance query is O(1) (dxil-spirv spent 87%
//!    of an 8-minute translation in pairwise dominance walks).
//! 2. Irreducible regions: strongly connected components with more than one entry, found level by level
//!    (Tarjan, removing each reducible loop's header and descending). Each region is made single-entry by
//!    copying it once per extra entry while the copies fit the size budget ("controlled node splitting"),
//!    otherwise by a dispatch node: every edge into a region entry sets the region's route variable and
//!    goes to one new header that switches on it. Only the region is dispatched, never the whole kernel.
//! 3. Loops (natural loops over the now reducible graph, union-find), merge nodes (two or more forward
//!    in-edges, switch targets, loop exits) and placement: a node sits under its immediate dominator, except
//!    that a loop exit is placed right after the outermost loop it leaves. That keeps loops minimal: code
//!    after a loop never moves into it, so threads reconverge where SM86's `BSYNC` makes them reconverge.
//! 4. Beyond Relooper's `doTree`/`nodeWithin`/`doBranch` over the placement tree, with tail positions
//!    iterated (long chains of blocks do not grow the stack) and a nesting limit past which the caller gets
//!    [`Refusal::TooDeep`] instead of a stack overflow.
//!
//! A `br` may leave several enclosing constructs at once (a multi-level break); the emitter realises it
//! with a route variable set on the exit edge and tested after each construct's merge.

mod check;
mod graph;
mod irreducible;
mod relooper;

pub use check::{after_construct, check, simulate, walk_cfg, CheckError, End};

use std::fmt;

/// A node's terminator.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// Leaves the kernel.
    Exit,
    /// Continues at the node.
    Goto(u32),
    /// A two-way branch on the node's condition: (taken when true, when false).
    Cond(u32, u32),
    /// Leaves the kernel when the node's condition holds, else continues at the node.
    CondExit(u32),
    /// Continues at `targets[i]` for selector value `i` (an indirect branch with a known table).
    Switch(Vec<u32>),
}

impl Term {
    /// Calls `f` with each successor, in arm order.
    pub fn for_each_target(&self, mut f: impl FnMut(u32)) {
        match self {
            Term::Exit => {}
            Term::Goto(t) | Term::CondExit(t) => f(*t),
            Term::Cond(a, b) => {
                f(*a);
                f(*b);
            }
            Term::Switch(t) => t.iter().for_each(|x| f(*x)),
        }
    }
}

/// A control-flow graph to structure.
#[derive(Debug, Clone, Default)]
pub struct Cfg {
    pub entry: u32,
    pub terms: Vec<Term>,
    /// Estimated emitted words per node (the node-splitting budget is counted in these).
    pub weights: Vec<u32>,
}

impl Cfg {
    pub fn len(&self) -> usize {
        self.terms.len()
    }
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// What the structurizer may spend.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Words of copied nodes allowed for node splitting, over the whole kernel.
    pub split_words: u64,
    /// Deepest statement nesting (guards the recursion: 256 leaves a 4x margin on a 2 MiB thread stack in a
    /// debug build).
    pub max_depth: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { split_words: 4096, max_depth: 256 }
    }
}

/// Where a node of the structured program comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Input node `n` (the first placement of it).
    Node(u32),
    /// A copy of input node `n` made by node splitting.
    Copy(u32),
    /// The dispatch header of irreducible region `r`: switches on the region's route variable.
    Dispatch(u32),
}

impl Origin {
    /// The input node this stands for, if any.
    pub fn input(self) -> Option<u32> {
        match self {
            Origin::Node(n) | Origin::Copy(n) => Some(n),
            Origin::Dispatch(_) => None,
        }
    }
}

/// A structured label (a block's exit or a loop's continue point).
pub type Label = u32;

/// One statement of the structured program. Node ids are indices into [`Structured::nodes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stmt {
    /// The straight-line code of a node (its terminator is realised by the statements that follow).
    Code(u32),
    /// `br label` leaves the block (continues after it).
    Block {
        label: Label,
        body: Vec<Stmt>,
    },
    /// `br label` continues at the top. Falling off the end leaves the loop.
    Loop {
        label: Label,
        body: Vec<Stmt>,
    },
    /// Branches on the condition of `node`'s terminator (`Cond`: true arm first; `CondExit`: exit arm).
    If {
        node: u32,
        then_: Vec<Stmt>,
        else_: Vec<Stmt>,
    },
    /// Branches on `node`'s selector: an indirect branch (arm i for table entry i) or a dispatch header
    /// (arm i for route value i). A selector outside the table leaves the kernel.
    Switch {
        node: u32,
        arms: Vec<Vec<Stmt>>,
    },
    Br(Label),
    /// Sets the route variable of dispatch node `dispatch` to `value`.
    SetRoute {
        dispatch: u32,
        value: u32,
    },
    Exit,
}

/// The terminator of a node of the structured program (input terminators renumbered, or a dispatch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub origin: Origin,
    pub term: Term,
}

/// How a kernel's control flow was structured.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StructureReport {
    pub nodes: usize,
    pub loops: usize,
    /// Irreducible regions made single-entry by copying.
    pub split_regions: usize,
    /// Nodes copied and their estimated words.
    pub copied_nodes: usize,
    pub copied_words: u64,
    /// Irreducible regions given a dispatch header (and why they were not split).
    pub dispatch_regions: Vec<String>,
    /// Deepest nesting of statements.
    pub depth: u32,
}

impl fmt::Display for StructureReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "structured: {} nodes, {} loops", self.nodes, self.loops)?;
        if self.split_regions > 0 {
            write!(
                f,
                ", {} irreducible regions split ({} nodes, ~{} words copied)",
                self.split_regions, self.copied_nodes, self.copied_words
            )?;
        }
        if !self.dispatch_regions.is_empty() {
            write!(f, ", {} regions dispatched ({})", self.dispatch_regions.len(), self.dispatch_regions.join("; "))?;
        }
        Ok(())
    }
}

/// A structured program.
#[derive(Debug, Clone)]
pub struct Structured {
    /// Nodes of the program: input nodes (renumbered only by appending copies and dispatch headers).
    pub nodes: Vec<Node>,
    pub body: Vec<Stmt>,
    /// Number of labels used (labels are `0..labels`).
    pub labels: u32,
    pub report: StructureReport,
}

/// Why a graph was not structured (the caller falls back to whole-kernel dispatch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A terminator names a node that does not exist.
    BadTarget { node: u32, target: u32 },
    /// The entry is not a node, or weights and terms differ in length.
    Malformed(String),
    /// Statements nest deeper than [`Limits::max_depth`].
    TooDeep(u32),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::BadTarget { node, target } => write!(f, "node {node} branches to missing node {target}"),
            Refusal::Malformed(s) => write!(f, "malformed graph: {s}"),
            Refusal::TooDeep(d) => write!(f, "structured nesting deeper than {d}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Structures `cfg` within `limits`. Unreachable nodes are left out.
pub fn structure(cfg: &Cfg, limits: &Limits) -> Result<Structured, Refusal> {
    let n = cfg.terms.len();
    if cfg.entry as usize >= n {
        return Err(Refusal::Malformed(format!("entry {} of {} nodes", cfg.entry, n)));
    }
    if cfg.weights.len() != n {
        return Err(Refusal::Malformed(format!("{} weights for {} nodes", cfg.weights.len(), n)));
    }
    for (i, t) in cfg.terms.iter().enumerate() {
        let mut bad = None;
        t.for_each_target(|x| {
            if x as usize >= n && bad.is_none() {
                bad = Some(x);
            }
        });
        if let Some(target) = bad {
            return Err(Refusal::BadTarget { node: i as u32, target });
        }
    }
    let mut work = irreducible::Work::from_cfg(cfg);
    let mut report = StructureReport::default();
    irreducible::make_reducible(&mut work, limits, &mut report);
    relooper::run(work, limits, report)
}
