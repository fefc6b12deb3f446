//! Decoding errors. An unknown word names itself; the caller that knows where it came from adds the offset.

use crate::generated::classes::ClassId;
use crate::word::{Word, WORD_BYTES};

/// A word that matches no class of the table: its opcode key is unused, or its fixed bits match no class
/// sharing that key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unknown instruction word {word} (opcode key {key:#06x}{why})", key = word.opcode_key(),
    why = match class { Some(c) => format!(", class {} with an illegal field value", c.name()), None => String::new() })]
pub struct UnknownWord {
    pub word: Word,
    /// The class whose fixed bits the word matches, when one does but a field value is illegal for it.
    pub class: Option<ClassId>,
}

impl UnknownWord {
    /// The same error, placed at a byte offset of the code it was read from.
    pub fn at(self, offset: u64) -> DecodeError {
        DecodeError::UnknownWord { offset, word: self.word }
    }
}

/// What went wrong decoding a run of code bytes, with the byte offset where it happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("offset {offset:#06x}: unknown instruction word {word}")]
    UnknownWord { offset: u64, word: Word },
    #[error("offset {offset:#06x}: truncated instruction word ({len} of {WORD_BYTES} bytes)")]
    TruncatedWord { offset: u64, len: usize },
}

impl DecodeError {
    /// The byte offset the error refers to.
    pub fn offset(&self) -> u64 {
        match *self {
            DecodeError::UnknownWord { offset, .. } | DecodeError::TruncatedWord { offset, .. } => offset,
        }
    }
}
