//! A range of the host's address space reserved (mapped without access) for a device's window, so that no host
//! allocation can ever have an address that is also a device address: unified addressing then only needs a
//! range check to tell device pointers from host pointers.

use crate::error::{DriverError, Result};

/// A reserved, inaccessible address range; unmapped on drop.
pub struct Reservation {
    base: *mut libc::c_void,
    len: usize,
}

impl Reservation {
    /// Reserves `len` bytes (rounded up to pages) anywhere the kernel chooses.
    pub fn new(len: u64) -> Result<Reservation> {
        let len =
            usize::try_from(len).map_err(|_| DriverError::InvalidValue("window size".into()))?;
        let len = len.next_multiple_of(1 << 16);
        // SAFETY: an anonymous PROT_NONE mapping at an address of the kernel's choosing touches no memory.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(DriverError::NotSupported(format!(
                "reserving {len} bytes of address space for the device window: {}",
                std::io::Error::last_os_error()
            )));
        }
        Ok(Reservation { base, len })
    }

    /// First address of the range (page-aligned, so aligned for the runtime's window base).
    pub fn base(&self) -> u64 {
        self.base as u64
    }

    pub fn len(&self) -> u64 {
        self.len as u64
    }

    pub fn contains(&self, address: u64) -> bool {
        address >= self.base() && address - self.base() < self.len()
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        // SAFETY: the range was mapped by `new` and nothing else owns it.
        unsafe { libc::munmap(self.base, self.len) };
    }
}
