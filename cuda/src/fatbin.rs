//! Fat binaries as nvcc embeds them and `__cudaRegisterFatBinary` hands them over, and choosing the SM86 code.
//!
//! - The wrapper (`.nvFatBinSegment`): magic 0x466243b1, version (1; 2 for `-rdc=true` programs, whose wrapper
//!   also points at a list of prelinked fat binaries), then a pointer to the container.
//! - The container (`.nv_fatbin`): magic 0xBA55ED50, a u16 version (1), a u16 header size and a u64 size of
//!   the entries that follow the header.
//! - Each entry: u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header size, u64 payload size (padded), at 16
//!   the compressed size, at 28 the architecture (86 for sm_86), at 40 u64 flags (0x2000 LZ4, 0x8000 zstd:
//!   nvcc 13.5 compresses with zstd), at 56 the uncompressed size; the payload follows the header.
//!
//! Choice: an ELF entry for sm_86, else the newest ELF entry for sm_80..sm_86 (CUDA runs code of an earlier
//! minor version of the same major one). PTX is never used: sassport translates SASS.

use crate::error::{DriverError, Result};

pub const WRAPPER_MAGIC: u32 = 0x466243b1;
pub const FATBIN_MAGIC: u32 = 0xba55ed50;
const ELF_MAGIC: [u8; 4] = *b"\x7fELF";
const KIND_PTX: u16 = 1;
const KIND_ELF: u16 = 2;
const FLAG_LZ4: u64 = 0x2000;
const FLAG_ZSTD: u64 = 0x8000;
/// The architecture sassport translates.
pub const TARGET_ARCH: u32 = 86;

/// One entry of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    pub kind: u16,
    pub arch: u32,
    pub flags: u64,
    pub uncompressed_size: u64,
    pub payload: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}
fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}
fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

fn bad(what: String) -> DriverError {
    DriverError::InvalidImage(format!("fat binary: {what}"))
}

/// The size of a container from its header (header plus entries).
pub fn container_size(header: &[u8]) -> Result<usize> {
    if u32_at(header, 0) != Some(FATBIN_MAGIC) {
        return Err(bad("no container magic 0xBA55ED50".into()));
    }
    let header_size = u16_at(header, 6).ok_or_else(|| bad("truncated header".into()))?;
    let files = u64_at(header, 8).ok_or_else(|| bad("truncated header".into()))?;
    usize::try_from(files)
        .ok()
        .and_then(|f| f.checked_add(usize::from(header_size)))
        .ok_or_else(|| bad(format!("entries of {files} bytes")))
}

/// The entries of a container (the whole container, header included).
pub fn entries(container: &[u8]) -> Result<Vec<Entry<'_>>> {
    let end = container_size(container)?;
    let version = u16_at(container, 4).unwrap_or(0);
    if version != 1 {
        return Err(bad(format!("container version {version}, only 1 is known")));
    }
    let body = container.get(..end).ok_or_else(|| {
        bad(format!(
            "{end} bytes announced, {} present",
            container.len()
        ))
    })?;
    let mut at = usize::from(u16_at(container, 6).unwrap_or(16));
    let mut out = Vec::new();
    while at < body.len() {
        let field = |r: Option<u64>, name: &str| {
            r.ok_or_else(|| bad(format!("entry at {at:#x}: truncated {name}")))
        };
        let kind = field(u16_at(body, at).map(u64::from), "kind")? as u16;
        let header_size = field(u32_at(body, at + 4).map(u64::from), "header size")? as usize;
        let payload_size = field(u64_at(body, at + 8), "payload size")?;
        let compressed = field(u32_at(body, at + 16).map(u64::from), "compressed size")?;
        let arch = field(u32_at(body, at + 28).map(u64::from), "architecture")? as u32;
        let flags = field(u64_at(body, at + 40), "flags")?;
        let uncompressed_size = field(u64_at(body, at + 56), "uncompressed size")?;
        let start = at
            .checked_add(header_size)
            .ok_or_else(|| bad(format!("entry at {at:#x}: header size")))?;
        let padded = usize::try_from(payload_size)
            .map_err(|_| bad(format!("entry at {at:#x}: payload size")))?;
        let next = start
            .checked_add(padded)
            .filter(|&n| n <= body.len())
            .ok_or_else(|| {
                bad(format!(
                    "entry at {at:#x}: payload of {payload_size} bytes runs past the container"
                ))
            })?;
        let len = if flags & (FLAG_LZ4 | FLAG_ZSTD) != 0 && compressed != 0 {
            compressed as usize
        } else {
            padded
        };
        let payload = body.get(start..start + len.min(padded)).unwrap_or_default();
        out.push(Entry {
            kind,
            arch,
            flags,
            uncompressed_size,
            payload,
        });
        if next <= at {
            return Err(bad(format!("entry at {at:#x} has no size")));
        }
        at = next;
    }
    Ok(out)
}

/// The largest decompressed entry accepted (256 MiB; the cubins in cuBLAS are far smaller).
const MAX_UNCOMPRESSED: u64 = 256 << 20;

/// The payload of an entry, decompressed (to exactly the size its header gives).
pub fn contents(entry: &Entry<'_>) -> Result<Vec<u8>> {
    let compressed = entry.flags & (FLAG_ZSTD | FLAG_LZ4) != 0;
    if !compressed {
        return Ok(entry.payload.to_vec());
    }
    if entry.uncompressed_size > MAX_UNCOMPRESSED {
        return Err(bad(format!(
            "sm_{} entry claims {} uncompressed bytes",
            entry.arch, entry.uncompressed_size
        )));
    }
    let size = entry.uncompressed_size as usize;
    let out = if entry.flags & FLAG_ZSTD != 0 {
        let decoder = ruzstd::decoding::StreamingDecoder::new(entry.payload)
            .map_err(|e| bad(format!("sm_{} entry: zstd: {e}", entry.arch)))?;
        let mut out = Vec::with_capacity(size);
        // One byte more than announced tells a lying header from a right one.
        std::io::Read::read_to_end(&mut std::io::Read::take(decoder, size as u64 + 1), &mut out)
            .map_err(|e| bad(format!("sm_{} entry: zstd: {e}", entry.arch)))?;
        out
    } else {
        lz4_flex::block::decompress(entry.payload, size)
            .map_err(|e| bad(format!("sm_{} entry: LZ4: {e}", entry.arch)))?
    };
    if out.len() != size {
        return Err(bad(format!(
            "sm_{} entry: {} bytes decompressed, {size} announced",
            entry.arch,
            out.len()
        )));
    }
    Ok(out)
}

/// The cubin sassport runs from a container: see the module documentation for the choice.
pub fn select_cubin(container: &[u8]) -> Result<Vec<u8>> {
    let all = entries(container)?;
    let best = all
        .iter()
        .filter(|e| e.kind == KIND_ELF && (80..=TARGET_ARCH).contains(&e.arch))
        .max_by_key(|e| e.arch);
    match best {
        Some(e) => {
            let cubin = contents(e)?;
            if cubin.get(..4) != Some(&ELF_MAGIC[..]) {
                return Err(bad(format!(
                    "the sm_{} entry does not hold an ELF file",
                    e.arch
                )));
            }
            Ok(cubin)
        }
        None => {
            let list: Vec<String> = all
                .iter()
                .map(|e| {
                    format!(
                        "{} for sm_{}",
                        if e.kind == KIND_PTX { "PTX" } else { "SASS" },
                        e.arch
                    )
                })
                .collect();
            Err(DriverError::NoBinaryForGpu(if list.is_empty() {
                "it is empty".into()
            } else {
                list.join(", ")
            }))
        }
    }
}

/// The end of an ELF file's section header table (its first part to read).
fn elf_table_end(ehdr: &[u8]) -> Option<usize> {
    let shoff = usize::try_from(u64_at(ehdr, 0x28)?).ok()?;
    let table = usize::from(u16_at(ehdr, 0x3a)?).checked_mul(usize::from(u16_at(ehdr, 0x3c)?))?;
    shoff.checked_add(table)
}

/// The size of an ELF file: the furthest end of its section header table, sections and segments.
fn elf_size(elf: &[u8]) -> Option<usize> {
    let mut end = elf_table_end(elf)?;
    let shoff = usize::try_from(u64_at(elf, 0x28)?).ok()?;
    let (shentsize, shnum) = (
        usize::from(u16_at(elf, 0x3a)?),
        usize::from(u16_at(elf, 0x3c)?),
    );
    for i in 0..shnum {
        let h = shoff + i * shentsize;
        const SHT_NOBITS: u32 = 8;
        if u32_at(elf, h + 4)? != SHT_NOBITS {
            let section_end = u64_at(elf, h + 0x18)?.checked_add(u64_at(elf, h + 0x20)?)?;
            end = end.max(usize::try_from(section_end).ok()?);
        }
    }
    let phoff = usize::try_from(u64_at(elf, 0x20)?).ok()?;
    let (phentsize, phnum) = (
        usize::from(u16_at(elf, 0x36)?),
        usize::from(u16_at(elf, 0x38)?),
    );
    for i in 0..phnum {
        let h = phoff.checked_add(i * phentsize)?;
        let segment_end = u64_at(elf, h + 8)?.checked_add(u64_at(elf, h + 0x20)?)?;
        end = end.max(usize::try_from(segment_end).ok()?);
    }
    Some(end)
}

/// The cubin at a pointer CUDA hands over as a module image: a fat-binary wrapper, a container, or a cubin.
///
/// # Safety
/// `image` points at one of those, readable for as many bytes as its headers announce (what CUDA requires).
pub unsafe fn cubin_from_image(image: *const u8) -> Result<Vec<u8>> {
    if image.is_null() {
        return Err(DriverError::InvalidValue("module image is null".into()));
    }
    let head = unsafe { std::slice::from_raw_parts(image, 16) };
    match u32_at(head, 0) {
        Some(WRAPPER_MAGIC) => {
            let version = u32_at(head, 4).unwrap_or(0);
            // Version 2 (separate compilation, `-rdc=true`): `data` is still the container, the one nvlink
            // wrote with the device-linked code; the prelinked list after it is for the runtime's own use.
            if version != 1 && version != 2 {
                return Err(DriverError::NotSupported(format!(
                    "fat-binary wrapper version {version}"
                )));
            }
            let data = u64_at(head, 8).unwrap_or(0) as *const u8;
            unsafe { cubin_from_image(data) }
        }
        Some(FATBIN_MAGIC) => {
            let size = container_size(head)?;
            select_cubin(unsafe { std::slice::from_raw_parts(image, size) })
        }
        _ if head[..4] == ELF_MAGIC => {
            let invalid = || DriverError::InvalidImage("cubin: ELF headers out of range".into());
            let ehdr = unsafe { std::slice::from_raw_parts(image, 64) };
            let table_end = elf_table_end(ehdr).ok_or_else(invalid)?.max(64);
            // The headers name the file's extent: read them first, then the whole file.
            let headers = unsafe { std::slice::from_raw_parts(image, table_end) };
            let phdrs_end = usize::try_from(u64_at(ehdr, 0x20).unwrap_or(0)).unwrap_or(0)
                + usize::from(u16_at(ehdr, 0x36).unwrap_or(0))
                    * usize::from(u16_at(ehdr, 0x38).unwrap_or(0));
            let headers = if phdrs_end > table_end {
                unsafe { std::slice::from_raw_parts(image, phdrs_end) }
            } else {
                headers
            };
            let size = elf_size(headers).ok_or_else(invalid)?;
            Ok(unsafe { std::slice::from_raw_parts(image, size) }.to_vec())
        }
        _ if head.starts_with(b"//")
            || head.starts_with(b".version")
            || head.starts_with(b"\n") =>
        {
            Err(DriverError::NoBinaryForGpu("the image is PTX text".into()))
        }
        _ => Err(DriverError::InvalidImage(
            "unknown module image (not a fat binary, cubin or PTX)".into(),
        )),
    }
}
