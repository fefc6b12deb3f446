//! Vulkan devices: enumeration, what each can do, and choosing one.

use std::ffi::CStr;
use std::fmt;
use std::str::FromStr;

use ash::vk;
use sassport_translator::abi::{self, DeviceProfile, FloatControls};

use crate::error::{Result, RuntimeError};

/// Lowest Vulkan version sassport runs on: translated modules are SPIR-V 1.6.
pub const REQUIRED_API_VERSION: u32 = vk::API_VERSION_1_3;

/// What kind of device it is, in the order the default choice prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeviceKind {
    /// A discrete GPU.
    Discrete,
    /// A GPU sharing the host's memory.
    Integrated,
    /// A virtualised GPU.
    Virtual,
    /// A CPU implementation such as lavapipe.
    Cpu,
    /// Anything else.
    Other,
}

impl DeviceKind {
    fn from_vk(t: vk::PhysicalDeviceType) -> Self {
        match t {
            vk::PhysicalDeviceType::DISCRETE_GPU => DeviceKind::Discrete,
            vk::PhysicalDeviceType::INTEGRATED_GPU => DeviceKind::Integrated,
            vk::PhysicalDeviceType::VIRTUAL_GPU => DeviceKind::Virtual,
            vk::PhysicalDeviceType::CPU => DeviceKind::Cpu,
            _ => DeviceKind::Other,
        }
    }
}

impl fmt::Display for DeviceKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceKind::Discrete => "discrete GPU",
            DeviceKind::Integrated => "integrated GPU",
            DeviceKind::Virtual => "virtual GPU",
            DeviceKind::Cpu => "CPU",
            DeviceKind::Other => "other",
        })
    }
}

/// The limits sassport cares about.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceLimits {
    /// `maxStorageBufferRange`: the largest global-memory window.
    pub max_storage_buffer_range: u32,
    /// `maxUniformBufferRange`: the largest constant bank that can be bound.
    pub max_uniform_buffer_range: u32,
    /// `maxPerStageDescriptorUniformBuffers`: launch values plus banks used by one kernel.
    pub max_per_stage_uniform_buffers: u32,
    /// `maxComputeSharedMemorySize`.
    pub max_shared_memory_bytes: u32,
    /// `maxComputeWorkGroupCount`: larger grids are split into several dispatches.
    pub max_workgroup_count: [u32; 3],
    /// `maxComputeWorkGroupSize`.
    pub max_workgroup_size: [u32; 3],
    /// `maxComputeWorkGroupInvocations`: the largest CUDA block.
    pub max_workgroup_invocations: u32,
    /// `minUniformBufferOffsetAlignment`.
    pub min_uniform_buffer_offset_alignment: u64,
    /// `maxMemoryAllocationSize`.
    pub max_memory_allocation_size: u64,
    /// Bytes of the largest device-local memory heap (a discrete GPU's memory; lavapipe reports 2 GiB).
    pub device_local_bytes: u64,
    /// `timestampPeriod`: nanoseconds per timestamp tick.
    pub timestamp_period_ns: f32,
}

/// The optional features sassport enables where present.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceFeatures {
    /// `shaderInt64` (required).
    pub int64: bool,
    /// `shaderFloat64`.
    pub float64: bool,
    /// `shaderInt16`.
    pub int16: bool,
    /// `shaderFloat16`.
    pub float16: bool,
    /// `shaderInt8`.
    pub int8: bool,
    /// `storageBuffer16BitAccess`.
    pub storage_buffer_16bit: bool,
    /// `storageBuffer8BitAccess`.
    pub storage_buffer_8bit: bool,
    /// `shaderBufferInt64Atomics` and `shaderSharedInt64Atomics`.
    pub int64_atomics: bool,
    /// `vulkanMemoryModel`.
    pub vulkan_memory_model: bool,
    /// `subgroupSizeControl`.
    pub subgroup_size_control: bool,
    /// `computeFullSubgroups`.
    pub compute_full_subgroups: bool,
    /// `maintenance4` (needed for `LocalSizeId`).
    pub maintenance4: bool,
    /// `VK_KHR_shader_maximal_reconvergence` and its `shaderMaximalReconvergence` feature (the subgroup form
    /// asks for `MaximallyReconvergesKHR` with it: threads rejoin where the structured program merges).
    pub maximal_reconvergence: bool,
    /// `bufferDeviceAddress`: a window of several chunk buffers (docs/abi.md).
    pub buffer_device_address: bool,
}

impl DeviceFeatures {
    /// These features with `mask` switched off (`RuntimeOptions::without`): the device is then created
    /// without them and modules needing them are refused. `subgroups-32` is not a Vulkan feature here (the
    /// profile hides the subgroup operations instead).
    pub fn without(&self, mask: abi::Features) -> DeviceFeatures {
        use abi::Feature;
        let mut f = self.clone();
        for m in mask.iter() {
            match m {
                Feature::Float64 => f.float64 = false,
                Feature::Int64Atomics => f.int64_atomics = false,
                Feature::Float16 => f.float16 = false,
                Feature::Int16 => f.int16 = false,
                Feature::Int8 => f.int8 = false,
                Feature::Subgroups32 => {}
            }
        }
        f
    }

    /// The maskable features these lack (a device without `shaderFloat64` gets soft double).
    pub fn lacking(&self) -> abi::Features {
        use abi::{Feature, Features};
        let mut s = Features::NONE;
        for (have, f) in [
            (self.float64, Feature::Float64),
            (self.int64_atomics, Feature::Int64Atomics),
            (self.float16, Feature::Float16),
            (self.int16, Feature::Int16),
            (self.int8, Feature::Int8),
        ] {
            if !have {
                s = s.with(f);
            }
        }
        s
    }
}

/// One Vulkan device as sassport sees it.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    /// Position in the loader's device list (what `--device N` selects).
    pub index: usize,
    /// `deviceName`.
    pub name: String,
    /// Device type.
    pub kind: DeviceKind,
    /// Vulkan version, `VK_MAKE_API_VERSION` encoding.
    pub api_version: u32,
    /// Driver version, vendor-specific encoding.
    pub driver_version: u32,
    /// PCI vendor id.
    pub vendor_id: u32,
    /// Vendor's device id.
    pub device_id: u32,
    /// `pipelineCacheUUID`: a pipeline cache is only valid for the device and driver with this UUID.
    pub pipeline_cache_uuid: [u8; 16],
    /// Driver name (`VkPhysicalDeviceDriverProperties`), e.g. "llvmpipe".
    pub driver_name: String,
    /// Driver info string, e.g. "Mesa 22.3.6 (LLVM 15.0.6)".
    pub driver_info: String,
    /// Default subgroup size.
    pub subgroup_size: u32,
    /// Smallest selectable subgroup size.
    pub min_subgroup_size: u32,
    /// Largest selectable subgroup size.
    pub max_subgroup_size: u32,
    /// `VkSubgroupFeatureFlags` supported in compute shaders (0 when compute is not a supported stage).
    pub subgroup_operations: u32,
    /// Limits.
    pub limits: DeviceLimits,
    /// Features.
    pub features: DeviceFeatures,
    /// Float-controls properties.
    pub float_controls: FloatControls,
}

/// The extension behind [`DeviceFeatures::maximal_reconvergence`].
pub(crate) const MAXIMAL_RECONVERGENCE: &CStr = c"VK_KHR_shader_maximal_reconvergence";

/// Formats a `VK_MAKE_API_VERSION` number as `major.minor.patch`.
pub fn format_api_version(v: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(v),
        vk::api_version_minor(v),
        vk::api_version_patch(v)
    )
}

impl DeviceInfo {
    /// Checks what every translated module needs: Vulkan 1.3 and `shaderInt64`.
    pub fn check_requirements(&self) -> Result<()> {
        let missing = |m: String| {
            Err(RuntimeError::MissingFeature {
                device: self.name.clone(),
                missing: m,
            })
        };
        if self.api_version < REQUIRED_API_VERSION {
            return missing(format!(
                "Vulkan 1.3 (device has {})",
                format_api_version(self.api_version)
            ));
        }
        if !self.features.int64 {
            return missing("shaderInt64 (64-bit global addresses)".into());
        }
        Ok(())
    }

    /// The profile handed to the translator (without measured float behaviour; see
    /// [`crate::Runtime::profile`] for the measured one).
    pub fn profile(&self) -> DeviceProfile {
        let control = self.features.subgroup_size_control && self.features.compute_full_subgroups;
        DeviceProfile {
            api_version: self.api_version,
            subgroup_size: self.subgroup_size,
            min_subgroup_size: if control {
                self.min_subgroup_size
            } else {
                self.subgroup_size
            },
            max_subgroup_size: if control {
                self.max_subgroup_size
            } else {
                self.subgroup_size
            },
            subgroup_size_control: control,
            subgroup_operations: self.subgroup_operations,
            maximal_reconvergence: self.features.maximal_reconvergence,
            int64: self.features.int64,
            float64: self.features.float64,
            int16: self.features.int16,
            float16: self.features.float16,
            int8: self.features.int8,
            int64_atomics: self.features.int64_atomics,
            vulkan_memory_model: self.features.vulkan_memory_model,
            max_shared_memory_bytes: self.limits.max_shared_memory_bytes,
            max_workgroup_invocations: self.limits.max_workgroup_invocations,
            max_workgroup_size: self.limits.max_workgroup_size,
            float_controls: self.float_controls,
            measured: Default::default(),
            loop_iteration_limit: self.loop_iteration_limit(),
            without: self.features.lacking(),
            window_chunks: None,
        }
    }

    /// The device's own loop limit: lavapipe (driver "llvmpipe", Mesa's gallivm) leaves every loop once
    /// `abi::LAVAPIPE_LOOP_ITERATION_LIMIT` iterations have run (docs/device-quirks.md); other drivers none.
    pub fn loop_iteration_limit(&self) -> Option<u32> {
        (self.driver_name == "llvmpipe").then_some(sassport_translator::abi::LAVAPIPE_LOOP_ITERATION_LIMIT)
    }

    /// A key naming device and driver for on-disk caches: vendor, device, driver version and pipeline-cache UUID.
    pub fn cache_key(&self) -> String {
        let uuid: String = self
            .pipeline_cache_uuid
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!(
            "{:04x}-{:04x}-{:08x}-{uuid}",
            self.vendor_id, self.device_id, self.driver_version
        )
    }
}

/// Which device to use.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The first usable discrete GPU, else integrated, else virtual, else CPU.
    #[default]
    Default,
    /// By position in [`enumerate_devices`]'s list.
    Index(usize),
    /// The first device whose name contains this text (case-insensitive).
    Name(String),
}

impl FromStr for DeviceSelector {
    type Err = std::convert::Infallible;
    /// All digits: an index; anything else: a name substring.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        Ok(match s.parse::<usize>() {
            Ok(i) => DeviceSelector::Index(i),
            Err(_) => DeviceSelector::Name(s.to_owned()),
        })
    }
}

/// Picks a device from `devices` and checks that sassport can use it.
pub fn choose_device<'a>(
    devices: &'a [DeviceInfo],
    selector: &DeviceSelector,
) -> Result<&'a DeviceInfo> {
    if devices.is_empty() {
        return Err(RuntimeError::NoDevice);
    }
    let chosen = match selector {
        DeviceSelector::Index(index) => {
            devices
                .get(*index)
                .ok_or(RuntimeError::DeviceIndexOutOfRange {
                    index: *index,
                    count: devices.len(),
                })?
        }
        DeviceSelector::Name(name) => {
            let needle = name.to_lowercase();
            devices
                .iter()
                .find(|d| d.name.to_lowercase().contains(&needle))
                .ok_or_else(|| RuntimeError::DeviceNameNotFound(name.clone()))?
        }
        DeviceSelector::Default => {
            let mut ranked: Vec<&DeviceInfo> = devices.iter().collect();
            ranked.sort_by_key(|d| (d.kind, d.index));
            match ranked.iter().find(|d| d.check_requirements().is_ok()) {
                Some(d) => d,
                // Nothing usable: report why the preferred one is not.
                None => ranked[0],
            }
        }
    };
    chosen.check_requirements()?;
    Ok(chosen)
}

/// The name of the Khronos validation layer.
pub const VALIDATION_LAYER: &std::ffi::CStr = c"VK_LAYER_KHRONOS_validation";

/// Validation-layer messages (errors and warnings) collected by a debug messenger.
pub(crate) type ValidationLog = std::sync::Mutex<Vec<String>>;

/// A Vulkan loader and instance; destroyed on drop.
pub(crate) struct Instance {
    // Keeps libvulkan loaded for as long as the instance lives.
    _entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    /// Debug messenger and the log it writes, when validation is on.
    pub(crate) validation: Option<(
        ash::ext::debug_utils::Instance,
        vk::DebugUtilsMessengerEXT,
        Box<ValidationLog>,
    )>,
}

unsafe extern "system" fn collect_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    log: *mut std::ffi::c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data; `log` is the boxed log owned by the Instance, which
    // outlives the messenger.
    let text = unsafe {
        data.as_ref()
            .filter(|d| !d.p_message.is_null())
            .map(|d| CStr::from_ptr(d.p_message).to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let log = unsafe { &*(log as *const ValidationLog) };
    if let Ok(mut v) = log.lock() {
        v.push(format!("{severity:?}: {text}"));
    }
    vk::FALSE
}

impl Instance {
    pub(crate) fn new() -> Result<Self> {
        Self::with_validation(false)
    }

    /// With `validation`, enables the Khronos validation layer when it is installed (silently not otherwise;
    /// see [`Instance::validation`]) and collects its errors and warnings.
    pub(crate) fn with_validation(validation: bool) -> Result<Self> {
        // SAFETY: loading libvulkan runs its initialisers; this is the documented way to use the `loaded` feature.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| RuntimeError::LoaderMissing(e.to_string()))?;
        let loader_version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(RuntimeError::vk("vkEnumerateInstanceVersion"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if loader_version < REQUIRED_API_VERSION {
            return Err(RuntimeError::LoaderMissing(format!(
                "the Vulkan loader supports Vulkan {}; sassport needs 1.3",
                format_api_version(loader_version)
            )));
        }
        let app = vk::ApplicationInfo::default()
            .application_name(c"sassport")
            .engine_name(c"sassport")
            .api_version(REQUIRED_API_VERSION);
        let layer_present = validation
            && unsafe { entry.enumerate_instance_layer_properties() }
                .unwrap_or_default()
                .iter()
                .any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER));
        let layers = [VALIDATION_LAYER.as_ptr()];
        let extensions = [ash::ext::debug_utils::NAME.as_ptr()];
        let mut info = vk::InstanceCreateInfo::default().application_info(&app);
        if layer_present {
            info = info
                .enabled_layer_names(&layers)
                .enabled_extension_names(&extensions);
        }
        // SAFETY: valid create info; the instance is destroyed in Drop.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(RuntimeError::vk("vkCreateInstance"))?;
        let mut this = Instance {
            _entry: entry,
            instance,
            validation: None,
        };
        if layer_present {
            let log: Box<ValidationLog> = Box::default();
            let loader = ash::ext::debug_utils::Instance::new(&this._entry, &this.instance);
            let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                        | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL,
                )
                .pfn_user_callback(Some(collect_message))
                .user_data(&*log as *const ValidationLog as *mut std::ffi::c_void);
            let messenger = unsafe { loader.create_debug_utils_messenger(&messenger_info, None) }
                .map_err(RuntimeError::vk("vkCreateDebugUtilsMessengerEXT"))?;
            this.validation = Some((loader, messenger, log));
        }
        Ok(this)
    }

    pub(crate) fn physical_devices(&self) -> Result<Vec<vk::PhysicalDevice>> {
        unsafe { self.instance.enumerate_physical_devices() }
            .map_err(RuntimeError::vk("vkEnumeratePhysicalDevices"))
    }

    pub(crate) fn describe(&self, index: usize, pd: vk::PhysicalDevice) -> DeviceInfo {
        let inst = &self.instance;
        let base = unsafe { inst.get_physical_device_properties(pd) };
        let memory = unsafe { inst.get_physical_device_memory_properties(pd) };
        let device_local_bytes = memory.memory_heaps[..memory.memory_heap_count as usize]
            .iter()
            .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
            .map(|h| h.size)
            .max()
            .unwrap_or(0);
        let modern = base.api_version >= vk::API_VERSION_1_2;
        let mut v11 = vk::PhysicalDeviceVulkan11Properties::default();
        let mut v12 = vk::PhysicalDeviceVulkan12Properties::default();
        let mut v13 = vk::PhysicalDeviceVulkan13Properties::default();
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
        let extensions =
            unsafe { inst.enumerate_device_extension_properties(pd) }.unwrap_or_default();
        let has_extension = |name: &CStr| {
            extensions
                .iter()
                .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let mut fmr = vk::PhysicalDeviceShaderMaximalReconvergenceFeaturesKHR::default();
        let features;
        if modern {
            let mut props2 = vk::PhysicalDeviceProperties2::default()
                .push_next(&mut v11)
                .push_next(&mut v12);
            if base.api_version >= vk::API_VERSION_1_3 {
                props2 = props2.push_next(&mut v13);
            }
            unsafe { inst.get_physical_device_properties2(pd, &mut props2) };
            let mut feats2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut f11)
                .push_next(&mut f12);
            if base.api_version >= vk::API_VERSION_1_3 {
                feats2 = feats2.push_next(&mut f13);
            }
            if has_extension(MAXIMAL_RECONVERGENCE) {
                feats2 = feats2.push_next(&mut fmr);
            }
            unsafe { inst.get_physical_device_features2(pd, &mut feats2) };
            features = feats2.features;
        } else {
            features = unsafe { inst.get_physical_device_features(pd) };
        }
        let l = &base.limits;
        let cstr = |c: &[std::ffi::c_char]| -> String {
            // SAFETY-free: reinterpret the fixed array as bytes and stop at the first NUL.
            let bytes: Vec<u8> = c.iter().map(|&b| b as u8).collect();
            CStr::from_bytes_until_nul(&bytes)
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let b = |x: vk::Bool32| x == vk::TRUE;
        let maximal = b(fmr.shader_maximal_reconvergence);
        let control = b(f13.subgroup_size_control)
            && v13
                .required_subgroup_size_stages
                .contains(vk::ShaderStageFlags::COMPUTE);
        DeviceInfo {
            index,
            name: cstr(&base.device_name),
            kind: DeviceKind::from_vk(base.device_type),
            api_version: base.api_version,
            driver_version: base.driver_version,
            vendor_id: base.vendor_id,
            device_id: base.device_id,
            pipeline_cache_uuid: base.pipeline_cache_uuid,
            driver_name: cstr(&v12.driver_name),
            driver_info: cstr(&v12.driver_info),
            subgroup_size: v11.subgroup_size,
            min_subgroup_size: if control {
                v13.min_subgroup_size
            } else {
                v11.subgroup_size
            },
            max_subgroup_size: if control {
                v13.max_subgroup_size
            } else {
                v11.subgroup_size
            },
            subgroup_operations: if v11
                .subgroup_supported_stages
                .contains(vk::ShaderStageFlags::COMPUTE)
            {
                v11.subgroup_supported_operations.as_raw()
            } else {
                0
            },
            limits: DeviceLimits {
                max_storage_buffer_range: l.max_storage_buffer_range,
                max_uniform_buffer_range: l.max_uniform_buffer_range,
                max_per_stage_uniform_buffers: l.max_per_stage_descriptor_uniform_buffers,
                max_shared_memory_bytes: l.max_compute_shared_memory_size,
                max_workgroup_count: l.max_compute_work_group_count,
                max_workgroup_size: l.max_compute_work_group_size,
                max_workgroup_invocations: l.max_compute_work_group_invocations,
                min_uniform_buffer_offset_alignment: l.min_uniform_buffer_offset_alignment,
                max_memory_allocation_size: v11.max_memory_allocation_size,
                device_local_bytes,
                timestamp_period_ns: l.timestamp_period,
            },
            features: DeviceFeatures {
                int64: b(features.shader_int64),
                float64: b(features.shader_float64),
                int16: b(features.shader_int16),
                float16: b(f12.shader_float16),
                int8: b(f12.shader_int8),
                storage_buffer_16bit: b(f11.storage_buffer16_bit_access),
                storage_buffer_8bit: b(f12.storage_buffer8_bit_access),
                int64_atomics: b(f12.shader_buffer_int64_atomics)
                    && b(f12.shader_shared_int64_atomics),
                // Device-scope atomics (the fault record) need the device-scope part as well.
                vulkan_memory_model: b(f12.vulkan_memory_model)
                    && b(f12.vulkan_memory_model_device_scope),
                subgroup_size_control: control,
                compute_full_subgroups: b(f13.compute_full_subgroups),
                maintenance4: b(f13.maintenance4),
                maximal_reconvergence: has_extension(MAXIMAL_RECONVERGENCE) && maximal,
                buffer_device_address: b(f12.buffer_device_address),
            },
            float_controls: FloatControls {
                denorm_preserve: [
                    b(v12.shader_denorm_preserve_float16),
                    b(v12.shader_denorm_preserve_float32),
                    b(v12.shader_denorm_preserve_float64),
                ],
                denorm_flush_to_zero: [
                    b(v12.shader_denorm_flush_to_zero_float16),
                    b(v12.shader_denorm_flush_to_zero_float32),
                    b(v12.shader_denorm_flush_to_zero_float64),
                ],
                signed_zero_inf_nan_preserve: [
                    b(v12.shader_signed_zero_inf_nan_preserve_float16),
                    b(v12.shader_signed_zero_inf_nan_preserve_float32),
                    b(v12.shader_signed_zero_inf_nan_preserve_float64),
                ],
                rounding_rte: [
                    b(v12.shader_rounding_mode_rte_float16),
                    b(v12.shader_rounding_mode_rte_float32),
                    b(v12.shader_rounding_mode_rte_float64),
                ],
                rounding_rtz: [
                    b(v12.shader_rounding_mode_rtz_float16),
                    b(v12.shader_rounding_mode_rtz_float32),
                    b(v12.shader_rounding_mode_rtz_float64),
                ],
                denorm_independence_all: v12.denorm_behavior_independence
                    == vk::ShaderFloatControlsIndependence::ALL,
                rounding_independence_all: v12.rounding_mode_independence
                    == vk::ShaderFloatControlsIndependence::ALL,
            },
        }
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: every child object is destroyed before the instance (owners drop first).
        unsafe {
            if let Some((loader, messenger, _log)) = &self.validation {
                loader.destroy_debug_utils_messenger(*messenger, None);
            }
            self.instance.destroy_instance(None)
        };
    }
}

/// Lists every Vulkan device the loader reports, in loader order.
pub fn enumerate_devices() -> Result<Vec<DeviceInfo>> {
    let instance = Instance::new()?;
    let pds = instance.physical_devices()?;
    Ok(pds
        .into_iter()
        .enumerate()
        .map(|(i, pd)| instance.describe(i, pd))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dev(index: usize, name: &str, kind: DeviceKind, int64: bool) -> DeviceInfo {
        DeviceInfo {
            index,
            name: name.into(),
            kind,
            api_version: vk::API_VERSION_1_3,
            driver_version: 0,
            vendor_id: 0,
            device_id: 0,
            pipeline_cache_uuid: [0; 16],
            driver_name: String::new(),
            driver_info: String::new(),
            subgroup_size: 32,
            min_subgroup_size: 32,
            max_subgroup_size: 32,
            subgroup_operations: 0,
            limits: Default::default(),
            features: DeviceFeatures {
                int64,
                ..Default::default()
            },
            float_controls: Default::default(),
        }
    }

    #[test]
    fn default_prefers_discrete_then_integrated_then_cpu() {
        let d = [
            dev(0, "llvmpipe", DeviceKind::Cpu, true),
            dev(1, "Intel UHD", DeviceKind::Integrated, true),
            dev(2, "Radeon", DeviceKind::Discrete, true),
        ];
        assert_eq!(
            choose_device(&d, &DeviceSelector::Default).unwrap().index,
            2
        );
        assert_eq!(
            choose_device(&d[..2], &DeviceSelector::Default)
                .unwrap()
                .index,
            1
        );
        assert_eq!(
            choose_device(&d[..1], &DeviceSelector::Default)
                .unwrap()
                .index,
            0
        );
    }

    #[test]
    fn default_skips_unusable_devices() {
        let d = [
            dev(0, "old", DeviceKind::Discrete, false),
            dev(1, "llvmpipe", DeviceKind::Cpu, true),
        ];
        assert_eq!(
            choose_device(&d, &DeviceSelector::Default).unwrap().index,
            1
        );
    }

    #[test]
    fn explicit_choice_reports_missing_features() {
        let d = [dev(0, "old", DeviceKind::Discrete, false)];
        let e = choose_device(&d, &"0".parse().unwrap()).unwrap_err();
        assert!(
            matches!(e, RuntimeError::MissingFeature { ref missing, .. } if missing.contains("shaderInt64"))
        );
        let mut v12 = dev(0, "v12", DeviceKind::Discrete, true);
        v12.api_version = vk::make_api_version(0, 1, 2, 190);
        let e = choose_device(std::slice::from_ref(&v12), &DeviceSelector::Default).unwrap_err();
        assert_eq!(
            e.to_string(),
            "device \"v12\" cannot be used: Vulkan 1.3 (device has 1.2.190)"
        );
    }

    #[test]
    fn selection_by_index_and_name() {
        let d = [
            dev(0, "llvmpipe (LLVM 15)", DeviceKind::Cpu, true),
            dev(1, "NVIDIA H200", DeviceKind::Discrete, true),
        ];
        assert_eq!(choose_device(&d, &"1".parse().unwrap()).unwrap().index, 1);
        assert_eq!(
            choose_device(&d, &"LLVMpipe".parse().unwrap())
                .unwrap()
                .index,
            0
        );
        assert!(matches!(
            choose_device(&d, &"7".parse().unwrap()),
            Err(RuntimeError::DeviceIndexOutOfRange { index: 7, count: 2 })
        ));
        assert!(matches!(
            choose_device(&d, &"radeon".parse().unwrap()),
            Err(RuntimeError::DeviceNameNotFound(_))
        ));
        assert!(matches!(
            choose_device(&[], &DeviceSelector::Default),
            Err(RuntimeError::NoDevice)
        ));
    }
}
