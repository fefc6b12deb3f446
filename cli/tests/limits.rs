//! Limits are enforced by name (issue 24 item 4), each case from the input that used to pass silently:
//! - shared memory beyond the device's limit is refused with the figures (it used to run);
//! - a shared access past the block's allocation as the hardware sizes it faults, one inside it behaves as on
//!   silicon (a store 0x400 bytes into a 1 KiB array used to pass);
//! - a misaligned global access is reported as misaligned (it used to say "outside the window");
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
    let probe = |dynamic: u32| {
        let words = 2 + 256 + 2;
        vec![u32_arg(0), u32_arg(0x5100_0000), u32_arg(3), KernelArg::Buffer(vec![0; 4 * words]), u32_arg(dynamic / 4)]
    };
    // past_dynamic: no static shared memory. All of the limit runs, 16 bytes more do not.
    run(&mut rt, "past_dynamic", [1; 3], [32, 1, 1], limit, &probe(limit)).expect("the whole limit is usable");
    let e = launch_error(&mut rt, "past_dynamic", limit + 16, &probe(limit + 16));
    let e = runtime_error(&e);
    assert!(
        matches!(e, RuntimeError::SharedMemoryLimit { kernel, static_bytes: 0, dynamic_bytes, limit: l }
            if kernel == "past_dynamic" && *dynamic_bytes == u64::from(limit + 16) && *l == limit),
        "{e}"
    );
    // past_static_1024: 1024 static bytes, so 16 bytes of dynamic shared memory fewer than the limit are too many.
    let args = vec![u32_arg(0), u32_arg(0x5100_0000), u32_arg(3), KernelArg::Buffer(vec![0; 4 * 260])];
    run(&mut rt, "past_static_1024", [1; 3], [32, 1, 1], limit - 1024, &args).expect("static + dynamic = limit runs");
    let e = launch_error(&mut rt, "past_static_1024", limit - 1008, &args);
    let e = runtime_error(&e);
    assert!(
        matches!(e, RuntimeError::SharedMemoryLimit { static_bytes: 1024, dynamic_bytes, .. }
            if *dynamic_bytes == u64::from(limit - 1008)),
        "{e}"
    );
    let text = e.to_string();
    assert!(text.contains("1024 bytes of static") && text.contains(&format!("limit of {limit} bytes")), "{text}");
}

#[test]
fn static_shared_memory_over_the_device_limit_is_refused_at_load_or_launch() {
    // fill_shared: 48 KiB of static shared memory, over lavapipe's 32 KiB, exactly NVIDIA's 48 KiB.
    let mut rt = common::runtime(Duration::from_secs(120));
    let limit = rt.device().limits.max_shared_memory_bytes;
    let args = vec![u32_arg(0xdd00_0000), KernelArg::Buffer(vec![0; 4 * 4])];
    let dynamic = if limit < 48 << 10 { 0 } else { limit - (48 << 10) + 16 };
    let e = launch_error(&mut rt, "fill_shared", dynamic, &args);
    let e = runtime_error(&e);
    assert!(
        matches!(e, RuntimeError::SharedMemoryLimit { kernel, static_bytes: 49152, dynamic_bytes, limit: l }
            if kernel == "fill_shared" && *dynamic_bytes == u64::from(dynamic) && *l == limit),
        "{e}"
    );
}

// ---- shared accesses past the block's allocation ------------------------------------------------------------

/// Where an access faults: (kernel, dynamic bytes, where its array starts in shared memory, the first probed
/// offset from the array's start that faults). The kernels' static arrays are the sizes in their names, which
/// ptxas rounds up to 16 bytes (`.nv.shared`: 0x70 for 100, 0x410 for 1028). Until the H200 recording
/// (`corpus/silicon/record_limits.py`) is in, these are the allocation exactly (granule 4).
const FIRST_FAULTS: &[(&str, u32, u32, u32)] = &[
    ("past_static_1024", 0, 0, 0x400),
    ("past_static_100", 0, 0, 0x70),
    ("past_static_1028", 0, 0, 0x410),
    ("past_dynamic", 100, 0, 0x64),
    ("past_dynamic", 1024, 0, 0x400),
    ("past_both", 100, 0x410, 0x64),
];

/// The kernel's static shared memory, as the cubin gives it.
fn cubin_static_shared(kernel: &str) -> u32 {
    let bytes = cubin();
    let cubin = sassport_translator::Cubin::parse(&bytes).unwrap();
    let k = cubin.kernel(kernel).unwrap();
    u32::try_from(k.shared_size).unwrap()
}

fn probe_args(kernel: &str, off: u32, mode: u32, dynamic: u32) -> Vec<KernelArg> {
    let array_words = match kernel {
        "past_dynamic" | "past_both" => dynamic / 4,
        k => k.trim_start_matches("past_static_").parse::<u32>().unwrap() / 4,
    };
    let mut args = vec![
        u32_arg(off),
        u32_arg(0x5100_0000 | off),
        u32_arg(mode),
        KernelArg::Buffer(vec![0; 4 * (array_words as usize + 4)]),
    ];
    if dynamic > 0 {
        args.push(u32_arg(array_words));
    }
    args
}

#[test]
fn a_shared_store_past_the_allocation_faults_where_silicon_does() {
    let mut rt = common::runtime(Duration::from_secs(120));
    for &(kernel, dynamic, start, first_fault) in FIRST_FAULTS {
        // The translator's one function for the hardware's bound agrees with silicon.
        let static_bytes = cubin_static_shared(kernel);
        assert_eq!(
            shared_allocation_bytes(static_bytes, dynamic),
            u64::from(start + first_fault),
            "{kernel} with {static_bytes} static and {dynamic} dynamic bytes"
        );
        // The last word inside: a store then a load there sees its own store, as on silicon.
        let last = first_fault - 4;
        let r = run(&mut rt, kernel, [1; 3], [32, 1, 1], dynamic, &probe_args(kernel, last, 3, dynamic))
            .unwrap_or_else(|e| panic!("{kernel} (+{dynamic}) at {last:#x}: {e}"));
        let out = words(&r.buffers[0]);
        assert_eq!((out[0], out[1]), (0x5100_0000 | last, 1), "{kernel} (+{dynamic}) at {last:#x}");
        // The first word outside, by a store and by a load.
        for (mode, access) in [(1, "store"), (2, "load")] {
            let e = launch_error(&mut rt, kernel, dynamic, &probe_args(kernel, first_fault, mode, dynamic));
            let text = format!("{e:#}");
            match runtime_error(&e) {
                RuntimeError::MemorySpaceFault { space: "shared", access: a, offset, size: 4, .. } => {
                    assert_eq!((*a, *offset), (access, u64::from(start + first_fault)), "{text}")
                }
                _ => panic!("{kernel} (+{dynamic}) {access} at {first_fault:#x}: not a shared fault: {text}"),
            }
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
