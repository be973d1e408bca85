//! Random cases for the selftest (`vkprims selftest --soak SECONDS`): sorts, multisplits,
//! permutations and scans drawn from every parameter the fixed checks vary (key type, size,
//! values, direction, bit range, digit layout, ranking, forced fallback, input pattern, bucket
//! source and count, group target and capacity, scan kind, operator and dtype), from the
//! binning policy's knobs that keep results right (tiles, peer matching, counts, planes, class
//! steps and rounds, value groups, look-back window, folding, totals, tickets, histogram
//! loads, the ranking variants of the debug bits) and from the scan's tile and spin limit,
//! each checked against the CPU as the fixed checks are. The fixed checks cover each knob
//! alone; these cover them together, at the device's own width.
//!
//! Case k of seed S is a function of (S, k) and the build alone, so a failure is replayed
//! with the same binary and `--soak-seed S --soak-case k`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::error::{Error, Result};
use crate::gpu::Context;
use crate::prims::binning::{BinningPolicy, Ranking};
use crate::prims::multisplit::{BucketSource, MultisplitDesc};
use crate::prims::perm::PermDesc;
use crate::prims::sort::{DigitLayout, KeyType, SortDesc, SortPlan};
use crate::prims::scan::{ScanDesc, ScanKind, ScanOp, ScanPolicy};
use crate::prims::DType;
use crate::selftest::{index_values, multisplit_check, perm_check, scan_check, sort_check, sorted_splitters, Check};
use crate::testdata::{generate, sort_keys, KeyPattern, Pattern};

/// Pipelines the soak keeps cached between cases (more: those no plan holds are released).
const PIPELINES_KEPT: usize = 64;

/// A case's outcome: its check, or the library's refusal of the drawn input as invalid (a
/// policy that does not fit the device, say), which is named but not failed.
pub enum Outcome {
    Checked(Check),
    Refused { name: String, why: String },
}

/// The cases of a seed, in order, as an iterator: from case 0 until `time` has passed (at
/// least one), or case `only` alone; sizes up to `max_n`.
pub struct Cases {
    ctx: Arc<Context>,
    subgroup_size: Option<u32>,
    max_n: u64,
    seed: u64,
    next: u64,
    only: Option<u64>,
    deadline: Instant,
    released: usize,
}

impl Cases {
    /// Cached pipelines released between cases so far (past 64 cached, those no plan holds).
    pub fn released_pipelines(&self) -> usize {
        self.released
    }
}

pub fn cases(ctx: &Arc<Context>, subgroup_size: Option<u32>, max_n: u64, seed: u64, time: Duration, only: Option<u64>) -> Cases {
    Cases { ctx: ctx.clone(), subgroup_size, max_n: max_n.max(1), seed, next: only.unwrap_or(0), only, deadline: Instant::now() + time, released: 0 }
}

impl Iterator for Cases {
    type Item = Outcome;
    fn next(&mut self) -> Option<Outcome> {
        let k = self.next;
        let first = k == self.only.unwrap_or(0);
        if !first && (self.only.is_some() || Instant::now() >= self.deadline) {
            return None;
        }
        self.next += 1;
        let name = format!("soak {}/{k}", self.seed);
        let outcome = match case(&self.ctx, self.subgroup_size, self.max_n, self.seed, k) {
            Ok(c) => Outcome::Checked(Check { name: format!("{name}: {}", c.name), ..c }),
            Err(Error::Invalid(why)) => Outcome::Refused { name, why },
            Err(e) => Outcome::Checked(Check { name, ok: false, detail: e.to_string() }),
        };
        // Most cases draw a policy of their own, so their pipelines are seldom used again: keep
        // memory bounded however long the soak runs (the case is done, its plans dropped).
        match self.ctx.trim_pipelines(PIPELINES_KEPT) {
            Ok(released) => self.released += released,
            Err(e) => return Some(Outcome::Checked(Check { name: format!("soak {}/{k}: releasing pipelines", self.seed), ok: false, detail: e.to_string() })),
        }
        Some(outcome)
    }
}

/// Case `k` of `seed`: its own random stream, so any case can be drawn alone.
fn case(ctx: &Arc<Context>, subgroup_size: Option<u32>, max_n: u64, seed: u64, k: u64) -> Result<Check> {
    let mut rng = StdRng::seed_from_u64(seed ^ k.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    // Where the caller pins no width and the device runs compute at several, half the cases
    // pin one of them.
    let sg = &ctx.info().subgroup;
    let pinned = (subgroup_size.is_none() && sg.size_control && sg.min_size < sg.max_size && sg.required_size_stages.iter().any(|s| s == "compute") && rng.random_bool(0.5))
        .then(|| sg.min_size << rng.random_range(0..=(sg.max_size / sg.min_size).trailing_zeros()));
    match pinned {
        Some(s) => check_case(ctx, &mut rng, Some(s), max_n).map(|c| Check { name: format!("{} at subgroup size {s}", c.name), ..c }),
        None => check_case(ctx, &mut rng, subgroup_size, max_n),
    }
}

/// The rest of a case's draws, then its check.
fn check_case(ctx: &Arc<Context>, rng: &mut StdRng, subgroup_size: Option<u32>, max_n: u64) -> Result<Check> {
    let what = rng.random_range(0..20u32);
    let n = draw_n(rng, max_n);
    let policy = draw_policy(rng, n, what < 11 && ctx.capabilities().shader_clock);
    let fallback = if rng.random_bool(0.25) { rng.random_range(2..6u32) } else { 0 };
    let key = KeyType::ALL[rng.random_range(0..KeyType::ALL.len())];
    let value_bytes = [0, 4, 8][rng.random_range(0..3usize)];
    let ranking = if rng.random_bool(0.2) { Ranking::Atomic } else { Ranking::Stable };
    let pattern = if rng.random_bool(0.1) { KeyPattern::LowFour } else { KeyPattern::ALL[rng.random_range(0..KeyPattern::ALL.len())] };
    let data_seed = rng.random::<u64>();
    let policy_name = match policy.spin_limit {
        s if s == BinningPolicy::default().spin_limit => policy.label(),
        s => format!("{} spin {s}", policy.label()),
    };
    if what < 11 {
        let mut d = SortDesc::new(key, n);
        d.value_bytes = value_bytes;
        d.descending = rng.random_bool(0.5);
        if rng.random_bool(0.3) {
            let lo = rng.random_range(0..key.bits());
            d.bits = (lo, rng.random_range(lo + 1..=key.bits()));
        }
        d.digits = if rng.random_bool(0.25) { DigitLayout::Bytes } else { DigitLayout::Even };
        d.ranking = ranking;
        d.force_fallback_period = fallback;
        d.subgroup_size = subgroup_size;
        d.policy = policy;
        // Planned first, so that a refused policy is reported, not failed; a third of the
        // sizes then move to a tile edge: a multiple of the tile, give or take one.
        let tile = SortPlan::new(ctx, d.clone())?.tile_keys();
        if rng.random_bool(0.3) {
            let tiles = (n / tile).clamp(1, (max_n / tile).max(1));
            d.n = (tiles * tile + rng.random_range(0..3u64)).saturating_sub(1).min(max_n);
        }
        let keys = sort_keys(pattern, key, d.n as usize, data_seed);
        let name = format!("{} {policy_name} ({pattern:?}, {:?} digits, fallback {fallback})", d.label(), d.digits);
        Ok(sort_check(ctx, &d, &keys, name))
    } else if what < 16 {
        let source = match rng.random_range(0..3u32) {
            0 => {
                let width = rng.random_range(1..=16u32.min(key.bits()));
                let lo = rng.random_range(0..=key.bits() - width);
                BucketSource::Bits { lo, hi: lo + width }
            }
            1 => BucketSource::Ids { buckets: if rng.random_bool(0.7) { rng.random_range(2..=256u32) } else { rng.random_range(257..=65_536u32) } },
            _ => BucketSource::Splitters { count: if rng.random_bool(0.7) { rng.random_range(1..=255u32) } else { rng.random_range(256..=5_000u32) } },
        };
        let mut d = MultisplitDesc::new(key, n, source);
        d.value_bytes = value_bytes;
        d.ranking = ranking;
        d.force_fallback_period = fallback;
        d.subgroup_size = subgroup_size;
        d.policy = policy;
        let keys = sort_keys(pattern, key, n as usize, data_seed);
        let mut data = StdRng::seed_from_u64(data_seed ^ 1);
        let aux: Option<Vec<u32>> = match source {
            BucketSource::Bits { .. } => None,
            // Spread, skewed to a few buckets, or all in one.
            BucketSource::Ids { buckets } => Some(match data.random_range(0..3u32) {
                0 => (0..n).map(|_| data.random_range(0..buckets)).collect(),
                1 => (0..n).map(|_| data.random_range(0..buckets.min(4)) * (buckets / 4).max(1) % buckets).collect(),
                _ => vec![data.random_range(0..buckets); n as usize],
            }),
            BucketSource::Splitters { count } => Some(sorted_splitters(key, count as usize, data_seed ^ 2)),
        };
        let values = index_values(n, value_bytes);
        crate::prims::multisplit::MultisplitPlan::new(ctx, d.clone())?;  // a refusal is reported, not failed
        let name = format!("{} {policy_name} ({pattern:?}, fallback {fallback})", d.label());
        Ok(multisplit_check(ctx, &d, &keys, values.as_deref(), aux.as_deref(), name))
    } else if what < 18 {
        let seed = rng.random::<u64>();
        let mut d = if value_bytes == 0 { PermDesc::indices(n, seed) } else { PermDesc::new(n, value_bytes, seed) };
        d.reproducible = rng.random_bool(0.5);
        d.subgroup_size = subgroup_size;
        d.group_target = [0, 0, 64, 1024, 4096][rng.random_range(0..5usize)];
        d.group_capacity = [0, 0, 0, 64, 300][rng.random_range(0..5usize)];
        d.debug_full_compare = rng.random_bool(0.1);
        d.debug_wide_ids = rng.random_bool(0.1);
        d.debug_force_fallback_period = fallback;
        d.policy = policy;
        crate::prims::perm::PermPlan::new(ctx, d.clone())?;  // a refusal is reported, not failed
        let name = format!("{} {policy_name} (target {}, capacity {}, fallback {fallback})", d.label(), d.group_target, d.group_capacity);
        Ok(perm_check(ctx, &d, name))
    } else {
        let dtype = DType::ALL[rng.random_range(0..DType::ALL.len())];
        let mut d = ScanDesc::new(dtype, ScanOp::ALL[rng.random_range(0..ScanOp::ALL.len())], ScanKind::ALL[rng.random_range(0..ScanKind::ALL.len())], n);
        if rng.random_bool(0.5) {
            d.policy = ScanPolicy {
                workgroup_size: [64, 128, 256, 512][rng.random_range(0..4usize)],
                vec_per_lane: rng.random_range(1..=8u32),
                spin_limit: [1, 4, 32][rng.random_range(0..3usize)],
                reduce_groups: [1, 7, 1024][rng.random_range(0..3usize)],
            };
        }
        d.pin_subgroup_size(ctx, subgroup_size);
        d.force_fallback_period = fallback;
        let data = Pattern::ALL[rng.random_range(0..Pattern::ALL.len())];
        let input = generate(data, dtype, n as usize, data_seed);
        let p = &d.policy;
        let name = format!("{} {}x{} spin {} reduce groups {} ({}, fallback {fallback})", d.label(), p.workgroup_size, p.vec_per_lane, p.spin_limit, p.reduce_groups, data.name());
        Ok(scan_check(ctx, &d, &input, name))
    }
}

/// Sizes from 0 to `max_n`: a tenth tiny, a third spread evenly over their logarithm (most
/// within a tile or a few), the rest evenly over the range (most of many tiles).
fn draw_n(rng: &mut StdRng, max_n: u64) -> u64 {
    let u = rng.random_range(0.0..1.0);
    if u < 0.1 {
        rng.random_range(0..=max_n.min(3))
    } else if u < 0.4 {
        (rng.random_range(0.0..(max_n as f64).ln()).exp() as u64).clamp(1, max_n)
    } else {
        rng.random_range(1..=max_n)
    }
}

/// A binning policy of random knobs, each kept where it leaves results right. Index tiles
/// (`xnoticket`) only below 50,000 elements: where workgroups do not start in index order
/// (lavapipe) every tile then waits out the spin limit. Phase clocks (`clocks`: a sort on a
/// device with them) write words after the look-back's; a spin limit of 1 or 2 sends many
/// look-backs into the fallback on their own.
fn draw_policy(rng: &mut StdRng, n: u64, clocks: bool) -> BinningPolicy {
    let mut s = if rng.random_bool(0.7) {
        "autoxauto".to_string()
    } else {
        let wg = [64, 128, 192, 256, 320, 384, 448, 512][rng.random_range(0..8usize)];
        format!("{wg}x{}", rng.random_range(1..=24u32))
    };
    let choices: [(f64, &[&str]); 19] = [
        (0.2, &["xballots", "xballots", "xpart"]),
        (0.1, &["xplanes"]),
        (0.1, &["xkeep"]),
        (0.3, &["xlate", "xearly"]),
        (0.1, &["xnoseq"]),
        (0.1, &["xstablefirst"]),
        (0.15, &["xcr1", "xcr2", "xcr16"]),
        (0.1, &["xnocs"]),
        (0.15, &["xcs0", "xcs1", "xcs4"]),
        (0.15, &["xvc1", "xvc3", "xvc5", "xvc16"]),
        (0.15, &["xlb1", "xlb2", "xlb4", "xlb16", "xlb64"]),
        (0.1, &["xhg1", "xhg3", "xhg64"]),
        (0.1, &["xhw64", "xhw256"]),
        (0.15, &["xfold0", "xfold1", "xfold8", "xfold512"]),
        (0.1, &["xtot0", "xtot1", "xtot16", "xtot255"]),
        (0.1, &["xticket", "xnoticket"]),
        (0.1, &["xhscalar"]),
        (0.15, &["xpacked"]),
        // Ranking variants: uvec4 ballots, atomic steps in reverse.
        (0.25, &["xskip32", "xskip64"]),
    ];
    for (p, options) in choices {
        let f = options[rng.random_range(0..options.len())];
        if rng.random_bool(p) && !(f == "xnoticket" && n >= 50_000) {
            s += f;
        }
    }
    if clocks && rng.random_bool(0.05) {
        s += "xclocks";
    }
    let mut p = BinningPolicy::parse(&s).expect("the soak draws only policies the parser reads");
    if rng.random_bool(0.15) {
        p.spin_limit = rng.random_range(1..=2);
    }
    if rng.random_bool(0.05) {
        // Debug bit 8: tiles S..2S-1 (or the odd ones below 2S) held back 256 spin rounds
        // once their counts are posted; results stay right.
        p.debug_skip |= 256 | 1 << 16 | rng.random_range(1..=8u32) << 24 | if rng.random_bool(0.5) { 4096 } else { 0 };
    }
    p
}
