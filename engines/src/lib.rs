//! The command engines of the emulated Ampere GPU: GPU memory mapping, channels, semaphores, queues and
//! scheduling, and the copy engines.
//!
//! One job: carry out the methods the pushbuffer decoder produces. Depends on `sassport-pushbuffer` only.
