//! Untiling a 1080p RGBA8 block-linear texture through a decoded header (level 0, and the whole 11-level
//! chain) against memcpy of the same bytes, in the same run. Target (issue 20): untiling + upload at least
//! 0.8× memcpy; this measures the untiling half (the upload is the runtime's, on the host GPU).

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use sassport_engines::layout::SectorLayout;
use sassport_textures::{untile_chain, Chain, Entry, TextureHeader};

fn header(levels: u32) -> TextureHeader {
    let mut e = Entry::default();
    e.0[0] = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    e.0[2] = 3 << 21;
    // 16-GOB blocks: what NVIDIA's driver picks for surfaces this tall (Mesa NIL).
    e.0[3] = 4 << 3 | (levels - 1) << 28;
    e.0[4] = 1919 | 1 << 23;
    e.0[5] = 1079;
    e.0[7] = (levels - 1) << 4;
    TextureHeader::decode(&e).expect("header")
}

struct Case {
    label: &'static str,
    chain: Chain,
    guest: Vec<u8>,
}

fn cases() -> Vec<Case> {
    [("level0", 1), ("chain11", 11)]
        .into_iter()
        .map(|(label, levels)| {
            let chain = Chain::new(&header(levels), SectorLayout::Turing2D).expect("chain");
            let guest = (0..chain.guest_bytes()).map(|i| (i * 7 + 3) as u8).collect();
            Case { label, chain, guest }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("texture_rgba8_1080p");
    group.sample_size(30);
    for case in cases() {
        let bytes = case.chain.packed_bytes() as usize;
        group.throughput(Throughput::Bytes(bytes as u64));
        let src = vec![0x5Au8; bytes];
        let mut packed = vec![0u8; bytes];
        group.bench_function(BenchmarkId::new("memcpy", case.label), |b| {
            b.iter(|| packed.copy_from_slice(black_box(&src)))
        });
        group.bench_function(BenchmarkId::new("untile_chain", case.label), |b| {
            b.iter(|| untile_chain(&case.chain, black_box(&case.guest), &mut packed, 0).expect("untile"))
        });
    }
    group.finish();
}

/// The ratio, measured robustly on a shared machine: memcpy and untiling alternate and the fastest of
/// many runs of each is compared (the minimum is what load disturbs least).
fn ratio(_c: &mut Criterion) {
    for case in cases() {
        let bytes = case.chain.packed_bytes() as usize;
        let src = vec![0x5Au8; bytes];
        let mut packed = vec![0u8; bytes];
        let (mut best_copy, mut best_untile) = (f64::MAX, f64::MAX);
        for _ in 0..300 {
            let t = std::time::Instant::now();
            packed.copy_from_slice(black_box(&src));
            best_copy = best_copy.min(t.elapsed().as_secs_f64());
            let t = std::time::Instant::now();
            untile_chain(&case.chain, black_box(&case.guest), &mut packed, 0).expect("untile");
            best_untile = best_untile.min(t.elapsed().as_secs_f64());
            black_box(&packed);
        }
        eprintln!(
            "ratio 1920x1080 rgba8 {}: memcpy {:.1} GB/s, untile {:.1} GB/s, untile/memcpy throughput = {:.2}",
            case.label,
            bytes as f64 / best_copy / 1e9,
            bytes as f64 / best_untile / 1e9,
            best_copy / best_untile
        );
    }
}

criterion_group!(benches, bench, ratio);
criterion_main!(benches);
