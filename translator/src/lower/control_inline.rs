//! Block-internal control instructions with no effect on one thread's state (`NOP`, `YIELD`, `DEPBAR`,
//! `NANOSLEEP`), and the lock-step lowering of the convergence and barrier instructions (`BSSY`, `BSYNC`,
//! `BREAK`, `WARPSYNC`, `BMOV`, `BAR`) that `warp_form` falls back to: with one invocation per thread and
//! no warp instructions (kernels with those take the turns or subgroup form) they order nothing.

use super::Ctx;
use crate::error::TranslateError;
use crate::spirv::{MemorySemantics, Op, Scope};

/// Block-internal control instructions with no effect on one thread's state, and barriers.
pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "NOP" | "BSSY" | "BSYNC" | "BREAK" | "WARPSYNC" | "YIELD" | "DEPBAR" | "NANOSLEEP" => {
            Ok(true)
        }
        "BMOV" => {
            // Saving a convergence barrier (`BMOV.32 Rd, Bn`) reads an empty mask; restoring one is a no-op:
            // with one invocation per thread there is no warp state to keep.
            match cx.inst.opcode() {
                0x0355 => {
                    let rd = cx.inst.bits(16, 8) as u8;
                    let zero = cx.u32c(0);
                    cx.set_reg(rd, zero);
                    Ok(true)
                }
                0x0356 => Ok(true),
                _ => Err(cx.refuse("BMOV form not translated yet")),
            }
        }
        "BAR" => {
            // Only `BAR.SYNC 0` without a thread count, with `.DEFER_BLOCKING` (`bar.sync 0`, what nvcc emits
            // for __syncthreads()) or without (`barrier.sync 0`, cooperative groups' `this_thread_block().sync()`):
            // both wait for every thread of the block; they differ only in whether a warp's threads must reach
            // the barrier together, which one invocation per thread never observes.
            let i = cx.inst;
            if i.guard().is_some() {
                return Err(cx.refuse("predicated barrier not translated yet"));
            }
            if !crate::lower::warp::is_block_barrier(&i) {
                return Err(cx.refuse(
                    "barrier form not translated yet (named, counted, arrive or reduction)",
                ));
            }
            let wg = cx.u32c(Scope::Workgroup as u32);
            let sem = cx.u32c(
                (MemorySemantics::ACQUIRE_RELEASE | MemorySemantics::WORKGROUP_MEMORY).bits(),
            );
            cx.m.op_void(Op::ControlBarrier, &[wg, wg, sem]);
            Ok(true)
        }
        _ => Ok(false),
    }
}
