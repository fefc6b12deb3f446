//! The library half of the `sassport` package: what the subcommands share with the end-to-end tests.

pub mod golden;
pub mod kernel_run;
pub mod scene;
pub mod spec;
