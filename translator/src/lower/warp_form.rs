//! The one owner of the warp-synchronous mnemonics (`SHFL`, `VOTE`, `MATCH`, `REDUX`, `BAR`, the
//! convergence barriers, `WARPSYNC`, the tensor-core instructions, `ATOMS.ARRIVE`, uniformity `R2UR`):
//! the kernel's warp form, chosen once per kernel, decides how they lower. The subgroup form
//! (`subgroup`, warps as 32-wide subgroups) and the turns form (`warp`, warps scheduled in turns) each
//! lower what they model; a kernel in neither (one invocation per thread, lock-step) takes the plain
//! lowering named here per mnemonic.

use super::Ctx;
use crate::error::TranslateError;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    // At most one of the two forms holds state in a kernel (`Ctx::subgroup`, `Ctx::warp`).
    if super::subgroup::lower(cx, m)? || super::warp::lower(cx, m)? {
        return Ok(true);
    }
    match m {
        // mbarrier arrive: refused by name (waiting on it needs forward progress between invocations).
        "ATOMS" => super::shared_counter::lower(cx, m),
        // Outside a warp form a thread is its own warp: the plain register copy.
        "R2UR" => super::uniform::lower(cx, m),
        _ => super::control_inline::lower(cx, m),
    }
}
