//! Packed FP16/BF16: HADD2, HMUL2, HFMA2 (with `.F32`, `.SAT`, `.BF16_V2`), HMNMX2, HSETP2, HSET2.
//!
//! Fields (read from nvdisasm's listings of the corpus): A swizzle 75:74 (0 = H1_H0, 2 = H0_H0, 3 = H1_H1),
//! `-A` 72, `|A|` 73; register B swizzle 61:60, `-B` 63, `|B|` 62; register C (HFMA2) swizzle 82:81, `-C` 84;
//! `.SAT` 77; `.F32` (HADD2/HMUL2/HFMA2 result as one f32) 78; `.BF16_V2` 85; HMNMX2 `.NAN` 81 and its
//! min/max predicate 90:87; HSETP2/HSET2 comparison 79:76, predicates 83:81 and 86:84, accumulator 90:87;
//! HSET2 `.BF` 71. Immediates hold two halves (high half in 63:48).
//!
//! Exactness: every arithmetic result is computed by `crate::exact::half` (exact f64 steps, round to odd,
//! one integer rounding), comparisons and min/max on integer keys of the bits (no float compare sees a
//! denormal). NaN results: 0x7fff per half (canonical, like FP32's 0x7fffffff).

use super::{Ctx, Src};
use crate::error::TranslateError;
use crate::exact::half::{hfma, widen};
use crate::exact::round::{Format, BF16, F16};
use crate::exact::B;
use crate::spirv::{Id, Op};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "HADD2" | "HMUL2" | "HFMA2" => arith(cx, m)?,
        "HMNMX2" => hmnmx2(cx)?,
        "HSETP2" | "HSET2" => hsetp2(cx, m == "HSET2")?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// One packed source: the register/immediate value, its swizzle and modifiers.
#[derive(Clone, Copy)]
struct HSrc {
    v: Id,
    swz: u32,
    neg: bool,
    abs: bool,
}

fn src(cx: &mut Ctx<'_>, s: Src, swz: u32, neg: bool, abs: bool) -> Result<HSrc, TranslateError> {
    let v = cx.read(s)?;
    if matches!(s, Src::Imm(_)) {
        return Ok(HSrc { v, swz: 0, neg: false, abs: false });
    }
    if swz == 1 {
        return Err(cx.refuse("F32 operand swizzle not translated yet"));
    }
    Ok(HSrc { v, swz, neg, abs })
}

/// Half `k` (0 low, 1 high) of a source after swizzle and modifiers, in the low 16 bits.
fn half(cx: &mut Ctx<'_>, s: HSrc, k: u32) -> Id {
    let pick = match s.swz {
        2 => 0,
        3 => 1,
        _ => k,
    };
    let mut b = B::new(&mut cx.m);
    let sh = b.c32(16 * pick);
    let x = b.i32(Op::ShiftRightLogical, s.v, sh);
    let mask = b.c32(0xffff);
    let mut x = b.i32(Op::BitwiseAnd, x, mask);
    if s.abs {
        let k = b.c32(0x7fff);
        x = b.i32(Op::BitwiseAnd, x, k);
    }
    if s.neg {
        let k = b.c32(0x8000);
        x = b.i32(Op::BitwiseXor, x, k);
    }
    x
}

/// The A source and the second (B) source of any packed instruction, and C of HFMA2.
fn sources(cx: &mut Ctx<'_>, three: bool) -> Result<(HSrc, HSrc, Option<HSrc>), TranslateError> {
    let s = cx.abc()?;
    let i = cx.inst;
    let form = cx.form();
    let a = src(cx, s.a, i.bits(74, 2), i.bit(72), i.bit(73))?;
    let (bs, cs) = match (form, three) {
        (1, _) | (4, _) => (s.b, s.c),
        (2, false) => (s.c, s.b),
        _ => return Err(cx.refuse(format!("operand form {form} not translated yet"))),
    };
    let b = src(cx, bs, i.bits(60, 2), i.bit(63), i.bit(62))?;
    let c = if three { Some(src(cx, cs, i.bits(81, 2), i.bit(84), false)?) } else { None };
    Ok((a, b, c))
}

fn fmt_of(cx: &Ctx<'_>) -> Format {
    if cx.inst.bit(85) {
        BF16
    } else {
        F16
    }
}

/// Bits with NaN replaced by the canonical 0x7fff (low 16 bits).
pub(super) fn canonical16(b: &mut B<'_>, fmt: Format, v: Id) -> Id {
    let absm = b.c32(0x7fff);
    let a = b.i32(Op::BitwiseAnd, v, absm);
    let inf = b.c32(fmt.inf() as u32);
    let nan = b.b(Op::UGreaterThan, a, inf);
    b.sel32(nan, absm, v)
}

/// Clamp to [+0, 1]; NaN and values not above +0 give +0.
pub(super) fn saturate16(b: &mut B<'_>, fmt: Format, v: Id) -> Id {
    let one = b.c32(if fmt == BF16 { 0x3f80 } else { 0x3c00 });
    let k = b.c32(0x8000);
    let sign = b.i32(Op::BitwiseAnd, v, k);
    let z = b.c32(0);
    let neg = b.b(Op::INotEqual, sign, z);
    let absm = b.c32(0x7fff);
    let a = b.i32(Op::BitwiseAnd, v, absm);
    let inf = b.c32(fmt.inf() as u32);
    let nan = b.b(Op::UGreaterThan, a, inf);
    let big = b.b(Op::UGreaterThanEqual, v, one);
    let r = b.sel32(big, one, v);
    let low = b.or(neg, nan);
    b.sel32(low, z, r)
}

fn arith(cx: &mut Ctx<'_>, m: &str) -> Result<(), TranslateError> {
    let fma = m == "HFMA2";
    let (a, b, c) = sources(cx, fma)?;
    let fmt = fmt_of(cx);
    let sat = cx.inst.bit(77);
    let f32_out = cx.inst.bit(78);
    if cx.inst.bit(80) {
        return Err(cx.refuse(".FTZ not translated yet"));
    }
    let one = if fmt == BF16 { 0x3f80 } else { 0x3c00 };
    let mut outs = Vec::new();
    for k in 0..2 {
        let x = half(cx, a, k);
        let y = half(cx, b, k);
        let z = c.map(|c| half(cx, c, k));
        let (p, q, r) = match (m, z) {
            ("HADD2", _) => (x, cx.u32c(one), y),
            ("HMUL2", _) => (x, y, cx.u32c(0x8000)),
            (_, Some(z)) => (x, y, z),
            _ => return Err(cx.refuse("malformed HFMA2")),
        };
        outs.push((p, q, r));
    }
    let md = cx.u32c(0);
    if fmt == F16 && (!cx.float.float16 || !cx.float.float64) {
        return super::soft_f16::lower_arith(cx, m, &outs, sat, f32_out);
    }
    if f32_out {
        // One f32 result: the low halves' operation rounded to f32 (exact f64 steps, then one rounding).
        if fma || fmt == BF16 {
            return Err(cx.refuse(".F32 form not translated yet"));
        }
        let (p, q, r) = outs[0];
        let mut bb = B::new(&mut cx.m);
        let t = bb.t;
        let (wp, wq, wr) = (widen(&mut bb, fmt, p), widen(&mut bb, fmt, q), widen(&mut bb, fmt, r));
        let r = if bb.m.soft_float64() {
            // No Float64: the integer FMA rounds the exact value to f32 once.
            let v = super::soft_f64::fma(bb.m, crate::exact::round::F32, wp, wq, wr, md);
            B::new(&mut cx.m).u32_of(v)
        } else {
            let (dp, dq, dr) =
                (bb.m.un(Op::Bitcast, t.f64, wp), bb.m.un(Op::Bitcast, t.f64, wq), bb.m.un(Op::Bitcast, t.f64, wr));
            let s = crate::exact::fma32::odd_sum(&mut bb, dp, dq, dr, md);
            let bits = bb.m.un(Op::Bitcast, t.u64, s);
            crate::exact::fma32::f64_to_f32(bb.m, bits, md)
        };
        let r = super::float::canonical(cx, r);
        cx.set_dst(r);
        return Ok(());
    }
    let mut res = Vec::new();
    for (p, q, r) in outs {
        let v = hfma(&mut cx.m, fmt, p, q, r, md);
        let mut bb = B::new(&mut cx.m);
        let v = if sat { saturate16(&mut bb, fmt, v) } else { v };
        res.push(canonical16(&mut bb, fmt, v));
    }
    let mut bb = B::new(&mut cx.m);
    let k16 = bb.c32(16);
    let hi = bb.i32(Op::ShiftLeftLogical, res[1], k16);
    let r = bb.i32(Op::BitwiseOr, hi, res[0]);
    cx.set_dst(r);
    Ok(())
}

/// Integer key of half bits ordering values (NaN excluded), -0 below +0.
fn key16(b: &mut B<'_>, v: Id) -> Id {
    let k = b.c32(0x8000);
    let s = b.i32(Op::BitwiseAnd, v, k);
    let z = b.c32(0);
    let neg = b.b(Op::INotEqual, s, z);
    let ones = b.c32(0xffff);
    let flip = b.i32(Op::BitwiseXor, v, ones);
    let pos = b.i32(Op::BitwiseOr, v, k);
    b.sel32(neg, flip, pos)
}

fn is_nan16(b: &mut B<'_>, fmt: Format, v: Id) -> Id {
    let absm = b.c32(0x7fff);
    let a = b.i32(Op::BitwiseAnd, v, absm);
    let inf = b.c32(fmt.inf() as u32);
    b.b(Op::UGreaterThan, a, inf)
}

fn hmnmx2(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let (a, b, _) = sources(cx, false)?;
    let fmt = fmt_of(cx);
    let nan_mode = cx.inst.bit(81);
    let is_min = cx.pred_at(87, 90);
    let mut res = Vec::new();
    for k in 0..2 {
        let x = half(cx, a, k);
        let y = half(cx, b, k);
        let mut bb = B::new(&mut cx.m);
        let kx = key16(&mut bb, x);
        let ky = key16(&mut bb, y);
        let lt = bb.b(Op::ULessThan, kx, ky);
        let mn = bb.sel32(lt, x, y);
        let mx = bb.sel32(lt, y, x);
        let r = bb.sel32(is_min, mn, mx);
        let nx = is_nan16(&mut bb, fmt, x);
        let ny = is_nan16(&mut bb, fmt, y);
        let r = if nan_mode {
            let any = bb.or(nx, ny);
            let nan = bb.c32(0x7fff);
            bb.sel32(any, nan, r)
        } else {
            let r = bb.sel32(ny, x, r);
            bb.sel32(nx, y, r)
        };
        res.push(canonical16(&mut bb, fmt, r));
    }
    let mut bb = B::new(&mut cx.m);
    let k16 = bb.c32(16);
    let hi = bb.i32(Op::ShiftLeftLogical, res[1], k16);
    let r = bb.i32(Op::BitwiseOr, hi, res[0]);
    cx.set_dst(r);
    Ok(())
}

/// Comparison code (F LT EQ LE GT NE GE NUM NAN LTU EQU LEU GTU NEU GEU T) of two halves, on integer keys.
fn cmp16(b: &mut B<'_>, fmt: Format, cmp: u32, x: Id, y: Id) -> Id {
    let nx = is_nan16(b, fmt, x);
    let ny = is_nan16(b, fmt, y);
    let un = b.or(nx, ny);
    // ±0 compare equal: map -0 to +0 before taking keys.
    let negz = b.c32(0x8000);
    let z = b.c32(0);
    let xz = b.b(Op::IEqual, x, negz);
    let yz = b.b(Op::IEqual, y, negz);
    let x0 = b.sel32(xz, z, x);
    let y0 = b.sel32(yz, z, y);
    let kx = key16(b, x0);
    let ky = key16(b, y0);
    let lt = b.b(Op::ULessThan, kx, ky);
    let eq = b.b(Op::IEqual, kx, ky);
    let gt = b.b(Op::UGreaterThan, kx, ky);
    let ord = b.not(un);
    let base = match cmp & 7 {
        0 => b.cb(false),
        1 => lt,
        2 => eq,
        3 => b.or(lt, eq),
        4 => gt,
        5 => b.not(eq),
        6 => b.or(gt, eq),
        _ => b.cb(true),
    };
    match cmp {
        0 => b.cb(false),
        15 => b.cb(true),
        7 => ord,
        8 => un,
        1..=6 => b.and(base, ord),
        _ => b.or(base, un),
    }
}

fn hsetp2(cx: &mut Ctx<'_>, set: bool) -> Result<(), TranslateError> {
    // Only the forms nvcc emitted for the corpus are known: boolean AND with the accumulator, no `.FTZ`,
    // no horizontal `.H_AND`; anything else is refused rather than guessed.
    if cx.inst.bits(69, 2) != 0 || (!set && cx.inst.bit(71)) || cx.inst.bit(80) {
        return Err(cx.refuse("boolean operation, .H_AND or .FTZ form not translated yet"));
    }
    let (a, b, _) = sources(cx, false)?;
    // Bits 86:84 are HSETP2's second predicate, not a format: FP16 only here.
    let fmt = if set { fmt_of(cx) } else { F16 };
    let cmp = cx.inst.bits(76, 4);
    let acc = cx.pred_at(87, 90);
    let mut rs = Vec::new();
    for k in 0..2 {
        let x = half(cx, a, k);
        let y = half(cx, b, k);
        let mut bb = B::new(&mut cx.m);
        let r = cmp16(&mut bb, fmt, cmp, x, y);
        let r = bb.and(r, acc);
        rs.push(r);
    }
    if set {
        let bf = cx.inst.bit(71);
        let mut bb = B::new(&mut cx.m);
        let on = bb.c32(if bf {
            if fmt == BF16 {
                0x3f80
            } else {
                0x3c00
            }
        } else {
            0xffff
        });
        let z = bb.c32(0);
        let lo = bb.sel32(rs[0], on, z);
        let hi = bb.sel32(rs[1], on, z);
        let k16 = bb.c32(16);
        let hi = bb.i32(Op::ShiftLeftLogical, hi, k16);
        let r = bb.i32(Op::BitwiseOr, hi, lo);
        cx.set_dst(r);
    } else {
        let pu = cx.inst.bits(81, 3);
        let pv = cx.inst.bits(84, 3);
        cx.set_pred(pu, rs[0]);
        cx.set_pred(pv, rs[1]);
    }
    Ok(())
}
