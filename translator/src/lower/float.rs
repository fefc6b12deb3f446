//! FP32 basics: FADD, FMUL, FFMA, FSETP, FSET, FSEL, FMNMX (MUFU is `mufu`).
//!
//! Exactness per operation (SM86 results on every conformant Vulkan device, given the device preserves f32
//! denormals, as lavapipe measurably does):
//! - FADD/FMUL round-to-nearest: native `OpFAdd`/`OpFMul` (Vulkan requires them correctly rounded), then NaN
//!   results canonicalised to 0x7fffffff as SM86 writes them. Where denormals are not measured to survive
//!   (NVIDIA's driver flushes f32 denormals and cannot be asked not to), a denormal operand or a zero or
//!   denormal result sends the operation to the exact helper instead ([`denormal_guard`]).
//! - FFMA: `GLSL.std.450 Fma` is not fused on every device (lavapipe), so FFMA is the exact integer helper of
//!   `crate::exact::fma32`, except round-to-nearest without `.FMZ` on a device whose measured self-test showed
//!   a fused `Fma` and preserved f32 denormals ([`FloatSupport::native_fma32`]; NVIDIA): there it is native
//!   `Fma`, NaN results canonicalised like every other path.
//! - `.FTZ`: inputs and result flushed (sign kept) with integer tests; `.SAT`: clamp to [+0, 1], NaN -> +0.
//! - FSETP: ordered/unordered SPIR-V comparisons (exact); FMNMX: integer total order on the bits, with SM86's
//!   NaN rule (a NaN operand yields the other operand; two NaNs the canonical NaN) and -0 < +0.
//! - `.RM/.RP/.RZ` rounding and FFMA's `.FMZ`: the exact helpers of `crate::exact::fma32` (the hook is
//!   [`rounded`]).

use super::{Ctx, Src};
use crate::abi::DeviceProfile;
use crate::error::TranslateError;
use crate::spirv::{glsl, Id, Op};

/// Which native float operations and execution modes give SM86 results on the target device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FloatSupport {
    /// `SignedZeroInfNanPreserve` may be requested for f32 (index 0) and f64 (index 1).
    pub signed_zero_inf_nan_preserve: [bool; 2],
    /// `GLSL.std.450 Fma` on f32 is fused, measured on the device: round-to-nearest FFMA may then be native
    /// (the exact helper costs ~40 instructions).
    pub native_fma32: bool,
    /// `GLSL.std.450 Fma` on f64 is fused and f64 denormals survive native operations, both measured on the
    /// device (NVIDIA), and the profile has Float64: round-to-nearest DFMA may then be native `Fma` (the exact
    /// 128-bit integer helper costs ~330 instructions a site, and drivers inline every one).
    pub native_fma64: bool,
    /// f32 denormal operands and results survive native operations without execution modes (measured):
    /// otherwise native FADD/FMUL/FFMA results are checked and recomputed exactly where a denormal is involved.
    pub f32_denormals_preserved: bool,
    /// The device has `Float64` (the profile does not lack `float64`): otherwise every f64 step, FP32
    /// helpers' exact f64 intermediates included, is soft double in integer arithmetic (`lower::soft_f64`).
    pub float64: bool,
    /// The device has `Float16`: otherwise HADD2/HMUL2/HFMA2 on FP16 halves take the 32-bit path
    /// (`lower::soft_f16`: f32 steps and integer rounding, no f64), as they do without `float64`.
    pub float16: bool,
    /// The device has 64-bit atomics: otherwise `.64` global atomics run under a lock (`lower::soft_atomic64`).
    pub int64_atomics: bool,
}

impl Default for FloatSupport {
    /// Nothing measured: every mode requested, every FFMA exact in integers, denormals not trusted to survive.
    fn default() -> Self {
        Self { signed_zero_inf_nan_preserve: [true; 2], native_fma32: false, native_fma64: false, f32_denormals_preserved: false, float64: true, float16: true, int64_atomics: true }
    }
}

impl FloatSupport {
    /// From the runtime's device profile; `None` gives the default. Where the device cannot keep zero signs,
    /// infinities and NaNs the mode is left out (a module must not request it); results around ±0, inf and
    /// NaN then depend on the driver's folding.
    pub fn for_profile(profile: Option<&DeviceProfile>) -> Self {
        let Some(p) = profile else { return Self::default() };
        let fc = &p.float_controls.signed_zero_inf_nan_preserve;
        let m = &p.measured;
        Self {
            signed_zero_inf_nan_preserve: [fc[1], fc[2]],
            native_fma32: m.fma_f32_fused == Some(true),
            native_fma64: m.fma_f64_fused == Some(true)
                && m.denorm_f64_preserved == Some(true)
                && !p.lacks(crate::features::Feature::Float64),
            f32_denormals_preserved: m.denorm_f32_preserved == Some(true),
            float64: !p.lacks(crate::features::Feature::Float64),
            float16: !p.lacks(crate::features::Feature::Float16),
            int64_atomics: !p.lacks(crate::features::Feature::Int64Atomics),
        }
    }
}

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "FADD" | "FMUL" | "FFMA" => arith(cx, m)?,
        "FSETP" => fsetp(cx)?,
        "FSET" => fset(cx)?,
        "FSEL" => fsel(cx)?,
        "FMNMX" => fmnmx(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Reads a source as f32 bits with its abs/neg modifiers applied (exact bit operations).
fn read_mod(cx: &mut Ctx<'_>, s: Src, abs: bool, neg: bool) -> Result<Id, TranslateError> {
    let mut v = cx.read(s)?;
    if abs {
        let k = cx.u32c(0x7fff_ffff);
        v = cx.op2(Op::BitwiseAnd, v, k);
    }
    if neg {
        let k = cx.u32c(0x8000_0000);
        v = cx.op2(Op::BitwiseXor, v, k);
    }
    Ok(v)
}

/// Flushes a denormal (bits) to a zero of the same sign.
pub(super) fn ftz(cx: &mut Ctx<'_>, v: Id) -> Id {
    let t = cx.t;
    let e = cx.u32c(0x7f80_0000);
    let exp = cx.op2(Op::BitwiseAnd, v, e);
    let zero = cx.u32c(0);
    let is_den = cx.m.bin(Op::IEqual, t.bool, exp, zero);
    let s = cx.u32c(0x8000_0000);
    let sign = cx.op2(Op::BitwiseAnd, v, s);
    cx.sel(is_den, sign, v)
}

/// NaN bits -> 0x7fffffff.
pub(super) fn canonical(cx: &mut Ctx<'_>, v: Id) -> Id {
    let t = cx.t;
    let abs_mask = cx.u32c(0x7fff_ffff);
    let a = cx.op2(Op::BitwiseAnd, v, abs_mask);
    let inf = cx.u32c(0x7f80_0000);
    let nan = cx.m.bin(Op::UGreaterThan, t.bool, a, inf);
    cx.sel(nan, abs_mask, v)
}

fn to_f(cx: &mut Ctx<'_>, v: Id) -> Id {
    cx.m.un(Op::Bitcast, cx.t.f32, v)
}
fn to_u(cx: &mut Ctx<'_>, v: Id) -> Id {
    cx.m.un(Op::Bitcast, cx.t.u32, v)
}

/// Directed rounding (and FFMA's `.FMZ`) through the exact helpers of [`crate::exact::fma32`]: the result
/// bits, or `None` for round-to-nearest without `.FMZ`, which stays native.
fn rounded(cx: &mut Ctx<'_>, m: &str, rnd: u32, fmz: bool, a: Id, b: Id, c: Option<Id>) -> Option<Id> {
    use crate::exact::fma32;
    // FFMA: the exact helper unless the device measurably fuses (the silicon goldens showed `ffma_rn` off by
    // one ulp on lavapipe, whose `Fma` is a multiply and an add).
    if rnd == 0 && !fmz && (m != "FFMA" || cx.float.native_fma32) {
        return None;
    }
    let md = cx.u32c(rnd);
    let (a, b) = if fmz { fma32::fmz(&mut cx.m, a, b) } else { (a, b) };
    Some(match (m, c) {
        ("FADD", _) => fma32::fadd(&mut cx.m, a, b, md),
        ("FMUL", _) => fma32::fmul(&mut cx.m, a, b, md),
        (_, Some(c)) => fma32::ffma(&mut cx.m, a, b, c, md),
        _ => return None,
    })
}

fn arith(cx: &mut Ctx<'_>, m: &str) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let i = cx.inst;
    let fma = m == "FFMA";
    let sat = i.bit(77);
    let rnd = i.bits(78, 2);
    let ftz_mode = i.bit(80);
    // FMUL's post-scale (bits 86:84): 1 .D8, 2 .D4, 3 .D2, 4 none, 5 .M2, 6 .M4, 7 .M8; 0 does not exist.
    let scale = if m == "FMUL" { i.bits(84, 3) as i32 - 4 } else { 0 };
    if scale == -4 {
        return Err(cx.refuse("FMUL with the invalid scale 0"));
    }
    // Every source has its |x| and -x bits (FADD's, FMUL's and FFMA's A 73/72, B 62/63 or 74/75, C 74/75 or
    // 62/63 by operand form, as nvdisasm prints them): `abc` places them.
    let a = read_mod(cx, s.a, s.abs[0], s.neg[0])?;
    // FADD's immediate/constant forms (2, 3) hold the second operand in the C slot (`FADD R15, R15, -24` is
    // form 2 with the immediate in 63:32 and no register).
    let b = if m == "FADD" && matches!(cx.form(), 2 | 3) {
        read_mod(cx, s.c, s.abs[2], s.neg[2])?
    } else {
        read_mod(cx, s.b, s.abs[1], s.neg[1])?
    };
    let c = if fma { Some(read_mod(cx, s.c, s.abs[2], s.neg[2])?) } else { None };
    let (a, b, c) = if ftz_mode {
        let a = ftz(cx, a);
        let b = ftz(cx, b);
        let c = c.map(|c| ftz(cx, c));
        (a, b, c)
    } else {
        (a, b, c)
    };
    let t = cx.t;
    let zero_src = |x: Src| matches!(x, Src::Reg(255)) || matches!(x, Src::Imm(v) if v & 0x7fff_ffff == 0);
    let mut r = if m == "FMUL" && (zero_src(s.a) || zero_src(s.b)) {
        // A product with a literal zero, in integers: Mesa folds `x * 0.0` to 0 even for x = inf or NaN
        // (NoContraction does not stop it), where IEEE and SM86 give NaN (precise_math's `FMUL R11, RZ, R2`).
        let (zero, other) = if zero_src(s.a) { (a, b) } else { (b, a) };
        let k = cx.u32c(0x7fff_ffff);
        let mag = cx.op2(Op::BitwiseAnd, other, k);
        let inf = cx.u32c(0x7f80_0000);
        let special = cx.m.bin(Op::UGreaterThanEqual, t.bool, mag, inf);
        let x = cx.op2(Op::BitwiseXor, zero, other);
        let sign = cx.u32c(0x8000_0000);
        let signed_zero = cx.op2(Op::BitwiseAnd, x, sign);
        cx.sel(special, k, signed_zero)
    } else if scale != 0 {
        scaled_product(cx, a, b, scale, rnd, i.bit(76))
    } else if let Some(r) = rounded(cx, m, rnd, fma && i.bit(76), a, b, c) {
        r
    } else {
        let native = native_arith(cx, m, a, b, c)?;
        if cx.float.f32_denormals_preserved {
            native
        } else {
            denormal_guard(cx, m, native, a, b, c)
        }
    };
    if ftz_mode {
        r = ftz(cx, r);
    }
    if sat {
        r = saturate(cx, r);
    }
    r = canonical(cx, r);
    cx.set_dst(r);
    Ok(())
}

/// FMUL `.D8/.D4/.D2/.M2/.M4/.M8`: `round(a * b * 2^scale)` with one rounding, in mode `rnd`: the f64 product
/// of the widened factors is exact (48 significant bits, exponents -298..256) and so is its scaling by
/// 2^scale (|scale| <= 3 keeps it far inside f64's normal range), then the one f64 -> f32 rounding of
/// [`crate::exact::fma32`]. A product that overflows f32 before a `.D` scaling is finite after it, and one
/// that is normal before it may round as a denormal: both as one rounding of the exact value (checked on
/// the H200: corpus `fmul_scaled`). NaN results are canonicalised by the caller.
fn scaled_product(cx: &mut Ctx<'_>, a: Id, b: Id, scale: i32, rnd: u32, fmz: bool) -> Id {
    use crate::exact::{fma32, B};
    let (a, b) = if fmz { fma32::fmz(&mut cx.m, a, b) } else { (a, b) };
    let md = cx.u32c(rnd);
    if !cx.float.float64 {
        return super::soft_f64::fmul_scaled(&mut cx.m, a, b, scale, md);
    }
    let mut bb = B::new(&mut cx.m);
    let t = bb.t;
    let wa = bb.widen_f32(a);
    let wb = bb.widen_f32(b);
    let da = bb.m.un(Op::Bitcast, t.f64, wa);
    let db = bb.m.un(Op::Bitcast, t.f64, wb);
    let p = bb.fx(Op::FMul, t.f64, da, db);
    let k = bb.m.constant(t.f64, 2f64.powi(scale).to_bits(), true);
    let p = bb.fx(Op::FMul, t.f64, p, k);
    let bits = bb.m.un(Op::Bitcast, t.u64, p);
    fma32::f64_to_f32(bb.m, bits, md)
}

/// The native round-to-nearest operation on the bits `a`, `b` (and `c` for FFMA).
fn native_arith(cx: &mut Ctx<'_>, m: &str, a: Id, b: Id, c: Option<Id>) -> Result<Id, TranslateError> {
    let t = cx.t;
    let fa = to_f(cx, a);
    let fb = to_f(cx, b);
    let r = match (m, c) {
        ("FADD", _) => cx.m.bin(Op::FAdd, t.f32, fa, fb),
        ("FMUL", _) => cx.m.bin(Op::FMul, t.f32, fa, fb),
        (_, Some(c)) => {
            let fc = to_f(cx, c);
            cx.m.ext(t.f32, glsl::FMA, &[fa, fb, fc])
        }
        _ => return Err(cx.refuse("malformed FFMA")),
    };
    if c.is_none() {
        // No compiler may fuse or reassociate it.
        cx.m.decorate(r, crate::spirv::Decoration::NoContraction, &[]);
    }
    Ok(to_u(cx, r))
}

/// On a device that flushes f32 denormals (NVIDIA's Vulkan driver, which cannot be asked to preserve them),
/// the native result stands only when no operand is a denormal and the result is not zero or denormal (a
/// flushed result is a zero); otherwise the exact helper computes it. Zero operands are exact natively.
fn denormal_guard(cx: &mut Ctx<'_>, m: &str, native: Id, a: Id, b: Id, c: Option<Id>) -> Id {
    use crate::exact::fma32;
    let t = cx.t;
    let exp = cx.u32c(0x7f80_0000);
    let mag = cx.u32c(0x7fff_ffff);
    let zero = cx.u32c(0);
    let denormal = |cx: &mut Ctx<'_>, x: Id| {
        let e = cx.op2(Op::BitwiseAnd, x, exp);
        let e0 = cx.m.bin(Op::IEqual, t.bool, e, zero);
        let v = cx.op2(Op::BitwiseAnd, x, mag);
        let nz = cx.m.bin(Op::INotEqual, t.bool, v, zero);
        cx.m.bin(Op::LogicalAnd, t.bool, e0, nz)
    };
    let mut slow = denormal(cx, a);
    for x in [Some(b), c].into_iter().flatten() {
        let d = denormal(cx, x);
        slow = cx.m.bin(Op::LogicalOr, t.bool, slow, d);
    }
    let re = cx.op2(Op::BitwiseAnd, native, exp);
    let tiny = cx.m.bin(Op::IEqual, t.bool, re, zero);
    slow = cx.m.bin(Op::LogicalOr, t.bool, slow, tiny);
    let from = cx.m.current_block().unwrap_or(0);
    let exact_block = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(slow, exact_block, merge);
    cx.m.label(exact_block);
    let rn = cx.u32c(0);
    let exact = match (m, c) {
        ("FADD", _) => fma32::fadd(&mut cx.m, a, b, rn),
        ("FMUL", _) => fma32::fmul(&mut cx.m, a, b, rn),
        (_, Some(c)) => fma32::ffma(&mut cx.m, a, b, c, rn),
        _ => native,
    };
    let exact_end = cx.m.current_block().unwrap_or(exact_block);
    cx.m.branch(merge);
    cx.m.label(merge);
    cx.m.op(Op::Phi, t.u32, &[exact, exact_end, native, from])
}

/// Clamp to [+0, 1]; NaN and every value not above +0 give +0. In integers, so that a positive denormal
/// stays itself on drivers that flush denormals in float comparisons.
fn saturate(cx: &mut Ctx<'_>, r: Id) -> Id {
    let t = cx.t;
    let mag_mask = cx.u32c(0x7fff_ffff);
    let inf = cx.u32c(0x7f80_0000);
    let z = cx.u32c(0);
    let o = cx.u32c(0x3f80_0000);
    let mag = cx.op2(Op::BitwiseAnd, r, mag_mask);
    let nan = cx.m.bin(Op::UGreaterThan, t.bool, mag, inf);
    // Sign clear and not zero; NaNs are excluded below.
    let pos = cx.m.bin(Op::SGreaterThan, t.bool, r, z);
    let number = cx.m.un(Op::LogicalNot, t.bool, nan);
    let keep = cx.m.bin(Op::LogicalAnd, t.bool, pos, number);
    let big = cx.m.bin(Op::UGreaterThanEqual, t.bool, r, o);
    let x = cx.sel(big, o, r);
    cx.sel(keep, x, z)
}

/// Float comparison (4-bit code: F LT EQ LE GT NE GE NUM NAN LTU EQU LEU GTU NEU GEU T).
pub(super) fn float_cmp(cx: &mut Ctx<'_>, cmp: u32, fa: Id, fb: Id, ty: Id) -> Id {
    let t = cx.t;
    let _ = ty;
    let op = match cmp {
        0 => return cx.m.c_bool(false),
        15 => return cx.m.c_bool(true),
        1 => Op::FOrdLessThan,
        2 => Op::FOrdEqual,
        3 => Op::FOrdLessThanEqual,
        4 => Op::FOrdGreaterThan,
        5 => Op::FOrdNotEqual,
        6 => Op::FOrdGreaterThanEqual,
        7 | 8 => {
            // OpOrdered/OpUnordered need the Kernel capability: build them from IsNan.
            let na = cx.m.un(Op::IsNan, t.bool, fa);
            let nb = cx.m.un(Op::IsNan, t.bool, fb);
            let any = cx.m.bin(Op::LogicalOr, t.bool, na, nb);
            return if cmp == 8 { any } else { cx.m.un(Op::LogicalNot, t.bool, any) };
        }
        9 => Op::FUnordLessThan,
        10 => Op::FUnordEqual,
        11 => Op::FUnordLessThanEqual,
        12 => Op::FUnordGreaterThan,
        13 => Op::FUnordNotEqual,
        _ => Op::FUnordGreaterThanEqual,
    };
    cx.m.bin(op, t.bool, fa, fb)
}

/// An f32 comparison of the bits `a` and `b`: native where denormals survive, else in integers (a driver
/// that flushes denormals compares `1e-40 > 0` as false; nvcc's fp64 division tests high words this way).
fn f32_cmp(cx: &mut Ctx<'_>, cmp: u32, a: Id, b: Id) -> Id {
    if cx.float.f32_denormals_preserved {
        let fa = to_f(cx, a);
        let fb = to_f(cx, b);
        let f32t = cx.t.f32;
        return float_cmp(cx, cmp, fa, fb, f32t);
    }
    let t = cx.t;
    if cmp == 0 || cmp == 15 {
        return cx.m.c_bool(cmp == 15);
    }
    let mag_mask = cx.u32c(0x7fff_ffff);
    let inf = cx.u32c(0x7f80_0000);
    let zero = cx.u32c(0);
    let top = cx.u32c(0x8000_0000);
    let k31 = cx.u32c(31);
    // Bits to a key whose unsigned order is the float order, both zeros equal.
    let key_nan = |cx: &mut Ctx<'_>, x: Id| {
        let mag = cx.op2(Op::BitwiseAnd, x, mag_mask);
        let nan = cx.m.bin(Op::UGreaterThan, t.bool, mag, inf);
        let is_zero = cx.m.bin(Op::IEqual, t.bool, mag, zero);
        let neg = cx.op2(Op::ShiftRightArithmetic, x, k31);
        let flipped = cx.op2(Op::BitwiseXor, x, neg);
        let pos_mask = cx.m.un(Op::Not, t.u32, neg);
        let high = cx.op2(Op::BitwiseAnd, pos_mask, top);
        let key = cx.op2(Op::BitwiseOr, flipped, high);
        (cx.sel(is_zero, top, key), nan)
    };
    let (ka, na) = key_nan(cx, a);
    let (kb, nb) = key_nan(cx, b);
    let any_nan = cx.m.bin(Op::LogicalOr, t.bool, na, nb);
    let rel = match cmp & 7 {
        1 => Op::ULessThan,
        2 => Op::IEqual,
        3 => Op::ULessThanEqual,
        4 => Op::UGreaterThan,
        5 => Op::INotEqual,
        6 => Op::UGreaterThanEqual,
        // 7 NUM, 8 NAN (cmp & 7 == 0).
        _ => return if cmp == 8 { any_nan } else { cx.m.un(Op::LogicalNot, t.bool, any_nan) },
    };
    let r = cx.m.bin(rel, t.bool, ka, kb);
    if cmp < 8 {
        let ordered = cx.m.un(Op::LogicalNot, t.bool, any_nan);
        cx.m.bin(Op::LogicalAnd, t.bool, ordered, r)
    } else {
        cx.m.bin(Op::LogicalOr, t.bool, any_nan, r)
    }
}

fn fsetp(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let cmp = cx.inst.bits(76, 4);
    let bop = cx.inst.bits(74, 2);
    let ftz_mode = cx.inst.bit(80);
    let pu = cx.inst.bits(81, 3);
    let pv = cx.inst.bits(84, 3);
    let mut a = read_mod(cx, s.a, s.abs[0], s.neg[0])?;
    let mut b = read_mod(cx, s.b, s.abs[1], s.neg[1])?;
    let acc = cx.pred_at(87, 90);
    if ftz_mode {
        a = ftz(cx, a);
        b = ftz(cx, b);
    }
    let r = f32_cmp(cx, cmp, a, b);
    let Some(u) = super::integer::bool_op(cx, bop, r, acc) else {
        return Err(cx.refuse("FSETP boolean operation 3"));
    };
    let nr = cx.m.un(Op::LogicalNot, cx.t.bool, r);
    let v = super::integer::bool_op(cx, bop, nr, acc).unwrap_or(u);
    cx.set_pred(pu, u);
    cx.set_pred(pv, v);
    Ok(())
}

/// FSET.BF: the FSETP comparison and boolean operation, written as 1.0 (0x3f800000) or +0 to a register.
/// Bits as FSETP's (comparison 79:76, boolean operation 75:74, `.FTZ` 80, predicate 89:87 negated by 90);
/// the B operand's modifiers are bits 63 (negate) and 62 (absolute value).
fn fset(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let cmp = cx.inst.bits(76, 4);
    let bop = cx.inst.bits(74, 2);
    let ftz_mode = cx.inst.bit(80);
    let mut a = read_mod(cx, s.a, s.abs[0], s.neg[0])?;
    let mut b = read_mod(cx, s.b, s.abs[1], s.neg[1])?;
    let acc = cx.pred_at(87, 90);
    if ftz_mode {
        a = ftz(cx, a);
        b = ftz(cx, b);
    }
    let r = f32_cmp(cx, cmp, a, b);
    let Some(u) = super::integer::bool_op(cx, bop, r, acc) else {
        return Err(cx.refuse("FSET boolean operation 3"));
    };
    let one = cx.u32c(0x3f80_0000);
    let zero = cx.u32c(0);
    let v = cx.sel(u, one, zero);
    cx.set_dst(v);
    Ok(())
}

fn fsel(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let a = read_mod(cx, s.a, s.abs[0], s.neg[0])?;
    let b = read_mod(cx, s.b, s.abs[1], s.neg[1])?;
    let p = cx.pred_at(87, 90);
    let r = cx.sel(p, a, b);
    cx.set_dst(r);
    Ok(())
}

/// Total-order key of non-NaN float bits: unsigned comparison of keys orders the floats, -0 below +0.
fn order_key(cx: &mut Ctx<'_>, v: Id) -> Id {
    let k31 = cx.u32c(31);
    let sign = cx.op2(Op::ShiftRightArithmetic, v, k31);
    let top = cx.u32c(0x8000_0000);
    let m = cx.op2(Op::BitwiseOr, sign, top);
    cx.op2(Op::BitwiseXor, v, m)
}

fn is_nan(cx: &mut Ctx<'_>, v: Id) -> Id {
    let t = cx.t;
    let abs_mask = cx.u32c(0x7fff_ffff);
    let a = cx.op2(Op::BitwiseAnd, v, abs_mask);
    let inf = cx.u32c(0x7f80_0000);
    cx.m.bin(Op::UGreaterThan, t.bool, a, inf)
}

fn fmnmx(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let ftz_mode = cx.inst.bit(80);
    let mut a = read_mod(cx, s.a, s.abs[0], s.neg[0])?;
    let mut b = read_mod(cx, s.b, s.abs[1], s.neg[1])?;
    let is_min = cx.pred_at(87, 90);
    if ftz_mode {
        a = ftz(cx, a);
        b = ftz(cx, b);
    }
    let t = cx.t;
    let ka = order_key(cx, a);
    let kb = order_key(cx, b);
    let a_lt = cx.m.bin(Op::ULessThan, t.bool, ka, kb);
    let mn = cx.sel(a_lt, a, b);
    let mx = cx.sel(a_lt, b, a);
    let r = cx.sel(is_min, mn, mx);
    let na = is_nan(cx, a);
    let nb = is_nan(cx, b);
    let r = cx.sel(nb, a, r);
    let r = cx.sel(na, b, r);
    let r = canonical(cx, r);
    cx.set_dst(r);
    Ok(())
}
