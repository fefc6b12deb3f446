//! Shared-memory counter forms of ATOMS (opcode 0x1f8c, operation bits 90:87, size bits 74:73):
//!
//! - `ATOMS.POPC.INC.32 RZ, [Ra(.X4|.X8|.X16)+UR+imm]` (operation 10; nvcc's form of `atomicAdd(&shared, 1)` with the result
//!   unused): the warp adds the number of its active lanes, i.e. every thread adds 1, which one invocation
//!   per thread does with a workgroup-scope `OpAtomicIAdd`. A destination other than RZ is refused.
//! - `ATOMS.ARRIVE.64` (operation 9, PTX `mbarrier.arrive`): lowered in the turns form (`lower::warp`), which every
//!   kernel holding it gets; refused here, outside that form. The kernels that arrive then spin on the
//!   barrier's phase until every thread of the block has arrived, which needs forward progress between the
//!   invocations of a workgroup; Vulkan does not promise it (lavapipe runs a workgroup's invocations in
//!   order between barriers, so the spin would never end).

use super::memory::{self, Space};
use super::Ctx;
use crate::error::TranslateError;
use crate::spirv::{Op, Scope};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    if m != "ATOMS" || cx.inst.opcode() != 0x1f8c {
        return Ok(false);
    }
    match (cx.inst.bits(87, 4), cx.inst.bits(73, 2)) {
        (10, 0) => popc_inc(cx)?,
        (9, _) => {
            return Err(cx.refuse(
                "mbarrier arrive: waiting on it needs forward progress between invocations of a workgroup, \
                 which Vulkan does not guarantee",
            ))
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn popc_inc(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    if cx.inst.bits(16, 8) != 255 {
        return Err(cx.refuse("ATOMS.POPC.INC with a returned value not translated yet"));
    }
    let t = cx.t;
    let ra = cx.inst.bits(24, 8) as u8;
    let ur = cx.inst.bits(64, 6) as u8;
    let mut a = cx.reg(ra);
    // `[Ra.X4+UR]` (bits 79:78: .X4/.X8/.X16) scales the register: CUB's BlockHistogram indexes its bins so.
    let scale = cx.inst.bits(78, 2);
    if scale != 0 {
        let k = cx.u32c(scale + 1);
        a = cx.op2(Op::ShiftLeftLogical, a, k);
    }
    let u = cx.st.ureg(&mut cx.m, &t, ur);
    a = cx.op2(Op::IAdd, a, u);
    let off = memory::imm24(cx);
    if off != 0 {
        let k = cx.u32c(off as u32);
        a = cx.op2(Op::IAdd, a, k);
    }
    let (ptr, var, len, _) = memory::space(cx, Space::Shared);
    let (ok, idx) = memory::space_check(cx, Space::Shared, memory::Access::Atomic, a, 4, len);
    let merge = cx.begin_if(ok);
    let p = memory::space_ptr(cx, ptr, var, idx, 0);
    let scope = cx.u32c(Scope::Workgroup as u32);
    let sem = cx.u32c(0);
    let one = cx.u32c(1);
    cx.m.op(Op::AtomicIAdd, t.u32, &[p, scope, sem, one]);
    cx.end_if(merge);
    Ok(())
}
