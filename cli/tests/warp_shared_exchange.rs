//! Lanes of a warp exchanging data through shared memory in kernels without a warp instruction
//! (`corpus/src/warp_shared_exchange.cu`), end to end on lavapipe, against results computed here from the
//! inputs with a warp's lanes in lockstep — what a converged SM86 warp does, not a model of the translator.
//! nvcc drops a full-mask `__syncwarp()` of converged code to a `NOP`, and the legacy volatile tail reduction
//! has no sync at all: before `control::lockstep`, these kernels got the cheap form and 8-wide subgroups
//! raced (160 of 256 outputs wrong, exit 0). Each kernel runs with the inputs of its `corpus/launches.txt` line
//! and its output must equal both the model and the H200's (corpus/goldens, recorded 2026-12-02 03:35 UTC from
//! the sm_90 cubin; the three agree). The control kernel, with `__syncthreads()` between every store and load,
//! keeps the cheap form.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport::kernel_run::{run_kernel, KernelArg};
use sassport_corpus::inputs::generate;
use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::time::Duration;

const GRID: u32 = 2;
const BLOCK: u32 = 256;
const N: usize = 500;

fn cubin() -> Vec<u8> {
    std::fs::read(format!("{}/../corpus/sm86/warp_shared_exchange.cubin", env!("CARGO_MANIFEST_DIR")))
        .expect("corpus cubin")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// Runs `kernel` as its manifest line does (2 blocks of 256 threads, n = 500, an input word a thread from
/// `seed`, `k` output words a thread); returns the input and output words.
fn run(kernel: &str, seed: u64, k: usize) -> (Vec<u32>, Vec<u32>) {
    let threads = (GRID * BLOCK) as usize;
    let input = generate(4 * threads, seed);
    let x = words(&input);
    let mut rt = common::runtime(Duration::from_secs(600));
    rt.set_launch_timeout(Some(Duration::from_secs(600)));
    let n = KernelArg::Value { bytes: (N as i32).to_le_bytes().to_vec(), align: 4 };
    let args = [KernelArg::Buffer(input), KernelArg::Buffer(vec![0; 4 * k * threads]), n];
    let r = run_kernel(&mut rt, None, &cubin(), kernel, [GRID, 1, 1], [BLOCK, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("{kernel}: {e:#}"));
    (x, words(&r.buffers[1]))
}

/// Compares `out` with the model's `k` words a thread (threads from `n` on store nothing), and with silicon.
fn check(kernel: &str, out: &[u32], k: usize, want: &[Vec<u32>]) {
    let golden = format!("{}/../corpus/goldens/{kernel}.arg1.bin", env!("CARGO_MANIFEST_DIR"));
    let silicon = words(&std::fs::read(&golden).expect("the H200's output"));
    assert!(silicon == out, "{kernel}: lavapipe differs from the H200 in {} words",
        silicon.iter().zip(out).filter(|(a, b)| a != b).count());
    let mut bad = Vec::new();
    for (i, w) in want.iter().enumerate() {
        let w = if i < N { w.clone() } else { vec![0; k] };
        if out[k * i..k * i + k] != w[..] {
            bad.push(format!("thread {i}: got {:x?}, want {:x?}", &out[k * i..k * i + k], w));
        }
    }
    assert!(bad.is_empty(), "{kernel}: {} threads wrong, first: {}", bad.len(), bad[..bad.len().min(4)].join("; "));
}

/// Applies `f(warp inputs) -> per-lane outputs` to every warp of `x`.
fn per_warp(x: &[u32], f: impl Fn(&[u32]) -> Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    x.chunks(32).flat_map(f).collect()
}

/// `xchg_syncwarp` and `xchg_syncthreads`: butterfly rounds, then rotations (the barrier kind does not
/// change the result, only which lanes could observe each other).
fn butterfly(x: &[u32]) -> Vec<Vec<u32>> {
    let mut sum = x.to_vec();
    for k in [1, 2, 4, 8, 16] {
        let s = sum.clone();
        for l in 0..32 {
            sum[l] = sum[l].wrapping_mul(3).wrapping_add(s[l ^ k]);
        }
    }
    let left: Vec<u32> = (0..32).map(|l| sum[(l + 31) & 31]).collect();
    let s: Vec<u32> = (0..32).map(|l| left[l] ^ (x[l] << 1)).collect();
    (0..32).map(|l| vec![sum[l], left[l], s[(l + 1) & 31]]).collect()
}

/// `xchg_volatile_reduce` for one block: the tree down to 64 words, then the last warp in lockstep (each
/// step's loads before its stores).
fn volatile_reduce(x: &[u32]) -> Vec<Vec<u32>> {
    let mut s = x.to_vec();
    for h in [128, 64] {
        for t in 0..h {
            s[t] = s[t].wrapping_add(s[t + h]);
        }
    }
    let step = |s: &mut Vec<u32>, o: usize| {
        let old = s.clone();
        for t in 0..32 {
            s[t] = old[t].wrapping_add(old[t + o]);
        }
    };
    step(&mut s, 32);
    let first = s[..32].to_vec();
    for o in [16, 8, 4, 2, 1] {
        step(&mut s, o);
    }
    (0..x.len()).map(|t| if t < 32 { vec![first[t], s[t]] } else { vec![0, 0] }).collect()
}

fn partial_mask(x: &[u32]) -> Vec<Vec<u32>> {
    let lo: Vec<u32> = (0..16).map(|l| x[l].wrapping_add(7)).collect();
    let got: Vec<u32> = (0..16).map(|l| lo[(l + 3) & 15]).collect();
    let again: Vec<u32> = (0..16).map(|l| got[(l + 15) & 15].wrapping_mul(5)).collect();
    let hi: Vec<u32> = (16..32).map(|l| x[l] ^ 0x5a5a_5a5a).collect();
    (0..32).map(|l| if l < 16 { vec![got[l], again[l]] } else { vec![hi[(l + 5) & 15], 0] }).collect()
}

fn divergent(x: &[u32]) -> Vec<Vec<u32>> {
    let y: Vec<u32> = x
        .iter()
        .map(|&v| {
            if v & 1 != 0 {
                (0..v & 7).fold(v.wrapping_mul(2_654_435_761), |y, _| (y >> 3) ^ y.wrapping_mul(5))
            } else {
                v.wrapping_add(0x9e37_79b9)
            }
        })
        .collect();
    let u: Vec<u32> = (0..32).map(|l| if x[l] & 1 != 0 { y[l] } else { !y[l] }).collect();
    (0..32).map(|l| vec![x[31 - l].wrapping_add(y[l]), u[(l + 13) & 31]]).collect()
}

fn read_then_write(x: &[u32]) -> Vec<Vec<u32>> {
    let v: Vec<u32> = (0..32).map(|l| x[(l + 1) & 31]).collect();
    let s: Vec<u32> = v.iter().map(|&w| w.wrapping_mul(3).wrapping_add(1)).collect();
    (0..32).map(|l| vec![v[l], s[(l + 2) & 31]]).collect()
}

#[test]
fn syncwarp_butterflies_and_rotations() {
    let (x, out) = run("xchg_syncwarp", 1801, 3);
    check("xchg_syncwarp", &out, 3, &per_warp(&x, butterfly));
}

#[test]
fn volatile_warp_synchronous_tail_reduction() {
    let (x, out) = run("xchg_volatile_reduce", 1802, 2);
    let want: Vec<Vec<u32>> = x.chunks(BLOCK as usize).flat_map(volatile_reduce).collect();
    check("xchg_volatile_reduce", &out, 2, &want);
}

#[test]
fn partial_mask_syncwarp_in_half_warps() {
    let (x, out) = run("xchg_partial_mask", 1803, 2);
    check("xchg_partial_mask", &out, 2, &per_warp(&x, partial_mask));
}

#[test]
fn syncwarp_after_a_divergent_branch() {
    let (x, out) = run("xchg_divergent", 1804, 2);
    check("xchg_divergent", &out, 2, &per_warp(&x, divergent));
}

#[test]
fn load_then_store_across_a_syncwarp() {
    let (x, out) = run("xchg_read_then_write", 1805, 2);
    check("xchg_read_then_write", &out, 2, &per_warp(&x, read_then_write));
}

#[test]
fn syncthreads_control_keeps_the_cheap_form_and_the_result() {
    let (x, out) = run("xchg_syncthreads", 1806, 3);
    check("xchg_syncthreads", &out, 3, &per_warp(&x, butterfly));
}

/// The form each kernel gets without a device (no subgroups: turns for the exchanges) and on a device with
/// 32-wide subgroups (warps as subgroups); the control keeps one invocation a thread in both.
#[test]
fn forms_follow_the_exchanges() {
    let bytes = cubin();
    let c = Cubin::parse(&bytes).expect("cubin");
    let nvidia = Options { profile: Some(sassport_translator::lower::subgroup::warp_subgroup_profile()), ..Default::default() };
    for (kernel, lockstep) in [
        ("xchg_syncwarp", true),
        ("xchg_volatile_reduce", true),
        ("xchg_partial_mask", true),
        ("xchg_divergent", true),
        ("xchg_read_then_write", true),
        ("xchg_syncthreads", false),
    ] {
        let t = translate_kernel(&c, kernel, &Options::default()).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let form = t.report.form.expect("a form");
        match (&form, lockstep) {
            (Form::Turns { .. }, true) => {}
            (Form::Structured { warps_as_subgroups: false, .. }, false) => {}
            _ => panic!("{kernel}: {form}"),
        }
        let t = translate_kernel(&c, kernel, &nvidia).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let form = t.report.form.expect("a form");
        match (&form, lockstep) {
            (Form::Structured { warps_as_subgroups: true, .. }, true) => {}
            (Form::Structured { warps_as_subgroups: false, .. }, false) => {}
            _ => panic!("{kernel} with 32-wide subgroups: {form}"),
        }
        support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{kernel}: spirv-val: {e}"));
    }
}
