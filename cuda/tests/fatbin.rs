//! Fat-binary containers around a real cubin from the corpus (nvcc 13.5 output): entry choice, compression,
//! and the refusals. The container layout is the one read from nvcc 13.5's `.nv_fatbin` sections; the exec
//! tests run real nvcc-built containers, compressed and not.

use cuda::error::DriverError;
use cuda::fatbin::{entries, select_cubin};

fn saxpy_cubin() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/sm86/saxpy.cubin"
    ))
    .expect("corpus cubin")
}

/// One entry: kind, architecture, flags, the payload as stored and the uncompressed size.
fn entry(kind: u16, arch: u32, flags: u64, stored: &[u8], uncompressed: u64) -> Vec<u8> {
    let padded = stored.len().next_multiple_of(8);
    let mut e = Vec::new();
    e.extend(kind.to_le_bytes());
    e.extend(0x101u16.to_le_bytes());
    e.extend(64u32.to_le_bytes());
    e.extend((padded as u64).to_le_bytes());
    e.extend((stored.len() as u32).to_le_bytes());
    e.extend([0u8; 4]);
    e.extend(0x10008u32.to_le_bytes());
    e.extend(arch.to_le_bytes());
    e.extend([0u8; 8]);
    e.extend((flags | 0x11).to_le_bytes());
    e.extend([0u8; 8]);
    e.extend(uncompressed.to_le_bytes());
    assert_eq!(e.len(), 64);
    e.extend(stored);
    e.resize(64 + padded, 0);
    e
}

fn container(entries: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = entries.concat();
    let mut c = Vec::new();
    c.extend(0xba55ed50u32.to_le_bytes());
    c.extend(1u16.to_le_bytes());
    c.extend(16u16.to_le_bytes());
    c.extend((body.len() as u64).to_le_bytes());
    c.extend(body);
    c
}

#[test]
fn the_sm86_entry_is_chosen_over_others() {
    let cubin = saxpy_cubin();
    let c = container(&[
        entry(1, 86, 0, b".version 9.0\n", 0),
        entry(2, 90, 0, b"\x7fELFother", 0),
        entry(2, 86, 0, &cubin, 0),
    ]);
    assert_eq!(entries(&c).unwrap().len(), 3);
    assert_eq!(select_cubin(&c).unwrap(), cubin);
}

#[test]
fn sm80_code_is_taken_when_there_is_no_sm86() {
    let cubin = saxpy_cubin();
    let c = container(&[
        entry(2, 75, 0, b"\x7fELFold", 0),
        entry(2, 80, 0, &cubin, 0),
    ]);
    assert_eq!(select_cubin(&c).unwrap(), cubin);
}

#[test]
fn zstd_and_lz4_entries_are_decoded() {
    let cubin = saxpy_cubin();
    let zstd =
        ruzstd::encoding::compress_to_vec(&cubin[..], ruzstd::encoding::CompressionLevel::Fastest);
    let c = container(&[entry(2, 86, 0x8000, &zstd, cubin.len() as u64)]);
    assert_eq!(select_cubin(&c).unwrap(), cubin);
    let lz4 = lz4_flex::block::compress(&cubin);
    let c = container(&[entry(2, 86, 0x2000, &lz4, cubin.len() as u64)]);
    assert_eq!(select_cubin(&c).unwrap(), cubin);
}

#[test]
fn ptx_only_and_other_architectures_are_no_binary_for_gpu() {
    let c = container(&[entry(1, 86, 0, b".version 9.0\n", 0)]);
    let e = select_cubin(&c).unwrap_err();
    assert!(matches!(e, DriverError::NoBinaryForGpu(_)), "{e}");
    assert!(
        e.to_string().contains("PTX for sm_86") && e.to_string().contains("does not compile PTX"),
        "{e}"
    );
    let c = container(&[entry(2, 90, 0, b"\x7fELFhopper", 0)]);
    assert!(select_cubin(&c)
        .unwrap_err()
        .to_string()
        .contains("SASS for sm_90"));
}

#[test]
fn truncated_and_corrupt_containers_are_invalid_images() {
    let cubin = saxpy_cubin();
    let mut c = container(&[entry(2, 86, 0, &cubin, 0)]);
    c.truncate(c.len() - 100);
    assert!(matches!(entries(&c), Err(DriverError::InvalidImage(_))));
    let c = container(&[entry(2, 86, 0x8000, b"not zstd at all", 4096)]);
    assert!(matches!(
        select_cubin(&c),
        Err(DriverError::InvalidImage(_))
    ));
    assert!(matches!(
        entries(&[0u8; 16]),
        Err(DriverError::InvalidImage(_))
    ));
}
