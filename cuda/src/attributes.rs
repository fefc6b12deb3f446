//! `cuDeviceGetAttribute`: what a compute capability 8.6 device that runs through sassport reports, from the
//! Vulkan device's limits where they bound what a launch may ask for, and 0 for every feature sassport does
//! not provide (textures, mapped host memory, concurrent managed access, cooperative launches, ...).

use sassport_runtime::{DeviceInfo, DeviceKind};

/// The highest `CUdevice_attribute` number `cuda.h` 13.5 defines; larger numbers are invalid values.
pub const MAX_ATTRIBUTE: i32 = 161;

/// The value of attribute `attr` for a device, or `None` if `attr` is no attribute.
pub fn attribute(info: &DeviceInfo, ordinal: usize, attr: i32) -> Option<i32> {
    let l = &info.limits;
    let clamp = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    let threads = l.max_workgroup_invocations.min(1024);
    let shared_per_block = l.max_shared_memory_bytes.min(48 << 10);
    let shared_optin = l.max_shared_memory_bytes.min(99 << 10);
    let value = match attr {
        1 => clamp(threads),                           // MAX_THREADS_PER_BLOCK
        2 => clamp(l.max_workgroup_size[0].min(1024)), // MAX_BLOCK_DIM_X
        3 => clamp(l.max_workgroup_size[1].min(1024)), // MAX_BLOCK_DIM_Y
        4 => clamp(l.max_workgroup_size[2].min(64)),   // MAX_BLOCK_DIM_Z
        5 => i32::MAX,                                 // MAX_GRID_DIM_X (grids are split)
        6 | 7 => 65535,                                // MAX_GRID_DIM_Y/Z
        8 => clamp(shared_per_block),                  // MAX_SHARED_MEMORY_PER_BLOCK
        9 => 65536,                                    // TOTAL_CONSTANT_MEMORY
        10 => 32,                                      // WARP_SIZE
        11 => i32::MAX,                                // MAX_PITCH
        12 | 82 => 65536,                              // registers per block / per SM
        13 => 1_500_000,                               // CLOCK_RATE (kHz, nominal)
        14 => 512,                                     // TEXTURE_ALIGNMENT
        16 => multiprocessors(info),                   // MULTIPROCESSOR_COUNT
        18 => i32::from(matches!(
            info.kind,
            DeviceKind::Integrated | DeviceKind::Cpu
        )), // INTEGRATED
        20 => 0,                                       // COMPUTE_MODE: default
        30 => 512,                                     // SURFACE_ALIGNMENT
        33 => clamp(ordinal as u32),                   // PCI_BUS_ID: the ordinal
        36 => 1_000_000,                               // MEMORY_CLOCK_RATE (kHz, nominal)
        37 => 256,                                     // GLOBAL_MEMORY_BUS_WIDTH
        38 => 4 << 20,                                 // L2_CACHE_SIZE
        39 => 1536,                                    // MAX_THREADS_PER_MULTIPROCESSOR (8.6)
        41 => 1,                                       // UNIFIED_ADDRESSING
        51 => 32,                                      // TEXTURE_PITCH_ALIGNMENT
        75 => 8,                                       // COMPUTE_CAPABILITY_MAJOR
        76 => 6,                                       // COMPUTE_CAPABILITY_MINOR
        79 | 80 => 1,                                  // GLOBAL/LOCAL_L1_CACHE_SUPPORTED
        81 => clamp(l.max_shared_memory_bytes.min(100 << 10)), // MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
        83 => 1, // MANAGED_MEMORY (crate::managed; CONCURRENT_MANAGED_ACCESS, 89, stays 0)
        87 => 64,                  // SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO
        97 => clamp(shared_optin), // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        106 => 16,                 // MAX_BLOCKS_PER_MULTIPROCESSOR (8.6)
        111 => 1024,               // RESERVED_SHARED_MEMORY_PER_BLOCK
        115 => 1,                  // MEMORY_POOLS_SUPPORTED (crate::mempool; no export handles, 119 = 0)
        a if (1..=MAX_ATTRIBUTE).contains(&a) => 0,
        _ => return None,
    };
    Some(value)
}

/// Multiprocessors: the host's threads for a CPU device (lavapipe runs that many workgroups at once), else a
/// nominal count; programs only use it to size grids.
fn multiprocessors(info: &DeviceInfo) -> i32 {
    match info.kind {
        DeviceKind::Cpu => std::thread::available_parallelism().map_or(1, |n| n.get() as i32),
        _ => 32,
    }
}
