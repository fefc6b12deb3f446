//! The Vulkan runtime: devices, memory, pipelines and their caches, kernel launches.
//!
//! One job: run what the translator emits. Depends on `sassport-translator` (for [`abi`], the binding layout
//! both sides follow); nothing depends on it but the CLI.
//!
//! - [`enumerate_devices`] and [`choose_device`]: what each Vulkan device can do ([`DeviceInfo`]), the default
//!   choice (discrete GPU, then integrated, then CPU such as lavapipe) and the typed refusal of devices that
//!   lack Vulkan 1.3 or 64-bit integers. [`DeviceInfo::profile`] is the [`abi::DeviceProfile`] the translator
//!   receives.
//! - [`Runtime`]: one instance, device and pipeline set reused across launches. Guest global memory is one
//!   storage buffer, the window of the ABI, addressed from [`abi::DEFAULT_WINDOW_BASE`]; [`Runtime::alloc`]
//!   hands out 256-byte-aligned guest addresses in it ([`WindowAllocator`], best fit).
//! - Kernels are SPIR-V modules following [`abi`]: [`Runtime::load_kernel`] reflects their bindings and refuses
//!   anything else, caches them by content, and specialises one pipeline per block shape (specialisation
//!   constants 0..=2 are the block size, 3 the dynamic shared-memory size). The `VkPipelineCache` persists on
//!   disk per device, driver and version ([`PipelineCacheLocation`]); translated modules can be kept on disk
//!   by cubin, kernel, device profile and translator version ([`SpirvCache`]). Every on-disk entry carries its
//!   key and a SHA-256 and is verified on load ([`cache_entry`]); a damaged or misplaced one is reported once
//!   ([`cache_warnings`]) and rebuilt, and an unwritable cache directory costs one warning, never a launch.
//! - [`Runtime::launch`] fills the constant banks (bank 0 as the CUDA driver does: [`Bank0`]) and the launch
//!   values, splits grids beyond the device's workgroup-count limit into several dispatches (recorded once per
//!   kernel, block and grid shape, then replayed), waits, optionally times the kernel with timestamp queries,
//!   and reports an out-of-window access as [`RuntimeError::Fault`] naming kernel, pc and address.
//! - Device `printf` and `assert`: a launch's `printf` records (a bounded area after the window,
//!   [`RuntimeOptions::printf_buffer_bytes`]) are formatted on the host as CUDA's printf ([`printf`]) and
//!   returned in [`LaunchReport::printf`]; a failed `assert` is [`RuntimeError::AssertionFailed`] with CUDA's
//!   message (file, line, function, block, thread). [`Runtime::load_module_data`] places a cubin's globals
//!   (printf's format strings among them) and relocates its constant banks.
//! - Tests run on lavapipe under the Khronos validation layer where it is installed
//!   ([`RuntimeOptions::validation`]).
//! - [`Runtime::measure_float`]: a one-time self-test of what plain SPIR-V float ops do on the device (is `Fma`
//!   fused, are denormals preserved), kept on disk per device and driver, for [`Runtime::profile`].
//!
//! # Example: an emulator running a translated kernel
//!
//! ```no_run
//! use sassport_runtime::{Bank0, Launch, Runtime, RuntimeOptions};
//!
//! # fn translated_spirv() -> Vec<u32> { unimplemented!() }
//! # fn main() -> Result<(), sassport_runtime::RuntimeError> {
//! let mut rt = Runtime::new(RuntimeOptions::default())?;
//! println!("running on {}", rt.device().name);
//! let kernel = rt.load_kernel("scale", &translated_spirv())?;
//!
//! // Guest memory: a 64-bit GPU address inside the window.
//! let n = 1024u32;
//! let buf = rt.alloc(4 * u64::from(n))?;
//! let input: Vec<u8> = (0..n).flat_map(|i| i.to_le_bytes()).collect();
//! rt.upload(buf, &input)?;
//!
//! // Constant bank 0 as the CUDA driver lays it out: blockDim, gridDim, then the parameters
//! // (here `scale(unsigned *p, unsigned k)`: p at 0x160, k at 0x168).
//! let (grid, block) = ([n / 256, 1, 1], [256, 1, 1]);
//! let mut params = buf.to_le_bytes().to_vec();
//! params.extend(3u32.to_le_bytes());
//! let bank0 = Bank0::new(grid, block).with_params(&params);
//!
//! rt.launch(&Launch { kernel, grid, block, dynamic_shared_bytes: 0, banks: &[(0, bank0.as_bytes())] })?;
//! let mut out = vec![0u8; input.len()];
//! rt.download(buf, &mut out)?;
//! rt.free(buf)?;
//! # Ok(()) }
//! ```

mod alloc;
mod bank0;
pub mod cache_entry;
mod device;
mod disk_cache;
mod error;
mod globals;
mod heap;
mod gpu;
pub mod graphics;
pub mod printf;
mod grid;
mod reflect;
mod runtime;
mod selftest;
mod spirv_cache;
pub mod texture_format;
pub use selftest::{
    float_record_bytes, float_record_file, float_record_identity, float_selftest_module,
    parse_float_record, FloatSamples,
};
pub use spirv_cache::{entry_bytes, fnv1a_128, parse_entry, SpirvCache, TranslationKey};

pub use alloc::WindowAllocator;
pub use bank0::Bank0;
pub use device::{
    choose_device, enumerate_devices, format_api_version, DeviceFeatures, DeviceInfo, DeviceKind,
    DeviceLimits, DeviceSelector, REQUIRED_API_VERSION,
};
pub use disk_cache::{
    cache_file, cache_warnings, header_matches, header_names, open_pipeline_cache, pipeline_cache_key,
    seal_pipeline_cache, write_atomically, PipelineCacheLocation,
};
pub use error::{AssertionFailure, Result, RuntimeError};
pub use globals::ModuleData;
pub use printf::PrintfOutput;
pub use grid::{chunk_count, split_grid, DispatchChunk};
pub use reflect::{reflect, ModuleInterface};
pub use runtime::{
    BlockOrder, Completed, HostTexture, TextureMemory, KernelId, Launch, LaunchReport, MemoryMode, QueuedLaunch, TimestampId, Runtime, RuntimeOptions, DEFAULT_MAX_WINDOW_BYTES, WINDOW_BYTES_ENV, default_window_bytes,
    DEFAULT_CPU_LAUNCH_TIMEOUT, DEFAULT_LAUNCH_TIMEOUT,
};
/// The binding layout shared with the translator.
pub use sassport_translator::abi;
