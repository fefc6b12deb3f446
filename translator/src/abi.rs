//! The contract between the translator and the runtime: descriptor bindings, specialisation constants, the
//! layout of sassport's own launch values, the fault record, and the device profile the translator is given.
//!
//! The translator emits SPIR-V against these numbers and the runtime binds and fills resources by them; neither
//! side may use a binding, offset or id that is not named here. `docs/abi.md` explains the choices.
//!
//! Plain constants and `#[repr(C)]` structs only: no dependencies, no behaviour beyond layout arithmetic.

/// The one descriptor set every translated module uses.
pub const DESCRIPTOR_SET: u32 = 0;

/// Binding of sassport's own launch values ([`LaunchValues`]): a uniform buffer read as `uvec4[LAUNCH_VALUES_VEC4S]`.
///
/// The runtime binds it as a dynamic uniform buffer so that one recorded launch can move it per dispatch
/// (grids larger than the device's workgroup-count limit are split into several dispatches).
pub const LAUNCH_VALUES_BINDING: u32 = 0;

/// Number of CUDA constant banks (`c[0x0]` .. `c[0x1f]`).
pub const CONSTANT_BANK_COUNT: u32 = 32;

/// Binding of constant bank 0; bank `b` is at `FIRST_BANK_BINDING + b`, so banks 0..31 use bindings 1..=32.
pub const FIRST_BANK_BINDING: u32 = 1;

/// Largest constant bank, in bytes (the CUDA limit, and Vulkan's common `maxUniformBufferRange`).
pub const MAX_BANK_BYTES: u32 = 0x1_0000;

/// Stride of the `uvec4` array through which every uniform buffer of this ABI is read.
pub const UNIFORM_ARRAY_STRIDE: u32 = 16;

/// Binding of the global-memory window: a storage buffer whose byte `a - window_base` holds guest global
/// address `a`. Its canonical view is `struct { uint words[]; }` (ArrayStride 4); a module may declare further
/// aliased views (`uvec2`, `uint64_t`) of the same binding.
pub const GLOBAL_WINDOW_BINDING: u32 = 33;

/// Highest binding number of this ABI; a module using any other binding is rejected by the runtime.
pub const LAST_BINDING: u32 = GLOBAL_WINDOW_BINDING;

/// Name of the compute entry point of every translated module.
pub const ENTRY_POINT: &str = "main";

/// Specialisation-constant ids of the workgroup size (= CUDA block size). A module declares the `WorkgroupSize`
/// built-in as a spec-constant composite of these three ids (defaults 1); the runtime specialises one pipeline
/// per block shape, so a module is translated once and serves every block size.
pub const SPEC_ID_BLOCK_DIM_X: u32 = 0;
/// See [`SPEC_ID_BLOCK_DIM_X`].
pub const SPEC_ID_BLOCK_DIM_Y: u32 = 1;
/// See [`SPEC_ID_BLOCK_DIM_X`].
pub const SPEC_ID_BLOCK_DIM_Z: u32 = 2;
/// Specialisation-constant id of the dynamic shared-memory size in bytes (CUDA's launch-time `sharedMem`),
/// for modules that size a Workgroup array as `static + dynamic` words. Always provided; unused ids are ignored.
pub const SPEC_ID_DYNAMIC_SHARED_BYTES: u32 = 3;
/// Specialisation-constant id of the kernel's static shared memory in bytes (the cubin's `.nv.shared.<kernel>`
/// size), declared by a module with shared memory as the default of this id, which the runtime reads from the
/// module (to refuse, by name, a launch whose static plus dynamic shared memory exceeds the device's limit)
/// and never sets.
pub const SPEC_ID_STATIC_SHARED_BYTES: u32 = 4;
/// Specialisation-constant id declared by a module whose kernel waits in a loop for what other blocks write
/// (CUB's decoupled look-back; `program::polling`), with the waiting instruction's offset as its default. The
/// runtime reads it and never sets it: it then runs the blocks one at a time in ascending order, the only
/// order in which such a wait always ends on a Vulkan device (`docs/block-order.md`).
pub const SPEC_ID_POLLS_OTHER_BLOCKS: u32 = 5;
/// Specialisation-constant id declared (default 1) by a module that keeps the kernel's shared memory in the
/// window, one slot per workgroup of a dispatch, because it does not fit the device's shared memory: slot
/// `gl_WorkGroupID.x` at window word `shared_window[0] + gl_WorkGroupID.x * shared_window[1]`. The runtime
/// then dispatches at most [`SHARED_WINDOW_SLOTS`] workgroups along x (1 along y and z) at a time, one
/// dispatch after another. Read by the runtime, never set.
pub const SPEC_ID_SHARED_IN_WINDOW: u32 = 6;
/// Slots of window-backed shared memory: the most workgroups one dispatch of such a kernel runs.
pub const SHARED_WINDOW_SLOTS: u32 = 64;
/// Bytes of a module's own Workgroup variables (the turns scheduler's words, locks) assumed beside the
/// kernel's shared memory when the translator decides whether the kernel's fits the device.
pub const WORKGROUP_RESERVE_BYTES: u32 = 512;

/// Default guest address of the first byte of the global-memory window. Far from 0 so that null and small
/// pointers fault, and below 2^47 like the addresses the CUDA driver hands out.
pub const DEFAULT_WINDOW_BASE: u64 = 0x7f00_0000_0000;

/// Alignment of every allocation the runtime hands out inside the window (CUDA guarantees 256).
pub const ALLOCATION_ALIGNMENT: u64 = 256;

/// Where the fault record sits in the binding-33 buffer: right after the window, at this alignment, so no
/// in-window access can overwrite it.
pub const FAULT_RECORD_ALIGNMENT: u64 = 256;

/// sassport's launch values at binding 0, one copy per dispatch. All fields are little-endian 32-bit words
/// (64-bit values as low word first), so the std140 `uvec4` view and this struct agree byte for byte:
/// word `w` is component `w % 4` of `data[w / 4]`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchValues {
    /// Guest address of byte 0 of the window (words 0, 1).
    pub window_base: u64,
    /// Size of the guest-addressable window in bytes (words 2, 3). An access to `[a, a + n)` is in the window
    /// iff `a >= window_base` and `a - window_base + n <= window_size`.
    pub window_size: u64,
    /// Index of the fault record's first 32-bit word within the binding-33 buffer (word 4).
    pub fault_record_word: u32,
    /// Identifier of the kernel being run, copied into the fault record (word 5).
    pub kernel_id: u32,
    /// Index of the printf area's first word within the binding-33 buffer (word 6); see [`printf_word`].
    pub printf_area_word: u32,
    /// Words of the printf area available for records, after its two counters (word 7).
    pub printf_capacity_words: u32,
    /// CUDA `gridDim` of the whole launch, w = 0 (words 8..11).
    pub grid_dim: [u32; 4],
    /// CUDA `blockDim`, w = 0 (words 12..15). Equal to the specialised workgroup size.
    pub block_dim: [u32; 4],
    /// Block index of this dispatch's first workgroup, w = 0 (words 16..19):
    /// `ctaid = gl_WorkGroupID + workgroup_base`.
    pub workgroup_base: [u32; 4],
    /// Guest addresses of the texture-header (TIC) pool and the sampler (TSC) pool, low word first (words
    /// 20..23): what the TEX and SU families read a handle's 32-byte entries from (`lower/texture.rs`). 0: no
    /// pool (a texture instruction records [`FAULT_KIND_TEXTURE`]).
    pub texture_pools: [u32; 4],
    /// Window-backed shared memory ([`SPEC_ID_SHARED_IN_WINDOW`]): window word of slot 0, words per slot, 0,
    /// 0 (words 24..27); zeros for other kernels.
    pub shared_window: [u32; 4],
}

/// Size of [`LaunchValues`] in `uvec4`s: the array length a module declares at binding 0.
pub const LAUNCH_VALUES_VEC4S: u32 = (core::mem::size_of::<LaunchValues>() / 16) as u32;

/// 32-bit word offsets of the launch-value fields, for SPIR-V emission.
pub mod launch_word {
    /// Low word of `window_base`; the high word follows.
    pub const WINDOW_BASE: u32 = 0;
    /// Low word of `window_size`; the high word follows.
    pub const WINDOW_SIZE: u32 = 2;
    /// `fault_record_word`.
    pub const FAULT_RECORD_WORD: u32 = 4;
    /// `kernel_id`.
    pub const KERNEL_ID: u32 = 5;
    /// `printf_area_word`.
    pub const PRINTF_AREA_WORD: u32 = 6;
    /// `printf_capacity_words`.
    pub const PRINTF_CAPACITY_WORDS: u32 = 7;
    /// `grid_dim.x`; y and z follow.
    pub const GRID_DIM: u32 = 8;
    /// `block_dim.x`; y and z follow.
    pub const BLOCK_DIM: u32 = 12;
    /// `workgroup_base.x`; y and z follow.
    pub const WORKGROUP_BASE: u32 = 16;
    /// Low word of the texture-header pool's address; the high word, then the sampler pool's follow.
    pub const TEXTURE_POOLS: u32 = 20;
    /// Window word of the first window-backed shared-memory slot; the words per slot follow.
    pub const SHARED_WINDOW: u32 = 24;
}

// The word offsets above are the layout; keep the struct honest.
const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<LaunchValues>() % 16 == 0);
    assert!(offset_of!(LaunchValues, window_base) == 4 * launch_word::WINDOW_BASE as usize);
    assert!(offset_of!(LaunchValues, window_size) == 4 * launch_word::WINDOW_SIZE as usize);
    assert!(
        offset_of!(LaunchValues, fault_record_word) == 4 * launch_word::FAULT_RECORD_WORD as usize
    );
    assert!(offset_of!(LaunchValues, kernel_id) == 4 * launch_word::KERNEL_ID as usize);
    assert!(offset_of!(LaunchValues, grid_dim) == 4 * launch_word::GRID_DIM as usize);
    assert!(offset_of!(LaunchValues, block_dim) == 4 * launch_word::BLOCK_DIM as usize);
    assert!(offset_of!(LaunchValues, workgroup_base) == 4 * launch_word::WORKGROUP_BASE as usize);
    assert!(offset_of!(LaunchValues, texture_pools) == 4 * launch_word::TEXTURE_POOLS as usize);
    assert!(offset_of!(LaunchValues, shared_window) == 4 * launch_word::SHARED_WINDOW as usize);
    assert!(size_of::<FaultRecord>() == 4 * FAULT_RECORD_WORDS as usize);
    assert!(offset_of!(FaultRecord, address) == 4 * fault_word::ADDRESS as usize);
};

impl LaunchValues {
    /// The launch values as the little-endian bytes the shader reads.
    pub fn to_bytes(&self) -> [u8; core::mem::size_of::<LaunchValues>()] {
        let mut words = [0u32; core::mem::size_of::<LaunchValues>() / 4];
        words[0] = self.window_base as u32;
        words[1] = (self.window_base >> 32) as u32;
        words[2] = self.window_size as u32;
        words[3] = (self.window_size >> 32) as u32;
        words[4] = self.fault_record_word;
        words[5] = self.kernel_id;
        words[6] = self.printf_area_word;
        words[7] = self.printf_capacity_words;
        words[8..12].copy_from_slice(&self.grid_dim);
        words[12..16].copy_from_slice(&self.block_dim);
        words[16..20].copy_from_slice(&self.workgroup_base);
        words[20..24].copy_from_slice(&self.texture_pools);
        words[24..28].copy_from_slice(&self.shared_window);
        let mut bytes = [0u8; core::mem::size_of::<LaunchValues>()];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }
}

/// The fault record in the binding-33 buffer at word [`LaunchValues::fault_record_word`]; zeroed by the runtime
/// before each launch and read after it.
///
/// Protocol for a faulting invocation: `OpAtomicIAdd(count, 1)`; then `OpAtomicCompareExchange(flag, 0 -> 1)`;
/// only the invocation that saw 0 writes `kind`, `kernel_id`, `pc`, `address` and `size`. The host reads the
/// record after the launch's fence, so the first fault is reported whole and `count` says how many followed.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FaultRecord {
    /// 0: no fault; 1: the fields below describe the first fault.
    pub flag: u32,
    /// One of the `FAULT_KIND_*` values.
    pub kind: u32,
    /// [`LaunchValues::kernel_id`] of the faulting launch.
    pub kernel_id: u32,
    /// Byte offset of the faulting SASS instruction within its kernel's `.text` section.
    pub pc: u32,
    /// Guest address of the access (low word first: words 4, 5).
    pub address: u64,
    /// Number of faulting accesses (all invocations, saturating at `u32::MAX` only by wrap-around).
    pub count: u32,
    /// Size of the faulting access in bytes.
    pub size: u32,
}

/// Size of the fault record in 32-bit words.
pub const FAULT_RECORD_WORDS: u32 = 8;

/// Word offsets within [`FaultRecord`].
pub mod fault_word {
    /// `flag` (set with an atomic compare-exchange 0 -> 1).
    pub const FLAG: u32 = 0;
    /// `kind`.
    pub const KIND: u32 = 1;
    /// `kernel_id`.
    pub const KERNEL_ID: u32 = 2;
    /// `pc`.
    pub const PC: u32 = 3;
    /// Low word of `address`; the high word follows.
    pub const ADDRESS: u32 = 4;
    /// `count` (atomic add).
    pub const COUNT: u32 = 6;
    /// `size`.
    pub const SIZE: u32 = 7;
}

/// Fault kind: a load outside the window (the load read 0).
pub const FAULT_KIND_LOAD: u32 = 1;
/// Fault kind: a store outside the window (the store was dropped).
pub const FAULT_KIND_STORE: u32 = 2;
/// Fault kind: an atomic or reduction outside the window (dropped; an atomic's result reads 0).
pub const FAULT_KIND_ATOMIC: u32 = 3;
/// Fault kind: the kernel executed a trap (`BPT.TRAP`, CUDA `__trap()`); address and size are 0.
pub const FAULT_KIND_TRAP: u32 = 4;
/// Fault kind: a register-indirect control transfer (`CALL Rn`, `RET Rn`, `BRX Rn`) to a value that is none
/// of the targets the translator knows for that instruction (address-taken functions, return points, jump-table
/// entries). `address` is the 64-bit value the instruction would have jumped to (for the relative forms the
/// register plus the instruction's base, as a section offset), size 0; the invocation stops there.
pub const FAULT_KIND_CONTROL: u32 = 5;

/// Tag in bits 63:48 of a code address (see [`code_address`]).
pub const CODE_ADDRESS_TAG: u64 = 0xc0de;

/// The value of an absolute code address: what the runtime writes for a relocation against a function
/// symbol (`R_CUDA_64 f` in `.nv.global.init` or a constant bank), what `CALL.ABS Rn` jumps to, and what
/// `LEPC` reads. `section` is the ELF section index of the code section, `offset` the byte offset in it.
///
/// Code does not live in the global window, so a code address is a name, not a place: the tag keeps it out
/// of every window (guest addresses are below 2^47) so a load through a function pointer faults, and the
/// section index keeps functions of different kernels apart. Function pointers of whole-program cubins are
/// not code addresses at all but bank-2 descriptor offsets (see `cubin::functions`), which need no value
/// from the runtime.
pub const fn code_address(section: u16, offset: u32) -> u64 {
    (CODE_ADDRESS_TAG << 48) | ((section as u64) << 32) | offset as u64
}

/// Section index used in [`code_address`] for functions the cubin declares but does not define (`vprintf`,
/// `malloc`, `__assertfail`): their address is `code_address(EXTERN_SECTION, symbol table index)`.
pub const EXTERN_SECTION: u16 = 0xffff;
/// Fault kind: the threads of a block could make no progress (warp-synchronous kernels run in turns: every
/// live thread waits at a barrier or convergence point that cannot complete); pc is a waiting thread's,
/// address and size 0.
pub const FAULT_KIND_NO_PROGRESS: u32 = 7;
/// Fault kind: warps run as subgroups (the subgroup form) and the device did not give thread `t` of the block
/// subgroup invocation `t % 32` of subgroup `t / 32`, so lane exchanges would pair the wrong threads; the
/// invocation stopped before running anything. pc is the kernel's entry, address and size 0.
pub const FAULT_KIND_SUBGROUP_LAYOUT: u32 = 8;

/// Fault kinds: a shared-memory load, store or atomic outside the block's shared memory or misaligned; `address`
/// is the shared-memory byte offset, `size` the access size (a load read 0, a store or atomic was dropped).
pub const FAULT_KIND_SHARED_LOAD: u32 = 9;
/// See [`FAULT_KIND_SHARED_LOAD`].
pub const FAULT_KIND_SHARED_STORE: u32 = 10;
/// See [`FAULT_KIND_SHARED_LOAD`].
pub const FAULT_KIND_SHARED_ATOMIC: u32 = 11;
/// Fault kinds: a local-memory (stack) load or store outside the thread's local memory or misaligned — deep
/// recursion overflowing the stack ends here; `address` is the local byte offset.
pub const FAULT_KIND_LOCAL_LOAD: u32 = 12;
/// See [`FAULT_KIND_LOCAL_LOAD`].
pub const FAULT_KIND_LOCAL_STORE: u32 = 13;
/// Fault kind: the device's own loop limit ([`DeviceProfile::loop_iteration_limit`]) was reached, so a loop
/// may have been left early; pc is the loop's (or, for the last check before the invocation ends, the exit's),
/// address and size 0. The invocation stops.
pub const FAULT_KIND_LOOP_LIMIT: u32 = 14;

/// Words at the end of the reserved block after the window that hold the abort word (its first word): the host
/// writes 1 there when a launch runs past its timeout, and every loop polls it (`control::guard`). Its index is
/// `printf_area_word + printf_word::RECORDS + printf_capacity_words`, right after the printf records.
pub const ABORT_BLOCK_WORDS: u32 = 64;

/// The abort block's words from this index on are the lock words of 64-bit atomics emulated on devices without
/// `Int64Atomics` (`lower::soft_atomic64`): zero when free. The runtime zeroes the whole block before a launch.
pub const ATOMIC64_LOCK_FIRST: u32 = 32;

/// Number of those lock words (a power of two; an address's lock is picked by its 8-byte index).
pub const ATOMIC64_LOCK_WORDS: u32 = 32;

/// Whether a memory fault (kinds 1, 2, 3 and 9..=13) was a misaligned access: its address (or space offset) is
/// not a multiple of its size. SM86 reports such an access as a misaligned address
/// (`CUDA_ERROR_MISALIGNED_ADDRESS`) whether or not it is in range, so the record needs no flag of its own: the
/// translated checks record every failed access with its exact address and size.
pub const fn fault_is_misaligned(kind: u32, address: u64, size: u32) -> bool {
    let memory = matches!(kind, FAULT_KIND_LOAD | FAULT_KIND_STORE | FAULT_KIND_ATOMIC)
        || (kind >= FAULT_KIND_SHARED_LOAD && kind <= FAULT_KIND_LOCAL_STORE);
    memory && size > 1 && address % size as u64 != 0
}

/// Threads in an SM86 warp.
pub const WARP_SIZE: u32 = 32;

impl FaultRecord {
    /// Decodes a record from the eight little-endian words the shader wrote.
    pub fn from_words(w: &[u32; FAULT_RECORD_WORDS as usize]) -> Self {
        FaultRecord {
            flag: w[fault_word::FLAG as usize],
            kind: w[fault_word::KIND as usize],
            kernel_id: w[fault_word::KERNEL_ID as usize],
            pc: w[fault_word::PC as usize],
            address: u64::from(w[fault_word::ADDRESS as usize])
                | (u64::from(w[fault_word::ADDRESS as usize + 1]) << 32),
            count: w[fault_word::COUNT as usize],
            size: w[fault_word::SIZE as usize],
        }
    }
}

/// Driver-reserved words of constant bank 0 that nvcc's sm_86 code reads, as byte offsets (see
/// `shared/notes/cubin.md`). The runtime fills them the way the CUDA driver does.
pub mod bank0 {
    /// `blockDim.x`, `.y`, `.z` (three u32).
    pub const BLOCK_DIM: u32 = 0x0;
    /// `gridDim.x`, `.y`, `.z` (three u32).
    pub const GRID_DIM: u32 = 0xc;
    /// Initial stack pointer (R1), a local-memory address.
    pub const STACK_POINTER: u32 = 0x28;
    /// Dynamic shared memory of the launch in bytes (`%dynamic_smem_size`; nvcc reads it from here).
    pub const DYNAMIC_SHARED_SIZE: u32 = 0x2c;
    /// The 64-bit global-memory descriptor read by `ULDC.64` for `desc[URx]` accesses.
    pub const GLOBAL_MEMORY_DESCRIPTOR: u32 = 0x118;
    /// First byte of the kernel parameters.
    pub const PARAMS: u32 = 0x160;
}

/// What the device can do, as the translator needs to know it to choose native or emulated lowering.
/// Filled by the runtime from Vulkan properties and features, plus an optional measured float self-test.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceProfile {
    /// Vulkan API version the device reports (`VK_MAKE_API_VERSION` encoding).
    pub api_version: u32,
    /// Default subgroup size.
    pub subgroup_size: u32,
    /// Smallest and largest subgroup size selectable with subgroup-size control (both equal to
    /// `subgroup_size` when control is unavailable).
    pub min_subgroup_size: u32,
    /// See `min_subgroup_size`.
    pub max_subgroup_size: u32,
    /// `subgroupSizeControl` and `computeFullSubgroups` are both enabled.
    pub subgroup_size_control: bool,
    /// `VkSubgroupFeatureFlags` supported in compute shaders (0 when compute is not a supported stage).
    pub subgroup_operations: u32,
    /// `VK_KHR_shader_maximal_reconvergence` is enabled: modules may declare `MaximallyReconvergesKHR`.
    pub maximal_reconvergence: bool,
    /// `shaderInt64` enabled (always true: sassport requires it for 64-bit addresses).
    pub int64: bool,
    /// `shaderFloat64` enabled.
    pub float64: bool,
    /// `shaderInt16` enabled.
    pub int16: bool,
    /// `shaderFloat16` enabled.
    pub float16: bool,
    /// `shaderInt8` enabled.
    pub int8: bool,
    /// 64-bit integer atomics on storage buffers and shared memory.
    pub int64_atomics: bool,
    /// The Vulkan memory model is enabled.
    pub vulkan_memory_model: bool,
    /// `maxComputeSharedMemorySize` in bytes.
    pub max_shared_memory_bytes: u32,
    /// `maxComputeWorkGroupInvocations`.
    pub max_workgroup_invocations: u32,
    /// `maxComputeWorkGroupSize`.
    pub max_workgroup_size: [u32; 3],
    /// Float-controls properties (what may be requested with execution modes).
    pub float_controls: FloatControls,
    /// Results of the measured float self-test; `None` fields were not measured.
    pub measured: MeasuredFloat,
    /// The device leaves loops on its own after this many loop iterations (lavapipe's gallivm: 65,535,
    /// counted together over all loops of a shader per group of SIMD lanes; docs/device-quirks.md). The
    /// translator then checks every loop for a cut and unrolls innermost loops; `None` on other devices.
    pub loop_iteration_limit: Option<u32>,
    /// Features the translator must do without (`--without`, and what the device lacks, as the runtime
    /// fills it): emulated where an emulation exists (soft double for `float64`, turns for `subgroups-32`),
    /// refused by name otherwise. Hand-made profiles leave it empty: their feature flags are not read.
    pub without: Features,
    /// Guest memory as an array of storage-buffer chunks instead of one buffer (`None`: one buffer, today's
    /// module). Set by the runtime for windows larger than `maxStorageBufferRange` (docs/abi.md).
    pub window_chunks: Option<WindowChunks>,
}

/// Guest memory as `count` chunk buffers of `2^log2_bytes` bytes each, reached through their buffer device
/// addresses; binding 33 then holds only the table of those addresses (from [`WINDOW_CHUNK_TABLE_WORD`], one
/// u64 per chunk) and the runtime's records after it. A power of two so a naturally aligned access of at
/// most 16 bytes never crosses a chunk; guest window byte `o` is byte `o % 2^log2_bytes` of chunk
/// `o >> log2_bytes`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WindowChunks {
    /// Chunks of guest memory (array elements `0..count`).
    pub count: u32,
    /// Bytes per chunk, log 2 (at least [`MIN_CHUNK_LOG2`]).
    pub log2_bytes: u32,
}

/// Smallest chunk: 1 MiB (the runtime chooses the largest power of two within `maxStorageBufferRange`).
pub const MIN_CHUNK_LOG2: u32 = 20;

/// Word of binding 33 where a chunked window's address table starts (chunk `c`: words `2c`, `2c + 1`).
pub const WINDOW_CHUNK_TABLE_WORD: u32 = 0;

impl WindowChunks {
    /// Bytes of binding 33 before the records: the address table, rounded up to the fault record's alignment.
    pub fn table_bytes(&self) -> u64 {
        (8 * u64::from(self.count)).next_multiple_of(FAULT_RECORD_ALIGNMENT)
    }
    /// Bytes per chunk.
    pub fn chunk_bytes(&self) -> u64 {
        1u64 << self.log2_bytes
    }
    /// Guest bytes the chunks cover.
    pub fn window_bytes(&self) -> u64 {
        u64::from(self.count) << self.log2_bytes
    }
}

pub use crate::features::{Feature, Features, UnknownFeature};

impl DeviceProfile {
    /// This profile with `mask` removed: the features' flags cleared, the mask added to
    /// [`DeviceProfile::without`] (which the translator reads), `subgroups-32` hiding the subgroup operations.
    pub fn without_features(&self, mask: Features) -> DeviceProfile {
        let mut p = self.clone();
        p.without = p.without.union(mask);
        for f in mask.iter() {
            match f {
                Feature::Float64 => p.float64 = false,
                Feature::Int64Atomics => p.int64_atomics = false,
                Feature::Float16 => p.float16 = false,
                Feature::Int16 => p.int16 = false,
                Feature::Int8 => p.int8 = false,
                Feature::Subgroups32 => p.subgroup_operations = 0,
            }
        }
        p
    }

    /// Whether the translator must do without `f`.
    pub fn lacks(&self, f: Feature) -> bool {
        self.without.contains(f)
    }
}

/// lavapipe's loop limit (Mesa gallivm's `LP_MAX_TGSI_LOOP_ITERATIONS`).
pub const LAVAPIPE_LOOP_ITERATION_LIMIT: u32 = 65_535;

/// `VkPhysicalDeviceFloatControlsProperties`, per width: index 0 = f16, 1 = f32, 2 = f64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct FloatControls {
    /// `DenormPreserve` may be requested.
    pub denorm_preserve: [bool; 3],
    /// `DenormFlushToZero` may be requested.
    pub denorm_flush_to_zero: [bool; 3],
    /// `SignedZeroInfNanPreserve` may be requested.
    pub signed_zero_inf_nan_preserve: [bool; 3],
    /// `RoundingModeRTE` may be requested.
    pub rounding_rte: [bool; 3],
    /// `RoundingModeRTZ` may be requested.
    pub rounding_rtz: [bool; 3],
    /// Denormal behaviour can be set per width independently (`VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL`).
    pub denorm_independence_all: bool,
    /// Rounding mode can be set per width independently.
    pub rounding_independence_all: bool,
}

/// What a one-time self-test dispatch measured on the device (plain SPIR-V ops, no float-controls modes):
/// the properties do not tell the whole story (lavapipe reports no denormal preservation yet preserves).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MeasuredFloat {
    /// `GLSL.std.450 Fma` on f32 rounds once (fused): `fma(1+2^-23, 1-2^-23, -1) == -2^-46`.
    pub fma_f32_fused: Option<bool>,
    /// An f32 add of two denormals keeps the denormal result without any execution mode.
    pub denorm_f32_preserved: Option<bool>,
    /// `GLSL.std.450 Fma` on f64 rounds once.
    pub fma_f64_fused: Option<bool>,
    /// An f64 add of two denormals keeps the denormal result without any execution mode (NVIDIA reports no
    /// f64 `DenormPreserve`, so only a measurement says whether native f64 results keep SM86's denormals).
    pub denorm_f64_preserved: Option<bool>,
}

// ---- Functions the CUDA driver provides outside the cubin: device printf and assert ------------------------

/// Fault kind: a failed device-side `assert` (the kernel called `__assertfail`). `address` is the guest address
/// of the assertion's message, size 0; the details are in the assert record. The invocation stops there.
pub const FAULT_KIND_ASSERT: u32 = 6;

/// Where the assert record starts, in words after the fault record's first word. It lies in the same
/// [`FAULT_RECORD_ALIGNMENT`]-byte block after the window, which the runtime zeroes before every launch.
pub const ASSERT_RECORD_OFFSET: u32 = FAULT_RECORD_WORDS;

/// Size of the assert record in 32-bit words.
pub const ASSERT_RECORD_WORDS: u32 = 16;

/// Word offsets within the assert record. The first failing invocation claims `FLAG` (compare-exchange
/// 0 -> 1) and writes the rest: `__assertfail(message, file, line, function, charSize)` as called.
pub mod assert_word {
    /// 0: no assertion failed; 1: the fields describe the first one.
    pub const FLAG: u32 = 0;
    /// Byte offset of the `CALL` to `__assertfail` in the kernel's code section.
    pub const PC: u32 = 1;
    /// Guest address of the message (the asserted expression), low word first.
    pub const MESSAGE: u32 = 2;
    /// Guest address of the source file name, low word first.
    pub const FILE: u32 = 4;
    /// Source line.
    pub const LINE: u32 = 6;
    /// Guest address of the function name, low word first.
    pub const FUNCTION: u32 = 7;
    /// `charSize` (1 for `char` strings).
    pub const CHAR_SIZE: u32 = 9;
    /// `blockIdx.x`; y and z follow.
    pub const CTAID: u32 = 10;
    /// `threadIdx.x`; y and z follow.
    pub const TID: u32 = 13;
}

/// Where the printf area starts, in words after the fault record's first word (after the assert record, so
/// the area's two counters are in the block the runtime zeroes before every launch).
pub const PRINTF_AREA_OFFSET: u32 = ASSERT_RECORD_OFFSET + ASSERT_RECORD_WORDS;

/// Word offsets within the printf area at [`LaunchValues::printf_area_word`].
///
/// Protocol for a `vprintf` call: `off = OpAtomicIAdd(USED, len)`; when `off + len <= capacity` the record
/// goes to words `RECORDS + off ..`; otherwise `OpAtomicIAdd(DROPPED, 1)`, and the one invocation whose
/// record straddles the end (`off < capacity`) writes a 0 length at `RECORDS + off`, which ends the list.
/// Records never leave the area; the host reads `min(USED, capacity)` words and stops at a 0 length.
pub mod printf_word {
    /// Record words claimed (including claims that did not fit).
    pub const USED: u32 = 0;
    /// Records that did not fit.
    pub const DROPPED: u32 = 1;
    /// First record word.
    pub const RECORDS: u32 = 2;
}

/// Word offsets within one printf record; the argument bytes follow the header.
pub mod printf_record {
    /// Length of the record in words, header included (never 0).
    pub const LEN: u32 = 0;
    /// Byte offset of the `CALL` to `vprintf` in the kernel's code section.
    pub const PC: u32 = 1;
    /// Guest address of the format string, low word first.
    pub const FORMAT: u32 = 2;
    /// Bytes of argument data copied after the header (a multiple of 4).
    pub const ARG_BYTES: u32 = 4;
    /// Where the arguments came from: one of the `PRINTF_ARGS_*` values.
    pub const ARG_SOURCE: u32 = 5;
    /// `blockIdx.x`; y and z follow.
    pub const CTAID: u32 = 6;
    /// `threadIdx.x`; y and z follow.
    pub const TID: u32 = 9;
    /// Words of the header.
    pub const HEADER_WORDS: u32 = 12;
}

/// Most argument bytes a printf record carries: CUDA allows 32 arguments of at most 8 bytes each.
pub const PRINTF_MAX_ARG_BYTES: u32 = 256;
/// The argument buffer was in the thread's local memory (nvcc's stack) and was copied at call time, up to
/// [`PRINTF_MAX_ARG_BYTES`] or the end of local memory.
pub const PRINTF_ARGS_LOCAL: u32 = 0;
/// The argument pointer was null (a format without arguments).
pub const PRINTF_ARGS_NONE: u32 = 1;
/// The argument pointer was neither null nor in local memory; nothing was copied.
pub const PRINTF_ARGS_ELSEWHERE: u32 = 2;

// ---- The device heap: `malloc` and `free` (CUDA's `cudaLimitMallocHeapSize` heap) ---------------------------

/// Heap bytes the runtime gives kernels unless told otherwise: CUDA's default `cudaLimitMallocHeapSize`.
pub const DEFAULT_HEAP_BYTES: u64 = 8 << 20;
/// Largest heap the translated allocator addresses (block offsets and sizes are 32-bit).
pub const MAX_HEAP_BYTES: u64 = 1 << 31;
/// The heap header: the window's first bytes (binding-33 word [`HEAP_HEADER_WORD`], guest address
/// `window_base`), which the runtime reserves and fills when it is created (capacity 0 until a heap is placed).
pub const HEAP_HEADER_BYTES: u64 = 1024;
/// Binding-33 word index of the heap header.
pub const HEAP_HEADER_WORD: u32 = 0;
/// Alignment of every pointer `malloc` returns (CUDA guarantees 16 bytes).
pub const HEAP_ALIGNMENT: u64 = 16;
/// Bytes in front of every block's data: its state word and free-list link.
pub const HEAP_BLOCK_HEADER_BYTES: u32 = 16;
/// Size classes of blocks (see [`heap_block_bytes`]); each has a free list in the header.
pub const HEAP_CLASSES: u32 = 104;

/// Word offsets within the heap header.
///
/// Protocol (`translator/src/lower/heap.rs`): `malloc(n)` takes a block of the smallest class holding
/// `n + 16` bytes from that class's free list, else from `BUMP` (compare-exchange), else from the free list
/// of any larger class; `free(p)` marks the block free (compare-exchange of its state word, which catches
/// pointers the heap never handed out and double frees) and pushes it onto its class's list. Free-list heads
/// are 64-bit: the low word is the block's link (`offset / 16 + 1`, 0 for an empty list), the high word
/// a counter bumped by every push and pop, so a compare-exchange never mistakes a list that changed
/// and changed back (ABA).
pub mod heap_word {
    /// Word index in binding 33 of the arena's first byte (arena guest address: `window_base + 4 * ARENA`).
    pub const ARENA: u32 = 0;
    /// Arena bytes (a multiple of 16, at most [`super::MAX_HEAP_BYTES`]); 0: no heap, `malloc` returns null.
    pub const CAPACITY: u32 = 1;
    /// Arena bytes handed out from the top so far (only grows).
    pub const BUMP: u32 = 2;
    /// First free-list head (class `c` at `FREE_LISTS + 2 * c`, 8-byte aligned).
    pub const FREE_LISTS: u32 = 4;
}

/// A block's state word (word 0 of its 16-byte header) while its data is handed out: this tag | class.
pub const HEAP_BLOCK_USED: u32 = 0xa110_c000;
/// A block's state word while it is on a free list: this tag | class.
pub const HEAP_BLOCK_FREE: u32 = 0xf4ee_0000;

/// Bytes of a block of size class `class` (header included): 32, 48, 64, then four steps per power of two
/// (80, 96, 112, 128, 160, 192, ...), so no block is more than 25% larger than the request it serves.
pub const fn heap_block_bytes(class: u32) -> u64 {
    if class < 3 {
        return 32 + 16 * class as u64;
    }
    let k = 6 + (class - 3) / 4;
    let q = (class - 3) % 4 + 1;
    (1u64 << k) + (q as u64) * (1u64 << (k - 2))
}

/// The smallest size class whose blocks hold `total` bytes (header included, `32 <= total <= 2^31`).
pub const fn heap_class(total: u64) -> u32 {
    if total <= 64 {
        return if total <= 32 { 0 } else { ((total + 15) / 16 - 2) as u32 };
    }
    let k = 63 - (total - 1).leading_zeros();
    let step = 1u64 << (k - 2);
    let q = (total - (1u64 << k)).div_ceil(step);
    3 + (k - 6) * 4 + q as u32 - 1
}

/// Fault kind: `free` of a pointer the device heap did not hand out, or of a block already freed (address:
/// the pointer; the block is left alone, the invocation goes on).
pub const FAULT_KIND_HEAP: u32 = 15;
/// Fault kind: a texture or surface instruction could not be carried out as the hardware would (`lower/
/// texture.rs`): no pool, a header the in-shader sampler does not handle (its reason code in `size`, the
/// handle in `address`), or a surface access outside the surface with `.TRAP`. The result reads 0.
pub const FAULT_KIND_TEXTURE: u32 = 16;
