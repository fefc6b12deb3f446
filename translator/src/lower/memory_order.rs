//! Strong global accesses (`LDG/LD/STG/ST .STRONG.{SM,GPU,SYS}` and `.MMIO`): what PTX's `ld.relaxed`,
//! `ld.volatile`, `ld.cg` and their stores become, and what other threads use to publish a value while the
//! reader spins — CUB's decoupled look-back (`DeviceScan`, radix sort, `thrust::inclusive_scan`) polls a tile's
//! 64-bit {status, value} word with `LD.E.64.STRONG.GPU` while the tile's owner writes it with one
//! `ST.E.64.STRONG.GPU`.
//!
//! A plain SPIR-V load of the window may be hoisted out of the spin or served from a non-coherent cache, and
//! the look-back on NVIDIA's Vulkan driver then ran until the launch timed out (H200, 2026-12-02); a 64-bit
//! access split into two 32-bit ones may also tear, pairing a new status with an old value. So each strong
//! access is one relaxed device-scope atomic per naturally aligned 32- or 64-bit part: single-copy atomic as
//! on silicon for sizes up to 8 bytes (a 16-byte access is two 8-byte ones, as PTX treats vector elements
//! apart). Weak and `.CONSTANT` accesses keep plain loads and stores.

use super::Ctx;
use crate::spirv::{Id, MemorySemantics, Op, Scope};

/// Whether the current LD/LDG/ST/STG orders its access (`.STRONG.*` or `.MMIO.*` among its modifiers, as the
/// generated formatter prints them: identical to nvdisasm).
pub(super) fn is_strong(cx: &Ctx<'_>) -> bool {
    let Ok(d) = sassport_gen::decode(cx.inst.word) else {
        return false;
    };
    crate::program::head::Head::of(&d).modifiers().any(|m| m == "STRONG" || m == "MMIO")
}

fn device_relaxed(cx: &mut Ctx<'_>) -> (Id, Id) {
    let scope = cx.u32c(Scope::Device as u32);
    let sem = cx.u32c(MemorySemantics::RELAXED.bits());
    (scope, sem)
}

/// A relaxed atomic load of the 32-bit word at `p` (a window pointer).
pub(super) fn load32(cx: &mut Ctx<'_>, p: Id) -> Id {
    let (scope, sem) = device_relaxed(cx);
    cx.m.op(Op::AtomicLoad, cx.t.u32, &[p, scope, sem])
}

/// A relaxed atomic store of `v` to the 32-bit word at `p`.
pub(super) fn store32(cx: &mut Ctx<'_>, p: Id, v: Id) {
    let (scope, sem) = device_relaxed(cx);
    cx.m.op_void(Op::AtomicStore, &[p, scope, sem, v]);
}

/// A relaxed atomic load of the aligned 64-bit word starting at window word `idx`: (low, high).
pub(super) fn load64(cx: &mut Ctx<'_>, idx: Id) -> (Id, Id) {
    let p = super::memory::window64_word(cx, idx);
    let (scope, sem) = device_relaxed(cx);
    let v = cx.m.op(Op::AtomicLoad, cx.t.u64, &[p, scope, sem]);
    cx.split64(v)
}

/// A relaxed atomic store of (`lo`, `hi`) to the aligned 64-bit word starting at window word `idx`.
pub(super) fn store64(cx: &mut Ctx<'_>, idx: Id, lo: Id, hi: Id) {
    let p = super::memory::window64_word(cx, idx);
    let v = cx.pack64(lo, hi);
    let (scope, sem) = device_relaxed(cx);
    cx.m.op_void(Op::AtomicStore, &[p, scope, sem, v]);
}
