//! Launch overhead of a cached kernel through `Runtime::launch` versus a bare ash dispatch of the same SPIR-V
//! (pre-recorded command buffer: submit, wait, reset) on the default test device (lavapipe).
//! Target: the runtime at most 2x the bare dispatch.

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::Duration;

use ash::vk;
use criterion::{criterion_group, criterion_main, Criterion};
use sassport_runtime::{abi, Launch, PipelineCacheLocation, Runtime, RuntimeOptions};

const GRID: [u32; 3] = [1, 1, 1];
const BLOCK: [u32; 3] = [64, 1, 1];
const PARAM: u32 = 5;

fn device_name() -> String {
    std::env::var("SASSPORT_TEST_DEVICE").unwrap_or_else(|_| "llvmpipe".into())
}

fn bench_runtime(c: &mut Criterion) {
    support::test_env();
    let mut rt = Runtime::new(RuntimeOptions {
        device: device_name().parse().unwrap(),
        window_bytes: Some(1 << 20),
        pipeline_cache: PipelineCacheLocation::Disabled,
        ..Default::default()
    })
    .unwrap();
    let k = rt
        .load_kernel("store_gid", &support::store_gid_kernel())
        .unwrap();
    let buf = rt.alloc(4 * 64).unwrap();
    let bank0 = support::bank0(GRID, BLOCK, buf, PARAM);
    let launch = Launch {
        kernel: k,
        grid: GRID,
        block: BLOCK,
        dynamic_shared_bytes: 0,
        banks: &[(0, &bank0)],
    };
    rt.launch(&launch).unwrap();
    let mut out = vec![0u8; 256];
    rt.download(buf, &mut out).unwrap();
    assert_eq!(
        u32::from_le_bytes(out[252..256].try_into().unwrap()),
        63 * 3 + PARAM
    );
    c.bench_function("launch/sassport_runtime_cached_kernel", |b| {
        b.iter(|| rt.launch(&launch).unwrap())
    });
}

/// The same kernel dispatched with nothing but ash: resources created once, command buffer recorded once.
struct Bare {
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    cb: vk::CommandBuffer,
    fence: vk::Fence,
    window_ptr: *mut u8,
    _entry: ash::Entry,
}

impl Bare {
    fn new(spirv: &[u32]) -> Bare {
        unsafe {
            let entry = ash::Entry::load().unwrap();
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let want = device_name().to_lowercase();
            let pd = instance
                .enumerate_physical_devices()
                .unwrap()
                .into_iter()
                .find(|&pd| {
                    let p = instance.get_physical_device_properties(pd);
                    p.device_name_as_c_str()
                        .unwrap()
                        .to_string_lossy()
                        .to_lowercase()
                        .contains(&want)
                })
                .expect("test device present");
            let qf = instance
                .get_physical_device_queue_family_properties(pd)
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
                .unwrap() as u32;
            let prio = [1.0];
            let qinfo = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(qf)
                .queue_priorities(&prio)];
            let features = vk::PhysicalDeviceFeatures::default().shader_int64(true);
            let device = instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&qinfo)
                        .enabled_features(&features),
                    None,
                )
                .unwrap();
            let queue = device.get_device_queue(qf, 0);
            let mem = instance.get_physical_device_memory_properties(pd);
            let host =
                vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            let make = |size: u64, usage: vk::BufferUsageFlags| -> (vk::Buffer, *mut u8) {
                let buf = device
                    .create_buffer(
                        &vk::BufferCreateInfo::default().size(size).usage(usage),
                        None,
                    )
                    .unwrap();
                let req = device.get_buffer_memory_requirements(buf);
                let ty = (0..mem.memory_type_count)
                    .find(|&i| {
                        req.memory_type_bits & (1 << i) != 0
                            && mem.memory_types[i as usize].property_flags.contains(host)
                    })
                    .unwrap();
                let m = device
                    .allocate_memory(
                        &vk::MemoryAllocateInfo::default()
                            .allocation_size(req.size)
                            .memory_type_index(ty),
                        None,
                    )
                    .unwrap();
                device.bind_buffer_memory(buf, m, 0).unwrap();
                (
                    buf,
                    device
                        .map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                        .unwrap()
                        .cast(),
                )
            };
            let window_bytes = 1u64 << 20;
            let (lv_buf, lv_ptr) = make(256, vk::BufferUsageFlags::UNIFORM_BUFFER);
            let (bank_buf, bank_ptr) = make(1024, vk::BufferUsageFlags::UNIFORM_BUFFER);
            let (win_buf, win_ptr) = make(window_bytes + 256, vk::BufferUsageFlags::STORAGE_BUFFER);
            let lv = abi::LaunchValues {
                window_base: abi::DEFAULT_WINDOW_BASE,
                window_size: window_bytes,
                fault_record_word: (window_bytes / 4) as u32,
                grid_dim: [GRID[0], GRID[1], GRID[2], 0],
                block_dim: [BLOCK[0], BLOCK[1], BLOCK[2], 0],
                ..Default::default()
            };
            let lv_bytes = lv.to_bytes();
            std::ptr::copy_nonoverlapping(lv_bytes.as_ptr(), lv_ptr, lv_bytes.len());
            let bank0 = support::bank0(GRID, BLOCK, abi::DEFAULT_WINDOW_BASE, PARAM);
            std::ptr::copy_nonoverlapping(bank0.as_ptr(), bank_ptr, bank0.len());

            let stage = vk::ShaderStageFlags::COMPUTE;
            let bindings = [
                vk::DescriptorSetLayoutBinding::default()
                    .binding(0)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stage),
                vk::DescriptorSetLayoutBinding::default()
                    .binding(1)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stage),
                vk::DescriptorSetLayoutBinding::default()
                    .binding(33)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(stage),
            ];
            let dsl = device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .unwrap();
            let layouts = [dsl];
            let pl = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts),
                    None,
                )
                .unwrap();
            let sizes = [
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::UNIFORM_BUFFER,
                    descriptor_count: 2,
                },
                vk::DescriptorPoolSize {
                    ty: vk::DescriptorType::STORAGE_BUFFER,
                    descriptor_count: 1,
                },
            ];
            let pool = device
                .create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default()
                        .max_sets(1)
                        .pool_sizes(&sizes),
                    None,
                )
                .unwrap();
            let set = device
                .allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(pool)
                        .set_layouts(&layouts),
                )
                .unwrap()[0];
            let infos = [
                [vk::DescriptorBufferInfo {
                    buffer: lv_buf,
                    offset: 0,
                    range: 80,
                }],
                [vk::DescriptorBufferInfo {
                    buffer: bank_buf,
                    offset: 0,
                    range: 0x170,
                }],
                [vk::DescriptorBufferInfo {
                    buffer: win_buf,
                    offset: 0,
                    range: vk::WHOLE_SIZE,
                }],
            ];
            let writes = [
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(0)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&infos[0]),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(1)
                    .descriptor_type(vk::DescriptorType::UNIFORM_BUFFER)
                    .buffer_info(&infos[1]),
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(33)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(&infos[2]),
            ];
            device.update_descriptor_sets(&writes, &[]);
            let module = device
                .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
                .unwrap();
            let spec_entries: Vec<_> = (0..3)
                .map(|i| vk::SpecializationMapEntry {
                    constant_id: i,
                    offset: 4 * i,
                    size: 4,
                })
                .collect();
            let spec_data: Vec<u8> = BLOCK.iter().flat_map(|v| v.to_le_bytes()).collect();
            let spec = vk::SpecializationInfo::default()
                .map_entries(&spec_entries)
                .data(&spec_data);
            let stage_info = vk::PipelineShaderStageCreateInfo::default()
                .stage(stage)
                .module(module)
                .name(c"main")
                .specialization_info(&spec);
            let pipeline = device
                .create_compute_pipelines(
                    vk::PipelineCache::null(),
                    &[vk::ComputePipelineCreateInfo::default()
                        .stage(stage_info)
                        .layout(pl)],
                    None,
                )
                .unwrap()[0];
            let pool_cmd = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(qf),
                    None,
                )
                .unwrap();
            let cb = device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(pool_cmd)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            device.cmd_bind_descriptor_sets(cb, vk::PipelineBindPoint::COMPUTE, pl, 0, &[set], &[]);
            device.cmd_dispatch(cb, GRID[0], GRID[1], GRID[2]);
            let barrier = [vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::SHADER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)];
            device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &barrier,
                &[],
                &[],
            );
            device.end_command_buffer(cb).unwrap();
            let fence = device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            // Objects other than these are leaked on purpose: the process ends after the benchmark.
            Bare {
                instance,
                device,
                queue,
                cb,
                fence,
                window_ptr: win_ptr,
                _entry: entry,
            }
        }
    }

    fn dispatch(&self) {
        unsafe {
            let cbs = [self.cb];
            self.device
                .queue_submit(
                    self.queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    self.fence,
                )
                .unwrap();
            self.device
                .wait_for_fences(&[self.fence], true, u64::MAX)
                .unwrap();
            self.device.reset_fences(&[self.fence]).unwrap();
        }
    }
}

fn bench_bare(c: &mut Criterion) {
    support::test_env();
    let bare = Bare::new(&support::store_gid_kernel());
    bare.dispatch();
    let last = unsafe { std::slice::from_raw_parts(bare.window_ptr.add(252), 4) };
    assert_eq!(
        u32::from_le_bytes(last.try_into().unwrap()),
        63 * 3 + PARAM,
        "bare dispatch computes the same"
    );
    c.bench_function("launch/bare_ash_dispatch", |b| b.iter(|| bare.dispatch()));
    unsafe {
        bare.device.device_wait_idle().unwrap();
        let _ = &bare.instance;
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(40).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = bench_bare, bench_runtime
}
criterion_main!(benches);
