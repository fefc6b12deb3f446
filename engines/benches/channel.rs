//! Channel hot path: host-method streams through decoder and dispatch (semaphore releases and
//! satisfied acquires, nvgpu style), and a replay of many GP entries.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sassport_engines::channel::{Channel, EngineContext};
use sassport_engines::memory::{Access, GpuMemory};
use sassport_engines::replay::{replay, ReplayOptions};
use sassport_engines::semaphore::SteppingClock;

fn inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x2000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}

/// Release i to semaphore (i % 64), then acquire it back with STRICT_GEQ.
fn stream(groups: u32) -> Vec<u8> {
    let mut w = vec![];
    for i in 0..groups {
        let va = 0x1000 + (i % 64) as u64 * 16;
        w.extend([inc(0, 0x5C, 5), va as u32, 0, i, 0, 1]);
        w.extend([inc(0, 0x5C, 5), va as u32, 0, i, 0, 2]);
    }
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bench(c: &mut Criterion) {
    let bytes = stream(50_000);
    let mut g = c.benchmark_group("channel");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("semaphore_release_acquire_stream", |b| {
        let mut memory = GpuMemory::new();
        let s = memory.add_storage(vec![0; 0x2000]);
        memory.map(0, 0x2000, s, 0, Access::READ_WRITE).unwrap();
        let mut clock = SteppingClock::new(0, 1);
        b.iter(|| {
            let mut ch = Channel::new(vec![]);
            let mut ctx = EngineContext {
                memory: &mut memory,
                clock: &mut clock,
            };
            ch.feed(&mut ctx, &bytes).unwrap();
        })
    });
    // Replay: 4096 GP entries of 6-word segments.
    let seg = stream(1);
    let mut image = vec![0u8; 0x10000 + 4096 * 64];
    let mut fifo = vec![];
    for i in 0..4096u64 {
        let at = 0x10000 + i * 64;
        image[at as usize..at as usize + seg.len()].copy_from_slice(&seg);
        let e1 = ((seg.len() / 4) as u64) << 10;
        fifo.extend((e1 << 32 | at).to_le_bytes());
    }
    g.throughput(Throughput::Elements(4096));
    g.bench_function("replay_4096_entries", |b| {
        b.iter(|| replay(image.clone(), &fifo, &ReplayOptions::new(sassport_engines::sector_layout::SectorLayout::Turing2D)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
