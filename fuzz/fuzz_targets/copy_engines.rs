//! The copy engines (AMPERE_DMA_COPY_A and KEPLER_INLINE_TO_MEMORY_B) driven by arbitrary method
//! streams against a small address space with holes and a read-only window.
//!
//! Input: one flag byte (bit 0: sector layout), then 6-byte records: a 16-bit method selector (below
//! 0x8000: an index into the defined methods of both classes; above: a raw method offset) and a 32-bit
//! data word. Address registers are folded into the mapped windows half of the time so launches reach
//! memory. Checks: no panic; a method that fails leaves memory exactly as it was.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_engines::channel::{Engine, EngineContext};
use sassport_engines::copy::{dma_method as d, inline_method as i, DmaCopy, InlineToMemory};
use sassport_engines::memory::{Access, GpuMemory};
use sassport_engines::sector_layout::SectorLayout;
use sassport_engines::semaphore::SteppingClock;

const DMA: &[u32] = &[
    d::NOP,
    d::SET_SEMAPHORE_A,
    d::SET_SEMAPHORE_B,
    d::SET_SEMAPHORE_PAYLOAD,
    d::SET_RENDER_ENABLE_C,
    d::LAUNCH_DMA,
    d::OFFSET_IN_UPPER,
    d::OFFSET_IN_LOWER,
    d::OFFSET_OUT_UPPER,
    d::OFFSET_OUT_LOWER,
    d::PITCH_IN,
    d::PITCH_OUT,
    d::LINE_LENGTH_IN,
    d::LINE_COUNT,
    d::SET_REMAP_CONST_A,
    d::SET_REMAP_CONST_B,
    d::SET_REMAP_COMPONENTS,
    d::SET_DST_BLOCK_SIZE,
    d::SET_DST_WIDTH,
    d::SET_DST_HEIGHT,
    d::SET_DST_DEPTH,
    d::SET_DST_LAYER,
    d::SET_DST_ORIGIN,
    d::SET_SRC_BLOCK_SIZE,
    d::SET_SRC_WIDTH,
    d::SET_SRC_HEIGHT,
    d::SET_SRC_DEPTH,
    d::SET_SRC_LAYER,
    d::SET_SRC_ORIGIN,
    d::SRC_ORIGIN_X,
    d::SRC_ORIGIN_Y,
    d::DST_ORIGIN_X,
    d::DST_ORIGIN_Y,
];
const I2M: &[u32] = &[
    i::LINE_LENGTH_IN,
    i::LINE_COUNT,
    i::OFFSET_OUT_UPPER,
    i::OFFSET_OUT,
    i::PITCH_OUT,
    i::SET_DST_BLOCK_SIZE,
    i::SET_DST_WIDTH,
    i::SET_DST_HEIGHT,
    i::SET_DST_DEPTH,
    i::SET_DST_LAYER,
    i::SET_DST_ORIGIN_BYTES_X,
    i::SET_DST_ORIGIN_SAMPLES_Y,
    i::LAUNCH_DMA,
    i::LOAD_INLINE_DATA,
    i::SET_I2M_SEMAPHORE_A,
    i::SET_I2M_SEMAPHORE_B,
    i::SET_I2M_SEMAPHORE_C,
    i::SET_RENDER_ENABLE_C,
    i::SET_RENDER_ENABLE_OVERRIDE,
];
const ADDRESS_LOW: &[u32] = &[
    d::OFFSET_IN_LOWER,
    d::OFFSET_OUT_LOWER,
    d::SET_SEMAPHORE_B,
    i::OFFSET_OUT,
    i::SET_I2M_SEMAPHORE_B,
];
const ADDRESS_HIGH: &[u32] = &[
    d::OFFSET_IN_UPPER,
    d::OFFSET_OUT_UPPER,
    d::SET_SEMAPHORE_A,
    i::OFFSET_OUT_UPPER,
    i::SET_I2M_SEMAPHORE_A,
];

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let sectors = if flags & 1 == 0 {
        SectorLayout::Turing2D
    } else {
        SectorLayout::Tegra16Bx2
    };
    let mut memory = GpuMemory::new();
    let a = memory.add_storage(vec![0x11; 0x10000]);
    let b = memory.add_storage(vec![0x22; 0x8000]);
    let ok = |r: Result<(), _>| r.is_ok();
    // 0..64 KiB read/write; 1:0000_0000 + 32 KiB read/write, a hole, then 16 KiB of the first storage
    // again (aliased) read-only.
    assert!(ok(memory.map(0, 0x10000, a, 0, Access::READ_WRITE)));
    assert!(ok(memory.map(
        0x1_0000_0000,
        0x8000,
        b,
        0,
        Access::READ_WRITE
    )));
    assert!(ok(memory.map(
        0x1_0000_C000,
        0x4000,
        a,
        0x4000,
        Access::READ
    )));
    let mut clock = SteppingClock::new(0, 7);
    let mut dma = DmaCopy::new(sectors);
    let mut i2m = InlineToMemory::new(sectors);
    for rec in rest.chunks_exact(6) {
        let selector = u16::from_le_bytes([rec[0], rec[1]]);
        let mut value = u32::from_le_bytes([rec[2], rec[3], rec[4], rec[5]]);
        let (is_dma, method) = if selector < 0x8000 {
            let k = selector as usize % (DMA.len() + I2M.len());
            if k < DMA.len() {
                (true, DMA[k])
            } else {
                (false, I2M[k - DMA.len()])
            }
        } else {
            (
                selector & 0x4000 != 0,
                0x100 + ((selector as u32 & 0xFFF) << 2) % 0x3F00,
            )
        };
        if selector & 0x100 != 0 {
            if ADDRESS_LOW.contains(&method) {
                value &= 0xFFFF;
            } else if ADDRESS_HIGH.contains(&method) {
                value &= 1;
            }
        }
        let engine: &mut dyn Engine = if is_dma { &mut dma } else { &mut i2m };
        let before: Vec<Vec<u8>> = [a, b]
            .iter()
            .map(|&s| memory.storage(s).map(|x| x.to_vec()).unwrap_or_default())
            .collect();
        let mut ctx = EngineContext {
            memory: &mut memory,
            clock: &mut clock,
        };
        if engine.method(&mut ctx, method, value).is_err() {
            for (k, &s) in [a, b].iter().enumerate() {
                assert!(
                    memory
                        .storage(s)
                        .map(|x| x == before[k].as_slice())
                        .unwrap_or(false),
                    "a failed method wrote memory"
                );
            }
        }
    }
});
