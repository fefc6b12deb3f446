//! The Vulkan runtime: devices, memory, pipelines and their caches, kernel launches.
//!
//! One job: run what the translator emits. Depends on `sassport-translator`; nothing depends on it but the CLI.
