//! GPFIFO (GP) entry decoding — dev_pbdma.ref, clc56f.h.
//!
//! | Word   | Bits  | Field |
//! |--------|-------|-------|
//! | ENTRY0 | 0     | FETCH (0 unconditional, 1 conditional) |
//! | ENTRY0 | 1     | reserved |
//! | ENTRY0 | 31:2  | GET: pushbuffer address bits 31:2 (OPERAND 31:0 for control entries) |
//! | ENTRY1 | 7:0   | GET_HI: address bits 39:32 (OPCODE for control entries) |
//! | ENTRY1 | 8     | reserved on C56F (PRIV on B06F) |
//! | ENTRY1 | 9     | LEVEL (0 main, 1 subroutine) |
//! | ENTRY1 | 30:10 | LENGTH in words; 0 makes a control entry |
//! | ENTRY1 | 31    | SYNC (0 proceed, 1 wait) |
//!
//! Entries are 8 bytes, ENTRY0 first, little-endian.

use std::fmt;

/// Size of one GP entry in bytes.
pub const GP_ENTRY_BYTES: usize = 8;

/// LEVEL: whether progress is reported in TOP_LEVEL_GET.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    Main,
    Subroutine,
}

/// SYNC: whether Host waits for the previous segment before fetching this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sync {
    Proceed,
    Wait,
}

/// A GP entry pointing at a pushbuffer segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// 40-bit byte address of the segment (word aligned).
    pub address: u64,
    /// Length in 32-bit words (1 ..= 0x1F_FFFF).
    pub length_words: u32,
    /// Main or subroutine.
    pub level: Level,
    /// Sync flag.
    pub sync: Sync,
}

impl Segment {
    /// Length in bytes.
    pub fn length_bytes(&self) -> u64 {
        self.length_words as u64 * 4
    }
}

/// A decoded GP entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpEntry {
    /// A pushbuffer segment to fetch.
    Segment(Segment),
    /// A control NOP (LENGTH 0, OPCODE 0) with its operand.
    Nop { operand: u32 },
}

/// Why a GP entry was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GpEntryErrorKind {
    /// Control entry OPCODE 1 (ILLEGAL).
    Illegal,
    /// Control entry OPCODE 2 (GP_CRC): CRC checking is not supported.
    GpCrc,
    /// Control entry OPCODE 3 (PB_CRC): CRC checking is not supported.
    PbCrc,
    /// An undefined control OPCODE.
    UnknownControl { opcode: u8 },
    /// FETCH_CONDITIONAL depends on SUBDEVICE_STATUS, which is not modelled.
    ConditionalFetch,
    /// A reserved bit is set (ENTRY0 bit 1 or ENTRY1 bit 8, the B06F PRIV bit).
    ReservedBits { mask: u64 },
}

impl fmt::Display for GpEntryErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpEntryErrorKind::Illegal => f.write_str("control entry ILLEGAL"),
            GpEntryErrorKind::GpCrc => f.write_str("control entry GP_CRC is not supported"),
            GpEntryErrorKind::PbCrc => f.write_str("control entry PB_CRC is not supported"),
            GpEntryErrorKind::UnknownControl { opcode } => {
                write!(f, "unknown control opcode {opcode:#x}")
            }
            GpEntryErrorKind::ConditionalFetch => {
                f.write_str("conditional fetch (FETCH=1) is not supported")
            }
            GpEntryErrorKind::ReservedBits { mask } => write!(f, "reserved bits {mask:#x} are set"),
        }
    }
}

/// A refused GP entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("GP entry {raw:#018x}: {kind}")]
pub struct GpEntryError {
    /// The entry as a little-endian u64 (ENTRY0 in the low half).
    pub raw: u64,
    /// What is wrong.
    pub kind: GpEntryErrorKind,
}

const RESERVED: u64 = 1 << 1 | 1 << (32 + 8);

impl GpEntry {
    /// Decodes an entry given as a u64 with ENTRY0 in bits 31:0 and ENTRY1 in bits 63:32.
    pub fn decode(raw: u64) -> Result<GpEntry, GpEntryError> {
        let err = |kind| Err(GpEntryError { raw, kind });
        let entry0 = raw as u32;
        let entry1 = (raw >> 32) as u32;
        let length_words = (entry1 >> 10) & 0x1F_FFFF;
        if length_words == 0 {
            return match entry1 & 0xFF {
                0 => Ok(GpEntry::Nop { operand: entry0 }),
                1 => err(GpEntryErrorKind::Illegal),
                2 => err(GpEntryErrorKind::GpCrc),
                3 => err(GpEntryErrorKind::PbCrc),
                op => err(GpEntryErrorKind::UnknownControl { opcode: op as u8 }),
            };
        }
        if raw & RESERVED != 0 {
            return err(GpEntryErrorKind::ReservedBits {
                mask: raw & RESERVED,
            });
        }
        if entry0 & 1 != 0 {
            return err(GpEntryErrorKind::ConditionalFetch);
        }
        let address = ((entry1 & 0xFF) as u64) << 32 | (entry0 & !3) as u64;
        Ok(GpEntry::Segment(Segment {
            address,
            length_words,
            level: if entry1 >> 9 & 1 == 0 {
                Level::Main
            } else {
                Level::Subroutine
            },
            sync: if entry1 >> 31 == 0 {
                Sync::Proceed
            } else {
                Sync::Wait
            },
        }))
    }

    /// Decodes an entry from its 8 little-endian bytes.
    pub fn from_le_bytes(bytes: [u8; 8]) -> Result<GpEntry, GpEntryError> {
        Self::decode(u64::from_le_bytes(bytes))
    }

    /// Encodes a valid entry (addresses are truncated to 40 bits and word alignment, lengths to 21
    /// bits); for building streams.
    pub fn encode(self) -> u64 {
        match self {
            GpEntry::Nop { operand } => operand as u64,
            GpEntry::Segment(s) => {
                let entry0 = (s.address as u32) & !3;
                let entry1 = ((s.address >> 32) & 0xFF) as u32
                    | ((s.level == Level::Subroutine) as u32) << 9
                    | (s.length_words & 0x1F_FFFF) << 10
                    | ((s.sync == Sync::Wait) as u32) << 31;
                (entry1 as u64) << 32 | entry0 as u64
            }
        }
    }
}
