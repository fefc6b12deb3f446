//! Pushbuffer entry (method header) decoding — dev_ram.ref "FIFO DMA", clc56f.h.
//!
//! | Bits  | Field |
//! |-------|-------|
//! | 11:0  | METHOD_ADDRESS (dword index; byte offset = index × 4) |
//! | 12    | reserved (must be 0) |
//! | 15:13 | SUBCHANNEL |
//! | 28:16 | METHOD_COUNT, or IMMD_DATA for immediate headers |
//! | 31:29 | SEC_OP: 1 incrementing, 3 non-incrementing, 4 immediate, 5 increment-once, 7 END_PB_SEGMENT; 0 and 2 select by TERT_OP (17:16) the subdevice-mask entries and the obsolete legacy formats; 6 is reserved |
//!
//! The all-zero word is the universal NOP. A count of zero on a method header makes the header a no-op
//! and its other fields are ignored.

use std::fmt;

/// Largest method dword index (byte offset 0x3FFC).
pub const MAX_METHOD_INDEX: u32 = 0xFFF;

/// How consecutive data words of one header map to method addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// addr, addr+1, addr+2, … (SEC_OP 1).
    Incrementing,
    /// addr for every word (SEC_OP 3).
    NonIncrementing,
    /// addr, then addr+1 for every later word (SEC_OP 5).
    IncrementOnce,
}

impl Mode {
    /// Short name for traces.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Incrementing => "inc",
            Mode::NonIncrementing => "non-inc",
            Mode::IncrementOnce => "inc-once",
        }
    }
}

/// A decoded pushbuffer entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Header {
    /// The all-zero word.
    Nop,
    /// `count` method data words follow (count 0: a no-op).
    Methods {
        mode: Mode,
        subchannel: u8,
        method: u32,
        count: u32,
    },
    /// One method whose 13-bit data is in the header itself.
    Immediate {
        subchannel: u8,
        method: u32,
        data: u32,
    },
    /// END_PB_SEGMENT: the rest of the GP segment is ignored.
    EndSegment,
}

/// Entries that exist in the format but that this decoder refuses by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnsupportedEntry {
    /// SET_SUBDEVICE_MASK (SEC_OP 0, TERT_OP 1).
    SetSubdeviceMask { mask: u16 },
    /// STORE_SUBDEVICE_MASK (SEC_OP 0, TERT_OP 2).
    StoreSubdeviceMask { mask: u16 },
    /// USE_SUBDEVICE_MASK (SEC_OP 0, TERT_OP 3).
    UseSubdeviceMask,
    /// The obsolete Fermi-era incrementing format (SEC_OP 0, TERT_OP 0).
    LegacyIncrementing,
    /// The obsolete Fermi-era non-incrementing format (SEC_OP 2, TERT_OP 0).
    LegacyNonIncrementing,
    /// SEC_OP 2 with a non-zero TERT_OP.
    ReservedGroup2 { tert_op: u8 },
    /// SEC_OP 6 (RESERVED6).
    Reserved6,
}

impl fmt::Display for UnsupportedEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnsupportedEntry::SetSubdeviceMask { mask } => {
                write!(f, "SET_SUBDEVICE_MASK {mask:#05x}")
            }
            UnsupportedEntry::StoreSubdeviceMask { mask } => {
                write!(f, "STORE_SUBDEVICE_MASK {mask:#05x}")
            }
            UnsupportedEntry::UseSubdeviceMask => f.write_str("USE_SUBDEVICE_MASK"),
            UnsupportedEntry::LegacyIncrementing => {
                f.write_str("legacy (obsolete) incrementing method header")
            }
            UnsupportedEntry::LegacyNonIncrementing => {
                f.write_str("legacy (obsolete) non-incrementing method header")
            }
            UnsupportedEntry::ReservedGroup2 { tert_op } => {
                write!(f, "reserved SEC_OP 2 entry with TERT_OP {tert_op}")
            }
            UnsupportedEntry::Reserved6 => f.write_str("reserved SEC_OP 6 entry"),
        }
    }
}

/// Why a header word was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderError {
    /// Bit 12, reserved for future expansion of the subchannel or address fields, is set.
    ReservedAddressBit,
    /// The method address would pass 0xFFF (0x3FFC bytes) within the header's data words.
    AddressOverflow { method: u32, count: u32 },
    /// A valid but unsupported entry.
    Unsupported(UnsupportedEntry),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::ReservedAddressBit => f.write_str("reserved bit 12 of the method header is set"),
            HeaderError::AddressOverflow { method, count } => write!(
                f,
                "{count} data words starting at method {:#x} run past the last method address 0x3ffc",
                method << 2
            ),
            HeaderError::Unsupported(e) => write!(f, "unsupported pushbuffer entry: {e}"),
        }
    }
}

impl Header {
    /// Decodes one pushbuffer entry word.
    #[inline]
    pub fn decode(word: u32) -> Result<Header, HeaderError> {
        let sec_op = word >> 29;
        let method = word & 0xFFF;
        let subchannel = ((word >> 13) & 7) as u8;
        let count = (word >> 16) & 0x1FFF;
        let mode = match sec_op {
            1 => Mode::Incrementing,
            3 => Mode::NonIncrementing,
            5 => Mode::IncrementOnce,
            4 => {
                if word & 0x1000 != 0 {
                    return Err(HeaderError::ReservedAddressBit);
                }
                return Ok(Header::Immediate {
                    subchannel,
                    method,
                    data: count,
                });
            }
            7 => return Ok(Header::EndSegment),
            0 => {
                if word == 0 {
                    return Ok(Header::Nop);
                }
                let mask = ((word >> 4) & 0xFFF) as u16;
                return Err(HeaderError::Unsupported(match (word >> 16) & 3 {
                    0 => UnsupportedEntry::LegacyIncrementing,
                    1 => UnsupportedEntry::SetSubdeviceMask { mask },
                    2 => UnsupportedEntry::StoreSubdeviceMask { mask },
                    _ => UnsupportedEntry::UseSubdeviceMask,
                }));
            }
            2 => {
                return Err(HeaderError::Unsupported(match (word >> 16) & 3 {
                    0 => UnsupportedEntry::LegacyNonIncrementing,
                    t => UnsupportedEntry::ReservedGroup2 { tert_op: t as u8 },
                }))
            }
            _ => return Err(HeaderError::Unsupported(UnsupportedEntry::Reserved6)),
        };
        if count == 0 {
            // "the other fields are ignored … effectively a no-op with no method data entries"
            return Ok(Header::Methods {
                mode,
                subchannel,
                method,
                count: 0,
            });
        }
        if word & 0x1000 != 0 {
            return Err(HeaderError::ReservedAddressBit);
        }
        let last = match mode {
            Mode::Incrementing => method + count - 1,
            Mode::NonIncrementing => method,
            Mode::IncrementOnce => method + (count > 1) as u32,
        };
        if last > MAX_METHOD_INDEX {
            return Err(HeaderError::AddressOverflow { method, count });
        }
        Ok(Header::Methods {
            mode,
            subchannel,
            method,
            count,
        })
    }

    /// Encodes a header (the inverse of [`Header::decode`] for valid headers); for building streams.
    /// Fields are masked to their widths.
    pub fn encode(self) -> u32 {
        let fields = |sec: u32, subc: u8, method: u32, count: u32| {
            sec << 29 | (count & 0x1FFF) << 16 | ((subc & 7) as u32) << 13 | (method & 0xFFF)
        };
        match self {
            Header::Nop => 0,
            Header::Methods {
                mode,
                subchannel,
                method,
                count,
            } => {
                let sec = match mode {
                    Mode::Incrementing => 1,
                    Mode::NonIncrementing => 3,
                    Mode::IncrementOnce => 5,
                };
                fields(sec, subchannel, method, count)
            }
            Header::Immediate {
                subchannel,
                method,
                data,
            } => fields(4, subchannel, method, data),
            Header::EndSegment => 7 << 29,
        }
    }
}
