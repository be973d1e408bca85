//! Compute pipelines: one SPIR-V variant + specialization constants + an optional pinned
//! subgroup size, created once per distinct key and cached in the Context.

use std::sync::Arc;

use ash::vk;

use super::{shaders, Context};
use crate::error::{Error, Result, VkContext};

/// Everything that makes two pipelines different.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    /// Variant name from build.rs.
    pub shader: &'static str,
    /// Values of specialization constants 0, 1, 2, ... (constant 0 is the workgroup size).
    pub spec: Vec<u32>,
    /// Pin gl_SubgroupSize (VK_EXT_subgroup_size_control); `None` keeps the device default.
    pub subgroup_size: Option<u32>,
    /// Number of bindings (0..bindings) in set 0: storage buffers, unless the pipeline is
    /// created with [`Context::pipeline_with`] and a list of descriptor kinds.
    pub bindings: u32,
    /// Push-constant bytes.
    pub push_bytes: u32,
}

impl PipelineKey {
    pub fn workgroup_size(&self) -> u32 {
        self.spec[0]
    }
}

/// What a binding of set 0 holds. Most kernels bind storage buffers only; the load-pattern
/// lab binds every kind a shader can read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Descriptor {
    StorageBuffer,
    UniformBuffer,
    UniformTexelBuffer,
    StorageTexelBuffer,
    /// A sampled image without a sampler (texelFetch through GL_EXT_samplerless_texture_functions).
    SampledImage,
    CombinedImageSampler,
    StorageImage,
}

impl Descriptor {
    pub fn vk(self) -> vk::DescriptorType {
        match self {
            Descriptor::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
            Descriptor::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
            Descriptor::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
            Descriptor::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
            Descriptor::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
            Descriptor::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            Descriptor::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        }
    }
    pub const ALL: [Descriptor; 7] = [
        Descriptor::StorageBuffer,
        Descriptor::UniformBuffer,
        Descriptor::UniformTexelBuffer,
        Descriptor::StorageTexelBuffer,
        Descriptor::SampledImage,
        Descriptor::CombinedImageSampler,
        Descriptor::StorageImage,
    ];
}

pub struct Pipeline {
    pub key: PipelineKey,
    /// The kind of each binding of set 0, in binding order.
    pub descriptors: Vec<Descriptor>,
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    pub(crate) set_layout: vk::DescriptorSetLayout,
}

impl Pipeline {
    pub(crate) unsafe fn destroy(&self, device: &ash::Device) {
        device.destroy_pipeline(self.pipeline, None);
        device.destroy_pipeline_layout(self.layout, None);
        device.destroy_descriptor_set_layout(self.set_layout, None);
    }
}

/// One statistic the driver's compiler reports for a pipeline (registers, shared memory,
/// spills: whatever it chooses to report), via VK_KHR_pipeline_executable_properties.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PipelineStat {
    pub executable: String,
    pub name: String,
    pub value: String,
}

impl Context {
    /// The compiler statistics of `p`; empty where the device lacks the extension.
    pub fn pipeline_stats(&self, p: &Pipeline) -> Result<Vec<PipelineStat>> {
        if !self.caps.pipeline_executable_info {
            return Ok(Vec::new());
        }
        let ext = ash::khr::pipeline_executable_properties::Device::new(&self.instance, &self.device);
        let what = || format!("reading statistics of {}", p.key.shader);
        let info = vk::PipelineInfoKHR::default().pipeline(p.pipeline);
        let execs = unsafe { ext.get_pipeline_executable_properties(&info) }.ctx(what)?;
        let mut out = Vec::new();
        for (i, e) in execs.iter().enumerate() {
            let executable = e.name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
            let ei = vk::PipelineExecutableInfoKHR::default().pipeline(p.pipeline).executable_index(i as u32);
            for st in unsafe { ext.get_pipeline_executable_statistics(&ei) }.ctx(what)? {
                let value = unsafe {
                    match st.format {
                        vk::PipelineExecutableStatisticFormatKHR::BOOL32 => (st.value.b32 != 0).to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::INT64 => st.value.i64.to_string(),
                        vk::PipelineExecutableStatisticFormatKHR::UINT64 => st.value.u64.to_string(),
                        _ => st.value.f64.to_string(),
                    }
                };
                let name = st.name_as_c_str().map(|c| c.to_string_lossy().into_owned()).unwrap_or_default();
                out.push(PipelineStat { executable: executable.clone(), name, value });
            }
        }
        Ok(out)
    }

    /// Where more than `keep` pipelines are cached, destroy those nothing but the cache holds
    /// (no live plan), after the device has gone idle; returns how many. For long runs of
    /// ever-new plans: `selftest --soak` draws random policies, and each lavapipe pipeline
    /// holds megabytes of machine code (about 11 MB a case; a soak grew by 280 MB a minute).
    /// Crate-private: a [`crate::gpu::Recorder`] refers to its pipelines without holding them,
    /// so the caller must have nothing recorded with a dropped plan's pipelines and not yet
    /// submitted and waited for.
    pub(crate) fn trim_pipelines(&self, keep: usize) -> Result<usize> {
        let mut cache = self.pipelines.lock().unwrap();
        if cache.len() <= keep {
            return Ok(0);
        }
        {
            // vkDeviceWaitIdle needs every queue externally synchronised.
            let _queue = self.queue_lock.lock().unwrap();
            unsafe { self.device.device_wait_idle() }.ctx(|| "waiting for the device before releasing pipelines".into())?;
        }
        let before = cache.len();
        cache.retain(|_, p| {
            let held = Arc::strong_count(p) > 1;
            if !held {
                unsafe { p.destroy(&self.device) };
            }
            held
        });
        Ok(before - cache.len())
    }

    /// The pipeline for `key` (storage buffers at every binding), created on first use.
    pub fn pipeline(&self, key: PipelineKey) -> Result<Arc<Pipeline>> {
        let descriptors = vec![Descriptor::StorageBuffer; key.bindings as usize];
        self.pipeline_with(key, &descriptors)
    }

    /// The pipeline for `key` whose bindings hold `descriptors` (one per binding), created on
    /// first use.
    pub fn pipeline_with(&self, key: PipelineKey, descriptors: &[Descriptor]) -> Result<Arc<Pipeline>> {
        assert_eq!(descriptors.len() as u32, key.bindings, "{}: one descriptor kind per binding", key.shader);
        let cache_key = (key, descriptors.to_vec());
        if let Some(p) = self.pipelines.lock().unwrap().get(&cache_key) {
            return Ok(p.clone());
        }
        let (key, descriptors) = cache_key;
        self.check_subgroup_size(key.subgroup_size)?;
        let wg = key.workgroup_size();
        if wg > self.limits.max_compute_work_group_invocations || wg > self.limits.max_compute_work_group_size[0] {
            return Err(Error::Unsupported {
                device: self.info.name.clone(),
                what: format!("workgroups of {wg} invocations ({})", key.shader),
            });
        }
        if let Some(s) = key.subgroup_size {
            let most = s * self.info.subgroup.max_workgroup_subgroups;
            if wg > most {
                return Err(Error::Unsupported {
                    device: self.info.name.clone(),
                    what: format!(
                        "workgroups of {wg} invocations at pinned subgroup size {s} ({}: at most {most} with maxComputeWorkgroupSubgroups {})",
                        key.shader, self.info.subgroup.max_workgroup_subgroups
                    ),
                });
            }
        }
        let p = unsafe { self.create_pipeline(&key, &descriptors) }?;
        let p = Arc::new(p);
        self.pipelines.lock().unwrap().insert((key, descriptors), p.clone());
        Ok(p)
    }

    unsafe fn create_pipeline(&self, key: &PipelineKey, descriptors: &[Descriptor]) -> Result<Pipeline> {
        let d = &self.device;
        let what = || format!("creating pipeline {}", key.shader);
        let code = shaders::spirv(key.shader)
            .ok_or_else(|| Error::Invalid(format!("no shader variant named {}", key.shader)))?;
        let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None).ctx(what)?;
        let bindings: Vec<_> = descriptors
            .iter()
            .enumerate()
            .map(|(b, d)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b as u32)
                    .descriptor_type(d.vk())
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let set_layout = d
            .create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings), None)
            .ctx(what)?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .offset(0)
            .size(key.push_bytes)];
        let set_layouts = [set_layout];
        let mut lci = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if key.push_bytes > 0 {
            lci = lci.push_constant_ranges(&ranges);
        }
        let layout = d.create_pipeline_layout(&lci, None).ctx(what)?;

        let entries: Vec<_> = (0..key.spec.len() as u32)
            .map(|i| vk::SpecializationMapEntry { constant_id: i, offset: 4 * i, size: 4 })
            .collect();
        let data: &[u8] = bytemuck::cast_slice(&key.spec);
        let spec = vk::SpecializationInfo::default().map_entries(&entries).data(data);
        let mut required = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default();
        let mut stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main")
            .specialization_info(&spec);
        // Full subgroups: the kernels index lanes up to gl_SubgroupSize and assume every
        // subgroup of a workgroup is complete.
        let full_multiple = key.subgroup_size.unwrap_or(self.info.subgroup.max_size);
        if self.caps.compute_full_subgroups && key.workgroup_size().is_multiple_of(full_multiple) {
            stage = stage.flags(vk::PipelineShaderStageCreateFlags::REQUIRE_FULL_SUBGROUPS);
        }
        if let Some(s) = key.subgroup_size {
            required = required.required_subgroup_size(s);
            stage = stage.push_next(&mut required);
        }
        let mut ci = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
        if self.caps.pipeline_executable_info {
            ci[0] = ci[0].flags(vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR);
        }
        let res = d.create_compute_pipelines(self.pipeline_cache, &ci, None);
        d.destroy_shader_module(module, None);
        let pipeline = res.map_err(|(_, e)| e).ctx(what)?[0];
        Ok(Pipeline { key: key.clone(), descriptors: descriptors.to_vec(), pipeline, layout, set_layout })
    }
}
