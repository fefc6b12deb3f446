//! The SM86 encoding table (`isa/sm86.txt`) and its parser.
//!
//! One job: turn the checked-in, human-editable table into typed data for the generator in `xtask`.
//! Depends on nothing else in the workspace.
