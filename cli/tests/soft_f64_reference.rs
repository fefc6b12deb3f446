//! Soft double (`sassport_translator::lower::soft_f64`) against an independent reference, on lavapipe.
//!
//! Each operation class runs as a compute kernel built as the translator builds it for a device without
//! Float64 (`Module::set_soft_float64`: no f64 type in the module, checked), over random and edge inputs:
//! zeros, denormals, near-overflow, cancellation (`c = -round(a * b)`, so the result is the product's
//! rounding error), ties (sums landing half-way between doubles), exact FMA cases (small integers). The
//! reference is the host: Rust's IEEE f64 (and `f64::mul_add`, `f32::mul_add`) for round-to-nearest, and for
//! the directed modes an exact big-integer computation rounded by integer reasoning (`soft_f64/reference.rs`,
//! itself checked against the host's doubles here).
//!
//! `soft_f64_reference_ci` makes ~1.1 M checks (CI); `soft_f64_reference_long` (ignored) makes
//! `SASSPORT_SOFT_F64_CHECKS` checks per operation class (default 100 M). `mutated_rounding_is_caught` shows
//! that the comparison fails when one rounding line is wrong.

#[path = "../../translator/tests/support/mod.rs"]
mod support;
mod common;
#[path = "soft_f64/reference.rs"]
mod reference;

use reference::{fma_ref, F16, F32, F64};
use sassport_runtime::{Launch, Runtime};
use sassport_translator::exact::B;
use sassport_translator::lower::soft_f64;
use sassport_translator::spirv::{BuiltIn, Decoration, FunctionControl, Id, Module, Op, StorageClass, Type};
use sassport_translator::state::{State, Types};
use std::time::{Duration, Instant};

/// The operation classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    /// DFMA: `round(a * b + c)`.
    Fma,
    /// DADD as the translator emits it: `round(a * 1 + c)`.
    Add,
    /// DMUL: `round(a * b)`.
    Mul,
    /// FFMA of f32 operands (low words) through the f64 core, one rounding to f32.
    Ffma32,
    /// HFMA2 of f16 operands (low halves), one rounding to f16.
    Hfma16,
    /// DSETP comparison codes 1..14 as a 14-bit mask.
    Compare,
    /// DFMA with the mutated rounding (must fail).
    FmaMutant,
    /// MUFU.RCP64H's seed of the high word in a's low word.
    RcpSeed,
    /// MUFU.RSQ64H's seed.
    RsqSeed,
}

// ---- the kernel ------------------------------------------------------------------------------------------

/// Thread `i` reads a, b, c (u64 each, as six word arrays of `n` words from the word offset in bank 0 word
/// 0; `n` in word 1; the mode in word 2), computes `op` and writes its u64 result after the inputs.
fn kernel(class: Class) -> Vec<u32> {
    let mut m = Module::new();
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
    let md = st.uniform_word(&mut m, &t, 1, 2);
    let win = st.window(&mut m, &t);
    let zero = m.c_u32(0);
    let word = |m: &mut Module, k: u32| {
        let kc = m.c_u32(k);
        let off = m.bin(Op::IMul, t.u32, kc, n);
        let idx = m.bin(Op::IAdd, t.u32, base, off);
        m.bin(Op::IAdd, t.u32, idx, gid)
    };
    let mut ins = Vec::new();
    for k in 0..6 {
        let idx = word(&mut m, k);
        let p = m.access(t.storage_u32, win, &[zero, idx]);
        ins.push(m.load(t.u32, p));
    }
    let (a, b, c) = {
        let mut bb = B::new(&mut m);
        (bb.pack(ins[0], ins[1]), bb.pack(ins[2], ins[3]), bb.pack(ins[4], ins[5]))
    };
    let r = body(&mut m, class, a, b, c, ins[0], ins[2], ins[4], md);
    let (lo, hi) = {
        let mut bb = B::new(&mut m);
        (bb.u32_of(r), bb.hi32(r))
    };
    for (k, v) in [(6, lo), (7, hi)] {
        let idx = word(&mut m, k);
        let p = m.access(t.storage_u32, win, &[zero, idx]);
        m.store(p, v);
    }
    m.op_void(Op::Return, &[]);
    m.end_function();
    st.declare_uniforms(&mut m, &t);
    m.entry_point(main, "main", &[]);
    let words = m.finish();
    support::spirv_val(&words).unwrap_or_else(|e| panic!("{class:?}: {e}"));
    assert!(!capabilities(&words).contains(&10), "{class:?}: the soft module declares Float64");
    words
}

#[allow(clippy::too_many_arguments)]
fn body(m: &mut Module, class: Class, a: Id, b: Id, c: Id, a32: Id, b32: Id, c32: Id, md: Id) -> Id {
    use sassport_translator::exact::round;
    match class {
        Class::Fma => soft_f64::dfma(m, a, b, c, md),
        Class::FmaMutant => soft_f64::fma::fma_mutant_for_tests(m, round::F64, a, b, c, md),
        Class::Add => {
            let one = m.c_u64(1f64.to_bits());
            soft_f64::dfma(m, a, one, c, md)
        }
        Class::Mul => {
            let mut bb = B::new(m);
            let k = bb.c32(soft_f64::MUL_ONLY);
            let md = bb.i32(Op::BitwiseOr, md, k);
            let z = bb.c64(0);
            soft_f64::dfma(m, a, b, z, md)
        }
        Class::Ffma32 => {
            let r = soft_f64::ffma(m, a32, b32, c32, md);
            B::new(m).u64_of(r)
        }
        Class::Hfma16 => {
            let mut bb = B::new(m);
            let k = bb.c32(0xffff);
            let (x, y, z) = (bb.i32(Op::BitwiseAnd, a32, k), bb.i32(Op::BitwiseAnd, b32, k), bb.i32(Op::BitwiseAnd, c32, k));
            let w = |bb: &mut B<'_>, v| sassport_translator::exact::half::widen(bb, round::F16, v);
            let (wx, wy, wz) = (w(&mut bb, x), w(&mut bb, y), w(&mut bb, z));
            soft_f64::fma(m, round::F16, wx, wy, wz, md)
        }
        Class::RcpSeed => {
            let mut bb = B::new(m);
            let r = soft_f64::seed::rcp_hi(&mut bb, a32);
            bb.u64_of(r)
        }
        Class::RsqSeed => {
            let mut bb = B::new(m);
            let r = soft_f64::seed::rsq_hi(&mut bb, a32);
            bb.u64_of(r)
        }
        Class::Compare => {
            let mut bb = B::new(m);
            let mut mask = bb.c32(0);
            for code in 1..=14u32 {
                let r = soft_f64::cmp::compare(&mut bb, code, a, b);
                let bit = bb.c32(1 << (code - 1));
                let z = bb.c32(0);
                let v = bb.sel32(r, bit, z);
                mask = bb.i32(Op::BitwiseOr, mask, v);
            }
            bb.u64_of(mask)
        }
    }
}

/// The `OpCapability` operands of a module.
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

/// Runs the kernel over (a, b, c) in mode `md`; the u64 results.
fn run(rt: &mut Runtime, kernel: sassport_runtime::KernelId, abc: &[[u64; 3]], md: u32) -> Vec<u64> {
    let n = abc.len();
    assert_eq!(n % 64, 0);
    let total = 8 * n;
    let addr = rt.alloc(4 * total as u64).unwrap();
    let mut words = vec![0u32; total];
    for (i, v) in abc.iter().enumerate() {
        for k in 0..3 {
            words[2 * k * n + i] = v[k] as u32;
            words[(2 * k + 1) * n + i] = (v[k] >> 32) as u32;
        }
    }
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    rt.upload(addr, &bytes).unwrap();
    let base = ((addr - sassport_translator::abi::DEFAULT_WINDOW_BASE) / 4) as u32;
    let bank0: Vec<u8> = [base, n as u32, md].iter().flat_map(|w| w.to_le_bytes()).collect();
    rt.launch(&Launch { kernel, grid: [(n / 64) as u32, 1, 1], block: [64, 1, 1], dynamic_shared_bytes: 0, banks: &[(0, &bank0)] })
        .unwrap();
    let mut out = vec![0u8; 8 * n];
    rt.download(addr + 4 * 6 * n as u64, &mut out).unwrap();
    rt.free(addr).unwrap();
    let w: Vec<u32> = out.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    (0..n).map(|i| u64::from(w[i]) | u64::from(w[n + i]) << 32).collect()
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

const SPECIAL64: [u64; 16] = [
    0,
    1 << 63,
    1,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0x7ff4_0000_0000_0001,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0001,
    0x4340_0000_0000_0000,
    0x3ca0_0000_0000_0000,
];

/// One f64 of an edge class `k` from random bits `r`.
fn edge64(k: u64, r: u64) -> u64 {
    match k {
        0 => SPECIAL64[(r % 16) as usize],
        1 => r & 0x800f_ffff_ffff_ffff,                             // denormal
        2 => (r & 0x801f_ffff_ffff_ffff) | 0x0010_0000_0000_0000,   // smallest normals
        3 => (r & 0x800f_ffff_ffff_ffff) | 0x7fd0_0000_0000_0000,   // near overflow
        4 => (r & 0x803f_ffff_ffff_ffff) | 0x3fc0_0000_0000_0000,   // near 1
        5 => ((r % 4096) as f64 - 2048.0).to_bits(),                // small integers: exact cases
        _ => r,
    }
}

/// Inputs for `class`: a, b, c (f32/f16 classes use the low words).
fn inputs(class: Class, rng: &mut Rng, n: usize) -> Vec<[u64; 3]> {
    (0..n)
        .map(|i| {
            let (r1, r2, r3) = (rng.next(), rng.next(), rng.next());
            let kind = rng.next() % 10;
            match class {
                Class::Ffma32 => [f32_edge(kind, r1), f32_edge(kind, r2), f32_edge(rng.next() % 10, r3)],
                Class::Hfma16 => [r1 & 0xffff, r2 & 0xffff, r3 & 0xffff],
                _ => {
                    let a = edge64(kind % 7, r1);
                    let b = edge64(rng.next() % 7, r2);
                    let c = match i % 5 {
                        // Cancellation: a * b + c is the product's rounding error.
                        0 => (-(f64::from_bits(a) * f64::from_bits(b))).to_bits(),
                        // Tie for an add: c is half an ulp of a (with a random sign), plus nothing.
                        1 => {
                            let ea = (a >> 52) & 0x7ff;
                            if (54..2047).contains(&ea) { (r3 & (1 << 63)) | ((ea - 53) << 52) } else { r3 }
                        }
                        2 => edge64(rng.next() % 7, r3),
                        _ => r3,
                    };
                    [a, b, c]
                }
            }
        })
        .collect()
}

fn f32_edge(k: u64, r: u64) -> u64 {
    let r = r as u32;
    u64::from(match k {
        0 => [0, 0x8000_0000, 1, 0x807f_ffff, 0x0080_0000, 0x7f7f_ffff, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x3f80_0000]
            [(r % 10) as usize],
        1 => r & 0x807f_ffff,
        2 => (r & 0x83ff_ffff) | 0x3c00_0000,
        3 => (r & 0x80ff_ffff) | 0x7e00_0000,
        _ => r,
    })
}

// ---- the reference ---------------------------------------------------------------------------------------

fn is_nan(bits: u64, width: u32) -> bool {
    let mag = bits & ((1u64 << (width - 1)) - 1);
    let inf = match width {
        64 => 0x7ff0_0000_0000_0000,
        32 => 0x7f80_0000,
        _ => 0x7c00,
    };
    mag > inf
}

/// The expected result, or None for "some NaN"; round-to-nearest from the host's IEEE arithmetic.
fn expected(class: Class, v: [u64; 3], md: u32) -> Option<u64> {
    let [a, b, c] = v;
    let (fa, fb, fc) = (f64::from_bits(a), f64::from_bits(b), f64::from_bits(c));
    let host64 = |r: f64| (!r.is_nan()).then_some(r.to_bits());
    match (class, md) {
        (Class::Fma | Class::FmaMutant, 0) => host64(fa.mul_add(fb, fc)),
        (Class::Add, 0) => host64(fa + fc),
        (Class::Mul, 0) => host64(fa * fb),
        (Class::Fma | Class::FmaMutant, _) => fma_ref(F64, a, b, Some(c), md),
        (Class::Add, _) => fma_ref(F64, a, 1f64.to_bits(), Some(c), md),
        (Class::Mul, _) => fma_ref(F64, a, b, None, md),
        (Class::Ffma32, 0) => {
            let r = f32::from_bits(a as u32).mul_add(f32::from_bits(b as u32), f32::from_bits(c as u32));
            (!r.is_nan()).then_some(u64::from(r.to_bits()))
        }
        (Class::Ffma32, _) => fma_ref(F32, a, b, Some(c), md),
        (Class::Hfma16, _) => fma_ref(F16, a, b, Some(c), md),
        (Class::RcpSeed | Class::RsqSeed, _) => unreachable!("seeds are checked by seeds_against_host"),
        (Class::Compare, _) => {
            let o = fa.partial_cmp(&fb);
            use std::cmp::Ordering::*;
            let mut mask = 0u64;
            for code in 1..=14u32 {
                let ordered = match code & 7 {
                    1 => o == Some(Less),
                    2 => o == Some(Equal),
                    3 => matches!(o, Some(Less | Equal)),
                    4 => o == Some(Greater),
                    5 => matches!(o, Some(Less | Greater)),
                    6 => matches!(o, Some(Greater | Equal)),
                    _ => code == 7 && o.is_some(),
                };
                let r = match code {
                    7 => o.is_some(),
                    8 => o.is_none(),
                    c if c < 8 => ordered,
                    _ => ordered || o.is_none(),
                };
                mask |= u64::from(r) << (code - 1);
            }
            Some(mask)
        }
    }
}

fn width(class: Class) -> u32 {
    match class {
        Class::Ffma32 => 32,
        Class::Hfma16 => 16,
        _ => 64,
    }
}

/// Checks `count` inputs of `class` in each mode (one mode for Compare); returns (checks, mismatches, first).
fn check(rt: &mut Runtime, class: Class, count: usize, seed: u64) -> (u64, u64, Option<String>) {
    let words = kernel(class);
    let kernel = rt.load_kernel(&format!("soft_{class:?}"), &words).unwrap();
    let modes: &[u32] = if class == Class::Compare { &[0] } else { &[0, 1, 2, 3] };
    let mut rng = Rng(seed);
    let batch = 1 << 18;
    let (mut checks, mut bad, mut first) = (0u64, 0u64, None);
    let mut left = count;
    while left > 0 {
        let n = left.min(batch).div_ceil(64) * 64;
        let md = modes[(checks / batch as u64) as usize % modes.len()];
        let abc = inputs(class, &mut rng, n);
        let got = run(rt, kernel, &abc, md);
        for (v, g) in abc.iter().zip(&got) {
            let ok = match expected(class, *v, md) {
                None => is_nan(*g, width(class)),
                Some(w) => *g == w,
            };
            if !ok {
                bad += 1;
                if first.is_none() {
                    first = Some(format!("{class:?} mode {md}: {:#x?} gave {g:#x}, want {:x?}", v, expected(class, *v, md)));
                }
            }
        }
        checks += n as u64;
        left = left.saturating_sub(n);
    }
    (checks, bad, first)
}

/// The big-integer reference agrees with the host's doubles in round-to-nearest (so the directed-mode
/// checks rest on a reference that is itself checked).
fn reference_self_check(rng: &mut Rng, n: usize) {
    for class in [Class::Fma, Class::Add, Class::Mul] {
        for v in inputs(class, rng, n) {
            let host = expected(class, v, 0);
            let big = match class {
                Class::Fma => fma_ref(F64, v[0], v[1], Some(v[2]), 0),
                Class::Add => fma_ref(F64, v[0], 1f64.to_bits(), Some(v[2]), 0),
                _ => fma_ref(F64, v[0], v[1], None, 0),
            };
            assert_eq!(host, big, "{class:?} {v:#x?}: host vs big-integer reference");
        }
    }
}

fn report(class: Class, r: (u64, u64, Option<String>), took: Duration) {
    eprintln!("soft_f64 {class:?}: {} checks, {} mismatches ({:.1} s){}", r.0, r.1, took.as_secs_f64(),
        r.2.as_deref().map(|s| format!("; first: {s}")).unwrap_or_default());
}

const CLASSES: [Class; 6] = [Class::Fma, Class::Add, Class::Mul, Class::Ffma32, Class::Hfma16, Class::Compare];

#[test]
fn soft_f64_reference_ci() {
    let mut rt = common::runtime(Duration::from_secs(120));
    reference_self_check(&mut Rng(7), 20_000);
    let mut total = 0;
    for (k, class) in CLASSES.into_iter().enumerate() {
        let t = Instant::now();
        let r = check(&mut rt, class, 3 << 16, 0x9e37_79b9_7f4a_7c15 ^ k as u64);
        report(class, r.clone(), t.elapsed());
        assert_eq!(r.1, 0, "{}", r.2.unwrap_or_default());
        total += r.0;
    }
    eprintln!("soft_f64: {total} checks in all, 0 mismatches");
}

#[test]
fn mutated_rounding_is_caught() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let r = check(&mut rt, Class::FmaMutant, 1 << 18, 3);
    report(Class::FmaMutant, r.clone(), Duration::ZERO);
    assert!(r.1 > 0, "the mutated rounding went unnoticed");
}

#[test]
#[ignore = "long: SASSPORT_SOFT_F64_CHECKS per class (default 100 M)"]
fn soft_f64_reference_long() {
    let count: usize = std::env::var("SASSPORT_SOFT_F64_CHECKS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000_000);
    let only = std::env::var("SASSPORT_SOFT_F64_CLASS").ok();
    let mut rt = common::runtime(Duration::from_secs(120));
    reference_self_check(&mut Rng(11), 200_000);
    for (k, class) in CLASSES.into_iter().enumerate() {
        if only.as_deref().is_some_and(|o| !format!("{class:?}").eq_ignore_ascii_case(o)) {
            continue;
        }
        let t = Instant::now();
        let r = check(&mut rt, class, count, 0x1234_5678_9abc_def1 ^ (k as u64) << 32);
        report(class, r.clone(), t.elapsed());
        assert_eq!(r.1, 0, "{}", r.2.unwrap_or_default());
    }
}

/// The seeds over every `step`-th significand of the high word (2^20) at the exponents in `exps`, both signs
/// for RCP:
/// RCP64H must equal the high word of the host's correctly rounded `1 / d` (the native lowering's value),
/// RSQ64H be within one unit of the high word of the host's `1 / sqrt(d)`. Returns (checks, RSQ exact).
fn seeds(rt: &mut Runtime, exps: &[u64], step: u64) -> (u64, u64) {
    let (mut checks, mut rsq_exact) = (0u64, 0u64);
    for class in [Class::RcpSeed, Class::RsqSeed] {
        let words = kernel(class);
        let k = rt.load_kernel(&format!("soft_{class:?}"), &words).unwrap();
        let signs: &[u64] = if class == Class::RcpSeed { &[0, 1] } else { &[0] };
        for &sign in signs {
            for &e in exps {
                for half in 0..4u64 {
                let abc: Vec<[u64; 3]> =
                    (half << 18..(half + 1) << 18).step_by(step as usize).map(|f| [sign << 31 | e << 20 | f, 0, 0]).collect();
                let got = run(rt, k, &abc, 0);
                for (v, g) in abc.iter().zip(&got) {
                    let d = f64::from_bits(v[0] << 32);
                    let want = if class == Class::RcpSeed { 1.0 / d } else { 1.0 / d.sqrt() };
                    let want = want.to_bits() >> 32;
                    if class == Class::RcpSeed {
                        assert_eq!(*g, want, "RCP64H seed of {:#x}", v[0]);
                    } else {
                        assert!(g.abs_diff(want) <= 1, "RSQ64H seed of {:#x}: {g:#x}, host {want:#x}", v[0]);
                        rsq_exact += u64::from(*g == want);
                    }
                    checks += 1;
                }
                }
            }
        }
    }
    (checks, rsq_exact)
}

#[test]
fn seeds_against_host() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let (checks, exact) = seeds(&mut rt, &[1023, 1024], 16);
    eprintln!("soft_f64 seeds: {checks} checks (RCP64H all exact; RSQ64H {exact} of {} exact, the rest 1 unit)", 2u64 << 16);
}

#[test]
#[ignore = "long: the seeds at every exponent class (2^20 significands each)"]
fn seeds_against_host_long() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let (checks, exact) = seeds(&mut rt, &[1, 2, 3, 500, 1022, 1023, 1024, 1025, 1500, 2044, 2045, 2046], 1);
    eprintln!("soft_f64 seeds: {checks} checks; RSQ64H exact {exact} of {}", 12u64 << 20);
}
