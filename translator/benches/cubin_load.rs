//! How fast the cubin reader parses the whole corpus (the load path of every translation).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_translator::cubin::Cubin;

fn parse_corpus(c: &mut Criterion) {
    let cubins: Vec<Vec<u8>> = sassport_corpus::cubins()
        .iter()
        .map(|path| std::fs::read(path).expect("readable corpus cubin"))
        .collect();
    assert!(
        !cubins.is_empty(),
        "the corpus has no cubins (run `cargo xtask corpus`)"
    );
    let total: usize = cubins.iter().map(Vec::len).sum();

    let mut group = c.benchmark_group("cubin_load");
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("parse_corpus", |b| {
        b.iter(|| {
            let mut kernels = 0;
            for bytes in &cubins {
                let cubin = Cubin::parse(std::hint::black_box(bytes)).expect("corpus cubins parse");
                kernels += cubin.kernels.len();
            }
            kernels
        })
    });
    group.finish();
}

criterion_group!(benches, parse_corpus);
criterion_main!(benches);
