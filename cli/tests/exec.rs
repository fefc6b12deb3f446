//! `sassport exec` runs our own CUDA programs (`corpus/programs/`, built SASS-only by the pinned nvcc with
//! the static CUDA runtime) unmodified on lavapipe: each must print PASS and exit 0. The programs check
//! themselves against host computations; nothing here compares with sassport's own output.

use sassport_corpus::programs::{build, build_with, FLAGS, PROGRAMS};
use std::path::PathBuf;
use std::process::Command;

/// The pinned nvcc (`cargo xtask tools`), or `SASSPORT_NVCC`.
fn nvcc() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SASSPORT_NVCC") {
        return Some(PathBuf::from(p));
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let p = root.join(".tools/venv/lib/python3.11/site-packages/nvidia/cu13/bin/nvcc");
    p.is_file().then_some(p)
}

fn program(name: &str) -> Option<PathBuf> {
    program_with(name, "", FLAGS)
}

/// The program built with `flags` into `<name><suffix>` (None, with a line saying so, without nvcc).
fn program_with(name: &str, suffix: &str, flags: &[&str]) -> Option<PathBuf> {
    let Some(nvcc) = nvcc() else {
        // CI installs the pinned tools (`cargo xtask ci`): there a missing nvcc is a failure, not a skip.
        assert!(std::env::var_os("CI").is_none(), "{name}: CI must have the pinned nvcc (`cargo xtask tools`)");
        eprintln!("NOT RUN: {name} needs the pinned nvcc to be built (`cargo xtask tools`)");
        return None;
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("programs");
    let built = if suffix.is_empty() {
        build(&nvcc, name, &out)
    } else {
        build_with(&nvcc, name, suffix, flags, &out)
    };
    Some(built.unwrap_or_else(|e| panic!("building {name}{suffix}: {e}")))
}

/// Runs `program` through `sassport exec` on lavapipe; returns (exit code, stdout, stderr).
fn exec(program: &std::path::Path, log_calls: bool) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sassport"));
    cmd.args(["exec", "--device", "llvmpipe", "--"])
        .arg(program);
    if log_calls {
        cmd.env("SASSPORT_LOG", "calls");
    }
    let out = cmd.output().expect("running sassport exec");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn passes(name: &str) {
    let Some(bin) = program(name) else { return };
    let (code, stdout, stderr) = exec(&bin, false);
    assert!(
        code == 0 && stdout.lines().any(|l| l.starts_with("PASS")),
        "{name} exited {code}\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
}

#[test]
fn vector_add_passes() {
    passes("vector_add");
}

/// In a window of several GiB the guest memory is chunked (the default on discrete GPUs, where lavapipe's
/// tests otherwise never go): the program, the float self-test and every copy take that form.
#[test]
fn vector_add_passes_in_a_chunked_window() {
    let Some(bin) = program("vector_add") else { return };
    // A fresh cache, so the float self-test runs here rather than coming from a stored record.
    let cache = std::env::temp_dir().join(format!("sassport-chunked-exec-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_sassport"))
        .args(["exec", "--device", "llvmpipe", "--"])
        .arg(&bin)
        .env("SASSPORT_WINDOW_BYTES", "3G")
        .env("XDG_CACHE_HOME", &cache)
        .output()
        .expect("running sassport exec");
    let _ = std::fs::remove_dir_all(&cache);
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && stdout.lines().any(|l| l.starts_with("PASS")),
        "vector_add in a 3 GiB window exited {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        out.status.code()
    );
}

#[test]
fn templates_pass() {
    passes("templates");
}

#[test]
fn streams_and_events_pass() {
    passes("streams_events");
}

#[test]
fn symbols_pass() {
    passes("symbols");
}

/// Oversized blocks and an impossible allocation fail with the errors NVIDIA's driver gives (recorded on an
/// H200: `corpus/programs/h200-native.txt`), and the context stays usable.
#[test]
fn error_paths_pass() {
    passes("error_paths");
}

/// Four host threads with a stream each use the library at once.
#[test]
fn host_threads_pass() {
    passes("host_threads");
}

/// Page-locked host buffers from cudaMallocHost and cudaHostAlloc as the host side of copies.
#[test]
fn pinned_memory_passes() {
    passes("pinned_memory");
}

/// Device properties, attribute queries, memory info and function attributes agree with each other.
#[test]
fn device_props_pass() {
    passes("device_props");
}

/// A failed device assert shows at the next synchronisation and stays, with its message on stderr.
#[test]
fn assert_is_sticky_and_named() {
    let Some(bin) = program("assert_sticky") else {
        return;
    };
    let (code, stdout, stderr) = exec(&bin, false);
    assert!(
        code == 0 && stdout.contains("PASS"),
        "exit {code}\n{stdout}\n{stderr}"
    );
    assert!(
        stderr.contains("assert_sticky.cu:11") && stderr.contains("Assertion `x[i] > 0` failed"),
        "{stderr}"
    );
}

/// Occupancy queries follow the occupancy calculator's rule with the limits the device reports.
#[test]
fn occupancy_passes() {
    passes("occupancy");
}

/// Pitched allocations, 2-D copies in every direction between host and device, 2-D memsets.
#[test]
fn pitched_2d_passes() {
    passes("pitched_2d");
}

/// 10,000 back-to-back launches then one synchronize, and 10,000 of a kernel that bumps a counter: all ran,
/// in order (the program's own times are issue 18's launch-throughput figure; tests never judge them).
#[test]
fn launch_throughput_passes() {
    passes("launch_throughput");
}

/// Managed memory: one pointer for host and kernels, coherent at CUDA's synchronisation points (the device
/// reports no concurrent managed access), with copies and memsets on either side.
#[test]
fn managed_memory_passes() {
    passes("managed_memory");
}

/// Queued launches keep stream order, event waits, queries and elapsed times, and device printf output of
/// several launches comes out at the next synchronisation in launch order.
#[test]
fn async_order_passes_with_printf_in_launch_order() {
    let Some(bin) = program("async_order") else {
        return;
    };
    let (code, stdout, stderr) = exec(&bin, false);
    assert!(code == 0 && stdout.contains("PASS"), "exit {code}\n{stdout}\n{stderr}");
    let lines: String = (0..5).map(|i| format!("async_order launch {i}\n")).collect();
    assert!(stdout.contains(&lines), "{stdout}");
}

/// Host functions in stream order, cudaMallocAsync/cudaFreeAsync with the default pool and a pool of its own,
/// cooperative-groups tiles (reduce, shuffle) on two streams with an event between them.
#[test]
fn stream_features_pass() {
    passes("stream_features");
}

/// Texture and surface objects over CUDA arrays and linear memory, sampled and written by kernels (issue 20).
#[test]
fn texture_objects_pass() {
    passes("texture_objects");
}

/// CUDA graphs: a capture across two streams (fork and join through events) launched three times with new
/// host input, and a graph built node by node whose kernel node's parameters change between launches.
#[test]
fn graphs_pass() {
    passes("graphs");
}

/// Blocks that spin until the block before them published (a chained scan, by block index and by atomic
/// ticket) run in ascending order and finish; 40 KiB of static shared memory, over lavapipe's 32 KiB, lives
/// in the window (docs/block-order.md).
#[test]
fn block_order_passes() {
    passes("block_order");
}

/// One allocation, filled and checked by kernels and by the host, and copied both ways: 100 GiB where the
/// device reports that much (the H200), 8 MiB on lavapipe's default window (cli/tests/big_window.rs covers
/// windows of several GiB).
#[test]
fn big_memory_passes() {
    passes("big_memory");
}

#[test]
fn every_program_is_tested() {
    let tested = [
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
    assert_eq!(PROGRAMS, tested);
}

/// The call log names every driver call with its result, the exit status passes through, and a failing
/// program's status comes back unchanged.
#[test]
fn calls_are_logged_and_status_passes_through() {
    let Some(bin) = program("vector_add") else {
        return;
    };
    let (code, stdout, stderr) = exec(&bin, true);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for call in [
        "cuInit(flags=0) = CUDA_SUCCESS",
        "cuLibraryLoadData(",
        "cuLaunchKernel(",
        "cuMemcpyDtoH(",
    ] {
        assert!(stderr.contains(call), "no {call} in the log:\n{stderr}");
    }
    let status = Command::new(env!("CARGO_BIN_EXE_sassport"))
        .args(["exec", "--", "/bin/sh", "-c", "exit 7"])
        .status()
        .expect("running sassport exec");
    assert_eq!(status.code(), Some(7));
}

/// nvcc 13.5 compresses fat-binary entries with zstd when asked (`-Xfatbin -compress-all`): the library
/// decodes them and the program passes.
#[test]
fn compressed_fat_binary_passes() {
    let flags = [
        "-O3",
        "-gencode",
        "arch=compute_86,code=sm_86",
        "-Xfatbin",
        "-compress-all",
    ];
    let Some(bin) = program_with("vector_add", "_compressed", &flags) else {
        return;
    };
    let (code, stdout, stderr) = exec(&bin, false);
    assert!(
        code == 0 && stdout.contains("PASS"),
        "exit {code}\n{stdout}\n{stderr}"
    );
}

/// A program that carries only PTX stops with the runtime's "no kernel image" error and one line from the
/// library saying why, instead of running anything.
#[test]
fn ptx_only_program_is_refused_with_one_clear_line() {
    let flags = ["-O3", "-gencode", "arch=compute_86,code=compute_86"];
    let Some(bin) = program_with("vector_add", "_ptx", &flags) else {
        return;
    };
    let (code, stdout, stderr) = exec(&bin, false);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("FAIL") && stdout.contains("cudaErrorNoKernelImageForDevice"),
        "{stdout}"
    );
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("does not compile PTX"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
}
