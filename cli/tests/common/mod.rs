//! What the end-to-end test binaries share: the Vulkan runtime they run translated kernels on.

use sassport_runtime::{DeviceSelector, PipelineCacheLocation, Runtime, RuntimeOptions};
use std::time::Duration;

/// A runtime on `SASSPORT_TEST_DEVICE` (default: lavapipe, "llvmpipe"), with a 16 MiB window, no on-disk
/// pipeline cache and the given limit on pipeline creation (lavapipe's compiler is slow on long chains).
pub fn runtime(pipeline_timeout: Duration) -> Runtime {
    runtime_without(pipeline_timeout, Default::default())
}

/// [`runtime`] for a device doing without `without` (`--without`: soft double for float64, ...).
#[allow(dead_code)]
pub fn runtime_without(pipeline_timeout: Duration, without: sassport_runtime::abi::Features) -> Runtime {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let dir = std::env::temp_dir().join(format!("sassport-xdg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            // SAFETY: set once, before this test binary starts other threads that read the environment.
            unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
        }
    });
    let device = std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into());
    Runtime::new(RuntimeOptions {
        device: device.parse().unwrap_or(DeviceSelector::Default),
        window_bytes: Some(16 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        pipeline_timeout: Some(pipeline_timeout),
        without,
        ..Default::default()
    })
    .expect("Vulkan device (lavapipe)")
}
