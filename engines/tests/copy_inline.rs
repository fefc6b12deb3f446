//! KEPLER_INLINE_TO_MEMORY_B against independently computed bytes (cla140.h offsets from
//! shared/notes/command-engines.md §3), and both copy engines end to end through `replay`: SET_OBJECT,
//! method headers, data split across headers and GPFIFO entries.

mod copy_support;

use copy_support::*;
use sassport_engines::channel::EngineError;
use sassport_engines::copy::{dma_method as dm, inline_method as m, InlineToMemory};
use sassport_engines::layout::SectorLayout;
use sassport_engines::memory::{Access, MemoryError};
use sassport_engines::replay::{replay, ReplayOptions};
use sassport_engines::standard::EngineOptions;
use sassport_pushbuffer::{GpEntry, Level, Segment, Sync};

const PITCH: u32 = 1;
const RELEASE: u32 = 2 << 4;
const ONE_WORD: u32 = 1 << 12;

fn destination(va: u64, len: u32, lines: u32, pitch: u32) -> Vec<(u32, u32)> {
    vec![
        (m::OFFSET_OUT_UPPER, hi(va)),
        (m::OFFSET_OUT, lo(va)),
        (m::PITCH_OUT, pitch),
        (m::LINE_LENGTH_IN, len),
        (m::LINE_COUNT, lines),
    ]
}

fn semaphore(va: u64, payload: u32) -> Vec<(u32, u32)> {
    vec![
        (m::SET_I2M_SEMAPHORE_A, hi(va)),
        (m::SET_I2M_SEMAPHORE_B, lo(va)),
        (m::SET_I2M_SEMAPHORE_C, payload),
    ]
}

/// The data words for `lines` lines of `len` bytes: each line starts a new word.
fn words_for(data: &[u8], len: usize, lines: usize) -> Vec<u32> {
    let mut words = Vec::new();
    for l in 0..lines {
        for chunk in data[l * len..(l + 1) * len].chunks(4) {
            let mut w = [0xEEu8; 4]; // padding bytes that must be dropped
            w[..chunk.len()].copy_from_slice(chunk);
            words.push(u32::from_le_bytes(w));
        }
    }
    words
}

#[test]
fn pitch_lines_with_padding_words_and_a_four_word_semaphore() {
    let mut rig = Rig::new();
    let mut i2m = InlineToMemory::new(SectorLayout::Turing2D);
    let before = rig.bytes(rig.dst);
    let (len, lines, pitch) = (13usize, 5usize, 40usize);
    let data = pattern(len * lines, 77);
    let mut calls = destination(DST + 0x10, len as u32, lines as u32, pitch as u32);
    calls.extend(semaphore(SEM + 0x20, 0xABCD));
    calls.push((m::LAUNCH_DMA, PITCH | RELEASE));
    rig.run(&mut i2m, &calls);
    let words = words_for(&data, len, lines);
    assert_eq!(words.len(), 4 * lines);
    assert_eq!(i2m.remaining_words(), 20);
    for (k, &w) in words.iter().enumerate() {
        // The semaphore is not released before the last word.
        assert_eq!(&rig.bytes(rig.sem)[0x20..0x24], &[0xCD; 4], "word {k}");
        rig.run(&mut i2m, &[(m::LOAD_INLINE_DATA, w)]);
    }
    assert_eq!(i2m.remaining_words(), 0);
    let mut expected = before;
    for l in 0..lines {
        expected[0x10 + l * pitch..][..len].copy_from_slice(&data[l * len..][..len]);
    }
    assert!(rig.bytes(rig.dst) == expected);
    let sem = rig.bytes(rig.sem);
    assert_eq!(&sem[0x20..0x24], &0xABCDu32.to_le_bytes());
    assert_eq!(&sem[0x24..0x28], &[0; 4]);
    assert_eq!(&sem[0x28..0x30], &0x1111_2222_3333_0000u64.to_le_bytes());
    // No transfer pending any more: another data word is refused.
    assert!(rig.call(&mut i2m, m::LOAD_INLINE_DATA, 0).is_err());
}

#[test]
fn block_linear_destination_with_origin_and_layer() {
    for sectors in [SectorLayout::Turing2D, SectorLayout::Tegra16Bx2] {
        let mut rig = Rig::new();
        let mut i2m = InlineToMemory::new(sectors);
        let before = rig.bytes(rig.dst);
        let surf = BlSurface {
            width_bytes: 160,
            height: 40,
            depth: 3,
            block_h: 2,
            block_d: 1,
            sectors,
        };
        let (x0, y0, z, len, lines) = (23u32, 7u32, 2u32, 70usize, 9usize);
        let data = pattern(len * lines, 5);
        let mut calls = destination(DST, len as u32, lines as u32, 0);
        calls.extend([
            (
                m::SET_DST_BLOCK_SIZE,
                (surf.block_h << 4) | (surf.block_d << 8),
            ),
            (m::SET_DST_WIDTH, 160),
            (m::SET_DST_HEIGHT, 40),
            (m::SET_DST_DEPTH, 3),
            (m::SET_DST_LAYER, z),
            (m::SET_DST_ORIGIN_BYTES_X, x0),
            (m::SET_DST_ORIGIN_SAMPLES_Y, y0),
            (m::LAUNCH_DMA, 0),
        ]);
        rig.run(&mut i2m, &calls);
        for w in words_for(&data, len, lines) {
            rig.run(&mut i2m, &[(m::LOAD_INLINE_DATA, w)]);
        }
        let mut expected = before;
        for l in 0..lines {
            for c in 0..len {
                expected[surf.address((x0 as usize + c) as u64, (y0 as usize + l) as u64, z as u64)
                    as usize] = data[l * len + c];
            }
        }
        assert!(rig.bytes(rig.dst) == expected, "{sectors:?}");
    }
}

#[test]
fn a_late_mapping_fault_leaves_the_word_retryable() {
    let mut rig = Rig::new();
    let mut i2m = InlineToMemory::new(SectorLayout::Turing2D);
    // Line 0 in the destination window's last bytes, line 1 in an unmapped page after it.
    let base = DST + WINDOW - 8;
    let mut calls = destination(base, 8, 2, 0x1000 + 8);
    calls.extend(semaphore(SEM, 99));
    calls.push((m::LAUNCH_DMA, PITCH | RELEASE | ONE_WORD));
    rig.run(&mut i2m, &calls);
    rig.run(
        &mut i2m,
        &[
            (m::LOAD_INLINE_DATA, 0x0403_0201),
            (m::LOAD_INLINE_DATA, 0x0807_0605),
        ],
    );
    let err = rig
        .call(&mut i2m, m::LOAD_INLINE_DATA, 0x0C0B_0A09)
        .unwrap_err();
    let line1 = DST + WINDOW + 0x1000;
    assert!(
        matches!(err, EngineError::Memory(MemoryError::Unmapped { va }) if va == line1),
        "{err}"
    );
    assert_eq!(i2m.remaining_words(), 2);
    assert_eq!(rig.memory.read_u32(SEM).unwrap(), 0xCDCD_CDCD);
    // Map the page and deliver the same word again: the transfer picks up where it stopped.
    let page = rig.memory.add_storage(vec![0; 0x1000]);
    rig.memory
        .map(line1 & !0xFFF, 0x1000, page, 0, Access::READ_WRITE)
        .unwrap();
    rig.run(&mut i2m, &[(m::LOAD_INLINE_DATA, 0x0C0B_0A09)]);
    assert_eq!(rig.memory.read_u32(SEM).unwrap(), 0xCDCD_CDCD);
    rig.run(&mut i2m, &[(m::LOAD_INLINE_DATA, 0x100F_0E0D)]);
    assert_eq!(
        rig.memory.read_vec(base, 8).unwrap(),
        [1, 2, 3, 4, 5, 6, 7, 8]
    );
    assert_eq!(
        rig.memory.read_vec(line1, 8).unwrap(),
        [9, 10, 11, 12, 13, 14, 15, 16]
    );
    assert_eq!(rig.memory.read_u32(SEM).unwrap(), 99);
    assert_eq!(
        rig.memory.read_u32(SEM + 4).unwrap(),
        0xCDCD_CDCD,
        "one-word release writes 4 bytes"
    );
}

#[test]
fn a_bad_semaphore_fails_the_last_word_before_it_is_written() {
    let mut rig = Rig::new();
    let mut i2m = InlineToMemory::new(SectorLayout::Turing2D);
    let mut calls = destination(DST, 8, 1, 0);
    calls.extend(semaphore(0x5_0000_0000, 1));
    calls.push((m::LAUNCH_DMA, PITCH | RELEASE | ONE_WORD));
    rig.run(&mut i2m, &calls);
    rig.run(&mut i2m, &[(m::LOAD_INLINE_DATA, 0x1111_1111)]);
    let before = rig.memory.read_u32(DST + 4).unwrap();
    assert!(rig
        .call(&mut i2m, m::LOAD_INLINE_DATA, 0x2222_2222)
        .is_err());
    assert_eq!(rig.memory.read_u32(DST + 4).unwrap(), before);
    assert_eq!(i2m.remaining_words(), 1);
}

#[test]
fn reductions_zero_length_launches_and_refusals() {
    let mut rig = Rig::new();
    let mut i2m = InlineToMemory::new(SectorLayout::Turing2D);
    // REDUCTION_ENABLE, U32, ADD, one word; a zero-length transfer completes at launch.
    rig.memory.write_u32(SEM, 40).unwrap();
    let mut calls = destination(DST, 0, 1, 0);
    calls.extend(semaphore(SEM, 2));
    calls.push((m::LAUNCH_DMA, PITCH | RELEASE | ONE_WORD | 1 << 1));
    rig.run(&mut i2m, &calls);
    assert_eq!(rig.memory.read_u32(SEM).unwrap(), 42);
    // INC (I2M numbering 3): 42 >= 2 wraps to 0.
    rig.run(
        &mut i2m,
        &[(m::LAUNCH_DMA, PITCH | RELEASE | ONE_WORD | 1 << 1 | 3 << 13)],
    );
    assert_eq!(rig.memory.read_u32(SEM).unwrap(), 0);
    // A launch while a transfer waits for data, and NOTIFY, are refused by name.
    rig.run(&mut i2m, &[(m::LINE_LENGTH_IN, 4), (m::LAUNCH_DMA, PITCH)]);
    let err = rig.call(&mut i2m, m::LAUNCH_DMA, PITCH).unwrap_err();
    assert!(err.to_string().contains("still expects 1"), "{err}");
    assert!(rig.call(&mut i2m, m::NOTIFY, 0).is_err());
    assert!(matches!(
        rig.call(&mut i2m, 0x1B8, 0),
        Err(EngineError::UnknownMethod)
    ));
    // INTERRUPT_TYPE INTERRUPT is refused by name on a fresh engine.
    let mut fresh = InlineToMemory::new(SectorLayout::Turing2D);
    let err = rig
        .call(&mut fresh, m::LAUNCH_DMA, PITCH | 1 << 8)
        .unwrap_err();
    assert!(err.to_string().contains("INTERRUPT"), "{err}");
    assert_eq!(i2m.remaining_words(), 1);
}

// ---- end to end through replay -------------------------------------------------------------------

fn inc(subc: u32, method: u32, count: u32) -> u32 {
    0x2000_0000 | (count << 16) | (subc << 13) | (method >> 2)
}
fn non_inc(subc: u32, method: u32, count: u32) -> u32 {
    0x6000_0000 | (count << 16) | (subc << 13) | (method >> 2)
}
fn set(subc: u32, method: u32, data: u32) -> [u32; 2] {
    [inc(subc, method, 1), data]
}

fn gp_entry(address: u64, words: usize) -> [u8; 8] {
    GpEntry::Segment(Segment {
        address,
        length_words: words as u32,
        level: Level::Main,
        sync: Sync::Proceed,
    })
    .encode()
    .to_le_bytes()
}

#[test]
fn replay_streams_inline_data_across_gpfifo_entries_and_copies_it_to_block_linear() {
    let mut image = vec![0u8; 0x40000];
    let (stage, tiled, out, sem) = (0x10000u64, 0x20000u64, 0x30000u64, 0x3F000u64);
    let (w, h) = (96u32, 20u32);
    let data = pattern((w * h) as usize, 3);
    let words = words_for(&data, w as usize, h as usize);
    let (i2m, dma) = (2u32, 4u32);

    // Segment 1: bind, program I2M, launch, and the first part of the data burst.
    let mut seg1: Vec<u32> = Vec::new();
    seg1.extend(set(i2m, 0, 0xA140));
    seg1.extend(set(dma, 0, 0xC6B5));
    for (mth, v) in destination(stage, w, h, w) {
        seg1.extend(set(i2m, mth, v));
    }
    seg1.extend(set(i2m, m::LAUNCH_DMA, PITCH));
    let split = 101;
    seg1.push(non_inc(i2m, m::LOAD_INLINE_DATA, words.len() as u32));
    seg1.extend(&words[..split]);
    // Segment 2: the rest of the burst, then a DMA pitch → block-linear → pitch round trip with a
    // four-word semaphore at the end.
    let mut seg2: Vec<u32> = words[split..].to_vec();
    let surf = BlSurface {
        width_bytes: 128,
        height: 24,
        depth: 1,
        block_h: 1,
        block_d: 0,
        sectors: SectorLayout::Tegra16Bx2,
    };
    let launch = |bits: u32| set(dma, dm::LAUNCH_DMA, bits);
    seg2.push(inc(dma, dm::OFFSET_IN_UPPER, 6));
    seg2.extend([hi(stage), lo(stage), hi(tiled), lo(tiled), w, 0]);
    seg2.push(inc(dma, dm::LINE_LENGTH_IN, 2));
    seg2.extend([w, h]);
    seg2.push(inc(dma, dm::SET_DST_BLOCK_SIZE, 6));
    seg2.extend([surf.block_size_word(), 128, 24, 1, 0, (3 << 16) | 16]);
    seg2.extend(launch(2 | 1 << 7 | 1 << 9));
    seg2.push(inc(dma, dm::OFFSET_IN_UPPER, 6));
    seg2.extend([hi(tiled), lo(tiled), hi(out), lo(out), 0, w]);
    seg2.push(inc(dma, dm::SET_SRC_BLOCK_SIZE, 6));
    seg2.extend([surf.block_size_word(), 128, 24, 1, 0, (3 << 16) | 16]);
    seg2.push(inc(dma, dm::SET_SEMAPHORE_A, 3));
    seg2.extend([hi(sem), lo(sem), 0x600D]);
    seg2.extend(launch(2 | 2 << 3 | 1 << 8 | 1 << 9));

    let put = |image: &mut Vec<u8>, at: usize, words: &[u32]| {
        for (i, w) in words.iter().enumerate() {
            image[at + 4 * i..at + 4 * i + 4].copy_from_slice(&w.to_le_bytes());
        }
    };
    put(&mut image, 0x0, &seg1);
    put(&mut image, 0x8000, &seg2);
    let mut gpfifo = Vec::new();
    gpfifo.extend(gp_entry(0x0, seg1.len()));
    gpfifo.extend(gp_entry(0x8000, seg2.len()));
    let options = ReplayOptions {
        engines: EngineOptions {
            sector_layout: SectorLayout::Tegra16Bx2,
        },
        clock_step_ns: 10,
    };
    let before = image.clone();
    let result = replay(image, &gpfifo, &options).expect("replay");
    let mem = result.memory;

    let mut expected = before;
    for l in 0..h as usize {
        let row = &data[l * w as usize..(l + 1) * w as usize];
        expected[stage as usize + l * w as usize..][..w as usize].copy_from_slice(row);
        expected[out as usize + l * w as usize..][..w as usize].copy_from_slice(row);
        for (c, &b) in row.iter().enumerate() {
            expected[tiled as usize + surf.address(16 + c as u64, 3 + l as u64, 0) as usize] = b;
        }
    }
    expected[sem as usize..sem as usize + 4].copy_from_slice(&0x600Du32.to_le_bytes());
    expected[sem as usize + 4..sem as usize + 8].fill(0);
    // The stepping clock starts at 0; the release is its first reading.
    expected[sem as usize + 8..sem as usize + 16].copy_from_slice(&0u64.to_le_bytes());
    assert!(mem == expected);
}

#[test]
fn replay_names_the_failing_copy_method() {
    let mut image = vec![0u8; 0x1000];
    let mut seg: Vec<u32> = Vec::new();
    seg.extend(set(4, 0, 0xC6B5));
    seg.extend(set(4, dm::OFFSET_OUT_LOWER, 0x10_0000)); // beyond the image
    seg.extend(set(4, dm::LINE_LENGTH_IN, 4));
    seg.extend(set(4, dm::LAUNCH_DMA, 2 | 1 << 7 | 1 << 8));
    for (i, w) in seg.iter().enumerate() {
        image[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
    }
    let err = replay(image, &gp_entry(0, seg.len()), &ReplayOptions::new(sassport_engines::sector_layout::SectorLayout::Turing2D))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("0x300") && err.contains("0xc6b5") && err.contains("0x100000"),
        "{err}"
    );
}
