//! Few copies of the exact FP64 fused multiply-add for kernels with many: segment loops and, in the
//! pc-dispatch loop, one body for the whole kernel.
//!
//! Drivers inline every SPIR-V function call (Mesa always; NVIDIA's compiler too), so the exact DFMA helper
//! (`exact::fma64`, ~330 instructions) or soft double's integer FMA (`soft_f64::fma`) is copied at
//! each call site: libdevice's double code has thousands (`math_f64_special`: 2,483 DFMA sites, ~800 k
//! instructions after inlining, which llvmpipe did not compile in 30 minutes). A site is a DFMA, or a
//! DADD/DMUL where it takes the same helper (directed modes; every one under soft double); `fp64`
//! splits a site into reading its operands and writing its result.
//!
//! - Structured form, [`lower_block`]: a block with at least [`MIN_BLOCK_SITES`] sites becomes a loop of
//!   one iteration per site (`DontUnroll`). Iteration j is a switch case that writes site j-1's result,
//!   lowers the instructions up to site j and stores site j's operands in Function variables; after the
//!   switch the one body computes the result. libdevice's polynomials put dozens of dependent DFMAs in one
//!   block, so a kernel keeps a copy per block instead of per site. The loop's trip count is a constant, so
//!   it has no abort poll; under lavapipe's loop limiter its iterations count like any loop's and the exit
//!   check of every thread (`control::structured`'s `leave`) reports a cut.
//! - Dispatch form ([`call`], [`emit_body`]): a site stores its operands, raises `pending`, sets `next_pc` to
//!   a continuation case of its own (a synthetic pc from [`FIRST_CONTINUATION_PC`]) and leaves the switch;
//!   after the switch the one body of the kernel runs where `pending` is set; the continuation writes the
//!   result and lowers the rest of the block. One dispatch iteration per executed site. Measured on lavapipe
//!   (math_f64_elementary, 2026-12-02): dispatch 102 s to compile, shared 41 s, structured 21 s, structured
//!   with segment loops less (docs/performance.md): the dispatch form is used only where it was asked for.

use super::fp64::{self, FmaOperands};
use super::{Ctx, FloatSupport};
use crate::error::TranslateError;
use crate::program::{Inst, Program};
use crate::spirv::{Id, LoopControl, Op, StorageClass};

/// The first synthetic pc of a dispatch continuation case: above any code offset the dispatch loop
/// switches on (sections are far smaller), below [`crate::lower::EXIT_PC`]. Register-indirect targets are
/// checked against the program's known targets, so no guest value reaches one.
pub const FIRST_CONTINUATION_PC: u32 = 0xf000_0000;

/// Sites from which the dispatch form shares one body: each inlined copy costs ~330 instructions of driver
/// compile time, a shared one a dispatch iteration per executed site.
pub const MIN_SHARED_SITES: usize = 16;

/// Sites in one block from which the structured form lowers the block as a segment loop.
pub const MIN_BLOCK_SITES: usize = 3;

/// The shared body's Function variables (one set per kernel) and, in the dispatch form, its call state.
#[derive(Debug, Clone)]
pub struct SharedFma {
    abc: [Id; 3],
    md: Id,
    nan: [Id; 3],
    result: Id,
    /// The dispatch form's call state; `None` in the structured form.
    dispatch: Option<DispatchCalls>,
}

/// A dispatch loop's shared body: the flag, where the body runs and the continuation cases so far.
#[derive(Debug, Clone)]
struct DispatchCalls {
    pending: Id,
    /// The dispatch switch's merge block, where the body runs.
    sw_merge: Id,
    /// Continuation cases for the dispatch switch: (synthetic pc, label), in emission order.
    cases: Vec<(u32, Id)>,
}

/// How many instructions of `prog` are sites under `float` (`fp64` decides).
pub fn sites(prog: &Program, float: &FloatSupport) -> usize {
    prog.insts
        .iter()
        .filter(|i| fp64::shares_fma_body(i, float))
        .count()
}

/// Whether the instruction being lowered calls the dispatch form's shared body.
pub fn is_site(cx: &Ctx<'_>, inst: &Inst) -> bool {
    cx.shared_fma.as_ref().is_some_and(|s| s.dispatch.is_some())
        && fp64::shares_fma_body(inst, &cx.float)
}

impl SharedFma {
    /// The variables, in the current function.
    fn new(cx: &mut Ctx<'_>) -> SharedFma {
        let t = cx.t;
        let fn_u64 = cx.m.t_ptr(StorageClass::Function, t.u64);
        let z64 = cx.m.c_u64(0);
        let z32 = cx.u32c(0);
        let mut v64 = || cx.m.local_var(fn_u64, Some(z64));
        let abc = [v64(), v64(), v64()];
        let nan = [v64(), v64(), v64()];
        let result = v64();
        let md = cx.m.local_var(t.fn_u32, Some(z32));
        SharedFma {
            abc,
            md,
            nan,
            result,
            dispatch: None,
        }
    }

    /// Stores a site's operands.
    fn store(&self, cx: &mut Ctx<'_>, ops: FmaOperands) {
        for (v, x) in self.abc.iter().zip(ops.abc) {
            cx.m.store(*v, x);
        }
        cx.m.store(self.md, ops.md);
        for (v, x) in self.nan.iter().zip(ops.nan) {
            cx.m.store(*v, x);
        }
    }

    /// The body on the stored operands; stores the result.
    fn body(&self, cx: &mut Ctx<'_>) {
        let t = cx.t;
        let [a, b, c] = self.abc.map(|v| cx.m.load(t.u64, v));
        let md = cx.m.load(t.u32, self.md);
        let nan = self.nan.map(|v| cx.m.load(t.u64, v));
        let r = fp64::fma_body(
            cx,
            FmaOperands {
                abc: [a, b, c],
                md,
                nan,
            },
        );
        cx.m.store(self.result, r);
    }
}

/// The kernel's variables (created on first use).
fn shared(cx: &mut Ctx<'_>) -> SharedFma {
    match &cx.shared_fma {
        Some(s) => s.clone(),
        None => {
            let s = SharedFma::new(cx);
            cx.shared_fma = Some(s.clone());
            s
        }
    }
}

// ---- the structured form: segment loops ---------------------------------------------------------------

/// Lowers the instructions `insts` of one block (its terminator excluded) with `one`, or, where at least
/// [`MIN_BLOCK_SITES`] of them are sites, as a segment loop sharing one body (module doc).
pub fn lower_block(
    cx: &mut Ctx<'_>,
    insts: &[Inst],
    mut one: impl FnMut(&mut Ctx<'_>, &Inst) -> Result<(), TranslateError>,
) -> Result<(), TranslateError> {
    let sites: Vec<usize> = insts
        .iter()
        .enumerate()
        .filter(|(_, i)| fp64::shares_fma_body(i, &cx.float))
        .map(|(k, _)| k)
        .collect();
    if sites.len() < MIN_BLOCK_SITES || cx.subgroup.is_some() || cx.warp.is_some() {
        return insts.iter().try_for_each(|i| one(cx, i));
    }
    let s = shared(cx);
    let t = cx.t;
    let zero = cx.u32c(0);
    let seg = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(seg, zero);
    let (header, body, sw_merge, cont, merge) =
        (cx.m.id(), cx.m.id(), cx.m.id(), cx.m.id(), cx.m.id());
    cx.m.branch(header);
    cx.m.label(header);
    cx.m.loop_merge(merge, cont, LoopControl::DONT_UNROLL);
    cx.m.branch(body);
    cx.m.label(body);
    let j = cx.m.load(t.u32, seg);
    let labels: Vec<Id> = sites.iter().map(|_| cx.m.id()).collect();
    let cases: Vec<(u32, Id)> = labels
        .iter()
        .enumerate()
        .map(|(k, &l)| (k as u32, l))
        .collect();
    cx.m.selection_merge(sw_merge);
    // Iteration j runs case j; the default (never taken) is the last case's.
    cx.m.switch(j, labels[labels.len() - 1], &cases[..cases.len() - 1]);
    let mut from = 0;
    for (&site, &label) in sites.iter().zip(&labels) {
        cx.m.label(label);
        if from > 0 {
            finish_site(cx, &s, &insts[from - 1]);
        }
        insts[from..site].iter().try_for_each(|i| one(cx, i))?;
        cx.inst = insts[site];
        let ops = fp64::site_operands(cx)?;
        s.store(cx, ops);
        cx.m.branch(sw_merge);
        from = site + 1;
    }
    cx.m.label(sw_merge);
    s.body(cx);
    cx.m.branch(cont);
    cx.m.label(cont);
    let one_c = cx.u32c(1);
    let next = cx.m.bin(Op::IAdd, t.u32, j, one_c);
    cx.m.store(seg, next);
    let k = cx.u32c(sites.len() as u32);
    let more = cx.m.bin(Op::ULessThan, t.bool, next, k);
    cx.m.branch_cond(more, header, merge);
    cx.m.label(merge);
    finish_site(cx, &s, &insts[from - 1]);
    insts[from..].iter().try_for_each(|i| one(cx, i))
}

/// Writes the stored result to the destination of `site` (under its guard).
fn finish_site(cx: &mut Ctx<'_>, s: &SharedFma, site: &Inst) {
    cx.inst = *site;
    let t = cx.t;
    let r = cx.m.load(t.u64, s.result);
    fp64::site_result(cx, r);
}

// ---- the dispatch form: one body per kernel -----------------------------------------------------------

/// Sets up the dispatch form's shared body when `prog` has at least [`MIN_SHARED_SITES`] sites;
/// `sw_merge` is the dispatch switch's merge label.
pub fn begin_dispatch(cx: &mut Ctx<'_>, prog: &Program, sw_merge: Id) {
    if sites(prog, &cx.float) < MIN_SHARED_SITES {
        return;
    }
    let t = cx.t;
    let f = cx.m.c_bool(false);
    let pending = cx.m.local_var(t.fn_bool, Some(f));
    let mut s = shared(cx);
    s.dispatch = Some(DispatchCalls {
        pending,
        sw_merge,
        cases: Vec::new(),
    });
    cx.shared_fma = Some(s);
}

/// The continuation cases of the dispatch form (empty without a shared body), for the dispatch switch.
pub fn end_dispatch(cx: &mut Ctx<'_>) -> Vec<(u32, Id)> {
    cx.shared_fma
        .take()
        .and_then(|s| s.dispatch)
        .map(|d| d.cases)
        .unwrap_or_default()
}

/// Lowers the instruction being lowered, a site of the dispatch form's shared body ([`is_site`]): its block
/// ends here and goes on in a continuation case.
pub(crate) fn dispatch_site(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let ops = fp64::site_operands(cx)?;
    let r = call(cx, ops);
    fp64::site_result(cx, r);
    Ok(())
}

/// The call at a dispatch site: stores `ops`, raises `pending`, continues at a new continuation case
/// (opened here, the current block from now on); returns the result, loaded there.
fn call(cx: &mut Ctx<'_>, ops: FmaOperands) -> Id {
    let Some(s) = cx.shared_fma.clone() else {
        return 0;
    };
    let Some(d) = &s.dispatch else { return 0 };
    s.store(cx, ops);
    let yes = cx.m.c_bool(true);
    cx.m.store(d.pending, yes);
    let pc = FIRST_CONTINUATION_PC + d.cases.len() as u32;
    let k = cx.u32c(pc);
    cx.m.store(cx.next_pc, k);
    cx.m.branch(d.sw_merge);
    let label = cx.m.id();
    if let Some(d) = cx.shared_fma.as_mut().and_then(|s| s.dispatch.as_mut()) {
        d.cases.push((pc, label));
    }
    cx.m.label(label);
    let t = cx.t;
    cx.m.load(t.u64, s.result)
}

/// The dispatch form's body, in the switch's merge block (the current block): `if pending { pending =
/// false; result = fma(...) }`.
pub fn emit_body(cx: &mut Ctx<'_>) {
    let Some(s) = cx.shared_fma.clone() else {
        return;
    };
    let Some(d) = &s.dispatch else { return };
    let t = cx.t;
    let p = cx.m.load(t.bool, d.pending);
    let merge = cx.begin_if(p);
    let f = cx.m.c_bool(false);
    cx.m.store(d.pending, f);
    s.body(cx);
    cx.end_if(merge);
}
