//! Float -> half conversions (F2FP in every form, F2F.F16.F64 in every mode): `corpus/silicon/cvt_sweep.cu`
//! translated by sassport and run on lavapipe,
//! - against the H200 recording of the same kernel (bit for bit, 16 K inputs x 16 conversions), and
//! - against an exact reference computed here, independently of the translator, over 64 K further random
//!   inputs: each value is an integer significand times a power of two, rounded to the half format by
//!   integer reasoning on the discarded bits (no float arithmetic), with the PTX rules for `.relu` and
//!   `.satfinite` and SM86's canonical NaN 0x7fff for f32 sources (quieted payload for f64 sources).
//!
//! The f64 -> f16 path is a single rounding: inputs just beside a half's rounding boundary (which a detour
//! through f32 would round twice) are a quarter of the f64 inputs.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_runtime::{Bank0, Launch, Runtime};
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::path::PathBuf;
use std::time::Duration;

const K: usize = 16;

fn silicon_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/silicon")
}

fn run(rt: &mut Runtime, a: &[u32], b: &[u32], d: &[u64]) -> Vec<u32> {
    let bytes = std::fs::read(silicon_dir().join("cvt_sweep.sm86.cubin")).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(&cubin, "cvt_sweep", &Options::default(), dis).unwrap();
    support::spirv_val(&t.words).unwrap();
    let id = rt.load_kernel("cvt_sweep", &t.words).unwrap();
    let n = a.len();
    let mut addrs = Vec::new();
    let out_bytes = vec![0u8; n * K * 4];
    let ins: [Vec<u8>; 4] = [
        a.iter().flat_map(|w| w.to_le_bytes()).collect(),
        b.iter().flat_map(|w| w.to_le_bytes()).collect(),
        d.iter().flat_map(|w| w.to_le_bytes()).collect(),
        out_bytes,
    ];
    for buf in &ins {
        let addr = rt.alloc(buf.len() as u64).unwrap();
        rt.upload(addr, buf).unwrap();
        addrs.push(addr);
    }
    let mut params = Vec::new();
    for addr in &addrs {
        params.extend_from_slice(&addr.to_le_bytes());
    }
    params.extend_from_slice(&(n as u32).to_le_bytes());
    let grid = (n as u32).div_ceil(128);
    let bank0 = Bank0::new([grid, 1, 1], [128, 1, 1]).with_params(&params);
    let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    rt.launch(&Launch {
        kernel: id,
        grid: [grid, 1, 1],
        block: [128, 1, 1],
        dynamic_shared_bytes: 0,
        banks: &banks,
    })
    .unwrap();
    let mut got = vec![0u8; n * K * 4];
    rt.download(addrs[3], &mut got).unwrap();
    for addr in addrs {
        rt.free(addr).unwrap();
    }
    got.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

// ---- the exact reference -------------------------------------------------------------------------------

/// A half format: fraction bits and exponent bias (f16: 10, 15; bf16: 7, 127).
#[derive(Clone, Copy)]
struct Half {
    frac: u32,
    bias: i32,
}
const F16: Half = Half { frac: 10, bias: 15 };
const BF16: Half = Half { frac: 7, bias: 127 };

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Rn,
    Rz,
    Rm,
    Rp,
}

/// A finite nonzero value `(-1)^neg * m * 2^e` rounded to `h` in `mode`: the half's bits (sign included).
/// Pure integer reasoning: the kept significand is `m >> s` for the shift that leaves the format's
/// precision (more for denormal results), and the discarded bits decide the increment.
fn round_half(h: Half, neg: bool, m: u128, e: i32, mode: Mode) -> u32 {
    let emax = (1i32 << (15 - h.frac)) - 2 - h.bias; // exponent of the largest binade
    let emin = 1 - h.bias;
    let top = 127 - m.leading_zeros() as i32; // m in [2^top, 2^(top+1))
    let vexp = top + e; // value in [2^vexp, 2^(vexp+1))
                        // Quantum of the result: 2^(max(vexp, emin) - frac).
    let q = vexp.max(emin) - h.frac as i32;
    let sign = if neg { 1u32 << 15 } else { 0 };
    let inf = ((2 * h.bias + 1) as u32) << h.frac;
    let max_finite = inf - 1;
    let overflow = |neg: bool| {
        let to_inf = match mode {
            Mode::Rn => true,
            Mode::Rz => false,
            Mode::Rm => neg,
            Mode::Rp => !neg,
        };
        sign | if to_inf { inf } else { max_finite }
    };
    if vexp > emax {
        return overflow(neg);
    }
    let s = q - e; // value / quantum = m / 2^s
    let (kept, ge_half, above_half, inexact) = if s <= 0 {
        (m << (-s) as u32, false, false, false)
    } else if s >= 128 {
        (0, false, false, true)
    } else {
        let rem = m & ((1u128 << s) - 1);
        let half = 1u128 << (s - 1);
        (m >> s, rem >= half, rem > half, rem != 0)
    };
    let up = match mode {
        Mode::Rn => above_half || ge_half && kept & 1 == 1, // a tie goes to the even neighbour
        Mode::Rz => false,
        Mode::Rm => neg && inexact,
        Mode::Rp => !neg && inexact,
    };
    let kept = kept + u128::from(up);
    // kept * 2^q: normalise into the format (a carry to 2^(frac+1) moves the exponent).
    if kept == 0 {
        return sign;
    }
    let ktop = 127 - kept.leading_zeros() as i32;
    let rexp = ktop + q;
    if rexp > emax {
        return overflow(neg);
    }
    if rexp < emin {
        return sign | kept as u32; // denormal: the quantum is the smallest denormal
    }
    let shift = ktop - h.frac as i32; // 0, or 1 after a carry
    let norm = if shift >= 0 {
        kept >> shift as u32
    } else {
        kept << (-shift) as u32
    };
    let frac = norm as u32 & ((1 << h.frac) - 1);
    sign | (((rexp + h.bias) as u32) << h.frac) | frac
}

/// f32 bits to a half: NaN -> 0x7fff, ±inf, ±0, else exact rounding (f32 denormals kept).
fn f32_to_half(h: Half, x: u32, mode: Mode) -> u32 {
    let neg = x >> 31 == 1;
    let sign = if neg { 1u32 << 15 } else { 0 };
    let ex = (x >> 23) & 0xff;
    let fr = x & 0x7f_ffff;
    let inf = ((2 * h.bias + 1) as u32) << h.frac;
    match (ex, fr) {
        (0xff, 0) => sign | inf,
        (0xff, _) => 0x7fff,
        (0, 0) => sign,
        (0, f) => round_half(h, neg, f as u128, -149, mode),
        (e, f) => round_half(h, neg, (f | 0x80_0000) as u128, e as i32 - 150, mode),
    }
}

/// f64 bits to f16: NaN quieted with sign and leading payload kept (what silicon records), no flushing.
fn f64_to_f16(x: u64, mode: Mode) -> u32 {
    let neg = x >> 63 == 1;
    let sign = if neg { 1u32 << 15 } else { 0 };
    let ex = ((x >> 52) & 0x7ff) as i32;
    let fr = x & ((1 << 52) - 1);
    match (ex, fr) {
        (0x7ff, 0) => sign | 0x7c00,
        (0x7ff, f) => sign | 0x7e00 | (f >> 42) as u32,
        (0, 0) => sign,
        (0, f) => round_half(F16, neg, f as u128, -1074, mode),
        (e, f) => round_half(F16, neg, (f | 1 << 52) as u128, e - 1075, mode),
    }
}

/// `.relu` (sign bit set -> +0, NaN stays 0x7fff) and `.satfinite` (±inf -> ±largest finite).
fn relu(v: u32) -> u32 {
    if v == 0x7fff || v & 0x8000 == 0 {
        v
    } else {
        0
    }
}
fn satfinite(h: Half, v: u32) -> u32 {
    let inf = ((2 * h.bias + 1) as u32) << h.frac;
    if v & 0x7fff == inf {
        v - 1
    } else {
        v
    }
}

/// The 16 words of one thread (cvt_sweep.cu), from the reference.
fn expected(a: u32, b: u32, d: u64) -> [u32; K] {
    let pack = |hi: u32, lo: u32| hi << 16 | lo;
    let both = |h: Half, m: Mode, f: &dyn Fn(u32) -> u32| {
        pack(f(f32_to_half(h, a, m)), f(f32_to_half(h, b, m)))
    };
    let id = |v: u32| v;
    let rl = |v: u32| relu(v);
    let sf16 = |v: u32| satfinite(F16, v);
    let sbf = |v: u32| satfinite(BF16, v);
    [
        both(F16, Mode::Rn, &id),
        both(F16, Mode::Rz, &id),
        both(F16, Mode::Rn, &rl),
        both(F16, Mode::Rz, &rl),
        both(F16, Mode::Rn, &sf16),
        both(F16, Mode::Rn, &|v| relu(satfinite(F16, v))),
        both(BF16, Mode::Rn, &id),
        both(BF16, Mode::Rz, &id),
        both(BF16, Mode::Rn, &rl),
        both(BF16, Mode::Rz, &rl),
        both(BF16, Mode::Rn, &sbf),
        pack(
            relu(f32_to_half(F16, b, Mode::Rn)),
            relu(f32_to_half(BF16, a, Mode::Rn)),
        ),
        pack(f64_to_f16(d, Mode::Rz), f64_to_f16(d, Mode::Rn)),
        pack(f64_to_f16(d, Mode::Rp), f64_to_f16(d, Mode::Rm)),
        pack(
            relu(f32_to_half(BF16, b, Mode::Rz)),
            f32_to_half(F16, a, Mode::Rn),
        ),
        pack(
            satfinite(F16, f32_to_half(F16, b, Mode::Rn)),
            relu(satfinite(BF16, f32_to_half(BF16, a, Mode::Rz))),
        ),
    ]
}

fn silicon() -> (Vec<u32>, Vec<u32>, Vec<u64>, Vec<u32>) {
    let raw = std::fs::read(silicon_dir().join("cvt_sweep.in.bin")).unwrap();
    let n = raw.len() / 16;
    let w32 = |s: &[u8]| -> Vec<u32> {
        s.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let a = w32(&raw[..4 * n]);
    let b = w32(&raw[4 * n..8 * n]);
    let d = raw[8 * n..]
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let out = w32(&std::fs::read(silicon_dir().join("cvt_sweep.out.bin")).unwrap());
    (a, b, d, out)
}

#[test]
fn the_reference_agrees_with_the_h200() {
    // The reference is checked against silicon first, so that the second test's expectations are facts.
    let (a, b, d, out) = silicon();
    let mut bad = Vec::new();
    for i in 0..a.len() {
        let e = expected(a[i], b[i], d[i]);
        for k in 0..K {
            if e[k] != out[i * K + k] {
                bad.push((i, k, a[i], b[i], d[i], e[k], out[i * K + k]));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} differ: {:x?}",
        bad.len(),
        out.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn conversions_match_the_h200_and_exact_rounding() {
    let mut rt = common::runtime(Duration::from_secs(300));
    let (a, b, d, out) = silicon();
    let got = run(&mut rt, &a, &b, &d);
    let diff: Vec<_> = (0..out.len())
        .filter(|&j| got[j] != out[j])
        .take(8)
        .map(|j| (j / K, j % K, got[j], out[j]))
        .collect();
    assert!(
        diff.is_empty(),
        "against silicon (thread, word, ours, silicon): {diff:x?}"
    );

    // 64 K further inputs: random bits, random values in and around the half range, and f64 values within
    // a few ulp of a half rounding boundary (normal and denormal halves).
    let mut s = 0x5eed_1234_u64;
    let mut next = move || {
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let n = 1 << 16;
    let (mut a, mut b, mut d) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        let r = next();
        let f32_in = |r: u64| -> u32 {
            match r % 3 {
                0 => (r >> 32) as u32,
                _ => {
                    let e = (((r >> 8) % 60) as u32 + 127 - 40) << 23;
                    ((r >> 32) as u32 & 0x807f_ffff) | e
                }
            }
        };
        a.push(f32_in(r));
        b.push(f32_in(next()));
        let r = next();
        let e = ((r >> 1) % 60 + 1023 - 40) << 52;
        let mut x = (r & 0x800f_ffff_ffff_ffff) | e;
        if i % 4 == 0 {
            // a tie point of the half quantum (bit 41 for normal halves, higher for denormal ones) +- 3
            let sh = 42 + ((r >> 60) % 4) as u32;
            x = (x & !((1u64 << sh) - 1)) | (1u64 << (sh - 1));
            x = x.wrapping_add((r >> 8) % 7).wrapping_sub(3);
        }
        d.push(if i % 16 == 1 { r } else { x });
    }
    let got = run(&mut rt, &a, &b, &d);
    let mut bad = Vec::new();
    for i in 0..n {
        let e = expected(a[i], b[i], d[i]);
        for k in 0..K {
            if got[i * K + k] != e[k] {
                bad.push((i, k, a[i], b[i], d[i], got[i * K + k], e[k]));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} differ from the exact reference: {:x?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}
