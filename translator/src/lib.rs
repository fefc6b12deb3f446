//! Cubin loading, control-flow graphs, structurizing and SPIR-V lowering of SM86 machine code.
//!
//! One job: a cubin in, one Vulkan compute module per kernel out. Depends on `sassport-gen` for decoding;
//! never on the runtime. So far: [`cubin`], the reader of `nvcc -cubin -arch=sm_86` files (kernels, device
//! functions, code sections, `.nv.info` attributes, constant banks, relocations), and [`abi`], the contract
//! with the runtime.

pub mod abi;
pub mod cubin;
pub mod control;
pub mod error;
pub mod exact;
pub mod lower;
pub mod program;
pub mod spirv;
pub mod state;
pub mod structure;
pub mod translate;

pub use cubin::{Cubin, CubinError};
