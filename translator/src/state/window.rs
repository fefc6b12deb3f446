//! Addressing binding 33: the one place that turns a guest-memory word index into a pointer.
//!
//! Two forms (docs/abi.md, "The global-memory window"). One buffer (every window up to
//! `maxStorageBufferRange`): `struct { uint words[]; }`, word indexes are `u32`, the runtime's records follow
//! the window in the same buffer. Chunks (`abi::WindowChunks`): guest memory is in chunk buffers of `2^k`
//! bytes reached through buffer device addresses; binding 33 keeps only the records, after a table of the
//! chunks' device addresses (`abi::WINDOW_CHUNK_TABLE_WORD`). Word indexes are `u64`, split here into
//! (chunk, byte offset); the pointer is the table entry plus the offset (`PhysicalStorageBuffer`).

use crate::abi::{self, WindowChunks};
use crate::spirv::{Capability, Decoration, Id, Module, Op, StorageClass, Type};

use super::Types;

/// The declared window variable and its form; `Copy`, so helper-function builders can capture it.
#[derive(Clone, Copy, Debug)]
pub struct Window {
    /// The `StorageBuffer` variable of binding 33 (the 32-bit view, or the 64-bit one from [`Window::view`]).
    pub var: Id,
    /// `None`: one buffer.
    pub chunks: Option<WindowChunks>,
    /// Bytes of this view's element, log 2 (2: the 32-bit view, 3: the 64-bit one).
    pub view_log2: u32,
}

impl Window {
    /// Declares binding 33 with elements of `elem` (u32 or u64, `stride` bytes): the same block in both forms.
    pub fn declare(m: &mut Module, elem: Id, stride: u32, chunks: Option<WindowChunks>) -> Window {
        let rta = m.ty(Type::RuntimeArray(elem, stride));
        let block = m.ty(Type::Block(rta));
        let ptr = m.t_ptr(StorageClass::StorageBuffer, block);
        let var = m.global_var(ptr, StorageClass::StorageBuffer, None);
        m.decorate(var, Decoration::DescriptorSet, &[abi::DESCRIPTOR_SET]);
        m.decorate(var, Decoration::Binding, &[abi::GLOBAL_WINDOW_BINDING]);
        Window {
            var,
            chunks,
            view_log2: stride.trailing_zeros(),
        }
    }

    /// The integer type of a guest word index: `u32` for one buffer, `u64` for chunks.
    pub fn index_type(&self, t: &Types) -> Id {
        if self.chunks.is_some() {
            t.u64
        } else {
            t.u32
        }
    }

    /// `idx + k` in the index type.
    pub fn index_add(&self, m: &mut Module, t: &Types, idx: Id, k: u32) -> Id {
        if k == 0 {
            return idx;
        }
        let (ty, kc) = match self.chunks {
            None => (t.u32, m.c_u32(k)),
            Some(_) => (t.u64, m.c_u64(u64::from(k))),
        };
        m.bin(Op::IAdd, ty, idx, kc)
    }

    /// The index's low 32 bits (for hashing a word onto a lock, say).
    pub fn index_low32(&self, m: &mut Module, t: &Types, idx: Id) -> Id {
        match self.chunks {
            None => idx,
            Some(_) => m.un(Op::UConvert, t.u32, idx),
        }
    }

    /// A `u32` word index (window words below 2^32: heap header and arena, printf formats) in the index type.
    pub fn widen(&self, m: &mut Module, t: &Types, idx32: Id) -> Id {
        match self.chunks {
            None => idx32,
            Some(_) => m.un(Op::UConvert, t.u64, idx32),
        }
    }

    /// Pointer (`ptr_ty`, to an element of this view; chunks: a `PhysicalStorageBuffer` pointer to the same
    /// type) to guest element `idx` (index type); element size `1 << elem_log2` bytes.
    pub fn element(&self, m: &mut Module, t: &Types, ptr_ty: Id, idx: Id, elem_log2: u32) -> Id {
        let zero = m.c_u32(0);
        let Some(c) = self.chunks else {
            return m.access(ptr_ty, self.var, &[zero, idx]);
        };
        m.capability(Capability::PhysicalStorageBufferAddresses);
        let shift = m.c_u32(c.log2_bytes - elem_log2);
        let chunk = m.bin(Op::ShiftRightLogical, t.u64, idx, shift);
        let chunk = m.un(Op::UConvert, t.u32, chunk);
        let mask = m.c_u64((1u64 << (c.log2_bytes - elem_log2)) - 1);
        let within = m.bin(Op::BitwiseAnd, t.u64, idx, mask);
        let el = m.c_u32(elem_log2);
        let within = m.bin(Op::ShiftLeftLogical, t.u64, within, el);
        let base = self.chunk_address(m, t, chunk);
        let address = m.bin(Op::IAdd, t.u64, base, within);
        let elem = if elem_log2 == 3 { t.u64 } else { t.u32 };
        let phys = m.t_ptr(StorageClass::PhysicalStorageBuffer, elem);
        let _ = ptr_ty;
        m.physical_pointer(phys, address, 1 << elem_log2)
    }

    /// Device address of chunk `chunk` (u32): its entry of the table in binding 33.
    fn chunk_address(&self, m: &mut Module, t: &Types, chunk: Id) -> Id {
        let zero = m.c_u32(0);
        let first = m.c_u32(abi::WINDOW_CHUNK_TABLE_WORD >> (self.view_log2 - 2));
        if self.view_log2 == 3 {
            let i = m.bin(Op::IAdd, t.u32, first, chunk);
            let ptr = m.t_ptr(StorageClass::StorageBuffer, t.u64);
            let p = m.access(ptr, self.var, &[zero, i]);
            return m.load(t.u64, p);
        }
        let one = m.c_u32(1);
        let i = m.bin(Op::ShiftLeftLogical, t.u32, chunk, one);
        let i = m.bin(Op::IAdd, t.u32, first, i);
        let plo = m.access(t.storage_u32, self.var, &[zero, i]);
        let lo = m.load(t.u32, plo);
        let i1 = m.bin(Op::IAdd, t.u32, i, one);
        let phi = m.access(t.storage_u32, self.var, &[zero, i1]);
        let hi = m.load(t.u32, phi);
        let lo = m.un(Op::UConvert, t.u64, lo);
        let hi = m.un(Op::UConvert, t.u64, hi);
        let k = m.c_u32(32);
        let hi = m.bin(Op::ShiftLeftLogical, t.u64, hi, k);
        m.bin(Op::BitwiseOr, t.u64, lo, hi)
    }

    /// Pointer to guest 32-bit word `idx` (index type).
    pub fn word(&self, m: &mut Module, t: &Types, idx: Id) -> Id {
        self.element(m, t, t.storage_u32, idx, 2)
    }

    /// Pointer to guest 32-bit word `idx32` given as a `u32` (words below 2^32: the heap, printf formats).
    pub fn word32(&self, m: &mut Module, t: &Types, idx32: Id) -> Id {
        let i = self.widen(m, t, idx32);
        self.word(m, t, i)
    }

    /// Pointer to 32-bit word `word` (u32) of the runtime's records (fault record, printf area, abort block):
    /// binding 33 in both forms.
    pub fn record(&self, m: &mut Module, t: &Types, word: Id) -> Id {
        let zero = m.c_u32(0);
        m.access(t.storage_u32, self.var, &[zero, word])
    }
}
