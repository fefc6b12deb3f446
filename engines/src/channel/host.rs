//! The host methods of AMPERE_CHANNEL_GPFIFO_A (0xC56F): everything below byte offset 0x100.
//!
//! Field layouts are those of clc56f.h (see `shared/notes/command-engines.md` §2). Engines here finish
//! every method synchronously, so the waits for engine idle that WFI, SET_REFERENCE and RELEASE_WFI
//! imply complete at once unless an engine reports itself busy.

use super::engine::{EngineContext, EngineError, MethodOutcome, WaitReason};
use super::methods::{self as m, mem_op};
use super::Channel;
use crate::semaphore::{self, AcquireOp, PayloadSize, ReductionFormat, ReductionOp, ReleaseShape};
use sassport_pushbuffer::MethodCall;

/// Bits of SEMAPHORED that clc56f.h defines: OPERATION 4:0, ACQUIRE_SWITCH 12, RELEASE_WFI 20,
/// RELEASE_SIZE 24, REDUCTION 30:27, FORMAT 31.
const SEMAPHORED_DEFINED: u32 = 0x1F | 1 << 12 | 1 << 20 | 1 << 24 | 0xF << 27 | 1 << 31;
/// Bits of SEM_EXECUTE that clc56f.h defines: OPERATION 2:0, ACQUIRE_SWITCH_TSG 12, RELEASE_WFI 20,
/// PAYLOAD_SIZE 24, RELEASE_TIMESTAMP 25, REDUCTION 30:27, REDUCTION_FORMAT 31.
const SEM_EXECUTE_DEFINED: u32 = 0x7 | 1 << 12 | 1 << 20 | 1 << 24 | 1 << 25 | 0xF << 27 | 1 << 31;

/// Counters of host events that have no effect on memory in this model but that an embedder may want
/// to observe (interrupts to raise, barriers seen).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostCounters {
    /// NON_STALL_INTERRUPT methods.
    pub non_stall_interrupts: u64,
    /// MEM_OP MEMBAR / SYS_MEMBAR operations and FB_FLUSH.
    pub membars: u64,
    /// MMU TLB invalidates (complete at once: the mapper caches no translations).
    pub tlb_invalidates: u64,
    /// L2 maintenance operations (complete at once: there is no L2).
    pub l2_operations: u64,
    /// WFI methods.
    pub wait_for_idles: u64,
    /// YIELD methods that gave up the time slice.
    pub yields: u64,
}

/// The host-method registers of a channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostRegisters {
    pub semaphore_a: u32,
    pub semaphore_b: u32,
    pub semaphore_c: u32,
    pub mem_op_a: u32,
    pub mem_op_b: u32,
    pub mem_op_c: u32,
    pub sem_addr_lo: u32,
    pub sem_addr_hi: u32,
    pub sem_payload_lo: u32,
    pub sem_payload_hi: u32,
    /// Last SET_REFERENCE value (USERD Reference).
    pub reference: u32,
}

/// An acquire that did not succeed yet: what it compares, captured at its first attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingAcquire {
    /// Stream offset of the method word that started it (the retried word has the same offset).
    pub offset: u64,
    pub va: u64,
    pub payload: u64,
    pub op: AcquireOp,
    pub size: PayloadSize,
}

fn invalid(msg: impl Into<String>) -> EngineError {
    EngineError::Invalid(msg.into())
}

impl Channel {
    /// Handles one host method (byte offset < 0x100).
    pub(super) fn host_method(
        &mut self,
        ctx: &mut EngineContext<'_>,
        call: MethodCall,
    ) -> Result<MethodOutcome, EngineError> {
        let data = call.data;
        let r = &mut self.registers;
        match call.method {
            m::SET_OBJECT => {
                return self
                    .set_object(call.subchannel, data)
                    .map(|_| MethodOutcome::Done)
            }
            m::ILLEGAL => return Err(invalid("ILLEGAL method")),
            m::NOP => {}
            m::SEMAPHOREA => r.semaphore_a = data,
            m::SEMAPHOREB => r.semaphore_b = data,
            m::SEMAPHOREC => r.semaphore_c = data,
            m::SEMAPHORED => return self.semaphored(ctx, call),
            m::NON_STALL_INTERRUPT => self.counters.non_stall_interrupts += 1,
            m::FB_FLUSH => self.counters.membars += 1,
            m::MEM_OP_A => r.mem_op_a = data,
            m::MEM_OP_B => r.mem_op_b = data,
            m::MEM_OP_C => r.mem_op_c = data,
            m::MEM_OP_D => self.mem_op_d(data)?,
            m::SET_REFERENCE => {
                if let Some(class) = self.busy_engine(true) {
                    return Ok(MethodOutcome::Wait(WaitReason::EngineBusy { class }));
                }
                self.registers.reference = data;
            }
            m::SEM_ADDR_LO => r.sem_addr_lo = data,
            m::SEM_ADDR_HI => r.sem_addr_hi = data,
            m::SEM_PAYLOAD_LO => r.sem_payload_lo = data,
            m::SEM_PAYLOAD_HI => r.sem_payload_hi = data,
            m::SEM_EXECUTE => return self.sem_execute(ctx, call),
            m::WFI => {
                if data & !1 != 0 {
                    return Err(invalid(format!("WFI reserved bits {:#x} set", data & !1)));
                }
                if let Some(class) = self.busy_engine(data & 1 == 1) {
                    return Ok(MethodOutcome::Wait(WaitReason::EngineBusy { class }));
                }
                self.counters.wait_for_idles += 1;
            }
            m::YIELD => {
                return match data {
                    0 => Ok(MethodOutcome::Done),
                    3 => {
                        self.counters.yields += 1;
                        Ok(MethodOutcome::Yield)
                    }
                    op => Err(invalid(format!(
                        "YIELD OP {op:#x} is not defined by AMPERE_CHANNEL_GPFIFO_A"
                    ))),
                }
            }
            m::CLEAR_FAULTED => {
                return Err(EngineError::Unsupported(
                    "CLEAR_FAULTED (faulted channels are not resumed by methods here)".into(),
                ))
            }
            _ => return Err(EngineError::UnknownMethod),
        }
        Ok(MethodOutcome::Done)
    }

    fn mem_op_d(&mut self, data: u32) -> Result<(), EngineError> {
        match data >> 27 {
            mem_op::MEMBAR => match self.registers.mem_op_c & 7 {
                0 | 1 => self.counters.membars += 1,
                t => return Err(invalid(format!("MEM_OP_C MEMBAR_TYPE {t} is not defined"))),
            },
            mem_op::MMU_TLB_INVALIDATE | mem_op::MMU_TLB_INVALIDATE_TARGETED => {
                self.counters.tlb_invalidates += 1
            }
            mem_op::L2_PEERMEM_INVALIDATE
            | mem_op::L2_SYSMEM_INVALIDATE
            | mem_op::L2_CLEAN_COMPTAGS
            | mem_op::L2_FLUSH_DIRTY
            | mem_op::L2_WAIT_FOR_SYS_PENDING_READS => self.counters.l2_operations += 1,
            mem_op::ACCESS_COUNTER_CLR => {
                return Err(EngineError::Unsupported(
                    "MEM_OP ACCESS_COUNTER_CLR (no access counters)".into(),
                ))
            }
            op => {
                return Err(invalid(format!(
                    "MEM_OP_D OPERATION {op:#x} is not defined by AMPERE_CHANNEL_GPFIFO_A"
                )))
            }
        }
        Ok(())
    }

    /// Legacy SEMAPHOREA–D. Polarity traps: RELEASE_WFI 0 = enabled, RELEASE_SIZE 0 = 16 bytes.
    fn semaphored(
        &mut self,
        ctx: &mut EngineContext<'_>,
        call: MethodCall,
    ) -> Result<MethodOutcome, EngineError> {
        let data = call.data;
        if data & !SEMAPHORED_DEFINED != 0 {
            return Err(invalid(format!(
                "SEMAPHORED reserved bits {:#x} set",
                data & !SEMAPHORED_DEFINED
            )));
        }
        let r = self.registers;
        let va = ((r.semaphore_a & 0xFF) as u64) << 32 | (r.semaphore_b & !3) as u64;
        let payload = r.semaphore_c as u64;
        let release_wfi = data >> 20 & 1 == 0;
        let shape = ReleaseShape {
            size: PayloadSize::Bits32,
            timestamp: data >> 24 & 1 == 0,
        };
        match data & 0x1F {
            0x01 => self.acquire(ctx, call.offset, va, payload, AcquireOp::Equal, PayloadSize::Bits32),
            // Legacy ACQ_GEQ compares with wrap-around, like SEM_EXECUTE's ACQ_CIRC_GEQ (the strict
            // unsigned form is the one Volta added under a new name).
            0x04 => self.acquire(ctx, call.offset, va, payload, AcquireOp::CircGeq, PayloadSize::Bits32),
            0x08 => self.acquire(ctx, call.offset, va, payload, AcquireOp::And, PayloadSize::Bits32),
            0x02 => self.release(ctx, va, payload, shape, None, release_wfi),
            0x10 => {
                let op = ReductionOp::from_field(data >> 27 & 0xF)
                    .ok_or_else(|| invalid(format!("SEMAPHORED REDUCTION {:#x} is not defined", data >> 27 & 0xF)))?;
                let format = ReductionFormat::from_bit(data >> 31);
                self.release(ctx, va, payload, shape, Some((op, format)), release_wfi)
            }
            op => Err(invalid(format!("SEMAPHORED OPERATION {op:#x} is not one of ACQUIRE, RELEASE, ACQ_GEQ, ACQ_AND, REDUCTION"))),
        }
    }

    /// SEM_ADDR / SEM_PAYLOAD / SEM_EXECUTE (Volta+ semaphores).
    fn sem_execute(
        &mut self,
        ctx: &mut EngineContext<'_>,
        call: MethodCall,
    ) -> Result<MethodOutcome, EngineError> {
        let data = call.data;
        if data & !SEM_EXECUTE_DEFINED != 0 {
            return Err(invalid(format!(
                "SEM_EXECUTE reserved bits {:#x} set",
                data & !SEM_EXECUTE_DEFINED
            )));
        }
        let r = self.registers;
        let va = ((r.sem_addr_hi & 0xFF) as u64) << 32 | (r.sem_addr_lo & !3) as u64;
        let size = if data >> 24 & 1 == 0 {
            PayloadSize::Bits32
        } else {
            PayloadSize::Bits64
        };
        let payload = match size {
            PayloadSize::Bits32 => r.sem_payload_lo as u64,
            PayloadSize::Bits64 => (r.sem_payload_hi as u64) << 32 | r.sem_payload_lo as u64,
        };
        let release_wfi = data >> 20 & 1 == 1;
        let shape = ReleaseShape {
            size,
            timestamp: data >> 25 & 1 == 1,
        };
        let acquire = |op| (op, size);
        let op = match data & 7 {
            0 => acquire(AcquireOp::Equal),
            2 => acquire(AcquireOp::StrictGeq),
            3 => acquire(AcquireOp::CircGeq),
            4 => acquire(AcquireOp::And),
            5 => acquire(AcquireOp::Nor),
            1 => {
                // Legal releases: REL × {RELEASE_WFI} × {32, 64 bit} × {timestamp}; no acquire switch, no
                // reduction fields.
                let foreign = 1 << 12 | 0x1F << 27;
                if data & foreign != 0 {
                    return Err(invalid(format!(
                        "SEM_EXECUTE release with acquire/reduction fields {:#x} set",
                        data & foreign
                    )));
                }
                return self.release(ctx, va, payload, shape, None, release_wfi);
            }
            6 => {
                if data & 1 << 12 != 0 {
                    return Err(invalid("SEM_EXECUTE reduction with ACQUIRE_SWITCH_TSG set"));
                }
                let op = ReductionOp::from_field(data >> 27 & 0xF).ok_or_else(|| {
                    invalid(format!(
                        "SEM_EXECUTE REDUCTION {:#x} is not defined",
                        data >> 27 & 0xF
                    ))
                })?;
                let format = ReductionFormat::from_bit(data >> 31);
                return self.release(ctx, va, payload, shape, Some((op, format)), release_wfi);
            }
            _ => return Err(invalid("SEM_EXECUTE OPERATION 7 is not defined")),
        };
        // Legal acquires: ACQ × {ACQUIRE_SWITCH_TSG} × {32, 64 bit}; release and reduction fields are
        // not part of an acquire.
        let release_fields = 1 << 20 | 1 << 25 | 0x1F << 27;
        if data & release_fields != 0 {
            return Err(invalid(format!(
                "SEM_EXECUTE acquire with release/reduction fields {:#x} set",
                data & release_fields
            )));
        }
        self.acquire(ctx, call.offset, va, payload, op.0, op.1)
    }

    /// An acquire: succeeds, or returns Wait keeping the snapshot of what it compares so that the retry
    /// of the same word resumes with exactly that comparison.
    fn acquire(
        &mut self,
        ctx: &mut EngineContext<'_>,
        offset: u64,
        va: u64,
        payload: u64,
        op: AcquireOp,
        size: PayloadSize,
    ) -> Result<MethodOutcome, EngineError> {
        let snapshot = match self.pending_acquire {
            Some(p) if p.offset == offset => p,
            _ => PendingAcquire {
                offset,
                va,
                payload,
                op,
                size,
            },
        };
        let current = semaphore::read_semaphore(ctx.memory, snapshot.va, snapshot.size)?;
        if snapshot
            .op
            .satisfied(snapshot.size, current, snapshot.payload)
        {
            self.pending_acquire = None;
            Ok(MethodOutcome::Done)
        } else {
            self.pending_acquire = Some(snapshot);
            Ok(MethodOutcome::Wait(WaitReason::Acquire {
                va: snapshot.va,
                current,
                payload: snapshot.payload,
            }))
        }
    }

    fn release(
        &mut self,
        ctx: &mut EngineContext<'_>,
        va: u64,
        payload: u64,
        shape: ReleaseShape,
        reduction: Option<(ReductionOp, ReductionFormat)>,
        wfi: bool,
    ) -> Result<MethodOutcome, EngineError> {
        if wfi {
            if let Some(class) = self.busy_engine(false) {
                return Ok(MethodOutcome::Wait(WaitReason::EngineBusy { class }));
            }
        }
        match reduction {
            None => semaphore::release(ctx.memory, ctx.clock, va, payload, shape)?,
            Some((op, format)) => {
                semaphore::reduce_release(ctx.memory, ctx.clock, va, op, format, payload, shape)?;
            }
        }
        Ok(MethodOutcome::Done)
    }
}
