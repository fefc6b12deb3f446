//! Integer ALU: IMAD (.MOV/.SHL/.IADD/.WIDE/.HI/.X), IADD3(.X), LEA(.HI/.X/.SX32), LOP3, PLOP3, SHF, PRMT,
//! SEL, ISETP(.EX), IMNMX, IABS, POPC, FLO, BREV, BMSK, SGXT, MOV. Integer arithmetic wraps; all of it is
//! exact SPIR-V integer arithmetic.

use super::view_operands::{immediate, negated, optional_predicate, predicate, predicate_parts, source, view};
use super::{Abc, Ctx, Src};
use crate::error::TranslateError;
use crate::spirv::{glsl, Id, Op};

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "IMAD" => imad(cx)?,
        "IADD3" => iadd3(cx)?,
        "LEA" => lea(cx)?,
        "LOP3" => lop3(cx)?,
        "PLOP3" => plop3(cx)?,
        "SHF" => shf(cx)?,
        "PRMT" => prmt(cx)?,
        "SEL" => sel(cx)?,
        "ISETP" => isetp(cx)?,
        "IMNMX" => imnmx(cx)?,
        "IABS" | "POPC" | "FLO" | "BREV" | "MOV" => unary(cx, m)?,
        "BMSK" => bmsk(cx)?,
        "SGXT" => sgxt(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Reads a, b, c applying arithmetic negation (or bitwise not when `bitwise`).
fn read_abc(cx: &mut Ctx<'_>, s: &Abc, bitwise: bool) -> Result<[Id; 3], TranslateError> {
    let mut out = [0; 3];
    for (k, src) in [s.a, s.b, s.c].into_iter().enumerate() {
        let v = cx.read(src)?;
        out[k] = if s.neg[k] {
            if bitwise {
                cx.not(v)
            } else {
                cx.ineg(v)
            }
        } else {
            v
        };
    }
    Ok(out)
}

/// Carry of `a + b` (u32) as bool.
fn carry_add(cx: &mut Ctx<'_>, sum: Id, a: Id) -> Id {
    cx.m.bin(Op::ULessThan, cx.t.bool, sum, a)
}

fn imad(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let base = cx.base_op();
    let x = cx.inst.bit(74);
    let signed = cx.inst.bit(73);
    let pout = cx.inst.bits(81, 3);
    let t = cx.t;
    match base {
        0x024 => {
            if pout != 7 {
                return Err(cx.refuse("carry-out of IMAD not translated yet"));
            }
            let [a, b, c] = read_abc(cx, &s, x)?;
            let cin = if x { Some(cx.pred_at(87, 90)) } else { None };
            let p = cx.op2(Op::IMul, a, b);
            let mut r = cx.op2(Op::IAdd, p, c);
            if let Some(ci) = cin {
                let ci = cx.bool_to_u32(ci);
                r = cx.op2(Op::IAdd, r, ci);
            }
            cx.set_dst(r);
        }
        0x025 => {
            if s.neg.iter().any(|n| *n) || matches!(s.c, Src::Imm(_)) {
                return Err(cx.refuse("negated or immediate addend of IMAD.WIDE not translated yet"));
            }
            let a = cx.read(s.a)?;
            let b = cx.read(s.b)?;
            let c = cx.read64(s.c)?;
            let cin = if x { Some(cx.pred_at(87, 90)) } else { None };
            let conv = if signed { Op::SConvert } else { Op::UConvert };
            let a64 = cx.m.un(conv, t.u64, a);
            let b64 = cx.m.un(conv, t.u64, b);
            let p = cx.m.bin(Op::IMul, t.u64, a64, b64);
            let s1 = cx.m.bin(Op::IAdd, t.u64, p, c);
            let mut r = s1;
            let mut carry = cx.m.bin(Op::ULessThan, t.bool, s1, p);
            if let Some(ci) = cin {
                let one = cx.m.c_u64(1);
                let zero = cx.m.c_u64(0);
                let ci64 = cx.m.select(t.u64, ci, one, zero);
                r = cx.m.bin(Op::IAdd, t.u64, s1, ci64);
                let c2 = cx.m.bin(Op::ULessThan, t.bool, r, s1);
                carry = cx.m.bin(Op::LogicalOr, t.bool, carry, c2);
            }
            cx.set_dst64(r);
            if pout != 7 {
                cx.set_pred(pout, carry);
            }
        }
        0x027 => {
            // High word of a*b + C, where C is a 64-bit register pair (nvcc folds `mulhi(x, m) + x` into
            // `IMAD.HI R0, Rx, m, R4` with R4 = 0, R5 = x). Carry-out: of the 64-bit sum.
            if s.neg.iter().any(|n| *n) || x || matches!(s.c, Src::Imm(_)) {
                return Err(cx.refuse("IMAD.HI with a negated or immediate addend or carry-in not translated yet"));
            }
            let a = cx.read(s.a)?;
            let b = cx.read(s.b)?;
            let c = cx.read64(s.c)?;
            let conv = if signed { Op::SConvert } else { Op::UConvert };
            let a64 = cx.m.un(conv, t.u64, a);
            let b64 = cx.m.un(conv, t.u64, b);
            let p = cx.m.bin(Op::IMul, t.u64, a64, b64);
            let sum = cx.m.bin(Op::IAdd, t.u64, p, c);
            let carry = cx.m.bin(Op::ULessThan, t.bool, sum, p);
            let (_, hi) = cx.split64(sum);
            cx.set_dst(hi);
            if pout != 7 {
                cx.set_pred(pout, carry);
            }
        }
        _ => return Err(cx.refuse("IMAD variant not translated yet")),
    }
    Ok(())
}

fn iadd3(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let x = match &v {
        sassport_gen::View::Iadd3(i) => i.x(),
        sassport_gen::View::Uiadd3(i) => i.x(),
        _ => return Err(cx.refuse("IADD3 without its view")),
    };
    let mut srcs = [Src::Imm(0); 3];
    let mut neg = [false; 3];
    for (k, name) in ["a", "b", "c"].into_iter().enumerate() {
        srcs[k] = source(cx, &v, name)?;
        neg[k] = negated(cx, &v, name)?;
    }
    let p0 = u32::from(optional_predicate(cx, &v, "carry")?);
    let p1 = u32::from(optional_predicate(cx, &v, "carry2")?);
    let t = cx.t;
    // Inputs first.
    let raw = [cx.read(srcs[0])?, cx.read(srcs[1])?, cx.read(srcs[2])?];
    let (cin0, cin1) =
        if x { (Some(predicate(cx, &v, "carry_in")?), Some(predicate(cx, &v, "carry_in2")?)) } else { (None, None) };
    // Each negated operand is ~x + 1 (plain) or ~x (.X); the +1s feed the adders' carries.
    let mut ops = [0; 3];
    let mut plus = [0u32; 3];
    for k in 0..3 {
        ops[k] = if neg[k] { cx.not(raw[k]) } else { raw[k] };
        plus[k] = u32::from(neg[k] && !x);
    }
    let need_carry = p0 != 7 || p1 != 7;
    if !need_carry {
        let mut r = cx.op2(Op::IAdd, ops[0], ops[1]);
        r = cx.op2(Op::IAdd, r, ops[2]);
        let k: u32 = plus.iter().sum();
        if k != 0 {
            let kc = cx.u32c(k);
            r = cx.op2(Op::IAdd, r, kc);
        }
        for ci in [cin0, cin1].into_iter().flatten() {
            let c = cx.bool_to_u32(ci);
            r = cx.op2(Op::IAdd, r, c);
        }
        cx.set_dst(r);
        return Ok(());
    }
    // 64-bit adders: first a + b (+ their +1s, + carry-in 0), then low word + c (+1, + carry-in 1).
    let w = |cx: &mut Ctx<'_>, v: Id| cx.m.un(Op::UConvert, t.u64, v);
    let a64 = w(cx, ops[0]);
    let b64 = w(cx, ops[1]);
    let c64 = w(cx, ops[2]);
    let mut s1 = cx.m.bin(Op::IAdd, t.u64, a64, b64);
    let k1 = u64::from(plus[0] + plus[1]);
    if k1 != 0 {
        let k = cx.m.c_u64(k1);
        s1 = cx.m.bin(Op::IAdd, t.u64, s1, k);
    }
    let one = cx.m.c_u64(1);
    let zero = cx.m.c_u64(0);
    if let Some(ci) = cin0 {
        let v = cx.m.select(t.u64, ci, one, zero);
        s1 = cx.m.bin(Op::IAdd, t.u64, s1, v);
    }
    let (s1_lo, s1_hi) = cx.split64(s1);
    let lo64 = w(cx, s1_lo);
    let mut s2 = cx.m.bin(Op::IAdd, t.u64, lo64, c64);
    if plus[2] != 0 {
        s2 = cx.m.bin(Op::IAdd, t.u64, s2, one);
    }
    if let Some(ci) = cin1 {
        let v = cx.m.select(t.u64, ci, one, zero);
        s2 = cx.m.bin(Op::IAdd, t.u64, s2, v);
    }
    let (r, s2_hi) = cx.split64(s2);
    let z = cx.u32c(0);
    let c0 = cx.m.bin(Op::INotEqual, t.bool, s1_hi, z);
    let c1 = cx.m.bin(Op::INotEqual, t.bool, s2_hi, z);
    cx.set_dst(r);
    if p0 != 7 {
        cx.set_pred(p0, c0);
    }
    if p1 != 7 {
        cx.set_pred(p1, c1);
    }
    Ok(())
}

fn lea(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let hi = cx.inst.bit(80);
    let x = cx.inst.bit(74);
    let sx32 = cx.inst.bit(73);
    let shift = cx.inst.bits(75, 5);
    let pout = cx.inst.bits(81, 3);
    let t = cx.t;
    // Bits 79:75 are the shift here, not C's modifiers; B's negation (bit 63) exists only in the B slot.
    let b_neg = s.neg[1] && matches!(cx.form(), 1 | 5 | 6);
    if s.neg[0] && hi {
        return Err(cx.refuse("LEA.HI with a negated A not translated yet"));
    }
    let mut a = cx.read(s.a)?;
    let mut b = cx.read(s.b)?;
    let c = cx.read(s.c)?;
    let cin = if x { Some(cx.pred_at(87, 90)) } else { None };
    // A negated operand is ~v + 1 in the plain forms, the +1 entering the adder as a carry-in, so the
    // carry-out is that of a subtraction (b >= a << shift; nvcc's 64-bit `x - (y << 2)` relies on it, also
    // when a << shift is 0). In the .X forms the negation is ~v with no +1 (nvdisasm prints `~R`): the high
    // word of a 64-bit `base - index` (`LEA.HI.X.SX32 R7, R7, ~R11, 0x1, P1`) takes the low word's carry.
    let a_plus_one = s.neg[0] && !x;
    if s.neg[0] && x {
        a = cx.not(a);
    }
    if b_neg {
        b = cx.not(b);
    }
    let shifted = if hi {
        // High word of ({c:a} << shift): the 64-bit value's bits 63-shift..32-shift... i.e. ({c:a} >> (32-shift)).
        let high = if sx32 {
            let k = cx.u32c(31);
            cx.op2(Op::ShiftRightArithmetic, a, k)
        } else {
            c
        };
        let v = cx.pack64(a, high);
        let k = cx.u32c(shift);
        let v = cx.m.bin(Op::ShiftLeftLogical, t.u64, v, k);
        let (_, h) = cx.split64(v);
        h
    } else {
        let k = cx.u32c(shift);
        let v = cx.op2(Op::ShiftLeftLogical, a, k);
        if a_plus_one {
            cx.not(v)
        } else {
            v
        }
    };
    let mut s1 = cx.op2(Op::IAdd, shifted, b);
    let mut carry = carry_add(cx, s1, shifted);
    // The +1s of negated operands (A's, then B's), each with its carry.
    for _ in 0..u32::from(a_plus_one) + u32::from(b_neg && !x) {
        let one = cx.u32c(1);
        let s2 = cx.op2(Op::IAdd, s1, one);
        let c2 = carry_add(cx, s2, s1);
        carry = cx.m.bin(Op::LogicalOr, t.bool, carry, c2);
        s1 = s2;
    }
    let mut r = s1;
    if let Some(ci) = cin {
        let ci = cx.bool_to_u32(ci);
        r = cx.op2(Op::IAdd, s1, ci);
        let c2 = carry_add(cx, r, s1);
        carry = cx.m.bin(Op::LogicalOr, t.bool, carry, c2);
    }
    cx.set_dst(r);
    if pout != 7 {
        cx.set_pred(pout, carry);
    }
    Ok(())
}

/// A value during LUT evaluation: constants fold away.
#[derive(Clone, Copy)]
enum V {
    Zero,
    Ones,
    Val(Id),
}

fn v_not(cx: &mut Ctx<'_>, v: V) -> V {
    match v {
        V::Zero => V::Ones,
        V::Ones => V::Zero,
        V::Val(i) => V::Val(cx.not(i)),
    }
}

fn v_bin(cx: &mut Ctx<'_>, op: Op, x: V, y: V) -> V {
    match (op, x, y) {
        (Op::BitwiseAnd, V::Zero, _) | (Op::BitwiseAnd, _, V::Zero) => V::Zero,
        (Op::BitwiseAnd, V::Ones, o) | (Op::BitwiseAnd, o, V::Ones) => o,
        (Op::BitwiseXor, V::Zero, o) | (Op::BitwiseXor, o, V::Zero) => o,
        (Op::BitwiseXor, V::Ones, o) | (Op::BitwiseXor, o, V::Ones) => v_not(cx, o),
        (_, V::Val(a), V::Val(b)) => V::Val(cx.op2(op, a, b)),
        _ => V::Zero, // unreachable for the ops used
    }
}

/// `lut` over inputs (bit i of the lut is the result for a = i>>k...): Shannon expansion on the last input.
fn lut_eval(cx: &mut Ctx<'_>, lut: u32, inputs: &[V]) -> V {
    let n = inputs.len();
    if n == 0 {
        return if lut & 1 != 0 { V::Ones } else { V::Zero };
    }
    let half = 1u32 << (n - 1);
    let mask = (1u32 << half) - 1;
    // Index bit 0 is the last input: split the truth table on it.
    let mut lut0 = 0;
    let mut lut1 = 0;
    for i in 0..half {
        if lut >> (2 * i) & 1 != 0 {
            lut0 |= 1 << i;
        }
        if lut >> (2 * i + 1) & 1 != 0 {
            lut1 |= 1 << i;
        }
    }
    let (lut0, lut1) = (lut0 & mask, lut1 & mask);
    let rest = &inputs[..n - 1];
    let last = inputs[n - 1];
    if lut0 == lut1 {
        return lut_eval(cx, lut0, rest);
    }
    let f0 = lut_eval(cx, lut0, rest);
    if lut0 ^ lut1 == mask {
        // f1 = ~f0: f0 ^ last
        return v_bin(cx, Op::BitwiseXor, f0, last);
    }
    let f1 = lut_eval(cx, lut1, rest);
    // f0 ^ ((f0 ^ f1) & last)
    let d = v_bin(cx, Op::BitwiseXor, f0, f1);
    let d = v_bin(cx, Op::BitwiseAnd, d, last);
    v_bin(cx, Op::BitwiseXor, f0, d)
}

/// Applies an 8-entry LUT where a = 0xF0, b = 0xCC, c = 0xAA.
pub(super) fn lop3_value(cx: &mut Ctx<'_>, lut: u32, a: Id, b: Id, c: Id) -> Id {
    // lut index = a<<2 | b<<1 | c: the last input (c) is index bit 0.
    match lut_eval(cx, lut, &[V::Val(a), V::Val(b), V::Val(c)]) {
        V::Zero => cx.u32c(0),
        V::Ones => cx.u32c(u32::MAX),
        V::Val(v) => v,
    }
}

fn lop3(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let (sa, sb, sc) = (source(cx, &v, "a")?, source(cx, &v, "b")?, source(cx, &v, "c")?);
    let lut = immediate(cx, &v, "lut")? as u32;
    let pout = u32::from(optional_predicate(cx, &v, "pout")?);
    // The predicate output is `(r != 0) or Q` (`.LUT`) or `(r != 0) and Q` (`.LUT.PAND`), Q the predicate
    // operand (`!PT`, false, when nvdisasm prints nothing else). nvcc's 64-bit zero test `P = lo != 0;
    // LOP3.LUT P, RZ, hi, 0x7fffffff, RZ, 0xc0, P` (nextafter) reads it as or.
    let pand = match &v {
        sassport_gen::View::Lop3(l) => l.pand(),
        sassport_gen::View::Ulop3(l) => l.pand(),
        _ => return Err(cx.refuse("LOP3 without its view")),
    };
    let (qp, qnot, _) = predicate_parts(cx, &v, "pred")?;
    let q = if pout != 7 && (pand || !(qp == 7 && qnot)) { Some(predicate(cx, &v, "pred")?) } else { None };
    let a = cx.read(sa)?;
    let b = cx.read(sb)?;
    let c = cx.read(sc)?;
    let r = lop3_value(cx, lut, a, b, c);
    cx.set_dst(r);
    if pout != 7 {
        let z = cx.u32c(0);
        let mut p = cx.m.bin(Op::INotEqual, cx.t.bool, r, z);
        if let Some(q) = q {
            let op = if pand { Op::LogicalAnd } else { Op::LogicalOr };
            p = cx.m.bin(op, cx.t.bool, p, q);
        }
        cx.set_pred(pout, p);
    }
    Ok(())
}

fn plop3(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    if cx.base_op() != 0x01c {
        return Err(cx.refuse("PLOP3 on register signs not translated yet"));
    }
    let a = cx.pred_at(87, 90);
    let b = cx.pred_at(77, 80);
    // Bit 67 makes the third operand a uniform predicate (`PLOP3.LUT P0, PT, PT, PT, UP0, ...`, what ptxas
    // emits for a loop's block-uniform exit test).
    let c = if cx.inst.bit(67) {
        let t = cx.t;
        let u = cx.st.upred(&mut cx.m, &t, cx.inst.bits(68, 3) as u8);
        if cx.inst.bit(71) {
            cx.m.un(Op::LogicalNot, t.bool, u)
        } else {
            u
        }
    } else {
        cx.pred_at(68, 71)
    };
    let lut0 = cx.inst.bits(64, 3) | (cx.inst.bits(72, 5) << 3);
    let lut1 = cx.inst.bits(16, 8);
    let t = cx.t;
    // Evaluate on all-ones / zero words, then test bit 0.
    let ones = cx.u32c(u32::MAX);
    let zero = cx.u32c(0);
    let aw = cx.sel(a, ones, zero);
    let bw = cx.sel(b, ones, zero);
    let cw = cx.sel(c, ones, zero);
    let d0 = cx.inst.bits(81, 3);
    let d1 = cx.inst.bits(84, 3);
    let mut outs = Vec::new();
    for (d, lut) in [(d0, lut0), (d1, lut1)] {
        if d != 7 {
            let v = lop3_value(cx, lut, aw, bw, cw);
            let p = cx.m.bin(Op::INotEqual, t.bool, v, zero);
            outs.push((d, p));
        }
    }
    for (d, p) in outs {
        cx.set_pred(d, p);
    }
    Ok(())
}

fn shf(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let ty = cx.inst.bits(73, 2); // 0 S64, 1 U64, 2 S32, 3 U32
    let wrap = cx.inst.bit(75);
    let right = cx.inst.bit(76);
    let hi = cx.inst.bit(80);
    let t = cx.t;
    // Bits 75:73 are the type and wrap mode here, not operand modifiers.
    let lo = cx.read(s.a)?;
    let amount = cx.read(s.b)?;
    let high = cx.read(s.c)?;
    let is64 = ty < 2;
    let signed = ty == 0 || ty == 2;
    let width = if is64 { 64 } else { 32 };
    // Shift amount: wrapped to the width, or clamped to it.
    let amt = if wrap {
        let k = cx.u32c(width - 1);
        cx.op2(Op::BitwiseAnd, amount, k)
    } else {
        let k = cx.u32c(width);
        cx.m.ext(t.u32, glsl::UMIN, &[amount, k])
    };
    let v = cx.pack64(lo, high);
    // A shift by 64 is undefined in SPIR-V: shift by (amt - 1) then by 1 more.
    let one = cx.u32c(1);
    let zero = cx.u32c(0);
    let is_zero = cx.m.bin(Op::IEqual, t.bool, amt, zero);
    let amt_m1 = cx.op2(Op::ISub, amt, one);
    let amt_m1 = cx.sel(is_zero, zero, amt_m1);
    let op = if !right {
        Op::ShiftLeftLogical
    } else if signed {
        Op::ShiftRightArithmetic
    } else {
        Op::ShiftRightLogical
    };
    let s1 = cx.m.bin(op, t.u64, v, amt_m1);
    let s2 = cx.m.bin(op, t.u64, s1, one);
    let shifted = cx.m.select(t.u64, is_zero, v, s2);
    let (rl, rh) = cx.split64(shifted);
    let r = if hi { rh } else { rl };
    cx.set_dst(r);
    Ok(())
}

fn prmt(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let (sa, sb, sc) = (source(cx, &v, "a")?, source(cx, &v, "b")?, source(cx, &v, "c")?);
    if cx.inst.bits(72, 3) != 0 {
        return Err(cx.refuse("PRMT mode not translated yet"));
    }
    let a = cx.read(sa)?;
    let sel = cx.read(sb)?;
    let c = cx.read(sc)?;
    let t = cx.t;
    let v = cx.pack64(a, c);
    let mut r = cx.u32c(0);
    for i in 0..4u32 {
        let sh = cx.u32c(4 * i);
        let nib = cx.op2(Op::ShiftRightLogical, sel, sh);
        let seven = cx.u32c(7);
        let idx = cx.op2(Op::BitwiseAnd, nib, seven);
        let three = cx.u32c(3);
        let bitpos = cx.op2(Op::ShiftLeftLogical, idx, three);
        let byte64 = cx.m.bin(Op::ShiftRightLogical, t.u64, v, bitpos);
        let byte = cx.m.un(Op::UConvert, t.u32, byte64);
        let ff = cx.u32c(0xff);
        let byte = cx.op2(Op::BitwiseAnd, byte, ff);
        // Sign replication when the selector's bit 3 is set.
        let eight = cx.u32c(8);
        let msb_sel = cx.op2(Op::BitwiseAnd, nib, eight);
        let zero = cx.u32c(0);
        let replicate = cx.m.bin(Op::INotEqual, t.bool, msb_sel, zero);
        let s7 = cx.u32c(7);
        let top = cx.op2(Op::ShiftRightLogical, byte, s7);
        let neg = cx.ineg(top);
        let neg = cx.op2(Op::BitwiseAnd, neg, ff);
        let b = cx.sel(replicate, neg, byte);
        let pos = cx.u32c(8 * i);
        let b = cx.op2(Op::ShiftLeftLogical, b, pos);
        r = cx.op2(Op::BitwiseOr, r, b);
    }
    cx.set_dst(r);
    Ok(())
}

fn sel(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let (a, b) = (source(cx, &v, "a")?, source(cx, &v, "b")?);
    let a = cx.read(a)?;
    let b = cx.read(b)?;
    let p = predicate(cx, &v, "pred")?;
    let r = cx.sel(p, a, b);
    cx.set_dst(r);
    Ok(())
}

/// Integer comparison `a cmp b` (cmp: 0 F, 1 LT, 2 EQ, 3 LE, 4 GT, 5 NE, 6 GE, 7 T).
pub(super) fn int_cmp(cx: &mut Ctx<'_>, cmp: u32, signed: bool, a: Id, b: Id) -> Id {
    let t = cx.t;
    let op = match (cmp, signed) {
        (0, _) => return cx.m.c_bool(false),
        (7, _) => return cx.m.c_bool(true),
        (1, true) => Op::SLessThan,
        (1, false) => Op::ULessThan,
        (2, _) => Op::IEqual,
        (3, true) => Op::SLessThanEqual,
        (3, false) => Op::ULessThanEqual,
        (4, true) => Op::SGreaterThan,
        (4, false) => Op::UGreaterThan,
        (5, _) => Op::INotEqual,
        (6, true) => Op::SGreaterThanEqual,
        _ => Op::UGreaterThanEqual,
    };
    cx.m.bin(op, t.bool, a, b)
}

/// Combines a comparison with the accumulator predicate: 0 AND, 1 OR, 2 XOR.
pub(super) fn bool_op(cx: &mut Ctx<'_>, bop: u32, x: Id, acc: Id) -> Option<Id> {
    let op = match bop {
        0 => Op::LogicalAnd,
        1 => Op::LogicalOr,
        2 => Op::LogicalNotEqual,
        _ => return None,
    };
    Some(cx.m.bin(op, cx.t.bool, x, acc))
}

fn isetp(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let s = cx.abc()?;
    let ex = cx.inst.bit(72);
    let signed = cx.inst.bit(73);
    let bop = cx.inst.bits(74, 2);
    let cmp = cx.inst.bits(76, 3);
    let pu = cx.inst.bits(81, 3);
    let pv = cx.inst.bits(84, 3);
    let a = cx.read(s.a)?;
    let b = cx.read(s.b)?;
    let acc = cx.pred_at(87, 90);
    let t = cx.t;
    let r = if ex {
        // 64-bit compare continued from the low words' result (pred 70:68, negated by 71).
        let low = cx.pred_at(68, 71);
        let eq = cx.m.bin(Op::IEqual, t.bool, a, b);
        match cmp {
            0 => cx.m.c_bool(false),
            7 => cx.m.c_bool(true),
            2 => cx.m.bin(Op::LogicalAnd, t.bool, eq, low),
            5 => {
                let ne = cx.m.un(Op::LogicalNot, t.bool, eq);
                cx.m.bin(Op::LogicalOr, t.bool, ne, low)
            }
            _ => {
                let strict = match cmp {
                    1 | 3 => 1,
                    _ => 4,
                };
                let st = int_cmp(cx, strict, signed, a, b);
                let tie = cx.m.bin(Op::LogicalAnd, t.bool, eq, low);
                cx.m.bin(Op::LogicalOr, t.bool, st, tie)
            }
        }
    } else {
        int_cmp(cx, cmp, signed, a, b)
    };
    let Some(u) = bool_op(cx, bop, r, acc) else {
        return Err(cx.refuse("ISETP boolean operation 3"));
    };
    let nr = cx.m.un(Op::LogicalNot, t.bool, r);
    let v = bool_op(cx, bop, nr, acc).unwrap_or(u);
    cx.set_pred(pu, u);
    cx.set_pred(pv, v);
    Ok(())
}

fn imnmx(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let (a, b) = (source(cx, &v, "a")?, source(cx, &v, "b")?);
    // `.U32` compares unsigned (the modifiers nvdisasm prints, through the view).
    let signed = match &v {
        sassport_gen::View::Imnmx(m) => !m.u32(),
        _ => return Err(cx.refuse("IMNMX without its view")),
    };
    let a = cx.read(a)?;
    let b = cx.read(b)?;
    let is_min = predicate(cx, &v, "pred")?;
    let t = cx.t;
    let (mn, mx) = if signed { (glsl::SMIN, glsl::SMAX) } else { (glsl::UMIN, glsl::UMAX) };
    let lo = cx.m.ext(t.u32, mn, &[a, b]);
    let hi = cx.m.ext(t.u32, mx, &[a, b]);
    let r = cx.sel(is_min, lo, hi);
    cx.set_dst(r);
    Ok(())
}

fn unary(cx: &mut Ctx<'_>, m: &str) -> Result<(), TranslateError> {
    let view = view(cx)?;
    // MOV's source is `src`; IABS, POPC, FLO, BREV and UMOV name theirs `a`.
    let name = if view.operand("src").is_some() { "src" } else { "a" };
    let (s, not) = (source(cx, &view, name)?, negated(cx, &view, name)?);
    let mut v = cx.read(s)?;
    let t = cx.t;
    if not {
        v = cx.not(v);
    }
    let r = match m {
        "MOV" => v,
        "IABS" => {
            let k = cx.u32c(31);
            let sign = cx.op2(Op::ShiftRightArithmetic, v, k);
            let x = cx.op2(Op::BitwiseXor, v, sign);
            cx.op2(Op::ISub, x, sign)
        }
        "POPC" => cx.m.un(Op::BitCount, t.u32, v),
        "BREV" => cx.m.un(Op::BitReverse, t.u32, v),
        _ => {
            // FLO: index of the most significant one (signed: of the most significant bit differing from
            // the sign), 0xffffffff if none; .SH gives 31 - index.
            if optional_predicate(cx, &view, "pout")? != 7 {
                return Err(cx.refuse("FLO predicate output not translated yet"));
            }
            let (signed, sh) = match &view {
                sassport_gen::View::Flo(f) => (!f.u32(), f.sh()),
                sassport_gen::View::Uflo(f) => (!f.u32(), f.sh()),
                _ => return Err(cx.refuse("FLO without its view")),
            };
            let msb = cx.m.ext(t.u32, if signed { glsl::FIND_SMSB } else { glsl::FIND_UMSB }, &[v]);
            if sh {
                let none = cx.u32c(u32::MAX);
                let is_none = cx.m.bin(Op::IEqual, t.bool, msb, none);
                let k = cx.u32c(31);
                let sh = cx.op2(Op::ISub, k, msb);
                cx.sel(is_none, none, sh)
            } else {
                msb
            }
        }
    };
    cx.set_dst(r);
    Ok(())
}

fn bmsk(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let (sa, sb) = (source(cx, &v, "a")?, source(cx, &v, "b")?);
    // `.W` wraps the position and width at 32.
    let wrap = match &v {
        sassport_gen::View::Bmsk(m) => m.w(),
        sassport_gen::View::Ubmsk(m) => m.w(),
        _ => return Err(cx.refuse("BMSK without its view")),
    };
    let pos = cx.read(sa)?;
    let width = cx.read(sb)?;
    let t = cx.t;
    let k31 = cx.u32c(31);
    let k32 = cx.u32c(32);
    let (pos, width) = if wrap {
        (cx.op2(Op::BitwiseAnd, pos, k31), cx.op2(Op::BitwiseAnd, width, k31))
    } else {
        (cx.m.ext(t.u32, glsl::UMIN, &[pos, k32]), cx.m.ext(t.u32, glsl::UMIN, &[width, k32]))
    };
    // ((1 << width) - 1) << pos computed in 64 bits, truncated.
    let one = cx.m.c_u64(1);
    let w = cx.m.bin(Op::ShiftLeftLogical, t.u64, one, width);
    let w = cx.m.bin(Op::ISub, t.u64, w, one);
    let r = cx.m.bin(Op::ShiftLeftLogical, t.u64, w, pos);
    let r = cx.m.un(Op::UConvert, t.u32, r);
    cx.set_dst(r);
    Ok(())
}

fn sgxt(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let v = view(cx)?;
    let (sa, sb) = (source(cx, &v, "a")?, source(cx, &v, "b")?);
    // `.U32` extends with zeros, `.W` wraps the bit count at 32.
    let (signed, wrap) = match &v {
        sassport_gen::View::Sgxt(m) => (!m.u32(), m.w()),
        sassport_gen::View::Usgxt(m) => (!m.u32(), m.w()),
        _ => return Err(cx.refuse("SGXT without its view")),
    };
    let a = cx.read(sa)?;
    let bits = cx.read(sb)?;
    let t = cx.t;
    let k31 = cx.u32c(31);
    let k32 = cx.u32c(32);
    let n = if wrap { cx.op2(Op::BitwiseAnd, bits, k31) } else { cx.m.ext(t.u32, glsl::UMIN, &[bits, k32]) };
    // Shift left by 32 - n in 64 bits then back: n = 0 yields 0 (or the sign of nothing: 0).
    let zero = cx.u32c(0);
    let is_zero = cx.m.bin(Op::IEqual, t.bool, n, zero);
    let shl = cx.op2(Op::ISub, k32, n);
    let shl = cx.sel(is_zero, zero, shl);
    let x = cx.op2(Op::ShiftLeftLogical, a, shl);
    let x = cx.op2(if signed { Op::ShiftRightArithmetic } else { Op::ShiftRightLogical }, x, shl);
    let r = cx.sel(is_zero, zero, x);
    cx.set_dst(r);
    Ok(())
}
