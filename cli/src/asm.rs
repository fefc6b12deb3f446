//! `sassport asm FILE [-o OUT]`: assembles a control listing (what `sassport dis --control` prints, or
//! hand-written code in that syntax with labels) into SM86 words.
//!
//! With `-o`, the words go to OUT as a bare run of 16-byte little-endian words (what `nvdisasm -b SM86`
//! and `sassport dis --raw` read), written to a temporary file first and renamed, so a failed run leaves
//! no partial output. Without it, each word prints as `0x…` (32 hex digits) on its own line.

use anyhow::{Context, Result};
use std::io::{Read, Write as _};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The listing to assemble (`-` reads standard input).
    file: PathBuf,
    /// Write the words here as raw little-endian bytes.
    #[arg(short, long)]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<()> {
    let source = if args.file.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).context("reading standard input")?;
        s
    } else {
        std::fs::read_to_string(&args.file).with_context(|| format!("reading {}", args.file.display()))?
    };
    let words = sassport_gen::assemble(&source).with_context(|| format!("cannot assemble {}", args.file.display()))?;
    match args.output {
        Some(out) => {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let tmp = out.with_extension("partial");
            std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
            std::fs::rename(&tmp, &out).with_context(|| format!("renaming {} to {}", tmp.display(), out.display()))?;
        }
        None => {
            let mut text = String::new();
            for w in &words {
                text.push_str(&format!("{w}\n"));
            }
            std::io::stdout().lock().write_all(text.as_bytes()).context("writing standard output")?;
        }
    }
    Ok(())
}
