//! `WARPSYNC.EXCLUSIVE Rm` (opcode 0x0348 with bit 86), in both warp forms: the thread waits for the lanes of
//! its mask as at a plain `WARPSYNC`, and from then on its warp is *exactly* its mask — lanes outside it that
//! run the same instructions at the same time (the other 16-thread tile of the warp, say) do not take part in
//! its warp instructions — until a `BSYNC` restores the convergence its barrier's `BSSY` recorded.
//!
//! Evidence (the listings of `corpus/src/coop_tiles.cu`, `warp_divergent.cu`): nvcc emits it only right before
//! a REDUX — the one warp instruction without a member mask operand, which reduces over the lanes running it —
//! when the mask may differ between the lanes that arrive together: `cg::reduce` on a 16-thread tile (mask
//! `0xffff << (laneid & 16)`, so both tiles reach the same REDUX with different masks) and
//! `__reduce_add_sync(__activemask(), x)`; a REDUX whose mask is warp-uniform (a ballot) gets a plain WARPSYNC.
//! Each exclusive REDUX sits between a `BSSY Bn` and its `BSYNC Bn` (inline, or around the CALL of nvcc's
//! `reduxsync` helper), the reconvergence that ends the split. PTX defines `redux.sync` (like `match.sync`) over
//! the threads of `membermask` only, and NVIDIA's debugger API shows a per-warp "mask of threads that are part
//! of a collective operation" (`CUDBGCbuWarpState::collectiveMask`) beside the active mask. The silicon goldens
//! of `coop_tiles` (`tile_reduce_16`, `tile_loop`) check the model.
//!
//! Model: a per-thread mask variable (all ones outside an exclusive region) that `WARPSYNC.EXCLUSIVE` sets,
//! `BSSY Bn` saves beside the barrier and `BSYNC Bn` restores; the lanes that take part in a warp instruction
//! are those running it (the turns group, the subgroup's active invocations) within the thread's mask. Only
//! kernels that hold a `WARPSYNC.EXCLUSIVE` carry it, so other modules are unchanged. Lanes whose masks
//! disagree (no CUDA program makes them: each tile's lanes share the tile's mask) see each other through
//! their own masks.

use super::Ctx;
use crate::error::TranslateError;
use crate::program::{Inst, Program};
use crate::spirv::{Id, Op};

/// Whether `inst` is `WARPSYNC.EXCLUSIVE` (only the register form, 0x0348, has the modifier: bit 86).
pub fn is_exclusive_warpsync(inst: &Inst) -> bool {
    inst.mnemonic == "WARPSYNC" && inst.opcode() == 0x0348 && inst.bit(86)
}

/// The exclusive state of one thread (Function variables).
#[derive(Debug, Clone, Copy)]
pub struct Exclusive {
    /// The thread's warp as far as its warp instructions go: all ones, or its last `WARPSYNC.EXCLUSIVE` mask.
    pub mask: Id,
    /// Per convergence barrier B0..B15 that the program's `BSSY`s use: `mask` at that `BSSY` (0: unused).
    saved: [Id; 16],
}

impl Exclusive {
    /// The state for `prog`, or `None` when it holds no `WARPSYNC.EXCLUSIVE` (nothing is emitted then).
    pub fn for_program(cx: &mut Ctx<'_>, prog: &Program) -> Option<Self> {
        if !prog.insts.iter().any(is_exclusive_warpsync) {
            return None;
        }
        let t = cx.t;
        let all = cx.m.c_u32(u32::MAX);
        let mask = cx.m.local_var(t.fn_u32, Some(all));
        let mut saved = [0; 16];
        for i in prog.insts.iter().filter(|i| i.mnemonic == "BSSY") {
            let slot = &mut saved[i.bits(16, 4) as usize];
            if *slot == 0 {
                *slot = cx.m.local_var(t.fn_u32, Some(all));
            }
        }
        Some(Exclusive { mask, saved })
    }

    /// `lanes` within the thread's mask.
    pub fn restrict(self, cx: &mut Ctx<'_>, lanes: Id) -> Id {
        let m = cx.m.load(cx.t.u32, self.mask);
        cx.op2(Op::BitwiseAnd, lanes, m)
    }

    /// `WARPSYNC` (any form; the guard is applied by the caller): `.EXCLUSIVE` sets the mask to the operand
    /// when its predicate operand (bits 90:87) holds, as that predicate gates the wait (`warp::sync_mask`).
    pub fn warpsync(self, cx: &mut Ctx<'_>) {
        let i = cx.inst;
        if !is_exclusive_warpsync(&i) {
            return;
        }
        let t = cx.t;
        let operand = cx.reg(i.bits(32, 8) as u8);
        let (p, n) = (i.bits(87, 3), i.bit(90));
        let v = if p == 7 && !n {
            operand
        } else {
            let c = cx.pred(p, n);
            let cur = cx.m.load(t.u32, self.mask);
            cx.sel(c, operand, cur)
        };
        cx.m.store(self.mask, v);
    }

    /// `BSSY Bn`: the barrier remembers the thread's mask.
    pub fn bssy(self, cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
        let slot = self.slot(cx)?;
        let m = cx.m.load(cx.t.u32, self.mask);
        cx.m.store(slot, m);
        Ok(())
    }

    /// `BSYNC Bn`: the thread's warp is again what it was at the barrier's `BSSY` — when the predicate
    /// operand (bits 90:87) holds, as it gates the wait (`warp::sync_mask`).
    pub fn bsync(self, cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
        let slot = self.slot(cx)?;
        let t = cx.t;
        let mut m = cx.m.load(t.u32, slot);
        let (p, n) = (cx.inst.bits(87, 3), cx.inst.bit(90));
        if p != 7 || n {
            let c = cx.pred(p, n);
            let cur = cx.m.load(t.u32, self.mask);
            m = cx.sel(c, m, cur);
        }
        cx.m.store(self.mask, m);
        Ok(())
    }

    fn slot(self, cx: &mut Ctx<'_>) -> Result<Id, TranslateError> {
        match self.saved[cx.inst.bits(16, 4) as usize] {
            0 => Err(cx.refuse("BSYNC on a convergence barrier that no BSSY of the kernel sets, after WARPSYNC.EXCLUSIVE")),
            s => Ok(s),
        }
    }
}
