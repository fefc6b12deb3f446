//! The two README commands (`cargo xtask main`, `cargo xtask test`) and the CI entry point.

use crate::tools;
use anyhow::Result;
use std::process::Command;

#[derive(clap::Args)]
pub struct TestArgs {
    /// Extra arguments for `cargo test`.
    #[arg(trailing_var_arg = true)]
    cargo_args: Vec<String>,
}

#[derive(clap::Args)]
pub struct MainArgs {
    /// Vulkan device (index or name); the default picks a discrete GPU, then integrated, then CPU.
    #[arg(long)]
    device: Option<String>,
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()));
    cmd.current_dir(tools::repo_root());
    cmd
}

/// The README's test command: what the tests need, then the whole workspace's tests.
pub fn test(args: TestArgs) -> Result<()> {
    tools::ensure_apt_packages()?;
    tools::run_checked(cargo().args(["test", "--workspace", "--locked", "--no-fail-fast"]).args(&args.cargo_args))
}

/// The README's main job: the shipped corpus through sassport on the default Vulkan device.
/// Then our whole CUDA programs (`corpus/programs/`), built SASS-only by the pinned nvcc and run unmodified
/// through `sassport exec`, one row each.
pub fn main_job(args: MainArgs) -> Result<()> {
    tools::ensure_apt_packages()?;
    // Builds the default members: the sassport binary and the libcuda.so.1 that `exec` puts in place.
    tools::run_checked(cargo().args(["build", "--release", "--locked"]))?;
    let mut cmd = cargo();
    cmd.args(["run", "--release", "--locked", "--", "corpus"]);
    if let Some(device) = &args.device {
        cmd.args(["--device", device]);
    }
    tools::run_checked(&mut cmd)?;
    crate::programs::run_all(args.device.as_deref())
}

/// CI: generated code must match the table, the coverage page's translation column must match the
/// translator (in that order: the translator links the generated decoder), then the README's test command.
pub fn ci() -> Result<()> {
    // The exec tests build our CUDA programs with the pinned nvcc; in CI they must run, not skip.
    tools::ensure_nvidia_tools()?;
    tools::run_checked(cargo().args(["xtask", "regen", "--check"]))?;
    tools::run_checked(cargo().args(["xtask", "coverage", "--check"]))?;
    test(TestArgs { cargo_args: Vec::new() })
}
