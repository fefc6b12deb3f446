//! The SM86 decoder and nvdisasm-syntax formatter, generated from the `isa` table by `cargo xtask regen`.
//!
//! One job: 128-bit instruction words in, typed instructions and nvdisasm `-raw` text out.
//! Depends on nothing else in the workspace at run time; the modules under `generated/` are never edited
//! by hand (CI fails on drift), the rest of this crate is their hand-written runtime.
//!
//! ```
//! use sassport_gen::{decode, TargetStyle, Word};
//! // `EXIT` as nvcc emits it.
//! let inst = decode(Word::from_halves(0x000000000000794d, 0x000fea0003800000)).unwrap();
//! assert_eq!(inst.mnemonic(), "EXIT");
//! assert_eq!(inst.text(0, TargetStyle::Absolute), "EXIT ;");
//! ```
//!
//! Typed views: [`Instruction::view`] gives a [`View`], one variant per mnemonic family (`View::Imad`), whose
//! struct names the operands (`dst`, `a`, `b`, `c`, from `isa/roles.txt`) as [`Operand`]s: a [`Src`]
//! (`Src::Reg`, `Src::Imm`, `Src::Cbuf`, `Src::UReg`, ...) with negate/absolute/not flags and the register
//! direction and width from the access rules.
//!
//! Encoding: [`encode`] writes a (possibly edited) view back into its word; [`encode_text`] turns nvdisasm
//! text and [`Control`] bits back into the word.
//!
//! Register use: [`Instruction::accesses`] lists the registers a word reads and writes (pairs and quads
//! as one access with a count, the guard predicate, a call's ABI registers), as nvdisasm's life-range
//! analysis reports them.
//!
//! ```
//! use sassport_gen::{decode, Word};
//! // `IMAD.WIDE R2, R6, R7, c[0x0][0x168]`: writes the pair R2:R3, reads R6 and R7.
//! let inst = decode(Word::from_halves(0x00005a0006027625, 0x000fc800078e0207)).unwrap();
//! let uses: Vec<String> = inst.accesses().unwrap().map(|a| a.to_string()).collect();
//! assert_eq!(uses, ["R2:2^", "R6v", "R7v"]);
//! ```

mod access;
mod asm;
mod classify;
mod control;
mod encode;
mod error;
mod float;
#[rustfmt::skip]
mod generated;
mod instruction;
mod operand;
mod render;
mod view;
mod word;

pub use access::{file_prefix, zero_register, Accesses, Direction, RegisterAccess};
pub use control::{Control, ControlError, CONTROL_MASK};
pub use asm::{assemble, write_control_line, AsmError};
pub use encode::{encode_text, encode_text_with, EncodeError};
pub use error::{DecodeError, UnknownWord};
pub use generated::classes::{ClassId, ARCH, CLASS_COUNT, NVDISASM_VERSION};
pub use generated::views::{self as views, encode, View, SLOTS};
pub use view::{Dir, Guard, Operand, Src, ViewError};
pub use instruction::{decode, decode_all, Instruction};
pub use operand::{Barrier, FieldInfo, FieldKind, Pred, Reg, RegFile, UPred, UReg};
pub use float::{write_float, FloatBits};
pub use render::{Bits, TargetStyle};
pub use word::{Word, WORD_BYTES};
