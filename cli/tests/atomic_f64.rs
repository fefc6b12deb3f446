//! Double-precision atomic add (issue 4): `RED.E.ADD.F64.RN`, `ATOMG.E.ADD.F64.RN` and the compare-and-store
//! loop nvcc emits for a double add on shared memory (`ATOMS.CAST.SPIN.64` with a scaled register address),
//! from `tests/data/atomic_f64_add.cu`. Each thread owns its addresses, so each result is one IEEE addition
//! rounded to nearest: Rust's f64 addition (exact arithmetic, correctly rounded) is the reference. Inputs
//! cover ties, carries into the exponent, cancellation, subnormals, signed zeros, overflow and infinities.
//! NaN results are only checked to be NaN (the payload the atomic unit writes has not been recorded).
//! The kernel holds a warp vote, so it runs in the warps-in-turns form; the same kernel without it
//! (`atomic_f64_add_plain`) takes the same form: `ATOMS.CAST.SPIN.64` asks for it.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport::kernel_run::{run_kernel, KernelArg};
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::time::Duration;

const CUBIN: &[u8] = include_bytes!("data/atomic_f64_add.cubin");
const BLOCK: u32 = 128;
const GRID: u32 = 2;
/// Threads with an element; the last block's other threads only take part in its shared-memory adds.
const N: usize = 250;

/// (accumulator, addend) pairs: special cases first, then a deterministic spread of magnitudes.
fn inputs() -> Vec<(f64, f64)> {
    let tiny = f64::from_bits(1);
    let mut v = vec![
        (1.0, f64::EPSILON / 2.0),              // tie, rounds to even (1.0)
        (1.0 + f64::EPSILON, f64::EPSILON / 2.0), // tie, rounds to even (up)
        (1.0, 3.0 * f64::EPSILON / 4.0),
        (f64::MAX, f64::MAX),                  // overflow to +inf
        (f64::MAX, f64::MAX / 2f64.powi(53)),  // just below the overflow tie
        (f64::MIN_POSITIVE, -tiny),            // normal to subnormal
        (tiny, tiny),
        (-tiny, tiny),                         // +0
        (-0.0, -0.0),
        (-0.0, 0.0),
        (0.0, -0.0),
        (1e300, -1e300),
        (f64::INFINITY, 1.0),
        (f64::NEG_INFINITY, f64::MAX),
        (f64::INFINITY, f64::NEG_INFINITY),    // NaN
        (f64::NAN, 1.0),
        (2.0, -f64::from_bits(0x7ff8_0000_0000_1234)),
        (0.1, 0.2),
        (1.0 - f64::EPSILON / 2.0, f64::EPSILON / 4.0),
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    while v.len() < N {
        // Random sign and mantissa, exponents within +-60 of each other around 1 (so the sums round).
        let a = f64::from_bits((next() & 0x800f_ffff_ffff_ffff) | ((1023 + next() % 41 - 20) << 52));
        let b = f64::from_bits((next() & 0x800f_ffff_ffff_ffff) | ((1023 + next() % 121 - 60) << 52));
        v.push((a, b));
    }
    v
}

fn bytes(v: impl IntoIterator<Item = f64>) -> Vec<u8> {
    v.into_iter().flat_map(|d| d.to_le_bytes()).collect()
}

fn doubles(b: &[u8]) -> Vec<f64> {
    b.chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Same bits, or both NaN.
fn same(got: f64, want: f64) -> bool {
    got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan())
}

#[test]
fn f64_atomic_add_rounds_to_nearest() {
    for kernel in ["atomic_f64_add", "atomic_f64_add_plain"] {
        f64_atomic_add_in(kernel);
    }
}

fn f64_atomic_add_in(kernel: &str) {
    let cubin = Cubin::parse(CUBIN).unwrap();
    let t = translate_kernel(&cubin, kernel, &Options::default()).expect("translates");
    support::spirv_val(&t.words).expect("spirv-val");

    let pairs = inputs();
    let acc: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let add: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let mut rt = common::runtime(Duration::from_secs(300));
    let args = [
        KernelArg::Buffer(bytes(acc.iter().copied())),
        KernelArg::Buffer(bytes(acc.iter().copied())),
        KernelArg::Buffer(bytes(std::iter::repeat_n(0.0, N))),
        KernelArg::Buffer(bytes(std::iter::repeat_n(0.0, N))),
        KernelArg::Buffer(bytes(add.iter().copied())),
        KernelArg::Value { bytes: (N as i32).to_le_bytes().to_vec(), align: 4 },
    ];
    let run = run_kernel(&mut rt, None, CUBIN, kernel, [GRID, 1, 1], [BLOCK, 1, 1], 0, &args)
        .expect("runs");
    let [red, atom, old, shared] = [0, 1, 2, 3].map(|k| doubles(&run.buffers[k]));
    let mut bad = Vec::new();
    for i in 0..N {
        let want = acc[i] + add[i];
        for (what, got) in [("RED", red[i]), ("ATOMG", atom[i]), ("shared", shared[i])] {
            if !same(got, want) {
                bad.push(format!("{what} {i}: {:?} + {:?} = {:?}, want {:?}", acc[i], add[i], got, want));
            }
        }
        if old[i].to_bits() != acc[i].to_bits() && !(old[i].is_nan() && acc[i].is_nan()) {
            bad.push(format!("ATOMG old {i}: {:?}, want {:?}", old[i], acc[i]));
        }
    }
    assert!(bad.is_empty(), "{kernel}: {} wrong:\n{}", bad.len(), bad.join("\n"));
}

/// `ATOMS.CAST.SPIN.64` is translated with warps in turns only, so a kernel holding it takes that form even
/// without other warp instructions (it used to be refused in the structured form).
#[test]
fn shared_f64_add_without_warp_instructions_runs_in_turns() {
    use sassport_translator::control::structured::Form;
    let cubin = Cubin::parse(CUBIN).unwrap();
    let t = translate_kernel(&cubin, "atomic_f64_add_plain", &Options::default()).expect("translates");
    assert!(matches!(t.report.form, Some(Form::Turns { .. })), "{:?}", t.report.form);
}
