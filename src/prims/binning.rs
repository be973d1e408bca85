//! The host side of the binning pass (glsl/sort/binning.glsl) that the sort, multisplit and
//! the permutation share: the checks every binning pass needs, its geometry (workgroup,
//! keys per lane, tiles, shared memory) and its pipeline (ranking variant and spec constants).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::require_subgroup_ops;
use super::sort::KeyType;
use crate::error::{invalid, Error, Result};
use crate::gpu::{self, Context, Pipeline, PipelineKey};

/// The largest n the 30-bit look-back counts allow.
pub const MAX_N: u64 = (1 << 30) - 1;
/// Refuse n past the look-back's 30-bit counts (MAX_N), in the caller's words: the sort, a
/// multisplit or a permutation, whichever plans the pass.
pub(crate) fn check_max_n(what: &str, n: u64) -> Result<()> {
    if n > MAX_N {
        return invalid(format!("{what}: n = {n} exceeds {MAX_N}, the most the binning pass's 30-bit look-back counts allow"));
    }
    Ok(())
}

// The upfront histogram buffer's layout (glsl/sort/hist_layout.glsl, whose constants these
// mirror), in words.
const HIST_PASSES: u32 = 8;
const HIST_COPIES: u32 = 16;
const HIST_FLAGS: u32 = HIST_PASSES * 256;
const HIST_SPAN: u32 = HIST_FLAGS + HIST_PASSES;
const HIST_COPY_BASE: u32 = HIST_FLAGS + 32;
/// Bytes of the upfront histogram buffer of the sort and the one-pass multisplit: the offsets
/// of up to 8 passes (from the offsets kernel, or each pass's tile 0), a "trivial pass" flag
/// per pass (the offsets kernel's), each pass's digit span (two words), then 16 copies of
/// their counters, so that the histogram's global atomics spread over more cache lines.
pub const UPFRONT_HIST_BYTES: u64 = (HIST_COPY_BASE + HIST_COPIES * HIST_PASSES * 256) as u64 * 4;

/// Word of the upfront histogram buffer holding counter copy `copy` (of 16) of digit `digit` in
/// pass `pass` (of up to 8), for a caller that counts digits itself
/// ([`crate::prims::sort::SortPlan::record_passes`]; glsl/sort/hist_layout.glsl, `hist_copy`).
pub fn upfront_counter_word(copy: u32, pass: u32, digit: u32) -> usize {
    assert!(copy < HIST_COPIES && pass < HIST_PASSES && digit < 256, "no counter word for copy {copy}, pass {pass}, digit {digit}");
    (HIST_COPY_BASE + (copy * HIST_PASSES + pass) * 256 + digit) as usize
}
/// Word of the upfront histogram buffer flagging pass `pass` trivial (every key has the same
/// digit: the pass copies), once the offsets kernel has run (passes that do not fold).
pub fn upfront_flag_word(pass: u32) -> usize {
    assert!(pass < HIST_PASSES, "no flag word for pass {pass}");
    (HIST_FLAGS + pass) as usize
}
/// Word of the upfront histogram buffer holding pass `pass`'s bucket offset of digit `digit`
/// (from the offsets kernel or the pass's tile 0): where the digit's elements start in the
/// pass's output.
pub fn upfront_offset_word(pass: u32, digit: u32) -> usize {
    assert!(pass < HIST_PASSES && digit < 256, "no offset word for pass {pass}, digit {digit}");
    (pass * 256 + digit) as usize
}
/// The two words of pass `pass`'s digit span: 1 + the largest digit counted, 256 - the
/// smallest (glsl/sort/hist_span.glsl; 0 where a caller counted the digits itself).
pub fn upfront_span_words(pass: u32) -> [usize; 2] {
    assert!(pass < HIST_PASSES, "no span words for pass {pass}");
    [(HIST_SPAN + 2 * pass) as usize, (HIST_SPAN + 2 * pass + 1) as usize]
}
/// Counter rows: one per subgroup, so at most 16 subgroups per workgroup.
const MAX_SUBGROUPS: u32 = 16;
/// Elements per tile: a tile position is 16 bits in the kernel.
const MAX_TILE: u32 = 1 << 16;
/// Shared words besides the staging area: bucket starts, look-back sums (which the fallback's
/// histogram shares), subgroup sums, flags.
const FIXED_SHARED_WORDS: u32 = 2 * 256 + 32 + 5;

/// How a binning pass ranks elements within a tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ranking {
    /// Input order kept within each bucket (subgroup partition or ballots).
    #[default]
    Stable,
    /// Workgroup atomics: order within a bucket unspecified (and may vary run to run).
    Atomic,
}

impl Ranking {
    pub fn parse(s: &str) -> Result<Ranking> {
        match s {
            "stable" => Ok(Ranking::Stable),
            "atomic" => Ok(Ranking::Atomic),
            _ => invalid(format!("unknown ranking '{s}' (stable, atomic)")),
        }
    }
}

/// How stable ranking finds an element's peers (same bucket, same subgroup, same step).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PeerMatch {
    /// CUB's WARP_MATCH_ATOMIC_OR: each lane ORs its bit into its bucket's word of a
    /// per-subgroup mask row in shared memory and reads its peers back. Only at 32 lanes or
    /// fewer and where the mask rows fit beside the counter rows; elsewhere ballots. The
    /// fastest on the H200: a 384x15 u32 pass at 2^26 took 0.49 ms, against 0.70 with
    /// ballots and 0.89 partitioned (bench/results/h200/binning/session4/1-smatch).
    #[default]
    Shared,
    /// One ballot per bucket bit (all four ballot words beyond 32 lanes).
    Ballots,
    /// subgroupPartitionNV where the device has it, else ballots.
    Partitioned,
}

/// Tuning, as data. A tile is `workgroup_size * items` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BinningPolicy {
    /// Capped at 16 subgroups (the kernel's per-subgroup bucket counters) and the device's
    /// invocation and subgroup limits. 0 (the default):
    /// tuned per element size, see [`BinningPolicy::AUTO_TILE`].
    pub workgroup_size: u32,
    /// Elements per lane per tile (lowered where the tile would not fit in shared memory). 0
    /// (the default): tuned per element size, see [`BinningPolicy::AUTO_TILE`].
    pub items: u32,
    /// Look-back rounds without progress before a workgroup falls back.
    pub spin_limit: u32,
    /// Earlier tiles a look-back round reads per bucket (1 to 64; default 8).
    #[serde(default = "default_window")]
    pub lookback_window: u32,
    /// Workgroups of the upfront histogram. H200, u32 keys at 2^26: 0.211 ms with 2048, 0.229
    /// with 1024, 0.272 with 512 (copies of the counters per subgroup only slowed it:
    /// bench/results/h200/binning/session4/3-early-post); 64 to 256 gained nothing at 2^20
    /// and lost at 2^22 (session7/6-final).
    pub histogram_groups: u32,
    /// Sorts: invocations of an upfront-histogram workgroup (`xhwN`; a multiple of the
    /// largest subgroup size); each counts 16 keys a round.
    #[serde(default = "default_histogram_workgroup")]
    pub histogram_workgroup: u32,
    /// Sorts: the upfront histogram loads one key per instruction (`xhscalar`) instead of 16
    /// bytes at a time (the default, where the keys' binding starts at a multiple of 16).
    #[serde(default)]
    pub histogram_scalar_loads: bool,

    /// How stable ranking matches peers.
    #[serde(default)]
    pub peer_match: PeerMatch,
    /// Timing experiments only, results are wrong: skip phases of the binning pass (bit 0:
    /// look-back, 1: the scatter's global stores, 2: the ranking, 3: only its peer matching, 4:
    /// only its step counters; bits 2 to 4 act on ballot and partition matching only, not on the
    /// shared-memory match). Bits 5 and 6 are not skips (results stay right): bit 5 ranks with
    /// uvec4 ballots even at 32 lanes or fewer, so tests reach the wide-subgroup path; bit 6 makes
    /// the atomic ranking take a tile's steps last to first, so tests see its order within a bucket
    /// leave input order on devices whose atomics keep it (lavapipe). Bit 7 (4-byte pairs, planes
    /// in sequence, index tiles; values left unpermuted): twice the workgroups, the odd ones
    /// copying a tile of values each, the even ones the key tiles without their value round:
    /// whether the value traffic overlaps the keys' work when other workgroups move it. Bit 8
    /// (results stay right) holds first-wave tiles back once their counts are posted (see
    /// `vkprims bench --help` for its fields). Bits 9 and 10 (the value round of planes in
    /// sequence only, so a sort's keys stay right): 9 skips its stores, 10 the whole round.
    #[serde(default)]
    pub debug_skip: u32,
    /// Sorts only, where the device has VK_KHR_shader_clock: time the binning pass's phases
    /// with the subgroup clock ([`PHASES`], read back with [`phase_cycles`]).
    #[serde(default)]
    pub phase_clocks: bool,
    /// Sorts of 4-byte keys alone or with 4-byte values, shared-memory ranking, where the device
    /// has VK_KHR_shader_clock's device clock and VK_NV_shader_sm_builtins (timing experiments):
    /// every tile's SM and the device and SM clocks at each of its phase ends
    /// ([`TIMELINE_WORDS`] words a tile after the pass's state, read with [`tile_timeline`]).
    /// Independent of [`Self::phase_clocks`] (`xclocksxtimeline` takes both), whose registers
    /// change the pass's occupancy: with them the pass ran one workgroup an SM on the H100.
    #[serde(default)]
    pub timeline: bool,
    /// Stage every word plane of a tile (key words, value words) in shared memory at once,
    /// before the look-back, rather than one plane at a time after it: the scatter then keeps
    /// nothing per element in registers, at the cost of shared memory (fewer items per lane
    /// where the planes would not fit). Implied by [`BinningPolicy::reload`] (the default);
    /// alone, with keys and values held in registers, the H200's driver kept as many
    /// registers and it was no faster (bench/results/h200/binning/session3/8-planes).
    #[serde(default)]
    pub stage_all: bool,
    /// Read each element's words again (keys, from cache: the tile was read moments before)
    /// or for the first time (values) while staging them, every plane at once before the
    /// look-back (as [`BinningPolicy::stage_all`]), so no word of an element stays in
    /// registers from its load to its staging. On by default (`xkeep` turns it off): fewer
    /// registers let three workgroups of 256 share an SM. H200 at 2^26, 256x20: u32 keys 1.96
    /// ms against 1.98 kept; 256x15: u32 pairs 2.76-2.80 against 3.28; u64 keys (2^24) 1.33
    /// against 1.54. Read right after the ranking instead, the driver hoisted the loads and
    /// kept more registers than ever (bench/results/h200/binning/session6). Where the planes go
    /// in sequence ([`BinningPolicy::sequential_planes`]), `xkeep` holds only the keys in
    /// registers until they are staged (CUB's dataflow: no key read again); the values are
    /// read in the value round either way. At one tile it is about 1% faster, but its
    /// registers cost occupancy where it matters (H100, u32 pairs at 2^26: 512x16 kept 67
    /// registers, one workgroup an SM, 2.77 ms; the best kept tiles 448x16 and 384x20 2.43,
    /// against 2.41 for the default and 2.40 for 384x23 read again:
    /// bench/results/h100/binning/session56/1-keep55, 3-keep56). Taking each bucket from the
    /// kept key and packing positions as they are ranked took 77 registers there, not fewer,
    /// and 69 with each step's bucket found again (session57/1-keep57, session58/1-keep57b;
    /// session57/kept-ranking.patch).
    #[serde(default = "default_reload")]
    pub reload: bool,
    /// Stable ranking ranks first and counts after (late counts), rather than counting each
    /// subgroup's buckets with shared atomics first (CUB's early counts), which posts the
    /// tile's histogram before the ranking and lets the ranking yield tile positions
    /// directly. `None` (the default): late counts only in the stable passes of a sort of keys
    /// alone with at least [`BinningPolicy::LATE_MIN_TILES`] tiles. There a class-step run of
    /// one class takes one shared atomic an element, not two (the count's and the rank's; the
    /// position is a shared read), and the passes fit 512x17 tiles in 64 registers (two
    /// workgroups an H200 SM; [`BinningPolicy::KEYS_SORT_TILE`]). `xlate` everywhere, `xearly`
    /// nowhere. H200, u32 keys at 512x17 (bench/results/h200/binning/session39/3-items39b):
    /// 5.2635 ms at 2^28 against 5.3103 early, 1.3736 at 2^26 against 1.3833, 0.7123 at 2^25
    /// against 0.7185, 0.3846 at 2^24 against 0.3871; at 2^20 (121 tiles) 0.0495 late against
    /// 0.0486. u64 keys (448x13) tie: 1.0598 against 1.0606 at 2^24, 2.0262 against 2.0288 at
    /// 2^25. Late everywhere lost elsewhere (session38/1-late38, 2-late38b): u32 pairs at
    /// 2^28 7.8106 against 7.7757, the stable 16-way multisplit of 2^28 keys 1.5488 against
    /// 1.5383-1.5418 (256-way: a tie), the reproducible permutation of 2^28 7.16-7.17 against
    /// 7.1465.
    #[serde(default)]
    pub late_counts: Option<bool>,
    /// 4-byte keys with 4-byte values, without [`BinningPolicy::stage_all`]: the key plane
    /// (read again, or with `xkeep` held in registers from its load) is staged and
    /// scattered, then the values are read, staged in the same shared words and scattered
    /// (CUB's order), so a tile needs one plane of shared memory, not two, and holds more
    /// elements. On by default (`xnoseq`
    /// turns it off). H200, 256-way multisplit of 2^26 pairs: 0.622 ms (stable) and 0.577
    /// (atomic) at 448x16 against 0.690 and 0.663 with both planes at 512x10; u32 pairs sort
    /// 2.279 against 2.549 ms (bench/results/h200/binning/session14).
    #[serde(default = "default_sequential")]
    pub sequential_planes: bool,
    /// Sorts of keys alone over every key bit: the first digit pass ranks with workgroup
    /// atomics (the default; `xstablefirst` keeps it stable). Equal order keys are then equal
    /// keys, bit for bit, so the output is the same whichever order they take, and the later
    /// passes, stable, order the rest. A bit range, values or `Ranking::Atomic` leave this
    /// unchanged: with them the order of equal sort keys can be seen (or is already atomic).
    /// The 256-way multisplit, the same binning pass, ran 1.14x faster with atomic ranking on
    /// the H200 at 2^26 and 2^28 (bench/results/h200/binning/session11/6-multisplit,
    /// session10/5-final).
    #[serde(default = "default_atomic_first")]
    pub atomic_first_keys: bool,
    /// Where a sort's first digit pass is unordered ([`BinningPolicy::atomic_first_keys`] for
    /// keys alone, or `Ranking::Atomic`) and its later passes do not take class steps
    /// ([`BinningPolicy::class_steps`]), the second too ranks with atomics, in class rounds
    /// (the first pass's buckets in order), where the sort has at least this many tiles (`xcrN`; the classes then average 16 tiles or more, so few tiles hold two).
    /// H200, u32 keys, the second pass against a stable one: 1.40 against 1.49 ms at 2^28
    /// (32,768 tiles), 0.370 against 0.392 at 2^26, even at 2^24 (2,048), 16.6 against 14.6
    /// us at 2^20 (128 tiles) (bench/results/h200/binning/session17/5-second-pass,
    /// 6-shared-class-starts).
    #[serde(default = "default_second_pass_tiles")]
    pub second_pass_tiles: u32,
    /// Where a sort of keys alone has an unordered first digit pass, its later passes may rank
    /// in class steps (the default; `xnocs` turns them off, and the second pass then ranks in
    /// class rounds from [`BinningPolicy::second_pass_tiles`] tiles, as with values). A
    /// pass's input is in order of the digits below its own, so a subgroup's run of the tile
    /// (its consecutive elements) whose first and last keys share those digits ranks with one
    /// shared atomicAdd an element, in any order; the other runs match peers step by step, as
    /// a stable pass does.
    /// A pass takes class steps where its classes (n / 2^(8 p) keys for pass p >= 1, the
    /// first 0) average at least [`BinningPolicy::class_step_runs`] runs, since checking the
    /// run costs a pass where few runs qualify. H200, u32 keys at 2^28 (runs of 512): the
    /// second pass 1.207 ms against 1.242 in class rounds, the third 1.307 against 1.357
    /// stable, the fourth (classes of 16) 1.396 against 1.352; at 2^24 the second pass
    /// 0.0886 against 0.0993 stable, the third (classes of 256) 0.0963 against 0.0937; u64
    /// keys at 2^27, the third pass 0.930 against 0.953, later ones 0.969 against 0.945
    /// (bench/results/h200/binning/session33/3-cs33). Sorts whose passes take their totals
    /// from the tiles ([`BinningPolicy::totals_max_tiles`]) take none: at 2^20 they lost
    /// 1.5% (session34/3-small34).
    #[serde(default = "default_class_steps")]
    pub class_steps: bool,
    /// The classes' length, in runs of a subgroup (ITEMS x its width), from which a pass ranks
    /// in class steps (`xcsN`; 0: every pass after the first).
    #[serde(default = "default_class_step_runs")]
    pub class_step_runs: u32,
    /// With [`BinningPolicy::sequential_planes`]: the values are read this many a lane at a
    /// time (`xvcN`, default 8), each group after the last one's are staged, so fewer loads
    /// are in flight where the pass holds the most registers (all at once: ITEMS or more).
    /// The H200's pair pass peaked there (session20/3-sass): in groups of 8, 512x16 tiles take
    /// 63 registers (69 all at once) and run as two workgroups an SM
    /// ([`BinningPolicy::SEQUENTIAL_TILE`]; session21/1-lookback-registers/vc20-regs.md).
    /// The first group is read before the key scatter, its latency behind it: 1% faster at
    /// 2^26 with the same registers (session22/5-vearly).
    #[serde(default = "default_value_chunk")]
    pub value_chunk: u32,
    /// A pass of at most this many tiles (`xfoldN`; 0: none) takes its bucket offsets from
    /// its tile 0, which scans the upfront counters while the other tiles rank and carries
    /// the offsets to them in its inclusive look-back prefixes, so a sort or multisplit whose
    /// passes all do has no offsets dispatch (the `_fold` shader variants). `None` (the
    /// default): a sort's own passes fold only where they also take their totals from the
    /// tiles ([`BinningPolicy::totals_max_tiles`]), other passes up to their kernel's limit
    /// (the multisplit's: 512 tiles of keys alone, 256 with values; the permutation's: 512).
    /// H200 (bench/results/h200/binning/session39/4-fold39): folding won where every tile
    /// runs at once with totals (u32 keys at 2^20, 121 tiles: 0.0484 ms against 0.0591;
    /// pairs 0.0573 against 0.0687) and lost beyond (keys at 2^21, 241 tiles: 0.0797 against
    /// 0.0768; 2^22: 0.1420 against 0.1286; pairs at 2^22 0.2127 against 0.1765). The
    /// 256-way multisplit of keys won at 2^22 (0.0374 against 0.0486), of pairs tied at 2^21
    /// and lost at 2^22 (0.0589 against 0.0534).
    #[serde(default)]
    pub fold_max_tiles: Option<u32>,
    /// Sorts: where every pass folds and has at most this many tiles (`xtotN`; at most 255),
    /// there is no upfront histogram: each tile adds its bucket counts to its pass's totals
    /// and tile 0 waits for them (the `_fold_tot` variants). That wait is short only where
    /// every tile runs at once, so `None` (the default) takes the device's compute units
    /// ([`crate::gpu::DeviceInfo::compute_units`]; none where it is not known). Tile 0 counts
    /// every key itself where the totals stay incomplete past the spin limit.
    #[serde(default)]
    pub totals_max_tiles: Option<u32>,
    /// Tiles handed out in start order by an atomic ticket (`xticket`, CUB's way), or each
    /// workgroup taking its own dispatch index as its tile (`xnoticket`). Either order is
    /// correct: a look-back that finds a predecessor not ready for the spin limit counts that
    /// tile itself. The ticket costs each tile a global atomic round trip and a barrier
    /// before its first load; H200 at 2^26 without it: u32 keys 1.447 ms against
    /// 1.511-1.515, pairs 2.023 against 2.065-2.069, the 256-way multisplit of pairs 0.555
    /// against 0.564-0.566 (bench/results/h200/binning/session28/3-tick28). But where
    /// workgroups do not start in index order, tiles wait the spin limit for predecessors
    /// that have not started and then count them: lavapipe's sort tests ran over ten times
    /// as long. So `None` (the default) takes the index on NVIDIA GPUs, which start
    /// workgroups in index order, and the ticket elsewhere.
    #[serde(default)]
    pub tickets: Option<bool>,
    /// Sorts of 4-byte keys with 4-byte values over two digit passes or more (`xpacked`):
    /// each element travels as one 8-byte word, the key low and the value high, through the
    /// pass kernel of 8-byte keys alone (`sort_onesweep_k64_v0_packed`, its tile
    /// [`BinningPolicy::AUTO_TILE`]'s for two words), whose first pass packs the two input
    /// arrays. A tile's run of a bucket is then one stretch of the output, with two partial
    /// sectors at its ends, not two stretches with four. The last pass is a pass of pairs with
    /// planes in sequence (`sort_onesweep_k32_v1_unpack`, at [`BinningPolicy::UNPACK_TILE`]
    /// where the policy's tile is `auto`) that reads the words: written from
    /// the 8-byte pass kernel, its two output arrays took 1.15x as long (an H100 at 2^28,
    /// bench/results/h100/binning/session60/2-packed60). The scratch holds two arrays of
    /// 8-byte words (one for two passes), twice what planes take. Off by default.
    #[serde(default)]
    pub packed_pairs: bool,
}

/// H200, u32 keys at 2^26 (384x15): a digit pass took 0.475 ms with 8, 0.488 with 16,
/// 0.49 with 32 (bench/results/h200/binning/session4/6-final, windows).
fn default_window() -> u32 {
    8
}
fn default_reload() -> bool {
    true
}
fn default_sequential() -> bool {
    true
}
fn default_atomic_first() -> bool {
    true
}
fn default_class_steps() -> bool {
    true
}
fn default_class_step_runs() -> u32 {
    2
}
fn default_second_pass_tiles() -> u32 {
    4096
}
fn default_value_chunk() -> u32 {
    8
}
fn default_histogram_workgroup() -> u32 {
    128
}

/// The binning pass's phases, as its clocks count them. With [`BinningPolicy::late_counts`]
/// (and atomic ranking) the second phase is the ranking and the third the offsets and positions.
pub const PHASES: [&str; 8] = ["load", "count+offsets", "rank", "stage", "look-back walk", "look-back wait", "key scatter", "value scatter"];
/// Words after a pass's look-back words: the phase clocks (16-cycle units, summed over tiles).
const CLOCK_WORDS: u64 = 16;

/// Mean cycles per tile of each phase, from a pass's state words (`state`, as read back) and
/// its tile count.
pub fn phase_cycles(state: &[u32], tiles: u32) -> Vec<f64> {
    let at = clock_words_at(tiles);
    (0..PHASES.len()).map(|k| state.get(at + k).map_or(0.0, |&c| c as f64 * 16.0 / tiles.max(1) as f64)).collect()
}

/// With the phase clocks, invocation 0's look-back is counted as well (glsl/sort/binning.glsl,
/// LB_ROUNDS..LB_LONGEST; at workgroups of 256 or more its one bucket, digit 0): its walk
/// rounds that took at least one earlier tile's word, those that found the next word not
/// ready (spins), the earlier tiles' words taken, and the longest look-back of any tile.
pub const LOOKBACK_COUNTS: [&str; 4] = ["rounds that advanced", "rounds not ready", "earlier tiles taken", "longest look-back (cycles)"];

/// [`LOOKBACK_COUNTS`] from a pass's state words: the first three as means per tile, the
/// last the most over its tiles.
pub fn lookback_counts(state: &[u32], tiles: u32) -> Vec<f64> {
    let at = clock_words_at(tiles) + PHASES.len();
    let word = |k: usize| state.get(at + k).map_or(0.0, |&c| c as f64);
    vec![word(0) / tiles.max(1) as f64, word(1) / tiles.max(1) as f64, word(2) / tiles.max(1) as f64, word(3) * 16.0]
}

impl Default for BinningPolicy {
    fn default() -> Self {
        BinningPolicy {
            workgroup_size: 0,
            items: 0,
            spin_limit: 64,
            lookback_window: default_window(),
            histogram_groups: 2048,
            histogram_workgroup: default_histogram_workgroup(),
            histogram_scalar_loads: false,
            peer_match: PeerMatch::Shared,
            debug_skip: 0,
            phase_clocks: false,
            timeline: false,
            stage_all: false,
            reload: true,
            late_counts: None,
            sequential_planes: true,
            atomic_first_keys: true,
            second_pass_tiles: default_second_pass_tiles(),
            class_steps: default_class_steps(),
            class_step_runs: default_class_step_runs(),
            value_chunk: default_value_chunk(),
            fold_max_tiles: None,
            totals_max_tiles: None,
            tickets: None,
            packed_pairs: false,
        }
    }
}

impl BinningPolicy {
    /// The default tile (workgroup, items per lane) by 4-byte words per element: one (u32
    /// keys alone), two (u32 pairs, u64 keys), more. Two workgroups of 512 share an H200 SM
    /// where a lane takes at most 64 registers: u32 keys at 512x16 (60 registers) took 1.664
    /// ms at 2^26 against 1.822 at 256x20 (73 registers, three workgroups of 256); 512x15 and
    /// 512x17 (73, 80 registers then: one workgroup) 2.40 and 2.28. Two words: 512x10 (64
    /// registers; 11 would not fit 48 KiB of shared memory with both planes) 2.547 against
    /// 2.645 at 256x15 for pairs, u64 keys 4.653 against 4.678
    /// (bench/results/h200/binning/session10/1-tiles, 2-tiles). Two words now means u64 keys
    /// (4-byte pairs stage their planes in sequence): 384x14 (70 registers, two workgroups of
    /// 384) 4.588 ms at 2^26, 448x12 4.609, 320x17 4.635, 512x10 4.656, 448x11 4.775, 256x22
    /// 4.823 (bench/results/h200/binning/session15/8-u64-tiles). Since the fallback's
    /// histogram shares the look-back's words, 48 KiB holds larger tiles: 384x15 (73
    /// registers, CUB's u64 tile) 4.412 against 4.528 at 2^26, 8.694 against 8.929 at 2^27
    /// (session18/2-pd-u64); 448x13 (71 registers, two workgroups of 448, 5,824 keys a tile)
    /// 4.371 against 4.399 and 8.595 against 8.662 (session18/4-regs). On devices with
    /// 64-lane subgroups the workgroup is lowered to 384, a multiple of their width. Three
    /// words (u32 keys with 8-byte values, the composed multisplit's packed pairs) fill 48 KiB
    /// at about 3,800 elements: 384x10 sorted u32 keys with 8-byte values in 0.7834 / 2.9915 /
    /// 11.9180 ms at 2^24 / 2^26 / 2^28 against 0.8315 / 3.1788 / 12.7958 at 256x15, 512x7
    /// 0.7944 / 3.0307, 320x12 0.7949 / 3.0308; the packed 1,000-way split of 2^24 / 2^26 pairs
    /// 0.5454 / 2.0420 against 0.5766 / 2.1580 (session43/1-next43). Four words (u64 keys
    /// with 8-byte values) fill it at about 2,800: 320x9 (54 registers) sorted 2^24 / 2^26 in
    /// 1.9511 / 7.5190 ms against 1.9916 / 7.7294 at 256x11 (256x15 fitted; 66 registers),
    /// 384x7 1.9615 / 7.5528, 448x6 1.9601 / 7.5503, 512x5 2.0118 / 7.7642; their 256-way
    /// multisplit at 2^26 1.0531 against 1.0751 (session43/5-w4t43). A sort of 4-byte keys
    /// alone: [`BinningPolicy::KEYS_SORT_TILE`].
    pub const AUTO_TILE: [(u32, u32); 4] = [(512, 16), (448, 13), (384, 10), (320, 9)];
    /// The default tile of a sort's own passes of 4-byte keys alone in whole-byte digits (a
    /// narrower last digit keeps [`BinningPolicy::AUTO_TILE`], src/prims/sort.rs), whose
    /// stable passes count late from [`BinningPolicy::LATE_MIN_TILES`] tiles
    /// ([`BinningPolicy::late_counts`]): 512x17 takes 60 / 62 / 64 registers there (first,
    /// class-step, middle pass; 512x18 65, one workgroup an SM) and sorted 2^28 u32 keys in
    /// 5.2616-5.2667 ms against 5.4277 at 512x16, 448x20 (71 registers, two workgroups of 448)
    /// 5.2987, 480x17 5.4655; at 2^26 1.3750-1.3801 against 1.4115, 448x20 1.3841-1.3923,
    /// 480x18 1.3975, 512x18 1.7651; at 2^20 0.0488 against 0.0486
    /// (bench/results/h200/binning/session39/2-items39). The multisplit and the permutation,
    /// whose passes count early, keep [`BinningPolicy::AUTO_TILE`] (the multisplit's keys at
    /// 512x17 take 69 registers, one workgroup an SM: 0.5687 ms at 2^26 against 0.4248,
    /// session40/1-next40), except the multisplit's stable passes of keys alone by a bit field
    /// where they fold (`BinningKernel::fold_keys_tile`).
    pub const KEYS_SORT_TILE: (u32, u32) = (512, 17);
    /// The default tile of 4-byte pairs with the planes in sequence
    /// ([`BinningPolicy::sequential_planes`]): 448x16 (70 registers, two workgroups an H200
    /// SM) took 0.622 ms for a 256-way multisplit of 2^26 pairs, 384x18 (79) 0.633, 384x16
    /// (71) 0.657, 320x20 (87) 0.667, 256x24 (102) 0.704; 512x14 and 512x16 (73, 69
    /// registers: one workgroup an SM) 0.823 and 0.787 (bench/results/h200/binning/session14).
    /// With the values read 8 at a time ([`BinningPolicy::value_chunk`]) 512x16 takes 63
    /// registers and runs as two workgroups an SM: the u32 pairs sort at 2^26 took 2.215 ms against 2.293 for 448x16
    /// with every value load at once, 2.300 at 480x16, 2.322 at 512x16 in groups of 4, 2.338 at
    /// 448x16 in groups of 8, 2.948 at 512x16 all at once and 3.102 at 512x17 (one workgroup
    /// an SM); at 2^20 0.0748 against 0.0820 (bench/results/h200/binning/session20/8-value-groups).
    pub const SEQUENTIAL_TILE: (u32, u32) = (512, 16);
    /// The default tile of packed pairs' last pass ([`BinningPolicy::packed_pairs`]: a pass of
    /// 4-byte pairs with the planes in sequence whose input is 8-byte words, each read three
    /// times: for the bucket, for the staging, for the value). An H100 at 2^28, two commands:
    /// 384x16 (60 registers) sorted u32 pairs in 9.2394 / 9.2234 ms against 9.2929 / 9.2884 at
    /// 512x16 (64), its last pass 2.37 ms against 2.46 (pair passes 2.23-2.26); 384x20 (69)
    /// 9.2169, 512x14 9.2444, 448x16 9.2471, 512x12 9.2631; the keys kept at 448x16 9.3183;
    /// both planes staged at once (448x13, 512x11) 9.44 (CUB 9.04). A third machine, 384x16
    /// against planes: 9.3591 against 9.5245 at 2^28, 4.6996 against 4.8660 at 2^27, 2.4275
    /// against 2.3850 at 2^26 (bench/results/h100/binning/session61).
    pub const UNPACK_TILE: (u32, u32) = (384, 16);
    /// The stable passes of a sort of keys alone count late by default from this many tiles
    /// ([`BinningPolicy::late_counts`]): H200, u32 keys at 512x17, late won from 1,928 tiles
    /// (2^24) and lost at 121 (2^20); at 482 (2^22) 0.1417 ms against 0.1421, a tie
    /// (bench/results/h200/binning/session39/2-items39, 3-items39b).
    pub const LATE_MIN_TILES: u64 = 1024;

    /// The tile asked for, (workgroup, items): the policy's, or the tuned default for the
    /// element's staged 4-byte words (or the planes in sequence, or a sort's own passes of
    /// 4-byte keys alone: `keys_sort`) where it says 0.
    pub fn tile_for(&self, words: u32, sequential: bool, keys_sort: bool) -> (u32, u32) {
        self.tile_or(match (sequential, keys_sort && words == 1) {
            (true, _) => Self::SEQUENTIAL_TILE,
            (_, true) => Self::KEYS_SORT_TILE,
            _ => Self::AUTO_TILE[(words as usize - 1).min(3)],
        })
    }

    /// The policy's tile, `auto`'s workgroup or items where it says 0.
    pub fn tile_or(&self, auto: (u32, u32)) -> (u32, u32) {
        (if self.workgroup_size == 0 { auto.0 } else { self.workgroup_size }, if self.items == 0 { auto.1 } else { self.items })
    }

    /// `WORKGROUPxITEMS[xballots|xpart][xplanes][xkeep][xlate|xearly][xnoseq][xstablefirst][xcrN][xnocs][xcsN][xvcN][xlbN][xhgN][xhwN][xfoldN][xtotN][xticket|xnoticket][xpacked][xhscalar][xclocks][xtimeline]
    /// [xskipN]`, e.g. `256x20` or `256x16xpart`; WORKGROUP and ITEMS may each be `auto` (the
    /// tuned default, [`BinningPolicy::tile_for`]), and `auto` alone is the whole default
    /// (`ballots`, `part`: [`BinningPolicy::peer_match`], shared by default; `planes`:
    /// [`BinningPolicy::stage_all`]; `keep`: [`BinningPolicy::reload`] off; `late`, `early`:
    /// [`BinningPolicy::late_counts`]; `noseq`: [`BinningPolicy::sequential_planes`] off;
    /// `stablefirst`: [`BinningPolicy::atomic_first_keys`] off; `crN`:
    /// [`BinningPolicy::second_pass_tiles`]; `nocs`: [`BinningPolicy::class_steps`] off; `csN`: [`BinningPolicy::class_step_runs`]; `vcN`: [`BinningPolicy::value_chunk`]; `lbN`: the look-back window; `hgN`: the upfront
    /// histogram's workgroups; `hwN`: [`BinningPolicy::histogram_workgroup`]; `foldN`: [`BinningPolicy::fold_max_tiles`]; `totN`: [`BinningPolicy::totals_max_tiles`]; `ticket`, `noticket`: [`BinningPolicy::tickets`]; `packed`: [`BinningPolicy::packed_pairs`]; `hscalar`: [`BinningPolicy::histogram_scalar_loads`];
    /// `clocks`: [`BinningPolicy::phase_clocks`]; `timeline`: [`BinningPolicy::timeline`] (`xclocksxtimeline` both); `skipN`: [`BinningPolicy::debug_skip`],
    /// timing experiments only).
    pub fn parse(s: &str) -> Result<BinningPolicy> {
        let bad = || Error::Invalid(format!("bad binning policy '{s}' (auto or WORKGROUPxITEMS[xballots|xpart][xplanes][xkeep][xlate|xearly][xnoseq][xstablefirst][xcrN][xnocs][xcsN][xvcN][xlbN][xhgN][xhwN][xfoldN][xtotN][xticket|xnoticket][xpacked][xhscalar][xclocks][xtimeline][xskipN], e.g. 256x20 or autox15)"));
        let mut p = BinningPolicy::default();
        if s == "auto" {
            return Ok(p);
        }
        let parts: Vec<&str> = s.split('x').collect();
        let [wg, items, rest @ ..] = &parts[..] else { return Err(bad()) };
        let size = |t: &str| if t == "auto" { Some(0) } else { t.parse().ok().filter(|&v: &u32| v > 0) };
        p.workgroup_size = size(wg).ok_or_else(bad)?;
        p.items = size(items).ok_or_else(bad)?;
        for r in rest {
            match (*r, r.strip_prefix("skip")) {
                ("ballots" | "part", _) if p.peer_match != PeerMatch::Shared => return Err(bad()),
                ("ballots", _) => p.peer_match = PeerMatch::Ballots,
                ("part", _) => p.peer_match = PeerMatch::Partitioned,
                ("planes", _) => p.stage_all = true,
                ("keep", _) => p.reload = false,
                ("late", _) => p.late_counts = Some(true),
                ("early", _) => p.late_counts = Some(false),
                ("noseq", _) => p.sequential_planes = false,
                ("stablefirst", _) => p.atomic_first_keys = false,
                ("nocs", _) => p.class_steps = false,
                (r, _) if r.starts_with("vc") => p.value_chunk = r[2..].parse().ok().filter(|&c| c > 0).ok_or_else(bad)?,
                (r, _) if r.starts_with("cs") => p.class_step_runs = r[2..].parse().map_err(|_| bad())?,
                (r, _) if r.starts_with("cr") => p.second_pass_tiles = r[2..].parse().map_err(|_| bad())?,
                (r, _) if r.starts_with("lb") => p.lookback_window = r[2..].parse().ok().filter(|&g| g > 0).ok_or_else(bad)?,
                (r, _) if r.starts_with("hw") => p.histogram_workgroup = r[2..].parse().ok().filter(|&g| g > 0).ok_or_else(bad)?,
                (r, _) if r.starts_with("hg") => p.histogram_groups = r[2..].parse().ok().filter(|&g| g > 0).ok_or_else(bad)?,
                (r, _) if r.starts_with("fold") => p.fold_max_tiles = Some(r[4..].parse().map_err(|_| bad())?),
                (r, _) if r.starts_with("tot") => p.totals_max_tiles = Some(r[3..].parse().map_err(|_| bad())?),
                ("ticket", _) => p.tickets = Some(true),
                ("noticket", _) => p.tickets = Some(false),
                ("packed", _) => p.packed_pairs = true,
                ("hscalar", _) => p.histogram_scalar_loads = true,
                ("clocks", _) => p.phase_clocks = true,
                ("timeline", _) => p.timeline = true,
                (_, Some(n)) => p.debug_skip = n.parse().map_err(|_| bad())?,
                _ => return Err(bad()),
            }
        }
        Ok(p)
    }
    /// The policy as [`BinningPolicy::parse`] reads it, flags in a fixed order.
    pub fn label(&self) -> String {
        let d = BinningPolicy::default();
        if *self == d {
            return "auto".into();
        }
        let size = |v: u32| if v == 0 { "auto".to_string() } else { v.to_string() };
        let mut s = format!("{}x{}", size(self.workgroup_size), size(self.items));
        let (ballots, part) = (self.peer_match == PeerMatch::Ballots, self.peer_match == PeerMatch::Partitioned);
        for (on, flag) in [(ballots, "xballots".to_string()), (part, "xpart".into()), (self.stage_all, "xplanes".into()),
            (!self.reload, "xkeep".into()),
            (self.late_counts == Some(true), "xlate".into()),
            (self.late_counts == Some(false), "xearly".into()),
            (!self.sequential_planes, "xnoseq".into()),
            (!self.atomic_first_keys, "xstablefirst".into()),
            (self.second_pass_tiles != d.second_pass_tiles, format!("xcr{}", self.second_pass_tiles)),
            (!self.class_steps, "xnocs".into()),
            (self.class_step_runs != d.class_step_runs, format!("xcs{}", self.class_step_runs)),
            (self.value_chunk != d.value_chunk, format!("xvc{}", self.value_chunk)),
            (self.lookback_window != d.lookback_window, format!("xlb{}", self.lookback_window)),
            (self.histogram_groups != d.histogram_groups, format!("xhg{}", self.histogram_groups)),
            (self.histogram_workgroup != d.histogram_workgroup, format!("xhw{}", self.histogram_workgroup)),
            (self.fold_max_tiles.is_some(), format!("xfold{}", self.fold_max_tiles.unwrap_or(0))),
            (self.totals_max_tiles.is_some(), format!("xtot{}", self.totals_max_tiles.unwrap_or(0))),
            (self.tickets == Some(true), "xticket".into()),
            (self.tickets == Some(false), "xnoticket".into()),
            (self.packed_pairs, "xpacked".into()),
            (self.histogram_scalar_loads, "xhscalar".into()),
            (self.phase_clocks, "xclocks".into()),
            (self.timeline, "xtimeline".into())]
        {
            if on {
                s += &flag;
            }
        }
        if self.debug_skip != 0 {
            s += &format!("xskip{}", self.debug_skip);
        }
        s
    }
}

/// What a binning pass moves: the elements and their payload.
#[derive(Clone)]
pub(crate) struct BinningInput {
    pub key: KeyType,
    pub value_bytes: u32,
    pub n: u64,
    pub subgroup_size: Option<u32>,
}

/// A checked binning pass: its geometry and pipeline.
pub(crate) struct BinningPass {
    pub workgroup_size: u32,
    pub items: u32,
    pub tiles: u32,
    /// "shared match", "partitioned", "ballots" (each perhaps with how it counts) or "atomic".
    pub ranking: &'static str,
    /// Stable ranking in class steps ([`ROLE_CLASS_STEPS`]).
    pub class_steps: bool,
    pub debug_skip: u32,
    pub phase_clocks: bool,
    pub timeline: bool,
    /// Tiles from an atomic ticket, not the workgroup index ([`BinningPolicy::tickets`]).
    pub tickets: bool,
    pub stage_all: bool,
    pub lookback_window: u32,
    pub reload: bool,
    pub sequential: bool,
    /// Values read a lane at a time in the value round (with `sequential`; `items`: all).
    pub value_chunk: u32,
    /// Tile 0 scans the bucket offsets ([`BinningPolicy::fold_max_tiles`]): the pass needs no
    /// offsets dispatch before it, and writes the offsets for the passes after it.
    pub fold: bool,
    /// Tile 0 takes the bucket totals from the tiles, not from an upfront histogram
    /// ([`BinningPolicy::totals_max_tiles`]).
    pub totals: bool,
    /// The pass's pipeline, and whether it is compiled: a plan compiles only the passes it
    /// dispatches ([`BinningPass::compiled`]).
    pub key: PipelineKey,
    pipeline: Option<Arc<Pipeline>>,
}

/// PASS_ROLE bit 2: atomic ranking in class rounds, the classes being the previous pass's
/// buckets (a second pass only: `SortPlan` sets it for keys alone and honours it as the
/// permutation's last pass right after its first).
pub(crate) const ROLE_CLASS_ROUNDS: u32 = 4;
/// PASS_ROLE bit 5 (sorts): stable ranking in class steps: a subgroup's run of the tile
/// whose keys share every earlier pass's digits ranks with atomics (`SortPlan` sets it for
/// keys alone, after the first pass).
pub(crate) const ROLE_CLASS_STEPS: u32 = 32;
/// PASS_ROLE bit 3: the pass stages one word an element whatever its key and value words.
pub(crate) const ROLE_ONE_PLANE: u32 = 8;
/// PASS_ROLE bit 6 (split sorts, `sort_onesweep_k32_v2_split`): the pass reads each 8-byte
/// value's low and high words from two arrays (bindings 2 and 6).
pub(crate) const ROLE_SPLIT_IN: u32 = 64;
/// PASS_ROLE bit 7 (split sorts): the pass writes each value's words to two arrays (bindings 3
/// and 7).
pub(crate) const ROLE_SPLIT_OUT: u32 = 128;
/// PASS_ROLE bit 8 (packed pairs, [`BinningPolicy::packed_pairs`]): the pass reads each key
/// and value from two arrays of words (bindings 0 and 2) and packs them in one 8-byte word.
pub(crate) const ROLE_PACK_IN: u32 = 256;
/// PASS_ROLE bit 4 (sorts): every pass the pipeline runs takes a whole 8-bit digit, so its
/// mask is a constant.
pub(crate) const ROLE_BYTE_DIGITS: u32 = 16;

/// The kernel-specific part of a binning pipeline.
#[derive(Clone)]
pub(crate) struct BinningKernel<'a> {
    /// Module name without the ranking suffix, e.g. `sort_onesweep_k32_v1`.
    pub shader: &'a str,
    /// Spec constants 2..=6 (key kind, direction; constant 6 is the multisplit's source).
    pub key_kind: u32,
    pub descending: bool,
    pub source: u32,
    pub bindings: u32,
    pub push_bytes: u32,
    /// Spec constant 15: the permutation's pass role (glsl/sort/onesweep.comp, PASS_ROLE);
    /// with [`ROLE_ONE_PLANE`] the tile is staged as one word an element.
    pub role: u32,
    /// The shader has `_fold_tot` variants (a sort's own passes: [`BinningPolicy::totals_max_tiles`]).
    pub totals: bool,
    /// The default [`BinningPolicy::fold_max_tiles`] where the kernel has no totals variants.
    pub fold_max_tiles: u32,
    /// A sort's own pass of keys alone whose digits are whole bytes (src/prims/sort.rs):
    /// stable, it counts late by default from [`BinningPolicy::LATE_MIN_TILES`] tiles
    /// ([`BinningPolicy::late_counts`]), and 4-byte keys take
    /// [`BinningPolicy::KEYS_SORT_TILE`].
    pub keys_sort: bool,
    /// Stable passes of 4-byte keys alone take [`BinningPolicy::KEYS_SORT_TILE`] where tile 0
    /// scans the bucket offsets at that tile (the multisplit by a bit field). H200, stable 16- and 256-way
    /// multisplits of 2^21 to 2^22 keys: 512x17 folding 0.0215-0.0374 ms against 0.0248-0.0404
    /// at 512x16 without folding and 0.0262-0.0456 folding (its 69 registers give one
    /// workgroup an SM, yet these passes, whose tiles all wait on tile 0, run faster); tied at
    /// 2^20; 1.3x slower from 2^23, where neither folds; atomic passes lose at 512x17
    /// (bench/results/h200/binning/session40/5-msfold40).
    pub fold_keys_tile: bool,
    /// The kernel's own default tile, taken where the policy leaves the tile to `auto`
    /// (packed pairs' last pass: [`BinningPolicy::UNPACK_TILE`]); `None`: [`BinningPolicy::tile_for`]'s.
    pub auto_tile: Option<(u32, u32)>,
}

impl BinningPass {
    /// The checks every binning pass shares (value size, the 30-bit counts, buffer limits,
    /// shaderInt64, the debug switch, the policy, subgroup operations), then the workgroup (at
    /// most 16 subgroups, at least 64 invocations), the items that fit in shared memory, the
    /// tile count and the pipeline's key; not compiled.
    pub fn plan(
        ctx: &Context,
        what: &str,
        input: BinningInput,
        force_fallback_period: u32,
        p: &BinningPolicy,
        ranking: Ranking,
        kernel: BinningKernel,
    ) -> Result<BinningPass> {
        if ![0, 4, 8].contains(&input.value_bytes) {
            return invalid(format!("{what}: values must be 4 or 8 bytes, not {}", input.value_bytes));
        }
        check_max_n(what, input.n)?;
        super::check_len(ctx, what, input.n, input.key.bytes().max(input.value_bytes as u64))?;
        if input.key.wide() && !ctx.capabilities().shader_int64 {
            return Err(Error::Unsupported { device: ctx.info().name.clone(), what: format!("shaderInt64 (needed by {what})") });
        }
        if force_fallback_period == 1 {
            return invalid(format!("{what}: force_fallback_period must be 0 (off) or at least 2"));
        }
        if [p.spin_limit, p.histogram_groups].contains(&0) || !(1..=64).contains(&p.lookback_window) {
            return invalid(format!("{what}: policy values must be positive, the look-back window 1 to 64 ({p:?})"));
        }
        // The histogram's workgroups are dispatched along x, where every device allows 65,535.
        if p.histogram_groups > 65_535 {
            return invalid(format!("{what}: at most 65,535 histogram workgroups, not {}", p.histogram_groups));
        }
        require_subgroup_ops(ctx, what, &["basic", "ballot", "arithmetic", "shuffle"])?;
        let sg = &ctx.info().subgroup;
        let min_sg = input.subgroup_size.unwrap_or(sg.min_size);
        // 4-byte words of an element, each a plane of the staged tile.
        let words = (input.key.bytes() as u32 + input.value_bytes) / 4;
        let one_plane = kernel.role & ROLE_ONE_PLANE != 0;
        let sequential = p.sequential_planes && !p.stage_all && !one_plane && input.key.bytes() == 4 && input.value_bytes == 4;
        let info = ctx.info();
        // Shared memory: the larger of the counter rows and the staged word planes of the
        // tile (one, or all of them with `stage_all` or `reload`, unless staged in sequence).
        let planes = if (p.stage_all || p.reload) && !one_plane && !sequential { words } else { 1 };
        let shared_words = info.max_shared_memory_bytes / 4;
        // One plane (the permutation's passes) or planes in sequence: a word per 32 staged
        // words too (s_blk; one word elsewhere, counted for every kernel).
        let blk = |stage: u32| if one_plane || sequential { stage / 32 + 1 } else { 1 };
        // The tile asked for, fitted to the device: (workgroup, items, shared match, stage words).
        let fit_tile = |(workgroup_size, items): (u32, u32)| -> Result<(u32, u32, bool, u32)> {
            let workgroup_size = fit_workgroup(workgroup_size, min_sg, sg.max_size, info.max_workgroup_invocations, sg.max_workgroup_subgroups);
            if !workgroup_size.is_multiple_of(sg.max_size.max(min_sg)) || workgroup_size / min_sg > MAX_SUBGROUPS {
                return invalid(format!("{what}: no workgroup size fits subgroup sizes {}..{}", sg.min_size, sg.max_size));
            }
            // Mask rows too when peers are matched in shared memory: only at <= 32 lanes, and
            // only where both rows fit (else ballots; the pass's label says which ran).
            let counter_words = workgroup_size / min_sg * 256;
            let shared_match = p.peer_match == PeerMatch::Shared
                && ranking == Ranking::Stable
                && input.subgroup_size.unwrap_or(sg.max_size) <= 32
                && 2 * counter_words + FIXED_SHARED_WORDS <= shared_words;
            let rows = counter_words * if shared_match { 2 } else { 1 };
            let fit = shared_words.saturating_sub(FIXED_SHARED_WORDS + blk(0)) * 32 / (32 * planes + blk(32) - blk(0)) / workgroup_size;
            // A position in the tile takes 16 bits of the kernel's per-element word.
            let items = items.min(fit).min(MAX_TILE / workgroup_size);
            let stage_words = rows.max(workgroup_size * items * planes);
            if items == 0 || stage_words + blk(stage_words) + FIXED_SHARED_WORDS > shared_words {
                return invalid(format!("{what}: a workgroup of {workgroup_size} does not fit in {} bytes of shared memory", shared_words * 4));
            }
            Ok((workgroup_size, items, shared_match, stage_words))
        };
        // Where tile 0 scans the bucket offsets, without totals (BinningPolicy::fold_max_tiles).
        let fold_limit = p.fold_max_tiles.unwrap_or(kernel.fold_max_tiles) as u64;
        let asked = kernel.auto_tile.map_or_else(|| p.tile_for(words, sequential, kernel.keys_sort), |t| p.tile_or(t));
        let mut fitted = fit_tile(asked)?;
        // Stable passes of 4-byte keys alone (the multisplit's) take the keys sort's tile where
        // they fold at it (BinningKernel::fold_keys_tile); where it does not fit, the default stays.
        if kernel.fold_keys_tile && ranking == Ranking::Stable && words == 1 && !kernel.totals {
            if let Ok(keys) = fit_tile(p.tile_for(words, sequential, true)) {
                if input.n.div_ceil(keys.0 as u64 * keys.1 as u64) <= fold_limit {
                    fitted = keys;
                }
            }
        }
        let (workgroup_size, items, shared_match, stage_words) = fitted;
        let tile = workgroup_size as u64 * items as u64;
        let value_chunk = p.value_chunk.min(items);
        let tiles = input.n.div_ceil(tile);
        if (tiles * tile) >> 32 != 0 {
            return invalid(format!("{what}: n too large for 32-bit indexing"));
        }
        // A total word counts its tiles in 8 bits and its elements in 24 (glsl/sort/binning.glsl).
        let totals_max = p.totals_max_tiles.or(ctx.info().compute_units).unwrap_or(0).min(255);
        let totals_fit = kernel.totals && tiles <= totals_max as u64 && input.n < 1 << 24;
        let fold = match (p.fold_max_tiles, kernel.totals) {
            (Some(max), _) => tiles <= max as u64,
            (None, true) => totals_fit,
            (None, false) => tiles <= fold_limit,
        };
        let totals = totals_fit && fold;
        // Each pass binds its look-back words (one per bucket per tile) as one range.
        let pass_state = state_bytes(tiles as u32, p.timeline);
        if pass_state > ctx.max_storage_buffer_range() {
            return invalid(format!(
                "{what}: the look-back state of {tiles} tiles ({pass_state} bytes) exceeds this device's maxStorageBufferRange ({} bytes)",
                ctx.max_storage_buffer_range()
            ));
        }
        let partitioned = ranking == Ranking::Stable
            && p.peer_match == PeerMatch::Partitioned
            && ctx.capabilities().subgroup_partitioned
            && sg.supported_operations.iter().any(|o| o == "partitioned_nv");
        if p.phase_clocks && !ctx.capabilities().shader_clock {
            return Err(Error::Unsupported { device: ctx.info().name.clone(), what: format!("VK_KHR_shader_clock (phase clocks of {what})") });
        }
        if p.timeline && !ctx.capabilities().tile_timeline {
            return Err(Error::Unsupported {
                device: ctx.info().name.clone(),
                what: format!("shaderDeviceClock and VK_NV_shader_sm_builtins (tile timelines of {what})"),
            });
        }
        let name = format!(
            "{}{}{}{}{}",
            kernel.shader,
            if partitioned { "_part" } else { "" },
            match (p.timeline, p.phase_clocks) {
                (true, true) => "_clock_timeline",
                (true, false) => "_timeline",
                (false, true) => "_clock",
                _ => "",
            },
            if fold { "_fold" } else { "" },
            if totals { "_tot" } else { "" }
        );
        let shader = gpu::shaders::name(&name).ok_or_else(|| Error::Invalid(format!("{what}: no shader variant {name}")))?;
        // NVIDIA's vendor id: its GPUs start workgroups in index order.
        let tickets = p.tickets.unwrap_or(info.vendor_id != 0x10de);
        let late = p.late_counts.unwrap_or(kernel.keys_sort && tiles >= BinningPolicy::LATE_MIN_TILES);
        let key = PipelineKey {
            shader,
            spec: vec![
                workgroup_size,
                items,
                kernel.key_kind,
                kernel.descending as u32,
                force_fallback_period,
                p.spin_limit,
                kernel.source,
                stage_words,
                (ranking == Ranking::Atomic) as u32,
                p.debug_skip,
                p.stage_all as u32,
                shared_match as u32,
                p.lookback_window,
                p.reload as u32,
                !late as u32,
                kernel.role,
                sequential as u32,
                if sequential { value_chunk } else { 0 },
                tickets as u32,
            ],
            subgroup_size: input.subgroup_size,
            bindings: kernel.bindings,
            push_bytes: kernel.push_bytes,
        };
        let ranking = match (ranking, shared_match, partitioned, late) {
            (Ranking::Atomic, ..) => "atomic",
            (_, true, _, true) => "shared match, late counts",
            (_, true, ..) => "shared match",
            (_, _, true, true) => "partitioned, late counts",
            (_, _, true, _) => "partitioned",
            (.., true) => "ballots, late counts",
            _ => "ballots",
        };
        Ok(BinningPass {
            workgroup_size,
            items,
            tiles: tiles as u32,
            ranking,
            class_steps: ranking != "atomic" && kernel.role & ROLE_CLASS_STEPS != 0,
            debug_skip: p.debug_skip,
            phase_clocks: p.phase_clocks,
            timeline: p.timeline,
            tickets,
            stage_all: p.stage_all,
            lookback_window: p.lookback_window,
            reload: p.reload,
            sequential,
            value_chunk,
            fold,
            totals,
            key,
            pipeline: None,
        })
    }

    /// Compiles the pass's pipeline (or finds it in the context's cache).
    pub fn compile(&mut self, ctx: &Context) -> Result<()> {
        if self.pipeline.is_none() {
            self.pipeline = Some(ctx.pipeline(self.key.clone())?);
        }
        Ok(())
    }
    pub fn is_compiled(&self) -> bool {
        self.pipeline.is_some()
    }
    /// The compiled pipeline; an error for a pass its plan never dispatches.
    pub fn pipeline(&self) -> Result<&Arc<Pipeline>> {
        self.pipeline.as_ref().ok_or_else(|| Error::Invalid(format!("{}: pass not compiled (a vkprims bug)", self.key.shader)))
    }

    pub fn tile_keys(&self) -> u64 {
        self.workgroup_size as u64 * self.items as u64
    }
    /// Workgroups to dispatch: a tile each (twice the tiles for debug bit 7's value copies).
    pub fn workgroups(&self) -> u32 {
        if self.debug_skip & 128 != 0 { 2 * self.tiles } else { self.tiles }
    }
    /// "tile 7680 (512x15, partitioned)": for result rows.
    pub fn label(&self) -> String {
        let skip = if self.debug_skip != 0 { format!(", skip {}", self.debug_skip) } else { String::new() };
        let tiles = if self.tickets { "" } else { ", index tiles" };
        let clocks = match (self.phase_clocks, self.timeline) {
            (true, true) => ", clocks, timeline",
            (false, true) => ", timeline",
            (true, false) => ", clocks",
            _ => "",
        };
        let planes = if self.stage_all { ", planes" } else { "" };
        let window = if self.lookback_window != default_window() { format!(", look-back window {}", self.lookback_window) } else { String::new() };
        let reload = if self.reload { "" } else { ", kept" };
        let fold = match (self.fold, self.totals) {
            (true, true) => ", offsets by tile 0 from the tiles' totals",
            (true, false) => ", offsets by tile 0",
            _ => "",
        };
        let planes = match self.sequential {
            true if self.value_chunk < self.items => format!(", planes in sequence, values {} at a time", self.value_chunk),
            true => ", planes in sequence".into(),
            false => planes.into(),
        };
        let steps = if self.class_steps { " in class steps" } else { "" };
        format!("tile {} ({}x{}, {}{steps}{reload}{planes}{window}{fold}{tiles}{clocks}{skip})", self.tile_keys(), self.workgroup_size, self.items, self.ranking)
    }
}

/// The workgroup a binning pass runs: the one asked for, lowered (like the items, and
/// reported in the pass's label) to at most 16 subgroups of the narrowest width, the device's
/// invocations and subgroups per workgroup, and a multiple of the widest subgroup; at least
/// 64 (pipeline creation reports a device that cannot run that).
fn fit_workgroup(asked: u32, min_sg: u32, max_sg: u32, max_invocations: u32, max_subgroups: u32) -> u32 {
    let step = max_sg.max(min_sg).max(1);
    let most = asked.min(MAX_SUBGROUPS * min_sg).min(max_invocations).min(max_subgroups.saturating_mul(min_sg));
    (most / step * step).max(64)
}

/// One pass's state: tile ticket, debug counter (fallbacks), two spare words, the look-back
/// words (256 buckets per tile), the phase clocks and look-back counts, then the bucket
/// totals of a `_tot` pass (glsl/sort/binning.glsl, totals_at), and with
/// [`BinningPolicy::timeline`] the tiles' timelines.
pub(crate) fn state_bytes(tiles: u32, timeline: bool) -> u64 {
    (timeline_at(tiles) + if timeline { TIMELINE_WORDS * tiles as usize } else { 0 }) as u64 * 4
}

/// Words a tile's timeline takes (glsl/sort/binning.glsl, stamp): its SM, the device clock's
/// low word at each of [`TIMELINE_POINTS`], the SM clock's low word at each, and the device
/// clock's low word when its last bucket walk ended (0: none).
pub const TIMELINE_WORDS: usize = 20;
pub const TIMELINE_POINTS: [&str; 9] =
    ["start", "loaded", "counted", "ranked", "staged", "looked back", "keys scattered", "values staged", "end"];
fn timeline_at(tiles: u32) -> usize {
    clock_words_at(tiles) + CLOCK_WORDS as usize + 256
}
/// The tiles' timelines from a pass's state words (`state`, as read back): [`TIMELINE_WORDS`]
/// a tile, in tile order.
pub fn tile_timeline(state: &[u32], tiles: u32) -> &[u32] {
    let at = timeline_at(tiles).min(state.len());
    &state[at..(at + TIMELINE_WORDS * tiles as usize).min(state.len())]
}

/// The first word after a pass's look-back words: the phase clocks, then the look-back
/// counts (glsl/sort/binning.glsl: STATE_BASE + 256 num_tiles).
fn clock_words_at(tiles: u32) -> usize {
    4 + 256 * tiles as usize
}

#[cfg(test)]
mod tests {
    use super::BinningPolicy;

    #[test]
    fn workgroups_fit_the_device() {
        use super::fit_workgroup;
        // H200 (32 lanes, 1024 invocations): the default 512 as asked.
        assert_eq!(fit_workgroup(512, 32, 32, 1024, 32), 512);
        // 16 subgroups of the narrowest width (lavapipe at width 8: 128).
        assert_eq!(fit_workgroup(512, 8, 8, 1024, 128), 128);
        // A device of 256 invocations (the spec allows 128), or 4 subgroups of 64.
        assert_eq!(fit_workgroup(512, 32, 32, 256, 32), 256);
        assert_eq!(fit_workgroup(512, 64, 64, 1024, 4), 256);
        // Varying widths 8..64: a multiple of 64 within 16 subgroups of 8.
        assert_eq!(fit_workgroup(512, 8, 64, 1024, 128), 128);
        assert_eq!(fit_workgroup(448, 32, 128, 1024, 32), 384);
    }

    #[test]
    fn policy_labels_parse_back() {
        for s in ["auto", "384x15", "autox15", "256xauto", "256x8xpart", "autox9xballotsxplanesxclocks", "384x15xlb32xhg512", "autoxautoxhg1024xhscalar", "64x4xskip32", "256x15xkeep", "512x15xpartxplanesxkeepxclocksxskip27", "256x20xlate", "128x8xearly", "512x10xnoseq", "autoxautoxcr0", "64x8xballotsxlate", "64x15xkeepxlatexlb4", "448x16xvc16", "autoxautoxcr0xvc1", "autoxautoxhg256xhw512", "autoxautoxfold64xtot0", "autoxautoxtot255xclocks", "autoxautoxticket", "64x8xtot4xticketxclocks", "64x16xnoticket", "autoxautoxpacked"] {
            let p = BinningPolicy::parse(s).unwrap();
            assert_eq!(p.label(), s);
            assert_eq!(BinningPolicy::parse(&p.label()).unwrap(), p);
        }
        assert_eq!(BinningPolicy::parse("64x4xclocksxpart").unwrap().label(), "64x4xpartxclocks");
        assert_eq!(BinningPolicy::parse("autoxautoxtimeline").unwrap().label(), "autoxautoxtimeline");
        assert_eq!(BinningPolicy::parse("autoxautoxclocksxtimelinexskip8454400").unwrap().label(), "autoxautoxclocksxtimelinexskip8454400");
        for bad in ["0x15", "384x0", "x15", "384", "384x15xsmatch", "384xq", "384x15xballotsxpart", "384x15xhg0", "384x15xhgx", "384x15xcr", "384x15xvc0", "384x15xvc", "384x15xtot", "384x15xtotx"] {
            assert!(BinningPolicy::parse(bad).is_err(), "{bad}");
        }
    }
}
