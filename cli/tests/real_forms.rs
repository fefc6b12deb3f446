//! The kernels of `corpus/src/real_forms_float.cu` and `tests/data/real_forms_{int,f2i}.cu` (forms compiled public code uses: FMUL
//! post-scales, I2F from bytes and halves, LEA with a negated operand, LOP3 writing a predicate, generic
//! atomics, ...): translated, validated with spirv-val, run on lavapipe and compared with exact host models of
//! their CUDA sources, computed here from the manifest's inputs. The models are independent of the translator:
//! f64 arithmetic for the scaled products (exact, then one Rust `as f32` rounding: IEEE round to nearest even,
//! denormals and overflow included), integer arithmetic for the rest. The same kernels are compared with
//! NVIDIA silicon in `real_forms_match_silicon_goldens`. The integer kernels and the 8-bit F2I kernel live in
//! `tests/data/` (see their headers), the float ones in the corpus.

#[path = "../../translator/tests/support/mod.rs"]
mod support;
mod common;

use sassport_corpus::{Comparison, Launch};
use sassport_runtime::{Bank0, Launch as RtLaunch, Runtime};
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::time::Duration;

fn runtime() -> Runtime {
    common::runtime(Duration::from_secs(300))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// The kernels of `tests/data/real_forms_{int,f2i}.cu` (see their headers) and how they are launched, in the
/// corpus manifest's syntax.
const INT_CUBIN: &[u8] = include_bytes!("data/real_forms_int.cubin");
const F2I_CUBIN: &[u8] = include_bytes!("data/real_forms_f2i.cubin");
const LAUNCHES: &str = "\
real_forms_int lea_negated 2 128 buf:in:1028:401 buf:out:4000 buf:out:4000 i32:250
real_forms_int lop3_predicate 2 128 buf:in:1032:402 buf:out:3000 i32:250
real_forms_int constant_uniform_index 2 128 buf:in:2048:403 buf:out:2000 buf:out:2000 i32:13 i32:250
real_forms_int generic_atomics 2 128 buf:in:1024:404 buf:in:1088:405 buf:out:4096 i32:250
real_forms_int generic_atomics64 2 128 buf:in:1024:406 buf:in:48:407 buf:out:96 i32:250
real_forms_int async_copy_arrive 2 128 buf:in:1028:408 buf:out:2000 i32:250
real_forms_f2i narrow_float_to_int 2 128 buf:in:1028:413 buf:out:8000 i32:250
";

/// The launch of `kernel` (from the corpus manifest, else from [`LAUNCHES`]) and its sm_86 cubin.
fn launch_of(kernel: &str) -> (Launch, Vec<u8>) {
    let corpus = sassport_corpus::launches().unwrap();
    if let Some(l) = corpus.into_iter().find(|l| l.kernel == kernel) {
        let bytes = std::fs::read(l.cubin_sm86()).unwrap();
        return (l, bytes);
    }
    let l = sassport_corpus::launch::parse(LAUNCHES).unwrap().into_iter().find(|l| l.kernel == kernel).expect("a launch");
    let bytes = if l.file == "real_forms_int" { INT_CUBIN } else { F2I_CUBIN };
    (l, bytes.to_vec())
}

/// Translates and launches `kernel` with its launch's inputs; returns the launch and every buffer argument after
/// the launch.
fn run(rt: &mut Runtime, kernel: &str) -> (Launch, Vec<Vec<u8>>) {
    let (l, bytes) = launch_of(kernel);
    let cubin = Cubin::parse(&bytes).unwrap();
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(&cubin, kernel, &Options::default(), dis).unwrap_or_else(|e| panic!("{kernel}: {e}"));
    support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{kernel}: spirv-val: {e}"));
    let id = rt.load_kernel(kernel, &t.words).unwrap();
    let mut addrs = Vec::new();
    for a in &l.args {
        if let Some(init) = a.initial_contents() {
            let addr = rt.alloc(init.len().max(4) as u64).unwrap();
            rt.upload(addr, &init).unwrap();
            addrs.push((addr, init.len()));
        }
    }
    let params = l.param_bytes(&addrs.iter().map(|a| a.0).collect::<Vec<_>>()).unwrap();
    let bank0 = Bank0::new([l.grid.x, l.grid.y, l.grid.z], [l.block.x, l.block.y, l.block.z])
        .with_dynamic_shared(l.shared_bytes)
        .with_params(&params);
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    for b in &cubin.constant_banks {
        if b.bank != 0 && (b.function.is_none() || b.function == Some(kernel)) {
            banks.push((b.bank, b.data));
        }
    }
    rt.launch(&RtLaunch {
        kernel: id,
        grid: [l.grid.x, l.grid.y, l.grid.z],
        block: [l.block.x, l.block.y, l.block.z],
        dynamic_shared_bytes: l.shared_bytes,
        banks: &banks,
    })
    .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    let mut out = Vec::new();
    for (addr, len) in addrs {
        let mut got = vec![0u8; len];
        rt.download(addr, &mut got).unwrap();
        out.push(got);
    }
    (l, out)
}

/// The input words of buffer argument `index` as the manifest's generator makes them.
fn input(l: &Launch, index: usize) -> Vec<u32> {
    words(&l.args[index].initial_contents().unwrap())
}

fn check(kernel: &str, got: &[u32], want: &[Option<u32>]) {
    let bad: Vec<String> = want
        .iter()
        .enumerate()
        .filter_map(|(i, w)| w.filter(|w| got[i] != *w).map(|w| format!("word {i}: got {:#010x} want {w:#010x}", got[i])))
        .collect();
    assert!(bad.is_empty(), "{kernel}: {} of {} words differ from the host model: {:?}", bad.len(), want.len(), &bad[..bad.len().min(8)]);
}

/// f32 bits with the biased exponent replaced (sign and mantissa kept), as `with_exponent` in the source.
fn with_exponent(bits: u32, e: i32) -> u32 {
    (bits & 0x807f_ffff) | (((e as u32) & 0xff) << 23)
}

/// SM86's FMUL with a post-scale: `round(a * b * 2^k)` once (f64 holds the exact value); canonical NaN;
/// `.FTZ` flushes denormal inputs and results; `.SAT` clamps to [0, 1] with NaN -> +0.
fn scaled(a: u32, b: u32, k: i32, ftz: bool, sat: bool) -> u32 {
    let flush = |x: u32| if ftz && x & 0x7f80_0000 == 0 { x & 0x8000_0000 } else { x };
    let p = f64::from(f32::from_bits(flush(a))) * f64::from(f32::from_bits(flush(b))) * 2f64.powi(k);
    let r = p as f32;
    if r.is_nan() {
        return if sat { 0 } else { 0x7fff_ffff };
    }
    let r = flush(r.to_bits());
    if sat {
        let v = f32::from_bits(r);
        return if v <= 0.0 { 0 } else if v >= 1.0 { 0x3f80_0000 } else { r };
    }
    r
}

#[test]
fn fmul_post_scales_round_once() {
    let mut rt = runtime();
    let (l, bufs) = run(&mut rt, "fmul_scaled");
    let a = input(&l, 0);
    const EXPONENTS: [(i32, i32); 8] = [
        (127 + 64, 127 + 63), (127 + 64, 127 + 64), (127 - 63, 127 - 63), (127 - 64, 127 - 62),
        (127 - 70, 127 - 60), (127 - 75, 127 - 70), (127 - 76, 127 - 72), (127 + 3, 127 - 5),
    ];
    let mut want = Vec::new();
    for i in 0..250 {
        let (wa, wb) = (a[i], a[i + 1]);
        let (e0, e1) = EXPONENTS[i & 7];
        let (ys, ys1) = (with_exponent(wb, e1), with_exponent(wb, e1 + 1));
        let (xs, xs1, xs2) = (with_exponent(wa, e0), with_exponent(wa, e0 + 1), with_exponent(wa, e0 + 2));
        let ym = with_exponent(wb, 254 - e1);
        let (xm, xm1, xm2) = (with_exponent(wa, 255 - e0), with_exponent(wa, 254 - e0), with_exponent(wa, 253 - e0));
        want.extend([
            Some(scaled(wa, wb, -1, false, false)),
            Some(scaled(xs, ys, -1, false, false)),
            Some(scaled(xs1, ys, -2, false, false)),
            Some(scaled(xs2, ys, -3, false, false)),
            Some(scaled(xm, ym, 1, false, false)),
            Some(scaled(xm1, ym, 2, false, false)),
            Some(scaled(xm2, ym, 3, false, false)),
            Some(scaled(wa, ys, -1, false, true)),
            Some(scaled(xs, ys1, -1, true, false)),
            Some(scaled(xs, 0x4040_0000, -1, false, false)),
            Some(scaled(wa ^ 0x8000_0000, wb, 3, false, false)),
            None, // mul.rz chain: two FMUL.RZ, not a post-scale
            None, // FMUL R, R, -0.25 after a shared product
        ]);
    }
    check("fmul_scaled", &words(&bufs[1]), &want);
    // The inputs reach both boundaries: products that overflow f32 before a .D scale and ones that are normal
    // before it and denormal after.
    let overflow_before = (0..250).filter(|i| i & 7 < 2).count();
    assert!(overflow_before > 50);
}

/// f16 bits to f64, exactly (denormals, infinities; a NaN keeps its payload in the high mantissa bits and
/// comes out quiet, as IEEE conversions make it).
fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from(h >> 10 & 0x1f), u64::from(h & 0x3ff));
    match e {
        0 => sign * m as f64 * 2f64.powi(-24),
        31 if m == 0 => sign * f64::INFINITY,
        31 => f64::from_bits(u64::from(h & 0x8000) << 48 | 0x7ff8_0000_0000_0000 | m << 42),
        _ => sign * (1024 + m) as f64 * 2f64.powi(e - 25),
    }
}

/// The f16 bits of a small integer (|v| <= 2048: exact in f16).
fn f16_of_int(v: i32) -> u16 {
    if v == 0 {
        return 0;
    }
    let (sign, mag) = (if v < 0 { 0x8000u16 } else { 0 }, v.unsigned_abs());
    let top = 31 - mag.leading_zeros(); // mag = 2^top * 1.f
    let mant = ((mag << (10 - top)) & 0x3ff) as u16;
    sign | ((top as u16 + 15) << 10) | mant
}

#[test]
fn narrow_integer_sources_convert_exactly() {
    let mut rt = runtime();
    let (l, bufs) = run(&mut rt, "narrow_int_convert");
    let a = input(&l, 0);
    let f = |v: f32| Some(v.to_bits());
    let (mut w32, mut w64, mut bits) = (Vec::new(), Vec::new(), Vec::new());
    for &x in &a[..250] {
        let b = |k: u32| (x >> (8 * k)) as u8;
        let h = |k: u32| (x >> (16 * k)) as u16;
        let half_of_byte = f16_of_int(i32::from(b(1)));
        w32.extend([
            f(f32::from(b(0))),
            f(f32::from(b(1))),
            f(f32::from(b(2) as i8)),
            f(f32::from(b(3) as i8)),
            f(f32::from(h(1) as i16)),
            f(f32::from(h(1)) + f32::from(b(0) as i8)),
            f(f32::from(h(0) as i16)),
            f(f16_to_f64(half_of_byte) as f32),
        ]);
        for d in [f64::from(b(1)), f64::from(b(3) as i8), f64::from(h(1)), f16_to_f64(h(1))] {
            w64.extend([Some(d.to_bits() as u32), Some((d.to_bits() >> 32) as u32)]);
        }
        let neg_byte = f16_of_int(i32::from(b(1) as i8));
        bits.push(Some(u32::from(half_of_byte) | u32::from(neg_byte) << 16));
    }
    check("narrow_int_convert (f32)", &words(&bufs[1]), &w32);
    // F2F.F64.F16 of a NaN half keeps its payload and sets the quiet bit.
    check("narrow_int_convert (f64)", &words(&bufs[2]), &w64);
    check("narrow_int_convert (f16 bits)", &words(&bufs[3]), &bits);
}

#[test]
fn negated_lea_operands_and_predicate_lop3() {
    let mut rt = runtime();
    let (l, bufs) = run(&mut rt, "lea_negated");
    let a: Vec<i32> = input(&l, 0).into_iter().map(|w| w as i32).collect();
    let n = 250usize;
    let (mut w, mut w64) = (Vec::new(), Vec::new());
    for i in 0..n {
        let (x, y) = (a[i], a[i + 1]);
        let p = n - 1 - i;
        let back = (x as u32 % 17) as usize % (n - i);
        w.extend([
            Some(a[p - back] as u32),
            Some((y as u32).wrapping_sub((x as u32) << 3)),
            Some(a[n - 1 - (i * 5) % n] as u32),
            Some(u32::from(n - (y & 63) as usize > i)),
        ]);
        let d0 = i64::from(y).wrapping_sub(i64::from(x) << 4);
        let d1 = i64::from(x as u32).wrapping_sub(i64::from(y) << 2).wrapping_sub(p as i64);
        for d in [d0, d1] {
            w64.extend([Some(d as u32), Some((d >> 32) as u32)]);
        }
    }
    check("lea_negated", &words(&bufs[1]), &w);
    check("lea_negated (64-bit)", &words(&bufs[2]), &w64);

    let (l, bufs) = run(&mut rt, "lop3_predicate");
    let a = input(&l, 0);
    let mut want = Vec::new();
    for i in 0..250 {
        let (x, y, z) = (a[i], a[i + 1], a[i + 2]);
        let r = u32::from(x & y != 0)
            | u32::from(x ^ y ^ z == 0) << 1
            | u32::from((x | z) & 0x8000_0001 != 0) << 2
            | u32::from(!x & y & !z == 0) << 3;
        let m = x & !y;
        let same = (x & 0xff00 == 0) == (y & 0xff == 0);
        want.extend([Some(r), Some(if m != 0 { m } else { z }), Some(if same { x.wrapping_add(y) } else { x.wrapping_sub(y) })]);
    }
    check("lop3_predicate", &words(&bufs[1]), &want);
}

/// A float (as f64) to an integer in [lo, hi] with `round`, as F2I does: saturating, NaN -> `nan`.
fn f2i(x: f64, round: fn(f64) -> f64, lo: i64, hi: i64, nan: i64) -> i64 {
    if x.is_nan() {
        return nan;
    }
    let r = round(x);
    if r < lo as f64 { lo } else if r > hi as f64 { hi } else { r as i64 }
}

#[test]
fn float_to_byte_conversions_saturate() {
    let mut rt = runtime();
    let (l, bufs) = run(&mut rt, "narrow_float_to_int");
    let a = input(&l, 0);
    let mut want = Vec::new();
    for i in 0..250 {
        let x = a[i];
        let f = f64::from(f32::from_bits(x));
        let (h, h2) = (f16_to_f64(x as u16), f16_to_f64((x >> 16) as u16));
        let d = f64::from_bits(u64::from(a[i + 1]) << 32 | u64::from(x)); // mov.b64 d, {lo, hi}
        let t7 = f2i(f, f64::trunc, i64::from(i32::MIN), i64::from(i32::MAX), 0) as u8 as i8;
        let rne = |v: f64| v.round_ties_even();
        want.extend(
            [
                f2i(h, f64::trunc, 0, 255, 0),
                f2i(h2, f64::trunc, -128, 127, 0),
                f2i(h, f64::trunc, -128, 127, 0),
                f2i(f, f64::floor, -128, 127, 0),
                f2i(f, f64::ceil, 0, 255, 0),
                // F2I.S8.F64.TRUNC without .NTZ: NaN gives the most negative byte.
                f2i(d, f64::trunc, -128, 127, -128),
                f2i(h2, rne, 0, 255, 0),
                i64::from(t7),
            ]
            .map(|v| Some(v as u32)),
        );
    }
    check("narrow_float_to_int", &words(&bufs[1]), &want);
}

/// The kernel's shared targets start from `initial_word` in the source.
fn initial_word(t: usize) -> u32 {
    if matches!(t, 1 | 4 | 9 | 10) { 0x7fff_ffff } else { t as u32 * 5 }
}

#[test]
fn generic_atomics_reach_shared_and_global_memory() {
    let mut rt = runtime();
    let (l, bufs) = run(&mut rt, "generic_atomics");
    let input_words = input(&l, 0);
    let mut global = input(&l, 1);
    let n = 250;
    let mut shared = [[0u32; 12]; 2];
    for s in &mut shared {
        for (t, w) in s.iter_mut().enumerate() {
            *w = initial_word(t);
        }
    }
    let mut slots = [[0u32; 128]; 2];
    for s in &mut slots {
        for (t, w) in s.iter_mut().enumerate() {
            *w = 3 * t as u32;
        }
    }
    let mut out = vec![Some(0u32); 1024];
    for i in 0..256 {
        let (b, t) = (i / 128, i % 128);
        let v = if i < n { input_words[i] } else { 0 };
        let p: &mut [u32] = if (t >> 5) & 1 != 0 { &mut shared[b] } else { &mut global[..12] };
        p[0] = p[0].wrapping_add(v & 0xff);
        p[1] &= !(1 << (v & 31));
        p[2] |= 1 << ((v >> 5) & 31);
        p[3] ^= v;
        p[4] = p[4].min(v | 0x100);
        p[5] = (p[5] as i32).max(v as i32) as u32;
        p[6] = if p[6] >= 40 { 0 } else { p[6] + 1 };
        p[7] = if p[7] == 0 || p[7] > 50 { 50 } else { p[7] - 1 };
        p[8] = p[8].wrapping_add(v >> 24);
        p[9] &= v | 0x0101_0101;
        p[10] = (p[10] as i32).min(v as i32) as u32;
        let slot = if v & 1 != 0 { &mut slots[b][t] } else { &mut global[16 + i] };
        let old = *slot;
        *slot = v.wrapping_add(1);
        if i < n {
            out[4 * i..4 * i + 4].copy_from_slice(&[Some(old), Some(v), Some(v.wrapping_add(1)), Some(v.wrapping_add(1))]);
        }
    }
    for b in 0..2 {
        for t in 0..12 {
            out[4 * n + b * 12 + t] = Some(shared[b][t]);
        }
    }
    check("generic_atomics (out)", &words(&bufs[2]), &out);
    let global: Vec<Option<u32>> = global.into_iter().map(Some).collect();
    check("generic_atomics (global words)", &words(&bufs[1]), &global);
}

/// Kernels with NVIDIA silicon recordings: the corpus's (goldens in corpus/goldens) and those of
/// `tests/data/real_forms_{int,f2i}.cu` (in tests/data/real_forms_int_h200, see its RECORDED.txt).
const KERNELS: &[&str] = &[
    "fmul_scaled",
    "narrow_int_convert",
    "math_library_forms",
    "lop3_predicate",
    "constant_uniform_index",
    "generic_atomics",
    "generic_atomics64",
    "async_copy_arrive",
    "lea_negated",
    "narrow_float_to_int",
];

/// Where the recording of buffer argument `index` of `l` is.
fn recording(l: &Launch, index: usize) -> std::path::PathBuf {
    if l.file == "real_forms_int" || l.file == "real_forms_f2i" {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/real_forms_int_h200/{}.arg{index}.bin", l.kernel))
    } else {
        l.golden(index)
    }
}

/// Order-preserving integer of f32 bits, for ulp distances.
fn ord32(b: u32) -> i64 {
    if b & 0x8000_0000 != 0 { -i64::from(b & 0x7fff_ffff) } else { i64::from(b) }
}

#[test]
fn real_forms_match_silicon_goldens() {
    let mut rt = runtime();
    let mut report = String::new();
    for kernel in KERNELS {
        let (l, bufs) = run(&mut rt, kernel);
        let tol = match l.comparison {
            Comparison::F32Ulp(n) => i64::from(n),
            _ => 0,
        };
        let mut buf = 0;
        for (index, a) in l.args.iter().enumerate() {
            if !a.is_buffer() {
                continue;
            }
            let got = words(&bufs[buf]);
            buf += 1;
            let want = words(&std::fs::read(recording(&l, index)).unwrap());
            let bad = got
                .iter()
                .zip(&want)
                .filter(|(g, w)| {
                    **g != **w
                        && !(tol > 0
                            && **w & 0x7f80_0000 != 0x7f80_0000
                            && **g & 0x7f80_0000 != 0x7f80_0000
                            && (ord32(**g) - ord32(**w)).abs() <= tol)
                })
                .count();
            if bad > 0 {
                report += &format!("{kernel} arg{index}: {bad} of {} words differ\n", want.len());
            }
        }
    }
    assert!(report.is_empty(), "{report}");
}
