//! Independent checks of a structured program against its graph: static invariants, and execution of both
//! forms under the same branch decisions (the traces of input nodes must agree).

use super::{Cfg, Origin, Stmt, Structured, Term};
use std::fmt;

/// A violated invariant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError(pub String);

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckError {}

fn err<T>(s: impl Into<String>) -> Result<T, CheckError> {
    Err(CheckError(s.into()))
}

/// Static invariants: every label defined once and every `br` inside its construct; every node of the
/// structured program placed at most once; every input node reachable from the entry placed (directly or
/// as a copy); `If` only on two-way terminators and `Switch` arms matching the table.
pub fn check(cfg: &Cfg, s: &Structured) -> Result<(), CheckError> {
    let mut placed = vec![false; s.nodes.len()];
    let mut defined = vec![false; s.labels as usize];
    let mut open: Vec<u32> = Vec::new();
    walk(s, &s.body, &mut placed, &mut defined, &mut open)?;
    // Reachability in the input graph.
    let n = cfg.terms.len();
    let mut seen = vec![false; n];
    let mut stack = vec![cfg.entry];
    seen[cfg.entry as usize] = true;
    while let Some(v) = stack.pop() {
        cfg.terms[v as usize].for_each_target(|w| {
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push(w);
            }
        });
    }
    let mut covered = vec![false; n];
    for (i, node) in s.nodes.iter().enumerate() {
        if placed[i] {
            if let Some(x) = node.origin.input() {
                covered[x as usize] = true;
            }
        }
    }
    for v in 0..n {
        if seen[v] && !covered[v] {
            return err(format!("reachable node {v} is not placed"));
        }
    }
    Ok(())
}

fn walk(
    s: &Structured,
    body: &[Stmt],
    placed: &mut [bool],
    defined: &mut [bool],
    open: &mut Vec<u32>,
) -> Result<(), CheckError> {
    for st in body {
        match st {
            Stmt::Code(x) => {
                let Some(p) = placed.get_mut(*x as usize) else { return err(format!("code of unknown node {x}")) };
                if *p {
                    return err(format!("node {x} placed twice"));
                }
                *p = true;
            }
            Stmt::Block { label, body } | Stmt::Loop { label, body } => {
                let Some(d) = defined.get_mut(*label as usize) else {
                    return err(format!("label {label} out of range"));
                };
                if *d {
                    return err(format!("label {label} defined twice"));
                }
                *d = true;
                open.push(*label);
                walk(s, body, placed, defined, open)?;
                open.pop();
            }
            Stmt::If { node, then_, else_ } => {
                match s.nodes.get(*node as usize).map(|n| &n.term) {
                    Some(Term::Cond(..) | Term::CondExit(_)) => {}
                    other => return err(format!("if on node {node} whose terminator is {other:?}")),
                }
                walk(s, then_, placed, defined, open)?;
                walk(s, else_, placed, defined, open)?;
            }
            Stmt::Switch { node, arms } => {
                match s.nodes.get(*node as usize).map(|n| &n.term) {
                    Some(Term::Switch(t)) if t.len() == arms.len() => {}
                    other => return err(format!("switch of {} arms on node {node} ({other:?})", arms.len())),
                }
                for a in arms {
                    walk(s, a, placed, defined, open)?;
                }
            }
            Stmt::Br(l) => {
                if !open.contains(l) {
                    return err(format!("br {l} outside its construct"));
                }
            }
            Stmt::SetRoute { dispatch, .. } => match s.nodes.get(*dispatch as usize).map(|n| n.origin) {
                Some(Origin::Dispatch(_)) => {}
                other => return err(format!("route of node {dispatch}, not a dispatch header ({other:?})")),
            },
            Stmt::Exit => {}
        }
    }
    Ok(())
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    Exit,
    /// The step limit was reached.
    Limit,
}

/// Runs the input graph: `choose(node, arms)` picks the arm of each branching terminator (for `Cond`,
/// 0 = first target; for `CondExit`, 0 = exit). Returns the nodes run, in order.
pub fn walk_cfg(cfg: &Cfg, mut choose: impl FnMut(u32, u32) -> u32, max_steps: usize) -> (Vec<u32>, End) {
    let mut trace = Vec::new();
    let mut v = cfg.entry;
    loop {
        if trace.len() >= max_steps {
            return (trace, End::Limit);
        }
        trace.push(v);
        v = match &cfg.terms[v as usize] {
            Term::Exit => return (trace, End::Exit),
            Term::Goto(t) => *t,
            Term::Cond(a, b) => {
                if choose(v, 2) == 0 {
                    *a
                } else {
                    *b
                }
            }
            Term::CondExit(t) => {
                if choose(v, 2) == 0 {
                    return (trace, End::Exit);
                }
                *t
            }
            Term::Switch(t) => {
                let i = choose(v, t.len() as u32) as usize;
                match t.get(i) {
                    Some(x) => *x,
                    None => return (trace, End::Exit),
                }
            }
        };
    }
}

enum Flow {
    Normal,
    Br(u32),
    Exit,
    Limit,
}

struct Sim<'a, F> {
    s: &'a Structured,
    choose: F,
    routes: Vec<u32>,
    trace: Vec<u32>,
    max_steps: usize,
}

/// Runs the structured program with the same decisions as [`walk_cfg`]; the input nodes it runs (copies as
/// their originals, dispatch headers not at all).
pub fn simulate(
    s: &Structured,
    choose: impl FnMut(u32, u32) -> u32,
    max_steps: usize,
) -> Result<(Vec<u32>, End), CheckError> {
    let mut sim = Sim { s, choose, routes: vec![u32::MAX; s.nodes.len()], trace: Vec::new(), max_steps };
    let end = match sim.run(&s.body)? {
        Flow::Exit => End::Exit,
        Flow::Limit => End::Limit,
        Flow::Normal => return err("fell off the end of the program"),
        Flow::Br(l) => return err(format!("br {l} escaped the program")),
    };
    Ok((sim.trace, end))
}

impl<F: FnMut(u32, u32) -> u32> Sim<'_, F> {
    fn run(&mut self, body: &[Stmt]) -> Result<Flow, CheckError> {
        for st in body {
            let flow = match st {
                Stmt::Code(x) => {
                    if let Some(i) = self.s.nodes[*x as usize].origin.input() {
                        if self.trace.len() >= self.max_steps {
                            return Ok(Flow::Limit);
                        }
                        self.trace.push(i);
                    }
                    Flow::Normal
                }
                Stmt::Block { label, body } => match self.run(body)? {
                    Flow::Br(l) if l == *label => Flow::Normal,
                    f => f,
                },
                Stmt::Loop { label, body } => loop {
                    match self.run(body)? {
                        Flow::Br(l) if l == *label => continue,
                        f => break f,
                    }
                },
                Stmt::If { node, then_, else_ } => {
                    let input = self.input_of(*node)?;
                    if (self.choose)(input, 2) == 0 {
                        self.run(then_)?
                    } else {
                        self.run(else_)?
                    }
                }
                Stmt::Switch { node, arms } => {
                    let n = &self.s.nodes[*node as usize];
                    let i = match n.origin {
                        Origin::Dispatch(_) => self.routes[*node as usize],
                        o => (self.choose)(o.input().unwrap_or(0), arms.len() as u32),
                    };
                    match arms.get(i as usize) {
                        Some(a) => self.run(a)?,
                        None if matches!(n.origin, Origin::Dispatch(_)) => {
                            return err(format!("dispatch {node} reached with route {i}"))
                        }
                        None => Flow::Exit,
                    }
                }
                Stmt::Br(l) => Flow::Br(*l),
                Stmt::SetRoute { dispatch, value } => {
                    self.routes[*dispatch as usize] = *value;
                    Flow::Normal
                }
                Stmt::Exit => Flow::Exit,
            };
            if !matches!(flow, Flow::Normal) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    fn input_of(&self, node: u32) -> Result<u32, CheckError> {
        match self.s.nodes.get(node as usize).and_then(|n| n.origin.input()) {
            Some(i) => Ok(i),
            None => err(format!("branch on node {node}, which stands for no input node")),
        }
    }
}

/// For each node of the structured program: its code directly follows a block or loop statement, so every
/// thread that entered that construct and still runs arrives there together (a reconvergence point).
pub fn after_construct(s: &Structured) -> Vec<bool> {
    let mut out = vec![false; s.nodes.len()];
    let mut stack: Vec<&[Stmt]> = vec![&s.body];
    while let Some(body) = stack.pop() {
        let mut prev_construct = false;
        for st in body {
            match st {
                Stmt::Code(x) => {
                    if let Some(o) = out.get_mut(*x as usize) {
                        *o = prev_construct;
                    }
                }
                Stmt::Block { body, .. } | Stmt::Loop { body, .. } => stack.push(body),
                Stmt::If { then_, else_, .. } => {
                    stack.push(then_);
                    stack.push(else_);
                }
                Stmt::Switch { arms, .. } => arms.iter().for_each(|a| stack.push(a)),
                _ => {}
            }
            prev_construct = matches!(st, Stmt::Block { .. } | Stmt::Loop { .. });
        }
    }
    out
}
