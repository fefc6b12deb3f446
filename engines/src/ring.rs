//! GPFIFO rings: a power-of-two array of 8-byte GP entries with GET and PUT entry indices.
//!
//! As on the hardware (dev_pbdma.ref): the ring is empty when PUT == GET and full when PUT == GET − 1,
//! so one slot always stays unused; GET and PUT are entry indices, never byte offsets.

/// Largest supported ring: 2^24 entries (128 MiB of entries).
pub const MAX_LOG2_ENTRIES: u32 = 24;

/// A refused ring operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RingError {
    /// log2 of the entry count is outside 1..=24.
    #[error("a GPFIFO ring of 2^{log2} entries is not supported (1 ..= {MAX_LOG2_ENTRIES})")]
    BadSize { log2: u32 },
    /// No free slot (PUT == GET − 1).
    #[error("GPFIFO ring is full ({capacity} slots, one always unused)")]
    Full { capacity: u32 },
    /// A GET or PUT index at or past the ring size.
    #[error("GPFIFO index {index} is outside a ring of {capacity} entries")]
    IndexOutOfRange { index: u32, capacity: u32 },
    /// A new PUT would move backwards past GET (more entries than the ring holds).
    #[error("GPFIFO PUT {put} would overtake GET {get}")]
    Overrun { put: u32, get: u32 },
}

/// A GPFIFO ring of raw GP entries.
#[derive(Clone, Debug)]
pub struct GpFifoRing {
    slots: Vec<u64>,
    mask: u32,
    get: u32,
    put: u32,
}

impl GpFifoRing {
    /// An empty ring of `2^log2_entries` slots.
    pub fn new(log2_entries: u32) -> Result<Self, RingError> {
        if !(1..=MAX_LOG2_ENTRIES).contains(&log2_entries) {
            return Err(RingError::BadSize { log2: log2_entries });
        }
        let n = 1u32 << log2_entries;
        Ok(Self {
            slots: vec![0; n as usize],
            mask: n - 1,
            get: 0,
            put: 0,
        })
    }

    /// The smallest ring that holds `entries` pending entries.
    pub fn with_room_for(entries: usize) -> Result<Self, RingError> {
        let log2 = entries
            .checked_add(1)
            .and_then(usize::checked_next_power_of_two)
            .map_or(usize::BITS, |n| n.max(2).trailing_zeros());
        Self::new(log2)
    }

    /// Number of slots (a power of two).
    pub fn capacity(&self) -> u32 {
        self.mask + 1
    }

    /// GET: index of the next entry to process.
    pub fn get(&self) -> u32 {
        self.get
    }

    /// PUT: index one past the last submitted entry.
    pub fn put(&self) -> u32 {
        self.put
    }

    /// Entries submitted but not yet taken.
    pub fn len(&self) -> u32 {
        self.put.wrapping_sub(self.get) & self.mask
    }

    /// Whether no entry is pending.
    pub fn is_empty(&self) -> bool {
        self.put == self.get
    }

    /// Free slots (capacity − 1 − len).
    pub fn free(&self) -> u32 {
        self.mask - self.len()
    }

    /// Appends one entry and advances PUT.
    pub fn push(&mut self, entry: u64) -> Result<(), RingError> {
        if self.free() == 0 {
            return Err(RingError::Full {
                capacity: self.capacity(),
            });
        }
        self.slots[self.put as usize] = entry;
        self.put = (self.put + 1) & self.mask;
        Ok(())
    }

    /// Writes a slot directly (as software writes the ring in memory before moving PUT).
    pub fn write_slot(&mut self, index: u32, entry: u64) -> Result<(), RingError> {
        let slot = self
            .slots
            .get_mut(index as usize)
            .ok_or(RingError::IndexOutOfRange {
                index,
                capacity: self.mask + 1,
            })?;
        *slot = entry;
        Ok(())
    }

    /// Moves PUT (USERD GPPut). The new PUT may not pass GET: at most capacity − 1 entries pend.
    pub fn set_put(&mut self, put: u32) -> Result<(), RingError> {
        if put > self.mask {
            return Err(RingError::IndexOutOfRange {
                index: put,
                capacity: self.mask + 1,
            });
        }
        let added = put.wrapping_sub(self.put) & self.mask;
        if added > self.free() {
            return Err(RingError::Overrun { put, get: self.get });
        }
        self.put = put;
        Ok(())
    }

    /// The next entry and its ring index, without taking it.
    pub fn peek(&self) -> Option<(u32, u64)> {
        (!self.is_empty()).then(|| (self.get, self.slots[self.get as usize]))
    }

    /// Takes the next entry, advancing GET; returns its ring index and value.
    pub fn pop(&mut self) -> Option<(u32, u64)> {
        let out = self.peek()?;
        self.get = (self.get + 1) & self.mask;
        Some(out)
    }
}
