//! Block-linear ↔ pitch copies of RGBA8 surfaces against memcpy of the same bytes, in the same run.
//! The target (issue 9) is at least 0.8× memcpy for 16-byte-aligned 2-D untiling at 720p and 1080p.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sassport_engines::layout::{tile, untile, BlockLinearLayout, Region, SectorLayout};

const SIZES: [(u32, u32); 2] = [(1280, 720), (1920, 1080)];

fn bench_untile(c: &mut Criterion) {
    let mut group = c.benchmark_group("rgba8");
    group.sample_size(30);
    for (w, h) in SIZES {
        let width_bytes = w * 4;
        let bytes = (width_bytes * h) as u64;
        group.throughput(Throughput::Bytes(bytes));
        // Block height 16 GOBs: what NVIDIA's driver picks for surfaces at least 86 rows high (Mesa NIL).
        let layout = BlockLinearLayout::new(width_bytes, h, 1, 4, 0, SectorLayout::Turing2D)
            .expect("layout");
        let region = Region {
            x: 0,
            y: 0,
            z: 0,
            width: width_bytes,
            height: h,
        };
        let tiled: Vec<u8> = (0..layout.size_bytes())
            .map(|i| (i * 7 + 3) as u8)
            .collect();
        let mut linear = vec![0u8; bytes as usize];
        let label = format!("{w}x{h}");

        let src = vec![0x5Au8; bytes as usize];
        group.bench_function(BenchmarkId::new("memcpy", &label), |b| {
            b.iter(|| linear.copy_from_slice(black_box(&src)))
        });
        for sectors in [SectorLayout::Turing2D, SectorLayout::Tegra16Bx2] {
            let layout = BlockLinearLayout::new(width_bytes, h, 1, 4, 0, sectors).expect("layout");
            group.bench_function(BenchmarkId::new(format!("untile_{sectors}"), &label), |b| {
                b.iter(|| {
                    untile(
                        &layout,
                        black_box(&tiled),
                        &region,
                        &mut linear,
                        width_bytes as usize,
                    )
                })
            });
        }
        let mut tiled_out = vec![0u8; layout.size_bytes() as usize];
        group.bench_function(BenchmarkId::new("tile_turing2d", &label), |b| {
            b.iter(|| {
                tile(
                    &layout,
                    black_box(&src),
                    width_bytes as usize,
                    &region,
                    &mut tiled_out,
                )
            })
        });
    }
    group.finish();
}

/// The ratio the issue asks for, measured robustly on a shared machine: memcpy and untile alternate,
/// and the fastest of many runs of each is compared (the minimum is what load disturbs least).
fn ratio_against_memcpy(_c: &mut Criterion) {
    for (w, h) in SIZES {
        let width_bytes = w * 4;
        let bytes = (width_bytes * h) as usize;
        let src = vec![0x5Au8; bytes];
        let mut linear = vec![0u8; bytes];
        let region = Region {
            x: 0,
            y: 0,
            z: 0,
            width: width_bytes,
            height: h,
        };
        for sectors in [SectorLayout::Turing2D, SectorLayout::Tegra16Bx2] {
            let layout = BlockLinearLayout::new(width_bytes, h, 1, 4, 0, sectors).expect("layout");
            let tiled: Vec<u8> = (0..layout.size_bytes())
                .map(|i| (i * 7 + 3) as u8)
                .collect();
            let (mut best_copy, mut best_untile) = (f64::MAX, f64::MAX);
            for _ in 0..300 {
                let t = std::time::Instant::now();
                linear.copy_from_slice(black_box(&src));
                best_copy = best_copy.min(t.elapsed().as_secs_f64());
                let t = std::time::Instant::now();
                untile(
                    &layout,
                    black_box(&tiled),
                    &region,
                    &mut linear,
                    width_bytes as usize,
                )
                .expect("untile");
                best_untile = best_untile.min(t.elapsed().as_secs_f64());
                black_box(&linear);
            }
            eprintln!(
                "ratio {w}x{h} {sectors}: memcpy {:.1} GB/s, untile {:.1} GB/s, untile/memcpy throughput = {:.2}",
                bytes as f64 / best_copy / 1e9,
                bytes as f64 / best_untile / 1e9,
                best_copy / best_untile
            );
        }
    }
}

criterion_group!(benches, bench_untile, ratio_against_memcpy);
criterion_main!(benches);
