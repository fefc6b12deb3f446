//! `sassport`: the command-line edge of the workspace. Each subcommand lives in its own module and only
//! parses arguments, calls the library crates and prints; errors become `anyhow` reports here.

use clap::{Parser, Subcommand};

mod info;

#[derive(Parser)]
#[command(name = "sassport", version, about = "Run NVIDIA SM86 machine code anywhere Vulkan runs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List each kernel of a cubin with its parameters and resources.
    Info(info::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Info(args) => info::run(args),
    }
}
