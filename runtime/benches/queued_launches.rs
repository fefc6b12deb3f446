//! Launch throughput of queued launches (issue 18): host time for N back-to-back `Runtime::enqueue`s of a
//! cached one-block kernel then one `Runtime::synchronize`, per launch, on the default test device
//! (lavapipe), beside N synchronous `Runtime::launch`es for comparison.
//!
//! Issue 18's target is CUDA programs' launch throughput within 3x of native CUDA on the H200 (native: 3.5 us
//! per empty launch, so about 10 us through sassport on NVIDIA's Vulkan driver). On lavapipe the queued
//! figure is bound by lavapipe's own per-dispatch cost (it wakes its worker threads for every dispatch and
//! barrier), not by the runtime's host work.

#[path = "../tests/support/mod.rs"]
mod support;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_runtime::{Launch, PipelineCacheLocation, Runtime, RuntimeOptions};

const N: u64 = 1000;
const GRID: [u32; 3] = [1, 1, 1];
const BLOCK: [u32; 3] = [32, 1, 1];

fn bench_queued(c: &mut Criterion) {
    support::test_env();
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    let mut rt = Runtime::new(RuntimeOptions {
        device: device.parse().unwrap(),
        window_bytes: Some(1 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        ..Default::default()
    })
    .unwrap();
    let k = rt.load_kernel("store_gid", &support::store_gid_kernel()).unwrap();
    let buf = rt.alloc(4 * 32).unwrap();
    let bank0 = support::bank0(GRID, BLOCK, buf, 1);
    let launch = Launch { kernel: k, grid: GRID, block: BLOCK, dynamic_shared_bytes: 0, banks: &[(0, &bank0)] };
    rt.launch(&launch).unwrap();
    let mut group = c.benchmark_group("launch_throughput");
    group.throughput(Throughput::Elements(N));
    group.sample_size(10);
    group.bench_function("queued_1000_then_synchronize", |b| {
        b.iter(|| {
            for _ in 0..N {
                rt.enqueue(&launch).unwrap();
            }
            rt.synchronize().unwrap();
            assert!(rt.take_completed().failure.is_none());
        })
    });
    group.bench_function("synchronous_1000", |b| {
        b.iter(|| {
            for _ in 0..N {
                rt.launch(&launch).unwrap();
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_queued);
criterion_main!(benches);
