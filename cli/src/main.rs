//! `sassport`: the command-line edge of the workspace. Each subcommand lives in its own module and only
//! parses arguments, calls the library crates and prints; errors become `anyhow` reports here.

use clap::{Parser, Subcommand};

mod asm;
mod corpus;
mod devices;
mod dis;
mod dis_control;
mod dis_notes;
mod exec;
mod info;
mod listing;
mod render;
mod replay;
mod report;
mod run;
mod surface;
mod trace;
mod translate;

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
    /// Disassemble a cubin (or raw 16-byte words) in nvdisasm syntax.
    Dis(dis::Args),
    /// Translate each kernel of a cubin into a SPIR-V module.
    Translate(translate::Args),
    /// Translate one kernel and launch it on a Vulkan device.
    Run(run::Args),
    /// The main job: translate and run the shipped corpus, compared with silicon.
    Corpus(corpus::Args),
    /// List the Vulkan devices sassport can use.
    Devices(devices::Args),
    /// Measure a set of cubins: kernels translated and valid, refusals by form, disassembly agreement.
    Report(report::Args),
    /// Print the methods of pushbuffer streams.
    Trace(trace::Args),
    /// Replay a GPFIFO stream against a memory image.
    Replay(replay::Args),
    /// Copy a generated picture through the DMA engine's layouts and write it as PNG.
    Surface(surface::Args),
    /// Run an unmodified CUDA program (built for sm_86) with sassport's libcuda.so.1.
    Exec(exec::Args),
    /// Assemble a control listing (`dis --control` output, labels allowed) into raw SM86 words.
    Asm(asm::Args),
    /// Draw a scene file (vertex + fragment programs with their SPH) and write the targets.
    Render(render::Args),
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Info(args) => info::run(args),
        Command::Dis(args) => dis::run(args),
        Command::Translate(args) => translate::run(args),
        Command::Run(args) => run::run(args),
        Command::Corpus(args) => corpus::run(args),
        Command::Devices(args) => devices::run(args),
        Command::Report(args) => report::run(args),
        Command::Trace(args) => trace::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Surface(args) => surface::run(args),
        Command::Exec(args) => exec::run(args),
        Command::Asm(args) => asm::run(args),
        Command::Render(args) => render::run(args),
    }
}
