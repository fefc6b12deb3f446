//! [`DriverError`]: why a driver call failed, mapped to the `CUresult` CUDA defines for that failure.

use crate::result::*;
use sassport_runtime::RuntimeError;

/// A failed driver call. [`DriverError::code`] is what the entry point returns; the message goes to the log.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    #[error("cuInit has not been called")]
    NotInitialized,
    #[error("invalid argument: {0}")]
    InvalidValue(String),
    #[error("no usable Vulkan device: {0}")]
    NoDevice(String),
    #[error("no device with ordinal {0}")]
    InvalidDevice(i32),
    #[error("no current context, or a context handle sassport did not issue")]
    InvalidContext,
    #[error("unknown {what} handle {handle:#x}")]
    InvalidHandle { what: &'static str, handle: usize },
    #[error("no {what} named {name:?}")]
    NotFound { what: &'static str, name: String },
    #[error("{0}")]
    InvalidImage(String),
    #[error("the module carries no SM86 machine code ({0}); sassport translates SASS and does not compile PTX")]
    NoBinaryForGpu(String),
    #[error("not supported by sassport: {0}")]
    NotSupported(String),
    #[error("too many resources requested for launch: {0}")]
    LaunchOutOfResources(String),
    #[error("kernel {kernel}: the translator refused it: {reason}")]
    Refused { kernel: String, reason: String },
    /// A kernel failed while it ran (fault, trap, assertion): the context is unusable from then on, and
    /// every call on it returns this, as CUDA's sticky errors.
    #[error("the context is unusable after an earlier kernel failure: {message}")]
    Sticky { code: CUresult, message: String },
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    /// Queued work has not completed yet (a stream or event query).
    #[error("the queued work has not completed")]
    NotReady,
    /// A stream-capture rule broken (`CUDA_ERROR_STREAM_CAPTURE_*`), named in the message.
    #[error("stream capture: {message}")]
    Capture { code: CUresult, message: String },
}

impl DriverError {
    /// The `CUresult` for this failure.
    pub fn code(&self) -> CUresult {
        match self {
            DriverError::NotInitialized => CUDA_ERROR_NOT_INITIALIZED,
            DriverError::InvalidValue(_) => CUDA_ERROR_INVALID_VALUE,
            DriverError::NoDevice(_) => CUDA_ERROR_NO_DEVICE,
            DriverError::InvalidDevice(_) => CUDA_ERROR_INVALID_DEVICE,
            DriverError::InvalidContext => CUDA_ERROR_INVALID_CONTEXT,
            DriverError::InvalidHandle { .. } => CUDA_ERROR_INVALID_HANDLE,
            DriverError::NotFound { .. } => CUDA_ERROR_NOT_FOUND,
            DriverError::InvalidImage(_) => CUDA_ERROR_INVALID_IMAGE,
            DriverError::NoBinaryForGpu(_) => CUDA_ERROR_NO_BINARY_FOR_GPU,
            DriverError::NotSupported(_) | DriverError::Refused { .. } => CUDA_ERROR_NOT_SUPPORTED,
            DriverError::LaunchOutOfResources(_) => CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
            DriverError::Sticky { code, .. } => *code,
            DriverError::Runtime(e) => runtime_code(e),
            DriverError::NotReady => CUDA_ERROR_NOT_READY,
            DriverError::Capture { code, .. } => *code,
        }
    }
}

/// Whether a runtime failure happened while a kernel ran (and so makes the context unusable, as in CUDA).
pub fn is_execution_failure(e: &RuntimeError) -> bool {
    matches!(
        e,
        RuntimeError::Fault { .. }
            | RuntimeError::MemorySpaceFault { .. }
            | RuntimeError::ControlFault { .. }
            | RuntimeError::Trap { .. }
            | RuntimeError::AssertionFailed(_)
            | RuntimeError::NoProgress { .. }
    )
}

/// The CUDA result for a runtime failure.
pub fn runtime_code(e: &RuntimeError) -> CUresult {
    match e {
        RuntimeError::OutOfMemory { .. } | RuntimeError::WindowTooLarge { .. } => {
            CUDA_ERROR_OUT_OF_MEMORY
        }
        RuntimeError::ZeroSizedAllocation
        | RuntimeError::OutOfWindow { .. }
        | RuntimeError::NotAllocated { .. }
        | RuntimeError::InvalidFree { .. }
        | RuntimeError::InvalidLaunch { .. } => CUDA_ERROR_INVALID_VALUE,
        RuntimeError::NoDevice
        | RuntimeError::DeviceIndexOutOfRange { .. }
        | RuntimeError::DeviceNameNotFound(_) => CUDA_ERROR_NO_DEVICE,
        // A module-data relocation sassport does not apply (named in the message): refused, not unknown.
        RuntimeError::MissingFeature { .. } | RuntimeError::Relocation { .. } => CUDA_ERROR_NOT_SUPPORTED,
        RuntimeError::UnknownKernel(_) => CUDA_ERROR_INVALID_HANDLE,
        // More shared memory than the Vulkan device gives a workgroup (lavapipe: 32 KiB, less than the 48 KiB
        // a CUDA block may declare statically): CUDA's word for a launch the device cannot hold.
        RuntimeError::SharedMemoryLimit { .. } => CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        RuntimeError::Fault { .. } | RuntimeError::MemorySpaceFault { .. } => {
            CUDA_ERROR_ILLEGAL_ADDRESS
        }
        RuntimeError::ControlFault { .. }
        | RuntimeError::Trap { .. }
        | RuntimeError::NoProgress { .. } => CUDA_ERROR_LAUNCH_FAILED,
        RuntimeError::AssertionFailed(_) => CUDA_ERROR_ASSERT,
        // A kernel stopped for running too long (by the device's loop limit or the launch timeout): CUDA's
        // word for it is the watchdog's; the log line says which limit and where.
        RuntimeError::DeviceLoopLimit { .. }
        | RuntimeError::LaunchTimeout { .. }
        | RuntimeError::LaunchHung { .. } => CUDA_ERROR_LAUNCH_TIMEOUT,
        _ => CUDA_ERROR_UNKNOWN,
    }
}

pub type Result<T> = std::result::Result<T, DriverError>;
