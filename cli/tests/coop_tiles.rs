//! Cooperative-groups tiles and partitions (`corpus/src/coop_tiles.cu`, `coop_partitions.cu`) end to end on lavapipe (warps in turns), against
//! results computed here from the inputs — a model of what CUDA promises for each tile operation, not of
//! the translator. nvcc reduces 16-thread tiles and coalesced groups with a REDUX over part of a warp after
//! `WARPSYNC.EXCLUSIVE`: the two tiles of a warp run the same REDUX at the same pc, and each must reduce over
//! its own lanes only. Each kernel runs with the inputs of its `corpus/launches.pending.txt` line (silicon
//! goldens: corpus/goldens once recorded). The subgroup form's modules of the same kernels pass spirv-val.

mod common;
#[path = "../../translator/tests/support/mod.rs"]
mod support;

use sassport::kernel_run::{run_kernel, KernelArg};
use sassport_corpus::inputs::generate;
use sassport_translator::control::structured::Form;
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;
use std::time::Duration;

fn cubin() -> Vec<u8> {
    cubin_of("coop_tiles")
}

fn cubin_of(stem: &str) -> Vec<u8> {
    std::fs::read(format!("{}/../corpus/sm86/{stem}.cubin", env!("CARGO_MANIFEST_DIR"))).expect("corpus cubin")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn i32_arg(v: i32) -> KernelArg {
    KernelArg::Value { bytes: v.to_le_bytes().to_vec(), align: 4 }
}

/// Runs `kernel` on `grid` blocks of `block` threads with an input of one word a thread (`seed`), an output of
/// `k` words a thread and `n`; returns the input words and the output words.
fn run(kernel: &str, grid: u32, block: u32, seed: u64, k: usize, n: i32) -> (Vec<u32>, Vec<u32>) {
    let threads = (grid * block) as usize;
    let input = generate(4 * threads, seed);
    let x = words(&input);
    let mut rt = common::runtime(Duration::from_secs(600));
    rt.set_launch_timeout(Some(Duration::from_secs(600)));
    let args = [KernelArg::Buffer(input), KernelArg::Buffer(vec![0; 4 * k * threads]), i32_arg(n)];
    let r = run_kernel(&mut rt, None, &cubin(), kernel, [grid, 1, 1], [block, 1, 1], 0, &args)
        .unwrap_or_else(|e| panic!("{kernel}: {e:#}"));
    (x, words(&r.buffers[1]))
}

/// The threads of the `size`-thread tile of thread `i` (tiles never cross a block in these launches).
fn tile(i: usize, size: usize) -> std::ops::Range<usize> {
    i / size * size..i / size * size + size
}

/// Compares `out` with `want(i)` (k words) for threads `0..n`, and zeros beyond.
fn check(kernel: &str, out: &[u32], k: usize, n: usize, want: impl Fn(usize) -> Vec<u32>) {
    let mut bad = Vec::new();
    for i in 0..out.len() / k {
        let w = if i < n { want(i) } else { vec![0; k] };
        if out[k * i..k * i + k] != w[..] {
            bad.push(format!("thread {i}: got {:x?}, want {:x?}", &out[k * i..k * i + k], w));
        }
    }
    assert!(bad.is_empty(), "{kernel}: {} threads wrong, first: {}", bad.len(), bad[..bad.len().min(4)].join("; "));
}

/// What `tile_reduce_<size>` stores for thread `i`: the seven reductions over its tile.
fn tile_reductions_expected(x: &[u32], i: usize, size: usize) -> Vec<u32> {
    let t: Vec<u32> = tile(i, size).map(|j| x[j]).collect();
    vec![
        t.iter().fold(0i32, |a, &v| a.wrapping_add((v >> 7) as i32)) as u32,
        t.iter().fold(0u32, |a, &v| a.wrapping_add(v)),
        t.iter().copied().max().unwrap_or(0),
        t.iter().map(|&v| v as i32).min().unwrap_or(0) as u32,
        t.iter().fold(u32::MAX, |a, &v| a & (v | 0x0100_0000)),
        t.iter().fold(0, |a, &v| a | (v & 0x00f0_f0f0)),
        t.iter().fold(0, |a, &v| a ^ (v >> 3)),
    ]
}

fn tile_reduce(size: usize, seed: u64) {
    let kernel = format!("tile_reduce_{size}");
    let (x, out) = run(&kernel, 2, 256, seed, 7, 500);
    check(&kernel, &out, 7, 500, |i| tile_reductions_expected(&x, i, size));
}

#[test]
fn tile_reductions_of_2_4_and_8_threads() {
    tile_reduce(2, 1610);
    tile_reduce(4, 1611);
    tile_reduce(8, 1612);
}

/// The shape that ran wrong in turns: each 16-thread tile's REDUX after WARPSYNC.EXCLUSIVE.
#[test]
fn tile_reductions_of_16_threads() {
    tile_reduce(16, 1613);
}

#[test]
fn tile_reductions_of_whole_warps() {
    tile_reduce(32, 1614);
}

/// `tile_divergent` for thread `i` (global) in blocks of `block` threads (a multiple of 16).
fn tile_divergent_expected(x: &[u32], i: usize, block: usize) -> Vec<u32> {
    let (base, t) = (i / block * block, i % block);
    let t16: Vec<usize> = (0..16).map(|l| base + t / 16 * 16 + l).collect();
    let lane16 = t % 16;
    let (r0, r1, r2) = if (t / 16) & 1 == 1 {
        let sum = t16.iter().fold(0i32, |a, &j| a.wrapping_add(x[j] as i32 >> 4)) as u32;
        let ballot = t16.iter().enumerate().fold(0u32, |a, (l, &j)| a | ((x[j] & 1) << l));
        (sum, x[t16[5]], ballot)
    } else {
        let max = t16.iter().map(|&j| x[j]).max().unwrap_or(0);
        let down = if lane16 + 2 < 16 { x[i + 2] } else { x[i] };
        let any = t16.iter().any(|&j| x[j] & 2 != 0) as u32;
        let all = t16.iter().all(|&j| x[j] & 4 != 0) as u32;
        (max, down, any | (all << 1))
    };
    let t4: Vec<usize> = (0..4).map(|l| base + t / 4 * 4 + l).collect();
    let (r3, r4) = if t4.iter().any(|&j| x[j] & 8 != 0) {
        let sum = t4.iter().fold(0i32, |a, &j| a.wrapping_add((x[j] & 0xffff) as i32 - 30000)) as u32;
        let matching = t4.iter().enumerate().fold(0u32, |a, (l, &j)| a | (u32::from(x[j] & 3 == x[i] & 3) << l));
        (sum, matching)
    } else {
        (0x1234, x[i ^ 1])
    };
    // r5: the xor over the 16-thread tile of r3 ^ r0, each lane's own values.
    let r5 = t16.iter().fold(0u32, |a, &j| {
        let o = tile_divergent_r0_r3(x, j, block);
        a ^ o.0 ^ o.1
    });
    vec![r0, r1, r2, r3, r4, r5]
}

/// `(r0, r3)` of thread `j` of `tile_divergent` (what `r5` reduces).
fn tile_divergent_r0_r3(x: &[u32], j: usize, block: usize) -> (u32, u32) {
    let (base, t) = (j / block * block, j % block);
    let t16 = (0..16).map(|l| base + t / 16 * 16 + l);
    let r0 = if (t / 16) & 1 == 1 {
        t16.fold(0i32, |a, k| a.wrapping_add(x[k] as i32 >> 4)) as u32
    } else {
        t16.map(|k| x[k]).max().unwrap_or(0)
    };
    let t4: Vec<usize> = (0..4).map(|l| base + t / 4 * 4 + l).collect();
    let r3 = if t4.iter().any(|&k| x[k] & 8 != 0) {
        t4.iter().fold(0i32, |a, &k| a.wrapping_add((x[k] & 0xffff) as i32 - 30000)) as u32
    } else {
        0x1234
    };
    (r0, r3)
}

/// The manifest's launch, and blocks of 240 threads (the last warp of each has 16 lanes).
#[test]
fn tile_operations_in_branches_that_diverge_between_tiles() {
    let (x, out) = run("tile_divergent", 2, 256, 1615, 6, 500);
    check("tile_divergent", &out, 6, 500, |i| tile_divergent_expected(&x, i, 256));
    let (x, out) = run("tile_divergent", 2, 240, 1615, 6, 470);
    check("tile_divergent (partial warps)", &out, 6, 470, |i| tile_divergent_expected(&x, i, 240));
}

/// `tile_loop` for thread `i`: its 16-thread tile's loop, run here for the whole tile.
fn tile_loop_expected(x: &[u32], i: usize) -> Vec<u32> {
    let t0 = i / 16 * 16;
    let trips = (t0..t0 + 16).map(|j| x[j] & 3).max().unwrap_or(0) + 1;
    let mut v: Vec<u32> = x[t0..t0 + 16].to_vec();
    let (mut acc, mut small) = ([0u32; 16], [0u32; 16]);
    for it in 0..trips {
        let sum = v.iter().fold(0i32, |a, &w| a.wrapping_add((w & 0xfff) as i32 - 2048)) as u32;
        let or = v.iter().fold(0u32, |a, &w| a | (w & 0x00ff_00ff));
        for l in 0..16 {
            acc[l] = acc[l].wrapping_add(sum) ^ (or << 1);
            // t8.shfl_xor(v >> 20, it | 1): within the lane's 8-thread tile.
            small[l] = small[l].wrapping_mul(3).wrapping_add(v[l ^ ((it as usize | 1) & 7)] >> 20);
        }
        v = (0..16).map(|l| v[(l + it as usize + 1) & 15] ^ it).collect();
    }
    let l = i - t0;
    vec![acc[l], v[l], trips, small[l]]
}

#[test]
fn tile_reductions_in_loops_of_different_lengths() {
    let (x, out) = run("tile_loop", 2, 256, 1616, 4, 500);
    check("tile_loop", &out, 4, 500, |i| tile_loop_expected(&x, i));
}

/// `coalesced_after_exit` for thread `i` in blocks of `block` threads.
fn coalesced_expected(x: &[u32], i: usize, block: usize) -> Vec<u32> {
    if x[i] % 3 == 0 {
        return vec![0xdead, 0, 0, 0, 0];
    }
    // The lanes of the warp that did not return (a partial last warp has fewer than 32).
    let (base, t) = (i / block * block, i % block);
    let first = t / 32 * 32;
    let warp: Vec<usize> = (first..(first + 32).min(block)).map(|l| base + l).filter(|&j| x[j] % 3 != 0).collect();
    let rank = warp.iter().position(|&j| j == i).unwrap_or(0) as u32;
    let size = warp.len() as u32;
    let sum = warp.iter().fold(0i32, |a, &j| a.wrapping_add((x[j] >> 8) as i32)) as u32;
    let ballot = warp.iter().enumerate().fold(0u32, |a, (r, &j)| a | ((x[j] & 1) << r));
    let max = warp.iter().map(|&j| x[j]).max().unwrap_or(0);
    vec![sum, rank | (size << 8), ballot, x[warp[0]], max]
}

/// The manifest's launch, and blocks of 48 threads (the second warp of each has 16 lanes).
#[test]
fn coalesced_groups_after_lanes_returned() {
    let (x, out) = run("coalesced_after_exit", 2, 64, 1617, 5, 120);
    check("coalesced_after_exit", &out, 5, 120, |i| coalesced_expected(&x, i, 64));
    let (x, out) = run("coalesced_after_exit", 2, 48, 1617, 5, 90);
    check("coalesced_after_exit (partial warps)", &out, 5, 90, |i| coalesced_expected(&x, i, 48));
}

/// `labeled_reduce` for thread `i`: its warp split by `x & 3` (labeled_partition) and by lane parity
/// (binary_partition), groups whose lanes interleave.
fn labeled_expected(x: &[u32], i: usize) -> Vec<u32> {
    let warp = i / 32 * 32..i / 32 * 32 + 32;
    let by_value: Vec<usize> = warp.clone().filter(|&j| x[j] & 3 == x[i] & 3).collect();
    let parity: Vec<usize> = warp.filter(|&j| j % 2 == i % 2).collect();
    let rank = by_value.iter().position(|&j| j == i).unwrap_or(0) as u32;
    vec![
        by_value.iter().fold(0i32, |a, &j| a.wrapping_add((x[j] >> 4) as i32)) as u32,
        by_value.iter().map(|&j| x[j]).max().unwrap_or(0),
        rank | ((by_value.len() as u32) << 8),
        parity.iter().fold(0i32, |a, &j| a.wrapping_add(x[j] as i32)) as u32,
        parity.iter().fold(0u32, |a, &j| a ^ (x[j] >> 2)),
    ]
}

/// Groups whose lanes interleave: not run in turns yet. nvcc's test for a uniform mask (`R2UR P0`, then
/// `@!P0 BRA.DIV` to the slow path) sends the lanes of lane 0's group down the fast path and the others down
/// the slow one, which meet again at 0x1d0 without a BSYNC, and the full-warp VOTE of `binary_partition` follows
/// there without a WARPSYNC: in turns the fast lanes vote alone, the partition masks disagree, and the launch
/// ends with the typed no-progress error at the slow path's `WARPSYNC.EXCLUSIVE` (0x660) — never a wrong
/// result. Whether silicon votes with all 32 lanes there is what its golden will say.
#[test]
fn labeled_and_binary_partitions_end_with_a_typed_error_in_turns() {
    let input = generate(2048, 1618);
    let mut rt = common::runtime(Duration::from_secs(600));
    let args = [KernelArg::Buffer(input), KernelArg::Buffer(vec![0; 10240]), i32_arg(500)];
    match run_kernel(&mut rt, None, &cubin_of("coop_partitions"), "labeled_reduce", [2, 1, 1], [256, 1, 1], 0, &args) {
        Ok(_) => panic!("labeled_reduce ran in turns: check it against labeled_expected and make this a match"),
        Err(e) => {
            let e = format!("{e:#}");
            assert!(e.contains("no progress") && e.contains("pc 0x660"), "{e}");
        }
    }
}

/// Words a thread of `kernel` stores, and what they are for thread `i` in blocks of `block` threads.
fn expected(kernel: &str, x: &[u32], block: usize, i: usize) -> (usize, Vec<u32>) {
    match kernel {
        "tile_divergent" => (6, tile_divergent_expected(x, i, block)),
        "tile_loop" => (4, tile_loop_expected(x, i)),
        "coalesced_after_exit" => (5, coalesced_expected(x, i, block)),
        "labeled_reduce" => (5, labeled_expected(x, i)),
        k => {
            let size = k.strip_prefix("tile_reduce_").and_then(|s| s.parse().ok()).expect("a coop_tiles kernel");
            (7, tile_reductions_expected(x, i, size))
        }
    }
}

/// Every coop_tiles launch of the manifests, as listed: lavapipe against the host model, and — for the
/// launches in `launches.txt`, whose silicon goldens are recorded — the H200's output against the host model
/// (the model's own check) and lavapipe against the H200 word for word.
#[test]
fn manifest_launches_match_the_models_and_silicon() {
    let recorded = sassport_corpus::launches().unwrap();
    let pending = sassport_corpus::pending_launches().unwrap();
    let mut seen = 0;
    let mut rt = common::runtime(Duration::from_secs(600));
    rt.set_launch_timeout(Some(Duration::from_secs(600)));
    for (l, has_golden) in recorded.iter().map(|l| (l, true)).chain(pending.iter().map(|l| (l, false))) {
        if !matches!(l.file.as_str(), "coop_tiles" | "coop_partitions") {
            continue;
        }
        seen += 1;
        let args = KernelArg::of_launch(l);
        let KernelArg::Buffer(input) = &args[0] else { panic!("{}: first argument is the input", l.kernel) };
        let x = words(input);
        let n = match &args[2] {
            KernelArg::Value { bytes, .. } => i32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize,
            _ => panic!("{}: third argument is n", l.kernel),
        };
        let block = l.block.count() as usize;
        let k = expected(&l.kernel, &x, block, 0).0;
        // Pending launches recorded anyway keep their H200 buffers in corpus/silicon/coop_tiles/ (goldens/
        // holds launches.txt's only).
        let recorded_at = |index: usize| match has_golden {
            true => l.golden(index),
            false => sassport_corpus::root().join(format!("silicon/coop_tiles/{}.arg{index}.bin", l.kernel)),
        };
        if recorded_at(1).exists() {
            let silicon = words(&std::fs::read(recorded_at(1)).expect("golden"));
            assert_eq!(words(&std::fs::read(recorded_at(0)).expect("golden")), x, "{}: the H200's input", l.kernel);
            check(&format!("{} on the H200", l.kernel), &silicon, k, n, |i| expected(&l.kernel, &x, block, i).1);
        }
        if l.kernel == "labeled_reduce" {
            // Not run in turns yet (see labeled_and_binary_partitions_end_with_a_typed_error_in_turns).
            continue;
        }
        let r = run_kernel(&mut rt, None, &cubin_of(&l.file), &l.kernel, [l.grid.x, l.grid.y, l.grid.z], [l.block.x, l.block.y, l.block.z], 0, &args)
            .unwrap_or_else(|e| panic!("{}: {e:#}", l.kernel));
        let out = words(&r.buffers[1]);
        check(&l.kernel, &out, k, n, |i| expected(&l.kernel, &x, block, i).1);
        if has_golden {
            let silicon = words(&std::fs::read(l.golden(1)).expect("golden"));
            assert!(out == silicon, "{}: lavapipe differs from the H200", l.kernel);
        }
    }
    assert_eq!(seen, 9, "coop_tiles and coop_partitions launches in the manifests");
}

/// For a 32-wide device the same kernels take the subgroup form, and those modules pass spirv-val.
#[test]
fn subgroup_form_modules_validate() {
    let profile = sassport_translator::lower::subgroup::warp_subgroup_profile();
    for (stem, kernel) in [
        ("coop_tiles", "tile_reduce_2"),
        ("coop_tiles", "tile_reduce_4"),
        ("coop_tiles", "tile_reduce_8"),
        ("coop_tiles", "tile_reduce_16"),
        ("coop_tiles", "tile_reduce_32"),
        ("coop_tiles", "tile_divergent"),
        ("coop_tiles", "tile_loop"),
        ("coop_tiles", "coalesced_after_exit"),
        ("coop_partitions", "labeled_reduce"),
    ] {
        let bytes = cubin_of(stem);
        let cubin = Cubin::parse(&bytes).unwrap();
        let t = translate_kernel(&cubin, kernel, &Options { profile: Some(profile.clone()), ..Options::default() })
            .unwrap_or_else(|e| panic!("{kernel}: {e}"));
        assert!(matches!(t.report.form, Some(Form::Structured { warps_as_subgroups: true, .. })), "{kernel}: {:?}", t.report.form);
        support::spirv_val(&t.words).unwrap_or_else(|e| panic!("{kernel}: spirv-val: {e}"));
    }
}
