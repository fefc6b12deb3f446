//! Translates one kernel of a cubin over and over, for profilers (`perf record`, callgrind): the criterion
//! benchmark's setup reads nvdisasm listings of the whole corpus, which would swamp a profile.
//!
//! `cargo run --release -p sassport-translator --example translate_loop -- CUBIN KERNEL [PASSES]`; with
//! `TRANSLATE_LOOP_OUT=FILE` the module is written to FILE.

use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(path), Some(kernel)) = (args.next(), args.next()) else {
        return Err("usage: translate_loop CUBIN KERNEL [PASSES]".into());
    };
    let passes: u32 = args.next().map(|p| p.parse()).transpose()?.unwrap_or(10);
    let bytes = std::fs::read(&path)?;
    let start = std::time::Instant::now();
    let mut instructions = 0;
    let mut words = Vec::new();
    for _ in 0..passes {
        let cubin = Cubin::parse(&bytes)?;
        let t = translate_kernel(&cubin, &kernel, &Options::default())?;
        instructions += t.report.instructions;
        words = t.words;
    }
    let s = start.elapsed().as_secs_f64();
    if let Some(out) = std::env::var_os("TRANSLATE_LOOP_OUT") {
        // The last pass's module, to compare builds.
        std::fs::write(out, words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>())?;
    }
    println!("{instructions} instructions in {s:.3} s: {:.0} instructions/s", instructions as f64 / s);
    Ok(())
}
