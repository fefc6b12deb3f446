//! The copy engines end to end through the GPU memory mapper: a DMA LAUNCH of an RGBA8 1080p surface
//! pitch → block-linear and back, a constant fill, and inline-to-memory data words. memcpy of the same
//! bytes runs in the same group for scale.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sassport_engines::channel::{Engine, EngineContext};
use sassport_engines::copy::{dma_method as m, inline_method as i, DmaCopy, InlineToMemory};
use sassport_engines::layout::{BlockLinearLayout, SectorLayout};
use sassport_engines::memory::{Access, GpuMemory};
use sassport_engines::semaphore::SteppingClock;

const W: u32 = 1920;
const H: u32 = 1080;
const PITCH_VA: u64 = 0x1_0000_0000;
const TILED_VA: u64 = 0x2_0000_0000;

fn call(e: &mut dyn Engine, mem: &mut GpuMemory, clock: &mut SteppingClock, calls: &[(u32, u32)]) {
    for &(method, data) in calls {
        let mut ctx = EngineContext { memory: mem, clock };
        e.method(&mut ctx, method, data).expect("method");
    }
}

fn bench(c: &mut Criterion) {
    let bytes = (W * 4 * H) as u64;
    let layout = BlockLinearLayout::new(W * 4, H, 1, 4, 0, SectorLayout::Turing2D).expect("layout");
    let mut mem = GpuMemory::new();
    let p = mem.add_storage((0..bytes).map(|x| x as u8).collect());
    let t = mem.add_storage(vec![0; layout.size_bytes() as usize]);
    mem.map(PITCH_VA, bytes, p, 0, Access::READ_WRITE)
        .expect("map");
    mem.map(TILED_VA, layout.size_bytes(), t, 0, Access::READ_WRITE)
        .expect("map");
    let mut clock = SteppingClock::new(0, 1);
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let surface = |src: bool| {
        let base = if src {
            m::SET_SRC_BLOCK_SIZE
        } else {
            m::SET_DST_BLOCK_SIZE
        };
        vec![
            (base, 4 << 4 | 1 << 12),
            (base + 4, W * 4),
            (base + 8, H),
            (base + 12, 1),
            (base + 16, 0),
            (base + 20, 0),
        ]
    };
    let mut setup = vec![
        (m::LINE_LENGTH_IN, W * 4),
        (m::LINE_COUNT, H),
        (m::PITCH_IN, W * 4),
        (m::PITCH_OUT, W * 4),
    ];
    setup.extend(surface(true));
    setup.extend(surface(false));
    call(&mut dma, &mut mem, &mut clock, &setup);
    let addresses = |src: u64, dst: u64| {
        [
            (m::OFFSET_IN_UPPER, (src >> 32) as u32),
            (m::OFFSET_IN_LOWER, src as u32),
            (m::OFFSET_OUT_UPPER, (dst >> 32) as u32),
            (m::OFFSET_OUT_LOWER, dst as u32),
        ]
    };

    let mut group = c.benchmark_group("copy_engines_1080p_rgba8");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(bytes));
    let (a, mut b) = (vec![1u8; bytes as usize], vec![0u8; bytes as usize]);
    group.bench_function("memcpy", |bench| {
        bench.iter(|| b.copy_from_slice(black_box(&a)))
    });
    group.bench_function("dma_pitch_to_block_linear", |bench| {
        call(
            &mut dma,
            &mut mem,
            &mut clock,
            &addresses(PITCH_VA, TILED_VA),
        );
        bench.iter(|| {
            call(
                &mut dma,
                &mut mem,
                &mut clock,
                &[(m::LAUNCH_DMA, 2 | 1 << 7 | 1 << 9)],
            )
        })
    });
    group.bench_function("dma_block_linear_to_pitch", |bench| {
        call(
            &mut dma,
            &mut mem,
            &mut clock,
            &addresses(TILED_VA, PITCH_VA),
        );
        bench.iter(|| {
            call(
                &mut dma,
                &mut mem,
                &mut clock,
                &[(m::LAUNCH_DMA, 2 | 1 << 8 | 1 << 9)],
            )
        })
    });
    group.bench_function("dma_fill_pitch", |bench| {
        call(&mut dma, &mut mem, &mut clock, &addresses(0, PITCH_VA));
        call(
            &mut dma,
            &mut mem,
            &mut clock,
            &[
                (m::LINE_LENGTH_IN, W),
                (
                    m::SET_REMAP_COMPONENTS,
                    4 | 4 << 4 | 4 << 8 | 4 << 12 | 3 << 16,
                ),
            ],
        );
        bench.iter(|| {
            call(
                &mut dma,
                &mut mem,
                &mut clock,
                &[(m::LAUNCH_DMA, 2 | 1 << 7 | 1 << 8 | 1 << 9 | 1 << 10)],
            )
        })
    });
    group.finish();

    let mut group = c.benchmark_group("inline_to_memory");
    let words = 16 * 1024u32;
    group.throughput(Throughput::Bytes(words as u64 * 4));
    let mut i2m = InlineToMemory::new(SectorLayout::Turing2D);
    group.bench_function("pitch_64KiB", |bench| {
        bench.iter(|| {
            call(
                &mut i2m,
                &mut mem,
                &mut clock,
                &[
                    (i::LINE_LENGTH_IN, words * 4),
                    (i::LINE_COUNT, 1),
                    (i::OFFSET_OUT_UPPER, 1),
                    (i::OFFSET_OUT, 0),
                    (i::LAUNCH_DMA, 1),
                ],
            );
            for w in 0..words {
                let mut ctx = EngineContext {
                    memory: &mut mem,
                    clock: &mut clock,
                };
                i2m.method(&mut ctx, i::LOAD_INLINE_DATA, w).expect("data");
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
