//! A host program that owns its Vulkan instance and device and lends them to vkprims.
//!
//! It creates the instance and device with ash itself (enabling what
//! `DeviceRequirements::query` says vkprims can use), wraps them with `Context::from_raw`,
//! records an exclusive scan into a command buffer together with its own copy, drops the
//! context (which destroys only what vkprims created) and then destroys its own device and
//! instance. Run: `cargo run --release --example from_raw`.

use std::time::Duration;

use ash::vk;
use vkprims::gpu::{self, Access, Buffer, Context, DeviceRequirements, MemoryLocation, Recorder};
use vkprims::prims::scan::{self, ScanDesc, ScanKind, ScanOp, ScanPlan};
use vkprims::prims::DType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // --- the host program's own Vulkan objects ---
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
    let instance = unsafe { entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None)? };
    let physical = unsafe { instance.enumerate_physical_devices()? }[0];
    let family = unsafe { instance.get_physical_device_queue_family_properties(physical) }
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .expect("a compute queue") as u32;
    let req = unsafe { DeviceRequirements::query(&instance, physical) };
    let ext: Vec<_> = req.extensions.iter().map(|e| e.as_ptr()).collect();
    let mut ssc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
        .subgroup_size_control(req.capabilities.subgroup_size_control)
        .compute_full_subgroups(req.capabilities.compute_full_subgroups);
    let mut pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(req.capabilities.pipeline_executable_info);
    let features = vk::PhysicalDeviceFeatures::default()
        .shader_int64(req.capabilities.shader_int64)
        .pipeline_statistics_query(req.capabilities.pipeline_statistics_query)
        .shader_storage_image_extended_formats(req.capabilities.storage_image_extended_formats);
    let mut bda = vk::PhysicalDeviceBufferDeviceAddressFeatures::default()
        .buffer_device_address(req.capabilities.buffer_device_address);
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&prio)];
    let mut dci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&ext)
        .enabled_features(&features);
    if req.capabilities.subgroup_size_control || req.capabilities.compute_full_subgroups {
        dci = dci.push_next(&mut ssc);
    }
    if req.capabilities.pipeline_executable_info {
        dci = dci.push_next(&mut pep);
    }
    let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default().shader_subgroup_clock(true);
    if req.capabilities.shader_clock {
        dci = dci.push_next(&mut clock);
    }
    if req.capabilities.buffer_device_address {
        dci = dci.push_next(&mut bda);
    }
    let mut s8 = vk::PhysicalDevice8BitStorageFeatures::default().storage_buffer8_bit_access(true);
    if req.capabilities.storage_buffer_8bit {
        dci = dci.push_next(&mut s8);
    }
    let device = unsafe { instance.create_device(physical, &dci, None)? };

    // --- lend them to vkprims ---
    let result = {
        let ctx = unsafe {
            Context::from_raw(entry.clone(), instance.clone(), physical, device.clone(), family, 0, &req, Duration::from_secs(30))?
        };
        println!("vkprims on {} (owned by the host)", ctx.info().name);
        let n = 100_000u64;
        let data: Vec<u32> = (0..n as u32).map(|i| i % 7).collect();
        let plan = ScanPlan::new(&ctx, ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, n))?;
        let input = gpu::upload(&ctx, bytemuck::cast_slice(&data), "host data")?;
        let output = Buffer::new(&ctx, plan.output_bytes(), MemoryLocation::GpuOnly, "scanned")?;
        let scratch = Buffer::new(&ctx, plan.state_bytes(), MemoryLocation::GpuOnly, "scan scratch")?;
        let readback = Buffer::new(&ctx, plan.output_bytes(), MemoryLocation::GpuToCpu, "readback")?;
        // One command buffer: the scan, then the host's own copy of its result.
        let mut rec = Recorder::new(&ctx, "host command buffer")?;
        plan.record(&mut rec, input.slice(), output.slice(), scratch.slice())?;
        rec.barrier(&[output.slice()], Access::ComputeWrite, Access::TransferRead, "copy reads the scan's output");
        rec.copy(output.slice(), readback.slice());
        rec.barrier(&[readback.slice()], Access::TransferWrite, Access::HostRead, "host reads the copy");
        rec.submit_and_wait()?;
        drop(rec);
        let got: Vec<u32> = bytemuck::pod_collect_to_vec(&readback.read(plan.output_bytes() as usize)?);
        let want = scan::reference(DType::U32, ScanOp::Add, ScanKind::Exclusive, &data);
        assert_eq!(got, want, "scan result");
        println!("exclusive scan of {n} elements matches the CPU reference");
        Ok::<(), Box<dyn std::error::Error>>(())
        // buffers, then the context, drop here: vkprims frees only its own objects
    };

    // --- the host destroys what it created ---
    unsafe {
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
    result
}
