//! Issue 24 item 1: lavapipe's loop limiter (gallivm leaves every loop once 65,535 loop iterations ran in a
//! shader, per group of 8 SIMD lanes, all loops together) made long loops exit 0 with wrong results. Each test
//! starts from the failing input of the issue (`corpus/src/loops_long.cu`) and checks the outputs against a
//! host computation of the same recurrence, or the typed error where no work-around exists: a loop the device
//! cuts is `RuntimeError::DeviceLoopLimit`, a launch past its timeout `RuntimeError::LaunchTimeout`.

mod common;

use sassport::kernel_run::{run_kernel, KernelArg, RunError, KernelRun};
use sassport_runtime::{Runtime, RuntimeError};
use std::time::Duration;

const THREADS: usize = 256;

fn cubin() -> Vec<u8> {
    std::fs::read(sassport_corpus::root().join("sm86/loops_long.cubin")).expect("corpus/sm86/loops_long.cubin")
}

fn seeds(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761)).collect()
}

fn words(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn unwords(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// What an NVIDIA H200 computed natively for the same launch (`corpus/silicon/loops_long/RECORDED.txt`).
fn silicon(case: &str) -> Vec<u32> {
    let p = sassport_corpus::root().join("silicon/loops_long").join(format!("{case}.bin"));
    unwords(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

fn i32arg(v: i32) -> KernelArg {
    KernelArg::Value { bytes: v.to_le_bytes().to_vec(), align: 4 }
}

/// The kernels' step (`lcg_step` in loops_long.cu).
fn step(x: u32, k: u32) -> u32 {
    x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223 ^ k)
}

fn launch(rt: &mut Runtime, kernel: &str, grid: u32, block: u32, args: &[KernelArg]) -> Result<KernelRun, RunError> {
    run_kernel(rt, None, &cubin(), kernel, [grid, 1, 1], [block, 1, 1], 0, args)
}

/// The runtime error a failed launch carries.
fn runtime_error(r: Result<KernelRun, RunError>) -> RuntimeError {
    match r {
        Ok(_) => panic!("the launch must fail"),
        Err(RunError::Refused(why)) => panic!("refused by the translator: {why}"),
        Err(RunError::Other(e)) => match e.chain().find_map(|c| c.downcast_ref::<RuntimeError>()) {
            Some(RuntimeError::DeviceLoopLimit { kernel, pc, limit }) => {
                RuntimeError::DeviceLoopLimit { kernel: kernel.clone(), pc: *pc, limit: *limit }
            }
            Some(RuntimeError::LaunchTimeout { kernel, seconds }) => {
                RuntimeError::LaunchTimeout { kernel: kernel.clone(), seconds: *seconds }
            }
            _ => panic!("not a loop error: {e:#}"),
        },
    }
}

fn long_loop(iters: u32, case: &str) {
    let mut rt = common::runtime(Duration::from_secs(120));
    let seed = seeds(THREADS);
    let args =
        [KernelArg::Buffer(words(&seed)), KernelArg::Buffer(vec![0; 4 * THREADS]), i32arg(iters as i32), i32arg(THREADS as i32)];
    let run = launch(&mut rt, "loop_long", 1, THREADS as u32, &args).expect("the long loop runs");
    let out = unwords(&run.buffers[1]);
    for i in [0usize, 7, 8, 100, 255] {
        let want = (0..iters).fold(seed[i], step);
        assert_eq!(out[i], want, "thread {i} after {iters} iterations");
    }
    assert_eq!(out, silicon(case), "every thread against the H200");
}

#[test]
fn a_loop_of_65536_iterations_runs_whole() {
    long_loop(65_536, "long65536");
}

#[test]
fn a_loop_of_a_million_iterations_runs_whole() {
    long_loop(1_000_000, "long1e6");
}

fn nested(outer: u32, inner: u32, case: &str) {
    let mut rt = common::runtime(Duration::from_secs(120));
    let seed = seeds(THREADS);
    let args = [
        KernelArg::Buffer(words(&seed)),
        KernelArg::Buffer(vec![0; 4 * THREADS]),
        i32arg(outer as i32),
        i32arg(inner as i32),
        i32arg(THREADS as i32),
    ];
    let run = launch(&mut rt, "loop_nested", 1, THREADS as u32, &args).expect("the nested loops run");
    let out = unwords(&run.buffers[1]);
    for i in [0usize, 9, 255] {
        let want = (0..outer).fold(seed[i], |x, a| (0..inner).fold(x, step) ^ a);
        assert_eq!(out[i], want, "thread {i} after {outer}x{inner} iterations");
    }
    assert_eq!(out, silicon(case), "every thread against the H200");
}

#[test]
fn nested_loops_of_300_by_300_run_whole() {
    nested(300, 300, "nested300");
}

#[test]
fn nested_loops_of_1000_by_1000_run_whole() {
    nested(1000, 1000, "nested1000");
}

#[test]
fn two_loops_in_a_row_each_run_whole() {
    // The measurement kernel: loop A stores its count each iteration, then loop B. Before the fix, thread 0..7
    // saw 65,535 in A and 1 in B (the limiter is shared by the loops and by the 8 lanes of a SIMD group).
    let mut rt = common::runtime(Duration::from_secs(120));
    let (first, second, extra) = (70_000i32, 10_000i32, -1_000i32);
    let args = [KernelArg::Buffer(vec![0; 8 * 32]), i32arg(first), i32arg(second), i32arg(extra)];
    let run = launch(&mut rt, "loop_progress", 1, 32, &args).expect("the two loops run");
    let out = unwords(&run.buffers[0]);
    for t in 0..32 {
        assert_eq!(out[2 * t] as i32, first + t as i32 * extra, "loop A of thread {t}");
        assert_eq!(out[2 * t + 1] as i32, second, "loop B of thread {t}");
    }
    assert_eq!(out[..64], silicon("progress")[..64], "against the H200");
}

#[test]
fn a_loop_longer_than_the_work_around_fails_by_name() {
    // 3 * 10^6 iterations of a 5-instruction body exceed 65,535 * 32 (the unroll factor): on lavapipe the
    // launch must fail naming the loop, never exit 0 with the value after 2,097,088 iterations.
    let mut rt = common::runtime(Duration::from_secs(120));
    if rt.device().loop_iteration_limit().is_none() {
        return; // a device without a loop limit runs it whole
    }
    let args = [
        KernelArg::Buffer(words(&seeds(THREADS))),
        KernelArg::Buffer(vec![0; 4 * THREADS]),
        i32arg(3_000_000),
        i32arg(THREADS as i32),
    ];
    match runtime_error(launch(&mut rt, "loop_long", 1, THREADS as u32, &args)) {
        RuntimeError::DeviceLoopLimit { kernel, pc, limit } => {
            assert_eq!(kernel, "loop_long");
            assert_eq!(pc, 0x110, "the loop's first instruction");
            assert_eq!(limit, 65_535);
        }
        e => panic!("{e}"),
    }
}

#[test]
fn an_infinite_loop_ends_with_an_error() {
    // `while (true) {}` exited 0 after the limiter left it. On lavapipe it now ends by the loop limit (in
    // milliseconds); on a device without one, by the launch timeout.
    let mut rt = common::runtime(Duration::from_secs(120));
    rt.set_launch_timeout(Some(Duration::from_secs(2)));
    let r = launch(&mut rt, "loop_forever", 1, 32, &[KernelArg::Buffer(vec![0; 4 * 32])]);
    match runtime_error(r) {
        RuntimeError::DeviceLoopLimit { kernel, pc, .. } => {
            assert_eq!((kernel.as_str(), pc), ("loop_forever", 0x70));
        }
        RuntimeError::LaunchTimeout { kernel, seconds } => {
            assert!(rt.device().loop_iteration_limit().is_none(), "lavapipe should stop it by its loop limit");
            assert_eq!((kernel.as_str(), seconds), ("loop_forever", 2.0));
        }
        e => panic!("{e}"),
    }
}

#[test]
fn a_spin_on_a_flag_no_one_sets_ends_with_an_error() {
    let mut rt = common::runtime(Duration::from_secs(120));
    rt.set_launch_timeout(Some(Duration::from_secs(2)));
    let args = [KernelArg::Buffer(vec![0; 256]), KernelArg::Buffer(vec![0; 4 * 32])];
    match runtime_error(launch(&mut rt, "spin_unset_flag", 1, 32, &args)) {
        RuntimeError::DeviceLoopLimit { kernel, pc, .. } => assert_eq!((kernel.as_str(), pc), ("spin_unset_flag", 0x40)),
        RuntimeError::LaunchTimeout { kernel, .. } => assert_eq!(kernel, "spin_unset_flag"),
        e => panic!("{e}"),
    }
}

#[test]
fn a_launch_past_its_timeout_is_stopped_and_reported() {
    // Loops that stay within lavapipe's budget but run long in all: 512 blocks of 256 threads, 10^6 iterations
    // each (about a minute here). The runtime raises the abort word after 1 s; the kernel's loops see it within
    // 1024 iterations and the launch fails by name, well before the grace period ends.
    let mut rt = common::runtime(Duration::from_secs(120));
    rt.set_launch_timeout(Some(Duration::from_secs(1)));
    let blocks = 512usize;
    let args = [
        KernelArg::Buffer(words(&seeds(blocks * THREADS))),
        KernelArg::Buffer(vec![0; 4 * blocks * THREADS]),
        i32arg(1_000_000),
        i32arg((blocks * THREADS) as i32),
    ];
    let started = std::time::Instant::now();
    match runtime_error(launch(&mut rt, "loop_long", blocks as u32, THREADS as u32, &args)) {
        RuntimeError::LaunchTimeout { kernel, seconds } => assert_eq!((kernel.as_str(), seconds), ("loop_long", 1.0)),
        e => panic!("{e}"),
    }
    assert!(started.elapsed() < Duration::from_secs(60), "the abort must end the launch early");
    // The runtime stays usable: the next launch runs whole.
    rt.set_launch_timeout(Some(Duration::from_secs(60)));
    let seed = seeds(THREADS);
    let args = [KernelArg::Buffer(words(&seed)), KernelArg::Buffer(vec![0; 4 * THREADS]), i32arg(1000), i32arg(256)];
    let run = launch(&mut rt, "loop_long", 1, THREADS as u32, &args).expect("a launch after a timeout");
    assert_eq!(unwords(&run.buffers[1])[3], (0..1000).fold(seed[3], step));
}

#[test]
fn a_spin_on_a_flag_another_block_sets_completes() {
    let mut rt = common::runtime(Duration::from_secs(120));
    let args = [KernelArg::Buffer(vec![0; 256]), KernelArg::Buffer(vec![0; 4 * 32])];
    let run = launch(&mut rt, "spin_other_block", 2, 32, &args).expect("the spin ends when block 0 sets the flag");
    assert_eq!(unwords(&run.buffers[0])[0], 7, "the flag");
    assert!(unwords(&run.buffers[1]).iter().all(|&w| w == 7), "every spinning thread read the flag");
}

/// The shuffle loop on the host: each iteration every lane takes lane `l ^ (k & 31)`'s value.
fn shuffles(seed: &[u32], iters: u32) -> Vec<u32> {
    let mut x = seed.to_vec();
    for k in 0..iters {
        let y: Vec<u32> = (0..x.len()).map(|t| x[(t & !31) | ((t & 31) ^ (k as usize & 31))]).collect();
        x = (0..x.len()).map(|t| step(y[t], k) ^ (t as u32 & 31)).collect();
    }
    x
}

fn shuffle_run(rt: &mut Runtime, iters: u32) -> Result<KernelRun, RunError> {
    let seed = seeds(64);
    let args = [KernelArg::Buffer(words(&seed)), KernelArg::Buffer(vec![0; 4 * 64]), i32arg(iters as i32)];
    launch(rt, "shuffle_loop", 1, 64, &args)
}

#[test]
fn a_shuffle_loop_in_turns_runs_past_the_old_cut() {
    // In the turns form every turn ran helper loops over the 32 lanes, so ~465 shuffles spent lavapipe's
    // budget and the loop ended early with exit 0. The helper loops are written out now.
    let mut rt = common::runtime(Duration::from_secs(120));
    rt.set_launch_timeout(Some(Duration::from_secs(120)));
    let iters = 5_000;
    let run = shuffle_run(&mut rt, iters).expect("5,000 shuffles in turns");
    assert_eq!(unwords(&run.buffers[1]), shuffles(&seeds(64), iters));
}

#[test]
fn a_shuffle_loop_beyond_the_turns_budget_fails_by_name() {
    // 10^5 shuffles in turns need more loop iterations than lavapipe allows (the scheduler's own loops cost
    // a few per turn): refused with the typed error, not a wrong result.
    let mut rt = common::runtime(Duration::from_secs(120));
    if rt.device().loop_iteration_limit().is_none() || rt.device().subgroup_size == 32 {
        return;
    }
    rt.set_launch_timeout(Some(Duration::from_secs(300)));
    match runtime_error(shuffle_run(&mut rt, 100_000)) {
        RuntimeError::DeviceLoopLimit { kernel, .. } => assert_eq!(kernel, "shuffle_loop"),
        e => panic!("{e}"),
    }
}

#[test]
fn the_host_shuffle_model_is_what_the_h200_computed() {
    // The turns-form shuffle test above is checked against `shuffles`; silicon ran 10^5 iterations of the
    // same kernel natively, which the model must reproduce.
    assert_eq!(shuffles(&seeds(64), 100_000), silicon("shuffle1e5")[..64]);
}

/// The translator finds the kernels that wait in a loop for what another block writes (volatile loads in a
/// loop; `docs/block-order.md`) and no others: loops that only compute, store volatile progress words or
/// shuffle are not waits, so they keep running their blocks concurrently.
#[test]
fn kernels_that_wait_on_other_blocks_are_found() {
    let bytes = cubin();
    let cubin = sassport_translator::Cubin::parse(&bytes).expect("loops_long.cubin");
    let options = sassport_translator::translate::Options::default();
    for (kernel, waits) in [
        ("spin_other_block", true),
        ("spin_unset_flag", true),
        ("loop_long", false),
        ("loop_nested", false),
        ("loop_progress", false),
        ("loop_forever", false),
        ("shuffle_loop", false),
    ] {
        let t = sassport_translator::translate::translate_kernel(&cubin, kernel, &options).expect(kernel);
        assert_eq!(t.report.polls_other_blocks.is_some(), waits, "{kernel}: {:?}", t.report.polls_other_blocks);
    }
}
