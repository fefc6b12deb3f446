//! Host↔window copies of 64 MiB (or `SASSPORT_COPY_MIB`) each way through `Runtime::upload`/`download`, in both memory modes (a
//! mapped window, and the staging halves discrete GPUs use), against a host `memcpy` of the same bytes.
//! Targets (issue 19): at least 0.5x memcpy on lavapipe; at least 10 GB/s each way on the H200 (run this
//! bench there with SASSPORT_TEST_DEVICE=NVIDIA; a discrete GPU is always staged).

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_runtime::{MemoryMode, PipelineCacheLocation, Runtime, RuntimeOptions};

/// Bytes copied each way: 64 MiB, or `SASSPORT_COPY_MIB` MiB (1024 for the H200 figure).
fn bytes() -> usize {
    let mib = std::env::var("SASSPORT_COPY_MIB").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(64);
    mib << 20
}

fn device_name() -> String {
    std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into())
}

fn bench(c: &mut Criterion) {
    support::test_env();
    let bytes = bytes();
    let data: Vec<u8> = (0..bytes).map(|i| (i * 7 + (i >> 11)) as u8).collect();
    let mut out = vec![0u8; bytes];
    let mut g = c.benchmark_group("copies");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("memcpy", |b| b.iter(|| out.copy_from_slice(&data)));
    for (mode, name) in [(MemoryMode::Auto, "auto"), (MemoryMode::Staged, "staged")] {
        let mut rt = Runtime::new(RuntimeOptions {
            device: device_name().parse().expect("device"),
            window_bytes: Some(bytes as u64 + (16 << 20)),
            pipeline_cache: PipelineCacheLocation::Disabled,
            memory: mode,
            ..Default::default()
        })
        .expect("runtime");
        let buf = rt.alloc(bytes as u64).expect("alloc");
        g.bench_function(format!("upload_{name}"), |b| b.iter(|| rt.upload(buf, &data).expect("upload")));
        g.bench_function(format!("download_{name}"), |b| b.iter(|| rt.download(buf, &mut out).expect("download")));
        assert!(out == data, "the window did not give back what was written ({name})");
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
