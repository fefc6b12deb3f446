//! Completion semaphores of the copy engines: a one-word (4-byte) or four-word (16-byte, timestamp
//! written first) release of a 32-bit payload, optionally a reduction of the value in memory.

use crate::memory::GpuMemory;
use crate::semaphore::{
    self, Clock, PayloadSize, ReductionFormat, ReductionOp, ReleaseShape, SemaphoreError,
};

use super::error::CopyError;

/// Which release a launch ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemaphoreType {
    None,
    /// 4 bytes: the payload.
    OneWord,
    /// 16 bytes: payload, zero, and the timestamp (written first).
    FourWord,
}

/// The reduction applied instead of a plain release.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SemaphoreReduction {
    Integer(ReductionOp, ReductionFormat),
    /// 0xA: IEEE single-precision add.
    FloatAdd,
}

/// A release (or reduction) checked against memory and ready to perform.
pub(crate) struct CheckedSemaphore {
    va: u64,
    payload: u32,
    shape: ReleaseShape,
    reduction: Option<SemaphoreReduction>,
}

impl CheckedSemaphore {
    pub(crate) fn check(
        memory: &GpuMemory,
        va: u64,
        payload: u32,
        kind: SemaphoreType,
        reduction: Option<SemaphoreReduction>,
    ) -> Result<Option<Self>, CopyError> {
        let shape = match kind {
            SemaphoreType::None => return Ok(None),
            SemaphoreType::OneWord => ReleaseShape {
                size: PayloadSize::Bits32,
                timestamp: false,
            },
            SemaphoreType::FourWord => ReleaseShape {
                size: PayloadSize::Bits32,
                timestamp: true,
            },
        };
        shape.check(memory, va)?;
        match reduction {
            Some(SemaphoreReduction::Integer(op, format)) => {
                semaphore::check_reduction(op, format, PayloadSize::Bits32)?;
                semaphore::read_semaphore(memory, va, PayloadSize::Bits32)?;
            }
            Some(SemaphoreReduction::FloatAdd) => {
                semaphore::read_semaphore(memory, va, PayloadSize::Bits32)?;
            }
            None => {}
        }
        Ok(Some(CheckedSemaphore {
            va,
            payload,
            shape,
            reduction,
        }))
    }

    pub(crate) fn perform(
        self,
        memory: &mut GpuMemory,
        clock: &mut dyn Clock,
    ) -> Result<(), SemaphoreError> {
        match self.reduction {
            None => semaphore::release(memory, clock, self.va, self.payload as u64, self.shape),
            Some(SemaphoreReduction::Integer(op, format)) => semaphore::reduce_release(
                memory,
                clock,
                self.va,
                op,
                format,
                self.payload as u64,
                self.shape,
            )
            .map(|_| ()),
            Some(SemaphoreReduction::FloatAdd) => {
                let current =
                    semaphore::read_semaphore(memory, self.va, PayloadSize::Bits32)? as u32;
                let sum = f32::from_bits(current) + f32::from_bits(self.payload);
                semaphore::release(memory, clock, self.va, sum.to_bits() as u64, self.shape)
            }
        }
    }
}
