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
}

impl TranslateError {
    /// The short reason used for refusal histograms: the instruction name and the reason, without place.
    pub fn kind(&self) -> String {
        match self {
            TranslateError::NotTranslated { name, reason, .. } => format!("{name}: {reason}"),
            TranslateError::Undecodable { .. } => "undecodable word".into(),
            TranslateError::BadTarget { name, .. } => format!("{name}: bad branch target"),
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
