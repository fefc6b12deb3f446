//! Times the driver's pipeline creation for corpus kernels: `cargo run --example compile_spv -- [--without
//! F,...] [FILTER...]` translates each corpus launch whose kernel name contains a filter (all without one)
//! for the default device's profile (float self-test included, as `sassport corpus` does) and prints its
//! words, form, the seconds `Runtime::prepare` took for the launch's block and those of one launch of a
//! single block with zeroed parameters (where lavapipe compiles; its result is not looked at). Set
//! MESA_SHADER_CACHE_DISABLE=true on Mesa drivers, or the shader cache answers;
//! SASSPORT_DUMP_SPV=DIR writes each module to DIR/<kernel>.spv; SASSPORT_TRANSLATE_ONLY=1 compiles none;
//! SASSPORT_SPV_FROM=DIR compiles DIR/<kernel>.spv instead of the translation (to try other tools' output).

use sassport_runtime::{Runtime, RuntimeOptions};
use sassport_translator::translate::{translate_kernel, Options};
use sassport_translator::Cubin;

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut without = Default::default();
    if let Some(i) = args.iter().position(|a| a == "--without") {
        let list = args.get(i + 1).cloned().unwrap_or_default();
        without = sassport::kernel_run::parse_without(&list).map_err(anyhow::Error::msg)?;
        args.drain(i..(i + 2).min(args.len()));
    }
    let mut rt = Runtime::new(RuntimeOptions {
        pipeline_cache: sassport_runtime::PipelineCacheLocation::Disabled,
        without,
        ..Default::default()
    })?;
    rt.measure_float()?;
    // SASSPORT_NO_PROFILE=1: translate for no device (no loop-limit checks, nothing measured), to compare.
    let profile = std::env::var_os("SASSPORT_NO_PROFILE").is_none().then(|| rt.profile());
    let options = Options { profile, ..Options::default() };
    println!("device: {}", rt.device().name);
    for launch in sassport_corpus::launches()? {
        if !args.is_empty() && !args.iter().any(|f| launch.kernel.contains(f.as_str())) {
            continue;
        }
        let bytes = std::fs::read(launch.cubin_sm86())?;
        let cubin = Cubin::parse(&bytes)?;
        let t = match translate_kernel(&cubin, &launch.kernel, &options) {
            // SASSPORT_SPV_FROM=DIR: compile DIR/<kernel>.spv instead (a module changed by other tools).
            Ok(mut t) if std::env::var_os("SASSPORT_SPV_FROM").is_some() => {
                let dir = std::env::var_os("SASSPORT_SPV_FROM").unwrap_or_default();
                let b = std::fs::read(std::path::Path::new(&dir).join(format!("{}.spv", launch.kernel)))?;
                t.words = b.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
                t
            }
            Ok(t) => t,
            Err(e) => {
                println!("{}\trefused: {e}", launch.kernel);
                continue;
            }
        };
        if let Ok(dir) = std::env::var("SASSPORT_DUMP_SPV") {
            let words: Vec<u8> = t.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(
                std::path::Path::new(&dir).join(format!("{}.spv", launch.kernel)),
                words,
            )?;
        }
        let form = t
            .report
            .form
            .as_ref()
            .map(|f| f.to_string())
            .unwrap_or_default();
        if std::env::var_os("SASSPORT_TRANSLATE_ONLY").is_some() {
            println!("{}\t{} words\t-\t{form}", launch.kernel, t.words.len());
            continue;
        }
        let started = std::time::Instant::now();
        let id = rt.load_kernel(&launch.kernel, &t.words)?;
        let block = [launch.block.x, launch.block.y, launch.block.z];
        let r = rt.prepare(id, block, launch.shared_bytes);
        let secs = started.elapsed().as_secs_f64();
        // lavapipe builds its LLVM code at the first dispatch: one block with zeroed parameters (n = 0: every
        // thread takes its exit path; a fault from a null pointer is ignored) forces it.
        let started = std::time::Instant::now();
        let params = vec![0u8; 256];
        let bank0 = sassport_runtime::Bank0::new([1; 3], block).with_dynamic_shared(launch.shared_bytes);
        let bank0 = bank0.with_params(&params);
        let banks = [(0, bank0.as_bytes())];
        let grid = [1; 3];
        let dynamic_shared_bytes = launch.shared_bytes;
        let l = sassport_runtime::Launch { kernel: id, grid, block, dynamic_shared_bytes, banks: &banks };
        let first = rt.launch(&l).map(|_| ());
        let first_secs = started.elapsed().as_secs_f64();
        let note = first.err().map(|e| format!(" (launch: {e})")).unwrap_or_default();
        let note: String = note.chars().take(80).collect();
        let form: String = form.chars().take(60).collect();
        match r {
            Ok(()) => println!(
                "{}\t{} words\tprepare {secs:.2} s\tfirst launch {first_secs:.2} s{note}\t{form}",
                launch.kernel,
                t.words.len()
            ),
            Err(e) => println!(
                "{}\t{} words\tfailed after {secs:.2} s: {e}\t{form}",
                launch.kernel,
                t.words.len()
            ),
        }
    }
    Ok(())
}
