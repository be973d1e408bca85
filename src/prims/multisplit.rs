//! Stable multisplit into 2..=256 buckets in one pass (GPU kernels: glsl/multisplit/ on the shared
//! binning pass, glsl/sort/binning.glsl). The output holds bucket 0's elements, then bucket
//! 1's, and so on, each in input order, plus the bucket offsets (B + 1 words, an exclusive
//! prefix of the counts ending with n).
//!
//! The bucket of an element comes from a bit field of the raw key (B = 2^(hi - lo)), a u32
//! bucket-id array (every id must be < B), or B - 1 splitters sorted by the key's order
//! (bucket = how many splitters are <= the key; floats in IEEE 754 totalOrder). More than 256
//! buckets (up to 2^16) compose: a stable radix sort by bucket (of the keys by the bit field;
//! by ids or splitters, of (bucket id, key) pairs for keys alone, of (bucket id, (key, value))
//! pairs for 32-bit keys with 4-byte values, else of (bucket id, input index) pairs whose
//! indices then gather the elements), and the offsets by binary search of the sorted buckets.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::binning::{self, BinningInput, BinningKernel, BinningPass, Ranking};
use super::sort::{order_key, KeyType, SortDesc, SortPlan, SortPolicy, SortScratch};
use super::Use;
use crate::error::{invalid, Result};
use crate::gpu::{self, Access, Buffer, BufferSlice, Context, MemoryLocation, Pipeline, PipelineKey, Recorder};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BucketSource {
    /// Bits lo..hi of the raw key.
    Bits { lo: u32, hi: u32 },
    /// A u32 bucket id per element, each < `buckets`.
    Ids { buckets: u32 },
    /// `count` splitters, sorted by the key's order: `count + 1` buckets.
    Splitters { count: u32 },
}

impl BucketSource {
    pub fn buckets(&self) -> u64 {
        match *self {
            BucketSource::Bits { lo, hi } => 1u64 << hi.saturating_sub(lo).min(63),
            BucketSource::Ids { buckets } => buckets as u64,
            BucketSource::Splitters { count } => count as u64 + 1,
        }
    }
    fn spec(&self) -> u32 {
        match self {
            BucketSource::Bits { .. } => 0,
            BucketSource::Ids { .. } => 1,
            BucketSource::Splitters { .. } => 2,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MultisplitDesc {
    pub key: KeyType,
    /// 0 (keys only), 4 or 8.
    pub value_bytes: u32,
    pub n: u64,
    pub source: BucketSource,
    pub subgroup_size: Option<u32>,
    /// Debug: forces the decoupled fallback on every period-th tile (>= 2), as in the sort.
    pub force_fallback_period: u32,
    pub policy: SortPolicy,
    /// `Stable` (the default): input order kept within each bucket. `Atomic`: workgroup
    /// atomics, order within a bucket unspecified.
    #[serde(default)]
    pub ranking: Ranking,
}

impl MultisplitDesc {
    pub fn new(key: KeyType, n: u64, source: BucketSource) -> Self {
        MultisplitDesc {
            key,
            value_bytes: 0,
            n,
            source,
            subgroup_size: None,
            force_fallback_period: 0,
            policy: SortPolicy::default(),
            ranking: Ranking::Stable,
        }
    }
    pub fn label(&self) -> String {
        let v = if self.value_bytes > 0 { format!(" pairs({}B)", self.value_bytes) } else { String::new() };
        let src = match self.source {
            BucketSource::Bits { lo, hi } => format!("bits {lo}:{hi}"),
            BucketSource::Ids { buckets } => format!("ids, {buckets} buckets"),
            BucketSource::Splitters { count } => format!("{count} splitters"),
        };
        let r = if self.ranking == Ranking::Atomic { ", atomic" } else { "" };
        format!("multisplit {}{v} ({src}{r}) n={}", self.key.name(), self.n)
    }
}

/// Scratch besides the caller's buffers (allocate once, reuse).
pub struct MultisplitScratch {
    /// Bucket histogram and offsets (composed splits: unused, 4 bytes).
    pub hist: BufferSlice,
    /// Tile ticket and look-back words (composed splits: the sort's, in `sort`).
    pub state: BufferSlice,
    /// At least 4 bytes: bound in place of values for keys-only splits.
    pub dummy: BufferSlice,
    /// Composed splits (more than 256 buckets) only: the radix sort's scratch
    /// ([`MultisplitPlan::sort_scratch_bytes`]).
    pub sort: Option<SortScratch>,
    /// Composed splits by bucket ids or splitters only: n words each for the sorted bucket
    /// ids, the ids from splitters, and with values other than the sort's (key, value) pairs
    /// the input indices and their sorted copy ([`MultisplitPlan::index_scratch_bytes`]).
    pub index: Option<BufferSlice>,
}

/// A split into more than 256 buckets: a radix sort by bucket, of the keys themselves by the
/// bit field, or by bucket id (`by_index`: bucket ids or splitters) of (id, key) pairs for keys
/// alone, of (id, (key, value)) pairs for 32-bit keys with 4-byte values (a split sort: its
/// first pass reads the keys and values, its last writes them), else of (id, input index)
/// pairs whose sorted indices then gather the elements; then, where asked for, the offsets,
/// where each bucket starts in the sorted buckets (`bounds`, a binary search an offset).
struct Composed {
    sort: SortPlan,
    bounds: Arc<Pipeline>,
    by_index: Option<ByIndex>,
}

/// The kernels of a composed split by bucket ids or splitters.
struct ByIndex {
    /// Input indices (none where the sort moves the elements) and, from splitters, the bucket
    /// ids: none where the sort moves the elements by ids.
    prepare: Option<Arc<Pipeline>>,
    /// The elements by sorted index (none where the sort moved them).
    gather: Option<Arc<Pipeline>>,
    /// The payload is (key, value) pairs, 8 bytes, not input indices: 32-bit keys with
    /// 4-byte values, by a split sort ([`SortPlan::split`]). A gather reads the elements at
    /// random indices, which cost 3.7 of 4.8 ms of the 1,000-way split of 2^26 pairs on the
    /// H200, against 2.1 ms with a kernel to pack the pairs and one to split them again
    /// (bench/results/h200/binning/session42/3-packed42), which the split sort's first and
    /// last passes now do.
    packed: bool,
}

/// A split into at most 256 buckets: the bucket histogram, its scan (unless the pass's tile
/// 0 scans it) and one binning pass.
struct OnePass {
    histogram: Arc<Pipeline>,
    offsets: Arc<Pipeline>,
    pass: BinningPass,
}

/// How a plan splits: one binning pass, or a composed split (whose plan builds no one-pass
/// kernel: it would never run).
enum Route {
    One(OnePass),
    Composed(Composed),
}

pub struct MultisplitPlan {
    desc: MultisplitDesc,
    route: Route,
}

/// Whether a composed split by ids or splitters sorts (key, value) pairs as its payload:
/// 32-bit keys with 4-byte values (an 8-byte payload, which the sort carries; wider elements
/// keep the input index and the gather).
fn packs_pairs(desc: &MultisplitDesc) -> bool {
    !desc.key.wide() && desc.value_bytes == 4
}

/// Elements one histogram workgroup counts per round (128 invocations x 16).
const HIST_CHUNK: u64 = 128 * 16;
/// The most buckets a split takes: 2^16 (bit fields of up to 16 bits).
pub const MAX_BUCKETS: u64 = 1 << 16;

impl MultisplitPlan {
    pub fn new(ctx: &Context, desc: MultisplitDesc) -> Result<MultisplitPlan> {
        let what = desc.label();
        let b = desc.source.buckets();
        if let BucketSource::Bits { lo, hi } = desc.source {
            if lo >= hi || hi > desc.key.bits() {
                return invalid(format!("{what}: bit field {lo}:{hi} must satisfy lo < hi <= {}", desc.key.bits()));
            }
        }
        if !(2..=MAX_BUCKETS).contains(&b) {
            return invalid(format!("{what}: {b} buckets; a split takes 2 to {MAX_BUCKETS} buckets"));
        }
        // In the split's own words, before a composed split's sort planner says it of the sort.
        binning::check_max_n(&what, desc.n)?;
        // A multisplit is one binning pass: the sort's checks and geometry.
        let input = BinningInput { key: desc.key, value_bytes: desc.value_bytes, n: desc.n, subgroup_size: desc.subgroup_size };
        let kw = if desc.key.wide() { "k64" } else { "k32" };
        let kind = desc.key.kind();
        let src = desc.source.spec();
        let composed = if b > 256 {
            let mut sd = match desc.source {
                // Keys move raw; an unsigned key type of the same width sorts by the raw bits.
                BucketSource::Bits { lo, hi } => {
                    let mut sd = SortDesc::new(if desc.key.wide() { KeyType::U64 } else { KeyType::U32 }, desc.n);
                    sd.value_bytes = desc.value_bytes;
                    sd.bits = (lo, hi);
                    sd
                }
                // (bucket id, key) pairs for keys alone (no gather), (bucket id, (key,
                // value)) for 4-byte keys and values, else (bucket id, input index) pairs, by
                // the bits a bucket id can have.
                _ => {
                    let mut sd = SortDesc::new(KeyType::U32, desc.n);
                    sd.value_bytes = match desc.value_bytes {
                        0 => desc.key.bytes() as u32,
                        _ if packs_pairs(&desc) => 8,
                        _ => 4,
                    };
                    sd.bits = (0, 64 - (b - 1).leading_zeros());
                    sd
                }
            };
            sd.subgroup_size = desc.subgroup_size;
            sd.force_fallback_period = desc.force_fallback_period;
            sd.policy = desc.policy;
            sd.ranking = desc.ranking;
            let key_spec = |shader: &'static str, spec: Vec<u32>, bindings: u32, push_bytes: u32| {
                ctx.pipeline(PipelineKey { shader, spec, subgroup_size: None, bindings, push_bytes })
            };
            let by_ids = !matches!(desc.source, BucketSource::Bits { .. });
            // Sorted keys (bit field) or sorted bucket ids (always 32-bit words).
            let bounds = if desc.key.wide() && !by_ids { "multisplit_bounds_k64" } else { "multisplit_bounds_k32" };
            let bounds = key_spec(bounds, vec![256, if by_ids { 0 } else { kind }, 0, by_ids as u32], 2, 16)?;
            let by_index = match desc.source {
                BucketSource::Bits { .. } => None,
                _ => {
                    let keys_alone = desc.value_bytes == 0;
                    let from_splitters = matches!(desc.source, BucketSource::Splitters { .. });
                    let gather = match (kw, desc.value_bytes) {
                        ("k32", 0) => "multisplit_gather_k32_v0",
                        ("k32", 4) => "multisplit_gather_k32_v1",
                        ("k32", _) => "multisplit_gather_k32_v2",
                        (_, 0) => "multisplit_gather_k64_v0",
                        (_, 4) => "multisplit_gather_k64_v1",
                        _ => "multisplit_gather_k64_v2",
                    };
                    let prepare = if desc.key.wide() { "multisplit_ids_k64" } else { "multisplit_ids_k32" };
                    let packed = packs_pairs(&desc);
                    let moved = keys_alone || packed;
                    Some(ByIndex {
                        prepare: match (moved, from_splitters) {
                            (true, false) => None,
                            _ => Some(key_spec(prepare, vec![256, kind, 0, src, !moved as u32], 4, 16)?),
                        },
                        gather: if moved { None } else { Some(key_spec(gather, vec![256, kind, 0], 5, 4)?) },
                        packed,
                    })
                }
            };
            let sort = match by_index.as_ref().is_some_and(|bx| bx.packed) {
                true => SortPlan::split(ctx, sd)?,
                false => SortPlan::new(ctx, sd)?,
            };
            Some(Composed { sort, bounds, by_index })
        } else {
            None
        };
        if let Some(c) = composed {
            return Ok(MultisplitPlan { desc, route: Route::Composed(c) });
        }
        let offsets =
            ctx.pipeline(PipelineKey { shader: "sort_offsets", spec: vec![64], subgroup_size: desc.subgroup_size, bindings: 1, push_bytes: 4 })?;
        let kernel = BinningKernel {
            shader: &format!("multisplit_{kw}_v{}", desc.value_bytes / 4),
            key_kind: kind,
            descending: false,
            source: src,
            bindings: 7,
            push_bytes: 20,
            role: 0,
            totals: false,
            fold_max_tiles: if desc.value_bytes == 0 { 512 } else { 256 },
            keys_sort: false,
            // (Measured with bit-field buckets only; ids and splitters keep their tile.)
            fold_keys_tile: matches!(desc.source, BucketSource::Bits { .. }),
            auto_tile: None,
        };
        let mut pass = BinningPass::plan(ctx, &what, input, desc.force_fallback_period, &desc.policy, desc.ranking, kernel)?;
        pass.compile(ctx)?;
        let histogram = ctx.pipeline(PipelineKey {
            shader: if desc.key.wide() { "multisplit_histogram_k64" } else { "multisplit_histogram_k32" },
            // The bucket span only where the pass folds (it finds a trivial split from it).
            spec: vec![128, kind, 0, src, 0, pass.fold as u32],
            subgroup_size: desc.subgroup_size,
            bindings: 3,
            push_bytes: 16,
        })?;
        Ok(MultisplitPlan { desc, route: Route::One(OnePass { histogram, offsets, pass }) })
    }

    fn composed(&self) -> Option<&Composed> {
        match &self.route {
            Route::Composed(c) => Some(c),
            Route::One(_) => None,
        }
    }

    pub fn desc(&self) -> &MultisplitDesc {
        &self.desc
    }
    pub fn buckets(&self) -> u32 {
        self.desc.source.buckets() as u32
    }
    /// Elements a tile takes: the one pass's, or a composed split's sort's.
    pub fn tile_keys(&self) -> u64 {
        match &self.route {
            Route::One(one) => one.pass.tile_keys(),
            Route::Composed(c) => c.sort.tile_keys(),
        }
    }
    /// The binning pipelines, named: the one pass of a split into at most 256 buckets, or a
    /// composed split's sort passes (see [`SortPlan::pass_pipelines`]).
    pub fn pass_pipelines(&self) -> Vec<(&'static str, &Arc<Pipeline>)> {
        match &self.route {
            Route::Composed(c) => c.sort.pass_pipelines(),
            Route::One(one) => one.pass.pipeline().map(|p| vec![("split", p)]).unwrap_or_default(),
        }
    }
    /// The binning pass's geometry and ranking, for result rows.
    pub fn policy_label(&self) -> String {
        match &self.route {
            Route::Composed(c) => c.sort.policy_label(),
            Route::One(one) => one.pass.label(),
        }
    }
    pub fn keys_bytes(&self) -> u64 {
        self.desc.n * self.desc.key.bytes()
    }
    pub fn values_bytes(&self) -> u64 {
        self.desc.n * self.desc.value_bytes as u64
    }
    /// Bucket ids (n words) or splitters (B - 1 keys); none for a bit field.
    pub fn aux_bytes(&self) -> u64 {
        match self.desc.source {
            BucketSource::Bits { .. } => 0,
            BucketSource::Ids { .. } => self.desc.n * 4,
            BucketSource::Splitters { count } => count as u64 * self.desc.key.bytes(),
        }
    }
    /// B + 1 u32 offsets.
    pub fn offsets_bytes(&self) -> u64 {
        (self.buckets() as u64 + 1) * 4
    }
    pub fn hist_bytes(&self) -> u64 {
        match &self.route {
            Route::Composed(_) => 4,
            Route::One(_) => binning::UPFRONT_HIST_BYTES,
        }
    }
    pub fn state_bytes(&self) -> u64 {
        match &self.route {
            Route::Composed(_) => 4,
            Route::One(one) => binning::state_bytes(one.pass.tiles, false),
        }
    }
    /// Composed splits: the sort's scratch sizes (keys_alt, values_alt, hist, state).
    pub fn sort_scratch_bytes(&self) -> Option<(u64, u64, u64, u64)> {
        self.composed().map(|c| c.sort.scratch_bytes())
    }
    /// Composed splits by bucket ids or splitters: the bytes of [`MultisplitScratch::index`]
    /// (its regions of n words: the sorted ids; the ids from splitters; with values the input
    /// indices and their sorted copy).
    pub fn index_scratch_bytes(&self) -> Option<u64> {
        self.composed().filter(|c| c.by_index.is_some()).map(|_| self.index_regions() * self.index_region())
    }
    /// Whether a composed split by bucket ids or splitters sorts (id, (key, value)) pairs,
    /// with no gather: 32-bit keys with 4-byte values (the split sort reads and writes them).
    pub fn sorts_packed_pairs(&self) -> bool {
        self.composed().is_some_and(|c| c.by_index.as_ref().is_some_and(|bx| bx.packed))
    }
    fn index_regions(&self) -> u64 {
        let from_splitters = matches!(self.desc.source, BucketSource::Splitters { .. });
        let indices = self.desc.value_bytes > 0 && !packs_pairs(&self.desc);
        1 + from_splitters as u64 + 2 * indices as u64
    }
    /// One region of the index scratch: n words, rounded up to a bindable offset.
    fn index_region(&self) -> u64 {
        (4 * self.desc.n).max(4).next_multiple_of(256)
    }

    /// A composed split by bucket ids or splitters: the ids from splitters; then for keys
    /// alone a radix sort of (id, key) pairs by id, for 4-byte keys and values a split sort of
    /// (id, (key, value)) pairs, else of (id, input index) pairs and the gather by sorted
    /// index. Returns the sorted ids.
    #[allow(clippy::too_many_arguments)]
    fn record_by_index(
        &self,
        rec: &mut Recorder,
        bx: &ByIndex,
        sort: &SortPlan,
        (keys_in, keys_out): (BufferSlice, BufferSlice),
        values: Option<(BufferSlice, BufferSlice)>,
        aux: BufferSlice,
        index: BufferSlice,
        sort_scratch: &SortScratch,
        dummy: BufferSlice,
    ) -> Result<BufferSlice> {
        let n = self.desc.n;
        // The regions in index_regions()'s order; an absent one (never written) binds `dummy`.
        let mut next = 0u64;
        let mut region = |present: bool| match present {
            true => {
                next += 1;
                index.sub((next - 1) * self.index_region(), 4 * n)
            }
            false => dummy.sub(0, 4),
        };
        let ids_sorted = region(true);
        let ids = region(matches!(self.desc.source, BucketSource::Splitters { .. }));
        let (idx, idx_sorted) = (region(bx.gather.is_some()), region(bx.gather.is_some()));
        let kb = self.keys_bytes();
        let (vi, vo) = values.unwrap_or((dummy, dummy));
        let vb = self.values_bytes().max(4);
        let (vi, vo) = (vi.sub(0, vb.min(vi.size)), vo.sub(0, vb.min(vo.size)));
        if let Some(prepare) = &bx.prepare {
            let push: [u32; 4] = [n as u32, 0, 0, self.buckets()];
            rec.dispatch_count(prepare, &[keys_in.sub(0, kb), aux, ids, idx], bytemuck::bytes_of(&push), n.div_ceil(256) as u32)?;
            rec.barrier(&[ids, idx], Access::ComputeWrite, Access::ComputeRead, "multisplit: bucket ids and indices ready for their sort");
        }
        let sort_keys = match self.desc.source {
            BucketSource::Ids { .. } => aux.sub(0, 4 * n),
            _ => ids,
        };
        if bx.packed {
            // The keys and values are the split sort's payload.
            sort.record_split(rec, (sort_keys, ids_sorted), (keys_in.sub(0, kb), vi), (keys_out.sub(0, kb), vo), sort_scratch)?;
            return Ok(ids_sorted);
        }
        let Some(gather) = &bx.gather else {
            // Keys alone: the keys are the sort's payload.
            sort.record_sort(rec, sort_keys, ids_sorted, Some((keys_in.sub(0, kb), keys_out.sub(0, kb))), sort_scratch)?;
            return Ok(ids_sorted);
        };
        sort.record_sort(rec, sort_keys, ids_sorted, Some((idx, idx_sorted)), sort_scratch)?;
        let bufs = [keys_in.sub(0, kb), keys_out.sub(0, kb), vi, vo, idx_sorted];
        rec.dispatch_count(gather, &bufs, bytemuck::bytes_of(&(n as u32)), n.div_ceil(256) as u32)?;
        Ok(ids_sorted)
    }

    /// Every range present that the split needs and large enough, and none written overlapping
    /// another (before anything is recorded).
    fn check(
        &self,
        (keys_in, keys_out): (BufferSlice, BufferSlice),
        values: Option<(BufferSlice, BufferSlice)>,
        aux: Option<BufferSlice>,
        offsets_out: Option<BufferSlice>,
        scratch: &MultisplitScratch,
    ) -> Result<()> {
        let what = self.desc.label();
        let need = |name: &str, s: BufferSlice, bytes: u64| super::require_bytes(&what, name, s, bytes);
        need("keys_in", keys_in, self.keys_bytes())?;
        need("keys_out", keys_out, self.keys_bytes())?;
        need("hist", scratch.hist, self.hist_bytes())?;
        need("state", scratch.state, self.state_bytes())?;
        need("dummy", scratch.dummy, 4)?;
        super::require_values(&what, self.desc.value_bytes, values, self.values_bytes())?;
        let needs_aux = !matches!(self.desc.source, BucketSource::Bits { .. });
        if needs_aux != aux.is_some() {
            return invalid(format!("{what}: bucket ids or splitters given {} but the source needs them: {needs_aux}", aux.is_some()));
        }
        if let Some(a) = aux {
            need("bucket ids / splitters", a, self.aux_bytes())?;
        }
        if let Some(o) = offsets_out {
            need("offsets_out", o, self.offsets_bytes())?;
        }
        if self.composed().is_some() != scratch.sort.is_some() {
            return invalid(format!("{what}: a split into more than 256 buckets needs the sort scratch, and only it does"));
        }
        if let (Some((ka, va, h, st)), Some(s)) = (self.sort_scratch_bytes(), &scratch.sort) {
            need("sort.keys_alt", s.keys_alt, ka)?;
            need("sort.values_alt", s.values_alt, va)?;
            need("sort.hist", s.hist, h)?;
            need("sort.state", s.state, st)?;
        }
        if let Some(bytes) = self.index_scratch_bytes() {
            match scratch.index {
                Some(ix) => need("index", ix, bytes)?,
                None => return invalid(format!("{what}: a split into more than 256 buckets by ids or splitters needs the index scratch")),
            }
        }
        // Every range a split writes is its own, and the split is out of place: a tile's
        // fallback reads its predecessor's input, as may the gather of a composed split.
        let (kb, vb) = (self.keys_bytes(), self.values_bytes());
        let mut uses = vec![Use::input("keys_in", keys_in, kb), Use::output("keys_out", keys_out, kb)];
        if let Some((vi, vo)) = values {
            uses.extend([Use::input("values_in", vi, vb), Use::output("values_out", vo, vb)]);
        }
        if let Some(a) = aux {
            uses.push(Use::input("bucket ids / splitters", a, self.aux_bytes()));
        }
        if let Some(o) = offsets_out {
            uses.push(Use::output("offsets_out", o, self.offsets_bytes()));
        }
        match (self.composed(), &scratch.sort) {
            (Some(c), Some(s)) => {
                // By ids or splitters the sort always moves a payload (the keys at least).
                let moves_values = c.by_index.is_some() || values.is_some();
                uses.extend(c.sort.scratch_uses(s, moves_values, ["sort.keys_alt", "sort.values_alt", "sort.hist", "sort.state"]));
                if let (Some(ix), Some(bytes)) = (scratch.index, self.index_scratch_bytes()) {
                    uses.push(Use::scratch("index", ix, bytes));
                }
            }
            _ => uses.extend([Use::scratch("hist", scratch.hist, self.hist_bytes()), Use::scratch("state", scratch.state, self.state_bytes())]),
        }
        super::require_disjoint(&what, &uses, false)
    }

    /// Zero the histogram and look-back state (before every split, then a barrier).
    pub fn record_reset(&self, rec: &mut Recorder, scratch: &MultisplitScratch) {
        rec.fill(scratch.hist.sub(0, self.hist_bytes()), 0);
        rec.fill(scratch.state.sub(0, self.state_bytes()), 0);
        if let (Some(c), Some(s)) = (self.composed(), &scratch.sort) {
            c.sort.record_reset(rec, s);
        }
    }

    /// What [`MultisplitPlan::record_reset`] writes (for the barrier after it).
    fn reset_ranges(&self, scratch: &MultisplitScratch) -> Vec<BufferSlice> {
        let mut v = vec![scratch.hist.sub(0, self.hist_bytes()), scratch.state.sub(0, self.state_bytes())];
        if let (Some(c), Some(s)) = (self.composed(), &scratch.sort) {
            v.extend(c.sort.reset_ranges(s));
        }
        v
    }

    /// Reset, barrier, split. Inputs are only read; `offsets_out` (B + 1 words) is optional.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &self,
        rec: &mut Recorder,
        keys_in: BufferSlice,
        keys_out: BufferSlice,
        values: Option<(BufferSlice, BufferSlice)>,
        aux: Option<BufferSlice>,
        offsets_out: Option<BufferSlice>,
        scratch: &MultisplitScratch,
    ) -> Result<()> {
        self.check((keys_in, keys_out), values, aux, offsets_out, scratch)?;
        self.record_reset(rec, scratch);
        rec.barrier(&self.reset_ranges(scratch), Access::TransferWrite, Access::ComputeReadWrite, "multisplit: histogram and look-back zeroed");
        self.record_split(rec, keys_in, keys_out, values, aux, offsets_out, scratch)
    }

    /// The split alone, on scratch reset since the last split.
    #[allow(clippy::too_many_arguments)]
    pub fn record_split(
        &self,
        rec: &mut Recorder,
        keys_in: BufferSlice,
        keys_out: BufferSlice,
        values: Option<(BufferSlice, BufferSlice)>,
        aux: Option<BufferSlice>,
        offsets_out: Option<BufferSlice>,
        scratch: &MultisplitScratch,
    ) -> Result<()> {
        self.check((keys_in, keys_out), values, aux, offsets_out, scratch)?;
        let what = self.desc.label();
        let hist = scratch.hist.sub(0, self.hist_bytes());
        let b = self.buckets();
        let (shift, bits) = match self.desc.source {
            BucketSource::Bits { lo, hi } => (lo, hi - lo),
            _ => (0, 0),
        };
        let aux_slice = aux.map_or(scratch.dummy.sub(0, 4), |a| a.sub(0, self.aux_bytes().max(4).min(a.size)));
        let kb = self.keys_bytes();
        if let (Some(c), Some(sort_scratch)) = (self.composed(), &scratch.sort) {
            let n = self.desc.n;
            // The sorted buckets: the sorted keys' bit field, or the sorted bucket ids (with
            // n = 0 nothing is read).
            let sorted = match (&c.by_index, scratch.index) {
                _ if n == 0 => scratch.dummy.sub(0, 4),
                (Some(bx), Some(ix)) => self.record_by_index(rec, bx, &c.sort, (keys_in, keys_out), values, aux_slice, ix, sort_scratch, scratch.dummy)?,
                _ => {
                    c.sort.record_sort(rec, keys_in, keys_out, values, sort_scratch)?;
                    keys_out.sub(0, kb)
                }
            };
            if let Some(o) = offsets_out {
                // (The sort's last barrier makes its output readable here.)
                let push: [u32; 4] = [n as u32, shift, bits, b];
                rec.dispatch_count(&c.bounds, &[sorted, o.sub(0, self.offsets_bytes())], bytemuck::bytes_of(&push), (b as u64 + 1).div_ceil(256) as u32)?;
            }
            return Ok(());
        }
        let Route::One(one) = &self.route else {
            return invalid(format!("{what}: a composed split without its sort scratch (a vkprims bug)"));
        };
        if self.desc.n > 0 {
            let push: [u32; 4] = [self.desc.n as u32, shift, bits, b];
            let groups = self.desc.n.div_ceil(HIST_CHUNK).min(self.desc.policy.histogram_groups as u64) as u32;
            rec.dispatch(&one.histogram, &[keys_in.sub(0, kb), hist, aux_slice], bytemuck::bytes_of(&push), [groups, 1, 1])?;
            rec.barrier(&[hist], Access::ComputeReadWrite, Access::ComputeReadWrite, "multisplit: histogram complete before the scan");
            // (A pass that folds scans the offsets in its tile 0.)
            if !one.pass.fold {
                rec.dispatch(&one.offsets, &[hist], bytemuck::bytes_of(&(self.desc.n as u32)), [1, 1, 1])?;
                rec.barrier(&[hist], Access::ComputeWrite, Access::ComputeRead, "multisplit: bucket offsets ready");
            }
            let vb = self.values_bytes().max(4);
            let (vi, vo) = values.unwrap_or((scratch.dummy, scratch.dummy));
            let state = scratch.state.sub(0, self.state_bytes());
            let push: [u32; 5] = [self.desc.n as u32, one.pass.tiles, shift, bits, b];
            let bufs = [keys_in.sub(0, kb), keys_out.sub(0, kb), vi.sub(0, vb.min(vi.size)), vo.sub(0, vb.min(vo.size)), hist, state, aux_slice];
            rec.dispatch_count(one.pass.pipeline()?, &bufs, bytemuck::bytes_of(&push), one.pass.workgroups())?;
        }
        if let Some(o) = offsets_out {
            // Offsets 0..B from the scanned histogram (or the pass's tile 0), then n.
            let before = if self.desc.n > 0 { Access::ComputeReadWrite } else { Access::TransferWrite };
            rec.barrier(&[hist], before, Access::TransferRead, "multisplit: offsets copied out");
            rec.copy(hist.sub(0, b as u64 * 4), o.sub(0, b as u64 * 4));
            rec.fill(o.sub(b as u64 * 4, 4), self.desc.n as u32);
        }
        Ok(())
    }

    /// Upload, split, download: (keys, values, offsets).
    pub fn run(&self, ctx: &Arc<Context>, keys: &[u32], values: Option<&[u32]>, aux: Option<&[u32]>) -> Result<(Vec<u32>, Option<Vec<u32>>, Vec<u32>)> {
        let what = self.desc.label();
        let (kw, vw) = ((self.desc.key.bytes() / 4) as usize, self.desc.value_bytes as usize / 4);
        let n = self.desc.n as usize;
        if keys.len() != n * kw {
            return invalid(format!("{what}: {} key words given", keys.len()));
        }
        if let Some(v) = values {
            if v.len() != n * vw {
                return invalid(format!("{what}: values hold {} elements, keys {n}", v.len() / vw.max(1)));
            }
        }
        check_aux(&self.desc, aux)?;
        let kin = gpu::upload(ctx, bytemuck::cast_slice(keys), "multisplit keys")?;
        let kout = Buffer::new(ctx, self.keys_bytes(), MemoryLocation::GpuOnly, "multisplit output")?;
        let hist = Buffer::new(ctx, self.hist_bytes(), MemoryLocation::GpuOnly, "multisplit histogram")?;
        let state = Buffer::new(ctx, self.state_bytes(), MemoryLocation::GpuOnly, "multisplit look-back")?;
        let dummy = Buffer::new(ctx, 4, MemoryLocation::GpuOnly, "multisplit unused binding")?;
        let offs = Buffer::new(ctx, self.offsets_bytes(), MemoryLocation::GpuOnly, "multisplit offsets")?;
        let abuf = match aux {
            Some(a) => Some(gpu::upload(ctx, bytemuck::cast_slice(a), "multisplit ids or splitters")?),
            None => None,
        };
        let vbufs = match values {
            Some(v) => Some((
                gpu::upload(ctx, bytemuck::cast_slice(v), "multisplit values")?,
                Buffer::new(ctx, self.values_bytes(), MemoryLocation::GpuOnly, "multisplit values out")?,
            )),
            None => None,
        };
        let sort_bufs = match self.sort_scratch_bytes() {
            Some((ka, va, h, st)) => Some([
                Buffer::new(ctx, ka, MemoryLocation::GpuOnly, "multisplit sort keys alt")?,
                Buffer::new(ctx, va, MemoryLocation::GpuOnly, "multisplit sort values alt")?,
                Buffer::new(ctx, h, MemoryLocation::GpuOnly, "multisplit sort histograms")?,
                Buffer::new(ctx, st.max(4), MemoryLocation::GpuOnly, "multisplit sort look-back")?,
            ]),
            None => None,
        };
        let index = match self.index_scratch_bytes() {
            Some(bytes) => Some(Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "multisplit ids and indices")?),
            None => None,
        };
        let scratch = MultisplitScratch {
            hist: hist.slice(),
            state: state.slice(),
            dummy: dummy.slice(),
            sort: sort_bufs.as_ref().map(|b| SortScratch { keys_alt: b[0].slice(), values_alt: b[1].slice(), hist: b[2].slice(), state: b[3].slice() }),
            index: index.as_ref().map(|b| b.slice()),
        };
        let mut outs = vec![kout.slice()];
        if let Some(v) = &vbufs {
            outs.push(v.1.slice());
        }
        let mut rec = Recorder::new(ctx, what.clone())?;
        rec.poison(&[outs.as_slice(), &[offs.slice()]].concat());
        self.record(
            &mut rec,
            kin.slice(),
            kout.slice(),
            vbufs.as_ref().map(|v| (v.0.slice(), v.1.slice())),
            abuf.as_ref().map(|a| a.slice()),
            Some(offs.slice()),
            &scratch,
        )?;
        rec.barrier(&outs, Access::ComputeWrite, Access::TransferRead, "multisplit output copied to the host");
        rec.barrier(&[offs.slice()], Access::ComputeWrite, Access::TransferRead, "scanned offsets copied to the host");
        rec.barrier(&[offs.slice()], Access::TransferWrite, Access::TransferRead, "offsets copied to the host");
        rec.submit_and_wait()?;
        drop(rec);
        let k: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(ctx, kout.head(self.keys_bytes()))?);
        let v = match &vbufs {
            Some(v) => Some(bytemuck::pod_collect_to_vec(&gpu::download(ctx, v.1.head(self.values_bytes()))?)),
            None => None,
        };
        let o = bytemuck::pod_collect_to_vec(&gpu::download(ctx, offs.slice())?);
        Ok((k, v, o))
    }
}

/// Bucket ids below B, splitters sorted: checked before any GPU work.
pub fn check_aux(desc: &MultisplitDesc, aux: Option<&[u32]>) -> Result<()> {
    let what = desc.label();
    match (desc.source, aux) {
        (BucketSource::Bits { .. }, None) => Ok(()),
        (BucketSource::Ids { buckets }, Some(ids)) => {
            if ids.len() as u64 != desc.n {
                return invalid(format!("{what}: {} bucket ids for {} elements", ids.len(), desc.n));
            }
            match ids.iter().position(|&id| id >= buckets) {
                Some(i) => invalid(format!("{what}: bucket id {} at element {i} is not below {buckets}", ids[i])),
                None => Ok(()),
            }
        }
        (BucketSource::Splitters { count }, Some(s)) => {
            let kw = (desc.key.bytes() / 4) as usize;
            if s.len() != count as usize * kw {
                return invalid(format!("{what}: {} splitter words for {count} splitters", s.len()));
            }
            match (1..count as usize).find(|&i| order_key(desc.key, false, s, i - 1) > order_key(desc.key, false, s, i)) {
                Some(i) => invalid(format!("{what}: splitters are not sorted (splitter {i} is below splitter {})", i - 1)),
                None => Ok(()),
            }
        }
        _ => invalid(format!("{what}: the bucket source and the ids/splitters given do not match")),
    }
}

// ---------------------------------------------------------------------------------------
// CPU reference

/// The bucket of element `i` (the same definitions as glsl/multisplit/buckets.glsl).
pub fn bucket_of(desc: &MultisplitDesc, keys: &[u32], aux: Option<&[u32]>, i: usize) -> u32 {
    match desc.source {
        BucketSource::Bits { lo, hi } => {
            let raw = if desc.key.wide() { keys[2 * i] as u64 | (keys[2 * i + 1] as u64) << 32 } else { keys[i] as u64 };
            ((raw >> lo) & ((1u64 << (hi - lo)) - 1)) as u32
        }
        BucketSource::Ids { .. } => aux.unwrap()[i],
        BucketSource::Splitters { count } => {
            // The number of splitters <= the key (they are sorted: a binary search).
            let s = aux.unwrap();
            let k = order_key(desc.key, false, keys, i);
            let (mut lo, mut hi) = (0usize, count as usize);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if order_key(desc.key, false, s, mid) <= k { lo = mid + 1 } else { hi = mid }
            }
            lo as u32
        }
    }
}

/// The stable partition: (element order, offsets with B + 1 entries).
pub fn reference(desc: &MultisplitDesc, keys: &[u32], aux: Option<&[u32]>) -> (Vec<usize>, Vec<u32>) {
    let b = desc.source.buckets() as usize;
    let buckets: Vec<u32> = (0..desc.n as usize).map(|i| bucket_of(desc, keys, aux, i)).collect();
    let mut counts = vec![0u32; b + 1];
    for &x in &buckets {
        counts[x as usize + 1] += 1;
    }
    for i in 1..=b {
        counts[i] += counts[i - 1];
    }
    // A stable counting placement: O(n), so benchmarks can check 2^28 elements.
    let mut next: Vec<usize> = counts[..b].iter().map(|&c| c as usize).collect();
    let mut order = vec![0usize; desc.n as usize];
    for (i, &x) in buckets.iter().enumerate() {
        order[next[x as usize]] = i;
        next[x as usize] += 1;
    }
    (order, counts)
}

/// Compare a GPU result with [`reference()`] bit for bit; `None` when it passes.
pub fn check(
    desc: &MultisplitDesc,
    keys: &[u32],
    values: Option<&[u32]>,
    aux: Option<&[u32]>,
    got: (&[u32], Option<&[u32]>, &[u32]),
) -> Option<String> {
    let (order, offsets) = reference(desc, keys, aux);
    let kw = (desc.key.bytes() / 4) as usize;
    if got.2 != offsets.as_slice() {
        let i = (0..offsets.len()).find(|&i| got.2.get(i) != Some(&offsets[i])).unwrap_or(0);
        return Some(format!("offset {i}: got {:?}, want {}", got.2.get(i), offsets[i]));
    }
    if desc.ranking == Ranking::Atomic {
        // Order within a bucket is unspecified: bucket by bucket, the same elements.
        let (n, vw) = (desc.n as usize, desc.value_bytes as usize / 4);
        if got.0.len() != n * kw || got.1.is_some_and(|g| g.len() != n * vw) {
            return Some("output lengths differ from the input's".into());
        }
        let bucket = |i: usize| offsets.partition_point(|&o| o as usize <= i) as u64;
        if let (Some(v), Some(g)) = (values, got.1) {
            if (0..n).all(|i| v[i * vw] == i as u32) {
                // Values are input indices: O(n). Each output element names its input element;
                // together they must be a bijection, carry that element's key and value, and
                // sit in its bucket's range.
                let source = match super::sort::input_indices(keys, v, got.0, g, kw, vw) {
                    Ok(s) => s,
                    Err(e) => return Some(e),
                };
                for (p, &j) in source.iter().enumerate() {
                    let want = bucket_of(desc, keys, aux, j) as u64 + 1;
                    if bucket(p) != want {
                        return Some(format!("element {p} (input {j}): in bucket {}, belongs in {}", bucket(p) - 1, want - 1));
                    }
                }
                return None;
            }
        }
        let g = |i: usize| (&got.0[i * kw..(i + 1) * kw], got.1.map_or(&[][..], |v| &v[i * vw..(i + 1) * vw]));
        let w = |i: usize| (&keys[order[i] * kw..(order[i] + 1) * kw], values.map_or(&[][..], |v| &v[order[i] * vw..(order[i] + 1) * vw]));
        return super::sort::check_runs(n, bucket, bucket, g, w);
    }
    let want = super::sort::gather(keys, kw, &order);
    if let Some(w) = (0..want.len()).find(|&w| got.0.get(w) != Some(&want[w])) {
        return Some(format!("key {}: got {:?}, want {:#x}", w / kw, got.0.get(w), want[w]));
    }
    if let (Some(v), Some(g)) = (values, got.1) {
        let vw = desc.value_bytes as usize / 4;
        let want = super::sort::gather(v, vw, &order);
        if let Some(w) = (0..want.len()).find(|&w| g.get(w) != Some(&want[w])) {
            return Some(format!("value {} (stability): got {:?}, want {:#x}", w / vw, g.get(w), want[w]));
        }
    }
    None
}
