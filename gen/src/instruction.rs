//! Decoding words into instructions, and printing them.

use crate::access::Accesses;
use crate::error::{DecodeError, UnknownWord};
use crate::generated::access;
use crate::generated::classes::ClassId;
use crate::generated::fields::FIELDS;
use crate::generated::views::{self, View};
use crate::classify::{classify, variant};
use crate::generated::format;
use crate::operand::FieldInfo;
use crate::render::{write_pieces, TargetStyle};
use crate::word::{Word, WORD_BYTES};
use std::fmt;

/// A decoded instruction: its class and the word itself.
///
/// The print variant is not kept: it follows from the two, and decoding does not need it (every variant
/// of nearly every class accepts the same field values), so it is chosen when asked for or printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Instruction {
    word: Word,
    class: ClassId,
}

/// Decodes one word. Never panics; a word nvdisasm would refuse is an [`UnknownWord`].
#[inline]
pub fn decode(word: Word) -> Result<Instruction, UnknownWord> {
    match classify(word) {
        Ok(class) => Ok(Instruction { word, class }),
        Err(class) => Err(UnknownWord { word, class }),
    }
}

/// Decodes a run of code bytes (a `.text` section) whose first byte is at `base`, yielding each word's
/// address with its instruction or error. A trailing partial word is a [`DecodeError::TruncatedWord`].
pub fn decode_all(bytes: &[u8], base: u64) -> impl Iterator<Item = (u64, Result<Instruction, DecodeError>)> + '_ {
    let whole = bytes.len() / WORD_BYTES;
    let tail = bytes.len() % WORD_BYTES;
    let words = bytes.chunks_exact(WORD_BYTES).enumerate().map(move |(i, chunk)| {
        let address = base.wrapping_add((i * WORD_BYTES) as u64);
        let mut b = [0u8; WORD_BYTES];
        b.copy_from_slice(chunk);
        (address, decode(Word::from_le_bytes(b)).map_err(|e| e.at(address)))
    });
    let truncated = (tail != 0).then(|| {
        let address = base.wrapping_add((whole * WORD_BYTES) as u64);
        (address, Err(DecodeError::TruncatedWord { offset: address, len: tail }))
    });
    words.chain(truncated)
}

impl Instruction {
    pub fn word(&self) -> Word {
        self.word
    }

    pub fn class(&self) -> ClassId {
        self.class
    }

    /// Which of the class's print variants the word selects.
    pub fn variant(&self) -> u8 {
        variant(self.class, self.word)
    }

    /// The mnemonic nvdisasm prints first (`IMAD`, `LDG`, ...).
    pub fn mnemonic(&self) -> &'static str {
        self.class.mnemonic()
    }

    /// The typed view of the instruction: its mnemonic family's struct with named operands.
    pub fn view(&self) -> View {
        views::view(self.class, self.word)
    }

    /// The class's fields.
    pub fn fields(&self) -> &'static [FieldInfo] {
        FIELDS[self.class as usize]
    }

    /// The registers the instruction reads and writes (see [`crate::access`]); `None` for the classes
    /// whose accesses nvdisasm does not report (those that print an empty line, indirect branches, ...).
    #[inline(always)]
    pub fn accesses(&self) -> Option<Accesses> {
        let class = (*access::CLASSES.get(self.class as usize)?)?;
        Some(Accesses::new(class, self.word))
    }

    /// The raw value of the field with this table name, if the class has one.
    pub fn field(&self, name: &str) -> Option<u64> {
        self.fields().iter().find(|f| f.name == name).map(|f| f.extract(self.word))
    }

    /// Writes the instruction as nvdisasm `-raw` prints it when it lies at `address`, including the
    /// closing `;` exactly as nvdisasm writes it (`NOP;`, `EXIT ;`). With [`TargetStyle::Label`],
    /// PC-relative targets print as `` `(0xTARGET) `` instead of `0xTARGET`.
    #[inline]
    pub fn write_text<W: fmt::Write + ?Sized>(&self, out: &mut W, address: u64, style: TargetStyle) -> fmt::Result {
        let variants = format::TEMPLATES[self.class as usize];
        let pieces = match variants {
            // Most classes print one way: nothing to choose.
            [only] => only,
            _ => variants.get(usize::from(self.variant())).copied().unwrap_or(&[]),
        };
        write_pieces(out, &format::FORMAT, pieces, self.word, address, style)
    }

    /// [`Instruction::write_text`] into a new string.
    pub fn text(&self, address: u64, style: TargetStyle) -> String {
        let mut s = String::new();
        let _ = self.write_text(&mut s, address, style);
        s
    }
}
