//! Tensor-core instructions: LDSM (PTX `ldmatrix`), MOVM (`movmatrix`), HMMA / IMMA / DMMA (`mma.sync`).
//!
//! All five are warp-collective: each lane holds a fragment of every matrix, so a lane's result needs other
//! lanes' registers. This file holds only the fragment semantics. It reads other lanes through a *lane-word
//! source* ([`LaneWords`]): "word `w` of the operand list that lane `l` contributes" ([`operands`] gives the
//! list of the running lane). The turns form feeds it from its exchange arrays (`super::warp`); a subgroup path
//! can feed the same code with `OpGroupNonUniformShuffle` of `operands()[w]` from lane `l`.
//!
//! ## Operand words per instruction (the order of [`operands`])
//! - `LDSM Rd, [Ra + UR + imm]`: 1 word, the lane's row address (shared-memory byte address).
//! - `MOVM.16.MT88 Rd, Ra`: 1 word, `Ra`.
//! - `HMMA`/`IMMA Rd, Ra, Rb, Rc`: the A registers `Ra..` then the B registers `Rb..` (HMMA.16816: 4 + 2,
//!   HMMA.1688 and HMMA.1684.TF32: 2 + 1, HMMA.1688.TF32: 4 + 2, IMMA.16816: 2 + 1, IMMA.16832: 4 + 2). `Rc`
//!   and `Rd` are the lane's own four accumulators (`RZ` as `Rc`: zeros).
//! - `DMMA.884 Rd, Ra, Rb, Rc`: 4 words, `Ra`, `Ra+1` (A, one f64) and `Rb`, `Rb+1` (B, one f64).
//!
//! ## Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k*", `ldmatrix`, `movmatrix`)
//! With `g = lane >> 2` and `t = lane & 3`, for `mma.m16n8kK` with `E` elements per 32-bit register (f16/bf16:
//! 2, tf32: 1, s8/u8: 4) and `Q = 4E` (the `k` one register spans over the four lanes of a quad):
//! - A (16 x K, row-major fragments): register `h + 2q` of lane `4g + u` holds row `g + 8h`, columns
//!   `qQ + uE .. qQ + uE + E - 1` (lowest element in the lowest bits).
//! - B (K x 8, column fragments): register `q` of lane `4n + u` holds column `n`, rows `qQ + uE ..` likewise.
//! - C/D (16 x 8, f32 or s32): register `2h + j` of lane `4g + t` is row `g + 8h`, column `2t + j`.
//! - `mma.m8n8k4.f64` (DMMA.884): A `(g, t)`, B `(k = t, n = g)`, C/D pair `j` is `(g, 2t + j)`.
//! - `ldmatrix .m8n8 .xN .b16`: lanes `8i .. 8i + 7` give the row addresses of matrix `i`; register `Rd + i`
//!   of lane `4g + t` gets row `g`, halves `2t, 2t + 1` of matrix `i`; `.trans` (MT88) gets instead elements
//!   `(2t, g)` and `(2t + 1, g)`.
//! - `movmatrix .m8n8.trans .b16`: the 8 x 8 matrix held as ldmatrix fragments (lane `4r + c/2` half `c & 1`
//!   holds `(r, c)`), transposed.
//!
//! The SASS register order (`Ra+0..3` = PTX `a0..a3`, and so on) is the one the corpus shows: ldmatrix's
//! `{d0..d3}` land in `R8..R11` and the `mma.sync` consuming them reads `HMMA ... R8` (tensor_core.sass,
//! mma_ldmatrix_f16); WMMA's 16x16 tiles are two HMMA.16816 on `Rb` and `Rb + 2`.
//!
//! ## Arithmetic (what is and is not verified)
//! - IMMA: exact, `d = c + sum(a * b)` wrapping in 32 bits (s8/u8 per the `.S8`/`.U8` of A and B).
//! - DMMA: per element an f64 fused multiply-add chain in `k` order, `d = fma(a3, b3, fma(a2, b2, fma(a1, b1,
//!   fma(a0, b0, c))))`, each step rounded in the instruction's mode (`crate::exact::fma64`). Silicon may
//!   round once for the whole dot product; both agree whenever the partial sums are exact (the corpus).
//! - HMMA (f16, bf16, tf32 inputs; f32 accumulator): every product is exact in f64 (at most 11 x 11 bits,
//!   exponents within f64's range), the products are added to `c` in `k` order in f64 (round to nearest), and
//!   the sum is rounded once to f32 **toward zero**. Fasi, Higham, Mikaitis and Pranesh ("Numerical behavior
//!   of NVIDIA tensor cores", PeerJ CS 2021) report for Ampere exact products, significands aligned to the
//!   largest with the shifted-out bits truncated, and a truncating (round-toward-zero) normalisation; this
//!   model agrees with that whenever the sum is exact in f64, and rounds the same direction otherwise, but its
//!   alignment loss is not modelled (sums whose terms span more than ~24 binades may differ in the last
//!   bits). Verified against silicon only where every sum is exact (the corpus kernels: small integers).
//!   NaN/infinity inputs follow f64 arithmetic, not silicon's (unverified). TF32 operands are read as their
//!   top 19 bits (the low 13 bits of the f32 ignored, as the hardware truncates; the kernel rounds with
//!   `__float_to_tf32` before).
//!
//! Refused by name: sparse `.SP` forms, f16 accumulators (`HMMA.*.F16`), saturating or 4-bit IMMA, the
//! m8n8k16/m8n8k32/m16n8k64 IMMA shapes, negated HMMA/DMMA operands, `LDSM` of 8-bit matrices (`M816`,
//! `M832`) and `MOVM.M832`/`M864`.

use super::{memory, Ctx};
use crate::error::TranslateError;
use crate::exact::convert::float_to_float;
use crate::exact::fma64::dfma;
use crate::exact::round::{Format, BF16, F16, F32, F64};
use crate::exact::{begin_helper, end_helper, mode, Tys, B};
use crate::program::Inst;
use crate::spirv::{Id, Module, Op, StorageClass};

/// Where a lowering reads other lanes: `word(cx, w, lane)` is the u32 word `w` of [`operands`] as lane
/// `lane` (a u32 value, 0..31 within the warp) contributed it.
pub type LaneWords<'f> = dyn FnMut(&mut Ctx<'_>, u32, Id) -> Id + 'f;

/// Whether `m` is a tensor-core instruction handled here.
pub fn is_tensor(m: &str) -> bool {
    matches!(m, "LDSM" | "MOVM" | "HMMA" | "IMMA" | "DMMA")
}

/// Element type of an MMA operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    F16,
    Bf16,
    Tf32,
    S8,
    U8,
}

impl Elem {
    /// Elements per 32-bit register.
    fn per_word(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 2,
            Elem::Tf32 => 1,
            Elem::S8 | Elem::U8 => 4,
        }
    }
}

/// A decoded m16n8kK matrix multiply-accumulate.
#[derive(Debug, Clone, Copy)]
struct Mma {
    a: Elem,
    b: Elem,
    k: u32,
}

impl Mma {
    /// `k` covered by one register of a quad.
    fn quad_k(&self) -> u32 {
        4 * self.a.per_word()
    }
    fn b_regs(&self) -> u32 {
        self.k / self.quad_k()
    }
    fn a_regs(&self) -> u32 {
        2 * self.b_regs()
    }
    fn integer(&self) -> bool {
        matches!(self.a, Elem::S8 | Elem::U8)
    }
}

#[derive(Debug, Clone, Copy)]
enum Form {
    /// `count` 8x8 matrices, transposed or not.
    Ldsm { count: u32, trans: bool },
    Movm,
    Mma(Mma),
    /// Rounding mode (bits 79:78).
    Dmma(u32),
}

/// Decodes the form of a tensor instruction, or says why it is not translated.
fn form(i: &Inst) -> Result<Form, String> {
    match i.mnemonic {
        "LDSM" => {
            if !matches!(i.opcode(), 0x083b | 0x183b) {
                return Err("LDSM form not translated yet".into());
            }
            let count = match i.bits(72, 2) {
                0 => 1,
                1 => 2,
                2 => 4,
                _ => return Err("LDSM with an invalid matrix count".into()),
            };
            match i.bits(75, 5) {
                0 => Ok(Form::Ldsm { count, trans: false }),
                8 => Ok(Form::Ldsm { count, trans: true }),
                _ => Err("LDSM of 8-bit or invalid matrices (M816, M832) not translated yet".into()),
            }
        }
        "MOVM" => {
            if i.opcode() != 0x023a || i.bits(75, 5) != 0 {
                return Err("MOVM form other than .16.MT88 not translated yet".into());
            }
            Ok(Form::Movm)
        }
        "HMMA" => {
            if i.opcode() != 0x023c || i.bit(73) {
                return Err("sparse HMMA (.SP) not translated yet".into());
            }
            if i.bit(72) || i.bit(63) || i.bits(87, 4) != 0 {
                return Err("HMMA with negated operands or a uniform predicate not translated yet".into());
            }
            if !i.bit(76) {
                return Err("HMMA with an f16 accumulator not translated yet".into());
            }
            let elem = match i.bits(82, 2) {
                0 => Elem::F16,
                1 => Elem::Bf16,
                2 => Elem::Tf32,
                _ => return Err("HMMA with an invalid input type".into()),
            };
            // bit 78: the k4 shape (TF32 only); bit 75: k16 (k8 for TF32).
            let k = match (i.bit(78), i.bit(75), elem) {
                (false, false, Elem::Tf32) => 8,
                (false, true, Elem::Tf32) => return Err("HMMA.16816 with TF32 inputs is invalid".into()),
                (false, false, _) => 8,
                (false, true, _) => 16,
                (true, false, Elem::Tf32) => 4,
                _ => return Err("HMMA.1684 with f16/bf16 inputs (or an invalid shape) not translated yet".into()),
            };
            Ok(Form::Mma(Mma { a: elem, b: elem, k }))
        }
        "IMMA" => {
            if i.opcode() != 0x0237 || i.bit(72) {
                return Err("sparse IMMA (.SP) not translated yet".into());
            }
            if i.bit(73) || !i.bit(74) || i.bits(87, 4) != 0 {
                return Err("IMMA with other than .ROW A and .COL B or with a uniform predicate".into());
            }
            let mods = i.bits(75, 5) | (i.bits(82, 5) << 5);
            let k = match mods & !0b1010 {
                512 => 16,
                513 => 32,
                _ => {
                    return Err(
                        "IMMA form other than .16816/.16832 on 8-bit inputs without .SAT not translated yet"
                            .into(),
                    )
                }
            };
            let ty = |signed: bool| if signed { Elem::S8 } else { Elem::U8 };
            Ok(Form::Mma(Mma { a: ty(i.bit(76)), b: ty(i.bit(78)), k }))
        }
        "DMMA" => {
            if i.opcode() != 0x023f || i.bit(76) {
                return Err("DMMA shape other than .884 not translated yet".into());
            }
            if i.bits(72, 2) != 0 || i.bits(62, 2) != 0 || i.bits(74, 2) != 0 || i.bits(87, 4) != 0 {
                return Err("DMMA with negated or absolute operands or a uniform predicate not translated yet".into());
            }
            Ok(Form::Dmma(i.bits(78, 2)))
        }
        _ => Err("not a tensor instruction".into()),
    }
}

/// Words of other lanes' operands `inst` reads (0 for other instructions and refused forms).
pub fn exchange_words(inst: &Inst) -> u32 {
    match form(inst) {
        Ok(Form::Ldsm { .. } | Form::Movm) => 1,
        Ok(Form::Mma(m)) => m.a_regs() + m.b_regs(),
        Ok(Form::Dmma(_)) => 4,
        Err(_) => 0,
    }
}

fn decoded(cx: &Ctx<'_>) -> Result<Form, TranslateError> {
    form(&cx.inst).map_err(|e| cx.refuse(e))
}

/// Registers `r .. r + n` (all zero when `r` is RZ).
fn regs(cx: &mut Ctx<'_>, r: u8, n: u32) -> Vec<Id> {
    (0..n)
        .map(|k| if r == 255 { cx.u32c(0) } else { cx.reg(r.wrapping_add(k as u8)) })
        .collect()
}

/// The words this lane contributes to the current instruction (see the module doc for the order).
pub fn operands(cx: &mut Ctx<'_>) -> Result<Vec<Id>, TranslateError> {
    let i = cx.inst;
    let ra = i.bits(24, 8) as u8;
    let rb = i.bits(32, 8) as u8;
    Ok(match decoded(cx)? {
        Form::Ldsm { .. } => vec![ldsm_address(cx)],
        Form::Movm => regs(cx, ra, 1),
        Form::Mma(m) => {
            let mut v = regs(cx, ra, m.a_regs());
            v.extend(regs(cx, rb, m.b_regs()));
            v
        }
        Form::Dmma(_) => {
            let mut v = regs(cx, ra, 2);
            v.extend(regs(cx, rb, 2));
            v
        }
    })
}

/// `Ra + UR + imm24`, the lane's row address.
fn ldsm_address(cx: &mut Ctx<'_>) -> Id {
    let i = cx.inst;
    let mut a = cx.reg(i.bits(24, 8) as u8);
    if i.opcode() == 0x183b {
        let t = cx.t;
        let u = cx.st.ureg(&mut cx.m, &t, i.bits(32, 6) as u8);
        a = cx.op2(Op::IAdd, a, u);
    }
    let off = memory::imm24(cx);
    if off != 0 {
        let k = cx.u32c(off as u32);
        a = cx.op2(Op::IAdd, a, k);
    }
    a
}

/// Lowers the current tensor instruction for the lane `lane` (0..31), reading other lanes through `words`.
pub fn lower(cx: &mut Ctx<'_>, lane: Id, words: &mut LaneWords<'_>) -> Result<(), TranslateError> {
    match decoded(cx)? {
        Form::Ldsm { count, trans } => ldsm(cx, lane, words, count, trans),
        Form::Movm => movm(cx, lane, words),
        Form::Mma(m) => mma(cx, lane, words, m),
        Form::Dmma(rnd) => dmma(cx, lane, words, rnd),
    }
}

/// `(g, t) = (lane >> 2, lane & 3)`.
fn quad(cx: &mut Ctx<'_>, lane: Id) -> (Id, Id) {
    let two = cx.u32c(2);
    let three = cx.u32c(3);
    let g = cx.op2(Op::ShiftRightLogical, lane, two);
    let t = cx.op2(Op::BitwiseAnd, lane, three);
    (g, t)
}

/// `a * 4 + b` (a lane index).
fn lane_of(cx: &mut Ctx<'_>, a: Id, b: Id) -> Id {
    let two = cx.u32c(2);
    let s = cx.op2(Op::ShiftLeftLogical, a, two);
    cx.op2(Op::IAdd, s, b)
}

/// The 16-bit half `which` (0 or 1, a value) of `w`.
fn half_of(cx: &mut Ctx<'_>, w: Id, which: Id) -> Id {
    let four = cx.u32c(4);
    let sh = cx.op2(Op::ShiftLeftLogical, which, four);
    let v = cx.op2(Op::ShiftRightLogical, w, sh);
    let m = cx.u32c(0xffff);
    cx.op2(Op::BitwiseAnd, v, m)
}

/// The 32-bit shared-memory word at byte `a` (zero when out of range or misaligned, as LDS).
fn shared_word(cx: &mut Ctx<'_>, a: Id) -> Id {
    let (ptr, var, len, _) = memory::space(cx, memory::Space::Shared);
    let (ok, idx) = memory::space_check(cx, memory::Space::Shared, memory::Access::Load, a, 4, len);
    let p = memory::space_ptr(cx, ptr, var, idx, 0);
    let w = cx.m.load(cx.t.u32, p);
    let zero = cx.u32c(0);
    cx.sel(ok, w, zero)
}

/// The 16-bit shared-memory value at byte `a` (zero when out of range or misaligned).
fn shared_half(cx: &mut Ctx<'_>, a: Id) -> Id {
    let (ptr, var, len, _) = memory::space(cx, memory::Space::Shared);
    let (ok, idx) = memory::space_check(cx, memory::Space::Shared, memory::Access::Load, a, 2, len);
    let p = memory::space_ptr(cx, ptr, var, idx, 0);
    let w = cx.m.load(cx.t.u32, p);
    let one = cx.u32c(1);
    let b = cx.op2(Op::ShiftRightLogical, a, one);
    let b = cx.op2(Op::BitwiseAnd, b, one);
    let v = half_of(cx, w, b);
    let zero = cx.u32c(0);
    cx.sel(ok, v, zero)
}

fn write_regs(cx: &mut Ctx<'_>, rd: u8, vals: &[Id]) {
    if rd == 255 {
        return;
    }
    for (k, v) in vals.iter().enumerate() {
        cx.set_reg(rd.wrapping_add(k as u8), *v);
    }
}

fn ldsm(cx: &mut Ctx<'_>, lane: Id, words: &mut LaneWords<'_>, count: u32, trans: bool) -> Result<(), TranslateError> {
    let (g, t) = quad(cx, lane);
    let mut out = Vec::new();
    for i in 0..count {
        let base = cx.u32c(8 * i);
        let v = if trans {
            // Elements (2t, g) and (2t + 1, g): column g of rows 2t, 2t + 1.
            let two = cx.u32c(2);
            let r0 = cx.op2(Op::IMul, t, two);
            let col = cx.op2(Op::IMul, g, two);
            let mut halves = Vec::new();
            for e in 0..2 {
                let ec = cx.u32c(e);
                let r = cx.op2(Op::IAdd, r0, ec);
                let l = cx.op2(Op::IAdd, base, r);
                let row = words(cx, 0, l);
                let a = cx.op2(Op::IAdd, row, col);
                halves.push(shared_half(cx, a));
            }
            let sixteen = cx.u32c(16);
            let hi = cx.op2(Op::ShiftLeftLogical, halves[1], sixteen);
            cx.op2(Op::BitwiseOr, halves[0], hi)
        } else {
            // Row g, word t.
            let l = cx.op2(Op::IAdd, base, g);
            let row = words(cx, 0, l);
            let four = cx.u32c(4);
            let off = cx.op2(Op::IMul, t, four);
            let a = cx.op2(Op::IAdd, row, off);
            shared_word(cx, a)
        };
        out.push(v);
    }
    write_regs(cx, cx.inst.bits(16, 8) as u8, &out);
    Ok(())
}

fn movm(cx: &mut Ctx<'_>, lane: Id, words: &mut LaneWords<'_>) -> Result<(), TranslateError> {
    // d holds (2t, g) and (2t + 1, g) of the source, which lane 4r + c/2 holds in half c & 1.
    let (g, t) = quad(cx, lane);
    let one = cx.u32c(1);
    let gh = cx.op2(Op::ShiftRightLogical, g, one);
    let which = cx.op2(Op::BitwiseAnd, g, one);
    let two = cx.u32c(2);
    let r0 = cx.op2(Op::IMul, t, two);
    let mut halves = Vec::new();
    for e in 0..2 {
        let ec = cx.u32c(e);
        let r = cx.op2(Op::IAdd, r0, ec);
        let l = lane_of(cx, r, gh);
        let w = words(cx, 0, l);
        halves.push(half_of(cx, w, which));
    }
    let sixteen = cx.u32c(16);
    let hi = cx.op2(Op::ShiftLeftLogical, halves[1], sixteen);
    let v = cx.op2(Op::BitwiseOr, halves[0], hi);
    write_regs(cx, cx.inst.bits(16, 8) as u8, &[v]);
    Ok(())
}

/// Helper: an element of `e`'s format (low bits of a u32; f32 bits for [`Elem::Tf32`]) or an f32 (`None`) to
/// f64 bits, exactly.
fn widen_fn(m: &mut Module, e: Option<Elem>) -> Id {
    let (key, fmt, mask): (&'static str, Format, u32) = match e {
        Some(Elem::F16) => ("tensor_widen_f16", F16, 0xffff),
        Some(Elem::Bf16) => ("tensor_widen_bf16", BF16, 0xffff),
        Some(Elem::Tf32) => ("tensor_widen_tf32", F32, 0xffff_e000),
        _ => ("tensor_widen_f32", F32, u32::MAX),
    };
    m.helper(key, move |m| {
        let t = Tys::of(m);
        let (f, p) = begin_helper(m, t.u64, &[t.u32]);
        let mut b = B::new(m);
        let k = b.c32(mask);
        let v = b.i32(Op::BitwiseAnd, p[0], k);
        let w = b.u64_of(v);
        let rn = b.c32(mode::RN);
        let r = float_to_float(&mut b, fmt, F64, w, rn, false);
        end_helper(b.m, r);
        f
    })
}

/// Helper: f64 bits rounded toward zero to f32 bits.
fn narrow_fn(m: &mut Module) -> Id {
    m.helper("tensor_narrow_f32_rz", |m| {
        let t = Tys::of(m);
        let (f, p) = begin_helper(m, t.u32, &[t.u64]);
        let mut b = B::new(m);
        let rz = b.c32(mode::RZ);
        let r = float_to_float(&mut b, F64, F32, p[0], rz, false);
        let r = b.u32_of(r);
        end_helper(b.m, r);
        f
    })
}

fn call(cx: &mut Ctx<'_>, ty: Id, f: Id, args: &[Id]) -> Id {
    let mut ops = vec![f];
    ops.extend_from_slice(args);
    cx.m.op(Op::FunctionCall, ty, &ops)
}

/// Element `e` (static) of a register of `ty`, as an f64 value (floats) or an i32 in a u32 (integers).
fn element(cx: &mut Ctx<'_>, ty: Elem, w: Id, e: u32) -> Id {
    let t = cx.t;
    let bits = 32 / ty.per_word();
    let v = if bits == 32 {
        w
    } else {
        let off = cx.u32c(e * bits);
        let cnt = cx.u32c(bits);
        let op = if ty == Elem::S8 { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
        cx.m.op(op, t.u32, &[w, off, cnt])
    };
    match ty {
        Elem::S8 | Elem::U8 => v,
        _ => {
            let f = widen_fn(&mut cx.m, Some(ty));
            let r = call(cx, t.u64, f, &[v]);
            if cx.m.soft_float64() {
                return r; // soft double: f64 bits in a u64
            }
            let f64t = cx.m.t_f64();
            cx.m.un(Op::Bitcast, f64t, r)
        }
    }
}

fn mma(cx: &mut Ctx<'_>, lane: Id, words: &mut LaneWords<'_>, m: Mma) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let (g, tq) = quad(cx, lane);
    let int = m.integer();
    // Without Float64 the f64 accumulators are u64 bits and each step the integer FMA (lower::soft_f64): the
    // product is exact, so fma(a, b, acc) rounded to nearest is the native `acc + a * b`.
    let soft = cx.m.soft_float64();
    let f64t = if soft { t.u64 } else { cx.m.t_f64() };
    let (acc_ty, acc_ptr) = if int {
        (t.u32, t.fn_u32)
    } else if soft {
        (t.u64, cx.m.t_ptr(StorageClass::Function, t.u64))
    } else {
        (f64t, cx.m.t_ptr(StorageClass::Function, f64t))
    };
    // Accumulators 2h + j: row g + 8h, column 2t + j; start from C.
    let rc = i.bits(64, 8) as u8;
    let c = regs(cx, rc, 4);
    let zero = cx.m.c_null(acc_ty);
    let mut acc = Vec::new();
    for v in c {
        let init = if int {
            v
        } else {
            let f = widen_fn(&mut cx.m, None);
            let r = call(cx, t.u64, f, &[v]);
            if soft {
                r
            } else {
                cx.m.un(Op::Bitcast, f64t, r)
            }
        };
        let var = cx.m.local_var(acc_ptr, Some(zero));
        cx.m.store(var, init);
        acc.push(var);
    }
    let two = cx.u32c(2);
    let col0 = cx.op2(Op::IMul, tq, two);
    let one = cx.u32c(1);
    let col1 = cx.op2(Op::IAdd, col0, one);
    let a_regs = m.a_regs();
    let per = m.a.per_word();
    for q in 0..m.b_regs() {
        // The quad's lane u supplies k = qQ + uE .. + E - 1; u runs in a loop, elements in k order.
        super::warp::emit_for(cx, 4, |cx, u| {
            let la = lane_of(cx, g, u);
            let aw = [words(cx, 2 * q, la), words(cx, 2 * q + 1, la)];
            let lb0 = lane_of(cx, col0, u);
            let lb1 = lane_of(cx, col1, u);
            let bw = [words(cx, a_regs + q, lb0), words(cx, a_regs + q, lb1)];
            for e in 0..per {
                let av = [element(cx, m.a, aw[0], e), element(cx, m.a, aw[1], e)];
                let bv = [element(cx, m.b, bw[0], e), element(cx, m.b, bw[1], e)];
                for h in 0..2 {
                    for j in 0..2 {
                        let var = acc[2 * h + j];
                        let cur = cx.m.load(acc_ty, var);
                        let next = if int {
                            let p = cx.op2(Op::IMul, av[h], bv[j]);
                            cx.op2(Op::IAdd, cur, p)
                        } else if soft {
                            let rn = cx.u32c(mode::RN);
                            super::soft_f64::dfma(&mut cx.m, av[h], bv[j], cur, rn)
                        } else {
                            let p = cx.m.bin(Op::FMul, f64t, av[h], bv[j]);
                            cx.m.bin(Op::FAdd, f64t, cur, p)
                        };
                        cx.m.store(var, next);
                    }
                }
            }
            Ok(())
        })?;
    }
    let mut out = Vec::new();
    for var in acc {
        let v = cx.m.load(acc_ty, var);
        out.push(if int {
            v
        } else {
            let b = if soft { v } else { cx.m.un(Op::Bitcast, t.u64, v) };
            let f = narrow_fn(&mut cx.m);
            call(cx, t.u32, f, &[b])
        });
    }
    write_regs(cx, i.bits(16, 8) as u8, &out);
    Ok(())
}

fn dmma(cx: &mut Ctx<'_>, lane: Id, words: &mut LaneWords<'_>, rnd: u32) -> Result<(), TranslateError> {
    let t = cx.t;
    let i = cx.inst;
    let (g, tq) = quad(cx, lane);
    let rc = i.bits(64, 8) as u8;
    let c = regs(cx, rc, 4);
    let zero = cx.m.c_u64(0);
    let fn_u64 = cx.m.t_ptr(StorageClass::Function, t.u64);
    let mut acc = Vec::new();
    for j in 0..2 {
        let v = cx.pack64(c[2 * j], c[2 * j + 1]);
        let var = cx.m.local_var(fn_u64, Some(zero));
        cx.m.store(var, v);
        acc.push(var);
    }
    let two = cx.u32c(2);
    let col0 = cx.op2(Op::IMul, tq, two);
    let one = cx.u32c(1);
    let col1 = cx.op2(Op::IAdd, col0, one);
    let md = cx.u32c(rnd);
    // k runs in a loop: A (g, k) from lane 4g + k, B (k, n) from lane 4n + k.
    super::warp::emit_for(cx, 4, |cx, k| {
        let la = lane_of(cx, g, k);
        let a0 = words(cx, 0, la);
        let a1 = words(cx, 1, la);
        let a = cx.pack64(a0, a1);
        for (j, col) in [col0, col1].into_iter().enumerate() {
            let lb = lane_of(cx, col, k);
            let b0 = words(cx, 2, lb);
            let b1 = words(cx, 3, lb);
            let b = cx.pack64(b0, b1);
            let cur = cx.m.load(t.u64, acc[j]);
            let r = dfma(&mut cx.m, a, b, cur, md);
            cx.m.store(acc[j], r);
        }
        Ok(())
    })?;
    let mut out = Vec::new();
    for var in acc {
        let v = cx.m.load(t.u64, var);
        // NaN results as DFMA writes them.
        let absm = cx.m.c_u64(u64::MAX >> 1);
        let a = cx.m.bin(Op::BitwiseAnd, t.u64, v, absm);
        let inf = cx.m.c_u64(0x7ff0_0000_0000_0000);
        let nan = cx.m.bin(Op::UGreaterThan, t.bool, a, inf);
        let canon = cx.m.c_u64(super::fp64::NAN64);
        let v = cx.m.select(t.u64, nan, canon, v);
        let (lo, hi) = cx.split64(v);
        out.push(lo);
        out.push(hi);
    }
    write_regs(cx, i.bits(16, 8) as u8, &out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sassport_gen::Word;

    fn inst(w: u128, mnemonic: &'static str) -> Inst {
        Inst { offset: 0, word: Word(w), mnemonic }
    }

    /// The IMMA/HMMA/DMMA/LDSM/MOVM words of the corpus (tensor_core.sass) decode to the forms the listing
    /// names, with the operand word counts the exchange needs.
    #[test]
    fn corpus_words_decode() {
        let cases: &[(u128, &str, u32)] = &[
            (0x000fe200004054180000001512047237, "IMMA", 3),
            (0x000fe20000085004000000000208723c, "HMMA", 3),
            (0x0042a40000000018000000100e0c723f, "DMMA", 4),
            (0x000e240000000200000000000408783b, "LDSM", 1),
            (0x004fe8000000000000000000000a723a, "MOVM", 1),
        ];
        for &(w, m, words) in cases {
            let inst = inst(w, m);
            assert_eq!(exchange_words(&inst), words, "{m} {w:#x}: {:?}", form(&inst));
        }
        let imma = inst(0x000fe200004054180000001512047237, "IMMA");
        match form(&imma) {
            Ok(Form::Mma(m)) => assert_eq!((m.a, m.b, m.k), (Elem::S8, Elem::S8, 16)),
            f => panic!("{f:?}"),
        }
        let tf32 = inst(0x000fe20000085004000000000208723c, "HMMA");
        match form(&tf32) {
            Ok(Form::Mma(m)) => assert_eq!((m.a, m.k, m.a_regs(), m.b_regs()), (Elem::Tf32, 4, 2, 1)),
            f => panic!("{f:?}"),
        }
        let ldsm = inst(0x000e240000000200000000000408783b, "LDSM");
        assert!(matches!(form(&ldsm), Ok(Form::Ldsm { count: 4, trans: false })));
        // LDSM.16.MT88.2 R2, [R5+0x200] and LDSM.16.M88.2 R18, [R7].
        let mt = inst(0x000fe80000004100000200000502783b, "LDSM");
        assert!(matches!(form(&mt), Ok(Form::Ldsm { count: 2, trans: true })));
        let m2 = inst(0x000fe80000000100000000000712783b, "LDSM");
        assert!(matches!(form(&m2), Ok(Form::Ldsm { count: 2, trans: false })));
        // HMMA.16816.F32 R8, R8, R2, RZ and HMMA.16816.F32.BF16 R8, R4, R10, RZ: 4 + 2 words.
        for (w, e) in [(0x001fee00000018ff000000020808723c, Elem::F16), (0x002fe600000418ff0000000a0408723c, Elem::Bf16)] {
            match form(&inst(w, "HMMA")) {
                Ok(Form::Mma(m)) => assert_eq!((m.a, m.k, m.a_regs(), m.b_regs()), (e, 16, 4, 2)),
                f => panic!("{f:?}"),
            }
        }
    }

    /// Forms not implemented are refused (words from the encoding table's golden pairs).
    #[test]
    fn other_forms_are_refused() {
        for (w, m, text) in [
            (0xaae36a626062ac067f105e9f9470223c_u128, "HMMA", "HMMA.16816.F16 (f16 accumulator)"),
            (0x63c05dbbf378fec54a270b21963d223c, "HMMA", "HMMA.SP.16832.F32.TF32"),
            (0xc8bb5903e0dfa4af2595768b83e1e237, "IMMA", "IMMA.16816.INVALID6.INVALID6.SAT"),
            (0x730517b69320436b030d2bcb5aa1483b, "LDSM", "LDSM.16.MT88.INVALID3"),
            (0x756fd590ff01f96915381bc1112b983b, "LDSM", "LDSM.INVALID7.M832.2"),
            (0x009980726715b6ad2147a956f473723a, "MOVM", "MOVM.INVALID6.M864"),
            (0xd32fcc5ef2f1cf2222037384893cb23f, "DMMA", "DMMA.884.RZ with |x| operands"),
        ] {
            let i = inst(w, m);
            assert!(form(&i).is_err(), "{text} must be refused: {:?}", form(&i));
            assert_eq!(exchange_words(&i), 0, "{text}");
        }
    }
}
