//! The command engines of the emulated Ampere GPU: GPU memory mapping, channels, semaphores, queues and
//! scheduling, and the copy engines.
//!
//! One job: carry out the methods the pushbuffer decoder produces. Depends on `sassport-pushbuffer` only.
//!
//! - [`memory`]: the 49-bit GPU virtual address space ([`memory::GpuMemory`]), all-or-nothing accesses.
//! - [`semaphore`]: acquire conditions, 4/8/16-byte releases (timestamp first), reductions.
//! - [`channel`]: the [`channel::Engine`] trait engine classes implement, and channels with host methods.
//! - [`standard`]: the engine classes a channel binds by default; [`sector_layout`]: the GOB sector order.

pub mod channel;
pub mod copy;
pub mod layout;
pub mod memory;
pub mod sector_layout;
pub mod semaphore;
pub mod standard;
