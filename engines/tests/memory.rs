//! The GPU memory mapper: ranges, permissions, aliasing, spanning accesses, and the promise that no
//! failing access writes anything.

use proptest::prelude::*;
use sassport_engines::memory::{Access, GpuMemory, MemoryError, VA_LIMIT};

fn space() -> (GpuMemory, sassport_engines::memory::StorageId) {
    let mut m = GpuMemory::new();
    let s = m.add_storage((0..=255u8).cycle().take(0x3000).collect());
    (m, s)
}

#[test]
fn va_space_is_49_bits() {
    assert_eq!(VA_LIMIT, 1 << 49);
    let (mut m, s) = space();
    m.map(VA_LIMIT - 0x1000, 0x1000, s, 0, Access::READ_WRITE)
        .unwrap();
    m.write_u32(VA_LIMIT - 4, 0xAABBCCDD).unwrap();
    assert_eq!(m.read_u32(VA_LIMIT - 4).unwrap(), 0xAABBCCDD);
    assert_eq!(
        m.write_u32(VA_LIMIT - 2, 0),
        Err(MemoryError::OutOfRange {
            va: VA_LIMIT - 2,
            len: 4
        })
    );
    assert!(matches!(
        m.map(VA_LIMIT, 1, s, 0, Access::READ),
        Err(MemoryError::OutOfRange { .. })
    ));
    assert!(matches!(
        m.read_u32(u64::MAX - 1),
        Err(MemoryError::OutOfRange { .. })
    ));
}

#[test]
fn mappings_may_not_overlap_or_leave_their_storage() {
    let (mut m, s) = space();
    m.map(0x10000, 0x1000, s, 0, Access::READ).unwrap();
    for (va, len) in [
        (0x10000, 1),
        (0xF001, 0x1000),
        (0x10FFF, 2),
        (0xF000, 0x3000),
    ] {
        assert!(
            matches!(
                m.map(va, len, s, 0, Access::READ),
                Err(MemoryError::Overlap {
                    existing: 0x10000,
                    ..
                })
            ),
            "{va:#x}"
        );
    }
    m.map(0xF000, 0x1000, s, 0, Access::READ).unwrap();
    m.map(0x11000, 0x1000, s, 0, Access::READ).unwrap();
    assert!(matches!(
        m.map(0x20000, 0x1001, s, 0x2000, Access::READ),
        Err(MemoryError::StorageRange { .. })
    ));
    assert!(matches!(
        m.map(0x20000, 0, s, 0, Access::READ),
        Err(MemoryError::EmptyMapping { .. })
    ));
}

#[test]
fn accesses_span_adjacent_mappings_and_stop_at_holes() {
    let (mut m, s) = space();
    // VA 0x1000..0x2000 -> storage 0x2000.., VA 0x2000..0x3000 -> storage 0x0000..
    m.map(0x1000, 0x1000, s, 0x2000, Access::READ_WRITE)
        .unwrap();
    m.map(0x2000, 0x1000, s, 0x0000, Access::READ_WRITE)
        .unwrap();
    m.write(0x1FFE, &[1, 2, 3, 4]).unwrap();
    let st = m.storage(s).unwrap();
    assert_eq!(&st[0x2FFE..0x3000], &[1, 2]);
    assert_eq!(&st[0..2], &[3, 4]);
    assert_eq!(m.read_vec(0x1FFE, 4).unwrap(), vec![1, 2, 3, 4]);
    assert_eq!(
        m.read_vec(0x2FFF, 2),
        Err(MemoryError::Unmapped { va: 0x3000 })
    );
    assert_eq!(
        m.read_vec(0xFFF, 2),
        Err(MemoryError::Unmapped { va: 0xFFF })
    );
    assert_eq!(m.pieces(0x1FFE, 4, Access::READ).unwrap().len(), 2);
    assert_eq!(m.contiguous(0x1FFE, 4, Access::READ).unwrap(), None);
    assert!(m.contiguous(0x1000, 4, Access::READ).unwrap().is_some());
}

#[test]
fn aliases_see_each_others_writes() {
    let (mut m, s) = space();
    m.map(0x1_0000_0000, 0x100, s, 0x80, Access::READ_WRITE)
        .unwrap();
    m.map(0x2_0000_0000, 0x100, s, 0x80, Access::READ).unwrap();
    m.write_u64(0x1_0000_0010, 0x0102_0304_0506_0708).unwrap();
    assert_eq!(m.read_u64(0x2_0000_0010).unwrap(), 0x0102_0304_0506_0708);
}

#[test]
fn permissions_are_checked_per_byte_and_named() {
    let (mut m, s) = space();
    m.map(0x1000, 0x1000, s, 0, Access::READ_WRITE).unwrap();
    m.map(0x2000, 0x1000, s, 0x1000, Access::READ).unwrap();
    m.map(0x3000, 0x1000, s, 0x2000, Access::WRITE).unwrap();
    let before = m.storage(s).unwrap().to_vec();
    assert_eq!(
        m.write(0x1FFC, &[9; 8]),
        Err(MemoryError::Permission {
            va: 0x2000,
            needed: Access::WRITE,
            granted: Access::READ
        })
    );
    assert_eq!(m.storage(s).unwrap(), &before[..], "nothing written");
    assert!(matches!(
        m.read_u32(0x2FFE),
        Err(MemoryError::Permission { va: 0x3000, .. })
    ));
    m.protect(0x2000, 0x1000, Access::READ_WRITE).unwrap();
    m.write(0x1FFC, &[9; 8]).unwrap();
    assert!(matches!(
        m.protect(0x2800, 0x100, Access::READ),
        Err(MemoryError::Straddles { .. })
    ));
}

#[test]
fn unmap_splits_straddling_mappings() {
    let (mut m, s) = space();
    m.map(0x1000, 0x2000, s, 0x100, Access::READ_WRITE).unwrap();
    assert_eq!(m.unmap(0x1800, 0x800).unwrap(), 0x800);
    assert_eq!(
        m.read_vec(0x1800, 1),
        Err(MemoryError::Unmapped { va: 0x1800 })
    );
    assert_eq!(
        m.read_vec(0x17FF, 1).unwrap(),
        vec![m.storage(s).unwrap()[0x100 + 0x7FF]]
    );
    assert_eq!(
        m.read_vec(0x2000, 1).unwrap(),
        vec![m.storage(s).unwrap()[0x100 + 0x1000]]
    );
    assert_eq!(m.mappings().count(), 2);
}

#[test]
fn many_mappings() {
    let mut m = GpuMemory::new();
    let s = m.add_storage(vec![0; 4096 * 64]);
    // 20 000 one-page mappings, every other page, cycling through the storage.
    for i in 0..20_000u64 {
        m.map(
            0x10_0000_0000 + i * 0x2000,
            0x1000,
            s,
            (i as usize % 64) * 4096,
            Access::READ_WRITE,
        )
        .unwrap();
    }
    for i in (0..20_000u64).step_by(997) {
        let va = 0x10_0000_0000 + i * 0x2000 + 8;
        m.write_u32(va, i as u32).unwrap();
        assert_eq!(m.read_u32(va).unwrap(), i as u32);
        assert_eq!(
            m.read_u32(va + 0x1000),
            Err(MemoryError::Unmapped { va: va + 0x1000 })
        );
    }
}

#[test]
fn write_batch_is_all_or_nothing() {
    let (mut m, s) = space();
    m.map(0x1000, 0x1000, s, 0, Access::READ_WRITE).unwrap();
    let before = m.storage(s).unwrap().to_vec();
    let err = m
        .write_batch(&[(0x1000, &[1, 2, 3][..]), (0x1FFF, &[4, 5][..])])
        .unwrap_err();
    assert_eq!(err, MemoryError::Unmapped { va: 0x2000 });
    assert_eq!(m.storage(s).unwrap(), &before[..]);
    m.write_batch(&[(0x1000, &[1, 2, 3][..]), (0x1001, &[7][..])])
        .unwrap();
    assert_eq!(m.read_vec(0x1000, 3).unwrap(), vec![1, 7, 3]);
}

#[test]
fn copy_reads_the_whole_source_first() {
    let (mut m, s) = space();
    m.map(0, 0x100, s, 0, Access::READ_WRITE).unwrap();
    m.write(0, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    m.copy(2, 0, 6).unwrap();
    assert_eq!(m.read_vec(0, 8).unwrap(), vec![1, 2, 1, 2, 3, 4, 5, 6]);
}

/// A mapping layout for the property test: pages of 64 bytes, each unmapped, read-only, write-only or
/// read/write, over two storages.
fn layout() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(0u8..5, 1..24)
}

proptest! {
    #[test]
    fn no_access_ever_writes_partially(
        pages in layout(),
        writes in proptest::collection::vec((0u64..1800, proptest::collection::vec(any::<u8>(), 0..300)), 1..12),
    ) {
        let mut m = GpuMemory::new();
        let a = m.add_storage(vec![0xAA; 64 * 24]);
        let b = m.add_storage(vec![0xBB; 64 * 24]);
        // Expected readable/writable state per VA byte, from the layout alone.
        let mut map = vec![None; 64 * 24];
        for (i, &p) in pages.iter().enumerate() {
            let va = i as u64 * 64;
            let (storage, access) = match p {
                0 => continue,
                1 => (a, Access::READ),
                2 => (b, Access::WRITE),
                3 => (a, Access::READ_WRITE),
                _ => (b, Access::READ_WRITE),
            };
            // Pages alias: page i maps storage offset (i % 8) * 64.
            let off = (i % 8) * 64;
            m.map(va, 64, storage, off, access).unwrap();
            for k in 0..64 { map[i * 64 + k] = Some((storage, off + k, access)); }
        }
        for (va, bytes) in writes {
            let before: Vec<Vec<u8>> = vec![m.storage(a).unwrap().to_vec(), m.storage(b).unwrap().to_vec()];
            let ok = (0..bytes.len()).all(|k| {
                map.get(va as usize + k).copied().flatten().is_some_and(|(_, _, acc)| acc.allows(Access::WRITE))
            });
            let r = m.write(va, &bytes);
            prop_assert_eq!(r.is_ok(), ok);
            prop_assert_eq!(m.check_write(va, bytes.len() as u64).is_ok(), ok);
            let after: Vec<Vec<u8>> = vec![m.storage(a).unwrap().to_vec(), m.storage(b).unwrap().to_vec()];
            if ok {
                let mut expect = before.clone();
                for (k, &byte) in bytes.iter().enumerate() {
                    let (s, off, _) = map[va as usize + k].unwrap();
                    expect[s.index()][off] = byte;
                }
                prop_assert_eq!(after, expect);
            } else {
                prop_assert_eq!(after, before);
            }
            // Reads: all-or-nothing too, and agree with the storages.
            let readable = (0..bytes.len()).all(|k| {
                map.get(va as usize + k).copied().flatten().is_some_and(|(_, _, acc)| acc.allows(Access::READ))
            });
            let mut out = vec![0x5A; bytes.len()];
            let r = m.read(va, &mut out);
            prop_assert_eq!(r.is_ok(), readable);
            if readable {
                for (k, &byte) in out.iter().enumerate() {
                    let (s, off, _) = map[va as usize + k].unwrap();
                    prop_assert_eq!(byte, m.storage(s).unwrap()[off]);
                }
            } else {
                prop_assert!(out.iter().all(|&x| x == 0x5A));
            }
        }
    }
}
