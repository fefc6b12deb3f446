//! Which SM a cubin's code is for, and whether sassport can decode it.
//!
//! The SM number lives in `e_flags`, in one of two layouts chosen by `e_ident[EI_ABIVERSION]` (the names are
//! LLVM's `BinaryFormat/ELF.h`, public facts): ABI version 8 (`ELFABIVERSION_CUDA_V2`, what the pinned nvcc
//! 13.5.37 writes for every SM from sm_75 to sm_121) keeps it in bits 8..=15 (`EF_CUDA_SM_MASK`); ABI
//! version 7 (`ELFABIVERSION_CUDA_V1`, older toolkits) kept it in bits 0..=7 (`EF_CUDA_SM`), with texture
//! and addressing flags in bits 8..=11. The pinned cuobjdump and nvdisasm read only version 8 (they call
//! a version 7 file "Invalid ELF"), so version 7 rests on LLVM's header alone. `cargo xtask arch-compat`
//! checks the version 8 reading against nvcc's `-arch` for every SM it builds.

/// `e_ident[EI_ABIVERSION]` of cubins that keep the SM in `e_flags` bits 0..=7.
pub const CUDA_ABI_V1: u8 = 7;
/// `e_ident[EI_ABIVERSION]` of cubins that keep the SM in `e_flags` bits 8..=15 (nvcc 13.5.37 output).
pub const CUDA_ABI_V2: u8 = 8;

/// The SMs whose machine code is SM86's encoding word for word, with SM86's constant bank 0 layout
/// (parameters at `c[0x0][0x160]`). Measured, not assumed: `cargo xtask arch-compat` builds the corpus for
/// each candidate SM with the pinned nvcc and compares `nvdisasm -b SM86` with `nvdisasm -b SMxx` on the
/// same words (the corpus code and random legal words of our table); `docs/architectures.md` has the
/// figures. sm_80 and sm_89 are close but not equal (sm_80 reads some SM86 modifier bits differently,
/// sm_89 spells F2FP and CCTL differently), so they are refused like sm_75 and sm_90 and later. Code for
/// any SM not listed is refused with [`super::CubinError::UnsupportedArchitecture`].
pub const SM86_COMPATIBLE: &[u32] = &[86, 87, 88];

/// The SM number `e_flags` names under ABI version `abi_version`; `None` for an ABI version whose layout
/// is unknown.
pub fn sm_from_flags(abi_version: u8, flags: u32) -> Option<u32> {
    match abi_version {
        CUDA_ABI_V2 => Some((flags >> 8) & 0xff),
        CUDA_ABI_V1 => Some(flags & 0xff),
        _ => None,
    }
}

/// Whether code for `sm` decodes as SM86 code.
pub fn is_sm86_compatible(sm: u32) -> bool {
    SM86_COMPATIBLE.contains(&sm)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `e_flags` as the pinned nvcc writes them (read with `readelf -h`, and cuobjdump's `sm=` agrees).
    #[test]
    fn version_8_flags_of_nvcc_13_5() {
        for (flags, sm) in [
            (0x0600_4b04, 75),
            (0x0600_5604, 86),
            (0x0600_5a04, 90),
            (0x0600_6402, 100),
            (0x0600_7802, 120),
        ] {
            assert_eq!(sm_from_flags(CUDA_ABI_V2, flags), Some(sm), "{flags:#x}");
        }
    }

    /// The version 7 layout: SM in the low byte, `EF_CUDA_64BIT_ADDRESS` (0x400) and the virtual SM above.
    #[test]
    fn version_7_flags_keep_the_sm_in_the_low_byte() {
        assert_eq!(sm_from_flags(CUDA_ABI_V1, 0x0056_0556), Some(86));
        assert_eq!(sm_from_flags(6, 0x0056_0556), None);
    }
}
