//! The runtime's error type: every failure names what was asked for and why it could not be done.

use ash::vk;

/// Everything that can go wrong in the runtime.
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    /// The Vulkan loader (libvulkan) could not be opened.
    #[error("cannot load the Vulkan loader (libvulkan): {0}")]
    LoaderMissing(String),
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan entry point.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// The loader found no physical device.
    #[error("no Vulkan device found")]
    NoDevice,
    /// `--device N` named an index past the end of the device list.
    #[error("no Vulkan device with index {index} ({count} found)")]
    DeviceIndexOutOfRange {
        /// The requested index.
        index: usize,
        /// How many devices exist.
        count: usize,
    },
    /// `--device NAME` matched no device name.
    #[error("no Vulkan device whose name contains {0:?}")]
    DeviceNameNotFound(String),
    /// The chosen device lacks something sassport or a kernel needs.
    #[error("device {device:?} cannot be used: {missing}")]
    MissingFeature {
        /// The device name.
        device: String,
        /// What is missing, e.g. "Vulkan 1.3 (device has 1.1.0)" or "shaderFloat64".
        missing: String,
    },
    /// No memory type has the property flags a resource needs.
    #[error("no memory type with flags {flags:?} for {purpose}")]
    NoMemoryType {
        /// The flags looked for.
        flags: vk::MemoryPropertyFlags,
        /// What the memory was for.
        purpose: &'static str,
    },
    /// The requested window is larger than the device allows (its device-local memory, or as many chunk
    /// buffers as one stage may bind).
    #[error("window of {requested} bytes exceeds the {max} bytes the device allows (less {reserved} reserved for the fault record)")]
    WindowTooLarge {
        /// Requested window size.
        requested: u64,
        /// The most the device allows.
        max: u64,
        /// Bytes reserved after the window.
        reserved: u64,
    },
    /// `SASSPORT_WINDOW_BYTES` is not a byte count (digits, optionally `K`, `M`, `G` or `T`).
    #[error("{variable}={value:?} is not a window size in bytes (e.g. 3G, 512M, 100GiB)")]
    WindowOption {
        /// The environment variable.
        variable: &'static str,
        /// Its value.
        value: String,
    },
    /// No free range of the window is large enough.
    #[error("out of window memory: {requested} bytes requested, largest free range {largest_free} bytes")]
    OutOfMemory {
        /// Requested size (before alignment).
        requested: u64,
        /// Largest free range.
        largest_free: u64,
    },
    /// A zero-byte allocation was asked for.
    #[error("zero-byte allocation")]
    ZeroSizedAllocation,
    /// A range lies (partly) outside the window.
    #[error("range 0x{address:x}+{len} lies outside the window 0x{base:x}..0x{end:x}")]
    OutOfWindow {
        /// Start of the range.
        address: u64,
        /// Its length.
        len: u64,
        /// First address of the window.
        base: u64,
        /// One past its last address.
        end: u64,
    },
    /// A range inside the window is not within one live allocation.
    #[error("range 0x{address:x}+{len} is not within one live allocation")]
    NotAllocated {
        /// Start of the range.
        address: u64,
        /// Its length.
        len: u64,
    },
    /// `free` of an address that is not the start of a live allocation (double free or a wild pointer).
    #[error("free of 0x{address:x}, which is not the start of a live allocation (double free?)")]
    InvalidFree {
        /// The address passed to `free`.
        address: u64,
    },
    /// A SPIR-V module could not be parsed.
    #[error("kernel {kernel:?}: SPIR-V module is malformed: {reason}")]
    MalformedModule {
        /// Kernel name.
        kernel: String,
        /// What the parser said.
        reason: String,
    },
    /// A module does not follow the binding ABI of `sassport_translator::abi`.
    #[error("kernel {kernel:?} does not follow the sassport ABI: {reason}")]
    AbiViolation {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// A kernel handle from another runtime, or one never issued.
    #[error("unknown kernel handle {0}")]
    UnknownKernel(u32),
    /// Launch parameters the device cannot run or CUDA would refuse.
    #[error("kernel {kernel:?}: invalid launch: {reason}")]
    InvalidLaunch {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        reason: String,
    },
    /// Pipeline creation did not finish within the configured timeout.
    #[error("kernel {kernel:?}: pipeline creation exceeded {seconds} s")]
    PipelineTimeout {
        /// Kernel name.
        kernel: String,
        /// The timeout.
        seconds: f64,
    },
    /// A kernel accessed global memory outside the window.
    #[error("kernel {kernel:?} faulted at pc 0x{pc:x}: {kind} of {size} bytes at address 0x{address:x} outside the window ({count} faulting accesses)")]
    Fault {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the faulting SASS instruction in the kernel's code.
        pc: u32,
        /// Guest address accessed.
        address: u64,
        /// "load", "store", "atomic" or "access kind N".
        kind: String,
        /// Access size in bytes.
        size: u32,
        /// How many accesses faulted in the launch.
        count: u32,
    },
    /// A kernel accessed shared or local memory outside its size (a load read 0, a store or atomic was
    /// dropped); for local memory usually a stack overflowed by deep recursion. Misaligned: [`Self::Misaligned`].
    #[error("kernel {kernel:?} faulted at pc 0x{pc:x}: {access} of {size} bytes at {space}-memory offset 0x{offset:x}, outside the {space} memory ({count} faulting accesses)")]
    MemorySpaceFault {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the faulting SASS instruction in the kernel's code.
        pc: u32,
        /// "shared" or "local".
        space: &'static str,
        /// "load", "store" or "atomic".
        access: &'static str,
        /// Byte offset in the space.
        offset: u64,
        /// Access size in bytes.
        size: u32,
        /// How many accesses faulted in the launch.
        count: u32,
    },
    /// A kernel made a register-indirect call, return or branch to a value that is no known target.
    #[error("kernel {kernel:?} faulted at pc 0x{pc:x}: indirect control transfer to 0x{target:x}, which is none of its known targets ({count} faulting invocations)")]
    ControlFault {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the `CALL`, `RET` or `BRX` in the kernel's code.
        pc: u32,
        /// The value it would have jumped to.
        target: u64,
        /// How many invocations faulted in the launch.
        count: u32,
    },
    /// A relocation of a cubin's module data could not be applied.
    #[error("relocating {section}+0x{offset:x}: {reason}")]
    Relocation {
        /// The section patched.
        section: String,
        /// Byte offset of the place.
        offset: u64,
        /// What is wrong.
        reason: String,
    },
    /// A kernel executed a trap (`BPT.TRAP`, CUDA's `__trap()`).
    #[error("kernel {kernel:?} trapped at pc 0x{pc:x}")]
    Trap {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the trapping SASS instruction in the kernel's code.
        pc: u32,
    },
    /// A kernel's `assert` failed (it called `__assertfail`); the message is CUDA's, after kernel and pc.
    #[error(transparent)]
    AssertionFailed(Box<AssertionFailure>),
    /// A warp-synchronous kernel (run in turns) reached a state where no thread could progress: every live
    /// thread waits at a barrier or convergence point that cannot complete. The kernel ended instead of hanging.
    #[error("kernel {kernel:?} can make no progress: threads wait at pc 0x{pc:x} for threads that never arrive")]
    NoProgress {
        /// Kernel name.
        kernel: String,
        /// Byte offset of an instruction a waiting thread is stuck at.
        pc: u32,
    },
    /// A kernel translated to run warps as subgroups found that the device does not number a block's
    /// invocations as warps (thread `t` in lane `t % 32` of subgroup `t / 32`); it stopped before running.
    #[error("kernel {kernel:?} runs warps as subgroups, but the device does not lay a block's threads out in 32-thread subgroups in order; translate it in the turns form (--warps turns)")]
    SubgroupLayout {
        /// Kernel name.
        kernel: String,
    },
    /// Reading or writing the on-disk pipeline cache failed.
    #[error("pipeline cache {path}: {source}")]
    CacheIo {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A kernel's static shared memory, or a launch's static plus dynamic shared memory, exceeds what the
    /// device gives a workgroup (`maxComputeSharedMemorySize`); CUDA refuses such a launch too.
    #[error("kernel {kernel:?}: {static_bytes} bytes of static and {dynamic_bytes} of dynamic shared memory exceed the device's limit of {limit} bytes (maxComputeSharedMemorySize)")]
    SharedMemoryLimit {
        /// Kernel name.
        kernel: String,
        /// The kernel's static shared memory (the cubin's `.nv.shared.<kernel>` size).
        static_bytes: u64,
        /// The launch's dynamic shared memory (0 when refused at load).
        dynamic_bytes: u64,
        /// The device's limit.
        limit: u32,
    },
    /// A kernel made a misaligned access: an address that is not a multiple of the access size, which SM86
    /// reports as a misaligned address (`CUDA_ERROR_MISALIGNED_ADDRESS`). A load read 0, a store or atomic
    /// was dropped.
    #[error("kernel {kernel:?} faulted at pc 0x{pc:x}: misaligned {access} of {size} bytes at {space} 0x{address:x} ({count} faulting accesses)")]
    Misaligned {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the faulting SASS instruction in the kernel's code.
        pc: u32,
        /// "address" for global memory, "shared-memory offset" or "local-memory offset".
        space: &'static str,
        /// "load", "store" or "atomic".
        access: &'static str,
        /// Guest address, or byte offset in shared or local memory.
        address: u64,
        /// Access size in bytes.
        size: u32,
        /// How many accesses faulted in the launch.
        count: u32,
    },
    /// A kernel called `free` with a pointer the device heap did not hand out, or freed a block twice
    /// (the block was left alone).
    #[error("kernel {kernel:?} at pc 0x{pc:x}: free({pointer:#x}): not a block of the device heap, or freed already ({count} faulting calls)")]
    HeapFault {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the call to `free` in the kernel's code.
        pc: u32,
        /// The pointer passed to `free`.
        pointer: u64,
        /// How many invocations faulted in the launch.
        count: u32,
    },
    /// A texture or surface instruction met a header the translated sampler does not handle, or a surface
    /// access outside its surface with `.TRAP` (cudaBoundaryModeTrap); the result read 0 / was dropped.
    #[error("kernel {kernel:?} at pc 0x{pc:x}: texture handle {handle:#x}: {why} ({count} faulting accesses)")]
    TextureFault {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the texture or surface instruction in the kernel's code.
        pc: u32,
        /// The handle (TIC index bits 19:0, TSC index 31:20).
        handle: u64,
        /// What the lowering's reason code says.
        why: &'static str,
        /// How many invocations faulted in the launch.
        count: u32,
    },
    /// The device heap's size cannot change now (CUDA's `cudaLimitMallocHeapSize` is fixed once a kernel
    /// that uses `malloc` is loaded), or the size is larger than the allocator addresses.
    #[error("device heap size {requested} bytes: {reason}")]
    HeapSize {
        /// The size asked for.
        requested: u64,
        /// Why it cannot be set.
        reason: &'static str,
    },
    /// The device left a loop on its own (lavapipe's loop limiter: 65,535 loop iterations per shader and
    /// group of 8 SIMD lanes, all loops together; docs/device-quirks.md), so the results would be wrong; the
    /// translated code noticed and stopped the kernel.
    #[error("kernel {kernel:?}: the device's loop limit ({limit} iterations) cut the loop at pc 0x{pc:x}; the kernel runs longer loops than this device can")]
    DeviceLoopLimit {
        /// Kernel name.
        kernel: String,
        /// Byte offset of the loop's first instruction (or of the exit where the last check found it).
        pc: u32,
        /// The device's limit.
        limit: u32,
    },
    /// The launch ran longer than its timeout (`RuntimeOptions::launch_timeout`, `Runtime::set_launch_timeout`): the
    /// runtime raised the abort word, which every translated loop polls, and the kernel stopped.
    #[error("kernel {kernel:?} did not finish within {seconds} s (launch timeout); it was stopped")]
    LaunchTimeout {
        /// Kernel name.
        kernel: String,
        /// The timeout, in seconds.
        seconds: f64,
    },
    /// The launch ran past its timeout and did not stop within the grace period after the abort word was
    /// raised (a loop that does not poll it, or a window the host cannot write while the device runs). The
    /// device may still be running it; the runtime cannot be used further.
    #[error("kernel {kernel:?} did not finish within {seconds} s and did not stop when asked; the device may still be running it")]
    LaunchHung {
        /// Kernel name.
        kernel: String,
        /// The timeout plus the grace period, in seconds.
        seconds: f64,
    },
    /// Work was asked of a runtime after one of its launches did not stop when asked
    /// ([`RuntimeError::LaunchHung`]): that kernel may still hold the queue, its fence and its buffers, so
    /// nothing more is submitted (a new `Runtime` may be opened once the device has finished or been reset).
    #[error("the device is still busy with kernel {kernel:?}, which did not stop when asked; this runtime takes no more work")]
    DeviceUnusable {
        /// The kernel of the launch that hung.
        kernel: String,
    },
    /// A texture or sampler that has no host image or sampler (format, address mode, ...), or a bad upload.
    #[error("texture: {0}")]
    Texture(String),
}

/// Where and how a device-side `assert` failed: what `__assertfail` was called with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel {kernel:?} at pc 0x{pc:x}: {file}:{line}: {function}: block: [{},{},{}], thread: [{},{},{}] Assertion `{message}` failed.", .block[0], .block[1], .block[2], .thread[0], .thread[1], .thread[2])]
pub struct AssertionFailure {
    /// Kernel name.
    pub kernel: String,
    /// Byte offset of the call to `__assertfail` in the kernel's code.
    pub pc: u32,
    /// The asserted expression, as the compiler wrote it.
    pub message: String,
    /// Source file.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// The function's signature.
    pub function: String,
    /// `blockIdx` of the first failing thread.
    pub block: [u32; 3],
    /// `threadIdx` of the first failing thread.
    pub thread: [u32; 3],
}

impl RuntimeError {
    pub(crate) fn vk(call: &'static str) -> impl FnOnce(vk::Result) -> RuntimeError {
        move |result| RuntimeError::Vulkan { call, result }
    }
}

/// Result alias of this crate.
pub type Result<T, E = RuntimeError> = std::result::Result<T, E>;
