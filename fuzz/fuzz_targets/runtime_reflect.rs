//! Fuzzes `sassport_runtime::reflect`, the runtime's reading of a SPIR-V module handed to `load_kernel`:
//! any words must give `Ok` or a typed error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut words: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // Half the inputs get a valid header so the parser reaches the instruction stream.
    if data.first().is_some_and(|b| b & 1 == 1) && words.len() >= 5 {
        words[0] = 0x0723_0203;
        words[1] = 0x0001_0600;
    }
    if let Ok(interface) = sassport_runtime::reflect("fuzzed", &words) {
        for (&bank, &bytes) in &interface.banks {
            assert!(bank < sassport_runtime::abi::CONSTANT_BANK_COUNT);
            assert!(bytes <= sassport_runtime::abi::MAX_BANK_BYTES);
        }
    }
});
