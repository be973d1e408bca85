//! What the harness measures: the copy references and the scan/reduce rows, each with its
//! between-trial resets and its validation trial.

use std::sync::Arc;

use super::{measure, Arena, BenchOptions, Measured, Row};
use crate::error::Result;
use crate::gpu::{Access, BufferSlice, Context, PipelineKey, Recorder};
use crate::prims::scan::{self, ScanDesc, ScanKind, ScanPlan, ScanPolicy};
use crate::prims::binning::{self, BinningPolicy, Ranking, LOOKBACK_COUNTS, PHASES};
use crate::prims::multisplit::{self, BucketSource, MultisplitDesc, MultisplitPlan, MultisplitScratch};
use crate::prims::perm::{self, PermDesc, PermPlan, PermScratch};
use crate::prims::sort::{self, KeyType, SortDesc, SortPlan, SortScratch};
use crate::testdata::{generate, sort_keys, KeyPattern, Pattern};

const COPY_WORD: u32 = 0x0123_4567;

fn row(primitive: String, n: u64, opts: &BenchOptions, m: Measured, bytes_per_elem: f64, validation: String) -> Row {
    let secs = m.stats.median_ns * 1e-9;
    Row {
        primitive,
        n,
        policy: None,
        subgroup_size: opts.subgroup_size,
        mode: opts.mode,
        elems_per_s: n as f64 / secs,
        bytes_per_elem,
        gbps: bytes_per_elem * n as f64 / m.stats.median_ns,
        copy_gbps: None,
        fraction_of_copy: None,
        stats: m.stats,
        stop_reason: m.stop_reason,
        validation,
        reset: opts.reset,
        lookback_rounds_per_tile: None,
        fallbacks: None,
        invocations: None,
        submit_to_start_ns: m.submit_to_start_ns,
        pipeline_stats: Vec::new(),
        kernels: Vec::new(),
        phases: Vec::new(),
        lookback: Vec::new(),
        timeline: Vec::new(),
    }
}

/// Reset the carried state once now (the arena's buffers hold the previous row's, even with
/// --no-reset), and return what precedes every trial: the previous trial finished, the resets
/// (unless --no-reset), and the resets made visible to the next dispatch.
fn trial_resets<'a>(
    ctx: &Arc<Context>,
    written: Vec<BufferSlice>,
    reset: impl Fn(&mut Recorder) + 'a,
    opts: &'a BenchOptions,
) -> Result<impl FnMut(&mut Recorder) -> Result<()> + 'a> {
    let mut rec = Recorder::new(ctx, "initial reset")?;
    reset(&mut rec);
    rec.submit_and_wait()?;
    drop(rec);
    Ok(move |rec: &mut Recorder| -> Result<()> {
        rec.barrier(&written, Access::ComputeReadWrite, Access::TransferWrite, "the previous trial is done before resets");
        if opts.reset {
            reset(rec);
        }
        rec.barrier(&written, Access::TransferWrite, Access::ComputeReadWrite, "resets visible to the trial");
        Ok(())
    })
}

/// The validation trial after the timed ones: what precedes every trial, every output it
/// checks poisoned (so a kernel that leaves one unwritten cannot pass on an earlier row's or
/// trial's results; `poison` must be written by the trial), the trial inside an invocation
/// count, and its results made readable.
/// `access` is how the trial touches its outputs. Returns the (expected, counted) invocations.
fn validation_trial(
    ctx: &Arc<Context>,
    what: &str,
    between: &mut dyn FnMut(&mut Recorder) -> Result<()>,
    body: &mut dyn FnMut(&mut Recorder) -> Result<()>,
    poison: &[BufferSlice],
    results: &[BufferSlice],
    access: Access,
    profile: bool,
) -> Result<Checked> {
    let mut rec = Recorder::new(ctx, format!("{what} validation"))?;
    between(&mut rec)?;
    rec.poison(poison);
    rec.begin_invocation_count()?;
    if profile {
        rec.begin_profile(64)?;
    }
    body(&mut rec)?;
    rec.end_profile();
    rec.end_invocation_count();
    rec.barrier(results, access, Access::TransferRead, "results read back");
    rec.submit_and_wait()?;
    let kernels = rec.profile()?.into_iter().map(|(k, ns)| (k, ns * 1e-6)).collect();
    Ok(Checked { invocations: rec.invocations()?, kernels })
}

/// What the validation trial observed besides the output.
struct Checked {
    invocations: Option<(u64, u64)>,
    /// (kernel, ms) per dispatch, with `--profile`.
    kernels: Vec<(String, f64)>,
}

/// Check that every word of `got` is `want`.
fn check_fill(got: &[u32], want: u32) -> String {
    match got.iter().position(|&w| w != want) {
        None => "ok".into(),
        Some(i) => format!("FAILED: element {i}: got {:#x}, want {want:#x}", got[i]),
    }
}

/// The two copy references at `n` u32 (4n bytes read + 4n written): vkCmdCopyBuffer and
/// the copy shader, from the arena's input to its output (the buffers the primitives use).
pub fn bench_copy(ctx: &Arc<Context>, arena: &mut Arena, n: u64, opts: &BenchOptions) -> Result<Vec<Row>> {
    crate::prims::check_len(ctx, "copy", n, 4)?;
    arena.forget_input(); // the source fill overwrites the input
    let bytes = n.max(1) * 4;
    let (s, d) = (arena.input(bytes), arena.output(bytes));
    let mut rec = Recorder::new(ctx, "copy source fill")?;
    rec.fill(s, COPY_WORD);
    rec.submit_and_wait()?;
    drop(rec);

    let policy = ScanPolicy::default();
    let shader = ctx.pipeline(PipelineKey {
        shader: "copy",
        spec: vec![policy.workgroup_size, policy.vec_per_lane],
        subgroup_size: opts.subgroup_size,
        bindings: 2,
        push_bytes: 8,
    })?;
    let tiles = n.div_ceil(policy.tile_elems()) as u32;
    let push: [u32; 2] = [n as u32, tiles];

    let mut rows = Vec::new();
    for (name, read, write) in [
        ("copy (vkCmdCopyBuffer)", Access::TransferRead, Access::TransferWrite),
        ("copy (shader)", Access::ComputeRead, Access::ComputeWrite),
    ] {
        let shader = shader.clone();
        let mut body = |rec: &mut Recorder| -> Result<()> {
            if write == Access::TransferWrite {
                rec.copy(s, d);
                Ok(())
            } else {
                rec.dispatch_count(&shader, &[s, d], bytemuck::bytes_of(&push), tiles)
            }
        };
        // Between trials: the source's fill before its reads, and trials writing the same
        // destination in order.
        let mut between = |rec: &mut Recorder| -> Result<()> {
            rec.barrier(&[s], Access::TransferWrite, read, "copy source filled before it is read");
            rec.barrier(&[d], write, Access::TransferWrite, "the previous copy is done before the next trial");
            rec.barrier(&[d], Access::TransferWrite, write, "the next copy writes after the previous one");
            Ok(())
        };
        let m = measure(ctx, arena, name, opts, &mut between, &mut body)?;
        let checked = validation_trial(ctx, name, &mut between, &mut body, &[d], &[d], write, opts.profile)?;
        let validation = check_fill(&arena.read(d, n * 4)?, COPY_WORD);
        let mut r = row(name.into(), n, opts, m, 8.0, validation);
        r.invocations = checked.invocations;
    r.kernels = checked.kernels;
        rows.push(r);
    }
    Ok(rows)
}

fn policy_label(desc: &ScanDesc) -> String {
    let p = desc.policy;
    match desc.kind {
        ScanKind::Reduce => format!("{}x{} groups {}", p.workgroup_size, p.vec_per_lane, p.reduce_groups),
        _ => format!("{}x{} spin {}", p.workgroup_size, p.vec_per_lane, p.spin_limit),
    }
}

/// One scan or reduce row: random input, trials with resets, a validated last trial.
pub fn bench_scan(ctx: &Arc<Context>, arena: &mut Arena, desc: &ScanDesc, opts: &BenchOptions) -> Result<Row> {
    let mut desc = desc.clone();
    desc.pin_subgroup_size(ctx, opts.subgroup_size);
    let plan = ScanPlan::new(ctx, desc.clone())?;
    let input = generate(Pattern::Random, desc.dtype, desc.n as usize, 42);
    let i = arena.load_input(&input)?;
    let (o, st): (BufferSlice, BufferSlice) = (arena.output(plan.output_bytes()), arena.state(plan.state_bytes())?);

    let mut between = trial_resets(ctx, vec![st, o], |rec| plan.record_reset(rec, st), opts)?;
    let mut body = |rec: &mut Recorder| plan.record_dispatch(rec, i, o, st);
    let m = measure(ctx, arena, &desc.label(), opts, &mut between, &mut body)?;

    // The same resets (or none, with --no-reset) before the validation trial.
    let checked = validation_trial(ctx, &desc.label(), &mut between, &mut body, &[o], &[o, st], Access::ComputeReadWrite, opts.profile)?;
    let got = arena.read(o, plan.output_bytes())?;
    let validation = match scan::check(&desc, &input, &got) {
        None => "ok".to_string(),
        Some(e) => format!("FAILED: {e}"),
    };
    let (lookback, fallbacks) = if desc.kind == ScanKind::Reduce || desc.n == 0 {
        (None, None)
    } else {
        let c = arena.read(st, 16)?;
        (Some(c[2] as f64 / plan.tiles() as f64), Some(c[1] as u64))
    };
    let primitive = format!("{} {} {}", desc.kind.name(), desc.op.name(), desc.dtype);
    let mut r = row(primitive, desc.n, opts, m, desc.bytes_per_elem(), validation);
    r.policy = Some(policy_label(&desc));
    r.lookback_rounds_per_tile = lookback;
    r.fallbacks = fallbacks;
    r.invocations = checked.invocations;
    r.kernels = checked.kernels;
    r.pipeline_stats = ctx.pipeline_stats(plan.pipeline())?;
    Ok(r)
}

/// One sort row: random keys (values = input index), trials with resets of the histograms and
/// look-back outside the timestamps, a validated last trial. The sort is out of place, so the
/// input needs no restoring between trials.
pub fn bench_sort(ctx: &Arc<Context>, arena: &mut Arena, desc: &SortDesc, opts: &BenchOptions) -> Result<Row> {
    let mut desc = desc.clone();
    desc.subgroup_size = opts.subgroup_size;
    let plan = SortPlan::new(ctx, desc.clone())?;
    let n = desc.n as usize;
    let keys = sort_keys(KeyPattern::Random, desc.key, n, 42);
    let values: Option<Vec<u32>> = match desc.value_bytes {
        0 => None,
        4 => Some((0..n as u32).collect()),
        _ => Some((0..n as u32).flat_map(|i| [i, !i]).collect()),
    };
    let (kb, vb) = (plan.keys_bytes(), plan.values_bytes());
    let kin = arena.upload_slot("sort keys in", &keys)?;
    let vin = match &values {
        Some(v) => Some(arena.upload_slot("sort values in", v)?),
        None => None,
    };
    let kout = arena.slot("sort keys out", kb)?;
    let vout = arena.slot("sort values out", vb)?;
    let (ka, va, hb, sb) = plan.scratch_bytes();
    let scratch = SortScratch {
        keys_alt: arena.slot("sort keys alt", ka)?,
        values_alt: arena.slot("sort values alt", va)?,
        hist: arena.slot("sort histograms", hb)?,
        state: arena.slot("sort look-back", sb)?,
    };
    let vals = vin.map(|vi| (vi, vout));
    let written = vec![kout, vout, scratch.keys_alt, scratch.values_alt, scratch.hist, scratch.state];
    let mut between = trial_resets(ctx, written, |rec| plan.record_reset(rec, &scratch), opts)?;
    let mut body = |rec: &mut Recorder| plan.record_sort(rec, kin, kout, vals, &scratch);
    let m = measure(ctx, arena, &desc.label(), opts, &mut between, &mut body)?;

    let poison = if values.is_some() { vec![kout, vout] } else { vec![kout] };
    let checked = validation_trial(ctx, &desc.label(), &mut between, &mut body, &poison, &[kout, vout], Access::ComputeReadWrite, opts.profile)?;
    let got_k = arena.read(kout, kb)?;
    let got_v = if values.is_some() { Some(arena.read(vout, vb)?) } else { None };
    let validation = match sort::check(&desc, &keys, values.as_deref(), &got_k, got_v.as_deref()) {
        None => "ok".to_string(),
        Some(e) => format!("FAILED: {e}"),
    };
    // Bytes a sort must move per key: the histogram reads the keys once, each digit pass
    // reads and writes keys and values.
    let per_pass = 2.0 * (desc.key.bytes() as f64 + desc.value_bytes as f64);
    let bytes = desc.key.bytes() as f64 + desc.passes() as f64 * per_pass;
    let mut primitive = format!("sort {}", desc.key.name());
    if desc.value_bytes > 0 {
        primitive.push_str(&format!(" pairs {}B", desc.value_bytes));
    }
    if desc.descending {
        primitive.push_str(" descending");
    }
    if desc.ranking == Ranking::Atomic {
        primitive.push_str(" unstable");
    }
    let mut r = row(primitive, desc.n, opts, m, bytes, validation);
    r.policy = Some(plan.policy_label());
    r.invocations = checked.invocations;
    r.kernels = checked.kernels;
    if desc.policy.phase_clocks && desc.n > 0 {
        // The validation trial's phase clocks, pass by pass (its state was reset before it).
        let mut sum = vec![0.0; PHASES.len()];
        let mut lookback = vec![0.0f64; LOOKBACK_COUNTS.len()];
        let passes = desc.passes();
        for p in 0..passes {
            let region = scratch.state.sub(p as u64 * plan.pass_state_bytes(), plan.pass_state_bytes());
            let words = arena.read(region, plan.pass_state_bytes())?;
            for (s, c) in sum.iter_mut().zip(binning::phase_cycles(&words, plan.tiles())) {
                *s += c / passes as f64;
            }
            let counts = binning::lookback_counts(&words, plan.tiles());
            let last = counts.len() - 1;
            for (k, (s, c)) in lookback.iter_mut().zip(counts).enumerate() {
                *s = if k == last { (*s).max(c) } else { *s + c / passes as f64 };
            }
        }
        r.phases = PHASES.iter().map(|p| p.to_string()).zip(sum).collect();
        r.lookback = LOOKBACK_COUNTS.iter().map(|p| p.to_string()).zip(lookback).collect();
    }
    if desc.policy.timeline && desc.n > 0 {
        // A middle pass (the third of four), whose predecessors have run their course.
        let passes = desc.passes();
        let p = (passes / 2).min(passes - 1) as u64;
        let region = scratch.state.sub(p * plan.pass_state_bytes(), plan.pass_state_bytes());
        let words = arena.read(region, plan.pass_state_bytes())?;
        r.timeline = binning::tile_timeline(&words, plan.tiles()).to_vec();
    }
    Ok(r)
}

/// A multisplit row's axes.
pub struct SplitCase {
    pub key: KeyType,
    pub n: u64,
    pub buckets: u32,
    pub value_bytes: u32,
    pub ranking: Ranking,
    pub policy: BinningPolicy,
}

/// One multisplit row: random keys split by their low bits (B a power of two: the bucket is
/// bits 0..log2 B, CUB's one-pass radix split; above 256, a composed split) or by random
/// bucket ids otherwise; values = input index; resets outside the timestamps; a validated
/// last trial.
pub fn bench_multisplit(ctx: &Arc<Context>, arena: &mut Arena, case: &SplitCase, opts: &BenchOptions) -> Result<Row> {
    let SplitCase { key, n, buckets, value_bytes, ranking, policy } = *case;
    let source =
        if buckets.is_power_of_two() { BucketSource::Bits { lo: 0, hi: buckets.trailing_zeros() } } else { BucketSource::Ids { buckets } };
    // (More than 256 buckets compose: by bit field for powers of two, else by ids.)
    let mut desc = MultisplitDesc::new(key, n, source);
    desc.value_bytes = value_bytes;
    desc.subgroup_size = opts.subgroup_size;
    desc.ranking = ranking;
    desc.policy = policy;
    let plan = MultisplitPlan::new(ctx, desc.clone())?;
    let keys = sort_keys(KeyPattern::Random, key, n as usize, 42);
    let values: Option<Vec<u32>> = match value_bytes {
        0 => None,
        4 => Some((0..n as u32).collect()),
        _ => Some((0..n as u32).flat_map(|i| [i, !i]).collect()),
    };
    let aux: Option<Vec<u32>> = match source {
        BucketSource::Ids { buckets } => Some((0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) % buckets).collect()),
        _ => None,
    };
    let (kb, vb) = (plan.keys_bytes(), plan.values_bytes());
    let kin = arena.upload_slot("multisplit keys in", &keys)?;
    let vin = match &values {
        Some(v) => Some(arena.upload_slot("multisplit values in", v)?),
        None => None,
    };
    let ain = match &aux {
        Some(a) => Some(arena.upload_slot("multisplit ids", a)?),
        None => None,
    };
    let kout = arena.slot("multisplit keys out", kb)?;
    let vout = arena.slot("multisplit values out", vb)?;
    let offs = arena.slot("multisplit offsets", plan.offsets_bytes())?;
    let scratch = MultisplitScratch {
        hist: arena.slot("multisplit histogram", plan.hist_bytes())?,
        state: arena.slot("multisplit look-back", plan.state_bytes())?,
        dummy: arena.slot("multisplit unused", 4)?,
        sort: match plan.sort_scratch_bytes() {
            // More than 256 buckets: the composed split's radix-sort scratch.
            Some((ka, va, h, st)) => Some(SortScratch {
                keys_alt: arena.slot("multisplit sort keys alt", ka)?,
                values_alt: arena.slot("multisplit sort values alt", va)?,
                hist: arena.slot("multisplit sort histograms", h)?,
                state: arena.slot("multisplit sort look-back", st)?,
            }),
            None => None,
        },
        index: match plan.index_scratch_bytes() {
            Some(bytes) => Some(arena.slot("multisplit ids and indices", bytes)?),
            None => None,
        },
    };
    let vals = vin.map(|vi| (vi, vout));
    let mut written = vec![kout, vout, offs, scratch.hist, scratch.state];
    if let Some(ss) = &scratch.sort {
        written.extend([ss.keys_alt, ss.values_alt, ss.hist, ss.state]);
    }
    written.extend(scratch.index);
    let mut between = trial_resets(ctx, written, |rec| plan.record_reset(rec, &scratch), opts)?;
    let mut body = |rec: &mut Recorder| plan.record_split(rec, kin, kout, vals, ain, None, &scratch);
    let m = measure(ctx, arena, &desc.label(), opts, &mut between, &mut body)?;
    // The validation trial also writes the offsets.
    let mut vbody = |rec: &mut Recorder| plan.record_split(rec, kin, kout, vals, ain, Some(offs), &scratch);
    let poison = if values.is_some() { vec![kout, vout, offs] } else { vec![kout, offs] };
    let checked = validation_trial(ctx, &desc.label(), &mut between, &mut vbody, &poison, &[kout, vout, offs], Access::ComputeReadWrite, opts.profile)?;
    let got = (arena.read(kout, kb)?, if values.is_some() { Some(arena.read(vout, vb)?) } else { None }, arena.read(offs, plan.offsets_bytes())?);
    let validation = match multisplit::check(&desc, &keys, values.as_deref(), aux.as_deref(), (&got.0, got.1.as_deref(), &got.2)) {
        None => "ok".to_string(),
        Some(e) => format!("FAILED: {e}"),
    };
    // Bytes per element: the histogram reads the keys (and ids), the split reads and writes
    // keys and values (and reads the ids); a composed split is its sort's histogram read and
    // a read and write of keys and values a pass (its offsets' binary searches read about
    // B log2 n words, not counted).
    let (kb, vb) = (key.bytes() as f64, value_bytes as f64);
    let passes = (32 - (buckets - 1).leading_zeros()).div_ceil(8) as f64;
    let bytes = match (plan.sort_scratch_bytes(), plan.index_scratch_bytes()) {
        // One pass: the histogram reads keys (and ids), the split reads keys (and ids) and
        // values and writes both.
        (None, _) => 3.0 * kb + 2.0 * vb + if aux.is_some() { 8.0 } else { 0.0 },
        // By bit field: a radix sort of keys and values by those bits.
        (Some(_), None) => kb + passes * 2.0 * (kb + vb),
        // By ids, keys alone: the sort's histogram reads the ids, the sort moves (id, key)
        // pairs.
        (Some(_), Some(_)) if value_bytes == 0 => 4.0 + passes * 2.0 * (4.0 + kb),
        // By ids, 32-bit keys with 4-byte values: the sort's histogram reads the ids, the
        // sort moves (id, (key, value)) pairs (its first pass reads the keys and values, its
        // last writes them).
        (Some(_), Some(_)) if plan.sorts_packed_pairs() => 4.0 + passes * 2.0 * (4.0 + kb + vb),
        // By ids with values: indices written, the sort's histogram reads the ids, the sort
        // moves (id, index) pairs, the gather reads indices and moves keys and values.
        (Some(_), Some(_)) => 4.0 + 4.0 + passes * 16.0 + 4.0 + 2.0 * (kb + vb),
    };
    let mut primitive = format!("multisplit {}", key.name());
    if value_bytes > 0 {
        primitive.push_str(&format!(" pairs {value_bytes}B"));
    }
    primitive.push_str(&format!(" {buckets} buckets"));
    if ranking == Ranking::Atomic {
        primitive.push_str(" atomic");
    }
    let mut r = row(primitive, n, opts, m, bytes, validation);
    r.policy = Some(plan.policy_label());
    r.invocations = checked.invocations;
    r.kernels = checked.kernels;
    Ok(r)
}

/// Largest n whose reproducible permutation a benchmark compares with the full CPU model;
/// above it, and in the default mode, the output is checked to be a bijection (the model's
/// equality is covered by selftest).
const PERM_MODEL_CHECK_MAX: u64 = 1 << 22;

/// One permutation row: a shuffle of the array 0..n (4-byte elements) or of 8-byte elements
/// (i, !i), or with `value_bytes` 0 the permutation of indices (no input array).
pub fn bench_perm(
    ctx: &Arc<Context>,
    arena: &mut Arena,
    n: u64,
    value_bytes: u32,
    reproducible: bool,
    policy: BinningPolicy,
    opts: &BenchOptions,
) -> Result<Row> {
    let indices = value_bytes == 0;
    let mut desc = if indices { PermDesc::indices(n, 42) } else { PermDesc::new(n, value_bytes, 42) };
    let value_bytes = desc.value_bytes;
    desc.subgroup_size = opts.subgroup_size;
    desc.reproducible = reproducible;
    desc.policy = policy;
    let plan = PermPlan::new(ctx, desc.clone())?;
    let vw = value_bytes as usize / 4;
    let input: Vec<u32> = (0..n as u32).flat_map(|i| if vw == 1 { vec![i] } else { vec![i, !i] }).collect();
    let vb = plan.values_bytes();
    let (ib, sb, ka, va, h, st) = plan.scratch_bytes();
    let vin = if indices { None } else { Some(arena.upload_slot("perm in", &input)?) };
    let vout = arena.slot("perm out", vb)?;
    let scratch = PermScratch {
        ids: arena.slot("perm ids", ib)?,
        ids_sorted: arena.slot("perm ids sorted", sb)?,
        sort: SortScratch {
            keys_alt: arena.slot("perm sort keys alt", ka)?,
            values_alt: arena.slot("perm sort values alt", va)?,
            hist: arena.slot("perm sort histograms", h)?,
            state: arena.slot("perm sort look-back", st)?,
        },
    };
    let written = vec![vout, scratch.ids, scratch.ids_sorted, scratch.sort.keys_alt, scratch.sort.values_alt, scratch.sort.hist, scratch.sort.state];
    let mut between = trial_resets(ctx, written, |rec| plan.record_reset(rec, &scratch), opts)?;
    let mut body = |rec: &mut Recorder| plan.record_permute(rec, vin, vout, &scratch);
    let m = measure(ctx, arena, &desc.label(), opts, &mut between, &mut body)?;
    let checked = validation_trial(ctx, &desc.label(), &mut between, &mut body, &[vout], &[vout], Access::ComputeReadWrite, opts.profile)?;
    let got = arena.read(vout, vb)?;
    let validation = if reproducible && n <= PERM_MODEL_CHECK_MAX {
        let want = sort::gather(&input, vw, &perm::reference_order(&desc));
        match (0..want.len()).find(|&w| got.get(w) != Some(&want[w])) {
            None => "ok".to_string(),
            Some(w) => format!("FAILED: word {w}: got {:?}, want {}", got.get(w), want[w]),
        }
    } else {
        let mut seen = vec![false; n as usize];
        let bad = (0..n as usize).find(|&p| {
            let e = got[p * vw] as usize;
            e >= seen.len() || std::mem::replace(&mut seen[e], true) || (vw == 2 && got[2 * p + 1] != !got[2 * p])
        });
        match bad {
            None => "ok".to_string(),
            Some(p) => format!("FAILED: position {p} repeats, tears or invents an element (not a permutation)"),
        }
    };
    // Bytes per element: the group ids written (and counted as they are drawn), then the
    // sort (ids as keys, elements as values: a read and write of both per pass), then the
    // shuffle's read and write of the elements. Indices: the first pass reads no values,
    // the last writes no keys (one pass: reads the ids, writes the indices); with narrow
    // keys the first pass writes and the last reads a byte a key.
    let passes = plan_sort_passes(&desc) as f64;
    let bytes = if indices {
        let handed = if plan.narrow_keys() { 1.0 } else { 4.0 };
        4.0 + if passes == 1.0 { 8.0 } else { 8.0 + handed + (passes - 2.0) * 16.0 + handed + 8.0 } + 8.0
    } else {
        4.0 + passes * 2.0 * (4.0 + value_bytes as f64) + 2.0 * value_bytes as f64
    };
    let mode = if reproducible { " reproducible" } else { "" };
    let what = if indices { "indices".to_string() } else { format!("{value_bytes}B") };
    let mut r = row(format!("perm {what}{mode}"), n, opts, m, bytes, validation);
    r.policy = Some(plan.policy_label());
    r.invocations = checked.invocations;
    r.kernels = checked.kernels;
    Ok(r)
}

fn plan_sort_passes(desc: &PermDesc) -> u32 {
    let g = desc.groups();
    match g {
        1 if desc.indices => 1,
        1 => 0,
        _ => (32 - (g - 1).leading_zeros()).div_ceil(8),
    }
}
