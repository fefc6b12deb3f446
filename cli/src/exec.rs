//! `sassport exec [--device D] -- PROGRAM [ARGS...]`: runs an unmodified CUDA program with sassport's
//! `libcuda.so.1` in front of the system's (through `LD_LIBRARY_PATH`), and exits with the program's status.
//!
//! The library is looked for in `$SASSPORT_CUDA_LIB` (a directory holding `libcuda.so.1`, or the file), then
//! beside this binary: `cuda/libcuda.so.1`, which `cargo build` leaves pointing at the built `libcuda.so` (and
//! which `exec` points at the newest build of it).

use anyhow::{bail, Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(clap::Args)]
pub struct Args {
    /// Vulkan device: an index from `sassport devices` or part of its name (default: every usable device).
    #[arg(long, value_name = "N|NAME")]
    device: Option<String>,
    /// Device features to do without (float64, int64-atomics, float16, int16, int8, subgroups-32), passed to
    /// sassport's libcuda as `SASSPORT_WITHOUT`.
    #[arg(long, value_name = "FEATURE,...", value_parser = sassport::kernel_run::parse_without)]
    without: Option<sassport_runtime::abi::Features>,
    /// The program and its arguments.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "PROGRAM"
    )]
    command: Vec<OsString>,
}

/// The directory to put on `LD_LIBRARY_PATH`: one holding a `libcuda.so.1` that is sassport's.
pub fn library_dir() -> Result<PathBuf> {
    if let Some(given) = std::env::var_os("SASSPORT_CUDA_LIB").map(PathBuf::from) {
        let dir = if given.is_dir() {
            given.clone()
        } else {
            given.parent().map(Path::to_path_buf).unwrap_or_default()
        };
        if !dir.join("libcuda.so.1").exists() {
            bail!(
                "SASSPORT_CUDA_LIB={} holds no libcuda.so.1",
                given.display()
            );
        }
        return Ok(dir);
    }
    let exe = std::env::current_exe().context("locating the sassport binary")?;
    let bin_dir = exe
        .parent()
        .context("the sassport binary has no directory")?;
    // `cargo build` leaves the library beside the binary; a test build (the library as a dependency) only in
    // deps/. Take the newest, so a stale copy is never run.
    let built = [bin_dir.join("libcuda.so"), bin_dir.join("deps/libcuda.so")]
        .into_iter()
        .filter_map(|p| {
            std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .ok()
                .map(|t| (t, p))
        })
        .max_by_key(|(t, _)| *t)
        .map(|(_, p)| p);
    let Some(built) = built else {
        bail!(
            "sassport's libcuda.so was not found beside {} (build it: `cargo build --release`, which builds the \
             sassport-cuda crate too)",
            exe.display()
        );
    };
    let dir = bin_dir.join("cuda");
    let link = dir.join("libcuda.so.1");
    let current = std::fs::canonicalize(&link).ok();
    if current.as_deref() != std::fs::canonicalize(&built).ok().as_deref() {
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        // A link under a name of this process's own, renamed over the old one: concurrent `exec` runs (the
        // tests run several) each replace it whole, never seeing it missing or failing on one another's link.
        let fresh = dir.join(format!(".libcuda.so.1.{}", std::process::id()));
        let _ = std::fs::remove_file(&fresh);
        std::os::unix::fs::symlink(&built, &fresh)
            .with_context(|| format!("linking {}", fresh.display()))?;
        std::fs::rename(&fresh, &link).with_context(|| format!("linking {}", link.display()))?;
    }
    Ok(dir)
}

/// Runs the program; never returns when it ran (the process exits with its status).
pub fn run(args: Args) -> Result<()> {
    let dir = library_dir()?;
    let (program, rest) = args.command.split_first().context("no program given")?;
    let mut paths = vec![dir];
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH") {
        paths.extend(std::env::split_paths(&old));
    }
    let mut cmd = Command::new(program);
    cmd.args(rest).env(
        "LD_LIBRARY_PATH",
        std::env::join_paths(paths).context("LD_LIBRARY_PATH")?,
    );
    if let Some(device) = &args.device {
        cmd.env("SASSPORT_DEVICE", device);
    }
    if let Some(without) = &args.without {
        cmd.env("SASSPORT_WITHOUT", without.to_string());
    }
    let status = cmd
        .status()
        .with_context(|| format!("running {}", Path::new(program).display()))?;
    let code = match status.code() {
        Some(c) => c,
        // Killed by a signal: the shell's convention, 128 + the signal number.
        None => 128 + std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0),
    };
    std::process::exit(code)
}
