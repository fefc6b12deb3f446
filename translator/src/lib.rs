//! Cubin loading, control-flow graphs, structurizing and SPIR-V lowering of SM86 machine code.
//!
//! One job: a cubin in, one Vulkan compute module per kernel out. Depends on `sassport-gen` for decoding;
//! never on the runtime. [`cubin`] reads `nvcc -cubin -arch=sm_86` files (kernels, device functions, code
//! sections, `.nv.info` attributes, constant banks, relocations); [`abi`] is the contract with the runtime.
//! [`translate`] is the entry point: [`program`] decodes the reachable code into basic blocks, [`control`]
//! emits them as structured code, as the pc-dispatch loop, or (for kernels with warp-synchronous instructions) as
//! warps in turns, [`lower`] lowers each instruction family onto the guest [`state`]
//! (registers as Function variables, constant banks, the bounds-checked global window, shared and local
//! memory) through the [`spirv`] module builder; unsupported instructions are refused by name and offset
//! ([`error`]).
//!
//! [`graphics`] reads what graphics programs carry besides code (the Shader Program Header).
//!
//! # Layering
//!
//! Each module uses only modules before it in this list: [`spirv`] (the module builder), [`features`] →
//! [`abi`] (the runtime contract; re-exports the feature set) → [`error`] → [`cubin`] → [`program`],
//! [`structure`] (the code as data) → [`state`] (the guest state in the module) → [`lower`] (one family per
//! file; `translator/families.txt` generates its dispatch; the warp-synchronous mnemonics go through
//! `lower::warp_form`) and [`exact`] (exact-arithmetic references) → [`control`] (block emission in the three
//! forms, calling `lower` per instruction) → [`translate`] → [`coverage`]. Edges against it left: `lower` →
//! `control::guard` (the loop guard `Ctx` carries), `cubin::link` → `error` (its errors).
//! `tests/module_layering.rs` fails on a new pair of modules that refer to each other; the pairs not broken
//! yet (that guard, and helpers shared inside `lower` between memory, the warp forms and the soft emulations)
//! are listed there.

pub mod abi;
pub mod cubin;
pub mod control;
pub mod coverage;
pub mod error;
pub mod exact;
pub mod features;
pub mod graphics;
pub mod lower;
pub mod program;
pub mod spirv;
pub mod state;
pub mod structure;
pub mod translate;
pub mod translate_graphics;

pub use cubin::{Cubin, CubinError};
