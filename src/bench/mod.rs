//! The perf-lab harness. Trials are recorded back to back in one command buffer; state that
//! carries from one dispatch to the next is reset with vkCmdFillBuffer outside the timestamps;
//! after the timed trials one more trial runs on a poisoned output and is validated, so a
//! wrong result is reported as a failure, never as a speed; the copy throughput is measured
//! on the same buffers in the same run.
//!
//! - [`measure`]: the trial engine (per-trial and batch modes, cold caches, warm-up, fixed or
//!   adaptive stopping, submit-to-start overhead).
//! - `cases`: what is measured (copy, scan/reduce) and how each is validated.
//! - `sweep`: axes, their cartesian product, the results file.
//! - `report`, `compare`, `plot`: markdown/CSV output, run-to-run comparison, SVG plots.

mod cases;
pub mod compare;
pub mod plot;
pub mod report;
pub mod stats;
pub mod sweep;
pub mod timeline;

use std::sync::Arc;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{invalid, Result};
use crate::gpu::{elapsed_ns, Access, Buffer, BufferSlice, Context, MemoryLocation, Recorder};
pub use cases::{bench_copy, bench_multisplit, bench_perm, bench_scan, bench_sort, SplitCase};
pub use stats::Stats;
pub use sweep::{default_sizes, parse_sizes, run_sweep, Results, Sweep, What};

/// How trials are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// A timestamp pair around every trial; resets between trials stay outside it.
    PerTrial,
    /// One timestamp pair around `batch_size` back-to-back trials (resets included), minus
    /// the time of the same resets alone, measured in the same command buffer: the launch
    /// gaps between dispatches are hidden, as in nvbench's batch mode.
    Batch,
}

/// When a row stops collecting samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// Exactly this many samples.
    Trials(u32),
    /// At least `min_samples`, then until the relative spread (q3 - q1) / median is at most
    /// `max_noise`, or `timeout_s` of wall time, or `max_samples`.
    Adaptive { min_samples: u32, max_noise: f64, timeout_s: f64, max_samples: u32 },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchOptions {
    pub mode: Mode,
    /// Trials per sample in batch mode.
    pub batch_size: u32,
    pub stop: Stop,
    /// Untimed trials at the start of the first timed command buffer.
    pub warmup: u32,
    /// Before each row, keep the GPU busy with the same work for at least this long, so that
    /// its clocks leave idle. (Seen on the H200: the SM clock sat at 345 MHz through short
    /// bursts of work separated by host-side validation, against 1980 MHz under load; rows
    /// measured at that clock ran 2-4x slower.)
    pub warmup_ms: f64,
    /// Before each trial (outside the timestamps), copy `cold_bytes` through the caches so
    /// the trial starts with cold caches. Per-trial mode only.
    pub cold: bool,
    pub cold_bytes: u64,
    /// Reset carried state between trials (on by default; off shows what stale state does).
    pub reset: bool,
    pub subgroup_size: Option<u32>,
    /// Time each kernel of the validation trial (a timestamp after every dispatch).
    #[serde(default)]
    pub profile: bool,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            mode: Mode::PerTrial,
            batch_size: 10,
            stop: Stop::Trials(20),
            warmup: 3,
            warmup_ms: 300.0,
            cold: false,
            profile: false,
            cold_bytes: 256 << 20,
            reset: true,
            subgroup_size: None,
        }
    }
}

impl BenchOptions {
    /// Defaults scaled for a CPU device (lavapipe): fewer trials, no clock warm-up, a cold
    /// copy within its buffer limit.
    pub fn for_device(ctx: &Context) -> BenchOptions {
        let mut o = BenchOptions::default();
        if ctx.info().device_type == "cpu" {
            o.stop = Stop::Trials(5);
            o.warmup_ms = 0.0;
            o.cold_bytes = 32 << 20;
        }
        o.cold_bytes = o.cold_bytes.min(ctx.max_storage_buffer_range());
        o
    }

    pub fn check(&self) -> Result<()> {
        if self.cold && self.mode == Mode::Batch {
            return invalid("--cold needs per-trial mode: a batch runs its trials back to back");
        }
        if self.batch_size == 0 {
            return invalid("batch size must be at least 1");
        }
        match self.stop {
            Stop::Trials(0) => invalid("at least one trial"),
            Stop::Adaptive { min_samples, max_noise, timeout_s, max_samples } => {
                // Written as !(x > 0) so that NaN is refused too.
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                let bad = min_samples == 0 || max_samples < min_samples || !(max_noise > 0.0) || !(timeout_s > 0.0);
                if bad {
                    invalid("adaptive stopping needs min-samples >= 1, max-noise > 0 and timeout > 0")
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }
}

/// Buffers allocated once for a whole sweep and reused by every row: input, output, state,
/// 64 MiB staging buffers that data passes through in chunks, and (with --cold) the buffers
/// the cache-thrashing copy uses. An input already loaded (same words) is not uploaded again.
pub struct Arena {
    ctx: Arc<Context>,
    input: Buffer,
    output: Buffer,
    state: Buffer,
    up: Buffer,
    down: Buffer,
    cold: Option<(Buffer, Buffer)>,
    /// (length, hash) of what the input buffer holds.
    loaded: Option<(usize, u64)>,
    /// Further named buffers (the sort's keys, values and scratch), grown on demand.
    slots: std::collections::HashMap<&'static str, Buffer>,
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
    pub fn new(ctx: &Arc<Context>, max_elems: u64, opts: &BenchOptions) -> Result<Arena> {
        let bytes = max_elems.max(1) * 4;
        let state_bytes = (4 + 2 * max_elems.div_ceil(256) + 4096) * 4;
        let staging = bytes.min(STAGING_BYTES);
        let cold = if opts.cold {
            let b = opts.cold_bytes.max(4);
            Some((
                Buffer::new(ctx, b, MemoryLocation::GpuOnly, "cold-cache source")?,
                Buffer::new(ctx, b, MemoryLocation::GpuOnly, "cold-cache destination")?,
            ))
        } else {
            None
        };
        Ok(Arena {
            ctx: ctx.clone(),
            input: Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "bench input")?,
            output: Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "bench output")?,
            state: Buffer::new(ctx, state_bytes, MemoryLocation::GpuOnly, "bench state")?,
            up: Buffer::new(ctx, staging, MemoryLocation::CpuToGpu, "bench staging (upload)")?,
            down: Buffer::new(ctx, staging, MemoryLocation::GpuToCpu, "bench staging (download)")?,
            cold,
            loaded: None,
            slots: Default::default(),
        })
    }

    /// The named buffer, at least `bytes` long (reallocated when it is too small).
    pub fn slot(&mut self, name: &'static str, bytes: u64) -> Result<BufferSlice> {
        let bytes = bytes.max(4);
        if self.slots.get(name).is_none_or(|b| b.size() < bytes) {
            self.slots.remove(name);
            self.slots.insert(name, Buffer::new(&self.ctx, bytes, MemoryLocation::GpuOnly, name)?);
        }
        Ok(self.slots[name].head(bytes))
    }

    /// Upload `words` into the named buffer (through the staging buffer, in chunks).
    pub fn upload_slot(&mut self, name: &'static str, words: &[u32]) -> Result<BufferSlice> {
        let dst = self.slot(name, words.len() as u64 * 4)?;
        for (i, chunk) in bytemuck::cast_slice::<u32, u8>(words).chunks(self.up.size() as usize).enumerate() {
            self.up.write(chunk)?;
            let mut rec = Recorder::new(&self.ctx, "bench upload")?;
            rec.copy(self.up.head(chunk.len() as u64), dst.sub(i as u64 * self.up.size(), chunk.len() as u64));
            rec.submit_and_wait()?;
        }
        Ok(dst)
    }

    /// Make the input buffer start with `words` (uploaded unless it already does).
    pub fn load_input(&mut self, words: &[u32]) -> Result<BufferSlice> {
        let bytes = words.len() as u64 * 4;
        if bytes > self.input.size() {
            return invalid(format!("{} elements exceed the bench arena", words.len()));
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

    /// Read the first `bytes` of `s` back to the host.
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

    pub fn input(&self, bytes: u64) -> BufferSlice {
        self.input.head(bytes.max(4))
    }
    pub fn output(&self, bytes: u64) -> BufferSlice {
        self.output.head(bytes.max(4))
    }
    pub fn state(&self, bytes: u64) -> Result<BufferSlice> {
        if bytes > self.state.size() {
            return invalid(format!("state of {bytes} bytes exceeds the bench arena"));
        }
        Ok(self.state.head(bytes))
    }
    /// The input no longer holds what was last loaded (a benchmark overwrote it).
    pub fn forget_input(&mut self) {
        self.loaded = None;
    }

    /// Copy the cold-cache buffers, so the next trial finds its data in no cache.
    fn thrash(&self, rec: &mut Recorder) {
        if let Some((a, b)) = &self.cold {
            rec.copy(a.slice(), b.slice());
            rec.barrier(&[b.slice()], Access::TransferWrite, Access::TransferWrite, "cold-cache copies write one buffer");
        }
    }
}

/// What [`measure`] found.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Measured {
    pub stats: Stats,
    /// "trials", "noise", "timeout" or "max-samples".
    pub stop_reason: String,
    /// Median host-submit-to-GPU-start time over the submissions (calibrated timestamps).
    pub submit_to_start_ns: Option<f64>,
}

/// Timestamps per command buffer at most (samples are collected over several if needed).
const MAX_SAMPLES_PER_SUBMIT: usize = 200;

/// Time `body` (one trial) under `opts`; `between` records what precedes every trial
/// outside the timestamps (barriers against the previous trial, resets). The caller resets
/// carried state once before calling.
pub fn measure(
    ctx: &Arc<Context>,
    arena: &Arena,
    what: &str,
    opts: &BenchOptions,
    between: &mut dyn FnMut(&mut Recorder) -> Result<()>,
    body: &mut dyn FnMut(&mut Recorder) -> Result<()>,
) -> Result<Measured> {
    opts.check()?;
    // Time-based warm-up: batches of growing size until enough GPU time has passed.
    let (mut spent_ns, mut reps) = (0.0, 1u32);
    while spent_ns < opts.warmup_ms * 1e6 {
        let mut rec = Recorder::new(ctx, format!("{what} (warm-up)"))?;
        rec.enable_timestamps(2)?;
        rec.timestamp(0);
        for _ in 0..reps {
            between(&mut rec)?;
            body(&mut rec)?;
        }
        rec.timestamp(1);
        rec.submit_and_wait()?;
        let ts = rec.timestamps_ns()?;
        spent_ns += elapsed_ns(ctx, ts[0], ts[1]);
        reps = (reps * 2).min(1024);
    }

    let started = Instant::now();
    let mut samples: Vec<f64> = Vec::new();
    let mut overheads: Vec<f64> = Vec::new();
    let per = if opts.mode == Mode::Batch { 4 } else { 2 };
    let reason = loop {
        let want = match opts.stop {
            Stop::Trials(t) => t as usize - samples.len(),
            Stop::Adaptive { min_samples, .. } => {
                if samples.is_empty() { (min_samples as usize).max(5) } else { (samples.len() / 2).max(5) }
            }
        }
        .min(MAX_SAMPLES_PER_SUBMIT);
        let mut rec = Recorder::new(ctx, what.to_string())?;
        rec.enable_timestamps(1 + per * want as u32)?;
        rec.timestamp_start(0);
        if samples.is_empty() {
            for _ in 0..opts.warmup {
                between(&mut rec)?;
                body(&mut rec)?;
            }
        }
        for i in 0..want as u32 {
            let t = 1 + per * i;
            match opts.mode {
                Mode::PerTrial => {
                    between(&mut rec)?;
                    arena.thrash(&mut rec);
                    rec.timestamp(t);
                    body(&mut rec)?;
                    rec.timestamp(t + 1);
                }
                Mode::Batch => {
                    rec.timestamp(t);
                    for _ in 0..opts.batch_size {
                        between(&mut rec)?;
                        body(&mut rec)?;
                    }
                    rec.timestamp(t + 1);
                    rec.timestamp(t + 2);
                    for _ in 0..opts.batch_size {
                        between(&mut rec)?;
                    }
                    rec.timestamp(t + 3);
                }
            }
        }
        rec.submit_and_wait()?;
        let ts = rec.timestamps_ns()?;
        for i in 0..want {
            let t = 1 + per as usize * i;
            let sample = match opts.mode {
                Mode::PerTrial => elapsed_ns(ctx, ts[t], ts[t + 1]),
                Mode::Batch => {
                    // Trials with resets minus the resets alone. Where the resets are as slow
                    // as everything (tiny work on a CPU device), the difference is noise:
                    // the sample is held at one timestamp tick, the resolution floor.
                    let with = elapsed_ns(ctx, ts[t], ts[t + 1]);
                    let resets = elapsed_ns(ctx, ts[t + 2], ts[t + 3]);
                    ((with - resets) / opts.batch_size as f64).max(ctx.info().timestamp_period_ns as f64)
                }
            };
            samples.push(sample);
        }
        if let Some(o) = rec.submit_to_timestamp_ns(0)? {
            overheads.push(o);
        }
        match opts.stop {
            Stop::Trials(t) if samples.len() >= t as usize => break "trials",
            Stop::Trials(_) => {}
            Stop::Adaptive { min_samples, max_noise, timeout_s, max_samples } => {
                let s = Stats::from_samples(samples.clone());
                if samples.len() >= min_samples as usize && s.rel_spread <= max_noise {
                    break "noise";
                }
                if started.elapsed().as_secs_f64() >= timeout_s {
                    break "timeout";
                }
                if samples.len() >= max_samples as usize {
                    break "max-samples";
                }
            }
        }
    };
    let submit_to_start_ns = (!overheads.is_empty()).then(|| Stats::from_samples(overheads).median_ns);
    Ok(Measured { stats: Stats::from_samples(samples), stop_reason: reason.to_string(), submit_to_start_ns })
}

/// One result row: a primitive at one size, with everything needed to trust and compare it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Row {
    /// "exclusive add u32", "reduce max f32", "copy (shader)", "copy (vkCmdCopyBuffer)".
    pub primitive: String,
    pub n: u64,
    /// Tuning policy, for primitives that have one ("256x4x32": workgroup x uvec4 per lane x
    /// spin limit).
    pub policy: Option<String>,
    pub subgroup_size: Option<u32>,
    pub mode: Mode,
    pub stats: Stats,
    pub stop_reason: String,
    pub elems_per_s: f64,
    /// The fewest bytes the primitive must move per element (8 for a scan or a copy of u32).
    pub bytes_per_elem: f64,
    pub gbps: f64,
    /// The better copy throughput at the same n, and this row's fraction of it.
    pub copy_gbps: Option<f64>,
    pub fraction_of_copy: Option<f64>,
    /// "ok", or "FAILED: ..." with the first wrong element.
    pub validation: String,
    pub reset: bool,
    /// Scans: look-back windows read per tile and fallbacks taken in the validation trial.
    pub lookback_rounds_per_tile: Option<f64>,
    pub fallbacks: Option<u64>,
    /// Compute invocations the validation trial should launch and those a pipeline-statistics
    /// query counted.
    pub invocations: Option<(u64, u64)>,
    pub submit_to_start_ns: Option<f64>,
    /// The driver compiler's statistics for the kernel (registers, spills, ...).
    pub pipeline_stats: Vec<crate::gpu::PipelineStat>,
    /// `--profile`: (kernel, ms) per dispatch of the validation trial.
    #[serde(default)]
    pub kernels: Vec<(String, f64)>,
    /// Sorts with the phase clocks (`--binning-policy ...xclocks`): (phase, subgroup-clock
    /// cycles per tile, mean over the digit passes) in the validation trial.
    #[serde(default)]
    pub phases: Vec<(String, f64)>,
    /// With the phase clocks: invocation 0's look-back, [`crate::prims::binning::LOOKBACK_COUNTS`]
    /// (means per tile over the digit passes; the longest, the most of any pass).
    #[serde(default)]
    pub lookback: Vec<(String, f64)>,
    /// Sorts with `xtimeline`: the tiles' timelines of one middle pass of the validation trial
    /// ([`crate::prims::binning::TIMELINE_WORDS`] words a tile: SM, device-clock low words at
    /// [`crate::prims::binning::TIMELINE_POINTS`] and SM-clock low words at each; src/bench/timeline.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeline: Vec<u32>,
}

/// With `--profile`, a row whose median trial takes more than this times its profiled trial's
/// kernels (their timestamps included, so normally a little more than a trial) is flagged: the
/// device ran slower while its trials ran (the shared H200 did, 1.99 against 0.54 ms, for one
/// row of bench/results/h200/binning/session15/7-load-shapes).
pub const PROFILE_MISMATCH: f64 = 1.25;

impl Row {
    pub fn valid(&self) -> bool {
        self.validation == "ok"
    }
    /// The median trial over the sum of the profiled trial's kernels, where it exceeds
    /// [`PROFILE_MISMATCH`].
    pub fn profile_mismatch(&self) -> Option<f64> {
        let profiled_ms: f64 = self.kernels.iter().map(|k| k.1).sum();
        let ratio = self.stats.median_ns * 1e-6 / profiled_ms;
        (profiled_ms > 0.0 && ratio > PROFILE_MISMATCH).then_some(ratio)
    }
    /// What a [`Row::profile_mismatch`] means, for the result cell and the CLI's warning.
    pub fn profile_warning(&self) -> Option<String> {
        self.profile_mismatch().map(|x| format!("trials {x:.2}x the profiled kernels: the device was slower, measure again"))
    }
    /// The key rows are matched by across runs.
    pub fn key(&self) -> String {
        let mut k = format!("{} n={}", self.primitive, self.n);
        if let Some(p) = &self.policy {
            k.push_str(&format!(" policy={p}"));
        }
        if let Some(s) = self.subgroup_size {
            k.push_str(&format!(" sg={s}"));
        }
        k.push_str(&format!(" mode={:?}", self.mode));
        k
    }
}
