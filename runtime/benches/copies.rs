//! Host↔window copies of 64 MiB (or `SASSPORT_COPY_MIB`) each way through `Runtime::upload`/`download`, in both memory modes (a
//! mapped window, and the staging halves discrete GPUs use), one buffer and chunked (across a chunk boundary),
//! against a host `memcpy` of the same bytes.
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
    // One buffer, and a chunked 6 GiB window (docs/abi.md) with the copy straddling a chunk boundary.
    let one = bytes as u64 + (16 << 20);
    let cases = [
        (MemoryMode::Auto, "auto", one),
        (MemoryMode::Staged, "staged", one),
        (MemoryMode::Auto, "auto_chunked", 6 << 30),
        (MemoryMode::Staged, "staged_chunked", 6 << 30),
    ];
    for (mode, name, window) in cases {
        let mut rt = Runtime::new(RuntimeOptions {
            device: device_name().parse().expect("device"),
            window_bytes: Some(window),
            pipeline_cache: PipelineCacheLocation::Disabled,
            memory: mode,
            ..Default::default()
        })
        .expect("runtime");
        if let Some(c) = rt.window_chunks() {
            let probe = rt.alloc(256).expect("alloc");
            rt.free(probe).expect("free");
            let at = probe - rt.window_base();
            let filler = (c.chunk_bytes() - bytes as u64 / 2 - at).next_multiple_of(256);
            rt.alloc(filler).expect("alloc");
        }
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
