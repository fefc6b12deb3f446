//! Limits are enforced by name (issue 24 item 4), each case from the input that used to pass silently:
//! - shared memory beyond the device's limit is refused with the figures (it used to run);
//! - a shared access past the block's allocation as the hardware sizes it faults, one inside it behaves as on
//!   silicon (a store 0x400 bytes into a 1 KiB array used to pass);
//! - a misaligned global access is reported as misaligned (it used to say "outside the window"), as the H200
//!   reported every misaligned access of the same kernels (`cudaErrorMisalignedAddress`);
//! - every grid CUDA allows launches, also for a kernel that reads no launch values (it used to be refused).
//!
//! The kernels are our own, `corpus/silicon/limits.cu`, built with the pinned nvcc (`limits.sm86.cubin`);
//! `limits.sm90.cubin` is what `record_limits.py` ran natively on an H200 to find where silicon faults.

mod common;

use sassport::kernel_run::{run_kernel, KernelArg, KernelRun, RunError};
use sassport_runtime::{Runtime, RuntimeError};
use sassport_translator::lower::shared_allocation_bytes;
use std::path::PathBuf;
use std::time::Duration;

fn cubin() -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/silicon/limits.sm86.cubin");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn u32_arg(v: u32) -> KernelArg {
    KernelArg::Value { bytes: v.to_le_bytes().to_vec(), align: 4 }
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn run(
    rt: &mut Runtime,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic: u32,
    args: &[KernelArg],
) -> Result<KernelRun, String> {
    match run_kernel(rt, None, &cubin(), kernel, grid, block, dynamic, args) {
        Ok(r) => Ok(r),
        Err(RunError::Refused(r)) => panic!("{kernel}: refused by the translator: {r}"),
        Err(RunError::Other(e)) => Err(format!("{e:#}")),
    }
}

/// The error of a launch that must fail (not a refusal by the translator).
fn launch_error(rt: &mut Runtime, kernel: &str, dynamic: u32, args: &[KernelArg]) -> anyhow::Error {
    match run_kernel(rt, None, &cubin(), kernel, [1, 1, 1], [32, 1, 1], dynamic, args) {
        Ok(_) => panic!("{kernel} with {dynamic} bytes of dynamic shared memory ran"),
        Err(RunError::Refused(r)) => panic!("{kernel}: refused by the translator: {r}"),
        Err(RunError::Other(e)) => e,
    }
}

/// The runtime's error under the launch's context.
fn runtime_error(e: &anyhow::Error) -> &RuntimeError {
    e.chain()
        .find_map(|c| c.downcast_ref::<RuntimeError>())
        .unwrap_or_else(|| panic!("not a runtime error: {e:#}"))
}

// ---- shared memory beyond the device's limit ---------------------------------------------------------------

#[test]
fn static_plus_dynamic_shared_memory_over_the_device_limit_is_refused_with_the_figures() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let limit = rt.device().limits.max_shared_memory_bytes;
    let probe = |dynamic: u32| probe_args("past_dynamic", 0, 3, dynamic);
    // past_dynamic: no static shared memory of its own. Workgroup memory of the translated form (the turns
    // scheduler's, where lanes may exchange data through shared memory) counts as static: the rest of the
    // limit runs, 16 bytes more do not.
    let e = launch_error(&mut rt, "past_dynamic", limit + 16, &probe(limit + 16));
    let e = runtime_error(&e);
    let reserved = match e {
        RuntimeError::SharedMemoryLimit { kernel, static_bytes, dynamic_bytes, limit: l }
            if kernel == "past_dynamic" && *dynamic_bytes == u64::from(limit + 16) && *l == limit =>
        {
            *static_bytes
        }
        _ => panic!("{e}"),
    };
    assert!(reserved < 1024, "{e}");
    // The dynamic part starts at an aligned offset after the static one: leave the static part's granule.
    let usable = limit - (reserved as u32).div_ceil(128) * 128;
    run(&mut rt, "past_dynamic", [1; 3], [32, 1, 1], usable, &probe(usable)).expect("the rest of the limit is usable");
    // past_static_1024: 1024 static bytes (plus the form's), so 16 bytes of dynamic shared memory more than the
    // rest of the limit are too many.
    let args = probe_args("past_static_1024", 0, 3, 0);
    let e = launch_error(&mut rt, "past_static_1024", limit, &args);
    let e = runtime_error(&e);
    let RuntimeError::SharedMemoryLimit { static_bytes, .. } = e else { panic!("{e}") };
    let static_bytes = *static_bytes;
    assert!((1024..2048).contains(&static_bytes), "{e}");
    let rest = limit - (static_bytes as u32).div_ceil(128) * 128;
    run(&mut rt, "past_static_1024", [1; 3], [32, 1, 1], rest, &args).expect("static + dynamic within the limit runs");
    let over = limit - static_bytes as u32 + 16;
    let e = launch_error(&mut rt, "past_static_1024", over, &args);
    let e = runtime_error(&e);
    assert!(
        matches!(e, RuntimeError::SharedMemoryLimit { dynamic_bytes, .. } if *dynamic_bytes == u64::from(over)),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains(&format!("{static_bytes} bytes of static")) && text.contains(&format!("limit of {limit} bytes")), "{text}");
}

#[test]
fn static_shared_memory_over_the_device_limit_moves_to_the_window_or_is_refused() {
    // fill_shared: 48 KiB of static shared memory, over lavapipe's 32 KiB, exactly NVIDIA's 48 KiB.
    let mut rt = common::runtime(Duration::from_secs(120));
    let limit = rt.device().limits.max_shared_memory_bytes;
    let args = vec![u32_arg(0xdd00_0000), KernelArg::Buffer(vec![0; 4 * 4])];
    if limit < 48 << 10 {
        // Static shared memory alone over the device's limit lives in per-block window slots
        // (docs/block-order.md): the kernel runs, each block reading back what it wrote.
        let r = run(&mut rt, "fill_shared", [4, 1, 1], [32, 1, 1], 0, &args).expect("window-backed shared memory runs");
        let out = words(&r.buffers[0]);
        let want: Vec<u32> = (0..4u32).map(|b| 0xdd00_0000 | (b * 37 % 12288)).collect();
        assert_eq!(out, want);
        return;
    }
    let dynamic = limit - (48 << 10) + 16;
    let e = launch_error(&mut rt, "fill_shared", dynamic, &args);
    let e = runtime_error(&e);
    assert!(
        matches!(e, RuntimeError::SharedMemoryLimit { kernel, static_bytes: 49152, dynamic_bytes, limit: l }
            if kernel == "fill_shared" && *dynamic_bytes == u64::from(dynamic) && *l == limit),
        "{e}"
    );
}

// ---- shared accesses past the block's allocation ------------------------------------------------------------

/// One probe recorded on the H200 (`corpus/silicon/limits.first_faults.txt`, from `record_limits.py`).
struct Recorded {
    kernel: String,
    dynamic: u32,
    /// 1 store, 2 load, 3 store then load.
    mode: u32,
    /// Byte offsets from the probed array's first byte: the last that ran, the first that faulted.
    last_pass: Option<u32>,
    first_fault: u32,
}

fn recorded_first_faults() -> Vec<Recorded> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus/silicon/limits.first_faults.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let hex = |f: &str| u32::from_str_radix(f.trim_start_matches("0x"), 16).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Recorded {
                kernel: f[0].to_string(),
                dynamic: f[1].parse().unwrap(),
                mode: f[2].parse().unwrap(),
                last_pass: (f[3] != "-").then(|| hex(f[3])),
                first_fault: hex(f[4]),
            }
        })
        .collect()
}

/// The kernel's static shared memory, as the cubin gives it (ptxas rounds arrays up to 16 bytes: 0x10 for
/// 4, 0x70 for 100, 0x410 for 1028).
fn cubin_static_shared(kernel: &str) -> u32 {
    let bytes = cubin();
    let cubin = sassport_translator::Cubin::parse(&bytes).unwrap();
    let k = cubin.kernel(kernel).unwrap();
    u32::try_from(k.shared_size).unwrap()
}

const VALUE_TAG: u32 = 0x5100_0000;

fn probe_args(kernel: &str, off: u32, mode: u32, dynamic: u32) -> Vec<KernelArg> {
    let dynamic_array = matches!(kernel, "past_dynamic" | "past_both");
    let array_words = if dynamic_array {
        dynamic / 4
    } else {
        kernel.trim_start_matches("past_static_").parse::<u32>().unwrap() / 4
    };
    let mut args = vec![
        u32_arg(off),
        u32_arg(VALUE_TAG | off),
        u32_arg(mode),
        KernelArg::Buffer(vec![0; 4 * (array_words as usize + 4)]),
    ];
    if dynamic_array {
        args.push(u32_arg(array_words));
    }
    args
}

#[test]
fn shared_accesses_fault_exactly_where_the_h200_faults() {
    let recorded = recorded_first_faults();
    assert_eq!(recorded.len(), 48, "the recording's table changed");
    let mut rt = common::runtime(Duration::from_secs(120));
    for r in &recorded {
        let (kernel, dynamic, mode) = (r.kernel.as_str(), r.dynamic, r.mode);
        let what = format!("{kernel} with {dynamic} dynamic bytes, mode {mode}");
        // The probed array starts after the static array in past_both, at 0 otherwise.
        let static_bytes = cubin_static_shared(kernel);
        let start = if kernel == "past_both" { static_bytes } else { 0 };
        // The translator's one function for the hardware's bound is where silicon faulted.
        assert_eq!(shared_allocation_bytes(static_bytes, dynamic), u64::from(start + r.first_fault), "{what}");
        // The last offset that ran on silicon runs here; a load after a store there reads the store (on the
        // H200 a load there without a store read stale data of an earlier block, or 0).
        if let Some(last) = r.last_pass {
            let run = run(&mut rt, kernel, [1; 3], [32, 1, 1], dynamic, &probe_args(kernel, last, mode, dynamic))
                .unwrap_or_else(|e| panic!("{what} at {last:#x}: {e}"));
            let out = words(&run.buffers[0]);
            assert_eq!(out[1], 1, "{what} at {last:#x}: thread 0 finished");
            if mode == 3 {
                assert_eq!(out[0], VALUE_TAG | last, "{what} at {last:#x}: reads its own store");
            }
        }
        // The first offset that faulted on silicon faults here, as the access it is (the store, in mode 3).
        let e = launch_error(&mut rt, kernel, dynamic, &probe_args(kernel, r.first_fault, mode, dynamic));
        let text = format!("{e:#}");
        let access = if mode == 2 { "load" } else { "store" };
        match runtime_error(&e) {
            RuntimeError::MemorySpaceFault { space: "shared", access: a, offset, size: 4, .. } => {
                assert_eq!((*a, *offset), (access, u64::from(start + r.first_fault)), "{what}: {text}")
            }
            _ => panic!("{what} at {:#x}: not a shared fault: {text}", r.first_fault),
        }
    }
}

#[test]
fn a_misaligned_shared_access_is_reported_as_misaligned() {
    // Inside the array but at offset 2: SM86 raises a misaligned address, not an out-of-range one.
    let mut rt = common::runtime(Duration::from_secs(120));
    for (mode, access) in [(1, "store"), (2, "load")] {
        let e = launch_error(&mut rt, "past_static_1024", 0, &probe_args("past_static_1024", 0x102, mode, 0));
        let text = format!("{e:#}");
        match runtime_error(&e) {
            RuntimeError::Misaligned { space: "shared-memory offset", access: a, address: 0x102, size: 4, .. } => {
                assert_eq!(*a, access, "{text}")
            }
            _ => panic!("{access} at 0x102: not a misaligned fault: {text}"),
        }
    }
}

// ---- misaligned global accesses ----------------------------------------------------------------------------

#[test]
fn misaligned_global_accesses_are_reported_as_misaligned() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let base: Vec<u8> = (0..64u8).collect();
    let word = |o: usize| u64::from_le_bytes(base[o..o + 8].try_into().unwrap());
    // Aligned: runs and loads what is there.
    let aligned = vec![KernelArg::Buffer(base.clone()), u32_arg(8), KernelArg::Buffer(vec![0; 8])];
    let r = run(&mut rt, "global_load64_at", [1; 3], [1; 3], 0, &aligned).unwrap();
    assert_eq!(u64::from_le_bytes(r.buffers[1][..8].try_into().unwrap()), word(8));
    for (kernel, off, access, size, third) in [
        ("global_load64_at", 4, "load", 8u32, KernelArg::Buffer(vec![0; 8])),
        ("global_store64_at", 4, "store", 8, KernelArg::Value { bytes: 7u64.to_le_bytes().to_vec(), align: 8 }),
        ("global_load128_at", 8, "load", 16, KernelArg::Buffer(vec![0; 16])),
        ("global_store128_at", 4, "store", 16, KernelArg::Buffer(vec![1; 16])),
        ("global_load32_at", 2, "load", 4, KernelArg::Buffer(vec![0; 4])),
        ("global_atomic32_at", 2, "atomic", 4, KernelArg::Buffer(vec![0; 4])),
    ] {
        let args = vec![KernelArg::Buffer(base.clone()), u32_arg(off), third];
        let e = match run_kernel(&mut rt, None, &cubin(), kernel, [1; 3], [1; 3], 0, &args) {
            Ok(_) => panic!("{kernel} at +{off} ran"),
            Err(RunError::Refused(r)) => panic!("{kernel}: refused: {r}"),
            Err(RunError::Other(e)) => e,
        };
        let text = format!("{e:#}");
        match runtime_error(&e) {
            RuntimeError::Misaligned { kernel: k, space: "address", access: a, address, size: s, .. } => {
                assert_eq!((k.as_str(), *a, *s), (kernel, access, size), "{text}");
                assert_eq!(address % u64::from(size), u64::from(off) % u64::from(size), "{text}");
            }
            _ => panic!("{kernel} at +{off}: not a misaligned fault: {text}"),
        }
        assert!(text.contains(&format!("misaligned {access} of {size} bytes at address 0x")), "{text}");
        assert!(!text.contains("outside the window"), "{text}");
    }
}

// ---- grids of any CUDA size --------------------------------------------------------------------------------

#[test]
fn a_grid_wider_than_a_dispatch_writes_every_block_word() {
    let mut rt = common::runtime(Duration::from_secs(120));
    for grid in [[70_000u32, 1, 1], [1, 65_535, 1], [3, 2, 2]] {
        let blocks = grid.iter().product::<u32>() as usize;
        let args = vec![KernelArg::Buffer(vec![0; 4 * blocks])];
        let r = run(&mut rt, "block_word", grid, [32, 1, 1], 0, &args).unwrap();
        // The host's answer: block b (x fastest) writes b + 1 at word b.
        let got = words(&r.buffers[0]);
        let wrong = (0..blocks).find(|&b| got[b] != b as u32 + 1);
        assert_eq!(wrong, None, "grid {grid:?}: first wrong block word");
    }
}

#[test]
fn a_kernel_reading_no_launch_values_launches_any_cuda_grid() {
    let mut rt = common::runtime(Duration::from_secs(120));
    for grid in [[70_000u32, 1, 1], [1, 65_535, 1], [1, 1, 65_535], [65_536, 2, 1]] {
        run(&mut rt, "no_launch_values", grid, [1; 3], 0, &[u32_arg(5)])
            .unwrap_or_else(|e| panic!("grid {grid:?}: {e}"));
    }
}
