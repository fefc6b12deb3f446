//! The command engines of the emulated Ampere GPU: GPU memory mapping, channels, semaphores, queues and
//! scheduling, and the copy engines.
//!
//! One job: carry out the methods the pushbuffer decoder produces. Depends on `sassport-pushbuffer` only.
//!
//! - [`memory`]: the 49-bit GPU virtual address space ([`memory::GpuMemory`]), all-or-nothing accesses.
//! - [`semaphore`]: acquire conditions, 4/8/16-byte releases (timestamp first), reductions.
//! - [`channel`]: the [`channel::Engine`] trait engine classes implement, and channels with the
//!   AMPERE_CHANNEL_GPFIFO_A host methods.
//! - [`ring`], [`queue`], [`scheduler`]: GPFIFO rings, a channel fed from its ring, and a cooperative
//!   round-robin scheduler over many queues.
//! - [`replay`]: run a recorded GPFIFO stream against a memory image.
//! - [`standard`]: the engine classes a channel binds by default; [`sector_layout`]: the GOB sector order.
//! - [`layout`]: block-linear surface layout; [`copy`]: the DMA copy and inline-to-memory engines.

pub mod channel;
pub mod copy;
pub mod layout;
pub mod memory;
pub mod queue;
pub mod replay;
pub mod ring;
pub mod scheduler;
pub mod sector_layout;
pub mod semaphore;
pub mod standard;
