//! Pushbuffer decoding throughput (bytes of method stream per second, one core).
//!
//! Each stream is timed twice: by wall clock, and by the thread's CPU time (the one-core figure, which
//! does not depend on how busy the machine is).
//!
//! Streams: long non-incrementing bursts (inline data uploads), NVK-like mixes of short incrementing
//! headers with immediates, and the mix fed as unaligned 4093-byte slices.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sassport_pushbuffer::{Decoder, Flow, MethodCall};
use std::convert::Infallible;
use std::time::Duration;

fn inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x2000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}
fn non_inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x6000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}
fn imm(subc: u32, mthd: u32, data: u32) -> u32 {
    0x8000_0000 + (data << 16) + (subc << 13) + (mthd >> 2)
}

fn bursts(total_words: usize) -> Vec<u8> {
    let mut w = vec![];
    while w.len() < total_words {
        w.push(non_inc(2, 0x1B4, 0x1FFF));
        w.extend((0..0x1FFF).map(|i| i as u32 * 2_654_435_761));
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn mixed(total_words: usize) -> Vec<u8> {
    let mut w = vec![];
    let mut i = 0u32;
    while w.len() < total_words {
        // Copy-engine launch: 8 incrementing registers, then LAUNCH_DMA.
        w.push(inc(4, 0x400, 8));
        w.extend((0..8).map(|k| i.wrapping_mul(31).wrapping_add(k)));
        w.push(inc(4, 0x300, 1));
        w.push(0x182);
        // Semaphore release (nvgpu style: five single-word headers).
        for m in [0x5C, 0x60, 0x64, 0x68, 0x6C] {
            w.push(inc(0, m, 1));
            w.push(i);
        }
        w.push(imm(1, 0x110, 0));
        w.push(inc(1, 0x2000, 16));
        w.extend((0..16).map(|k| k ^ i));
        i += 1;
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn decode(stream: &[u8], chunk: usize) -> u64 {
    let mut d = Decoder::new();
    let mut acc = 0u64;
    let mut sink = |c: MethodCall| -> Result<Flow, Infallible> {
        acc = acc.wrapping_add(c.data as u64 ^ c.method as u64);
        Ok(Flow::Continue)
    };
    for piece in stream.chunks(chunk) {
        let _ = d.feed(piece, &mut sink);
    }
    acc
}

/// CPU time consumed by this thread: throughput "on one core", independent of how many other processes
/// share the machine.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn bench(c: &mut Criterion) {
    let words = 4 << 20; // 16 MiB streams
    let mut g = c.benchmark_group("pushbuffer_decode");
    for (name, stream, chunk) in [
        ("bursts", bursts(words), usize::MAX),
        ("mixed", mixed(words), usize::MAX),
        ("mixed_unaligned_4093", mixed(words), 4093),
    ] {
        g.throughput(Throughput::Bytes(stream.len() as u64));
        g.bench_function(name, |b| b.iter(|| decode(black_box(&stream), chunk)));
        // The same work timed by thread CPU time.
        g.bench_function(format!("{name}_cpu_time"), |b| {
            b.iter_custom(|iters| {
                let start = thread_cpu_time();
                for _ in 0..iters {
                    black_box(decode(black_box(&stream), chunk));
                }
                thread_cpu_time() - start
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
