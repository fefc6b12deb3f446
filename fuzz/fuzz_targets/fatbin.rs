//! Fat-binary containers as a program hands them to the CUDA driver: entry parsing, decompression (zstd,
//! LZ4) and the choice of the SM86 cubin. Input: the container bytes. Checks: no panic; a chosen cubin
//! starts with the ELF magic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = cuda::fatbin::entries(data);
    if let Ok(cubin) = cuda::fatbin::select_cubin(data) {
        assert_eq!(&cubin[..4], b"\x7fELF");
    }
});
