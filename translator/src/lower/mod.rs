//! Lowering of SM86 instructions to SPIR-V: one file per instruction family; `translator/families.txt` says
//! which family lowers each mnemonic and form (expanded by `cargo xtask regen` into [`dispatch`]).
//!
//! Operands are read from the word by their SM70+ slots (facts shared by nvdisasm's output and Mesa NAK's
//! encoder): `Ra` 31:24, the `B` slot (`Rb` 39:32, a 32-bit immediate 63:32, a constant `c[bank 58:54][offset
//! 53:38]` or a uniform register 37:32) and the `C` slot (`Rc` 71:64); which of them an ALU instruction uses
//! is its operand form, opcode bits 11:9. Every handler reads all its inputs before it writes any output
//! (`IMAD.WIDE R2, R2, ...` overwrites its own source).
//!
//! A guarded instruction (`@P0 ...`) becomes a structured selection around its body, so that stores, atomics
//! and register writes all happen only when the guard holds.

mod async_copy;
pub mod attribute;
mod control_inline;
mod convert;
mod dispatch;
pub mod externs;
pub(crate) mod fault;
pub(crate) mod float;
mod fp16;
mod generic_atomic;
mod fp64;
mod heap;
mod integer;
pub(crate) mod memory;
mod memory_order;
mod misc;
mod mufu;
mod narrow;
mod predicate;
pub mod shared_fma;
mod shared_counter;
mod simd;
pub mod soft_atomic64;
pub mod soft_f16;
pub mod soft_f64;
mod special;
pub mod subgroup;
pub(crate) mod tensor;
mod texture;
mod uniform;
pub(crate) mod warp;
pub(crate) mod warp_exclusive;
mod view_operands;
mod warp_form;

pub use float::FloatSupport;
pub use crate::state::{shared_allocation_bytes, SHARED_ALLOCATION_GRANULE};

use crate::error::{display_name, TranslateError};
use crate::program::Inst;
use crate::spirv::{Id, Module, Op};
use crate::state::{State, Types};

/// A source operand slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    Reg(u8),
    UReg(u8),
    Imm(u32),
    /// Constant bank and byte offset.
    CBuf(u8, u32),
}

/// The three ALU source slots of an instruction and their negation bits.
#[derive(Debug, Clone, Copy)]
pub struct Abc {
    pub a: Src,
    pub b: Src,
    pub c: Src,
    /// Negation (or bitwise-not for `.X` forms) modifier of a, b, c.
    pub neg: [bool; 3],
    /// Absolute-value modifier of a, b, c (floating-point instructions).
    pub abs: [bool; 3],
}

/// Run-time values the control lowering shares with the instruction handlers.
#[derive(Debug, Clone, Copy)]
pub struct Builtins {
    /// `LocalInvocationId` (Input uvec3).
    pub local_id: Id,
    /// `WorkgroupId` (Input uvec3).
    pub group_id: Id,
}

/// Everything a handler needs: the module, the guest state and the instruction being lowered.
pub struct Ctx<'a> {
    pub m: Module,
    pub t: Types,
    pub st: State,
    pub section: &'a str,
    pub inst: Inst,
    /// Function variable holding the offset of the next block to run (the dispatch loop's selector).
    pub next_pc: Id,
    pub builtins: Builtins,
    /// Per-thread counter standing in for the cycle counter (`SR_CLOCKLO`): monotonic, not cycles.
    pub clock: Option<Id>,
    /// Bytes of local memory; also the initial stack pointer the kernel reads from `c[0x0][0x28]`.
    pub local_bytes: u32,
    /// The instruction runs on the uniform datapath: ALU operands, destinations and predicates are UR/UP.
    pub uniform: bool,
    /// Calls to `vprintf`/`__assertfail` and the code section `LEPC` reads (see [`externs`]).
    pub externs: externs::ExternCalls,
    /// Which native float operations give SM86 results on the target device.
    pub float: FloatSupport,
    /// The turns form's warp state (`None` in the dispatch and structured forms).
    pub warp: Option<warp::WarpState>,
    /// The subgroup form's state (warps as 32-wide subgroups in the structured form), else `None`.
    pub subgroup: Option<subgroup::SubgroupState>,
    /// The loop policy: abort polls, and the device loop-limit checks where the profile has a limit.
    pub loops: crate::control::guard::LoopGuard,
    /// A vertex or pixel program's interface variables (`None` for compute).
    pub graphics: Option<attribute::GraphicsIo>,
    /// The shared FP64 fused multiply-add body's variables and, in the dispatch form, its calls ([`shared_fma`]),
    /// where the kernel has enough of them; `None` elsewhere.
    pub shared_fma: Option<shared_fma::SharedFma>,
}

/// Offset value of `next_pc` that leaves the dispatch loop.
pub const EXIT_PC: u32 = u32::MAX;

impl<'a> Ctx<'a> {
    /// The thread's linear index in its block, `x + dims.x * (y + dims.y * z)` (CUDA's order, in which warps
    /// are 32 consecutive indices); `dims` are the block-size spec constants.
    pub fn linear_thread_index(&mut self, dims: [Id; 3]) -> Id {
        let t = self.t;
        let lid = self.m.load(t.uvec3, self.builtins.local_id);
        let x = self.m.op(Op::CompositeExtract, t.u32, &[lid, 0]);
        let y = self.m.op(Op::CompositeExtract, t.u32, &[lid, 1]);
        let z = self.m.op(Op::CompositeExtract, t.u32, &[lid, 2]);
        let zy = self.op2(Op::IMul, z, dims[1]);
        let zy = self.op2(Op::IAdd, zy, y);
        let l = self.op2(Op::IMul, zy, dims[0]);
        self.op2(Op::IAdd, l, x)
    }

    /// A refusal naming this instruction.
    pub fn refuse(&self, reason: impl Into<String>) -> TranslateError {
        TranslateError::NotTranslated {
            name: display_name(self.inst.word, self.inst.mnemonic),
            section: self.section.to_string(),
            offset: self.inst.offset,
            reason: reason.into(),
        }
    }

    /// The base operation (opcode bits 8:0), with the uniform datapath's 0x80 offset removed.
    pub fn base_op(&self) -> u16 {
        let b = self.inst.opcode() & 0x1ff;
        if self.uniform {
            b.wrapping_sub(0x80) & 0x1ff
        } else {
            b
        }
    }

    /// The operand form (opcode bits 11:9).
    pub fn form(&self) -> u32 {
        u32::from(self.inst.opcode() >> 9) & 7
    }

    /// The three ALU source slots of a vector (per-thread) ALU instruction.
    pub fn abc(&self) -> Result<Abc, TranslateError> {
        if self.uniform {
            return self.uabc();
        }
        let i = &self.inst;
        let uniform_bit = i.opcode() & 0x1000 != 0;
        let ra = Src::Reg(i.bits(24, 8) as u8);
        let rb = Src::Reg(i.bits(32, 8) as u8);
        let rc = Src::Reg(i.bits(64, 8) as u8);
        let imm = Src::Imm(i.bits(32, 32));
        let cb = Src::CBuf(i.bits(54, 5) as u8, i.bits(38, 16));
        let ub = Src::UReg(i.bits(32, 6) as u8);
        let (b, c, nb, nc, ab, ac) = match (self.form(), uniform_bit) {
            (1, false) => (rb, rc, 63, 75, 62, 74),
            (2, false) => (rc, imm, 75, 0, 74, 0),
            (3, false) => (rc, cb, 75, 63, 74, 62),
            (4, false) => (imm, rc, 0, 75, 0, 74),
            (5, false) => (cb, rc, 63, 75, 62, 74),
            (6, true) => (ub, rc, 63, 75, 62, 74),
            (7, true) => (rc, ub, 75, 63, 74, 62),
            (f, u) => {
                return Err(self.refuse(format!(
                    "operand form {f}{} not translated yet",
                    if u { " with a uniform-register constant address" } else { "" }
                )))
            }
        };
        let bit = |n: u32| n != 0 && i.bit(n);
        Ok(Abc { a: ra, b, c, neg: [i.bit(72), bit(nb), bit(nc)], abs: [i.bit(73), bit(ab), bit(ac)] })
    }

    /// The source slots of a uniform-datapath ALU instruction (`UIADD3 UR4, UR5, 0x10, URZ`).
    pub fn uabc(&self) -> Result<Abc, TranslateError> {
        let i = &self.inst;
        let ua = Src::UReg(i.bits(24, 6) as u8);
        let ub = Src::UReg(i.bits(32, 6) as u8);
        let uc = Src::UReg(i.bits(64, 6) as u8);
        let imm = Src::Imm(i.bits(32, 32));
        let (b, c, nb, nc) = match self.form() {
            1 | 6 => (ub, uc, 63, 75),
            2 => (uc, imm, 75, 0),
            4 => (imm, uc, 0, 75),
            f => return Err(self.refuse(format!("uniform operand form {f} not translated yet"))),
        };
        let bit = |n: u32| n != 0 && i.bit(n);
        Ok(Abc { a: ua, b, c, neg: [i.bit(72), bit(nb), bit(nc)], abs: [false; 3] })
    }

    /// Reads a 32-bit source.
    pub fn read(&mut self, s: Src) -> Result<Id, TranslateError> {
        Ok(match s {
            Src::Reg(r) => self.st.reg(&mut self.m, &self.t, r),
            Src::UReg(r) => self.st.ureg(&mut self.m, &self.t, r),
            Src::Imm(v) => self.m.c_u32(v),
            Src::CBuf(bank, off) => self.cbuf(bank, off)?,
        })
    }

    /// Reads a 64-bit source: a register pair (low register first), two constant words, or an immediate
    /// sign-extended from 32 bits.
    pub fn read64(&mut self, s: Src) -> Result<Id, TranslateError> {
        let (lo, hi) = match s {
            Src::Reg(255) => return Ok(self.m.c_u64(0)),
            Src::UReg(63) => return Ok(self.m.c_u64(0)),
            Src::Reg(r) => {
                let lo = self.st.reg(&mut self.m, &self.t, r);
                let hi = self.st.reg(&mut self.m, &self.t, r.wrapping_add(1));
                (lo, hi)
            }
            Src::UReg(r) => {
                let lo = self.st.ureg(&mut self.m, &self.t, r);
                let hi = self.st.ureg(&mut self.m, &self.t, r.wrapping_add(1));
                (lo, hi)
            }
            Src::Imm(v) => return Ok(self.m.c_u64(v as i32 as i64 as u64)),
            Src::CBuf(bank, off) => {
                let lo = self.cbuf(bank, off)?;
                let hi = self.cbuf(bank, off.wrapping_add(4))?;
                (lo, hi)
            }
        };
        Ok(self.pack64(lo, hi))
    }

    /// `lo | hi << 32` as a u64.
    pub fn pack64(&mut self, lo: Id, hi: Id) -> Id {
        let t = self.t;
        let l = self.m.un(Op::UConvert, t.u64, lo);
        let h = self.m.un(Op::UConvert, t.u64, hi);
        let k = self.m.c_u32(32);
        let h = self.m.bin(Op::ShiftLeftLogical, t.u64, h, k);
        self.m.bin(Op::BitwiseOr, t.u64, l, h)
    }

    /// The low and high words of a u64.
    pub fn split64(&mut self, v: Id) -> (Id, Id) {
        let t = self.t;
        let lo = self.m.un(Op::UConvert, t.u32, v);
        let k = self.m.c_u32(32);
        let h = self.m.bin(Op::ShiftRightLogical, t.u64, v, k);
        let hi = self.m.un(Op::UConvert, t.u32, h);
        (lo, hi)
    }

    /// Writes a u64 to a register pair.
    pub fn write64(&mut self, r: u8, v: Id) {
        if r == 255 {
            return;
        }
        let (lo, hi) = self.split64(v);
        self.st.set_reg(&mut self.m, &self.t, r, lo);
        self.st.set_reg(&mut self.m, &self.t, r.wrapping_add(1), hi);
    }

    /// A constant-bank word at a constant byte offset: a direct load from the bank's uniform block. Bank 0
    /// offset 0x28 (the initial stack pointer) is the translator's own: the top of this thread's local memory.
    pub fn cbuf(&mut self, bank: u8, off: u32) -> Result<Id, TranslateError> {
        if bank == 0 && off == crate::abi::bank0::STACK_POINTER {
            return Ok(self.m.c_u32(self.local_bytes));
        }
        // The driver's generic-address windows of shared (0x18) and local (0x20) memory are the translator's:
        // generic accesses compare against the same constants (see `memory`).
        if bank == 0 && off % 4 == 0 && (0x18..0x28).contains(&off) {
            let (base, word) = if off < 0x20 { (memory::SHARED_WINDOW, off - 0x18) } else { (memory::LOCAL_WINDOW, off - 0x20) };
            return Ok(self.m.c_u32(if word == 0 { base as u32 } else { (base >> 32) as u32 }));
        }
        if off % 4 != 0 || off >= crate::abi::MAX_BANK_BYTES {
            return Err(self.refuse(format!("constant c[{bank:#x}][{off:#x}] is not an aligned word")));
        }
        Ok(self.st.uniform_word(&mut self.m, &self.t, 1 + usize::from(bank), off / 4))
    }

    pub fn set_reg(&mut self, r: u8, v: Id) {
        self.st.set_reg(&mut self.m, &self.t, r, v);
    }
    pub fn reg(&mut self, r: u8) -> Id {
        self.st.reg(&mut self.m, &self.t, r)
    }
    /// Reads predicate `p` (3 bits) negated if `neg`.
    pub fn pred(&mut self, p: u32, neg: bool) -> Id {
        let v = self.st.pred(&mut self.m, &self.t, p as u8);
        if neg {
            self.m.un(Op::LogicalNot, self.t.bool, v)
        } else {
            v
        }
    }
    /// Reads the predicate whose 3-bit index is at `lo` and negation at `neg_bit`.
    pub fn pred_at(&mut self, lo: u32, neg_bit: u32) -> Id {
        if self.uniform {
            return self.upred_at(lo, neg_bit);
        }
        let p = self.inst.bits(lo, 3);
        let n = self.inst.bit(neg_bit);
        self.pred(p, n)
    }
    pub fn set_pred(&mut self, p: u32, v: Id) {
        if self.uniform {
            self.st.set_upred(&mut self.m, &self.t, p as u8, v);
        } else {
            self.st.set_pred(&mut self.m, &self.t, p as u8, v);
        }
    }

    /// Writes the destination register (bits 23:16; a UR, bits 21:16, on the uniform datapath).
    pub fn set_dst(&mut self, v: Id) {
        if self.uniform {
            let r = self.inst.bits(16, 6) as u8;
            self.st.set_ureg(&mut self.m, &self.t, r, v);
        } else {
            let r = self.inst.bits(16, 8) as u8;
            self.st.set_reg(&mut self.m, &self.t, r, v);
        }
    }

    /// Writes a 64-bit destination pair.
    pub fn set_dst64(&mut self, v: Id) {
        let (lo, hi) = self.split64(v);
        if self.uniform {
            let r = self.inst.bits(16, 6) as u8;
            if r == 63 {
                return;
            }
            self.st.set_ureg(&mut self.m, &self.t, r, lo);
            self.st.set_ureg(&mut self.m, &self.t, r.wrapping_add(1), hi);
        } else {
            let r = self.inst.bits(16, 8) as u8;
            if r == 255 {
                return;
            }
            self.st.set_reg(&mut self.m, &self.t, r, lo);
            self.st.set_reg(&mut self.m, &self.t, r.wrapping_add(1), hi);
        }
    }
    pub fn upred_at(&mut self, lo: u32, neg_bit: u32) -> Id {
        let p = self.inst.bits(lo, 3) as u8;
        let v = self.st.upred(&mut self.m, &self.t, p);
        if self.inst.bit(neg_bit) {
            self.m.un(Op::LogicalNot, self.t.bool, v)
        } else {
            v
        }
    }

    // Small arithmetic shorthands on u32.
    pub fn u32c(&mut self, v: u32) -> Id {
        self.m.c_u32(v)
    }
    pub fn op2(&mut self, op: Op, a: Id, b: Id) -> Id {
        self.m.bin(op, self.t.u32, a, b)
    }
    pub fn not(&mut self, a: Id) -> Id {
        self.m.un(Op::Not, self.t.u32, a)
    }
    pub fn ineg(&mut self, a: Id) -> Id {
        self.m.un(Op::SNegate, self.t.u32, a)
    }
    pub fn sel(&mut self, c: Id, a: Id, b: Id) -> Id {
        self.m.select(self.t.u32, c, a, b)
    }
    pub fn bool_to_u32(&mut self, c: Id) -> Id {
        let one = self.u32c(1);
        let zero = self.u32c(0);
        self.sel(c, one, zero)
    }

    /// Opens `if cond { ... }`; returns the merge label for [`Ctx::end_if`].
    pub fn begin_if(&mut self, cond: Id) -> Id {
        let then = self.m.id();
        let merge = self.m.id();
        self.m.selection_merge(merge);
        self.m.branch_cond(cond, then, merge);
        self.m.label(then);
        merge
    }
    pub fn end_if(&mut self, merge: Id) {
        self.m.branch(merge);
        self.m.label(merge);
    }
}

/// Lowers one non-control instruction (control instructions ending a block are lowered by the dispatch loop).
pub fn lower(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let guard = cx.inst.guard();
    // A site of the shared FP64 body leaves the current block: it applies its guard itself (`fp64::arith`).
    let shared_site = shared_fma::is_site(cx, &cx.inst);
    let merge = match guard {
        Some((p, neg)) if !crate::program::is_branch(cx.inst.mnemonic) && !shared_site => {
            // The uniform datapath's instructions (UIADD3, ULDC, UPLOP3, ...) are guarded by a UP.
            let g = if cx.inst.mnemonic.starts_with('U') {
                let v = cx.st.upred(&mut cx.m, &cx.t, p);
                if neg { cx.m.un(Op::LogicalNot, cx.t.bool, v) } else { v }
            } else {
                cx.pred(u32::from(p), neg)
            };
            Some(cx.begin_if(g))
        }
        _ => None,
    };
    let caps_before = cx.m.capabilities().len();
    if shared_site {
        shared_fma::dispatch_site(cx)?;
    } else {
        dispatch(cx)?;
    }
    if cx.m.capabilities().len() > caps_before {
        let site = format!(
            "{} at {}+{:#x}",
            display_name(cx.inst.word, cx.inst.mnemonic),
            cx.section,
            cx.inst.offset
        );
        cx.m.note_capability_sites(caps_before, &site);
    }
    if let Some(merge) = merge {
        cx.end_if(merge);
    }
    Ok(())
}

/// Lowers the instruction with the one family `translator/families.txt` gives its decoded class (the
/// generated [`dispatch`]). A disassembler other than the table's (tests) may name another mnemonic than the
/// decoder; then the mnemonic's own line decides.
fn dispatch(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let m = cx.inst.mnemonic;
    let w = cx.inst.word;
    let family = match sassport_gen::decode(w) {
        Ok(i) if i.mnemonic() == m => dispatch::family(i.class(), w),
        _ => dispatch::family_by_mnemonic(m, w),
    };
    if let Some(f) = family {
        if dispatch::lower(f, cx, m)? {
            return Ok(());
        }
    }
    Err(cx.refuse("not translated yet"))
}
