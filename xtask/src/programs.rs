//! `cargo xtask programs [--out DIR]`: builds our CUDA programs (`corpus/programs/*.cu`) with the pinned nvcc
//! into `target/programs/` (see `sassport_corpus::programs`), for `sassport exec` and the exec tests.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

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

/// The main job's second part: every program built, then run through `sassport exec` (the release build),
/// one row each with its verdict (the program's own PASS line and exit status), its time and, when it did
/// not pass, the last line it printed; then a summary line.
pub fn run_all(device: Option<&str>) -> Result<()> {
    let root = crate::tools::repo_root();
    let nvcc = crate::tools::nvidia_tool("nvcc")?;
    let out = root.join("target/programs");
    let sassport = root.join("target/release/sassport");
    println!("\nCUDA programs (corpus/programs, nvcc -gencode arch=compute_86,code=sm_86), through sassport exec:");
    let mut passed = 0;
    for program in sassport_corpus::programs::PROGRAMS {
        let bin = sassport_corpus::programs::build(&nvcc, program, &out)?;
        let row = run_one(&sassport, &bin, device)?;
        passed += usize::from(row.passed);
        println!("  {program:<16} {:<5} exit {:<3} {:>7.2} s  {}", row.verdict(), row.code, row.seconds, row.note);
    }
    let total = sassport_corpus::programs::PROGRAMS.len();
    println!("programs: {passed} of {total} PASS through sassport exec");
    Ok(())
}

struct ProgramRow {
    passed: bool,
    code: i32,
    seconds: f64,
    note: String,
}

impl ProgramRow {
    fn verdict(&self) -> &'static str {
        if self.passed {
            "PASS"
        } else {
            "FAIL"
        }
    }
}

fn run_one(sassport: &Path, bin: &Path, device: Option<&str>) -> Result<ProgramRow> {
    let mut cmd = Command::new(sassport);
    cmd.arg("exec");
    if let Some(device) = device {
        cmd.args(["--device", device]);
    }
    cmd.arg("--").arg(bin);
    let start = Instant::now();
    let output = cmd.output().with_context(|| format!("running {}", sassport.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let code = output.status.code().unwrap_or(-1);
    let passed = code == 0 && stdout.lines().any(|l| l.starts_with("PASS"));
    // Where it did not pass, the reason is usually its last line (FAIL ..., or the unsupported call named).
    let note = if passed {
        String::new()
    } else {
        stderr.lines().chain(stdout.lines()).filter(|l| !l.trim().is_empty()).last().unwrap_or("").to_owned()
    };
    Ok(ProgramRow { passed, code, seconds, note })
}
