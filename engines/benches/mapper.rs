//! GPU memory mapper hot paths: small reads/writes (semaphore-sized) with many mappings, and large
//! writes spanning adjacent mappings.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sassport_engines::memory::{Access, GpuMemory};

fn bench(c: &mut Criterion) {
    let mut m = GpuMemory::new();
    let s = m.add_storage(vec![0; 64 << 20]);
    // 16 384 mappings of 4 KiB, every other page, cycling through the storage.
    let pages = 16_384u64;
    for i in 0..pages {
        m.map(
            0x1_0000_0000 + i * 0x2000,
            0x1000,
            s,
            ((i % 8192) * 0x1000) as usize,
            Access::READ_WRITE,
        )
        .unwrap();
    }
    // One 32 MiB region made of 8192 adjacent 4 KiB mappings.
    for i in 0..8192u64 {
        m.map(
            0x10_0000_0000 + i * 0x1000,
            0x1000,
            s,
            (i * 0x1000) as usize,
            Access::READ_WRITE,
        )
        .unwrap();
    }
    let mut g = c.benchmark_group("mapper");
    g.throughput(Throughput::Elements(1024));
    g.bench_function("write_u32_random_pages_x1024", |b| {
        b.iter(|| {
            let mut x = 0x9E37_79B9u64;
            for _ in 0..1024 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let page = (x >> 33) % pages;
                m.write_u32(0x1_0000_0000 + page * 0x2000 + 16, x as u32)
                    .unwrap();
            }
        })
    });
    g.bench_function("read_u64_random_pages_x1024", |b| {
        b.iter(|| {
            let mut x = 0x9E37_79B9u64;
            let mut acc = 0u64;
            for _ in 0..1024 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let page = (x >> 33) % pages;
                acc ^= m.read_u64(0x1_0000_0000 + page * 0x2000 + 8).unwrap();
            }
            black_box(acc)
        })
    });
    let big = vec![0x5Au8; 8 << 20];
    g.throughput(Throughput::Bytes(big.len() as u64));
    g.bench_function("write_8MiB_across_2048_mappings", |b| {
        b.iter(|| m.write(0x10_0000_0000 + 0x800, black_box(&big)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
