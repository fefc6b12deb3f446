//! Replaying a recorded GPFIFO stream against a memory image — what `sassport replay` runs.
//!
//! The image is mapped read/write at GPU VA 0; the GPFIFO holds 8-byte little-endian GP entries whose
//! segments point into it. One channel with the [`standard_engines`](crate::standard::standard_engines)
//! runs every entry. The resulting image is returned only when the whole stream completed (every method
//! burst whole, no engine waiting for more data: [`Channel::finish`]); a wait that
//! can never be satisfied (nothing else can make progress) or any refused entry or method is an error
//! naming the GP entry and the method.

use crate::channel::{Channel, WaitReason};
use crate::memory::{Access, GpuMemory, MemoryError};
use crate::queue::{EntryId, Queue, QueueError};
use crate::ring::{GpFifoRing, RingError};
use crate::scheduler::{PassOutcome, Scheduler};
use crate::semaphore::SteppingClock;
use crate::standard::EngineOptions;
use sassport_pushbuffer::{IncompleteStream, MethodCall, GP_ENTRY_BYTES};

/// Settings of a replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Options the engines are built with (sector layout).
    pub engines: EngineOptions,
    /// Timestamps start at 0 and advance this many nanoseconds per reading.
    pub clock_step_ns: u64,
}

impl ReplayOptions {
    /// Options for a target GPU with this sector order (there is no default: it is never guessed), and a
    /// clock that advances 1 µs per reading.
    pub fn new(sector_layout: crate::sector_layout::SectorLayout) -> Self {
        Self {
            engines: EngineOptions { sector_layout },
            clock_step_ns: 1000,
        }
    }
}

/// Why a replay did not complete.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The GPFIFO file is not a whole number of 8-byte entries.
    #[error("GPFIFO is {len} bytes, not a multiple of 8")]
    GpFifoLength { len: usize },
    /// Too many entries for a ring.
    #[error(transparent)]
    Ring(#[from] RingError),
    /// The memory image cannot be mapped.
    #[error("mapping the memory image: {0}")]
    Map(MemoryError),
    /// An entry, fetch or method failed.
    #[error(transparent)]
    Fault(#[from] QueueError),
    /// A method waits and nothing can ever satisfy it.
    #[error("{entry}: {} can never complete: {}", crate::channel::describe_call(.call, 0), crate::channel::describe_wait(.reason))]
    Stalled {
        entry: EntryId,
        call: MethodCall,
        reason: WaitReason,
    },
    /// The scheduler stopped with work left and no waiting method (should not happen; reported rather
    /// than assumed).
    #[error("the replay stopped after {entries} GP entries with work left")]
    Unfinished { entries: u64 },
    /// All entries ran but the stream stops in the middle of a method burst.
    #[error("after the last GP entry: {0}")]
    Incomplete(IncompleteStream),
    /// All entries ran but an engine still waits for more of the stream (an inline-to-memory upload
    /// missing data words): what [`Channel::finish`] reports.
    #[error("after the last GP entry: {0}")]
    EngineUnfinished(crate::channel::ChannelError),
}

/// What a completed replay produced.
#[derive(Debug)]
pub struct Replayed {
    /// The memory image after the stream.
    pub memory: Vec<u8>,
    /// GP entries processed.
    pub entries: u64,
}

/// Replays `gpfifo` against `memory_image`.
pub fn replay(
    memory_image: Vec<u8>,
    gpfifo: &[u8],
    options: &ReplayOptions,
) -> Result<Replayed, ReplayError> {
    if gpfifo.len() % GP_ENTRY_BYTES != 0 {
        return Err(ReplayError::GpFifoLength { len: gpfifo.len() });
    }
    let mut memory = GpuMemory::new();
    let image_len = memory_image.len() as u64;
    let storage = memory.add_storage(memory_image);
    if image_len > 0 {
        memory
            .map(0, image_len, storage, 0, Access::READ_WRITE)
            .map_err(ReplayError::Map)?;
    }
    let count = gpfifo.len() / GP_ENTRY_BYTES;
    let mut ring = GpFifoRing::with_room_for(count)?;
    for chunk in gpfifo.chunks_exact(GP_ENTRY_BYTES) {
        let mut raw = [0u8; 8];
        raw.copy_from_slice(chunk);
        ring.push(u64::from_le_bytes(raw))?;
    }
    let mut scheduler = Scheduler::default();
    let id = scheduler.add(Queue::new(
        Channel::with_standard_engines(&options.engines),
        ring,
    ));
    let mut clock = SteppingClock::new(0, options.clock_step_ns);
    let outcome = scheduler.run(&mut memory, &mut clock, u64::MAX);
    let Some(queue) = scheduler.queue_mut(id) else {
        return Err(ReplayError::Unfinished { entries: 0 });
    };
    if let Some(fault) = queue.retry() {
        return Err(ReplayError::Fault(fault));
    }
    if outcome != PassOutcome::Idle {
        return Err(match queue.waiting() {
            Some(w) => ReplayError::Stalled {
                entry: w.entry,
                call: w.call,
                reason: w.reason,
            },
            None => ReplayError::Unfinished {
                entries: queue.entries_taken(),
            },
        });
    }
    queue.channel().finish().map_err(|e| match e {
        crate::channel::ChannelError::Incomplete(i) => ReplayError::Incomplete(i),
        other => ReplayError::EngineUnfinished(other),
    })?;
    let entries = queue.entries_taken();
    drop(scheduler);
    let mut storages = memory.into_storages();
    let memory = std::mem::take(&mut storages[storage.index()]);
    Ok(Replayed { memory, entries })
}
