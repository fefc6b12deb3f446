//! MUFU (the multi-function unit) and FCHK.
//!
//! MUFU on SM86 is an approximation; the H200 recordings under corpus/silicon (RECORDED.md) are the
//! reference, and `cli/tests/mufu_silicon.rs` measures each op against them.
//! - SIN/COS (ops 1 and 0): `exact::sfu::sincos`, a model of the unit fitted to those recordings (argument
//!   truncated to 2^-25 revolutions, one table read at t or its one's complement, 64 quadratic pieces with
//!   the unit's truncated squarer): within 1 ulp of every recorded output, zeros with silicon's sign, also
//!   near the zeros of sin and cos where a correctly rounded sine is hundreds of ulp away.
//! - LG2 (op 3): `exact::sfu::lg2`, the same interpolator fitted to the LG2 recordings (result rounded to
//!   2^-36 first, so its error is absolute near 1, then toward zero to f32): within 1 ulp of the recorded outputs on lavapipe.
//! - TANH (op 9): `exact::sfu::tanh`, the same interpolator as the recordings show it (x itself below
//!   2^-8, ±1 from 8; in between the input's low 2..6 fraction bits ignored, the next 17 the variable of 51
//!   quadratic pieces with the truncated squarer, fitted to the recordings): within 1 ulp of every
//!   recorded output.
//! - EX2, RCP, RSQ, SQRT: the native GLSL.std.450 op (`Exp2`, f32 division, `InverseSqrt`, `Sqrt`), with
//!   everything SM86 defines exactly in integer selects around it: denormal inputs flushed (sign kept) and
//!   denormal results flushed; ±0, ±inf and NaN cases (RCP ±0 = ±inf, RSQ -0 = -inf, RSQ/SQRT/LG2 of
//!   negatives = NaN, LG2 ±0 = -inf, EX2 -inf = +0, SIN/COS of ±inf = NaN, TANH ±inf = ±1; the same special
//!   cases wrap LG2); NaN results canonical 0x7fffffff. Measured on lavapipe against silicon: EX2 4 ulp,
//!   RCP 1, RSQ 2, SQRT 1.
//! - RCP64H/RSQ64H: the high word of the f64 reciprocal (square root) of the double whose high word is the
//!   operand and low word zero (RCP64H results below the smallest normal flushed to a signed zero, as the H200
//!   recording shows); nvcc refines them with DFMA.
//!
//! FCHK P, a, b: whether `a / b` must take the slow path. The translation is a conservative superset of the
//! hardware's check (any operand zero, denormal, infinite or NaN; exponents of b outside [-125, 125], of
//! a outside [-100, 125] or of a/b outside [-100, 125]): the slow path nvcc emits is correct for every input,
//! so results are unchanged and only the path differs.

use super::Ctx;
use crate::error::TranslateError;
use crate::exact::{sfu, B};
use crate::spirv::{Id, Op};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "MUFU" => mufu(cx)?,
        "FCHK" => fchk(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

mod gl {
    pub const EXP2: u32 = 29;
    pub const SQRT: u32 = 31;
    pub const INVERSE_SQRT: u32 = 32;
}

fn mufu(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let op = cx.inst.bits(74, 4);
    let mut x = cx.read(s.b)?;
    if s.abs[1] {
        let k = cx.u32c(0x7fff_ffff);
        x = cx.op2(Op::BitwiseAnd, x, k);
    }
    if s.neg[1] {
        let k = cx.u32c(0x8000_0000);
        x = cx.op2(Op::BitwiseXor, x, k);
    }
    let r = match op {
        6 | 7 => hi64(cx, x, op == 7),
        0..=5 | 8 | 9 => f32_op(cx, x, op),
        _ => return Err(cx.refuse(format!("MUFU operation {op} not translated yet"))),
    };
    cx.set_dst(r);
    Ok(())
}

fn f32_op(cx: &mut Ctx<'_>, x: Id, op: u32) -> Id {
    let x_raw = x;
    let x = super::float::ftz(cx, x);
    let mut b = B::new(&mut cx.m);
    let t = b.t;
    let f = b.m.un(Op::Bitcast, t.f32, x);
    let absm = b.c32(0x7fff_ffff);
    let ax = b.i32(Op::BitwiseAnd, x, absm);
    let z = b.c32(0);
    let infb = b.c32(0x7f80_0000);
    let is_zero = b.b(Op::IEqual, ax, z);
    let is_inf = b.b(Op::IEqual, ax, infb);
    let is_nan = b.b(Op::UGreaterThan, ax, infb);
    let sgn = b.c32(0x8000_0000);
    let sbits = b.i32(Op::BitwiseAnd, x, sgn);
    let neg = b.b(Op::INotEqual, sbits, z);
    let nzero = b.not(is_zero);
    let negative = b.and(neg, nzero); // < 0, -inf included
    let nan = b.c32(0x7fff_ffff);
    let pinf = b.c32(0x7f80_0000);
    let ninf = b.c32(0xff80_0000);
    let sinf = b.i32(Op::BitwiseOr, sbits, infb);
    let one = b.m.c_f32_bits(0x3f80_0000);
    let r = match op {
        0 | 1 => {
            // The unit's own algorithm, fitted to silicon (exact::sfu): op 0 is COS, 1 is SIN.
            let v = sfu::sincos(&mut b, x, op == 0);
            b.sel32(is_inf, nan, v)
        }
        2 => {
            let v = b.m.ext(t.f32, gl::EXP2, &[f]);
            let v = b.m.un(Op::Bitcast, t.u32, v);
            let onebits = b.c32(0x3f80_0000);
            let v = b.sel32(is_zero, onebits, v);
            let v = b.sel32(is_inf, pinf, v);
            let ninf_in = b.and(is_inf, neg);
            b.sel32(ninf_in, z, v)
        }
        3 => {
            // The unit's own algorithm, fitted to silicon (exact::sfu::lg2), for positive normal inputs.
            let v = sfu::lg2(&mut b, x);
            let v = b.sel32(is_inf, pinf, v);
            let v = b.sel32(negative, nan, v);
            b.sel32(is_zero, ninf, v)
        }
        4 => {
            let v = b.m.bin(Op::FDiv, t.f32, one, f);
            let v = b.m.un(Op::Bitcast, t.u32, v);
            let v = b.sel32(is_inf, sbits, v);
            b.sel32(is_zero, sinf, v)
        }
        5 => {
            let v = b.m.ext(t.f32, gl::INVERSE_SQRT, &[f]);
            let v = b.m.un(Op::Bitcast, t.u32, v);
            let v = b.sel32(is_inf, z, v);
            let v = b.sel32(negative, nan, v);
            b.sel32(is_zero, sinf, v)
        }
        8 => {
            let v = b.m.ext(t.f32, gl::SQRT, &[f]);
            let v = b.m.un(Op::Bitcast, t.u32, v);
            let v = b.sel32(is_inf, pinf, v);
            let v = b.sel32(negative, nan, v);
            b.sel32(is_zero, x, v)
        }
        _ => {
            // The unit's own algorithm, fitted to silicon (exact::sfu::tanh); it keeps denormals (x itself).
            sfu::tanh(&mut b, x_raw)
        }
    };
    let r = b.sel32(is_nan, nan, r);
    let r = if op == 9 { r } else { super::float::ftz(cx, r) };
    super::float::canonical(cx, r)
}

/// RCP64H / RSQ64H: high word of `1 / d` or `1 / sqrt(d)` for `d = hi:0`.
fn hi64(cx: &mut Ctx<'_>, hi: Id, rsq: bool) -> Id {
    let soft = !cx.float.float64;
    let mut b = B::new(&mut cx.m);
    let z = b.c32(0);
    let rh = if soft {
        // No Float64: the seeds in integer arithmetic (lower::soft_f64::seed).
        if rsq { super::soft_f64::seed::rsq_hi(&mut b, hi) } else { super::soft_f64::seed::rcp_hi(&mut b, hi) }
    } else {
        let t = b.t;
        let d = b.pack(z, hi);
        let fd = b.m.un(Op::Bitcast, t.f64, d);
        let one = b.m.constant(t.f64, 1f64.to_bits(), true);
        let den = if rsq { b.m.ext(t.f64, gl::SQRT, &[fd]) } else { fd };
        let r = b.m.bin(Op::FDiv, t.f64, one, den);
        let bits = b.m.un(Op::Bitcast, t.u64, r);
        b.hi32(bits)
    };
    // RCP64H flushes a result below the smallest normal to a signed zero (H200 recording of the seed,
    // docs/float-exactness.md: every input with exponent field 2045/2046 but 2^1022 itself).
    let rh = if rsq {
        rh
    } else {
        let expm = b.c32(0x7ff0_0000);
        let ex = b.i32(Op::BitwiseAnd, rh, expm);
        let tiny = b.b(Op::IEqual, ex, z);
        let sgn = b.c32(0x8000_0000);
        let sz = b.i32(Op::BitwiseAnd, rh, sgn);
        b.sel32(tiny, sz, rh)
    };
    // Exact special cases on the high word: ±0 -> ±inf (RSQ: +inf, -0 -> -inf), inf -> 0, NaN, negative RSQ.
    let absm = b.c32(0x7fff_ffff);
    let ah = b.i32(Op::BitwiseAnd, hi, absm);
    let infh = b.c32(0x7ff0_0000);
    let sgn = b.c32(0x8000_0000);
    let sb = b.i32(Op::BitwiseAnd, hi, sgn);
    let min_normal = b.c32(0x0010_0000);
    let is_zero = b.b(Op::ULessThan, ah, min_normal); // zero or denormal: flushed
    let is_inf = b.b(Op::IEqual, ah, infh);
    let is_nan = b.b(Op::UGreaterThan, ah, infh);
    let sinf = b.i32(Op::BitwiseOr, sb, infh);
    let nanh = b.c32(0x7fff_ffff);
    let r = b.sel32(is_inf, if rsq { z } else { sb }, rh);
    let r = b.sel32(is_zero, sinf, r);
    let r = if rsq {
        let neg = b.b(Op::INotEqual, sb, z);
        let nz = b.not(is_zero);
        let negative = b.and(neg, nz);
        b.sel32(negative, nanh, r)
    } else {
        r
    };
    b.sel32(is_nan, nanh, r)
}

fn fchk(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let a = cx.read(s.a)?;
    let bv = cx.read(s.b)?;
    let pd = cx.inst.bits(81, 3);
    let mut b = B::new(&mut cx.m);
    let k23 = b.c32(23);
    let k255 = b.c32(0xff);
    let ea = b.i32(Op::ShiftRightLogical, a, k23);
    let ea = b.i32(Op::BitwiseAnd, ea, k255);
    let eb = b.i32(Op::ShiftRightLogical, bv, k23);
    let eb = b.i32(Op::BitwiseAnd, eb, k255);
    // Biased exponents: normal and inside the safe windows.
    let in_range = |b: &mut B<'_>, v: Id, lo: i32, hi: i32| {
        let l = b.c32((lo + 127) as u32);
        let h = b.c32((hi + 127) as u32);
        let ge = b.b(Op::SGreaterThanEqual, v, l);
        let le = b.b(Op::SLessThanEqual, v, h);
        b.and(ge, le)
    };
    let ok_a = in_range(&mut b, ea, -100, 125);
    let ok_b = in_range(&mut b, eb, -125, 125);
    let k127 = b.c32(127);
    let diff = b.i32(Op::ISub, ea, eb);
    let diff = b.i32(Op::IAdd, diff, k127);
    let ok_d = in_range(&mut b, diff, -100, 125);
    let ok = b.and(ok_a, ok_b);
    let ok = b.and(ok, ok_d);
    let slow = b.not(ok);
    cx.set_pred(pd, slow);
    Ok(())
}
