//! What a translated module binds, read from the module itself, checked against the ABI.
//!
//! The runtime needs no side channel from the translator: bindings, constant-bank sizes and required
//! capabilities come from the SPIR-V, and anything outside `sassport_translator::abi` is refused by name.
//! Modules may come from outside (an emulator hands them over), so the reader is a bounds-checked walk over
//! the words that never indexes past an instruction (rspirv's loader panicked on truncated strings under
//! fuzzing).

use std::collections::{BTreeMap, HashMap};

use rspirv::spirv::{Capability, Decoration, ExecutionModel, Op, StorageClass};
use sassport_translator::abi;

use crate::device::DeviceFeatures;
use crate::error::{Result, RuntimeError};

/// The resources a module uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleInterface {
    /// Binding 0 (launch values) is declared.
    pub uses_launch_values: bool,
    /// Constant banks declared, bank index -> bytes the module's array covers.
    pub banks: BTreeMap<u32, u32>,
    /// Binding 33 (the global-memory window) is declared.
    pub uses_window: bool,
    /// Capabilities declared by the module.
    pub capabilities: Vec<Capability>,
    /// Bytes of `Workgroup` variables whose size is fixed in the module (static shared memory); arrays sized
    /// by a specialisation constant (dynamic shared memory) are not counted.
    pub static_shared_bytes: u64,
    /// The kernel's own static shared memory in bytes: the default of the module's spec id
    /// [`abi::SPEC_ID_STATIC_SHARED_BYTES`] (0 when the module declares none).
    pub guest_static_shared_bytes: u32,
    /// The kernel waits in a loop for other blocks' writes: the default of spec id
    /// [`abi::SPEC_ID_POLLS_OTHER_BLOCKS`], the waiting instruction's offset.
    pub polls_other_blocks: Option<u32>,
    /// The kernel's shared memory lives in window slots ([`abi::SPEC_ID_SHARED_IN_WINDOW`] is declared).
    pub shared_in_window: bool,
}

impl ModuleInterface {
    /// The module uses subgroup operations: in a translated module, warps run as 32-wide subgroups.
    pub fn uses_subgroups(&self) -> bool {
        self.capabilities.contains(&Capability::GroupNonUniform)
    }

    /// Names the first capability the device lacks, if any.
    pub fn missing_feature(&self, f: &DeviceFeatures) -> Option<&'static str> {
        self.capabilities.iter().find_map(|c| {
            let (have, name) = match c {
                Capability::Int64 => (f.int64, "shaderInt64"),
                Capability::Float64 => (f.float64, "shaderFloat64"),
                Capability::Int16 => (f.int16, "shaderInt16"),
                Capability::Float16 => (f.float16, "shaderFloat16"),
                Capability::Int8 => (f.int8, "shaderInt8"),
                Capability::Int64Atomics => (f.int64_atomics, "shaderBufferInt64Atomics"),
                Capability::StorageBuffer16BitAccess => {
                    (f.storage_buffer_16bit, "storageBuffer16BitAccess")
                }
                Capability::StorageBuffer8BitAccess => {
                    (f.storage_buffer_8bit, "storageBuffer8BitAccess")
                }
                Capability::VulkanMemoryModel => (f.vulkan_memory_model, "vulkanMemoryModel"),
                Capability::PhysicalStorageBufferAddresses => (f.buffer_device_address, "bufferDeviceAddress"),
                _ => (true, ""),
            };
            (!have).then_some(name)
        })
    }
}

const MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

/// One instruction: opcode and operand words (result type and id included), with its word offset.
struct Inst<'a> {
    op: u32,
    ops: &'a [u32],
}

/// Splits the module into instructions, refusing a bad header or an instruction that overruns the module.
fn instructions(words: &[u32]) -> std::result::Result<Vec<Inst<'_>>, String> {
    if words.len() < HEADER_WORDS {
        return Err(format!(
            "{} words is shorter than the 5-word header",
            words.len()
        ));
    }
    if words[0] != MAGIC {
        return Err(format!(
            "word 0 is 0x{:08x}, not the SPIR-V magic number 0x{MAGIC:08x}",
            words[0]
        ));
    }
    let mut out = Vec::new();
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 {
            return Err(format!("instruction at word {at} has word count 0"));
        }
        let Some(body) = words.get(at + 1..at + count) else {
            return Err(format!(
                "instruction at word {at} claims {count} words; {} remain",
                words.len() - at
            ));
        };
        out.push(Inst {
            op: words[at] & 0xffff,
            ops: body,
        });
        at += count;
    }
    Ok(out)
}

/// Decodes a nul-terminated literal string from operand words; `None` without a terminator or valid UTF-8.
fn literal_string(words: &[u32]) -> Option<String> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let end = bytes.iter().position(|&b| b == 0)?;
    String::from_utf8(bytes[..end].to_vec()).ok()
}

/// Reads the interface of `words`, refusing modules that do not follow the ABI.
pub fn reflect(kernel: &str, words: &[u32]) -> Result<ModuleInterface> {
    let insts = instructions(words).map_err(|reason| RuntimeError::MalformedModule {
        kernel: kernel.into(),
        reason,
    })?;
    let violation = |reason: String| RuntimeError::AbiViolation {
        kernel: kernel.into(),
        reason,
    };

    let has_main = insts.iter().any(|i| {
        i.op == Op::EntryPoint as u32
            && i.ops.first() == Some(&(ExecutionModel::GLCompute as u32))
            && i.ops.get(2..).and_then(literal_string).as_deref() == Some(abi::ENTRY_POINT)
    });
    if !has_main {
        return Err(violation(format!(
            "no GLCompute entry point named {:?}",
            abi::ENTRY_POINT
        )));
    }

    let mut interface = ModuleInterface {
        capabilities: insts
            .iter()
            .filter(|i| i.op == Op::Capability as u32)
            .filter_map(|i| i.ops.first().and_then(|&c| Capability::from_u32(c)))
            .collect(),
        ..Default::default()
    };

    // Decorations by target id, and the defining instruction of every result id.
    let mut set: HashMap<u32, u32> = HashMap::new();
    let mut binding: HashMap<u32, u32> = HashMap::new();
    let mut array_stride: HashMap<u32, u32> = HashMap::new();
    let mut spec_id: HashMap<u32, u32> = HashMap::new();
    let mut defs: HashMap<u32, &Inst> = HashMap::new();
    for i in &insts {
        if i.op == Op::Decorate as u32 {
            if let [target, decoration, value, ..] = *i.ops {
                match decoration {
                    d if d == Decoration::DescriptorSet as u32 => set.insert(target, value),
                    d if d == Decoration::Binding as u32 => binding.insert(target, value),
                    d if d == Decoration::ArrayStride as u32 => array_stride.insert(target, value),
                    d if d == Decoration::SpecId as u32 => spec_id.insert(target, value),
                    _ => None,
                };
            }
            continue;
        }
        // Result id: operand 0 for types, operand 1 for constants and variables.
        let result = if [
            Op::TypePointer,
            Op::TypeStruct,
            Op::TypeArray,
            Op::TypeInt,
            Op::TypeFloat,
            Op::TypeVector,
            Op::TypeBool,
        ]
        .iter()
        .any(|&o| i.op == o as u32)
        {
            i.ops.first()
        } else if i.op == Op::Constant as u32 || i.op == Op::Variable as u32 {
            i.ops.get(1)
        } else {
            None
        };
        if let Some(&id) = result {
            defs.insert(id, i);
        }
    }
    let def = |id: u32, op: Op| defs.get(&id).filter(|i| i.op == op as u32);

    // The kernel's static shared memory: the default of the spec constant with that id.
    interface.guest_static_shared_bytes = insts
        .iter()
        .filter(|i| i.op == Op::SpecConstant as u32)
        .find_map(|i| match *i.ops {
            [_, id, value] if spec_id.get(&id) == Some(&abi::SPEC_ID_STATIC_SHARED_BYTES) => Some(value),
            _ => None,
        })
        .unwrap_or(0);

    interface.polls_other_blocks = insts
        .iter()
        .filter(|i| i.op == Op::SpecConstant as u32)
        .find_map(|i| match *i.ops {
            [_, id, value] if spec_id.get(&id) == Some(&abi::SPEC_ID_POLLS_OTHER_BLOCKS) => Some(value),
            _ => None,
        });

    interface.shared_in_window = insts.iter().filter(|i| i.op == Op::SpecConstant as u32).any(|i| {
        matches!(*i.ops, [_, id, _] if spec_id.get(&id) == Some(&abi::SPEC_ID_SHARED_IN_WINDOW))
    });

    // Static shared memory: the sizes of Workgroup variables with a fixed layout.
    interface.static_shared_bytes = insts
        .iter()
        .filter(|i| i.op == Op::Variable as u32)
        .filter_map(|i| match *i.ops {
            [ty, _, storage, ..] if storage == StorageClass::Workgroup as u32 => {
                let pointee = *def(ty, Op::TypePointer)?.ops.get(2)?;
                type_size(&defs, pointee, &mut 4096, 0)
            }
            _ => None,
        })
        .fold(0u64, |a, b| a.saturating_add(b));

    let mut variables: Vec<(u32, u32, u32, u32)> = insts // (id, pointer type, storage class, binding)
        .iter()
        .filter(|i| i.op == Op::Variable as u32)
        .filter_map(|i| match *i.ops {
            [ty, id, storage, ..] => binding.get(&id).map(|&b| (id, ty, storage, b)),
            _ => None,
        })
        .collect();
    variables.sort_unstable();

    for (id, ty, storage, b) in variables {
        let s = set.get(&id).copied().unwrap_or(0);
        if s != abi::DESCRIPTOR_SET {
            return Err(violation(format!(
                "variable %{id} uses descriptor set {s}; only set {} exists",
                abi::DESCRIPTOR_SET
            )));
        }
        if b > abi::LAST_BINDING {
            return Err(violation(format!(
                "binding {b} is not part of the ABI (0..={})",
                abi::LAST_BINDING
            )));
        }
        let want = if b == abi::GLOBAL_WINDOW_BINDING {
            StorageClass::StorageBuffer
        } else {
            StorageClass::Uniform
        };
        if storage != want as u32 {
            let got = StorageClass::from_u32(storage)
                .map(|c| format!("{c:?}"))
                .unwrap_or(storage.to_string());
            return Err(violation(format!(
                "binding {b} must be in storage class {want:?}, not {got}"
            )));
        }
        if b == abi::GLOBAL_WINDOW_BINDING {
            interface.uses_window = true;
            continue;
        }
        // Uniform bindings: pointer -> block whose member 0 is a uvec4 array of constant length.
        let array_bytes = (|| {
            let pointee = *def(ty, Op::TypePointer)?.ops.get(2)?;
            let array_id = *def(pointee, Op::TypeStruct)?.ops.get(1)?;
            let length_id = *def(array_id, Op::TypeArray)?.ops.get(2)?;
            let length = *def(length_id, Op::Constant)?.ops.get(2)?;
            (array_stride.get(&array_id) == Some(&abi::UNIFORM_ARRAY_STRIDE))
                .then(|| length.checked_mul(abi::UNIFORM_ARRAY_STRIDE))
                .flatten()
        })()
        .ok_or_else(|| {
            violation(format!(
                "binding {b} must be a block whose first member is a uvec4 array of constant length \
                 (ArrayStride {})",
                abi::UNIFORM_ARRAY_STRIDE
            ))
        })?;
        if b == abi::LAUNCH_VALUES_BINDING {
            let size = abi::LAUNCH_VALUES_VEC4S * abi::UNIFORM_ARRAY_STRIDE;
            if array_bytes > size {
                return Err(violation(format!(
                    "binding 0 declares {array_bytes} bytes; launch values are {size}"
                )));
            }
            interface.uses_launch_values = true;
        } else {
            if array_bytes > abi::MAX_BANK_BYTES {
                return Err(violation(format!(
                    "constant bank {} declares {array_bytes} bytes; banks hold at most {}",
                    b - abi::FIRST_BANK_BINDING,
                    abi::MAX_BANK_BYTES
                )));
            }
            let e = interface
                .banks
                .entry(b - abi::FIRST_BANK_BINDING)
                .or_insert(0);
            *e = (*e).max(array_bytes);
        }
    }
    Ok(interface)
}

/// Size in bytes of a scalar, vector, constant-length array or struct type (members summed); `None` for
/// anything else, including arrays whose length is a specialisation constant. `budget` and `depth` bound the
/// work and the stack on malformed modules (self-referencing or hugely branching types).
fn type_size(defs: &HashMap<u32, &Inst>, id: u32, budget: &mut u32, depth: u32) -> Option<u64> {
    *budget = budget.checked_sub(1)?;
    if depth > 32 {
        return None;
    }
    let i = defs.get(&id)?;
    match i.op {
        op if op == Op::TypeInt as u32 || op == Op::TypeFloat as u32 => {
            Some(u64::from(*i.ops.get(1)?) / 8)
        }
        op if op == Op::TypeBool as u32 => Some(4),
        op if op == Op::TypeVector as u32 => {
            Some(type_size(defs, *i.ops.get(1)?, budget, depth + 1)? * u64::from(*i.ops.get(2)?))
        }
        op if op == Op::TypeArray as u32 => {
            let len = defs
                .get(i.ops.get(2)?)
                .filter(|c| c.op == Op::Constant as u32)?;
            type_size(defs, *i.ops.get(1)?, budget, depth + 1)?
                .checked_mul(u64::from(*len.ops.get(2)?))
        }
        op if op == Op::TypeStruct as u32 => i.ops.get(1..)?.iter().try_fold(0u64, |a, &m| {
            a.checked_add(type_size(defs, m, budget, depth + 1)?)
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrunning_and_headerless_modules_are_malformed() {
        let e = reflect("k", &[MAGIC, 0x10600, 0, 10, 0, (5 << 16) | 17, 1]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "kernel \"k\": SPIR-V module is malformed: instruction at word 5 claims 5 words; 2 remain"
        );
        assert!(matches!(
            reflect("k", &[MAGIC, 1]),
            Err(RuntimeError::MalformedModule { .. })
        ));
        assert!(matches!(
            reflect("k", &[1, 2, 3, 4, 5]),
            Err(RuntimeError::MalformedModule { .. })
        ));
        assert!(matches!(
            reflect("k", &[MAGIC, 0x10600, 0, 10, 0, 17]),
            Err(RuntimeError::MalformedModule { .. })
        ));
    }

    #[test]
    fn self_referencing_types_end_quickly() {
        // OpTypeStruct %2 with 200 members all %2; a Workgroup variable of it.
        let mut w = vec![MAGIC, 0x10600, 0, 10, 0, (2 << 16) | 17, 1];
        w.extend([(6 << 16) | 15, 5, 1, u32::from_le_bytes(*b"main"), 0, 3]);
        w.extend([(202 << 16) | 30, 2]);
        w.extend([2; 200]);
        w.extend([(4 << 16) | 32, 4, StorageClass::Workgroup as u32, 2]);
        w.extend([(4 << 16) | 59, 4, 3, StorageClass::Workgroup as u32]);
        let i = reflect("k", &w).unwrap();
        assert_eq!(i.static_shared_bytes, 0);
    }

    /// The input libFuzzer found to panic rspirv's loader (a string operand past the end of the module).
    #[test]
    fn fuzzer_crash_is_an_error() {
        let bytes = include_bytes!("../tests/data/reflect-crash-1.bin");
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let _ = reflect("k", &words);
    }
}
