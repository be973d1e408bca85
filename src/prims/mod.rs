//! The primitives. Each module holds a plan (checked before recording), `record` into a
//! caller's command buffer, a `run` convenience and the plain CPU `reference`.

pub mod binning;
pub mod multisplit;
pub mod perm;
pub mod scan;
pub mod sort;

use serde::{Deserialize, Serialize};

use crate::error::{invalid, Result};
use crate::gpu::Context;

/// Element types the kernels understand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    U32,
    I32,
    F32,
}

impl DType {
    pub const ALL: [DType; 3] = [DType::U32, DType::I32, DType::F32];

    pub fn name(self) -> &'static str {
        match self {
            DType::U32 => "u32",
            DType::I32 => "i32",
            DType::F32 => "f32",
        }
    }
    pub fn size(self) -> usize {
        4
    }
    pub fn parse(s: &str) -> Result<DType> {
        match s {
            "u32" => Ok(DType::U32),
            "i32" => Ok(DType::I32),
            "f32" => Ok(DType::F32),
            _ => invalid(format!("unsupported dtype '{s}' (supported: u32, i32, f32)")),
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A host element type with a kernel dtype.
pub trait Elem: bytemuck::Pod + Copy + Send + Sync + 'static {
    const DTYPE: DType;
}
impl Elem for u32 {
    const DTYPE: DType = DType::U32;
}
impl Elem for i32 {
    const DTYPE: DType = DType::I32;
}
impl Elem for f32 {
    const DTYPE: DType = DType::F32;
}

/// Refuse an array the device cannot bind as one storage buffer.
pub(crate) fn check_len(ctx: &Context, what: &str, n: u64, elem_bytes: u64) -> Result<()> {
    let max = ctx.max_storage_buffer_range() / elem_bytes;
    if n > max {
        return invalid(format!(
            "{what}: n = {n} exceeds this device's limit of {max} elements \
             (maxStorageBufferRange = {} bytes on {})",
            ctx.max_storage_buffer_range(),
            ctx.info().name
        ));
    }
    Ok(())
}

/// Refuse a device whose compute stage lacks the subgroup operations a kernel uses.
pub(crate) fn require_subgroup_ops(ctx: &Context, what: &str, ops: &[&str]) -> Result<()> {
    let sg = &ctx.info().subgroup;
    let mut missing: Vec<String> = ops
        .iter()
        .filter(|o| !sg.supported_operations.iter().any(|s| s == *o))
        .map(|o| format!("subgroup {o} operations"))
        .collect();
    if !sg.supported_stages.iter().any(|s| s == "compute") {
        missing.push("subgroup operations in compute shaders".into());
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(crate::Error::Unsupported { device: ctx.info().name.clone(), what: format!("{} (needed by {what})", missing.join(", ")) })
    }
}

/// Refuse a buffer range smaller than what a primitive will touch (before recording).
pub(crate) fn require_bytes(what: &str, name: &str, s: crate::gpu::BufferSlice, bytes: u64) -> Result<()> {
    if s.size < bytes {
        return invalid(format!("{what}: {name} holds {} bytes, needs {bytes}", s.size));
    }
    Ok(())
}

/// How a primitive uses a range it is given: the bytes it touches from the range's start, and
/// its part: an input (only read), an output, or scratch (both written).
#[derive(Clone, Copy)]
pub(crate) struct Use<'a> {
    pub name: &'a str,
    pub slice: crate::gpu::BufferSlice,
    pub bytes: u64,
    pub role: Role,
}
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Input,
    Output,
    Scratch,
}
impl<'a> Use<'a> {
    pub fn input(name: &'a str, slice: crate::gpu::BufferSlice, bytes: u64) -> Use<'a> {
        Use { name, slice, bytes, role: Role::Input }
    }
    pub fn output(name: &'a str, slice: crate::gpu::BufferSlice, bytes: u64) -> Use<'a> {
        Use { name, slice, bytes, role: Role::Output }
    }
    pub fn scratch(name: &'a str, slice: crate::gpu::BufferSlice, bytes: u64) -> Use<'a> {
        Use { name, slice, bytes, role: Role::Scratch }
    }
    fn written(&self) -> bool {
        self.role != Role::Input
    }
}

/// Refuse ranges of one buffer that share a byte where either is written (before recording):
/// a workgroup would read what another writes, or two passes would clobber each other, and
/// the result would be silently wrong. Inputs may overlap each other; with `in_place` (which
/// the caller knows is safe: every input last read before the first write of an output) they
/// may overlap the outputs too. Call after [`require_bytes`] for each range.
pub(crate) fn require_disjoint(what: &str, uses: &[Use], in_place: bool) -> Result<()> {
    for (i, a) in uses.iter().enumerate() {
        for b in &uses[i + 1..] {
            let (a0, b0) = (a.slice.offset, b.slice.offset);
            let overlap = a.slice.buffer == b.slice.buffer && a.bytes > 0 && b.bytes > 0 && a0 < b0 + b.bytes && b0 < a0 + a.bytes;
            let allowed = in_place && matches!((a.role, b.role), (Role::Input, Role::Output) | (Role::Output, Role::Input));
            if overlap && (a.written() || b.written()) && !allowed {
                let (lo, hi) = (a0.max(b0), (a0 + a.bytes).min(b0 + b.bytes));
                return invalid(format!(
                    "{what}: {} and {} overlap (bytes {lo}..{hi} of one buffer) and {} written: give each its own range",
                    a.name,
                    b.name,
                    if a.written() && b.written() { "both are" } else { "one is" }
                ));
            }
        }
    }
    Ok(())
}

/// The payload a binning pass moves: present exactly when the plan has `value_bytes`, and
/// both ranges large enough.
pub(crate) fn require_values(
    what: &str,
    value_bytes: u32,
    values: Option<(crate::gpu::BufferSlice, crate::gpu::BufferSlice)>,
    bytes: u64,
) -> Result<()> {
    if (value_bytes > 0) != values.is_some() {
        return invalid(format!("{what}: values given {} but the plan has value_bytes {value_bytes}", values.is_some()));
    }
    if let Some((vi, vo)) = values {
        require_bytes(what, "values_in", vi, bytes)?;
        require_bytes(what, "values_out", vo, bytes)?;
    }
    Ok(())
}
