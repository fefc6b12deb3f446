//! Insta snapshots of the SPIR-V (disassembled text) that the translator emits for every corpus kernel.
//!
//! One job: hold the snapshot tests and their committed `.snap` files. A test-only crate.
