//! Special registers: S2R, CS2R, S2UR.
//!
//! TID is `LocalInvocationId`; CTAID is `WorkgroupId` plus the launch's workgroup base (grids larger than a
//! device's dispatch limit are split); LANEID and the lane masks come from the linear thread index in the
//! block (lane = linear & 31, as SM86 numbers lanes); SR_CLOCKLO/HI read a per-thread counter that increases
//! by one per read (monotonic, not cycles: Vulkan has no portable cycle counter); SR_VIRTUALSMID is 0.

use super::Ctx;
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::{Id, Op};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    if cx.graphics.is_some() {
        // The compute values (thread and block ids, lane masks) have no meaning in a graphics stage yet.
        return Err(cx.refuse("special registers in graphics stages not translated yet"));
    }
    match m {
        "S2R" => {
            let v = read_sr(cx, cx.inst.bits(72, 8))?;
            let rd = cx.inst.bits(16, 8) as u8;
            cx.set_reg(rd, v);
        }
        "S2UR" => {
            let v = read_sr(cx, cx.inst.bits(72, 8))?;
            let rd = cx.inst.bits(16, 6) as u8;
            let t = cx.t;
            cx.st.set_ureg(&mut cx.m, &t, rd, v);
        }
        "CS2R" => {
            let sr = cx.inst.bits(72, 8);
            let wide = cx.inst.bit(80);
            let rd = cx.inst.bits(16, 8) as u8;
            let lo = read_sr(cx, sr)?;
            let hi = if wide {
                match sr {
                    0xff => Some(cx.u32c(0)),
                    0x50 | 0x52 => Some(cx.u32c(0)),
                    _ => return Err(cx.refuse("64-bit special register not translated yet")),
                }
            } else {
                None
            };
            cx.set_reg(rd, lo);
            if let Some(h) = hi {
                cx.set_reg(rd.wrapping_add(1), h);
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

fn builtin_component(cx: &mut Ctx<'_>, var: Id, k: u32) -> Id {
    let t = cx.t;
    let v = cx.m.load(t.uvec3, var);
    cx.m.op(Op::CompositeExtract, t.u32, &[v, k])
}

fn launch_word(cx: &mut Ctx<'_>, w: u32) -> Id {
    let t = cx.t;
    cx.st.uniform_word(&mut cx.m, &t, 0, w)
}

fn linear_tid(cx: &mut Ctx<'_>) -> Id {
    let var = cx.builtins.local_id;
    let x = builtin_component(cx, var, 0);
    let y = builtin_component(cx, var, 1);
    let z = builtin_component(cx, var, 2);
    let bx = launch_word(cx, abi::launch_word::BLOCK_DIM);
    let by = launch_word(cx, abi::launch_word::BLOCK_DIM + 1);
    let zy = cx.op2(Op::IMul, z, by);
    let zy = cx.op2(Op::IAdd, zy, y);
    let l = cx.op2(Op::IMul, zy, bx);
    cx.op2(Op::IAdd, l, x)
}

fn lane(cx: &mut Ctx<'_>) -> Id {
    let l = linear_tid(cx);
    let k = cx.u32c(31);
    cx.op2(Op::BitwiseAnd, l, k)
}

fn read_sr(cx: &mut Ctx<'_>, sr: u32) -> Result<Id, TranslateError> {
    Ok(match sr {
        0x00 => lane(cx),
        0x21..=0x23 => {
            let var = cx.builtins.local_id;
            builtin_component(cx, var, sr - 0x21)
        }
        0x25..=0x27 => {
            let var = cx.builtins.group_id;
            let g = builtin_component(cx, var, sr - 0x25);
            let base = launch_word(cx, abi::launch_word::WORKGROUP_BASE + (sr - 0x25));
            cx.op2(Op::IAdd, g, base)
        }
        0x38..=0x3c => {
            // EQ, LT, LE, GT, GE lane masks, computed in 64 bits so that lane 31 needs no special case.
            let t = cx.t;
            let l = lane(cx);
            let one = cx.m.c_u64(1);
            let bit = cx.m.bin(Op::ShiftLeftLogical, t.u64, one, l);
            let lt = cx.m.bin(Op::ISub, t.u64, bit, one);
            let le = cx.m.bin(Op::BitwiseOr, t.u64, lt, bit);
            let v = match sr {
                0x38 => bit,
                0x39 => lt,
                0x3a => le,
                0x3b => cx.m.un(Op::Not, t.u64, le),
                _ => cx.m.un(Op::Not, t.u64, lt),
            };
            cx.m.un(Op::UConvert, t.u32, v)
        }
        0x50 | 0x52 => {
            let t = cx.t;
            let var = match cx.clock {
                Some(v) => v,
                None => {
                    let zero = cx.u32c(0);
                    let v = cx.m.local_var(t.fn_u32, Some(zero));
                    cx.clock = Some(v);
                    v
                }
            };
            let c = cx.m.load(t.u32, var);
            let one = cx.u32c(1);
            let n = cx.op2(Op::IAdd, c, one);
            cx.m.store(var, n);
            c
        }
        0x51 | 0x53 => cx.u32c(0),
        // SR_VIRTUALSMID (PTX %smid): the SM a block runs on, "for diagnostics", may change during execution.
        // One virtual SM runs every block here, so 0 is the truthful answer and below any %nsmid.
        0x43 => cx.u32c(0),
        0xff => cx.u32c(0),
        _ => return Err(cx.refuse(format!("special register {sr:#x} not translated yet"))),
    })
}
