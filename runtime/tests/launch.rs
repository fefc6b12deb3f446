//! Launches of hand-built ABI kernels on lavapipe, checked against values computed here.

mod support;

use std::time::Duration;

use sassport_runtime::{
    abi, DeviceSelector, Launch, MemoryMode, PipelineCacheLocation, Runtime, RuntimeError,
    RuntimeOptions,
};
use support::{bank0, store_gid_kernel, STORE_PC};

/// Tests run on lavapipe unless `SASSPORT_TEST_DEVICE` names another device.
fn options() -> RuntimeOptions {
    support::test_env();
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(16 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        // Pipeline creation is bounded in tests: lavapipe's compiler can blow up on pathological code.
        pipeline_timeout: Some(Duration::from_secs(60)),
        // Every test runs under the Khronos validation layer where it is installed.
        validation: true,
        ..Default::default()
    }
}

/// Fails on any validation-layer error or warning collected so far.
fn assert_valid_usage(rt: &Runtime) {
    let messages = rt.validation_messages();
    assert!(
        messages.is_empty(),
        "validation layer:\n{}",
        messages.join("\n")
    );
}

fn kernel() -> Vec<u32> {
    let words = store_gid_kernel();
    support::spirv_val(&words);
    words
}

/// Runs the store kernel over `grid` x `block` and checks every word against `gid * 3 + param`.
fn run_store(
    rt: &mut Runtime,
    grid: [u32; 3],
    block: [u32; 3],
    param: u32,
) -> sassport_runtime::LaunchReport {
    let k = rt.load_kernel("store_gid", &kernel()).unwrap();
    let n = grid
        .iter()
        .chain(&block)
        .map(|&v| v as u64)
        .product::<u64>();
    let buf = rt.alloc(4 * n).unwrap();
    rt.upload(buf, &vec![0xee; 4 * n as usize]).unwrap();
    let b0 = bank0(grid, block, buf, param);
    let report = rt
        .launch(&Launch {
            kernel: k,
            grid,
            block,
            dynamic_shared_bytes: 0,
            banks: &[(0, &b0)],
        })
        .unwrap();
    let mut out = vec![0u8; 4 * n as usize];
    rt.download(buf, &mut out).unwrap();
    for (gid, w) in out.chunks_exact(4).enumerate() {
        let got = u32::from_le_bytes(w.try_into().unwrap());
        let want = (gid as u32).wrapping_mul(3).wrapping_add(param);
        assert_eq!(got, want, "gid {gid} of grid {grid:?} block {block:?}");
    }
    rt.free(buf).unwrap();
    assert_valid_usage(rt);
    report
}

#[test]
fn validation_layer_is_used_when_installed() {
    let rt = Runtime::new(options()).unwrap();
    let installed =
        std::path::Path::new("/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json")
            .exists();
    if installed {
        assert!(rt.validation_active());
    }
    assert_valid_usage(&rt);
}

#[test]
fn spirv_val_runs() {
    support::spirv_val(&kernel());
}

#[test]
#[should_panic(expected = "spirv-val rejected")]
fn spirv_val_rejects_a_broken_module() {
    let mut words = kernel();
    words.truncate(words.len() - 3);
    support::spirv_val(&words);
}

#[test]
fn stores_gid_times_three_plus_param() {
    let mut rt = Runtime::new(options()).unwrap();
    let r = run_store(&mut rt, [4, 1, 1], [256, 1, 1], 7);
    assert_eq!(r.dispatches, 1);
    assert!(r.pipeline_created);
}

#[test]
fn kernel_time_is_reported_when_asked_for() {
    let mut rt = Runtime::new(options()).unwrap();
    assert_eq!(
        run_store(&mut rt, [4, 1, 1], [64, 1, 1], 1).kernel_time,
        None
    );
    let mut rt = Runtime::new(RuntimeOptions {
        kernel_timing: true,
        ..options()
    })
    .unwrap();
    let t = run_store(&mut rt, [64, 1, 1], [256, 1, 1], 1)
        .kernel_time
        .expect("lavapipe has timestamps");
    assert!(t.as_nanos() > 0 && t.as_secs() < 60, "{t:?}");
}

#[test]
fn three_dimensional_grid_and_block() {
    let mut rt = Runtime::new(options()).unwrap();
    run_store(&mut rt, [3, 2, 2], [4, 2, 3], 0xfffffff0);
}

#[test]
fn grid_beyond_device_limit_is_split_into_dispatches() {
    let mut rt = Runtime::new(options()).unwrap();
    let max = rt.device().limits.max_workgroup_count[0];
    if max < i32::MAX as u32 {
        // lavapipe: 65,535 workgroups in x; CUDA allows more, so x needs two dispatches; y fits in one.
        let r = run_store(&mut rt, [max + 2, 2, 1], [2, 1, 1], 11);
        assert_eq!(r.dispatches, 2);
    }
    // A lower cap splits every dimension on any device: 3 x 3 x 2 dispatches.
    let mut rt = Runtime::new(RuntimeOptions {
        max_dispatch_workgroups: Some([1000, 3, 1]),
        ..options()
    })
    .unwrap();
    let r = run_store(&mut rt, [2500, 7, 2], [2, 1, 1], 13);
    assert_eq!(r.dispatches, 18);
}

#[test]
fn many_dispatches_grow_the_scratch_buffer_and_rerecord_launches() {
    let mut rt = Runtime::new(RuntimeOptions {
        max_dispatch_workgroups: Some([1, 1, 1]),
        ..options()
    })
    .unwrap();
    // Recorded once, replayed once.
    run_store(&mut rt, [3, 1, 1], [8, 1, 1], 1);
    run_store(&mut rt, [3, 1, 1], [8, 1, 1], 2);
    // 15,000 launch-value copies outgrow the initial scratch buffer; every descriptor set and recorded
    // launch refers to the old one and must be rebuilt.
    let r = run_store(&mut rt, [150, 100, 1], [1, 1, 1], 3);
    assert_eq!(r.dispatches, 15_000);
    run_store(&mut rt, [3, 1, 1], [8, 1, 1], 4);
}

#[test]
fn staged_window_gives_the_same_results() {
    let mut rt = Runtime::new(RuntimeOptions {
        memory: MemoryMode::Staged,
        ..options()
    })
    .unwrap();
    assert!(rt.is_staged());
    run_store(&mut rt, [5, 1, 1], [64, 1, 1], 3);
    // Larger than the staging buffer: uploads and downloads go in pieces.
    let n = (5 << 20) / 4;
    let buf = rt.alloc(4 * n).unwrap();
    let data: Vec<u8> = (0..4 * n).map(|i| (i * 7 % 251) as u8).collect();
    rt.upload(buf, &data).unwrap();
    let mut back = vec![0; data.len()];
    rt.download(buf, &mut back).unwrap();
    assert!(back == data);
    assert_valid_usage(&rt);
}

fn fault_of(rt: &mut Runtime, ptr: u64, threads: u32) -> RuntimeError {
    let k = rt.load_kernel("store_gid", &kernel()).unwrap();
    let b0 = bank0([1, 1, 1], [threads, 1, 1], ptr, 0);
    rt.launch(&Launch {
        kernel: k,
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared_bytes: 0,
        banks: &[(0, &b0)],
    })
    .unwrap_err()
}

#[test]
fn out_of_window_store_is_reported_with_kernel_pc_and_address() {
    for memory in [MemoryMode::Auto, MemoryMode::Staged] {
        let mut rt = Runtime::new(RuntimeOptions {
            memory,
            ..options()
        })
        .unwrap();
        let below = rt.window_base() - 64;
        match fault_of(&mut rt, below, 1) {
            RuntimeError::Fault {
                kernel,
                pc,
                address,
                kind,
                size,
                count,
            } => {
                assert_eq!(
                    (kernel.as_str(), pc, address, kind.as_str(), size, count),
                    ("store_gid", STORE_PC, below, "store", 4, 1)
                );
            }
            e => panic!("expected a fault, got {e}"),
        }
        // Straddling the end: threads 0, 1 store inside, 2, 3 outside.
        let end = rt.window_base() + rt.window_size();
        match fault_of(&mut rt, end - 8, 4) {
            RuntimeError::Fault { address, count, .. } => {
                assert_eq!(count, 2);
                assert!(
                    address == end || address == end + 4,
                    "address 0x{address:x}"
                );
            }
            e => panic!("expected a fault, got {e}"),
        }
        // The record is cleared between launches.
        run_store(&mut rt, [1, 1, 1], [32, 1, 1], 1);
        let msg = fault_of(&mut rt, 0, 1).to_string();
        assert_eq!(msg, format!("kernel \"store_gid\" faulted at pc 0x{STORE_PC:x}: store of 4 bytes at address 0x0 outside the window (1 faulting accesses)"));
        assert_valid_usage(&rt);
    }
}

#[test]
fn kernels_and_pipelines_are_cached() {
    let mut rt = Runtime::new(options()).unwrap();
    let a = rt.load_kernel("store_gid", &kernel()).unwrap();
    let b = rt.load_kernel("store_gid", &kernel()).unwrap();
    assert_eq!(a, b);
    let alias = rt.load_kernel("other_name", &kernel()).unwrap();
    assert_ne!(a, alias);
    assert_eq!(rt.kernel_name(alias).unwrap(), "other_name");
    assert!(run_store(&mut rt, [2, 1, 1], [32, 1, 1], 1).pipeline_created);
    assert!(!run_store(&mut rt, [7, 1, 1], [32, 1, 1], 2).pipeline_created);
    assert!(run_store(&mut rt, [2, 1, 1], [16, 2, 1], 3).pipeline_created);
    assert_eq!(rt.pipelines_created(), 2);
    // The alias shares the module and its pipelines, and faults under its own name.
    match fault_of_kernel(&mut rt, alias) {
        RuntimeError::Fault { kernel, .. } => assert_eq!(kernel, "other_name"),
        e => panic!("expected a fault, got {e}"),
    }
    assert_eq!(rt.pipelines_created(), 2);
    assert_valid_usage(&rt);
}

fn fault_of_kernel(rt: &mut Runtime, k: sassport_runtime::KernelId) -> RuntimeError {
    let b0 = bank0([1, 1, 1], [32, 1, 1], 8, 0);
    rt.launch(&Launch {
        kernel: k,
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        banks: &[(0, &b0)],
    })
    .unwrap_err()
}

#[test]
fn pipeline_cache_persists_on_disk() {
    let dir = std::env::temp_dir().join(format!("sassport-pcache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RuntimeOptions {
        pipeline_cache: PipelineCacheLocation::Dir(dir.clone()),
        cache_version: "test v1".into(),
        ..options()
    };
    let path = {
        let mut rt = Runtime::new(opts.clone()).unwrap();
        run_store(&mut rt, [1, 1, 1], [64, 1, 1], 5);
        rt.pipeline_cache_path().unwrap().to_owned()
    };
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with("pipelines-") && name.ends_with("-test_v1.bin"),
        "{name}"
    );
    let file = std::fs::read(&path).unwrap();
    let mut rt = Runtime::new(opts).unwrap();
    assert!(sassport_runtime::cache_file(&dir, rt.device(), "test v1") == path);
    // The file is a sealed entry; the driver's data inside starts with its own header.
    let key = sassport_runtime::pipeline_cache_key(rt.device(), "test v1");
    let data = sassport_runtime::open_pipeline_cache(&file, &key, rt.device()).unwrap();
    assert!(data.len() >= 32 && u32::from_le_bytes(data[4..8].try_into().unwrap()) == 1);
    assert_eq!(&data[16..32], &rt.device().pipeline_cache_uuid);
    // A second runtime starts from the file and still runs correctly.
    run_store(&mut rt, [1, 1, 1], [64, 1, 1], 6);
    // A corrupt file is ignored, not handed to the driver.
    drop(rt);
    std::fs::write(&path, b"garbage").unwrap();
    let mut rt = Runtime::new(RuntimeOptions {
        pipeline_cache: PipelineCacheLocation::Dir(dir.clone()),
        cache_version: "test v1".into(),
        ..options()
    })
    .unwrap();
    run_store(&mut rt, [1, 1, 1], [64, 1, 1], 6);
    drop(rt);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pipeline_timeout_is_a_typed_error() {
    let mut rt = Runtime::new(RuntimeOptions {
        pipeline_timeout: Some(Duration::from_nanos(1)),
        ..options()
    })
    .unwrap();
    // A fresh module each attempt, so no driver cache answers at once; the compile runs on a helper thread,
    // which on a loaded machine can rarely finish before the waiting thread looks: try a few times.
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let timed_out = (0..5).any(|attempt| {
        let words = support::store_gid_kernel_with_pc(seed.wrapping_add(attempt) | 1 << 31);
        let k = rt.load_kernel("store_gid", &words).unwrap();
        match rt.prepare(k, [64, 1, 1], 0) {
            Err(RuntimeError::PipelineTimeout { kernel, .. }) => {
                assert_eq!(kernel, "store_gid");
                true
            }
            Ok(()) => false,
            Err(e) => panic!("expected a timeout, got {e}"),
        }
    });
    assert!(timed_out, "no pipeline creation ever exceeded 1 ns");
}

#[test]
fn bad_launches_and_memory_use_are_refused() {
    let mut rt = Runtime::new(options()).unwrap();
    let k = rt.load_kernel("store_gid", &kernel()).unwrap();
    let b0 = bank0([1, 1, 1], [1, 1, 1], 0, 0);
    let launch = |grid, block| Launch {
        kernel: k,
        grid,
        block,
        dynamic_shared_bytes: 0,
        banks: &[],
    };
    for (grid, block) in [
        ([0, 1, 1], [1, 1, 1]),
        ([1, 1, 1], [0, 1, 1]),
        ([1, 1, 1], [1025, 1, 1]),
        ([1, 1, 1], [32, 32, 2]),
        ([1, 1, 1], [1, 1, 65]),
        ([1, 65536, 1], [1, 1, 1]),
        ([1 << 31, 1, 1], [1, 1, 1]),
    ] {
        assert!(
            matches!(
                rt.launch(&launch(grid, block)),
                Err(RuntimeError::InvalidLaunch { .. })
            ),
            "{grid:?} {block:?}"
        );
    }
    let too_much = vec![1u8; abi::MAX_BANK_BYTES as usize + 1];
    assert!(matches!(
        rt.launch(&Launch {
            banks: &[(0, &too_much)],
            ..launch([1, 1, 1], [1, 1, 1])
        }),
        Err(RuntimeError::InvalidLaunch { .. })
    ));
    assert!(matches!(
        rt.launch(&Launch {
            banks: &[(32, &b0)],
            ..launch([1, 1, 1], [1, 1, 1])
        }),
        Err(RuntimeError::InvalidLaunch { .. })
    ));
    let buf = rt.alloc(100).unwrap();
    assert!(matches!(
        rt.upload(buf, &[0; 101]),
        Err(RuntimeError::NotAllocated { .. })
    ));
    assert!(matches!(
        rt.upload(rt.window_base() - 1, &[0; 2]),
        Err(RuntimeError::OutOfWindow { .. })
    ));
    assert!(matches!(
        rt.alloc(rt.window_size() + 1),
        Err(RuntimeError::OutOfMemory { .. })
    ));
    rt.free(buf).unwrap();
    assert!(matches!(
        rt.free(buf),
        Err(RuntimeError::InvalidFree { .. })
    ));
    assert!(matches!(
        rt.download(buf, &mut [0; 4]),
        Err(RuntimeError::NotAllocated { .. })
    ));
    assert!(matches!(
        Runtime::new(RuntimeOptions {
            window_bytes: Some(1 << 40),
            ..options()
        }),
        Err(RuntimeError::WindowTooLarge { .. })
    ));
    assert_valid_usage(&rt);
}

/// Rewrites the Binding decoration of the window (33) to `to`.
fn rebind_window(words: &mut [u32], to: u32) {
    let mut i = 5;
    while i < words.len() {
        let (len, op) = ((words[i] >> 16) as usize, words[i] & 0xffff);
        if op == 71 && len == 4 && words[i + 2] == 33 && words[i + 3] == abi::GLOBAL_WINDOW_BINDING
        {
            words[i + 3] = to;
            return;
        }
        i += len.max(1);
    }
    panic!("no Binding 33 decoration");
}

#[test]
fn modules_outside_the_abi_are_refused_by_name() {
    let mut rt = Runtime::new(options()).unwrap();
    let mut words = kernel();
    rebind_window(&mut words, 40);
    let e = rt.load_kernel("rogue", &words).unwrap_err();
    assert_eq!(e.to_string(), "kernel \"rogue\" does not follow the sassport ABI: binding 40 is not part of the ABI (0..=33)");
    let mut words = kernel();
    rebind_window(&mut words, 5);
    assert!(matches!(
        rt.load_kernel("rogue", &words),
        Err(RuntimeError::AbiViolation { .. })
    ));
    assert!(matches!(
        rt.load_kernel("junk", &[0x0723_0203, 1, 2]),
        Err(RuntimeError::MalformedModule { .. })
    ));
    assert!(matches!(
        rt.kernel_name(sassport_runtime::KernelId::from_raw(99)),
        Err(RuntimeError::UnknownKernel(99))
    ));
}

#[test]
fn interface_is_reflected_from_the_module() {
    let i = sassport_runtime::reflect("store_gid", &kernel()).unwrap();
    assert!(i.uses_launch_values && i.uses_window);
    assert_eq!(
        i.banks.into_iter().collect::<Vec<_>>(),
        vec![(0, (support::PARAM_ADD + 4).next_multiple_of(16))]
    );
}

#[test]
fn float_self_test_measures_lavapipe() {
    let mut rt = Runtime::new(options()).unwrap();
    let m = rt.measure_float().unwrap();
    assert_eq!(rt.profile().measured, m);
    // Measured on lavapipe (Mesa 22.3.6, LLVM 15) by an independent shader (shared/notes/vulkan-targets.md):
    // Fma not fused, denormals preserved. Other devices: only check that everything was measured.
    if rt.device().driver_name.contains("llvmpipe") || rt.device().name.contains("llvmpipe") {
        assert_eq!(m.fma_f32_fused, Some(false));
        assert_eq!(m.denorm_f32_preserved, Some(true));
    }
    assert!(m.fma_f32_fused.is_some() && m.denorm_f32_preserved.is_some());
    assert_eq!(m.fma_f64_fused.is_some(), rt.device().features.float64);
    assert_eq!(m.denorm_f64_preserved.is_some(), rt.device().features.float64);
    if rt.device().features.float64 && rt.device().driver_name.contains("llvmpipe") {
        assert_eq!(m.fma_f64_fused, Some(false));
        assert_eq!(m.denorm_f64_preserved, Some(true));
    }
    assert_eq!(rt.measure_float().unwrap(), m);
    assert_valid_usage(&rt);
}

#[test]
fn float_measurement_is_kept_on_disk_per_device() {
    let dir = std::env::temp_dir().join(format!("sassport-float-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RuntimeOptions {
        pipeline_cache: PipelineCacheLocation::Dir(dir.clone()),
        ..options()
    };
    let mut rt = Runtime::new(opts.clone()).unwrap();
    let measured = rt.measure_float().unwrap();
    let file = sassport_runtime::float_record_file(&dir, rt.device());
    let identity = sassport_runtime::float_record_identity(rt.device());
    let float64 = rt.device().features.float64;
    let record = std::fs::read(&file).unwrap();
    let samples = sassport_runtime::parse_float_record(&record, &identity, float64).unwrap();
    assert_eq!(samples.measured(), measured);
    drop(rt);
    // A later runtime reads the record instead of measuring: a sealed, plausible record of the opposite
    // f32 fma behaviour comes back as it is.
    let opposite = sassport_runtime::FloatSamples {
        fma_f32: if measured.fma_f32_fused == Some(true) { 0 } else { 0x337f_fffe },
        ..samples
    };
    std::fs::write(&file, sassport_runtime::float_record_bytes(&identity, &opposite)).unwrap();
    let mut rt = Runtime::new(opts.clone()).unwrap();
    assert_eq!(
        rt.measure_float().unwrap().fma_f32_fused,
        Some(measured.fma_f32_fused != Some(true))
    );
    drop(rt);
    // A damaged file is measured again and rewritten (more cases in tests/caches.rs).
    std::fs::write(&file, "junk").unwrap();
    let mut rt = Runtime::new(opts).unwrap();
    assert_eq!(rt.measure_float().unwrap(), measured);
    assert_eq!(std::fs::read(&file).unwrap(), record);
    drop(rt);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn float_self_test_modules_validate() {
    let chunked = sassport_translator::abi::WindowChunks { count: 24, log2_bytes: 27 };
    for f64 in [false, true] {
        for chunks in [None, Some(chunked)] {
            support::spirv_val(&sassport_runtime::float_selftest_module(f64, chunks));
        }
    }
}

/// A window over `maxStorageBufferRange` is chunked (the default on discrete GPUs): the self-test then reaches
/// its buffer through the chunk table, and measures what a one-buffer runtime measures on the same device.
#[test]
fn float_self_test_runs_in_a_chunked_window() {
    let mut chunked = Runtime::new(RuntimeOptions { window_bytes: Some(3 << 30), ..options() }).unwrap();
    assert!(chunked.window_chunks().is_some(), "3 GiB is over lavapipe's 128 MiB buffer range");
    let mut one = Runtime::new(options()).unwrap();
    assert!(one.window_chunks().is_none());
    assert_eq!(chunked.measure_float().unwrap(), one.measure_float().unwrap());
}

#[test]
fn runtime_can_move_to_another_thread() {
    fn assert_send<T: Send>() {}
    assert_send::<Runtime>();
    let rt = Runtime::new(options()).unwrap();
    let name = std::thread::spawn(move || rt.device().name.clone())
        .join()
        .unwrap();
    assert!(!name.is_empty());
}

mod reflection {
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        /// Corrupted modules are answered with a result, never a panic.
        #[test]
        fn corrupt_modules_never_panic(flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u32>()), 1..6),
                                       cut in any::<prop::sample::Index>()) {
            let mut words = super::support::store_gid_kernel();
            for (at, v) in flips {
                let i = at.index(words.len());
                words[i] ^= v;
            }
            let keep = cut.index(words.len() + 1);
            let _ = sassport_runtime::reflect("fuzzed", &words[..keep.max(words.len() / 2)]);
        }
    }
}

#[test]
fn dynamic_shared_memory_size_reaches_the_kernel() {
    let words = support::dynamic_shared_kernel();
    support::spirv_val(&words);
    let mut rt = Runtime::new(options()).unwrap();
    let k = rt.load_kernel("dyn_shared", &words).unwrap();
    let (grid, block) = ([3, 1, 1], [64, 1, 1]);
    let buf = rt.alloc(4 * 192).unwrap();
    for dynamic in [0u32, 4096, 16 << 10] {
        let bank0 = sassport_runtime::Bank0::new(grid, block).with_params(&buf.to_le_bytes());
        let banks = [(0, bank0.as_bytes())];
        let r = rt
            .launch(&Launch {
                kernel: k,
                grid,
                block,
                dynamic_shared_bytes: dynamic,
                banks: &banks,
            })
            .unwrap();
        assert!(r.pipeline_created, "one pipeline per dynamic shared size");
        let mut out = vec![0u8; 4 * 192];
        rt.download(buf, &mut out).unwrap();
        for (gid, w) in out.chunks_exact(4).enumerate() {
            assert_eq!(
                u32::from_le_bytes(w.try_into().unwrap()),
                dynamic + gid as u32,
                "gid {gid}"
            );
        }
    }
    let over = rt.device().limits.max_shared_memory_bytes + 1;
    let bank0 = sassport_runtime::Bank0::new(grid, block);
    let banks = [(0, bank0.as_bytes())];
    assert!(matches!(
        rt.launch(&Launch {
            kernel: k,
            grid,
            block,
            dynamic_shared_bytes: over,
            banks: &banks
        }),
        Err(RuntimeError::SharedMemoryLimit { dynamic_bytes, .. }) if dynamic_bytes == u64::from(over)
    ));
    assert_valid_usage(&rt);
}

#[test]
fn static_shared_memory_is_checked_against_the_device() {
    let mut rt = Runtime::new(options()).unwrap();
    let max = rt.device().limits.max_shared_memory_bytes;
    let fits = support::static_shared_kernel(1000);
    support::spirv_val(&fits);
    assert_eq!(
        sassport_runtime::reflect("s", &fits)
            .unwrap()
            .static_shared_bytes,
        4008
    );
    let k = rt.load_kernel("fits", &fits).unwrap();
    let run = |rt: &mut Runtime, dynamic| {
        rt.launch(&Launch {
            kernel: k,
            grid: [1; 3],
            block: [1; 3],
            dynamic_shared_bytes: dynamic,
            banks: &[],
        })
    };
    run(&mut rt, 0).unwrap();
    assert!(matches!(
        run(&mut rt, max - 4000),
        Err(RuntimeError::SharedMemoryLimit { static_bytes: 4008, dynamic_bytes, limit, .. })
            if dynamic_bytes == u64::from(max - 4000) && limit == max
    ));
    let too_big = support::static_shared_kernel(max / 4);
    support::spirv_val(&too_big);
    assert!(matches!(
        rt.load_kernel("too_big", &too_big),
        Err(RuntimeError::SharedMemoryLimit { dynamic_bytes: 0, .. })
    ));
    assert_valid_usage(&rt);
}
