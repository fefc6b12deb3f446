//! FP16 through 32-bit values (`sassport_translator::lower::soft_f16`) against exact references, on lavapipe.
//!
//! Each operation (HFMA2's `a * b + c`, HADD2's `a + c`, HMUL2's `a * b`, both rounded to nearest even to
//! f16, and the `.F32` forms rounded to f32) runs as a compute kernel calling the helper as the lowering
//! does (HADD2 with `b` = 1.0, HMUL2 with `c` = -0). The truth, computed on the host:
//! - f16 results: the exact value as an integer multiple of 2^-48 (i128: every f16 is a multiple of 2^-24,
//!   products stay below 2^80) rounded by integer reasoning (`exact16`), and also the soft-double suite's
//!   big-integer reference (`soft_f64/reference.rs`): two references written apart must agree too.
//!   `exact16` is itself checked against the definition: every f16 rounds to itself, every midpoint of two
//!   neighbours to the even one, and a hair above or below it to the nearer one.
//! - `.F32` results: the host's IEEE arithmetic (the f64 sum of two halves is exact; Rust's `as f32` is
//!   correctly rounded).
//!
//! Inputs: every `a` against a subset of `b`/`c` (exhaustive in `a`), and random halves with edge classes
//! (zeros, denormals, near overflow, infinities, NaNs, ties for the add, FMA cancellation `c = -rn(a * b)`).
//! `soft_f16_reference_ci` makes ~5 M checks; `soft_f16_reference_long` (ignored) makes
//! `SASSPORT_SOFT_F16_CHECKS` random checks per operation (default 100 M) plus all `a` x 1024 `b`.
//! `mutants_are_caught`: the FMA without its round-to-odd step (a plain double rounding through f32) and the
//! rounding without ties-to-even both fail.

mod common;
#[path = "soft_f64/reference.rs"]
mod reference;

use sassport_runtime::{Launch, Runtime};
use sassport_translator::lower::soft_f16::{self, Op16};
use sassport_translator::spirv::{BuiltIn, Decoration, FunctionControl, Module, Op, StorageClass, Type};
use sassport_translator::state::{State, Types};
use std::time::{Duration, Instant};

#[path = "../../translator/tests/support/mod.rs"]
mod support;

const OPS: [Op16; 5] = [Op16::Fma, Op16::Add, Op16::Mul, Op16::AddF32, Op16::MulF32];

/// Thread `i` reads word `i` (a | b << 16) and word `n + i` (c) from the window at the word offset in bank 0
/// word 0 (`n` in word 1) and writes `op(a, b, c)` at word `2n + i`.
fn kernel(op: Op16, mutant: u32) -> Vec<u32> {
    let mut m = Module::new();
    // As for a device without Float64 either: no f64 type in the module.
    m.set_soft_float64(true);
    let t = Types::declare(&mut m);
    let mut st = State::new(0, 0);
    let in_ptr = m.t_ptr(StorageClass::Input, t.uvec3);
    let gid_var = m.global_var(in_ptr, StorageClass::Input, None);
    m.decorate(gid_var, Decoration::BuiltIn, &[BuiltIn::GlobalInvocationId as u32]);
    let sx = m.spec_u32(0, 1);
    let sy = m.spec_u32(1, 1);
    let sz = m.spec_u32(2, 1);
    let wg = m.id();
    m.global_inst(Op::SpecConstantComposite, &[t.uvec3, wg, sx, sy, sz]);
    m.decorate(wg, Decoration::BuiltIn, &[BuiltIn::WorkgroupSize as u32]);
    let fn_ty = m.ty(Type::Function(t.void, [0; 4]));
    let main = m.begin_function(t.void, fn_ty, FunctionControl::NONE);
    let l = m.id();
    m.label(l);
    let g = m.load(t.uvec3, gid_var);
    let gid = m.op(Op::CompositeExtract, t.u32, &[g, 0]);
    let base = st.uniform_word(&mut m, &t, 1, 0);
    let n = st.uniform_word(&mut m, &t, 1, 1);
    let win = st.window(&mut m, &t);
    let zero = m.c_u32(0);
    let word = |m: &mut Module, k: u32| {
        let kc = m.c_u32(k);
        let off = m.bin(Op::IMul, t.u32, kc, n);
        let idx = m.bin(Op::IAdd, t.u32, base, off);
        m.bin(Op::IAdd, t.u32, idx, gid)
    };
    let i0 = word(&mut m, 0);
    let p0 = m.access(t.storage_u32, win, &[zero, i0]);
    let w0 = m.load(t.u32, p0);
    let i1 = word(&mut m, 1);
    let p1 = m.access(t.storage_u32, win, &[zero, i1]);
    let c = m.load(t.u32, p1);
    let mask = m.c_u32(0xffff);
    let a = m.bin(Op::BitwiseAnd, t.u32, w0, mask);
    let k16 = m.c_u32(16);
    let b = m.bin(Op::ShiftRightLogical, t.u32, w0, k16);
    // As fp16.rs passes them: HADD2's b is 1.0, HMUL2's c is -0.
    let (b, c) = match op {
        Op16::Add | Op16::AddF32 => (m.c_u32(0x3c00), c),
        Op16::Mul | Op16::MulF32 => (b, m.c_u32(0x8000)),
        Op16::Fma => (b, c),
    };
    let r = if mutant == 0 { soft_f16::op(&mut m, op, a, b, c) } else { soft_f16::op_mutant_for_tests(&mut m, op, a, b, c, mutant) };
    let i2 = word(&mut m, 2);
    let p2 = m.access(t.storage_u32, win, &[zero, i2]);
    m.store(p2, r);
    m.op_void(Op::Return, &[]);
    m.end_function();
    st.declare_uniforms(&mut m, &t);
    m.entry_point(main, "main", &[]);
    let words = m.finish();
    support::spirv_val(&words).unwrap_or_else(|e| panic!("{op:?}: {e}"));
    // No Float16 (9), Float64 (10), Int16 (22), Int8 (39): 32-bit values only.
    let caps = capabilities(&words);
    assert!(![9, 10, 22, 39].iter().any(|c| caps.contains(c)), "{op:?} declares {caps:?}");
    words
}

fn capabilities(words: &[u32]) -> Vec<u32> {
    let (mut caps, mut at) = (Vec::new(), 5);
    while at < words.len() {
        if words[at] & 0xffff == 17 {
            caps.push(words[at + 1]);
        }
        at += ((words[at] >> 16) as usize).max(1);
    }
    caps
}

/// Runs the kernel over `(a, b, c)` triples (halves); the result words.
fn run(rt: &mut Runtime, kernel: sassport_runtime::KernelId, abc: &[[u16; 3]]) -> Vec<u32> {
    let n = abc.len();
    assert_eq!(n % 64, 0);
    let addr = rt.alloc(4 * 3 * n as u64).unwrap();
    let mut words = vec![0u32; 2 * n];
    for (i, v) in abc.iter().enumerate() {
        words[i] = u32::from(v[0]) | u32::from(v[1]) << 16;
        words[n + i] = u32::from(v[2]);
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    rt.upload(addr, &bytes).unwrap();
    let base = ((addr - sassport_translator::abi::DEFAULT_WINDOW_BASE) / 4) as u32;
    let bank0: Vec<u8> = [base, n as u32].iter().flat_map(|w| w.to_le_bytes()).collect();
    rt.launch(&Launch { kernel, grid: [(n / 64) as u32, 1, 1], block: [64, 1, 1], dynamic_shared_bytes: 0, banks: &[(0, &bank0)] })
        .unwrap();
    let mut out = vec![0u8; 4 * n];
    rt.download(addr + 4 * 2 * n as u64, &mut out).unwrap();
    rt.free(addr).unwrap();
    out.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

// ---- the references --------------------------------------------------------------------------------------

/// An f16 as an exact value: `None` for NaN, `Err(neg)` for an infinity, else (neg, magnitude in 2^-24 units).
fn decode16(h: u16) -> Option<Result<(bool, u64), bool>> {
    let neg = h & 0x8000 != 0;
    let e = u32::from(h >> 10 & 31);
    let f = u64::from(h & 0x3ff);
    match e {
        31 if f != 0 => None,
        31 => Some(Err(neg)),
        0 => Some(Ok((neg, f))),
        _ => Some(Ok((neg, (f | 0x400) << (e - 1)))),
    }
}

/// A nonzero exact value `mag * 2^-48` rounded to nearest even to f16 bits (sign applied).
fn round16(neg: bool, mag: u128) -> u16 {
    let sign = if neg { 0x8000 } else { 0 };
    let msb = 127 - mag.leading_zeros() as i32; // value in [2^(msb-48), 2^(msb-47))
    let e = (msb - 48).max(-14); // the binade's exponent, denormals at -14's quantum
    let sh = (e - 10 + 48) as u32; // the quantum 2^(e-10) in units of 2^-48
    let q = mag >> sh;
    let rem = mag & ((1u128 << sh) - 1);
    let half = 1u128 << (sh - 1);
    let q = q + u128::from(rem > half || (rem == half && q & 1 == 1));
    // Denormal range: q quanta of 2^-24 (0x400 is the smallest normal); normal: q in [1024, 2048].
    let bits = if msb - 48 < -14 { q as u32 } else { (((e + 15) as u32) << 10) + (q as u32 - 1024) };
    sign | bits.min(0x7c00) as u16
}

/// `rn16(a * b + c)` exactly; `None` for NaN.
fn exact16(a: u16, b: u16, c: u16) -> Option<u16> {
    let (da, db, dc) = (decode16(a)?, decode16(b)?, decode16(c)?);
    let pneg = (a ^ b) & 0x8000 != 0;
    let zero = |d: &Result<(bool, u64), bool>| matches!(d, Ok((_, 0)));
    let pinf = da.is_err() || db.is_err();
    if pinf && (zero(&da) || zero(&db)) {
        return None;
    }
    match (pinf, dc) {
        (true, Err(cn)) if cn != pneg => return None,
        (true, _) => return Some(if pneg { 0xfc00 } else { 0x7c00 }),
        (false, Err(cn)) => return Some(if cn { 0xfc00 } else { 0x7c00 }),
        _ => {}
    }
    let (Ok((_, ma)), Ok((_, mb)), Ok((cneg, mc))) = (da, db, dc) else { unreachable!() };
    let p = i128::from(ma) * i128::from(mb) * if pneg { -1 } else { 1 };
    let cc = (i128::from(mc) << 24) * if cneg { -1 } else { 1 };
    let s = p + cc;
    if s == 0 {
        // IEEE 754 6.3: +0 unless both terms are zeros of sign -.
        let both_neg_zeros = ma * mb == 0 && mc == 0 && pneg && cneg;
        return Some(if both_neg_zeros { 0x8000 } else { 0 });
    }
    Some(round16(s < 0, s.unsigned_abs()))
}

fn f16_to_f64(h: u16) -> f64 {
    match decode16(h) {
        None => f64::NAN,
        Some(Err(n)) => if n { f64::NEG_INFINITY } else { f64::INFINITY },
        Some(Ok((n, m))) => (if n { -1.0 } else { 1.0 }) * m as f64 * 2f64.powi(-24),
    }
}

/// The expected result word; `None` for "some NaN".
fn expected(op: Op16, v: [u16; 3]) -> Option<u32> {
    let [a, b, c] = v;
    match op {
        Op16::Fma => exact16(a, b, c).map(u32::from),
        Op16::Add => exact16(a, 0x3c00, c).map(u32::from),
        Op16::Mul => exact16(a, b, 0x8000).map(u32::from),
        Op16::AddF32 | Op16::MulF32 => {
            let r = if op == Op16::AddF32 { f16_to_f64(a) + f16_to_f64(c) } else { f16_to_f64(a) * f16_to_f64(b) };
            let r = r as f32;
            (!r.is_nan()).then_some(r.to_bits())
        }
    }
}

/// The soft-double suite's big-integer reference for the f16 classes (a second, separately written truth).
fn big_reference(op: Op16, v: [u16; 3]) -> Option<Option<u32>> {
    let [a, b, c] = v.map(u64::from);
    let r = match op {
        Op16::Fma => reference::fma_ref(reference::F16, a, b, Some(c), 0),
        Op16::Add => reference::fma_ref(reference::F16, a, 0x3c00, Some(c), 0),
        Op16::Mul => reference::fma_ref(reference::F16, a, b, None, 0),
        _ => return None,
    };
    Some(r.map(|r| r as u32))
}

/// `exact16` against the definition of rounding to nearest even, over every f16.
fn reference_self_check() {
    let units = |h: u16| match decode16(h) {
        Some(Ok((_, m))) => u128::from(m) << 24,
        _ => unreachable!(),
    };
    for h in 0..0x7c00u16 {
        for s in [0, 0x8000] {
            if h == 0 {
                continue;
            }
            assert_eq!(round16(s != 0, units(h)), h | s, "{h:#x} does not round to itself");
        }
        let (x, y) = (units(h), if h + 1 == 0x7c00 { units(0x7bff) + (units(0x7bff) - units(0x7bfe)) } else { units(h + 1) });
        let mid = (x + y) / 2;
        let even = if h & 1 == 0 { h } else { h + 1 };
        assert_eq!(round16(false, mid), even, "midpoint above {h:#x}");
        assert_eq!(round16(false, mid - 1), h, "just below the midpoint above {h:#x}");
        assert_eq!(round16(false, mid + 1), h + 1, "just above the midpoint above {h:#x}");
    }
}

// ---- inputs ----------------------------------------------------------------------------------------------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const SPECIAL16: [u16; 16] =
    [0, 0x8000, 1, 0x8001, 0x3ff, 0x400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0x3c00, 0xbc01, 0x5800, 0x1000];

fn edge16(k: u64, r: u64) -> u16 {
    let r = r as u16;
    match k {
        0 => SPECIAL16[usize::from(r % 16)],
        1 => r & 0x83ff,          // denormal
        2 => (r & 0x87ff) | 0x400, // smallest normals
        3 => (r & 0x83ff) | 0x7800, // near overflow
        4 => (r & 0x87ff) | 0x3800, // near 1
        _ => r,
    }
}

fn random_inputs(op: Op16, rng: &mut Rng, n: usize) -> Vec<[u16; 3]> {
    (0..n)
        .map(|i| {
            let a = edge16(rng.next() % 8, rng.next());
            let b = edge16(rng.next() % 8, rng.next());
            let c = match (op, i % 4) {
                // FMA cancellation: a * b + c is the product's rounding error.
                (Op16::Fma, 0) => exact16(a, b, 0x8000).map_or(0, |p| p ^ 0x8000),
                // Add ties and near-ties: c a few units below half an ulp of a.
                (Op16::Add | Op16::AddF32, 0) => {
                    let ea = a >> 10 & 31;
                    if (12..31).contains(&ea) { (rng.next() as u16 & 0x8003) | (ea - 11) << 10 } else { a }
                }
                _ => edge16(rng.next() % 8, rng.next()),
            };
            [a, b, c]
        })
        .collect()
}

/// Every `a` against `count` values of the other operand (`b` for Mul/Fma, `c` for Add; Fma's `c` random).
fn exhaustive_inputs(op: Op16, rng: &mut Rng, count: usize) -> Vec<Vec<[u16; 3]>> {
    (0..count)
        .map(|_| {
            let o = edge16(rng.next() % 8, rng.next());
            (0..=0xffffu16)
                .map(|a| {
                    let c = edge16(rng.next() % 8, rng.next());
                    match op {
                        Op16::Add | Op16::AddF32 => [a, 0, o],
                        _ => [a, o, c],
                    }
                })
                .collect()
        })
        .collect()
}

// ---- checking --------------------------------------------------------------------------------------------

#[derive(Default, Clone)]
struct Tally {
    checks: u64,
    bad: u64,
    first: Option<String>,
}

fn compare(op: Op16, abc: &[[u16; 3]], got: &[u32], cross: bool, t: &mut Tally) {
    for (v, g) in abc.iter().zip(got) {
        let want = expected(op, *v);
        if cross {
            if let Some(big) = big_reference(op, *v) {
                assert_eq!(want, big, "{op:?} {v:#x?}: the two references disagree");
            }
        }
        let ok = match want {
            None if op.f32_out() => g & 0x7fff_ffff > 0x7f80_0000,
            None => g & 0x7fff > 0x7c00 && g >> 16 == 0,
            Some(w) => *g == w,
        };
        if !ok {
            t.bad += 1;
            if t.first.is_none() {
                t.first = Some(format!("{op:?}: {v:04x?} gave {g:#x}, want {want:x?}"));
            }
        }
    }
    t.checks += abc.len() as u64;
}

fn check(rt: &mut Runtime, op: Op16, mutant: u32, random: usize, exhaustive: usize, seed: u64) -> Tally {
    let words = kernel(op, mutant);
    let k = rt.load_kernel(&format!("soft_f16_{op:?}_{mutant}"), &words).unwrap();
    let mut rng = Rng(seed);
    let mut t = Tally::default();
    for abc in exhaustive_inputs(op, &mut rng, exhaustive) {
        let got = run(rt, k, &abc);
        compare(op, &abc, &got, t.checks < 1 << 22, &mut t);
    }
    let batch = 1 << 20;
    let mut left = random;
    while left > 0 {
        let n = left.min(batch).div_ceil(64) * 64;
        let abc = random_inputs(op, &mut rng, n);
        let got = run(rt, k, &abc);
        compare(op, &abc, &got, t.checks < 1 << 22, &mut t);
        left = left.saturating_sub(n);
    }
    t
}

fn report(op: Op16, t: &Tally, took: Duration) {
    eprintln!(
        "soft_f16 {op:?}: {} checks, {} mismatches ({:.1} s){}",
        t.checks,
        t.bad,
        took.as_secs_f64(),
        t.first.as_deref().map(|s| format!("; first: {s}")).unwrap_or_default()
    );
}

#[test]
fn soft_f16_reference_ci() {
    reference_self_check();
    let mut rt = common::runtime(Duration::from_secs(120));
    let mut total = 0;
    for (k, op) in OPS.into_iter().enumerate() {
        let t0 = Instant::now();
        let t = check(&mut rt, op, 0, 1 << 19, 8, 0x9e37_79b9_7f4a_7c15 ^ k as u64);
        report(op, &t, t0.elapsed());
        assert_eq!(t.bad, 0, "{}", t.first.unwrap_or_default());
        total += t.checks;
    }
    eprintln!("soft_f16: {total} checks in all, 0 mismatches");
}

#[test]
fn mutants_are_caught() {
    let mut rt = common::runtime(Duration::from_secs(120));
    for (op, mutant) in [(Op16::Fma, 1), (Op16::Add, 2)] {
        let t = check(&mut rt, op, mutant, 1 << 18, 0, 3);
        report(op, &t, Duration::ZERO);
        assert!(t.bad > 0, "mutant {mutant} of {op:?} went unnoticed");
    }
}

#[test]
#[ignore = "long: SASSPORT_SOFT_F16_CHECKS random checks per operation (default 100 M) and all a x 1024 b"]
fn soft_f16_reference_long() {
    reference_self_check();
    let count: usize = std::env::var("SASSPORT_SOFT_F16_CHECKS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000_000);
    let mut rt = common::runtime(Duration::from_secs(120));
    for (k, op) in OPS.into_iter().enumerate() {
        let t0 = Instant::now();
        let t = check(&mut rt, op, 0, count, 1024, 0x1234_5678_9abc_def1 ^ (k as u64) << 32);
        report(op, &t, t0.elapsed());
        assert_eq!(t.bad, 0, "{}", t.first.unwrap_or_default());
    }
}
