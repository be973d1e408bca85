//! The runner: options, skips with reasons, timing (bench::measure: warm-up, trials between
//! timestamps, median), the doubling check, and `--verify` against the model.

use std::sync::Arc;

use serde::Serialize;

use super::cases::{Case, Kind, Source, BASELINE};
use super::model::{self, WORKGROUP};
use super::resources::{Binding, Resources};
use super::sweep::{self, Working};
use crate::bench::{measure, Arena, BenchOptions, Measured, Mode, Stats, Stop};
use crate::error::{invalid, Error, Result};
use crate::gpu::{grid_for, Access, Bind, Buffer, Context, Descriptor, DeviceInfo, MemoryLocation, Pipeline, PipelineKey, Recorder};

#[derive(Clone, Debug, Serialize)]
pub struct LabOptions {
    /// Store every invocation's sum once more after timing and compare it with the model.
    pub verify: bool,
    /// Invocations per dispatch (a multiple of 256), the same for every load case.
    pub threads: u32,
    /// Loads per invocation (perftest: 256); the doubling check runs twice as many.
    pub loads: u32,
    /// Time 2 x loads as well and flag cases whose time does not roughly double.
    pub doubling: bool,
    /// Time ratios (2 x loads / loads) outside this range are flagged.
    pub doubling_bounds: (f64, f64),
    pub trials: u32,
    /// Untimed dispatches before each case's trials.
    pub warmup: u32,
    /// GPU time of warm-up before the first case (clocks out of idle), and before each case.
    pub warmup_ms: f64,
    pub case_warmup_ms: f64,
    pub subgroup_size: Option<u32>,
    /// Fewest loads per invocation in the sweep (more when the working set needs them).
    pub sweep_loads: u32,
    /// Dependent loads per chase (H; the chase also times 2H).
    pub chase_hops: u32,
    /// Test hook: treat these formats (e.g. R16_SFLOAT) or features (bufferDeviceAddress,
    /// shuffle, pushConstants, storageImageExtendedFormats) as missing.
    pub hide: Vec<String>,
    /// Test hook: the GPU uses a wrong address mask, so verification must fail.
    pub debug_skew: bool,
}

impl LabOptions {
    /// Defaults for the device: a GPU-sized dispatch (perftest's 1024 x 1024 invocations), or
    /// a small one on a CPU device so that the whole lab finishes in minutes.
    pub fn for_device(ctx: &Context) -> LabOptions {
        let cpu = ctx.info().device_type == "cpu";
        LabOptions {
            verify: false,
            threads: if cpu { 32768 } else { 1 << 20 },
            loads: 256,
            doubling: true,
            doubling_bounds: (1.5, 2.5),
            // Five trials keep the whole lab near a minute on a big GPU (perftest's geometry).
            trials: 5,
            warmup: 2,
            warmup_ms: if cpu { 0.0 } else { 300.0 },
            // Two whole-lab H200 runs with 5 ms here disagreed by up to 1.6x in the later
            // cases (storage images and texel buffers, device addresses, push constants),
            // as if the clock had dropped in the host-side gaps between cases (--verify);
            // the harness needed 300 ms per row for that. 50 ms per timing adds about 30 s.
            case_warmup_ms: if cpu { 0.0 } else { 50.0 },
            subgroup_size: None,
            sweep_loads: 64,
            // Milliseconds of chase at device-memory latency, well above launch jitter. Lavapipe
            // ends every loop after 65535 iterations (--verify caught it), so 2H stays below.
            chase_hops: if cpu { 16384 } else { 8192 },
            hide: Vec::new(),
            debug_skew: false,
        }
    }

    pub fn check(&self, ctx: &Context) -> Result<()> {
        if self.threads == 0 || !self.threads.is_multiple_of(WORKGROUP) {
            return invalid(format!("--threads {}: a positive multiple of {WORKGROUP}", self.threads));
        }
        if self.loads == 0 || !self.loads.is_multiple_of(128) || self.loads > 1 << 14 {
            return invalid(format!("--loads {}: a multiple of 128 (the widest subgroup) up to 16384", self.loads));
        }
        if self.trials == 0 || self.chase_hops == 0 || self.sweep_loads == 0 {
            return invalid("trials, chase hops and sweep loads must be at least 1");
        }
        ctx.check_subgroup_size(self.subgroup_size)?;
        if let Some(s) = self.subgroup_size {
            let most = s * ctx.info().subgroup.max_workgroup_subgroups;
            if WORKGROUP > most {
                return Err(Error::Unsupported {
                    device: ctx.info().name.clone(),
                    what: format!("workgroups of {WORKGROUP} at subgroup size {s} (at most {most})"),
                });
            }
        }
        Ok(())
    }

    fn hidden(&self, what: &str) -> bool {
        self.hide.iter().any(|h| h.eq_ignore_ascii_case(what))
    }
}

/// One row of the results.
#[derive(Clone, Debug, Serialize)]
pub struct LoadRow {
    pub case: String,
    pub resource: String,
    pub group: String,
    /// "ok", "skipped" or "FAILED".
    pub status: String,
    pub reason: Option<String>,
    pub threads: u64,
    pub loads_per_thread: u64,
    pub bytes_per_load: u64,
    pub stats: Option<Stats>,
    pub median_ms: Option<f64>,
    /// Baseline time / this time (higher is faster), for the load matrix.
    pub ratio: Option<f64>,
    pub loads_per_s: Option<f64>,
    pub bytes_per_s: Option<f64>,
    /// Fastest trial of twice the loads / fastest trial (the doubling check; the chase's
    /// 2H / H, by medians).
    pub doubling_ratio: Option<f64>,
    /// The chase: ns per dependent load.
    pub latency_ns: Option<f64>,
    /// The chase: subgroup-clock cycles per dependent load, independent of the clock rate
    /// (None without VK_KHR_shader_clock).
    pub latency_cycles: Option<f64>,
    pub verified: Option<bool>,
    pub flags: Vec<String>,
}

impl LoadRow {
    pub(crate) fn new(case: &Case) -> LoadRow {
        LoadRow {
            case: case.name.clone(),
            resource: case.resource(),
            group: case.group().into(),
            status: "ok".into(),
            reason: None,
            threads: 0,
            loads_per_thread: 0,
            bytes_per_load: 0,
            stats: None,
            median_ms: None,
            ratio: None,
            loads_per_s: None,
            bytes_per_s: None,
            doubling_ratio: None,
            latency_ns: None,
            latency_cycles: None,
            verified: None,
            flags: Vec::new(),
        }
    }
    fn skipped(case: &Case, reason: String) -> LoadRow {
        LoadRow { status: "skipped".into(), reason: Some(reason), ..LoadRow::new(case) }
    }
    pub fn failed(&self) -> bool {
        self.status == "FAILED"
    }
    /// Record a verification outcome.
    pub(crate) fn verdict(&mut self, mismatch: Option<String>) {
        self.verified = Some(mismatch.is_none());
        match mismatch {
            None => self.flags.push("verified".into()),
            Some(m) => {
                self.status = "FAILED".into();
                self.flags.push(format!("FAILED: {m}"));
            }
        }
    }
}

/// The results file (`--json`), schema "vkprims.loads/1".
#[derive(Clone, Debug, Serialize)]
pub struct LabResults {
    pub schema: String,
    pub vkprims_version: String,
    pub git_commit: String,
    pub command: Vec<String>,
    pub device: DeviceInfo,
    /// gl_SubgroupSize the kernels ran at (pinned, or the device default).
    pub subgroup_size: u32,
    pub options: LabOptions,
    pub baseline: String,
    pub baseline_ms: Option<f64>,
    pub rows: Vec<LoadRow>,
}

impl LabResults {
    pub fn any_failed(&self) -> bool {
        self.rows.iter().any(LoadRow::failed)
    }
}

/// Cases whose name matches `filter` (a regular expression), in catalogue order.
pub fn select(filter: Option<&str>) -> Result<Vec<Case>> {
    let all = super::cases::catalogue();
    let Some(f) = filter else { return Ok(all) };
    let re = regex::Regex::new(f).map_err(|e| Error::Invalid(format!("bad --filter '{f}': {}", e.to_string().lines().last().unwrap_or(""))))?;
    let picked: Vec<Case> = all.into_iter().filter(|c| re.is_match(&c.name)).collect();
    if picked.is_empty() {
        return invalid(format!("--filter '{f}' matches no case (vkprims loads --list shows them)"));
    }
    Ok(picked)
}

/// The description of the case named exactly `name`.
pub fn describe(name: &str) -> Result<String> {
    super::cases::catalogue()
        .into_iter()
        .find(|c| c.name == name)
        .map(|c| c.describe())
        .ok_or_else(|| Error::Invalid(format!("no case named '{name}' (vkprims loads --list shows them)")))
}

/// Why `case` cannot run on this device, if it cannot.
pub fn skip_reason(ctx: &Context, opts: &LabOptions, case: &Case) -> Option<String> {
    let lacks = |feature: &str, present: bool| -> Option<String> {
        if opts.hidden(feature) {
            Some(format!("{feature} (hidden by --hide)"))
        } else if !present {
            Some(format!("the device lacks {feature}"))
        } else {
            None
        }
    };
    let format_lacks = |f: super::formats::Format, what: &str, present: bool| -> Option<String> {
        if opts.hidden(f.vk_name()) {
            Some(format!("{} {what} (hidden by --hide)", f.vk_name()))
        } else if !present {
            Some(format!("the device has no {what} support for {}", f.vk_name()))
        } else {
            None
        }
    };
    let caps = ctx.capabilities();
    let sg = &ctx.info().subgroup;
    match &case.kind {
        Kind::Load { source, broadcast, .. } => {
            if *broadcast {
                let shuffle = sg.supported_operations.iter().any(|o| o == "shuffle") && sg.supported_stages.iter().any(|s| s == "compute");
                if let Some(r) = lacks("shuffle", shuffle) {
                    return Some(format!("{r}: subgroup shuffles in compute shaders"));
                }
            }
            let props = source.format().map(|f| ctx.format_properties(f.vk()));
            use ash::vk::FormatFeatureFlags as F;
            let buf = props.map_or(F::empty(), |p| p.buffer_features);
            let opt = props.map_or(F::empty(), |p| p.optimal_tiling_features);
            let extended = |f: super::formats::Format| {
                if f.extended_storage() { lacks("storageImageExtendedFormats", caps.storage_image_extended_formats) } else { None }
            };
            match *source {
                Source::TypedBuffer(f) => format_lacks(f, "uniform texel buffer", buf.contains(F::UNIFORM_TEXEL_BUFFER)),
                Source::StorageTexelBuffer(f) => {
                    format_lacks(f, "storage texel buffer", buf.contains(F::STORAGE_TEXEL_BUFFER)).or_else(|| extended(f))
                }
                Source::TextureLoad(f) | Source::TextureSample { format: f, bilinear: false } => {
                    format_lacks(f, "sampled image", opt.contains(F::SAMPLED_IMAGE))
                }
                Source::TextureSample { format: f, bilinear: true } => format_lacks(
                    f,
                    "linear filtering",
                    opt.contains(F::SAMPLED_IMAGE | F::SAMPLED_IMAGE_FILTER_LINEAR),
                ),
                Source::StorageImage(f) => format_lacks(f, "storage image", opt.contains(F::STORAGE_IMAGE)).or_else(|| extended(f)),
                Source::DeviceAddress { .. } => lacks("bufferDeviceAddress", caps.buffer_device_address),
                Source::PushConstants => {
                    let need = 16 + 16 * super::cases::PUSH_VEC4;
                    lacks("pushConstants", ctx.limits().max_push_constants_size >= need)
                        .map(|r| format!("{r} ({need} bytes of push constants)"))
                }
                Source::Raw { .. } | Source::Structured { .. } | Source::Cbuffer => None,
            }
        }
        Kind::Sweep { bytes } | Kind::Chase { bytes } => sweep::size_skip(ctx, *bytes),
    }
}

/// What one run of the lab shares: resources, the output and its readback, the timing arena.
pub(crate) struct Lab<'a> {
    pub ctx: &'a Arc<Context>,
    pub opts: &'a LabOptions,
    pub resources: Resources,
    pub out: Buffer,
    readback: Buffer,
    arena: Arena,
    pub bench: BenchOptions,
    pub working: Working,
}

pub(crate) const NEVER: u32 = u32::MAX;

/// The push constants: the header every kernel declares, then the case's own bytes.
pub(crate) fn push(mask: u32, write_index: u32, offset: u32, count: u32, extra: &[u8]) -> Vec<u8> {
    let mut p: Vec<u8> = bytemuck::cast_slice(&[mask, write_index, offset, count]).to_vec();
    p.extend_from_slice(extra);
    p
}

impl<'a> Lab<'a> {
    fn new(ctx: &'a Arc<Context>, opts: &'a LabOptions) -> Result<Lab<'a>> {
        let bench = BenchOptions {
            mode: Mode::PerTrial,
            batch_size: 1,
            stop: Stop::Trials(opts.trials),
            warmup: opts.warmup,
            warmup_ms: opts.warmup_ms,
            cold: false,
            cold_bytes: 0,
            reset: true,
            subgroup_size: opts.subgroup_size,
            profile: false,
        };
        let bytes = opts.threads as u64 * 4;
        Ok(Lab {
            ctx,
            opts,
            resources: Resources::new(ctx),
            out: Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "loads output")?,
            readback: Buffer::new(ctx, bytes, MemoryLocation::GpuToCpu, "loads readback")?,
            arena: Arena::new(ctx, 1, &bench)?,
            bench,
            working: Working::default(),
        })
    }

    pub fn groups(&self, threads: u32) -> Result<[u32; 3]> {
        grid_for(threads / WORKGROUP, self.ctx.limits().max_compute_work_group_count)
    }

    /// Time `p` dispatched over `groups` with `push`, under the lab's trials; after the
    /// first case only the short per-case warm-up runs.
    pub fn time(&mut self, what: &str, p: &Pipeline, binds: &[Bind], push: &[u8], groups: [u32; 3]) -> Result<Measured> {
        let out = self.out.slice();
        let m = measure(
            self.ctx,
            &self.arena,
            what,
            &self.bench,
            &mut |rec: &mut Recorder| {
                rec.barrier(&[out], Access::ComputeWrite, Access::ComputeReadWrite, "every dispatch may store to the output (timed ones never do, but nothing can tell; the chase's cursor is read and written by every dispatch)");
                Ok(())
            },
            &mut |rec: &mut Recorder| rec.dispatch_with(p, binds, push, groups),
        )?;
        self.bench.warmup_ms = self.opts.case_warmup_ms;
        Ok(m)
    }

    /// Run `p` once with the store taken (write index 0) into a poisoned output, and return
    /// the first `words` words it stored.
    pub fn stored(&mut self, what: &str, p: &Pipeline, binds: &[Bind], push: &[u8], groups: [u32; 3], words: u64) -> Result<Vec<u32>> {
        let bytes = words * 4;
        let (out, back) = (self.out.head(bytes), self.readback.head(bytes));
        let mut rec = Recorder::new(self.ctx, format!("verify {what}"))?;
        rec.fill(out, 0x7fc0_0000); // NaN: an invocation that stores nothing fails
        rec.barrier(&[out], Access::TransferWrite, Access::ComputeWrite, "the dispatch stores over the poison");
        rec.dispatch_with(p, binds, push, groups)?;
        rec.barrier(&[out], Access::ComputeWrite, Access::TransferRead, "the readback copies what the dispatch stored");
        rec.copy(out, back);
        rec.barrier(&[back], Access::TransferWrite, Access::HostRead, "the host reads the stored sums");
        rec.submit_and_wait()?;
        drop(rec);
        Ok(bytemuck::cast_slice(&self.readback.read(bytes as usize)?).to_vec())
    }

    /// Dispatch `p` once per push constant, in order, and return the 64-bit count each
    /// dispatch stored in words 2 and 3 (the chase's clock variant: its loop's cycles).
    pub fn cycles(&mut self, what: &str, p: &Pipeline, binds: &[Bind], pushes: &[Vec<u8>]) -> Result<Vec<u64>> {
        let out = self.out.head(16);
        let bytes = pushes.len() as u64 * 8;
        let back = self.readback.head(bytes);
        let mut rec = Recorder::new(self.ctx, format!("cycles {what}"))?;
        for (i, push) in pushes.iter().enumerate() {
            rec.barrier(&[out], Access::ComputeWrite, Access::ComputeReadWrite, "the chase reads the cursor the last dispatch stored");
            rec.dispatch_with(p, binds, push, [1, 1, 1])?;
            rec.barrier(&[out], Access::ComputeWrite, Access::TransferRead, "the copy reads the cycles the dispatch stored");
            rec.copy(out.sub(8, 8), back.sub(i as u64 * 8, 8));
            rec.barrier(&[out], Access::TransferRead, Access::ComputeWrite, "the next dispatch stores over the copied cycles");
        }
        rec.barrier(&[back], Access::TransferWrite, Access::HostRead, "the host reads the cycles");
        rec.submit_and_wait()?;
        drop(rec);
        Ok(self.readback.read(bytes as usize)?.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().unwrap())).collect())
    }

    pub fn pipeline(&self, shader: &'static str, spec: Vec<u32>, descriptors: &[Descriptor], push_bytes: usize) -> Result<Arc<Pipeline>> {
        let mut all = vec![Descriptor::StorageBuffer];
        all.extend_from_slice(descriptors);
        let key = PipelineKey {
            shader,
            spec,
            subgroup_size: self.opts.subgroup_size,
            bindings: all.len() as u32,
            push_bytes: push_bytes as u32,
        };
        self.ctx.pipeline_with(key, &all)
    }

    /// The address mask the GPU gets: the model's, or a wrong one under the test hook.
    pub fn gpu_mask(&self, mask: u32) -> u32 {
        if self.opts.debug_skew { mask ^ 1 } else { mask }
    }

    fn load_case(&mut self, case: &Case, source: Source, pattern: super::cases::Pattern, broadcast: bool) -> Result<LoadRow> {
        let mut row = LoadRow::new(case);
        let b: Arc<Binding> = self.resources.bind(source)?;
        let shader = shader_of(source);
        let corner = matches!(source, Source::TextureSample { bilinear: true, .. }) as u32;
        let spec = |loads: u32| vec![WORKGROUP, loads, pattern as u32, broadcast as u32, source.width(), corner];
        let push_bytes = 16 + b.push_extra.len();
        let mask = model::mask(source);
        let timed = push(self.gpu_mask(mask), NEVER, model::offset(source), 0, &b.push_extra);
        let groups = self.groups(self.opts.threads)?;
        let loads = self.opts.loads;
        let binds: Vec<Bind> = std::iter::once(Bind::Buffer(self.out.slice())).chain(b.binds.iter().copied()).collect();

        let p = self.pipeline(shader, spec(loads), &b.descriptors, push_bytes)?;
        let m = self.time(&case.name, &p, &binds, &timed, groups)?;
        let secs = m.stats.median_ns * 1e-9;
        let total_loads = self.opts.threads as f64 * loads as f64;
        row.threads = self.opts.threads as u64;
        row.loads_per_thread = loads as u64;
        row.bytes_per_load = source.bytes_per_load() as u64;
        row.median_ms = Some(m.stats.median_ns * 1e-6);
        row.loads_per_s = Some(total_loads / secs);
        row.bytes_per_s = Some(total_loads * source.bytes_per_load() as f64 / secs);
        row.stats = Some(m.stats.clone());
        if self.opts.doubling {
            let p2 = self.pipeline(shader, spec(2 * loads), &b.descriptors, push_bytes)?;
            let m2 = self.time(&format!("{} (2x loads)", case.name), &p2, &binds, &timed, groups)?;
            // The fastest trials: interference (a CPU device sharing its cores with the host)
            // only ever adds time, and this is a sanity check, not the reported speed.
            let r = m2.stats.min_ns / m.stats.min_ns;
            row.doubling_ratio = Some(r);
            let (lo, hi) = self.opts.doubling_bounds;
            if r < lo {
                row.flags.push(format!("2x loads took {r:.2}x time: loads optimised away?"));
            } else if r > hi {
                row.flags.push(format!("2x loads took {r:.2}x time: superlinear"));
            }
        }
        if self.opts.verify {
            let store = push(self.gpu_mask(mask), 0, model::offset(source), 0, &b.push_extra);
            let got = self.stored(&case.name, &p, &binds, &store, groups, self.opts.threads as u64)?;
            let want = model::expected(source, pattern, loads);
            let tol = model::tolerance(source, loads);
            let mismatch = compare(&got, |gid| want[(gid % WORKGROUP) as usize], tol);
            row.verdict(mismatch);
        }
        Ok(row)
    }

    fn run_case(&mut self, case: &Case) -> Result<LoadRow> {
        if let Some(r) = skip_reason(self.ctx, self.opts, case) {
            return Ok(LoadRow::skipped(case, r));
        }
        let res = match case.kind {
            Kind::Load { source, pattern, broadcast } => self.load_case(case, source, pattern, broadcast),
            Kind::Sweep { bytes } => sweep::sweep_case(self, case, bytes),
            Kind::Chase { bytes } => sweep::chase_case(self, case, bytes),
        };
        match res {
            // A limit found only when the pipeline or resource is made is a skip too.
            Err(Error::Unsupported { what, .. }) => Ok(LoadRow::skipped(case, format!("the device lacks {what}"))),
            r => r,
        }
    }
}

/// The first mismatch between stored f32 words and the model (None: all match), with the
/// count of mismatching invocations.
pub(crate) fn compare(got: &[u32], want: impl Fn(u32) -> f64, tol: f64) -> Option<String> {
    let bad: Vec<usize> = got
        .iter()
        .enumerate()
        .filter(|(gid, &w)| {
            let (g, e) = (f32::from_bits(w) as f64, want(*gid as u32));
            // NaN fails the check too.
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            let bad = !((g - e).abs() <= tol);
            bad
        })
        .map(|(gid, _)| gid)
        .collect();
    bad.first().map(|&gid| {
        format!(
            "{} of {} invocations wrong; invocation {gid} stored {} where the model has {}",
            bad.len(),
            got.len(),
            f32::from_bits(got[gid]),
            want(gid as u32)
        )
    })
}

/// The build.rs variant that reads `source`.
fn shader_of(source: Source) -> &'static str {
    let by_format = |names: [&'static str; 9], f: super::formats::Format| names[f as usize];
    match source {
        Source::TypedBuffer(_) => "loads_typed",
        Source::StorageTexelBuffer(f) => by_format(
            [
                "loads_typed_storage_r8",
                "loads_typed_storage_rg8",
                "loads_typed_storage_rgba8",
                "loads_typed_storage_r16f",
                "loads_typed_storage_rg16f",
                "loads_typed_storage_rgba16f",
                "loads_typed_storage_r32f",
                "loads_typed_storage_rg32f",
                "loads_typed_storage_rgba32f",
            ],
            f,
        ),
        Source::StorageImage(f) => by_format(
            [
                "loads_texture_storage_r8",
                "loads_texture_storage_rg8",
                "loads_texture_storage_rgba8",
                "loads_texture_storage_r16f",
                "loads_texture_storage_rg16f",
                "loads_texture_storage_rgba16f",
                "loads_texture_storage_r32f",
                "loads_texture_storage_rg32f",
                "loads_texture_storage_rgba32f",
            ],
            f,
        ),
        Source::Raw { .. } => "loads_raw",
        Source::Structured { floats: 1 } => "loads_structured_1",
        Source::Structured { floats: 2 } => "loads_structured_2",
        Source::Structured { .. } => "loads_structured_4",
        Source::Cbuffer => "loads_cbuffer",
        Source::PushConstants => "loads_push",
        Source::DeviceAddress { align: 4 } => "loads_bda_align4",
        Source::DeviceAddress { .. } => "loads_bda_align16",
        Source::TextureLoad(_) => "loads_texture_fetch",
        Source::TextureSample { .. } => "loads_texture_sample",
    }
}

/// Run `cases` and return every row (skips and failures included). The baseline case runs
/// first (it carries the clock warm-up), whether or not it was selected, for the ratios.
pub fn run_lab(
    ctx: &Arc<Context>,
    cases: &[Case],
    opts: &LabOptions,
    command: &[String],
    mut progress: impl FnMut(&LoadRow),
) -> Result<LabResults> {
    opts.check(ctx)?;
    let mut lab = Lab::new(ctx, opts)?;
    let baseline_case = super::cases::catalogue().into_iter().find(|c| c.name == BASELINE).unwrap();
    let base = lab.run_case(&baseline_case)?;
    let baseline_ms = base.median_ms.filter(|_| !base.failed());
    let mut rows = Vec::new();
    for case in cases {
        let mut row = if case.name == BASELINE { base.clone() } else { lab.run_case(case)? };
        if matches!(case.kind, Kind::Load { .. }) {
            row.ratio = match (baseline_ms, row.median_ms) {
                (Some(b), Some(m)) if m > 0.0 => Some(b / m),
                _ => None,
            };
        }
        progress(&row);
        rows.push(row);
    }
    Ok(LabResults {
        schema: "vkprims.loads/1".into(),
        vkprims_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: env!("VKPRIMS_GIT_COMMIT").into(),
        command: command.to_vec(),
        device: ctx.info().clone(),
        subgroup_size: opts.subgroup_size.unwrap_or(ctx.info().subgroup.default_size),
        options: opts.clone(),
        baseline: BASELINE.into(),
        baseline_ms,
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn every_source_has_its_build_variant() {
        // build.rs lists the storage formats again; this keeps the two lists in step.
        for c in super::super::cases::catalogue() {
            if let Kind::Load { source, .. } = c.kind {
                let name = shader_of(source);
                assert!(crate::gpu::shaders::spirv(name).is_some(), "{}: no variant {name}", c.name);
                if let Some(f) = source.format().filter(|_| matches!(source, Source::StorageImage(_) | Source::StorageTexelBuffer(_))) {
                    assert!(name.ends_with(&format!("_{}", f.glsl())), "{name} for {f:?}");
                }
            }
        }
    }
}
