//! Control flow, second form: structured selections and loops (the default goal; see `crate::structure`).
//!
//! The kernel's blocks become a [`Cfg`]: a branch with a guard or condition predicate is a two-way node,
//! `@P EXIT` a conditional exit, `BRX` with a jump table from `.nv.info` a switch. Direct calls to device
//! functions are inlined per call site (each call's blocks are their own nodes, and `RET` continues at that
//! call's return point: nvcc's calling convention puts exactly that address in the return register), so
//! the graph is static. A call through a register (`CALL.REL Rn`, `CALL.ABS Rn`) is a switch over the
//! address-taken functions of the cubin, each inlined for that call site. Recursion cannot be inlined (and
//! SPIR-V forbids recursive `OpFunctionCall`): a recursive function, and every function that can call one, is
//! kept as one copy whose `RET` is a switch on the return register over the return points of all its calls
//! ([`SharedFunction`]); the guest's own stack frame keeps the return register across nested calls, exactly
//! as on silicon, so the structurizer sees an ordinary loop and the rest of the kernel stays structured. A
//! switch value outside its table is a control fault (`abi::FAULT_KIND_CONTROL`). `BRX` without a table,
//! `JMP`/`JMX`, predicated calls through a register and structurizer refusals fall back to the whole-kernel dispatch loop,
//! with the reason in [`Form`].
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
use crate::program::{is_indirect_call, Exit, Inst, Program};
use crate::spirv::{Id, LoopControl, Op};
use crate::structure::{structure, Cfg, Limits, Origin, Stmt, StructureReport, Structured, Term};
use std::collections::HashMap;

/// Which form a kernel's control flow got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// `warps_as_subgroups`: the kernel's warp instructions are subgroup operations (`lower::subgroup`).
    Structured {
        report: StructureReport,
        reconvergence: Reconvergence,
        inlined: Inlined,
        shared: Vec<SharedFunction>,
        warps_as_subgroups: bool,
    },
    /// The whole-kernel dispatch loop, and why.
    Dispatch(String),
    /// Warps in turns (`crate::control::turns`): the kernel has warp-synchronous instructions, and `why` they
    /// do not run as subgroups.
    Turns { blocks: usize, why: String },
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
    /// Offsets of `BSYNC`s inside functions kept as one copy (recursion) that are not after a merge: the
    /// return switch joins frames of different depths there, which SM86 keeps apart. Unobservable without
    /// warp instructions.
    pub moved_in_recursion: Vec<u32>,
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Form::Structured { report, reconvergence: r, inlined, shared, warps_as_subgroups } => {
                write!(f, "{report}")?;
                if inlined.call_sites > 0 {
                    write!(f, ", {} call sites inlined ({} blocks)", inlined.call_sites, inlined.nodes)?;
                }
                if !shared.is_empty() {
                    let fs: Vec<String> = shared
                        .iter()
                        .map(|s| {
                            let kind = if s.recursive { "recursive" } else { "calls a recursive one" };
                            format!("0x{:x} ({kind}, returns to {} points)", s.entry, s.return_points)
                        })
                        .collect();
                    let n = shared.len();
                    let what = if n == 1 { "function" } else { "functions" };
                    write!(f, ", {n} {what} kept as one copy, returning through a switch on the return register: {}", fs.join(", "))?;
                }
                write!(f, "; BSYNC reconvergence kept {}/{}", r.kept, r.points)?;
                if !r.moved.is_empty() {
                    let offs: Vec<String> = r.moved.iter().map(|o| format!("0x{o:x}")).collect();
                    write!(f, " (moved: {})", offs.join(", "))?;
                }
                if !r.moved_in_recursion.is_empty() {
                    let offs: Vec<String> = r.moved_in_recursion.iter().map(|o| format!("0x{o:x}")).collect();
                    write!(f, " (inside recursion, not at a merge: {})", offs.join(", "))?;
                }
                if *warps_as_subgroups {
                    write!(f, "; warps as 32-wide subgroups")?;
                }
                Ok(())
            }
            Form::Dispatch(why) => write!(f, "dispatch loop: {why}"),
            Form::Turns { blocks, why } => write!(f, "warps in turns ({why}): {blocks} turn blocks"),
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
        } else if kcfg.node_shared.get(input as usize).copied().unwrap_or(false) {
            r.moved_in_recursion.push(block.start);
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
    /// Functions kept as one copy (recursive ones and their callers), by entry.
    pub shared: Vec<SharedFunction>,
    /// For each node: it is a block of a function kept as one copy.
    pub node_shared: Vec<bool>,
}

/// A device function the structured form keeps as one copy, returning through a switch over its return
/// points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedFunction {
    pub entry: u32,
    /// On a cycle of the call graph (otherwise it calls one that is).
    pub recursive: bool,
    /// Return points its `RET` switches over.
    pub return_points: usize,
}

fn last_inst(prog: &Program, block: u32) -> Option<&Inst> {
    let b = prog.blocks.get(block as usize)?;
    prog.inst_at(b.end.checked_sub(16)?)
}

/// `BRA`/`EXIT` with a second predicate operand (bits 89:87 not PT, or negated by bit 90).
fn has_condition(i: &Inst) -> bool {
    // BRA.U (uniform predicate) and BRA.DIV/BRA.CONV (divergence test) have the 0x1000 opcode bit.
    i.bits(87, 3) != 7 || i.bit(90) || (i.mnemonic == "BRA" && i.opcode() & 0x1000 != 0)
}

/// The graph of `prog` with calls inlined, or why the structured form does not apply.
pub fn kernel_cfg(prog: &Program, indirect: &[IndirectBranch]) -> Result<KernelCfg, String> {
    let index_of = |off: u32| prog.blocks.binary_search_by_key(&off, |b| b.start).ok().map(|i| i as u32);
    let entry_block = index_of(prog.entry).ok_or("no block at the entry")?;
    let calls = CallGraph::build(prog, indirect)?;
    // Contexts: the kernel (0), one per inlined call site, one per shared function.
    let mut contexts: Vec<Context> = vec![Context::Kernel];
    let mut context_ids: HashMap<Context, u32> = HashMap::new();
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
                // BRA, BRA.U (uniform predicate) and BRA.DIV/BRA.CONV (warp divergence test), all with an
                // immediate target.
                "BRA" if matches!(last.opcode(), 0x0947 | 0x1547 | 0x1947) => {
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
                    let mut targets = Vec::new();
                    for t in jump_table(prog, indirect, b)? {
                        targets.push(node_at(t, ctx, &mut node_block, &mut node_ctx)?);
                    }
                    Term::Switch(targets)
                }
                // A predicated direct call runs the callee when its guard holds and otherwise goes on at the
                // return point. ptxas also uses `@P CALL.REL.NOINC` as a loop's exit jump (to the code after
                // the loop's closing BRA, which no RET leaves): inlined for its one call site, that is the jump.
                "CALL" if last.opcode() == 0x0944 => {
                    let callee = last.branch_target() as u32;
                    let c = callee_context(&calls, ctx, block.end, callee, &mut contexts, &mut context_ids)?;
                    let enter = node_at(callee, c, &mut node_block, &mut node_ctx)?;
                    if guarded || has_condition(last) {
                        Term::Cond(enter, node_at(block.end, ctx, &mut node_block, &mut node_ctx)?)
                    } else {
                        Term::Goto(enter)
                    }
                }
                "CALL" if guarded || has_condition(last) => {
                    return Err(format!("predicated CALL through a register at 0x{at:x}"))
                }
                "CALL" if is_indirect_call(last) => {
                    if prog.call_targets.is_empty() {
                        return Err(format!("CALL through a register at 0x{at:x} and no address-taken function"));
                    }
                    let mut targets = Vec::new();
                    for &f in &prog.call_targets {
                        let c = callee_context(&calls, ctx, block.end, f, &mut contexts, &mut context_ids)?;
                        targets.push(node_at(f, c, &mut node_block, &mut node_ctx)?);
                    }
                    Term::Switch(targets)
                }
                "RET" if last.opcode() == 0x0950 => match contexts[ctx as usize] {
                    Context::Kernel => return Err(format!("RET at 0x{at:x} outside any call")),
                    Context::Inlined { parent, ret, .. } => {
                        let back = node_at(ret, parent, &mut node_block, &mut node_ctx)?;
                        if guarded {
                            Term::Cond(back, node_at(block.end, ctx, &mut node_block, &mut node_ctx)?)
                        } else {
                            Term::Goto(back)
                        }
                    }
                    Context::Shared { entry } => {
                        if guarded {
                            return Err(format!("predicated RET at 0x{at:x} in a recursive function"));
                        }
                        // Every call site of the function, each in the one context its caller has.
                        let mut targets = Vec::new();
                        for &(ret, caller) in calls.return_points.get(&entry).map_or(&[][..], |v| v) {
                            let c = match caller {
                                None => 0,
                                Some(g) => intern_context(Context::Shared { entry: g }, &mut contexts, &mut context_ids),
                            };
                            targets.push(node_at(ret, c, &mut node_block, &mut node_ctx)?);
                        }
                        Term::Switch(targets)
                    }
                },
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
    let inlined_nodes =
        node_ctx.iter().filter(|&&c| matches!(contexts[c as usize], Context::Inlined { .. })).count();
    let call_sites = contexts.iter().filter(|c| matches!(c, Context::Inlined { .. })).count();
    let shared = calls
        .shared
        .iter()
        .map(|&entry| SharedFunction {
            entry,
            recursive: calls.recursive.contains(&entry),
            return_points: calls.return_points.get(&entry).map_or(0, |v| v.len()),
        })
        .collect();
    let node_shared = node_ctx.iter().map(|&c| matches!(contexts[c as usize], Context::Shared { .. })).collect();
    Ok(KernelCfg { cfg: Cfg { entry: 0, terms, weights }, node_block, inlined_nodes, call_sites, shared, node_shared })
}

fn intern_context(c: Context, contexts: &mut Vec<Context>, ids: &mut HashMap<Context, u32>) -> u32 {
    *ids.entry(c).or_insert_with(|| {
        contexts.push(c);
        contexts.len() as u32 - 1
    })
}

/// The context a call from `ctx` (returning to `ret`) runs `callee` in: the shared function's one copy, or a
/// copy of the callee for this call site.
fn callee_context(
    calls: &CallGraph,
    ctx: u32,
    ret: u32,
    callee: u32,
    contexts: &mut Vec<Context>,
    ids: &mut HashMap<Context, u32>,
) -> Result<u32, String> {
    if calls.shared.binary_search(&callee).is_ok() {
        return Ok(intern_context(Context::Shared { entry: callee }, contexts, ids));
    }
    // Not shared means not recursive: the callee is never active in this context chain.
    let mut c = ctx;
    while let Context::Inlined { parent, callee: active, .. } = contexts[c as usize] {
        if active == callee {
            return Err(format!("recursive call of 0x{callee:x} outside the call graph"));
        }
        c = parent;
    }
    Ok(intern_context(Context::Inlined { parent: ctx, ret, callee }, contexts, ids))
}

/// Where a node's code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Context {
    /// The kernel's own code.
    Kernel,
    /// A copy of `callee` for the call in context `parent` that returns to `ret`.
    Inlined { parent: u32, ret: u32, callee: u32 },
    /// The one copy of a shared function (recursive, or a caller of one).
    Shared { entry: u32 },
}

/// The targets of the `BRX` ending block `b`: the table from `.nv.info`, or the CFG's successors, deduplicated.
fn jump_table(prog: &Program, indirect: &[IndirectBranch], b: u32) -> Result<Vec<u32>, String> {
    let block = &prog.blocks[b as usize];
    let at = block.end - 16;
    let table: &[u32] = match indirect.iter().find(|t| t.offset == at) {
        Some(t) => &t.targets,
        None if !block.successors.is_empty() => &block.successors,
        None => return Err(format!("BRX at 0x{at:x} has no jump table in .nv.info")),
    };
    let mut seen = Vec::new();
    for &t in table {
        if !seen.contains(&t) {
            seen.push(t);
        }
    }
    Ok(seen)
}

/// The device functions of a program and who calls whom.
///
/// A function's blocks are those reached from its entry without entering a callee (a `CALL` continues at its
/// return point). A function on a cycle of the call graph is recursive; it and every function that can reach
/// it are *shared*: they get one copy in the structured graph instead of one per call site, and their `RET`
/// becomes a switch over the return points of all their calls. That is exact because the return register
/// holds the return point (nvcc's convention, and the callee saves it in its local-memory frame across nested
/// calls, so the guest's own stack is the return stack); a value that is none of them is a runtime fault.
struct CallGraph {
    /// Shared functions, sorted by entry.
    shared: Vec<u32>,
    recursive: Vec<u32>,
    /// For each shared function: (return point, the shared function making the call or `None` for the
    /// kernel) of every call that may reach it, sorted by return point.
    return_points: HashMap<u32, Vec<(u32, Option<u32>)>>,
}

/// Most device functions the call graph analysis takes (each is walked once per function).
const MAX_FUNCTIONS: usize = 4096;

impl CallGraph {
    fn build(prog: &Program, indirect: &[IndirectBranch]) -> Result<CallGraph, String> {
        let index_of = |off: u32| prog.blocks.binary_search_by_key(&off, |b| b.start).ok();
        // Function entries: direct call targets and address-taken functions.
        let mut entries: Vec<u32> = prog.call_targets.clone();
        for b in &prog.blocks {
            if let Some(last) = last_inst_of(prog, b) {
                if last.mnemonic == "CALL" && last.opcode() == 0x0944 {
                    entries.push(last.branch_target() as u32);
                }
            }
        }
        entries.sort_unstable();
        entries.dedup();
        if entries.is_empty() {
            return Ok(CallGraph { shared: Vec::new(), recursive: Vec::new(), return_points: HashMap::new() });
        }
        if entries.len() > MAX_FUNCTIONS {
            return Err(format!("more than {MAX_FUNCTIONS} device functions"));
        }
        // Blocks and callees of each function (index 0 is the kernel).
        let roots: Vec<u32> = std::iter::once(prog.entry).chain(entries.iter().copied()).collect();
        let mut blocks_of: Vec<Vec<usize>> = Vec::with_capacity(roots.len());
        let mut callees_of: Vec<Vec<usize>> = Vec::with_capacity(roots.len());
        for &root in &roots {
            let mut seen = vec![false; prog.blocks.len()];
            let mut mine = Vec::new();
            let mut callees = Vec::new();
            let mut work: Vec<usize> = index_of(root).into_iter().collect();
            while let Some(b) = work.pop() {
                if std::mem::replace(&mut seen[b], true) {
                    continue;
                }
                mine.push(b);
                let block = &prog.blocks[b];
                let mut next: Vec<u32> = Vec::new();
                match last_inst_of(prog, block) {
                    Some(last) if block.exit == Exit::Control && last.mnemonic == "CALL" => {
                        let targets: Vec<u32> = if last.opcode() == 0x0944 {
                            vec![last.branch_target() as u32]
                        } else if is_indirect_call(last) {
                            prog.call_targets.clone()
                        } else {
                            Vec::new()
                        };
                        for t in targets {
                            if let Ok(k) = entries.binary_search(&t) {
                                callees.push(k + 1);
                            }
                        }
                        next.push(block.end);
                    }
                    Some(last) if block.exit == Exit::Control && last.mnemonic == "BRX" => {
                        next.extend(jump_table(prog, indirect, b as u32).unwrap_or_default());
                    }
                    _ => next.extend_from_slice(&block.successors),
                }
                work.extend(next.into_iter().filter_map(index_of));
            }
            callees.sort_unstable();
            callees.dedup();
            blocks_of.push(mine);
            callees_of.push(callees);
        }
        // What each function reaches through calls.
        let n = roots.len();
        let reach: Vec<Vec<bool>> = (0..n)
            .map(|f| {
                let mut r = vec![false; n];
                let mut work = callees_of[f].clone();
                while let Some(g) = work.pop() {
                    if !std::mem::replace(&mut r[g], true) {
                        work.extend_from_slice(&callees_of[g]);
                    }
                }
                r
            })
            .collect();
        let recursive_idx: Vec<usize> = (1..n).filter(|&f| reach[f][f]).collect();
        let shared_idx: Vec<usize> =
            (1..n).filter(|&f| reach[f][f] || recursive_idx.iter().any(|&r| reach[f][r])).collect();
        if shared_idx.is_empty() {
            return Ok(CallGraph { shared: Vec::new(), recursive: Vec::new(), return_points: HashMap::new() });
        }
        // The one context of each block that may call a shared function: the kernel or a shared function.
        let mut owner: HashMap<usize, Option<u32>> = HashMap::new();
        for f in std::iter::once(0).chain(shared_idx.iter().copied()) {
            let who = (f != 0).then(|| roots[f]);
            for &b in &blocks_of[f] {
                if let Some(prev) = owner.insert(b, who) {
                    if prev != who {
                        return Err(format!(
                            "block at 0x{:x} belongs to two functions on a recursive call path",
                            prog.blocks[b].start
                        ));
                    }
                }
            }
        }
        let mut return_points: HashMap<u32, Vec<(u32, Option<u32>)>> = HashMap::new();
        for (&b, &who) in &owner {
            let block = &prog.blocks[b];
            let Some(last) = last_inst_of(prog, block) else { continue };
            if block.exit != Exit::Control || last.mnemonic != "CALL" {
                continue;
            }
            let targets: Vec<u32> = if last.opcode() == 0x0944 {
                vec![last.branch_target() as u32]
            } else if is_indirect_call(last) {
                prog.call_targets.clone()
            } else {
                Vec::new()
            };
            for t in targets {
                if shared_idx.iter().any(|&s| roots[s] == t) {
                    return_points.entry(t).or_default().push((block.end, who));
                }
            }
        }
        for v in return_points.values_mut() {
            v.sort_unstable();
        }
        Ok(CallGraph {
            shared: shared_idx.iter().map(|&f| roots[f]).collect(),
            recursive: recursive_idx.iter().map(|&f| roots[f]).collect(),
            return_points,
        })
    }
}

fn last_inst_of<'p>(prog: &'p Program, b: &crate::program::Block) -> Option<&'p Inst> {
    prog.inst_at(b.end.checked_sub(16)?)
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
    Ok(Form::Structured { report: s.report, reconvergence, inlined, shared: kcfg.shared, warps_as_subgroups: false })
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
    /// Emits what happens when `node`'s selector matches no arm, before the invocation stops (a fault record
    /// for a translated kernel; nothing by default).
    fn unknown_target(&mut self, _cx: &mut Ctx<'_>, _node: u32) -> Result<(), TranslateError> {
        Ok(())
    }
    /// The SASS offset `node` starts at (named by a loop-limit fault), if it has one.
    fn pc(&self, _node: u32) -> Option<u32> {
        None
    }
    /// SASS instructions of `node` (sizes unrolled loop bodies).
    fn instructions(&self, _node: u32) -> u32 {
        1
    }
    /// When `node` is a one-block loop that ends by itself within a few iterations per entry
    /// ([`super::counted::trip_bound`]): that bound. `None` keeps the loop's abort poll.
    fn trip_bound(&self, _node: u32) -> Option<u32> {
        None
    }
}

/// The blocks of a kernel as [`NodeCode`].
pub struct ProgramCode<'p> {
    pub prog: &'p Program,
    pub kcfg: &'p KernelCfg,
    /// The 64-bit target value of the last selector computed (reported by a control fault).
    pub target: Option<Id>,
    /// Shared accesses that get a subgroup memory barrier first (warps as subgroups only:
    /// [`super::lockstep::fence_points`]).
    pub fences: std::collections::BTreeSet<u32>,
}

impl ProgramCode<'_> {
    fn block(&self, node: u32) -> Option<&crate::program::Block> {
        self.prog.blocks.get(*self.kcfg.node_block.get(node as usize)? as usize)
    }
    fn last(&self, node: u32) -> Option<Inst> {
        self.kcfg.node_block.get(node as usize).and_then(|&b| last_inst(self.prog, b)).copied()
    }
}

impl ProgramCode<'_> {
    /// An inlined `RET` continues at its call's return point; the return register must name that point (it
    /// does under nvcc's calling convention). Any other value is a control fault, as in the dispatch form,
    /// rather than a silent return to the call site.
    fn check_return(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError> {
        let Some(last) = self.last(node) else { return Ok(()) };
        if last.mnemonic != "RET" || last.opcode() != 0x0950 {
            return Ok(());
        }
        let back = match self.kcfg.cfg.terms.get(node as usize) {
            Some(Term::Goto(t)) | Some(Term::Cond(t, _)) => *t,
            _ => return Ok(()), // a shared function's return switch checks in its default
        };
        let Some(expected) = self.block(back).map(|b| b.start) else { return Ok(()) };
        cx.inst = last;
        let t = cx.t;
        let (sel, value) = super::indirect_target(cx, self.prog, &last)?;
        let want = cx.u32c(expected);
        let mut bad = cx.m.bin(Op::INotEqual, t.bool, sel, want);
        if let Some((p, neg)) = last.guard() {
            let g = cx.pred(u32::from(p), neg);
            bad = cx.m.bin(Op::LogicalAnd, t.bool, bad, g);
        }
        let merge = cx.begin_if(bad);
        super::control_fault(cx, value);
        leave(cx);
        cx.m.label(merge);
        Ok(())
    }
}

impl NodeCode for ProgramCode<'_> {
    fn code(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError> {
        let Some(block) = self.block(node) else { return Ok(()) };
        let first = self.prog.insts.partition_point(|i| i.offset < block.start);
        let mut insts = &self.prog.insts[first..];
        insts = &insts[..insts.partition_point(|i| i.offset < block.end)];
        if block.exit == Exit::Control {
            insts = &insts[..insts.len().saturating_sub(1)]; // the terminator is realised by the structure
        }
        let fences = &self.fences;
        crate::lower::shared_fma::lower_block(cx, insts, |cx, inst| {
            cx.inst = *inst;
            if fences.contains(&inst.offset) {
                super::lockstep::lane_fence(cx);
            }
            crate::lower::lower(cx)
        })?;
        self.check_return(cx, node)
    }

    fn condition(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<Id, TranslateError> {
        let Some(last) = self.last(node) else { return Err(cx.refuse("branch without a block")) };
        cx.inst = last;
        let guard = last.guard().map(|(p, neg)| cx.pred(u32::from(p), neg));
        let second = if matches!(last.mnemonic, "BRA" | "EXIT" | "CALL") { super::branch_condition(cx, &last)? } else { None };
        Ok(match (guard, second) {
            (Some(a), Some(b)) => cx.m.bin(Op::LogicalAnd, cx.t.bool, a, b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => cx.m.c_bool(true),
        })
    }

    fn selector(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(Id, Vec<u32>), TranslateError> {
        let Some(last) = self.last(node) else { return Err(cx.refuse("switch without a block")) };
        cx.inst = last;
        // BRX Rn / RET.REL Rn / CALL Rn: the register (plus the encoded base) names the target; arm i is the
        // i-th target of the node's Switch (jump-table entry, return point or address-taken function).
        let (sel, target) = super::indirect_target(cx, self.prog, &last)?;
        self.target = Some(target);
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

    fn pc(&self, node: u32) -> Option<u32> {
        self.block(node).map(|b| b.start)
    }

    fn trip_bound(&self, node: u32) -> Option<u32> {
        let block = self.block(node)?;
        let first = self.prog.insts.partition_point(|i| i.offset < block.start);
        let n = self.prog.insts[first..].iter().take_while(|i| i.offset < block.end).count();
        super::counted::trip_bound(block.start, self.prog.insts.get(first..first + n)?)
    }

    fn instructions(&self, node: u32) -> u32 {
        self.block(node).map_or(1, |b| {
            let n = (b.end.saturating_sub(b.start) / 16).max(1);
            // A call expands far past one instruction (builtins such as malloc are inlined with loops of their
            // own): it weighs the whole unroll budget, so the loop quirk never copies a loop that holds one.
            let calls = (b.start..b.end)
                .step_by(16)
                .filter(|&o| self.prog.inst_at(o).is_some_and(|i| i.mnemonic == "CALL"))
                .count() as u32;
            n.saturating_add(calls.saturating_mul(super::guard::UNROLL_BUDGET_INSTRUCTIONS))
        })
    }

    fn unknown_target(&mut self, cx: &mut Ctx<'_>, node: u32) -> Result<(), TranslateError> {
        let Some(last) = self.last(node) else { return Ok(()) };
        cx.inst = last;
        let value = match self.target {
            Some(v) => v,
            None => cx.m.c_u64(0),
        };
        super::control_fault(cx, value);
        Ok(())
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
    // Warps as subgroups: lanes that may observe each other's shared accesses are ordered by a fence.
    let fences = if cx.subgroup.is_some() { super::lockstep::fence_points(prog) } else { Default::default() };
    emit_with(cx, s, &mut ProgramCode { prog, kcfg, target: None, fences })
}

/// The thread exits: warps as subgroups count it out of block barriers first (`lower::subgroup::exited`).
/// Where the device leaves loops on its own, a last check first: a loop cut anywhere fails the launch.
fn leave(cx: &mut Ctx<'_>) {
    if let Some(spent) = super::guard::budget_spent(cx) {
        let merge = cx.begin_if(spent);
        let pc = cx.u32c(cx.inst.offset);
        super::guard::record_loop_limit(cx, pc);
        cx.end_if(merge);
    }
    crate::lower::subgroup::exited(cx);
    crate::lower::attribute::at_exit(cx);
    cx.m.op_void(Op::Return, &[]);
}

/// The thread stops without the last loop-limit check (the host asked the launch to end).
fn stop(cx: &mut Ctx<'_>) {
    crate::lower::subgroup::exited(cx);
    cx.m.op_void(Op::Return, &[]);
}

/// Emits a structured program into the current function (which has an open block), taking node code from
/// `src`.
pub fn emit_with(cx: &mut Ctx<'_>, s: &Structured, src: &mut dyn NodeCode) -> Result<(), TranslateError> {
    let mut e = Emitter { src, s, frames: Vec::new(), brk: None, routes: HashMap::new() };
    e.stmts(cx, &s.body)?;
    if cx.m.current_block().is_some() {
        leave(cx);
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
                Stmt::Block { label, body } => self.construct(cx, *label, false, body)?,
                Stmt::Loop { label, body } => self.loop_construct(cx, *label, body)?,
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
                Stmt::Exit => leave(cx),
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

    /// A `Loop` statement: the construct of [`Emitter::construct`] plus what every loop carries
    /// (`control::guard`): an abort poll at the top of each iteration and, where the device leaves loops on
    /// its own, a loop-limit check at the merge and, for an innermost loop, its body unrolled. An unrolled
    /// body is `Block L { body }` copies (a `br L`, the loop's continue, leaves the copy into the next one)
    /// before the body itself; a copy that falls off its end leaves the loop, as the body does.
    fn loop_construct(&mut self, cx: &mut Ctx<'_>, label: u32, body: &[Stmt]) -> Result<(), TranslateError> {
        let pc = self.first_pc(body).unwrap_or(cx.inst.offset);
        // The loop-limit check goes after outermost loops only: once the device's budget is spent it stays
        // spent, so a cut inner loop is caught after its outermost loop, and inner loops' exits (a recursive
        // function's return switch runs thousands) do not spend the budget on checks.
        let outermost = !self.frames.iter().any(|f| f.is_loop);
        let unroll = if simple(body) { cx.loops.unroll_factor(self.instructions(body)) } else { 1 };
        // A loop that ends by itself within a few iterations needs no poll (`control::counted`); under a
        // device loop limit every loop keeps it, since the limiter's checks share its counter.
        let polled = cx.loops.limit.is_some() || self.trip_bound(body).is_none();
        let header = cx.m.id();
        let first = cx.m.id();
        let merge = cx.m.id();
        let cont = cx.m.id();
        let fell = (unroll > 1).then(|| {
            let f = cx.m.c_bool(false);
            let v = cx.m.local_var(cx.t.fn_bool, Some(f));
            cx.m.store(v, f);
            v
        });
        cx.m.branch(header);
        cx.m.label(header);
        cx.m.loop_merge(merge, cont, LoopControl::NONE);
        cx.m.branch(first);
        cx.m.label(first);
        if polled {
            super::guard::poll_weighted_or_break(cx, unroll, merge);
        }
        self.frames.push(Frame { label, is_loop: true, merge, cont, routed: false });
        if let Some(fell) = fell {
            for _ in 1..unroll {
                self.unrolled_copy(cx, label, body, fell)?;
                let f = cx.m.load(cx.t.bool, fell);
                let next = cx.m.id();
                cx.m.selection_merge(next);
                cx.m.branch_cond(f, merge, next);
                cx.m.label(next);
            }
        }
        self.stmts(cx, body)?;
        if cx.m.current_block().is_some() {
            cx.m.branch(merge);
        }
        let frame = self.frames.pop();
        cx.m.label(cont);
        match super::guard::never_exit(cx) {
            Some(wrapped) => cx.m.branch_cond(wrapped, merge, header),
            None => cx.m.branch(header),
        }
        cx.m.label(merge);
        if polled {
            let aborted = super::guard::aborted_at_merge(cx);
            let go_on = cx.begin_if(aborted);
            stop(cx);
            cx.m.label(go_on);
        }
        if let Some(spent) = outermost.then(|| super::guard::budget_spent(cx)).flatten() {
            let ok = cx.begin_if(spent);
            let at = cx.u32c(pc);
            super::guard::record_loop_limit(cx, at);
            stop(cx);
            cx.m.label(ok);
        }
        if frame.is_some_and(|f| f.routed) {
            self.route_check(cx);
        }
        Ok(())
    }

    /// One copy of an unrolled loop body (see [`Emitter::loop_construct`]); falling off its end sets `fell`.
    fn unrolled_copy(&mut self, cx: &mut Ctx<'_>, label: u32, body: &[Stmt], fell: Id) -> Result<(), TranslateError> {
        let header = cx.m.id();
        let first = cx.m.id();
        let merge = cx.m.id();
        let cont = cx.m.id();
        cx.m.branch(header);
        cx.m.label(header);
        cx.m.loop_merge(merge, cont, LoopControl::NONE);
        cx.m.branch(first);
        cx.m.label(first);
        self.frames.push(Frame { label, is_loop: false, merge, cont, routed: false });
        self.stmts(cx, body)?;
        if cx.m.current_block().is_some() {
            let yes = cx.m.c_bool(true);
            cx.m.store(fell, yes);
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

    /// The SASS offset of the first node of `body` (a loop's header block).
    fn first_pc(&self, body: &[Stmt]) -> Option<u32> {
        for st in body {
            let found = match st {
                Stmt::Code(x) => self.input_of(*x).and_then(|i| self.src.pc(i)),
                Stmt::Block { body, .. } | Stmt::Loop { body, .. } => self.first_pc(body),
                _ => None,
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// The trip bound of a loop whose `body` holds the code of a single node and no loop of its own (a
    /// one-block SASS loop: every iteration runs that node and continues only by its back edge).
    fn trip_bound(&self, body: &[Stmt]) -> Option<u32> {
        fn nodes(body: &[Stmt], out: &mut Vec<u32>) -> bool {
            body.iter().all(|st| match st {
                Stmt::Code(x) => {
                    out.push(*x);
                    true
                }
                Stmt::Block { body, .. } => nodes(body, out),
                Stmt::If { node, then_, else_ } => {
                    out.push(*node);
                    nodes(then_, out) && nodes(else_, out)
                }
                Stmt::Br(_) => true,
                _ => false,
            })
        }
        let mut found = Vec::new();
        if !nodes(body, &mut found) {
            return None;
        }
        found.sort_unstable();
        found.dedup();
        match found.as_slice() {
            [x] => self.src.trip_bound(self.input_of(*x)?),
            _ => None,
        }
    }

    /// SASS instructions in `body`, every arm counted.
    fn instructions(&self, body: &[Stmt]) -> u32 {
        let mut n = 0u32;
        for st in body {
            n = n.saturating_add(match st {
                Stmt::Code(x) => self.input_of(*x).map_or(0, |i| self.src.instructions(i)),
                Stmt::Block { body, .. } | Stmt::Loop { body, .. } => self.instructions(body),
                Stmt::If { then_, else_, .. } => self.instructions(then_).saturating_add(self.instructions(else_)),
                Stmt::Switch { arms, .. } => arms.iter().fold(0u32, |a, b| a.saturating_add(self.instructions(b))),
                _ => 0,
            });
        }
        n
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
            // A target outside the table is a control fault; the invocation stops.
            cx.m.label(default);
            if let Some(i) = self.input_of(node) {
                self.src.unknown_target(cx, i)?;
            }
            leave(cx);
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

/// Whether a loop body is one the loop quirk unrolls: straight code and `if`s only (no loop, block or
/// switch inside). Mesa removes the single-pass constructs that hold the copies of such a body, so a copy
/// costs none of lavapipe's loop budget; copies holding constructs of their own stayed loops there and cost
/// one iteration each (the recursive `calls_recursive` ran out of budget with them).
fn simple(body: &[Stmt]) -> bool {
    body.iter().all(|st| match st {
        Stmt::Loop { .. } | Stmt::Block { .. } | Stmt::Switch { .. } => false,
        Stmt::If { then_, else_, .. } => simple(then_) && simple(else_),
        _ => true,
    })
}
