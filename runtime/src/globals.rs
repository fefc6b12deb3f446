//! A cubin's module data in guest memory: its `__device__` variables placed in the window and its constant
//! banks with every relocation applied, as the CUDA driver does when it loads a module.
//!
//! `.nv.global` (zero-initialised, `SHT_NOBITS`) and `.nv.global.init` (initialised) are each given one
//! allocation; a symbol in them has the guest address `allocation + st_value`. Then the relocations that
//! patch those sections or a constant bank (`.rel.nv.constant4` holding `&op_table`, the addresses of
//! printf's format strings, ...) are applied to private copies: `R_CUDA_64` writes `S + A` as 8 bytes,
//! `R_CUDA_32` its low 4 bytes, where `S` is
//! - for a variable (or section symbol) of a placed section: its guest address;
//! - for a function defined in the cubin: [`abi::code_address`] of its code section and offset;
//! - for a function the cubin only declares (`vprintf`, `__assertfail`):
//!   `abi::code_address(abi::EXTERN_SECTION, symbol index)`.
//!
//! and `A` is the `.rela` addend or, for `.rel`, the value already stored at the place. Anything else
//! (another relocation type, a symbol in an unplaced section) is refused by name and offset rather than left
//! as zero. A kernel of a relocatable (`-rdc`) cubin whose linked code (`cubin::link`) reads a linked function's
//! constants or a `__device__` variable's address gets the merged bank 2 the linker laid out instead of its own.
//! A cubin that calls `malloc` or `free` also gets the device heap (`crate::heap`), as CUDA's
//! driver sets its heap up when it loads such a module.

use crate::{abi, Result, Runtime, RuntimeError};
use sassport_translator::cubin::{BankPiece, Cubin, MergedBank, SymbolKind, MERGED_BANK};
use std::collections::HashMap;

/// `R_CUDA_32`.
const R_CUDA_32: u32 = 1;
/// `R_CUDA_64`.
const R_CUDA_64: u32 = 2;

/// A cubin's placed globals and relocated constant banks. Free with [`ModuleData::free`].
#[derive(Debug, Default)]
pub struct ModuleData {
    /// Guest address of each placed section, by section index.
    placed: HashMap<usize, u64>,
    /// Constant banks other than the per-launch bank 0: (bank, owning kernel or `None` for all, bytes).
    banks: Vec<(u32, Option<String>, Vec<u8>)>,
}

impl ModuleData {
    /// The constant banks a launch of `kernel` binds, bank 0 excluded (the caller builds it per launch).
    pub fn banks_for(&self, kernel: &str) -> Vec<(u32, &[u8])> {
        self.banks
            .iter()
            .filter(|(b, f, _)| *b != 0 && f.as_deref().is_none_or(|f| f == kernel))
            .map(|(b, _, d)| (*b, d.as_slice()))
            .collect()
    }

    /// Guest address of the section with this index, if it was placed.
    pub fn section_address(&self, section: usize) -> Option<u64> {
        self.placed.get(&section).copied()
    }

    /// Frees the allocations of the placed sections.
    pub fn free(self, rt: &mut Runtime) -> Result<()> {
        for (_, a) in self.placed {
            rt.free(a)?;
        }
        Ok(())
    }
}

fn is_placed(name: &str) -> bool {
    name == ".nv.global" || name == ".nv.global.init"
}

/// The bytes of a kernel's merged bank (`cubin::MergedBank`): the pieces' relocated bank images and the guest
/// addresses of the variables whose slots it holds.
fn merged_bank(
    cubin: &Cubin<'_>,
    data: &ModuleData,
    images: &HashMap<usize, Vec<u8>>,
    bank: &MergedBank,
) -> Result<Vec<u8>> {
    let mut bytes = vec![0u8; bank.size as usize];
    for piece in &bank.pieces {
        let (at, piece_bytes) = match *piece {
            BankPiece::Section { section, at } => (at, images.get(&section).cloned().unwrap_or_default()),
            BankPiece::Address { symbol, at } => {
                let sym = cubin.symbols.get(symbol);
                let name = sym.map_or("?", |s| s.name);
                let address = sym
                    .and_then(|s| Some(data.section_address(s.section?)?.wrapping_add(s.value)))
                    .ok_or_else(|| relocation_error(".nv.constant2", u64::from(at), format!("{name} is not placed")))?;
                (at, address.to_le_bytes().to_vec())
            }
        };
        let start = at as usize;
        let place = bytes
            .get_mut(start..start + piece_bytes.len())
            .ok_or_else(|| relocation_error(".nv.constant2", u64::from(at), "piece beyond the merged bank".into()))?;
        place.copy_from_slice(&piece_bytes);
    }
    Ok(bytes)
}

fn relocation_error(section: &str, offset: u64, reason: String) -> RuntimeError {
    RuntimeError::Relocation { section: section.to_string(), offset, reason }
}

impl Runtime {
    /// Places `cubin`'s global variables in the window and returns them with its relocated constant banks.
    pub fn load_module_data(&mut self, cubin: &Cubin<'_>) -> Result<ModuleData> {
        // A cubin that calls malloc or free gets the device heap (placed once, `crate::heap`).
        self.heap_for(cubin)?;
        let mut data = ModuleData::default();
        let mut images: HashMap<usize, Vec<u8>> = HashMap::new();
        for s in cubin.sections.iter().filter(|s| is_placed(s.name)) {
            if s.size == 0 {
                continue;
            }
            let address = match self.alloc(s.size) {
                Ok(a) => a,
                Err(e) => {
                    let _ = std::mem::take(&mut data).free(self);
                    return Err(e);
                }
            };
            data.placed.insert(s.index, address);
            // NOBITS sections start zeroed; the window is not zeroed by allocation.
            let mut image = s.data.to_vec();
            image.resize(s.size as usize, 0);
            images.insert(s.index, image);
        }
        for b in &cubin.constant_banks {
            images.insert(b.section, b.data.to_vec());
        }
        let result = self.relocate(cubin, &data, &mut images);
        if let Err(e) = result {
            let _ = data.free(self);
            return Err(e);
        }
        for (&section, &address) in &data.placed {
            if let Some(image) = images.get(&section) {
                if let Err(e) = self.upload(address, image) {
                    let _ = data.free(self);
                    return Err(e);
                }
            }
        }
        // Kernels of relocatable cubins whose linked code needs a merged bank 2 (`cubin::link`): built from
        // the relocated bank images and the placed variables, replacing the kernel's own bank 2.
        let mut merged = Vec::new();
        for kernel in &cubin.kernels {
            let Some(bank) = cubin.link_kernel(kernel).bank else { continue };
            match merged_bank(cubin, &data, &images, &bank) {
                Ok(bytes) => merged.push((kernel.name().to_string(), bytes)),
                Err(e) => {
                    let _ = data.free(self);
                    return Err(e);
                }
            }
        }
        for b in &cubin.constant_banks {
            let bytes = images.remove(&b.section).unwrap_or_default();
            let replaced = b.bank == MERGED_BANK && b.function.is_some_and(|f| merged.iter().any(|m| m.0 == f));
            if !replaced {
                data.banks.push((b.bank, b.function.map(str::to_string), bytes));
            }
        }
        for (kernel, bytes) in merged {
            data.banks.push((MERGED_BANK, Some(kernel), bytes));
        }
        Ok(data)
    }

    fn relocate(&self, cubin: &Cubin<'_>, data: &ModuleData, images: &mut HashMap<usize, Vec<u8>>) -> Result<()> {
        for rs in &cubin.relocation_sections {
            let Some(image) = images.get_mut(&rs.target) else { continue };
            for r in &rs.entries {
                let at = r.offset;
                let err = |reason: String| relocation_error(rs.target_name, at, reason);
                let sym = cubin
                    .symbols
                    .get(r.symbol as usize)
                    .ok_or_else(|| err(format!("symbol {} does not exist", r.symbol)))?;
                let s = match (sym.kind, sym.section) {
                    (SymbolKind::Function, Some(sec)) => {
                        let sec = u16::try_from(sec).map_err(|_| err(format!("section index {sec} of {}", sym.name)))?;
                        let off = u32::try_from(sym.value).map_err(|_| err(format!("offset of {}", sym.name)))?;
                        abi::code_address(sec, off)
                    }
                    (SymbolKind::Function | SymbolKind::NoType, None) => {
                        let idx = u32::try_from(sym.index).map_err(|_| err(format!("symbol index of {}", sym.name)))?;
                        abi::code_address(abi::EXTERN_SECTION, idx)
                    }
                    (_, Some(sec)) => match data.section_address(sec) {
                        Some(base) => base.wrapping_add(sym.value),
                        None => {
                            let name = cubin.sections.get(sec).map_or("?", |s| s.name);
                            return Err(err(format!(
                                "{} {} points into {name}, which is not placed in guest memory",
                                r.kind, sym.name
                            )));
                        }
                    },
                    (_, None) => return Err(err(format!("{} against undefined symbol {}", r.kind, sym.name))),
                };
                let width = match r.kind.0 {
                    R_CUDA_64 => 8usize,
                    R_CUDA_32 => 4,
                    _ => return Err(err(format!("{} against {} not supported", r.kind, sym.name))),
                };
                let start = usize::try_from(at).map_err(|_| err("offset beyond memory".into()))?;
                let place = image
                    .get_mut(start..start.saturating_add(width))
                    .ok_or_else(|| err(format!("{width}-byte place beyond the end of the section")))?;
                let mut old = [0u8; 8];
                old[..width].copy_from_slice(place);
                let addend = r.addend.unwrap_or(i64::from_le_bytes(old) << (64 - 8 * width) >> (64 - 8 * width));
                let value = s.wrapping_add(addend as u64);
                place.copy_from_slice(&value.to_le_bytes()[..width]);
            }
        }
        Ok(())
    }
}
