//! Block-linear layout against an independent scalar address formula written here from the documented
//! definition (shared/notes/command-engines.md §5; NIL's sector grids; the DRM modifier text), not by
//! calling the module.

#![allow(clippy::manual_div_ceil)]

use proptest::prelude::*;
use sassport_engines::layout::{
    for_each_run, tile, tiled_extent, untile, BlockLinearLayout, LayoutError, Region, SectorLayout,
};

/// Sector number of each (row pair, 16-byte column) cell, as drawn in Mesa NIL's GOBType docs
/// (TuringColor2D) and the DRM "16Bx2 … laid in Z-shape" description (Tegra).
const TEGRA_GRID: [[u32; 4]; 4] = [[0, 1, 8, 9], [2, 3, 10, 11], [4, 5, 12, 13], [6, 7, 14, 15]];
const TURING_GRID: [[u32; 4]; 4] = [[0, 2, 8, 10], [1, 3, 9, 11], [4, 6, 12, 14], [5, 7, 13, 15]];

/// Offset bit patterns b0..b8 from the note: ('x' | 'y', bit).
const TEGRA_BITS: [(char, u32); 9] = [
    ('x', 0),
    ('x', 1),
    ('x', 2),
    ('x', 3),
    ('y', 0),
    ('x', 4),
    ('y', 1),
    ('y', 2),
    ('x', 5),
];
const TURING_BITS: [(char, u32); 9] = [
    ('x', 0),
    ('x', 1),
    ('x', 2),
    ('x', 3),
    ('y', 0),
    ('y', 1),
    ('x', 4),
    ('y', 2),
    ('x', 5),
];

fn gob_offset_from_grid(sectors: SectorLayout, x: u64, y: u64) -> u64 {
    let grid = match sectors {
        SectorLayout::Tegra16Bx2 => TEGRA_GRID,
        SectorLayout::Turing2D => TURING_GRID,
    };
    let sector = grid[(y / 2) as usize][(x / 16) as usize] as u64;
    sector * 32 + (y % 2) * 16 + x % 16
}

fn gob_offset_from_bits(sectors: SectorLayout, x: u64, y: u64) -> u64 {
    let bits = match sectors {
        SectorLayout::Tegra16Bx2 => TEGRA_BITS,
        SectorLayout::Turing2D => TURING_BITS,
    };
    let mut out = 0;
    for (b, (axis, bit)) in bits.iter().enumerate() {
        let v = if *axis == 'x' { x } else { y };
        out |= ((v >> bit) & 1) << b;
    }
    out
}

fn div_ceil(a: u64, b: u64) -> u64 {
    (a + b - 1) / b
}

/// Reference address of byte (x, y, z): blocks numbered row-major per slice of blocks, GOBs inside a
/// block numbered down a column then through depth, 512 bytes per GOB.
#[allow(clippy::too_many_arguments)]
fn reference_offset(
    w: u64,
    h: u64,
    bh: u32,
    bd: u32,
    sectors: SectorLayout,
    x: u64,
    y: u64,
    z: u64,
) -> u64 {
    let gob_h = 1u64 << bh;
    let gob_d = 1u64 << bd;
    let gobs_wide = div_ceil(w, 64);
    let blocks_high = div_ceil(div_ceil(h, 8), gob_h);
    let (gob_x, gob_y) = (x / 64, y / 8);
    let (block_x, block_y, block_z) = (gob_x, gob_y / gob_h, z / gob_d);
    let block_index = (block_z * blocks_high + block_y) * gobs_wide + block_x;
    let gob_in_block = (z % gob_d) * gob_h + gob_y % gob_h;
    (block_index * gob_h * gob_d + gob_in_block) * 512
        + gob_offset_from_grid(sectors, x % 64, y % 8)
}

fn reference_size(w: u64, h: u64, d: u64, bh: u32, bd: u32) -> u64 {
    div_ceil(w, 64)
        * div_ceil(div_ceil(h, 8), 1 << bh)
        * div_ceil(d, 1 << bd)
        * (512u64 << (bh + bd))
}

fn sector_layout() -> impl Strategy<Value = SectorLayout> {
    prop_oneof![Just(SectorLayout::Tegra16Bx2), Just(SectorLayout::Turing2D)]
}

#[test]
fn grids_and_bit_patterns_agree() {
    for sectors in [SectorLayout::Tegra16Bx2, SectorLayout::Turing2D] {
        let mut seen = [false; 512];
        for y in 0..8 {
            for x in 0..64 {
                let a = gob_offset_from_grid(sectors, x, y);
                assert_eq!(
                    a,
                    gob_offset_from_bits(sectors, x, y),
                    "{sectors:?} ({x},{y})"
                );
                assert_eq!(
                    sectors.offset(x as u32, y as u32) as u64,
                    a,
                    "{sectors:?} ({x},{y})"
                );
                assert!(!seen[a as usize]);
                seen[a as usize] = true;
            }
        }
    }
}

#[test]
fn the_two_sector_orders_differ_only_inside_columns_of_32_bytes() {
    // First row pair identical; row 2 of column 0 differs (Tegra sector 2 vs Turing sector 1).
    assert_eq!(
        SectorLayout::Tegra16Bx2.offset(0, 1),
        SectorLayout::Turing2D.offset(0, 1)
    );
    assert_eq!(SectorLayout::Tegra16Bx2.offset(16, 0), 32);
    assert_eq!(SectorLayout::Turing2D.offset(16, 0), 64);
    assert_eq!(SectorLayout::Tegra16Bx2.offset(0, 2), 64);
    assert_eq!(SectorLayout::Turing2D.offset(0, 2), 32);
}

#[test]
fn block_sizes_out_of_range_are_refused() {
    assert_eq!(
        BlockLinearLayout::new(64, 8, 1, 6, 0, SectorLayout::Turing2D),
        Err(LayoutError::BlockHeight(6))
    );
    assert_eq!(
        BlockLinearLayout::new(64, 8, 1, 0, 6, SectorLayout::Turing2D),
        Err(LayoutError::BlockDepth(6))
    );
    assert!(matches!(
        BlockLinearLayout::new(u32::MAX, u32::MAX, u32::MAX, 0, 0, SectorLayout::Turing2D),
        Err(LayoutError::TooLarge { .. })
    ));
}

#[test]
fn element_origins_convert_to_bytes_and_overflow_is_refused() {
    let r = Region::from_elements(3, 4, 5, 10, 2, 16).unwrap();
    assert_eq!(
        r,
        Region {
            x: 48,
            y: 4,
            z: 5,
            width: 160,
            height: 2
        }
    );
    assert!(matches!(
        Region::from_elements(1 << 30, 0, 0, 1, 1, 16),
        Err(LayoutError::ElementOverflow { .. })
    ));
}

#[test]
fn clamp_keeps_blocks_under_twice_the_extent() {
    assert_eq!(BlockLinearLayout::clamped_block_log2(720, 1, 5, 5), (5, 0));
    assert_eq!(BlockLinearLayout::clamped_block_log2(8, 1, 5, 0), (0, 0));
    assert_eq!(BlockLinearLayout::clamped_block_log2(9, 3, 5, 5), (1, 2));
    assert_eq!(BlockLinearLayout::clamped_block_log2(256, 32, 4, 5), (4, 5));
}

#[test]
fn whole_blocks_form_a_permutation() {
    for sectors in [SectorLayout::Tegra16Bx2, SectorLayout::Turing2D] {
        let (w, h, d, bh, bd) = (128u32, 32u32, 4u32, 2u32, 1u32);
        let layout = BlockLinearLayout::new(w, h, d, bh, bd, sectors).unwrap();
        assert_eq!(layout.size_bytes(), (w * h * d) as u64);
        let mut seen = vec![false; layout.size_bytes() as usize];
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    let o = layout.offset(x, y, z) as usize;
                    assert!(!seen[o], "offset {o} twice");
                    seen[o] = true;
                }
            }
        }
    }
}

/// A layout and a region inside it.
fn layout_and_region() -> impl Strategy<Value = (u32, u32, u32, u32, u32, SectorLayout, Region)> {
    (
        1u32..300,
        1u32..80,
        1u32..12,
        0u32..=5,
        0u32..=5,
        sector_layout(),
    )
        .prop_flat_map(|(w, h, d, bh, bd, s)| {
            (0..w, 0..h, 0..d).prop_flat_map(move |(x, y, z)| {
                (1..=w - x, 1..=h - y).prop_map(move |(rw, rh)| {
                    (
                        w,
                        h,
                        d,
                        bh,
                        bd,
                        s,
                        Region {
                            x,
                            y,
                            z,
                            width: rw,
                            height: rh,
                        },
                    )
                })
            })
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn offsets_match_the_reference(
        w in 1u32..5000, h in 1u32..3000, d in 1u32..70, bh in 0u32..=5, bd in 0u32..=5,
        sectors in sector_layout(), fx in 0.0f64..1.0, fy in 0.0f64..1.0, fz in 0.0f64..1.0,
    ) {
        let layout = BlockLinearLayout::new(w, h, d, bh, bd, sectors).unwrap();
        prop_assert_eq!(layout.size_bytes(), reference_size(w as u64, h as u64, d as u64, bh, bd));
        let x = ((w as f64 * fx) as u32).min(w - 1);
        let y = ((h as f64 * fy) as u32).min(h - 1);
        let z = ((d as f64 * fz) as u32).min(d - 1);
        let expected = reference_offset(w as u64, h as u64, bh, bd, sectors, x as u64, y as u64, z as u64);
        prop_assert_eq!(layout.offset(x, y, z), expected);
        prop_assert!(expected < layout.size_bytes());
    }

    #[test]
    fn untile_reads_exactly_the_reference_bytes(
        (w, h, d, bh, bd, sectors, region) in layout_and_region(), extra_pitch in 0usize..40,
    ) {
        let layout = BlockLinearLayout::new(w, h, d, bh, bd, sectors).unwrap();
        let tiled: Vec<u8> = (0..layout.size_bytes()).map(|i| (i ^ (i >> 8) ^ (i >> 16)) as u8).collect();
        let pitch = region.width as usize + extra_pitch;
        let len = (region.height as usize - 1) * pitch + region.width as usize + 7;
        let mut linear = vec![0xEEu8; len];
        untile(&layout, &tiled, &region, &mut linear, pitch).unwrap();
        for r in 0..region.height as usize {
            for c in 0..pitch {
                let i = r * pitch + c;
                if i >= len { break; }
                if c < region.width as usize {
                    let a = reference_offset(w as u64, h as u64, bh, bd, sectors,
                        (region.x as usize + c) as u64, (region.y as usize + r) as u64, region.z as u64);
                    prop_assert_eq!(linear[i], tiled[a as usize], "row {} col {}", r, c);
                } else {
                    prop_assert_eq!(linear[i], 0xEE, "padding at row {} col {} written", r, c);
                }
            }
        }
        for &b in &linear[(region.height as usize - 1) * pitch + region.width as usize..] {
            prop_assert_eq!(b, 0xEE);
        }
    }

    #[test]
    fn tile_writes_exactly_the_reference_bytes(
        (w, h, d, bh, bd, sectors, region) in layout_and_region(), extra_pitch in 0usize..40,
    ) {
        let layout = BlockLinearLayout::new(w, h, d, bh, bd, sectors).unwrap();
        let pitch = region.width as usize + extra_pitch;
        let len = (region.height as usize - 1) * pitch + region.width as usize;
        let linear: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
        let before: Vec<u8> = (0..layout.size_bytes()).map(|i| (i * 13 + 1) as u8).collect();
        let mut tiled = before.clone();
        tile(&layout, &linear, pitch, &region, &mut tiled).unwrap();
        let mut expected = before.clone();
        for r in 0..region.height as u64 {
            for c in 0..region.width as u64 {
                let a = reference_offset(w as u64, h as u64, bh, bd, sectors,
                    region.x as u64 + c, region.y as u64 + r, region.z as u64);
                expected[a as usize] = linear[(r as usize) * pitch + c as usize];
            }
        }
        prop_assert!(expected == tiled, "tiled bytes differ from the reference (untouched bytes included)");
    }

    #[test]
    fn runs_cover_the_region_once_in_order(
        (w, h, d, bh, bd, sectors, region) in layout_and_region(), pitch_extra in 0u64..9,
    ) {
        let layout = BlockLinearLayout::new(w, h, d, bh, bd, sectors).unwrap();
        let pitch = region.width as u64 + pitch_extra;
        let mut next_lin = Vec::new();
        let mut bad = None;
        for_each_run(&layout, &region, pitch, |t, l, n| {
            if n == 0 || n > 16 { bad = Some(n); }
            for k in 0..n as u64 {
                let r = (l + k) / pitch;
                let c = (l + k) % pitch;
                let a = reference_offset(w as u64, h as u64, bh, bd, sectors,
                    region.x as u64 + c, region.y as u64 + r, region.z as u64);
                if a != t + k { bad = Some(u32::MAX); }
            }
            next_lin.push((l, n));
        });
        prop_assert_eq!(bad, None);
        let total: u64 = next_lin.iter().map(|&(_, n)| n as u64).sum();
        prop_assert_eq!(total, region.bytes());
        for pair in next_lin.windows(2) {
            prop_assert!(pair[0].0 < pair[1].0);
        }
        prop_assert!(tiled_extent(&layout, &region) <= layout.size_bytes());
    }

    #[test]
    fn regions_outside_the_surface_and_short_buffers_are_refused(
        w in 1u32..300, h in 1u32..80, over in 1u32..70, sectors in sector_layout(),
    ) {
        let layout = BlockLinearLayout::new(w, h, 1, 1, 0, sectors).unwrap();
        let wide = Region { x: over, y: 0, z: 0, width: w, height: 1 };
        let mut out = vec![0u8; 1 << 16];
        prop_assert!(matches!(untile(&layout, &vec![0; layout.size_bytes() as usize], &wide, &mut out, 1 << 12),
            Err(LayoutError::OutOfBounds { .. })), "not refused");
        let deep = Region { x: 0, y: 0, z: 1, width: w, height: 1 };
        prop_assert!(matches!(layout.check_region(&deep), Err(LayoutError::OutOfBounds { .. })), "not refused");
        let tall = Region { x: 0, y: over, z: 0, width: 1, height: h };
        prop_assert!(matches!(layout.check_region(&tall), Err(LayoutError::OutOfBounds { .. })), "not refused");
        let whole = Region { x: 0, y: 0, z: 0, width: w, height: h };
        let short = vec![0u8; tiled_extent(&layout, &whole) as usize - 1];
        prop_assert!(matches!(untile(&layout, &short, &whole, &mut out, w as usize),
            Err(LayoutError::BufferTooShort { .. })), "not refused");
    }
}
