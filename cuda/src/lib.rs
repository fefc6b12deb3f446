//! `libcuda.so.1` for sassport: the CUDA driver API over the sassport runtime, so that programs built by nvcc
//! for sm_86 run unmodified on any Vulkan device.
//!
//! One job: answer the driver calls a CUDA program (through the CUDA runtime it links, or directly) makes,
//! with the runtime's devices, memory and launches. Depends on `sassport-runtime` (devices, window memory,
//! launches) and `sassport-translator` (cubins, SASS to SPIR-V); nothing depends on it. Built as a cdylib
//! whose soname is `libcuda.so.1`; `sassport exec` (or `LD_LIBRARY_PATH=target/release/cuda`) puts it in
//! front of a program.
//!
//! - [`proc`]: `cuGetProcAddress`, the way the runtime finds every entry point; names not implemented get a
//!   stub that logs the name once and returns `CUDA_ERROR_NOT_SUPPORTED`.
//! - [`export`]: `cuGetExportTable`, the runtime's private tables, and [`integrity`], its check.
//! - [`device`], [`attributes`], [`context`]: devices (one per usable Vulkan device, or the one
//!   `SASSPORT_DEVICE` names; compute capability 8.6) and their primary contexts.
//! - [`fatbin`], [`module`]: fat binaries (the SM86 SASS entry; zstd/LZ4 entries decoded; PTX refused with
//!   `CUDA_ERROR_NO_BINARY_FOR_GPU`), modules, libraries, functions, globals.
//! - [`memory`], [`memory2d`], [`host_memory`], [`launch`], [`stream`]: allocation (device and page-locked
//!   host), copies, memsets, launches, streams and events. Launches are queued and run asynchronously in
//!   the order they were made; [`sync`] says where the host waits for them. [`managed`]: managed memory for a
//!   device without concurrent managed access.
//! - [`host_func`]: host functions in stream order; [`mempool`]: stream-ordered allocation and memory pools;
//!   [`profiler`]: profiler range markers (no-ops).
//! - [`graph`], [`graph_api`]: CUDA graphs (kernel, memcpy, memset, host, empty nodes) and stream capture.
//! - [`occupancy`]: blocks per multiprocessor from 8.6's limits.
//! - [`log`]: `SASSPORT_LOG=calls` prints every call with its result.
//!
//! Thread safety: all state sits behind one mutex ([`state`]); each thread has its own current context.
//! Entry points never unwind into C: a panic is caught and returned as `CUDA_ERROR_UNKNOWN`.

#![allow(non_snake_case, clippy::missing_safety_doc)]

pub mod array;
pub mod attributes;
pub mod context;
pub mod context_explicit;
pub mod device;
pub mod error;
pub mod errors;
pub mod export;
pub mod fatbin;
mod ffi;
pub mod host_func;
pub mod host_memory;
pub mod integrity;
pub mod graph;
pub mod graph_api;
pub mod launch;
pub mod limits;
pub mod log;
pub mod managed;
pub mod memory;
pub mod mempool;
pub mod memory2d;
pub mod module;
pub mod occupancy;
pub mod occupancy_potential;
pub mod proc;
pub mod profiler;
mod reservation;
pub mod result;
pub mod state;
pub mod stream;
pub mod sync;
pub mod texobj;
pub mod tools_context;
pub mod unsupported;
