//! 64-bit global atomics on devices without `Int64Atomics` (issue 23; Apple GPUs through MoltenVK, many
//! mobile ones): ATOMG/RED/generic ATOM `.64` ADD, MIN/MAX (signed and unsigned), AND, OR, XOR, EXCH, CAS and
//! the f64 ADD, each as a critical section on the two 32-bit words, under a lock word.
//!
//! Why a lock: no 32-bit operation updates a doubleword at once, and doing the halves apart is exact only
//! for the final memory (an ADD's carry, a bitwise op's halves): the old values a returning atomic gives
//! would then mix two moments, which no native execution produces. Under the lock every operation reads and
//! writes both words between one acquire and one release, so operations on one address are totally ordered
//! and each returns the doubleword it replaced, as natively.
//!
//! The lock: one of [`abi::ATOMIC64_LOCK_WORDS`] words in the abort block after the window (zeroed by the
//! runtime), picked by the address's 8-byte index; a compare-exchange 0 -> 1 takes it (acquire semantics), a
//! compare-exchange 1 -> 0 frees it (release; relaxed on lavapipe, see [`lock_semantics`]). Loop shape
//! (SIMT-safe): `do { if (try_lock) { op; unlock; done = true } } while (!done)`: whoever takes the lock
//! finishes and frees it in the same iteration, so no invocation waits while holding a lock, and lanes of one
//! SIMD group that lose wait only for one that won (which never needs them). Every iteration polls the abort
//! word (`control::guard`). The data words are read and written with relaxed device-scope atomic
//! read-modify-writes (an atomic load may become a plain one that Mesa merges: `control::guard`), so they are
//! coherent; the lock orders them among critical sections.
//!
//! Not covered (as with any lock): a 32-bit atomic or plain store on a half of a doubleword that 64-bit
//! atomics update concurrently does not take the lock (CUDA programs do not mix widths on one address).

use super::memory::AtomicKind;
use super::Ctx;
use crate::abi;
use crate::error::TranslateError;
use crate::spirv::{Id, LoopControl, Op, Scope, StorageClass};

/// Acquire (0x2) and release (0x4) on storage-buffer memory (UniformMemory, 0x40): the lock's compare-exchanges.
const ACQUIRE: u32 = 0x42;
const RELEASE: u32 = 0x44;

/// The semantics of taking and freeing the lock. On lavapipe (the device with the loop-limit quirk: a CPU) the
/// lock's atomics are relaxed, as the heap's are (`lower::heap`: lavapipe loses invocations of a divergent
/// retry loop whose atomics carry acquire/release semantics or that holds an `OpMemoryBarrier`): here, with
/// either, a taken lock was never seen free again and every later taker spun to the loop limit
/// (atomics_global_owned, _contended); relaxed, both match silicon. Relaxed orders enough there: LLVM's x86
/// compare-exchange is a `lock cmpxchg`, a full fence under x86's TSO. Elsewhere: acquire and release.
fn lock_semantics(cx: &Ctx<'_>) -> (u32, u32) {
    if cx.loops.limit.is_some() {
        (0, 0)
    } else {
        (ACQUIRE, RELEASE)
    }
}

/// `kind` on the doubleword at window word `idx` (even; the caller checked range and alignment) with the u64
/// operand `v` (CAS: the comparand) and `newv` (CAS's new value); returns the old doubleword.
pub(super) fn global(cx: &mut Ctx<'_>, kind: AtomicKind, idx: Id, v: Id, newv: Id) -> Result<Id, TranslateError> {
    if !matches!(kind, AtomicKind::Native(_) | AtomicKind::Cas | AtomicKind::FAdd64) {
        return Err(cx.refuse("this 64-bit atomic without Int64Atomics not translated yet"));
    }
    let t = cx.t;
    let lock = lock_word(cx, idx);
    let p_lo = super::memory::window_ptr(cx, idx, 0);
    let p_hi = super::memory::window_ptr(cx, idx, 1);
    let dev = cx.u32c(Scope::Device as u32);
    let relaxed = cx.u32c(0);
    let (acq, rel) = lock_semantics(cx);
    let acquire = cx.u32c(acq);
    let release = cx.u32c(rel);
    let zero = cx.u32c(0);
    let one = cx.u32c(1);
    let fn_u64 = cx.m.t_ptr(StorageClass::Function, t.u64);
    let zero64 = cx.m.c_u64(0);
    let result = cx.m.local_var(fn_u64, Some(zero64));
    let fals = cx.m.c_bool(false);
    let done = cx.m.local_var(t.fn_bool, Some(fals));
    cx.m.store(done, fals);
    let header = cx.m.id();
    let body = cx.m.id();
    let cont = cx.m.id();
    let merge = cx.m.id();
    cx.m.branch(header);
    cx.m.label(header);
    cx.m.loop_merge(merge, cont, LoopControl::DONT_UNROLL);
    cx.m.branch(body);
    cx.m.label(body);
    crate::control::guard::poll_or_break(cx, merge);
    if cx.loops.limit.is_some() {
        wait_a_while(cx, lock);
    }
    // The try: 0 -> 1, or 0 -> 0 (nothing) once this invocation is done, so that a try that runs for a lane
    // already done (a SIMD group's inactive lanes) can never take the lock. Defensive: the lavapipe failure
    // this was first suspected of was the semantics (`lock_semantics`); it costs one select.
    let d = cx.m.load(t.bool, done);
    let want = cx.m.un(Op::LogicalNot, t.bool, d);
    let new_lock = cx.m.select(t.u32, want, one, zero);
    let prev = cx.m.op(Op::AtomicCompareExchange, t.u32, &[lock, dev, acquire, relaxed, new_lock, zero]);
    let free = cx.m.bin(Op::IEqual, t.bool, prev, zero);
    let got = cx.m.bin(Op::LogicalAnd, t.bool, free, want);
    let after = cx.begin_if(got);
    let tru = cx.m.c_bool(true);
    cx.m.store(done, tru);
    let lo = cx.m.op(Op::AtomicOr, t.u32, &[p_lo, dev, relaxed, zero]);
    let hi = cx.m.op(Op::AtomicOr, t.u32, &[p_hi, dev, relaxed, zero]);
    let old = join(cx, lo, hi);
    cx.m.store(result, old);
    let (new, store) = updated(cx, kind, old, v, newv);
    let st = store.map(|c| cx.begin_if(c));
    let (new_lo, new_hi) = cx.split64(new);
    cx.m.op(Op::AtomicExchange, t.u32, &[p_lo, dev, relaxed, new_lo]);
    cx.m.op(Op::AtomicExchange, t.u32, &[p_hi, dev, relaxed, new_hi]);
    if let Some(st) = st {
        cx.end_if(st);
    }
    cx.m.op(Op::AtomicCompareExchange, t.u32, &[lock, dev, release, relaxed, zero, one]);
    cx.end_if(after);
    let left = cx.m.load(t.bool, done);
    cx.m.branch_cond(left, merge, cont);
    cx.m.label(cont);
    cx.m.branch(header);
    cx.m.label(merge);
    Ok(cx.m.load(t.u64, result))
}

/// Reads of the lock while it is held, written out ([`WAIT_READS`] `if`s, no loop) before each try on a
/// device with a loop limit (lavapipe): there a lock holder is a CPU thread the OS may preempt between taking
/// and freeing the lock, and each iteration of the spin spends the device's 65,535-iteration budget (the
/// bench's repeated launches of atomics_global_owned, on the loaded 2-core machine, spent it once with one
/// read a try). Waiting without iterating stretches that budget by about `WAIT_READS` times.
fn wait_a_while(cx: &mut Ctx<'_>, lock: Id) {
    let t = cx.t;
    let dev = cx.u32c(Scope::Device as u32);
    let relaxed = cx.u32c(0);
    let zero = cx.u32c(0);
    let mut w = cx.m.op(Op::AtomicOr, t.u32, &[lock, dev, relaxed, zero]);
    for _ in 0..WAIT_READS {
        let before = cx.m.current_block().unwrap_or(0);
        let held = cx.m.bin(Op::INotEqual, t.bool, w, zero);
        let merge = cx.begin_if(held);
        let then = cx.m.current_block().unwrap_or(0);
        let again = cx.m.op(Op::AtomicOr, t.u32, &[lock, dev, relaxed, zero]);
        cx.end_if(merge);
        w = cx.m.op(Op::Phi, t.u32, &[again, then, w, before]);
    }
}

/// See [`wait_a_while`].
const WAIT_READS: u32 = 32;

/// The lock word of the doubleword at window word `idx`: after the printf records come the abort block's
/// words (as `control::guard` finds its abort word), the locks from [`abi::ATOMIC64_LOCK_FIRST`] on.
fn lock_word(cx: &mut Ctx<'_>, idx: Id) -> Id {
    let t = cx.t;
    let area = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::PRINTF_AREA_WORD);
    let cap = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::PRINTF_CAPACITY_WORDS);
    let first = cx.u32c(abi::printf_word::RECORDS + abi::ATOMIC64_LOCK_FIRST);
    let base = cx.op2(Op::IAdd, area, first);
    let base = cx.op2(Op::IAdd, base, cap);
    let one = cx.u32c(1);
    let idx = super::memory::window_index_low32(cx, idx);
    let dw = cx.op2(Op::ShiftRightLogical, idx, one);
    let mask = cx.u32c(abi::ATOMIC64_LOCK_WORDS - 1);
    let h = cx.op2(Op::BitwiseAnd, dw, mask);
    let i = cx.op2(Op::IAdd, base, h);
    let win = cx.st.window_form(&mut cx.m, &t);
    win.record(&mut cx.m, &t, i)
}

fn join(cx: &mut Ctx<'_>, lo: Id, hi: Id) -> Id {
    let t = cx.t;
    let l = cx.m.un(Op::UConvert, t.u64, lo);
    let h = cx.m.un(Op::UConvert, t.u64, hi);
    let k = cx.m.c_u64(32);
    let h = cx.m.bin(Op::ShiftLeftLogical, t.u64, h, k);
    cx.m.bin(Op::BitwiseOr, t.u64, l, h)
}

/// `a < b` as signed 64-bit values, compared unsigned with the sign bits flipped (lavapipe's 64-bit signed
/// comparisons were not trustworthy: `exact::B::neg64`).
fn slt64(cx: &mut Ctx<'_>, a: Id, b: Id) -> Id {
    let t = cx.t;
    let k = cx.m.c_u64(1 << 63);
    let fa = cx.m.bin(Op::BitwiseXor, t.u64, a, k);
    let fb = cx.m.bin(Op::BitwiseXor, t.u64, b, k);
    cx.m.bin(Op::ULessThan, t.bool, fa, fb)
}

/// The doubleword to store after `old` and whether to store it (`None`: always; CAS: when `old == v`).
fn updated(cx: &mut Ctx<'_>, kind: AtomicKind, old: Id, v: Id, newv: Id) -> (Id, Option<Id>) {
    let t = cx.t;
    let u64op = |cx: &mut Ctx<'_>, op: Op| cx.m.bin(op, t.u64, old, v);
    let new = match kind {
        AtomicKind::Native(Op::AtomicIAdd) => u64op(cx, Op::IAdd),
        AtomicKind::Native(Op::AtomicAnd) => u64op(cx, Op::BitwiseAnd),
        AtomicKind::Native(Op::AtomicOr) => u64op(cx, Op::BitwiseOr),
        AtomicKind::Native(Op::AtomicXor) => u64op(cx, Op::BitwiseXor),
        AtomicKind::Native(Op::AtomicExchange) => v,
        AtomicKind::Native(op @ (Op::AtomicUMin | Op::AtomicUMax | Op::AtomicSMin | Op::AtomicSMax)) => {
            let lt = if matches!(op, Op::AtomicUMin | Op::AtomicUMax) {
                cx.m.bin(Op::ULessThan, t.bool, v, old)
            } else {
                slt64(cx, v, old)
            };
            let (a, b) = if matches!(op, Op::AtomicUMin | Op::AtomicSMin) { (v, old) } else { (old, v) };
            cx.m.select(t.u64, lt, a, b)
        }
        AtomicKind::Cas => {
            let eq = cx.m.bin(Op::IEqual, t.bool, old, v);
            return (newv, Some(eq));
        }
        AtomicKind::FAdd64 => fadd64(cx, old, v),
        // Refused in `global`.
        _ => old,
    };
    (new, None)
}

/// The f64 sum `old + v` as ATOM.ADD.F64 gives it (round to nearest, denormals kept, DADD's NaNs).
fn fadd64(cx: &mut Ctx<'_>, old: Id, v: Id) -> Id {
    let t = cx.t;
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
