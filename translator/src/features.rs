//! Device features that a profile can lack: the `--without FEATURE,...` mask (issue 23).
//!
//! Many Vulkan devices have less than NVIDIA's: no `shaderFloat64` (Intel Arc, most mobile GPUs, Apple through
//! MoltenVK), no 64-bit atomics, no 16- or 8-bit types, subgroups narrower than a warp. A [`Features`] set in
//! [`crate::abi::DeviceProfile::without`] names what the translator must not use: it then emulates what it can
//! (soft double in integer arithmetic for `float64`, warps in turns for `subgroups-32`) and refuses the rest by
//! name ([`crate::error::TranslateError::MissingCapabilities`]), so a module never declares a capability the
//! profile lacks. The runtime fills the set from what the device does not have plus what the caller masks,
//! so the same mask simulates a smaller device on a full one (lavapipe, the H200).

use crate::spirv::Capability;

/// One maskable device feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Feature {
    /// `shaderFloat64` (SPIR-V `Float64`).
    Float64,
    /// `shaderBufferInt64Atomics` / `shaderSharedInt64Atomics` (SPIR-V `Int64Atomics`).
    Int64Atomics,
    /// `shaderFloat16` (SPIR-V `Float16`).
    Float16,
    /// `shaderInt16` (SPIR-V `Int16`).
    Int16,
    /// `shaderInt8` (SPIR-V `Int8`).
    Int8,
    /// 32-wide subgroups with the operations the subgroup form needs: without them warps run in turns.
    Subgroups32,
}

impl Feature {
    /// Every feature, in the order of the bits of [`Features`].
    pub const ALL: [Feature; 6] =
        [Feature::Float64, Feature::Int64Atomics, Feature::Float16, Feature::Int16, Feature::Int8, Feature::Subgroups32];

    /// The name `--without` takes.
    pub fn name(self) -> &'static str {
        match self {
            Feature::Float64 => "float64",
            Feature::Int64Atomics => "int64-atomics",
            Feature::Float16 => "float16",
            Feature::Int16 => "int16",
            Feature::Int8 => "int8",
            Feature::Subgroups32 => "subgroups-32",
        }
    }

    /// The Vulkan feature a module using it needs (as the runtime's refusals name it).
    pub fn vulkan_name(self) -> &'static str {
        match self {
            Feature::Float64 => "shaderFloat64",
            Feature::Int64Atomics => "shaderBufferInt64Atomics",
            Feature::Float16 => "shaderFloat16",
            Feature::Int16 => "shaderInt16",
            Feature::Int8 => "shaderInt8",
            Feature::Subgroups32 => "32-wide subgroups",
        }
    }

    /// The SPIR-V capability behind the feature (`None`: not a capability, a choice of form).
    pub fn capability(self) -> Option<Capability> {
        match self {
            Feature::Float64 => Some(Capability::Float64),
            Feature::Int64Atomics => Some(Capability::Int64Atomics),
            Feature::Float16 => Some(Capability::Float16),
            Feature::Int16 => Some(Capability::Int16),
            Feature::Int8 => Some(Capability::Int8),
            Feature::Subgroups32 => None,
        }
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl std::fmt::Display for Feature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown name given to [`Features::parse`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown device feature {name:?} (known: float64, int64-atomics, float16, int16, int8, subgroups-32)")]
pub struct UnknownFeature {
    pub name: String,
}

/// A set of [`Feature`]s (a bit mask; the empty set by default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Features(u32);

impl Features {
    pub const NONE: Features = Features(0);

    /// Parses `float64,int8` (names as [`Feature::name`], comma-separated, spaces ignored, empty items skipped).
    pub fn parse(list: &str) -> Result<Features, UnknownFeature> {
        let mut set = Features::NONE;
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let f = Feature::ALL
                .into_iter()
                .find(|f| f.name().eq_ignore_ascii_case(item))
                .ok_or_else(|| UnknownFeature { name: item.to_string() })?;
            set = set.with(f);
        }
        Ok(set)
    }

    pub fn with(self, f: Feature) -> Features {
        Features(self.0 | f.bit())
    }

    pub fn contains(self, f: Feature) -> bool {
        self.0 & f.bit() != 0
    }

    pub fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.into_iter().filter(move |f| self.contains(*f))
    }

    /// The feature whose capability is `c`, if this set holds it.
    pub fn lacking(self, c: Capability) -> Option<Feature> {
        self.iter().find(|f| f.capability() == Some(c))
    }
}

impl std::fmt::Display for Features {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.iter().map(Feature::name).collect();
        f.write_str(&names.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_and_refuses_unknown_ones() {
        let s = Features::parse("float64, int8,,subgroups-32").unwrap();
        assert_eq!(s.to_string(), "float64,int8,subgroups-32");
        assert!(s.contains(Feature::Float64) && !s.contains(Feature::Int16));
        assert_eq!(Features::parse("float65").unwrap_err().name, "float65");
        assert_eq!(s.lacking(Capability::Int8), Some(Feature::Int8));
    }
}
