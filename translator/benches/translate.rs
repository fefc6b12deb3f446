//! End-to-end translation speed in SASS instructions per second over the corpus: cubin parse, decode,
//! CFG, lowering and SPIR-V serialisation of every kernel the translator accepts (one core).
//!
//! Every word is decoded by the generated decoder; until the full SM86 table is checked in, mnemonics the
//! table does not know come from nvdisasm's listing, read once before timing.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_gen::Word;
use sassport_translator::program::Disassembler;
use sassport_translator::translate::{translate_kernel_with, Options};
use sassport_translator::Cubin;
use std::collections::HashMap;

/// The generated decoder, with nvdisasm's mnemonic where the table has none yet.
struct BenchDecoder {
    listing: Option<support::Listing>,
}

impl Disassembler for BenchDecoder {
    fn mnemonic(&self, offset: u64, word: Word) -> Result<&'static str, String> {
        match sassport_gen::decode(word) {
            Ok(i) if !i.mnemonic().is_empty() => Ok(i.mnemonic()),
            other => match &self.listing {
                Some(l) => l.mnemonic(offset, word),
                None => Err(format!("{other:?}")),
            },
        }
    }
}

fn translate_corpus(c: &mut Criterion) {
    let files: Vec<Vec<u8>> = sassport_corpus::cubins().iter().map(|p| std::fs::read(p).unwrap()).collect();
    // (file index, kernel, decoder) for every kernel that translates; instructions per pass.
    let mut work: Vec<(usize, String)> = Vec::new();
    let mut decoders: HashMap<(usize, String), BenchDecoder> = HashMap::new();
    let mut instructions = 0usize;
    for (fi, bytes) in files.iter().enumerate() {
        let cubin = Cubin::parse(bytes).unwrap();
        for k in &cubin.kernels {
            let code = cubin.code_section(k.function.section_name).unwrap().bytes;
            let dec = BenchDecoder { listing: support::nvdisasm().map(|_| support::Listing::of(code)) };
            if let Ok(t) = translate_kernel_with(&cubin, k.name(), &Options::default(), &dec) {
                instructions += t.report.instructions;
                work.push((fi, k.name().to_string()));
                decoders.insert((fi, k.name().to_string()), dec);
            }
        }
    }
    assert!(!work.is_empty(), "no corpus kernel translates");
    let mut group = c.benchmark_group("translate");
    group.throughput(Throughput::Elements(instructions as u64));
    group.bench_function(format!("corpus_{}_kernels", work.len()), |b| {
        b.iter(|| {
            let mut words = 0;
            let mut current: Option<(usize, Cubin<'_>)> = None;
            for (fi, name) in &work {
                if current.as_ref().map(|(i, _)| i) != Some(fi) {
                    current = Some((*fi, Cubin::parse(std::hint::black_box(&files[*fi])).unwrap()));
                }
                let Some((_, cubin)) = &current else { unreachable!() };
                let dec = &decoders[&(*fi, name.clone())];
                let t = translate_kernel_with(cubin, name, &Options::default(), dec).unwrap();
                words += t.words.len();
            }
            words
        })
    });
    group.finish();
}

criterion_group!(benches, translate_corpus);
criterion_main!(benches);
