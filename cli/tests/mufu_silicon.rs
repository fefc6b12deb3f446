//! MUFU against NVIDIA silicon: the sweep kernels of `corpus/silicon/mufu_sweep.cu` (one PTX approximation,
//! one MUFU instruction each) translated by sassport, run on lavapipe over the recorded inputs of
//! `corpus/silicon/mufu_*.txt` and compared with what an H200 computed (corpus/silicon/RECORDED.md).
//!
//! The bound asserted per operation is the one docs/float-exactness.md states; the measured maximum is
//! printed. The sin/cos kernels carry an FMUL.RZ by 1/(2 pi) before the MUFU; the recorder patched its
//! immediate to 1.0, and so does this test, so the MUFU sees the recorded input itself.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_runtime::{Bank0, Launch, Runtime};
use sassport_translator::program::{Disassembler, TableDecoder};
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

fn silicon_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/silicon")
}

/// The sm_86 sweep cubin with `FMUL.RZ R7, R2, 1/(2 pi)` (both kernels) turned into a multiply by 1.0.
fn cubin_bytes() -> Vec<u8> {
    let mut bytes = std::fs::read(silicon_dir().join("mufu_sweep.sm86.cubin")).unwrap();
    let from = 0x3e22_f983_0207_7820u64.to_le_bytes();
    let to = 0x3f80_0000_0207_7820u64.to_le_bytes();
    let mut patched = 0;
    let mut i = 0;
    while i + 8 <= bytes.len() {
        if bytes[i..i + 8] == from {
            bytes[i..i + 8].copy_from_slice(&to);
            patched += 1;
        }
        i += 8;
    }
    assert_eq!(
        patched, 2,
        "the sin and cos kernels each carry one FMUL.RZ by 1/(2 pi)"
    );
    bytes
}

/// Order-preserving integer of float bits (for ulp distances).
fn ord32(b: u32) -> i64 {
    if b & 0x8000_0000 != 0 {
        -((b & 0x7fff_ffff) as i64)
    } else {
        b as i64
    }
}

/// Ulp distance, or None when the two differ in class (NaN, infinity, zero against non-zero).
fn ulps(got: u32, want: u32) -> Option<i64> {
    let nan = |b: u32| b & 0x7fff_ffff > 0x7f80_0000;
    let inf = |b: u32| b & 0x7fff_ffff == 0x7f80_0000;
    if nan(got) || nan(want) {
        return (nan(got) && nan(want)).then_some(0);
    }
    if inf(got) || inf(want) {
        return (got == want).then_some(0);
    }
    Some((ord32(got) - ord32(want)).abs())
}

fn run(rt: &mut Runtime, cubin: &Cubin<'_>, kernel: &str, input: &[u32]) -> Vec<u32> {
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(cubin, kernel, &Options::default(), dis).unwrap();
    support::spirv_val(&t.words).unwrap();
    let id = rt.load_kernel(kernel, &t.words).unwrap();
    let n = input.len();
    let bytes: Vec<u8> = input.iter().flat_map(|w| w.to_le_bytes()).collect();
    let a_in = rt.alloc(bytes.len() as u64).unwrap();
    rt.upload(a_in, &bytes).unwrap();
    let a_out = rt.alloc(bytes.len() as u64).unwrap();
    rt.upload(a_out, &vec![0u8; bytes.len()]).unwrap();
    let mut params = Vec::new();
    params.extend_from_slice(&a_in.to_le_bytes());
    params.extend_from_slice(&a_out.to_le_bytes());
    params.extend_from_slice(&(n as u32).to_le_bytes());
    let grid = (n as u32).div_ceil(256);
    let bank0 = Bank0::new([grid, 1, 1], [256, 1, 1]).with_params(&params);
    let banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    rt.launch(&Launch {
        kernel: id,
        grid: [grid, 1, 1],
        block: [256, 1, 1],
        dynamic_shared_bytes: 0,
        banks: &banks,
    })
    .unwrap();
    let mut got = vec![0u8; bytes.len()];
    rt.download(a_out, &mut got).unwrap();
    rt.free(a_in).unwrap();
    rt.free(a_out).unwrap();
    got.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn hex(s: &str) -> u32 {
    u32::from_str_radix(s, 16).unwrap()
}

/// Per operation: (kernel, inputs, silicon outputs).
fn recordings() -> BTreeMap<&'static str, (Vec<u32>, Vec<u32>)> {
    let mut m: BTreeMap<&'static str, (Vec<u32>, Vec<u32>)> = BTreeMap::new();
    let text = std::fs::read_to_string(silicon_dir().join("mufu_sincos.txt")).unwrap();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let w: Vec<u32> = line.split_whitespace().map(hex).collect();
        let s = m.entry("mufu_sin").or_default();
        s.0.push(w[0]);
        s.1.push(w[1]);
        let c = m.entry("mufu_cos").or_default();
        c.0.push(w[0]);
        c.1.push(w[2]);
    }
    let text = std::fs::read_to_string(silicon_dir().join("mufu_other.txt")).unwrap();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let k = match f[0] {
            "tanh" => "mufu_tanh",
            "lg2" => "mufu_lg2",
            "ex2" => "mufu_ex2",
            "rcp" => "mufu_rcp",
            "rsq" => "mufu_rsq",
            _ => "mufu_sqrt",
        };
        let e = m.entry(k).or_default();
        e.0.push(hex(f[1]));
        e.1.push(hex(f[2]));
    }
    m
}

/// The ulp bound docs/float-exactness.md states for each operation (every recorded input).
fn bound(kernel: &str) -> i64 {
    match kernel {
        "mufu_sin" | "mufu_cos" | "mufu_lg2" | "mufu_tanh" => 1,
        "mufu_ex2" | "mufu_rcp" | "mufu_rsq" | "mufu_sqrt" => 4,
        _ => 0,
    }
}

#[test]
fn mufu_matches_h200_recordings_within_stated_bounds() {
    let bytes = cubin_bytes();
    let cubin = Cubin::parse(&bytes).unwrap();
    let mut rt = common::runtime(Duration::from_secs(300));
    let mut failures = Vec::new();
    for (kernel, (input, want)) in recordings() {
        let got = run(&mut rt, &cubin, kernel, &input);
        let mut worst = (0i64, 0u32, 0u32, 0u32);
        let mut class_mismatch = Vec::new();
        let mut over4 = 0usize;
        for ((&x, &g), &w) in input.iter().zip(&got).zip(&want) {
            match ulps(g, w) {
                Some(d) => {
                    if d > 4 {
                        over4 += 1;
                    }
                    if d > worst.0 {
                        worst = (d, x, g, w);
                    }
                }
                None => class_mismatch.push((x, g, w)),
            }
        }
        // Zeros keep silicon's sign exactly.
        let sign_mismatch = input
            .iter()
            .zip(&got)
            .zip(&want)
            .filter(|((_, &g), &w)| g & 0x7fff_ffff == 0 && w & 0x7fff_ffff == 0 && g != w)
            .count();
        println!(
            "{kernel}: {} inputs, max {} ulp (x {:#010x}: ours {:#010x}, silicon {:#010x}), {over4} over 4 ulp, {} class mismatches, {sign_mismatch} zero signs differ",
            input.len(),
            worst.0,
            worst.1,
            worst.2,
            worst.3,
            class_mismatch.len()
        );
        if worst.0 > bound(kernel) || !class_mismatch.is_empty() || sign_mismatch > 0 {
            failures.push(format!(
                "{kernel}: max {} ulp (bound {}), class mismatches {:x?}",
                worst.0,
                bound(kernel),
                &class_mismatch[..class_mismatch.len().min(6)]
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
