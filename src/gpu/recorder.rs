//! A Recorder wraps one command buffer: dispatches, barriers that say why, fills, copies and
//! timestamps; then one submission whose wait times out instead of hanging.

use std::ffi::CString;

use ash::vk;

use super::{BufferSlice, Context, Descriptor, Pipeline};
use crate::error::{Error, Result, VkContext};

/// The word [`Recorder::poison`] fills outputs with.
pub const POISON: u32 = 0xDEAD_BEEF;

/// One side of a dependency: which stage touched memory, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    TransferRead,
    TransferWrite,
    ComputeRead,
    ComputeWrite,
    /// A dispatch that both reads and writes (look-back spines, in-place data).
    ComputeReadWrite,
    HostRead,
    HostWrite,
}

impl Access {
    fn stage(self) -> vk::PipelineStageFlags {
        match self {
            Access::TransferRead | Access::TransferWrite => vk::PipelineStageFlags::TRANSFER,
            Access::ComputeRead | Access::ComputeWrite | Access::ComputeReadWrite => {
                vk::PipelineStageFlags::COMPUTE_SHADER
            }
            Access::HostRead | Access::HostWrite => vk::PipelineStageFlags::HOST,
        }
    }
    fn mask(self) -> vk::AccessFlags {
        match self {
            Access::TransferRead => vk::AccessFlags::TRANSFER_READ,
            Access::TransferWrite => vk::AccessFlags::TRANSFER_WRITE,
            // Uniform-buffer reads are their own access type; a compute read covers both.
            Access::ComputeRead => vk::AccessFlags::SHADER_READ | vk::AccessFlags::UNIFORM_READ,
            Access::ComputeWrite => vk::AccessFlags::SHADER_WRITE,
            Access::ComputeReadWrite => vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE,
            Access::HostRead => vk::AccessFlags::HOST_READ,
            Access::HostWrite => vk::AccessFlags::HOST_WRITE,
        }
    }
}

/// What a dispatch binds at one binding; the pipeline's [`Descriptor`] list says how.
#[derive(Clone, Copy, Debug)]
pub enum Bind {
    /// A storage or uniform buffer range.
    Buffer(BufferSlice),
    /// A uniform or storage texel buffer view.
    TexelBuffer(vk::BufferView),
    /// A sampled image (SHADER_READ_ONLY_OPTIMAL) or a storage image (GENERAL).
    Image(vk::ImageView),
    /// A sampled image with its sampler (SHADER_READ_ONLY_OPTIMAL).
    ImageSampler(vk::ImageView, vk::Sampler),
}

const SETS_PER_POOL: u32 = 64;
const BINDINGS_PER_SET: u32 = 8;

pub struct Recorder<'a> {
    ctx: &'a Context,
    what: String,
    /// A pool per recorder: command pools are externally synchronised, and a Context is
    /// shared between threads.
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    desc_pools: Vec<vk::DescriptorPool>,
    sets_left: u32,
    query_pool: Option<(vk::QueryPool, u32)>,
    /// Device timestamp (raw ticks) taken on the host just before submission, where the
    /// device has calibrated timestamps.
    submit_ticks: Option<u64>,
    /// Pipeline-statistics query counting compute invocations, and the invocations the
    /// dispatches recorded inside it should launch.
    invocation_query: Option<(vk::QueryPool, u64, bool)>,
    /// Why each barrier exists, in recording order.
    barrier_log: Vec<String>,
    /// Kernel profile: a timestamp pool, its capacity, and the label of each slot written
    /// (slot 0 marks the start; slot k + 1 the end of the k-th dispatch since).
    profile: Option<(vk::QueryPool, u32, Vec<String>, bool)>,
    state: State,
}

#[derive(PartialEq, Eq)]
enum State {
    Recording,
    Submitted,
    Done,
    /// Submitted and never seen to finish: resources are leaked rather than freed in use.
    Abandoned,
}

impl<'a> Recorder<'a> {
    /// Begin a command buffer. `what` names the work in errors (e.g. "scan exclusive u32 n=4096").
    pub fn new(ctx: &'a Context, what: impl Into<String>) -> Result<Recorder<'a>> {
        let what = what.into();
        let pool_ci = vk::CommandPoolCreateInfo::default()
            .queue_family_index(ctx.queue_family)
            .flags(vk::CommandPoolCreateFlags::TRANSIENT);
        let pool = unsafe { ctx.device.create_command_pool(&pool_ci, None) }.ctx(|| "vkCreateCommandPool".into())?;
        let ai = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        let cmd = match unsafe { ctx.device.allocate_command_buffers(&ai) } {
            Ok(c) => c[0],
            Err(e) => {
                unsafe { ctx.device.destroy_command_pool(pool, None) };
                return Err(Err::<(), _>(e).ctx(|| format!("allocating a command buffer for {what}")).unwrap_err());
            }
        };
        let fence = unsafe { ctx.device.create_fence(&vk::FenceCreateInfo::default(), None) }.ctx(|| "vkCreateFence".into())?;
        let bi = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        unsafe { ctx.device.begin_command_buffer(cmd, &bi) }.ctx(|| "vkBeginCommandBuffer".into())?;
        Ok(Recorder {
            ctx,
            what,
            pool,
            cmd,
            fence,
            desc_pools: Vec::new(),
            sets_left: 0,
            query_pool: None,
            submit_ticks: None,
            invocation_query: None,
            barrier_log: Vec::new(),
            profile: None,
            state: State::Recording,
        })
    }

    pub fn context(&self) -> &Context {
        self.ctx
    }
    pub fn command_buffer(&self) -> vk::CommandBuffer {
        self.cmd
    }
    pub fn barrier_log(&self) -> &[String] {
        &self.barrier_log
    }

    fn descriptor_set(&mut self, layout: vk::DescriptorSetLayout) -> Result<vk::DescriptorSet> {
        let d = &self.ctx.device;
        if self.sets_left == 0 {
            let sizes = Descriptor::ALL
                .map(|d| vk::DescriptorPoolSize { ty: d.vk(), descriptor_count: SETS_PER_POOL * BINDINGS_PER_SET });
            let ci = vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_POOL).pool_sizes(&sizes);
            let pool = unsafe { d.create_descriptor_pool(&ci, None) }.ctx(|| "vkCreateDescriptorPool".into())?;
            self.desc_pools.push(pool);
            self.sets_left = SETS_PER_POOL;
        }
        self.sets_left -= 1;
        let layouts = [layout];
        let ai = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(*self.desc_pools.last().unwrap())
            .set_layouts(&layouts);
        Ok(unsafe { d.allocate_descriptor_sets(&ai) }.ctx(|| "vkAllocateDescriptorSets".into())?[0])
    }

    /// Bind `buffers` to bindings 0.. of set 0, push `push`, dispatch `groups`.
    pub fn dispatch(&mut self, p: &Pipeline, buffers: &[BufferSlice], push: &[u8], groups: [u32; 3]) -> Result<()> {
        let binds: Vec<Bind> = buffers.iter().map(|&b| Bind::Buffer(b)).collect();
        self.dispatch_with(p, &binds, push, groups)
    }

    /// Bind `binds` (of the kinds the pipeline was created with) to bindings 0.. of set 0,
    /// push `push`, dispatch `groups`.
    pub fn dispatch_with(&mut self, p: &Pipeline, binds: &[Bind], push: &[u8], groups: [u32; 3]) -> Result<()> {
        assert_eq!(binds.len() as u32, p.key.bindings, "{}: binding count", p.key.shader);
        assert_eq!(push.len() as u32, p.key.push_bytes, "{}: push-constant size", p.key.shader);
        assert!(binds.len() as u32 <= BINDINGS_PER_SET);
        let set = self.descriptor_set(p.set_layout)?;
        // The infos live in these vectors until the update below (writes point into them).
        let mut buffers = Vec::new();
        let mut images = Vec::new();
        let mut views = Vec::new();
        for (i, (b, &kind)) in binds.iter().zip(&p.descriptors).enumerate() {
            match (b, kind) {
                (Bind::Buffer(s), Descriptor::StorageBuffer | Descriptor::UniformBuffer) => {
                    if s.size == 0 {
                        return Err(Error::Invalid(format!("{}: empty buffer range bound ({s:?})", p.key.shader)));
                    }
                    let align = if kind == Descriptor::UniformBuffer {
                        self.ctx.limits.min_uniform_buffer_offset_alignment
                    } else {
                        self.ctx.limits.min_storage_buffer_offset_alignment
                    };
                    if s.offset % align.max(1) != 0 {
                        return Err(Error::Invalid(format!(
                            "{}: binding {i} starts at offset {}, not a multiple of this device's buffer offset alignment ({align})",
                            p.key.shader, s.offset
                        )));
                    }
                    buffers.push((i, [vk::DescriptorBufferInfo { buffer: s.buffer, offset: s.offset, range: s.size }]));
                }
                (Bind::TexelBuffer(v), Descriptor::UniformTexelBuffer | Descriptor::StorageTexelBuffer) => views.push((i, [*v])),
                (Bind::Image(v), Descriptor::SampledImage) => images.push((i, [vk::DescriptorImageInfo {
                    sampler: vk::Sampler::null(),
                    image_view: *v,
                    image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                }])),
                (Bind::Image(v), Descriptor::StorageImage) => images.push((i, [vk::DescriptorImageInfo {
                    sampler: vk::Sampler::null(),
                    image_view: *v,
                    image_layout: vk::ImageLayout::GENERAL,
                }])),
                (Bind::ImageSampler(v, s), Descriptor::CombinedImageSampler) => images.push((i, [vk::DescriptorImageInfo {
                    sampler: *s,
                    image_view: *v,
                    image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                }])),
                (b, kind) => panic!("{}: binding {i} is a {kind:?}, given {b:?}", p.key.shader),
            }
        }
        let write = |i: usize| {
            vk::WriteDescriptorSet::default().dst_set(set).dst_binding(i as u32).descriptor_type(p.descriptors[i].vk())
        };
        let mut writes: Vec<_> = buffers.iter().map(|(i, info)| write(*i).buffer_info(info)).collect();
        writes.extend(images.iter().map(|(i, info)| write(*i).image_info(info)));
        writes.extend(views.iter().map(|(i, view)| write(*i).texel_buffer_view(view)));
        let d = &self.ctx.device;
        unsafe {
            d.update_descriptor_sets(&writes, &[]);
            d.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, p.pipeline);
            d.cmd_bind_descriptor_sets(self.cmd, vk::PipelineBindPoint::COMPUTE, p.layout, 0, &[set], &[]);
            if !push.is_empty() {
                d.cmd_push_constants(self.cmd, p.layout, vk::ShaderStageFlags::COMPUTE, 0, push);
            }
            d.cmd_dispatch(self.cmd, groups[0], groups[1], groups[2]);
        }
        if let Some((_, expected, true)) = &mut self.invocation_query {
            *expected += groups.iter().map(|&g| g as u64).product::<u64>() * p.key.workgroup_size() as u64;
        }
        self.profile_mark(p.key.shader);
        Ok(())
    }

    /// Count the compute invocations the dispatches until [`Recorder::end_invocation_count`]
    /// actually run (a pipeline-statistics query), to compare with what they should launch.
    /// Returns false where the device has no pipeline-statistics queries.
    pub fn begin_invocation_count(&mut self) -> Result<bool> {
        if !self.ctx.caps.pipeline_statistics_query {
            return Ok(false);
        }
        let ci = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::PIPELINE_STATISTICS)
            .query_count(1)
            .pipeline_statistics(vk::QueryPipelineStatisticFlags::COMPUTE_SHADER_INVOCATIONS);
        let pool = unsafe { self.ctx.device.create_query_pool(&ci, None) }.ctx(|| "vkCreateQueryPool".into())?;
        unsafe {
            self.ctx.device.cmd_reset_query_pool(self.cmd, pool, 0, 1);
            self.ctx.device.cmd_begin_query(self.cmd, pool, 0, vk::QueryControlFlags::empty());
        }
        self.invocation_query = Some((pool, 0, true));
        Ok(true)
    }

    pub fn end_invocation_count(&mut self) {
        if let Some((pool, _, active)) = &mut self.invocation_query {
            unsafe { self.ctx.device.cmd_end_query(self.cmd, *pool, 0) };
            *active = false;
        }
    }

    /// (expected, measured) compute invocations, after submission.
    pub fn invocations(&self) -> Result<Option<(u64, u64)>> {
        let Some((pool, expected, _)) = self.invocation_query else { return Ok(None) };
        assert!(self.state == State::Done);
        let mut v = [0u64; 1];
        unsafe { self.ctx.device.get_query_pool_results(pool, 0, &mut v, vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT) }
            .ctx(|| "reading the invocation count".into())?;
        Ok(Some((expected, v[0])))
    }

    /// Dispatch at least `count` workgroups as a 1-D or 2-D grid within the device's limits.
    /// Kernels that take tiles from an atomic ticket (or index by the flattened id and check
    /// the count) tolerate the surplus of the 2-D shape.
    pub fn dispatch_count(&mut self, p: &Pipeline, buffers: &[BufferSlice], push: &[u8], count: u32) -> Result<()> {
        self.dispatch(p, buffers, push, grid_for(count, self.ctx.limits.max_compute_work_group_count)?)
    }

    /// A dependency between two accesses of the listed ranges; `reason` says which hazard it
    /// resolves and is kept in [`Recorder::barrier_log`] (and as a debug label under validation).
    pub fn barrier(&mut self, slices: &[BufferSlice], from: Access, to: Access, reason: &str) {
        let barriers: Vec<_> = slices
            .iter()
            .map(|s| {
                vk::BufferMemoryBarrier::default()
                    .src_access_mask(from.mask())
                    .dst_access_mask(to.mask())
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .buffer(s.buffer)
                    .offset(s.offset)
                    .size(s.size)
            })
            .collect();
        self.label(reason);
        self.barrier_log.push(format!("{from:?} -> {to:?}: {reason}"));
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(
                self.cmd,
                from.stage(),
                to.stage(),
                vk::DependencyFlags::empty(),
                &[],
                &barriers,
                &[],
            );
        }
    }

    /// A layout transition of a whole single-level colour image, with the dependency between
    /// the accesses on either side; `reason` says why, as for buffer barriers.
    #[allow(clippy::too_many_arguments)]
    pub fn image_barrier(
        &mut self,
        image: vk::Image,
        old: vk::ImageLayout,
        new: vk::ImageLayout,
        from: Access,
        to: Access,
        reason: &str,
    ) {
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        // From UNDEFINED nothing earlier is kept, so no earlier access needs to be waited for.
        let (src_stage, src_access) =
            if old == vk::ImageLayout::UNDEFINED { (vk::PipelineStageFlags::TOP_OF_PIPE, vk::AccessFlags::empty()) } else { (from.stage(), from.mask()) };
        let b = [vk::ImageMemoryBarrier::default()
            .src_access_mask(src_access)
            .dst_access_mask(to.mask())
            .old_layout(old)
            .new_layout(new)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(range)];
        self.label(reason);
        self.barrier_log.push(format!("{from:?} -> {to:?} ({old:?} -> {new:?}): {reason}"));
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(self.cmd, src_stage, to.stage(), vk::DependencyFlags::empty(), &[], &[], &b);
        }
    }

    /// Copy tightly packed texels from `src` into a 2-D image in TRANSFER_DST_OPTIMAL.
    pub fn copy_to_image(&mut self, src: BufferSlice, image: vk::Image, extent: [u32; 2]) {
        let region = [vk::BufferImageCopy::default()
            .buffer_offset(src.offset)
            .image_subresource(vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1))
            .image_extent(vk::Extent3D { width: extent[0], height: extent[1], depth: 1 })];
        unsafe {
            self.ctx.device.cmd_copy_buffer_to_image(self.cmd, src.buffer, image, vk::ImageLayout::TRANSFER_DST_OPTIMAL, &region)
        };
    }

    fn label(&self, text: &str) {
        if let Some(du) = &self.ctx.debug_device {
            let name = CString::new(text).unwrap_or_default();
            let label = vk::DebugUtilsLabelEXT::default().label_name(&name);
            unsafe { du.cmd_insert_debug_utils_label(self.cmd, &label) };
        }
    }

    /// Fill a range with a repeated 32-bit word (vkCmdFillBuffer).
    pub fn fill(&mut self, s: BufferSlice, word: u32) {
        unsafe { self.ctx.device.cmd_fill_buffer(self.cmd, s.buffer, s.offset, s.size, word) };
    }

    /// Fill outputs that the work recorded next must write with [`POISON`], so a kernel that
    /// leaves part of one unwritten is seen, not hidden by whatever the memory held (a freed
    /// buffer's right answer, or an earlier trial's). The work may write them by shaders or
    /// by transfers.
    pub fn poison(&mut self, outs: &[BufferSlice]) {
        for &s in outs {
            self.fill(s, POISON);
        }
        self.barrier(outs, Access::TransferWrite, Access::ComputeReadWrite, "poison written before the work");
        self.barrier(outs, Access::TransferWrite, Access::TransferWrite, "poison written before the work's copies and fills");
    }

    /// Copy `src` to `dst` (sizes must match).
    pub fn copy(&mut self, src: BufferSlice, dst: BufferSlice) {
        assert_eq!(src.size, dst.size, "copy size mismatch");
        let region = [vk::BufferCopy { src_offset: src.offset, dst_offset: dst.offset, size: src.size }];
        unsafe { self.ctx.device.cmd_copy_buffer(self.cmd, src.buffer, dst.buffer, &region) };
    }

    /// Profile the dispatches recorded from now until [`Recorder::end_profile`] (at most
    /// `capacity`): a timestamp after each, once it and everything before it completed, so
    /// each interval is one kernel (with the barrier before it). Timestamps between
    /// dispatches keep them from overlapping, as the barriers of a chain of dependent kernels
    /// already do.
    pub fn begin_profile(&mut self, capacity: u32) -> Result<()> {
        if self.ctx.info.timestamp_valid_bits == 0 || self.ctx.limits.timestamp_compute_and_graphics == vk::FALSE {
            return Err(Error::Unsupported { device: self.ctx.info.name.clone(), what: "timestamps on its compute queue".into() });
        }
        let ci = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(capacity + 1);
        let pool = unsafe { self.ctx.device.create_query_pool(&ci, None) }.ctx(|| "vkCreateQueryPool".into())?;
        unsafe {
            self.ctx.device.cmd_reset_query_pool(self.cmd, pool, 0, capacity + 1);
            self.ctx.device.cmd_write_timestamp(self.cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, 0);
        }
        self.profile = Some((pool, capacity + 1, vec!["start".into()], true));
        Ok(())
    }
    pub fn end_profile(&mut self) {
        if let Some(p) = &mut self.profile {
            p.3 = false;
        }
    }
    fn profile_mark(&mut self, label: &str) {
        if let Some((pool, cap, labels, true)) = &mut self.profile {
            if (labels.len() as u32) < *cap {
                unsafe { self.ctx.device.cmd_write_timestamp(self.cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, *pool, labels.len() as u32) };
                labels.push(label.to_string());
            }
        }
    }
    /// After a completed submission: (kernel, ns) per profiled dispatch, in order.
    pub fn profile(&self) -> Result<Vec<(String, f64)>> {
        assert!(self.state == State::Done, "the profile is read after a completed submission");
        let Some((pool, _, labels, _)) = &self.profile else { return Ok(Vec::new()) };
        let mut raw = vec![0u64; labels.len()];
        unsafe {
            self.ctx.device.get_query_pool_results(*pool, 0, &mut raw, vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT)
        }
        .ctx(|| format!("reading the kernel profile of {}", self.what))?;
        let bits = self.ctx.info.timestamp_valid_bits;
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let ns: Vec<f64> = raw.iter().map(|t| (t & mask) as f64 * self.ctx.info.timestamp_period_ns as f64).collect();
        Ok((1..labels.len()).map(|i| (labels[i].clone(), elapsed_ns(self.ctx, ns[i - 1], ns[i]))).collect())
    }

    /// Reserve `count` timestamp slots for this command buffer.
    pub fn enable_timestamps(&mut self, count: u32) -> Result<()> {
        if self.ctx.info.timestamp_valid_bits == 0 || self.ctx.limits.timestamp_compute_and_graphics == vk::FALSE {
            return Err(Error::Unsupported { device: self.ctx.info.name.clone(), what: "timestamps on its compute queue".into() });
        }
        let ci = vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(count);
        let pool = unsafe { self.ctx.device.create_query_pool(&ci, None) }.ctx(|| "vkCreateQueryPool".into())?;
        unsafe { self.ctx.device.cmd_reset_query_pool(self.cmd, pool, 0, count) };
        self.query_pool = Some((pool, count));
        Ok(())
    }

    /// Write timestamp `index` as soon as the command buffer reaches it (top of pipe): the
    /// start of the command buffer's work, for the submit-to-start overhead.
    pub fn timestamp_start(&mut self, index: u32) {
        let (pool, count) = self.query_pool.expect("enable_timestamps first");
        assert!(index < count);
        unsafe { self.ctx.device.cmd_write_timestamp(self.cmd, vk::PipelineStageFlags::TOP_OF_PIPE, pool, index) };
    }

    /// Write timestamp `index` once every command recorded before it has completed.
    pub fn timestamp(&mut self, index: u32) {
        let (pool, count) = self.query_pool.expect("enable_timestamps first");
        assert!(index < count);
        unsafe {
            self.ctx.device.cmd_write_timestamp(self.cmd, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, index)
        };
    }

    /// End, submit and wait (up to the context's timeout).
    pub fn submit_and_wait(&mut self) -> Result<()> {
        assert!(self.state == State::Recording, "a Recorder submits once");
        let d = &self.ctx.device;
        unsafe { d.end_command_buffer(self.cmd) }.ctx(|| format!("vkEndCommandBuffer for {}", self.what))?;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        {
            // The queue is externally synchronised.
            let _guard = self.ctx.queue_lock.lock().unwrap();
            if let (Some(cal), Some(_)) = (&self.ctx.calibration, self.query_pool) {
                let info = [vk::CalibratedTimestampInfoEXT::default().time_domain(vk::TimeDomainEXT::DEVICE)];
                self.submit_ticks = unsafe { cal.get_calibrated_timestamps(&info) }.ok().map(|(t, _)| t[0]);
            }
            unsafe { d.queue_submit(self.ctx.queue, &submit, self.fence) }.ctx(|| format!("vkQueueSubmit for {}", self.what))?;
        }
        self.state = State::Submitted;
        let timeout = self.ctx.timeout;
        match unsafe { d.wait_for_fences(&[self.fence], true, timeout.as_nanos().min(u64::MAX as u128) as u64) } {
            Ok(()) => {
                self.state = State::Done;
                Ok(())
            }
            Err(vk::Result::TIMEOUT) => {
                self.state = State::Abandoned;
                Err(Error::Timeout { what: self.what.clone(), secs: timeout.as_secs_f64() })
            }
            Err(e) => {
                self.state = State::Abandoned;
                Err(Err::<(), _>(e).ctx(|| self.what.clone()).unwrap_err())
            }
        }
    }

    /// Nanoseconds from the host's submission to timestamp `index` (e.g. one written at the
    /// start of the command buffer): the submit-to-start overhead. `None` without calibrated
    /// timestamps.
    pub fn submit_to_timestamp_ns(&self, index: u32) -> Result<Option<f64>> {
        let Some(t0) = self.submit_ticks else { return Ok(None) };
        let ts = self.timestamps_ns()?;
        let bits = self.ctx.info.timestamp_valid_bits;
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let start = (t0 & mask) as f64 * self.ctx.info.timestamp_period_ns as f64;
        Ok(Some(elapsed_ns(self.ctx, start, ts[index as usize])))
    }

    /// Timestamps in nanoseconds (masked to the valid bits, scaled by the period), after
    /// [`Recorder::submit_and_wait`].
    pub fn timestamps_ns(&self) -> Result<Vec<f64>> {
        assert!(self.state == State::Done, "timestamps are read after a completed submission");
        let (pool, count) = self.query_pool.expect("enable_timestamps first");
        let mut raw = vec![0u64; count as usize];
        unsafe {
            self.ctx.device.get_query_pool_results(pool, 0, &mut raw, vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT)
        }
        .ctx(|| format!("reading timestamps of {}", self.what))?;
        let bits = self.ctx.info.timestamp_valid_bits;
        let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let period = self.ctx.info.timestamp_period_ns as f64;
        Ok(raw.iter().map(|t| (t & mask) as f64 * period).collect())
    }
}

/// Interval between two masked timestamps, in ns, allowing for one wrap of the counter.
pub fn elapsed_ns(ctx: &Context, start: f64, end: f64) -> f64 {
    if end >= start {
        end - start
    } else {
        let bits = ctx.info.timestamp_valid_bits.min(63);
        end + (1u64 << bits) as f64 * ctx.info.timestamp_period_ns as f64 - start
    }
}

/// A grid of at least `count` workgroups within `max` per dimension.
pub fn grid_for(count: u32, max: [u32; 3]) -> Result<[u32; 3]> {
    if count <= max[0] {
        return Ok([count.max(1), 1, 1]);
    }
    let y = count.div_ceil(max[0]);
    if y > max[1] {
        return Err(Error::Invalid(format!("{count} workgroups exceed the device's dispatch limits {max:?}")));
    }
    Ok([count.div_ceil(y), y, 1])
}

impl Drop for Recorder<'_> {
    fn drop(&mut self) {
        let d = &self.ctx.device;
        if self.state == State::Submitted || self.state == State::Abandoned {
            // After a timeout the work may still finish: give it a grace period (the
            // caller's buffers are freed after this recorder), and if it does not finish,
            // leak our objects rather than free ones the GPU may still use.
            let grace = self.ctx.timeout.max(std::time::Duration::from_secs(30));
            let ok = unsafe { d.wait_for_fences(&[self.fence], true, grace.as_nanos() as u64) }.is_ok();
            if !ok {
                return;
            }
        }
        unsafe {
            for p in self.desc_pools.drain(..) {
                d.destroy_descriptor_pool(p, None);
            }
            if let Some((q, _)) = self.query_pool.take() {
                d.destroy_query_pool(q, None);
            }
            if let Some((q, _, _)) = self.invocation_query.take() {
                d.destroy_query_pool(q, None);
            }
            if let Some((q, _, _, _)) = self.profile.take() {
                d.destroy_query_pool(q, None);
            }
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}
