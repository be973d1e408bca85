//! Images, texel-buffer views and samplers: the resources beyond plain buffers that a shader
//! can read (the load-pattern lab uses all of them). Each owns its handle and its memory and
//! destroys them in Drop, like [`super::Buffer`].

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::{Buffer, Context};
use crate::error::{Error, Result, VkContext};

/// A device-local 2-D image with one mip level and a view of all of it.
pub struct Image {
    ctx: Arc<Context>,
    raw: vk::Image,
    view: vk::ImageView,
    allocation: Option<Allocation>,
    pub format: vk::Format,
    pub extent: [u32; 2],
}

impl Image {
    /// Optimal tiling; `usage` says how shaders see it (SAMPLED and/or STORAGE), and it can
    /// always be the destination of a copy (how its texels arrive).
    pub fn new(ctx: &Arc<Context>, format: vk::Format, extent: [u32; 2], usage: vk::ImageUsageFlags, name: &str) -> Result<Image> {
        let d = &ctx.device;
        let ci = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D { width: extent[0], height: extent[1], depth: 1 })
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage | vk::ImageUsageFlags::TRANSFER_DST)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        let raw = unsafe { d.create_image(&ci, None) }.ctx(|| format!("vkCreateImage({name}, {format:?})"))?;
        let requirements = unsafe { d.get_image_memory_requirements(raw) };
        let alloc = ctx.allocator.lock().unwrap().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location: MemoryLocation::GpuOnly,
            linear: false,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let allocation = match alloc {
            Ok(a) => a,
            Err(e) => {
                unsafe { d.destroy_image(raw, None) };
                return Err(Error::Alloc { what: name.into(), msg: e.to_string() });
            }
        };
        // From here on Drop cleans up whatever exists.
        let mut img = Image { ctx: ctx.clone(), raw, view: vk::ImageView::null(), allocation: Some(allocation), format, extent };
        let a = img.allocation.as_ref().unwrap();
        unsafe { d.bind_image_memory(raw, a.memory(), a.offset()) }.ctx(|| format!("vkBindImageMemory({name})"))?;
        let vci = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(
                vk::ImageSubresourceRange::default().aspect_mask(vk::ImageAspectFlags::COLOR).level_count(1).layer_count(1),
            );
        img.view = unsafe { d.create_image_view(&vci, None) }.ctx(|| format!("vkCreateImageView({name})"))?;
        Ok(img)
    }

    pub fn raw(&self) -> vk::Image {
        self.raw
    }
    pub fn view(&self) -> vk::ImageView {
        self.view
    }
}

impl Drop for Image {
    fn drop(&mut self) {
        unsafe {
            if self.view != vk::ImageView::null() {
                self.ctx.device.destroy_image_view(self.view, None);
            }
            self.ctx.device.destroy_image(self.raw, None);
        }
        if let Some(a) = self.allocation.take() {
            let _ = self.ctx.allocator.lock().unwrap().free(a);
        }
    }
}

/// A formatted view of a buffer range, bound as a uniform or storage texel buffer. The
/// buffer must have been created with the matching TEXEL_BUFFER usage and outlive the view.
pub struct TexelView {
    ctx: Arc<Context>,
    raw: vk::BufferView,
}

impl TexelView {
    pub fn new(ctx: &Arc<Context>, buffer: &Buffer, format: vk::Format, offset: u64, range: u64) -> Result<TexelView> {
        let ci = vk::BufferViewCreateInfo::default().buffer(buffer.raw()).format(format).offset(offset).range(range);
        let raw = unsafe { ctx.device.create_buffer_view(&ci, None) }.ctx(|| format!("vkCreateBufferView({format:?})"))?;
        Ok(TexelView { ctx: ctx.clone(), raw })
    }
    pub fn raw(&self) -> vk::BufferView {
        self.raw
    }
}

impl Drop for TexelView {
    fn drop(&mut self) {
        unsafe { self.ctx.device.destroy_buffer_view(self.raw, None) };
    }
}

/// A sampler with one filter for magnification and minification, one addressing mode on
/// every axis, normalized coordinates and no mipmapping.
pub struct Sampler {
    ctx: Arc<Context>,
    raw: vk::Sampler,
}

impl Sampler {
    pub fn new(ctx: &Arc<Context>, filter: vk::Filter, address: vk::SamplerAddressMode) -> Result<Sampler> {
        let ci = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .address_mode_u(address)
            .address_mode_v(address)
            .address_mode_w(address)
            .max_lod(0.0);
        let raw = unsafe { ctx.device.create_sampler(&ci, None) }.ctx(|| format!("vkCreateSampler({filter:?})"))?;
        Ok(Sampler { ctx: ctx.clone(), raw })
    }
    pub fn raw(&self) -> vk::Sampler {
        self.raw
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        unsafe { self.ctx.device.destroy_sampler(self.raw, None) };
    }
}
