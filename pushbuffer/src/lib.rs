//! Pushbuffer and GPFIFO decoding for the emulated Ampere GPU.
//!
//! One job: bytes of a command stream in, method calls out. Depends on nothing else in the workspace.
