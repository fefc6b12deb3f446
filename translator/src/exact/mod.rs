//! Exact floating-point arithmetic as shared SPIR-V helper functions.
//!
//! SM86 computes every rounding mode (RN, RM, RP, RZ), flushes or keeps denormals per instruction and writes
//! canonical NaNs; a Vulkan device guarantees only round-to-nearest-even for `OpFAdd`/`OpFMul` (and not even
//! a fused `Fma`). Operations whose SM86 result a native op gives on every conformant device stay native (the
//! lowering files say which); everything else is computed here, in integer arithmetic or through exact f64
//! steps, as helper functions emitted once per module through [`Module::helper`]:
//!
//! - [`round`]: the one integer rounding core: a normalised 64-bit significand, an exponent and a sticky bit
//!   rounded to f16, bf16, f32 or f64 in any of the four modes, with denormal results and overflow per mode.
//! - [`decode`]: float bits to sign, class, normalised significand and exponent (inline code, no helper).
//! - [`fma32`]: FP32 add, multiply and fused multiply-add in a directed mode: the f32 product is exact in f64,
//!   the sum is rounded to odd with its TwoSum error (exact), then one rounding to f32 by [`round`] — the
//!   round-to-odd double rounding theorem (Boldo and Melquiond) makes that final rounding correct in every mode.
//! - [`convert`]: float <-> integer and float <-> float conversions in every mode, with SM86 saturation.
//! - [`fma64`]: FP64 fused multiply-add (and add/multiply in directed modes) in 128-bit integer arithmetic.
//!
//! All helpers take and return raw bits (`u32`/`u64`) so that no device float behaviour (denormal flushing on
//! load, NaN quieting) touches the values between steps.

pub mod convert;
pub mod decode;
pub mod fma32;
pub mod fma64;
pub mod half;
pub mod round;
pub mod sfu;
mod sfu_tables;

use crate::spirv::{glsl, Id, Module, Op, Type};

/// SM86 rounding-mode field values (bits 79:78 of FADD/FFMA/F2F/I2F/DADD...): also the `mode` argument of
/// every helper here.
pub mod mode {
    pub const RN: u32 = 0;
    pub const RM: u32 = 1;
    pub const RP: u32 = 2;
    pub const RZ: u32 = 3;
}

/// Type ids the helpers use.
#[derive(Debug, Clone, Copy)]
pub struct Tys {
    pub void: Id,
    pub bool: Id,
    pub u32: Id,
    pub u64: Id,
    pub f32: Id,
    pub f64: Id,
}

impl Tys {
    /// The types; in a soft-double module (`Module::soft_float64`) no f64 type is declared and `f64` is 0,
    /// which no soft path uses (spirv-val would refuse a use).
    pub fn of(m: &mut Module) -> Tys {
        let f64 = if m.soft_float64() { 0 } else { m.t_f64() };
        Tys { void: m.t_void(), bool: m.t_bool(), u32: m.t_u32(), u64: m.t_u64(), f32: m.t_f32(), f64 }
    }
}

/// Terse emission of integer code into the current block of a module.
pub struct B<'a> {
    pub m: &'a mut Module,
    pub t: Tys,
}

impl<'a> B<'a> {
    pub fn new(m: &'a mut Module) -> Self {
        let t = Tys::of(m);
        B { m, t }
    }
    pub fn c32(&mut self, v: u32) -> Id {
        self.m.c_u32(v)
    }
    pub fn c64(&mut self, v: u64) -> Id {
        self.m.c_u64(v)
    }
    pub fn cb(&mut self, v: bool) -> Id {
        self.m.c_bool(v)
    }
    /// 32-bit integer binary op.
    pub fn i32(&mut self, op: Op, a: Id, b: Id) -> Id {
        self.m.bin(op, self.t.u32, a, b)
    }
    /// 64-bit integer binary op (shift amounts may be u32).
    pub fn i64(&mut self, op: Op, a: Id, b: Id) -> Id {
        self.m.bin(op, self.t.u64, a, b)
    }
    /// Comparison or logical op giving a bool.
    pub fn b(&mut self, op: Op, a: Id, b: Id) -> Id {
        self.m.bin(op, self.t.bool, a, b)
    }
    pub fn not(&mut self, a: Id) -> Id {
        self.m.un(Op::LogicalNot, self.t.bool, a)
    }
    pub fn and(&mut self, a: Id, b: Id) -> Id {
        self.b(Op::LogicalAnd, a, b)
    }
    pub fn or(&mut self, a: Id, b: Id) -> Id {
        self.b(Op::LogicalOr, a, b)
    }
    pub fn sel32(&mut self, c: Id, a: Id, b: Id) -> Id {
        self.m.select(self.t.u32, c, a, b)
    }
    pub fn sel64(&mut self, c: Id, a: Id, b: Id) -> Id {
        self.m.select(self.t.u64, c, a, b)
    }
    pub fn selb(&mut self, c: Id, a: Id, b: Id) -> Id {
        self.m.select(self.t.bool, c, a, b)
    }
    pub fn u64_of(&mut self, a: Id) -> Id {
        self.m.un(Op::UConvert, self.t.u64, a)
    }
    pub fn u32_of(&mut self, a: Id) -> Id {
        self.m.un(Op::UConvert, self.t.u32, a)
    }
    /// High word of a u64.
    pub fn hi32(&mut self, a: Id) -> Id {
        let k = self.c32(32);
        let h = self.i64(Op::ShiftRightLogical, a, k);
        self.u32_of(h)
    }
    /// `lo | hi << 32`.
    pub fn pack(&mut self, lo: Id, hi: Id) -> Id {
        let l = self.u64_of(lo);
        let h = self.u64_of(hi);
        let k = self.c32(32);
        let h = self.i64(Op::ShiftLeftLogical, h, k);
        self.i64(Op::BitwiseOr, l, h)
    }
    pub fn bool_u32(&mut self, c: Id) -> Id {
        let one = self.c32(1);
        let zero = self.c32(0);
        self.sel32(c, one, zero)
    }
    /// Number of leading zeros of a u32 (32 for 0).
    pub fn clz32(&mut self, v: Id) -> Id {
        let msb = self.m.ext(self.t.u32, glsl::FIND_UMSB, &[v]); // -1 for 0
        let k = self.c32(31);
        self.i32(Op::ISub, k, msb)
    }
    /// Number of leading zeros of a u64 (64 for 0).
    pub fn clz64(&mut self, v: Id) -> Id {
        let hi = self.hi32(v);
        let lo = self.u32_of(v);
        let zh = self.clz32(hi);
        let zl = self.clz32(lo);
        let k32 = self.c32(32);
        let zl = self.i32(Op::IAdd, zl, k32);
        let zero = self.c32(0);
        let hi_zero = self.b(Op::IEqual, hi, zero);
        self.sel32(hi_zero, zl, zh)
    }
    /// `v << s` for any `s` (0 when `s >= 64`).
    pub fn shl64(&mut self, v: Id, s: Id) -> Id {
        let k = self.c32(63);
        let sc = self.m.ext(self.t.u32, glsl::UMIN, &[s, k]);
        let r = self.i64(Op::ShiftLeftLogical, v, sc);
        let k64 = self.c32(64);
        let big = self.b(Op::UGreaterThanEqual, s, k64);
        let z = self.c64(0);
        self.sel64(big, z, r)
    }
    /// `v >> s` for any `s` (0 when `s >= 64`).
    pub fn shr64(&mut self, v: Id, s: Id) -> Id {
        let k = self.c32(63);
        let sc = self.m.ext(self.t.u32, glsl::UMIN, &[s, k]);
        let r = self.i64(Op::ShiftRightLogical, v, sc);
        let k64 = self.c32(64);
        let big = self.b(Op::UGreaterThanEqual, s, k64);
        let z = self.c64(0);
        self.sel64(big, z, r)
    }
    /// Whether a u64 is negative as a two's-complement value: its bit 63, tested on the high word (lavapipe
    /// compared 64-bit values as unsigned in `OpSLessThan` against zero in our tests, so signed 64-bit
    /// comparisons are avoided throughout).
    pub fn neg64(&mut self, v: Id) -> Id {
        let h = self.hi32(v);
        let k = self.c32(31);
        let s = self.i32(Op::ShiftRightLogical, h, k);
        let z = self.c32(0);
        self.b(Op::INotEqual, s, z)
    }
    /// A float operation decorated `NoContraction`, so that no compiler fuses or reassociates it (the
    /// TwoSum error terms depend on each rounding).
    pub fn fx(&mut self, op: Op, ty: Id, a: Id, b: Id) -> Id {
        let r = self.m.bin(op, ty, a, b);
        self.m.decorate(r, crate::spirv::Decoration::NoContraction, &[]);
        r
    }
    /// f32 bits widened to f64 bits in integer arithmetic (exact; no device denormal flushing).
    pub fn widen_f32(&mut self, x: Id) -> Id {
        let sgn = self.c32(0x8000_0000);
        let s = self.i32(Op::BitwiseAnd, x, sgn);
        let absm = self.c32(0x7fff_ffff);
        let ax = self.i32(Op::BitwiseAnd, x, absm);
        let k23 = self.c32(23);
        let ex = self.i32(Op::ShiftRightLogical, ax, k23);
        let fm = self.c32(0x7f_ffff);
        let frac = self.i32(Op::BitwiseAnd, ax, fm);
        // Normal: exponent + 896; denormal: normalise the fraction; 255 (inf/NaN): 2047.
        let k896 = self.c32(896);
        let en = self.i32(Op::IAdd, ex, k896);
        let lz = self.clz32(frac);
        let k8 = self.c32(8);
        let sh = self.i32(Op::ISub, lz, k8);
        let fd = self.i32(Op::ShiftLeftLogical, frac, sh);
        let fd = self.i32(Op::BitwiseAnd, fd, fm);
        let k897 = self.c32(897);
        let ed = self.i32(Op::ISub, k897, sh);
        let z = self.c32(0);
        let is_den = self.b(Op::IEqual, ex, z);
        let fz = self.b(Op::IEqual, frac, z);
        let is_zero = self.and(is_den, fz);
        let k255 = self.c32(255);
        let is_top = self.b(Op::IEqual, ex, k255);
        let k2047 = self.c32(2047);
        let e = self.sel32(is_den, ed, en);
        let e = self.sel32(is_top, k2047, e);
        let e = self.sel32(is_zero, z, e);
        let f = self.sel32(is_den, fd, frac);
        let f = self.sel32(is_zero, z, f);
        // hi word: sign | e << 20 | f >> 3; lo word: f << 29.
        let k20 = self.c32(20);
        let k3 = self.c32(3);
        let k29 = self.c32(29);
        let eh = self.i32(Op::ShiftLeftLogical, e, k20);
        let fh = self.i32(Op::ShiftRightLogical, f, k3);
        let hi = self.i32(Op::BitwiseOr, s, eh);
        let hi = self.i32(Op::BitwiseOr, hi, fh);
        let lo = self.i32(Op::ShiftLeftLogical, f, k29);
        self.pack(lo, hi)
    }
    /// Calls helper `f` returning `ty`.
    pub fn call(&mut self, ty: Id, f: Id, args: &[Id]) -> Id {
        let mut ops = vec![f];
        ops.extend_from_slice(args);
        self.m.op(Op::FunctionCall, ty, &ops)
    }
}

/// Starts a helper function `ret (params...)`; returns the function id and the parameter ids, with the first
/// block open.
pub(crate) fn begin_helper(m: &mut Module, ret: Id, params: &[Id]) -> (Id, Vec<Id>) {
    let mut p = [0; 4];
    p[..params.len()].copy_from_slice(params);
    let fty = m.ty(Type::Function(ret, p));
    let f = m.begin_function(ret, fty, crate::spirv::FunctionControl::NONE);
    let ids = params.iter().map(|&t| m.param(t)).collect();
    let l = m.id();
    m.label(l);
    (f, ids)
}

/// Returns `v` and ends the helper function.
pub(crate) fn end_helper(m: &mut Module, v: Id) {
    m.op_void(Op::ReturnValue, &[v]);
    m.end_function();
}
