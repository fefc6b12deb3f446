//! A queue: one channel fed from its own GPFIFO ring.
//!
//! [`Queue::run`] takes GP entries from the ring, fetches their pushbuffer segments from GPU memory and
//! feeds them to the channel, within an attempt budget. A method that waits leaves the queue waiting on
//! that word; a fault leaves it faulted (with the entry and method named) until [`Queue::retry`].

use crate::channel::{Channel, ChannelError, ChannelStop, EngineContext, WaitReason};
use crate::memory::MemoryError;
use crate::ring::GpFifoRing;
use sassport_pushbuffer::{FedEnd, GpEntry, GpEntryError, MethodCall, Segment};

/// Bytes of a segment fetched at a time.
const FETCH_CHUNK: u64 = 16 * 1024;

/// Identifies a GP entry: its sequence number among the entries this queue took, and its ring slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryId {
    /// 0 for the first entry the queue ever took, then 1, 2, …
    pub sequence: u64,
    /// Ring index (GP_GET at the time it was taken).
    pub slot: u32,
}

impl std::fmt::Display for EntryId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GP entry {} (ring slot {})", self.sequence, self.slot)
    }
}

/// What went wrong in a queue.
#[derive(Debug, thiserror::Error)]
pub enum QueueError {
    /// The GP entry itself is refused.
    #[error("{entry}: {source}")]
    Entry {
        entry: EntryId,
        source: GpEntryError,
    },
    /// Its pushbuffer segment cannot be read.
    #[error("{entry}: fetching the pushbuffer segment at {address:#x}: {source}")]
    Fetch {
        entry: EntryId,
        address: u64,
        source: MemoryError,
    },
    /// A method or pushbuffer word failed.
    #[error("{entry}: {source}")]
    Channel {
        entry: EntryId,
        source: ChannelError,
    },
    /// A segment ended with a partial word.
    #[error("{entry}: {source}")]
    Segment {
        entry: EntryId,
        source: sassport_pushbuffer::IncompleteStream,
    },
}

impl QueueError {
    /// The entry the error belongs to.
    pub fn entry(&self) -> EntryId {
        match self {
            QueueError::Entry { entry, .. }
            | QueueError::Fetch { entry, .. }
            | QueueError::Channel { entry, .. }
            | QueueError::Segment { entry, .. } => *entry,
        }
    }
}

/// A method the queue is waiting on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub entry: EntryId,
    pub call: MethodCall,
    pub reason: WaitReason,
}

/// How a [`Queue::run`] ended.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub enum RunEnd {
    /// The ring is empty and no segment is active.
    Drained,
    /// The budget ran out (or a YIELD gave up the slice) with work left.
    Preempted,
    /// A method waits.
    Waiting,
    /// The queue is faulted.
    Faulted,
}

/// Result of a [`Queue::run`].
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub struct RunReport {
    pub end: RunEnd,
    /// Whether anything changed: a method completed, an entry was taken or finished.
    pub progress: bool,
}

#[derive(Clone, Copy, Debug)]
struct Active {
    entry: EntryId,
    segment: Segment,
    done: u64,
}

/// One channel with its GPFIFO ring.
pub struct Queue {
    channel: Channel,
    ring: GpFifoRing,
    active: Option<Active>,
    taken: u64,
    waiting: Option<Waiting>,
    fault: Option<QueueError>,
    scratch: Vec<u8>,
    completed_methods: u64,
}

impl Queue {
    /// A queue feeding `channel` from `ring`.
    pub fn new(channel: Channel, ring: GpFifoRing) -> Self {
        Self {
            channel,
            ring,
            active: None,
            taken: 0,
            waiting: None,
            fault: None,
            scratch: Vec::new(),
            completed_methods: 0,
        }
    }

    pub fn channel(&self) -> &Channel {
        &self.channel
    }

    pub fn channel_mut(&mut self) -> &mut Channel {
        &mut self.channel
    }

    pub fn ring(&self) -> &GpFifoRing {
        &self.ring
    }

    /// The ring, to submit entries.
    pub fn ring_mut(&mut self) -> &mut GpFifoRing {
        &mut self.ring
    }

    /// The fault that stopped this queue, if any.
    pub fn fault(&self) -> Option<&QueueError> {
        self.fault.as_ref()
    }

    /// The method this queue waits on, if it waits.
    pub fn waiting(&self) -> Option<Waiting> {
        self.waiting
    }

    /// Whether the ring is empty and no segment is in progress.
    pub fn is_drained(&self) -> bool {
        self.active.is_none() && self.ring.is_empty()
    }

    /// Number of GP entries taken from the ring so far.
    pub fn entries_taken(&self) -> u64 {
        self.taken
    }

    /// Clears a fault so the next run retries the held word (e.g. after the missing memory was mapped).
    /// Returns the fault.
    pub fn retry(&mut self) -> Option<QueueError> {
        self.fault.take()
    }

    /// Takes the fault and drops what caused it: the held word, or the refused GP entry (which was
    /// already taken from the ring). The queue continues after it.
    pub fn skip_fault(&mut self) -> Option<QueueError> {
        let fault = self.fault.take()?;
        if let QueueError::Channel { .. } = fault {
            self.channel.decoder_mut().discard_held();
        }
        if let QueueError::Fetch { .. } = fault {
            self.active = None;
        }
        Some(fault)
    }

    fn fail(&mut self, error: QueueError) -> RunReport {
        self.fault = Some(error);
        self.waiting = None;
        RunReport {
            end: RunEnd::Faulted,
            progress: false,
        }
    }

    /// Runs the queue for at most `budget` attempts (methods tried, including waiting and failing
    /// ones, and GP entries taken).
    pub fn run(&mut self, ctx: &mut EngineContext<'_>, budget: u64) -> RunReport {
        if self.fault.is_some() {
            return RunReport {
                end: RunEnd::Faulted,
                progress: false,
            };
        }
        let mut budget = budget;
        let mut progress = false;
        loop {
            if budget == 0 {
                return RunReport {
                    end: RunEnd::Preempted,
                    progress,
                };
            }
            let Some(mut active) = self.active else {
                let Some((slot, raw)) = self.ring.pop() else {
                    return RunReport {
                        end: RunEnd::Drained,
                        progress,
                    };
                };
                let entry = EntryId {
                    sequence: self.taken,
                    slot,
                };
                self.taken += 1;
                budget -= 1;
                progress = true;
                match GpEntry::decode(raw) {
                    Ok(GpEntry::Nop { .. }) => {}
                    Ok(GpEntry::Segment(segment)) => {
                        self.active = Some(Active {
                            entry,
                            segment,
                            done: 0,
                        })
                    }
                    Err(source) => return self.fail(QueueError::Entry { entry, source }),
                }
                continue;
            };
            let total = active.segment.length_bytes();
            let len = (total - active.done).min(FETCH_CHUNK) as usize;
            let address = active.segment.address + active.done;
            self.scratch.resize(len, 0);
            if let Err(source) = ctx.memory.read(address, &mut self.scratch) {
                return self.fail(QueueError::Fetch {
                    entry: active.entry,
                    address,
                    source,
                });
            }
            let before = budget;
            let result = self
                .channel
                .feed_with_budget(ctx, &self.scratch, &mut budget);
            let attempts = before - budget;
            match result {
                Ok(fed) => {
                    self.completed_methods += attempts;
                    if attempts > 0 || fed.consumed > 0 {
                        progress = true;
                    }
                    self.waiting = None;
                    active.done += fed.consumed as u64;
                    let finished = fed.end == FedEnd::EndOfSegment || active.done == total;
                    if finished {
                        progress = true;
                        self.active = None;
                        if let Err(source) = self.channel.decoder_mut().end_segment() {
                            return self.fail(QueueError::Segment {
                                entry: active.entry,
                                source,
                            });
                        }
                    } else {
                        self.active = Some(active);
                    }
                    if fed.end == FedEnd::Paused {
                        return RunReport {
                            end: RunEnd::Preempted,
                            progress,
                        };
                    }
                }
                Err(halt) => {
                    // Attempts before the last one completed.
                    if attempts > 1 || halt.consumed > 4 {
                        progress = true;
                    }
                    active.done += halt.consumed as u64;
                    self.active = Some(active);
                    match halt.stop {
                        ChannelStop::Wait { call, reason } => {
                            self.waiting = Some(Waiting {
                                entry: active.entry,
                                call,
                                reason,
                            });
                            return RunReport {
                                end: RunEnd::Waiting,
                                progress,
                            };
                        }
                        ChannelStop::Fault(source) => {
                            let report = self.fail(QueueError::Channel {
                                entry: active.entry,
                                source,
                            });
                            return RunReport { progress, ..report };
                        }
                    }
                }
            }
        }
    }
}
