//! End-to-end translation speed in SASS instructions per second over the corpus: cubin parse, decode,
//! CFG, lowering and SPIR-V serialisation of every kernel the translator accepts (one core).
//!
//! Every word is decoded by the generated decoder; until the full SM86 table is checked in, mnemonics the
//! table does not know come from nvdisasm's listing, read once before timing.

#[path = "../tests/support/mod.rs"]
#[allow(dead_code)]
mod support;

use criterion::measurement::{Measurement, ValueFormatter};
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

/// CPU time of the benchmarking thread: on a shared machine, wall-clock time counts other processes' turns;
/// this measures what one core spends, which is what "instructions per second per core" means.
struct ThreadCpuTime;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes one timespec through a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

struct NsFormatter;

impl ValueFormatter for NsFormatter {
    fn scale_values(&self, _typical: f64, _values: &mut [f64]) -> &'static str {
        "ns (thread CPU)"
    }
    fn scale_throughputs(&self, _typical: f64, throughput: &Throughput, values: &mut [f64]) -> &'static str {
        if let Throughput::Elements(n) = throughput {
            for v in values.iter_mut() {
                *v = *n as f64 * 1e9 / *v;
            }
        }
        "instructions/s per core"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}

impl Measurement for ThreadCpuTime {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, i: u64) -> u64 {
        thread_cpu_ns().saturating_sub(i)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &NsFormatter
    }
}

fn translate_corpus(c: &mut Criterion) {
    run_group(c, "translate");
}

fn translate_corpus_cpu(c: &mut Criterion<ThreadCpuTime>) {
    run_group(c, "translate_cpu");
}

fn run_group<M: Measurement>(c: &mut Criterion<M>, group_name: &str) {
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
    let mut group = c.benchmark_group(group_name);
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

/// One big kernel (`data/big_unrolled.cu`, 20,278 instructions) against small corpus kernels, each on its own
/// so that their instructions per second compare: a pass whose cost grows faster than the kernel shows here as a
/// lower rate on the big one. Thread CPU time, as above.
fn translate_big_cpu(c: &mut Criterion<ThreadCpuTime>) {
    let big_path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/data/big_unrolled.sm86.cubin");
    let cases = [
        ("big_unrolled", std::fs::read(big_path).unwrap(), "big_unrolled"),
        ("saxpy", std::fs::read(sassport_corpus::root().join("sm86/saxpy.cubin")).unwrap(), "saxpy"),
        ("matmul_tiled", std::fs::read(sassport_corpus::root().join("sm86/matmul.cubin")).unwrap(), "matmul_tiled"),
        ("precise_math", std::fs::read(sassport_corpus::root().join("sm86/fp32_fastmath.cubin")).unwrap(), "precise_math"),
    ];
    let mut group = c.benchmark_group("translate_kernel_cpu");
    for (label, bytes, kernel) in &cases {
        let cubin = Cubin::parse(bytes).unwrap();
        let dec = BenchDecoder { listing: None };
        let t = translate_kernel_with(&cubin, kernel, &Options::default(), &dec).unwrap();
        group.throughput(Throughput::Elements(t.report.instructions as u64));
        group.bench_function(format!("{label}_{}", t.report.instructions), |b| {
            b.iter(|| {
                let cubin = Cubin::parse(std::hint::black_box(bytes)).unwrap();
                translate_kernel_with(&cubin, kernel, &Options::default(), &dec).unwrap().words.len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, translate_corpus);
criterion_group! {
    name = cpu;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = translate_corpus_cpu, translate_big_cpu
}
criterion_main!(benches, cpu);
