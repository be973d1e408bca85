//! OneSweep LSD radix sort (GPU kernels: glsl/sort/): keys or key-value pairs, six key
//! types, ascending or descending, stable, over all bits or a bit range.
//!
//! Keys sort by their order key (src/prims/sort.rs `order_key`, glsl/sort/sort_keys.glsl):
//! unsigned order for u32/u64, signed for i32/i64, IEEE 754 totalOrder for f32/f64
//! (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN). Descending inverts the order key, so
//! equal keys keep their input order in both directions. With a bit range `lo..hi` (CUB's
//! begin_bit/end_bit) keys sort by bits lo..hi of the order key only.
//!
//! The sort is out of place: the input is only read. One upfront pass histograms every digit
//! pass at once; then each 8-bit digit pass is one binning pass (onesweep.comp) with decoupled
//! look-back and decoupled fallback; a pass whose digit is the same for every key only copies.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Use;
use super::binning::{self, BinningInput, BinningKernel, BinningPass, BinningPolicy, Ranking, ROLE_BYTE_DIGITS, ROLE_CLASS_ROUNDS, ROLE_CLASS_STEPS, ROLE_PACK_IN, ROLE_SPLIT_IN, ROLE_SPLIT_OUT};
use crate::error::{invalid, Result};
use crate::gpu::{self, Access, Buffer, BufferSlice, Context, MemoryLocation, Pipeline, PipelineKey, Recorder};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyType {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

impl KeyType {
    pub const ALL: [KeyType; 6] = [KeyType::U32, KeyType::I32, KeyType::F32, KeyType::U64, KeyType::I64, KeyType::F64];
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::I32 => "i32",
            KeyType::F32 => "f32",
            KeyType::U64 => "u64",
            KeyType::I64 => "i64",
            KeyType::F64 => "f64",
        }
    }
    pub fn parse(s: &str) -> Result<KeyType> {
        Self::ALL.into_iter().find(|k| k.name() == s).map_or_else(
            || invalid(format!("unsupported key type '{s}' (u32, i32, f32, u64, i64, f64)")),
            Ok,
        )
    }
    pub fn bits(self) -> u32 {
        if self.wide() { 64 } else { 32 }
    }
    pub fn bytes(self) -> u64 {
        self.bits() as u64 / 8
    }
    pub fn wide(self) -> bool {
        matches!(self, KeyType::U64 | KeyType::I64 | KeyType::F64)
    }
    /// 0 unsigned, 1 signed, 2 floating point (the kernels' KEY_KIND).
    pub(crate) fn kind(self) -> u32 {
        match self {
            KeyType::U32 | KeyType::U64 => 0,
            KeyType::I32 | KeyType::I64 => 1,
            KeyType::F32 | KeyType::F64 => 2,
        }
    }
}

/// The sort's tuning: the binning pass's policy.
pub type SortPolicy = BinningPolicy;

/// How a sort's bit range is cut into digit passes: as many passes either way, the fewest
/// 8-bit digits can do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DigitLayout {
    /// Digits as even as they can be, the wider first: 10 bits as 5 + 5, 12 as 6 + 6, 26 as
    /// 7 + 7 + 7 + 5; whole bytes where the range is. A digit of fewer buckets leaves each
    /// tile longer runs of a bucket to scatter.
    #[default]
    Even,
    /// 8-bit digits from the low end, the last one shorter (CUB's): 10 bits as 8 + 2. The
    /// permutation's passes, whose kernels take the last digit as a byte.
    Bytes,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SortDesc {
    pub key: KeyType,
    /// 0 (keys only), 4 or 8: the payload moved with each key.
    pub value_bytes: u32,
    pub n: u64,
    pub descending: bool,
    /// Sort by bits lo..hi of the order key (default: all).
    pub bits: (u32, u32),
    pub subgroup_size: Option<u32>,
    /// Debug: when >= 2, look-back treats tile 0 and every tile t with t % period ==
    /// period - 1 as not ready, so their successors always take the decoupled fallback.
    pub force_fallback_period: u32,
    pub policy: SortPolicy,
    /// `Stable` (the default) or `Atomic`: the first digit pass ranks with workgroup atomics,
    /// so equal keys end up in an unspecified order (the later passes stay stable, as LSD
    /// order needs, so the keys are still sorted). Cheaper; used by the permutation.
    #[serde(default)]
    pub ranking: Ranking,
    /// How the bit range is cut into digits ([`SortDesc::digit`]).
    #[serde(default)]
    pub digits: DigitLayout,
}

impl SortDesc {
    pub fn new(key: KeyType, n: u64) -> SortDesc {
        SortDesc {
            key,
            value_bytes: 0,
            n,
            descending: false,
            bits: (0, key.bits()),
            subgroup_size: None,
            force_fallback_period: 0,
            policy: SortPolicy::default(),
            ranking: Ranking::Stable,
            digits: DigitLayout::Even,
        }
    }
    pub fn label(&self) -> String {
        let v = if self.value_bytes > 0 { format!(" pairs({}B)", self.value_bytes) } else { String::new() };
        let d = if self.descending { " descending" } else { "" };
        let b = if self.bits != (0, self.key.bits()) { format!(" bits {}:{}", self.bits.0, self.bits.1) } else { String::new() };
        format!("sort {}{v}{d}{b} n={}", self.key.name(), self.n)
    }
    /// Whether the first digit pass may leave equal digits in any order, so it ranks with
    /// atomics: `Ranking::Atomic`, or keys alone over every key bit
    /// ([`BinningPolicy::atomic_first_keys`]), where equal order keys are equal keys and no
    /// order among them can be seen in the output.
    pub fn first_pass_unordered(&self) -> bool {
        self.ranking == Ranking::Atomic || (self.policy.atomic_first_keys && self.value_bytes == 0 && self.bits == (0, self.key.bits()))
    }
    /// Digit passes: the fewest digits of at most 8 bits that cover the bit range. (11-bit
    /// digits, three passes for 32-bit keys, took about twice an 8-bit pass's time on the
    /// H200 even ranked with atomics alone: bench/results/h200/binning/session18/3-wide-digits,
    /// the README's results.)
    pub fn passes(&self) -> u32 {
        (self.bits.1 - self.bits.0).div_ceil(8)
    }
    /// Bits of every digit but the last ([`DigitLayout`]).
    fn digit_width(&self) -> u32 {
        match self.digits {
            DigitLayout::Even => (self.bits.1 - self.bits.0).div_ceil(self.passes()),
            DigitLayout::Bytes => 8,
        }
    }
    /// Bits of the last digit pass (the others take `digit_width`).
    fn last_bits(&self) -> u32 {
        (self.bits.1 - self.bits.0) - self.digit_width() * (self.passes() - 1)
    }
    /// Digit pass `p`'s digit: (its lowest bit of the order key, its bits). A caller that
    /// counts the digits itself ([`SortPlan::record_passes`]) counts these.
    pub fn digit(&self, p: u32) -> (u32, u32) {
        let w = self.digit_width();
        (self.bits.0 + w * p, if p + 1 == self.passes() { self.last_bits() } else { w })
    }
}

pub use super::binning::MAX_N;

/// Scratch buffers a sort needs besides its input and output (allocate once, reuse).
pub struct SortScratch {
    pub keys_alt: BufferSlice,
    /// At least 4 bytes even for keys only.
    pub values_alt: BufferSlice,
    pub hist: BufferSlice,
    pub state: BufferSlice,
}

/// What a sort's first and last passes do differently (the permutation of indices, a split
/// sort's value arrays): PASS_ROLE values of the pass kernel, and the last pass's items per
/// invocation (0: the policy's).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PassRoles {
    pub first: u32,
    pub last: u32,
    pub last_items: u32,
}

/// The values a sort moves: none; one array in and one out; or, for a split sort
/// ([`SortPlan::split`]), 8-byte values whose low and high words are two arrays each way.
#[derive(Clone, Copy, Debug)]
pub(crate) enum SortValues {
    None,
    Array(BufferSlice, BufferSlice),
    Split { lo_in: BufferSlice, hi_in: BufferSlice, lo_out: BufferSlice, hi_out: BufferSlice },
}

impl From<Option<(BufferSlice, BufferSlice)>> for SortValues {
    fn from(values: Option<(BufferSlice, BufferSlice)>) -> SortValues {
        values.map_or(SortValues::None, |(vi, vo)| SortValues::Array(vi, vo))
    }
}

/// The passes of a [`SortPlan`] a digit pass can run on.
#[derive(Clone, Copy, PartialEq)]
enum PassSlot {
    First,
    Second,
    Steps,
    Middle,
    Last,
}

impl PassSlot {
    /// For result rows and `pipelines`.
    fn name(self) -> &'static str {
        match self {
            PassSlot::First => "first",
            PassSlot::Second => "second",
            PassSlot::Steps => "class-step",
            PassSlot::Middle => "middle",
            PassSlot::Last => "last",
        }
    }
}

/// A checked, ready-to-record sort.
pub struct SortPlan {
    desc: SortDesc,
    histogram: Arc<Pipeline>,
    /// One load per key, for keys bound off a 16-byte boundary (where the device allows it).
    histogram_unaligned: Option<Arc<Pipeline>>,
    offsets: Arc<Pipeline>,
    pass: BinningPass,
    /// The first digit pass when it ranks with atomics (`Ranking::Atomic`).
    first: Option<BinningPass>,
    /// The second digit pass when it ranks with atomics in class rounds (keys alone, without
    /// class steps).
    second: Option<BinningPass>,
    /// The passes 1 to `steps_through` where they rank in class steps (keys alone).
    steps: Option<BinningPass>,
    steps_through: u32,
    /// The last digit pass where it is another pipeline (the permutation's role).
    last: Option<BinningPass>,
    /// 8-byte values read from two arrays of words and written to two ([`SortPlan::split`]).
    split: bool,
    /// 4-byte pairs moved as one 8-byte word each ([`BinningPolicy::packed_pairs`]).
    packed: bool,
}

impl SortPlan {
    pub fn new(ctx: &Context, desc: SortDesc) -> Result<SortPlan> {
        // Packed pairs where the policy asks and the device allows (8-byte words bound whole,
        // 64-bit integers in shaders); else planes.
        let packs = desc.policy.packed_pairs && desc.key.bytes() == 4 && desc.value_bytes == 4 && desc.passes() >= 2;
        if packs && desc.n * 8 <= ctx.max_storage_buffer_range() && ctx.capabilities().shader_int64 {
            let roles = PassRoles { first: ROLE_PACK_IN, last: 0, last_items: 0 };
            return SortPlan::with_pass_kernel(ctx, desc, "sort_onesweep_k64_v0_packed", Some(roles));
        }
        let kw = if desc.key.wide() { "k64" } else { "k32" };
        let shader = format!("sort_onesweep_{kw}_v{}", desc.value_bytes / 4);
        SortPlan::with_pass_kernel(ctx, desc, &shader, None)
    }

    /// A sort of 32-bit keys with 8-byte values whose first pass reads each value's low and
    /// high words from two arrays and whose last pass writes them to two
    /// ([`SortPlan::record_split`]): the composed multisplit's (bucket id, (key, value)) pairs,
    /// with no pass to pack or unpack them. One or two digit passes (at most 16 bits): a third
    /// would need a second scratch array of values.
    pub(crate) fn split(ctx: &Context, mut desc: SortDesc) -> Result<SortPlan> {
        if desc.key.wide() || desc.value_bytes != 8 || desc.passes() > 2 {
            return invalid(format!("{}: a split sort takes 32-bit keys, 8-byte values and at most 16 bits (a vkprims bug)", desc.label()));
        }
        // Its tile where the policy leaves the items to the default: 512x7, not the 384x10 of
        // other 3-word elements (H200, the 1,000-way split of u32 pairs at 2^24 / 2^26 / 2^28:
        // 0.4312 / 1.5789 / 6.1425 ms against 0.4462 / 1.6319 / 6.3898; the first pass, which
        // reads three arrays, 0.832 ms at 2^26 against 0.897, the last 0.665 against 0.656;
        // 512x6 1.6932, 448x7 1.6991, 256x14 1.9209: bench/results/h200/binning/session43/3-tiles43).
        if desc.policy.items == 0 {
            desc.policy.items = 7;
            if desc.policy.workgroup_size == 0 {
                desc.policy.workgroup_size = 512;
            }
        }
        let roles = PassRoles { first: ROLE_SPLIT_IN, last: ROLE_SPLIT_OUT, last_items: 0 };
        SortPlan::with_pass_kernel(ctx, desc, "sort_onesweep_k32_v2_split", Some(roles))
    }

    /// A sort whose digit passes run `shader` (a variant of glsl/sort/onesweep.comp); with
    /// `roles`, its first and last passes get their values of the kernel's PASS_ROLE (a single
    /// pass both), the others 0.
    pub(crate) fn with_pass_kernel(ctx: &Context, desc: SortDesc, shader: &str, roles: Option<PassRoles>) -> Result<SortPlan> {
        let what = desc.label();
        let (lo, hi) = desc.bits;
        if lo >= hi || hi > desc.key.bits() {
            return invalid(format!("{what}: bit range {lo}:{hi} must satisfy lo < hi <= {}", desc.key.bits()));
        }
        let kind = desc.key.kind();
        let desc_flag = desc.descending as u32;
        let offsets =
            ctx.pipeline(PipelineKey { shader: "sort_offsets", spec: vec![64], subgroup_size: desc.subgroup_size, bindings: 1, push_bytes: 4 })?;
        // Packed pairs run the pass kernel of 8-byte keys alone, and are planned as such.
        let packed = roles.is_some_and(|r| r.first & ROLE_PACK_IN != 0);
        let (key, value_bytes) = if packed { (KeyType::U64, 0) } else { (desc.key, desc.value_bytes) };
        let input = BinningInput { key, value_bytes, n: desc.n, subgroup_size: desc.subgroup_size };
        // A sort's own passes take whole bytes where its last digit does (only the last can
        // be narrower), and then mask them with a constant, except 8-byte keys with values
        // (H200, 2^26: u32 keys 1.438 ms against 1.450, pairs 2.012 against 2.025-2.030,
        // session30; 8-byte keys alone tie or gain, f64 4.057 against 4.109, session31; i64
        // pairs took 92 registers against 80: bench/results/h200/binning/session30).
        // (The permutation's pass kernel has neither byte digits nor `_tot` variants; a split
        // sort's is the sort's own.)
        let split = roles.is_some_and(|r| r.first & ROLE_SPLIT_IN != 0);
        let own = roles.is_none() || split || packed;
        let bytes = if own && desc.last_bits() == 8 && (!desc.key.wide() || desc.value_bytes == 0) { ROLE_BYTE_DIGITS } else { 0 };
        // Keys alone take the keys sort's tile and late counts only with whole-byte digits: a
        // narrower last digit takes the general digit code, and a 12-bit sort of 2^26 u32 keys
        // (the 4,096-way multisplit) then took 1.05 ms at 512x17 against 0.76 at 512x16, late
        // or early counts alike (H200, bench/results/h200/binning/session41/4-composed41).
        let keys_sort = roles.is_none() && desc.value_bytes == 0 && bytes != 0;
        // (`fold_max_tiles` serves the permutation's passes, which have no totals variants.)
        let bindings = if split { 8 } else { 6 };
        let kernel = BinningKernel { shader, key_kind: kind, descending: desc.descending, source: 0, bindings, push_bytes: 24, role: 0, totals: own, fold_max_tiles: 512, keys_sort, fold_keys_tile: false, auto_tile: None };
        let binning = |ranking: Ranking, role: u32, items: u32| {
            let policy = BinningPolicy { items: if items == 0 { desc.policy.items } else { items }, ..desc.policy };
            BinningPass::plan(ctx, &what, input.clone(), desc.force_fallback_period, &policy, ranking, BinningKernel { role: role | bytes, ..kernel.clone() })
        };
        let single = desc.passes() == 1;
        // A single pass is both first and last (the last pipeline). Only the first pass may
        // rank with atomics: every later one must keep the order of the passes before it
        // among its equal digits (LSD order), which GPU atomics do not. The exception is the
        // second pass in class rounds (ROLE_CLASS_ROUNDS): it keeps the order between the
        // first pass's buckets, which is all LSD order needs where the order of elements equal
        // in both digits cannot show (the permutation's ids, below keys alone); as a
        // permutation's last pass it is honoured only there, right after the first.
        let (first, last) = match roles {
            // Packed pairs end in a pass of 4-byte pairs that reads the words (planes in
            // sequence, as unpacked pairs are planned, at its own default tile).
            Some(r) if packed => {
                let pairs = BinningInput { key: desc.key, value_bytes: 4, ..input.clone() };
                let unpack = BinningKernel { shader: "sort_onesweep_k32_v1_unpack", role: bytes, auto_tile: Some(BinningPolicy::UNPACK_TILE), ..kernel.clone() };
                let last = BinningPass::plan(ctx, &what, pairs, desc.force_fallback_period, &desc.policy, Ranking::Stable, unpack)?;
                (Some(binning(desc.ranking, r.first, 0)?), Some(last))
            }
            Some(r) if single => (None, Some(binning(desc.ranking, (r.first | r.last) & !ROLE_CLASS_ROUNDS, r.last_items)?)),
            Some(r) => {
                let classes = r.last & ROLE_CLASS_ROUNDS != 0 && desc.passes() == 2;
                let last = match classes {
                    true => binning(desc.ranking, r.last, r.last_items)?,
                    false => binning(Ranking::Stable, r.last & !ROLE_CLASS_ROUNDS, r.last_items)?,
                };
                (Some(binning(desc.ranking, r.first, 0)?), Some(last))
            }
            None => (if desc.first_pass_unordered() { Some(binning(Ranking::Atomic, 0, 0)?) } else { None }, None),
        };
        // The same order lets the later passes rank in class steps
        // (BinningPolicy::class_steps): a subgroup's run of elements that share every earlier
        // digit may order them any way, as only keys equal in every sorted bit could show it.
        // Pass p takes them where its classes (n >> 8p keys on average) are long enough. Keys
        // alone: with values (`Ranking::Atomic`, the permutation's arrays) they are not measured
        // (the pair pass has no register to spare on the H200), and the class rounds stay.
        let unordered = roles.is_none() && desc.first_pass_unordered() && desc.passes() >= 2;
        let use_steps = unordered && desc.policy.class_steps && desc.value_bytes == 0;
        let pass = binning(Ranking::Stable, 0, 0)?;
        // (The role leaves the geometry as it is: a run is the stable pass's ITEMS loads.)
        let run = pass.items as u64 * desc.subgroup_size.unwrap_or(ctx.info().subgroup.max_size) as u64;
        let min_class = desc.policy.class_step_runs as u64 * run;
        // Not where every pass has a tile per SM (`_tot` passes, at most 255 tiles): those
        // tiles are latency-bound, and the run check's two loads cost more than the steps
        // save (H200, u32 keys at 2^20: 0.0494 ms against 0.0486-0.0489; at 2^21, 256
        // tiles, 0.0840 against 0.0876-0.0881: bench/results/h200/binning/session34/3-small34).
        let steps_through = match use_steps && !pass.totals {
            true => (1..desc.passes()).take_while(|&p| desc.n >> (desc.digit(p).0 - desc.bits.0) >= min_class).last().unwrap_or(0),
            false => 0,
        };
        let steps = if steps_through > 0 { Some(binning(Ranking::Stable, ROLE_CLASS_STEPS, 0)?) } else { None };
        // Else the second pass ranks with atomics in class rounds (the first
        // pass's buckets in order), given enough tiles (BinningPolicy::second_pass_tiles).
        // Elements it may reorder then share their first two digits and their place among the
        // later passes' equal digits, so only keys equal in every sorted bit can trade places.
        let second = match unordered && !use_steps {
            true => Some(binning(Ranking::Atomic, ROLE_CLASS_ROUNDS, 0)?).filter(|p| p.tiles >= desc.policy.second_pass_tiles),
            false => None,
        };
        // The digit spans only where a pass folds (it finds a trivial pass from them).
        let spans = [Some(&pass), first.as_ref(), second.as_ref(), steps.as_ref(), last.as_ref()].into_iter().flatten().any(|p| p.fold);
        // 128 invocations by default: a workgroup even a pinned subgroup size of 4 allows.
        let hw = desc.policy.histogram_workgroup;
        let sg = &ctx.info().subgroup;
        let max_sg = desc.subgroup_size.unwrap_or(sg.max_size);
        if !hw.is_multiple_of(max_sg) || hw > ctx.info().max_workgroup_invocations || hw / desc.subgroup_size.unwrap_or(sg.min_size) > sg.max_workgroup_subgroups {
            return invalid(format!("{what}: no histogram workgroup of {hw} invocations on this device (subgroup sizes {}..{})", sg.min_size, sg.max_size));
        }
        let histogram_kernel = |vector_loads: bool| {
            ctx.pipeline(PipelineKey {
                shader: if desc.key.wide() { "sort_histogram_k64" } else { "sort_histogram_k32" },
                spec: vec![hw, kind, desc_flag, desc.passes(), vector_loads as u32, spans as u32, desc.digit_width()],
                subgroup_size: desc.subgroup_size,
                bindings: 2,
                push_bytes: 12,
            })
        };
        let vector_loads = !desc.policy.histogram_scalar_loads;
        let histogram = histogram_kernel(vector_loads)?;
        let histogram_unaligned = if vector_loads && ctx.limits.min_storage_buffer_offset_alignment < 16 {
            Some(histogram_kernel(false)?)
        } else {
            None
        };
        let mut plan = SortPlan { desc, histogram, histogram_unaligned, offsets, pass, first, second, steps, steps_through, last, split, packed };
        // Only the passes it dispatches are compiled: a two-pass sort with roles never runs its
        // middle pass, nor one whose later passes all rank in class steps; every pass keeps its
        // geometry (the middle pass's is the stable passes' tile).
        let used: Vec<PassSlot> = (0..plan.desc.passes()).map(|p| plan.slot(p)).collect();
        let SortPlan { first, second, steps, pass, last, .. } = &mut plan;
        let slots = [(PassSlot::First, first.as_mut()), (PassSlot::Second, second.as_mut()), (PassSlot::Steps, steps.as_mut()), (PassSlot::Middle, Some(pass)), (PassSlot::Last, last.as_mut())];
        for (slot, pass) in slots {
            if let Some(pass) = pass.filter(|_| used.contains(&slot)) {
                pass.compile(ctx)?;
            }
        }
        Ok(plan)
    }

    pub fn desc(&self) -> &SortDesc {
        &self.desc
    }
    /// The digit passes that run, named: the first and second passes where they differ, the
    /// class-step passes (1 to `steps_through`), the middle passes, the last pass where it
    /// differs.
    fn named_passes(&self) -> impl Iterator<Item = (&'static str, &BinningPass)> {
        self.slot_passes().into_iter().filter_map(|(slot, p)| p.filter(|p| p.is_compiled()).map(|p| (slot.name(), p)))
    }
    /// Each slot's own pass (none where the plan has none there), in dispatch order.
    fn slot_passes(&self) -> [(PassSlot, Option<&BinningPass>); 5] {
        [(PassSlot::First, self.first.as_ref()), (PassSlot::Second, self.second.as_ref()), (PassSlot::Steps, self.steps.as_ref()), (PassSlot::Middle, Some(&self.pass)), (PassSlot::Last, self.last.as_ref())]
    }
    /// The most tiles of any digit pass. Passes may differ: a role's one-plane tile can hold
    /// more or fewer elements than the middle passes' (their workgroups are tuned apart).
    pub fn tiles(&self) -> u32 {
        self.named_passes().map(|(_, p)| p.tiles).max().unwrap_or(0)
    }
    /// Every digit-pass pipeline, named (see `named_passes`).
    pub fn pass_pipelines(&self) -> Vec<(&'static str, &Arc<Pipeline>)> {
        self.named_passes().filter_map(|(name, p)| p.pipeline().ok().map(|pl| (name, pl))).collect()
    }
    /// The stable passes' tile (the middle pass's geometry, whether or not it runs).
    pub fn tile_keys(&self) -> u64 {
        self.pass.tile_keys()
    }
    /// For result rows: the binning pass's geometry and ranking (the middle passes', or where
    /// none runs the first pass's), and the upfront histogram's workgroups and loads where
    /// they are not the default.
    pub fn policy_label(&self) -> String {
        let base = self.named_passes().find(|(name, _)| *name == "middle").or_else(|| self.named_passes().next());
        let (base_name, middle) = base.map_or(("middle", self.pass.label()), |(name, p)| (name, p.label()));
        let mut s = middle.clone();
        // The other passes where they differ (atomic ranking, the permutation's roles).
        for (name, p) in self.named_passes().filter(|(name, _)| *name != base_name) {
            let label = p.label();
            if label != middle {
                s += &format!("; {name} pass {label}");
            }
        }
        let g = self.desc.policy.histogram_groups;
        if g != BinningPolicy::default().histogram_groups {
            s += &format!(", histogram {g} groups");
        }
        let w = self.desc.policy.histogram_workgroup;
        if w != BinningPolicy::default().histogram_workgroup {
            s += &format!(", histogram workgroups of {w}");
        }
        if self.desc.policy.histogram_scalar_loads {
            s += ", histogram scalar loads";
        }
        if self.packed {
            s += ", pairs packed in 8-byte words";
        }
        s
    }
    /// Whether the pairs travel as one 8-byte word each ([`BinningPolicy::packed_pairs`]).
    pub fn packed(&self) -> bool {
        self.packed
    }
    pub fn keys_bytes(&self) -> u64 {
        self.desc.n * self.desc.key.bytes()
    }
    pub fn values_bytes(&self) -> u64 {
        self.desc.n * self.desc.value_bytes as u64
    }
    /// Digit histograms and offsets of every pass, then a flag per pass.
    pub fn hist_bytes(&self) -> u64 {
        binning::UPFRONT_HIST_BYTES
    }
    /// Per pass: tile ticket, debug counter and the look-back words (256 digits per tile).
    /// Each pass has its own region, so one fill before the sort resets every pass.
    pub fn pass_state_bytes(&self) -> u64 {
        // Rounded up so that every pass's region starts at an offset any device can bind
        // (minStorageBufferOffsetAlignment is at most 256).
        // Sized for the pass with the most tiles. A region too small for a pass puts its last
        // tiles' look-back words out of bounds: undefined behaviour; the H200 dropped the
        // writes and read not-ready, so those tiles fell back for each other, in time
        // quadratic in their number (sessions 15-16's permutation of indices, whose first and
        // last passes had 384-wide tiles and the middle pass, which sized the regions, 448:
        // 37.7 ms at 2^24 against 0.46, bench/results/h200/binning/session17).
        binning::state_bytes(self.tiles(), self.desc.policy.timeline).next_multiple_of(256)
    }
    pub fn state_bytes(&self) -> u64 {
        self.pass_state_bytes() * self.desc.passes() as u64
    }
    /// The alternate buffers' sizes: a key and a value array, or for packed pairs an array of
    /// 8-byte words each (the second only where a middle pass runs).
    fn alt_bytes(&self) -> (u64, u64) {
        match self.packed {
            true => (8 * self.desc.n, if self.desc.passes() > 2 { 8 * self.desc.n } else { 4 }),
            false => (self.keys_bytes(), self.values_bytes().max(4)),
        }
    }
    /// Scratch sizes in bytes: (keys_alt, values_alt, hist, state).
    pub fn scratch_bytes(&self) -> (u64, u64, u64, u64) {
        let (ka, va) = self.alt_bytes();
        (ka, va, self.hist_bytes(), self.state_bytes())
    }

    /// Every buffer that carries state from one sort to the next (histograms, tickets,
    /// look-back words): zero them before each sort, followed by a transfer-to-compute
    /// barrier ([`SortPlan::record`] does both).
    pub fn record_reset(&self, rec: &mut Recorder, scratch: &SortScratch) {
        for r in self.reset_ranges(scratch) {
            rec.fill(r, 0);
        }
    }

    /// What [`SortPlan::record_reset`] zeroes (for the barrier after it).
    pub fn reset_ranges(&self, scratch: &SortScratch) -> Vec<BufferSlice> {
        let mut v = vec![scratch.hist.sub(0, self.hist_bytes())];
        if self.desc.n > 0 {
            v.push(scratch.state.sub(0, self.state_bytes()));
        }
        v
    }

    /// Reset, barrier, sort. `keys_in` (and `values_in`) are only read; the result lands in
    /// `keys_out` (and `values_out`). The caller orders earlier writes of the inputs before
    /// this and later reads of the outputs after it.
    pub fn record(
        &self,
        rec: &mut Recorder,
        keys_in: BufferSlice,
        keys_out: BufferSlice,
        values: Option<(BufferSlice, BufferSlice)>,
        scratch: &SortScratch,
    ) -> Result<()> {
        self.check(keys_in, keys_out, values.into(), scratch)?;  // before anything is recorded
        self.record_reset(rec, scratch);
        rec.barrier(&self.reset_ranges(scratch), Access::TransferWrite, Access::ComputeReadWrite, "sort: histograms and look-back zeroed");
        self.record_sort(rec, keys_in, keys_out, values, scratch)
    }

    /// The sort alone, on scratch reset since the last sort.
    pub fn record_sort(
        &self,
        rec: &mut Recorder,
        keys_in: BufferSlice,
        keys_out: BufferSlice,
        values: Option<(BufferSlice, BufferSlice)>,
        scratch: &SortScratch,
    ) -> Result<()> {
        self.record_sort_values(rec, keys_in, keys_out, values.into(), scratch)
    }

    /// A split sort ([`SortPlan::split`]) alone, on scratch reset since the last sort: the
    /// values' low and high words from `lo_in` and `hi_in` to `lo_out` and `hi_out` (n words
    /// each).
    pub(crate) fn record_split(
        &self,
        rec: &mut Recorder,
        (keys_in, keys_out): (BufferSlice, BufferSlice),
        (lo_in, hi_in): (BufferSlice, BufferSlice),
        (lo_out, hi_out): (BufferSlice, BufferSlice),
        scratch: &SortScratch,
    ) -> Result<()> {
        self.record_sort_values(rec, keys_in, keys_out, SortValues::Split { lo_in, hi_in, lo_out, hi_out }, scratch)
    }

    fn record_sort_values(&self, rec: &mut Recorder, keys_in: BufferSlice, keys_out: BufferSlice, values: SortValues, scratch: &SortScratch) -> Result<()> {
        self.check(keys_in, keys_out, values, scratch)?;
        if self.desc.n == 0 {
            return Ok(());
        }
        // Upfront histogram of every pass, unless each pass takes its totals from its tiles.
        if (0..self.desc.passes()).all(|p| self.pass_at(p).totals) {
            return self.record_passes_values(rec, keys_in, keys_out, values, scratch);
        }
        let kb = self.keys_bytes();
        let hist = scratch.hist.sub(0, self.hist_bytes());
        let push: [u32; 3] = [self.desc.n as u32, self.desc.bits.0, self.desc.last_bits()];
        // A round of a histogram workgroup counts 16 keys an invocation (64-bit: 8, so their
        // workgroups take two rounds each, as tuned).
        let per_round = self.desc.policy.histogram_workgroup as u64 * 16;
        let groups = (self.desc.policy.histogram_groups as u64).min(self.desc.n.div_ceil(per_round)) as u32;
        let histogram = match &self.histogram_unaligned {
            Some(scalar) if !keys_in.offset.is_multiple_of(16) => scalar,
            _ => &self.histogram,
        };
        rec.dispatch(histogram, &[keys_in.sub(0, kb), hist], bytemuck::bytes_of(&push), [groups.max(1), 1, 1])?;
        rec.barrier(&[hist], Access::ComputeReadWrite, Access::ComputeReadWrite, "sort: histograms complete before the scan");
        self.record_passes_values(rec, keys_in, keys_out, values, scratch)
    }

    /// Which of the plan's passes runs digit pass `p`.
    fn slot(&self, p: u32) -> PassSlot {
        match p {
            _ if self.last.is_some() && p + 1 == self.desc.passes() => PassSlot::Last,
            0 if self.first.is_some() => PassSlot::First,
            0 => PassSlot::Middle,
            1 if self.second.is_some() => PassSlot::Second,
            _ if p <= self.steps_through && self.steps.is_some() => PassSlot::Steps,
            _ => PassSlot::Middle,
        }
    }
    /// The binning pass of digit pass `p`.
    fn pass_at(&self, p: u32) -> &BinningPass {
        let slot = self.slot(p);
        self.slot_passes().into_iter().find(|(s, _)| *s == slot).and_then(|(_, pass)| pass).unwrap_or(&self.pass)
    }

    fn check(&self, keys_in: BufferSlice, keys_out: BufferSlice, values: SortValues, scratch: &SortScratch) -> Result<()> {
        let what = self.desc.label();
        let need = |name: &str, s: BufferSlice, bytes: u64| super::require_bytes(&what, name, s, bytes);
        need("keys_in", keys_in, self.keys_bytes())?;
        need("keys_out", keys_out, self.keys_bytes())?;
        let (ka, va) = self.alt_bytes();
        need("keys_alt", scratch.keys_alt, ka)?;
        need("hist", scratch.hist, self.hist_bytes())?;
        need("values_alt", scratch.values_alt, va)?;
        need("state", scratch.state, self.state_bytes())?;
        match (values, self.split) {
            (SortValues::Split { lo_in, hi_in, lo_out, hi_out }, true) => {
                let words = 4 * self.desc.n;
                [("values_lo_in", lo_in), ("values_hi_in", hi_in), ("values_lo_out", lo_out), ("values_hi_out", hi_out)].into_iter().try_for_each(|(name, s)| need(name, s, words))
            }
            (SortValues::Split { .. }, false) | (_, true) => invalid(format!("{what}: split values go with a split sort only (a vkprims bug)")),
            (SortValues::None, false) => super::require_values(&what, self.desc.value_bytes, None, self.values_bytes()),
            (SortValues::Array(vi, vo), false) => super::require_values(&what, self.desc.value_bytes, Some((vi, vo)), self.values_bytes()),
        }?;
        self.check_disjoint(&what, keys_in, keys_out, values, scratch)
    }

    /// Whether the inputs may overlap the outputs (a sort in place): the first digit pass
    /// writes the alternate buffers, and the inputs are last read there. Pass p writes the
    /// output where (passes - 1 - p) is even, so for an even number of passes; pairs packed
    /// into words go through the alternates from the first pass on.
    pub fn sorts_in_place(&self) -> bool {
        let passes = self.desc.passes();
        if self.packed { passes > 1 } else { passes % 2 == 0 }
    }

    /// The scratch ranges a sort touches (named `names`: keys_alt, values_alt, hist, state),
    /// for [`super::require_disjoint`]; `moves_values`: the sort is given values. The alternate
    /// buffers take every pass's output but the last's, so a single pass of planes leaves them be.
    pub(crate) fn scratch_uses(&self, scratch: &SortScratch, moves_values: bool, names: [&'static str; 4]) -> [Use<'static>; 4] {
        let (ka, va) = self.alt_bytes();
        let alternates = self.packed || self.desc.passes() > 1;
        [
            Use::scratch(names[0], scratch.keys_alt, if alternates { ka } else { 0 }),
            Use::scratch(names[1], scratch.values_alt, if alternates && (moves_values || self.packed) { va } else { 0 }),
            Use::scratch(names[2], scratch.hist, self.hist_bytes()),
            Use::scratch(names[3], scratch.state, self.state_bytes()),
        ]
    }

    /// Every range a sort writes is its own; the inputs may overlap the outputs where
    /// [`SortPlan::sorts_in_place`].
    fn check_disjoint(&self, what: &str, keys_in: BufferSlice, keys_out: BufferSlice, values: SortValues, scratch: &SortScratch) -> Result<()> {
        let (kb, vb) = (self.keys_bytes(), self.values_bytes());
        let mut uses = vec![Use::input("keys_in", keys_in, kb), Use::output("keys_out", keys_out, kb)];
        uses.extend(self.scratch_uses(scratch, !matches!(values, SortValues::None), ["keys_alt", "values_alt", "hist", "state"]));
        match values {
            SortValues::Array(vi, vo) => uses.extend([Use::input("values_in", vi, vb), Use::output("values_out", vo, vb)]),
            SortValues::Split { lo_in, hi_in, lo_out, hi_out } => {
                let w = 4 * self.desc.n;
                uses.extend([
                    Use::input("values_lo_in", lo_in, w),
                    Use::input("values_hi_in", hi_in, w),
                    Use::output("values_lo_out", lo_out, w),
                    Use::output("values_hi_out", hi_out, w),
                ]);
            }
            SortValues::None => {}
        }
        super::require_disjoint(what, &uses, self.sorts_in_place())
    }

    /// The sort after its upfront histogram: the digit offsets (unless every pass's tile 0
    /// scans its own: [`crate::prims::binning::BinningPolicy::fold_max_tiles`]), then the digit
    /// passes. For a caller that counted the keys' digits itself (the permutation's group ids,
    /// as it draws them) into the zeroed `scratch.hist`, in the layout of
    /// glsl/sort/hist_layout.glsl (any of the 16 copies of a counter:
    /// [`crate::prims::binning::upfront_counter_word`]); with no digit span there, a pass that
    /// folds is never skipped as trivial.
    pub fn record_passes(
        &self,
        rec: &mut Recorder,
        keys_in: BufferSlice,
        keys_out: BufferSlice,
        values: Option<(BufferSlice, BufferSlice)>,
        scratch: &SortScratch,
    ) -> Result<()> {
        self.record_passes_values(rec, keys_in, keys_out, values.into(), scratch)
    }

    fn record_passes_values(&self, rec: &mut Recorder, keys_in: BufferSlice, keys_out: BufferSlice, values: SortValues, scratch: &SortScratch) -> Result<()> {
        self.check(keys_in, keys_out, values, scratch)?;
        if self.desc.n == 0 {
            return Ok(());
        }
        let hist = scratch.hist.sub(0, self.hist_bytes());
        let passes = self.desc.passes();
        if (0..passes).any(|p| !self.pass_at(p).fold) {
            rec.dispatch(&self.offsets, &[hist], bytemuck::bytes_of(&(self.desc.n as u32)), [passes, 1, 1])?;
            rec.barrier(&[hist], Access::ComputeWrite, Access::ComputeRead, "sort: digit offsets ready for the passes");
        }

        for p in 0..passes {
            let [ks, kd, vs, vd, hs, hd] = match self.packed {
                true => self.words(keys_in, keys_out, values, scratch, p)?,
                false => self.planes(keys_in, keys_out, values, scratch, p),
            };
            let state = scratch.state.sub(p as u64 * self.pass_state_bytes(), self.pass_state_bytes());
            let (shift, bits) = self.desc.digit(p);
            let pass = self.pass_at(p);
            if binning::state_bytes(pass.tiles, self.desc.policy.timeline) > self.pass_state_bytes() {
                return invalid(format!("{}: pass {p}'s look-back state outgrows its region (a vkprims bug)", self.desc.label()));
            }
            let push: [u32; 6] = [self.desc.n as u32, pass.tiles, shift, bits, p, self.desc.bits.0];
            let buffers = [ks, kd, vs, vd, hist, state, hs, hd];
            // (A split sort's kernel binds all eight, the others the first six.)
            rec.dispatch_count(pass.pipeline()?, &buffers[..pass.key.bindings as usize], bytemuck::bytes_of(&push), pass.workgroups())?;
            // A pass that folds writes its digit offsets, which the next pass's class rounds
            // read (the kernel's binding is writable either way).
            rec.barrier(&[kd, vd, hd, hist], Access::ComputeWrite, Access::ComputeReadWrite, "sort: a pass's output and digit offsets are the next pass's input");
        }
        Ok(())
    }

    /// Digit pass `p`'s buffers for bindings 0 to 3, 6 and 7 where the pairs are packed: the
    /// first pass reads the key and value arrays and writes words to keys_alt; each later pass
    /// reads the words the one before wrote (keys_alt, then values_alt, in turn) and writes
    /// the other array, the last the output arrays. The value bindings (and the split sort's
    /// 6 and 7) take the word arrays where the pass leaves them be.
    fn words(&self, keys_in: BufferSlice, keys_out: BufferSlice, values: SortValues, scratch: &SortScratch, p: u32) -> Result<[BufferSlice; 6]> {
        let SortValues::Array(vi, vo) = values else { return invalid(format!("{}: packed pairs without values (a vkprims bug)", self.desc.label())) };
        let (kb, vb, n) = (self.keys_bytes(), self.values_bytes(), self.desc.n);
        let words = |q: u32| [scratch.keys_alt, scratch.values_alt][q as usize % 2].sub(0, 8 * n);
        let (ks, vs) = if p == 0 { (keys_in.sub(0, kb), vi.sub(0, vb)) } else { (words(p - 1), words(p - 1)) };
        let (kd, vd) = if p + 1 == self.desc.passes() { (keys_out.sub(0, kb), vo.sub(0, vb)) } else { (words(p), words(p)) };
        Ok([ks, kd, vs, vd, vs, vd])
    }
    /// Digit pass `p`'s buffers for bindings 0 to 3, 6 and 7 where the pairs are not packed:
    /// ping-pong so that the last pass writes the output (pass p writes the output when
    /// (passes - 1 - p) is even, else the alternate buffer). Without values, the value
    /// bindings (never touched by those kernel variants) point at `values_alt`. A split
    /// sort's first pass reads its split arrays (bindings 2 and 6), its last writes them (3
    /// and 7); between them (two passes at most) the values are whole in `values_alt`, which
    /// also takes bindings 6 and 7 where a pass leaves them be.
    fn planes(&self, keys_in: BufferSlice, keys_out: BufferSlice, values: SortValues, scratch: &SortScratch, p: u32) -> [BufferSlice; 6] {
        let (kb, vb) = (self.keys_bytes(), self.values_bytes().max(4));
        let passes = self.desc.passes();
        let pick = |input: BufferSlice, out: BufferSlice, alt: BufferSlice| {
            let to_out = (passes - 1 - p).is_multiple_of(2);
            let src = if p == 0 { input } else if to_out { alt } else { out };
            (src, if to_out { out } else { alt })
        };
        let (ks, kd) = pick(keys_in, keys_out, scratch.keys_alt);
        let alt = scratch.values_alt.sub(0, vb);
        let (vs, vd, hs, hd) = match values {
            SortValues::Array(vi, vo) => {
                let (vs, vd) = pick(vi, vo, scratch.values_alt);
                (vs.sub(0, vb), vd.sub(0, vb), alt, alt)
            }
            SortValues::None => (alt, alt, alt, alt),
            SortValues::Split { lo_in, hi_in, lo_out, hi_out } => {
                let words = |s: BufferSlice| s.sub(0, 4 * self.desc.n);
                let (vs, hs) = if p == 0 { (words(lo_in), words(hi_in)) } else { (alt, alt) };
                let (vd, hd) = if p + 1 == passes { (words(lo_out), words(hi_out)) } else { (alt, alt) };
                (vs, vd, hs, hd)
            }
        };
        [ks.sub(0, kb), kd.sub(0, kb), vs, vd, hs, hd]
    }

    /// Upload, sort, download. Keys and values are raw little-endian words (two per 64-bit
    /// key or 8-byte value).
    pub fn run(&self, ctx: &Arc<Context>, keys: &[u32], values: Option<&[u32]>) -> Result<(Vec<u32>, Option<Vec<u32>>)> {
        let what = self.desc.label();
        let kw = (self.desc.key.bytes() / 4) as usize;
        if keys.len() as u64 != self.desc.n * kw as u64 {
            return invalid(format!("{what}: {} key words given", keys.len()));
        }
        let vw = self.desc.value_bytes as usize / 4;
        if let Some(v) = values {
            if v.len() != self.desc.n as usize * vw {
                return invalid(format!("{what}: values hold {} elements, keys {}", v.len() / vw.max(1), self.desc.n));
            }
        }
        let kin = gpu::upload(ctx, bytemuck::cast_slice(keys), "sort keys")?;
        let kout = Buffer::new(ctx, self.keys_bytes(), MemoryLocation::GpuOnly, "sorted keys")?;
        let (ka, va) = self.alt_bytes();
        let kalt = Buffer::new(ctx, ka, MemoryLocation::GpuOnly, "sort keys (alternate)")?;
        let hist = Buffer::new(ctx, self.hist_bytes(), MemoryLocation::GpuOnly, "sort histograms")?;
        let state = Buffer::new(ctx, self.state_bytes(), MemoryLocation::GpuOnly, "sort look-back")?;
        let valt = Buffer::new(ctx, va, MemoryLocation::GpuOnly, "sort values (alternate)")?;
        let vbufs = match values {
            Some(v) => Some((
                gpu::upload(ctx, bytemuck::cast_slice(v), "sort values")?,
                Buffer::new(ctx, self.values_bytes(), MemoryLocation::GpuOnly, "sorted values")?,
            )),
            None => None,
        };
        let scratch = SortScratch { keys_alt: kalt.slice(), values_alt: valt.slice(), hist: hist.slice(), state: state.slice() };
        let mut outs = vec![kout.slice()];
        if let Some(v) = &vbufs {
            outs.push(v.1.slice());
        }
        let mut rec = Recorder::new(ctx, what.clone())?;
        rec.poison(&outs);
        self.record(&mut rec, kin.slice(), kout.slice(), vbufs.as_ref().map(|v| (v.0.slice(), v.1.slice())), &scratch)?;
        rec.barrier(&outs, Access::ComputeWrite, Access::TransferRead, "sorted output copied to the host");
        rec.submit_and_wait()?;
        drop(rec);
        let k: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(ctx, kout.head(self.keys_bytes()))?);
        let v = match &vbufs {
            Some(v) => Some(bytemuck::pod_collect_to_vec(&gpu::download(ctx, v.1.head(self.values_bytes()))?)),
            None => None,
        };
        Ok((k, v))
    }

}

/// Convenience: plan and run.
pub fn run(ctx: &Arc<Context>, desc: &SortDesc, keys: &[u32], values: Option<&[u32]>) -> Result<(Vec<u32>, Option<Vec<u32>>)> {
    SortPlan::new(ctx, desc.clone())?.run(ctx, keys, values)
}

// ---------------------------------------------------------------------------------------
// CPU reference

/// The order key of element `i` of raw key words, as the kernels compute it.
pub fn order_key(key: KeyType, descending: bool, words: &[u32], i: usize) -> u64 {
    let k = match key {
        KeyType::U32 => words[i] as u64,
        KeyType::I32 => (words[i] ^ 0x8000_0000) as u64,
        KeyType::F32 => super::scan::f32_order_key(words[i]) as u64,
        _ => {
            let raw = words[2 * i] as u64 | (words[2 * i + 1] as u64) << 32;
            match key {
                KeyType::I64 => raw ^ (1 << 63),
                KeyType::F64 => {
                    if raw >> 63 != 0 { !raw } else { raw | (1 << 63) }
                }
                _ => raw,
            }
        }
    };
    let mask = if key.wide() { u64::MAX } else { u32::MAX as u64 };
    if descending { !k & mask } else { k }
}

/// The permutation a stable sort by the (bit-range) order key applies.
pub fn reference_order(desc: &SortDesc, keys: &[u32]) -> Vec<usize> {
    let (lo, mask) = (desc.bits.0, bit_mask(desc.bits));
    let mut idx: Vec<usize> = (0..desc.n as usize).collect();
    idx.sort_by_key(|&i| (order_key(desc.key, desc.descending, keys, i) >> lo) & mask);
    idx
}

/// `v` sorted, values below 2^bits: an LSD radix sort with 16-bit digits, O(n) (the host
/// check of a 2^28-key benchmark took tens of seconds with a comparison sort). A digit that
/// every value shares is skipped.
fn radix_sorted(mut v: Vec<u64>, bits: u32) -> Vec<u64> {
    let mut tmp = vec![0u64; v.len()];
    for shift in (0..bits).step_by(16) {
        let digit = |x: u64| ((x >> shift) & 0xFFFF) as usize;
        let mut count = vec![0usize; 1 << 16];
        for &x in &v {
            count[digit(x)] += 1;
        }
        if count.contains(&v.len()) {
            continue;
        }
        let mut at = 0;
        for c in count.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        for &x in &v {
            let d = digit(x);
            tmp[count[d]] = x;
            count[d] += 1;
        }
        std::mem::swap(&mut v, &mut tmp);
    }
    v
}

/// Gather words of `width` per element by `order`.
pub fn gather(words: &[u32], width: usize, order: &[usize]) -> Vec<u32> {
    order.iter().flat_map(|&i| words[i * width..(i + 1) * width].iter().copied()).collect()
}

/// Compare a GPU result with the reference; `None` when it passes (bit for bit).
///
/// Where the values are the input indices (the first value word of element i is i, as in the
/// tests and benchmarks), the check runs in O(n) without sorting on the host: the indices
/// must be a permutation, every key must be the input key at its index, the masked order keys
/// must be non-decreasing and equal ones must keep increasing indices. Those conditions hold
/// for exactly one output, the stable sort. Keys alone over all bits compare sorted order
/// keys. Otherwise the output is compared with a stable host sort.
pub fn check(desc: &SortDesc, keys: &[u32], values: Option<&[u32]>, got_keys: &[u32], got_values: Option<&[u32]>) -> Option<String> {
    let kw = (desc.key.bytes() / 4) as usize;
    let n = desc.n as usize;
    if got_keys.len() != n * kw {
        return Some(format!("{} key words returned, {} expected", got_keys.len(), n * kw));
    }
    if let (Some(v), Some(g)) = (values, got_values) {
        let vw = desc.value_bytes as usize / 4;
        if g.len() != n * vw {
            return Some(format!("{} value words returned, {} expected", g.len(), n * vw));
        }
        if (0..n).all(|i| v[i * vw] == i as u32) {
            return check_indexed(desc, keys, v, got_keys, g);
        }
    }
    if values.is_none() && desc.bits == (0, desc.key.bits()) {
        // Keys only, all bits: the order key is a bijection, so equal order keys are equal
        // keys and comparing sorted order keys compares the keys (no stable host sort).
        let want = radix_sorted((0..n).map(|i| order_key(desc.key, desc.descending, keys, i)).collect(), desc.key.bits());
        return (0..n).find(|&i| order_key(desc.key, desc.descending, got_keys, i) != want[i]).map(|i| {
            format!("key {i}: order key {:#x}, want {:#x}", order_key(desc.key, desc.descending, got_keys, i), want[i])
        });
    }
    let order = reference_order(desc, keys);
    if desc.ranking == Ranking::Atomic {
        let vw = desc.value_bytes as usize / 4;
        let got = |i: usize| (&got_keys[i * kw..(i + 1) * kw], got_values.map_or(&[][..], |g| &g[i * vw..(i + 1) * vw]));
        let want = |i: usize| (&keys[order[i] * kw..(order[i] + 1) * kw], values.map_or(&[][..], |v| &v[order[i] * vw..(order[i] + 1) * vw]));
        let sort_key = |words: &[u32]| (order_key(desc.key, desc.descending, words, 0) >> desc.bits.0) & bit_mask(desc.bits);
        return check_runs(n, |i| sort_key(got(i).0), |i| sort_key(want(i).0), got, want);
    }
    let want = gather(keys, kw, &order);
    if let Some(w) = (0..want.len()).find(|&w| got_keys[w] != want[w]) {
        return Some(format!("key {}: got word {:#x}, want {:#x}", w / kw, got_keys[w], want[w]));
    }
    if let (Some(v), Some(g)) = (values, got_values) {
        let vw = desc.value_bytes as usize / 4;
        let want = gather(v, vw, &order);
        if let Some(w) = (0..want.len()).find(|&w| g[w] != want[w]) {
            return Some(format!("value {} (stability): got {:#x}, want {:#x}", w / vw, g[w], want[w]));
        }
    }
    None
}

fn bit_mask((lo, hi): (u32, u32)) -> u64 {
    if hi - lo >= 64 { u64::MAX } else { (1u64 << (hi - lo)) - 1 }
}

/// The check of an output whose order within runs of equal sort keys is unspecified (atomic
/// ranking): run by run (runs of equal `got_key`, which must equal `want_key` position by
/// position), the elements (key and value words) must be the same multiset.
/// Runs are compared on every core (the H200 benchmarks check 2^28 elements).
pub(crate) fn check_runs<'a>(
    n: usize,
    got_key: impl Fn(usize) -> u64 + Sync,
    want_key: impl Fn(usize) -> u64 + Sync,
    got: impl Fn(usize) -> (&'a [u32], &'a [u32]) + Sync,
    want: impl Fn(usize) -> (&'a [u32], &'a [u32]) + Sync,
) -> Option<String> {
    if let Some(i) = (0..n).find(|&i| got_key(i) != want_key(i)) {
        return Some(format!("element {i}: sort key {:#x}, want {:#x}", got_key(i), want_key(i)));
    }
    let mut runs = Vec::new();
    let mut start = 0;
    while start < n {
        let k = got_key(start);
        let end = (start..n).find(|&i| got_key(i) != k).unwrap_or(n);
        runs.push((start, end));
        start = end;
    }
    let check_run = |&(start, end): &(usize, usize)| {
        let mut a: Vec<_> = (start..end).map(&got).collect();
        let mut b: Vec<_> = (start..end).map(&want).collect();
        a.sort_unstable();
        b.sort_unstable();
        (a != b).then(|| format!("elements {start}..{end} (sort key {:#x}): not the input's elements of that key", got_key(start)))
    };
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let per_thread = runs.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let parts: Vec<_> = runs.chunks(per_thread).map(|part| s.spawn(move || part.iter().find_map(check_run))).collect();
        // The first failing run in output order.
        parts.into_iter().find_map(|h| h.join().expect("a check thread panicked"))
    })
}

/// The O(n) check of [`check`] for values whose first word is the input index (stability
/// too, unless the sort is unstable).
fn check_indexed(desc: &SortDesc, keys: &[u32], values: &[u32], got_keys: &[u32], got_values: &[u32]) -> Option<String> {
    let (kw, vw) = ((desc.key.bytes() / 4) as usize, desc.value_bytes as usize / 4);
    let source = match input_indices(keys, values, got_keys, got_values, kw, vw) {
        Ok(s) => s,
        Err(e) => return Some(e),
    };
    let (lo, mask) = (desc.bits.0, bit_mask(desc.bits));
    let mut prev: Option<(u64, usize)> = None;
    for (i, &j) in source.iter().enumerate() {
        let k = (order_key(desc.key, desc.descending, keys, j) >> lo) & mask;
        if let Some((pk, pj)) = prev {
            if k < pk {
                return Some(format!("element {i}: order key {k:#x} after {pk:#x} (not sorted)"));
            }
            if k == pk && j < pj && desc.ranking == Ranking::Stable {
                return Some(format!("element {i}: input index {j} after {pj} with an equal key (not stable)"));
            }
        }
        prev = Some((k, j));
    }
    None
}

/// For an output whose values start with the input index (`kw` key words and `vw` value
/// words per element): the input element each output element names, once the names are
/// checked to be a bijection and each output element to carry its input's key and value.
pub(crate) fn input_indices(keys: &[u32], values: &[u32], got_keys: &[u32], got_values: &[u32], kw: usize, vw: usize) -> std::result::Result<Vec<usize>, String> {
    let n = values.len() / vw;
    let mut seen = vec![false; n];
    let mut source = Vec::with_capacity(n);
    for i in 0..n {
        let j = got_values[i * vw] as usize;
        if j >= n || std::mem::replace(&mut seen[j], true) {
            return Err(format!("value {i}: index {j} is out of range or repeated (not a permutation)"));
        }
        if got_keys[i * kw..(i + 1) * kw] != keys[j * kw..(j + 1) * kw] || got_values[i * vw..(i + 1) * vw] != values[j * vw..(j + 1) * vw] {
            return Err(format!("element {i}: key or value differs from input element {j} it claims to be"));
        }
        source.push(j);
    }
    Ok(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A correct result, then one broken in each way, through both check paths.
    #[test]
    fn check_catches_unsorted_unstable_and_non_permutations() {
        let mut d = SortDesc::new(KeyType::I32, 6);
        d.value_bytes = 4;
        let keys: Vec<u32> = [3i32, -1, 3, 7, -1, 0].iter().map(|&k| k as u32).collect();
        let idx: Vec<u32> = (0..6).collect();
        let order = reference_order(&d, &keys);
        assert_eq!(order, vec![1, 4, 5, 0, 2, 3]); // stable: -1 (1), -1 (4), 0, 3 (0), 3 (2), 7
        let gk = gather(&keys, 1, &order);
        let gv = gather(&idx, 1, &order);
        let other: Vec<u32> = idx.iter().map(|i| i * 3 + 1).collect(); // not indices: host-sort path
        let go = gather(&other, 1, &order);
        assert_eq!(check(&d, &keys, Some(&idx), &gk, Some(&gv)), None);
        assert_eq!(check(&d, &keys, Some(&other), &gk, Some(&go)), None);
        let mut ko = d.clone();
        ko.value_bytes = 0;
        assert_eq!(check(&ko, &keys, None, &gk, None), None);
        // Equal keys swapped: unstable.
        let (mut uk, mut uv, mut uo) = (gk.clone(), gv.clone(), go.clone());
        uk.swap(0, 1);
        uv.swap(0, 1);
        uo.swap(0, 1);
        assert!(check(&d, &keys, Some(&idx), &uk, Some(&uv)).unwrap().contains("not stable"));
        assert!(check(&d, &keys, Some(&other), &uk, Some(&uo)).is_some());
        // Different keys swapped: unsorted.
        let (mut sk, mut sv) = (gk.clone(), gv.clone());
        sk.swap(2, 3);
        sv.swap(2, 3);
        assert!(check(&d, &keys, Some(&idx), &sk, Some(&sv)).unwrap().contains("not sorted"));
        assert!(check(&ko, &keys, None, &sk, None).is_some());
        // A repeated index.
        let mut rv = gv.clone();
        rv[1] = rv[0];
        assert!(check(&d, &keys, Some(&idx), &gk, Some(&rv)).unwrap().contains("not a permutation"));
        // Descending and a bit range through the order key.
        let mut dd = d.clone();
        dd.descending = true;
        dd.bits = (1, 32);
        let o = reference_order(&dd, &keys);
        assert_eq!(check(&dd, &keys, Some(&idx), &gather(&keys, 1, &o), Some(&gather(&idx, 1, &o))), None);
    }

    #[test]
    fn float_order_is_total() {
        let f = |x: f32| x.to_bits();
        let keys = [f(1.0), f(-0.0), f(f32::NAN), f(0.0), f(-f32::NAN), f(f32::NEG_INFINITY), f(-1.0)];
        let d = SortDesc::new(KeyType::F32, keys.len() as u64);
        let sorted = gather(&keys, 1, &reference_order(&d, &keys));
        assert_eq!(sorted, vec![f(-f32::NAN), f(f32::NEG_INFINITY), f(-1.0), f(-0.0), f(0.0), f(1.0), f(f32::NAN)]);
    }
}

#[cfg(test)]
mod radix_tests {
    #[test]
    fn radix_sorted_matches_a_comparison_sort() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for (n, bits) in [(0usize, 32u32), (1, 32), (1000, 32), (5000, 64), (777, 8)] {
            let v: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if bits == 64 { x } else { x & ((1 << bits) - 1) }
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            assert_eq!(super::radix_sorted(v, bits), want);
        }
        // Every value equal (every digit skipped) and values that differ only in the top digit.
        assert_eq!(super::radix_sorted(vec![5; 100], 32), vec![5; 100]);
        let v: Vec<u64> = (0..300u64).rev().map(|i| (i % 3) << 48 | 7).collect();
        let mut want = v.clone();
        want.sort_unstable();
        assert_eq!(super::radix_sorted(v, 64), want);
    }
}
