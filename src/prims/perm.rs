//! Random permutation on the binning pass (GPU kernels: glsl/perm/, then the radix sort).
//!
//! Element i draws a group in [0, G) from word i % 4 of Philox4x32-10 at counter
//! (i / 4, 0, 0, 0) with the seed as key (one call serves four elements; a rejected draw takes
//! the same word of counter (i / 4, 0, 0, 1), then 2, ...; G ≈ n / the group target); a stable
//! radix sort by group id gathers the groups in order; then each group is shuffled by one
//! workgroup: element p of group g (m elements, m4 = ceil(m / 4)) takes a 64-bit random key
//! under seed ^ a constant, word p / m4 of Philox counter (g, p % m4, 2, 0) (one draw serves
//! four elements) and word 0 of counter (g, p, 3, 0) (drawn only on a tie), and the group is
//! put in order of that key (a counting sort by its top bits, then a rank within each
//! bucket, about one element; `shuffle_group`), in shared memory when the group fits the
//! capacity, otherwise through global scratch buffers (the same keys). Independent uniform
//! groups, each put in a uniform order, give a uniform permutation (up to ties of the 64-bit
//! keys, broken by position: a total-variation distance below k² 2^-65 for a group of k).
//! The permutation of indices ([`PermDesc::indices`]: 0..n-1, no input array) reads no
//! elements and moves fewer bytes: the first pass's values are implicit (element i is i), the
//! last pass writes the indices alone (not the ids), and each group's bounds come from a
//! binary search over the grouped indices that draws the probed elements' groups again. Its
//! output equals the shuffle of the array 0..n-1.
//! In the reproducible mode every step is a pure function of (seed, n): the output is the same
//! on every GPU, subgroup width and run, and equals [`reference()`]. The default mode ranks the
//! sort's first pass with workgroup atomics (for indices, its last pass too), so the order
//! of a group before its shuffle depends on scheduling; the output is still uniform, as the
//! keys do not depend on that order.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::binning::{self, BinningPolicy, Ranking, ROLE_CLASS_ROUNDS, ROLE_ONE_PLANE};
use super::sort::{DigitLayout, KeyType, PassRoles, SortDesc, SortPlan, SortScratch};
use super::Use;
use crate::error::{invalid, Result};
use crate::gpu::{self, Access, Buffer, BufferSlice, Context, MemoryLocation, Pipeline, PipelineKey, Recorder};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PermDesc {
    pub n: u64,
    /// 4 or 8: the width of the elements shuffled.
    pub value_bytes: u32,
    pub seed: u64,
    pub subgroup_size: Option<u32>,
    /// Expected elements per group, at least 2; 0 (the default): [`PermDesc::target`]. Part of
    /// what the output is a function of.
    pub group_target: u32,
    /// Largest group shuffled in shared memory (debug: small values force the global path);
    /// 0 (the default): the target plus 5.5 standard deviations, or what shared memory holds.
    /// It does not change the output.
    pub group_capacity: u32,
    /// The same output on every GPU, subgroup width and run, equal to [`reference()`]. Off by
    /// default: the sort's first pass then ranks with workgroup atomics, so the order of a
    /// group before its shuffle (not the distribution of the result) depends on scheduling.
    #[serde(default)]
    pub reproducible: bool,
    /// The sort's binning policy.
    #[serde(default)]
    pub policy: BinningPolicy,
    /// Debug (tests): the shuffle stores no key bits beside each element's position, so every
    /// comparison within a run recomputes both draws (the path a 16-bit tie takes). It does
    /// not change the output.
    #[serde(default)]
    pub debug_full_compare: bool,
    /// Permute the indices 0..n-1 (4-byte elements, no input array): the sort's first pass
    /// reads no values, its last writes no ids, and the groups' bounds come from a search.
    /// The same output as shuffling the array 0..n-1.
    #[serde(default)]
    pub indices: bool,
    /// Debug (tests): the sort's forced look-back fallback ([`SortDesc::force_fallback_period`]).
    #[serde(default)]
    pub debug_force_fallback_period: u32,
    /// Debug (tests): indices sorted in two passes hand the last pass full 4-byte ids, as on a
    /// device without 8-bit storage, instead of its digit as a byte. The same output.
    #[serde(default)]
    pub debug_wide_ids: bool,
}

impl PermDesc {
    pub fn new(n: u64, value_bytes: u32, seed: u64) -> PermDesc {
        PermDesc {
            n,
            value_bytes,
            seed,
            subgroup_size: None,
            group_target: 0,
            group_capacity: 0,
            reproducible: false,
            policy: BinningPolicy::default(),
            debug_full_compare: false,
            indices: false,
            debug_force_fallback_period: 0,
            debug_wide_ids: false,
        }
    }
    /// The permutation of 0..n-1 (u32, no input array; [`PermDesc::indices`]).
    pub fn indices(n: u64, seed: u64) -> PermDesc {
        PermDesc { indices: true, ..PermDesc::new(n, 4, seed) }
    }
    /// The group target: as given, or 1024 elements up to 2^26 (at most 65,536 groups: two
    /// 8-bit sort passes) and 4096 beyond (two passes up to 2^28; the group still fits 48 KiB
    /// of shared memory with 8-byte elements).
    pub fn target(&self) -> u32 {
        match self.group_target {
            0 if self.n <= 1 << 26 => 1024,
            0 => 4096,
            t => t,
        }
    }
    pub fn groups(&self) -> u32 {
        self.n.div_ceil(self.target().max(1) as u64).max(1) as u32
    }
    pub fn label(&self) -> String {
        let mode = if self.reproducible { " reproducible" } else { "" };
        let what = if self.indices { "indices".to_string() } else { format!("{}B", self.value_bytes) };
        format!("perm {what} n={} seed={}{mode}", self.n, self.seed)
    }
    fn group_bits(&self) -> u32 {
        32 - (self.groups() - 1).leading_zeros()
    }
    /// Push-constant words of the group draw: groups, seed (two words) and the rejection
    /// threshold, (0 - groups) % groups.
    fn draw_push(&self) -> [u32; 4] {
        let g = self.groups();
        [g, self.seed as u32, (self.seed >> 32) as u32, g.wrapping_neg() % g]
    }
    /// Label bits of a group's shuffle: about one label per expected element, 1 to 11 (at most
    /// 2048 labels: 8 KiB of shared memory). The labels are the keys' top bits, so their
    /// number changes only the shuffle's work, not its output.
    pub fn label_bits(&self) -> u32 {
        (32 - self.target().max(2).saturating_sub(1).leading_zeros()).clamp(1, 11)
    }
}

/// Invocations of the shuffle's workgroup (one group each; at most 1024, for its scan): about
/// 4 to 9 elements each. On the H200 256 won for groups of about 1024 (0.78 ms at 2^26
/// against 1.19 with 512) and 512 for groups of about 4096 (3.05 ms at 2^28 against 3.65;
/// bench/results/h200/binning/session8/4-final).
fn shuffle_workgroup(capacity: u32) -> u32 {
    if capacity > 2048 { 512 } else { 256 }
}

/// Scratch buffers of a permutation, sized by [`PermPlan::scratch_bytes`] (allocate once,
/// reuse): the group ids (then the groups' bounds), the ids sorted (then, in the rare
/// overflow path, the shuffle's keys), and the sort's scratch, whose `values_alt` receives
/// the grouped elements and whose `keys_alt` is then the shuffle's overflow scratch. The
/// permutation's output serves as the sort's ping-pong buffer.
pub struct PermScratch {
    pub ids: BufferSlice,
    pub ids_sorted: BufferSlice,
    pub sort: SortScratch,
}

pub struct PermPlan {
    desc: PermDesc,
    /// Largest group shuffled in shared memory.
    capacity: u32,
    ids: Arc<Pipeline>,
    bounds: Arc<Pipeline>,
    shuffle: Arc<Pipeline>,
    /// None when there is one group (nothing to sort). For indices: always (a single
    /// group's one pass is a copy of 0..n-1).
    sort: Option<SortPlan>,
    /// Indices: the bounds by binary search (glsl/perm/bounds_search.comp).
    bounds_search: Option<Arc<Pipeline>>,
    /// Indices in two passes: the first hands the last its digit as a byte.
    narrow: bool,
}

impl PermPlan {
    /// The groups and the sort's binning pass, for result rows.
    pub fn policy_label(&self) -> String {
        match &self.sort {
            Some(s) => format!("{} groups of <= {} in shared memory by {}, {}", self.desc.groups(), self.capacity, shuffle_workgroup(self.capacity), s.policy_label()),
            None => format!("{} groups of <= {} in shared memory by {}", self.desc.groups(), self.capacity, shuffle_workgroup(self.capacity)),
        }
    }
    pub fn new(ctx: &Context, desc: PermDesc) -> Result<PermPlan> {
        let what = desc.label();
        if ![4, 8].contains(&desc.value_bytes) {
            return invalid(format!("{what}: elements must be 4 or 8 bytes, not {}", desc.value_bytes));
        }
        if desc.indices && desc.value_bytes != 4 {
            return invalid(format!("{what}: indices are u32 (4-byte elements)"));
        }
        // In the permutation's own words, before its sort's planner says it of the sort.
        binning::check_max_n(&what, desc.n)?;
        super::check_len(ctx, &what, desc.n, desc.value_bytes as u64)?;
        if desc.target() < 2 {
            return invalid(format!("{what}: the group target must be at least 2"));
        }
        super::require_subgroup_ops(ctx, &what, &["basic", "arithmetic"])?;
        // The shuffle's shared memory: two words an element (its slot's word, then the inverse
        // map; its tag, then its output position), the label counters and the scan's
        // subgroup sums (and spare words).
        let fixed = (1u64 << desc.label_bits()) * 4 + 264 * 4;
        let per_element = 8;
        let max_shared = ctx.limits().max_compute_shared_memory_size as u64;
        let capacity = match desc.group_capacity {
            0 => {
                let t = desc.target() as f64;
                ((t + 5.5 * t.sqrt()) as u64 + 16).min(max_shared.saturating_sub(fixed) / per_element).min(1 << 16) as u32
            }
            c => c,
        };
        if capacity == 0 || capacity > 1 << 16 || capacity as u64 * per_element + fixed > max_shared {
            return invalid(format!("{what}: a group capacity of {capacity} elements exceeds the device's shared memory (or 65,536)"));
        }
        let workgroup = shuffle_workgroup(capacity);
        if workgroup / ctx.info().subgroup.min_size.max(1) > 256 {
            return invalid(format!("{what}: the shuffle needs subgroups of at least {} lanes (its scan keeps 256 subgroup sums)", workgroup / 256));
        }
        let mut narrow = false;
        let sort = if desc.indices {
            // Group ids as keys, indices as values, implicit in the first pass; the last pass
            // writes the indices alone. At least one bit: one group's single pass finds every
            // element in bucket 0 and copies 0..n-1.
            let mut sd = SortDesc::new(KeyType::U32, desc.n);
            sd.value_bytes = 4;
            sd.bits = (0, desc.group_bits().max(1));
            // 8-bit digits: the group-id kernel counts them, and two narrow passes hand the
            // last its digit as the id's high byte.
            sd.digits = DigitLayout::Bytes;
            sd.subgroup_size = desc.subgroup_size;
            sd.force_fallback_period = desc.debug_force_fallback_period;
            // The default mode's passes take tiles from the ticket unless the policy says: index
            // tiles (and full-tile loops, glsl/sort/binning.glsl) cost it 8% on the H200 at 2^28,
            // 6.53 ms against 6.03, where the reproducible mode gained with both, 6.32 against
            // 7.22 (bench/results/h200/binning/session29/3-perm29).
            let tickets = if desc.reproducible { desc.policy.tickets } else { desc.policy.tickets.or(Some(true)) };
            sd.policy = BinningPolicy { tickets, ..desc.policy };
            sd.ranking = if desc.reproducible { Ranking::Stable } else { Ranking::Atomic };
            // Two passes: the first hands the last its digit as a byte (ids below 2^16).
            narrow = sd.passes() == 2 && ctx.capabilities().storage_buffer_8bit && !desc.debug_wide_ids;
            // The first and last passes stage one word an element (glsl/sort/onesweep.comp),
            // so their tiles can hold twice the elements: the first packs an id below 2^16
            // with the element's place in the tile, the last stages the index alone. The
            // default mode ranks the first pass with atomics, and a second, last pass with
            // atomics in class rounds (ROLE_CLASS_ROUNDS): the first pass's buckets one after
            // the other, so each group's elements stay in its range (plain atomics, as until
            // session 16, mixed neighbouring groups on GPUs, whose atomics do not keep input
            // order; tests force that with debug bit 6). The reproducible mode ranks every
            // pass stably.
            let first = if sd.passes() <= 2 { 1 | ROLE_ONE_PLANE } else { 1 };
            // With two passes their tiles are as long as registers allow two workgroups of
            // 512 an SM (H200, 2^28, default mode: the first pass 1.46 ms at 512x16, 63
            // registers, against 1.77 at 512x11 and 1.86 at 512x20 with 76 registers; the
            // reproducible mode 7.46 ms at 512x16 against 10.14 at 512x10:
            // session13/3-one-plane, 4-bucket-table); the default mode's atomic last pass
            // longer (1.46 ms at 512x20, 1.53 at 512x18, 1.62 at 512x16: session13/9-last-20).
            // The workgroup is set here too, not left to AUTO_TILE's choice for 8-byte
            // elements (384 since session 15).
            let tuned = desc.policy.items == 0 && sd.passes() <= 2;
            if tuned {
                sd.policy.items = 16;
                if sd.policy.workgroup_size == 0 {
                    sd.policy.workgroup_size = 512;
                }
            }
            let classes = !desc.reproducible && sd.passes() == 2;
            let last = 2 | ROLE_ONE_PLANE | if classes { ROLE_CLASS_ROUNDS } else { 0 };
            let roles = PassRoles { first, last, last_items: if tuned && classes { 20 } else { 0 } };
            Some(SortPlan::with_pass_kernel(ctx, sd, if narrow { "perm_pass_narrow" } else { "perm_pass" }, Some(roles))?)
        } else if desc.groups() > 1 {
            let mut sd = SortDesc::new(KeyType::U32, desc.n);
            sd.value_bytes = desc.value_bytes;
            sd.bits = (0, desc.group_bits());
            sd.digits = DigitLayout::Bytes;  // as the group-id kernel counts them
            sd.subgroup_size = desc.subgroup_size;
            sd.force_fallback_period = desc.debug_force_fallback_period;
            // Planes: the shuffle takes over the sort's buffers, sized for them (values_out
            // is the sort's values_alt), so `xpacked` does not apply here.
            sd.policy = BinningPolicy { packed_pairs: false, ..desc.policy };
            sd.ranking = if desc.reproducible { Ranking::Stable } else { Ranking::Atomic };
            Some(SortPlan::new(ctx, sd)?)
        } else {
            None
        };
        let sort_passes = sort.as_ref().map_or(1, |s| s.desc().passes());
        let ids = ctx.pipeline(PipelineKey { shader: "perm_group_ids", spec: vec![256, sort_passes], subgroup_size: None, bindings: 2, push_bytes: 20 })?;
        let shuffle = ctx.pipeline(PipelineKey {
            shader: if desc.value_bytes == 8 { "perm_shuffle_v2" } else { "perm_shuffle_v1" },
            spec: vec![workgroup, capacity, desc.label_bits(), desc.debug_full_compare as u32],
            subgroup_size: None,
            bindings: 5,
            push_bytes: 16,
        })?;
        let bounds = ctx.pipeline(PipelineKey { shader: "perm_bounds", spec: vec![256], subgroup_size: None, bindings: 2, push_bytes: 8 })?;
        let bounds_search = match desc.indices {
            true => Some(ctx.pipeline(PipelineKey { shader: "perm_bounds_search", spec: vec![64], subgroup_size: None, bindings: 2, push_bytes: 20 })?),
            false => None,
        };
        Ok(PermPlan { desc, capacity, ids, bounds, shuffle, sort, bounds_search, narrow })
    }

    pub fn desc(&self) -> &PermDesc {
        &self.desc
    }
    /// Indices in two passes: the first pass writes the last pass's digit as a byte.
    pub fn narrow_keys(&self) -> bool {
        self.narrow
    }
    /// The sort's digit-pass kernels: first, middle and last where they differ (for their
    /// compiler statistics).
    pub fn pass_pipelines(&self) -> Vec<(&'static str, &Arc<Pipeline>)> {
        self.sort.as_ref().map_or(Vec::new(), |s| s.pass_pipelines())
    }
    /// The group shuffle's kernel (for its compiler statistics).
    pub fn shuffle_pipeline(&self) -> &Arc<Pipeline> {
        &self.shuffle
    }
    pub fn values_bytes(&self) -> u64 {
        self.desc.n * self.desc.value_bytes as u64
    }
    /// (ids, ids_sorted, the sort's keys_alt, values_alt, hist, state) in bytes.
    pub fn scratch_bytes(&self) -> (u64, u64, u64, u64, u64, u64) {
        let ids = self.desc.n * 4;
        match &self.sort {
            Some(s) => {
                let (ka, va, h, st) = s.scratch_bytes();
                (ids, ids, ka, va, h, st)
            }
            // keys_alt is the shuffle's overflow scratch; the sort's other buffers go unused.
            None => (ids, ids, ids.max(4), 4, 4, 4),
        }
    }

    /// The ranges a permutation needs, each large enough, and none written overlapping
    /// another (before anything is recorded).
    fn check(&self, values_in: Option<BufferSlice>, values_out: BufferSlice, scratch: &PermScratch) -> Result<()> {
        let what = self.desc.label();
        let vb = self.values_bytes();
        match (values_in, self.desc.indices) {
            (Some(v), false) => super::require_bytes(&what, "values_in", v, vb)?,
            (None, true) => {}
            (Some(_), true) => return invalid(format!("{what}: a permutation of indices takes no input")),
            (None, false) => return invalid(format!("{what}: no input given")),
        }
        // Out of place: the sort reads the input while it writes values_out (its alternate
        // buffer), and the shuffle of one group reads the input while writing the output.
        let (n4, sorted) = (self.desc.n * 4, self.sort.as_ref());
        let mut uses = vec![
            Use::output("values_out", values_out, vb),
            Use::scratch("ids", scratch.ids, n4),
            Use::scratch("ids_sorted", scratch.ids_sorted, n4),
            Use::scratch("sort.values_alt (the grouped elements)", scratch.sort.values_alt, if sorted.is_some() { vb } else { 0 }),
            Use::scratch("sort.keys_alt (the shuffle's scratch)", scratch.sort.keys_alt, n4),
            Use::scratch("sort.hist", scratch.sort.hist, sorted.map_or(0, |s| s.hist_bytes())),
            Use::scratch("sort.state", scratch.sort.state, sorted.map_or(0, |s| s.state_bytes())),
        ];
        for u in &uses {
            super::require_bytes(&what, u.name, u.slice, u.bytes)?;
        }
        if let Some(v) = values_in {
            uses.push(Use::input("values_in", v, vb));
        }
        super::require_disjoint(&what, &uses, false)
    }

    /// Zero the sort's carried state (before every permutation, then a barrier).
    pub fn record_reset(&self, rec: &mut Recorder, scratch: &PermScratch) {
        if let Some(s) = &self.sort {
            s.record_reset(rec, &scratch.sort);
        }
    }

    /// Reset, barrier, permute: `values_out` receives `values_in` permuted (inputs only read);
    /// for indices ([`PermDesc::indices`]) `values_in` is None and `values_out` receives a
    /// permutation of 0..n-1.
    pub fn record(&self, rec: &mut Recorder, values_in: Option<BufferSlice>, values_out: BufferSlice, scratch: &PermScratch) -> Result<()> {
        self.check(values_in, values_out, scratch)?;
        self.record_reset(rec, scratch);
        if let Some(s) = &self.sort {
            rec.barrier(&s.reset_ranges(&scratch.sort), Access::TransferWrite, Access::ComputeReadWrite, "perm: sort state zeroed");
        }
        self.record_permute(rec, values_in, values_out, scratch)
    }

    /// The permutation alone, on scratch reset since the last one.
    pub fn record_permute(&self, rec: &mut Recorder, values_in: Option<BufferSlice>, values_out: BufferSlice, scratch: &PermScratch) -> Result<()> {
        self.check(values_in, values_out, scratch)?;
        let vb = self.values_bytes();
        if self.desc.n == 0 {
            return Ok(());
        }
        let g = self.desc.groups();
        let push: [u32; 4] = [self.desc.n as u32, g, self.desc.seed as u32, (self.desc.seed >> 32) as u32];
        let ids_sorted = scratch.ids_sorted.sub(0, self.desc.n * 4);
        // After the sort its input, the unsorted ids, holds the group bounds (groups + 1 <= n
        // words, as a group's target is at least 2).
        let bounds = scratch.ids.sub(0, self.desc.n * 4);
        // The shuffle reads the grouped elements and writes the output (out of place, so its
        // stores are coalesced): the sort leaves them in its values_alt, with the output as
        // its ping-pong buffer; one group of an array is shuffled straight from the input.
        let grouped = match (&self.sort, values_in) {
            (Some(s), values_in) => {
                let ids = scratch.ids.sub(0, self.desc.n * 4);
                let grouped = scratch.sort.values_alt.sub(0, vb);
                let hist = scratch.sort.hist.sub(0, s.hist_bytes());
                // The ids' digit counts (the sort's upfront histogram), and for an array the
                // ids: four elements an invocation, at least 2048 a workgroup (as the sort's
                // histogram counts).
                let last_bits = s.desc().digit(s.desc().passes() - 1).1;
                let ids_push: [u32; 5] = [push[0], push[1], push[2], push[3], last_bits];
                let workgroups = (self.desc.policy.histogram_groups as u64).min(self.desc.n.div_ceil(2048)) as u32;
                rec.dispatch(&self.ids, &[ids, hist], bytemuck::bytes_of(&ids_push), [workgroups.max(1), 1, 1])?;
                rec.barrier(&[ids, hist], Access::ComputeReadWrite, Access::ComputeReadWrite, "perm: group ids and their digit counts ready for the sort");
                // Indices: the ids are also bound as the first pass's values (not read: element
                // i is i), and the last pass writes no keys to ids_sorted.
                let sort_scratch = SortScratch { values_alt: values_out.sub(0, vb), ..scratch.sort };
                let elements = values_in.map_or(ids, |v| v.sub(0, vb));
                s.record_passes(rec, ids, ids_sorted, Some((elements, grouped)), &sort_scratch)?;
                match values_in {
                    Some(_) => {
                        rec.barrier(&[ids_sorted, bounds], Access::ComputeReadWrite, Access::ComputeReadWrite, "perm: sorted ids ready, the sort's input free for the bounds");
                        rec.dispatch_count(&self.bounds, &[ids_sorted, bounds], bytemuck::bytes_of(&[push[0], push[1]]), self.desc.n.div_ceil(1024) as u32)?;
                    }
                    None => {
                        rec.barrier(&[grouped, bounds], Access::ComputeReadWrite, Access::ComputeReadWrite, "perm: indices grouped, the ids free for the bounds");
                        let search = self.bounds_search.as_ref().expect("indices have the bounds search");
                        let d = self.desc.draw_push();
                        let search_push: [u32; 5] = [push[0], d[0], d[1], d[2], d[3]];
                        rec.dispatch_count(search, &[grouped, bounds], bytemuck::bytes_of(&search_push), (g + 1).div_ceil(64))?;
                    }
                }
                rec.barrier(&[ids_sorted, bounds, grouped], Access::ComputeWrite, Access::ComputeReadWrite, "perm: groups in order and bounded before the shuffle");
                grouped
            }
            (None, Some(v)) => v.sub(0, vb),
            (None, None) => unreachable!("indices always run the passes"),
        };
        // The sort is done with its keys_alt and its ping-pong buffer: the shuffle's overflow
        // scratch (positions) and its output.
        let tmp_pos = scratch.sort.keys_alt.sub(0, self.desc.n * 4);
        rec.barrier(&[tmp_pos, values_out.sub(0, vb)], Access::ComputeReadWrite, Access::ComputeReadWrite, "perm: the sort's buffers reused by the shuffle");
        rec.dispatch_count(&self.shuffle, &[ids_sorted, grouped, values_out.sub(0, vb), tmp_pos, bounds], bytemuck::bytes_of(&push), g)
    }

    /// Upload, permute, download (raw words, `value_bytes / 4` per element); for indices
    /// `values` is None.
    pub fn run(&self, ctx: &Arc<Context>, values: Option<&[u32]>) -> Result<Vec<u32>> {
        let vw = self.desc.value_bytes as usize / 4;
        if let Some(values) = values {
            if values.len() != self.desc.n as usize * vw {
                return invalid(format!("{}: {} value words given", self.desc.label(), values.len()));
            }
        }
        let (ib, sb, ka, va, h, st) = self.scratch_bytes();
        let buf = |bytes: u64, name: &str| Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, name);
        let vin = match values {
            Some(values) => Some(gpu::upload(ctx, bytemuck::cast_slice(values), "perm input")?),
            None => None,
        };
        let vout = buf(self.values_bytes(), "perm output")?;
        let (ids, ids_sorted, kalt, valt, hist, state) =
            (buf(ib, "perm ids")?, buf(sb, "perm ids sorted")?, buf(ka, "perm sort alt")?, buf(va, "perm values alt")?, buf(h, "perm hist")?, buf(st, "perm state")?);
        let scratch = PermScratch {
            ids: ids.slice(),
            ids_sorted: ids_sorted.slice(),
            sort: SortScratch { keys_alt: kalt.slice(), values_alt: valt.slice(), hist: hist.slice(), state: state.slice() },
        };
        let mut rec = Recorder::new(ctx, self.desc.label())?;
        rec.poison(&[vout.slice()]);
        self.record(&mut rec, vin.as_ref().map(|b| b.slice()), vout.slice(), &scratch)?;
        rec.barrier(&[vout.slice()], Access::ComputeWrite, Access::TransferRead, "permutation copied to the host");
        rec.submit_and_wait()?;
        drop(rec);
        Ok(bytemuck::pod_collect_to_vec(&gpu::download(ctx, vout.head(self.values_bytes()))?))
    }
}

// ---------------------------------------------------------------------------------------
// CPU model

/// Philox4x32-10 (glsl/common/philox.glsl).
pub fn philox4x32(mut ctr: [u32; 4], mut key: [u32; 2]) -> [u32; 4] {
    for _ in 0..10 {
        let p0 = 0xD251_1F53u64 * ctr[0] as u64;
        let p1 = 0xCD9E_8D57u64 * ctr[2] as u64;
        ctr = [(p1 >> 32) as u32 ^ ctr[1] ^ key[0], p1 as u32, (p0 >> 32) as u32 ^ ctr[3] ^ key[1], p0 as u32];
        key = [key[0].wrapping_add(0x9E37_79B9), key[1].wrapping_add(0xBB67_AE85)];
    }
    ctr
}

/// Exactly uniform in [0, range) from word j of the Philox draw at `ctr`; a rejection takes word
/// j of the next counter (`ctr[3] + 1`, ...) (glsl/common/philox.glsl `uniform_below`).
pub fn uniform_below(range: u32, ctr: [u32; 4], j: usize, key: [u32; 2]) -> u32 {
    let threshold = range.wrapping_neg() % range;
    for attempt in 0u32.. {
        let r = philox4x32([ctr[0], ctr[1], ctr[2], ctr[3].wrapping_add(attempt)], key);
        let m = r[j] as u64 * range as u64;
        if m as u32 >= threshold {
            return (m >> 32) as u32;
        }
    }
    unreachable!()
}

/// The permutation's CPU model: where each input element ends up, as the GPU computes it.
/// Returns the output order (output position p holds input element `order[p]`).
pub fn reference_order(desc: &PermDesc) -> Vec<usize> {
    let n = desc.n as usize;
    let g = desc.groups();
    let key = [desc.seed as u32, (desc.seed >> 32) as u32];
    let ids = group_ids(desc);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| ids[i]);
    let shuffle_key = [key[0], key[1] ^ 0x5EED_5EED];
    let mut start = 0;
    for grp in 0..g {
        let end = start + order[start..].iter().take_while(|&&i| ids[i] == grp).count();
        shuffle_group(&mut order[start..end], grp, shuffle_key);
        start = end;
    }
    order
}

/// Each element's group (glsl/perm/group_ids.comp): word i % 4 of Philox counter (i / 4, 0,
/// 0, attempt), uniform below the group count.
fn group_ids(desc: &PermDesc) -> Vec<u32> {
    let g = desc.groups();
    let key = [desc.seed as u32, (desc.seed >> 32) as u32];
    (0..desc.n as u32).map(|i| if g > 1 { uniform_below(g, [i / 4, 0, 0, 0], i as usize % 4, key) } else { 0 }).collect()
}

/// The default mode's check beyond a bijection: `got` (output position p holds input element
/// `got[p]`) must put every element in its group's output range as the CPU model lays the
/// groups out; the order within a group is free (scheduling may set it). None when it does.
pub fn check_groups(desc: &PermDesc, got: &[u32]) -> Option<String> {
    let n = desc.n as usize;
    if got.len() != n {
        return Some(format!("{} elements, want {n}", got.len()));
    }
    let ids = group_ids(desc);
    let mut start = vec![0usize; desc.groups() as usize + 1];
    for &id in &ids {
        start[id as usize + 1] += 1;
    }
    for k in 1..start.len() {
        start[k] += start[k - 1];
    }
    let mut seen = vec![false; n];
    for (p, &e) in got.iter().enumerate() {
        let e = e as usize;
        if e >= n || std::mem::replace(&mut seen[e], true) {
            return Some(format!("position {p}: element {e} out of range or repeated (not a permutation)"));
        }
        let k = ids[e] as usize;
        if !(start[k]..start[k + 1]).contains(&p) {
            return Some(format!("position {p}: element {e} of group {k}, whose output range is {}..{}", start[k], start[k + 1]));
        }
    }
    None
}

/// A group's shuffle, as glsl/perm/shuffle.comp does it: elements k, k + m4, k + 2 m4 and
/// k + 3 m4 take the four words of Philox counter (g, k, 2, 0) as w0 (m4 = ceil(m / 4)),
/// element p takes word 0 of counter (g, p, 3, 0) as w1, and the elements go in order of
/// (w0, w1, p).
fn shuffle_group(group: &mut [usize], g: u32, key: [u32; 2]) {
    let m4 = group.len().div_ceil(4);
    let draws: Vec<[u32; 4]> = (0..m4 as u32).map(|k| philox4x32([g, k, 2, 0], key)).collect();
    let w0 = |p: usize| draws[p % m4][p / m4];
    // w1 decides only between equal w0s (rare): drawn there alone.
    let w1 = |p: usize| philox4x32([g, p as u32, 3, 0], key)[0];
    let mut order: Vec<usize> = (0..group.len()).collect();
    order.sort_unstable_by(|&a, &b| w0(a).cmp(&w0(b)).then_with(|| w1(a).cmp(&w1(b))).then(a.cmp(&b)));
    let shuffled: Vec<usize> = order.iter().map(|&p| group[p]).collect();
    group.copy_from_slice(&shuffled);
}

/// `reference(n, seed)`: the permutation of 0..n-1 every GPU produces for this seed.
pub fn reference(n: u64, seed: u64) -> Vec<u32> {
    reference_order(&PermDesc::new(n, 4, seed)).into_iter().map(|i| i as u32).collect()
}
