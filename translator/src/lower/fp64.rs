//! FP64: DADD, DMUL, DFMA, DSETP (including SM86's MIN/MAX selection forms).
//!
//! Fields as FP32: rounding 79:78, `-x`/`|x|` bits 72/73 (A), 63/62 (B), 75/74 (C); DADD's second operand is
//! in the C slot; a 32-bit immediate is the high word of the double (low word zero); constant operands are
//! word pairs.
//!
//! Exactness per operation:
//! - DADD/DMUL round-to-nearest: native `OpFAdd`/`OpFMul` on f64 (Vulkan requires them correctly rounded);
//!   lavapipe keeps f64 denormals.
//! - Without `Float64` (the profile lacks `float64`): DADD/DMUL in every mode through the integer FMA of
//!   `super::soft_f64` (one rounding, so exactly IEEE's add and multiply), DSETP on integer order keys.
//! - DADD/DMUL in RM/RP/RZ and every DFMA: `crate::exact::fma64` (128-bit integer fused multiply-add;
//!   `GLSL.std.450 Fma` is not fused on lavapipe), except round-to-nearest DFMA on a device whose self-test
//!   measured a fused f64 `Fma` and kept f64 denormals ([`super::FloatSupport::native_fma64`]; NVIDIA):
//!   there it is native `Fma` on f64, NaN results picked as on every other path.
//! - NaN results: the first NaN operand quieted, else [`NAN64`] (see [`propagate_nan`]).
//! - DSETP: ordered/unordered SPIR-V comparisons (exact). DSETP.MIN/.MAX (comparison codes 0 and 15 on
//!   SM86, which has no DMNMX): the first predicate says "A is the minimum (maximum)" in the total order with
//!   -0 < +0, a NaN operand losing to a number; the second says both operands are NaN (nvcc then sets the
//!   quiet bit of the selected NaN).

use super::{Ctx, Src};
use crate::error::TranslateError;
use crate::exact::fma64::{dfma, MUL_ONLY};
use crate::spirv::{Id, Op};

/// The NaN SM86 writes for an invalid FP64 operation (the H200 goldens: sqrt of a negative, 0/0).
pub const NAN64: u64 = 0xfff8_0000_0000_0000;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "DADD" | "DMUL" | "DFMA" => arith(cx, m)?,
        "DSETP" => dsetp(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Reads an f64 source (u64 bits) as it is in the registers (no modifiers).
fn read_raw64(cx: &mut Ctx<'_>, s: Src) -> Result<Id, TranslateError> {
    match s {
        Src::Imm(hi) => Ok(cx.m.c_u64(u64::from(hi) << 32)),
        _ => cx.read64(s),
    }
}

/// Reads an f64 source (u64 bits) with abs/neg applied.
fn read_f64(cx: &mut Ctx<'_>, s: Src, abs: bool, neg: bool) -> Result<Id, TranslateError> {
    let v = read_raw64(cx, s)?;
    Ok(modify64(cx, v, abs, neg))
}

/// Applies `|x|` then `-x` to f64 bits.
fn modify64(cx: &mut Ctx<'_>, mut v: Id, abs: bool, neg: bool) -> Id {
    let t = cx.t;
    if abs {
        let k = cx.m.c_u64(u64::MAX >> 1);
        v = cx.m.bin(Op::BitwiseAnd, t.u64, v, k);
    }
    if neg {
        let k = cx.m.c_u64(1 << 63);
        v = cx.m.bin(Op::BitwiseXor, t.u64, v, k);
    }
    v
}

fn is_nan64(cx: &mut Ctx<'_>, v: Id) -> Id {
    let t = cx.t;
    let absm = cx.m.c_u64(u64::MAX >> 1);
    let a = cx.m.bin(Op::BitwiseAnd, t.u64, v, absm);
    let inf = cx.m.c_u64(0x7ff0_0000_0000_0000);
    cx.m.bin(Op::UGreaterThan, t.bool, a, inf)
}

/// SM86 FP64 NaN results (the H200 goldens): the first NaN operand among a, b, c as read from the registers (modifiers not applied), quieted; an invalid
/// operation on numbers (inf - inf, 0 * inf) gives [`NAN64`].
pub(super) fn propagate_nan(cx: &mut Ctx<'_>, r: Id, a: Id, b: Id, c: Option<Id>) -> Id {
    // One helper function per module (FP64-heavy kernels have thousands of these; inline they were ~16
    // instructions a site). Two operands pass `a` again as `c`: the pick is the same.
    let f = cx.m.helper("f64_nan_pick", build_nan_pick);
    let t = cx.t;
    cx.m.op(Op::FunctionCall, t.u64, &[f, r, a, b, c.unwrap_or(a)])
}

/// `nan_pick(r, a, b, c)`: `r` unless it is NaN, then the first NaN of a, b, c quieted, else [`NAN64`].
fn build_nan_pick(m: &mut crate::spirv::Module) -> Id {
    use crate::exact::{begin_helper, end_helper, Tys, B};
    let t = Tys::of(m);
    let (f, p) = begin_helper(m, t.u64, &[t.u64, t.u64, t.u64, t.u64]);
    let mut b = B { m, t };
    let absm = b.c64(u64::MAX >> 1);
    let inf = b.c64(0x7ff0_0000_0000_0000);
    let quiet = b.c64(1 << 51);
    let is_nan = |b: &mut B<'_>, v: Id| {
        let a = b.i64(Op::BitwiseAnd, v, absm);
        b.b(Op::UGreaterThan, a, inf)
    };
    let mut pick = b.c64(NAN64);
    for v in [p[3], p[2], p[1]] {
        let n = is_nan(&mut b, v);
        let q = b.i64(Op::BitwiseOr, v, quiet);
        pick = b.sel64(n, q, pick);
    }
    let rn = is_nan(&mut b, p[0]);
    let res = b.sel64(rn, pick, p[0]);
    end_helper(b.m, res);
    f
}

/// Whether the second operand of a two-source FP64 instruction is in the C slot: DADD's register form
/// (`DADD R16, R34, R32` has R32 in 71:64) and every form with an immediate or constant in the C slot.
fn second_in_c(cx: &Ctx<'_>, m: &str) -> bool {
    match cx.form() {
        1 => m == "DADD",
        2 | 3 => m != "DFMA",
        _ => false,
    }
}

/// What DADD/DMUL/DFMA read, in this order (module ids follow it): the operand forms, the rounding mode, the
/// raw operands as in the registers (`rc` for DFMA only; DADD's second one may sit in the C slot) and the first
/// two with their `-`/`|x|` applied.
struct ArithOperands {
    s: super::Abc,
    rnd: u32,
    ra: Id,
    rb: Id,
    rc: Option<Id>,
    a: Id,
    b: Id,
}

/// Reads each operand once: the modified values feed the FMA, the raw ones NaN propagation.
fn arith_operands(cx: &mut Ctx<'_>, m: &str) -> Result<ArithOperands, TranslateError> {
    let s = cx.abc()?;
    let rnd = cx.inst.bits(78, 2);
    let second_in_c = second_in_c(cx, m);
    let ra = read_raw64(cx, s.a)?;
    let rb = read_raw64(cx, if second_in_c { s.c } else { s.b })?;
    let rc = if m == "DFMA" { Some(read_raw64(cx, s.c)?) } else { None };
    let a = modify64(cx, ra, s.abs[0], s.neg[0]);
    let b = if second_in_c { modify64(cx, rb, s.abs[2], s.neg[2]) } else { modify64(cx, rb, s.abs[1], s.neg[1]) };
    Ok(ArithOperands { s, rnd, ra, rb, rc, a, b })
}

fn arith(cx: &mut Ctx<'_>, m: &str) -> Result<(), TranslateError> {
    let ArithOperands { s, rnd, ra, rb, rc, a, b } = arith_operands(cx, m)?;
    let t = cx.t;
    // Declared here as before soft double existed (keeps the native modules' ids, and so their snapshots).
    let f64t = cx.float.float64.then(|| cx.m.t_f64());
    let r = match m {
        "DFMA" if rnd == 0 && cx.float.native_fma64 && f64t.is_some() => {
            let f64t = f64t.unwrap_or_default();
            let c = modify64(cx, rc.unwrap_or(rb), s.abs[2], s.neg[2]);
            let [fa, fb, fc] = [a, b, c].map(|v| cx.m.un(Op::Bitcast, f64t, v));
            let r = cx.m.ext(f64t, crate::spirv::glsl::FMA, &[fa, fb, fc]);
            cx.m.un(Op::Bitcast, t.u64, r)
        }
        "DFMA" => {
            let c = modify64(cx, rc.unwrap_or(rb), s.abs[2], s.neg[2]);
            let md = cx.u32c(rnd);
            dfma(&mut cx.m, a, b, c, md)
        }
        _ if rnd == 0 && f64t.is_some() => {
            let f64t = f64t.unwrap_or_default();
            let fa = cx.m.un(Op::Bitcast, f64t, a);
            let fb = cx.m.un(Op::Bitcast, f64t, b);
            let op = if m == "DADD" { Op::FAdd } else { Op::FMul };
            let r = cx.m.bin(op, f64t, fa, fb);
            cx.m.un(Op::Bitcast, t.u64, r)
        }
        "DADD" => {
            let one = cx.m.c_u64(1f64.to_bits());
            let md = cx.u32c(rnd);
            dfma(&mut cx.m, a, one, b, md)
        }
        _ => {
            let zero = cx.m.c_u64(0);
            let md = cx.u32c(rnd | MUL_ONLY);
            dfma(&mut cx.m, a, b, zero, md)
        }
    };
    // NaN operands propagate as they are in the registers, before `-`/`|x|` (H200 goldens: `x - y` with y NaN
    // gives y's own sign).
    // DADD with two NaN operands gives the second one's (quieted), also a quiet second over a signalling
    // first (H200 goldens of corpus `math_library_forms`: nextafter's `DADD R2, R4, R2` on two NaNs).
    let r = if m == "DADD" { propagate_nan(cx, r, rb, ra, None) } else { propagate_nan(cx, r, ra, rb, rc) };
    cx.set_dst64(r);
    Ok(())
}

/// The operands of one site of the shared FMA body (`super::shared_fma`): `round_md(a * b + c)` (`md` the SM86
/// mode, optionally `| MUL_ONLY`), and the three raw operands whose first NaN the result takes
/// ([`propagate_nan`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FmaOperands {
    pub abc: [Id; 3],
    pub md: Id,
    pub nan: [Id; 3],
}

/// Whether `inst` computes through the exact FP64 fused multiply-add helper under `float`, which
/// `super::shared_fma` can share between sites: every DFMA but round-to-nearest on a fusing device, DADD and
/// DMUL in the directed modes, and every DADD/DMUL of soft double. Mirrors [`arith`].
pub(crate) fn shares_fma_body(inst: &crate::program::Inst, float: &super::FloatSupport) -> bool {
    let rnd = inst.bits(78, 2);
    match inst.mnemonic {
        "DFMA" => !(rnd == 0 && float.native_fma64 && float.float64),
        "DADD" | "DMUL" => rnd != 0 || !float.float64,
        _ => false,
    }
}

/// The operands of a site of the shared body (`super::shared_fma`; [`shares_fma_body`] holds for
/// `cx.inst`), read unconditionally (reads have no side effects): [`site_result`] applies the guard.
pub(crate) fn site_operands(cx: &mut Ctx<'_>) -> Result<FmaOperands, TranslateError> {
    let m = cx.inst.mnemonic;
    let ArithOperands { s, rnd, ra, rb, rc, a, b } = arith_operands(cx, m)?;
    Ok(match (m, rc) {
        ("DFMA", Some(rc)) => {
            let c = modify64(cx, rc, s.abs[2], s.neg[2]);
            FmaOperands { abc: [a, b, c], md: cx.u32c(rnd), nan: [ra, rb, rc] }
        }
        ("DADD", _) => FmaOperands { abc: [a, cx.m.c_u64(1f64.to_bits()), b], md: cx.u32c(rnd), nan: [rb, ra, rb] },
        _ => FmaOperands { abc: [a, b, cx.m.c_u64(0)], md: cx.u32c(rnd | MUL_ONLY), nan: [ra, rb, ra] },
    })
}

/// Writes a site's result `r` to its destination where its guard holds (`lower` leaves sites unguarded).
pub(crate) fn site_result(cx: &mut Ctx<'_>, r: Id) {
    let merge = cx.inst.guard().map(|(p, neg)| {
        let g = cx.pred(u32::from(p), neg);
        cx.begin_if(g)
    });
    cx.set_dst64(r);
    if let Some(merge) = merge {
        cx.end_if(merge);
    }
}

/// The shared body of `super::shared_fma`: the fused multiply-add, then SM86's NaN.
pub(crate) fn fma_body(cx: &mut Ctx<'_>, ops: FmaOperands) -> Id {
    let [a, b, c] = ops.abc;
    let r = dfma(&mut cx.m, a, b, c, ops.md);
    let [x, y, z] = ops.nan;
    propagate_nan(cx, r, x, y, Some(z))
}

/// Total-order key of non-NaN f64 bits (unsigned comparison orders the values, -0 below +0).
fn order_key64(cx: &mut Ctx<'_>, v: Id) -> Id {
    let t = cx.t;
    let k63 = cx.u32c(63);
    let sign = cx.m.bin(Op::ShiftRightArithmetic, t.u64, v, k63);
    let top = cx.m.c_u64(1 << 63);
    let m = cx.m.bin(Op::BitwiseOr, t.u64, sign, top);
    cx.m.bin(Op::BitwiseXor, t.u64, v, m)
}

fn dsetp(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let cmp = cx.inst.bits(76, 4);
    let bop = cx.inst.bits(74, 2);
    let pu = cx.inst.bits(81, 3);
    let pv = cx.inst.bits(84, 3);
    let a = read_f64(cx, s.a, s.abs[0], s.neg[0])?;
    let b = if second_in_c(cx, "DSETP") {
        read_f64(cx, s.c, s.abs[2], s.neg[2])?
    } else {
        read_f64(cx, s.b, s.abs[1], s.neg[1])?
    };
    let acc = cx.pred_at(87, 90);
    let t = cx.t;
    let (u, v) = if cmp == 0 || cmp == 15 {
        let na = is_nan64(cx, a);
        let nb = is_nan64(cx, b);
        let ka = order_key64(cx, a);
        let kb = order_key64(cx, b);
        let op = if cmp == 0 { Op::ULessThanEqual } else { Op::UGreaterThanEqual };
        let le = cx.m.bin(op, t.bool, ka, kb);
        let not_na = cx.m.un(Op::LogicalNot, t.bool, na);
        let num = cx.m.bin(Op::LogicalAnd, t.bool, le, not_na);
        let pick_a = cx.m.bin(Op::LogicalOr, t.bool, num, nb);
        let both = cx.m.bin(Op::LogicalAnd, t.bool, na, nb);
        (pick_a, both)
    } else if !cx.float.float64 {
        let r = super::soft_f64::cmp::compare(&mut crate::exact::B::new(&mut cx.m), cmp, a, b);
        let nr = cx.m.un(Op::LogicalNot, t.bool, r);
        (r, nr)
    } else {
        let f64t = cx.m.t_f64();
        let fa = cx.m.un(Op::Bitcast, f64t, a);
        let fb = cx.m.un(Op::Bitcast, f64t, b);
        // NUM/NAN on the bits (OpOrdered/OpUnordered need the Kernel capability).
        let r = match cmp {
            7 | 8 => {
                let na = is_nan64(cx, a);
                let nb = is_nan64(cx, b);
                let any = cx.m.bin(Op::LogicalOr, t.bool, na, nb);
                if cmp == 8 {
                    any
                } else {
                    cx.m.un(Op::LogicalNot, t.bool, any)
                }
            }
            _ => super::float::float_cmp(cx, cmp, fa, fb, f64t),
        };
        let nr = cx.m.un(Op::LogicalNot, t.bool, r);
        (r, nr)
    };
    let Some(u) = super::integer::bool_op(cx, bop, u, acc) else {
        return Err(cx.refuse("DSETP boolean operation 3"));
    };
    let v = super::integer::bool_op(cx, bop, v, acc).unwrap_or(u);
    cx.set_pred(pu, u);
    cx.set_pred(pv, v);
    Ok(())
}
