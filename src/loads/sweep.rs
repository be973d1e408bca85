//! The working-set sweep (bandwidth per level of the memory hierarchy) and the pointer
//! chase (latency per level), run like the load cases: same timing, same verification.

use super::cases::{Case, CHASE_LINE};
use super::model::{self, WORKGROUP};
use super::resources::upload_words;
use super::run::{push, Lab, LoadRow, NEVER};
use crate::error::Result;
use crate::gpu::{Bind, Buffer, Context, Descriptor, MemoryLocation};

/// The sweep's data, uploaded once at the largest size run so far: element e holds the same
/// values at every size, so smaller working sets are prefixes of it.
#[derive(Default)]
pub struct Working {
    data: Option<Buffer>,
}

/// Why a working set of `bytes` cannot run here, if it cannot.
pub fn size_skip(ctx: &Context, bytes: u64) -> Option<String> {
    let range = ctx.max_storage_buffer_range();
    let heap = ctx.info().memory_heaps.iter().filter(|h| h.device_local).map(|h| h.size_bytes).max().unwrap_or(0);
    if bytes > range {
        Some(format!("{} exceeds maxStorageBufferRange ({} B)", super::cases::size_name(bytes), range))
    } else if bytes > heap / 4 {
        Some(format!("{} exceeds a quarter of the largest device-local heap ({} B)", super::cases::size_name(bytes), heap))
    } else {
        None
    }
}

pub(crate) fn sweep_case(lab: &mut Lab, case: &Case, bytes: u64) -> Result<LoadRow> {
    let ctx = lab.ctx.clone();
    let words = bytes / 4;
    if lab.working.data.as_ref().is_none_or(|b| b.size() < bytes) {
        lab.working.data = None; // free the smaller set before allocating the larger
        let b = Buffer::new(&ctx, bytes, MemoryLocation::GpuOnly, "sweep working set")?;
        upload_words(&ctx, &b, words, |i| model::sweep_float(i as u32).to_bits())?;
        lab.working.data = Some(b);
    }
    let data = lab.working.data.as_ref().unwrap().head(bytes);
    let threads = lab.opts.threads;
    let vec4s = (bytes / 16) as u32;
    let count = model::sweep_count(vec4s, threads, lab.opts.sweep_loads);
    let mask = vec4s - 1;
    let step = model::sweep_step(vec4s, threads, count);
    let p = lab.pipeline("loads_sweep", vec![WORKGROUP], &[Descriptor::StorageBuffer], 20)?;
    let binds = [Bind::Buffer(lab.out.slice()), Bind::Buffer(data)];
    let groups = lab.groups(threads)?;
    let m = lab.time(&case.name, &p, &binds, &push(lab.gpu_mask(mask), NEVER, 0, count, &step.to_le_bytes()), groups)?;
    let mut row = LoadRow::new(case);
    let secs = m.stats.median_ns * 1e-9;
    let loads = threads as f64 * count as f64;
    row.threads = threads as u64;
    row.loads_per_thread = count as u64;
    row.bytes_per_load = 16;
    row.median_ms = Some(m.stats.median_ns * 1e-6);
    row.loads_per_s = Some(loads / secs);
    row.bytes_per_s = Some(loads * 16.0 / secs);
    row.stats = Some(m.stats);
    if lab.opts.verify {
        let got = lab.stored(&case.name, &p, &binds, &push(lab.gpu_mask(mask), 0, 0, count, &step.to_le_bytes()), groups, threads as u64)?;
        // One table of element sums, not 4 x count hashes per invocation (1 GiB: 64M entries).
        let elems: Vec<f32> = (0..=mask).map(|e| model::sweep_elem(e) as f32).collect(); // exact: at most 60
        let at = |e: u32| elems[e as usize] as f64;
        row.verdict(super::run::compare(&got, |gid| model::sweep_expected(gid, step, count, mask, at), 0.0));
    }
    Ok(row)
}

/// Untimed (H, 2H) dispatch pairs whose subgroup-clock cycles give the chase's cycles per hop.
const CLOCK_PAIRS: usize = 9;

pub(crate) fn chase_case(lab: &mut Lab, case: &Case, bytes: u64) -> Result<LoadRow> {
    let ctx = lab.ctx.clone();
    let per_line = (CHASE_LINE / 4) as u32;
    let lines = (bytes / CHASE_LINE) as u32;
    let next = model::chase_cycle(lines);
    let chain = Buffer::new(&ctx, bytes, MemoryLocation::GpuOnly, "chase chain")?;
    upload_words(&ctx, &chain, bytes / 4, |w| {
        let w = w as u32;
        if w.is_multiple_of(per_line) { next[(w / per_line) as usize] * per_line } else { 0 }
    })?;
    let p = lab.pipeline("loads_chase", vec![1], &[Descriptor::StorageBuffer], 16)?;
    let binds = [Bind::Buffer(lab.out.slice()), Bind::Buffer(chain.slice())];
    let hops = lab.opts.chase_hops;
    // The cursor's mask: a line start inside the working set (sizes are powers of two).
    let mask = (bytes / 4 - 1) as u32 & !(per_line - 1);
    let m1 = lab.time(&case.name, &p, &binds, &push(mask, NEVER, 0, hops, &[]), [1, 1, 1])?;
    let m2 = lab.time(&format!("{} (2x hops)", case.name), &p, &binds, &push(mask, NEVER, 0, 2 * hops, &[]), [1, 1, 1])?;
    // The difference of H more hops: launch and fixed costs cancel.
    let ns = (m2.stats.median_ns - m1.stats.median_ns) / hops as f64;
    let mut row = LoadRow::new(case);
    row.threads = 1;
    row.loads_per_thread = hops as u64;
    row.bytes_per_load = 4;
    row.median_ms = Some(m1.stats.median_ns * 1e-6);
    row.stats = Some(m1.stats.clone());
    row.doubling_ratio = Some(m2.stats.median_ns / m1.stats.median_ns);
    row.latency_ns = Some(ns);
    // Cycles per hop from the subgroup clock, in untimed dispatches of a variant that reads
    // it around the loop, so the timed kernel stays the plain one. Unlike ns, cycles do not
    // depend on the clock a GPU runs a lone invocation at.
    if ctx.capabilities().shader_clock {
        let pc = lab.pipeline("loads_chase_clock", vec![1], &[Descriptor::StorageBuffer], 16)?;
        // A warm-up pair (its first dispatch saw outliers on lavapipe), then CLOCK_PAIRS.
        let pair = [push(mask, NEVER, 0, hops, &[]), push(mask, NEVER, 0, 2 * hops, &[])];
        let pushes: Vec<Vec<u8>> = (0..=CLOCK_PAIRS).flat_map(|_| pair.clone()).collect();
        let c = lab.cycles(&case.name, &pc, &binds, &pushes)?;
        // The median over pairs of 2H - H: adjacent dispatches, so drift (caches still
        // warming along the cycle, clock changes) cancels within each pair.
        let mut d: Vec<f64> = c[2..].chunks_exact(2).map(|p| p[1] as f64 - p[0] as f64).collect();
        d.sort_by(f64::total_cmp);
        row.latency_cycles = Some(d[CLOCK_PAIRS / 2] / hops as f64);
    }
    let cycles = row.latency_cycles.filter(|&c| c > 0.0).map(|c| format!("{c:.1} cycles/load"));
    if ns > 0.0 {
        row.loads_per_s = Some(1e9 / ns);
        row.bytes_per_s = Some(4e9 / ns);
        row.flags.push(match cycles {
            Some(c) => format!("{ns:.1} ns/load, {c}"),
            None => format!("{ns:.1} ns/load"),
        });
    } else {
        row.flags.push("2H hops no slower than H: latency below timer noise".into());
        row.flags.extend(cycles);
    }
    if lab.opts.verify {
        // The skew hook shortens the chain by one hop, so the end word differs.
        let h = if lab.opts.debug_skew { hops - 1 } else { hops };
        let got = lab.stored(&case.name, &p, &binds, &push(mask, 0, 1, h, &[]), [1, 1, 1], 2)?;
        let want = model::chase_end(&next, per_line, hops);
        row.verdict((got[0] != want).then(|| format!("the chain ended at word {} where the model ends at {want}", got[0])));
    }
    Ok(row)
}
