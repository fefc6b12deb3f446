//! Window allocation: alloc and free with many live allocations and holes (an emulator's steady state).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use sassport_runtime::{abi, WindowAllocator};

/// A window with `live` allocations of mixed sizes and a hole of up to 4 KiB after each: a request for
/// 8 KiB fits none of the holes.
fn fragmented(live: usize) -> (WindowAllocator, Vec<u64>) {
    let mut a = WindowAllocator::new(abi::DEFAULT_WINDOW_BASE, 1 << 32);
    let all: Vec<u64> = (0..2 * live)
        .map(|i| a.alloc(256 + (i as u64 * 97 % 4096)).unwrap())
        .collect();
    let mut kept = Vec::new();
    for (i, addr) in all.into_iter().enumerate() {
        if i % 2 == 0 {
            kept.push(addr);
        } else {
            a.free(addr).unwrap();
        }
    }
    (a, kept)
}

fn bench(c: &mut Criterion) {
    for live in [100usize, 10_000] {
        c.bench_function(&format!("alloc/alloc_free_pair_{live}_live"), |b| {
            b.iter_batched_ref(
                || fragmented(live).0,
                |a| {
                    let x = a.alloc(8192).unwrap();
                    a.free(x).unwrap();
                },
                BatchSize::LargeInput,
            )
        });
        c.bench_function(&format!("alloc/check_range_{live}_live"), |b| {
            let (a, kept) = fragmented(live);
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % kept.len();
                a.check_range(kept[i] + 8, 64).unwrap()
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
