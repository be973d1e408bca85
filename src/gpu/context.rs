//! The Vulkan context: instance, device choice, features, one compute queue, the allocator,
//! validation messages and the pipeline cache. It owns exactly what it created: a context
//! made with [`Context::from_raw`] never destroys the host program's instance or device.

use std::collections::HashMap;
use std::ffi::{c_void, CStr, CString};
use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};

use super::info::{self, DeviceInfo};
use super::pipeline::{Descriptor, Pipeline, PipelineKey};
use crate::error::{Error, Result, VkContext};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// How to open a device.
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Device index (as listed by `vkprims devices`) or a case-insensitive name substring.
    /// `None`: the first discrete GPU, else integrated, else virtual, else CPU.
    pub device: Option<String>,
    /// Enable VK_LAYER_KHRONOS_validation with synchronisation validation and collect its
    /// messages (see [`Context::take_validation_messages`]).
    pub validate: bool,
    /// How long a submission may run before it is reported as a timeout.
    pub timeout: Duration,
}

impl Default for ContextOptions {
    fn default() -> Self {
        let validate = std::env::var("VKPRIMS_VALIDATE").map(|v| v == "1").unwrap_or(false);
        let timeout = std::env::var("VKPRIMS_TIMEOUT_S")
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .map(Duration::from_secs_f64)
            .unwrap_or(Duration::from_secs(60));
        ContextOptions { device: None, validate, timeout }
    }
}

/// Optional device capabilities that the kernels use where present.
#[derive(Clone, Copy, Debug, Default)]
pub struct Capabilities {
    /// VK_EXT_subgroup_size_control (or Vulkan 1.3): pipelines may pin a subgroup size.
    pub subgroup_size_control: bool,
    /// Pipelines may require full subgroups.
    pub compute_full_subgroups: bool,
    pub shader_int64: bool,
    /// VK_KHR_pipeline_executable_properties: the compiler's statistics per pipeline.
    pub pipeline_executable_info: bool,
    /// Pipeline-statistics queries (invocation counts).
    pub pipeline_statistics_query: bool,
    /// VK_EXT_calibrated_timestamps: GPU timestamps can be related to the host clock.
    pub calibrated_timestamps: bool,
    /// VK_NV_shader_subgroup_partitioned: binning passes rank with subgroupPartitionNV.
    pub subgroup_partitioned: bool,
    /// VK_KHR_shader_clock (shaderSubgroupClock): the binning pass's phase clocks.
    pub shader_clock: bool,
    /// VK_KHR_shader_clock's shaderDeviceClock and VK_NV_shader_sm_builtins: the binning
    /// pass's tile timelines (timing experiments).
    pub tile_timeline: bool,
    /// bufferDeviceAddress (Vulkan 1.2): shaders may load through 64-bit buffer addresses
    /// (the load-pattern lab's device-address cases); buffers then get device addresses.
    pub buffer_device_address: bool,
    /// shaderStorageImageExtendedFormats: storage images and storage texel buffers of
    /// r8, rg8, r16f, rg16f and rg32f formats.
    pub storage_image_extended_formats: bool,
    /// storageBuffer8BitAccess (Vulkan 1.2): byte loads and stores in storage buffers (the
    /// permutation of indices hands its last pass a byte a key).
    pub storage_buffer_8bit: bool,
    /// shaderSignedZeroInfNanPreserveFloat32 (Vulkan 1.2 float controls, a property: nothing to
    /// enable): the f32 add scan declares IEEE signed zeros, infinities and NaNs.
    pub signed_zero_inf_nan_f32: bool,
}

/// What a host program must enable on its device before handing it to [`Context::from_raw`]
/// (and what [`Context::new`] enables itself): the extensions and features vkprims uses,
/// limited to those the physical device supports.
#[derive(Clone, Debug, Default)]
pub struct DeviceRequirements {
    pub extensions: Vec<&'static CStr>,
    pub capabilities: Capabilities,
}

impl DeviceRequirements {
    /// Query what `physical` supports of what vkprims wants.
    ///
    /// # Safety
    /// `instance` and `physical` must be valid.
    pub unsafe fn query(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Self {
        let props = instance.get_physical_device_properties(physical);
        let exts: Vec<CString> = instance
            .enumerate_device_extension_properties(physical)
            .unwrap_or_default()
            .iter()
            .map(|e| e.extension_name_as_c_str().unwrap_or(c"").to_owned())
            .collect();
        let has = |name: &CStr| exts.iter().any(|e| e.as_c_str() == name);
        let core13 = props.api_version >= vk::API_VERSION_1_3;
        let mut extensions = Vec::new();
        let ssc_ext = vk::EXT_SUBGROUP_SIZE_CONTROL_NAME;
        if !core13 && has(ssc_ext) {
            extensions.push(ssc_ext);
        }
        let pep_ext = vk::KHR_PIPELINE_EXECUTABLE_PROPERTIES_NAME;
        if has(pep_ext) {
            extensions.push(pep_ext);
        }
        let cal_ext = vk::EXT_CALIBRATED_TIMESTAMPS_NAME;
        if has(cal_ext) {
            extensions.push(cal_ext);
        }
        let part_ext = vk::NV_SHADER_SUBGROUP_PARTITIONED_NAME;
        if has(part_ext) {
            extensions.push(part_ext);
        }
        let clock_ext = vk::KHR_SHADER_CLOCK_NAME;
        let sm_ext = vk::NV_SHADER_SM_BUILTINS_NAME;
        let mut sm = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default();
        let mut ssc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default();
        let mut pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
        let mut bda = vk::PhysicalDeviceBufferDeviceAddressFeatures::default();
        let mut s8 = vk::PhysicalDevice8BitStorageFeatures::default();
        let mut clock = vk::PhysicalDeviceShaderClockFeaturesKHR::default();
        let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut bda).push_next(&mut s8);
        if has(clock_ext) {
            f2 = f2.push_next(&mut clock);
        }
        if has(sm_ext) {
            f2 = f2.push_next(&mut sm);
        }
        if core13 || has(ssc_ext) {
            f2 = f2.push_next(&mut ssc);
        }
        if has(pep_ext) {
            f2 = f2.push_next(&mut pep);
        }
        instance.get_physical_device_features2(physical, &mut f2);
        let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut float_controls);
        instance.get_physical_device_properties2(physical, &mut p2);
        let storage_image_extended_formats = f2.features.shader_storage_image_extended_formats == vk::TRUE;
        let shader_int64 = f2.features.shader_int64 == vk::TRUE;
        let pipeline_statistics_query = f2.features.pipeline_statistics_query == vk::TRUE;
        let shader_clock = clock.shader_subgroup_clock == vk::TRUE;
        if shader_clock {
            extensions.push(clock_ext);
        }
        let tile_timeline = shader_clock && clock.shader_device_clock == vk::TRUE && sm.shader_sm_builtins == vk::TRUE;
        if tile_timeline {
            extensions.push(sm_ext);
        }
        let capabilities = Capabilities {
            subgroup_size_control: ssc.subgroup_size_control == vk::TRUE,
            compute_full_subgroups: ssc.compute_full_subgroups == vk::TRUE,
            shader_int64,
            pipeline_executable_info: pep.pipeline_executable_info == vk::TRUE,
            pipeline_statistics_query,
            calibrated_timestamps: has(cal_ext),
            subgroup_partitioned: has(part_ext),
            shader_clock,
            tile_timeline,
            buffer_device_address: bda.buffer_device_address == vk::TRUE,
            storage_image_extended_formats,
            storage_buffer_8bit: s8.storage_buffer8_bit_access == vk::TRUE,
            signed_zero_inf_nan_f32: float_controls.shader_signed_zero_inf_nan_preserve_float32 == vk::TRUE,
        };
        DeviceRequirements { extensions, capabilities }
    }
}

/// Validation messages collected by the debug messenger.
type Messages = Mutex<Vec<String>>;

struct Debug {
    loader: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
    sink: *const Messages,
}

pub struct Context {
    pub(crate) entry: ash::Entry,
    pub(crate) instance: ash::Instance,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) device: ash::Device,
    pub(crate) queue: vk::Queue,
    pub(crate) queue_family: u32,
    pub(crate) caps: Capabilities,
    pub(crate) info: DeviceInfo,
    pub(crate) limits: vk::PhysicalDeviceLimits,
    pub(crate) allocator: ManuallyDrop<Mutex<Allocator>>,
    /// Held while submitting: the queue is externally synchronised.
    pub(crate) queue_lock: Mutex<()>,
    pub(crate) pipeline_cache: vk::PipelineCache,
    /// Every pipeline a plan asked for, kept for the context's life (a plan made again finds
    /// its pipelines compiled); `selftest --soak`, whose cases each draw a policy of their
    /// own, trims it between cases (`trim_pipelines`).
    pub(crate) pipelines: Mutex<HashMap<(PipelineKey, Vec<Descriptor>), Arc<Pipeline>>>,
    pub(crate) debug_device: Option<ash::ext::debug_utils::Device>,
    pub(crate) calibration: Option<ash::ext::calibrated_timestamps::Device>,
    debug: Option<Debug>,
    messages: Arc<Messages>,
    owns_device: bool,
    /// How long a submission may run before it is reported as a timeout.
    pub timeout: Duration,
}

// The raw messenger pointer is only dereferenced by the driver's callback and in Drop.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    ) && !data.is_null()
        && !user.is_null()
    {
        let msg = CStr::from_ptr((*data).p_message).to_string_lossy().into_owned();
        if let Ok(mut v) = (*(user as *const Messages)).lock() {
            v.push(msg);
        }
    }
    vk::FALSE
}

fn entry() -> Result<ash::Entry> {
    unsafe { ash::Entry::load() }.map_err(|e| {
        Error::Invalid(format!("cannot load the Vulkan loader (libvulkan.so.1): {e}; install libvulkan1"))
    })
}

fn create_instance(entry: &ash::Entry, validate: bool) -> Result<ash::Instance> {
    let version = unsafe { entry.try_enumerate_instance_version() }
        .ctx(|| "vkEnumerateInstanceVersion".into())?
        .unwrap_or(vk::API_VERSION_1_0);
    if version < vk::API_VERSION_1_2 {
        return Err(Error::Invalid(format!(
            "the Vulkan loader supports only API {}; vkprims needs 1.2",
            info::api_version_string(version)
        )));
    }
    let app = vk::ApplicationInfo::default()
        .application_name(c"vkprims")
        .engine_name(c"vkprims")
        .api_version(version.min(vk::API_VERSION_1_3));
    let mut layers = Vec::new();
    let mut exts = Vec::new();
    if validate {
        let available = unsafe { entry.enumerate_instance_layer_properties() }
            .ctx(|| "vkEnumerateInstanceLayerProperties".into())?;
        if !available.iter().any(|l| l.layer_name_as_c_str() == Ok(VALIDATION_LAYER)) {
            return Err(Error::Invalid(
                "validation requested but VK_LAYER_KHRONOS_validation is not installed \
                 (Debian/Ubuntu: apt-get install vulkan-validationlayers)"
                    .into(),
            ));
        }
        layers.push(VALIDATION_LAYER.as_ptr());
        exts.push(vk::EXT_DEBUG_UTILS_NAME.as_ptr());
        exts.push(vk::EXT_VALIDATION_FEATURES_NAME.as_ptr());
    }
    let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
    let mut ci = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&exts);
    if validate {
        ci = ci.push_next(&mut features);
    }
    unsafe { entry.create_instance(&ci, None) }.ctx(|| "vkCreateInstance".into())
}

/// One line per device, in enumeration order (the order `--device N` indexes).
#[derive(Clone, Debug, serde::Serialize)]
pub struct DeviceSummary {
    pub index: usize,
    pub name: String,
    pub device_type: String,
    pub api_version: String,
    pub driver: String,
}

/// List the devices the loader sees.
pub fn list_devices() -> Result<Vec<DeviceSummary>> {
    let entry = entry()?;
    let instance = create_instance(&entry, false)?;
    let res = (|| {
        let pds = unsafe { instance.enumerate_physical_devices() }
            .ctx(|| "vkEnumeratePhysicalDevices".into())?;
        Ok(pds
            .iter()
            .enumerate()
            .map(|(index, &pd)| {
                let i = unsafe { info::query(&instance, pd, None) };
                DeviceSummary {
                    index,
                    name: i.name,
                    device_type: i.device_type,
                    api_version: i.api_version,
                    driver: format!("{} {}", i.driver_name, i.driver_version),
                }
            })
            .collect())
    })();
    unsafe { instance.destroy_instance(None) };
    res
}

fn type_rank(t: vk::PhysicalDeviceType) -> u32 {
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

fn choose_device(instance: &ash::Instance, want: Option<&str>) -> Result<vk::PhysicalDevice> {
    let pds = unsafe { instance.enumerate_physical_devices() }
        .ctx(|| "vkEnumeratePhysicalDevices".into())?;
    if pds.is_empty() {
        return Err(Error::Invalid(
            "no Vulkan device found (for a CPU device: apt-get install mesa-vulkan-drivers)".into(),
        ));
    }
    let props: Vec<_> = pds.iter().map(|&pd| unsafe { instance.get_physical_device_properties(pd) }).collect();
    let name = |i: usize| props[i].device_name_as_c_str().unwrap_or(c"?").to_string_lossy().into_owned();
    let names = || (0..pds.len()).map(|i| format!("{i}: {}", name(i))).collect::<Vec<_>>().join(", ");
    let idx = match want {
        Some(w) => match w.parse::<usize>() {
            Ok(i) if i < pds.len() => i,
            Ok(i) => return Err(Error::Invalid(format!("no device with index {i}; devices: {}", names()))),
            Err(_) => (0..pds.len())
                .find(|&i| name(i).to_lowercase().contains(&w.to_lowercase()))
                .ok_or_else(|| Error::Invalid(format!("no device name contains '{w}'; devices: {}", names())))?,
        },
        None => (0..pds.len()).min_by_key(|&i| (type_rank(props[i].device_type), i)).unwrap(),
    };
    if props[idx].api_version < vk::API_VERSION_1_2 {
        return Err(Error::Unsupported {
            device: name(idx),
            what: format!("Vulkan 1.2 (it reports {})", info::api_version_string(props[idx].api_version)),
        });
    }
    Ok(pds[idx])
}

fn compute_queue_family(instance: &ash::Instance, pd: vk::PhysicalDevice) -> Option<u32> {
    let fams = unsafe { instance.get_physical_device_queue_family_properties(pd) };
    // Prefer a family with compute and timestamps; a dedicated compute family beats one that
    // also does graphics only when it has timestamps too.
    let score = |f: &vk::QueueFamilyProperties| {
        let compute = f.queue_flags.contains(vk::QueueFlags::COMPUTE);
        let ts = f.timestamp_valid_bits > 0;
        let gfx = f.queue_flags.contains(vk::QueueFlags::GRAPHICS);
        if !compute { None } else { Some((!ts as u32, gfx as u32)) }
    };
    fams.iter().enumerate().filter_map(|(i, f)| score(f).map(|s| (s, i as u32))).min().map(|(_, i)| i)
}

impl Context {
    /// Create an instance and device of our own.
    pub fn new(opts: &ContextOptions) -> Result<Arc<Context>> {
        let entry = entry()?;
        let instance = create_instance(&entry, opts.validate)?;
        let messages: Arc<Messages> = Arc::default();
        let debug = if opts.validate {
            let loader = ash::ext::debug_utils::Instance::new(&entry, &instance);
            let sink = Arc::into_raw(messages.clone());
            let ci = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(
                    vk::DebugUtilsMessageSeverityFlagsEXT::WARNING | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
                )
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(debug_callback))
                .user_data(sink as *mut c_void);
            let messenger = unsafe { loader.create_debug_utils_messenger(&ci, None) }
                .ctx(|| "vkCreateDebugUtilsMessengerEXT".into())?;
            Some(Debug { loader, messenger, sink })
        } else {
            None
        };
        let fail = |e: Error, debug: &Option<Debug>| {
            if let Some(d) = debug {
                unsafe {
                    d.loader.destroy_debug_utils_messenger(d.messenger, None);
                    drop(Arc::from_raw(d.sink));
                }
            }
            unsafe { instance.destroy_instance(None) };
            e
        };
        let physical = match choose_device(&instance, opts.device.as_deref()) {
            Ok(p) => p,
            Err(e) => return Err(fail(e, &debug)),
        };
        let req = unsafe { DeviceRequirements::query(&instance, physical) };
        let Some(queue_family) = compute_queue_family(&instance, physical) else {
            let name = unsafe { info::query(&instance, physical, None) }.name;
            return Err(fail(Error::Unsupported { device: name, what: "a compute queue".into() }, &debug));
        };
        let device = match unsafe { create_device(&instance, physical, queue_family, &req) } {
            Ok(d) => d,
            Err(e) => return Err(fail(e, &debug)),
        };
        let debug_device = debug.as_ref().map(|_| ash::ext::debug_utils::Device::new(&instance, &device));
        Self::assemble(entry, instance, physical, device, queue_family, 0, req.capabilities, debug, debug_device, messages, true, opts.timeout)
    }

    /// Wrap a device created by a host program. vkprims creates its own allocator, command
    /// pool and pipelines on it and destroys only those; the host keeps ownership of the
    /// instance and device and must destroy them after dropping the last `Arc<Context>`.
    ///
    /// `enabled` says which of [`DeviceRequirements::query`]'s extensions and features the host
    /// enabled; kernels that need a missing one return [`Error::Unsupported`]. (With
    /// `buffer_device_address` set, every allocation asks for device addresses, so it must
    /// be true only where the host enabled the feature.)
    ///
    /// # Safety
    /// The handles must be valid, `queue_family`/`queue_index` must name a compute-capable
    /// queue created with the device, and the host must not use that queue concurrently with
    /// vkprims without its own synchronisation.
    pub unsafe fn from_raw(
        entry: ash::Entry,
        instance: ash::Instance,
        physical: vk::PhysicalDevice,
        device: ash::Device,
        queue_family: u32,
        queue_index: u32,
        enabled: &DeviceRequirements,
        timeout: Duration,
    ) -> Result<Arc<Context>> {
        Self::assemble(
            entry,
            instance,
            physical,
            device,
            queue_family,
            queue_index,
            enabled.capabilities,
            None,
            None,
            Arc::default(),
            false,
            timeout,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        entry: ash::Entry,
        instance: ash::Instance,
        physical: vk::PhysicalDevice,
        device: ash::Device,
        queue_family: u32,
        queue_index: u32,
        caps: Capabilities,
        debug: Option<Debug>,
        debug_device: Option<ash::ext::debug_utils::Device>,
        messages: Arc<Messages>,
        owns_device: bool,
        timeout: Duration,
    ) -> Result<Arc<Context>> {
        let info = unsafe { info::query(&instance, physical, Some(queue_family)) };
        let limits = unsafe { instance.get_physical_device_properties(physical) }.limits;
        let queue = unsafe { device.get_device_queue(queue_family, queue_index) };
        let calibration = caps.calibrated_timestamps.then(|| ash::ext::calibrated_timestamps::Device::new(&instance, &device));
        // On failure, destroy what this context would have owned (nothing of a host's).
        let cleanup = |e: Error| {
            if owns_device {
                unsafe {
                    device.destroy_device(None);
                    if let Some(d) = &debug {
                        d.loader.destroy_debug_utils_messenger(d.messenger, None);
                        drop(Arc::from_raw(d.sink));
                    }
                    instance.destroy_instance(None);
                }
            }
            e
        };
        let allocator = match Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            // Every allocation may then back a buffer with a device address.
            buffer_device_address: caps.buffer_device_address,
            allocation_sizes: Default::default(),
        }) {
            Ok(a) => a,
            Err(e) => return Err(cleanup(Error::Alloc { what: "the allocator".into(), msg: e.to_string() })),
        };
        let pipeline_cache = match unsafe { device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None) } {
            Ok(c) => c,
            Err(e) => {
                drop(allocator);
                return Err(cleanup(Err::<(), _>(e).ctx(|| "vkCreatePipelineCache".into()).unwrap_err()));
            }
        };
        Ok(Arc::new(Context {
            entry,
            instance,
            physical,
            device,
            queue,
            queue_family,
            caps,
            info,
            limits,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            queue_lock: Mutex::new(()),
            pipeline_cache,
            pipelines: Mutex::default(),
            debug_device,
            calibration,
            debug,
            messages,
            owns_device,
            timeout,
        }))
    }

    /// The device fingerprint (`vkprims info`).
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }
    pub fn capabilities(&self) -> Capabilities {
        self.caps
    }
    pub fn limits(&self) -> &vk::PhysicalDeviceLimits {
        &self.limits
    }
    pub fn device(&self) -> &ash::Device {
        &self.device
    }
    pub fn instance(&self) -> &ash::Instance {
        &self.instance
    }
    pub fn entry(&self) -> &ash::Entry {
        &self.entry
    }
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical
    }
    pub fn queue(&self) -> (vk::Queue, u32) {
        (self.queue, self.queue_family)
    }
    pub fn validation_enabled(&self) -> bool {
        self.debug.is_some()
    }

    /// Drain the validation messages collected so far.
    pub fn take_validation_messages(&self) -> Vec<String> {
        std::mem::take(&mut *self.messages.lock().unwrap())
    }

    /// Error if validation reported anything since the last call.
    pub fn check_validation(&self) -> Result<()> {
        let m = self.take_validation_messages();
        if m.is_empty() { Ok(()) } else { Err(Error::Validation(m)) }
    }

    /// What the device can do with `format` (texel buffers, sampled and storage images).
    pub fn format_properties(&self, format: vk::Format) -> vk::FormatProperties {
        unsafe { self.instance.get_physical_device_format_properties(self.physical, format) }
    }

    /// Largest storage-buffer binding, in bytes (bounds every n).
    pub fn max_storage_buffer_range(&self) -> u64 {
        self.limits.max_storage_buffer_range as u64
    }

    /// Check a pinned subgroup size against what the device can pin.
    pub fn check_subgroup_size(&self, size: Option<u32>) -> Result<()> {
        let Some(s) = size else { return Ok(()) };
        let sg = &self.info.subgroup;
        let why = if !self.caps.subgroup_size_control {
            Some("subgroup size control (VK_EXT_subgroup_size_control)".to_string())
        } else if !s.is_power_of_two() || s < sg.min_size || s > sg.max_size {
            Some(format!("subgroup size {s} (it can pin {}..={})", sg.min_size, sg.max_size))
        } else if !sg.required_size_stages.iter().any(|st| st == "compute") {
            Some("a required subgroup size in compute shaders".to_string())
        } else {
            None
        };
        match why {
            Some(what) => Err(Error::Unsupported { device: self.info.name.clone(), what }),
            None => Ok(()),
        }
    }
}

unsafe fn create_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    queue_family: u32,
    req: &DeviceRequirements,
) -> Result<ash::Device> {
    let prio = [1.0f32];
    let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(queue_family).queue_priorities(&prio)];
    let ext_ptrs: Vec<_> = req.extensions.iter().map(|e| e.as_ptr()).collect();
    let c = req.capabilities;
    let mut ssc = vk::PhysicalDeviceSubgroupSizeControlFeatures::default()
        .subgroup_size_control(c.subgroup_size_control)
        .compute_full_subgroups(c.compute_full_subgroups);
    let mut pep = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default()
        .pipeline_executable_info(c.pipeline_executable_info);
    let features = vk::PhysicalDeviceFeatures::default()
        .shader_int64(c.shader_int64)
        .pipeline_statistics_query(c.pipeline_statistics_query)
        .shader_storage_image_extended_formats(c.storage_image_extended_formats);
    let mut bda = vk::PhysicalDeviceBufferDeviceAddressFeatures::default().buffer_device_address(c.buffer_device_address);
    let mut ci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&ext_ptrs)
        .enabled_features(&features);
    if c.subgroup_size_control || c.compute_full_subgroups {
        ci = ci.push_next(&mut ssc);
    }
    if c.pipeline_executable_info {
        ci = ci.push_next(&mut pep);
    }
    if c.buffer_device_address {
        ci = ci.push_next(&mut bda);
    }
    let mut s8 = vk::PhysicalDevice8BitStorageFeatures::default().storage_buffer8_bit_access(true);
    if c.storage_buffer_8bit {
        ci = ci.push_next(&mut s8);
    }
    let mut clock =
        vk::PhysicalDeviceShaderClockFeaturesKHR::default().shader_subgroup_clock(true).shader_device_clock(c.tile_timeline);
    if c.shader_clock {
        ci = ci.push_next(&mut clock);
    }
    let mut sm = vk::PhysicalDeviceShaderSMBuiltinsFeaturesNV::default().shader_sm_builtins(true);
    if c.tile_timeline {
        ci = ci.push_next(&mut sm);
    }
    instance.create_device(physical, &ci, None).ctx(|| "vkCreateDevice".into())
}

impl Drop for Context {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            for (_, p) in self.pipelines.get_mut().unwrap().drain() {
                p.destroy(&self.device);
            }
            self.device.destroy_pipeline_cache(self.pipeline_cache, None);
            ManuallyDrop::drop(&mut self.allocator);
            if self.owns_device {
                self.device.destroy_device(None);
            }
            if let Some(d) = self.debug.take() {
                d.loader.destroy_debug_utils_messenger(d.messenger, None);
                drop(Arc::from_raw(d.sink));
            }
            if self.owns_device {
                self.instance.destroy_instance(None);
            }
        }
    }
}
