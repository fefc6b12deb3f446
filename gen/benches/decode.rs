//! Decoder and formatter throughput, one core.
//!
//! Targets: decode at least 100 M instructions/s, decode + format at least 5 M instructions/s. Also
//! decode + register accesses (what a liveness pass needs), which has no target of its own.
//!
//! Two word mixes: `corpus`, every instruction of the committed corpus cubins in code order (what real
//! programs hold: IMAD, IADD3, ISETP, MOV, LDG, ... with their real frequencies), and `golden`, every golden
//! word of the table (every class about equally often, the rarely used ones and the opcode keys shared by
//! several classes included). Words go through `black_box` one at a time so that nothing is hoisted out
//! of the loop.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use object::{Object, ObjectSection};
use sassport_gen::{decode, TargetStyle, Word, WORD_BYTES};
use std::fmt::Write as _;

/// Every instruction word of every `.text.*` section of the corpus.
fn corpus_words() -> Vec<Word> {
    let mut words = Vec::new();
    for path in sassport_corpus::cubins() {
        let data = std::fs::read(&path).expect("corpus cubin readable");
        let file = object::File::parse(&*data).expect("corpus cubin parses");
        for section in file.sections() {
            if !section.name().is_ok_and(|n| n.starts_with(".text.")) {
                continue;
            }
            let bytes = section.data().expect("section data");
            for chunk in bytes.chunks_exact(WORD_BYTES) {
                words.push(Word::from_le_bytes(chunk.try_into().expect("16 bytes")));
            }
        }
    }
    assert!(!words.is_empty(), "the corpus has no code");
    words
}

/// Every golden word of the table, in table order.
fn golden_words() -> Vec<Word> {
    let table = sassport_isa::sm86().expect("isa/sm86.txt parses");
    let words: Vec<Word> = table.classes.iter().flat_map(|c| c.golden.iter().map(|g| Word(g.word))).collect();
    assert!(!words.is_empty(), "the table has no golden words");
    words
}

fn bench_words(group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>, words: &[Word]) {
    group.throughput(Throughput::Elements(words.len() as u64));
    group.bench_function("decode", |b| {
        b.iter(|| {
            let mut known = 0u32;
            for &w in words {
                if let Ok(inst) = decode(black_box(w)) {
                    known = known.wrapping_add(inst.class() as u32);
                }
            }
            black_box(known)
        })
    });
    // What a liveness pass asks of every instruction: its register reads and writes.
    group.bench_function("decode_accesses", |b| {
        b.iter(|| {
            let mut registers = 0u32;
            for &w in words {
                if let Some(list) = decode(black_box(w)).ok().and_then(|inst| inst.accesses()) {
                    for a in list {
                        registers = registers.wrapping_add(u32::from(a.count));
                    }
                }
            }
            black_box(registers)
        })
    });
    let mut text = String::with_capacity(256);
    group.bench_function("decode_format", |b| {
        b.iter(|| {
            let mut bytes = 0usize;
            for (i, &w) in words.iter().enumerate() {
                text.clear();
                if let Ok(inst) = decode(black_box(w)) {
                    let _ = inst.write_text(&mut text, (i * WORD_BYTES) as u64, TargetStyle::Absolute);
                } else {
                    let _ = write!(text, "<unknown {w}>");
                }
                bytes += text.len();
            }
            black_box(bytes)
        })
    });
}

fn bench(c: &mut Criterion) {
    let corpus = corpus_words();
    let mut group = c.benchmark_group("corpus");
    bench_words(&mut group, &corpus);
    group.finish();

    let golden = golden_words();
    let mut group = c.benchmark_group("golden");
    bench_words(&mut group, &golden);
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
