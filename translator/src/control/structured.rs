//! Control flow, second form: structured selections and loops (the default goal; see `crate::structure`).
//!
//! The kernel's blocks become a [`Cfg`]: a branch with a guard or condition predicate is a two-way node,
//! `@P EXIT` a conditional exit, `BRX` with a jump table from `.nv.info` a switch. Direct calls to device
//! functions are inlined per call site (each call's blocks are their own nodes, and `RET` continues at that
//! call's return point: nvcc's calling convention puts exactly that address in the return register), so
//! the graph is static. Recursion, indirect calls, `BRX` without a table, `JMP`/`JMX`/`KILL` and
//! structurizer refusals fall back to the whole-kernel dispatch loop, with the reason in [`Form`].
//!
//! Emission: every `Block` and `Loop` statement becomes a SPIR-V loop construct (`OpLoopMerge`; a block's
//! continue target is unreachable), so that every `br` is a structured break or continue of some loop. A
//! `br` to the innermost construct is a direct branch; one that leaves several constructs stores the target
//! label (plus one) in a route variable, breaks out of the innermost construct, and each construct's merge
//! tests the variable and keeps breaking outward until the target is reached. `If` is a selection, `Switch`
//! an `OpSwitch` (on the computed `BRX` target offset, or on a dispatch header's route variable).

use super::emit_dispatch;
use crate::cubin::IndirectBranch;
use crate::error::TranslateError;
use crate::lower::Ctx;
use crate::program::{Exit, Inst, Program};
use crate::spirv::{Id, LoopControl, Op};
use crate::structure::{structure, Cfg, Limits, Origin, Stmt, StructureReport, Structured, Term};
use std::collections::HashMap;

/// Which form a kernel's control flow got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    Structured { report: StructureReport, reconvergence: Reconvergence, inlined: Inlined },
    /// The whole-kernel dispatch loop, and why.
    Dispatch(String),
}

/// Device-function calls inlined into the kernel's graph.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Inlined {
    pub call_sites: usize,
    /// Nodes that are callee blocks (counted once per call site).
    pub nodes: usize,
}

/// Where the structured form reconverges threads compared with SM86's `BSYNC`s.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reconvergence {
    /// Blocks starting with `BSYNC` (placements, copies counted).
    pub points: usize,
    /// Of those, placed right after a construct's merge or reached from one block only.
    pub kept: usize,
    /// Offsets of `BSYNC`s placed elsewhere (threads may arrive there apart).
    pub moved: Vec<u32>,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Form::Structured { report, reconvergence: r, inlined } => {
                write!(f, "{report}")?;
                if inlined.call_sites > 0 {
                    write!(f, ", {} call sites inlined ({} blocks)", inlined.call_sites, inlined.nodes)?;
                }
                write!(f, "; BSYNC reconvergence kept {}/{}", r.kept, r.points)?;
                if !r.moved.is_empty() {
                    let offs: Vec<String> = r.moved.iter().map(|o| format!("0x{o:x}")).collect();
                    write!(f, " (moved: {})", offs.join(", "))?;
                }
                Ok(())
            }
            Form::Dispatch(why) => write!(f, "dispatch loop: {why}"),
        }
    }
}

/// Checks each `BSYNC` block of `prog` against the structured program.
pub fn reconvergence(prog: &Program, kcfg: &KernelCfg, s: &Structured) -> Reconvergence {
    let mut indegree = vec![0u32; kcfg.cfg.terms.len()];
    for t in &kcfg.cfg.terms {
        t.for_each_target(|x| indegree[x as usize] += 1);
    }
    let after = crate::structure::after_construct(s);
    let mut r = Reconvergence::default();
    let mut placed = vec![false; s.nodes.len()];
    let mut stack: Vec<&[Stmt]> = vec![&s.body];
    while let Some(body) = stack.pop() {
        for st in body {
            match st {
                Stmt::Code(x) => placed[*x as usize] = true,
                Stmt::Block { body, .. } | Stmt::Loop { body, .. } => stack.push(body),
                Stmt::If { then_, else_, .. } => {
                    stack.push(then_);
                    stack.push(else_);
                }
                Stmt::Switch { arms, .. } => arms.iter().for_each(|a| stack.push(a)),
                _ => {}
            }
        }
    }
    for (i, node) in s.nodes.iter().enumerate() {
        let Some(input) = node.origin.input() else { continue };
        if !placed[i] {
            continue;
        }
        let Some(&b) = kcfg.node_block.get(input as usize) else { continue };
        let Some(block) = prog.blocks.get(b as usize) else { continue };
        if prog.inst_at(block.start).map(|i| i.mnemonic) != Some("BSYNC") {
            continue;
        }
        r.points += 1;
        if after[i] || indegree[input as usize] <= 1 {
            r.kept += 1;
        } else {
            r.moved.push(block.start);
        }
    }
    r
}

/// Most nodes call inlining may create, as a multiple of the kernel's blocks (plus a constant).
const INLINE_FACTOR: usize = 8;
const INLINE_EXTRA: usize = 4096;
/// Estimated SPIR-V words per SASS instruction (the splitting budget is in words).
const WORDS_PER_INSTRUCTION: u32 = 12;

/// A kernel's graph: nodes and the program block each stands for.
#[derive(Debug, Clone)]
pub struct KernelCfg {
    pub cfg: Cfg,
    pub node_block: Vec<u32>,
    /// Nodes that are blocks of inlined device functions, and the call sites inlined.
    pub inlined_nodes: usize,
    pub call_sites: usize,
}

fn last_inst(prog: &Program, block: u32) -> Option<&Inst> {
    let b = prog.blocks.get(block as usize)?;
    prog.inst_at(b.end.checked_sub(16)?)
}

/// `BRA`/`EXIT` with a second predicate operand (bits 89:87 not PT, or negated by bit 90).
fn has_condition(i: &Inst) -> bool {
    i.bits(87, 3) != 7 || i.bit(90)
}

/// The graph of `prog` with calls inlined, or why the structured form does not apply.
pub fn kernel_cfg(prog: &Program, indirect: &[IndirectBranch]) -> Result<KernelCfg, String> {
    let index_of = |off: u32| prog.blocks.binary_search_by_key(&off, |b| b.start).ok().map(|i| i as u32);
    let entry_block = index_of(prog.entry).ok_or("no block at the entry")?;
    // Call contexts: (parent context, return offset, callee entry offset); context 0 is the kernel.
    let mut contexts: Vec<(u32, u32, u32)> = vec![(0, 0, prog.entry)];
    let mut context_ids: HashMap<(u32, u32, u32), u32> = HashMap::new();
    let mut node_of: HashMap<(u32, u32), u32> = HashMap::new();
    let mut node_block: Vec<u32> = Vec::new();
    let mut node_ctx: Vec<u32> = Vec::new();
    let limit = prog.blocks.len() * INLINE_FACTOR + INLINE_EXTRA;
    let mut intern =
        |block: u32, ctx: u32, node_block: &mut Vec<u32>, node_ctx: &mut Vec<u32>| -> Result<u32, String> {
            if let Some(&n) = node_of.get(&(block, ctx)) {
                return Ok(n);
            }
            let n = node_block.len() as u32;
            if n as usize >= limit {
                return Err(format!("inlining calls would exceed {limit} blocks"));
            }
            node_of.insert((block, ctx), n);
            node_block.push(block);
            node_ctx.push(ctx);
            Ok(n)
        };
    intern(entry_block, 0, &mut node_block, &mut node_ctx)?;
    let mut terms: Vec<Term> = Vec::new();
    let mut i = 0usize;
    while i < node_block.len() {
        let (b, ctx) = (node_block[i], node_ctx[i]);
        let block = &prog.blocks[b as usize];
        let mut node_at = |off: u32, c: u32, nb: &mut Vec<u32>, nc: &mut Vec<u32>| -> Result<u32, String> {
            let t = index_of(off).ok_or_else(|| format!("no block at 0x{off:x}"))?;
            intern(t, c, nb, nc)
        };
        let term = if block.exit == Exit::Fall {
            Term::Goto(node_at(block.end, ctx, &mut node_block, &mut node_ctx)?)
        } else {
            let last =
                last_inst(prog, b).ok_or_else(|| format!("block at 0x{:x} has no last instruction", block.start))?;
            let at = last.offset;
            let guarded = last.guard().is_some();
            match last.mnemonic {
                "BRA" if last.opcode() & 0x1000 == 0 => {
                    let target = node_at(last.branch_target() as u32, ctx, &mut node_block, &mut node_ctx)?;
                    if guarded || has_condition(last) {
                        Term::Cond(target, node_at(block.end, ctx, &mut node_block, &mut node_ctx)?)
                    } else {
                        Term::Goto(target)
                    }
                }
                "EXIT" => {
                    if guarded || has_condition(last) {
                        Term::CondExit(node_at(block.end, ctx, &mut node_block, &mut node_ctx)?)
                    } else {
                        Term::Exit
                    }
                }
                "BRX" => {
                    if guarded {
                        return Err(format!("predicated BRX at 0x{at:x}"));
                    }
                    // The table from `.nv.info`, or the successors the CFG gave the block.
                    let table: &[u32] = match indirect.iter().find(|t| t.offset == at) {
                        Some(t) => &t.targets,
                        None if !block.successors.is_empty() => &block.successors,
                        None => return Err(format!("BRX at 0x{at:x} has no jump table in .nv.info")),
                    };
                    let mut seen = Vec::new();
                    let mut targets = Vec::new();
                    for &t in table {
                        if !seen.contains(&t) {
                            seen.push(t);
                            targets.push(node_at(t, ctx, &mut node_block, &mut node_ctx)?);
                        }
                    }
                    Term::Switch(targets)
                }
                "CALL" if last.opcode() == 0x0944 && !guarded => {
                    let callee = last.branch_target() as u32;
                    // Recursion: the callee is already active in this context chain.
                    let mut c = ctx;
                    loop {
                        let (parent, _, entry) = contexts[c as usize];
                        if c != 0 && entry == callee {
                            return Err(format!("recursive call at 0x{at:x}"));
                        }
                        if c == 0 {
                            break;
                        }
                        c = parent;
                    }
                    let key = (ctx, block.end, callee);
                    let inner = match context_ids.get(&key) {
                        Some(&c) => c,
                        None => {
                            contexts.push(key);
                            let c = contexts.len() as u32 - 1;
                            context_ids.insert(key, c);
                            c
                        }
                    };
                    Term::Goto(node_at(callee, inner, &mut node_block, &mut node_ctx)?)
                }
                "RET" if last.opcode() == 0x0950 => {
                    if ctx == 0 {
                        return Err(format!("RET at 0x{at:x} outside any call"));
                    }
                    let (parent, ret, _) = contexts[ctx as usize];
                    let back = node_at(ret, parent, &mut node_block, &mut node_ctx)?;
                    if guarded {
                        Term::Cond(back, node_at(block.end, ctx, &mut node_block, &mut node_ctx)?)
                    } else {
                        Term::Goto(back)
                    }
                }
                m => return Err(format!("{m} at 0x{at:x} (unbounded or unsupported control transfer)")),
            }
        };
        terms.push(term);
        i += 1;
    }
    let weights = node_block
        .iter()
        .map(|&b| {
            let bl = &prog.blocks[b as usize];
            (bl.end - bl.start) / 16 * WORDS_PER_INSTRUCTION
        })
        .collect();
    let inlined_nodes = node_ctx.iter().filter(|&&c| c != 0).count();
    let call_sites = contexts.len() - 1;
    Ok(KernelCfg { cfg: Cfg { entry: 0, terms, weights }, node_block, inlined_nodes, call_sites })
}

/// Emits `prog` structured when it can be, else as the dispatch loop. The current function has just begun
/// its first block.
pub fn emit(cx: &mut Ctx<'_>, prog: &Program, indirect: &[IndirectBranch]) -> Result<Form, TranslateError> {
    let kcfg = match kernel_cfg(prog, indirect) {
        Ok(k) => k,
        Err(why) => {
            emit_dispatch(cx, prog)?;
            return Ok(Form::Dispatch(why));
        }
    };
    let s = match structure(&kcfg.cfg, &Limits::default()) {
        Ok(s) => s,
        Err(why) => {
            emit_dispatch(cx, prog)?;
            return Ok(Form::Dispatch(why.to_string()));
        }
    };
    emit_structured(cx, prog, &kcfg, &s)?;
    let reconvergence = reconvergence(prog, &kcfg, &s);
    let inlined = Inlined { call_sites: kcfg.call_sites, nodes: kcfg.inlined_nodes };
    Ok(Form::Structured { report: s.report, reconvergence, inlined })
}

/// What the emitter asks of the code it places: a node's straight-line code, the condition of its two-way
/// terminator, and the selector of its indirect branch. Nodes are input nodes of the structured [`Cfg`].
pub trait NodeCode {
    /// Emits the code of input node `node` (its terminator excluded).
    fn code(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError>;
    /// The condition under which `node`'s terminator takes its first arm (`Cond`) or exits (`CondExit`).
    fn condition(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<Id, TranslateError>;
    /// The selector of `node`'s `Switch` and the selector value of each arm (distinct).
    fn selector(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(Id, Vec<u32>), TranslateError>;
}

/// The blocks of a kernel as [`NodeCode`].
pub struct ProgramCode<'p> {
    pub prog: &'p Program,
    pub kcfg: &'p KernelCfg,
}

impl ProgramCode<'_> {
    fn block(&self, node: u32) -> Option<&crate::program::Block> {
        self.prog.blocks.get(*self.kcfg.node_block.get(node as usize)? as usize)
    }
    fn last(&self, node: u32) -> Option<Inst> {
        self.kcfg.node_block.get(node as usize).and_then(|&b| last_inst(self.prog, b)).copied()
    }
}

impl NodeCode for ProgramCode<'_> {
    fn code(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError> {
        let Some(block) = self.block(node) else { return Ok(()) };
        let first = self.prog.insts.partition_point(|i| i.offset < block.start);
        for inst in self.prog.insts[first..].iter().take_while(|i| i.offset < block.end) {
            let is_last = inst.offset + 16 >= block.end;
            if is_last && block.exit == Exit::Control {
                break; // realised by the structure
            }
            cx.inst = *inst;
            crate::lower::lower(cx)?;
        }
        Ok(())
    }

    fn condition(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<Id, TranslateError> {
        let Some(last) = self.last(node) else { return Err(cx.refuse("branch without a block")) };
        cx.inst = last;
        let guard = last.guard().map(|(p, neg)| cx.pred(u32::from(p), neg));
        let second = if matches!(last.mnemonic, "BRA" | "EXIT") && has_condition(&last) {
            Some(cx.pred(last.bits(87, 3), last.bit(90)))
        } else {
            None
        };
        Ok(match (guard, second) {
            (Some(a), Some(b)) => cx.m.bin(Op::LogicalAnd, cx.t.bool, a, b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => cx.m.c_bool(true),
        })
    }

    fn selector(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(Id, Vec<u32>), TranslateError> {
        let Some(last) = self.last(node) else { return Err(cx.refuse("switch without a block")) };
        cx.inst = last;
        // BRX Rn, imm: the target is Rn plus the encoded base; arm i is the i-th distinct table target
        // (the order kernel_cfg built the switch in).
        let r = cx.reg(last.bits(24, 8) as u8);
        let base = cx.u32c(last.branch_target() as u32);
        let sel = cx.op2(Op::IAdd, r, base);
        let Some(Term::Switch(targets)) = self.kcfg.cfg.terms.get(node as usize) else {
            return Err(cx.refuse("switch node without a table"));
        };
        let mut lits = Vec::with_capacity(targets.len());
        for &t in targets {
            let b = self.kcfg.node_block.get(t as usize).and_then(|&b| self.prog.blocks.get(b as usize));
            lits.push(b.map_or(u32::MAX, |b| b.start));
        }
        Ok((sel, lits))
    }
}

struct Frame {
    label: u32,
    is_loop: bool,
    merge: Id,
    cont: Id,
    /// Some `br` leaves through this construct's merge towards an outer one.
    routed: bool,
}

struct Emitter<'p> {
    src: &'p mut dyn NodeCode,
    s: &'p Structured,
    frames: Vec<Frame>,
    /// Route variable of multi-level breaks (target label + 1; 0 = none).
    brk: Option<Id>,
    routes: HashMap<u32, Id>,
}

/// Emits a structured program of a kernel into the current function.
pub fn emit_structured(
    cx: &mut Ctx<'_>,
    prog: &Program,
    kcfg: &KernelCfg,
    s: &Structured,
) -> Result<(), TranslateError> {
    emit_with(cx, s, &mut ProgramCode { prog, kcfg })
}

/// Emits a structured program into the current function (which has an open block), taking node code from
/// `src`.
pub fn emit_with(cx: &mut Ctx<'_>, s: &Structured, src: &mut dyn NodeCode) -> Result<(), TranslateError> {
    let mut e = Emitter { src, s, frames: Vec::new(), brk: None, routes: HashMap::new() };
    e.stmts(cx, &s.body)?;
    if cx.m.current_block().is_some() {
        cx.m.op_void(Op::Return, &[]);
    }
    Ok(())
}

impl Emitter<'_> {
    fn ensure_open(&self, cx: &mut Ctx<'_>) {
        if cx.m.current_block().is_none() {
            // Code after a terminator is unreachable; SPIR-V still wants it in a block.
            let l = cx.m.id();
            cx.m.label(l);
        }
    }

    fn brk(&mut self, cx: &mut Ctx<'_>) -> Id {
        if let Some(v) = self.brk {
            return v;
        }
        let zero = cx.u32c(0);
        let v = cx.m.local_var(cx.t.fn_u32, Some(zero));
        self.brk = Some(v);
        v
    }

    fn route(&mut self, cx: &mut Ctx<'_>, node: u32) -> Id {
        if let Some(&v) = self.routes.get(&node) {
            return v;
        }
        let zero = cx.u32c(0);
        let v = cx.m.local_var(cx.t.fn_u32, Some(zero));
        self.routes.insert(node, v);
        v
    }

    fn input_of(&self, node: u32) -> Option<u32> {
        self.s.nodes.get(node as usize)?.origin.input()
    }

    fn stmts(&mut self, cx: &mut Ctx<'_>, body: &[Stmt]) -> Result<(), TranslateError> {
        for st in body {
            self.ensure_open(cx);
            match st {
                Stmt::Code(x) => self.code(cx, *x)?,
                Stmt::Block { label, body } | Stmt::Loop { label, body } => {
                    let is_loop = matches!(st, Stmt::Loop { .. });
                    self.construct(cx, *label, is_loop, body)?;
                }
                Stmt::If { node, then_, else_ } => {
                    let c = self.condition(cx, *node)?;
                    let merge = cx.m.id();
                    let t = if then_.is_empty() { merge } else { cx.m.id() };
                    let f = if else_.is_empty() { merge } else { cx.m.id() };
                    cx.m.selection_merge(merge);
                    cx.m.branch_cond(c, t, f);
                    for (arm, label) in [(then_, t), (else_, f)] {
                        if !arm.is_empty() {
                            cx.m.label(label);
                            self.stmts(cx, arm)?;
                            if cx.m.current_block().is_some() {
                                cx.m.branch(merge);
                            }
                        }
                    }
                    cx.m.label(merge);
                }
                Stmt::Switch { node, arms } => self.switch(cx, *node, arms)?,
                Stmt::Br(l) => self.br(cx, *l),
                Stmt::SetRoute { dispatch, value } => {
                    let v = self.route(cx, *dispatch);
                    let c = cx.u32c(*value);
                    cx.m.store(v, c);
                }
                Stmt::Exit => cx.m.op_void(Op::Return, &[]),
            }
        }
        Ok(())
    }

    fn construct(&mut self, cx: &mut Ctx<'_>, label: u32, is_loop: bool, body: &[Stmt]) -> Result<(), TranslateError> {
        let header = cx.m.id();
        let first = cx.m.id();
        let merge = cx.m.id();
        let cont = cx.m.id();
        cx.m.branch(header);
        cx.m.label(header);
        cx.m.loop_merge(merge, cont, LoopControl::NONE);
        cx.m.branch(first);
        cx.m.label(first);
        self.frames.push(Frame { label, is_loop, merge, cont, routed: false });
        self.stmts(cx, body)?;
        if cx.m.current_block().is_some() {
            cx.m.branch(merge);
        }
        let frame = self.frames.pop();
        cx.m.label(cont);
        cx.m.branch(header);
        cx.m.label(merge);
        if frame.is_some_and(|f| f.routed) {
            self.route_check(cx);
        }
        Ok(())
    }

    /// After a construct some `br` left early: continue breaking outward, or stop at the target.
    fn route_check(&mut self, cx: &mut Ctx<'_>) {
        let Some(p) = self.frames.last() else { return };
        let (plabel, pmerge, pcont, ploop) = (p.label, p.merge, p.cont, p.is_loop);
        let brk = self.brk(cx);
        let t = cx.t;
        let v = cx.m.load(t.u32, brk);
        let zero = cx.u32c(0);
        let pending = cx.m.bin(Op::INotEqual, t.bool, v, zero);
        let go = cx.m.id();
        let stay = cx.m.id();
        cx.m.selection_merge(stay);
        cx.m.branch_cond(pending, go, stay);
        cx.m.label(go);
        let me = cx.u32c(plabel + 1);
        let here = cx.m.bin(Op::IEqual, t.bool, v, me);
        let next = cx.sel(here, zero, v);
        cx.m.store(brk, next);
        if ploop {
            cx.m.branch_cond(here, pcont, pmerge);
        } else {
            cx.m.branch(pmerge);
        }
        cx.m.label(stay);
    }

    fn br(&mut self, cx: &mut Ctx<'_>, label: u32) {
        let Some(i) = self.frames.iter().rposition(|f| f.label == label) else {
            // The checker rules this out; an unknown label leaves the kernel rather than panicking.
            cx.m.op_void(Op::Return, &[]);
            return;
        };
        let k = self.frames.len() - 1;
        if i == k {
            let f = &self.frames[k];
            let to = if f.is_loop { f.cont } else { f.merge };
            cx.m.branch(to);
            return;
        }
        let brk = self.brk(cx);
        let c = cx.u32c(label + 1);
        cx.m.store(brk, c);
        for f in &mut self.frames[i + 1..] {
            f.routed = true;
        }
        let merge = self.frames[k].merge;
        cx.m.branch(merge);
    }

    fn code(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError> {
        match self.input_of(node) {
            Some(i) => self.src.code(cx, i),
            None => Ok(()), // dispatch headers have no code
        }
    }

    fn condition(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<Id, TranslateError> {
        match self.input_of(node) {
            Some(i) => self.src.condition(cx, i),
            None => Err(cx.refuse("branch on a dispatch header")),
        }
    }

    fn switch(&mut self, cx: &mut Ctx<'_>, node: u32, arms: &[Vec<Stmt>]) -> Result<(), TranslateError> {
        let merge = cx.m.id();
        let labels: Vec<Id> = arms.iter().map(|_| cx.m.id()).collect();
        let dispatch = matches!(self.s.nodes.get(node as usize).map(|n| n.origin), Some(Origin::Dispatch(_)));
        let (selector, literals, default) = if dispatch {
            let v = self.route(cx, node);
            let sel = cx.m.load(cx.t.u32, v);
            (sel, (0..arms.len() as u32).collect::<Vec<_>>(), merge)
        } else {
            let Some(i) = self.input_of(node) else { return Err(cx.refuse("switch without a node")) };
            let (sel, lits) = self.src.selector(cx, i)?;
            let exit = cx.m.id();
            (sel, lits, exit)
        };
        cx.m.selection_merge(merge);
        let cases: Vec<(u32, Id)> = literals.iter().copied().zip(labels.iter().copied()).collect();
        cx.m.switch(selector, default, &cases);
        if default != merge {
            // An offset outside the table leaves the kernel, as the dispatch loop's default does.
            cx.m.label(default);
            cx.m.op_void(Op::Return, &[]);
        }
        for (arm, label) in arms.iter().zip(&labels) {
            cx.m.label(*label);
            self.stmts(cx, arm)?;
            if cx.m.current_block().is_some() {
                cx.m.branch(merge);
            }
        }
        cx.m.label(merge);
        Ok(())
    }
}
