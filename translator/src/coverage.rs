//! Which instruction words the translator lowers, found by lowering them: each word is placed alone before
//! an `EXIT` and translated in the dispatch form. `docs/isa-coverage.md` lists the result per class (for its
//! golden words), and an embedder can ask the same question of any word before committing to a program.

use crate::error::TranslateError;
use crate::program::{Program, TableDecoder};
use crate::translate::translate_decoded;

/// `EXIT ;` (no guard), the instruction placed after the word under test.
const EXIT: u128 = 0x000f_ea00_0380_0000_0000_0000_0000_794d;

/// Bits 81:34: the PC-relative target of branches, calls and `BSSY`; cleared so the target is the `EXIT`.
const TARGET_BITS: u128 = ((1u128 << 48) - 1) << 34;

/// What the translator does with one instruction word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordTranslation {
    /// Lowered to SPIR-V.
    Translated,
    /// Refused by name: the instruction as printed (`SHFL.IDX`) and the reason.
    Refused { name: String, reason: String },
    /// Not lowered for another reason (the word does not decode, or cannot stand alone).
    Failed(String),
}

/// Lowers `word` alone (followed by `EXIT`) with room for local and shared memory.
pub fn word_translation(word: u128) -> WordTranslation {
    match lower_alone(word) {
        // A branch whose target lies outside two instructions: the same word aimed at the next instruction.
        Err(TranslateError::BadTarget { .. }) => classify(lower_alone(word & !TARGET_BITS)),
        other => classify(other),
    }
}

fn classify(r: Result<(), TranslateError>) -> WordTranslation {
    match r {
        Ok(()) => WordTranslation::Translated,
        Err(TranslateError::NotTranslated { name, reason, .. }) => WordTranslation::Refused { name, reason },
        Err(e) => WordTranslation::Failed(e.to_string()),
    }
}

fn lower_alone(word: u128) -> Result<(), TranslateError> {
    let mut code = Vec::with_capacity(32);
    code.extend_from_slice(&word.to_le_bytes());
    code.extend_from_slice(&EXIT.to_le_bytes());
    let program = Program::build(".text.word", &code, 0, &TableDecoder)?;
    translate_decoded("word", &program, 1024, 48 * 1024).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_decodes_as_exit() {
        assert_eq!(sassport_gen::decode(sassport_gen::Word(EXIT)).map(|i| i.mnemonic()).ok(), Some("EXIT"));
    }

    #[test]
    fn words_are_classified() {
        // From the corpus listings: `IADD3 R2, R0, 0x1, RZ ;`-like ALU work translates; `SHFL.IDX` is
        // refused by name until warp instructions land.
        let saxpy = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/sm86/saxpy.cubin")).unwrap();
        let cubin = crate::Cubin::parse(&saxpy).unwrap();
        let code = cubin.code_section(".text.saxpy").unwrap().bytes;
        let first = u128::from_le_bytes(code[..16].try_into().unwrap());
        assert_eq!(word_translation(first), WordTranslation::Translated);
        assert!(matches!(word_translation(u128::MAX), WordTranslation::Failed(_)));
    }
}
