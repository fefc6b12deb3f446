//! The SM86 decoder and nvdisasm-syntax formatter, generated from the `isa` table by `cargo xtask regen`.
//!
//! One job: 128-bit instruction words in, typed instructions and nvdisasm `-raw` text out.
//! Depends on nothing else in the workspace at run time; the generated modules are never edited by hand.
