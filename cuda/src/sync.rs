//! Synchronisation points. Launches (and event records) are queued in the runtime and run later, in the
//! order they were made, on one queue (so every stream is in order, and a wait on an event of another stream
//! is met by construction); a call that must see their results is a synchronisation point and first waits
//! for the queued work: stream, event and context synchronise, a query that finds the work done, every copy,
//! memset, allocation and free, module loads and unloads. There the printf output of the completed
//! launches is written to stdout (as CUDA flushes it at synchronisation), and a kernel's failure (fault,
//! trap, assertion) makes the context unusable and is the call's result, as CUDA's sticky errors.

use crate::error::{DriverError, Result};
use crate::state::{Driver, Gpu};

/// Waits for the queued work of device `dev`, then [`collect`]s what it left.
pub fn settle(d: &mut Driver, dev: usize) -> Result<()> {
    let Some(gpu) = d.devices[dev].opened_mut() else {
        return Ok(());
    };
    gpu.rt.synchronize()?;
    collect(d, dev)
}

/// Device `dev`'s runtime after its queued work completed (a synchronisation point).
pub fn settled_gpu(d: &mut Driver, dev: usize) -> Result<&mut Gpu> {
    settle(d, dev)?;
    d.devices[dev].gpu()
}

/// Prints the printf output of device `dev`'s completed work and reports its first failure: an execution
/// failure makes the device's primary context unusable (every later call answers with it), any other
/// failure (a launch timeout) is this call's result once.
pub fn collect(d: &mut Driver, dev: usize) -> Result<()> {
    let Some(gpu) = d.devices[dev].opened_mut() else {
        return Ok(());
    };
    // Managed memory comes back to the host once nothing is queued (CUDA: no kernel runs).
    let pending = gpu.rt.pending_serial();
    if gpu.managed_owed && gpu.rt.is_complete(pending)? {
        crate::managed::after_completion(gpu)?;
    }
    let done = gpu.rt.take_completed();
    print_printf(&done.printf);
    let Some(e) = done.failure else {
        return Ok(());
    };
    let message = e.to_string();
    crate::log::line(&message);
    if !crate::error::is_execution_failure(&e) {
        return Err(e.into());
    }
    let code = crate::error::runtime_code(&e);
    // Every context of the device (the primary one and any cuCtxCreate made) shares its queue.
    for ctx in d.contexts.values_mut().filter(|c| c.device == dev) {
        ctx.sticky = Some((code, message.clone()));
    }
    Err(DriverError::Sticky { code, message })
}

extern "C" {
    /// The C library's `stdout` stream, which the program's own printf output goes through.
    static mut stdout: *mut libc::FILE;
}

/// Device printf output to stdout, as the CUDA driver prints it: through the C library's `stdout`, so that
/// it stays in order with the program's own buffered output when stdout is a pipe or a file (Rust's stdout
/// has a buffer of its own); losses to stderr.
fn print_printf(out: &sassport_runtime::PrintfOutput) {
    let text = out.text();
    if !text.is_empty() {
        // SAFETY: glibc's stdout is a valid stream for the process's life; fwrite locks it.
        unsafe {
            let s = stdout;
            libc::fwrite(text.as_ptr().cast(), 1, text.len(), s);
            libc::fflush(s);
        }
    }
    if out.dropped > 0 {
        crate::log::line(&format!(
            "{} printf records did not fit in the printf buffer and were lost",
            out.dropped
        ));
    }
}
