//! The decoded program of one kernel: its reachable instructions, basic blocks and control-flow graph.
//!
//! Decoding follows control flow from the entry (and from every call target and return point), so padding
//! and data after the last reachable instruction are never decoded. Leaders: the entry, branch, call and
//! `BSSY` reconvergence targets, the instruction after `BRA`/`EXIT`/`RET`/`CALL`/`BRX`/`BAR`/`WARPSYNC`, and
//! every `BSYNC`. A block's successors are the byte offsets it may continue at; `RET` continues at an offset
//! held in a register, which the control lowering resolves at run time against the blocks after calls.

mod cfg;
pub mod polling;
pub(crate) mod head;

pub use cfg::{Block, Exit};
pub(crate) use cfg::is_indirect_call;

use crate::error::TranslateError;
use sassport_gen::Word;

/// One decoded instruction.
#[derive(Debug, Clone, Copy)]
pub struct Inst {
    /// Byte offset within the code section.
    pub offset: u32,
    pub word: Word,
    /// The mnemonic as nvdisasm prints it first (`IMAD`, `LDG`, ...).
    pub mnemonic: &'static str,
}

impl Inst {
    /// The 13-bit opcode key (bit 91 as bit 12, then bits 11:0).
    #[inline]
    pub fn opcode(&self) -> u16 {
        self.word.opcode_key()
    }
    /// Bits `lo .. lo + width`.
    #[inline]
    pub fn bits(&self, lo: u32, width: u32) -> u32 {
        self.word.bits(lo, width) as u32
    }
    #[inline]
    pub fn bit(&self, n: u32) -> bool {
        self.word.bit(n)
    }
    /// The guard predicate (bits 14:12, negated by bit 15): `None` for `@PT` (always).
    #[inline]
    pub fn guard(&self) -> Option<(u8, bool)> {
        let p = self.bits(12, 3) as u8;
        let neg = self.bit(15);
        if p == 7 && !neg {
            None
        } else {
            Some((p, neg))
        }
    }
    /// PC-relative branch target (bits 81:34, in units of 4 bytes, from the next instruction).
    pub fn branch_target(&self) -> i64 {
        let rel = self.word.signed_bits(34, 48) << 2;
        i64::from(self.offset) + 16 + rel
    }
}

/// Where mnemonics come from: the generated decoder ([`TableDecoder`]) or, in tests, another disassembler.
pub trait Disassembler: Sync {
    /// The mnemonic of `word` at `offset`, or a reason it cannot be decoded.
    fn mnemonic(&self, offset: u64, word: Word) -> Result<&'static str, String>;
}

/// Mnemonics from `sassport-gen` (the checked-in SM86 table).
#[derive(Debug, Clone, Copy, Default)]
pub struct TableDecoder;

impl Disassembler for TableDecoder {
    fn mnemonic(&self, _offset: u64, word: Word) -> Result<&'static str, String> {
        match sassport_gen::decode(word) {
            Ok(i) if !i.mnemonic().is_empty() => Ok(i.mnemonic()),
            Ok(i) => Err(format!("class {} has no mnemonic", i.class().name())),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// A kernel's decoded program.
#[derive(Debug, Clone)]
pub struct Program {
    /// Name of the code section (`.text.k`), for messages.
    pub section: String,
    /// Entry offset within the section.
    pub entry: u32,
    /// Reachable instructions in offset order.
    pub insts: Vec<Inst>,
    /// Basic blocks in offset order.
    pub blocks: Vec<Block>,
    /// Offsets that a `RET` may return to (the instruction after each `CALL`).
    pub return_points: Vec<u32>,
    /// Entries of the functions a register-indirect `CALL` may reach (the address-taken functions of the
    /// section, `Cubin::address_taken_functions`), sorted; empty when the program makes no such call.
    pub call_targets: Vec<u32>,
    /// Targets of the program's indirect branches (`BRX`) as the cubin lists them, sorted.
    pub branch_targets: Vec<u32>,
    /// ELF index of the code section, for absolute code addresses (`abi::code_address`, `CALL.ABS Rn`); 0
    /// when the program does not come from a cubin.
    pub code_section: u16,
}

/// What the cubin says about a program's indirect control transfers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Targets<'a> {
    /// Targets of indirect branches (`BRX`), from `EIATTR_INDIRECT_BRANCH_TARGETS`.
    pub branches: &'a [u32],
    /// Entries of address-taken functions, the possible targets of `CALL Rn`.
    pub calls: &'a [u32],
    /// ELF index of the code section.
    pub code_section: u16,
}

/// Mnemonics that end a block and never fall through unconditionally. `KILL` is not one: it ends the
/// invocation inside its block (`OpTerminateInvocation`, lower/attribute).
pub(crate) fn is_branch(m: &str) -> bool {
    matches!(m, "BRA" | "EXIT" | "RET" | "CALL" | "BRX" | "JMP" | "JMX")
}

impl Program {
    /// Decodes the code reachable from `entry` in `code` (a whole code section) and builds the CFG.
    pub fn build(section: &str, code: &[u8], entry: u32, dis: &dyn Disassembler) -> Result<Program, TranslateError> {
        cfg::build(section, code, entry, &[], &[], dis)
    }

    /// [`Program::build`] with the targets of indirect branches (`BRX`), which the cubin lists
    /// (`EIATTR_INDIRECT_BRANCH_TARGETS`): they become block starts, reached through the dispatch loop.
    pub fn build_with_targets(
        section: &str,
        code: &[u8],
        entry: u32,
        indirect_targets: &[u32],
        dis: &dyn Disassembler,
    ) -> Result<Program, TranslateError> {
        cfg::build(section, code, entry, indirect_targets, &[], dis)
    }

    /// [`Program::build`] with everything the cubin says about indirect control transfers: `BRX` targets
    /// become block starts, and the address-taken functions are decoded when a `CALL Rn` can reach them.
    pub fn build_with(
        section: &str,
        code: &[u8],
        entry: u32,
        targets: &Targets<'_>,
        dis: &dyn Disassembler,
    ) -> Result<Program, TranslateError> {
        let mut p = cfg::build(section, code, entry, targets.branches, targets.calls, dis)?;
        p.code_section = targets.code_section;
        Ok(p)
    }

    /// The block starting at `offset`.
    pub fn block_at(&self, offset: u32) -> Option<&Block> {
        self.blocks.binary_search_by_key(&offset, |b| b.start).ok().and_then(|i| self.blocks.get(i))
    }

    /// The instruction at `offset`, if reachable.
    pub fn inst_at(&self, offset: u32) -> Option<&Inst> {
        self.insts.binary_search_by_key(&offset, |i| i.offset).ok().and_then(|i| self.insts.get(i))
    }

    /// Number of reachable instructions.
    pub fn len(&self) -> usize {
        self.insts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.insts.is_empty()
    }
}
