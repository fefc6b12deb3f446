//! Graphics translation speed: a pixel program of about 2,000 instructions (four interpolated inputs, a
//! long run of FFMA/FMUL/FADD over sixteen registers, two colour targets) from its SPH and code bytes to
//! a Fragment module, in SASS instructions per second of one thread's CPU time. The goal is >= 1 M/s.

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_translator::graphics::sph::{Interpolation, StageMaps, SPH_WORDS};
use sassport_translator::graphics::{ShaderProgramHeader, Stage};
use sassport_translator::translate::Options;
use sassport_translator::translate_graphics::translate_stage;

/// CPU time of the benchmarking thread (a shared machine's other processes do not count).
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

/// Assembly of the program: `body` arithmetic instructions between the inputs and EXIT.
fn program_text(body: usize) -> String {
    let mut s = String::new();
    for c in 0..4 {
        s.push_str(&format!("IPA.PASS R{c}, a[{:#x}] ;\n", 0x80 + 4 * c));
    }
    for k in 0..body {
        let (d, a, b, c) = (k % 16, (k + 3) % 16, (k + 7) % 16, (k + 11) % 16);
        let line = match k % 3 {
            0 => format!("FFMA R{d}, R{a}, R{b}, R{c} ;\n"),
            1 => format!("FMUL R{d}, R{a}, R{b} ;\n"),
            _ => format!("FADD R{d}, R{a}, R{c} ;\n"),
        };
        s.push_str(&line);
    }
    s.push_str("EXIT ;\n");
    s
}

fn program_bytes(body: usize) -> Vec<u8> {
    let mut w = [0u32; SPH_WORDS];
    w[0] = 2 | 3 << 5 | 5 << 10;
    let mut sph = ShaderProgramHeader::from_words(&w).unwrap();
    if let StageMaps::Pixel { inputs, outputs } = &mut sph.maps {
        inputs.generic[0] = [Interpolation::ScreenLinear; 4];
        outputs.targets[0] = 0xf;
        outputs.targets[1] = 0xf;
    }
    let words = sassport_gen::assemble(&program_text(body)).unwrap();
    let mut bytes: Vec<u8> = sph.to_words().iter().flat_map(|x| x.to_le_bytes()).collect();
    bytes.extend(words.iter().flat_map(|x| x.to_le_bytes()));
    bytes
}

fn fragment_2000(c: &mut Criterion<ThreadCpuTime>) {
    let bytes = program_bytes(1995);
    let options = Options { stage: Stage::Fragment, ..Options::default() };
    let t = translate_stage("fs", &bytes, &options).unwrap();
    let mut group = c.benchmark_group("graphics_stage");
    group.throughput(Throughput::Elements(t.report.instructions as u64));
    group.bench_function(format!("fragment_{}_instructions", t.report.instructions), |b| {
        b.iter(|| {
            let t = translate_stage("fs", std::hint::black_box(&bytes), &options);
            t.map(|t| t.words.len()).unwrap_or(0)
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().with_measurement(ThreadCpuTime).sample_size(20);
    targets = fragment_2000
}
criterion_main!(benches);
