//! Atomics (issue 4): the contended global atomics kernel (`atomics_global_contended`: integer, f32 and
//! f64 RED, the f64 add a compare-exchange loop on 64-bit words) and the shared-memory one
//! (`atomics_shared`: ATOMS, the 32-bit CAS loop and the lock-guarded `ATOMS.CAST.SPIN.64`), both in the
//! warps-in-turns form, launched with warm pipelines on the default Vulkan device (lavapipe here). Module
//! sizes print once before the timings.
//!
//! `cargo bench -p sassport --bench atomics`.

mod support;

use criterion::{criterion_group, criterion_main, Criterion};

const KERNELS: &[&str] = &["atomics_global_contended", "atomics_shared"];

fn atomics(c: &mut Criterion) {
    support::bench_kernels(c, "atomics", KERNELS);
}

criterion_group!(benches, atomics);
criterion_main!(benches);
