//! Semaphores: acquire conditions, releases (4, 8 and 16 bytes) and reductions, shared by the host
//! methods of a channel and by the copy engines.
//!
//! Facts (dev_pbdma.ref / clc56f.h, recorded in `shared/notes/command-engines.md` §2.3):
//! - a 16-byte release writes the payload at +0 (32-bit payloads leave +4..+8 zero) and the 64-bit
//!   nanosecond timestamp at +8, and the timestamp is written **before** the payload, so whoever sees the
//!   new payload also sees its timestamp;
//! - 64-bit payloads need 8-byte alignment, timestamped releases 16-byte alignment;
//! - the legal reductions: IMIN/IMAX signed or unsigned at 32 and 64 bits; IXOR/IAND/IOR at either width
//!   (sign does not apply); IADD 32-bit signed or unsigned, 64-bit unsigned only; INC and DEC 32-bit
//!   unsigned only, with INC: `v >= p ? 0 : v + 1` and DEC: `v == 0 || v > p ? p : v - 1`.

use crate::memory::{GpuMemory, MemoryError};

/// The source of semaphore timestamps (nanoseconds, like NV_PTIMER). The caller registers one.
pub trait Clock {
    /// The current time in nanoseconds; called once per timestamped release.
    fn now_ns(&mut self) -> u64;
}

impl<F: FnMut() -> u64> Clock for F {
    fn now_ns(&mut self) -> u64 {
        self()
    }
}

/// A deterministic clock: the first reading is `start`, each later one `step` nanoseconds more.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SteppingClock {
    next: u64,
    step: u64,
}

impl SteppingClock {
    /// A clock reading `start`, then `start + step`, `start + 2 * step`, …
    pub fn new(start: u64, step: u64) -> Self {
        Self { next: start, step }
    }
}

impl Clock for SteppingClock {
    fn now_ns(&mut self) -> u64 {
        let now = self.next;
        self.next = self.next.wrapping_add(self.step);
        now
    }
}

/// Width of a semaphore payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PayloadSize {
    /// 32-bit payload, 4-byte aligned.
    Bits32,
    /// 64-bit payload, 8-byte aligned.
    Bits64,
}

impl PayloadSize {
    /// Size in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            PayloadSize::Bits32 => 4,
            PayloadSize::Bits64 => 8,
        }
    }

    fn mask(self) -> u64 {
        match self {
            PayloadSize::Bits32 => u32::MAX as u64,
            PayloadSize::Bits64 => u64::MAX,
        }
    }
}

/// The condition an acquire waits for (`sem` = value in memory, `p` = payload).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AcquireOp {
    /// `sem == p`.
    Equal,
    /// Unsigned `sem >= p`.
    StrictGeq,
    /// Circular: `(signed)(sem - p) >= 0` at the payload width.
    CircGeq,
    /// `sem & p != 0`.
    And,
    /// `!(sem | p) != 0` at the payload width.
    Nor,
}

impl AcquireOp {
    /// Whether a semaphore holding `current` satisfies this acquire of `payload`; both are truncated to
    /// `size`.
    pub fn satisfied(self, size: PayloadSize, current: u64, payload: u64) -> bool {
        let mask = size.mask();
        let (v, p) = (current & mask, payload & mask);
        match self {
            AcquireOp::Equal => v == p,
            AcquireOp::StrictGeq => v >= p,
            AcquireOp::CircGeq => match size {
                PayloadSize::Bits32 => (v as u32).wrapping_sub(p as u32) as i32 >= 0,
                PayloadSize::Bits64 => v.wrapping_sub(p) as i64 >= 0,
            },
            AcquireOp::And => v & p != 0,
            AcquireOp::Nor => !(v | p) & mask != 0,
        }
    }
}

/// A semaphore reduction, in the host / copy-engine numbering (IMIN = 0 … DEC = 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionOp {
    Min,
    Max,
    Xor,
    And,
    Or,
    Add,
    Inc,
    Dec,
}

impl ReductionOp {
    /// Decodes the 4-bit REDUCTION field of SEMAPHORED / SEM_EXECUTE / the copy engine's LAUNCH_DMA.
    pub fn from_field(value: u32) -> Option<Self> {
        Some(match value {
            0 => ReductionOp::Min,
            1 => ReductionOp::Max,
            2 => ReductionOp::Xor,
            3 => ReductionOp::And,
            4 => ReductionOp::Or,
            5 => ReductionOp::Add,
            6 => ReductionOp::Inc,
            7 => ReductionOp::Dec,
            _ => return None,
        })
    }

    /// The class-header name of the operation.
    pub fn name(self) -> &'static str {
        match self {
            ReductionOp::Min => "IMIN",
            ReductionOp::Max => "IMAX",
            ReductionOp::Xor => "IXOR",
            ReductionOp::And => "IAND",
            ReductionOp::Or => "IOR",
            ReductionOp::Add => "IADD",
            ReductionOp::Inc => "INC",
            ReductionOp::Dec => "DEC",
        }
    }
}

/// Signedness of a reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionFormat {
    Signed,
    Unsigned,
}

impl ReductionFormat {
    /// Decodes the one-bit FORMAT / SIGN field (0 signed, 1 unsigned).
    pub fn from_bit(bit: u32) -> Self {
        if bit & 1 == 0 {
            ReductionFormat::Signed
        } else {
            ReductionFormat::Unsigned
        }
    }
}

/// A semaphore operation the hardware would refuse (NV_PPBDMA_INTR_0_SEMAPHORE and friends).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SemaphoreError {
    /// The semaphore memory cannot be accessed.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// The semaphore address is not aligned for its size.
    #[error("semaphore address {va:#x} must be {align}-byte aligned")]
    Misaligned { va: u64, align: u64 },
    /// The reduction is not in the legal width/sign table.
    #[error("{} reduction is not legal with {format:?} {size:?} payloads", op.name())]
    IllegalReduction {
        op: ReductionOp,
        format: ReductionFormat,
        size: PayloadSize,
    },
}

/// Checks a reduction against the legal width/sign table.
pub fn check_reduction(
    op: ReductionOp,
    format: ReductionFormat,
    size: PayloadSize,
) -> Result<(), SemaphoreError> {
    use PayloadSize::*;
    use ReductionFormat::*;
    let legal = match op {
        ReductionOp::Min
        | ReductionOp::Max
        | ReductionOp::Xor
        | ReductionOp::And
        | ReductionOp::Or => true,
        ReductionOp::Add => !(size == Bits64 && format == Signed),
        ReductionOp::Inc | ReductionOp::Dec => size == Bits32 && format == Unsigned,
    };
    if legal {
        Ok(())
    } else {
        Err(SemaphoreError::IllegalReduction { op, format, size })
    }
}

/// The new semaphore value after reducing `current` with `payload` (both truncated to `size`).
pub fn reduce(
    op: ReductionOp,
    format: ReductionFormat,
    size: PayloadSize,
    current: u64,
    payload: u64,
) -> Result<u64, SemaphoreError> {
    check_reduction(op, format, size)?;
    let mask = size.mask();
    let (v, p) = (current & mask, payload & mask);
    let signed = |x: u64| match size {
        PayloadSize::Bits32 => x as u32 as i32 as i64,
        PayloadSize::Bits64 => x as i64,
    };
    let out = match op {
        ReductionOp::Min => match format {
            ReductionFormat::Signed => signed(v).min(signed(p)) as u64,
            ReductionFormat::Unsigned => v.min(p),
        },
        ReductionOp::Max => match format {
            ReductionFormat::Signed => signed(v).max(signed(p)) as u64,
            ReductionFormat::Unsigned => v.max(p),
        },
        ReductionOp::Xor => v ^ p,
        ReductionOp::And => v & p,
        ReductionOp::Or => v | p,
        ReductionOp::Add => v.wrapping_add(p),
        ReductionOp::Inc => {
            if v >= p {
                0
            } else {
                v + 1
            }
        }
        ReductionOp::Dec => {
            if v == 0 || v > p {
                p
            } else {
                v - 1
            }
        }
    };
    Ok(out & mask)
}

/// Shape of a release: payload width and whether a timestamp follows (16-byte release).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ReleaseShape {
    /// Payload width.
    pub size: PayloadSize,
    /// Whether the 16-byte form with the timestamp at +8 is written.
    pub timestamp: bool,
}

impl ReleaseShape {
    /// Bytes written by the release.
    pub fn bytes(self) -> u64 {
        if self.timestamp {
            16
        } else {
            self.size.bytes()
        }
    }

    /// Required alignment of the semaphore address.
    pub fn align(self) -> u64 {
        self.bytes()
    }

    /// Checks alignment and that every byte the release writes is mapped writable.
    pub fn check(self, memory: &GpuMemory, va: u64) -> Result<(), SemaphoreError> {
        if va % self.align() != 0 {
            return Err(SemaphoreError::Misaligned {
                va,
                align: self.align(),
            });
        }
        memory.check_write(va, self.bytes())?;
        Ok(())
    }
}

/// One write of a release, in the order it is performed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleaseWrite {
    /// Where.
    pub va: u64,
    /// Little-endian bytes; only the first `len` are written.
    pub bytes: [u8; 8],
    /// 4 or 8.
    pub len: usize,
}

/// The one or two writes of a release, in order (a fixed array: releases are hot and allocate nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReleaseWrites {
    writes: [ReleaseWrite; 2],
    len: usize,
}

impl std::ops::Deref for ReleaseWrites {
    type Target = [ReleaseWrite];

    fn deref(&self) -> &[ReleaseWrite] {
        &self.writes[..self.len]
    }
}

/// The writes of a release in hardware order: the timestamp (if any) first, then the payload (a 32-bit
/// payload in a 16-byte release is written as 8 bytes with its upper half zero).
pub fn release_writes(
    va: u64,
    payload: u64,
    shape: ReleaseShape,
    timestamp_ns: u64,
) -> ReleaseWrites {
    let value = payload & shape.size.mask();
    if shape.timestamp {
        ReleaseWrites {
            writes: [
                ReleaseWrite {
                    va: va + 8,
                    bytes: timestamp_ns.to_le_bytes(),
                    len: 8,
                },
                ReleaseWrite {
                    va,
                    bytes: value.to_le_bytes(),
                    len: 8,
                },
            ],
            len: 2,
        }
    } else {
        let w = ReleaseWrite {
            va,
            bytes: value.to_le_bytes(),
            len: shape.size.bytes() as usize,
        };
        ReleaseWrites {
            writes: [w, w],
            len: 1,
        }
    }
}

/// Releases `payload` at `va`. Alignment and the whole destination are validated first, so a failing
/// release writes nothing; the clock is read only when a timestamp is written.
pub fn release(
    memory: &mut GpuMemory,
    clock: &mut dyn Clock,
    va: u64,
    payload: u64,
    shape: ReleaseShape,
) -> Result<(), SemaphoreError> {
    shape.check(memory, va)?;
    let now = if shape.timestamp { clock.now_ns() } else { 0 };
    for w in release_writes(va, payload, shape, now).iter() {
        memory.write(w.va, &w.bytes[..w.len])?;
    }
    Ok(())
}

/// Reads a semaphore value of `size` at `va` (alignment checked).
pub fn read_semaphore(
    memory: &GpuMemory,
    va: u64,
    size: PayloadSize,
) -> Result<u64, SemaphoreError> {
    if va % size.bytes() != 0 {
        return Err(SemaphoreError::Misaligned {
            va,
            align: size.bytes(),
        });
    }
    Ok(match size {
        PayloadSize::Bits32 => memory.read_u32(va)? as u64,
        PayloadSize::Bits64 => memory.read_u64(va)?,
    })
}

/// Reduces the semaphore at `va` with `payload` and releases the result with `shape` (the timestamp
/// first when present). Legality, alignment, readability and writability are all checked before any
/// write. Returns the new value.
pub fn reduce_release(
    memory: &mut GpuMemory,
    clock: &mut dyn Clock,
    va: u64,
    op: ReductionOp,
    format: ReductionFormat,
    payload: u64,
    shape: ReleaseShape,
) -> Result<u64, SemaphoreError> {
    check_reduction(op, format, shape.size)?;
    shape.check(memory, va)?;
    let current = read_semaphore(memory, va, shape.size)?;
    let value = reduce(op, format, shape.size, current, payload)?;
    release(memory, clock, va, value, shape)?;
    Ok(value)
}
