//! The GPU memory mapper: a 49-bit GPU virtual address space whose non-overlapping ranges are backed by
//! host storages.
//!
//! Several ranges may alias one storage (the same bytes seen at two VAs). Every access is validated in
//! full — range, holes, permissions — before the first byte moves, so a failing write never writes
//! partially. Accesses may span adjacent mappings. Lookups go through a `BTreeMap` keyed by the start VA,
//! so the number of mappings has no small fixed limit.
//!
//! Engines that must check several destinations before any of them is written (a copy and its
//! completion semaphore) call [`GpuMemory::check_write`] for each first, or use [`GpuMemory::write_batch`],
//! which validates every piece and then applies them in order.

mod error;

pub use error::MemoryError;

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;

/// Number of bits in a GPU virtual address.
pub const VA_BITS: u32 = 49;
/// One past the highest GPU virtual address.
pub const VA_LIMIT: u64 = 1 << VA_BITS;

/// Access rights of a mapping, or the rights an access needs.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Access(u8);

impl Access {
    /// No access at all (a reserved range).
    pub const NONE: Access = Access(0);
    /// Reads only.
    pub const READ: Access = Access(1);
    /// Writes only.
    pub const WRITE: Access = Access(2);
    /// Reads and writes.
    pub const READ_WRITE: Access = Access(3);

    /// Whether every right in `needed` is granted by `self`.
    pub fn allows(self, needed: Access) -> bool {
        self.0 & needed.0 == needed.0
    }

    /// The union of two sets of rights.
    pub fn union(self, other: Access) -> Access {
        Access(self.0 | other.0)
    }
}

impl fmt::Debug for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self.0 {
            0 => "none",
            1 => "read",
            2 => "write",
            _ => "read/write",
        })
    }
}

/// Handle of a host storage owned by a [`GpuMemory`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct StorageId(usize);

impl StorageId {
    /// The index of this storage, in the order storages were added.
    pub fn index(self) -> usize {
        self.0
    }
}

/// One mapping as seen by [`GpuMemory::mappings`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MappingInfo {
    /// First GPU VA of the mapping.
    pub va: u64,
    /// Length in bytes (never 0).
    pub len: u64,
    /// Backing storage.
    pub storage: StorageId,
    /// Byte offset of `va` inside the storage.
    pub offset: usize,
    /// Rights granted.
    pub access: Access,
}

/// A piece of an access that lies inside one mapping: host bytes `storage[host]` back GPU VAs
/// `va .. va + host.len()`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HostPiece {
    /// First GPU VA of the piece.
    pub va: u64,
    /// Backing storage.
    pub storage: StorageId,
    /// Byte range inside that storage.
    pub host: Range<usize>,
}

#[derive(Clone, Copy, Debug)]
struct Mapping {
    len: u64,
    storage: StorageId,
    offset: usize,
    access: Access,
}

/// The GPU virtual address space of the emulated GPU and the host storages behind it.
#[derive(Default)]
pub struct GpuMemory {
    storages: Vec<Vec<u8>>,
    mappings: BTreeMap<u64, Mapping>,
}

impl fmt::Debug for GpuMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GpuMemory")
            .field(
                "storages",
                &self.storages.iter().map(Vec::len).collect::<Vec<_>>(),
            )
            .field("mappings", &self.mappings)
            .finish()
    }
}

/// Checks that `va .. va + len` lies inside the 49-bit space.
fn check_range(va: u64, len: u64) -> Result<u64, MemoryError> {
    match va.checked_add(len) {
        Some(end) if end <= VA_LIMIT => Ok(end),
        _ => Err(MemoryError::OutOfRange { va, len }),
    }
}

/// Walks the mappings covering `va .. va + len` and calls `piece` for each part in address order.
/// Fails on the first hole or missing right, naming the first offending address; `piece` may already
/// have been called for earlier parts, so callers that write validate with a no-op walk first.
fn walk(
    mappings: &BTreeMap<u64, Mapping>,
    va: u64,
    len: u64,
    needed: Access,
    mut piece: impl FnMut(u64, &Mapping, u64, u64),
) -> Result<(), MemoryError> {
    let end = check_range(va, len)?;
    if len == 0 {
        return Ok(());
    }
    let mut at = va;
    // The mapping that starts at or before `va` is the only candidate for the first byte.
    let mut iter = mappings
        .range(..=va)
        .next_back()
        .into_iter()
        .chain(mappings.range(va + 1..end));
    while at < end {
        let Some((&start, m)) = iter.next() else {
            return Err(MemoryError::Unmapped { va: at });
        };
        let m_end = start + m.len;
        if m_end <= at {
            continue;
        }
        if start > at {
            return Err(MemoryError::Unmapped { va: at });
        }
        if !m.access.allows(needed) {
            return Err(MemoryError::Permission {
                va: at,
                needed,
                granted: m.access,
            });
        }
        let piece_end = m_end.min(end);
        piece(at, m, at - start, piece_end - at);
        at = piece_end;
    }
    Ok(())
}

/// The host range behind `va .. va + len` when it lies inside one mapping granting `needed`: the
/// common case, served with a single tree lookup.
#[inline]
fn single(
    mappings: &BTreeMap<u64, Mapping>,
    va: u64,
    len: u64,
    needed: Access,
) -> Option<(usize, usize)> {
    let (&start, m) = mappings.range(..=va).next_back()?;
    let into = va - start;
    if len == 0 || into.checked_add(len)? > m.len || !m.access.allows(needed) {
        return None;
    }
    Some((m.storage.0, m.offset + into as usize))
}

impl GpuMemory {
    /// An empty address space with no storages.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes ownership of host bytes that mappings can then point into.
    pub fn add_storage(&mut self, bytes: Vec<u8>) -> StorageId {
        self.storages.push(bytes);
        StorageId(self.storages.len() - 1)
    }

    /// The bytes of a storage.
    pub fn storage(&self, id: StorageId) -> Result<&[u8], MemoryError> {
        self.storages
            .get(id.0)
            .map(Vec::as_slice)
            .ok_or(MemoryError::UnknownStorage { index: id.0 })
    }

    /// The bytes of a storage, writable (its length is fixed: mappings depend on it).
    pub fn storage_mut(&mut self, id: StorageId) -> Result<&mut [u8], MemoryError> {
        self.storages
            .get_mut(id.0)
            .map(Vec::as_mut_slice)
            .ok_or(MemoryError::UnknownStorage { index: id.0 })
    }

    /// Consumes the address space and returns every storage, indexed by [`StorageId::index`].
    pub fn into_storages(self) -> Vec<Vec<u8>> {
        self.storages
    }

    /// Maps `len` bytes of `storage` starting at `offset` at GPU VA `va` with the given rights.
    /// The range must lie inside the 49-bit space, inside the storage, and must not overlap another
    /// mapping (unmap first to replace one).
    pub fn map(
        &mut self,
        va: u64,
        len: u64,
        storage: StorageId,
        offset: usize,
        access: Access,
    ) -> Result<(), MemoryError> {
        if len == 0 {
            return Err(MemoryError::EmptyMapping { va });
        }
        let end = check_range(va, len)?;
        let storage_len = self.storage(storage)?.len();
        let fits = usize::try_from(len)
            .ok()
            .and_then(|l| offset.checked_add(l))
            .is_some_and(|host_end| host_end <= storage_len);
        if !fits {
            return Err(MemoryError::StorageRange {
                index: storage.0,
                offset,
                len,
                storage_len,
            });
        }
        if let Some((&start, m)) = self.mappings.range(..end).next_back() {
            if start + m.len > va {
                return Err(MemoryError::Overlap {
                    va,
                    len,
                    existing: start,
                });
            }
        }
        self.mappings.insert(
            va,
            Mapping {
                len,
                storage,
                offset,
                access,
            },
        );
        Ok(())
    }

    /// Removes every mapped byte in `va .. va + len`; mappings that straddle either end are split and
    /// keep their outer parts. Returns the number of bytes unmapped. Holes inside the range are fine.
    pub fn unmap(&mut self, va: u64, len: u64) -> Result<u64, MemoryError> {
        let end = check_range(va, len)?;
        if len == 0 {
            return Ok(0);
        }
        let mut hit = Vec::new();
        if let Some((&start, m)) = self.mappings.range(..va).next_back() {
            if start + m.len > va {
                hit.push(start);
            }
        }
        hit.extend(self.mappings.range(va..end).map(|(&s, _)| s));
        let mut removed = 0;
        for start in hit {
            let Some(m) = self.mappings.remove(&start) else {
                continue;
            };
            let m_end = start + m.len;
            if start < va {
                self.mappings.insert(
                    start,
                    Mapping {
                        len: va - start,
                        ..m
                    },
                );
            }
            if m_end > end {
                // Offsets fit in usize: the mapping was validated against its storage when created.
                let skip = (end - start) as usize;
                self.mappings.insert(
                    end,
                    Mapping {
                        len: m_end - end,
                        offset: m.offset + skip,
                        ..m
                    },
                );
            }
            removed += m_end.min(end) - start.max(va);
        }
        Ok(removed)
    }

    /// Changes the rights of every mapping that lies wholly inside `va .. va + len` and splits none:
    /// a mapping straddling an end of the range is an error.
    pub fn protect(&mut self, va: u64, len: u64, access: Access) -> Result<(), MemoryError> {
        let end = check_range(va, len)?;
        if let Some((&start, m)) = self.mappings.range(..va).next_back() {
            if start + m.len > va {
                return Err(MemoryError::Straddles {
                    va,
                    existing: start,
                });
            }
        }
        for (&start, m) in self.mappings.range(va..end) {
            if start + m.len > end {
                return Err(MemoryError::Straddles {
                    va: end,
                    existing: start,
                });
            }
        }
        for (_, m) in self.mappings.range_mut(va..end) {
            m.access = access;
        }
        Ok(())
    }

    /// All mappings in address order.
    pub fn mappings(&self) -> impl Iterator<Item = MappingInfo> + '_ {
        self.mappings.iter().map(|(&va, m)| MappingInfo {
            va,
            len: m.len,
            storage: m.storage,
            offset: m.offset,
            access: m.access,
        })
    }

    /// Validates an access of `len` bytes at `va` needing `needed`, without moving any byte.
    pub fn check(&self, va: u64, len: u64, needed: Access) -> Result<(), MemoryError> {
        if single(&self.mappings, va, len, needed).is_some() {
            return Ok(());
        }
        walk(&self.mappings, va, len, needed, |_, _, _, _| {})
    }

    /// Validates that `len` bytes at `va` may be read.
    pub fn check_read(&self, va: u64, len: u64) -> Result<(), MemoryError> {
        self.check(va, len, Access::READ)
    }

    /// Validates that `len` bytes at `va` may be written.
    pub fn check_write(&self, va: u64, len: u64) -> Result<(), MemoryError> {
        self.check(va, len, Access::WRITE)
    }

    /// The host pieces behind `va .. va + len`, after validating the whole access for `needed`.
    /// Engines with fast paths use this with [`GpuMemory::storage`] / [`GpuMemory::storage_mut`].
    pub fn pieces(&self, va: u64, len: u64, needed: Access) -> Result<Vec<HostPiece>, MemoryError> {
        let mut out = Vec::new();
        walk(&self.mappings, va, len, needed, |at, m, into, n| {
            let host = m.offset + into as usize;
            out.push(HostPiece {
                va: at,
                storage: m.storage,
                host: host..host + n as usize,
            });
        })?;
        Ok(out)
    }

    /// If `va .. va + len` (non-empty) lies inside one mapping granting `needed`, its storage and
    /// byte range. `Ok(None)` when the access is valid but empty or spans several mappings.
    pub fn contiguous(
        &self,
        va: u64,
        len: u64,
        needed: Access,
    ) -> Result<Option<(StorageId, Range<usize>)>, MemoryError> {
        let mut found = None;
        let mut count = 0;
        walk(&self.mappings, va, len, needed, |_, m, into, n| {
            count += 1;
            let host = m.offset + into as usize;
            found = Some((m.storage, host..host + n as usize));
        })?;
        Ok(if count == 1 { found } else { None })
    }

    /// Reads `out.len()` bytes at `va`. Nothing is read unless the whole range is readable.
    pub fn read(&self, va: u64, out: &mut [u8]) -> Result<(), MemoryError> {
        let len = out.len() as u64;
        if let Some((storage, at)) = single(&self.mappings, va, len, Access::READ) {
            out.copy_from_slice(&self.storages[storage][at..at + out.len()]);
            return Ok(());
        }
        self.check(va, len, Access::READ)?;
        let storages = &self.storages;
        walk(&self.mappings, va, len, Access::READ, |at, m, into, n| {
            let dst = (at - va) as usize;
            let src = m.offset + into as usize;
            out[dst..dst + n as usize]
                .copy_from_slice(&storages[m.storage.0][src..src + n as usize]);
        })
    }

    /// Reads `len` bytes at `va` into a new vector.
    pub fn read_vec(&self, va: u64, len: usize) -> Result<Vec<u8>, MemoryError> {
        self.check(va, len as u64, Access::READ)?;
        let mut out = vec![0; len];
        self.read(va, &mut out)?;
        Ok(out)
    }

    /// Writes `bytes` at `va`. The whole range is validated first: on error no byte has changed.
    pub fn write(&mut self, va: u64, bytes: &[u8]) -> Result<(), MemoryError> {
        let len = bytes.len() as u64;
        if let Some((storage, at)) = single(&self.mappings, va, len, Access::WRITE) {
            self.storages[storage][at..at + bytes.len()].copy_from_slice(bytes);
            return Ok(());
        }
        walk(&self.mappings, va, len, Access::WRITE, |_, _, _, _| {})?;
        let storages = &mut self.storages;
        walk(&self.mappings, va, len, Access::WRITE, |at, m, into, n| {
            let src = (at - va) as usize;
            let dst = m.offset + into as usize;
            storages[m.storage.0][dst..dst + n as usize]
                .copy_from_slice(&bytes[src..src + n as usize]);
        })
    }

    /// Fills `len` bytes at `va` with `value`, all-or-nothing.
    pub fn fill(&mut self, va: u64, len: u64, value: u8) -> Result<(), MemoryError> {
        walk(&self.mappings, va, len, Access::WRITE, |_, _, _, _| {})?;
        let storages = &mut self.storages;
        walk(&self.mappings, va, len, Access::WRITE, |_, m, into, n| {
            let dst = m.offset + into as usize;
            storages[m.storage.0][dst..dst + n as usize].fill(value);
        })
    }

    /// Writes several pieces in order after validating all of them: either every piece is written or
    /// none is. Later pieces win where pieces overlap.
    pub fn write_batch(&mut self, pieces: &[(u64, &[u8])]) -> Result<(), MemoryError> {
        for &(va, bytes) in pieces {
            self.check(va, bytes.len() as u64, Access::WRITE)?;
        }
        for &(va, bytes) in pieces {
            self.write(va, bytes)?;
        }
        Ok(())
    }

    /// Copies `len` bytes from `src` to `dst` as if the whole source were read first (overlap-safe).
    /// Both ranges are validated before any byte moves.
    pub fn copy(&mut self, dst: u64, src: u64, len: u64) -> Result<(), MemoryError> {
        self.check(src, len, Access::READ)?;
        self.check(dst, len, Access::WRITE)?;
        let len = usize::try_from(len).map_err(|_| MemoryError::OutOfRange { va: src, len })?;
        let tmp = self.read_vec(src, len)?;
        self.write(dst, &tmp)
    }

    /// Reads a little-endian u32 at `va` (any alignment).
    pub fn read_u32(&self, va: u64) -> Result<u32, MemoryError> {
        let mut b = [0; 4];
        self.read(va, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Reads a little-endian u64 at `va` (any alignment).
    pub fn read_u64(&self, va: u64) -> Result<u64, MemoryError> {
        let mut b = [0; 8];
        self.read(va, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Writes a little-endian u32 at `va`, all-or-nothing.
    pub fn write_u32(&mut self, va: u64, value: u32) -> Result<(), MemoryError> {
        self.write(va, &value.to_le_bytes())
    }

    /// Writes a little-endian u64 at `va`, all-or-nothing.
    pub fn write_u64(&mut self, va: u64, value: u64) -> Result<(), MemoryError> {
        self.write(va, &value.to_le_bytes())
    }
}
