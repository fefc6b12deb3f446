//! Encoder throughput, one core. Target: encode at least 10 M instructions/s.
//!
//! `view`: [`sassport_gen::encode`] of each corpus instruction's typed view (views made beforehand: the
//! encoder alone is timed). `text`: [`sassport_gen::encode_text`] of each corpus instruction's text and
//! control bits (what `sassport asm` does per line; it matches templates and re-checks the word by
//! decoding and printing it, so it has no target of its own). Words come from the committed corpus
//! cubins in code order, through `black_box` one at a time.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use object::{Object, ObjectSection};
use sassport_gen::{decode, encode, encode_text, Control, TargetStyle, View, Word, WORD_BYTES};

fn corpus_words() -> Vec<Word> {
    let mut words = Vec::new();
    for path in sassport_corpus::cubins() {
        let data = std::fs::read(&path).expect("corpus cubin readable");
        let file = object::File::parse(&*data).expect("corpus cubin parses");
        for section in file.sections().filter(|s| s.name().is_ok_and(|n| n.starts_with(".text."))) {
            for chunk in section.data().expect("section data").chunks_exact(WORD_BYTES) {
                words.push(Word::from_le_bytes(chunk.try_into().expect("16 bytes")));
            }
        }
    }
    assert!(!words.is_empty(), "the corpus has no code");
    words
}

fn benches(c: &mut Criterion) {
    let words = corpus_words();
    let views: Vec<View> = words.iter().filter_map(|&w| decode(w).ok()).map(|i| i.view()).collect();
    let mut group = c.benchmark_group("encode_corpus");
    group.throughput(Throughput::Elements(views.len() as u64));
    group.bench_function("view", |b| {
        b.iter(|| {
            let mut acc = 0u128;
            for v in &views {
                if let Ok(w) = encode(black_box(v)) {
                    acc ^= w.0;
                }
            }
            black_box(acc)
        })
    });
    // A slice of the corpus: text encoding is slow enough that the whole corpus makes long samples.
    let lines: Vec<(String, Control)> = words
        .iter()
        .take(2000)
        .filter_map(|&w| decode(w).ok().map(|i| (i.text(0, TargetStyle::Absolute), Control::of(w.0))))
        .collect();
    group.throughput(Throughput::Elements(lines.len() as u64));
    group.sample_size(10);
    group.bench_function("text", |b| {
        b.iter(|| {
            let mut acc = 0u128;
            for (t, c) in &lines {
                if let Ok(w) = encode_text(black_box(t), 0, *c) {
                    acc ^= w.0;
                }
            }
            black_box(acc)
        })
    });
    group.finish();
}

criterion_group!(encode_benches, benches);
criterion_main!(encode_benches);
