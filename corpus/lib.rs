//! sassport's own CUDA corpus: `src/*.cu` (written here), their sm_86 cubins, `nvdisasm` listings and
//! `cuobjdump -elf` dumps in `sm86/` and sm_90 cubins in `sm90/` (built by `cargo xtask corpus` with the
//! pinned nvcc), the launch manifest `launches.txt`, and silicon goldens in `goldens/`.
//!
//! One job: tell tests and tools where the committed corpus files are, how each kernel is launched
//! ([`launch`]), and what its input buffers hold ([`inputs`]). Depends on nothing but `thiserror`.

pub mod inputs;
pub mod launch;
pub mod programs;

pub use launch::{Arg, Comparison, Dim3, Launch, ManifestError, ParamSlot};

use std::path::{Path, PathBuf};

/// The launch manifest, `corpus/launches.txt`.
pub fn manifest_path() -> PathBuf {
    root().join("launches.txt")
}

/// Every launch in the committed manifest, less those of uncommitted sources not built here ([`is_unbuilt`]:
/// the cuRAND kernels before `cargo xtask corpus` ran), which no test or tool could launch.
pub fn launches() -> Result<Vec<Launch>, ManifestError> {
    Ok(all_manifest_launches()?.into_iter().filter(|l| !is_unbuilt(&l.file)).collect())
}

/// Every launch in the committed manifest, built here or not.
pub fn all_manifest_launches() -> Result<Vec<Launch>, ManifestError> {
    let path = manifest_path();
    let text = std::fs::read_to_string(&path).map_err(|e| ManifestError {
        line: 0,
        kind: launch::ManifestErrorKind::Unreadable(format!("{}: {e}", path.display())),
    })?;
    launch::parse(&text)
}

/// Launches waiting for their silicon goldens, `corpus/launches.pending.txt` (same format): their kernels are
/// in the corpus but not yet in `launches.txt`, so the main job and the golden tests leave them out until a
/// recording moves them over (`corpus/README.md`).
pub fn pending_manifest_path() -> PathBuf {
    root().join("launches.pending.txt")
}

/// Every launch in the pending manifest (none when the file is absent).
pub fn pending_launches() -> Result<Vec<Launch>, ManifestError> {
    let path = pending_manifest_path();
    match std::fs::read_to_string(&path) {
        Ok(text) => launch::parse(&text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(ManifestError {
            line: 0,
            kind: launch::ManifestErrorKind::Unreadable(format!("{}: {e}", path.display())),
        }),
    }
}

/// The corpus directory (`corpus/` in the repository).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The CUDA sources, sorted by name.
pub fn sources() -> Vec<PathBuf> {
    files_with_extension(&root().join("src"), "cu")
}

/// Sources whose stem starts with this include cuRAND's headers; `cargo xtask corpus` builds their cubins,
/// listings and dumps, which are never committed (NVIDIA's EULA covers the headers and the tables they compile
/// in; `.gitignore` names them). Tests take them when they have been built and skip them otherwise.
pub const UNCOMMITTED_PREFIX: &str = "curand_";

/// Whether a corpus source stem is one of the uncommitted ones (see [`UNCOMMITTED_PREFIX`]).
pub fn is_uncommitted(stem: &str) -> bool {
    stem.starts_with(UNCOMMITTED_PREFIX)
}

/// Whether the derived files of an uncommitted source are missing here (never built on this machine).
pub fn is_unbuilt(stem: &str) -> bool {
    is_uncommitted(stem) && !root().join("sm86").join(format!("{stem}.cubin")).is_file()
}

/// The sm_86 cubins (committed, and uncommitted ones where built), sorted by name.
pub fn cubins() -> Vec<PathBuf> {
    files_with_extension(&root().join("sm86"), "cubin")
}

/// The committed file next to `cubin` with the given suffix replacing `.cubin`
/// (for example `".sass"` for the `nvdisasm -c -raw -hex` listing).
pub fn companion(cubin: &Path, suffix: &str) -> PathBuf {
    let stem = cubin.file_stem().unwrap_or_default().to_string_lossy();
    cubin.with_file_name(format!("{stem}{suffix}"))
}

fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    out
}
