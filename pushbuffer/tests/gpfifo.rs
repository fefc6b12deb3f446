//! GP entries against the field table of dev_pbdma.ref / clc56f.h (note §1.4).

use sassport_pushbuffer::{GpEntry, GpEntryErrorKind, Level, Segment, Sync};

fn entry(entry0: u32, entry1: u32) -> u64 {
    (entry1 as u64) << 32 | entry0 as u64
}

#[test]
fn segment_fields() {
    // GET 31:2, GET_HI 7:0 of ENTRY1, LEVEL bit 9, LENGTH 30:10, SYNC bit 31.
    let raw = entry(0x1234_5678, 0xAB | 1 << 9 | 0x1F_FFFF << 10 | 1 << 31);
    assert_eq!(
        GpEntry::decode(raw).unwrap(),
        GpEntry::Segment(Segment {
            address: 0xAB_1234_5678,
            length_words: 0x1F_FFFF,
            level: Level::Subroutine,
            sync: Sync::Wait,
        })
    );
    let raw = entry(0x100, 3 << 10);
    assert_eq!(
        GpEntry::decode(raw).unwrap(),
        GpEntry::Segment(Segment {
            address: 0x100,
            length_words: 3,
            level: Level::Main,
            sync: Sync::Proceed
        })
    );
    assert_eq!(
        GpEntry::from_le_bytes(raw.to_le_bytes()),
        GpEntry::decode(raw)
    );
}

#[test]
fn control_entries() {
    assert_eq!(
        GpEntry::decode(entry(0xDEAD_BEEF, 0)).unwrap(),
        GpEntry::Nop {
            operand: 0xDEAD_BEEF
        }
    );
    let kind = |e1| GpEntry::decode(entry(0, e1)).unwrap_err().kind;
    assert_eq!(kind(1), GpEntryErrorKind::Illegal);
    assert_eq!(kind(2), GpEntryErrorKind::GpCrc);
    assert_eq!(kind(3), GpEntryErrorKind::PbCrc);
    assert_eq!(
        kind(0x42),
        GpEntryErrorKind::UnknownControl { opcode: 0x42 }
    );
}

#[test]
fn conditional_fetch_and_reserved_bits_are_refused() {
    assert_eq!(
        GpEntry::decode(entry(0x101, 1 << 10)).unwrap_err().kind,
        GpEntryErrorKind::ConditionalFetch
    );
    assert!(matches!(
        GpEntry::decode(entry(0x102, 1 << 10)).unwrap_err().kind,
        GpEntryErrorKind::ReservedBits { .. }
    ));
    assert!(matches!(
        GpEntry::decode(entry(0x100, 1 << 10 | 1 << 8))
            .unwrap_err()
            .kind,
        GpEntryErrorKind::ReservedBits { .. }
    ));
    let e = GpEntry::decode(entry(0x101, 1 << 10)).unwrap_err();
    assert!(e.to_string().contains("0x0000040000000101"), "{e}");
}

#[test]
fn encode_round_trips() {
    for raw in [
        entry(0x1234_5678, 0xAB | 1 << 9 | 77 << 10 | 1 << 31),
        entry(0, 1 << 10),
        entry(0x55, 0),
    ] {
        let e = GpEntry::decode(raw).unwrap();
        assert_eq!(e.encode(), raw);
    }
}
