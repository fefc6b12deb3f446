//! Device printf on the host: parsing a printf area and formatting its records (what every launch that
//! printed pays after the kernel). 10,000 records of the corpus kernel's `"thread %d saw %08x\n"` and of a
//! float-heavy format.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_runtime::abi::printf_record as r;
use sassport_runtime::printf::{format_record, parse_records};

/// An area of `n` records of `args` argument words each, format address `fmt`.
fn area(n: usize, fmt: u32, args: &[u32]) -> Vec<u8> {
    let mut words = Vec::new();
    for i in 0..n as u32 {
        let mut rec = vec![0u32; r::HEADER_WORDS as usize];
        rec[r::LEN as usize] = r::HEADER_WORDS + args.len() as u32;
        rec[r::FORMAT as usize] = fmt;
        rec[r::ARG_BYTES as usize] = 4 * args.len() as u32;
        rec[r::TID as usize] = i % 128;
        words.extend(rec);
        words.extend(args.iter().map(|a| a ^ i));
    }
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn bench(c: &mut Criterion) {
    let n = 10_000;
    let mut g = c.benchmark_group("printf");
    g.throughput(Throughput::Elements(n as u64));
    let ints = area(n, 1, &[7, 0xc0ff_ee00]);
    let d = 3.25f64.to_bits();
    let floats = area(n, 2, &[d as u32, (d >> 32) as u32, 0, 0x4000_0000]);
    let mut strings = |a: u64| -> Result<Vec<u8>, String> {
        Ok(match a {
            1 => b"thread %d saw %08x\n".to_vec(),
            _ => b"x=%8.3f y=%g\n".to_vec(),
        })
    };
    g.bench_function("format_10k_int_records", |b| {
        b.iter(|| {
            let (recs, _) = parse_records(&ints);
            recs.iter().map(|rec| format_record(rec, &mut strings).len()).sum::<usize>()
        })
    });
    g.bench_function("format_10k_float_records", |b| {
        b.iter(|| {
            let (recs, _) = parse_records(&floats);
            recs.iter().map(|rec| format_record(rec, &mut strings).len()).sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
