//! What a translated module binds, read from the module itself, checked against the ABI.
//!
//! The runtime needs no side channel from the translator: bindings, constant-bank sizes and required
//! capabilities come from the SPIR-V, and anything outside `sassport_translator::abi` is refused by name.

use std::collections::{BTreeMap, HashMap};

use rspirv::dr::{self, Operand};
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
}

impl ModuleInterface {
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
                _ => (true, ""),
            };
            (!have).then_some(name)
        })
    }
}

/// Reads the interface of `words`, refusing modules that do not follow the ABI.
pub fn reflect(kernel: &str, words: &[u32]) -> Result<ModuleInterface> {
    let module = dr::load_words(words).map_err(|e| RuntimeError::MalformedModule {
        kernel: kernel.into(),
        reason: e.to_string(),
    })?;
    let violation = |reason: String| RuntimeError::AbiViolation {
        kernel: kernel.into(),
        reason,
    };

    let has_main = module.entry_points.iter().any(|ep| {
        matches!(
            ep.operands.first(),
            Some(Operand::ExecutionModel(ExecutionModel::GLCompute))
        ) && matches!(ep.operands.get(2), Some(Operand::LiteralString(s)) if s == abi::ENTRY_POINT)
    });
    if !has_main {
        return Err(violation(format!(
            "no GLCompute entry point named {:?}",
            abi::ENTRY_POINT
        )));
    }

    // Decorations by target id.
    let mut set: HashMap<u32, u32> = HashMap::new();
    let mut binding: HashMap<u32, u32> = HashMap::new();
    let mut array_stride: HashMap<u32, u32> = HashMap::new();
    for a in &module.annotations {
        if a.class.opcode != Op::Decorate {
            continue;
        }
        let (Some(Operand::IdRef(target)), Some(Operand::Decoration(d))) =
            (a.operands.first(), a.operands.get(1))
        else {
            continue;
        };
        let literal = match a.operands.get(2) {
            Some(Operand::LiteralBit32(v)) => *v,
            _ => continue,
        };
        match d {
            Decoration::DescriptorSet => {
                set.insert(*target, literal);
            }
            Decoration::Binding => {
                binding.insert(*target, literal);
            }
            Decoration::ArrayStride => {
                array_stride.insert(*target, literal);
            }
            _ => {}
        }
    }

    let defs: HashMap<u32, &dr::Instruction> = module
        .types_global_values
        .iter()
        .filter_map(|i| i.result_id.map(|id| (id, i)))
        .collect();
    let id_operand = |inst: &dr::Instruction, n: usize| match inst.operands.get(n) {
        Some(Operand::IdRef(id)) => Some(*id),
        _ => None,
    };

    let mut interface = ModuleInterface {
        capabilities: module
            .capabilities
            .iter()
            .filter_map(|c| match c.operands.first() {
                Some(Operand::Capability(c)) => Some(*c),
                _ => None,
            })
            .collect(),
        ..Default::default()
    };

    for var in module
        .types_global_values
        .iter()
        .filter(|i| i.class.opcode == Op::Variable)
    {
        let Some(id) = var.result_id else { continue };
        let Some(&b) = binding.get(&id) else { continue };
        let s = set.get(&id).copied().unwrap_or(0);
        if s != abi::DESCRIPTOR_SET {
            return Err(violation(format!(
                "variable %{id} uses descriptor set {s}; only set {} exists",
                abi::DESCRIPTOR_SET
            )));
        }
        let storage = match var.operands.first() {
            Some(Operand::StorageClass(c)) => *c,
            _ => return Err(violation(format!("variable %{id} has no storage class"))),
        };
        let want = if b == abi::GLOBAL_WINDOW_BINDING {
            StorageClass::StorageBuffer
        } else {
            StorageClass::Uniform
        };
        if b > abi::LAST_BINDING {
            return Err(violation(format!(
                "binding {b} is not part of the ABI (0..={})",
                abi::LAST_BINDING
            )));
        }
        if storage != want {
            return Err(violation(format!(
                "binding {b} must be in storage class {want:?}, not {storage:?}"
            )));
        }
        if b == abi::GLOBAL_WINDOW_BINDING {
            interface.uses_window = true;
            continue;
        }
        // Uniform bindings: pointer -> struct whose member 0 is a uvec4 array of constant length.
        let array_bytes = (|| {
            let ptr = defs.get(&var.result_type?)?;
            let block = defs.get(&id_operand(ptr, 1)?)?;
            let array_id = id_operand(block, 0)?;
            let array = defs.get(&array_id)?;
            if array.class.opcode != Op::TypeArray {
                return None;
            }
            let len = match defs.get(&id_operand(array, 1)?)?.operands.first()? {
                Operand::LiteralBit32(n) if defs.get(&id_operand(array, 1)?)?.class.opcode == Op::Constant => *n,
                _ => return None,
            };
            (array_stride.get(&array_id) == Some(&abi::UNIFORM_ARRAY_STRIDE))
                .then(|| len.checked_mul(abi::UNIFORM_ARRAY_STRIDE))
                .flatten()
        })()
        .ok_or_else(|| {
            violation(format!(
                "binding {b} must be a block whose first member is a uvec4 array of constant length (ArrayStride {})",
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
