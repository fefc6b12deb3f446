//! Why a kernel was not translated. Every variant names where.

use crate::cubin::CubinError;
use sassport_gen::{TargetStyle, Word};

/// A refusal or failure of the translator; never a panic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    #[error("cubin: {0}")]
    Cubin(#[from] CubinError),
    #[error("no kernel named {0:?} in the cubin")]
    NoKernel(String),
    #[error("kernel {kernel:?}: code section {section:?} not found")]
    NoCode { kernel: String, section: String },
    #[error("{section}+{offset:#x}: cannot decode word {word:#034x}: {reason}")]
    Undecodable { section: String, offset: u32, word: u128, reason: String },
    #[error("{section}+{offset:#x}: control reaches the end of the code")]
    FallsOffCode { section: String, offset: u32 },
    #[error("{name} at {section}+{offset:#x}: branch target {target:#x} is outside the code or misaligned")]
    BadTarget { name: String, section: String, offset: u32, target: i64 },
    /// An instruction (or form of one) the translator does not lower. `name` is the mnemonic with its
    /// modifiers as far as the decoder prints them (`SHFL.IDX`).
    #[error("{name} at {section}+{offset:#x}: {reason}")]
    NotTranslated { name: String, section: String, offset: u32, reason: String },
    #[error("kernel {kernel:?}: {reason}")]
    Limit { kernel: String, reason: String },
    /// A stage the entry does not translate: the cubin entries take compute kernels only (graphics programs
    /// go through `translate_graphics::translate_stage`, which takes vertex and pixel programs).
    #[error("{kernel:?}: the {stage:?} stage is not translated by this entry")]
    StageNotTranslated { kernel: String, stage: crate::graphics::Stage },
    /// A graphics program whose Shader Program Header cannot be read.
    #[error("{0}")]
    Sph(#[from] crate::graphics::SphError),
    /// A header of another stage than the program was given as.
    #[error("{0}")]
    StageMismatch(#[from] crate::graphics::StageMismatch),
    /// A header field the graphics lowering does not handle (yet).
    #[error("{stage:?} program: SPH field {field}: {reason}")]
    GraphicsHeader { stage: crate::graphics::Stage, field: String, reason: String },
    /// An attribute read or written that the SPH's input or output map does not hold.
    #[error("{name} at {section}+{offset:#x}: attribute a[{address:#x}] is not in the SPH's {map} map")]
    AttributeOutsideMap { name: String, section: String, offset: u32, address: u32, map: &'static str },
    /// A call into the CUDA device runtime (`libcudadevrt`: device-side kernel launches, streams, events,
    /// device graph calls), which sassport does not provide; counted apart from other refusals in reports.
    #[error("{name} at {section}+{offset:#x}: call to `{symbol}`: {}", .what.description())]
    DeviceRuntime { name: String, section: String, offset: u32, symbol: String, what: DeviceRuntimeCall },
    /// The kernel needs device features the target profile lacks (`--without`, or the device itself) and
    /// that have no emulation yet; nothing is emitted.
    #[error("kernel {kernel:?} needs what the device profile lacks: {}", describe_missing(.missing))]
    MissingCapabilities { kernel: String, missing: Vec<MissingFeatureUse> },
    /// A relocated operand that the linker (`Cubin::link_kernel`) could not resolve, reached by the kernel: a
    /// `__device__` variable's address, a call or variable the cubin does not define, a relocation type it
    /// does not apply. `relocation` is the `R_CUDA_*` name.
    #[error("{name} at {section}+{offset:#x}: {relocation} against `{symbol}`: {reason}")]
    Relocation { name: String, section: String, offset: u32, symbol: String, relocation: String, reason: String },
}

/// One feature a kernel needs and the target lacks ([`TranslateError::MissingCapabilities`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingFeatureUse {
    pub feature: crate::features::Feature,
    /// The instruction that first needed it (`HMMA.16816.F32 at .text.k+0x1a0`), when known.
    pub site: Option<String>,
}

fn describe_missing(missing: &[MissingFeatureUse]) -> String {
    let parts: Vec<String> = missing
        .iter()
        .map(|m| {
            let f = m.feature;
            match &m.site {
                Some(site) => format!("{f} ({}), first needed by {site}", f.vulkan_name()),
                None => format!("{f} ({})", f.vulkan_name()),
            }
        })
        .collect();
    parts.join("; ")
}

/// What a refused device-runtime call is for ([`TranslateError::DeviceRuntime`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeviceRuntimeCall {
    /// `__cudaCDP2LaunchDevice*`, `__cudaCDP2GetParameterBuffer*` (a `<<<>>>` in a kernel).
    KernelLaunch,
    /// `cudaGraphLaunch`, `cudaGraphSetConditional` and the other device graph calls.
    Graph,
    /// Grid and multi-grid synchronisation through the device runtime (`cudaCGSynchronize*`).
    GridSync,
    /// The rest of the device runtime: streams, events, memory copies, attributes, errors.
    Other,
}

impl DeviceRuntimeCall {
    /// The device-runtime function `symbol` belongs to, if it is one.
    pub fn of(symbol: &str) -> Option<DeviceRuntimeCall> {
        let s = symbol;
        if s.contains("LaunchDevice") || s.contains("GetParameterBuffer") {
            return Some(DeviceRuntimeCall::KernelLaunch);
        }
        if s.starts_with("cudaGraph") || s.starts_with("__cudaGraph") || s.starts_with("__cudaCDP2Graph") {
            return Some(DeviceRuntimeCall::Graph);
        }
        if s.starts_with("cudaCG") || s.starts_with("__cuda_syscall_CGS") {
            return Some(DeviceRuntimeCall::GridSync);
        }
        let runtime = s.starts_with("__cudaCDP")
            || s.starts_with("__cuda_syscall_")
            || s.starts_with("cnp")
            || s == "__cudaDeviceSynchronizeDeprecationAvoidance"
            || s.starts_with("cudaStream")
            || s.starts_with("cudaEvent")
            || s.starts_with("cudaMemcpy")
            || s.starts_with("cudaMemset")
            || s.starts_with("cudaDevice")
            || s.starts_with("cudaGet")
            || s.starts_with("cudaPeekAtLastError")
            || s.starts_with("cudaFuncGetAttributes")
            || s.starts_with("cudaOccupancy")
            || s.starts_with("cudaRuntimeGetVersion")
            || s == "cudaMalloc"
            || s == "cudaFree";
        runtime.then_some(DeviceRuntimeCall::Other)
    }

    /// What the refusal message says.
    pub fn description(self) -> &'static str {
        match self {
            DeviceRuntimeCall::KernelLaunch => "device-side kernel launch (dynamic parallelism) is not supported",
            DeviceRuntimeCall::Graph => "device-side graph call (device graph launch, conditional nodes) is not supported",
            DeviceRuntimeCall::GridSync => {
                "grid synchronisation through the device runtime (cooperative launch) is not supported"
            }
            DeviceRuntimeCall::Other => {
                "the CUDA device runtime (dynamic parallelism's streams, events, copies and queries) is not supported"
            }
        }
    }
}

impl TranslateError {
    /// Whether this is a refusal of a device-runtime call (dynamic parallelism, device graphs), which reports
    /// count apart.
    pub fn is_device_runtime(&self) -> bool {
        matches!(self, TranslateError::DeviceRuntime { .. })
    }

    /// The short reason used for refusal histograms: the instruction name and the reason, without place.
    pub fn kind(&self) -> String {
        match self {
            TranslateError::NotTranslated { name, reason, .. } => format!("{name}: {reason}"),
            TranslateError::Undecodable { .. } => "undecodable word".into(),
            TranslateError::BadTarget { name, .. } => format!("{name}: bad branch target"),
            TranslateError::DeviceRuntime { what, .. } => format!("device runtime: {}", what.description()),
            TranslateError::Relocation { name, relocation, reason, .. } => format!("{name}: {relocation}: {reason}"),
            other => other.to_string(),
        }
    }
}

/// The printed name of an instruction (mnemonic plus modifiers, guard dropped) as the generated formatter
/// writes it; the bare mnemonic when the formatter does not know the word.
pub fn display_name(word: Word, mnemonic: &str) -> String {
    match sassport_gen::decode(word) {
        Ok(i) if i.mnemonic() == mnemonic => {
            let text = i.text(0, TargetStyle::Absolute);
            let mut parts = text.split_whitespace();
            let mut first = parts.next().unwrap_or(mnemonic);
            if first.starts_with('@') {
                first = parts.next().unwrap_or(mnemonic);
            }
            first.trim_end_matches(';').to_string()
        }
        _ => mnemonic.to_string(),
    }
}
