//! Graphics stages: what a vertex, tessellation, geometry or pixel program carries besides its code.
//!
//! [`sph`] reads the 0x50-byte Shader Program Header that precedes every graphics program; [`stage`] names
//! the pipeline stage a program is translated for and refuses a header of another stage. This module depends
//! on nothing else in the crate, so the stage lowering and the runtime can both use it.

pub mod sph;
pub mod stage;

pub use sph::{ShaderProgramHeader, SphError};
pub use stage::{Stage, StageMismatch};
