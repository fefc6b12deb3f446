//! Our own whole CUDA programs (`corpus/programs/*.cu`): each checks its results against a host computation,
//! prints PASS or FAIL and exits 0 only on PASS. They are built with the pinned nvcc as SASS only
//! (`nvcc -O3 -gencode arch=compute_86,code=sm_86`, the static CUDA runtime by default) and run unmodified
//! through `sassport exec`. Binaries are not committed (they carry NVIDIA's static runtime): `cargo xtask
//! programs` builds them into `target/programs/`, and the exec tests build what is missing or stale.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The programs, by file stem, in the order the tests run them.
pub const PROGRAMS: &[&str] = &[
    "vector_add",
    "templates",
    "streams_events",
    "symbols",
    "error_paths",
    "host_threads",
    "managed_memory",
    "pinned_memory",
    "device_props",
    "assert_sticky",
    "occupancy",
    "pitched_2d",
    "launch_throughput",
    "async_order",
    "stream_features",
    "texture_objects",
    "graphs",
    "block_order",
    "big_memory",
];

/// Programs that run natively and on NVIDIA's Vulkan driver but not yet on lavapipe, so neither the tests nor
/// the main job run them. CUB's single-pass scans used to spin on the previous block's published prefix
/// past lavapipe's loop limit; they now run their blocks in ascending order (docs/block-order.md) and
/// `cub_device`'s scans PASS. The onesweep radix sort's 33,280 B of shared memory now live in the window
/// (over lavapipe's 32 KiB), but with its warps in turns (lavapipe's subgroups are 8 wide) lavapipe's LLVM
/// takes minutes to build it (157 k words; 5 min 47 s for the whole program on the loaded 2-core machine,
/// 2026-12-02 15:52 UTC) and then its ranking loops together pass lavapipe's loop budget (`DeviceLoopLimit`
/// at pc 0x37d0, a `VOTE.ANY` of the digit match, not a wait); `thrust_algorithms` sorts with the same kernel. `curand_device`'s one kernel spends its time in lavapipe's
/// LLVM compile too (a one-thread launch of it took 3.4 CPU-minutes), not in running the skip-ahead. `cargo
/// xtask programs` does not build them; build them like the others (curand_device needs the nvidia-curand
/// headers `cargo xtask tools` installs).
pub const LAVAPIPE_BLOCKED: &[&str] = &["cub_device", "thrust_algorithms", "curand_device"];

/// The directory of the program sources.
pub fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("programs")
}

/// Why a program did not build.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("cannot run {nvcc}: {source}")]
    Spawn {
        nvcc: PathBuf,
        source: std::io::Error,
    },
    #[error("nvcc failed on {program}.cu:\n{output}")]
    Failed { program: String, output: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What the programs are built with: SASS for sm_86 only, no PTX.
pub const FLAGS: &[&str] = &["-O3", "-gencode", "arch=compute_86,code=sm_86"];

/// The nvcc command line for one program.
pub fn nvcc_command(nvcc: &Path, program: &str, flags: &[&str], out: &Path) -> Command {
    let mut cmd = Command::new(nvcc);
    cmd.args(flags)
        .arg(source_dir().join(format!("{program}.cu")))
        .arg("-o")
        .arg(out);
    cmd
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Builds `program` into `out_dir` unless the binary is newer than its source and the shared header.
pub fn build(nvcc: &Path, program: &str, out_dir: &Path) -> Result<PathBuf, BuildError> {
    build_with(nvcc, program, "", FLAGS, out_dir)
}

/// [`build`] with other nvcc flags, into `<program><suffix>` (tests build compressed and PTX-only variants).
pub fn build_with(
    nvcc: &Path,
    program: &str,
    suffix: &str,
    flags: &[&str],
    out_dir: &Path,
) -> Result<PathBuf, BuildError> {
    std::fs::create_dir_all(out_dir).map_err(|source| BuildError::Io {
        path: out_dir.to_path_buf(),
        source,
    })?;
    let out = out_dir.join(format!("{program}{suffix}"));
    let sources = [
        source_dir().join(format!("{program}.cu")),
        source_dir().join("check.h"),
    ];
    let newest_source = sources.iter().filter_map(|s| modified(s)).max();
    if let (Some(bin), Some(src)) = (modified(&out), newest_source) {
        if bin > src {
            return Ok(out);
        }
    }
    let output = nvcc_command(nvcc, program, flags, &out)
        .output()
        .map_err(|source| BuildError::Spawn {
            nvcc: nvcc.to_path_buf(),
            source,
        })?;
    if !output.status.success() {
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        return Err(BuildError::Failed {
            program: program.to_string(),
            output: text,
        });
    }
    Ok(out)
}
