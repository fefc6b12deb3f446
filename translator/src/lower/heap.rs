//! The device heap: `malloc` and `free` (and so `new`/`delete`), the extern functions the CUDA driver provides
//! for kernels, over an arena the runtime places in the window (`abi::heap_word`, `docs/abi.md`).
//!
//! Blocks come in size classes (`abi::heap_block_bytes`); each class has a lock-free free list (a Treiber
//! stack whose 64-bit head carries a change counter against ABA), and fresh blocks come off the arena's top
//! with a compare-exchange on the bump offset. No invocation ever waits for another, so the allocator is safe
//! under any scheduling of the threads of a warp (lavapipe's 8-wide groups, the turns form, real warps). A
//! freed block is reused by the next request of its class, or by a request of a smaller class once the arena
//! is used up; there is no coalescing. What CUDA specifies holds: pointers are 16-byte aligned, a request the
//! heap cannot serve returns null, `free(nullptr)` does nothing. `malloc(0)` returns a distinct block.
//!
//! ABI: `void *malloc(size_t)` takes `R4:R5` and returns in `R4:R5`; `void free(void *)` takes `R4:R5`.
//!
//! Without `Int64Atomics` the heads are updated with 32-bit atomics and pops take a per-list lock instead
//! ([`soft_lists`]): the one place an invocation may wait for another.

mod soft_lists;

use super::Ctx;
use crate::abi::{self, heap_word};
use crate::spirv::{FunctionControl, Id, LoopControl, MemorySemantics, Module, Op, Scope, StorageClass, Type};
use crate::state::window::Window;
use crate::state::Types;

/// `FindUMsb` and `UMax` of GLSL.std.450.
const GLSL_FIND_UMSB: u32 = 75;
const GLSL_UMAX: u32 = 41;

/// Ids a heap function's body needs.
#[derive(Clone, Copy)]
struct Env {
    t: Types,
    /// Launch values (binding 0) and the two views of the window (binding 33).
    lv: Id,
    win: Window,
    /// The 64-bit view (var 0, unused, when not `wide`).
    win64: Window,
    storage_u64: Id,
    fn_u64: Id,
    /// 64-bit atomics on the free-list heads (`Int64Atomics`); else [`soft_lists`].
    wide: bool,
    /// The device has a loop limit (lavapipe): [`soft_lists`] waits for a held lock without iterating.
    limited: bool,
}

/// Emits (once) `u64 heap_malloc(u64 size)`: the guest address of a fresh block of at least `size` bytes, or 0.
pub(super) fn malloc_fn(cx: &mut Ctx<'_>) -> Id {
    let env = env(cx);
    cx.m.helper("heap_malloc", move |m| build_malloc(m, env))
}

/// Emits (once) `bool heap_free(u64 pointer)`: gives the block back; false when `pointer` is neither null nor
/// a block the heap handed out and not yet freed (then nothing changes).
pub(super) fn free_fn(cx: &mut Ctx<'_>) -> Id {
    let env = env(cx);
    cx.m.helper("heap_free", move |m| build_free(m, env))
}

fn env(cx: &mut Ctx<'_>) -> Env {
    let t = cx.t;
    let lv = cx.st.uniform(&mut cx.m, 0, 1);
    let win = cx.st.window_form(&mut cx.m, &t);
    let wide = cx.float.int64_atomics;
    // The 64-bit view declares `Int64Atomics`; `soft_lists` never needs it.
    let win64 = if wide { super::memory::window64_form(cx) } else { Window { var: 0, chunks: win.chunks, view_log2: 3 } };
    let storage_u64 = cx.m.t_ptr(StorageClass::StorageBuffer, t.u64);
    let fn_u64 = cx.m.t_ptr(StorageClass::Function, t.u64);
    Env { t, lv, win, win64, storage_u64, fn_u64, wide, limited: cx.loops.limit.is_some() }
}

fn device(m: &mut Module) -> Id {
    m.c_u32(Scope::Device as u32)
}

/// The heap's atomics are relaxed, as every atomic the translator emits: lavapipe loses invocations of a
/// divergent retry loop whose atomics carry acquire/release semantics, or that holds an `OpMemoryBarrier`
/// (seen with more than 8 threads a workgroup). A pop reads a block's link after the head that published it;
/// drivers that reorder relaxed device-scope accesses to different words could give it a stale link.
fn semantics(m: &mut Module, s: MemorySemantics) -> Id {
    let _ = s;
    m.c_u32(0)
}

impl Env {
    fn launch_word(&self, m: &mut Module, w: u32) -> Id {
        let zero = m.c_u32(0);
        let v = m.c_u32(w / 4);
        let c = m.c_u32(w % 4);
        let p = m.access(self.t.uniform_u32, self.lv, &[zero, v, c]);
        m.load(self.t.u32, p)
    }

    fn launch_u64(&self, m: &mut Module, w: u32) -> Id {
        let lo = self.launch_word(m, w);
        let hi = self.launch_word(m, w + 1);
        pack(m, &self.t, lo, hi)
    }

    fn word(&self, m: &mut Module, index: Id) -> Id {
        self.win.word32(m, &self.t, index)
    }

    /// The 64-bit word at u32 word index `index` (even).
    fn word64(&self, m: &mut Module, index: Id) -> Id {
        let zero = m.c_u32(0);
        let one = m.c_u32(1);
        let i = m.bin(Op::ShiftRightLogical, self.t.u32, index, one);
        if self.win64.chunks.is_some() {
            let i = self.win64.widen(m, &self.t, i);
            return self.win64.element(m, &self.t, self.storage_u64, i, 3);
        }
        m.access(self.storage_u64, self.win64.var, &[zero, i])
    }

    fn atomic_load(&self, m: &mut Module, ty: Id, p: Id) -> Id {
        let scope = device(m);
        let acq = semantics(m, MemorySemantics::ACQUIRE);
        m.op(Op::AtomicLoad, ty, &[p, scope, acq])
    }

    fn atomic_store(&self, m: &mut Module, p: Id, v: Id) {
        let scope = device(m);
        let rel = semantics(m, MemorySemantics::RELEASE);
        m.op_void(Op::AtomicStore, &[p, scope, rel, v]);
    }

    /// Compare-exchange: stores `new` when `*p == expected`; returns the old value.
    fn cas(&self, m: &mut Module, ty: Id, p: Id, new: Id, expected: Id) -> Id {
        let scope = device(m);
        let ar = semantics(m, MemorySemantics::ACQUIRE_RELEASE);
        let acq = semantics(m, MemorySemantics::ACQUIRE);
        m.op(Op::AtomicCompareExchange, ty, &[p, scope, ar, acq, new, expected])
    }

    /// The header's word index in binding 33.
    fn header(&self, m: &mut Module) -> Id {
        m.c_u32(abi::HEAP_HEADER_WORD)
    }

    /// Pointer to the 64-bit free-list head of `class` (a u32 value).
    fn list(&self, m: &mut Module, header: Id, class: Id) -> Id {
        let at = list_word(m, &self.t, header, class);
        self.word64(m, at)
    }

    /// Word index of the header of the block with link `link` (`offset / 16 + 1`).
    fn block_word(&self, m: &mut Module, arena: Id, link: Id) -> Id {
        let one = m.c_u32(1);
        let four = m.c_u32(4);
        let l = m.bin(Op::ISub, self.t.u32, link, one);
        let w = m.bin(Op::IMul, self.t.u32, l, four);
        m.bin(Op::IAdd, self.t.u32, arena, w)
    }
}

/// Word index of the free-list head slot of `class` (even).
fn list_word(m: &mut Module, t: &Types, header: Id, class: Id) -> Id {
    let base = m.c_u32(heap_word::FREE_LISTS);
    let at = m.bin(Op::IAdd, t.u32, header, base);
    let two = m.c_u32(2);
    let off = m.bin(Op::IMul, t.u32, class, two);
    m.bin(Op::IAdd, t.u32, at, off)
}

fn pack(m: &mut Module, t: &Types, lo: Id, hi: Id) -> Id {
    let l = m.un(Op::UConvert, t.u64, lo);
    let h = m.un(Op::UConvert, t.u64, hi);
    let k = m.c_u32(32);
    let h = m.bin(Op::ShiftLeftLogical, t.u64, h, k);
    m.bin(Op::BitwiseOr, t.u64, l, h)
}

fn split(m: &mut Module, t: &Types, v: Id) -> (Id, Id) {
    let lo = m.un(Op::UConvert, t.u32, v);
    let k = m.c_u32(32);
    let h = m.bin(Op::ShiftRightLogical, t.u64, v, k);
    (lo, m.un(Op::UConvert, t.u32, h))
}

/// A loop whose exit test sits in its body and whose continue block only branches back (the form lavapipe's
/// 8-wide groups run without stalling, as in `memory::emit_atomic`). `body` emits one attempt and returns
/// the bool "done"; it may branch no further.
fn retry_loop(m: &mut Module, body: impl FnOnce(&mut Module) -> Id) {
    let header = m.id();
    let inner = m.id();
    let cont = m.id();
    let merge = m.id();
    m.branch(header);
    m.label(header);
    m.loop_merge(merge, cont, LoopControl::DONT_UNROLL);
    m.branch(inner);
    m.label(inner);
    let done = body(m);
    m.branch_cond(done, merge, cont);
    m.label(cont);
    m.branch(header);
    m.label(merge);
}

/// Emits `if (cond) { body }` (no value out; `body` stores what it finds into variables).
fn when(m: &mut Module, cond: Id, body: impl FnOnce(&mut Module)) {
    let then = m.id();
    let merge = m.id();
    m.selection_merge(merge);
    m.branch_cond(cond, then, merge);
    m.label(then);
    body(m);
    m.branch(merge);
    m.label(merge);
}

/// Variables one allocation attempt reports into.
#[derive(Clone, Copy)]
struct Attempt {
    /// u32: the block's link (0: none yet).
    link: Id,
    /// bool: the attempt took a block; bool: the source is empty (go on to the next).
    got: Id,
    advance: Id,
}

/// One attempt to pop a block off the free list at `list` (a compare-exchange that may lose a race, then the
/// caller tries again).
fn try_pop(m: &mut Module, e: &Env, arena: Id, list: Id, a: Attempt) {
    let t = e.t;
    let head = e.atomic_load(m, t.u64, list);
    let (link, count) = split(m, &t, head);
    let zero = m.c_u32(0);
    let empty = m.bin(Op::IEqual, t.bool, link, zero);
    m.store(a.advance, empty);
    let ne = m.un(Op::LogicalNot, t.bool, empty);
    when(m, ne, |m| {
        // The link of the first block; a block another invocation took meanwhile gives a stale value, and
        // then the head's counter has moved and the exchange fails.
        let one = m.c_u32(1);
        let bw = e.block_word(m, arena, link);
        let bw1 = m.bin(Op::IAdd, t.u32, bw, one);
        let pn = e.word(m, bw1);
        let next = e.atomic_load(m, t.u32, pn);
        let count1 = m.bin(Op::IAdd, t.u32, count, one);
        let new = pack(m, &t, next, count1);
        let prev = e.cas(m, t.u64, list, new, head);
        let took = m.bin(Op::IEqual, t.bool, prev, head);
        m.store(a.got, took);
        let got = m.select(t.u32, took, link, zero);
        m.store(a.link, got);
    });
}

/// One attempt to take `bytes` off the arena's top (`advance` when they do not fit).
fn try_bump(m: &mut Module, e: &Env, header: Id, cap: Id, bytes: Id, a: Attempt) {
    let t = e.t;
    let k = m.c_u32(heap_word::BUMP);
    let i = m.bin(Op::IAdd, t.u32, header, k);
    let pb = e.word(m, i);
    let used = e.atomic_load(m, t.u32, pb);
    // used + bytes <= cap, without overflow.
    let inside = m.bin(Op::ULessThanEqual, t.bool, used, cap);
    let left = m.bin(Op::ISub, t.u32, cap, used);
    let fits = m.bin(Op::ULessThanEqual, t.bool, bytes, left);
    let fits = m.bin(Op::LogicalAnd, t.bool, fits, inside);
    let full = m.un(Op::LogicalNot, t.bool, fits);
    m.store(a.advance, full);
    when(m, fits, |m| {
        let new = m.bin(Op::IAdd, t.u32, used, bytes);
        let prev = e.cas(m, t.u32, pb, new, used);
        let took = m.bin(Op::IEqual, t.bool, prev, used);
        m.store(a.got, took);
        let four = m.c_u32(4);
        let one = m.c_u32(1);
        let units = m.bin(Op::ShiftRightLogical, t.u32, used, four);
        let link = m.bin(Op::IAdd, t.u32, units, one);
        let zero = m.c_u32(0);
        let got = m.select(t.u32, took, link, zero);
        m.store(a.link, got);
    });
}

fn build_malloc(m: &mut Module, e: Env) -> Id {
    let t = e.t;
    let fty = m.ty(Type::Function(t.u64, [t.u64, 0, 0, 0]));
    let f = m.begin_function(t.u64, fty, FunctionControl::NONE);
    let size = m.param(t.u64);
    let entry = m.id();
    m.label(entry);
    let zero = m.c_u32(0);
    let zero64 = m.c_u64(0);
    let fls = m.c_bool(false);
    let result = m.local_var(e.fn_u64, Some(zero64));
    let stage_var = m.local_var(t.fn_u32, Some(zero));
    let class_var = m.local_var(t.fn_u32, Some(zero));
    let a = Attempt {
        link: m.local_var(t.fn_u32, Some(zero)),
        got: m.local_var(t.fn_bool, Some(fls)),
        advance: m.local_var(t.fn_bool, Some(fls)),
    };
    let header = e.header(m);
    let cap = {
        let k = m.c_u32(heap_word::CAPACITY);
        let i = m.bin(Op::IAdd, t.u32, header, k);
        let p = e.word(m, i);
        m.load(t.u32, p)
    };
    let arena = {
        let k = m.c_u32(heap_word::ARENA);
        let i = m.bin(Op::IAdd, t.u32, header, k);
        let p = e.word(m, i);
        m.load(t.u32, p)
    };
    // Requests the arena could never hold fail at once (also keeps the sums below in 32 bits).
    let cap64 = m.un(Op::UConvert, t.u64, cap);
    let hdr = m.c_u64(u64::from(abi::HEAP_BLOCK_HEADER_BYTES));
    let room = m.bin(Op::ISub, t.u64, cap64, hdr);
    let fits = m.bin(Op::ULessThanEqual, t.bool, size, room);
    let some = m.bin(Op::UGreaterThanEqual, t.bool, cap64, hdr);
    let ok = m.bin(Op::LogicalAnd, t.bool, fits, some);
    when(m, ok, |m| {
        let s32 = m.un(Op::UConvert, t.u32, size);
        let add = m.c_u32(abi::HEAP_BLOCK_HEADER_BYTES + 15);
        let total = m.bin(Op::IAdd, t.u32, s32, add);
        let mask = m.c_u32(!15);
        let total = m.bin(Op::BitwiseAnd, t.u32, total, mask);
        // malloc(0) takes the smallest block too.
        let smallest = m.c_u32(32);
        let total = m.ext(t.u32, GLSL_UMAX, &[total, smallest]);
        let class = class_of(m, &t, total);
        let bytes = block_bytes(m, &t, class);
        // Stage 0: the class's free list; 1: the arena's top; 2..: the lists of the larger classes. One
        // attempt an iteration; a lost race tries the same stage again.
        retry_loop(m, |m| {
            m.store(a.got, fls);
            let stage = m.load(t.u32, stage_var);
            let one = m.c_u32(1);
            let is_bump = m.bin(Op::IEqual, t.bool, stage, one);
            let first = m.bin(Op::IEqual, t.bool, stage, zero);
            let later = m.bin(Op::IAdd, t.u32, class, stage);
            let later = m.bin(Op::ISub, t.u32, later, one);
            let c = m.select(t.u32, first, class, later);
            let nclasses = m.c_u32(abi::HEAP_CLASSES);
            let in_range = m.bin(Op::ULessThan, t.bool, c, nclasses);
            let not_bump = m.un(Op::LogicalNot, t.bool, is_bump);
            let listed = m.bin(Op::LogicalAnd, t.bool, not_bump, in_range);
            when(m, is_bump, |m| try_bump(m, &e, header, cap, bytes, a));
            when(m, listed, |m| {
                if e.wide {
                    let list = e.list(m, header, c);
                    try_pop(m, &e, arena, list, a);
                } else {
                    let slot = soft_lists::slot(m, &e, header, c);
                    soft_lists::try_pop(m, &e, arena, slot, a);
                }
            });
            let got = m.load(t.bool, a.got);
            let taken_class = m.select(t.u32, is_bump, class, c);
            let kept = m.load(t.u32, class_var);
            let cls = m.select(t.u32, got, taken_class, kept);
            m.store(class_var, cls);
            let adv = m.load(t.bool, a.advance);
            let stage1 = m.bin(Op::IAdd, t.u32, stage, one);
            let next = m.select(t.u32, adv, stage1, stage);
            m.store(stage_var, next);
            let tried = m.bin(Op::LogicalOr, t.bool, is_bump, in_range);
            let give_up = m.un(Op::LogicalNot, t.bool, tried);
            m.bin(Op::LogicalOr, t.bool, got, give_up)
        });
        let link = m.load(t.u32, a.link);
        let got = m.bin(Op::INotEqual, t.bool, link, zero);
        when(m, got, |m| {
            let c = m.load(t.u32, class_var);
            let used = m.c_u32(abi::HEAP_BLOCK_USED);
            let state = m.bin(Op::BitwiseOr, t.u32, used, c);
            let bw = e.block_word(m, arena, link);
            let ps = e.word(m, bw);
            e.atomic_store(m, ps, state);
            // Data address: window_base + 4 * (block word) + 16.
            let base = e.launch_u64(m, abi::launch_word::WINDOW_BASE);
            let bw64 = m.un(Op::UConvert, t.u64, bw);
            let two = m.c_u32(2);
            let off = m.bin(Op::ShiftLeftLogical, t.u64, bw64, two);
            let addr = m.bin(Op::IAdd, t.u64, base, off);
            let addr = m.bin(Op::IAdd, t.u64, addr, hdr);
            m.store(result, addr);
        });
    });
    let r = m.load(t.u64, result);
    m.op_void(Op::ReturnValue, &[r]);
    m.end_function();
    f
}

/// `abi::heap_class` of `total` (a multiple of 16, at least 32).
fn class_of(m: &mut Module, t: &Types, total: Id) -> Id {
    let c64 = m.c_u32(64);
    let small = m.bin(Op::ULessThanEqual, t.bool, total, c64);
    // Small: total / 16 - 2 (32 -> 0, 48 -> 1, 64 -> 2).
    let four = m.c_u32(4);
    let two = m.c_u32(2);
    let q16 = m.bin(Op::ShiftRightLogical, t.u32, total, four);
    let small_c = m.bin(Op::ISub, t.u32, q16, two);
    // Large: k = msb(total - 1); q = ceil((total - 2^k) / 2^(k - 2)); 3 + (k - 6) * 4 + q - 1.
    let one = m.c_u32(1);
    let tm1 = m.bin(Op::ISub, t.u32, total, one);
    let k = m.ext(t.u32, GLSL_FIND_UMSB, &[tm1]);
    let p = m.bin(Op::ShiftLeftLogical, t.u32, one, k);
    let k2 = m.bin(Op::ISub, t.u32, k, two);
    let over = m.bin(Op::ISub, t.u32, total, p);
    let step_m1 = {
        let s = m.bin(Op::ShiftLeftLogical, t.u32, one, k2);
        m.bin(Op::ISub, t.u32, s, one)
    };
    let num = m.bin(Op::IAdd, t.u32, over, step_m1);
    let q = m.bin(Op::ShiftRightLogical, t.u32, num, k2);
    let six = m.c_u32(6);
    let kk = m.bin(Op::ISub, t.u32, k, six);
    let kk = m.bin(Op::IMul, t.u32, kk, four);
    let base = m.c_u32(2);
    let big = m.bin(Op::IAdd, t.u32, kk, base);
    let big = m.bin(Op::IAdd, t.u32, big, q);
    m.select(t.u32, small, small_c, big)
}

/// `abi::heap_block_bytes` of `class` (below `HEAP_CLASSES`).
fn block_bytes(m: &mut Module, t: &Types, class: Id) -> Id {
    let three = m.c_u32(3);
    let small = m.bin(Op::ULessThan, t.bool, class, three);
    let sixteen = m.c_u32(16);
    let c32 = m.c_u32(32);
    let s = m.bin(Op::IMul, t.u32, class, sixteen);
    let small_b = m.bin(Op::IAdd, t.u32, s, c32);
    let safe = m.select(t.u32, small, three, class);
    let d = m.bin(Op::ISub, t.u32, safe, three);
    let two = m.c_u32(2);
    let six = m.c_u32(6);
    let one = m.c_u32(1);
    let hi = m.bin(Op::ShiftRightLogical, t.u32, d, two);
    let k = m.bin(Op::IAdd, t.u32, hi, six);
    let q = m.bin(Op::BitwiseAnd, t.u32, d, three);
    let q = m.bin(Op::IAdd, t.u32, q, one);
    let p = m.bin(Op::ShiftLeftLogical, t.u32, one, k);
    let k2 = m.bin(Op::ISub, t.u32, k, two);
    let step = m.bin(Op::ShiftLeftLogical, t.u32, one, k2);
    let qs = m.bin(Op::IMul, t.u32, q, step);
    let big = m.bin(Op::IAdd, t.u32, p, qs);
    m.select(t.u32, small, small_b, big)
}

/// The body of one push attempt of the block with link `link` (its link word at `pn`) onto the 64-bit head at
/// `list`; returns "done" (the exchange held).
fn push_attempt(m: &mut Module, e: &Env, list: Id, pn: Id, link: Id) -> Id {
    let t = e.t;
    let head = e.atomic_load(m, t.u64, list);
    let (first, count) = split(m, &t, head);
    e.atomic_store(m, pn, first);
    let one = m.c_u32(1);
    let count1 = m.bin(Op::IAdd, t.u32, count, one);
    let new = pack(m, &t, link, count1);
    let prev = e.cas(m, t.u64, list, new, head);
    m.bin(Op::IEqual, t.bool, prev, head)
}

fn build_free(m: &mut Module, e: Env) -> Id {
    let t = e.t;
    let fty = m.ty(Type::Function(t.bool, [t.u64, 0, 0, 0]));
    let f = m.begin_function(t.bool, fty, FunctionControl::NONE);
    let ptr = m.param(t.u64);
    let entry = m.id();
    m.label(entry);
    let tru = m.c_bool(true);
    let ok_var = m.local_var(t.fn_bool, Some(tru));
    let zero64 = m.c_u64(0);
    let null = m.bin(Op::IEqual, t.bool, ptr, zero64);
    let work = m.id();
    let done = m.id();
    m.selection_merge(done);
    m.branch_cond(null, done, work);
    m.label(work);
    let header = e.header(m);
    let k = m.c_u32(heap_word::ARENA);
    let i = m.bin(Op::IAdd, t.u32, header, k);
    let pa = e.word(m, i);
    let arena = m.load(t.u32, pa);
    let k = m.c_u32(heap_word::BUMP);
    let i = m.bin(Op::IAdd, t.u32, header, k);
    let pb = e.word(m, i);
    let used = e.atomic_load(m, t.u32, pb);
    // Offset of the block header from the arena: pointer - (window_base + 4 * arena) - 16.
    let base = e.launch_u64(m, abi::launch_word::WINDOW_BASE);
    let a64 = m.un(Op::UConvert, t.u64, arena);
    let two = m.c_u32(2);
    let a64 = m.bin(Op::ShiftLeftLogical, t.u64, a64, two);
    let start = m.bin(Op::IAdd, t.u64, base, a64);
    let hdr = m.c_u64(u64::from(abi::HEAP_BLOCK_HEADER_BYTES));
    let start = m.bin(Op::IAdd, t.u64, start, hdr);
    let off = m.bin(Op::ISub, t.u64, ptr, start);
    let above = m.bin(Op::UGreaterThanEqual, t.bool, ptr, start);
    let used64 = m.un(Op::UConvert, t.u64, used);
    let below = m.bin(Op::ULessThan, t.bool, off, used64);
    let fifteen = m.c_u64(15);
    let low = m.bin(Op::BitwiseAnd, t.u64, off, fifteen);
    let aligned = m.bin(Op::IEqual, t.bool, low, zero64);
    let inside = m.bin(Op::LogicalAnd, t.bool, above, below);
    let inside = m.bin(Op::LogicalAnd, t.bool, inside, aligned);
    let check = m.id();
    let bad = m.id();
    let after = m.id();
    m.selection_merge(after);
    m.branch_cond(inside, check, bad);
    m.label(check);
    let off32 = m.un(Op::UConvert, t.u32, off);
    let four = m.c_u32(4);
    let one = m.c_u32(1);
    let units = m.bin(Op::ShiftRightLogical, t.u32, off32, four);
    let link = m.bin(Op::IAdd, t.u32, units, one);
    let bw = e.block_word(m, arena, link);
    let ps = e.word(m, bw);
    let state = e.atomic_load(m, t.u32, ps);
    let tag_mask = m.c_u32(0xffff_ff00);
    let tag = m.bin(Op::BitwiseAnd, t.u32, state, tag_mask);
    let used_tag = m.c_u32(abi::HEAP_BLOCK_USED);
    let is_used = m.bin(Op::IEqual, t.bool, tag, used_tag);
    let ff = m.c_u32(0xff);
    let class = m.bin(Op::BitwiseAnd, t.u32, state, ff);
    let nclasses = m.c_u32(abi::HEAP_CLASSES);
    let class_ok = m.bin(Op::ULessThan, t.bool, class, nclasses);
    let valid = m.bin(Op::LogicalAnd, t.bool, is_used, class_ok);
    let free_tag = m.c_u32(abi::HEAP_BLOCK_FREE);
    let freed = m.bin(Op::BitwiseOr, t.u32, free_tag, class);
    let give = m.id();
    let check_end = m.id();
    m.selection_merge(check_end);
    m.branch_cond(valid, give, check_end);
    m.label(give);
    // Claim the block: only one free of it succeeds.
    let prev = e.cas(m, t.u32, ps, freed, state);
    let claimed = m.bin(Op::IEqual, t.bool, prev, state);
    let push_blk = m.id();
    let push_end = m.id();
    m.selection_merge(push_end);
    m.branch_cond(claimed, push_blk, push_end);
    m.label(push_blk);
    let bw1 = m.bin(Op::IAdd, t.u32, bw, one);
    let pn = e.word(m, bw1);
    if e.wide {
        let list = e.list(m, header, class);
        retry_loop(m, |m| push_attempt(m, &e, list, pn, link));
    } else {
        let (p_link, _) = soft_lists::slot(m, &e, header, class);
        retry_loop(m, |m| soft_lists::push_attempt(m, &e, p_link, pn, link));
    }
    m.branch(push_end);
    m.label(push_end);
    m.branch(check_end);
    m.label(check_end);
    let good = m.op(Op::Phi, t.bool, &[claimed, push_end, valid, check]);
    m.store(ok_var, good);
    m.branch(after);
    m.label(bad);
    let fls = m.c_bool(false);
    m.store(ok_var, fls);
    m.branch(after);
    m.label(after);
    m.branch(done);
    m.label(done);
    let r = m.load(t.bool, ok_var);
    m.op_void(Op::ReturnValue, &[r]);
    m.end_function();
    f
}
