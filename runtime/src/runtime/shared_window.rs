//! Window-backed shared memory: a kernel whose shared memory does not fit the device's (the module declares
//! [`abi::SPEC_ID_SHARED_IN_WINDOW`]) keeps it in one window slot per workgroup of a dispatch. The slots are
//! one allocation, grown to the largest launch so far and kept for the runtime's life; a launch's dispatches
//! run at most [`abi::SHARED_WINDOW_SLOTS`] workgroups each, one after another, so a slot is never shared
//! by two running blocks (`docs/block-order.md`).

use sassport_translator::abi;
use sassport_translator::state::shared_allocation_bytes;

use super::Runtime;
use crate::error::Result;

/// Where the slots are: guest address and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SharedWindow {
    area: Option<(u64, u64)>,
}

impl Runtime {
    /// The launch values' `shared_window` words for a launch of `entry` with `dynamic_shared` bytes: the
    /// slots' first window word and the words per slot, growing the slots if they are too small (queued
    /// launches finish first, since they may use the old ones). Zeros for kernels with shared memory of
    /// their own.
    pub(super) fn shared_window_words(&mut self, entry: usize, dynamic_shared: u32) -> Result<[u32; 4]> {
        let i = &self.entries[entry].interface;
        if !i.shared_in_window {
            return Ok([0; 4]);
        }
        let slot_bytes = shared_allocation_bytes(i.guest_static_shared_bytes, dynamic_shared);
        let needed = slot_bytes * u64::from(abi::SHARED_WINDOW_SLOTS);
        let area = match self.shared_window.area {
            Some((address, bytes)) if bytes >= needed => address,
            old => {
                self.synchronize()?;
                if let Some((address, _)) = old {
                    self.free(address)?;
                    self.shared_window.area = None;
                }
                let address = self.alloc(needed.max(1))?;
                self.shared_window.area = Some((address, needed));
                address
            }
        };
        // Window words fit 32 bits: the window is at most 4 GiB (the storage-buffer range).
        let first = ((area - self.window_base()) / 4) as u32;
        Ok([first, (slot_bytes / 4) as u32, 0, 0])
    }
}
