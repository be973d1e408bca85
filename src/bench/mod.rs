//! Benchmarks, minimal but honest: trials recorded back to back in one command buffer, a
//! timestamp pair around each dispatch, state reset with vkCmdFillBuffer outside the pair,
//! the output poisoned before the last trial and validated after it, and the copy throughput
//! (vkCmdCopyBuffer and a copy shader) measured in the same run.

pub mod stats;

use std::sync::Arc;

use serde::Serialize;

use crate::error::Result;
use crate::gpu::{self, elapsed_ns, Access, Buffer, Context, MemoryLocation, PipelineKey, Recorder};
use crate::prims::scan::{self, ScanDesc, ScanPlan};
use crate::testdata::{generate, Pattern};
pub use stats::Stats;

#[derive(Clone, Debug, Serialize)]
pub struct BenchOptions {
    pub trials: u32,
    pub warmup: u32,
    /// Reset carried state between trials (on by default; off shows what stale state does).
    pub reset: bool,
    pub subgroup_size: Option<u32>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions { trials: 20, warmup: 3, reset: true, subgroup_size: None }
    }
}

/// Copy throughput for `n` u32 (4n bytes read + 4n written), measured both ways.
#[derive(Clone, Debug, Serialize)]
pub struct CopyResult {
    pub n: u64,
    pub copy_cmd: Stats,
    pub copy_shader: Stats,
}

impl CopyResult {
    /// The better of the two, in GB/s of bytes moved (read + write).
    pub fn best_gbps(&self) -> f64 {
        let bytes = 8.0 * self.n as f64;
        bytes / self.copy_cmd.median_ns.min(self.copy_shader.median_ns)
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ScanRow {
    pub desc: ScanDesc,
    pub tile_elems: u64,
    pub subgroup_size: Option<u32>,
    pub stats: Stats,
    pub elems_per_s: f64,
    pub bytes_per_elem: f64,
    pub gbps: f64,
    pub copy_gbps: f64,
    pub fraction_of_copy: f64,
    /// "ok", or why the last trial's output is wrong.
    pub validation: String,
    /// Scans, last trial: look-back rounds per tile and fallbacks taken (the kernel's debug
    /// counters); how often workgroups waited on, or recomputed, a predecessor.
    pub lookback_rounds_per_tile: Option<f64>,
    pub fallbacks: Option<u64>,
    pub reset: bool,
}

/// Time `trials` (after `warmup`) of `body`, each between two timestamps; `between` records
/// what must happen between trials, outside the timestamp pair.
fn timed_trials(
    ctx: &Arc<Context>,
    what: &str,
    opts: &BenchOptions,
    mut between: impl FnMut(&mut Recorder, u32, bool) -> Result<()>,
    mut body: impl FnMut(&mut Recorder) -> Result<()>,
) -> Result<Stats> {
    let total = opts.warmup + opts.trials;
    let mut rec = Recorder::new(ctx, what.to_string())?;
    rec.enable_timestamps(2 * total)?;
    for t in 0..total {
        between(&mut rec, t, t + 1 == total)?;
        rec.timestamp(2 * t);
        body(&mut rec)?;
        rec.timestamp(2 * t + 1);
    }
    rec.submit_and_wait()?;
    let ts = rec.timestamps_ns()?;
    let samples: Vec<f64> =
        (opts.warmup..total).map(|t| elapsed_ns(ctx, ts[2 * t as usize], ts[2 * t as usize + 1])).collect();
    Ok(Stats::from_samples(samples))
}

/// vkCmdCopyBuffer and the copy shader on `n` u32, same trial structure as the primitives.
pub fn copy_throughput(ctx: &Arc<Context>, n: u64, opts: &BenchOptions) -> Result<CopyResult> {
    crate::prims::check_len(ctx, "copy", n, 4)?;
    let bytes = n * 4;
    let src = Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "copy source")?;
    let dst = Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "copy destination")?;
    let (s, d) = (src.head(bytes), dst.head(bytes));
    let setup = |rec: &mut Recorder, t: u32, _last: bool| -> Result<()> {
        if t == 0 {
            rec.fill(s, 0x0123_4567);
            rec.barrier(&[s], Access::TransferWrite, Access::TransferRead, "copy source initialised");
        } else {
            rec.barrier(&[d], Access::TransferWrite, Access::TransferWrite, "trials write the same destination");
        }
        Ok(())
    };
    let copy_cmd = timed_trials(ctx, "copy (vkCmdCopyBuffer)", opts, setup, |rec| {
        rec.copy(s, d);
        Ok(())
    })?;
    let policy = scan::ScanPolicy::default();
    let p = ctx.pipeline(PipelineKey {
        shader: "copy",
        spec: vec![policy.workgroup_size, policy.vec_per_lane],
        subgroup_size: opts.subgroup_size,
        bindings: 2,
        push_bytes: 8,
    })?;
    let tiles = n.div_ceil(policy.tile_elems()) as u32;
    let push: [u32; 2] = [n as u32, tiles];
    let setup = |rec: &mut Recorder, t: u32, _last: bool| -> Result<()> {
        if t == 0 {
            rec.fill(s, 0x0123_4567);
            rec.barrier(&[s], Access::TransferWrite, Access::ComputeRead, "copy source initialised");
        } else {
            rec.barrier(&[d], Access::ComputeWrite, Access::ComputeWrite, "trials write the same destination");
        }
        Ok(())
    };
    let copy_shader = timed_trials(ctx, "copy (shader)", opts, setup, |rec| {
        rec.dispatch_count(&p, &[s, d], bytemuck::bytes_of(&push), tiles)
    })?;
    Ok(CopyResult { n, copy_cmd, copy_shader })
}

/// Benchmark one scan configuration; `copy` is the copy throughput measured at the same n.
pub fn bench_scan(ctx: &Arc<Context>, desc: &ScanDesc, opts: &BenchOptions, copy: &CopyResult) -> Result<ScanRow> {
    let mut desc = desc.clone();
    desc.subgroup_size = opts.subgroup_size;
    let plan = ScanPlan::new(ctx, desc.clone())?;
    let input = generate(Pattern::Random, desc.dtype, desc.n as usize, 42);
    let inp = gpu::upload(ctx, bytemuck::cast_slice(&input), "bench input")?;
    let out = Buffer::new(ctx, plan.output_bytes(), MemoryLocation::GpuOnly, "bench output")?;
    let state = Buffer::new(ctx, plan.state_bytes(), MemoryLocation::GpuOnly, "bench state")?;
    let (i, o, st) = (inp.slice(), out.head(plan.output_bytes().max(4)), state.head(plan.state_bytes()));
    let between = |rec: &mut Recorder, t: u32, last: bool| -> Result<()> {
        if t > 0 {
            rec.barrier(&[st, o], Access::ComputeReadWrite, Access::TransferWrite, "previous trial done before resets");
        }
        if t == 0 || opts.reset {
            plan.record_reset(rec, st);
        }
        if last {
            // Poison the output so validation sees what the last trial wrote, not an earlier one.
            rec.fill(o, 0xDEAD_BEEF);
        }
        rec.barrier(&[st, o], Access::TransferWrite, Access::ComputeReadWrite, "resets visible to the trial");
        Ok(())
    };
    let stats = timed_trials(ctx, &desc.label(), opts, between, |rec| plan.record_dispatch(rec, i, o, st))?;
    let got: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(ctx, out.head(plan.output_bytes()))?);
    let validation = scan::check(&desc, &input, &got).unwrap_or_else(|| "ok".into());
    let (lookback_rounds_per_tile, fallbacks) = if desc.kind == scan::ScanKind::Reduce || desc.n == 0 {
        (None, None)
    } else {
        let c: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(ctx, state.head(16))?);
        (Some(c[2] as f64 / plan.tiles() as f64), Some(c[1] as u64))
    };
    let elems_per_s = desc.n as f64 / (stats.median_ns * 1e-9);
    let gbps = desc.bytes_per_elem() * desc.n as f64 / stats.median_ns;
    let copy_gbps = copy.best_gbps();
    Ok(ScanRow {
        tile_elems: plan.desc().policy.tile_elems(),
        subgroup_size: opts.subgroup_size,
        stats,
        elems_per_s,
        bytes_per_elem: desc.bytes_per_elem(),
        gbps,
        copy_gbps,
        fraction_of_copy: gbps / copy_gbps,
        validation,
        lookback_rounds_per_tile,
        fallbacks,
        reset: opts.reset,
        desc,
    })
}

/// The markdown table `vkprims bench scan` prints.
pub fn scan_table(copies: &[CopyResult], rows: &[ScanRow]) -> String {
    let mut s = String::from(
        "| primitive | n | median ms | min ms | G elem/s | B/elem | GB/s | copy GB/s | of copy | look-back rounds/tile | fallbacks | result |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for c in copies {
        for (name, st) in [("copy (vkCmdCopyBuffer)", &c.copy_cmd), ("copy (shader)", &c.copy_shader)] {
            let gbps = 8.0 * c.n as f64 / st.median_ns;
            s.push_str(&format!(
                "| {name} | {} | {:.4} | {:.4} | {:.2} | 8 | {:.1} | {:.1} | {:.2} | - | - | ok |\n",
                c.n,
                st.median_ns * 1e-6,
                st.min_ns * 1e-6,
                c.n as f64 / st.median_ns,
                gbps,
                c.best_gbps(),
                gbps / c.best_gbps()
            ));
        }
    }
    for r in rows {
        let result = if r.validation == "ok" {
            if r.reset { "ok".to_string() } else { "ok (no reset)".to_string() }
        } else {
            format!("FAILED: {}", r.validation)
        };
        s.push_str(&format!(
            "| {} {} {} ({}x{}) | {} | {:.4} | {:.4} | {:.2} | {} | {:.1} | {:.1} | {:.2} | {} | {} | {} |\n",
            r.desc.kind.name(),
            r.desc.op.name(),
            r.desc.dtype,
            r.desc.policy.workgroup_size,
            r.desc.policy.vec_per_lane,
            r.desc.n,
            r.stats.median_ns * 1e-6,
            r.stats.min_ns * 1e-6,
            r.elems_per_s * 1e-9,
            r.bytes_per_elem,
            r.gbps,
            r.copy_gbps,
            r.fraction_of_copy,
            r.lookback_rounds_per_tile.map_or("-".to_string(), |v| format!("{v:.2}")),
            r.fallbacks.map_or("-".to_string(), |v| v.to_string()),
            result
        ));
    }
    s
}
