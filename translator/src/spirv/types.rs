//! Type keys of the module's type cache and their declaration.

use super::{Capability, Decoration, Id, Module, Op, StorageClass};

/// A SPIR-V type, keyed by what it is; composite members are ids of already declared types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Type {
    Void,
    Bool,
    /// Unsigned (signedness 0) integer of this width: SPIR-V arithmetic picks signedness per operation.
    Int(u32),
    Float(u32),
    Vector(Id, u32),
    /// Array of `element` with a constant length (the id of a u32 constant) and optional `ArrayStride`.
    Array(Id, Id, Option<u32>),
    /// Runtime array with `ArrayStride`.
    RuntimeArray(Id, u32),
    /// Struct of one member at offset 0, decorated `Block` (interface blocks of this ABI).
    Block(Id),
    Pointer(StorageClass, Id),
    /// Function type: return type and up to four parameter types (0 = absent).
    Function(Id, [Id; 4]),
}

pub(super) fn declare(m: &mut Module, t: Type) -> Id {
    let id = m.id();
    match t {
        Type::Void => m.global_inst(Op::TypeVoid, &[id]),
        Type::Bool => m.global_inst(Op::TypeBool, &[id]),
        Type::Int(w) => {
            match w {
                8 => m.capability(Capability::Int8),
                16 => m.capability(Capability::Int16),
                64 => m.capability(Capability::Int64),
                _ => {}
            }
            m.global_inst(Op::TypeInt, &[id, w, 0])
        }
        Type::Float(w) => {
            match w {
                16 => m.capability(Capability::Float16),
                64 => m.capability(Capability::Float64),
                _ => {}
            }
            m.global_inst(Op::TypeFloat, &[id, w])
        }
        Type::Vector(e, n) => m.global_inst(Op::TypeVector, &[id, e, n]),
        Type::Array(e, len, stride) => {
            m.global_inst(Op::TypeArray, &[id, e, len]);
            if let Some(s) = stride {
                m.decorate(id, Decoration::ArrayStride, &[s]);
            }
        }
        Type::RuntimeArray(e, stride) => {
            m.global_inst(Op::TypeRuntimeArray, &[id, e]);
            m.decorate(id, Decoration::ArrayStride, &[stride]);
        }
        Type::Block(member) => {
            m.global_inst(Op::TypeStruct, &[id, member]);
            m.decorate(id, Decoration::Block, &[]);
            m.member_decorate(id, 0, Decoration::Offset, &[0]);
        }
        Type::Pointer(class, pointee) => m.global_inst(Op::TypePointer, &[id, class as u32, pointee]),
        Type::Function(ret, params) => {
            let mut words = vec![id, ret];
            words.extend(params.iter().copied().filter(|p| *p != 0));
            m.global_inst(Op::TypeFunction, &words);
        }
    }
    id
}
