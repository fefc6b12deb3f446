//! What every loop the translator emits carries besides its body: a poll of the host's abort word (so that a
//! kernel that never ends leaves when its launch times out), and, on devices that leave loops early on their
//! own (lavapipe's loop limiter, `abi::DeviceProfile::loop_iteration_limit`), a check that the device did not
//! cut the loop, plus the unroll factor that keeps real kernels within the device's budget.
//!
//! The limiter's facts (docs/device-quirks.md): gallivm keeps one counter for a whole shader and each group
//! of 8 SIMD lanes, starting at 65,535, decremented at the end of every iteration of every loop, never reset;
//! at zero every loop is left at the end of its current iteration. So a cut cannot be seen in the loop's own
//! values (the compiler folds any flag that only a cut would leave set), but it can be seen in the counter
//! itself: a *canary*, a loop of exactly two iterations whose trip count the compiler cannot know, runs once
//! when the counter is spent. A canary after a loop (and before the invocation ends) therefore says whether
//! any loop so far may have been cut; it is conservative by two iterations.

use crate::abi;
use crate::lower::Ctx;
use crate::spirv::{Id, LoopControl, Op, Scope};

/// Iterations between two polls of the abort word in one loop (a power of two).
pub const POLL_PERIOD: u32 = 1024;

/// Most exchange instructions (SHFL, VOTE, ...) a turns-form kernel may have for its lane loops to be
/// written out under the limiter quirk ([`LoopGuard::unroll_lanes`]).
pub const MAX_EXCHANGES_FOR_UNROLLED_LANES: usize = 2;

/// Largest unroll factor for an innermost loop under the limiter quirk.
pub const MAX_UNROLL: u32 = 32;

/// SASS instructions an unrolled innermost loop may grow to (copies times body).
pub const UNROLL_BUDGET_INSTRUCTIONS: u32 = 256;

/// The loop policy of one translation, from the device profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct LoopGuard {
    /// The device's own loop limit (`Some` on lavapipe): canaries and unrolling are emitted.
    pub limit: Option<u32>,
    /// Write out the turns scheduler's loops over a warp's lanes (`lower::warp::emit_for`): under the loop
    /// limit, for kernels with few exchange instructions (the written-out scheduler is ~4x the module, and
    /// Mesa's compile time grows with it; large warp kernels keep the loops and the smaller budget).
    pub unroll_lanes: bool,
    /// Per-invocation iteration counter that paces the abort polls (created on first use).
    counter: Option<Id>,
    /// Per-invocation flag: a poll saw the abort word raised (created on first use).
    aborted: Option<Id>,
}

impl LoopGuard {
    pub fn new(profile: Option<&abi::DeviceProfile>) -> Self {
        LoopGuard { limit: profile.and_then(|p| p.loop_iteration_limit), unroll_lanes: false, counter: None, aborted: None }
    }

    /// Copies of an innermost loop's body of `instructions` SASS instructions per iteration (1: no unrolling).
    pub fn unroll_factor(&self, instructions: u32) -> u32 {
        match self.limit {
            None => 1,
            Some(_) => (UNROLL_BUDGET_INSTRUCTIONS / instructions.max(1)).clamp(1, MAX_UNROLL),
        }
    }
}

/// A launch-value word the runtime always writes as 0 (`grid_dim.w`) and the compiler cannot know.
fn opaque_zero(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::GRID_DIM + 3)
}

/// A pointer to the abort word: after the printf area's records (`abi::abort_word_index`).
fn abort_word(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    let area = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::PRINTF_AREA_WORD);
    let cap = cx.st.uniform_word(&mut cx.m, &t, 0, abi::launch_word::PRINTF_CAPACITY_WORDS);
    let records = cx.u32c(abi::printf_word::RECORDS);
    let i = cx.op2(Op::IAdd, area, records);
    let i = cx.op2(Op::IAdd, i, cap);
    let win = cx.st.window_form(&mut cx.m, &t);
    win.record(&mut cx.m, &t, i)
}

/// The abort word's value, read now: an atomic load, which no compiler hoists out of a loop. Under a device
/// loop limit an atomic OR of 0 instead: Mesa turns an atomic load into a plain one, which it may merge with
/// an earlier read or drop with a loop it then finds free of side effects (a `while (1) {}` vanishes).
fn abort_value(cx: &mut Ctx<'_>) -> Id {
    if cx.graphics.is_some() {
        // A draw has no abort word (a shader that never ends is the driver's timeout): polls read 0.
        return cx.u32c(0);
    }
    let t = cx.t;
    let p = abort_word(cx);
    let scope = cx.u32c(Scope::Device as u32);
    let sem = cx.u32c(0); // relaxed: the word only has to arrive, it orders nothing
    if cx.loops.limit.is_some() {
        let zero = cx.u32c(0);
        cx.m.op(Op::AtomicOr, t.u32, &[p, scope, sem, zero])
    } else {
        cx.m.op(Op::AtomicLoad, t.u32, &[p, scope, sem])
    }
}

/// Reads the abort word now: true when the host asked the launch to end.
pub fn abort_now(cx: &mut Ctx<'_>) -> Id {
    let t = cx.t;
    let v = abort_value(cx);
    let zero = cx.u32c(0);
    cx.m.bin(Op::INotEqual, t.bool, v, zero)
}

/// Called at the start of each loop iteration: counts it and, every [`POLL_PERIOD`] iterations, reads the
/// abort word; when it is raised, remembers it (see [`aborted`]) and breaks to `loop_merge`.
pub fn poll_or_break(cx: &mut Ctx<'_>, loop_merge: Id) {
    poll_weighted_or_break(cx, 1, loop_merge)
}

/// [`poll_or_break`] for a pass that runs `weight` iterations of the kernel's loop (an unrolled body): the
/// count grows by `weight`, and the word is read whenever it passes a multiple of [`POLL_PERIOD`]. The break
/// sits inside the rare branch that reads the word, so an iteration pays only the count and one test (with
/// the break after the branch, each iteration also tested the remembered flag: on the H200 the corpus's
/// Collatz loop ran 1.7x slower than without polls).
pub fn poll_weighted_or_break(cx: &mut Ctx<'_>, weight: u32, loop_merge: Id) {
    let weight = weight.clamp(1, POLL_PERIOD);
    let t = cx.t;
    let counter = match cx.loops.counter {
        Some(c) => c,
        None => {
            let zero = cx.u32c(0);
            let c = cx.m.local_var(t.fn_u32, Some(zero));
            cx.loops.counter = Some(c);
            c
        }
    };
    let n = cx.m.load(t.u32, counter);
    let w = cx.u32c(weight);
    let n1 = cx.op2(Op::IAdd, n, w);
    cx.m.store(counter, n1);
    let mask = cx.u32c(POLL_PERIOD - 1);
    let low = cx.op2(Op::BitwiseAnd, n1, mask);
    let due = if weight == 1 {
        let zero = cx.u32c(0);
        cx.m.bin(Op::IEqual, t.bool, low, zero)
    } else {
        cx.m.bin(Op::ULessThan, t.bool, low, w)
    };
    let stop = aborted_var(cx);
    let after = cx.begin_if(due);
    let a = abort_now(cx);
    cx.m.store(stop, a);
    let go_on = cx.m.id();
    cx.m.selection_merge(go_on);
    cx.m.branch_cond(a, loop_merge, go_on);
    cx.m.label(go_on);
    cx.end_if(after);
}

/// Under a device loop limit, the exit test a loop's continue block ends with (`None`: a plain back edge):
/// true only when the iteration count wraps to exactly 0, after 2^32 iterations, far beyond the limit. It
/// gives every loop, `while (1) {}` included, an ordinary exit the compiler cannot rule out, so that no pass
/// treats the code after the loop as unreachable. (Added while finding why `while (1) {}` was not reported;
/// the decisive change was the atomic OR of `abort_value`, but the test is cheap and lavapipe-only.)
pub fn never_exit(cx: &mut Ctx<'_>) -> Option<Id> {
    cx.loops.limit?;
    let counter = cx.loops.counter?;
    let t = cx.t;
    let n = cx.m.load(t.u32, counter);
    let z = opaque_zero(cx);
    Some(cx.m.bin(Op::IEqual, t.bool, n, z))
}

/// The flag [`poll_or_break`] sets (false until a poll saw the abort word raised).
fn aborted_var(cx: &mut Ctx<'_>) -> Id {
    match cx.loops.aborted {
        Some(v) => v,
        None => {
            let fals = cx.m.c_bool(false);
            let v = cx.m.local_var(cx.t.fn_bool, Some(fals));
            cx.loops.aborted = Some(v);
            v
        }
    }
}

/// Whether a poll of this invocation saw the abort word raised. A loop left because of it breaks to its merge
/// (so the merge stays reachable even for a loop without an exit, and the compiler keeps the checks there)
/// and the invocation stops there.
pub fn aborted(cx: &mut Ctx<'_>) -> Id {
    let v = aborted_var(cx);
    cx.m.load(cx.t.bool, v)
}

/// At a loop's merge: whether the loop was left because of the abort word. Where the device has a loop
/// limit the word is read again: the remembered flag is what the abort exit tested, so a compiler takes it
/// as true on every path it knows to the merge and would drop the loop-limit check after it.
pub fn aborted_at_merge(cx: &mut Ctx<'_>) -> Id {
    match cx.loops.limit {
        Some(_) => abort_now(cx),
        None => aborted(cx),
    }
}

/// Emits a canary (see the module doc) when the device has a loop limit: true when the device's loop budget
/// is spent, so some loop may have been cut. `None` on devices without a limit.
pub fn budget_spent(cx: &mut Ctx<'_>) -> Option<Id> {
    cx.loops.limit?;
    let t = cx.t;
    let zero = cx.u32c(0);
    let k = cx.m.local_var(t.fn_u32, Some(zero));
    cx.m.store(k, zero);
    let z = opaque_zero(cx);
    let two = cx.u32c(2);
    let trips = cx.op2(Op::IAdd, z, two);
    let header = cx.m.id();
    let body = cx.m.id();
    let cont = cx.m.id();
    let merge = cx.m.id();
    cx.m.branch(header);
    cx.m.label(header);
    cx.m.loop_merge(merge, cont, LoopControl::DONT_UNROLL);
    cx.m.branch(body);
    cx.m.label(body);
    // The step is 1 plus the abort word (0 here; when raised the canary ends sooner, which only stops an
    // aborted launch sooner), read with an atomic OR (`abort_value`): with a plain step Mesa worked out the
    // loop's trip count and folded the canary away, so no cut was ever reported.
    let v = cx.m.load(t.u32, k);
    let av = abort_value(cx);
    let one = cx.u32c(1);
    let step = cx.op2(Op::IAdd, av, one);
    let v1 = cx.op2(Op::IAdd, v, step);
    cx.m.store(k, v1);
    let done = cx.m.bin(Op::UGreaterThanEqual, t.bool, v1, trips);
    cx.m.branch_cond(done, merge, cont);
    cx.m.label(cont);
    cx.m.branch(header);
    cx.m.label(merge);
    let ran = cx.m.load(t.u32, k);
    // A different comparison from the loop's own exit test, so no pass can reuse that test's outcome here.
    Some(cx.m.bin(Op::ULessThan, t.bool, ran, trips))
}

/// Records a loop-limit fault ([`abi::FAULT_KIND_LOOP_LIMIT`]) at `pc` when `spent` holds; the caller stops
/// the invocation inside the returned open `if` and then calls [`Ctx::end_if`]-style merging itself.
pub fn record_loop_limit(cx: &mut Ctx<'_>, pc: Id) {
    let zero = cx.u32c(0);
    let addr = cx.m.c_u64(0);
    crate::lower::fault::record_fault(cx, abi::FAULT_KIND_LOOP_LIMIT, pc, addr, zero);
}
