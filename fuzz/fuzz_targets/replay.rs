//! Replay: arbitrary GPFIFO entries against an arbitrary memory image (with the standard engines).
//! The first byte picks the number of GP entries (0..=7); those entries come next, the memory image is
//! the rest. Checks: no panic, and a failed replay never returns an image.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_engines::replay::{replay, ReplayOptions};
use sassport_engines::sector_layout::SectorLayout;
use sassport_engines::standard::EngineOptions;

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let entries = (head & 7) as usize;
    let layout = if head & 8 == 0 {
        SectorLayout::Turing2D
    } else {
        SectorLayout::Tegra16Bx2
    };
    let split = (entries * 8).min(rest.len() / 8 * 8);
    let (gpfifo, image) = rest.split_at(split);
    let options = ReplayOptions {
        engines: EngineOptions {
            sector_layout: layout,
        },
        clock_step_ns: 1,
    };
    if let Ok(out) = replay(image.to_vec(), gpfifo, &options) {
        assert_eq!(out.memory.len(), image.len());
    }
});
