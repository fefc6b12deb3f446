//! `cargo xtask <task>`: the project's own tooling. Build-time only; nothing in the product depends on it.

use clap::{Parser, Subcommand};

#[cfg(feature = "coverage")]
mod arch_compat;
mod ci;
mod corpus;
mod coverage;
mod plr;
mod probe;
mod programs;
mod regen;
mod tools;
mod verify_isa;

#[derive(Parser)]
#[command(name = "xtask", about = "sassport project tasks")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Install the pinned NVIDIA tools into `.tools/` and the Debian packages tests need.
    Tools(tools::Args),
    /// Compile `corpus/src/*.cu` into committed sm_86 cubins and nvdisasm listings.
    Corpus(corpus::Args),
    /// Build our CUDA programs (`corpus/programs/*.cu`) into `target/programs/` with the pinned nvcc.
    Programs(programs::Args),
    /// Derive the SM86 encoding table by probing the pinned nvdisasm.
    Probe(probe::Args),
    /// Generate the `gen` crate from the table (`--check` fails on drift).
    Regen(regen::Args),
    /// Compare the generated disassembler with nvdisasm on random legal words.
    VerifyIsa(verify_isa::Args),
    /// Write the translation status of every class into docs/isa-coverage.md (`--check` fails on drift).
    Coverage(coverage::Args),
    /// Measure which SMs' machine code is SM86's (nvdisasm for each SM), into docs/architectures.md.
    #[cfg(feature = "coverage")]
    ArchCompat(arch_compat::Args),
    /// Install what is missing, then run the test suite (the README's test command).
    Test(ci::TestArgs),
    /// The main job: install what is missing, then translate and run the shipped corpus.
    Main(ci::MainArgs),
    /// The CI entry point: drift checks, then `test`.
    Ci,
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().task {
        Task::Tools(args) => tools::run(args),
        Task::Corpus(args) => corpus::run(args),
        Task::Programs(args) => programs::run(args),
        Task::Probe(args) => probe::run(args),
        Task::Regen(args) => regen::run(args),
        Task::VerifyIsa(args) => verify_isa::run(args),
        Task::Coverage(args) => coverage::run(args),
        #[cfg(feature = "coverage")]
        Task::ArchCompat(args) => arch_compat::run(args),
        Task::Test(args) => ci::test(args),
        Task::Main(args) => ci::main_job(args),
        Task::Ci => ci::ci(),
    }
}
