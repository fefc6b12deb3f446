//! Pushbuffer and GPFIFO decoding for the emulated Ampere GPU.
//!
//! One job: bytes of a command stream in, method calls out. Depends on nothing else in the workspace.
//!
//! - [`header`]: one pushbuffer entry word → [`Header`] (incrementing, non-incrementing, increment-once,
//!   immediate, END_PB_SEGMENT, NOP), refusing reserved bits, address overflow and unsupported entries by
//!   name.
//! - [`decoder`]: the streaming [`Decoder`] that turns byte slices (any length, any alignment, split
//!   anywhere) into [`MethodCall`]s, with retry of the call a sink failed on.
//! - [`gpfifo`]: 8-byte GP entries → [`GpEntry`].

pub mod decoder;
pub mod gpfifo;
pub mod header;

pub use decoder::{
    Burst, DecodeError, Decoder, Fed, FedEnd, Flow, Halt, HaltCause, IncompleteStream, MethodCall,
    MethodSink,
};
pub use gpfifo::{GpEntry, GpEntryError, GpEntryErrorKind, Level, Segment, Sync, GP_ENTRY_BYTES};
pub use header::{Header, HeaderError, Mode, UnsupportedEntry, MAX_METHOD_INDEX};
