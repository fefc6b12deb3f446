//! Memory: global (LDG/STG, generic LD/ST treated as global), shared (LDS/STS), local (LDL/STL), indexed
//! constants (LDC), atomics (ATOMG/ATOM/ATOMS/RED) and fences (MEMBAR/FENCE, CCTL, ERRBAR).
//!
//! Global accesses go through the window (binding 33). Each access calls the module's one `window_check`
//! function with its address, size, kind and pc: an access outside the window or misaligned (SM86 faults on
//! misaligned accesses) records the fault (first fault whole, then a count) and reads 0 / is dropped.
//! Sub-word stores use atomic and/or on their word so that neighbouring bytes written by other threads survive.
//! Shared and local accesses outside their space (shared: the block's allocation as the hardware sizes it,
//! `shared_allocation_bytes`) or misaligned record a fault too (kinds 9..13) and read 0 / are dropped.

use super::{Ctx, Src};
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::{FunctionControl, Id, Module, Op, StorageClass, Type};
use crate::state::Types;

pub(super) fn lower(cx: &mut Ctx<'_>, m: &str) -> Result<bool, TranslateError> {
    match m {
        "LDG" => global_load(cx)?,
        "STG" => global_store(cx)?,
        "LD" => generic(cx, false)?,
        "ST" => generic(cx, true)?,
        "LDS" => space_load(cx, Space::Shared)?,
        "STS" => space_store(cx, Space::Shared)?,
        "LDL" => space_load(cx, Space::Local)?,
        "STL" => space_store(cx, Space::Local)?,
        "LDC" => ldc(cx)?,
        "ATOMG" | "ATOM" | "RED" => global_atomic(cx, m)?,
        "ATOMS" => shared_atomic(cx)?,
        "ARRIVES" => arrives(cx)?,
        "MEMBAR" | "FENCE" => {
            // Ordering of memory as seen by other invocations: a device-scope memory barrier.
            let scope = cx.u32c(crate::spirv::Scope::Device as u32);
            let sem = cx.u32c(
                (crate::spirv::MemorySemantics::ACQUIRE_RELEASE
                    | crate::spirv::MemorySemantics::UNIFORM_MEMORY
                    | crate::spirv::MemorySemantics::WORKGROUP_MEMORY)
                    .bits(),
            );
            cx.m.op_void(Op::MemoryBarrier, &[scope, sem]);
        }
        // Cache control and error barriers have no effect on values.
        "CCTL" | "ERRBAR" => {}
        _ => return Ok(false),
    }
    Ok(true)
}

/// Generic address of shared memory's first byte: what `c[0x0][0x18]` reads. Above the 47-bit range of
/// global (window) addresses, so the ranges never overlap.
pub const SHARED_WINDOW: u64 = 0x0001_0000_0000_0000;
/// Generic address of local memory's first byte: what `c[0x0][0x20]` reads.
pub const LOCAL_WINDOW: u64 = 0x0002_0000_0000_0000;

/// Generic LD/ST: the address's high word picks shared memory, local memory or the global window.
fn generic(cx: &mut Ctx<'_>, store: bool) -> Result<(), TranslateError> {
    let (bytes, signed) = size_of(cx)?;
    let t = cx.t;
    let data = if store { Some(store_data(cx, bytes)) } else { None };
    let addr = global_addr(cx)?;
    let (lo, hi) = cx.split64(addr);
    let sh = cx.u32c((SHARED_WINDOW >> 32) as u32);
    let lc = cx.u32c((LOCAL_WINDOW >> 32) as u32);
    let is_sh = cx.m.bin(Op::IEqual, t.bool, hi, sh);
    let is_lc = cx.m.bin(Op::IEqual, t.bool, hi, lc);
    let rd = dst_regs(cx);
    let run = |cx: &mut Ctx<'_>, which: u8| -> Result<(), TranslateError> {
        match (which, &data) {
            (0, Some(d)) => space_store_at(cx, Space::Shared, lo, bytes, d),
            (1, Some(d)) => space_store_at(cx, Space::Local, lo, bytes, d),
            (_, Some(d)) => global_store_at(cx, addr, bytes, d),
            (0, None) => space_load_at(cx, Space::Shared, lo, bytes, signed, rd),
            (1, None) => space_load_at(cx, Space::Local, lo, bytes, signed, rd),
            (_, None) => global_load_at(cx, addr, bytes, signed, rd),
        }
    };
    // if shared { .. } else { if local { .. } else { global } }
    let then = cx.m.id();
    let other = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(is_sh, then, other);
    cx.m.label(then);
    run(cx, 0)?;
    cx.m.branch(merge);
    cx.m.label(other);
    let then2 = cx.m.id();
    let other2 = cx.m.id();
    let merge2 = cx.m.id();
    cx.m.selection_merge(merge2);
    cx.m.branch_cond(is_lc, then2, other2);
    cx.m.label(then2);
    run(cx, 1)?;
    cx.m.branch(merge2);
    cx.m.label(other2);
    run(cx, 2)?;
    cx.m.branch(merge2);
    cx.m.label(merge2);
    cx.m.branch(merge);
    cx.m.label(merge);
    Ok(())
}

/// The data registers of a store (`Rb` 39:32 and its successors).
fn store_data(cx: &mut Ctx<'_>, bytes: u32) -> Vec<Id> {
    let rb = cx.inst.bits(32, 8) as u8;
    (0..(bytes.max(4) / 4)).map(|k| cx.reg(if rb == 255 { 255 } else { rb.wrapping_add(k as u8) })).collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Space {
    Shared,
    Local,
}

/// Access size from bits 75:73: 0 U8, 1 S8, 2 U16, 3 S16, 4 32, 5 64, 6 128. Returns (bytes, signed).
fn size_of(cx: &Ctx<'_>) -> Result<(u32, bool), TranslateError> {
    Ok(match cx.inst.bits(73, 3) {
        0 => (1, false),
        1 => (1, true),
        2 => (2, false),
        3 => (2, true),
        4 => (4, false),
        5 => (8, false),
        6 => (16, false),
        _ => return Err(cx.refuse("access size not translated yet")),
    })
}

/// Signed 24-bit immediate offset (bits 63:40).
pub(super) fn imm24(cx: &Ctx<'_>) -> i32 {
    (cx.inst.bits(40, 24) << 8) as i32 >> 8
}

/// The 64-bit guest address of a global access: `Ra` pair (`.E`, bit 72) or `Ra` zero-extended, plus offset.
pub(super) fn global_addr(cx: &mut Ctx<'_>) -> Result<Id, TranslateError> {
    let ra = cx.inst.bits(24, 8) as u8;
    let t = cx.t;
    let base = if cx.inst.bit(72) {
        cx.read64(Src::Reg(ra))?
    } else {
        let r = cx.reg(ra);
        cx.m.un(Op::UConvert, t.u64, r)
    };
    let off = imm24(cx);
    if off == 0 {
        return Ok(base);
    }
    let k = cx.m.c_u64(off as i64 as u64);
    Ok(cx.m.bin(Op::IAdd, t.u64, base, k))
}

/// Emits (once) `bool window_check(u64 addr, u32 size, u32 kind, u32 pc)`.
pub(super) fn window_check_fn(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    let lv = cx.st.uniform(&mut cx.m, 0, 2);
    let record_fault = super::fault::record_fault_fn(cx);
    cx.m.helper("window_check", move |m| build_window_check(m, &t, lv, record_fault))
}

fn build_window_check(m: &mut Module, t: &Types, lv: Id, record_fault: Id) -> Id {
    let fty = m.ty(Type::Function(t.bool, [t.u64, t.u32, t.u32, t.u32]));
    let f = m.begin_function(t.bool, fty, FunctionControl::NONE);
    let addr = m.param(t.u64);
    let size = m.param(t.u32);
    let kind = m.param(t.u32);
    let pc = m.param(t.u32);
    let entry = m.id();
    m.label(entry);
    let uptr = t.uniform_u32;
    let lvw = |m: &mut Module, w: u32| {
        let zero = m.c_u32(0);
        let v = m.c_u32(w / 4);
        let c = m.c_u32(w % 4);
        let p = m.access(uptr, lv, &[zero, v, c]);
        m.load(t.u32, p)
    };
    let pack = |m: &mut Module, lo: Id, hi: Id| {
        let l = m.un(Op::UConvert, t.u64, lo);
        let h = m.un(Op::UConvert, t.u64, hi);
        let k = m.c_u32(32);
        let h = m.bin(Op::ShiftLeftLogical, t.u64, h, k);
        m.bin(Op::BitwiseOr, t.u64, l, h)
    };
    let b0 = lvw(m, abi::launch_word::WINDOW_BASE);
    let b1 = lvw(m, abi::launch_word::WINDOW_BASE + 1);
    let s0 = lvw(m, abi::launch_word::WINDOW_SIZE);
    let s1 = lvw(m, abi::launch_word::WINDOW_SIZE + 1);
    let base = pack(m, b0, b1);
    let wsize = pack(m, s0, s1);
    let off = m.bin(Op::ISub, t.u64, addr, base);
    let size64 = m.un(Op::UConvert, t.u64, size);
    let c1 = m.bin(Op::UGreaterThanEqual, t.bool, addr, base);
    let c2 = m.bin(Op::ULessThanEqual, t.bool, off, wsize);
    let room = m.bin(Op::ISub, t.u64, wsize, off);
    let c3 = m.bin(Op::UGreaterThanEqual, t.bool, room, size64);
    let one64 = m.c_u64(1);
    let mask = m.bin(Op::ISub, t.u64, size64, one64);
    let low = m.bin(Op::BitwiseAnd, t.u64, addr, mask);
    let zero64 = m.c_u64(0);
    let c4 = m.bin(Op::IEqual, t.bool, low, zero64);
    let a = m.bin(Op::LogicalAnd, t.bool, c1, c2);
    let b = m.bin(Op::LogicalAnd, t.bool, c3, c4);
    let ok = m.bin(Op::LogicalAnd, t.bool, a, b);
    let fault = m.id();
    let done = m.id();
    m.selection_merge(done);
    m.branch_cond(ok, done, fault);
    m.label(fault);
    m.op(Op::FunctionCall, t.void, &[record_fault, kind, pc, addr, size]);
    m.branch(done);
    m.label(done);
    m.op_void(Op::ReturnValue, &[ok]);
    m.end_function();
    f
}

/// Checks a window access; returns (ok, word index of the first word, 0 when not ok).
pub(super) fn window_access(cx: &mut Ctx<'_>, addr: Id, size: u32, kind: u32) -> (Id, Id) {
    let t = cx.t;
    let f = window_check_fn(cx);
    let sz = cx.u32c(size);
    let kd = cx.u32c(kind);
    let pc = cx.u32c(cx.inst.offset);
    let ok = cx.m.op(Op::FunctionCall, t.bool, &[f, addr, sz, kd, pc]);
    let b0 = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::WINDOW_BASE);
    let b1 = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::WINDOW_BASE + 1);
    let base = cx.pack64(b0, b1);
    let off = cx.m.bin(Op::ISub, t.u64, addr, base);
    let two = cx.u32c(2);
    let w = cx.m.bin(Op::ShiftRightLogical, t.u64, off, two);
    if cx.st.window_chunks.is_some() {
        // Chunked windows pass the whole 64-bit word index on (`state::window` splits it).
        let zero = cx.m.c_u64(0);
        let idx = cx.m.op(Op::Select, t.u64, &[ok, w, zero]);
        return (ok, idx);
    }
    let w = cx.m.un(Op::UConvert, t.u32, w);
    let zero = cx.u32c(0);
    let idx = cx.sel(ok, w, zero);
    (ok, idx)
}

/// Pointer to window word `idx + plus` (`idx` from [`window_access`], in the window's index type).
pub(super) fn window_ptr(cx: &mut Ctx<'_>, idx: Id, plus: u32) -> Id {
    let t = cx.t;
    let win = cx.st.window_form(&mut cx.m, &t);
    if win.chunks.is_some() {
        let i = win.index_add(&mut cx.m, &t, idx, plus);
        return win.word(&mut cx.m, &t, i);
    }
    let sptr = t.storage_u32;
    let i = if plus == 0 {
        idx
    } else {
        let k = cx.u32c(plus);
        cx.op2(Op::IAdd, idx, k)
    };
    let zero = cx.u32c(0);
    cx.m.access(sptr, win.var, &[zero, i])
}

/// `idx + k` in the window's index type (u32 for one buffer, u64 for chunks).
pub(super) fn window_index_add(cx: &mut Ctx<'_>, idx: Id, k: u32) -> Id {
    let t = cx.t;
    if cx.st.window_chunks.is_some() {
        let win = cx.st.window_form(&mut cx.m, &t);
        return win.index_add(&mut cx.m, &t, idx, k);
    }
    let kc = cx.u32c(k);
    cx.op2(Op::IAdd, idx, kc)
}

/// The low 32 bits of a window word index (what a hash onto lock words needs).
pub(super) fn window_index_low32(cx: &mut Ctx<'_>, idx: Id) -> Id {
    let t = cx.t;
    match cx.st.window_chunks {
        None => idx,
        Some(_) => cx.m.un(Op::UConvert, t.u32, idx),
    }
}

/// Extracts a sub-word value at byte `addr & 3` of `word`.
fn extract(cx: &mut Ctx<'_>, word: Id, addr_lo: Id, bytes: u32, signed: bool) -> Id {
    let three = cx.u32c(3);
    let b = cx.op2(Op::BitwiseAnd, addr_lo, three);
    let sh = cx.op2(Op::ShiftLeftLogical, b, three);
    let v = cx.op2(Op::ShiftRightLogical, word, sh);
    let bits = 8 * bytes;
    let off = cx.u32c(0);
    let cnt = cx.u32c(bits);
    let t = cx.t;
    let op = if signed { Op::BitFieldSExtract } else { Op::BitFieldUExtract };
    cx.m.op(op, t.u32, &[v, off, cnt])
}

pub(super) fn dst_regs(cx: &Ctx<'_>) -> u8 {
    cx.inst.bits(16, 8) as u8
}

fn write_words(cx: &mut Ctx<'_>, rd: u8, vals: &[Id]) {
    for (k, v) in vals.iter().enumerate() {
        cx.set_reg(rd.wrapping_add(k as u8), *v);
    }
}

fn global_load(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let (bytes, signed) = size_of(cx)?;
    let addr = global_addr(cx)?;
    let rd = dst_regs(cx);
    global_load_at(cx, addr, bytes, signed, rd)
}

pub(super) fn global_load_at(cx: &mut Ctx<'_>, addr: Id, bytes: u32, signed: bool, rd: u8) -> Result<(), TranslateError> {
    let (ok, idx) = window_access(cx, addr, bytes, abi::FAULT_KIND_LOAD);
    let zero = cx.u32c(0);
    let t = cx.t;
    let mut vals = Vec::new();
    let strong = super::memory_order::is_strong(cx);
    if bytes < 4 {
        let p = window_ptr(cx, idx, 0);
        let w = if strong { super::memory_order::load32(cx, p) } else { cx.m.load(t.u32, p) };
        let lo = cx.m.un(Op::UConvert, t.u32, addr);
        let v = extract(cx, w, lo, bytes, signed);
        vals.push(cx.sel(ok, v, zero));
    } else if strong && bytes >= 8 {
        // One atomic per 8 bytes (the check above faulted a misaligned access and gave index 0).
        for k in 0..bytes / 8 {
            let i = window_index_add(cx, idx, 2 * k);
            let (lo, hi) = super::memory_order::load64(cx, i);
            vals.push(cx.sel(ok, lo, zero));
            vals.push(cx.sel(ok, hi, zero));
        }
    } else {
        for k in 0..bytes / 4 {
            let p = window_ptr(cx, idx, k);
            let w = if strong { super::memory_order::load32(cx, p) } else { cx.m.load(t.u32, p) };
            vals.push(cx.sel(ok, w, zero));
        }
    }
    write_words(cx, rd, &vals);
    Ok(())
}

fn global_store(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let (bytes, _) = size_of(cx)?;
    let data = store_data(cx, bytes);
    let addr = global_addr(cx)?;
    global_store_at(cx, addr, bytes, &data)
}

pub(super) fn global_store_at(cx: &mut Ctx<'_>, addr: Id, bytes: u32, data: &[Id]) -> Result<(), TranslateError> {
    let (ok, idx) = window_access(cx, addr, bytes, abi::FAULT_KIND_STORE);
    let merge = cx.begin_if(ok);
    let t = cx.t;
    if bytes < 4 {
        let p = window_ptr(cx, idx, 0);
        let lo = cx.m.un(Op::UConvert, t.u32, addr);
        subword_store(cx, p, lo, bytes, data[0], StorageClass::StorageBuffer);
    } else if super::memory_order::is_strong(cx) {
        if bytes >= 8 {
            for (k, pair) in data.chunks(2).enumerate() {
                let i = window_index_add(cx, idx, 2 * k as u32);
                let hi = pair.get(1).copied().unwrap_or(pair[0]);
                super::memory_order::store64(cx, i, pair[0], hi);
            }
        } else {
            let p = window_ptr(cx, idx, 0);
            super::memory_order::store32(cx, p, data[0]);
        }
    } else {
        for (k, v) in data.iter().enumerate() {
            let p = window_ptr(cx, idx, k as u32);
            cx.m.store(p, *v);
        }
    }
    cx.end_if(merge);
    Ok(())
}

/// Stores the low `bytes` of `v` at byte `addr & 3` of the word at `p`, with atomic and/or so that other
/// bytes of the word, perhaps written by other invocations, are kept.
fn subword_store(cx: &mut Ctx<'_>, p: Id, addr_lo: Id, bytes: u32, v: Id, class: StorageClass) {
    let t = cx.t;
    let three = cx.u32c(3);
    let b = cx.op2(Op::BitwiseAnd, addr_lo, three);
    let sh = cx.op2(Op::ShiftLeftLogical, b, three);
    let m = cx.u32c(if bytes == 1 { 0xff } else { 0xffff });
    let val = cx.op2(Op::BitwiseAnd, v, m);
    let val = cx.op2(Op::ShiftLeftLogical, val, sh);
    let mask = cx.op2(Op::ShiftLeftLogical, m, sh);
    let keep = cx.not(mask);
    if class == StorageClass::Function {
        let w = cx.m.load(t.u32, p);
        let w = cx.op2(Op::BitwiseAnd, w, keep);
        let w = cx.op2(Op::BitwiseOr, w, val);
        cx.m.store(p, w);
        return;
    }
    let scope = cx.u32c(if class == StorageClass::Workgroup {
        crate::spirv::Scope::Workgroup as u32
    } else {
        crate::spirv::Scope::Device as u32
    });
    let relaxed = cx.u32c(0);
    cx.m.op(Op::AtomicAnd, t.u32, &[p, scope, relaxed, keep]);
    cx.m.op(Op::AtomicOr, t.u32, &[p, scope, relaxed, val]);
}

/// Byte address of a shared/local access: `Ra` scaled (.X4/.X8/.X16, bits 79:78) plus the offset, plus a
/// uniform register in the bit-91 forms (`[R5+UR5]`: bits 37:32 for loads, 69:64 for stores, whose data
/// register takes 39:32).
fn space_addr(cx: &mut Ctx<'_>, store: bool) -> Result<Id, TranslateError> {
    let ur = if cx.inst.opcode() & 0x1000 != 0 {
        let r = if store { cx.inst.bits(64, 6) } else { cx.inst.bits(32, 6) } as u8;
        let t = cx.t;
        Some(cx.st.ureg(&mut cx.m, &t, r))
    } else {
        None
    };
    let ra = cx.inst.bits(24, 8) as u8;
    let scale = cx.inst.bits(78, 2);
    let mut a = cx.reg(ra);
    if scale != 0 {
        let k = cx.u32c(scale + 1);
        a = cx.op2(Op::ShiftLeftLogical, a, k);
    }
    let off = imm24(cx);
    if off != 0 {
        let k = cx.u32c(off as u32);
        a = cx.op2(Op::IAdd, a, k);
    }
    if let Some(u) = ur {
        a = cx.op2(Op::IAdd, a, u);
    }
    Ok(a)
}

/// Pointer type, variable and word length (an id) of a space.
pub(super) fn space(cx: &mut Ctx<'_>, s: Space) -> (Id, Id, Id, StorageClass) {
    let t = cx.t;
    match s {
        Space::Shared if cx.st.shared_in_window => {
            let (var, len) = cx.st.shared(&mut cx.m, &t);
            (t.storage_u32, var, len, StorageClass::StorageBuffer)
        }
        Space::Shared => {
            let (var, len) = cx.st.shared(&mut cx.m, &t);
            let ptr = cx.m.t_ptr(StorageClass::Workgroup, t.u32);
            (ptr, var, len, StorageClass::Workgroup)
        }
        Space::Local => {
            let (var, words) = cx.st.local(&mut cx.m, &t);
            let ptr = cx.m.t_ptr(StorageClass::Function, t.u32);
            let len = cx.u32c(words);
            (ptr, var, len, StorageClass::Function)
        }
    }
}

/// What an access of shared or local memory does, for its fault record.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Load,
    Store,
    Atomic,
}

/// (ok, word index or 0) of an access of `bytes` at byte address `a` in space `s`, whose length is `len` words.
/// An access outside the space or misaligned records a fault (SM86 raises an error there; here a load reads 0
/// and a store or atomic is dropped, as for the global window) naming pc, space offset and size.
pub(super) fn space_check(cx: &mut Ctx<'_>, s: Space, access: Access, a: Id, bytes: u32, len: Id) -> (Id, Id) {
    let (ok, idx) = space_bounds(cx, a, bytes, len);
    let t = cx.t;
    let bad = cx.m.un(Op::LogicalNot, t.bool, ok);
    let merge = cx.begin_if(bad);
    let kind = match (s, access) {
        (Space::Shared, Access::Load) => abi::FAULT_KIND_SHARED_LOAD,
        (Space::Shared, Access::Store) => abi::FAULT_KIND_SHARED_STORE,
        (Space::Shared, Access::Atomic) => abi::FAULT_KIND_SHARED_ATOMIC,
        (Space::Local, Access::Store) => abi::FAULT_KIND_LOCAL_STORE,
        (Space::Local, _) => abi::FAULT_KIND_LOCAL_LOAD,
    };
    let pc = cx.u32c(cx.inst.offset);
    let addr = cx.m.un(Op::UConvert, t.u64, a);
    let size = cx.u32c(bytes);
    super::fault::record_fault(cx, kind, pc, addr, size);
    cx.end_if(merge);
    (ok, idx)
}

/// (ok, word index or 0) of an access of `bytes` at byte address `a`, without a fault record.
fn space_bounds(cx: &mut Ctx<'_>, a: Id, bytes: u32, len: Id) -> (Id, Id) {
    let t = cx.t;
    let two = cx.u32c(2);
    let idx = cx.op2(Op::ShiftRightLogical, a, two);
    let words = bytes.div_ceil(4);
    let last = cx.u32c(words - 1);
    let end = cx.op2(Op::IAdd, idx, last);
    let in_range = cx.m.bin(Op::ULessThan, t.bool, end, len);
    let no_wrap = cx.m.bin(Op::UGreaterThanEqual, t.bool, end, idx);
    let mask = cx.u32c(bytes - 1);
    let low = cx.op2(Op::BitwiseAnd, a, mask);
    let zero = cx.u32c(0);
    let aligned = cx.m.bin(Op::IEqual, t.bool, low, zero);
    let ok = cx.m.bin(Op::LogicalAnd, t.bool, in_range, no_wrap);
    let ok = cx.m.bin(Op::LogicalAnd, t.bool, ok, aligned);
    let idx = cx.sel(ok, idx, zero);
    (ok, idx)
}

pub(super) fn space_ptr(cx: &mut Ctx<'_>, ptr: Id, var: Id, idx: Id, plus: u32) -> Id {
    if cx.st.shared_in_window && cx.st.window == Some(var) {
        let slot = shared_slot_word(cx);
        let i = cx.op2(Op::IAdd, slot, idx);
        // A chunked window takes 64-bit word indexes (the slots themselves lie in the first 16 GiB).
        let t = cx.t;
        let win = cx.st.window_form(&mut cx.m, &t);
        let i = win.widen(&mut cx.m, &t, i);
        return window_ptr(cx, i, plus);
    }
    let i = if plus == 0 {
        idx
    } else {
        let k = cx.u32c(plus);
        cx.op2(Op::IAdd, idx, k)
    };
    cx.m.access(ptr, var, &[i])
}

/// Window word of this workgroup's shared-memory slot (window-backed shared memory: the runtime dispatches
/// at most `abi::SHARED_WINDOW_SLOTS` workgroups along x at a time, so `gl_WorkGroupID.x` names the slot).
fn shared_slot_word(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    let first = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::SHARED_WINDOW);
    let words = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::SHARED_WINDOW + 1);
    let g = cx.m.load(t.uvec3, cx.builtins.group_id);
    let x = cx.m.op(Op::CompositeExtract, t.u32, &[g, 0]);
    let at = cx.op2(Op::IMul, x, words);
    cx.op2(Op::IAdd, first, at)
}

fn space_load(cx: &mut Ctx<'_>, s: Space) -> Result<(), TranslateError> {
    let (bytes, signed) = size_of(cx)?;
    let a = space_addr(cx, false)?;
    let rd = dst_regs(cx);
    space_load_at(cx, s, a, bytes, signed, rd)
}

fn space_load_at(cx: &mut Ctx<'_>, s: Space, a: Id, bytes: u32, signed: bool, rd: u8) -> Result<(), TranslateError> {
    let (ptr, var, len, _) = space(cx, s);
    let (ok, idx) = space_check(cx, s, Access::Load, a, bytes, len);
    let t = cx.t;
    let zero = cx.u32c(0);
    let mut vals = Vec::new();
    if bytes < 4 {
        let p = space_ptr(cx, ptr, var, idx, 0);
        let w = cx.m.load(t.u32, p);
        let v = extract(cx, w, a, bytes, signed);
        vals.push(cx.sel(ok, v, zero));
    } else {
        for k in 0..bytes / 4 {
            let p = space_ptr(cx, ptr, var, idx, k);
            let w = cx.m.load(t.u32, p);
            vals.push(cx.sel(ok, w, zero));
        }
    }
    write_words(cx, rd, &vals);
    Ok(())
}

fn space_store(cx: &mut Ctx<'_>, s: Space) -> Result<(), TranslateError> {
    let (bytes, _) = size_of(cx)?;
    let data = store_data(cx, bytes);
    let a = space_addr(cx, true)?;
    space_store_at(cx, s, a, bytes, &data)
}

pub(super) fn space_store_at(cx: &mut Ctx<'_>, s: Space, a: Id, bytes: u32, data: &[Id]) -> Result<(), TranslateError> {
    let (ptr, var, len, class) = space(cx, s);
    let (ok, idx) = space_check(cx, s, Access::Store, a, bytes, len);
    let merge = cx.begin_if(ok);
    if bytes < 4 {
        let p = space_ptr(cx, ptr, var, idx, 0);
        subword_store(cx, p, a, bytes, data[0], class);
    } else {
        for (k, v) in data.iter().enumerate() {
            let p = space_ptr(cx, ptr, var, idx, k as u32);
            cx.m.store(p, *v);
        }
    }
    cx.end_if(merge);
    Ok(())
}

/// `LDC Rd, c[bank][Ra + offset]`: an indexed constant read; out-of-bank reads give 0.
fn ldc(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    if cx.inst.bits(78, 2) != 0 || cx.inst.opcode() & 0x1000 != 0 {
        return Err(cx.refuse("LDC addressing mode not translated yet"));
    }
    let (bytes, signed) = size_of(cx)?;
    if bytes > 8 {
        return Err(cx.refuse("LDC size"));
    }
    let bank = cx.inst.bits(54, 5) as u8;
    let off = cx.inst.bits(38, 16);
    let ra = cx.inst.bits(24, 8) as u8;
    let rd = dst_regs(cx);
    if ra == 255 {
        // Constant address: direct loads.
        let mut vals = Vec::new();
        if bytes < 4 {
            let w = cx.cbuf(bank, off & !3)?;
            let lo = cx.u32c(off);
            vals.push(extract(cx, w, lo, bytes, signed));
        } else {
            for k in 0..bytes / 4 {
                vals.push(cx.cbuf(bank, off + 4 * k)?);
            }
        }
        write_words(cx, rd, &vals);
        return Ok(());
    }
    let r = cx.reg(ra);
    let k = cx.u32c(off);
    let a = cx.op2(Op::IAdd, r, k);
    let vals = constant_at(cx, bank, a, bytes, signed);
    write_words(cx, rd, &vals);
    Ok(())
}

/// The `bytes` (1, 2, 4 or 8) at byte address `a` of constant bank `bank`, as words (a sub-word value
/// extended by `signed`); an out-of-bank or misaligned address reads 0. For LDC and ULDC with an address.
pub(super) fn constant_at(cx: &mut Ctx<'_>, bank: u8, a: Id, bytes: u32, signed: bool) -> Vec<Id> {
    let t = cx.t;
    let var = cx.st.uniform(&mut cx.m, 1 + usize::from(bank), abi::MAX_BANK_BYTES / 16);
    let limit = cx.u32c(abi::MAX_BANK_BYTES - bytes.max(4));
    let ok = cx.m.bin(Op::ULessThanEqual, t.bool, a, limit);
    let mask = cx.u32c(bytes - 1);
    let low = cx.op2(Op::BitwiseAnd, a, mask);
    let zero = cx.u32c(0);
    let aligned = cx.m.bin(Op::IEqual, t.bool, low, zero);
    let ok = cx.m.bin(Op::LogicalAnd, t.bool, ok, aligned);
    let a = cx.sel(ok, a, zero);
    let uptr = cx.m.t_ptr(StorageClass::Uniform, t.u32);
    let mut vals = Vec::new();
    for k in 0..bytes.max(4) / 4 {
        let ak = if k == 0 {
            a
        } else {
            let four = cx.u32c(4 * k);
            cx.op2(Op::IAdd, a, four)
        };
        let four = cx.u32c(4);
        let v4 = cx.op2(Op::ShiftRightLogical, ak, four);
        let two = cx.u32c(2);
        let c = cx.op2(Op::ShiftRightLogical, ak, two);
        let three = cx.u32c(3);
        let c = cx.op2(Op::BitwiseAnd, c, three);
        let p = cx.m.access(uptr, var, &[zero, v4, c]);
        let w = cx.m.load(t.u32, p);
        let w = if bytes < 4 { extract(cx, w, a, bytes, signed) } else { w };
        vals.push(cx.sel(ok, w, zero));
    }
    vals
}

/// `ARRIVES.LDGSTSBAR.64 [Ra + UR + imm]` (PTX `cp.async.mbarrier.arrive.noinc`): an arrival on the mbarrier
/// once this thread's earlier LDGSTS copies are complete. They complete at the LDGSTS itself here
/// (`async_copy`), so it is an arrival now, that of `ATOMS.ARRIVE.64` without the returned state. The counting
/// form (no `.noinc`) is nvcc's `ATOMS.ADD` of minus the warp's active lanes to the pending count before it.
/// Only where mbarrier waits can spin: warps in turns (which it asks for) or as subgroups.
fn arrives(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    if cx.inst.bits(72, 4) != 10 {
        return Err(cx.refuse("ARRIVES form other than .LDGSTSBAR.64"));
    }
    if cx.warp.is_none() && cx.subgroup.is_none() {
        return Err(cx.refuse("mbarrier arrive outside warps in turns or as subgroups"));
    }
    super::warp::arrive_state(cx)?;
    Ok(())
}

/// Atomic operation field: 0 ADD, 1 MIN, 2 MAX, 3 INC, 4 DEC, 5 AND, 6 OR, 7 XOR, 8 EXCH.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum AtomicKind {
    Native(Op),
    /// CUDA atomicInc: `old >= v ? 0 : old + 1`.
    Inc,
    /// CUDA atomicDec: `old == 0 || old > v ? v : old - 1`.
    Dec,
    /// f32 add with FTZ and round-to-nearest, NaN canonical.
    FAdd,
    /// f64 add, round-to-nearest, denormals kept, NaN results as DADD's (see `fp64`).
    FAdd64,
    Cas,
    /// `ATOMS.CAST.SPIN`: compare-and-store whose result is 1 when the store happened, else 0.
    Cast,
}

pub(super) fn atomic_kind(cx: &Ctx<'_>, op: u32, bytes: u32, signed: bool, float: bool) -> Result<AtomicKind, TranslateError> {
    if float {
        return match op {
            0 if bytes == 8 => Ok(AtomicKind::FAdd64),
            0 => Ok(AtomicKind::FAdd),
            _ => Err(cx.refuse("floating-point atomic operation not translated yet")),
        };
    }
    Ok(match op {
        0 => AtomicKind::Native(Op::AtomicIAdd),
        1 if signed => AtomicKind::Native(Op::AtomicSMin),
        1 => AtomicKind::Native(Op::AtomicUMin),
        2 if signed => AtomicKind::Native(Op::AtomicSMax),
        2 => AtomicKind::Native(Op::AtomicUMax),
        3 => AtomicKind::Inc,
        4 => AtomicKind::Dec,
        5 => AtomicKind::Native(Op::AtomicAnd),
        6 => AtomicKind::Native(Op::AtomicOr),
        7 => AtomicKind::Native(Op::AtomicXor),
        8 => AtomicKind::Native(Op::AtomicExchange),
        _ => return Err(cx.refuse("atomic operation not translated yet")),
    })
}

/// Atomic type field (bits 75:73): 0 U32, 1 S32, 2 U64, 3 F32 (FTZ, RN), 5 S64, 6 F64 (RN). Returns (bytes,
/// signed, float).
pub(super) fn atomic_type(cx: &Ctx<'_>) -> Result<(u32, bool, bool), TranslateError> {
    match cx.inst.bits(73, 3) {
        0 => Ok((4, false, false)),
        1 => Ok((4, true, false)),
        2 => Ok((8, false, false)),
        3 => Ok((4, false, true)),
        5 => Ok((8, true, false)),
        6 => Ok((8, false, true)),
        4 => Err(cx.refuse("atomic type F16x2 not translated yet")),
        _ => Err(cx.refuse("invalid atomic type")),
    }
}

/// The 64-bit view of the window (binding 33 as `struct { uint64_t words[]; }`, or chunks of them), for
/// 64-bit atomics.
pub(super) fn window64_form(cx: &mut Ctx<'_>) -> crate::state::window::Window {
    let t = cx.t;
    cx.m.capability(crate::spirv::Capability::Int64Atomics);
    let chunks = cx.st.window_chunks;
    if let Some(var) = cx.st.window64 {
        return crate::state::window::Window { var, chunks, view_log2: 3 };
    }
    let w = crate::state::window::Window::declare(&mut cx.m, t.u64, 8, chunks);
    cx.st.window64 = Some(w.var);
    w
}

/// A pointer to the 64-bit word of the global window that starts at (even) 32-bit window word `idx`.
pub(super) fn window64_word(cx: &mut Ctx<'_>, idx: Id) -> Id {
    let t = cx.t;
    let win = window64_form(cx);
    let one = cx.u32c(1);
    if win.chunks.is_some() {
        let i = cx.m.bin(Op::ShiftRightLogical, t.u64, idx, one);
        let ptr = cx.m.t_ptr(StorageClass::StorageBuffer, t.u64);
        return win.element(&mut cx.m, &t, ptr, i, 3);
    }
    let i = cx.op2(Op::ShiftRightLogical, idx, one);
    let ptr = cx.m.t_ptr(StorageClass::StorageBuffer, t.u64);
    let z = cx.u32c(0);
    cx.m.access(ptr, win.var, &[z, i])
}

/// Emits the atomic at `p` (of integer type `ty`) and returns the old value (for [`AtomicKind::Cast`], 1 if
/// the store happened, else 0). Operations SPIR-V has no instruction for are compare-exchange loops; the
/// loop's exit test sits in its body and the continue block only branches back (an exit test in the continue
/// block stalled lanes of lavapipe's 8-wide groups inside the turns form's loop).
pub(super) fn emit_atomic(cx: &mut Ctx<'_>, kind: AtomicKind, ty: Id, p: Id, v: Id, newv: Id, scope: u32) -> Id {
    let t = cx.t;
    let scope = cx.u32c(scope);
    let relaxed = cx.u32c(0);
    match kind {
        AtomicKind::Native(op) => cx.m.op(op, ty, &[p, scope, relaxed, v]),
        AtomicKind::Cas => cx.m.op(Op::AtomicCompareExchange, ty, &[p, scope, relaxed, relaxed, newv, v]),
        AtomicKind::Cast => {
            let prev = cx.m.op(Op::AtomicCompareExchange, ty, &[p, scope, relaxed, relaxed, newv, v]);
            let stored = cx.m.bin(Op::IEqual, t.bool, prev, v);
            let (one, zero) = if ty == t.u64 { (cx.m.c_u64(1), cx.m.c_u64(0)) } else { (cx.u32c(1), cx.u32c(0)) };
            cx.m.select(ty, stored, one, zero)
        }
        _ => {
            let header = cx.m.id();
            let body = cx.m.id();
            let cont = cx.m.id();
            let merge = cx.m.id();
            cx.m.branch(header);
            cx.m.label(header);
            cx.m.loop_merge(merge, cont, crate::spirv::LoopControl::DONT_UNROLL);
            cx.m.branch(body);
            cx.m.label(body);
            let old = cx.m.op(Op::AtomicLoad, ty, &[p, scope, relaxed]);
            let new = match kind {
                AtomicKind::Inc => {
                    let ge = cx.m.bin(Op::UGreaterThanEqual, t.bool, old, v);
                    let one = cx.u32c(1);
                    let inc = cx.op2(Op::IAdd, old, one);
                    let zero = cx.u32c(0);
                    cx.sel(ge, zero, inc)
                }
                AtomicKind::Dec => {
                    let zero = cx.u32c(0);
                    let z = cx.m.bin(Op::IEqual, t.bool, old, zero);
                    let gt = cx.m.bin(Op::UGreaterThan, t.bool, old, v);
                    let c = cx.m.bin(Op::LogicalOr, t.bool, z, gt);
                    let one = cx.u32c(1);
                    let dec = cx.op2(Op::ISub, old, one);
                    cx.sel(c, v, dec)
                }
                AtomicKind::FAdd64 => {
                    // OpFAdd on f64 is correctly rounded to nearest in Vulkan; NaN results as DADD's. Without
                    // Float64: the soft double add (one rounding to nearest, the same bits).
                    let r = if cx.float.float64 {
                        let f64t = cx.m.t_f64();
                        let fa = cx.m.un(Op::Bitcast, f64t, old);
                        let fb = cx.m.un(Op::Bitcast, f64t, v);
                        let r = cx.m.bin(Op::FAdd, f64t, fa, fb);
                        cx.m.un(Op::Bitcast, t.u64, r)
                    } else {
                        let one = cx.m.c_u64(1f64.to_bits());
                        let rn = cx.u32c(0);
                        super::soft_f64::dfma(&mut cx.m, old, one, v, rn)
                    };
                    super::fp64::propagate_nan(cx, r, old, v, None)
                }
                _ => {
                    let a = super::float::ftz(cx, old);
                    let b = super::float::ftz(cx, v);
                    let fa = cx.m.un(Op::Bitcast, t.f32, a);
                    let fb = cx.m.un(Op::Bitcast, t.f32, b);
                    let r = cx.m.bin(Op::FAdd, t.f32, fa, fb);
                    let r = cx.m.un(Op::Bitcast, t.u32, r);
                    let r = super::float::ftz(cx, r);
                    super::float::canonical(cx, r)
                }
            };
            let prev = cx.m.op(Op::AtomicCompareExchange, ty, &[p, scope, relaxed, relaxed, new, old]);
            let done = cx.m.bin(Op::IEqual, t.bool, prev, old);
            cx.m.branch_cond(done, merge, cont);
            cx.m.label(cont);
            cx.m.branch(header);
            cx.m.label(merge);
            prev
        }
    }
}

fn global_atomic(cx: &mut Ctx<'_>, m: &str) -> Result<(), TranslateError> {
    let base = cx.inst.opcode() & 0x1ff;
    let cas = base == 0x1a9;
    let red = m == "RED";
    if m == "ATOM" {
        return super::generic_atomic::lower(cx);
    }
    let (bytes, signed, float) = atomic_type(cx)?;
    let opbits = if red { cx.inst.bits(87, 3) } else { cx.inst.bits(87, 4) };
    let kind = if cas { AtomicKind::Cas } else { atomic_kind(cx, opbits, bytes, signed, float)? };
    if bytes == 8 && !matches!(kind, AtomicKind::Native(_) | AtomicKind::Cas | AtomicKind::FAdd64) {
        return Err(cx.refuse("64-bit INC/DEC not translated yet"));
    }
    if !red && cx.inst.bits(81, 3) != 7 {
        return Err(cx.refuse("atomic predicate output not translated yet"));
    }
    let rb = cx.inst.bits(32, 8) as u8;
    let rc = cx.inst.bits(64, 8) as u8;
    let wide = bytes == 8;
    let v = if wide { cx.read64(Src::Reg(rb))? } else { cx.reg(rb) };
    let newv = match (cas, wide) {
        (false, _) => 0,
        (true, false) => cx.reg(rc),
        (true, true) => cx.read64(Src::Reg(rc))?,
    };
    let addr = global_addr(cx)?;
    let (ok, idx) = window_access(cx, addr, bytes, abi::FAULT_KIND_ATOMIC);
    let t = cx.t;
    let ty = if wide { t.u64 } else { t.u32 };
    let zero = if wide { cx.m.c_u64(0) } else { cx.u32c(0) };
    // The atomic runs only in the window; its result reads 0 otherwise.
    let then = cx.m.id();
    let merge = cx.m.id();
    let before = cx.m.current_block().unwrap_or(0);
    cx.m.selection_merge(merge);
    cx.m.branch_cond(ok, then, merge);
    cx.m.label(then);
    let r = if wide && !cx.float.int64_atomics {
        super::soft_atomic64::global(cx, kind, idx, v, newv)?
    } else {
        let p = if wide {
            window64_word(cx, idx)
        } else {
            window_ptr(cx, idx, 0)
        };
        emit_atomic(cx, kind, ty, p, v, newv, crate::spirv::Scope::Device as u32)
    };
    let then_end = cx.m.current_block().unwrap_or(then);
    cx.m.branch(merge);
    cx.m.label(merge);
    let res = cx.m.op(Op::Phi, ty, &[r, then_end, zero, before]);
    if !red {
        if wide {
            cx.write64(dst_regs(cx), res);
        } else {
            let rd = dst_regs(cx);
            cx.set_reg(rd, res);
        }
    }
    Ok(())
}

fn shared_atomic(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let base = cx.inst.opcode() & 0x1ff;
    let cas = base == 0x18d;
    if cx.inst.opcode() & 0x1000 != 0 {
        return Err(cx.refuse("ATOMS form not translated yet"));
    }
    // Compare-and-swap forms: bit 87 CAST (compare-and-store; the result says whether it stored), bit 88 SPIN.
    let cast = cas && cx.inst.bits(87, 4) == 3;
    if cas && !cast && cx.inst.bits(87, 4) != 0 {
        return Err(cx.refuse("ATOMS.CAST without .SPIN not translated yet"));
    }
    let (bytes, signed, float) = atomic_type(cx)?;
    if bytes == 8 && cast {
        if cx.warp.is_none() && cx.subgroup.is_none() {
            // In the plain structured form lavapipe left 8-lane groups after the first unable to take the
            // lock; the turns form and warps as hardware subgroups (NVIDIA) are tested.
            return Err(cx.refuse("ATOMS.CAST.SPIN.64 is translated only with warps in turns or as subgroups"));
        }
        return shared_cast64(cx);
    }
    if bytes != 4 {
        // Shared memory is a Workgroup array of words: a 64-bit atomic needs a 64-bit view of it
        // (workgroupMemoryExplicitLayout, which lavapipe does not offer) or a lock that may spin.
        return Err(cx.refuse("64-bit shared atomics other than CAST.SPIN not translated yet"));
    }
    let kind = match (cas, cast) {
        (true, true) => AtomicKind::Cast,
        (true, false) => AtomicKind::Cas,
        _ => atomic_kind(cx, cx.inst.bits(87, 4), bytes, signed, float)?,
    };
    let rb = cx.inst.bits(32, 8) as u8;
    let rc = cx.inst.bits(64, 8) as u8;
    let v = cx.reg(rb);
    let newv = if cas { cx.reg(rc) } else { 0 };
    let a = atoms_addr(cx);
    let (ptr, var, len, _) = space(cx, Space::Shared);
    let (ok, idx) = space_check(cx, Space::Shared, Access::Atomic, a, 4, len);
    let t = cx.t;
    let zero = cx.u32c(0);
    let then = cx.m.id();
    let merge = cx.m.id();
    let before = cx.m.current_block().unwrap_or(0);
    cx.m.selection_merge(merge);
    cx.m.branch_cond(ok, then, merge);
    cx.m.label(then);
    let p = space_ptr(cx, ptr, var, idx, 0);
    let r = emit_atomic(cx, kind, t.u32, p, v, newv, crate::spirv::Scope::Workgroup as u32);
    let then_end = cx.m.current_block().unwrap_or(then);
    cx.m.branch(merge);
    cx.m.label(merge);
    let res = cx.m.op(Op::Phi, t.u32, &[r, then_end, zero, before]);
    let rd = dst_regs(cx);
    cx.set_reg(rd, res);
    Ok(())
}

/// `ATOMS.CAST.SPIN.64 Rd, [a], Rb, Rc`: if the doubleword at `a` equals `Rb:Rb+1`, store `Rc:Rc+1`; `Rd:Rd+1`
/// = 1 if it stored, else 0. Shared memory is an array of words, so the compare-and-store runs under a
/// workgroup lock word taken with one exchange, never waited for: a thread that finds the lock held reports
/// "not stored", as a contended `.SPIN` may, and the program's loop (nvcc emits `.SPIN` only inside one)
/// reloads and retries. Every attempt lets one thread through, so the loop progresses even when lanes
/// of one SIMD group contend. The words themselves are read and written with atomic loads and stores;
/// 32-bit atomics on the same words do not take the lock. Only in the turns form (tested there; in the
/// structured form lavapipe's later 8-lane groups never got the lock, cause not found).
fn shared_cast64(cx: &mut Ctx<'_>) -> Result<(), TranslateError> {
    let rb = cx.inst.bits(32, 8) as u8;
    let rc = cx.inst.bits(64, 8) as u8;
    let cmp = cx.read64(Src::Reg(rb))?;
    let new = cx.read64(Src::Reg(rc))?;
    let a = atoms_addr(cx);
    let (ptr, var, len, _) = space(cx, Space::Shared);
    let (ok, idx) = space_check(cx, Space::Shared, Access::Atomic, a, 8, len);
    let t = cx.t;
    let lock = cx.st.shared_lock(&mut cx.m, &t);
    let wg = cx.u32c(crate::spirv::Scope::Workgroup as u32);
    let relaxed = cx.u32c(0);
    // Acquire (0x2) / Release (0x4) on workgroup memory (0x100).
    let acquire = cx.u32c(0x102);
    let release = cx.u32c(0x104);
    let zero = cx.u32c(0);
    let one = cx.u32c(1);
    let f = cx.m.c_bool(false);
    let before = cx.m.current_block().unwrap_or(0);
    let in_range = cx.m.id();
    let merge = cx.m.id();
    cx.m.selection_merge(merge);
    cx.m.branch_cond(ok, in_range, merge);
    cx.m.label(in_range);
    let held = cx.m.op(Op::AtomicExchange, t.u32, &[lock, wg, acquire, one]);
    let got = cx.m.bin(Op::IEqual, t.bool, held, zero);
    let locked = cx.m.id();
    let got_merge = cx.m.id();
    cx.m.selection_merge(got_merge);
    cx.m.branch_cond(got, locked, got_merge);
    cx.m.label(locked);
    let p_lo = space_ptr(cx, ptr, var, idx, 0);
    let p_hi = space_ptr(cx, ptr, var, idx, 1);
    let lo = cx.m.op(Op::AtomicLoad, t.u32, &[p_lo, wg, relaxed]);
    let hi = cx.m.op(Op::AtomicLoad, t.u32, &[p_hi, wg, relaxed]);
    let (cmp_lo, cmp_hi) = split64(cx, cmp);
    let (new_lo, new_hi) = split64(cx, new);
    let e_lo = cx.m.bin(Op::IEqual, t.bool, lo, cmp_lo);
    let e_hi = cx.m.bin(Op::IEqual, t.bool, hi, cmp_hi);
    let eq = cx.m.bin(Op::LogicalAnd, t.bool, e_lo, e_hi);
    let store = cx.begin_if(eq);
    cx.m.op_void(Op::AtomicStore, &[p_lo, wg, relaxed, new_lo]);
    cx.m.op_void(Op::AtomicStore, &[p_hi, wg, relaxed, new_hi]);
    cx.end_if(store);
    cx.m.op_void(Op::AtomicStore, &[lock, wg, release, zero]);
    let locked_end = cx.m.current_block().unwrap_or(locked);
    cx.m.branch(got_merge);
    cx.m.label(got_merge);
    let stored = cx.m.op(Op::Phi, t.bool, &[eq, locked_end, f, in_range]);
    cx.m.branch(merge);
    cx.m.label(merge);
    let stored = cx.m.op(Op::Phi, t.bool, &[stored, got_merge, f, before]);
    let one64 = cx.m.c_u64(1);
    let zero64 = cx.m.c_u64(0);
    let r = cx.m.select(t.u64, stored, one64, zero64);
    cx.write64(dst_regs(cx), r);
    Ok(())
}

/// (low word, high word) of a u64.
fn split64(cx: &mut Ctx<'_>, v: Id) -> (Id, Id) {
    let t = cx.t;
    let lo = cx.m.un(Op::UConvert, t.u32, v);
    let k = cx.m.c_u64(32);
    let h = cx.m.bin(Op::ShiftRightLogical, t.u64, v, k);
    let hi = cx.m.un(Op::UConvert, t.u32, h);
    (lo, hi)
}

/// ATOMS address: `Ra` (bits 31:24) scaled by `.X4`/`.X8`/`.X16` (bits 79:78), plus the signed 24-bit offset.
fn atoms_addr(cx: &mut Ctx<'_>) -> Id {
    let ra = cx.inst.bits(24, 8) as u8;
    let scale = cx.inst.bits(78, 2);
    let mut a = cx.reg(ra);
    if scale != 0 {
        let k = cx.u32c(scale + 1);
        a = cx.op2(Op::ShiftLeftLogical, a, k);
    }
    let off = imm24(cx);
    if off != 0 {
        let k = cx.u32c(off as u32);
        a = cx.op2(Op::IAdd, a, k);
    }
    a
}
