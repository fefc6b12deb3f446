//! The SM86 encoding table (`isa/sm86.txt`) and its parser.
//!
//! One job: turn the checked-in, human-editable table into typed data for the generator in `xtask`
//! ([`parse_table`]), and back ([`write_table`], which `cargo xtask probe` uses to write the table).
//! [`eval`] interprets a table directly (decode and print one word); the probe checks every entry with
//! it before writing, and the tests check every golden pair with it. The data model ([`model`]) documents how a decoder and an nvdisasm-exact formatter use each part; the
//! text format is described in `docs/isa-table.md`. Depends on nothing else in the workspace.

pub mod eval;
pub mod model;
mod parse;
mod families;
mod roles;
mod write;

pub use model::*;
pub use parse::{parse_register_listing, parse_table, ParseError};
pub use families::{parse_families, CondField, Condition, Families, Split};
pub use roles::{parse_roles, Roles};
pub use write::{format_name, kind_name, quote, register_listing, write_table};

/// The committed SM86 table's text, as checked in.
pub const SM86_TABLE: &str = include_str!("../sm86.txt");

/// The committed role file (operand names and modifier flags the generator's typed views use).
pub const SM86_ROLES: &str = include_str!("../roles.txt");

/// Parses the committed SM86 table.
pub fn sm86() -> Result<Table, ParseError> {
    parse_table(SM86_TABLE)
}
