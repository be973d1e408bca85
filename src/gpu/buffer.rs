//! Buffers from gpu-allocator, and slices of any buffer (ours or a caller's) to bind.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
pub use gpu_allocator::MemoryLocation;

use super::Context;
use crate::error::{Error, Result, VkContext};

/// A range of a buffer. Primitives record against slices, so a caller's own buffers work as
/// well as ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSlice {
    pub buffer: vk::Buffer,
    pub offset: u64,
    pub size: u64,
}

impl BufferSlice {
    /// A sub-range, in bytes from this slice's start.
    pub fn sub(&self, offset: u64, size: u64) -> BufferSlice {
        assert!(offset + size <= self.size, "sub-slice out of range");
        BufferSlice { buffer: self.buffer, offset: self.offset + offset, size }
    }
}

/// Usage every vkprims buffer gets: bound as storage, filled and copied.
pub const DEFAULT_USAGE: vk::BufferUsageFlags = vk::BufferUsageFlags::from_raw(
    vk::BufferUsageFlags::STORAGE_BUFFER.as_raw()
        | vk::BufferUsageFlags::TRANSFER_SRC.as_raw()
        | vk::BufferUsageFlags::TRANSFER_DST.as_raw(),
);

pub struct Buffer {
    ctx: Arc<Context>,
    raw: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
}

impl Buffer {
    /// A buffer of `size` bytes (at least 4, so empty inputs still bind).
    pub fn new(ctx: &Arc<Context>, size: u64, location: MemoryLocation, name: &str) -> Result<Buffer> {
        Self::with_usage(ctx, size, location, DEFAULT_USAGE, name)
    }

    /// A buffer with usages beyond the default (uniform, texel views, device address).
    pub fn with_usage(
        ctx: &Arc<Context>,
        size: u64,
        location: MemoryLocation,
        usage: vk::BufferUsageFlags,
        name: &str,
    ) -> Result<Buffer> {
        let size = size.max(4).next_multiple_of(4);
        let ci = vk::BufferCreateInfo::default().size(size).usage(usage | DEFAULT_USAGE);
        let raw = unsafe { ctx.device.create_buffer(&ci, None) }.ctx(|| format!("vkCreateBuffer({name}, {size} B)"))?;
        let requirements = unsafe { ctx.device.get_buffer_memory_requirements(raw) };
        let alloc = ctx.allocator.lock().unwrap().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let allocation = match alloc {
            Ok(a) => a,
            Err(e) => {
                unsafe { ctx.device.destroy_buffer(raw, None) };
                return Err(Error::Alloc { what: format!("{name} ({size} B)"), msg: e.to_string() });
            }
        };
        unsafe { ctx.device.bind_buffer_memory(raw, allocation.memory(), allocation.offset()) }
            .ctx(|| format!("vkBindBufferMemory({name})"))?;
        Ok(Buffer { ctx: ctx.clone(), raw, allocation: Some(allocation), size })
    }

    pub fn raw(&self) -> vk::Buffer {
        self.raw
    }
    pub fn size(&self) -> u64 {
        self.size
    }
    pub fn slice(&self) -> BufferSlice {
        BufferSlice { buffer: self.raw, offset: 0, size: self.size }
    }
    /// The first `bytes` bytes.
    pub fn head(&self, bytes: u64) -> BufferSlice {
        self.slice().sub(0, bytes)
    }

    /// The buffer's device address; it must have been created with SHADER_DEVICE_ADDRESS
    /// usage on a context with [`super::Capabilities::buffer_device_address`].
    pub fn device_address(&self) -> u64 {
        let info = vk::BufferDeviceAddressInfo::default().buffer(self.raw);
        unsafe { self.ctx.device.get_buffer_device_address(&info) }
    }

    fn coherent(&self) -> bool {
        let a = self.allocation.as_ref().unwrap();
        a.memory_properties().contains(vk::MemoryPropertyFlags::HOST_COHERENT)
    }

    fn whole_memory_range(&self) -> vk::MappedMemoryRange<'_> {
        let a = self.allocation.as_ref().unwrap();
        vk::MappedMemoryRange::default().memory(unsafe { a.memory() }).offset(0).size(vk::WHOLE_SIZE)
    }

    /// Write host data into a host-visible buffer (flushed when memory is not coherent).
    pub fn write(&mut self, data: &[u8]) -> Result<()> {
        let coherent = self.coherent();
        let a = self.allocation.as_mut().unwrap();
        let Some(m) = a.mapped_slice_mut() else {
            return Err(Error::Invalid("write to a buffer that is not host-visible".into()));
        };
        m[..data.len()].copy_from_slice(data);
        if !coherent {
            unsafe { self.ctx.device.flush_mapped_memory_ranges(&[self.whole_memory_range()]) }
                .ctx(|| "vkFlushMappedMemoryRanges".into())?;
        }
        Ok(())
    }

    /// Read `len` bytes from a host-visible buffer (invalidated first when not coherent).
    pub fn read(&self, len: usize) -> Result<Vec<u8>> {
        if !self.coherent() {
            unsafe { self.ctx.device.invalidate_mapped_memory_ranges(&[self.whole_memory_range()]) }
                .ctx(|| "vkInvalidateMappedMemoryRanges".into())?;
        }
        let a = self.allocation.as_ref().unwrap();
        let Some(m) = a.mapped_slice() else {
            return Err(Error::Invalid("read from a buffer that is not host-visible".into()));
        };
        Ok(m[..len].to_vec())
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        unsafe { self.ctx.device.destroy_buffer(self.raw, None) };
        if let Some(a) = self.allocation.take() {
            let _ = self.ctx.allocator.lock().unwrap().free(a);
        }
    }
}
