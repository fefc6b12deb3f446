//! Mip chains against sizes worked out by hand from the block-height rule (level l's block height halves
//! while half a block still covers the level's rows), and untiling against a byte-address function written
//! here from the GOB bit order (Turing 2D: offset bits b8..b0 = x5 y2 x4 y1 y0 x3 x2 x1 x0).

use sassport_engines::layout::SectorLayout;
use sassport_engines::memory::{Access, GpuMemory};
use sassport_textures::*;

fn header(width: u32, height: u32, depth: u32, ty: u32, levels: u32, block_h: u32) -> TextureHeader {
    let mut e = Entry::default();
    e.0[0] = 0x08 | 2 << 7 | 2 << 10 | 2 << 13 | 2 << 16 | 2 << 19 | 3 << 22 | 4 << 25 | 5 << 28;
    e.0[2] = 3 << 21;
    e.0[3] = block_h << 3 | (levels - 1) << 28;
    e.0[4] = (width - 1) | ty << 23;
    e.0[5] = (height - 1) | (depth - 1) << 16;
    e.0[7] = (levels - 1) << 4;
    TextureHeader::decode(&e).expect("header")
}

#[test]
fn full_hd_rgba8_chain_sizes() {
    let h = header(1920, 1080, 1, 1, 11, 4);
    let chain = Chain::new(&h, SectorLayout::Turing2D).expect("chain");
    let sizes: Vec<u64> = chain.levels.iter().map(|l| l.guest_bytes).collect();
    // GOBs across × block bytes × rows of blocks, by hand: 120·8192·9, 60·8192·5, 30·8192·3, 15·8192·2,
    // 8·8192·1, then blocks of 8, 2, 1, 1, 1, 1 GOBs.
    assert_eq!(
        sizes,
        [8_847_360, 2_457_600, 737_280, 245_760, 65_536, 16_384, 2048, 512, 512, 512, 512]
    );
    let offsets: Vec<u64> = chain.levels.iter().map(|l| l.guest_offset).collect();
    assert_eq!(offsets[1], 8_847_360);
    assert_eq!(offsets[10], sizes[..10].iter().sum::<u64>());
    assert_eq!(
        chain.packed_bytes(),
        (0..11)
            .map(|l| ((1920u64 >> l).max(1) * (1080u64 >> l).max(1)) * 4)
            .sum()
    );
}

/// Byte offset of byte `x` of row `y` in a block-linear level `gobs_per_row` GOBs wide with blocks of
/// 2^h GOBs (2-D, Turing sector order).
fn reference_offset(x: u32, y: u32, gobs_per_row: u64, h: u32) -> u64 {
    let (gx, gy) = ((x / 64) as u64, (y / 8) as u64);
    let (bx, by) = (x % 64, y % 8);
    let in_gob = (bx & 15)
        | (by & 1) << 4
        | (by >> 1 & 1) << 5
        | (bx >> 4 & 1) << 6
        | (by >> 2 & 1) << 7
        | (bx >> 5 & 1) << 8;
    let block_bytes = 512u64 << h;
    (gy >> h) * gobs_per_row * block_bytes + gx * block_bytes + (gy & ((1 << h) - 1)) * 512 + in_gob as u64
}

#[test]
fn layered_chain_untiles_to_reference_texels() {
    // 40 × 20 RGBA8, 3 levels, 2 layers, 2-GOB blocks. By hand: level 0 is 3 GOBs × 2 rows of 1024-byte
    // blocks = 6144 bytes; level 1 (20 × 10) 2 GOBs × 1 row = 2048; level 2 (10 × 5) clamps to 1-GOB blocks:
    // 512. A layer is 8704 bytes, rounded up to a 1024-byte level-0 block: 9216.
    let h = header(40, 20, 2, 5, 3, 1);
    let chain = Chain::new(&h, SectorLayout::Turing2D).expect("chain");
    let offsets: Vec<(u64, u64)> = chain
        .levels
        .iter()
        .map(|l| (l.guest_offset, l.guest_bytes))
        .collect();
    assert_eq!(offsets, [(0, 6144), (6144, 2048), (8192, 512)]);
    assert_eq!(chain.layer_stride, 9216);
    let level_geometry = [(0u64, 3u64, 1u32), (6144, 2, 1), (8192, 1, 0)];
    let guest: Vec<u8> = (0..chain.guest_bytes())
        .map(|i| (i * 131 + i / 251) as u8)
        .collect();
    let mut packed = vec![0u8; chain.packed_bytes() as usize];
    untile_chain(&chain, &guest, &mut packed, 0).expect("untile");
    let mut at = 0usize;
    for (l, &(offset, gobs, bh)) in level_geometry.iter().enumerate() {
        let (w, hgt) = ((40u32 >> l).max(1), (20u32 >> l).max(1));
        for layer in 0..2u64 {
            for y in 0..hgt {
                for x in 0..w * 4 {
                    let src = layer * 9216 + offset + reference_offset(x, y, gobs, bh);
                    assert_eq!(
                        packed[at], guest[src as usize],
                        "level {l} layer {layer} byte ({x}, {y})"
                    );
                    at += 1;
                }
            }
        }
    }
    assert_eq!(at, packed.len());
}

#[test]
fn short_buffers_are_refused() {
    let h = header(40, 20, 1, 1, 1, 1);
    let chain = Chain::new(&h, SectorLayout::Turing2D).expect("chain");
    let mut packed = vec![0u8; chain.packed_bytes() as usize];
    let guest = vec![0u8; chain.guest_bytes() as usize - 1];
    assert!(matches!(
        untile_chain(&chain, &guest, &mut packed, 0),
        Err(UntileError::GuestTooShort { .. })
    ));
    let guest = vec![0u8; chain.guest_bytes() as usize];
    assert!(matches!(
        untile_chain(&chain, &guest, &mut packed[1..], 0),
        Err(UntileError::PackedTooShort { .. })
    ));
}

#[test]
fn pool_entries_come_from_guest_memory() {
    let mut mem = GpuMemory::new();
    let mut bytes = vec![0u8; 4096];
    let mut e = Entry::default();
    e.0[0] = 0x1d | 2 << 7 | 2 << 19; // R8 UNORM, x from R
    e.0[2] = 3 << 21;
    e.0[4] = 63 | 1 << 23;
    e.0[5] = 31;
    bytes[3 * 32..4 * 32].copy_from_slice(&e.to_bytes());
    let id = mem.add_storage(bytes);
    mem.map(0x10_0000, 4096, id, 0, Access::READ).expect("map");
    let pool = Pool {
        address: 0x10_0000,
        entries: 8,
    };
    let handle = Handle::split(3 | 5 << 20, false);
    assert_eq!(handle, Handle { tic: 3, tsc: 5 });
    let tex = pool.texture(&mem, handle.tic).expect("TIC 3");
    assert_eq!((tex.format.layout, tex.width, tex.height), (Layout::R8, 64, 32));
    assert!(matches!(
        pool.texture(&mem, 8),
        Err(PoolError::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        pool.texture(&mem, 0),
        Err(PoolError::Tic { index: 0, .. })
    ));
    let far = Pool {
        address: 0x20_0000,
        entries: 1,
    };
    assert!(matches!(far.texture(&mem, 0), Err(PoolError::Memory { .. })));
}
