//! `cargo xtask tools`: installs what the project needs and nothing it does not have already.
//!
//! Two groups: the pinned NVIDIA tools (nvcc, ptxas, nvdisasm, cuobjdump) from PyPI into a git-ignored
//! virtual environment under `.tools/`, needed only to rebuild the corpus or probe the ISA; and the Debian
//! packages the tests need (lavapipe, the Vulkan loader, spirv-val, glslangValidator). Both steps are idempotent and cheap
//! when everything is present.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The NVIDIA toolkit version every derived file in the repository was made with.
pub const NVIDIA_VERSION: &str = "13.5.37";

/// PyPI requirements, pinned. cccl (CUB, Thrust, libcu++: headers only) and curand (its device API's headers)
/// carry no 13.5.37 release; they are pinned to the releases the corpus's `cub_*`/`curand_*` cubins were built
/// with, since those cubins change with the headers.
fn pip_requirements() -> Vec<String> {
    let pinned = ["nvidia-cuda-nvcc", "nvidia-cuda-nvdisasm", "nvidia-cuda-cuobjdump", "nvidia-cuda-runtime", "nvidia-cuda-crt"];
    let mut reqs: Vec<String> = pinned.iter().map(|p| format!("{p}=={NVIDIA_VERSION}")).collect();
    reqs.push(format!("nvidia-cuda-cccl=={CCCL_VERSION}"));
    reqs.push(format!("nvidia-curand=={CURAND_VERSION}"));
    reqs
}

/// The nvidia-cuda-cccl release the corpus's CUB kernels are built with.
pub const CCCL_VERSION: &str = "13.3.5.0.6";
/// The nvidia-curand release whose `curand_kernel.h` the corpus's cuRAND kernels include.
pub const CURAND_VERSION: &str = "10.4.4.72";

/// Debian packages the test suite needs: lavapipe, the Vulkan loader, the Khronos validator and glslang (the
/// GLSL references of corpus/graphics are compiled by its glslangValidator).
pub const APT_PACKAGES: [&str; 4] = ["mesa-vulkan-drivers", "libvulkan1", "spirv-tools", "glslang-tools"];

#[derive(clap::Args)]
pub struct Args {
    /// Only the Debian packages the tests need.
    #[arg(long, conflicts_with = "nvidia_only")]
    apt_only: bool,
    /// Only the pinned NVIDIA tools.
    #[arg(long)]
    nvidia_only: bool,
}

pub fn run(args: Args) -> Result<()> {
    if !args.nvidia_only {
        ensure_apt_packages()?;
    }
    if !args.apt_only {
        let bin = ensure_nvidia_tools()?;
        println!("NVIDIA tools {NVIDIA_VERSION} in {}", bin.display());
    }
    Ok(())
}

/// The repository root (the parent of `xtask/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the repository").to_path_buf()
}

fn venv_dir() -> PathBuf {
    repo_root().join(".tools/venv")
}

/// The directory holding nvcc, nvdisasm and cuobjdump once installed, if it exists.
fn nvidia_bin_dir() -> Option<PathBuf> {
    let lib = venv_dir().join("lib");
    let entries = std::fs::read_dir(&lib).ok()?;
    entries
        .flatten()
        .map(|e| e.path().join("site-packages/nvidia/cu13/bin"))
        .find(|p| p.join("nvdisasm").is_file())
}

/// Installs the pinned NVIDIA tools if missing and returns their `bin` directory.
pub fn ensure_nvidia_tools() -> Result<PathBuf> {
    let stamp = repo_root().join(".tools/installed.txt");
    let wanted = pip_requirements().join("\n");
    if let Some(bin) = nvidia_bin_dir() {
        let complete = ["nvcc", "ptxas", "nvdisasm", "cuobjdump"].iter().all(|t| bin.join(t).is_file());
        if complete && std::fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) {
            return Ok(bin);
        }
    }
    let venv = venv_dir();
    if !venv.join("bin/pip").is_file() {
        println!("creating {}", venv.display());
        let python = if which("python3") { "python3" } else { "python" };
        run_checked(Command::new(python).args(["-m", "venv"]).arg(&venv))?;
    }
    println!("installing {}", pip_requirements().join(" "));
    run_checked(
        Command::new(venv.join("bin/pip"))
            .args(["install", "--quiet", "--disable-pip-version-check"])
            .args(pip_requirements()),
    )?;
    let bin = nvidia_bin_dir().context("pip finished but nvdisasm is not where the nvidia-cuda-* wheels put it")?;
    std::fs::write(&stamp, wanted)?;
    Ok(bin)
}

/// Path of one pinned NVIDIA tool (`nvcc`, `nvdisasm`, `cuobjdump`, ...), installing the set if missing.
pub fn nvidia_tool(name: &str) -> Result<PathBuf> {
    let path = ensure_nvidia_tools()?.join(name);
    if !path.is_file() {
        bail!("{name} is not part of the pinned NVIDIA tools in {}", path.display());
    }
    Ok(path)
}

/// Installs the Debian packages the tests need when any is missing.
pub fn ensure_apt_packages() -> Result<()> {
    let missing: Vec<&str> = APT_PACKAGES.iter().copied().filter(|p| !dpkg_installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    if !which("apt-get") {
        bail!("missing packages {missing:?} and no apt-get here: install them with your package manager");
    }
    if !is_root() {
        bail!("missing packages; run: sudo apt-get update && sudo apt-get install -y {}", missing.join(" "));
    }
    println!("installing {}", missing.join(" "));
    run_checked(Command::new("apt-get").args(["update", "-qq"]))?;
    run_checked(
        Command::new("apt-get")
            .env("DEBIAN_FRONTEND", "noninteractive")
            .args(["install", "-y", "-qq", "--no-install-recommends"])
            .args(&missing),
    )
}

fn dpkg_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn which(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Runs a command, failing with its name and status when it fails.
pub fn run_checked(cmd: &mut Command) -> Result<()> {
    let status = cmd.status().with_context(|| format!("cannot start {cmd:?}"))?;
    if !status.success() {
        bail!("{cmd:?} failed with {status}");
    }
    Ok(())
}
