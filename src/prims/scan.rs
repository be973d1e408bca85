//! Single-pass reduce and inclusive/exclusive scan (GPU kernel: glsl/scan/scan.comp).
//!
//! Semantics, shared by the kernel and [`reference()`]:
//! - integer add wraps; min/max compare as signed (i32) or unsigned (u32);
//! - f32 min/max order by IEEE 754 totalOrder (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf
//!   < +NaN), so NaN and signed zeros give one defined, exact answer;
//! - f32 add is the only inexact case: the GPU sums in a different association than a serial
//!   loop; see [`f32_add_tolerance`] for the bound the tests hold it to.
//! - exclusive scan starts from the operator's identity (0, -0.0 for f32 add, the largest or
//!   smallest value for min/max); reduce of an empty array is that identity.
//! - f32 add keeps IEEE signed zeros, infinities and NaNs (a sum of -0.0s is -0.0, inf + -inf
//!   is NaN) on devices with shaderSignedZeroInfNanPreserveFloat32, where its kernel declares
//!   them; elsewhere Vulkan lets the driver ignore the sign of zero and assume finite values.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{check_len, require_subgroup_ops, DType, Elem, Use};
use crate::error::{invalid, Result};
use crate::gpu::{self, Access, Buffer, BufferSlice, Context, MemoryLocation, Pipeline, PipelineKey, Recorder};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanKind {
    Reduce,
    Inclusive,
    Exclusive,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScanOp {
    Add,
    Min,
    Max,
}

impl ScanKind {
    pub const ALL: [ScanKind; 3] = [ScanKind::Reduce, ScanKind::Inclusive, ScanKind::Exclusive];
    pub fn name(self) -> &'static str {
        match self {
            ScanKind::Reduce => "reduce",
            ScanKind::Inclusive => "inclusive",
            ScanKind::Exclusive => "exclusive",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s).map_or_else(
            || invalid(format!("unknown scan kind '{s}' (reduce, inclusive, exclusive)")),
            Ok,
        )
    }
    fn spec(self) -> u32 {
        match self {
            ScanKind::Reduce => 0,
            ScanKind::Inclusive => 1,
            ScanKind::Exclusive => 2,
        }
    }
}

impl ScanOp {
    pub const ALL: [ScanOp; 3] = [ScanOp::Add, ScanOp::Min, ScanOp::Max];
    pub fn name(self) -> &'static str {
        match self {
            ScanOp::Add => "add",
            ScanOp::Min => "min",
            ScanOp::Max => "max",
        }
    }
    pub fn parse(s: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|k| k.name() == s).map_or_else(
            || invalid(format!("unknown scan operator '{s}' (add, min, max)")),
            Ok,
        )
    }
}

/// Tuning: kept as data, one place. A tile is `workgroup_size * vec_per_lane * 4` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanPolicy {
    pub workgroup_size: u32,
    /// uvec4 loads per lane per tile.
    pub vec_per_lane: u32,
    /// Look-back rounds without progress before a workgroup falls back to recomputing.
    pub spin_limit: u32,
    /// Reduce: workgroups dispatched (at most one per tile); each folds every
    /// `reduce_groups`-th tile.
    pub reduce_groups: u32,
}

impl Default for ScanPolicy {
    fn default() -> Self {
        ScanPolicy { workgroup_size: 256, vec_per_lane: 4, spin_limit: 32, reduce_groups: 1024 }
    }
}

impl ScanPolicy {
    /// The tuned policy for `n` elements (bench/results/h200/tuning): tiles of 4096 (256
    /// lanes x 4 uvec4) below 2^25 elements, where more tiles in flight hide look-back latency
    /// best; tiles of 8192 (512 lanes x 4 uvec4) above, where fewer tiles per byte cut the
    /// per-tile overhead (0.90 of copy at 2^28 against 0.86 with 4096; 512x4 keeps 32
    /// registers where 256x8 needs 59).
    pub fn for_n(n: u64) -> ScanPolicy {
        if n >= 1 << 25 {
            ScanPolicy { workgroup_size: 512, ..ScanPolicy::default() }
        } else {
            ScanPolicy::default()
        }
    }

    pub fn tile_elems(&self) -> u64 {
        self.workgroup_size as u64 * self.vec_per_lane as u64 * 4
    }
    /// Workgroups a reduce of `tiles` tiles dispatches.
    pub fn reduce_groups_for(&self, tiles: u64) -> u64 {
        tiles.min(self.reduce_groups as u64).max(1)
    }
}

/// What to compute.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScanDesc {
    pub dtype: DType,
    pub op: ScanOp,
    pub kind: ScanKind,
    pub n: u64,
    /// Pin the subgroup size (None: the device default).
    pub subgroup_size: Option<u32>,
    /// Debug: when >= 2, look-back treats every tile t with t % period == period - 1 as not
    /// ready, so its successors always take the decoupled fallback.
    pub force_fallback_period: u32,
    pub policy: ScanPolicy,
}

impl ScanDesc {
    pub fn new(dtype: DType, op: ScanOp, kind: ScanKind, n: u64) -> Self {
        let policy = if kind == ScanKind::Reduce { ScanPolicy::default() } else { ScanPolicy::for_n(n) };
        ScanDesc { dtype, op, kind, n, subgroup_size: None, force_fallback_period: 0, policy }
    }
    /// Pin the subgroup size, shrinking the workgroup where the device caps the subgroups per
    /// workgroup (lavapipe at width 4 allows 32, so 128 invocations). Tile geometry changes,
    /// results do not.
    pub fn pin_subgroup_size(&mut self, ctx: &Context, size: Option<u32>) {
        self.subgroup_size = size;
        if let Some(s) = size {
            let most = s.saturating_mul(ctx.info().subgroup.max_workgroup_subgroups);
            if most > 0 && self.policy.workgroup_size > most {
                self.policy.workgroup_size = most;
            }
        }
    }

    /// "scan exclusive add u32 n=1000", for errors and tables.
    pub fn label(&self) -> String {
        format!("scan {} {} {} n={}", self.kind.name(), self.op.name(), self.dtype, self.n)
    }
    /// Bytes the kernel must move per element at best (read + write; reduce only reads).
    pub fn bytes_per_elem(&self) -> f64 {
        match self.kind {
            ScanKind::Reduce => 4.0,
            _ => 8.0,
        }
    }
}

/// A checked, ready-to-record scan.
pub struct ScanPlan {
    desc: ScanDesc,
    pipeline: Arc<Pipeline>,
    tiles: u32,
    /// Workgroups dispatched: one per tile for the scans (tickets), G for reduce.
    groups: u32,
}

impl ScanPlan {
    /// Check the request against the device and build (or fetch) the pipeline. Every error a
    /// scan can raise for bad input or a missing capability is raised here.
    pub fn new(ctx: &Context, desc: ScanDesc) -> Result<ScanPlan> {
        let what = desc.label();
        check_len(ctx, &what, desc.n, 4)?;
        let p = desc.policy;
        if [p.workgroup_size, p.vec_per_lane, p.spin_limit, p.reduce_groups].contains(&0) {
            return invalid(format!("{what}: policy values must be positive ({p:?})"));
        }
        if desc.force_fallback_period == 1 {
            return invalid(format!("{what}: force_fallback_period must be 0 (off) or at least 2"));
        }
        let sg_min = desc.subgroup_size.unwrap_or(ctx.info().subgroup.min_size).max(1);
        if !p.workgroup_size.is_multiple_of(ctx.info().subgroup.max_size.max(sg_min))
            || p.workgroup_size / sg_min > 256
        {
            return invalid(format!(
                "{what}: workgroup size {} must be a multiple of the subgroup size and hold at most 256 subgroups",
                p.workgroup_size
            ));
        }
        require_subgroup_ops(ctx, &what, &["basic", "ballot", "arithmetic", "shuffle"])?;
        let tile = p.tile_elems();
        let tiles = match desc.kind {
            ScanKind::Reduce => desc.n.div_ceil(tile).max(1),
            _ => desc.n.div_ceil(tile),
        };
        // Word indices inside the kernel are 32-bit.
        if (tiles * tile) >> 32 != 0 {
            return invalid(format!("{what}: n too large for 32-bit indexing with tiles of {tile}"));
        }
        let (spec, groups) = match desc.kind {
            ScanKind::Reduce => (vec![p.workgroup_size, p.vec_per_lane], p.reduce_groups_for(tiles)),
            _ => (vec![p.workgroup_size, p.vec_per_lane, desc.kind.spec(), desc.force_fallback_period, p.spin_limit], tiles),
        };
        if desc.kind == ScanKind::Reduce && groups > ctx.limits().max_compute_work_group_count[0] as u64 {
            return invalid(format!("{what}: {groups} reduce workgroups exceed the device's dispatch limit"));
        }
        let pipeline = ctx.pipeline(PipelineKey {
            shader: shader_name(desc.dtype, desc.op, desc.kind, ctx.capabilities().signed_zero_inf_nan_f32),
            spec,
            subgroup_size: desc.subgroup_size,
            bindings: 3,
            push_bytes: 8,
        })?;
        Ok(ScanPlan { desc, pipeline, tiles: tiles as u32, groups: groups as u32 })
    }

    pub fn desc(&self) -> &ScanDesc {
        &self.desc
    }
    pub fn pipeline(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }
    pub fn tiles(&self) -> u32 {
        self.tiles
    }
    pub fn input_bytes(&self) -> u64 {
        self.desc.n * 4
    }
    /// One element for reduce, n for the scans.
    pub fn output_bytes(&self) -> u64 {
        match self.desc.kind {
            ScanKind::Reduce => 4,
            _ => self.desc.n * 4,
        }
    }
    /// Scratch. Scans: the tile ticket, debug counters and the look-back spine (two words per
    /// tile). Reduce: a completion counter and one partial per workgroup.
    pub fn state_bytes(&self) -> u64 {
        match self.desc.kind {
            ScanKind::Reduce => (4 + self.groups as u64) * 4,
            _ => (4 + 2 * self.tiles as u64) * 4,
        }
    }

    /// Zero the state (ticket, counters, spine or partials). Must precede every dispatch, followed by a
    /// transfer-to-compute barrier ([`ScanPlan::record`] does both).
    pub fn record_reset(&self, rec: &mut Recorder, state: BufferSlice) {
        rec.fill(state.sub(0, self.state_bytes()), 0);
    }

    /// Each range large enough, and none written overlapping another (before anything is
    /// recorded). Not in place either: a tile's decoupled fallback reads its predecessor's input.
    fn check(&self, input: BufferSlice, output: BufferSlice, state: BufferSlice) -> Result<()> {
        let what = self.desc.label();
        let uses = [
            Use::input("input", input, self.input_bytes()),
            Use::output("output", output, self.output_bytes()),
            Use::scratch("state", state, self.state_bytes()),
        ];
        for u in &uses {
            super::require_bytes(&what, u.name, u.slice, u.bytes)?;
        }
        super::require_disjoint(&what, &uses, false)
    }

    /// The dispatch alone, on state that was reset since the last dispatch.
    pub fn record_dispatch(&self, rec: &mut Recorder, input: BufferSlice, output: BufferSlice, state: BufferSlice) -> Result<()> {
        let what = self.desc.label();
        self.check(input, output, state)?;
        if self.desc.n == 0 && self.desc.kind != ScanKind::Reduce {
            return Ok(());
        }
        // A zero-length input still binds a (never read) word of the input buffer.
        let input = if input.size == 0 { return invalid(format!("{what}: input binding is empty")) } else { input };
        let push: [u32; 2] = [self.desc.n as u32, self.tiles];
        let bind = |s: BufferSlice, need: u64| s.sub(0, need.max(4).min(s.size));
        let buffers = [bind(input, self.input_bytes()), bind(output, self.output_bytes()), state.sub(0, self.state_bytes())];
        match self.desc.kind {
            // The reduce kernel strides by gl_NumWorkGroups.x: an exact 1-D grid.
            ScanKind::Reduce => rec.dispatch(&self.pipeline, &buffers, bytemuck::bytes_of(&push), [self.groups, 1, 1]),
            _ => rec.dispatch_count(&self.pipeline, &buffers, bytemuck::bytes_of(&push), self.tiles),
        }
    }

    /// Reset the state, then dispatch. The caller orders earlier writes of `input` before
    /// this, and later reads of `output` after it, with its own barriers.
    pub fn record(&self, rec: &mut Recorder, input: BufferSlice, output: BufferSlice, state: BufferSlice) -> Result<()> {
        self.check(input, output, state)?;
        self.record_reset(rec, state);
        rec.barrier(
            &[state.sub(0, self.state_bytes())],
            Access::TransferWrite,
            Access::ComputeReadWrite,
            "scan: ticket and look-back spine zeroed before the dispatch",
        );
        self.record_dispatch(rec, input, output, state)
    }
}

/// The module for a scan; `signed_zero`: the device preserves IEEE signed zeros, infinities
/// and NaNs where a shader declares it, so f32 add takes the module that does.
fn shader_name(dtype: DType, op: ScanOp, kind: ScanKind, signed_zero: bool) -> &'static str {
    if (dtype, op) == (DType::F32, ScanOp::Add) && signed_zero {
        return if kind == ScanKind::Reduce { "reduce_f32_add_sz" } else { "scan_f32_add_sz" };
    }
    if kind == ScanKind::Reduce {
        return match (dtype, op) {
            (DType::U32, ScanOp::Add) => "reduce_u32_add",
            (DType::U32, ScanOp::Min) => "reduce_u32_min",
            (DType::U32, ScanOp::Max) => "reduce_u32_max",
            (DType::I32, ScanOp::Add) => "reduce_i32_add",
            (DType::I32, ScanOp::Min) => "reduce_i32_min",
            (DType::I32, ScanOp::Max) => "reduce_i32_max",
            (DType::F32, ScanOp::Add) => "reduce_f32_add",
            (DType::F32, ScanOp::Min) => "reduce_f32_min",
            (DType::F32, ScanOp::Max) => "reduce_f32_max",
        };
    }
    match (dtype, op) {
        (DType::U32, ScanOp::Add) => "scan_u32_add",
        (DType::U32, ScanOp::Min) => "scan_u32_min",
        (DType::U32, ScanOp::Max) => "scan_u32_max",
        (DType::I32, ScanOp::Add) => "scan_i32_add",
        (DType::I32, ScanOp::Min) => "scan_i32_min",
        (DType::I32, ScanOp::Max) => "scan_i32_max",
        (DType::F32, ScanOp::Add) => "scan_f32_add",
        (DType::F32, ScanOp::Min) => "scan_f32_min",
        (DType::F32, ScanOp::Max) => "scan_f32_max",
    }
}

/// Run a scan on raw 32-bit words (the dtype says how to read them): upload, record, wait,
/// download. Returns n words (one for reduce).
pub fn run_words(ctx: &Arc<Context>, desc: &ScanDesc, input: &[u32]) -> Result<Vec<u32>> {
    ScanPlan::new(ctx, desc.clone())?.run(ctx, input)
}

impl ScanPlan {
    /// Upload `input`, record into a command buffer of our own, wait, download.
    pub fn run(&self, ctx: &Arc<Context>, input: &[u32]) -> Result<Vec<u32>> {
        let (desc, plan) = (&self.desc, self);
        if input.len() as u64 != desc.n {
            return invalid(format!("{}: input holds {} elements", desc.label(), input.len()));
        }
        let inp = gpu::upload(ctx, bytemuck::cast_slice(input), "scan input")?;
        let out = Buffer::new(ctx, plan.output_bytes(), MemoryLocation::GpuOnly, "scan output")?;
        let state = Buffer::new(ctx, plan.state_bytes(), MemoryLocation::GpuOnly, "scan state")?;
        let mut rec = Recorder::new(ctx, desc.label())?;
        rec.poison(&[out.slice()]);
        plan.record(&mut rec, inp.slice(), out.slice(), state.slice())?;
        rec.barrier(&[out.slice()], Access::ComputeWrite, Access::TransferRead, "scan output copied to the host");
        rec.submit_and_wait()?;
        drop(rec);
        let bytes = gpu::download(ctx, out.head(plan.output_bytes()))?;
        Ok(bytemuck::pod_collect_to_vec(&bytes))
    }
}

/// Typed convenience: `run(ctx, ScanOp::Add, ScanKind::Exclusive, &data)`.
pub fn run<T: Elem>(ctx: &Arc<Context>, op: ScanOp, kind: ScanKind, input: &[T]) -> Result<Vec<T>> {
    let desc = ScanDesc::new(T::DTYPE, op, kind, input.len() as u64);
    let words = run_words(ctx, &desc, bytemuck::cast_slice(input))?;
    Ok(bytemuck::cast_slice(&words).to_vec())
}

// ---------------------------------------------------------------------------------------
// CPU reference

/// IEEE 754 totalOrder key of an f32 (the same transform as glsl/common/keys.glsl).
pub fn f32_order_key(bits: u32) -> u32 {
    if bits & 0x8000_0000 != 0 { !bits } else { bits | 0x8000_0000 }
}
pub fn f32_from_order_key(key: u32) -> u32 {
    if key & 0x8000_0000 != 0 { key & 0x7FFF_FFFF } else { !key }
}

/// The identity of `op` over `dtype`, as raw bits.
pub fn identity(dtype: DType, op: ScanOp) -> u32 {
    match (dtype, op) {
        (_, ScanOp::Add) if dtype == DType::F32 => (-0.0f32).to_bits(),
        (_, ScanOp::Add) => 0,
        (DType::U32, ScanOp::Min) => u32::MAX,
        (DType::U32, ScanOp::Max) => 0,
        (DType::I32, ScanOp::Min) => i32::MAX as u32,
        (DType::I32, ScanOp::Max) => i32::MIN as u32,
        (DType::F32, ScanOp::Min) => f32_from_order_key(u32::MAX),
        (DType::F32, ScanOp::Max) => f32_from_order_key(0),
    }
}

/// `a op b` on raw bits.
pub fn combine(dtype: DType, op: ScanOp, a: u32, b: u32) -> u32 {
    match (dtype, op) {
        (DType::U32 | DType::I32, ScanOp::Add) => a.wrapping_add(b),
        (DType::U32, ScanOp::Min) => a.min(b),
        (DType::U32, ScanOp::Max) => a.max(b),
        (DType::I32, ScanOp::Min) => (a as i32).min(b as i32) as u32,
        (DType::I32, ScanOp::Max) => (a as i32).max(b as i32) as u32,
        (DType::F32, ScanOp::Add) => (f32::from_bits(a) + f32::from_bits(b)).to_bits(),
        (DType::F32, ScanOp::Min) => f32_from_order_key(f32_order_key(a).min(f32_order_key(b))),
        (DType::F32, ScanOp::Max) => f32_from_order_key(f32_order_key(a).max(f32_order_key(b))),
    }
}

/// The plain serial scan: the answer every GPU result is checked against. For f32 add it
/// accumulates in f64 (the "exact" sum the tolerance is measured from) and rounds once.
pub fn reference(dtype: DType, op: ScanOp, kind: ScanKind, input: &[u32]) -> Vec<u32> {
    if dtype == DType::F32 && op == ScanOp::Add {
        let mut acc = -0.0f64;
        let mut out = Vec::with_capacity(input.len());
        for &w in input {
            if kind == ScanKind::Exclusive {
                out.push((acc as f32).to_bits());
            }
            acc += f32::from_bits(w) as f64;
            if kind == ScanKind::Inclusive {
                out.push((acc as f32).to_bits());
            }
        }
        return if kind == ScanKind::Reduce { vec![(acc as f32).to_bits()] } else { out };
    }
    let mut acc = identity(dtype, op);
    let mut out = Vec::with_capacity(input.len());
    for &w in input {
        if kind == ScanKind::Exclusive {
            out.push(acc);
        }
        acc = combine(dtype, op, acc, w);
        if kind == ScanKind::Inclusive {
            out.push(acc);
        }
    }
    if kind == ScanKind::Reduce { vec![acc] } else { out }
}

/// Error bound for an f32 add scan, relative to the running sum of magnitudes
/// Σ_{j≤i} |x_j|: first-order rounding error of a sum whose association tree has depth at
/// most `depth` is `depth * 2^-24 * Σ|x|`. The kernel's depth is 16 (lane) + 2·log2(tile)
/// (subgroup and workgroup trees and carries) + the look-back chain (one add per tile;
/// reduce's chain over its per-workgroup partials is shorter).
pub fn f32_add_tolerance(n: u64, policy: &ScanPolicy) -> f64 {
    let tile = policy.tile_elems();
    let depth = 16.0 + 2.0 * (tile as f64).log2() + n.div_ceil(tile) as f64 + 8.0;
    depth * f32::EPSILON as f64 / 2.0
}

/// Compare a GPU result with [`reference()`]; `None` when it passes, else the first mismatch.
pub fn check(desc: &ScanDesc, input: &[u32], got: &[u32]) -> Option<String> {
    let want = reference(desc.dtype, desc.op, desc.kind, input);
    if got.len() != want.len() {
        return Some(format!("{} elements returned, {} expected", got.len(), want.len()));
    }
    if desc.dtype == DType::F32 && desc.op == ScanOp::Add {
        let rel = f32_add_tolerance(desc.n, &desc.policy);
        let mut abs_sum = 0.0f64;
        for i in 0..want.len() {
            let (g, w) = (f32::from_bits(got[i]) as f64, f32::from_bits(want[i]) as f64);
            // Exclusive output i covers x_0..x_{i-1}; inclusive and reduce cover x_i too.
            let covered = match desc.kind {
                ScanKind::Exclusive => abs_sum,
                ScanKind::Inclusive => abs_sum + (f32::from_bits(input[i]) as f64).abs(),
                ScanKind::Reduce => input.iter().map(|&x| (f32::from_bits(x) as f64).abs()).sum(),
            };
            if desc.kind != ScanKind::Reduce {
                abs_sum += (f32::from_bits(input[i]) as f64).abs();
            }
            let ok = if !w.is_finite() || !g.is_finite() {
                (w.is_nan() && g.is_nan()) || w == g
            } else if g == 0.0 && w == 0.0 {
                // A zero sum is -0.0 exactly when every term is -0.0, in any association.
                got[i] == want[i]
            } else {
                (g - w).abs() <= rel * covered + f32::MIN_POSITIVE as f64
            };
            if !ok {
                return Some(format!("element {i}: got {g:e}, want {w:e} (tolerance {:e})", rel * covered));
            }
        }
        return None;
    }
    let i = (0..want.len()).find(|&i| got[i] != want[i])?;
    let show = |w: u32| match desc.dtype {
        DType::U32 => format!("{w}"),
        DType::I32 => format!("{}", w as i32),
        DType::F32 => format!("{:e} (0x{w:08x})", f32::from_bits(w)),
    };
    Some(format!("element {i}: got {}, want {}", show(got[i]), show(want[i])))
}
