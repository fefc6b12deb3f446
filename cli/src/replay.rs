//! `sassport replay MEMORY GPFIFO OUT`: run a recorded GPFIFO stream against a memory image.
//!
//! MEMORY is mapped read/write at GPU VA 0; GPFIFO holds 8-byte little-endian GP entries pointing into
//! it. OUT receives the memory image after the stream, and only if the whole stream completed: a refused
//! method, a wait nothing can satisfy, a method header whose data words are missing or an inline upload
//! still waiting for data words at the end is an error and OUT is left as it was.

use anyhow::Context;
use sassport_engines::replay::{replay, ReplayOptions};
use sassport_engines::sector_layout::SectorLayout;
use sassport_engines::standard::EngineOptions;
use sassport_runtime::write_atomically;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Memory image, mapped read/write at GPU VA 0.
    pub memory: PathBuf,
    /// GPFIFO entries (8 bytes each, little-endian).
    pub gpfifo: PathBuf,
    /// Where to write the memory image after the stream.
    pub out: PathBuf,
    /// Sector order inside a GOB for block-linear surfaces: 16bx2 (Tegra X1) or turing2d.
    /// Required: the order is a property of the target GPU, never guessed.
    #[arg(long)]
    pub sector_layout: SectorLayout,
    /// Nanoseconds the semaphore timestamp clock advances per reading (it starts at 0).
    #[arg(long, default_value_t = 1000)]
    pub clock_step_ns: u64,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let memory = std::fs::read(&args.memory)
        .with_context(|| format!("reading {}", args.memory.display()))?;
    let gpfifo = std::fs::read(&args.gpfifo)
        .with_context(|| format!("reading {}", args.gpfifo.display()))?;
    let options = ReplayOptions {
        engines: EngineOptions {
            sector_layout: args.sector_layout,
        },
        clock_step_ns: args.clock_step_ns,
    };
    let replayed = replay(memory, &gpfifo, &options).with_context(|| {
        format!(
            "replaying {} against {}",
            args.gpfifo.display(),
            args.memory.display()
        )
    })?;
    // Only a whole stream gets here. A unique temporary file beside OUT, synced, then renamed over it: OUT
    // holds the old contents or the whole new image, never part of one, and a failed write leaves no file.
    write_atomically(&args.out, &replayed.memory).with_context(|| format!("writing {}", args.out.display()))?;
    eprintln!(
        "replayed {} GP entries; wrote {} ({} bytes)",
        replayed.entries,
        args.out.display(),
        replayed.memory.len()
    );
    Ok(())
}
