//! A window larger than one storage buffer (docs/abi.md, chunked window) on lavapipe: kernels whose buffers
//! straddle chunk boundaries beyond the first 2 GiB give the NVIDIA silicon goldens (`corpus/goldens/`) bit
//! for bit, with every access width (8..128 bits) and 64-bit atomics; host copies across chunk boundaries
//! come back intact, mapped and staged, and so does the device heap across a boundary; an access past the
//! backed chunks is still a fault naming the window.
//! Windows of 3 GiB and 512 MiB; the chunks are backed only as far as the allocations reach.

#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport_corpus::Launch;
use sassport_runtime::{
    Bank0, DeviceSelector, Launch as RtLaunch, MemoryMode, PipelineCacheLocation, Runtime, RuntimeOptions,
};
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::time::Duration;

fn runtime(window: u64, memory: MemoryMode) -> Runtime {
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    Runtime::new(RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(window),
        memory,
        pipeline_cache: PipelineCacheLocation::Disabled,
        pipeline_timeout: Some(Duration::from_secs(120)),
        ..Default::default()
    })
    .expect("a Vulkan device with a chunked window")
}

fn launch_of(kernel: &str) -> Launch {
    sassport_corpus::launches()
        .unwrap()
        .into_iter()
        .find(|l| l.kernel == kernel)
        .unwrap()
}

/// Allocates a filler so that the next allocation starts `before` bytes below window byte `boundary`.
fn place_before(rt: &mut Runtime, boundary: u64, before: u64) -> u64 {
    let probe = rt.alloc(256).unwrap();
    let at = probe - rt.window_base();
    rt.free(probe).unwrap();
    let filler = rt.alloc(boundary - before - at).unwrap();
    let next = rt.alloc(256).unwrap();
    assert_eq!(
        next - rt.window_base(),
        boundary - before,
        "allocations are placed in order"
    );
    rt.free(next).unwrap();
    filler
}

/// Translates `l` for `rt`'s profile, uploads its inputs (buffer addresses from `alloc`), launches it and
/// returns the launch result and the buffers after it.
fn run(rt: &mut Runtime, l: &Launch, addresses: Option<&[u64]>) -> (Result<(), String>, Vec<Vec<u8>>) {
    let bytes = std::fs::read(l.cubin_sm86()).unwrap();
    let cubin = Cubin::parse(&bytes).unwrap();
    let t = translate_kernel(
        &cubin,
        &l.kernel,
        &Options {
            profile: Some(rt.profile()),
            ..Default::default()
        },
    )
    .unwrap();
    support::spirv_val(&t.words).unwrap();
    let id = rt.load_kernel(&l.kernel, &t.words).unwrap();
    // Module data as the CUDA driver places it (the device heap for kernels calling malloc).
    let data = rt.load_module_data(&cubin).unwrap();
    let mut addrs = Vec::new();
    for a in &l.args {
        if let Some(init) = a.initial_contents() {
            let addr = rt.alloc(init.len().max(4) as u64).unwrap();
            rt.upload(addr, &init).unwrap();
            addrs.push((addr, init.len()));
        }
    }
    let given: Vec<u64> = addresses.map_or_else(|| addrs.iter().map(|a| a.0).collect(), <[u64]>::to_vec);
    let params = l.param_bytes(&given).unwrap();
    let dims = |d: &sassport_corpus::Dim3| [d.x, d.y, d.z];
    let bank0 = Bank0::new(dims(&l.grid), dims(&l.block)).with_params(&params);
    let mut banks: Vec<(u32, &[u8])> = vec![(0, bank0.as_bytes())];
    banks.extend(data.banks_for(&l.kernel));
    let result = rt
        .launch(&RtLaunch {
            kernel: id,
            grid: dims(&l.grid),
            block: dims(&l.block),
            dynamic_shared_bytes: 0,
            banks: &banks,
        })
        .map(|_| ())
        .map_err(|e| e.to_string());
    let out = addrs
        .iter()
        .map(|&(addr, len)| {
            let mut got = vec![0u8; len];
            rt.download(addr, &mut got).unwrap();
            got
        })
        .collect();
    (result, out)
}

/// Every buffer of `l` equals its silicon golden.
fn assert_goldens(l: &Launch, bufs: &[Vec<u8>]) {
    let mut b = 0;
    for (idx, a) in l.args.iter().enumerate() {
        if a.is_buffer() {
            let want = std::fs::read(l.golden(idx)).unwrap();
            assert!(
                bufs[b] == want,
                "{} arg {idx} differs from the silicon golden",
                l.kernel
            );
            b += 1;
        }
    }
}

fn pattern(len: usize, seed: u32) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect()
}

#[test]
fn kernels_across_chunks_beyond_2_gib_match_silicon() {
    let mut rt = runtime(3 << 30, MemoryMode::Auto);
    let chunks = rt
        .window_chunks()
        .expect("3 GiB is more than one storage buffer on this device");
    assert!(chunks.window_bytes() >= 3 << 30 && chunks.count >= 2, "{chunks:?}");
    let chunk = chunks.chunk_bytes();
    assert_eq!(rt.window_size(), 3 << 30);
    // The first chunk boundary past 2.5 GiB: buffers start 2 KiB below it, so the 4 KiB vector buffers of
    // global_widths straddle it (LDG.128 and STG.128 on both sides).
    let boundary = (5u64 << 29).div_ceil(chunk) * chunk;
    let fill = place_before(&mut rt, boundary, 2048);
    let backed = rt.window_backed_bytes();
    assert!(
        backed < 3 << 30,
        "only the chunks allocations reach are backed ({backed} bytes)"
    );
    let widths = launch_of("global_widths");
    let (result, bufs) = run(&mut rt, &widths, None);
    result.unwrap();
    assert_goldens(&widths, &bufs);

    // 32- and 64-bit atomics (native or under the lock) across the next boundary.
    rt.free(fill).unwrap();
    let fill = place_before(&mut rt, boundary + chunk, 6144);
    let atomics = launch_of("atomics_global_owned");
    let (result, bufs) = run(&mut rt, &atomics, None);
    result.unwrap();
    assert_goldens(&atomics, &bufs);
    rt.free(fill).unwrap();

    // A store into the window's unbacked part faults as outside the window (the device never sees it).
    let past = rt.window_base() + rt.window_backed_bytes() + 4096;
    assert!(past < rt.window_base() + rt.window_size());
    let mut addrs = Vec::new();
    for a in widths.args.iter().filter(|a| a.is_buffer()) {
        let len = a.initial_contents().map_or(4, |c| c.len().max(4));
        addrs.push(rt.alloc(len as u64).unwrap());
    }
    addrs[4] = past; // `out`
    let (result, _) = run(&mut rt, &widths, Some(&addrs));
    let err = result.expect_err("a store past the backed chunks must fault");
    assert!(err.contains("outside the window"), "{err}");
    assert!(err.contains(&format!("{past:#x}")) || err.contains("store of"), "{err}");
}

#[test]
fn copies_across_chunk_boundaries_mapped_and_staged() {
    for memory in [MemoryMode::Auto, MemoryMode::Staged] {
        let mut rt = runtime(512 << 20, memory);
        let chunk = rt
            .window_chunks()
            .expect("512 MiB is more than one storage buffer here")
            .chunk_bytes();
        // 40 MiB from 3 MiB below the first boundary: three pieces in mapped mode, staged halves of 16 MiB
        // that cross it.
        let _fill = place_before(&mut rt, chunk, 3 << 20);
        let data = pattern(40 << 20, 7);
        let a = rt.alloc(data.len() as u64).unwrap();
        rt.upload(a, &data).unwrap();
        let mut back = vec![0u8; data.len()];
        rt.download(a, &mut back).unwrap();
        assert!(back == data, "{memory:?}: bytes changed across the chunk boundary");
        // A part across the boundary, read alone.
        let mut part = vec![0u8; 1 << 20];
        rt.download(a + (3 << 20) - (1 << 19), &mut part).unwrap();
        assert!(
            part[..] == data[(3 << 20) - (1 << 19)..(3 << 20) + (1 << 19)],
            "{memory:?}"
        );
        // A kernel in this window too (records after the chunk table, staged or mapped).
        let widths = launch_of("global_widths");
        let (result, bufs) = run(&mut rt, &widths, None);
        result.unwrap();
        assert_goldens(&widths, &bufs);
    }
}

#[test]
fn device_heap_across_a_chunk_boundary() {
    let mut rt = runtime(512 << 20, MemoryMode::Auto);
    let chunk = rt.window_chunks().expect("512 MiB is more than one storage buffer here").chunk_bytes();
    // The 8 MiB arena from 4 MiB below the first boundary: malloc, free and the blocks' data on both sides.
    let _fill = place_before(&mut rt, chunk, 4 << 20);
    rt.ensure_device_heap().unwrap();
    let l = launch_of("heap_block_shared");
    let t0 = std::time::Instant::now();
    let (result, bufs) = run(&mut rt, &l, None);
    result.unwrap();
    assert_goldens(&l, &bufs);
    eprintln!("heap_block_shared: {:?}", t0.elapsed());
}
