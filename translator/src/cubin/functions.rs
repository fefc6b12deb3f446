//! Address-taken device functions: the targets a register-indirect `CALL` may reach.
//!
//! A C function pointer on SM86 is not a code address. What nvcc stores for `&f` depends on the cubin:
//! - whole-program cubins (`ET_EXEC`, plain `nvcc -cubin`): the linker has resolved every function
//!   reference. The pointer value is the byte offset of a *function descriptor* in the calling kernel's
//!   constant bank 2 (`.nv.constant2.<kernel>`), whose 64-bit entry holds the function's offset in the
//!   kernel's code section. `calls_indirect` in the corpus: `op_table` in `.nv.global.init` holds
//!   8, 0x10, 0x18, 0x20; bank 2 holds 0x2e0, 0x280, 0x2a0, 0x2c0 at those offsets (the four `op_*`
//!   copies in `.text.calls_indirect`); the code is `LDC.64 R6, c[0x2][R0]` then `CALL.REL.NOINC R6`.
//!   No relocation against a function symbol is left (the only data relocation is `c[0x4][0x0]` ->
//!   `op_table`, an object).
//!   A pointer table the code reads straight from global memory (`__device__ op_t ops[] = {f, g}`, loaded with
//!   `LDG.E.64` and called with `CALL.REL.NOINC R6`) holds the functions' section offsets themselves, with no
//!   relocation: `call_barriers` in the corpus has 0x5a0 and 0x580 in `.nv.global.init`.
//! - relocatable cubins (`-rdc`): `.rel.nv.global.init` (or a constant bank's relocations) carries
//!   `R_CUDA_64` entries against the function symbols themselves.
//!
//! The candidate set of a kernel is the union of both: function symbols of the kernel's code section named
//! by a relocation that patches data (`.nv.global*`, `.nv.constant*`), and 64-bit entries of the kernel's
//! bank 2 or of a whole-program cubin's `.nv.global.init` that equal the offset of a function symbol in its
//! section. A bank-2 or data word that merely happens to
//! equal a function offset (a double constant, say) only adds a candidate, which costs a switch arm and
//! never changes a result; a call to anything outside the set is a runtime fault.

use super::{Cubin, SymbolKind};

impl Cubin<'_> {
    /// Section offsets of the functions in code section `section` whose address is taken (see the module
    /// documentation), sorted, without the kernel entries of that section.
    pub fn address_taken_functions(&self, section: &str) -> Vec<u32> {
        let Some(code) = self.code_section(section) else { return Vec::new() };
        let functions: Vec<u64> = code.symbols.iter().filter(|s| !s.is_kernel).map(|s| s.offset).collect();
        let mut out: Vec<u32> = Vec::new();
        let mut take = |offset: u64| {
            if let (true, Ok(o)) = (functions.contains(&offset), u32::try_from(offset)) {
                if !out.contains(&o) {
                    out.push(o);
                }
            }
        };
        // Relocations against function symbols, in data sections.
        for rs in &self.relocation_sections {
            let data = rs.target_name.starts_with(".nv.global") || rs.target_name.starts_with(".nv.constant");
            if !data {
                continue;
            }
            for r in &rs.entries {
                let Some(sym) = self.symbols.get(r.symbol as usize) else { continue };
                if sym.kind == SymbolKind::Function && sym.section == Some(code.index) {
                    take(sym.value.wrapping_add(r.addend.unwrap_or(0) as u64));
                }
            }
        }
        // Function descriptors in the kernels' bank 2 (one bank per kernel of this section).
        let kernels: Vec<&str> = code.symbols.iter().filter(|s| s.is_kernel).map(|s| s.name).collect();
        for bank in &self.constant_banks {
            if bank.bank != 2 || !bank.function.is_some_and(|f| kernels.contains(&f)) {
                continue;
            }
            for w in bank.data.chunks_exact(8) {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                take(u64::from_le_bytes(b));
            }
        }
        // Function offsets stored as data (a whole-program cubin's initialised `__device__` pointer tables).
        if let Some(init) = self.section(".nv.global.init") {
            for w in init.data.chunks_exact(8) {
                let mut b = [0u8; 8];
                b.copy_from_slice(w);
                take(u64::from_le_bytes(b));
            }
        }
        out.sort_unstable();
        out
    }
}
