//! Hot paths of the corpus crate: parsing the launch manifest and generating input buffers (every test
//! that replays a launch does both).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_corpus::{inputs, launch};

fn manifest(c: &mut Criterion) {
    let text =
        std::fs::read_to_string(sassport_corpus::manifest_path()).expect("corpus/launches.txt");
    let mut group = c.benchmark_group("manifest");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| launch::parse(std::hint::black_box(&text)).expect("parses"))
    });
    group.finish();
}

fn generator(c: &mut Criterion) {
    let mut group = c.benchmark_group("inputs");
    let bytes = 1 << 20;
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("generate_1MiB", |b| {
        b.iter(|| inputs::generate(std::hint::black_box(bytes), 42))
    });
    group.finish();
}

criterion_group!(benches, manifest, generator);
criterion_main!(benches);
