//! What the library says on stderr: with `SASSPORT_LOG=calls`, every driver call with its result; with
//! `SASSPORT_LOG=kernels`, how each kernel was made ready (translation, form, pipeline times); always,
//! the first allocation that ran out of guest memory,
//! each unsupported call once by name, and the reason behind every failure that is not the caller's fault.

use crate::error::Result;
use crate::result::{result_name, CUresult, CUDA_SUCCESS};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

/// Whether `SASSPORT_LOG` asks for every call (`calls`, or a comma-separated list containing it).
pub fn calls_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("SASSPORT_LOG").is_ok_and(|v| v.split(',').any(|w| w.trim() == "calls"))
    })
}

/// Whether `SASSPORT_LOG` asks for one line per kernel made ready (`kernels`): where its module came from,
/// the control-flow form, and the time translation and pipeline creation took.
pub fn kernels_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        std::env::var("SASSPORT_LOG").is_ok_and(|v| v.split(',').any(|w| w.trim() == "kernels"))
    })
}

/// Prints one line to stderr with the library's prefix.
pub fn line(text: &str) {
    eprintln!("[sassport] {text}");
}

/// Prints `text` the first time this `key` is seen in the process.
pub fn once(key: &str, text: &str) {
    static SEEN: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    let seen = SEEN.get_or_init(Default::default);
    let first = seen
        .lock()
        .map(|mut s| s.insert(key.to_string()))
        .unwrap_or(true);
    if first {
        line(text);
    }
}

/// Runs the body of entry point `name`, turns its outcome into a `CUresult` and logs it. `args` is only
/// formatted when calls are logged.
pub fn call(
    name: &str,
    args: impl FnOnce() -> String,
    body: impl FnOnce() -> Result<()>,
) -> CUresult {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
    let (code, why) = match outcome {
        Ok(Ok(())) => (CUDA_SUCCESS, None),
        Ok(Err(e)) => (e.code(), Some(e.to_string())),
        // A bug of ours must not unwind into C: report it as CUDA_ERROR_UNKNOWN.
        Err(_) => (
            crate::result::CUDA_ERROR_UNKNOWN,
            Some("internal error (panic) in sassport".to_string()),
        ),
    };
    if calls_enabled() {
        let result = result_name(code).unwrap_or("?");
        match &why {
            Some(w) => line(&format!("{name}({}) = {result}: {w}", args())),
            None => line(&format!("{name}({}) = {result}", args())),
        }
    } else if let Some(w) = &why {
        if code == crate::result::CUDA_ERROR_NOT_SUPPORTED
            || code == crate::result::CUDA_ERROR_NO_BINARY_FOR_GPU
        {
            once(&format!("{name}:{w}"), &format!("{name}: {w}"));
        } else if code == crate::result::CUDA_ERROR_OUT_OF_MEMORY {
            // Programs that ignore a failed cudaMalloc then print wrong results: say why, once per process.
            once(
                "out of memory",
                &format!("{name}: {w} (SASSPORT_WINDOW_BYTES sets the guest memory size, e.g. 4G)"),
            );
        }
    }
    code
}
