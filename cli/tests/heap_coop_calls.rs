//! Issue 16's forms end to end on lavapipe, against results computed here from the inputs (the silicon
//! goldens come from the H200; these checks stand on their own): the device heap (`corpus/src/device_heap.cu`:
//! malloc/free and new/delete, a block shared through shared memory, exhaustion of the 8 MiB default heap),
//! cooperative groups' barrier `BAR.SYNC 0x0` and tiles (`coop_groups.cu`) and the predicated
//! `@P0 CALL.REL.NOINC` that ends a register-tiled loop (`device_calls.cu`). Each kernel runs with the
//! inputs of its `corpus/launches.txt` line.

mod common;

use sassport::kernel_run::{run_kernel, KernelArg};
use sassport_corpus::inputs::generate;
use sassport_runtime::Runtime;
use std::time::Duration;

fn cubin(stem: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../corpus/sm86/{stem}.cubin", env!("CARGO_MANIFEST_DIR"))).expect("corpus cubin")
}

/// lavapipe compiles these kernels (many inlined malloc/free call sites) inside the launch, for minutes on a
/// loaded 2-core machine: the launch timeout covers the compile too, so it gets the pipeline's 600 s.
fn heavy_runtime() -> Runtime {
    let mut rt = common::runtime(Duration::from_secs(600));
    rt.set_launch_timeout(Some(Duration::from_secs(600)));
    rt
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn i32_arg(v: i32) -> KernelArg {
    KernelArg::Value { bytes: v.to_le_bytes().to_vec(), align: 4 }
}

/// Runs `kernel` of `stem` and returns every argument buffer after the launch, as words.
fn run(rt: &mut Runtime, stem: &str, kernel: &str, grid: u32, block: u32, args: &[KernelArg]) -> Vec<Vec<u32>> {
    let r = run_kernel(rt, None, &cubin(stem), kernel, [grid, 1, 1], [block, 1, 1], 0, args)
        .unwrap_or_else(|e| panic!("{kernel}: {e:#}"));
    r.buffers.iter().map(|b| words(b)).collect()
}

fn input(bytes: usize, seed: u64) -> (Vec<u32>, KernelArg) {
    let b = generate(bytes, seed);
    (words(&b), KernelArg::Buffer(b))
}

fn heap_per_thread_expected(x: u32) -> [u32; 5] {
    let n = 1 + (x & 63);
    let a: Vec<u32> = (0..n).map(|k| x.wrapping_mul(k + 1) ^ (k << 3)).collect();
    let sum = (0..n).fold(0u32, |s, k| s.wrapping_add(a[((k * 7) % n) as usize].wrapping_mul(k | 1)));
    let count = 1 + ((x >> 8) & 7);
    let walk = (0..count).rev().fold(0u32, |w, k| w.wrapping_mul(31).wrapping_add(x.wrapping_add(k.wrapping_mul(0x9e37_79b9))));
    let m = 3 + ((x >> 12) & 15) as u64;
    let w: Vec<u64> = (0..m).map(|k| (u64::from(x).wrapping_mul(k + 1)) ^ k).collect();
    let acc = (0..m).rev().fold(0u64, |acc, k| acc.wrapping_mul(3).wrapping_add(w[k as usize]));
    [sum, walk, (acc as u32) ^ ((acc >> 32) as u32), 1, 0]
}

#[test]
fn device_heap_per_thread_and_shared_blocks() {
    let mut rt = heavy_runtime();
    let (x, arg) = input(1024, 1605);
    let out = run(&mut rt, "device_heap", "heap_per_thread", 2, 128, &[arg, KernelArg::Buffer(vec![0; 5120]), i32_arg(250)]);
    for i in 0..256 {
        let want = if i < 250 { heap_per_thread_expected(x[i]) } else { [0; 5] };
        assert_eq!(&out[1][5 * i..5 * i + 5], &want, "heap_per_thread thread {i}");
    }
    // The heap is the runtime's, as CUDA's is the context's: a second launch reuses the freed blocks.
    let (x2, arg) = input(1024, 1605);
    let again = run(&mut rt, "device_heap", "heap_per_thread", 2, 128, &[arg, KernelArg::Buffer(vec![0; 5120]), i32_arg(250)]);
    assert_eq!(x2, x);
    assert_eq!(again[1], out[1], "second launch");

    let (x, arg) = input(1024, 1606);
    let out = run(&mut rt, "device_heap", "heap_block_shared", 2, 128, &[arg, KernelArg::Buffer(vec![0; 1024]), i32_arg(250)]);
    for i in 0..256 {
        let (b, t) = (i / 128 * 128, i % 128);
        let want = x[b + (t + 5) % 128].wrapping_add(x[b + (t * 3) % 128].wrapping_mul(3).wrapping_add(1));
        assert_eq!(out[1][i], if i < 250 { want } else { 0 }, "heap_block_shared thread {i}");
    }
}

#[test]
fn device_heap_exhaustion_returns_null_and_freed_blocks_come_back() {
    let mut rt = heavy_runtime();
    assert_eq!(rt.malloc_heap_size(), 8 << 20, "CUDA's default heap");
    let mib3 = 3usize << 20;
    let mut check: u32 = 79;
    for k in (0..mib3).step_by(4096) {
        check += u32::from((k >> 12) as u8) + 3 * u32::from((k >> 13) as u8);
    }
    for launch in 0..2 {
        let out = run(&mut rt, "device_heap", "heap_exhaustion", 1, 32, &[KernelArg::Buffer(vec![0; 64])]);
        // malloc(0) gives a distinct aligned block here (out[8..11]); 14 odd sizes, all aligned.
        assert_eq!(out[0], [1, 1, 0, 1, check, 0, 0, 2, 1, 0, 1, 14, 0, 0, 0, 0], "launch {launch}");
    }
    // The heap is placed now: its size is fixed, as cudaLimitMallocHeapSize is once a kernel used malloc.
    assert!(rt.set_malloc_heap_size(1 << 20).is_err());
}

#[test]
fn device_heap_size_is_a_runtime_option() {
    let mut rt = heavy_runtime();
    rt.set_malloc_heap_size(4 << 20).expect("settable before first use");
    let out = run(&mut rt, "device_heap", "heap_exhaustion", 1, 32, &[KernelArg::Buffer(vec![0; 64])]);
    // 4 MiB: one 3 MiB block fits, the second does not; after freeing, one fits again.
    assert_eq!(&out[0][..4], &[1, 0, 0, 1]);
    assert_eq!(out[0][7], 1);
    assert_eq!(rt.malloc_heap_size(), 4 << 20);
}

#[test]
fn cooperative_groups_block_barrier_and_tiles() {
    let mut rt = heavy_runtime();
    let (x, arg) = input(2048, 1601);
    let out = run(&mut rt, "coop_groups", "cg_block_rotate", 2, 256, &[arg, KernelArg::Buffer(vec![0; 4096]), i32_arg(500)]);
    for b in 0..2usize {
        let mut v: Vec<u32> = x[b * 256..b * 256 + 256].to_vec();
        for r in 0..4u32 {
            let s = v.clone();
            for t in 0..256usize {
                v[t] = s[(t + 1 + 7 * r as usize) % 256].wrapping_mul(3).wrapping_add(v[t] ^ r);
            }
        }
        for t in 0..256usize {
            let i = b * 256 + t;
            if i >= 500 {
                continue;
            }
            assert_eq!(out[1][2 * i], v[t].wrapping_add(v[255 - t]), "cg_block_rotate {i}");
            assert_eq!(out[1][2 * i + 1], 256 ^ ((b as u32) << 16) ^ ((t as u32) << 8), "cg_block_rotate {i} ids");
        }
    }

    let (x, arg) = input(2048, 1602);
    let out = run(&mut rt, "coop_groups", "cg_tile_reduce", 2, 256, &[arg, KernelArg::Buffer(vec![0; 12288]), i32_arg(500)]);
    let tile = |i: usize, size: usize| i / size * size..i / size * size + size;
    let mut s = vec![0u32; 512];
    let mut rows = Vec::new();
    for i in 0..512usize {
        let sum8 = tile(i, 8).fold(0u32, |a, j| a.wrapping_add(x[j]));
        let min16 = tile(i, 16).map(|j| x[j] ^ 0x5555).min().unwrap_or(0);
        let max32 = tile(i, 32).map(|j| x[j]).max().unwrap_or(0);
        let xor32 = tile(i, 32).fold(0u32, |a, j| a ^ (x[j] >> 3));
        let lane16 = i % 16;
        let down = if lane16 + 3 < 16 { x[i + 3] } else { x[i] };
        let ballot = tile(i, 32).enumerate().fold(0u32, |a, (l, j)| a | (u32::from(x[j] & 3 == 1) << l));
        let t = i % 256;
        s[i] = sum8 ^ min16 ^ max32;
        rows.push([sum8, min16.wrapping_add(max32), xor32, down.wrapping_add(((t / 8) as u32) << 24).wrapping_add((lane16 as u32) << 16), ballot]);
    }
    for i in 0..500usize {
        let (b, t) = (i / 256 * 256, i % 256);
        let other = s[b + (t + 8) % 256];
        let r = rows[i];
        assert_eq!(&out[1][6 * i..6 * i + 6], &[r[0], r[1], r[2], r[3], r[4], other], "cg_tile_reduce {i}");
    }
}

#[test]
fn predicated_call_ends_the_tiled_loop() {
    let mut rt = heavy_runtime();
    let (a, a_arg) = input(16384, 1603);
    let (b, b_arg) = input(16384, 1604);
    let (n, k_total) = (128usize, 32usize);
    let out = run(
        &mut rt,
        "device_calls",
        "loop_exit_call_sgemm",
        1,
        256,
        &[a_arg, b_arg, KernelArg::Buffer(vec![0; 65536]), i32_arg(n as i32), i32_arg(k_total as i32)],
    );
    for row in 0..128usize {
        for col in 0..n {
            let mut acc = 0i32;
            for k in 0..k_total {
                let av = (a[row * k_total + k] & 15) as i32 - 7;
                let bv = (b[k * n + col] % 9) as i32 - 4;
                acc += av * bv;
            }
            assert_eq!(f32::from_bits(out[2][row * n + col]), acc as f32, "c[{row}][{col}]");
        }
    }
}
