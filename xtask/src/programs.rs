//! `cargo xtask programs [--out DIR]`: builds our CUDA programs (`corpus/programs/*.cu`) with the pinned nvcc
//! into `target/programs/` (see `sassport_corpus::programs`), for `sassport exec` and the exec tests.

use anyhow::Result;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Where the binaries go.
    #[arg(long)]
    out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let nvcc = crate::tools::nvidia_tool("nvcc")?;
    let out = args
        .out
        .unwrap_or_else(|| crate::tools::repo_root().join("target/programs"));
    for program in sassport_corpus::programs::PROGRAMS {
        let bin = sassport_corpus::programs::build(&nvcc, program, &out)?;
        println!("{}", bin.display());
    }
    Ok(())
}
