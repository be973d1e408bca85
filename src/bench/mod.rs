//! Benchmarks, minimal but honest: trials recorded back to back in one command buffer, a
//! timestamp pair around each dispatch, state reset with vkCmdFillBuffer outside the pair,
//! the output poisoned before the last trial and validated after it, and the copy throughput
//! (vkCmdCopyBuffer and a copy shader) measured in the same run.

pub mod stats;

use std::sync::Arc;

use serde::Serialize;

use crate::error::Result;
use crate::gpu::{elapsed_ns, Access, Buffer, BufferSlice, Context, MemoryLocation, PipelineKey, Recorder};
use crate::prims::scan::{self, ScanDesc, ScanPlan};
use crate::testdata::{generate, Pattern};
pub use stats::Stats;

#[derive(Clone, Debug, Serialize)]
pub struct BenchOptions {
    pub trials: u32,
    /// Untimed trials at the start of the timed command buffer.
    pub warmup: u32,
    /// Before each row, keep the GPU busy with the same work for at least this long, so that
    /// its clocks leave idle. (Seen on the H200: the SM clock sat at 345 MHz through short
    /// bursts of work separated by host-side validation, against 1980 MHz under load; rows
    /// measured at that clock ran 2-4x slower.)
    pub warmup_ms: f64,
    /// Reset carried state between trials (on by default; off shows what stale state does).
    pub reset: bool,
    pub subgroup_size: Option<u32>,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions { trials: 20, warmup: 3, warmup_ms: 300.0, reset: true, subgroup_size: None }
    }
}

/// Buffers allocated once for a whole sweep and reused by every row: input, output, state,
/// and 64 MiB staging buffers that data passes through in chunks. An input already loaded
/// (same words) is not uploaded again.
pub struct Arena {
    ctx: Arc<Context>,
    input: Buffer,
    output: Buffer,
    state: Buffer,
    up: Buffer,
    down: Buffer,
    /// (length, hash) of what the input buffer holds.
    loaded: Option<(usize, u64)>,
}

const STAGING_BYTES: u64 = 64 << 20;

fn fingerprint(words: &[u32]) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    words.hash(&mut h);
    (words.len(), h.finish())
}

impl Arena {
    /// Room for `max_elems` 4-byte elements (and state for the smallest tiles).
    pub fn new(ctx: &Arc<Context>, max_elems: u64) -> Result<Arena> {
        let bytes = max_elems.max(1) * 4;
        let state_bytes = (4 + 2 * max_elems.div_ceil(256) + 4096) * 4;
        let staging = bytes.min(STAGING_BYTES);
        Ok(Arena {
            ctx: ctx.clone(),
            input: Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "bench input")?,
            output: Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "bench output")?,
            state: Buffer::new(ctx, state_bytes, MemoryLocation::GpuOnly, "bench state")?,
            up: Buffer::new(ctx, staging, MemoryLocation::CpuToGpu, "bench staging (upload)")?,
            down: Buffer::new(ctx, staging, MemoryLocation::GpuToCpu, "bench staging (download)")?,
            loaded: None,
        })
    }

    /// Make the input buffer start with `words` (uploaded unless it already does).
    pub fn load_input(&mut self, words: &[u32]) -> Result<BufferSlice> {
        let bytes = words.len() as u64 * 4;
        if bytes > self.input.size() {
            return crate::error::invalid(format!("{} elements exceed the bench arena", words.len()));
        }
        let fp = fingerprint(words);
        if self.loaded != Some(fp) {
            self.loaded = None;
            for (i, chunk) in bytemuck::cast_slice::<u32, u8>(words).chunks(self.up.size() as usize).enumerate() {
                self.up.write(chunk)?;
                let mut rec = Recorder::new(&self.ctx, "bench input upload")?;
                let dst = self.input.slice().sub(i as u64 * self.up.size(), chunk.len() as u64);
                rec.copy(self.up.head(chunk.len() as u64), dst);
                rec.submit_and_wait()?;
            }
            self.loaded = Some(fp);
        }
        Ok(self.input.head(bytes.max(4)))
    }

    /// Read the first `bytes` of `s` (the output or state buffer) back to the host.
    pub fn read(&self, s: BufferSlice, bytes: u64) -> Result<Vec<u32>> {
        let mut out = Vec::with_capacity(bytes as usize / 4);
        let mut off = 0;
        while off < bytes {
            let len = (bytes - off).min(self.down.size());
            let mut rec = Recorder::new(&self.ctx, "bench download")?;
            rec.copy(s.sub(off, len), self.down.head(len));
            rec.barrier(&[self.down.head(len)], Access::TransferWrite, Access::HostRead, "host reads the result");
            rec.submit_and_wait()?;
            drop(rec);
            out.extend_from_slice(bytemuck::cast_slice(&self.down.read(len as usize)?));
            off += len;
        }
        Ok(out)
    }

    pub fn output(&self, bytes: u64) -> BufferSlice {
        self.output.head(bytes.max(4))
    }
    pub fn state(&self, bytes: u64) -> Result<BufferSlice> {
        if bytes > self.state.size() {
            return crate::error::invalid(format!("state of {bytes} bytes exceeds the bench arena"));
        }
        Ok(self.state.head(bytes))
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
    /// The driver compiler's statistics for the kernel (registers, spills, ...) where reported.
    pub pipeline_stats: Vec<crate::gpu::PipelineStat>,
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
    // Time-based warm-up: batches of growing size until enough GPU time has passed.
    let (mut spent_ns, mut reps) = (0.0, 1u32);
    while spent_ns < opts.warmup_ms * 1e6 {
        let mut rec = Recorder::new(ctx, format!("{what} (warm-up)"))?;
        rec.enable_timestamps(2)?;
        rec.timestamp(0);
        for t in 0..reps {
            between(&mut rec, t, false)?;
            body(&mut rec)?;
        }
        rec.timestamp(1);
        rec.submit_and_wait()?;
        let ts = rec.timestamps_ns()?;
        spent_ns += elapsed_ns(ctx, ts[0], ts[1]);
        reps = (reps * 2).min(1024);
    }
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

/// vkCmdCopyBuffer and the copy shader on `n` u32, from the arena's input to its output
/// (the buffers the primitives use), same trial structure as the primitives.
pub fn copy_throughput(ctx: &Arc<Context>, arena: &mut Arena, n: u64, opts: &BenchOptions) -> Result<CopyResult> {
    crate::prims::check_len(ctx, "copy", n, 4)?;
    arena.loaded = None; // the copy's source fill overwrites the input
    let bytes = n.max(1) * 4;
    let (s, d) = (arena.input.head(bytes), arena.output.head(bytes));
    // Between trials, outside the timestamps: fill the source once, then order the trials
    // (each writes the same destination) by whichever stage `read`/`write` name.
    let setup = |read: Access, write: Access| {
        move |rec: &mut Recorder, t: u32, _last: bool| -> Result<()> {
            if t == 0 {
                rec.fill(s, 0x0123_4567);
                rec.barrier(&[s], Access::TransferWrite, read, "copy source initialised");
            } else {
                rec.barrier(&[d], write, write, "trials write the same destination");
            }
            Ok(())
        }
    };
    let copy_cmd = timed_trials(ctx, "copy (vkCmdCopyBuffer)", opts, setup(Access::TransferRead, Access::TransferWrite), |rec| {
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
    let copy_shader = timed_trials(ctx, "copy (shader)", opts, setup(Access::ComputeRead, Access::ComputeWrite), |rec| {
        rec.dispatch_count(&p, &[s, d], bytemuck::bytes_of(&push), tiles)
    })?;
    Ok(CopyResult { n, copy_cmd, copy_shader })
}

/// Benchmark one scan configuration; `copy` is the copy throughput measured at the same n.
pub fn bench_scan(ctx: &Arc<Context>, arena: &mut Arena, desc: &ScanDesc, opts: &BenchOptions, copy: &CopyResult) -> Result<ScanRow> {
    let mut desc = desc.clone();
    desc.pin_subgroup_size(ctx, opts.subgroup_size);
    let plan = ScanPlan::new(ctx, desc.clone())?;
    let input = generate(Pattern::Random, desc.dtype, desc.n as usize, 42);
    let i = arena.load_input(&input)?;
    let (o, st) = (arena.output(plan.output_bytes()), arena.state(plan.state_bytes())?);
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
    let got = arena.read(o, plan.output_bytes())?;
    let validation = scan::check(&desc, &input, &got).unwrap_or_else(|| "ok".into());
    let (lookback_rounds_per_tile, fallbacks) = if desc.kind == scan::ScanKind::Reduce || desc.n == 0 {
        (None, None)
    } else {
        let c = arena.read(st, 16)?;
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
        pipeline_stats: ctx.pipeline_stats(plan.pipeline())?,
        reset: opts.reset,
        desc,
    })
}

/// A scan sweep: the cartesian product of sizes, dtypes, operators, kinds and policies, in
/// that (stable) order, each size with its copy reference.
#[derive(Clone, Debug, Serialize)]
pub struct ScanSweep {
    pub sizes: Vec<u64>,
    pub dtypes: Vec<crate::prims::DType>,
    pub ops: Vec<scan::ScanOp>,
    pub kinds: Vec<scan::ScanKind>,
    /// `None`: the tuned policy for each n ([`scan::ScanPolicy::for_n`]).
    pub policies: Vec<Option<scan::ScanPolicy>>,
    pub opts: BenchOptions,
}

#[derive(Clone, Debug, Serialize)]
pub struct SweepResult {
    pub copies: Vec<CopyResult>,
    pub rows: Vec<ScanRow>,
}

impl SweepResult {
    pub fn all_valid(&self) -> bool {
        self.rows.iter().all(|r| r.validation == "ok")
    }
    /// The results file: rows, copy references, options and the device fingerprint.
    pub fn to_json(&self, ctx: &Context, sweep: &ScanSweep, command: &[String]) -> serde_json::Value {
        serde_json::json!({
            "schema": "vkprims.bench.scan/1",
            "vkprims_version": env!("CARGO_PKG_VERSION"),
            "command": command,
            "device": ctx.info(),
            "options": sweep.opts,
            "copy": self.copies,
            "rows": self.rows,
        })
    }
}

/// Sizes a sweep uses by default: 2^20, 2^24, 2^28 on GPUs, 2^16, 2^20, 2^22 on CPU devices,
/// within the device's buffer limit.
pub fn default_sizes(ctx: &Context) -> Vec<u64> {
    let d: &[u64] = if ctx.info().device_type == "cpu" { &[1 << 16, 1 << 20, 1 << 22] } else { &[1 << 20, 1 << 24, 1 << 28] };
    d.iter().copied().filter(|&n| n <= ctx.max_storage_buffer_range() / 4).collect()
}

/// Run a sweep; `progress` sees each row as it completes.
pub fn run_scan_sweep(ctx: &Arc<Context>, sweep: &ScanSweep, mut progress: impl FnMut(&ScanRow)) -> Result<SweepResult> {
    let mut out = SweepResult { copies: Vec::new(), rows: Vec::new() };
    let mut arena = Arena::new(ctx, sweep.sizes.iter().copied().max().unwrap_or(1))?;
    for &n in &sweep.sizes {
        let copy = copy_throughput(ctx, &mut arena, n, &sweep.opts)?;
        for &dt in &sweep.dtypes {
            for &op in &sweep.ops {
                for &kind in &sweep.kinds {
                    for p in &sweep.policies {
                        let mut desc = ScanDesc::new(dt, op, kind, n);
                        if let Some(p) = p {
                            desc.policy = *p;
                        }
                        let row = bench_scan(ctx, &mut arena, &desc, &sweep.opts, &copy)?;
                        progress(&row);
                        out.rows.push(row);
                    }
                }
            }
        }
        out.copies.push(copy);
    }
    Ok(out)
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
