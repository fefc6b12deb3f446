//! Launch timeouts: a launch that runs past `RuntimeOptions::launch_timeout` is asked to stop through the
//! abort word (the first word of the last `abi::ABORT_BLOCK_WORDS` of the reserved block after the window),
//! which every loop of a translated kernel polls (`control::guard` in the translator), and fails with
//! [`RuntimeError::LaunchTimeout`]. A fence wait alone could not end it: the shader would keep running.
//!
//! The host writes the word through the mapped window; a staged window (device-local memory the host cannot
//! map) cannot be written while the device runs, so there the launch can only be reported as hung.

use std::time::Duration;

use ash::vk;

use super::{Backing, Runtime};
use crate::error::{Result, RuntimeError};

/// How long a launch may take to stop after the abort word was raised.
const ABORT_GRACE: Duration = Duration::from_secs(10);

impl Runtime {
    /// Byte offset of the abort word in the window buffer.
    pub(super) fn abort_offset(&self) -> u64 {
        self.window.size - 4 * u64::from(sassport_translator::abi::ABORT_BLOCK_WORDS)
    }

    /// Sets the launch timeout for the launches that follow (`None`: none).
    pub fn set_launch_timeout(&mut self, timeout: Option<Duration>) {
        self.options.launch_timeout = timeout;
    }

    /// The launch timeout in force.
    pub fn launch_timeout(&self) -> Option<Duration> {
        self.options.launch_timeout
    }

    /// Writes `value` into the abort word through the mapped window (false: the window is staged). Writing 0
    /// (only while nothing runs) zeroes the whole abort block, the free lock words of emulated 64-bit atomics
    /// (`abi::ATOMIC64_LOCK_FIRST`) included.
    pub(super) fn write_abort_word(&mut self, value: u32) -> bool {
        let at = self.abort_offset() as usize;
        match (&self.backing, self.window.bytes_mut()) {
            (Backing::Mapped, Some(w)) => {
                if value == 0 {
                    let n = 4 * sassport_translator::abi::ABORT_BLOCK_WORDS as usize;
                    w[at..at + n].fill(0);
                }
                w[at..at + 4].copy_from_slice(&value.to_le_bytes());
                std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
                true
            }
            _ => false,
        }
    }

    /// Submits a recorded launch and waits for it within the launch timeout; past it, raises the abort word
    /// and waits for the kernel to stop.
    pub(super) fn submit_and_wait_launch(&mut self, cb: vk::CommandBuffer, kernel: &str) -> Result<()> {
        let Some(timeout) = self.options.launch_timeout else {
            return self.submit_and_wait(cb);
        };
        self.check_usable()?;
        let d = &self.gpu.device;
        let cbs = [cb];
        let submit = vk::SubmitInfo::default().command_buffers(&cbs);
        unsafe {
            d.queue_submit(self.gpu.queue, &[submit], self.fence)
                .map_err(RuntimeError::vk("vkQueueSubmit"))?;
        }
        let seconds = timeout.as_secs_f64();
        if self.wait_fence(timeout)? {
            return self.reset_fence();
        }
        let written = self.write_abort_word(1);
        let stopped = written && self.wait_fence(ABORT_GRACE)?;
        if stopped {
            self.reset_fence()?;
            return Err(RuntimeError::LaunchTimeout { kernel: kernel.to_string(), seconds });
        }
        self.hung = Some(kernel.to_string());
        Err(RuntimeError::LaunchHung { kernel: kernel.to_string(), seconds: seconds + ABORT_GRACE.as_secs_f64() })
    }

    /// Refuses work after a launch that did not stop: its fence and command buffer may still be in use.
    pub(super) fn check_usable(&self) -> Result<()> {
        match &self.hung {
            Some(kernel) => Err(RuntimeError::DeviceUnusable { kernel: kernel.clone() }),
            None => Ok(()),
        }
    }

    /// Waits for the runtime's fence: true when it signalled within `limit`.
    fn wait_fence(&self, limit: Duration) -> Result<bool> {
        let nanos = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
        match unsafe { self.gpu.device.wait_for_fences(&[self.fence], true, nanos) } {
            Ok(()) => Ok(true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(RuntimeError::Vulkan { call: "vkWaitForFences", result: e }),
        }
    }

    fn reset_fence(&self) -> Result<()> {
        unsafe { self.gpu.device.reset_fences(&[self.fence]) }.map_err(RuntimeError::vk("vkResetFences"))
    }
}
