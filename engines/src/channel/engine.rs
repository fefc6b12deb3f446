//! The interface between a channel and the engine classes bound to its subchannels.
//!
//! A channel handles host methods (byte offsets below 0x100) itself and hands every other method to the
//! engine that SET_OBJECT bound to the method's subchannel. An engine sees each method exactly once
//! unless it answered [`MethodOutcome::Wait`] or failed: then the pushbuffer decoder keeps that word and
//! the same `(method, data)` is delivered again when the channel is resumed. An engine must therefore
//! leave its state unchanged when it waits or fails (validate everything, then act).

use crate::memory::{GpuMemory, MemoryError};
use crate::semaphore::{Clock, SemaphoreError};

/// What an engine (or the channel's host-method handler) needs from its surroundings for one method.
pub struct EngineContext<'a> {
    /// The GPU address space.
    pub memory: &'a mut GpuMemory,
    /// The caller-registered timestamp clock for semaphore releases.
    pub clock: &'a mut dyn Clock,
}

/// Why a method could not complete yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitReason {
    /// A semaphore acquire whose condition does not hold.
    Acquire {
        /// Semaphore address.
        va: u64,
        /// Value found in memory.
        current: u64,
        /// Payload the acquire compares against.
        payload: u64,
    },
    /// The engine of this class is busy; retry later.
    EngineBusy {
        /// Class id of the busy engine.
        class: u32,
    },
}

/// The result of a method that did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodOutcome {
    /// Done; the decoder moves on.
    Done,
    /// Not done and nothing changed; deliver the same method again later.
    Wait(WaitReason),
    /// Done, and the channel should give up its time slice (YIELD).
    Yield,
}

/// A method an engine cannot carry out. The channel adds subchannel, class, method and data.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A memory access failed.
    #[error(transparent)]
    Memory(#[from] MemoryError),
    /// A semaphore operation failed.
    #[error(transparent)]
    Semaphore(#[from] SemaphoreError),
    /// The class has no method at this offset.
    #[error("no such method")]
    UnknownMethod,
    /// The method exists but the requested feature is refused by name.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// The data word (or the state it triggers) is invalid.
    #[error("invalid: {0}")]
    Invalid(String),
    /// A class-specific error.
    #[error(transparent)]
    Class(Box<dyn std::error::Error + Send + Sync>),
}

/// An engine class that methods of a subchannel can be dispatched to.
pub trait Engine {
    /// The class id (e.g. 0xC6B5 AMPERE_DMA_COPY_A) that SET_OBJECT names to bind this engine.
    fn class(&self) -> u32;

    /// The class name, for messages and traces.
    fn name(&self) -> &'static str {
        "engine"
    }

    /// Carries out one method (`method` is the byte offset, ≥ 0x100) with its data word.
    fn method(
        &mut self,
        ctx: &mut EngineContext<'_>,
        method: u32,
        data: u32,
    ) -> Result<MethodOutcome, EngineError>;

    /// Whether all work the engine accepted has completed (host WFI and SET_REFERENCE wait for this).
    /// Engines that finish every method synchronously keep the default.
    fn is_idle(&self) -> bool {
        true
    }

    /// Called when SET_OBJECT binds this engine to a subchannel.
    fn bound(&mut self, _subchannel: u8) {}

    /// Work the engine accepted that only more of the stream can finish (an inline-to-memory upload still
    /// waiting for data words), in words; `None` when nothing is half done. A stream that ends while an
    /// engine says `Some` is incomplete ([`crate::channel::Channel::finish`]).
    fn unfinished(&self) -> Option<String> {
        None
    }
}
