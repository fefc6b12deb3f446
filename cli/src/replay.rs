//! `sassport replay MEMORY GPFIFO OUT`: run a recorded GPFIFO stream against a memory image.
//!
//! MEMORY is mapped read/write at GPU VA 0; GPFIFO holds 8-byte little-endian GP entries pointing into
//! it. OUT receives the memory image after the stream, and only if the whole stream completed.

use anyhow::Context;
use sassport_engines::replay::{replay, ReplayOptions};
use sassport_engines::sector_layout::SectorLayout;
use sassport_engines::standard::EngineOptions;
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
    // Write beside OUT and rename, so OUT never holds a partial image.
    let mut tmp = args.out.clone().into_os_string();
    tmp.push(".partial");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, &replayed.memory).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &args.out)
        .with_context(|| format!("renaming {} to {}", tmp.display(), args.out.display()))?;
    eprintln!(
        "replayed {} GP entries; wrote {} ({} bytes)",
        replayed.entries,
        args.out.display(),
        replayed.memory.len()
    );
    Ok(())
}
