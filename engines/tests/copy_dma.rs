//! AMPERE_DMA_COPY_A against independently computed bytes: every destination byte of the window is
//! compared (copied bytes, padding, and bytes the copy must not touch), with method offsets and fields
//! from clc6b5.h (shared/notes/command-engines.md §4).

#![allow(clippy::identity_op)]

mod copy_support;

use copy_support::*;
use proptest::prelude::*;
use sassport_engines::channel::EngineError;
use sassport_engines::copy::{dma_method as m, DmaCopy};
use sassport_engines::layout::SectorLayout;
use sassport_engines::memory::{Access, MemoryError};

const NON_PIPELINED: u32 = 2;
const SEM_ONE_WORD: u32 = 1 << 3;
const SEM_FOUR_WORD: u32 = 2 << 3;
const SRC_PITCH: u32 = 1 << 7;
const DST_PITCH: u32 = 1 << 8;
const MULTI_LINE: u32 = 1 << 9;
const REMAP: u32 = 1 << 10;
const REDUCTION_ENABLE: u32 = 1 << 19;
const UNSIGNED: u32 = 1 << 18;

fn reduction(op: u32) -> u32 {
    REDUCTION_ENABLE | (op << 14)
}

fn offsets(src: u64, dst: u64) -> Vec<(u32, u32)> {
    vec![
        (m::OFFSET_IN_UPPER, hi(src)),
        (m::OFFSET_IN_LOWER, lo(src)),
        (m::OFFSET_OUT_UPPER, hi(dst)),
        (m::OFFSET_OUT_LOWER, lo(dst)),
    ]
}

fn semaphore(va: u64, payload: u32) -> Vec<(u32, u32)> {
    vec![
        (m::SET_SEMAPHORE_A, hi(va)),
        (m::SET_SEMAPHORE_B, lo(va)),
        (m::SET_SEMAPHORE_PAYLOAD, payload),
    ]
}

fn pitch_copy(len: u32, lines: u32, pitch_in: u32, pitch_out: u32) -> Vec<(u32, u32)> {
    let mut c = offsets(SRC + 0x100, DST + 0x200);
    c.extend([
        (m::PITCH_IN, pitch_in),
        (m::PITCH_OUT, pitch_out),
        (m::LINE_LENGTH_IN, len),
        (m::LINE_COUNT, lines),
    ]);
    c
}

#[test]
fn one_dimensional_copy_moves_only_the_x_extent() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    // LINE_COUNT 7 is ignored without MULTI_LINE_ENABLE.
    rig.run(&mut dma, &pitch_copy(1000, 7, 4096, 4096));
    rig.run(
        &mut dma,
        &[(m::LAUNCH_DMA, NON_PIPELINED | SRC_PITCH | DST_PITCH)],
    );
    let mut expected = before;
    expected[0x200..0x200 + 1000].copy_from_slice(&src[0x100..0x100 + 1000]);
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn multi_line_pitch_copy_keeps_padding() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    rig.run(&mut dma, &pitch_copy(37, 9, 100, 64));
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE,
        )],
    );
    let mut expected = before;
    for r in 0..9 {
        expected[0x200 + r * 64..][..37].copy_from_slice(&src[0x100 + r * 100..][..37]);
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn negative_pitch_walks_lines_downwards_and_origins_are_ignored_for_pitch() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    let mut calls = pitch_copy(16, 4, (-200i32) as u32, 32);
    calls[1] = (m::OFFSET_IN_LOWER, lo(SRC + 0x1000));
    // Pitch surfaces ignore the origin registers (Ryujinx #3121, hardware-tested).
    calls.extend([
        (m::SET_SRC_ORIGIN, 0x0005_0003),
        (m::DST_ORIGIN_X, 9),
        (m::DST_ORIGIN_Y, 2),
    ]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE,
        )],
    );
    let mut expected = before;
    for r in 0..4 {
        expected[0x200 + r * 32..][..16].copy_from_slice(&src[0x1000 - r * 200..][..16]);
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn overlapping_copy_reads_the_whole_source_first() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let before = rig.bytes(rig.dst);
    // Source and destination in the same window, the destination 3 bytes further on.
    let mut calls = offsets(DST + 0x100, DST + 0x103);
    calls.extend([(m::LINE_LENGTH_IN, 500)]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(m::LAUNCH_DMA, NON_PIPELINED | SRC_PITCH | DST_PITCH)],
    );
    let mut expected = before.clone();
    expected.copy_within(0x100..0x100 + 500, 0x103);
    assert!(rig.bytes(rig.dst) == expected);
}

/// Sets up a block-linear side: block size, width (in elements), height, depth, layer, origin.
fn bl_side(
    dst: bool,
    s: &BlSurface,
    element: u64,
    layer: u32,
    x: u32,
    y: u32,
    packed: bool,
) -> Vec<(u32, u32)> {
    let w = (s.width_bytes / element) as u32;
    let mut c = if dst {
        vec![
            (m::SET_DST_BLOCK_SIZE, s.block_size_word()),
            (m::SET_DST_WIDTH, w),
            (m::SET_DST_HEIGHT, s.height as u32),
            (m::SET_DST_DEPTH, s.depth as u32),
            (m::SET_DST_LAYER, layer),
        ]
    } else {
        vec![
            (m::SET_SRC_BLOCK_SIZE, s.block_size_word()),
            (m::SET_SRC_WIDTH, w),
            (m::SET_SRC_HEIGHT, s.height as u32),
            (m::SET_SRC_DEPTH, s.depth as u32),
            (m::SET_SRC_LAYER, layer),
        ]
    };
    match (dst, packed) {
        (true, true) => c.push((m::SET_DST_ORIGIN, (y << 16) | x)),
        (false, true) => c.push((m::SET_SRC_ORIGIN, (y << 16) | x)),
        (true, false) => c.extend([(m::DST_ORIGIN_X, x), (m::DST_ORIGIN_Y, y)]),
        (false, false) => c.extend([(m::SRC_ORIGIN_X, x), (m::SRC_ORIGIN_Y, y)]),
    }
    c
}

#[test]
fn pitch_to_block_linear_with_packed_origin() {
    for sectors in [SectorLayout::Turing2D, SectorLayout::Tegra16Bx2] {
        let mut rig = Rig::new();
        let mut dma = DmaCopy::new(sectors);
        let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
        let surf = BlSurface {
            width_bytes: 300,
            height: 70,
            depth: 1,
            block_h: 2,
            block_d: 0,
            sectors,
        };
        let (x0, y0, w, h, pitch) = (37u64, 11u64, 201u64, 45u64, 256u64);
        let mut calls = offsets(SRC, DST);
        calls.extend([
            (m::PITCH_IN, pitch as u32),
            (m::LINE_LENGTH_IN, w as u32),
            (m::LINE_COUNT, h as u32),
        ]);
        calls.extend(bl_side(true, &surf, 1, 0, x0 as u32, y0 as u32, true));
        rig.run(&mut dma, &calls);
        rig.run(
            &mut dma,
            &[(m::LAUNCH_DMA, NON_PIPELINED | SRC_PITCH | MULTI_LINE)],
        );
        let mut expected = before;
        for r in 0..h {
            for c in 0..w {
                expected[surf.address(x0 + c, y0 + r, 0) as usize] = src[(r * pitch + c) as usize];
            }
        }
        assert!(rig.bytes(rig.dst) == expected, "{sectors:?}");
    }
}

#[test]
fn block_linear_3d_slice_to_pitch_with_32_bit_origin() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    let surf = BlSurface {
        width_bytes: 256,
        height: 40,
        depth: 7,
        block_h: 1,
        block_d: 2,
        sectors: SectorLayout::Turing2D,
    };
    assert!(surf.size() <= WINDOW);
    let (x0, y0, w, h, layer) = (70_000u64 % 256, 5u64, 120u64, 30u64, 6u32);
    let mut calls = offsets(SRC, DST + 0x40);
    calls.extend([
        (m::PITCH_OUT, 128),
        (m::LINE_LENGTH_IN, w as u32),
        (m::LINE_COUNT, h as u32),
    ]);
    calls.extend(bl_side(false, &surf, 1, layer, x0 as u32, y0 as u32, false));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(m::LAUNCH_DMA, NON_PIPELINED | DST_PITCH | MULTI_LINE)],
    );
    let mut expected = before;
    for r in 0..h {
        for c in 0..w {
            expected[(0x40 + r * 128 + c) as usize] =
                src[surf.address(x0 + c, y0 + r, layer as u64) as usize];
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn a_32_bit_origin_beyond_16_bits_is_honoured() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    // 70_000 bytes wide, 8 rows: the origin X does not fit the packed register's 16 bits.
    let surf = BlSurface {
        width_bytes: 70_080,
        height: 8,
        depth: 1,
        block_h: 0,
        block_d: 0,
        sectors: SectorLayout::Turing2D,
    };
    let mut calls = offsets(SRC, DST);
    calls.extend([
        (m::PITCH_OUT, 64),
        (m::LINE_LENGTH_IN, 40),
        (m::LINE_COUNT, 3),
    ]);
    calls.extend(bl_side(false, &surf, 1, 0, 70_000, 2, false));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(m::LAUNCH_DMA, NON_PIPELINED | DST_PITCH | MULTI_LINE)],
    );
    let mut expected = before;
    for r in 0..3u64 {
        for c in 0..40u64 {
            expected[(r * 64 + c) as usize] = src[surf.address(70_000 + c, 2 + r, 0) as usize];
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn remap_swaps_red_and_blue_in_element_units() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Tegra16Bx2);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    // BGRA8 pitch → RGBA8 block-linear: X = src Z, Y = src Y, Z = src X, W = src W; 4 × 1-byte components.
    let comps = 2 | (1 << 4) | (0 << 8) | (3 << 12) | (0 << 16) | (3 << 20) | (3 << 24);
    let surf = BlSurface {
        width_bytes: 64 * 4,
        height: 16,
        depth: 1,
        block_h: 1,
        block_d: 0,
        sectors: SectorLayout::Tegra16Bx2,
    };
    let (x0, y0, w, h) = (5u64, 3u64, 50u64, 12u64); // elements
    let mut calls = offsets(SRC, DST);
    calls.extend([
        (m::PITCH_IN, 400),
        (m::LINE_LENGTH_IN, w as u32),
        (m::LINE_COUNT, h as u32),
        (m::SET_REMAP_COMPONENTS, comps),
    ]);
    calls.extend(bl_side(true, &surf, 4, 0, x0 as u32, y0 as u32, true));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE | REMAP,
        )],
    );
    let mut expected = before;
    let order = [2usize, 1, 0, 3];
    for r in 0..h {
        for e in 0..w {
            for (k, &s) in order.iter().enumerate() {
                let a = surf.address((x0 + e) * 4 + k as u64, y0 + r, 0);
                expected[a as usize] = src[(r * 400 + e * 4) as usize + s];
            }
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn remap_constants_no_write_and_wider_components() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    // 3 source components of 2 bytes → 4 destination components: X = CONST_B, Y = src Z, Z = NO_WRITE,
    // W = CONST_A.
    let comps = 5 | (2 << 4) | (6 << 8) | (4 << 12) | (1 << 16) | (2 << 20) | (3 << 24);
    let (a, b) = (0xA1A2_A3A4u32, 0xB1B2_B3B4u32);
    let mut calls = offsets(SRC + 8, DST + 16);
    calls.extend([
        (m::PITCH_IN, 6 * 20 + 4),
        (m::PITCH_OUT, 8 * 20 + 8),
        (m::LINE_LENGTH_IN, 20),
        (m::LINE_COUNT, 3),
        (m::SET_REMAP_CONST_A, a),
        (m::SET_REMAP_CONST_B, b),
        (m::SET_REMAP_COMPONENTS, comps),
    ]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE | REMAP,
        )],
    );
    let mut expected = before;
    for r in 0..3usize {
        for e in 0..20usize {
            let s = 8 + r * 124 + e * 6;
            let d = 16 + r * 168 + e * 8;
            expected[d..d + 2].copy_from_slice(&b.to_le_bytes()[..2]);
            expected[d + 2..d + 4].copy_from_slice(&src[s + 4..s + 6]);
            // d+4..d+6 not written
            expected[d + 6..d + 8].copy_from_slice(&a.to_le_bytes()[..2]);
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn constant_fill_never_reads_the_source() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let before = rig.bytes(rig.dst);
    // vkCmdFillBuffer's pattern: all four destination components CONST_A, 4-byte components, one each.
    let comps = 4 | (4 << 4) | (4 << 8) | (4 << 12) | (3 << 16);
    let mut calls = offsets(0x7_0000_0000, DST + 0x1000); // source unmapped
    calls.extend([
        (m::PITCH_IN, 4096),
        (m::PITCH_OUT, 4096),
        (m::LINE_LENGTH_IN, 100),
        (m::LINE_COUNT, 5),
        (m::SET_REMAP_CONST_A, 0xDEAD_BEEF),
        (m::SET_REMAP_COMPONENTS, comps),
    ]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE | REMAP,
        )],
    );
    let mut expected = before;
    for r in 0..5 {
        for e in 0..100 {
            expected[0x1000 + r * 4096 + e * 4..][..4]
                .copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
    // The same launch that needs the source fails on it, naming the address.
    let identity = (1 << 4) | (2 << 8) | (3 << 12) | (3 << 16);
    rig.run(&mut dma, &[(m::SET_REMAP_COMPONENTS, identity)]);
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE | REMAP,
        )
        .unwrap_err();
    assert!(
        matches!(
            err,
            EngineError::Memory(MemoryError::Unmapped { va: 0x7_0000_0000 })
        ),
        "{err}"
    );
}

#[test]
fn block_linear_fill_with_remap_in_elements() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let before = rig.bytes(rig.dst);
    let surf = BlSurface {
        width_bytes: 100 * 8,
        height: 24,
        depth: 2,
        block_h: 1,
        block_d: 1,
        sectors: SectorLayout::Turing2D,
    };
    // 2 × 4-byte components: X = CONST_A, Y = CONST_B.
    let comps = 4 | (5 << 4) | (3 << 16) | (1 << 20) | (1 << 24);
    let mut calls = offsets(0, DST);
    calls.extend([
        (m::LINE_LENGTH_IN, 33),
        (m::LINE_COUNT, 10),
        (m::SET_REMAP_CONST_A, 0x0102_0304),
        (m::SET_REMAP_CONST_B, 0x0506_0708),
        (m::SET_REMAP_COMPONENTS, comps),
    ]);
    calls.extend(bl_side(true, &surf, 8, 1, 61, 9, false));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE | REMAP,
        )],
    );
    let mut expected = before;
    let element = [4u8, 3, 2, 1, 8, 7, 6, 5];
    for r in 0..10u64 {
        for e in 0..33u64 {
            for (k, &b) in element.iter().enumerate() {
                expected[surf.address((61 + e) * 8 + k as u64, 9 + r, 1) as usize] = b;
            }
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn block_linear_to_block_linear_across_block_sizes_and_slices() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Tegra16Bx2);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    let s = BlSurface {
        width_bytes: 200,
        height: 50,
        depth: 5,
        block_h: 3,
        block_d: 1,
        sectors: SectorLayout::Tegra16Bx2,
    };
    let d = BlSurface {
        width_bytes: 333,
        height: 90,
        depth: 3,
        block_h: 0,
        block_d: 2,
        sectors: SectorLayout::Tegra16Bx2,
    };
    let mut calls = offsets(SRC, DST);
    calls.extend([(m::LINE_LENGTH_IN, 150), (m::LINE_COUNT, 41)]);
    calls.extend(bl_side(false, &s, 1, 4, 13, 9, true));
    calls.extend(bl_side(true, &d, 1, 2, 100, 44, false));
    rig.run(&mut dma, &calls);
    rig.run(&mut dma, &[(m::LAUNCH_DMA, NON_PIPELINED | MULTI_LINE)]);
    let mut expected = before;
    for r in 0..41 {
        for c in 0..150 {
            expected[d.address(100 + c, 44 + r, 2) as usize] =
                src[s.address(13 + c, 9 + r, 4) as usize];
        }
    }
    assert!(rig.bytes(rig.dst) == expected);
}

#[test]
fn copies_through_split_and_aliased_mappings_match_one_mapping() {
    // The destination window mapped as three pieces backed by two storages (the last piece aliases the
    // first storage), so no surface is contiguous and every run goes through the mapper.
    let mut rig = Rig::new();
    let va = 0x2_0000_0000u64;
    let a = rig.memory.add_storage(pattern(0x3000, 9));
    let b = rig.memory.add_storage(pattern(0x1000, 10));
    rig.memory
        .map(va, 0x1000, a, 0, Access::READ_WRITE)
        .unwrap();
    rig.memory
        .map(va + 0x1000, 0x1000, b, 0, Access::READ_WRITE)
        .unwrap();
    rig.memory
        .map(va + 0x2000, 0x1000, a, 0x1000, Access::READ_WRITE)
        .unwrap();
    let mut flat = pattern(0x1000, 9);
    flat.extend(pattern(0x1000, 10));
    flat.extend(&pattern(0x3000, 9)[0x1000..0x2000]);
    let src = rig.bytes(rig.src);
    let surf = BlSurface {
        width_bytes: 128,
        height: 48,
        depth: 1,
        block_h: 1,
        block_d: 0,
        sectors: SectorLayout::Turing2D,
    };
    assert_eq!(surf.size(), 0x3000 / 2);
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let mut calls = offsets(SRC, va + 0x800);
    calls.extend([
        (m::PITCH_IN, 128),
        (m::LINE_LENGTH_IN, 100),
        (m::LINE_COUNT, 40),
    ]);
    calls.extend(bl_side(true, &surf, 1, 0, 20, 3, true));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(m::LAUNCH_DMA, NON_PIPELINED | SRC_PITCH | MULTI_LINE)],
    );
    for r in 0..40 {
        for c in 0..100 {
            flat[0x800 + surf.address(20 + c, 3 + r, 0) as usize] = src[(r * 128 + c) as usize];
        }
    }
    let got = rig.memory.read_vec(va, 0x3000).unwrap();
    assert!(got == flat);
    // And back out through the split mappings to pitch memory.
    let mut calls = offsets(va + 0x800, DST);
    calls.extend([
        (m::PITCH_OUT, 100),
        (m::LINE_LENGTH_IN, 100),
        (m::LINE_COUNT, 40),
    ]);
    calls.extend(bl_side(false, &surf, 1, 0, 20, 3, true));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(m::LAUNCH_DMA, NON_PIPELINED | DST_PITCH | MULTI_LINE)],
    );
    let out = rig.bytes(rig.dst);
    for r in 0..40 {
        assert_eq!(&out[r * 100..][..100], &src[r * 128..][..100]);
    }
}

fn copy_with_semaphore(rig: &mut Rig, dma: &mut DmaCopy, sem_va: u64, payload: u32) {
    let mut calls = pitch_copy(64, 1, 0, 0);
    calls.extend(semaphore(sem_va, payload));
    rig.run(dma, &calls);
}

#[test]
fn one_word_semaphore_release_after_the_copy() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    copy_with_semaphore(&mut rig, &mut dma, SEM + 0x24, 0x1234_5678);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | SEM_ONE_WORD,
        )],
    );
    let sem = rig.bytes(rig.sem);
    assert_eq!(&sem[0x24..0x28], &0x1234_5678u32.to_le_bytes());
    assert_eq!(&sem[0x20..0x24], &[0xCD; 4]);
    assert_eq!(&sem[0x28..0x30], &[0xCD; 8]);
    assert_eq!(
        &rig.bytes(rig.dst)[0x200..0x240],
        &rig.bytes(rig.src)[0x100..0x140]
    );
}

#[test]
fn four_word_semaphore_writes_payload_zero_and_timestamp() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    copy_with_semaphore(&mut rig, &mut dma, SEM + 0x30, 0xCAFE_F00D);
    // DATA_TRANSFER_TYPE NONE: a semaphore-only launch.
    rig.run(&mut dma, &[(m::LAUNCH_DMA, SEM_FOUR_WORD)]);
    let sem = rig.bytes(rig.sem);
    assert_eq!(&sem[0x30..0x34], &0xCAFE_F00Du32.to_le_bytes());
    assert_eq!(&sem[0x34..0x38], &[0; 4]);
    assert_eq!(&sem[0x38..0x40], &0x1111_2222_3333_0000u64.to_le_bytes());
    assert_eq!(&sem[0x40..0x44], &[0xCD; 4]);
    // Misaligned for 16 bytes: refused, nothing written.
    copy_with_semaphore(&mut rig, &mut dma, SEM + 0x48, 1);
    let err = rig
        .call(&mut dma, m::LAUNCH_DMA, SEM_FOUR_WORD)
        .unwrap_err();
    assert!(matches!(err, EngineError::Semaphore(_)), "{err}");
    assert!(rig.bytes(rig.sem) == sem);
}

#[test]
fn semaphore_reductions() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let va = SEM + 0x100;
    let cases: &[(u32, u32, u32, u32, u32)] = &[
        // (op, sign bit, initial, payload, expected)
        (5, UNSIGNED, 40, 2, 42),                  // IADD
        (0, 0, (-5i32) as u32, 3, (-5i32) as u32), // IMIN signed
        (0, UNSIGNED, (-5i32) as u32, 3, 3),       // IMIN unsigned
        (1, 0, (-5i32) as u32, 3, 3),              // IMAX signed
        (2, UNSIGNED, 0xF0F0, 0xFF00, 0x0FF0),     // IXOR
        (3, UNSIGNED, 0xF0F0, 0xFF00, 0xF000),     // IAND
        (4, UNSIGNED, 0xF0F0, 0x0F00, 0xFFF0),     // IOR
        (6, UNSIGNED, 7, 7, 0),                    // INC wraps at payload
        (6, UNSIGNED, 3, 7, 4),                    // INC
        (7, UNSIGNED, 0, 9, 9),                    // DEC from 0 reloads payload
        (7, UNSIGNED, 5, 9, 4),                    // DEC
    ];
    for &(op, sign, initial, payload, expected) in cases {
        rig.memory.write_u32(va, initial).unwrap();
        rig.run(&mut dma, &semaphore(va, payload));
        rig.run(
            &mut dma,
            &[(m::LAUNCH_DMA, SEM_ONE_WORD | reduction(op) | sign)],
        );
        assert_eq!(
            rig.memory.read_u32(va).unwrap(),
            expected,
            "op {op} sign {sign}"
        );
    }
    // FADD (0xA): IEEE single add.
    rig.memory.write_u32(va, 1.5f32.to_bits()).unwrap();
    rig.run(&mut dma, &semaphore(va, 2.25f32.to_bits()));
    rig.run(&mut dma, &[(m::LAUNCH_DMA, SEM_ONE_WORD | reduction(0xA))]);
    assert_eq!(f32::from_bits(rig.memory.read_u32(va).unwrap()), 3.75);
    // INC signed is outside the legal table: refused, value unchanged.
    rig.memory.write_u32(va, 5).unwrap();
    assert!(rig
        .call(&mut dma, m::LAUNCH_DMA, SEM_ONE_WORD | reduction(6))
        .is_err());
    assert_eq!(rig.memory.read_u32(va).unwrap(), 5);
}

#[test]
fn a_copy_into_a_hole_writes_nothing_and_releases_nothing() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (dst, sem) = (rig.bytes(rig.dst), rig.bytes(rig.sem));
    // 40 lines of 4 KiB pitch starting 16 KiB before the end of the window: lines 4.. fall off the end.
    let mut calls = offsets(SRC, DST + WINDOW - 0x4000);
    calls.extend([
        (m::PITCH_IN, 64),
        (m::PITCH_OUT, 0x1000),
        (m::LINE_LENGTH_IN, 64),
        (m::LINE_COUNT, 40),
    ]);
    calls.extend(semaphore(SEM, 1));
    rig.run(&mut dma, &calls);
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE | SEM_ONE_WORD,
        )
        .unwrap_err();
    assert!(
        matches!(err, EngineError::Memory(MemoryError::Unmapped { va }) if va == DST + WINDOW),
        "{err}"
    );
    assert!(rig.bytes(rig.dst) == dst);
    assert!(rig.bytes(rig.sem) == sem);
    // Same for a block-linear destination whose last GOBs cross into the hole.
    let surf = BlSurface {
        width_bytes: 512,
        height: 64,
        depth: 1,
        block_h: 3,
        block_d: 0,
        sectors: SectorLayout::Turing2D,
    };
    let mut calls = offsets(SRC, DST + WINDOW - surf.size() + 512);
    calls.extend([
        (m::PITCH_IN, 512),
        (m::LINE_LENGTH_IN, 512),
        (m::LINE_COUNT, 64),
    ]);
    calls.extend(bl_side(true, &surf, 1, 0, 0, 0, true));
    rig.run(&mut dma, &calls);
    assert!(rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE | SEM_ONE_WORD
        )
        .is_err());
    assert!(rig.bytes(rig.dst) == dst);
    assert!(rig.bytes(rig.sem) == sem);
    // A read-only destination page is a permission failure, also before any write.
    rig.memory.protect(DST, WINDOW, Access::READ).unwrap();
    rig.run(&mut dma, &pitch_copy(64, 1, 0, 0));
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | SEM_ONE_WORD,
        )
        .unwrap_err();
    assert!(
        matches!(err, EngineError::Memory(MemoryError::Permission { .. })),
        "{err}"
    );
    assert!(rig.bytes(rig.sem) == sem);
}

#[test]
fn an_unmapped_semaphore_stops_the_copy_before_it_writes() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let dst = rig.bytes(rig.dst);
    copy_with_semaphore(&mut rig, &mut dma, 0x3_0000_0000, 7);
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | SEM_ONE_WORD,
        )
        .unwrap_err();
    assert!(matches!(err, EngineError::Semaphore(_)), "{err}");
    assert!(rig.bytes(rig.dst) == dst);
}

#[test]
fn out_of_surface_regions_and_bad_fields_are_refused_by_name() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let dst = rig.bytes(rig.dst);
    let surf = BlSurface {
        width_bytes: 128,
        height: 16,
        depth: 2,
        block_h: 1,
        block_d: 0,
        sectors: SectorLayout::Turing2D,
    };
    let mut calls = offsets(SRC, DST);
    calls.extend([
        (m::PITCH_IN, 128),
        (m::LINE_LENGTH_IN, 100),
        (m::LINE_COUNT, 16),
    ]);
    calls.extend(bl_side(true, &surf, 1, 2, 0, 0, true)); // layer 2 of a 2-deep surface
    rig.run(&mut dma, &calls);
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE,
        )
        .unwrap_err();
    assert!(err.to_string().contains("destination surface"), "{err}");
    rig.run(&mut dma, &[(m::SET_DST_LAYER, 1), (m::SET_DST_ORIGIN, 29)]); // x 29 + 100 > 128
    assert!(rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE
        )
        .is_err());
    rig.run(
        &mut dma,
        &[
            (m::SET_DST_ORIGIN, 0),
            (m::SET_DST_BLOCK_SIZE, 6 << 4 | 1 << 12),
        ],
    );
    assert!(rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE
        )
        .is_err());
    rig.run(&mut dma, &[(m::SET_DST_BLOCK_SIZE, 1 << 4)]); // GOB_HEIGHT 0 (Tesla 4-row GOBs)
    assert!(rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE
        )
        .is_err());
    assert!(rig.bytes(rig.dst) == dst);
    for (word, name) in [
        (NON_PIPELINED | 1 << 5, "INTERRUPT"),
        (NON_PIPELINED | 1 << 12, "PHYSICAL"),
        (NON_PIPELINED | 3 << 3, "CONDITIONAL"),
        (3, "DATA_TRANSFER_TYPE"),
        (NON_PIPELINED | 1 << 22, "VPR"),
    ] {
        let err = rig.call(&mut dma, m::LAUNCH_DMA, word).unwrap_err();
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
    assert!(matches!(
        rig.call(&mut dma, 0x21C, 0),
        Err(EngineError::UnknownMethod)
    ));
    assert!(matches!(
        rig.call(&mut dma, 0x302, 0),
        Err(EngineError::UnknownMethod)
    ));
    let bad_remap = 3 | (1 << 20); // DST_X = SRC_W with 2 source components
    rig.run(&mut dma, &[(m::SET_REMAP_COMPONENTS, bad_remap)]);
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | REMAP,
        )
        .unwrap_err();
    assert!(err.to_string().contains("DST_X"), "{err}");
    assert!(rig.bytes(rig.dst) == dst);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random block-linear → block-linear copies (sizes, block shapes, origins, slices, sector order)
    /// against the scalar formula, every destination byte checked.
    #[test]
    fn random_block_linear_copies_match_the_reference(
        sw in 1u64..400, sh in 1u64..60, sd in 1u64..5, sbh in 0u32..=5, sbd in 0u32..=3,
        dw in 1u64..400, dh in 1u64..60, dd in 1u64..5, dbh in 0u32..=5, dbd in 0u32..=3,
        turing in any::<bool>(), f in proptest::collection::vec(0.0f64..1.0, 8), packed in any::<bool>(),
    ) {
        let sectors = if turing { SectorLayout::Turing2D } else { SectorLayout::Tegra16Bx2 };
        let s = BlSurface { width_bytes: sw, height: sh, depth: sd, block_h: sbh, block_d: sbd, sectors };
        let d = BlSurface { width_bytes: dw, height: dh, depth: dd, block_h: dbh, block_d: dbd, sectors };
        prop_assume!(s.size() <= WINDOW && d.size() <= WINDOW);
        let w = 1 + ((sw.min(dw) - 1) as f64 * f[0]) as u64;
        let h = 1 + ((sh.min(dh) - 1) as f64 * f[1]) as u64;
        let (sx, sy) = (((sw - w) as f64 * f[2]) as u64, ((sh - h) as f64 * f[3]) as u64);
        let (dx, dy) = (((dw - w) as f64 * f[4]) as u64, ((dh - h) as f64 * f[5]) as u64);
        let (sz, dz) = (((sd - 1) as f64 * f[6]) as u64, ((dd - 1) as f64 * f[7]) as u64);
        let mut rig = Rig::new();
        let mut dma = DmaCopy::new(sectors);
        let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
        let mut calls = offsets(SRC, DST);
        calls.extend([(m::LINE_LENGTH_IN, w as u32), (m::LINE_COUNT, h as u32)]);
        calls.extend(bl_side(false, &s, 1, sz as u32, sx as u32, sy as u32, packed));
        calls.extend(bl_side(true, &d, 1, dz as u32, dx as u32, dy as u32, !packed));
        rig.run(&mut dma, &calls);
        rig.run(&mut dma, &[(m::LAUNCH_DMA, NON_PIPELINED | MULTI_LINE)]);
        let mut expected = before;
        for r in 0..h {
            for c in 0..w {
                expected[d.address(dx + c, dy + r, dz) as usize] = src[s.address(sx + c, sy + r, sz) as usize];
            }
        }
        prop_assert!(rig.bytes(rig.dst) == expected);
    }
}

/// Copies larger than one staging band (1 MiB): block-linear destination with a remap, and an
/// overlapping pitch copy that must still behave as if the whole source were read first.
#[test]
fn copies_larger_than_a_band() {
    let mut rig = Rig::new();
    let (big_src, big_dst) = (0x10_0000_0000u64, 0x20_0000_0000u64);
    let s = rig.memory.add_storage(pattern(4 << 20, 21));
    let d = rig.memory.add_storage(pattern(4 << 20, 22));
    rig.memory
        .map(big_src, 4 << 20, s, 0, Access::READ_WRITE)
        .unwrap();
    rig.memory
        .map(big_dst, 4 << 20, d, 0, Access::READ_WRITE)
        .unwrap();
    let (src, before) = (rig.bytes(s), rig.bytes(d));
    let surf = BlSurface {
        width_bytes: 1024 * 4,
        height: 700,
        depth: 1,
        block_h: 4,
        block_d: 0,
        sectors: SectorLayout::Turing2D,
    };
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let swap = 2 | (1 << 4) | (0 << 8) | (3 << 12) | (0 << 16) | (3 << 20) | (3 << 24);
    let (x0, y0, w, h) = (3u64, 5u64, 1000u64, 690u64);
    let mut calls = offsets(big_src, big_dst);
    calls.extend([
        (m::PITCH_IN, 4096),
        (m::LINE_LENGTH_IN, w as u32),
        (m::LINE_COUNT, h as u32),
        (m::SET_REMAP_COMPONENTS, swap),
    ]);
    calls.extend(bl_side(true, &surf, 4, 0, x0 as u32, y0 as u32, false));
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | MULTI_LINE | REMAP,
        )],
    );
    let mut expected = before;
    for r in 0..h {
        for e in 0..w {
            for (k, sk) in [2u64, 1, 0, 3].into_iter().enumerate() {
                expected[surf.address((x0 + e) * 4 + k as u64, y0 + r, 0) as usize] =
                    src[(r * 4096 + e * 4 + sk) as usize];
            }
        }
    }
    assert!(rig.bytes(d) == expected);
    // Overlap: 3 MiB of lines shifted down by one line inside the same storage.
    let before = rig.bytes(d);
    let mut calls = offsets(big_dst, big_dst + 4096);
    calls.extend([
        (m::PITCH_IN, 4096),
        (m::PITCH_OUT, 4096),
        (m::LINE_LENGTH_IN, 4000),
        (m::LINE_COUNT, 768),
    ]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE,
        )],
    );
    let mut expected = before.clone();
    for r in 0..768 {
        expected[(r + 1) * 4096..][..4000].copy_from_slice(&before[r * 4096..][..4000]);
    }
    assert!(rig.bytes(d) == expected);
    // The same through an alias: a second mapping of the destination storage as the source.
    rig.memory
        .map(0x30_0000_0000, 4 << 20, d, 0, Access::READ)
        .unwrap();
    let before = rig.bytes(d);
    let mut calls = offsets(0x30_0000_0000, big_dst + 4096);
    calls.extend([
        (m::PITCH_IN, 4096),
        (m::PITCH_OUT, 4096),
        (m::LINE_LENGTH_IN, 4000),
        (m::LINE_COUNT, 768),
    ]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE,
        )],
    );
    let mut expected = before.clone();
    for r in 0..768 {
        expected[(r + 1) * 4096..][..4000].copy_from_slice(&before[r * 4096..][..4000]);
    }
    assert!(rig.bytes(d) == expected);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Random remaps (component size 1–4, 1–4 source and destination components, any mix of source
    /// components, constants and NO_WRITE) on pitch copies, against a per-byte reference.
    #[test]
    fn random_remaps_match_the_reference(
        size in 1u32..=4, nsrc in 1u32..=4, ndst in 1u32..=4, picks in proptest::collection::vec(0u32..7, 4),
        a in any::<u32>(), b in any::<u32>(), elements in 1u32..40, lines in 1u32..5, gap in 0u32..9,
    ) {
        // Keep source picks inside NUM_SRC_COMPONENTS for the components that are used.
        let picks: Vec<u32> = picks.iter().map(|&p| if p < 4 { p % nsrc } else { p }).collect();
        let comps = picks[0] | picks[1] << 4 | picks[2] << 8 | picks[3] << 12 | (size - 1) << 16 | (nsrc - 1) << 20 | (ndst - 1) << 24;
        let (se, de) = ((size * nsrc) as usize, (size * ndst) as usize);
        let pitch_in = elements * size * nsrc + gap;
        let pitch_out = elements * size * ndst + gap;
        let mut rig = Rig::new();
        let mut dma = DmaCopy::new(SectorLayout::Turing2D);
        let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
        let mut calls = offsets(SRC + 5, DST + 3);
        calls.extend([
            (m::PITCH_IN, pitch_in), (m::PITCH_OUT, pitch_out), (m::LINE_LENGTH_IN, elements), (m::LINE_COUNT, lines),
            (m::SET_REMAP_CONST_A, a), (m::SET_REMAP_CONST_B, b), (m::SET_REMAP_COMPONENTS, comps),
        ]);
        rig.run(&mut dma, &calls);
        rig.run(&mut dma, &[(m::LAUNCH_DMA, NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE | REMAP)]);
        let mut expected = before;
        let size = size as usize;
        for l in 0..lines as usize {
            for e in 0..elements as usize {
                let s = 5 + l * pitch_in as usize + e * se;
                let d = 3 + l * pitch_out as usize + e * de;
                for (k, &p) in picks.iter().take(ndst as usize).enumerate() {
                    let bytes: Option<Vec<u8>> = match p {
                        0..=3 => Some(src[s + p as usize * size..][..size].to_vec()),
                        4 => Some(a.to_le_bytes()[..size].to_vec()),
                        5 => Some(b.to_le_bytes()[..size].to_vec()),
                        _ => None,
                    };
                    if let Some(bytes) = bytes {
                        expected[d + k * size..][..size].copy_from_slice(&bytes);
                    }
                }
            }
        }
        prop_assert!(rig.bytes(rig.dst) == expected);
    }
}

#[test]
fn lines_on_the_same_bytes_leave_the_last_line_and_huge_launches_are_refused() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let (src, before) = (rig.bytes(rig.src), rig.bytes(rig.dst));
    // 1000 lines, destination pitch 0: every line overwrites the same 24 bytes; the last one stays.
    rig.run(&mut dma, &pitch_copy(24, 1000, 100, 0));
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE,
        )],
    );
    let mut expected = before;
    expected[0x200..0x200 + 24].copy_from_slice(&src[0x100 + 999 * 100..][..24]);
    assert!(rig.bytes(rig.dst) == expected);
    // A fill of 2^24 lines on one spot finishes at once.
    let comps = 4 | (3 << 16);
    let mut calls = pitch_copy(2, 1 << 24, 0, 0);
    calls.extend([
        (m::SET_REMAP_CONST_A, 0x0BAD_F00D),
        (m::SET_REMAP_COMPONENTS, comps),
    ]);
    rig.run(&mut dma, &calls);
    rig.run(
        &mut dma,
        &[(
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE | REMAP,
        )],
    );
    assert_eq!(
        rig.memory.read_u64(DST + 0x200).unwrap(),
        0x0BAD_F00D_0BAD_F00D
    );
    // 2^32 − 1 one-byte lines 64 bytes apart: refused by name, nothing written.
    let before = rig.bytes(rig.dst);
    rig.run(&mut dma, &pitch_copy(1, u32::MAX, 64, 64));
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | MULTI_LINE,
        )
        .unwrap_err();
    assert!(err.to_string().contains("limit of one launch"), "{err}");
    assert!(rig.bytes(rig.dst) == before);
}

/// Found by the copy_engines fuzz target: a one-line remapped copy of 2^30 + 16 one-byte source
/// components into four-component destination elements (4 GiB + 64 bytes per line) must be refused
/// before anything the size of a line is allocated.
#[test]
fn a_line_larger_than_the_staging_limit_is_refused_before_allocating() {
    let mut rig = Rig::new();
    let mut dma = DmaCopy::new(SectorLayout::Turing2D);
    let before = rig.bytes(rig.dst);
    let comps = 4 | (6 << 4) | (0 << 8) | (3 << 24); // X = CONST_A, Y = NO_WRITE, Z = SRC_X; 1 src, 4 dst
    rig.run(
        &mut dma,
        &[
            (m::LINE_LENGTH_IN, 0x4000_0010),
            (m::SET_REMAP_COMPONENTS, comps),
        ],
    );
    let err = rig
        .call(
            &mut dma,
            m::LAUNCH_DMA,
            NON_PIPELINED | SRC_PITCH | DST_PITCH | REMAP,
        )
        .unwrap_err();
    assert!(err.to_string().contains("limit of one launch"), "{err}");
    assert!(rig.bytes(rig.dst) == before);
}
