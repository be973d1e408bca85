//! The resources the lab reads: texel buffers (uniform and storage), raw and structured
//! storage buffers, a uniform buffer, device-address data, sampled and storage images with
//! their samplers, and the sweep's and chase's working sets. Created on first use, filled
//! with the model's data (model.rs), and kept for the whole run.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;

use super::cases::{Source, BUFFER_ELEMS, PUSH_VEC4, TEX_DIM};
use super::formats::Format;
use super::model;
use crate::error::Result;
use crate::gpu::{Access, Bind, Buffer, Context, Descriptor, Image, MemoryLocation, Recorder, Sampler, TexelView};

/// What a case binds after the output buffer, and the push-constant bytes after the header.
pub struct Binding {
    pub descriptors: Vec<Descriptor>,
    pub binds: Vec<Bind>,
    pub push_extra: Vec<u8>,
}

pub struct Resources {
    ctx: Arc<Context>,
    buffers: Vec<Buffer>,
    views: Vec<TexelView>,
    images: Vec<Image>,
    samplers: HashMap<bool, Sampler>,
    bound: HashMap<Source, Arc<Binding>>,
}

/// Staging chunk for large uploads.
const CHUNK: u64 = 64 << 20;

/// Fill `dst` (from its start) with `words` generated words, through a staging buffer of at
/// most 64 MiB, so working sets of a GiB need no host copy of themselves.
pub fn upload_words(ctx: &Arc<Context>, dst: &Buffer, words: u64, word: impl Fn(u64) -> u32) -> Result<()> {
    let bytes = words * 4;
    let mut staging = Buffer::new(ctx, bytes.clamp(4, CHUNK), MemoryLocation::CpuToGpu, "loads staging")?;
    let mut off = 0u64;
    while off < bytes {
        let len = (bytes - off).min(CHUNK);
        let chunk: Vec<u32> = (off / 4..(off + len) / 4).map(&word).collect();
        staging.write(bytemuck::cast_slice(&chunk))?;
        let mut rec = Recorder::new(ctx, "loads upload")?;
        rec.copy(staging.head(len), dst.slice().sub(off, len));
        rec.barrier(&[dst.slice().sub(off, len)], Access::TransferWrite, Access::ComputeRead, "the lab's shaders read the uploaded data");
        rec.submit_and_wait()?;
        off += len;
    }
    Ok(())
}

fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes.chunks(4).map(|c| { let mut w = [0u8; 4]; w[..c.len()].copy_from_slice(c); u32::from_le_bytes(w) }).collect()
}

impl Resources {
    pub fn new(ctx: &Arc<Context>) -> Resources {
        Resources {
            ctx: ctx.clone(),
            buffers: Vec::new(),
            views: Vec::new(),
            images: Vec::new(),
            samplers: HashMap::new(),
            bound: HashMap::new(),
        }
    }

    /// A device-local buffer holding `words`, with extra usages.
    fn buffer(&mut self, words: &[u32], usage: vk::BufferUsageFlags, name: &str) -> Result<usize> {
        let b = Buffer::with_usage(&self.ctx, words.len() as u64 * 4, MemoryLocation::GpuOnly, usage, name)?;
        upload_words(&self.ctx, &b, words.len() as u64, |i| words[i as usize])?;
        self.buffers.push(b);
        Ok(self.buffers.len() - 1)
    }

    fn texel_view(&mut self, f: Format, storage: bool) -> Result<Bind> {
        let usage = if storage { vk::BufferUsageFlags::STORAGE_TEXEL_BUFFER } else { vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER };
        let i = self.buffer(&words_of(&f.encode(BUFFER_ELEMS)), usage, f.vk_name())?;
        let v = TexelView::new(&self.ctx, &self.buffers[i], f.vk(), 0, (BUFFER_ELEMS * f.texel_bytes()) as u64)?;
        let bind = Bind::TexelBuffer(v.raw());
        self.views.push(v);
        Ok(bind)
    }

    /// A 32 x 32 image of the lab's data, left in the layout its descriptor expects.
    fn image(&mut self, f: Format, storage: bool) -> Result<vk::ImageView> {
        let usage = if storage { vk::ImageUsageFlags::STORAGE } else { vk::ImageUsageFlags::SAMPLED };
        let img = Image::new(&self.ctx, f.vk(), [TEX_DIM; 2], usage, f.vk_name())?;
        let data = f.encode(TEX_DIM * TEX_DIM);
        let mut staging = Buffer::new(&self.ctx, data.len() as u64, MemoryLocation::CpuToGpu, "loads image staging")?;
        staging.write(&data)?;
        let (layout, why) = if storage {
            (vk::ImageLayout::GENERAL, "storage image: GENERAL for imageLoad; the copy's texels become visible to it")
        } else {
            (vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL, "sampled image: read-only layout; the copy's texels become visible to it")
        };
        let mut rec = Recorder::new(&self.ctx, format!("upload of image {}", f.vk_name()))?;
        rec.image_barrier(
            img.raw(),
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            Access::TransferWrite,
            Access::TransferWrite,
            "new image: the copy needs TRANSFER_DST_OPTIMAL (old contents discarded)",
        );
        rec.copy_to_image(staging.head(data.len() as u64), img.raw(), [TEX_DIM; 2]);
        rec.image_barrier(img.raw(), vk::ImageLayout::TRANSFER_DST_OPTIMAL, layout, Access::TransferWrite, Access::ComputeRead, why);
        rec.submit_and_wait()?;
        let view = img.view();
        self.images.push(img);
        Ok(view)
    }

    fn sampler(&mut self, bilinear: bool) -> Result<vk::Sampler> {
        if !self.samplers.contains_key(&bilinear) {
            let filter = if bilinear { vk::Filter::LINEAR } else { vk::Filter::NEAREST };
            // REPEAT: the bilinear corner of the last column wraps to the first (model.rs too).
            self.samplers.insert(bilinear, Sampler::new(&self.ctx, filter, vk::SamplerAddressMode::REPEAT)?);
        }
        Ok(self.samplers[&bilinear].raw())
    }

    /// The bindings of `source`, its resources created and filled on first use.
    pub fn bind(&mut self, source: Source) -> Result<Arc<Binding>> {
        if let Some(b) = self.bound.get(&source) {
            return Ok(b.clone());
        }
        let floats = |n: u32, first: u32| -> Vec<u32> { (first..first + n).map(|i| model::float_at(i).to_bits()).collect() };
        let storage = vk::BufferUsageFlags::STORAGE_BUFFER;
        let one = |d: Descriptor, b: Bind| (vec![d], vec![b], Vec::new());
        let (descriptors, binds, push_extra) = match source {
            Source::TypedBuffer(f) => one(Descriptor::UniformTexelBuffer, self.texel_view(f, false)?),
            Source::StorageTexelBuffer(f) => one(Descriptor::StorageTexelBuffer, self.texel_view(f, true)?),
            Source::Raw { .. } => {
                // Room for the unaligned offset and the widest load past the masked address.
                let words: Vec<u32> = (0..4 * BUFFER_ELEMS + 4).map(model::raw_word).collect();
                let i = self.buffer(&words, storage, "raw words")?;
                one(Descriptor::StorageBuffer, Bind::Buffer(self.buffers[i].slice()))
            }
            Source::Structured { floats: n } => {
                let i = self.buffer(&floats(BUFFER_ELEMS * n, 0), storage, "structured")?;
                one(Descriptor::StorageBuffer, Bind::Buffer(self.buffers[i].slice()))
            }
            Source::Cbuffer => {
                let i = self.buffer(&floats(BUFFER_ELEMS * 4, 0), vk::BufferUsageFlags::UNIFORM_BUFFER, "cbuffer")?;
                one(Descriptor::UniformBuffer, Bind::Buffer(self.buffers[i].slice()))
            }
            Source::PushConstants => {
                let data = floats(PUSH_VEC4 * 4, 0);
                (vec![], vec![], bytemuck::cast_slice(&data).to_vec())
            }
            Source::DeviceAddress { align } => {
                let data = floats(BUFFER_ELEMS * 4 + 4, 0);
                let i = self.buffer(&data, vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS, "device-address data")?;
                let address = self.buffers[i].device_address() + 4 * model::bda_first_float(align) as u64;
                (vec![], vec![], bytemuck::cast_slice(&[address]).to_vec())
            }
            Source::TextureLoad(f) => one(Descriptor::SampledImage, Bind::Image(self.image(f, false)?)),
            Source::TextureSample { format, bilinear } => {
                let view = self.image(format, false)?;
                one(Descriptor::CombinedImageSampler, Bind::ImageSampler(view, self.sampler(bilinear)?))
            }
            Source::StorageImage(f) => one(Descriptor::StorageImage, Bind::Image(self.image(f, true)?)),
        };
        let b = Arc::new(Binding { descriptors, binds, push_extra });
        self.bound.insert(source, b.clone());
        Ok(b)
    }
}
