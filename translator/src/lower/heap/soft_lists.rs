//! The free lists on devices without `Int64Atomics` (issue 23; Apple GPUs through MoltenVK, many mobile ones):
//! each class's 8-byte head slot holds the first block's link in its low word and a pop lock in its high word
//! (where the 64-bit form keeps its ABA counter), both updated with 32-bit atomics only.
//!
//! Why this is exact: a push is a 32-bit compare-exchange of the link word, as in any Treiber stack; pushes
//! alone suffer no ABA (a push only needs the head it links to to still be the head). ABA needs a pop of the
//! head between a popper's read and its exchange: pops take the list's lock, so only one runs at a time, and
//! while it holds the lock the head only moves to blocks pushed after its read (a block is pushed only after
//! `free` claimed it, which needs it popped or cut off the arena's top first), never back to the block it
//! read. So the exchange succeeds only while that block is still the head and its link still the one read.
//!
//! Loop shape (SIMT-safe, as `lower::soft_atomic64`): a pop that takes the lock finishes and frees it in the
//! same attempt, so no invocation waits while holding a lock, and one that loses retries in the allocator's
//! attempt loop (`heap::retry_loop`). A list seen empty is passed over without the lock. The lock is taken
//! with acquire and freed with release semantics (relaxed on lavapipe, [`lock_cas`]), so a pop reads the
//! head and links that the previous pop left; the link a push wrote before its exchange is read as in the
//! 64-bit form (relaxed: `docs/abi.md`).

use super::{when, Attempt, Env};
use crate::spirv::{Id, Module, Op, Scope};

/// Pointers to the link word and the lock word of `class`'s head slot.
pub(super) fn slot(m: &mut Module, e: &Env, header: Id, class: Id) -> (Id, Id) {
    let t = e.t;
    let at = super::list_word(m, &t, header, class);
    let one = m.c_u32(1);
    let at1 = m.bin(Op::IAdd, t.u32, at, one);
    (e.word(m, at), e.word(m, at1))
}

/// One attempt to pop a block off the list whose head slot is `(p_link, p_lock)`: `advance` when the list is
/// empty; otherwise, when the lock is free, the pop under it (`got` when its exchange held).
pub(super) fn try_pop(m: &mut Module, e: &Env, arena: Id, (p_link, p_lock): (Id, Id), a: Attempt) {
    let t = e.t;
    let zero = m.c_u32(0);
    let one = m.c_u32(1);
    let seen = e.atomic_load(m, t.u32, p_link);
    let empty = m.bin(Op::IEqual, t.bool, seen, zero);
    m.store(a.advance, empty);
    let ne = m.un(Op::LogicalNot, t.bool, empty);
    when(m, ne, |m| {
        if e.limited {
            wait_a_while(m, e, p_lock);
        }
        let prev = lock_cas(m, e, p_lock, one, zero, ACQUIRE);
        let locked = m.bin(Op::IEqual, t.bool, prev, zero);
        when(m, locked, |m| {
            // Read again under the lock: pushes may have moved the head since `seen` (never to empty, as only
            // pops empty a list, but the test costs nothing).
            let link = e.atomic_load(m, t.u32, p_link);
            let some = m.bin(Op::INotEqual, t.bool, link, zero);
            when(m, some, |m| {
                let one = m.c_u32(1);
                let bw = e.block_word(m, arena, link);
                let bw1 = m.bin(Op::IAdd, t.u32, bw, one);
                let pn = e.word(m, bw1);
                let next = e.atomic_load(m, t.u32, pn);
                let was = e.cas(m, t.u32, p_link, next, link);
                let took = m.bin(Op::IEqual, t.bool, was, link);
                m.store(a.got, took);
                let zero = m.c_u32(0);
                let got = m.select(t.u32, took, link, zero);
                m.store(a.link, got);
            });
            let zero = m.c_u32(0);
            let one = m.c_u32(1);
            lock_cas(m, e, p_lock, zero, one, RELEASE);
        });
    });
}

/// Acquire (0x2) and release (0x4) on storage-buffer memory (UniformMemory, 0x40): taking and freeing the lock.
const ACQUIRE: u32 = 0x42;
const RELEASE: u32 = 0x44;

/// A compare-exchange of the lock word (`new` when it holds `expected`) with `semantics` when it holds; on a
/// device with a loop limit (lavapipe) relaxed, as all the heap's atomics (`super::semantics`: there
/// acquire/release in a divergent retry loop lose invocations; x86's `lock cmpxchg` is a full fence anyway).
fn lock_cas(m: &mut Module, e: &Env, p: Id, new: Id, expected: Id, semantics: u32) -> Id {
    let t = e.t;
    let dev = m.c_u32(Scope::Device as u32);
    let eq = m.c_u32(if e.limited { 0 } else { semantics });
    let relaxed = m.c_u32(0);
    m.op(Op::AtomicCompareExchange, t.u32, &[p, dev, eq, relaxed, new, expected])
}

/// Reads of the lock while it is held, written out ([`WAIT_READS`] `if`s, no loop), before a try on a device
/// with a loop limit (lavapipe): there every attempt spends the shared 65,535-iteration budget of the
/// invocation's SIMD group (docs/device-quirks.md), and a holder is a CPU thread the OS may preempt between
/// taking and freeing the lock; a budget spent would end the allocator's loop with a null pointer. As
/// `lower::soft_atomic64`'s wait.
fn wait_a_while(m: &mut Module, e: &Env, p_lock: Id) {
    let t = e.t;
    let zero = m.c_u32(0);
    let dev = m.c_u32(Scope::Device as u32);
    // Read-modify-writes, not loads: Mesa may merge atomic loads of one word (`control::guard`).
    let mut w = m.op(Op::AtomicOr, t.u32, &[p_lock, dev, zero, zero]);
    for _ in 0..WAIT_READS {
        let before = m.current_block().unwrap_or(0);
        let held = m.bin(Op::INotEqual, t.bool, w, zero);
        let then = m.id();
        let merge = m.id();
        m.selection_merge(merge);
        m.branch_cond(held, then, merge);
        m.label(then);
        let again = m.op(Op::AtomicOr, t.u32, &[p_lock, dev, zero, zero]);
        m.branch(merge);
        m.label(merge);
        w = m.op(Op::Phi, t.u32, &[again, then, w, before]);
    }
}

/// See [`wait_a_while`].
const WAIT_READS: u32 = 16;

/// The body of one push attempt of the block with link `link` (its link word at `pn`) onto the list whose link
/// word is `p_link`; returns "done" (the exchange held).
pub(super) fn push_attempt(m: &mut Module, e: &Env, p_link: Id, pn: Id, link: Id) -> Id {
    let t = e.t;
    let first = e.atomic_load(m, t.u32, p_link);
    e.atomic_store(m, pn, first);
    let prev = e.cas(m, t.u32, p_link, link, first);
    m.bin(Op::IEqual, t.bool, prev, first)
}
