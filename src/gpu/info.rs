//! The device fingerprint: everything a result needs to be compared across machines and
//! drivers (`vkprims info`, and the `device` field of every benchmark result).

use ash::vk;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SubgroupInfo {
    /// gl_SubgroupSize a pipeline gets when it pins nothing.
    pub default_size: u32,
    pub min_size: u32,
    pub max_size: u32,
    pub supported_operations: Vec<String>,
    pub supported_stages: Vec<String>,
    pub size_control: bool,
    pub full_subgroups: bool,
    pub required_size_stages: Vec<String>,
    /// maxComputeWorkgroupSubgroups: with a pinned size S, workgroups hold at most S times this.
    pub max_workgroup_subgroups: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MemoryHeap {
    pub size_bytes: u64,
    pub device_local: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DeviceInfo {
    pub name: String,
    pub vendor_id: u32,
    pub device_id: u32,
    pub device_type: String,
    pub driver_name: String,
    pub driver_info: String,
    pub driver_version: String,
    pub driver_version_raw: u32,
    pub api_version: String,
    pub subgroup: SubgroupInfo,
    pub timestamp_period_ns: f32,
    /// Valid timestamp bits of the queue family vkprims uses (0: no timestamps).
    pub timestamp_valid_bits: u32,
    pub max_shared_memory_bytes: u32,
    pub max_workgroup_size: [u32; 3],
    pub max_workgroup_invocations: u32,
    pub max_workgroup_count: [u32; 3],
    pub max_storage_buffer_range: u32,
    pub min_storage_buffer_offset_alignment: u64,
    pub memory_heaps: Vec<MemoryHeap>,
    /// Streaming multiprocessors (VK_NV_shader_sm_builtins) or compute units
    /// (VK_AMD_shader_core_properties), where the driver says.
    #[serde(default)]
    pub compute_units: Option<u32>,
}

pub fn api_version_string(v: u32) -> String {
    format!("{}.{}.{}", vk::api_version_major(v), vk::api_version_minor(v), vk::api_version_patch(v))
}

/// Decode a driver version: NVIDIA and Intel-on-Windows use their own packings; everyone
/// else (Mesa, AMD) uses the Vulkan version encoding.
pub fn driver_version_string(vendor: u32, driver: vk::DriverId, v: u32) -> String {
    match vendor {
        0x10DE => format!("{}.{}.{}.{}", v >> 22, (v >> 14) & 0xFF, (v >> 6) & 0xFF, v & 0x3F),
        0x8086 if driver == vk::DriverId::INTEL_PROPRIETARY_WINDOWS => format!("{}.{}", v >> 14, v & 0x3FFF),
        _ => api_version_string(v),
    }
}

fn flag_names<T: Copy>(flags: T, table: &[(T, &str)], has: impl Fn(T, T) -> bool) -> Vec<String> {
    table.iter().filter(|(f, _)| has(flags, *f)).map(|(_, n)| n.to_string()).collect()
}

fn stage_names(s: vk::ShaderStageFlags) -> Vec<String> {
    use vk::ShaderStageFlags as S;
    let t = [
        (S::VERTEX, "vertex"),
        (S::TESSELLATION_CONTROL, "tessellation_control"),
        (S::TESSELLATION_EVALUATION, "tessellation_evaluation"),
        (S::GEOMETRY, "geometry"),
        (S::FRAGMENT, "fragment"),
        (S::COMPUTE, "compute"),
        (S::TASK_EXT, "task"),
        (S::MESH_EXT, "mesh"),
    ];
    flag_names(s, &t, |a, b| a.contains(b))
}

fn op_names(s: vk::SubgroupFeatureFlags) -> Vec<String> {
    use vk::SubgroupFeatureFlags as F;
    let t = [
        (F::BASIC, "basic"),
        (F::VOTE, "vote"),
        (F::ARITHMETIC, "arithmetic"),
        (F::BALLOT, "ballot"),
        (F::SHUFFLE, "shuffle"),
        (F::SHUFFLE_RELATIVE, "shuffle_relative"),
        (F::CLUSTERED, "clustered"),
        (F::QUAD, "quad"),
        (F::PARTITIONED_NV, "partitioned_nv"),
    ];
    flag_names(s, &t, |a, b| a.contains(b))
}

/// Read the fingerprint of `pd`; `queue_family` picks whose timestamp bits are reported
/// (`None`: the first compute family).
///
/// # Safety
/// `instance` and `pd` must be valid.
pub unsafe fn query(instance: &ash::Instance, pd: vk::PhysicalDevice, queue_family: Option<u32>) -> DeviceInfo {
    let base = instance.get_physical_device_properties(pd);
    let mut sg = vk::PhysicalDeviceSubgroupProperties::default();
    let mut ssc = vk::PhysicalDeviceSubgroupSizeControlProperties::default();
    let mut drv = vk::PhysicalDeviceDriverProperties::default();
    let exts = instance.enumerate_device_extension_properties(pd).unwrap_or_default();
    let has_ssc = base.api_version >= vk::API_VERSION_1_3
        || exts.iter().any(|e| e.extension_name_as_c_str() == Ok(vk::EXT_SUBGROUP_SIZE_CONTROL_NAME));
    let has = |name: &std::ffi::CStr| exts.iter().any(|e| e.extension_name_as_c_str() == Ok(name));
    let (has_sm, has_cu) = (has(vk::NV_SHADER_SM_BUILTINS_NAME), has(vk::AMD_SHADER_CORE_PROPERTIES_NAME));
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsPropertiesNV::default();
    let mut cu = vk::PhysicalDeviceShaderCorePropertiesAMD::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sg).push_next(&mut drv);
    if has_ssc {
        p2 = p2.push_next(&mut ssc);
    }
    if has_sm {
        p2 = p2.push_next(&mut sm);
    }
    if has_cu {
        p2 = p2.push_next(&mut cu);
    }
    instance.get_physical_device_properties2(pd, &mut p2);
    let mut ssc_f = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
    if has_ssc {
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut ssc_f);
        instance.get_physical_device_features2(pd, &mut f2);
    }
    let compute_units = match (has_sm, has_cu) {
        (true, _) => Some(sm.shader_sm_count),
        (_, true) => Some(cu.shader_engine_count * cu.shader_arrays_per_engine_count * cu.compute_units_per_shader_array),
        _ => None,
    }
    .filter(|&c| c > 0);
    let l = base.limits;
    let fams = instance.get_physical_device_queue_family_properties(pd);
    let fam = queue_family
        .map(|i| i as usize)
        .or_else(|| fams.iter().position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE)));
    let mem = instance.get_physical_device_memory_properties(pd);
    let cstr = |s: Result<&std::ffi::CStr, _>| s.map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
    let (min_size, max_size) = if has_ssc {
        (ssc.min_subgroup_size, ssc.max_subgroup_size)
    } else {
        (sg.subgroup_size, sg.subgroup_size)
    };
    DeviceInfo {
        name: cstr(base.device_name_as_c_str()),
        vendor_id: base.vendor_id,
        device_id: base.device_id,
        device_type: format!("{:?}", base.device_type).to_lowercase(),
        driver_name: cstr(drv.driver_name_as_c_str()),
        driver_info: cstr(drv.driver_info_as_c_str()),
        driver_version: driver_version_string(base.vendor_id, drv.driver_id, base.driver_version),
        driver_version_raw: base.driver_version,
        api_version: api_version_string(base.api_version),
        subgroup: SubgroupInfo {
            default_size: sg.subgroup_size,
            min_size,
            max_size,
            supported_operations: op_names(sg.supported_operations),
            supported_stages: stage_names(sg.supported_stages),
            size_control: ssc_f.subgroup_size_control == vk::TRUE,
            full_subgroups: ssc_f.compute_full_subgroups == vk::TRUE,
            required_size_stages: stage_names(ssc.required_subgroup_size_stages),
            max_workgroup_subgroups: ssc.max_compute_workgroup_subgroups,
        },
        timestamp_period_ns: l.timestamp_period,
        timestamp_valid_bits: fam.map(|i| fams[i].timestamp_valid_bits).unwrap_or(0),
        max_shared_memory_bytes: l.max_compute_shared_memory_size,
        max_workgroup_size: l.max_compute_work_group_size,
        max_workgroup_invocations: l.max_compute_work_group_invocations,
        max_workgroup_count: l.max_compute_work_group_count,
        max_storage_buffer_range: l.max_storage_buffer_range,
        min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
        memory_heaps: mem
            .memory_heaps_as_slice()
            .iter()
            .map(|h| MemoryHeap {
                size_bytes: h.size,
                device_local: h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL),
            })
            .collect(),
        compute_units,
    }
}

impl DeviceInfo {
    /// Human-readable fingerprint, one `key: value` per line.
    pub fn to_text(&self) -> String {
        let s = &self.subgroup;
        let heaps: Vec<String> = self
            .memory_heaps
            .iter()
            .map(|h| format!("{:.1} GiB{}", h.size_bytes as f64 / (1u64 << 30) as f64, if h.device_local { " (device-local)" } else { "" }))
            .collect();
        format!(
            "name: {}\nvendor/device id: 0x{:04x} / 0x{:04x}\ntype: {}\ndriver: {} ({}), version {}\n\
             api version: {}\nsubgroup size: default {}, min {}, max {} (size control: {}, full subgroups: {}, \
             pinnable in: {})\nsubgroup operations: {}\nsubgroup stages: {}\ntimestamps: period {} ns, {} valid bits\n\
             shared memory: {} bytes\nworkgroup: max size {:?}, max invocations {}, max count {:?}\n\
             max storage buffer range: {} bytes\nmemory heaps: {}\ncompute units: {}\n",
            self.name,
            self.vendor_id,
            self.device_id,
            self.device_type,
            self.driver_name,
            self.driver_info,
            self.driver_version,
            self.api_version,
            s.default_size,
            s.min_size,
            s.max_size,
            s.size_control,
            s.full_subgroups,
            if s.required_size_stages.is_empty() { "-".to_string() } else { s.required_size_stages.join(",") },
            s.supported_operations.join(","),
            s.supported_stages.join(","),
            self.timestamp_period_ns,
            self.timestamp_valid_bits,
            self.max_shared_memory_bytes,
            self.max_workgroup_size,
            self.max_workgroup_invocations,
            self.max_workgroup_count,
            self.max_storage_buffer_range,
            heaps.join(", "),
            self.compute_units.map_or("not reported".to_string(), |c| c.to_string()),
        )
    }
}
