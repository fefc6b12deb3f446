//! Channels: a pushbuffer decoder, the AMPERE_CHANNEL_GPFIFO_A (0xC56F) host methods, and the engines
//! bound to its eight subchannels.
//!
//! A [`Channel`] owns its decoder and its engine instances; the GPU memory and the clock are lent for
//! each call through an [`EngineContext`], so several channels can share one address space.
//! [`Channel::feed`] decodes bytes and carries out their methods until the input ends, an END_PB_SEGMENT
//! entry, a YIELD, the attempt budget runs out, a method has to wait, or something fails. Waiting and
//! failing methods stay in the decoder and are retried by the next feed.

mod engine;
mod host;
pub mod methods;

pub use engine::{Engine, EngineContext, EngineError, MethodOutcome, WaitReason};
pub use host::{HostCounters, HostRegisters, PendingAcquire};

use crate::standard::{standard_engines, EngineOptions};
use sassport_pushbuffer::{
    DecodeError, Decoder, Fed, FedEnd, Flow, HaltCause, IncompleteStream, MethodCall,
};
use std::fmt;

/// A method that failed, or a stream that is not valid, with everything needed to find it.
#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    /// A method handler refused the call.
    #[error("{}: {source}", describe_call(.call, *.class))]
    Method {
        call: MethodCall,
        /// Class that handled it (0xC56F for host methods).
        class: u32,
        #[source]
        source: EngineError,
    },
    /// An engine method on a subchannel SET_OBJECT never bound.
    #[error("{}: no object is bound to subchannel {}", describe_call(.call, 0), .call.subchannel)]
    Unbound { call: MethodCall },
    /// An invalid pushbuffer entry.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// The stream ended in the middle of something.
    #[error(transparent)]
    Incomplete(#[from] IncompleteStream),
    /// The stream ended while an engine still waited for more of it (e.g. inline data words).
    #[error("the stream ends with unfinished work on {name} (class {class:#06x}): {what}")]
    EngineUnfinished {
        /// Class id of the engine.
        class: u32,
        /// Its name.
        name: &'static str,
        /// What is left, from [`Engine::unfinished`].
        what: String,
    },
}

/// A one-line description of a call: subchannel, method (with its host name), data, offset.
pub fn describe_call(call: &MethodCall, class: u32) -> String {
    let name = if call.method < methods::FIRST_ENGINE_METHOD {
        methods::host_method_name(call.method)
            .map(|n| format!(" {n}"))
            .unwrap_or_default()
    } else if class != 0 {
        format!(" of class {class:#06x}")
    } else {
        String::new()
    };
    format!(
        "method {:#05x}{name} (subchannel {}, data {:#010x}) at pushbuffer byte {:#x}",
        call.method, call.subchannel, call.data, call.offset
    )
}

/// What a waiting method waits for, in words.
pub fn describe_wait(reason: &WaitReason) -> String {
    match reason {
        WaitReason::Acquire {
            va,
            current,
            payload,
        } => {
            format!("semaphore at {va:#x} holds {current:#x}, the acquire compares with payload {payload:#x}")
        }
        WaitReason::EngineBusy { class } => format!("engine {class:#06x} is busy"),
    }
}

/// Why a channel stopped before its input was used up.
#[derive(Debug)]
pub enum ChannelStop {
    /// A method cannot complete yet (an unsatisfied acquire, a busy engine); it is retried next time.
    Wait {
        call: MethodCall,
        reason: WaitReason,
    },
    /// A method or entry failed; it stays held, and feeding again retries it.
    Fault(ChannelError),
}

impl fmt::Display for ChannelStop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChannelStop::Wait { call, reason } => {
                write!(
                    f,
                    "{} waits: {}",
                    describe_call(call, 0),
                    describe_wait(reason)
                )
            }
            ChannelStop::Fault(e) => e.fmt(f),
        }
    }
}

/// A [`Channel::feed`] that stopped early; `consumed` input bytes were taken (the held word included).
#[derive(Debug)]
pub struct ChannelHalt {
    pub consumed: usize,
    pub stop: ChannelStop,
}

/// One GPU channel: decoder state, host registers and the engines its subchannels can bind.
pub struct Channel {
    decoder: Decoder,
    engines: Vec<Box<dyn Engine>>,
    bound: [Option<usize>; 8],
    last_engine: Option<usize>,
    registers: HostRegisters,
    counters: HostCounters,
    pending_acquire: Option<PendingAcquire>,
}

impl fmt::Debug for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Channel")
            .field("decoder", &self.decoder)
            .field(
                "classes",
                &self.engines.iter().map(|e| e.class()).collect::<Vec<_>>(),
            )
            .field("bound", &self.bound)
            .field("registers", &self.registers)
            .finish()
    }
}

impl Channel {
    /// A channel whose subchannels can bind the given engine classes (one instance each).
    pub fn new(engines: Vec<Box<dyn Engine>>) -> Self {
        Self {
            decoder: Decoder::new(),
            engines,
            bound: [None; 8],
            last_engine: None,
            registers: HostRegisters::default(),
            counters: HostCounters::default(),
            pending_acquire: None,
        }
    }

    /// A channel with [`standard_engines`].
    pub fn with_standard_engines(options: &EngineOptions) -> Self {
        Self::new(standard_engines(options))
    }

    /// The pushbuffer decoder (position, burst in progress, held word).
    pub fn decoder(&self) -> &Decoder {
        &self.decoder
    }

    /// Checks that the channel's stream ended cleanly: the decoder holds no burst waiting for data, no
    /// partial word and no held word ([`sassport_pushbuffer::Decoder::finish`]), and no engine has work
    /// that only more of the stream could finish ([`Engine::unfinished`]).
    pub fn finish(&self) -> Result<(), ChannelError> {
        self.decoder.finish()?;
        for e in &self.engines {
            if let Some(what) = e.unfinished() {
                return Err(ChannelError::EngineUnfinished {
                    class: e.class(),
                    name: e.name(),
                    what,
                });
            }
        }
        Ok(())
    }

    /// The pushbuffer decoder, e.g. to end a segment or drop a held word.
    pub fn decoder_mut(&mut self) -> &mut Decoder {
        &mut self.decoder
    }

    /// Host registers (semaphore addresses and payloads, MEM_OP operands, SET_REFERENCE value).
    pub fn registers(&self) -> &HostRegisters {
        &self.registers
    }

    /// Host event counters.
    pub fn counters(&self) -> &HostCounters {
        &self.counters
    }

    /// The acquire a waiting channel is retrying, if any.
    pub fn pending_acquire(&self) -> Option<PendingAcquire> {
        self.pending_acquire
    }

    /// The class bound to a subchannel.
    pub fn bound_class(&self, subchannel: u8) -> Option<u32> {
        let i = (*self.bound.get(subchannel as usize)?)?;
        Some(self.engines[i].class())
    }

    /// The engine instances of this channel.
    pub fn engines(&self) -> &[Box<dyn Engine>] {
        &self.engines
    }

    pub(crate) fn set_object(&mut self, subchannel: u8, data: u32) -> Result<(), EngineError> {
        if data >> 21 != 0 {
            return Err(EngineError::Invalid(format!(
                "SET_OBJECT reserved bits {:#x} set",
                data & !0x1F_FFFF
            )));
        }
        let class = data & 0xFFFF;
        let engine = data >> 16 & 0x1F;
        if engine == 0x1F {
            return Err(EngineError::Unsupported(format!(
                "SET_OBJECT of class {class:#06x} on the software engine"
            )));
        }
        let Some(i) = self.engines.iter().position(|e| e.class() == class) else {
            return Err(EngineError::Unsupported(format!(
                "class {class:#06x} is not available on this channel"
            )));
        };
        self.bound[subchannel as usize & 7] = Some(i);
        self.engines[i].bound(subchannel);
        Ok(())
    }

    /// The class of an engine that is not idle: the last engine methods went to, or any when `all`.
    pub(crate) fn busy_engine(&self, all: bool) -> Option<u32> {
        if all {
            self.engines
                .iter()
                .find(|e| !e.is_idle())
                .map(|e| e.class())
        } else {
            let e = &self.engines[self.last_engine?];
            (!e.is_idle()).then(|| e.class())
        }
    }

    /// Carries out one method call directly (host method or bound engine), bypassing the decoder.
    pub fn call(
        &mut self,
        ctx: &mut EngineContext<'_>,
        call: MethodCall,
    ) -> Result<MethodOutcome, ChannelError> {
        if call.method < methods::FIRST_ENGINE_METHOD {
            let result = self.host_method(ctx, call);
            if matches!(result, Ok(MethodOutcome::Done | MethodOutcome::Yield)) {
                // A pending acquire belongs to one word; once any host method completes it is over.
                self.pending_acquire = None;
            }
            return result.map_err(|source| ChannelError::Method {
                call,
                class: methods::AMPERE_CHANNEL_GPFIFO_A,
                source,
            });
        }
        let Some(i) = self.bound[call.subchannel as usize & 7] else {
            return Err(ChannelError::Unbound { call });
        };
        self.last_engine = Some(i);
        let engine = &mut self.engines[i];
        engine
            .method(ctx, call.method, call.data)
            .map_err(|source| ChannelError::Method {
                call,
                class: engine.class(),
                source,
            })
    }

    /// Decodes `bytes` and carries out their methods with no attempt limit.
    pub fn feed(&mut self, ctx: &mut EngineContext<'_>, bytes: &[u8]) -> Result<Fed, ChannelHalt> {
        let mut budget = u64::MAX;
        self.feed_with_budget(ctx, bytes, &mut budget)
    }

    /// Decodes `bytes` and carries out their methods. Each method attempt (including one that waits or
    /// fails) takes one unit of `budget`; at zero the feed pauses ([`FedEnd::Paused`]).
    pub fn feed_with_budget(
        &mut self,
        ctx: &mut EngineContext<'_>,
        bytes: &[u8],
        budget: &mut u64,
    ) -> Result<Fed, ChannelHalt> {
        if *budget == 0 {
            return Ok(Fed {
                consumed: 0,
                end: FedEnd::Paused,
            });
        }
        let mut decoder = std::mem::take(&mut self.decoder);
        let mut sink = |call: MethodCall| -> Result<Flow, ChannelStop> {
            *budget = budget.saturating_sub(1);
            let outcome = self.call(ctx, call).map_err(ChannelStop::Fault)?;
            match outcome {
                MethodOutcome::Wait(reason) => Err(ChannelStop::Wait { call, reason }),
                MethodOutcome::Yield => Ok(Flow::Pause),
                MethodOutcome::Done if *budget == 0 => Ok(Flow::Pause),
                MethodOutcome::Done => Ok(Flow::Continue),
            }
        };
        let result = decoder.feed(bytes, &mut sink);
        self.decoder = decoder;
        result.map_err(|halt| ChannelHalt {
            consumed: halt.consumed,
            stop: match halt.cause {
                HaltCause::Sink(stop) => stop,
                HaltCause::Invalid(e) => ChannelStop::Fault(ChannelError::Decode(e)),
            },
        })
    }
}
