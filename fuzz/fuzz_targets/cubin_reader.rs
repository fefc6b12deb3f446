//! Fuzzes `Cubin::parse`: any bytes must give `Ok` or a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_translator::cubin::Cubin;

fuzz_target!(|data: &[u8]| {
    match Cubin::parse(data) {
        Ok(cubin) => {
            // Walk what users walk, so lazily wrong slices would show up.
            for kernel in &cubin.kernels {
                let _ = (
                    kernel.registers(),
                    kernel.frame_size(),
                    kernel.info.undecoded().count(),
                );
                assert!(kernel.function.code.len() as u64 == kernel.function.size);
            }
            for section in &cubin.code_sections {
                for symbol in &section.symbols {
                    assert!(
                        symbol.offset.saturating_add(symbol.size) <= section.bytes.len() as u64
                    );
                }
                for relocation in &section.relocations {
                    let _ = relocation.kind.to_string();
                }
            }
        }
        Err(error) => {
            let _ = error.to_string();
        }
    }
});
