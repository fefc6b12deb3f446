//! FP16 arithmetic through 32-bit values only: HADD2, HMUL2, HFMA2 (and their `.F32` forms) on devices
//! without `Float16` or without `Float64` (issue 23).
//!
//! The native lowering (`crate::exact::half`) widens halves to f64 and rounds once from exact f64 steps; a
//! device lacking `float64` would get that as soft double, 128-bit integer code per half. Here no f16 or
//! f64 type exists: halves are widened to f32 bits in integer arithmetic (exact: every f16, denormals
//! included, is a normal f32), the f32 steps are native `OpFMul`/`OpFAdd` (correctly rounded to nearest in
//! Vulkan, as `exact::fma32` relies on for f64) and the f32 -> f16 rounding is integer code ([`round`]).
//! SM86's FP16 arithmetic rounds to nearest even only (PTX has `.rn` alone for f16), so that is the mode.
//!
//! Why each result is the correctly rounded one:
//! - HMUL2: the product of two halves has at most 22 significant bits, exact in f32 (24); one rounding.
//! - HADD2: `fl32(a + b)` then rounding to f16 is a double rounding, innocuous here: for p-bit operands, a
//!   first rounding to q >= 2p + 2 bits followed by rounding to p bits gives the correctly rounded sum
//!   (S. A. Figueroa, "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995; it holds for
//!   +, -, *, / and sqrt): q = 24 = 2 * 11 + 2.
//! - HFMA2: Figueroa does not cover `a * b + c` (the product is not an f16), so the sum is made exact: the
//!   product is exact in f32, the sum's rounding error is exact by Knuth's TwoSum (all values are multiples
//!   of 2^-48 below 2^34: no denormal, no overflow, so no device flushing touches them), the sum is then
//!   rounded to odd at 24 bits in integers, and rounding that to 11 bits is the fused result (round-to-odd
//!   double rounding, Boldo and Melquiond 2008: 24 >= 11 + 2).
//! - Infinities, NaNs and the signs of exact zeros are decided in integers (`special`), so a driver that
//!   does not preserve them in f32 arithmetic changes nothing. NaN results are some NaN; the caller
//!   writes SM86's canonical 0x7fff, as on the native path.
//!
//! BF16 halves stay on the native path: their products leave f32's exponent range.

pub mod round;

use crate::exact::{begin_helper, end_helper, Tys, B};
use crate::spirv::{Id, Module, Op};
use round::{f32_to_f16, widen_f16};

/// Which FP16 operation a helper computes (operands are halves in the low 16 bits of u32s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op16 {
    /// HFMA2: `a * b + c`, one rounding.
    Fma,
    /// HADD2: `a + c` (the caller passes `b` = 1.0, as for the native core).
    Add,
    /// HMUL2: `a * b` (the caller passes `c` = -0).
    Mul,
    /// HADD2.F32: `a + c` rounded once to f32 (result: f32 bits).
    AddF32,
    /// HMUL2.F32: `a * b` as f32 (exact).
    MulF32,
}

impl Op16 {
    fn key(self) -> &'static str {
        match self {
            Op16::Fma => "soft_f16_fma",
            Op16::Add => "soft_f16_add",
            Op16::Mul => "soft_f16_mul",
            Op16::AddF32 => "soft_f16_add_f32",
            Op16::MulF32 => "soft_f16_mul_f32",
        }
    }

    /// The `.F32` forms (an f32 result).
    pub fn f32_out(self) -> bool {
        matches!(self, Op16::AddF32 | Op16::MulF32)
    }
}

/// `op(a, b, c)` of three f16 halves (low 16 bits of u32s), rounded to nearest even: f16 bits in the low 16
/// bits, or f32 bits for the `.F32` forms. Emitted once per module as a helper function.
pub fn op(m: &mut Module, op: Op16, a: Id, b: Id, c: Id) -> Id {
    let f = m.helper(op.key(), move |m| build(m, op, Mutant::None));
    let mut bb = B::new(m);
    let ty = bb.t.u32;
    bb.call(ty, f, &[a, b, c])
}

/// A deliberately wrong variant of [`op`], for showing that the reference test can fail: `mutant` 1 drops
/// the FMA's round-to-odd step (a plain double rounding through f32), 2 drops ties-to-even in the rounding
/// of normal results. Not used by the translator.
pub fn op_mutant_for_tests(m: &mut Module, op: Op16, a: Id, b: Id, c: Id, mutant: u32) -> Id {
    let (key, mutant) = match mutant {
        1 => ("soft_f16_mutant_no_odd", Mutant::NoOdd),
        _ => ("soft_f16_mutant_no_even", Mutant::NoTiesEven),
    };
    let f = m.helper(key, move |m| build(m, op, mutant));
    let mut bb = B::new(m);
    let ty = bb.t.u32;
    bb.call(ty, f, &[a, b, c])
}

/// See [`op_mutant_for_tests`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mutant {
    None,
    NoOdd,
    NoTiesEven,
}

/// The integer verdict on operands that are not all finite, and the sign of an exact zero result.
struct Special {
    /// Some operand is infinite or NaN: the result is `value` (f16 bits).
    any: Id,
    value: Id,
    /// The sign (0x8000 or 0) of `a * b + c` when that is an exact zero (IEEE 754 6.3, round to nearest).
    zero_sign: Id,
}

fn special(b: &mut B<'_>, x: Id, y: Id, z: Id) -> Special {
    let absm = b.c32(0x7fff);
    let inf = b.c32(0x7c00);
    let sgn = b.c32(0x8000);
    let zero = b.c32(0);
    let (ax, ay, az) = (b.i32(Op::BitwiseAnd, x, absm), b.i32(Op::BitwiseAnd, y, absm), b.i32(Op::BitwiseAnd, z, absm));
    let nan_in = {
        let nx = b.b(Op::UGreaterThan, ax, inf);
        let ny = b.b(Op::UGreaterThan, ay, inf);
        let nz = b.b(Op::UGreaterThan, az, inf);
        let n = b.or(nx, ny);
        b.or(n, nz)
    };
    let (ix, iy, iz) = (b.b(Op::IEqual, ax, inf), b.b(Op::IEqual, ay, inf), b.b(Op::IEqual, az, inf));
    let (zx, zy) = (b.b(Op::IEqual, ax, zero), b.b(Op::IEqual, ay, zero));
    let xy = b.i32(Op::BitwiseXor, x, y);
    let sp = b.i32(Op::BitwiseAnd, xy, sgn);
    let sc = b.i32(Op::BitwiseAnd, z, sgn);
    let pinf = b.or(ix, iy);
    // inf * 0, and inf - inf between the product and the addend.
    let i0a = b.and(ix, zy);
    let i0b = b.and(iy, zx);
    let opp = b.b(Op::INotEqual, sp, sc);
    let both = b.and(pinf, iz);
    let cancel = b.and(both, opp);
    let nan = b.or(nan_in, i0a);
    let nan = b.or(nan, i0b);
    let nan = b.or(nan, cancel);
    let pinf_v = b.i32(Op::BitwiseOr, sp, inf);
    let inf_v = b.sel32(pinf, pinf_v, z);
    let qnan = b.c32(0x7fff);
    let value = b.sel32(nan, qnan, inf_v);
    let any = b.or(nan_in, pinf);
    let any = b.or(any, iz);
    let zero_sign = b.i32(Op::BitwiseAnd, sp, sc);
    Special { any, value, zero_sign }
}

/// `bits(fl32(x op y))` of f32 bits with `NoContraction`.
fn f32_op(b: &mut B<'_>, op: Op, x: Id, y: Id) -> Id {
    let t = b.t;
    let fx = b.m.un(Op::Bitcast, t.f32, x);
    let fy = b.m.un(Op::Bitcast, t.f32, y);
    let r = b.fx(op, t.f32, fx, fy);
    b.m.un(Op::Bitcast, t.u32, r)
}

/// `s` rounded to odd given the exact error `e` of the sum (f32 bits both): `s` when `e` is zero or `s`'s
/// last significand bit is odd, else the neighbour of `s` towards `e` (whose last bit is odd).
fn round_to_odd(b: &mut B<'_>, s: Id, e: Id) -> Id {
    let absm = b.c32(0x7fff_ffff);
    let zero = b.c32(0);
    let one = b.c32(1);
    let ae = b.i32(Op::BitwiseAnd, e, absm);
    let inexact = b.b(Op::INotEqual, ae, zero);
    let lsb = b.i32(Op::BitwiseAnd, s, one);
    let even = b.b(Op::IEqual, lsb, zero);
    let fix = b.and(inexact, even);
    // Same signs: away from zero (bits + 1); else towards zero (bits - 1). s is not zero when e is not.
    let se = b.i32(Op::BitwiseXor, s, e);
    let k31 = b.c32(31);
    let opp = b.i32(Op::ShiftRightLogical, se, k31);
    let up = b.i32(Op::IAdd, s, one);
    let down = b.i32(Op::ISub, s, one);
    let is_opp = b.b(Op::INotEqual, opp, zero);
    let moved = b.sel32(is_opp, down, up);
    b.sel32(fix, moved, s)
}

/// The finite-operand value of `op` as f32 bits (exact or correctly rounded, see the module doc).
fn finite(b: &mut B<'_>, op: Op16, x: Id, y: Id, z: Id, mutant: Mutant) -> Id {
    let (fx, fy, fz) = (widen_f16(b, x), widen_f16(b, y), widen_f16(b, z));
    match op {
        Op16::Mul | Op16::MulF32 => f32_op(b, Op::FMul, fx, fy),
        Op16::Add | Op16::AddF32 => f32_op(b, Op::FAdd, fx, fz),
        Op16::Fma => {
            let p = f32_op(b, Op::FMul, fx, fy);
            let s = f32_op(b, Op::FAdd, p, fz);
            // TwoSum (Knuth): e = (p - (s - bv)) + (fz - bv), bv = s - p; exact in round-to-nearest.
            let bv = f32_op(b, Op::FSub, s, p);
            let av = f32_op(b, Op::FSub, s, bv);
            let db = f32_op(b, Op::FSub, fz, bv);
            let da = f32_op(b, Op::FSub, p, av);
            let e = f32_op(b, Op::FAdd, da, db);
            if mutant == Mutant::NoOdd {
                return s;
            }
            round_to_odd(b, s, e)
        }
    }
}

fn build(m: &mut Module, op: Op16, mutant: Mutant) -> Id {
    let t = Tys::of(m);
    let (f, p) = begin_helper(m, t.u32, &[t.u32, t.u32, t.u32]);
    let (x, y, z) = (p[0], p[1], p[2]);
    let mut b = B { m, t };
    let sp = special(&mut b, x, y, z);
    let v = finite(&mut b, op, x, y, z, mutant);
    let absm = b.c32(0x7fff_ffff);
    let zero = b.c32(0);
    let av = b.i32(Op::BitwiseAnd, v, absm);
    let is_zero = b.b(Op::IEqual, av, zero);
    let r = if op.f32_out() {
        let k16 = b.c32(16);
        let zs = b.i32(Op::ShiftLeftLogical, sp.zero_sign, k16);
        let r = b.sel32(is_zero, zs, v);
        let special_v = widen_f16(&mut b, sp.value);
        b.sel32(sp.any, special_v, r)
    } else {
        let h = f32_to_f16(&mut b, v, mutant == Mutant::NoTiesEven);
        let r = b.sel32(is_zero, sp.zero_sign, h);
        b.sel32(sp.any, sp.value, r)
    };
    end_helper(b.m, r);
    f
}

/// HADD2/HMUL2/HFMA2 on F16 halves from the operands `fp16.rs` prepared per half (`(a, b, c)` with HADD2's
/// `b` = 1.0 and HMUL2's `c` = -0): each half through [`op`], then `.SAT` and the canonical NaN as natively.
pub(in crate::lower) fn lower_arith(
    cx: &mut crate::lower::Ctx<'_>,
    mnemonic: &str,
    outs: &[(Id, Id, Id)],
    sat: bool,
    f32_out: bool,
) -> Result<(), crate::error::TranslateError> {
    use crate::exact::round::F16;
    use crate::lower::fp16::{canonical16, saturate16};
    let kind = match (mnemonic, f32_out) {
        ("HADD2", false) => Op16::Add,
        ("HMUL2", false) => Op16::Mul,
        ("HFMA2", false) => Op16::Fma,
        ("HADD2", true) => Op16::AddF32,
        ("HMUL2", true) => Op16::MulF32,
        _ => return Err(cx.refuse(".F32 form not translated yet")),
    };
    if f32_out {
        // One f32 result from the low halves.
        let (p, q, r) = outs[0];
        let v = op(&mut cx.m, kind, p, q, r);
        let v = crate::lower::float::canonical(cx, v);
        cx.set_dst(v);
        return Ok(());
    }
    let mut res = Vec::new();
    for &(p, q, r) in outs {
        let v = op(&mut cx.m, kind, p, q, r);
        let mut bb = B::new(&mut cx.m);
        let v = if sat { saturate16(&mut bb, F16, v) } else { v };
        res.push(canonical16(&mut bb, F16, v));
    }
    let mut bb = B::new(&mut cx.m);
    let k16 = bb.c32(16);
    let hi = bb.i32(Op::ShiftLeftLogical, res[1], k16);
    let r = bb.i32(Op::BitwiseOr, hi, res[0]);
    cx.set_dst(r);
    Ok(())
}
