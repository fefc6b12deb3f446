//! Cubin loading, control-flow graphs, structurizing and SPIR-V lowering of SM86 machine code.
//!
//! One job: a cubin in, one Vulkan compute module per kernel out. Depends on `sassport-gen` for decoding;
//! never on the runtime.

pub mod abi;
