//! A model of the special-function unit's MUFU.SIN / MUFU.COS, fitted to NVIDIA silicon.
//!
//! The unit's error is absolute (about 2^-22.4 of the result's scale), so a correctly rounded sine is
//! hundreds of ulp away from silicon near the zeros of sin and cos. This helper computes what the unit
//! computes, as recorded on an H200 (corpus/silicon/RECORDED.md) and in the structure Oberman and Siu describe
//! for NVIDIA's multifunction interpolator (a table of quadratic pieces over the reduced argument):
//!
//! - the argument, in revolutions, is truncated to a multiple of 2^-25: `K = floor(|x| 2^25) mod 2^25`
//!   (every float from 2^23 on is a whole number of turns: K = 0);
//! - quadrant `K >> 23`, position `t = K mod 2^23` in the quarter turn; one table `T(t) ~ sin(2 pi t 2^-25)`
//!   read at `t` or at the one's complement `2^23 - 1 - t` (sin: quadrants 1 and 3; cos: 0 and 2), negated
//!   in quadrants 2 and 3 (sin) or 1 and 2 (cos), and for sin by the argument's sign;
//! - `T` is quadratic on 64 intervals of 2^17 steps, `C0 + C1 x + C2 sq(x)`, where `sq` is the unit's
//!   truncated square (partial products below 2^19 dropped; with a full square the first interval is 7-11
//!   ulp off silicon); the coefficients (`sfu_tables`) are fitted to the recordings, the first interval's
//!   slope being silicon's exact 25737 * 2^-37 per step. Evaluated in 64-bit fixed point (2^-61 units),
//!   rounded once to f32; `T(2^23 - 1)` is exactly 1 (silicon's sin(1/4) and cos(0)).
//!
//! Measured against the recordings (4.9 M inputs: the first quarter turn every 4th step for both ops, and
//! 0.9 M random, all-quadrant and near-zero inputs): at most 1 ulp, zeros with silicon's sign.

use super::round::{self, F32};
use super::sfu_tables::{
    LG2_C0, LG2_C1, LG2_C2_NEG, LG2_EPS, SINCOS_C0, SINCOS_C1, SINCOS_C2_NEG, TANH_BINADES,
    TANH_C0, TANH_C1, TANH_C2_NEG,
};
use super::{begin_helper, end_helper, mode, Tys, B};
use crate::spirv::{Id, Module, Op, StorageClass, Type};

/// MUFU.SIN (`cos == false`) or MUFU.COS of finite f32 bits `x` (denormals already flushed): the result's
/// bits. Infinite and NaN inputs are the caller's (the unit gives NaN).
pub fn sincos(b: &mut B<'_>, x: Id, cos: bool) -> Id {
    let f = b.m.helper("exact_mufu_sincos", build);
    let ty = b.t.u32;
    let c = b.c32(u32::from(cos));
    b.call(ty, f, &[x, c])
}

/// Partial products of the unit's squarer below this weight are dropped (fitted: 2^19).
const SQ_KEEP: u32 = 19;

/// The unit's truncated square of a 17-bit `x` (u32; the result fits 34 bits, returned as u64): `x^2`
/// without the partial products `x_i x_j 2^(i+j+1)` (i < j) and `x_i 2^(2i)` of weight below 2^SQ_KEEP.
fn sq_trunc(b: &mut B<'_>, x: Id) -> Id {
    let x64 = b.u64_of(x);
    let mut acc = b.c64(0);
    let z = b.c32(0);
    for j in 0..17u32 {
        let bit = b.c32(1 << j);
        let xj = b.i32(Op::BitwiseAnd, x, bit);
        let set = b.b(Op::INotEqual, xj, z);
        let lo = SQ_KEEP.saturating_sub(1 + j);
        let mut row = b.c64(0);
        if lo < j {
            let mask = b.c64(((1u64 << j) - 1) & !((1u64 << lo) - 1));
            let part = b.i64(Op::BitwiseAnd, x64, mask);
            let sh = b.c32(j + 1);
            row = b.i64(Op::ShiftLeftLogical, part, sh);
        }
        if 2 * j >= SQ_KEEP {
            let own = b.c64(1u64 << (2 * j));
            row = b.i64(Op::IAdd, row, own);
        }
        let z64 = b.c64(0);
        let row = b.sel64(set, row, z64);
        acc = b.i64(Op::IAdd, acc, row);
    }
    acc
}

/// A constant array of `values` (type and composite ids).
fn constant_array(m: &mut Module, elem: Id, values: &[Id]) -> (Id, Id) {
    let len = m.c_u32(values.len() as u32);
    let arr = m.ty(Type::Array(elem, len, None));
    let init = m.id();
    let mut words = vec![arr, init];
    words.extend_from_slice(values);
    m.global_inst(Op::ConstantComposite, &words);
    (arr, init)
}

/// A Private variable initialised with a constant array, never written (drivers move such arrays to constant
/// data); returns the variable and its element pointer type. Private, not a Function variable of the helper:
/// Mesa inlines the helper at each call with its variables and their initialising stores, and llvmpipe then
/// compiled fast_math_mufu 4x slower than with the tables in the entry function (32 s against 8 s, 2026-12-02).
fn table(m: &mut Module, elem: Id, (arr, init): (Id, Id)) -> (Id, Id) {
    let ptr = m.t_ptr(StorageClass::Private, arr);
    let var = m.global_var(ptr, StorageClass::Private, Some(init));
    (var, m.t_ptr(StorageClass::Private, elem))
}

fn array64(m: &mut Module, v: &[u64]) -> (Id, Id) {
    let ids: Vec<Id> = v.iter().map(|&x| m.c_u64(x)).collect();
    let t = m.t_u64();
    constant_array(m, t, &ids)
}

fn load(b: &mut B<'_>, (var, ptr): (Id, Id), ty: Id, idx: Id) -> Id {
    let p = b.m.access(ptr, var, &[idx]);
    b.m.load(ty, p)
}

/// The three coefficient tables of one function (Function variables of the helper being built).
type Tables = [(Id, Id); 3];

/// `C0 2^24 + C1 x - C2n sq(x)` for the piece `ta >> 17` and `x = ta mod 2^17` (u64, 2^-61 units).
fn piecewise(b: &mut B<'_>, tabs: Tables, ta: Id) -> Id {
    let k17 = b.c32(17);
    let iv = b.i32(Op::ShiftRightLogical, ta, k17);
    let m17 = b.c32((1 << 17) - 1);
    let xl32 = b.i32(Op::BitwiseAnd, ta, m17);
    piece(b, tabs, iv, xl32)
}

/// `C0 2^24 + C1 x - C2n sq(x)` for piece `iv` at `x = xl32` (at most 17 bits; u64, 2^-61 units).
fn piece(b: &mut B<'_>, [c0, c1, c2]: Tables, iv: Id, xl32: Id) -> Id {
    let t = b.t;
    let k17 = b.c32(17);
    let xl = b.u64_of(xl32);
    let a0 = load(b, c0, t.u64, iv);
    let a1 = load(b, c1, t.u64, iv);
    let a2 = load(b, c2, t.u64, iv);
    let k24 = b.c32(24);
    let acc = b.i64(Op::ShiftLeftLogical, a0, k24);
    let p1 = b.i64(Op::IMul, a1, xl);
    let acc = b.i64(Op::IAdd, acc, p1);
    let sq = sq_trunc(b, xl32);
    let sq_hi = b.i64(Op::ShiftRightLogical, sq, k17);
    let m17_64 = b.c64((1 << 17) - 1);
    let sq_lo = b.i64(Op::BitwiseAnd, sq, m17_64);
    let p_hi = b.i64(Op::IMul, a2, sq_hi);
    let p_lo = b.i64(Op::IMul, a2, sq_lo);
    let p_lo = b.i64(Op::ShiftRightLogical, p_lo, k17);
    let p2 = b.i64(Op::IAdd, p_hi, p_lo);
    b.i64(Op::ISub, acc, p2)
}

fn build(m: &mut Module) -> Id {
    let c0 = array64(m, &SINCOS_C0);
    let c1 = array64(m, &SINCOS_C1);
    let c2 = array64(m, &SINCOS_C2_NEG);
    let t = Tys::of(m);
    let (f, p) = begin_helper(m, t.u32, &[t.u32, t.u32]);
    let tabs = [
        table(m, t.u64, c0),
        table(m, t.u64, c1),
        table(m, t.u64, c2),
    ];
    let (x, is_cos) = (p[0], p[1]);
    let mut b = B { m, t };
    let z = b.c32(0);
    let one = b.c32(1);
    let is_cos = b.b(Op::INotEqual, is_cos, z);

    // K = floor(|x| 2^25) mod 2^25, |x| = mant 2^(e - 150): a shift by e - 125.
    let absm = b.c32(0x7fff_ffff);
    let ax = b.i32(Op::BitwiseAnd, x, absm);
    let k23 = b.c32(23);
    let e = b.i32(Op::ShiftRightLogical, ax, k23);
    let fm = b.c32(0x7f_ffff);
    let frac = b.i32(Op::BitwiseAnd, ax, fm);
    let hidden = b.c32(0x80_0000);
    let mant = b.i32(Op::BitwiseOr, frac, hidden);
    let k125 = b.c32(125);
    let left = b.b(Op::UGreaterThanEqual, e, k125);
    let ls = b.i32(Op::ISub, e, k125);
    let rs = b.i32(Op::ISub, k125, e);
    let k31 = b.c32(31);
    let lsc = b.m.ext(t.u32, crate::spirv::glsl::UMIN, &[ls, k31]);
    let rsc = b.m.ext(t.u32, crate::spirv::glsl::UMIN, &[rs, k31]);
    let kl = b.i32(Op::ShiftLeftLogical, mant, lsc);
    let kr = b.i32(Op::ShiftRightLogical, mant, rsc);
    let k25 = b.c32(25);
    let l_out = b.b(Op::UGreaterThanEqual, ls, k25);
    let kl = b.sel32(l_out, z, kl);
    let k32 = b.c32(32);
    let r_out = b.b(Op::UGreaterThanEqual, rs, k32);
    let kr = b.sel32(r_out, z, kr);
    let k = b.sel32(left, kl, kr);
    let is_zero = b.b(Op::IEqual, ax, z);
    let k = b.sel32(is_zero, z, k);
    let m25 = b.c32((1 << 25) - 1);
    let k = b.i32(Op::BitwiseAnd, k, m25);

    // Quadrant, mirror and sign.
    let quad = b.i32(Op::ShiftRightLogical, k, k23);
    let m23 = b.c32((1 << 23) - 1);
    let tq = b.i32(Op::BitwiseAnd, k, m23);
    let odd = b.i32(Op::BitwiseAnd, quad, one);
    let odd = b.b(Op::INotEqual, odd, z);
    let even = b.not(odd);
    let mirror = b.selb(is_cos, even, odd);
    let q1 = b.i32(Op::ShiftRightLogical, quad, one);
    let q1 = b.b(Op::INotEqual, q1, z); // quadrants 2, 3
    let k31s = b.c32(31);
    let sx = b.i32(Op::ShiftRightLogical, x, k31s);
    let sx = b.b(Op::INotEqual, sx, z);
    let sin_neg = b.m.bin(Op::LogicalNotEqual, t.bool, q1, sx);
    let qp1 = b.i32(Op::IAdd, quad, one);
    let cn = b.i32(Op::ShiftRightLogical, qp1, one);
    let cn = b.i32(Op::BitwiseAnd, cn, one);
    let cos_neg = b.b(Op::INotEqual, cn, z); // quadrants 1, 2
    let neg = b.selb(is_cos, cos_neg, sin_neg);
    let tm = b.i32(Op::ISub, m23, tq);
    let ta = b.sel32(mirror, tm, tq);

    // T(ta) in 2^-61 units.
    let acc = piecewise(&mut b, tabs, ta);
    let below = b.neg64(acc);
    let z64 = b.c64(0);
    let acc = b.sel64(below, z64, acc);
    let top = b.b(Op::IEqual, ta, m23);
    let unit = b.c64(1 << 61);
    let acc = b.sel64(top, unit, acc);

    // One rounding to f32 (value = acc 2^-61 = mant 2^(e - 63) with e = 2 - clz).
    let lz = b.clz64(acc);
    let nm = b.shl64(acc, lz);
    let two = b.c32(2);
    let ex = b.i32(Op::ISub, two, lz);
    let rn = b.c32(mode::RN);
    let f0 = b.cb(false);
    let fl = round::flags(&mut b, rn, neg, f0);
    let r = round::round(&mut b, F32, nm, ex, fl);
    let r = b.u32_of(r);
    let sgn = b.c32(0x8000_0000);
    let signed_zero = b.sel32(neg, sgn, z);
    let acc_zero = b.b(Op::IEqual, acc, z64);
    let r = b.sel32(acc_zero, signed_zero, r);
    end_helper(b.m, r);
    f
}

/// MUFU.LG2 of a positive normal f32 `x` (u32 bits; zeros, denormals, negatives, infinities and NaN are the
/// caller's): the result's bits. The same interpolator (`LG2_*` tables, fitted to the H200 recordings):
/// `T(m) ~ log2(1 + m 2^-23)` for the fraction bits m, `e + T` rounded to a multiple of 2^-36 (ties up,
/// after the fitted offset `LG2_EPS`), then toward zero to f32; log2(1) is exactly +0. Within 2 ulp of 2.36 M
/// recorded outputs, the tiny results around x = 1 (where the unit's error is absolute) included.
pub fn lg2(b: &mut B<'_>, x: Id) -> Id {
    let f = b.m.helper("exact_mufu_lg2", build_lg2);
    let ty = b.t.u32;
    b.call(ty, f, &[x])
}

fn build_lg2(m: &mut Module) -> Id {
    let c0 = array64(m, &LG2_C0);
    let c1 = array64(m, &LG2_C1);
    let c2 = array64(m, &LG2_C2_NEG);
    let t = Tys::of(m);
    let (f, p) = begin_helper(m, t.u32, &[t.u32]);
    let x = p[0];
    let tabs = [
        table(m, t.u64, c0),
        table(m, t.u64, c1),
        table(m, t.u64, c2),
    ];
    let mut b = B { m, t };
    let k23 = b.c32(23);
    let e = b.i32(Op::ShiftRightLogical, x, k23); // biased, 1..=254
    let fm = b.c32(0x7f_ffff);
    let frac = b.i32(Op::BitwiseAnd, x, fm);
    let acc = piecewise(&mut b, tabs, frac);
    let eps = b.c64(LG2_EPS);
    let acc = b.i64(Op::IAdd, acc, eps);
    let half = b.c64(1 << 24);
    let acc = b.i64(Op::IAdd, acc, half);
    let k25 = b.c32(25);
    let q = b.i64(Op::ShiftRightLogical, acc, k25); // T in 2^-36 units, at most 2^36
                                                    // e + T with e = biased - 127: |e| 2^36 + q for e >= 0, |e| 2^36 - q below (q <= 2^36 keeps it >= 0).
    let k127 = b.c32(127);
    let neg = b.b(Op::ULessThan, e, k127);
    let ep = b.i32(Op::ISub, e, k127);
    let en = b.i32(Op::ISub, k127, e);
    let ea = b.sel32(neg, en, ep);
    let ea = b.u64_of(ea);
    let k36 = b.c32(36);
    let eh = b.i64(Op::ShiftLeftLogical, ea, k36);
    let up = b.i64(Op::IAdd, eh, q);
    let down = b.i64(Op::ISub, eh, q);
    let mag = b.sel64(neg, down, up);
    // One rounding to f32, toward zero as on silicon (lg2(2^-24) is -24 + 2^-19 there): value = mag 2^-36 = (mag << clz) 2^(e - 63) with e = 27 - clz.
    let lz = b.clz64(mag);
    let nm = b.shl64(mag, lz);
    let k27 = b.c32(27);
    let ex = b.i32(Op::ISub, k27, lz);
    let rz = b.c32(mode::RZ);
    let f0 = b.cb(false);
    let fl = round::flags(&mut b, rz, neg, f0);
    let r = round::round(&mut b, F32, nm, ex, fl);
    let r = b.u32_of(r);
    let z = b.c32(0);
    let z64 = b.c64(0);
    let zero = b.b(Op::IEqual, mag, z64);
    let one = b.c32(0x3f80_0000);
    let is_one = b.b(Op::IEqual, x, one);
    let zero = b.or(zero, is_one);
    let r = b.sel32(zero, z, r);
    end_helper(b.m, r);
    f
}

/// MUFU.TANH of f32 bits `x` (denormals kept; NaN is the caller's): the result's bits. The same interpolator,
/// as the H200 recordings show it (corpus/silicon/RECORDED.md): x itself for |x| < 2^-8, exactly ±1 from
/// |x| >= 8 on; in between the unit ignores the low D bits of the fraction (D = 6 for |x| in [2^-8, 2^-5),
/// 5 to 2^-3, 4 to 1, 3 in [1, 2), 2 in [2, 4), 3 in [4, 8): `TANH_BINADES`), the next 17 bits are the
/// interpolation variable (with the truncated squarer) and the bits above them pick one of the binade's
/// 2^(6 - D) pieces; the 51 pieces (`TANH_*`) are fitted to the recordings, the result rounded once to
/// nearest f32 and given x's sign. Within 1 ulp of all 2.54 M recorded outputs.
pub fn tanh(b: &mut B<'_>, x: Id) -> Id {
    let f = b.m.helper("exact_mufu_tanh", build_tanh);
    let ty = b.t.u32;
    b.call(ty, f, &[x])
}

fn build_tanh(m: &mut Module) -> Id {
    let c0 = array64(m, &TANH_C0);
    let c1 = array64(m, &TANH_C1);
    let c2 = array64(m, &TANH_C2_NEG);
    let bin_ids: Vec<Id> = TANH_BINADES.iter().map(|&v| m.c_u32(v)).collect();
    let t = Tys::of(m);
    let bin = constant_array(m, t.u32, &bin_ids);
    let (f, p) = begin_helper(m, t.u32, &[t.u32]);
    let x = p[0];
    let binades = table(m, t.u32, bin);
    let tabs = [
        table(m, t.u64, c0),
        table(m, t.u64, c1),
        table(m, t.u64, c2),
    ];
    let mut b = B { m, t };
    let absm = b.c32(0x7fff_ffff);
    let ax = b.i32(Op::BitwiseAnd, x, absm);
    let sgn = b.c32(0x8000_0000);
    let sbits = b.i32(Op::BitwiseAnd, x, sgn);
    let lo = b.c32(0x3b80_0000); // 2^-8
    let hi = b.c32(0x4100_0000); // 8
    let tiny = b.b(Op::ULessThan, ax, lo);
    let sat = b.b(Op::UGreaterThanEqual, ax, hi);
    let out = b.or(tiny, sat);
    // k = binade - (-8), 0..=10 inside [2^-8, 8); anything else reads piece 0 and is replaced below.
    let k23 = b.c32(23);
    let be = b.i32(Op::ShiftRightLogical, ax, k23);
    let k119 = b.c32(119);
    let k = b.i32(Op::ISub, be, k119);
    let z = b.c32(0);
    let k = b.sel32(out, z, k);
    let info = load(&mut b, binades, t.u32, k);
    let m8 = b.c32(0xff);
    let base = b.i32(Op::BitwiseAnd, info, m8);
    let k8 = b.c32(8);
    let d = b.i32(Op::ShiftRightLogical, info, k8);
    // The fraction without its low D bits: 17 bits of interpolation variable, the piece above them.
    let fm = b.c32(0x7f_ffff);
    let frac = b.i32(Op::BitwiseAnd, ax, fm);
    let kept = b.i32(Op::ShiftRightLogical, frac, d);
    let k17 = b.c32(17);
    let seg = b.i32(Op::ShiftRightLogical, kept, k17);
    let m17 = b.c32((1 << 17) - 1);
    let xl = b.i32(Op::BitwiseAnd, kept, m17);
    let iv = b.i32(Op::IAdd, base, seg);
    let acc = piece(&mut b, tabs, iv, xl);
    // One rounding to f32 (value = acc 2^-61; acc is positive, at most 2^61).
    let lz = b.clz64(acc);
    let nm = b.shl64(acc, lz);
    let two = b.c32(2);
    let ex = b.i32(Op::ISub, two, lz);
    let rn = b.c32(mode::RN);
    let f0 = b.cb(false);
    let fl = round::flags(&mut b, rn, f0, f0);
    let r = round::round(&mut b, F32, nm, ex, fl);
    let r = b.u32_of(r);
    let r = b.i32(Op::BitwiseOr, r, sbits);
    let unit = b.c32(0x3f80_0000);
    let sone = b.i32(Op::BitwiseOr, sbits, unit);
    let r = b.sel32(sat, sone, r);
    let r = b.sel32(tiny, x, r);
    end_helper(b.m, r);
    f
}
