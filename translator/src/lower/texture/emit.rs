//! Short names for the integer and float arithmetic the texture lowering emits inline (all values are ids of
//! u32, i32-as-u32, u64 or f64 SSA values; booleans for conditions).

use super::super::Ctx;
use crate::spirv::{Id, Op};

pub(super) struct E<'c, 'a> {
    pub cx: &'c mut Ctx<'a>,
}

impl<'c, 'a> E<'c, 'a> {
    pub fn c(&mut self, v: u32) -> Id {
        self.cx.u32c(v)
    }
    pub fn op(&mut self, op: Op, a: Id, b: Id) -> Id {
        let t = self.cx.t.u32;
        self.cx.m.bin(op, t, a, b)
    }
    pub fn add(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::IAdd, a, b)
    }
    pub fn sub(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::ISub, a, b)
    }
    pub fn mul(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::IMul, a, b)
    }
    pub fn and(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::BitwiseAnd, a, b)
    }
    pub fn or(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::BitwiseOr, a, b)
    }
    pub fn shl(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::ShiftLeftLogical, a, b)
    }
    pub fn shr(&mut self, a: Id, b: Id) -> Id {
        self.op(Op::ShiftRightLogical, a, b)
    }
    pub fn andk(&mut self, a: Id, k: u32) -> Id {
        let k = self.c(k);
        self.and(a, k)
    }
    pub fn shrk(&mut self, a: Id, k: u32) -> Id {
        let k = self.c(k);
        self.shr(a, k)
    }
    pub fn shlk(&mut self, a: Id, k: u32) -> Id {
        let k = self.c(k);
        self.shl(a, k)
    }
    pub fn addk(&mut self, a: Id, k: u32) -> Id {
        let k = self.c(k);
        self.add(a, k)
    }
    /// Bits `lo .. lo + n` of `v`.
    pub fn bits(&mut self, v: Id, lo: u32, n: u32) -> Id {
        let t = self.cx.t.u32;
        let lo = self.c(lo);
        let n = self.c(n);
        self.cx.m.op(Op::BitFieldUExtract, t, &[v, lo, n])
    }
    pub fn sext(&mut self, v: Id, n: Id) -> Id {
        let t = self.cx.t.u32;
        let z = self.c(0);
        self.cx.m.op(Op::BitFieldSExtract, t, &[v, z, n])
    }
    pub fn cmp(&mut self, op: Op, a: Id, b: Id) -> Id {
        let t = self.cx.t.bool;
        self.cx.m.bin(op, t, a, b)
    }
    pub fn eqk(&mut self, a: Id, k: u32) -> Id {
        let k = self.c(k);
        self.cmp(Op::IEqual, a, k)
    }
    pub fn land(&mut self, a: Id, b: Id) -> Id {
        self.cmp(Op::LogicalAnd, a, b)
    }
    pub fn lor(&mut self, a: Id, b: Id) -> Id {
        self.cmp(Op::LogicalOr, a, b)
    }
    pub fn lnot(&mut self, a: Id) -> Id {
        let t = self.cx.t.bool;
        self.cx.m.un(Op::LogicalNot, t, a)
    }
    /// `c ? a : b` of any type the two share.
    pub fn sel(&mut self, c: Id, a: Id, b: Id) -> Id {
        self.cx.sel(c, a, b)
    }
    /// `c ? a : b` of f64 values.
    pub fn fsel(&mut self, c: Id, a: Id, b: Id) -> Id {
        let t = self.f64t();
        self.cx.m.op(Op::Select, t, &[c, a, b])
    }
    /// `c ? a : b` of booleans.
    pub fn bsel(&mut self, c: Id, a: Id, b: Id) -> Id {
        let t = self.cx.t.bool;
        self.cx.m.op(Op::Select, t, &[c, a, b])
    }
    pub fn selk(&mut self, c: Id, a: u32, b: Id) -> Id {
        let a = self.c(a);
        self.sel(c, a, b)
    }
    pub fn umin(&mut self, a: Id, b: Id) -> Id {
        let lt = self.cmp(Op::ULessThan, a, b);
        self.sel(lt, a, b)
    }
    pub fn umax(&mut self, a: Id, b: Id) -> Id {
        let lt = self.cmp(Op::ULessThan, a, b);
        self.sel(lt, b, a)
    }
    pub fn smin(&mut self, a: Id, b: Id) -> Id {
        let lt = self.cmp(Op::SLessThan, a, b);
        self.sel(lt, a, b)
    }
    pub fn smax(&mut self, a: Id, b: Id) -> Id {
        let lt = self.cmp(Op::SLessThan, a, b);
        self.sel(lt, b, a)
    }
    /// `v` widened to u64.
    pub fn wide(&mut self, v: Id) -> Id {
        let t = self.cx.t.u64;
        self.cx.m.un(Op::UConvert, t, v)
    }
    pub fn add64(&mut self, a: Id, b: Id) -> Id {
        let t = self.cx.t.u64;
        self.cx.m.bin(Op::IAdd, t, a, b)
    }
    pub fn f64t(&mut self) -> Id {
        self.cx.m.t_f64()
    }
    /// An f64 operation decorated `NoContraction`, so drivers neither fuse nor reassociate it.
    pub fn fop(&mut self, op: Op, a: Id, b: Id) -> Id {
        let t = self.f64t();
        let r = self.cx.m.bin(op, t, a, b);
        self.cx
            .m
            .decorate(r, crate::spirv::Decoration::NoContraction, &[]);
        r
    }
    /// `floor` of an f64 (GLSL.std.450 Floor).
    pub fn floor(&mut self, v: Id) -> Id {
        let t = self.f64t();
        self.cx.m.ext(t, crate::spirv::glsl::FLOOR, &[v])
    }
    pub fn fk(&mut self, v: f64) -> Id {
        let t = self.f64t();
        self.cx.m.constant(t, v.to_bits(), true)
    }
    /// f32 bits (u32) to f64.
    pub fn f32_to_f64(&mut self, bits: Id) -> Id {
        let f32t = self.cx.t.f32;
        let f = self.cx.m.un(Op::Bitcast, f32t, bits);
        let t = self.f64t();
        self.cx.m.un(Op::FConvert, t, f)
    }
    /// f64 to f32 bits, rounded to nearest even.
    pub fn f64_to_f32(&mut self, v: Id) -> Id {
        let f32t = self.cx.t.f32;
        let f = self.cx.m.un(Op::FConvert, f32t, v);
        let t = self.cx.t.u32;
        self.cx.m.un(Op::Bitcast, t, f)
    }
    pub fn u_to_f64(&mut self, v: Id) -> Id {
        let t = self.f64t();
        self.cx.m.un(Op::ConvertUToF, t, v)
    }
    pub fn s_to_f64(&mut self, v: Id) -> Id {
        let t = self.f64t();
        self.cx.m.un(Op::ConvertSToF, t, v)
    }
    /// f64 to i32 (as u32 bits), rounding toward zero; the caller keeps `v` in range.
    pub fn f64_to_s(&mut self, v: Id) -> Id {
        let t = self.cx.t.u32;
        self.cx.m.un(Op::ConvertFToS, t, v)
    }
    pub fn fclamp(&mut self, v: Id, lo: f64, hi: f64) -> Id {
        let l = self.fk(lo);
        let h = self.fk(hi);
        let below = self.cmp(Op::FOrdLessThan, v, l);
        let v = self.fsel(below, l, v);
        let above = self.cmp(Op::FOrdGreaterThan, v, h);
        self.fsel(above, h, v)
    }
    pub fn reg(&mut self, r: u8) -> Id {
        self.cx.reg(r)
    }
}
