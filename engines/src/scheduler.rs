//! A cooperative multi-channel scheduler: round robin over queues, an attempt budget per turn, fault
//! isolation (a faulted queue is skipped, the others keep running) and stall detection (a full pass in
//! which nothing progresses ends the run with [`PassOutcome::Waiting`] or [`PassOutcome::Busy`]
//! instead of spinning).

use crate::channel::{EngineContext, WaitReason};
use crate::memory::GpuMemory;
use crate::queue::{Queue, RunEnd};
use crate::semaphore::Clock;

/// Default attempts per queue per turn.
pub const DEFAULT_BUDGET: u64 = 4096;

/// Handle of a queue in a [`Scheduler`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QueueId(pub usize);

/// The result of one pass over all queues.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassOutcome {
    /// At least one queue progressed; run another pass.
    Progress,
    /// Every queue that is not faulted is drained.
    Idle,
    /// Nothing progressed and some queue waits on a semaphore acquire.
    Waiting,
    /// Nothing progressed and the waiting queues wait only on busy engines.
    Busy,
}

/// Round-robin scheduler over queues sharing one GPU address space.
pub struct Scheduler {
    queues: Vec<Queue>,
    next: usize,
    budget: u64,
}

impl Default for Scheduler {
    fn default() -> Self {
        Self::new(DEFAULT_BUDGET)
    }
}

impl Scheduler {
    /// A scheduler giving each queue `budget` attempts per turn (at least 1).
    pub fn new(budget: u64) -> Self {
        Self {
            queues: Vec::new(),
            next: 0,
            budget: budget.max(1),
        }
    }

    /// Adds a queue.
    pub fn add(&mut self, queue: Queue) -> QueueId {
        self.queues.push(queue);
        QueueId(self.queues.len() - 1)
    }

    pub fn queue(&self, id: QueueId) -> Option<&Queue> {
        self.queues.get(id.0)
    }

    pub fn queue_mut(&mut self, id: QueueId) -> Option<&mut Queue> {
        self.queues.get_mut(id.0)
    }

    pub fn queues(&self) -> &[Queue] {
        &self.queues
    }

    /// Queues that are faulted.
    pub fn faulted(&self) -> impl Iterator<Item = QueueId> + '_ {
        self.queues
            .iter()
            .enumerate()
            .filter(|(_, q)| q.fault().is_some())
            .map(|(i, _)| QueueId(i))
    }

    /// One turn for every queue, starting one queue later than the previous pass.
    pub fn pass(&mut self, memory: &mut GpuMemory, clock: &mut dyn Clock) -> PassOutcome {
        let n = self.queues.len();
        if n == 0 {
            return PassOutcome::Idle;
        }
        let start = self.next % n;
        self.next = (start + 1) % n;
        let mut progress = false;
        let mut acquire = false;
        let mut pending = false;
        for k in 0..n {
            let q = &mut self.queues[(start + k) % n];
            let mut ctx = EngineContext {
                memory: &mut *memory,
                clock: &mut *clock,
            };
            let report = q.run(&mut ctx, self.budget);
            progress |= report.progress;
            match report.end {
                RunEnd::Drained | RunEnd::Faulted => {}
                RunEnd::Preempted => pending = true,
                RunEnd::Waiting => {
                    pending = true;
                    if matches!(q.waiting(), Some(w) if matches!(w.reason, WaitReason::Acquire { .. }))
                    {
                        acquire = true;
                    }
                }
            }
        }
        if progress {
            PassOutcome::Progress
        } else if !pending {
            PassOutcome::Idle
        } else if acquire {
            PassOutcome::Waiting
        } else {
            PassOutcome::Busy
        }
    }

    /// Runs passes until every queue is drained or faulted, or a pass makes no progress; at most
    /// `max_passes` passes. Returns the last outcome (`Progress` only if `max_passes` ran out).
    pub fn run(
        &mut self,
        memory: &mut GpuMemory,
        clock: &mut dyn Clock,
        max_passes: u64,
    ) -> PassOutcome {
        let mut outcome = PassOutcome::Idle;
        for _ in 0..max_passes {
            outcome = self.pass(memory, clock);
            if outcome != PassOutcome::Progress {
                break;
            }
        }
        outcome
    }
}
