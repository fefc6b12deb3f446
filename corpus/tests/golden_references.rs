//! The silicon goldens against exact arithmetic computed here, for kernels whose results have a simple
//! definition: integer arithmetic and bit operations, the FP32 rounding intrinsics (add, sub, mul, fma, div,
//! rcp, sqrt in all four modes, rounded here from exact integer arithmetic), float-to-integer conversions (PTX `cvt` semantics,
//! which are Rust's saturating `as` casts), integer-to-float and double-to-float conversions in all four
//! rounding modes, rounding functions, exact small-integer matrix products,
//! histograms, reductions, scans, warp reductions and launch geometry. Agreement shows that the recorder
//! launched what the manifest says with the inputs the generator builds, and that the kernels compute
//! what their comments claim.

use sassport_corpus::{launches, Launch};

fn launch(kernel: &str) -> Launch {
    launches()
        .expect("manifest")
        .into_iter()
        .find(|l| l.kernel == kernel)
        .unwrap_or_else(|| panic!("no launch {kernel}"))
}

fn input(l: &Launch, index: usize) -> Vec<u8> {
    l.args[index].initial_contents().expect("buffer argument")
}

fn golden(l: &Launch, index: usize) -> Vec<u8> {
    std::fs::read(l.golden(index)).unwrap_or_else(|e| panic!("{}: {e}", l.golden(index).display()))
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn dwords(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

fn n_arg(l: &Launch) -> usize {
    match l.args.last() {
        Some(sassport_corpus::Arg::I32(n)) => *n as usize,
        other => panic!("{}: last argument is not n: {other:?}", l.kernel),
    }
}

/// Compares K results per thread, reporting the first few mismatches with their (thread, result) index.
fn check_rows<T: PartialEq + std::fmt::Debug>(
    kernel: &str,
    k: usize,
    got: &[T],
    want: impl Fn(usize, usize) -> Option<T>,
    n: usize,
) {
    let mut bad = Vec::new();
    for i in 0..n {
        for j in 0..k {
            if let Some(w) = want(i, j) {
                if got[i * k + j] != w {
                    bad.push(format!(
                        "thread {i} result {j}: silicon {:?}, expected {w:?}",
                        got[i * k + j]
                    ));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{kernel}: {} mismatches, first: {:#?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn int32_arith_matches_exact_integer_arithmetic() {
    let l = launch("int32_arith");
    let (a, b) = (words(&input(&l, 0)), words(&input(&l, 1)));
    let out = words(&golden(&l, 2));
    let sext24 = |v: u32| (((v << 8) as i32) >> 8) as i64;
    check_rows(
        &l.kernel,
        16,
        &out,
        |i, j| {
            let (x, y) = (a[i] as i32, b[i] as i32);
            let (ux, uy) = (a[i], b[i]);
            let d = if y == 0 || (x == i32::MIN && y == -1) {
                1
            } else {
                y
            };
            let ud = if uy == 0 { 1 } else { uy };
            Some(match j {
                0 => ux.wrapping_mul(uy),
                1 => ((x as i64 * y as i64) >> 32) as u32,
                2 => ((ux as u64 * uy as u64) >> 32) as u32,
                3 => (x / d) as u32,
                4 => (x % d) as u32,
                5 => ux / ud,
                6 => ux % ud,
                7 => x.min(y) as u32,
                8 => x.max(y) as u32,
                9 => ux.min(uy),
                10 => ux.max(uy),
                11 => x.wrapping_abs() as u32,
                12 => (sext24(ux) * sext24(uy)) as u32,
                13 => (ux & 0xff_ffff).wrapping_mul(uy & 0xff_ffff),
                14 => ux.wrapping_add(uy.wrapping_mul(5)).wrapping_sub(ux >> 3),
                15 => ((x as i64 - y as i64).unsigned_abs() as u32).wrapping_add(ux & 0xff),
                _ => unreachable!(),
            })
        },
        n_arg(&l),
    );
}

#[test]
fn int64_arith_matches_exact_integer_arithmetic() {
    let l = launch("int64_arith");
    let (a, b) = (dwords(&input(&l, 0)), dwords(&input(&l, 1)));
    let out = dwords(&golden(&l, 2));
    check_rows(
        &l.kernel,
        24,
        &out,
        |i, j| {
            let (x, y) = (a[i] as i64, b[i] as i64);
            let (ux, uy) = (a[i], b[i]);
            let d = if y == 0 || (x == i64::MIN && y == -1) {
                1
            } else {
                y
            };
            let ud = if uy == 0 { 1 } else { uy };
            let s = (uy & 63) as u32;
            let ffs = if x == 0 {
                0
            } else {
                ux.trailing_zeros() as u64 + 1
            };
            Some(match j {
                0 => ux.wrapping_mul(uy),
                1 => ((x as i128 * y as i128) >> 64) as u64,
                2 => ((ux as u128 * uy as u128) >> 64) as u64,
                3 => (x / d) as u64,
                4 => (x % d) as u64,
                5 => ux / ud,
                6 => ux % ud,
                7 => ux.wrapping_add(uy),
                8 => ux.wrapping_sub(uy),
                10 => x.min(y) as u64,
                11 => ux.max(uy),
                12 => x.wrapping_abs() as u64,
                13 => ux << s,
                14 => (x >> s) as u64,
                15 => ux >> s,
                16 => ux.reverse_bits(),
                17 => ux.count_ones() as u64 | ((ux.leading_zeros() as u64) << 8) | (ffs << 16),
                18 => (x / 1000) as u64,
                19 => ux % 1_000_000_007,
                20 => ((x as i32) as i64 * (y as i32) as i64) as u64,
                21 => (ux as u32) as u64 * (uy as u32) as u64,
                _ => return None,
            })
        },
        n_arg(&l),
    );
}

/// `__byte_perm(x, y, s)`: byte k of the result is byte `(s >> 4k) & 7` of the eight bytes of (y:x).
fn byte_perm(x: u32, y: u32, s: u32) -> u32 {
    let bytes = ((y as u64) << 32) | x as u64;
    (0..4)
        .map(|k| (((bytes >> (8 * ((s >> (4 * k)) & 7))) & 0xff) as u32) << (8 * k))
        .fold(0, |a, b| a | b)
}

#[test]
fn bit_ops32_matches_exact_bit_arithmetic() {
    let l = launch("bit_ops32");
    let (a, b, c) = (
        words(&input(&l, 0)),
        words(&input(&l, 1)),
        words(&input(&l, 2)),
    );
    let out = words(&golden(&l, 3));
    check_rows(
        &l.kernel,
        22,
        &out,
        |i, j| {
            let (x, y, z) = (a[i], b[i], c[i]);
            let s = z & 31;
            let wide = ((y as u64) << 32) | x as u64;
            let clamped = z.min(32);
            Some(match j {
                0 => x.count_ones(),
                1 => x.leading_zeros(),
                2 => {
                    if x == 0 {
                        0
                    } else {
                        x.trailing_zeros() + 1
                    }
                }
                3 => x.reverse_bits(),
                4 => byte_perm(x, y, 0x5140),
                5 => byte_perm(x, y, z),
                6 => ((wide << s) >> 32) as u32,
                7 => (wide >> s) as u32,
                8 => ((wide << clamped) >> 32) as u32,
                9 => (wide >> clamped) as u32,
                10 => x << s,
                11 => x >> s,
                12 => ((x as i32) >> s) as u32,
                16 => (x & y) ^ (!x | z),
                17 => x.rotate_left(7),
                18 => {
                    if s == 0 {
                        0
                    } else {
                        (1u32 << s) - 1
                    }
                }
                21 => (x & 0xff00_ff00) | ((y >> 8) & 0x00ff_00ff),
                _ => return None,
            })
        },
        n_arg(&l),
    );
}

#[test]
fn float_to_int_conversions_follow_saturating_cvt() {
    let l = launch("fp32_to_int");
    let a: Vec<f32> = words(&input(&l, 0))
        .into_iter()
        .map(f32::from_bits)
        .collect();
    let out = words(&golden(&l, 1));
    check_rows(
        &l.kernel,
        16,
        &out,
        |i, j| {
            let x = a[i];
            let (rn, rz, ru, rd) = (x.round_ties_even(), x.trunc(), x.ceil(), x.floor());
            // Silicon: NaN converts to 0 for 32-bit results but to 0x8000_0000_0000_0000 for 64-bit ones.
            let s64 = |v: f32| if v.is_nan() { i64::MIN } else { v as i64 };
            let u64_ = |v: f32| if v.is_nan() { 1u64 << 63 } else { v as u64 };
            let (l0, l1, l2, l3) = (s64(rn), s64(rz), s64(ru), s64(rd));
            let (u0, u1) = (u64_(rn), u64_(rz));
            Some(match j {
                0 => rn as i32 as u32,
                1 => rz as i32 as u32,
                2 => ru as i32 as u32,
                3 => rd as i32 as u32,
                4 => rn as u32,
                5 => rz as u32,
                6 => ru as u32,
                7 => rd as u32,
                8 => l0 as u32,
                9 => (l1 >> 32) as u32,
                10 => (l2 ^ (l2 >> 32)) as u32,
                11 => (l3 ^ (l3 >> 32)) as u32,
                12 => (u0 ^ (u0 >> 32)) as u32,
                13 => (u1 >> 32) as u32,
                14 => x as i32 as u32,
                15 => x as u32,
                _ => unreachable!(),
            })
        },
        n_arg(&l),
    );
}

#[test]
fn rounding_functions_match_ieee() {
    let l = launch("fp32_round_misc");
    let (a, b) = (words(&input(&l, 0)), words(&input(&l, 1)));
    let out = words(&golden(&l, 2));
    // NaN results compare as "some NaN": the hardware returns a canonical NaN.
    let same = |got: u32, want: f32| {
        if want.is_nan() {
            f32::from_bits(got).is_nan()
        } else {
            got == want.to_bits()
        }
    };
    let mut bad = Vec::new();
    for i in 0..n_arg(&l) {
        let (x, y) = (f32::from_bits(a[i]), f32::from_bits(b[i]));
        let want = [
            (0, x.trunc()),
            (1, x.floor()),
            (2, x.ceil()),
            (3, x.round_ties_even()),
            (4, x.round()),
            (5, x.round_ties_even()),
            // __saturatef: NaN gives +0, and so does -0 (FADD.SAT adds +0).
            (
                6,
                if x.is_nan() {
                    0.0
                } else {
                    x.clamp(0.0, 1.0) + 0.0
                },
            ),
            (9, x.copysign(y)),
            (10, x.abs()),
            (11, -x),
        ];
        for (j, w) in want {
            if !same(out[i * 16 + j], w) {
                bad.push(format!(
                    "thread {i} result {j}: x={x:e} silicon {:#010x}, expected {:#010x}",
                    out[i * 16 + j],
                    w.to_bits()
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches: {:#?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

/// The integer in [-8, 7] in bits 19:16 of a word (matmul.cu's exact_small).
fn exact_small(word: u32) -> i64 {
    (((word as i32) >> 16) & 15) as i64 - 8
}

#[test]
fn matmuls_are_exact_integer_products() {
    for kernel in ["matmul_naive", "matmul_tiled", "matmul_regblock"] {
        let l = launch(kernel);
        let n = 32;
        let (a, b) = (words(&input(&l, 0)), words(&input(&l, 1)));
        let c = words(&golden(&l, 2));
        for r in 0..n {
            for col in 0..n {
                let want: i64 = (0..n)
                    .map(|k| exact_small(a[r * n + k]) * exact_small(b[k * n + col]))
                    .sum();
                assert_eq!(
                    f32::from_bits(c[r * n + col]),
                    want as f32,
                    "{kernel} C[{r}][{col}]"
                );
            }
        }
    }
    let l = launch("dmatmul_tiled");
    let (a, b) = (dwords(&input(&l, 0)), dwords(&input(&l, 1)));
    let c = dwords(&golden(&l, 2));
    for r in 0..32 {
        for col in 0..32 {
            let want: i64 = (0..32)
                .map(|k| {
                    exact_small((a[r * 32 + k] >> 32) as u32)
                        * exact_small((b[k * 32 + col] >> 32) as u32)
                })
                .sum();
            assert_eq!(
                f64::from_bits(c[r * 32 + col]),
                want as f64,
                "dmatmul_tiled C[{r}][{col}]"
            );
        }
    }
}

#[test]
fn histograms_count_exactly() {
    let l = launch("histogram_shared");
    let v = words(&input(&l, 0));
    let mut want = [0u32; 64];
    v[..n_arg(&l)]
        .iter()
        .for_each(|w| want[(w % 64) as usize] += 1);
    assert_eq!(words(&golden(&l, 1)), want);

    let l = launch("histogram_bytes_aggregated");
    let bytes = input(&l, 0);
    let mut want = [0u32; 256];
    bytes[..4 * n_arg(&l)]
        .iter()
        .for_each(|&b| want[b as usize] += 1);
    assert_eq!(words(&golden(&l, 1)), want);
}

#[test]
fn reductions_and_scans_are_exact() {
    let l = launch("reduce_shared_tree");
    let v = words(&input(&l, 0));
    let n = n_arg(&l);
    let sums: Vec<u32> = (0..4)
        .map(|blk| {
            (blk * 256..((blk + 1) * 256).min(n))
                .map(|i| v[i])
                .fold(0u32, u32::wrapping_add)
        })
        .collect();
    assert_eq!(words(&golden(&l, 1)), sums);

    let l = launch("reduce_warp_shuffle");
    let v = words(&input(&l, 0));
    let blocks: Vec<u64> = (0..4)
        .map(|blk| {
            (blk * 256..((blk + 1) * 256).min(n))
                .map(|i| v[i] as u64)
                .sum()
        })
        .collect();
    let out = dwords(&golden(&l, 1));
    assert_eq!(out[0], blocks.iter().sum::<u64>());
    assert_eq!(&out[1..], &blocks[..]);

    for kernel in ["scan_shared_inclusive", "scan_warp_exclusive"] {
        let l = launch(kernel);
        let v = words(&input(&l, 0));
        let out = words(&golden(&l, 1));
        for (i, &got) in out.iter().enumerate().take(n) {
            let start = i / 256 * 256;
            let end = if kernel == "scan_shared_inclusive" {
                i + 1
            } else {
                i
            };
            let want = v[start..end].iter().fold(0u32, |a, &b| a.wrapping_add(b));
            assert_eq!(got, want, "{kernel} element {i}");
        }
    }
}

#[test]
fn warp_reductions_are_exact() {
    let l = launch("warp_reduce");
    let v = words(&input(&l, 0));
    let out = words(&golden(&l, 1));
    check_rows(
        &l.kernel,
        9,
        &out,
        |i, j| {
            let warp = &v[i / 32 * 32..i / 32 * 32 + 32];
            Some(match j {
                0 => warp.iter().fold(0u32, |a, &b| a.wrapping_add(b)),
                1 => warp.iter().map(|&w| w as i32).min().unwrap() as u32,
                2 => warp.iter().map(|&w| w as i32).max().unwrap() as u32,
                3 => *warp.iter().min().unwrap(),
                4 => *warp.iter().max().unwrap(),
                5 => warp.iter().fold(!0, |a, &b| a & b),
                6 => warp.iter().fold(0, |a, &b| a | b),
                7 => warp.iter().fold(0, |a, &b| a ^ b),
                // Only threads 0-15 of each block (threadIdx.x < 16) take part.
                8 => {
                    if i % 128 < 16 {
                        warp[..16].iter().fold(0u32, |a, &b| a.wrapping_add(b >> 4))
                    } else {
                        0
                    }
                }
                _ => unreachable!(),
            })
        },
        n_arg(&l),
    );
}

#[test]
fn special_registers_describe_the_launch() {
    let l = launch("special_registers");
    let out = words(&golden(&l, 0));
    let (g, b) = (l.grid, l.block);
    for bz in 0..g.z {
        for by in 0..g.y {
            for bx in 0..g.x {
                for tz in 0..b.z {
                    for ty in 0..b.y {
                        for tx in 0..b.x {
                            let block = bx + g.x * (by + g.y * bz);
                            let local = tx + b.x * (ty + b.y * tz);
                            let i = (block * b.x * b.y * b.z + local) as usize;
                            let lane = local % 32;
                            let want = [
                                tx | (ty << 10) | (tz << 20),
                                bx | (by << 10) | (bz << 20),
                                b.x | (b.y << 10) | (b.z << 20),
                                g.x | (g.y << 10) | (g.z << 20),
                                lane,
                                ((2u64 << lane) - 1) as u32,
                                !(((2u64 << lane) - 1) as u32),
                                l.shared_bytes,
                                1,
                                lane,
                                32,
                                i as u32,
                            ];
                            assert_eq!(&out[i * 12..i * 12 + 12], &want, "thread {i}");
                        }
                    }
                }
            }
        }
    }
}

fn next_up(f: f32) -> f32 {
    match f {
        _ if f == 0.0 => f32::from_bits(1),
        _ if f > 0.0 => f32::from_bits(f.to_bits() + 1),
        _ => f32::from_bits(f.to_bits() - 1),
    }
}

fn next_down(f: f32) -> f32 {
    -next_up(-f)
}

/// The directed roundings of a value, given its round-to-nearest result and how that compares with the
/// exact value: [nearest, toward zero, toward +inf, toward -inf].
fn roundings(
    nearest: f32,
    nearest_vs_exact: std::cmp::Ordering,
    exact_is_negative: bool,
) -> [f32; 4] {
    use std::cmp::Ordering::*;
    let up = if nearest_vs_exact == Less {
        next_up(nearest)
    } else {
        nearest
    };
    let down = if nearest_vs_exact == Greater {
        next_down(nearest)
    } else {
        nearest
    };
    [nearest, if exact_is_negative { up } else { down }, up, down]
}

fn int_roundings(v: i128) -> [f32; 4] {
    let nearest = v as f32; // Rust's integer-to-float cast rounds to nearest even
    let order = if nearest.is_infinite() {
        nearest.partial_cmp(&0.0).unwrap()
    } else {
        (nearest as i128).cmp(&v)
    };
    roundings(nearest, order, v < 0)
}

#[test]
fn int_to_float_conversions_round_in_every_mode() {
    let l = launch("int_to_fp32");
    let (a, b) = (words(&input(&l, 0)), dwords(&input(&l, 1)));
    let out = words(&golden(&l, 2));
    check_rows(
        &l.kernel,
        17,
        &out,
        |i, j| {
            let (x, v) = (a[i], b[i]);
            let want = match j / 4 {
                0 => int_roundings(x as i32 as i128)[j % 4],
                1 => int_roundings(x as i128)[j % 4],
                2 => int_roundings(v as i64 as i128)[j % 4],
                3 => int_roundings(v as i128)[j % 4],
                _ => x as i16 as f32 + (x & 0xff) as f32,
            };
            Some(want.to_bits())
        },
        n_arg(&l),
    );
}

#[test]
fn double_to_float_conversions_round_in_every_mode() {
    let l = launch("fp32_double_convert");
    let (a, b) = (words(&input(&l, 0)), dwords(&input(&l, 1)));
    let (out, out64) = (words(&golden(&l, 2)), dwords(&golden(&l, 3)));
    let mut bad = Vec::new();
    for i in 0..n_arg(&l) {
        let (x, d) = (f32::from_bits(a[i]), f64::from_bits(b[i]));
        let nearest = d as f32;
        let want = if d.is_nan() {
            [f32::NAN; 4]
        } else {
            roundings(
                nearest,
                (nearest as f64)
                    .partial_cmp(&d)
                    .expect("finite or infinite"),
                d < 0.0,
            )
        };
        for (j, w) in want.iter().chain([x * 3.0].iter()).enumerate() {
            let got = f32::from_bits(out[i * 5 + j]);
            if !(got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan())) {
                bad.push(format!(
                    "thread {i} result {j}: d={d:e} silicon {got:e}, expected {w:e}"
                ));
            }
        }
        let widened = x as f64;
        if !(out64[i] == widened.to_bits() || (x.is_nan() && f64::from_bits(out64[i]).is_nan())) {
            bad.push(format!(
                "thread {i}: (double){x:e} silicon {:e}",
                f64::from_bits(out64[i])
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches: {:#?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

/// Exact value of a finite f32 as (negative, mantissa, exponent): value = ±mantissa * 2^exponent.
fn decompose(f: f32) -> (bool, u64, i32) {
    let bits = f.to_bits();
    let (neg, exp, frac) = (
        bits >> 31 == 1,
        ((bits >> 23) & 0xff) as i32,
        (bits & 0x7f_ffff) as u64,
    );
    if exp == 0 {
        (neg, frac, -149)
    } else {
        (neg, frac | 0x80_0000, exp - 150)
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Nearest,
    Zero,
    Up,
    Down,
}

/// Rounds the exact value `sum * 2^exp` (a signed sum whose lowest bit may be a sticky bit far below the
/// rounding position) to f32 in the given mode. `zero_negative` is the sign an exact zero takes.
fn round_exact(sum: i128, exp: i32, mode: Mode, zero_negative: bool) -> f32 {
    if sum == 0 {
        return if zero_negative { -0.0 } else { 0.0 };
    }
    let neg = sum < 0;
    let mag = sum.unsigned_abs();
    let len = 128 - mag.leading_zeros() as i32;
    let lsb = (exp + len - 24).max(-149);
    let (mut q, inexact_up) = if lsb <= exp {
        (mag << (exp - lsb), false)
    } else {
        let shift = (lsb - exp) as u32;
        // Sums stay below 2^122, so from shift 127 on everything is below half an ulp of zero.
        let (q, rem, half) = if shift >= 127 {
            (0, mag, u128::MAX)
        } else {
            (
                mag >> shift,
                mag & ((1u128 << shift) - 1),
                1u128 << (shift - 1),
            )
        };
        let up = match mode {
            Mode::Nearest => rem > half || (rem == half && q & 1 == 1),
            Mode::Zero => false,
            Mode::Up => rem != 0 && !neg,
            Mode::Down => rem != 0 && neg,
        };
        (q, up)
    };
    if inexact_up {
        q += 1;
    }
    // Overflow: the rounded magnitude reaches 2^128.
    if (q as f64) * 2f64.powi(lsb) >= 2f64.powi(128) {
        let to_inf = match mode {
            Mode::Nearest => true,
            Mode::Zero => false,
            Mode::Up => !neg,
            Mode::Down => neg,
        };
        let m = if to_inf { f32::INFINITY } else { f32::MAX };
        return if neg { -m } else { m };
    }
    let v = (q as f64 * 2f64.powi(lsb)) as f32; // exact: q has at most 24 significant bits (or is 2^24)
    if neg {
        -v
    } else {
        v
    }
}

/// x * y + z (or x * y, or x + y with y = 1) rounded once, in the given mode.
fn fused(terms: &[(f32, f32)], mode: Mode) -> f32 {
    if terms.iter().any(|&(a, b)| !a.is_finite() || !b.is_finite()) {
        // Infinities and NaNs: f64 gets the special result right (finite f32 products cannot overflow f64).
        return terms.iter().map(|&(a, b)| a as f64 * b as f64).sum::<f64>() as f32;
    }
    let parts: Vec<(bool, u128, i32)> = terms
        .iter()
        .map(|&(a, b)| {
            let ((na, ma, ea), (nb, mb, eb)) = (decompose(a), decompose(b));
            (na != nb, (ma * mb) as u128, ea + eb)
        })
        .collect();
    let top = parts
        .iter()
        .filter(|p| p.1 != 0)
        .map(|p| p.2 + 128 - p.1.leading_zeros() as i32)
        .max();
    let Some(top) = top else {
        // Every term is zero: IEEE's sign of an exact zero sum.
        let negs: Vec<bool> = parts.iter().map(|p| p.0).collect();
        let all = negs.iter().all(|&n| n);
        let any = negs.iter().any(|&n| n);
        return round_exact(
            0,
            0,
            mode,
            if matches!(mode, Mode::Down) { any } else { all },
        );
    };
    let e = top - 120;
    let mut sum: i128 = 0;
    for (neg, m, pe) in parts {
        let aligned = if pe >= e {
            (m << (pe - e)) as i128
        } else {
            let shift = (e - pe) as u32;
            let kept = if shift >= 128 { 0 } else { m >> shift };
            let sticky = if shift >= 128 {
                m != 0
            } else {
                m & ((1u128 << shift) - 1) != 0
            };
            (kept | sticky as u128) as i128
        };
        sum += if neg { -aligned } else { aligned };
    }
    // Nonzero terms that cancel exactly give +0, or -0 when rounding down.
    round_exact(sum, e, mode, matches!(mode, Mode::Down))
}

#[test]
fn fp32_rounding_intrinsics_are_correctly_rounded() {
    let l = launch("fp32_round_arith");
    let (a, b, c) = (
        words(&input(&l, 0)),
        words(&input(&l, 1)),
        words(&input(&l, 2)),
    );
    let out = words(&golden(&l, 3));
    let modes = [Mode::Nearest, Mode::Zero, Mode::Up, Mode::Down];
    let mut bad = Vec::new();
    for i in 0..n_arg(&l) {
        let (x, y, z) = (
            f32::from_bits(a[i]),
            f32::from_bits(b[i]),
            f32::from_bits(c[i]),
        );
        for (j, &mode) in modes.iter().enumerate() {
            let want = [
                fused(&[(x, 1.0), (y, 1.0)], mode),
                fused(&[(x, 1.0), (y, -1.0)], mode),
                fused(&[(x, y)], mode),
                fused(&[(x, y), (z, 1.0)], mode),
            ];
            for (op, w) in want.iter().enumerate() {
                let got = f32::from_bits(out[i * 16 + op * 4 + j]);
                if !(got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan())) {
                    bad.push(format!("thread {i} op {op} mode {j}: x={x:e} y={y:e} z={z:e} silicon {got:e} ({:#x}), exact {w:e} ({:#x})", got.to_bits(), w.to_bits()));
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches: {:#?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

fn divide(x: f32, y: f32, mode: Mode) -> f32 {
    if !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0 {
        return (x as f64 / y as f64) as f32; // the special cases: signed zeros, infinities, NaN
    }
    let ((nx, mx, ex), (ny, my, ey)) = (decompose(x), decompose(y));
    let (mx, my) = (mx as u128, my as u128);
    let s = 100 + (128 - my.leading_zeros() as i32) - (128 - mx.leading_zeros() as i32);
    let (q, r) = ((mx << s) / my, (mx << s) % my);
    let q = ((q << 1) | (r != 0) as u128) as i128;
    round_exact(if nx != ny { -q } else { q }, ex - ey - s - 1, mode, false)
}

fn square_root(x: f32, mode: Mode) -> f32 {
    if !x.is_finite() || x <= 0.0 {
        return (x as f64).sqrt() as f32; // ±0, +inf, NaN and negative inputs (NaN)
    }
    let (_, mut m, mut e) = decompose(x);
    if e % 2 != 0 {
        m <<= 1;
        e -= 1;
    }
    let scaled = (m as u128) << 100;
    let root = scaled.isqrt();
    let q = ((root << 1) | (root * root != scaled) as u128) as i128;
    round_exact(q, (e - 100) / 2 - 1, mode, false)
}

#[test]
fn fp32_division_reciprocal_and_sqrt_are_correctly_rounded() {
    let l = launch("fp32_round_div_sqrt");
    let (a, b) = (words(&input(&l, 0)), words(&input(&l, 1)));
    let out = words(&golden(&l, 2));
    let modes = [Mode::Nearest, Mode::Zero, Mode::Up, Mode::Down];
    let mut bad = Vec::new();
    for i in 0..n_arg(&l) {
        let (x, y) = (f32::from_bits(a[i]), f32::from_bits(b[i]));
        let mut want: Vec<(usize, f32)> = Vec::new();
        for (j, &mode) in modes.iter().enumerate() {
            want.push((j, divide(x, y, mode)));
            want.push((4 + j, divide(1.0, x, mode)));
            want.push((8 + j, square_root(x, mode)));
        }
        want.extend([
            (12, divide(x, y, Mode::Nearest)),
            (13, square_root(x, Mode::Nearest)),
        ]);
        want.extend([
            (14, divide(1.0, y, Mode::Nearest)),
            (16, divide(x, 3.0, Mode::Nearest)),
        ]);
        for (j, w) in want {
            let got = f32::from_bits(out[i * 17 + j]);
            if !(got.to_bits() == w.to_bits() || (got.is_nan() && w.is_nan())) {
                bad.push(format!("thread {i} result {j}: x={x:e} y={y:e} silicon {got:e} ({:#x}), exact {w:e} ({:#x})", got.to_bits(), w.to_bits()));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches: {:#?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}
