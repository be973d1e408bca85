//! The Vulkan core: context, buffers, pipelines, the command recorder, the device fingerprint.

mod buffer;
mod context;
mod image;
pub mod info;
mod pipeline;
mod recorder;
pub mod shaders;

pub use buffer::{Buffer, BufferSlice, MemoryLocation, DEFAULT_USAGE};
pub use context::{list_devices, Capabilities, Context, ContextOptions, DeviceRequirements, DeviceSummary};
pub use info::DeviceInfo;
pub use pipeline::{Descriptor, Pipeline, PipelineKey, PipelineStat};
pub use recorder::{elapsed_ns, grid_for, Access, Bind, Recorder, POISON};
pub use image::{Image, Sampler, TexelView};

use std::sync::Arc;

use crate::error::Result;

/// A device-local buffer holding `data` (uploaded through a staging buffer).
pub fn upload(ctx: &Arc<Context>, data: &[u8], name: &str) -> Result<Buffer> {
    let dst = Buffer::new(ctx, data.len() as u64, MemoryLocation::GpuOnly, name)?;
    if !data.is_empty() {
        let mut staging = Buffer::new(ctx, data.len() as u64, MemoryLocation::CpuToGpu, "staging (upload)")?;
        staging.write(data)?;
        let mut rec = Recorder::new(ctx, format!("upload of {name}"))?;
        rec.copy(staging.head(data.len() as u64), dst.head(data.len() as u64));
        rec.submit_and_wait()?;
    }
    Ok(dst)
}

/// Read `s` back to the host (through a staging buffer). Work that wrote `s` must have
/// completed (the caller submitted and waited on it).
pub fn download(ctx: &Arc<Context>, s: BufferSlice) -> Result<Vec<u8>> {
    if s.size == 0 {
        return Ok(Vec::new());
    }
    let staging = Buffer::new(ctx, s.size, MemoryLocation::GpuToCpu, "staging (download)")?;
    let mut rec = Recorder::new(ctx, "download")?;
    rec.copy(s, staging.head(s.size));
    rec.barrier(&[staging.head(s.size)], Access::TransferWrite, Access::HostRead, "host reads the downloaded copy");
    rec.submit_and_wait()?;
    staging.read(s.size as usize)
}
