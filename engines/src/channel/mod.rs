//! Channels: a pushbuffer decoder, the AMPERE_CHANNEL_GPFIFO_A (0xC56F) host methods, and the engines
//! bound to its eight subchannels.

mod engine;

pub use engine::{Engine, EngineContext, EngineError, MethodOutcome, WaitReason};
