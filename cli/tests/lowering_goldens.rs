//! Kernels made translatable by the lowering families `simd` (IDP, VABSDIFF, VABSDIFF4), `predicate` (P2R,
//! R2P, PLOP3 on register signs), `narrow` (I2I, I2IP), `misc` (QSPC, BPT.TRAP), `async_copy` (LDGSTS),
//! `shared_counter` (ATOMS.POPC.INC) and FSET: translated, validated with spirv-val, run on lavapipe and
//! compared with the NVIDIA silicon goldens in `corpus/goldens/` (bit for bit, or within the manifest's ulp
//! tolerance). `trap_on_magic` is also run with its magic input to check that `__trap()` ends the launch with
//! a fault naming the BPT.TRAP instruction.

#[path = "../../translator/tests/support/mod.rs"]
mod support;
mod common;

use sassport_corpus::{Arg, Comparison, Launch};
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

/// Order-preserving integer of f32 bits, for ulp distances.
fn ord32(b: u32) -> i64 {
    if b & 0x8000_0000 != 0 {
        -((b & 0x7fff_ffff) as i64)
    } else {
        b as i64
    }
}

/// Translates, loads and launches `l` with its manifest inputs, `patch` applied to the first input buffer.
/// Returns the launch result and the buffers after it (or the reason the kernel could not run).
fn launch(
    rt: &mut Runtime,
    l: &Launch,
    patch: impl Fn(&mut Vec<u8>),
) -> Result<(Result<(), String>, Vec<Vec<u8>>), String> {
    let bytes = std::fs::read(l.cubin_sm86()).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    cubin.kernel(&l.kernel).ok_or("no kernel")?;
    // The product's own decoder: what users get.
    let dis: &dyn Disassembler = &TableDecoder;
    let t = translate_kernel_with(&cubin, &l.kernel, &Options::default(), dis).map_err(|e| e.to_string())?;
    support::spirv_val(&t.words).map_err(|e| format!("spirv-val: {e}"))?;
    let id = rt.load_kernel(&l.kernel, &t.words).map_err(|e| format!("load: {e}"))?;
    let mut addrs = Vec::new();
    let mut first = true;
    for a in &l.args {
        if let Some(mut init) = a.initial_contents() {
            if first && matches!(a, Arg::InBuffer { .. }) {
                patch(&mut init);
                first = false;
            }
            let addr = rt.alloc(init.len().max(4) as u64).unwrap();
            rt.upload(addr, &init).unwrap();
            addrs.push((addr, init.len()));
        }
    }
    let params = l.param_bytes(&addrs.iter().map(|a| a.0).collect::<Vec<_>>()).unwrap();
    // Bank 0 as the CUDA driver fills it (the same builder the product uses).
    let bank0 = Bank0::new([l.grid.x, l.grid.y, l.grid.z], [l.block.x, l.block.y, l.block.z]).with_dynamic_shared(l.shared_bytes).with_params(&params);
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    for b in &cubin.constant_banks {
        if b.bank != 0 && (b.function.is_none() || b.function == Some(l.kernel.as_str())) {
            banks.push((b.bank, b.data));
        }
    }
    let result = rt
        .launch(&RtLaunch {
            kernel: id,
            grid: [l.grid.x, l.grid.y, l.grid.z],
            block: [l.block.x, l.block.y, l.block.z],
            dynamic_shared_bytes: l.shared_bytes,
            banks: &banks,
        })
        .map(|_| ())
        .map_err(|e| e.to_string());
    let mut out = Vec::new();
    for (addr, len) in addrs {
        let mut got = vec![0u8; len];
        rt.download(addr, &mut got).unwrap();
        out.push(got);
    }
    Ok((result, out))
}

/// Compares every buffer argument with its golden; an empty string when all match.
fn compare(l: &Launch, bufs: &[Vec<u8>]) -> String {
    let mut report = String::new();
    let mut buf = 0;
    for (idx, a) in l.args.iter().enumerate() {
        if !a.is_buffer() {
            continue;
        }
        let got = &bufs[buf];
        buf += 1;
        let want = std::fs::read(l.golden(idx)).unwrap();
        let tol = match l.comparison {
            Comparison::F32Ulp(n) => n as i64,
            _ => 0,
        };
        let mut bad = 0;
        for (i, (g, w)) in words(got).iter().zip(words(&want)).enumerate() {
            let ok = *g == w
                || tol > 0
                    && (w & 0x7f80_0000) != 0x7f80_0000
                    && (*g & 0x7f80_0000) != 0x7f80_0000
                    && (ord32(*g) - ord32(w)).abs() <= tol;
            if !ok {
                bad += 1;
                if bad <= 12 {
                    report += &format!("  arg{idx} word {i}: got {g:#010x} want {w:#010x}\n");
                }
            }
        }
        if bad > 0 {
            report += &format!("  arg{idx}: {bad} mismatches\n");
        }
    }
    report
}

const KERNELS: &[&str] = &[
    "int32_arith",
    "int32_saturate_simd",
    "fp32_default_ops",
    "precise_math",
    "narrowing_conversions",
    "address_spaces",
    "trap_on_magic",
    "cp_async_sizes",
    "cp_async_pipeline",
    "histogram_shared",
];

#[test]
fn lowered_kernels_match_silicon_goldens() {
    let only: Option<Vec<String>> =
        std::env::var("SASSPORT_GOLDEN_KERNELS").ok().map(|s| s.split(',').map(str::to_string).collect());
    let launches = sassport_corpus::launches().unwrap();
    let mut rt = runtime();
    let mut failures = Vec::new();
    let mut summary = String::new();
    for name in KERNELS {
        if only.as_ref().is_some_and(|o| !o.iter().any(|k| k == name)) {
            continue;
        }
        let l = launches.iter().find(|l| l.kernel == *name).unwrap();
        match launch(&mut rt, l, |_| {}) {
            Err(r) => {
                summary += &format!("{name}: refused: {r}\n");
                failures.push(*name);
            }
            Ok((Err(e), _)) => {
                summary += &format!("{name}: launch failed: {e}\n");
                failures.push(*name);
            }
            Ok((Ok(()), bufs)) => {
                let r = compare(l, &bufs);
                if r.is_empty() {
                    summary += &format!("{name}: match\n");
                } else {
                    summary += &format!("{name}: MISMATCH\n{r}");
                    failures.push(*name);
                }
            }
        }
    }
    eprintln!("{summary}");
    assert!(failures.is_empty(), "kernels not matching silicon: {failures:?}\n{summary}");
}

/// `trap_on_magic` traps when its input holds the magic word `0xfee1dead` (the `ISETP.NE ... -0x11e2153`
/// before its BPT.TRAP at .text+0xd0): the launch must fail with a fault at that pc, not finish.
#[test]
fn trap_ends_the_launch_with_a_fault() {
    let launches = sassport_corpus::launches().unwrap();
    let l = launches.iter().find(|l| l.kernel == "trap_on_magic").unwrap();
    let mut rt = runtime();
    let magic = (-0x11e2153i32) as u32;
    let (result, _) = launch(&mut rt, l, |b| b[40..44].copy_from_slice(&magic.to_le_bytes())).unwrap();
    let err = result.expect_err("a trapping kernel must not complete");
    assert!(err.contains("pc 0xd0"), "fault names the BPT.TRAP pc: {err}");
}
