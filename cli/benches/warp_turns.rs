//! The cost of running warps in turns (issue 7): the same block reduction written with warp shuffles
//! (`reduce_warp_shuffle`: SHFL.DOWN, run in turns on a device whose subgroups cannot hold a warp) and with
//! shared memory and `__syncthreads` only (`reduce_shared_tree`: no warp instructions, one invocation per
//! thread with no scheduling), the shuffle-heavy `shfl_reduce_broadcast` and the tensor-core `wmma_f16_f32`
//! (LDSM and HMMA.16816 fed from the turns exchange: one warp, one 16x16x16 tile), launched with warm pipelines
//! on the default Vulkan device (lavapipe here). Module sizes and turn blocks print once before the timings.
//!
//! `cargo bench -p sassport --bench warp_turns`.

mod support;

use criterion::{criterion_group, criterion_main, Criterion};

const KERNELS: &[&str] = &["reduce_shared_tree", "reduce_warp_shuffle", "shfl_reduce_broadcast", "wmma_f16_f32"];

fn warp_turns(c: &mut Criterion) {
    support::bench_kernels(c, "warp_turns", KERNELS);
}

criterion_group!(benches, warp_turns);
criterion_main!(benches);
