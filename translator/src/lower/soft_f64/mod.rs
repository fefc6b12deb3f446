//! Soft double: every FP64 step in integer arithmetic, for devices without `Float64` (issue 23).
//!
//! Intel Arc, most mobile GPUs and Apple's (through MoltenVK) have no `shaderFloat64`; a profile that lacks
//! `float64` (the device, or `--without float64`) makes the translator emit no f64 type at all. What stands
//! in for it, bit-exact with SM86 (round-to-nearest-even and the directed modes, denormals kept, one rounding
//! for FMA, signed zeros; NaN results are fixed up by the callers exactly as on the native path):
//!
//! - [`fma`]: one integer fused multiply-add on f64 bits, `round_fmt(a * b + c)` in any SM86 mode, whose
//!   result format is f64 (DFMA; DADD as `a * 1 + b`, DMUL with no addend: each one rounding, so the same
//!   core is exactly IEEE add and multiply), f32 (FFMA, FADD, FMUL of widened f32: the product of two f32 is
//!   exact, so one rounding to f32 of the exact sum is the fused result), or f16/bf16 (HFMA2). The native
//!   path reaches the same roundings through exact f64 steps (TwoSum, round-to-odd); here no f64 step exists.
//!   Each format's core is one helper function per module.
//! - [`cmp`]: DSETP comparisons on integer order keys (both zeros equal, NaN unordered).
//! - [`seed`]: MUFU.RCP64H / RSQ64H seeds without f64 division or square root.
//!
//! Conversions (F2F, F2I, I2F with 64-bit sides, FRND.F64) are integer code already (`crate::exact::convert`)
//! and need nothing here.

pub mod cmp;
pub mod fma;
pub mod seed;

pub use fma::{fma, MUL_ONLY};

use crate::exact::round::{F32, F64};
use crate::exact::B;
use crate::spirv::{Id, Module};

/// `round_mode(a * b + c)` of three f64 (u64 bits) as u64 bits; `md` the SM86 mode, optionally `| MUL_ONLY`.
/// NaN results are some NaN (callers pick SM86's).
pub fn dfma(m: &mut Module, a: Id, b: Id, c: Id, md: Id) -> Id {
    fma(m, F64, a, b, c, md)
}

/// `round_mode(a * b + c)` of three f32 (u32 bits) as u32 bits, fused (NaN results some NaN).
pub fn ffma(m: &mut Module, a: Id, b: Id, c: Id, md: Id) -> Id {
    let mut bb = B::new(m);
    let wa = bb.widen_f32(a);
    let wb = bb.widen_f32(b);
    let wc = bb.widen_f32(c);
    let r = fma(bb.m, F32, wa, wb, wc, md);
    let mut bb = B::new(m);
    bb.u32_of(r)
}

/// `round_mode(a * b * 2^scale)` of two f32 bits, one rounding (FMUL `.D2`...`.M8`; `|scale| <= 3`).
pub fn fmul_scaled(m: &mut Module, a: Id, b: Id, scale: i32, md: Id) -> Id {
    use crate::spirv::Op;
    let mut bb = B::new(m);
    let wa = bb.widen_f32(a);
    let wb = bb.widen_f32(b);
    // Scale the widened b by its exponent field: exact, as widened f32 values are normal f64 far from the
    // ends of the range; zeros, infinities and NaNs keep their bits.
    let k52 = bb.c32(52);
    let ex = bb.i64(Op::ShiftRightLogical, wb, k52);
    let k7ff = bb.c64(0x7ff);
    let ex = bb.i64(Op::BitwiseAnd, ex, k7ff);
    let z = bb.c64(0);
    let is_zero = bb.b(Op::IEqual, ex, z);
    let is_top = bb.b(Op::IEqual, ex, k7ff);
    let keep = bb.or(is_zero, is_top);
    let delta = bb.c64((scale as i64 as u64) << 52);
    let scaled = bb.i64(Op::IAdd, wb, delta);
    let wb = bb.sel64(keep, wb, scaled);
    let mo = bb.c32(MUL_ONLY);
    let md = bb.i32(Op::BitwiseOr, md, mo);
    let r = fma(bb.m, F32, wa, wb, z, md);
    let mut bb = B::new(m);
    bb.u32_of(r)
}
