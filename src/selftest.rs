//! `vkprims selftest`: the correctness suite on whatever device is chosen. A subgroup probe
//! first (so a driver whose subgroup operations disagree with its reported width is named as
//! such), then every primitive against its CPU reference at fixed seeds and several sizes,
//! forced fallback included. One line per check.

use std::sync::Arc;

use crate::error::Result;
use crate::gpu::{self, Access, Buffer, Context, MemoryLocation, PipelineKey, Recorder};
use crate::prims::scan::{self, ScanDesc, ScanKind, ScanOp, ScanPolicy};
use crate::prims::DType;
use crate::testdata::{generate, Pattern};

/// Outcome of one check.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Check {
    pub name: String,
    pub ok: bool,
    pub detail: String,
}

const PROBE_FIELDS: usize = 12;
const PROBE_NAMES: [&str; PROBE_FIELDS] = [
    "gl_SubgroupSize",
    "gl_SubgroupInvocationID",
    "ballot(true) bit count",
    "ballot(odd lanes) bit count",
    "inclusive bit count",
    "exclusive bit count (odd lanes)",
    "ballot find MSB",
    "ballot bit extract",
    "subgroupAdd(1)",
    "subgroupInclusiveAdd(lane)",
    "subgroupMax(lane)",
    "subgroupShuffle(lane, lane+1)",
];

/// What each probe field must hold for a lane of a subgroup of size `s`.
pub fn probe_expected(s: u32, lane: u32) -> [u32; PROBE_FIELDS] {
    [
        s,
        lane,
        s,
        s / 2,
        lane + 1,
        lane / 2,
        s - 1,
        lane & 1,
        s,
        lane * (lane + 1) / 2,
        s - 1,
        (lane + 1) % s,
    ]
}

/// Run the subgroup probe; one check per field, naming the first wrong lane.
pub fn probe(ctx: &Arc<Context>, subgroup_size: Option<u32>) -> Result<Vec<Check>> {
    let wg = 128u32.max(ctx.info().subgroup.max_size);
    let p = ctx.pipeline(PipelineKey { shader: "probe", spec: vec![wg], subgroup_size, bindings: 1, push_bytes: 0 })?;
    let bytes = wg as u64 * PROBE_FIELDS as u64 * 4;
    let out = Buffer::new(ctx, bytes, MemoryLocation::GpuOnly, "probe output")?;
    let mut rec = Recorder::new(ctx, "subgroup probe")?;
    rec.dispatch(&p, &[out.slice()], &[], [1, 1, 1])?;
    rec.barrier(&[out.slice()], Access::ComputeWrite, Access::TransferRead, "probe results copied to the host");
    rec.submit_and_wait()?;
    drop(rec);
    let words: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(ctx, out.slice())?);
    let reported = words[0];
    let mut checks = vec![Check {
        name: "probe: subgroup size".into(),
        ok: subgroup_size.is_none_or(|s| s == reported) && reported.is_power_of_two(),
        detail: format!(
            "gl_SubgroupSize = {reported} (device default {}, pinned {})",
            ctx.info().subgroup.default_size,
            subgroup_size.map_or("no".to_string(), |s| s.to_string())
        ),
    }];
    for (f, name) in PROBE_NAMES.iter().enumerate().skip(1) {
        let bad = (0..wg as usize).find_map(|inv| {
            let rec = &words[inv * PROBE_FIELDS..(inv + 1) * PROBE_FIELDS];
            let want = probe_expected(rec[0], rec[1]);
            (rec[f] != want[f]).then(|| (inv, rec[1], rec[f], want[f]))
        });
        let detail = match bad {
            None => format!("correct at width {reported}"),
            Some((inv, lane, got, want)) => {
                let mut d = format!("invocation {inv} (lane {lane}): got {got}, want {want} at reported width {reported}");
                if f == 2 && got < reported {
                    d.push_str(&format!(
                        "; the driver reports {reported} lanes but its subgroup operations act on {got}: \
                         a driver bug, and every subgroup kernel would be wrong at this width"
                    ));
                }
                d
            }
        };
        checks.push(Check { name: format!("probe: {name}"), ok: bad.is_none(), detail });
    }
    Ok(checks)
}

/// One scan or reduce of `input` checked against the reference.
pub(crate) fn scan_check(ctx: &Arc<Context>, desc: &ScanDesc, input: &[u32], name: String) -> Check {
    match scan::run_words(ctx, desc, input) {
        Ok(got) => match scan::check(desc, input, &got) {
            None => Check { name, ok: true, detail: String::new() },
            Some(e) => Check { name, ok: false, detail: e },
        },
        Err(e) => Check { name, ok: false, detail: e.to_string() },
    }
}

/// Scan and reduce against the reference: every dtype, operator and kind at awkward sizes,
/// plus the forced decoupled fallback.
pub fn scan_checks(ctx: &Arc<Context>, subgroup_size: Option<u32>, max_n: u64) -> Result<Vec<Check>> {
    let tile = ScanPolicy::default().tile_elems();
    let mut sizes: Vec<u64> = vec![0, 1, 3, 4, 1000, tile - 1, tile, tile + 1, 7 * tile + 5, 100_003, 1 << 20, 3_000_017];
    sizes.retain(|&n| n <= max_n);
    let mut checks = Vec::new();
    for dtype in DType::ALL {
        for op in ScanOp::ALL {
            for kind in ScanKind::ALL {
                for (i, &n) in sizes.iter().enumerate() {
                    let pattern = if i % 3 == 2 { Pattern::Specials } else { Pattern::Random };
                    for force in [0u32, 3] {
                        if force > 0 && n < 3 * tile {
                            continue;
                        }
                        let mut desc = ScanDesc::new(dtype, op, kind, n);
                        desc.pin_subgroup_size(ctx, subgroup_size);
                        desc.force_fallback_period = force;
                        let input = generate(pattern, dtype, n as usize, 0x5eed ^ n);
                        let name = format!(
                            "{}{} ({})",
                            desc.label(),
                            if force > 0 { " forced-fallback" } else { "" },
                            pattern.name()
                        );
                        checks.push(scan_check(ctx, &desc, &input, name));
                    }
                }
            }
        }
    }
    // f32 add keeps the sign of zero: a zero sum is -0.0 exactly when every term is -0.0 (all
    // -0.0, then one +0.0 partway), across tiles; scan::check compares a zero's sign exactly.
    let nz = (-0.0f32).to_bits();
    for kind in ScanKind::ALL {
        for (n, plus_at) in [(7 * tile + 5, None), (7 * tile + 5, Some(3 * tile + 1))] {
            if n > max_n {
                continue;
            }
            let mut input = vec![nz; n as usize];
            if let Some(i) = plus_at {
                input[i as usize] = 0;
            }
            let mut desc = ScanDesc::new(DType::F32, ScanOp::Add, kind, n);
            desc.pin_subgroup_size(ctx, subgroup_size);
            let what = if plus_at.is_some() { "-0.0 but one +0.0" } else { "all -0.0" };
            checks.push(scan_check(ctx, &desc, &input, format!("{} ({what})", desc.label())));
        }
    }
    Ok(checks)
}

/// The checks' values: each element's input index (so stability and placement are exact),
/// 8-byte values the index and its complement; none for 0 bytes.
pub(crate) fn index_values(n: u64, value_bytes: u32) -> Option<Vec<u32>> {
    match value_bytes {
        0 => None,
        4 => Some((0..n as u32).collect()),
        _ => Some((0..n as u32).flat_map(|i| [i, !i]).collect()),
    }
}

/// `count` random keys sorted in the key's order: a multisplit's splitters.
pub(crate) fn sorted_splitters(key: crate::prims::sort::KeyType, count: usize, seed: u64) -> Vec<u32> {
    use crate::testdata::{sort_keys, KeyPattern};
    let splitters: Vec<u32> = sort_keys(KeyPattern::Random, key, count, seed);
    let mut idx: Vec<usize> = (0..count).collect();
    idx.sort_by_key(|&s| crate::prims::sort::order_key(key, false, &splitters, s));
    crate::prims::sort::gather(&splitters, (key.bytes() / 4) as usize, &idx)
}

/// One sort of `keys` checked against the CPU's, with [`index_values`].
pub(crate) fn sort_check(ctx: &Arc<Context>, d: &crate::prims::sort::SortDesc, keys: &[u32], name: String) -> Check {
    use crate::prims::sort;
    let values = index_values(d.n, d.value_bytes);
    match sort::run(ctx, d, keys, values.as_deref()) {
        Ok((k, v)) => match sort::check(d, keys, values.as_deref(), &k, v.as_deref()) {
            None => Check { name, ok: true, detail: String::new() },
            Some(e) => Check { name, ok: false, detail: e },
        },
        Err(e) => Check { name, ok: false, detail: e.to_string() },
    }
}

/// The radix sort against a stable CPU sort: every key type, keys and pairs (values = input
/// index, so stability is exact), both directions, a bit range, awkward sizes, the forced
/// fallback, and peers matched by ballots.
pub fn sort_checks(ctx: &Arc<Context>, subgroup_size: Option<u32>, max_n: u64) -> Result<Vec<Check>> {
    use crate::prims::sort::{KeyType, SortDesc, SortPlan};
    use crate::testdata::{sort_keys, KeyPattern};
    let mut checks = Vec::new();
    for key in KeyType::ALL {
        let mut probe = SortDesc::new(key, 1);
        probe.subgroup_size = subgroup_size;
        let tile = SortPlan::new(ctx, probe)?.tile_keys();
        let mut cases: Vec<(u64, u32, bool, KeyPattern, u32, Option<(u32, u32)>)> = Vec::new();
        for (i, n) in [0, 1, tile - 1, tile + 1, 100_003, 1_000_003].into_iter().enumerate() {
            let pattern = [KeyPattern::Random, KeyPattern::FewDistinct, KeyPattern::FloatSpecials][i % 3];
            cases.push((n, [0, 4, 8][i % 3], i % 2 == 1, pattern, 0, None));
        }
        cases.push((37 * tile + 5, 4, false, KeyPattern::Random, 3, None));
        cases.push((20_011, 8, true, KeyPattern::TopDigitOnly, 0, Some((key.bits() / 4, key.bits() - 3))));
        // Unstable (atomic first pass): n = 100,004 marks it below.
        cases.push((100_004, 4, false, KeyPattern::FewDistinct, 3, None));
        // Keys alone with long classes: the second pass's runs of one class rank with atomics
        // (class steps).
        cases.push((300_007, 0, key.bits() == 32, KeyPattern::LowFour, 0, None));
        for (n, value_bytes, descending, pattern, force, bits) in cases {
            if n > max_n {
                continue;
            }
            let mut d = SortDesc::new(key, n);
            d.value_bytes = value_bytes;
            d.descending = descending;
            d.force_fallback_period = force;
            d.subgroup_size = subgroup_size;
            if let Some(b) = bits {
                d.bits = b;
            }
            if n == 100_004 {
                d.ranking = crate::prims::binning::Ranking::Atomic;
            }
            let keys = sort_keys(pattern, key, n as usize, 0x5eed ^ n);
            let name = format!("{}{} ({pattern:?})", d.label(), if force > 0 { " forced-fallback" } else { "" });
            checks.push(sort_check(ctx, &d, &keys, name));
        }
    }
    // Peers matched by ballots (`xballots`: the default matches them in shared memory where
    // its rows fit, so this is the only check of the ballot steps at the device's width), and
    // with late counts: pairs of 32- and 64-bit keys, keys alone. 4-byte pairs packed in
    // 8-byte words (`xpacked`), with either matching.
    for (key, value_bytes, policy) in [
        (KeyType::U32, 4, "autoxautoxballots"),
        (KeyType::I64, 8, "autoxautoxballots"),
        (KeyType::F32, 0, "autoxautoxballotsxlate"),
        (KeyType::F32, 4, "autoxautoxpacked"),
        (KeyType::I32, 4, "autoxautoxpackedxballots"),
    ] {
        for n in [20_011u64, 1_000_003] {
            if n > max_n {
                continue;
            }
            let mut d = SortDesc::new(key, n);
            d.value_bytes = value_bytes;
            d.subgroup_size = subgroup_size;
            d.policy = crate::prims::binning::BinningPolicy::parse(policy)?;
            let keys = sort_keys(KeyPattern::Random, key, n as usize, 0xba11 ^ n);
            checks.push(sort_check(ctx, &d, &keys, format!("{} {policy} (Random)", d.label())));
        }
    }
    Ok(checks)
}

/// One multisplit checked against the CPU's stable partition (a per-bucket multiset with
/// atomic ranking) and its offsets.
pub(crate) fn multisplit_check(
    ctx: &Arc<Context>,
    d: &crate::prims::multisplit::MultisplitDesc,
    keys: &[u32],
    values: Option<&[u32]>,
    aux: Option<&[u32]>,
    name: String,
) -> Check {
    use crate::prims::multisplit::{self, MultisplitPlan};
    match MultisplitPlan::new(ctx, d.clone()).and_then(|p| p.run(ctx, keys, values, aux)) {
        Ok((gk, gv, go)) => match multisplit::check(d, keys, values, aux, (&gk, gv.as_deref(), &go)) {
            None => Check { name, ok: true, detail: String::new() },
            Some(e) => Check { name, ok: false, detail: e },
        },
        Err(e) => Check { name, ok: false, detail: e.to_string() },
    }
}

/// Multisplit against a stable CPU partition: each bucket source, several bucket counts (one
/// pass up to 256, composed above: bit fields, ids and splitters, with (key, value) pairs by
/// the split sort, index gathers and keys alone), keys and pairs, both rankings, the forced fallback.
pub fn multisplit_checks(ctx: &Arc<Context>, subgroup_size: Option<u32>, max_n: u64) -> Result<Vec<Check>> {
    use crate::prims::binning::Ranking;
    use crate::prims::multisplit::{BucketSource, MultisplitDesc};
    use crate::prims::sort::KeyType;
    use crate::testdata::{sort_keys, KeyPattern};
    let mut checks = Vec::new();
    let mut check = |d: MultisplitDesc, keys: &[u32], values: Option<&[u32]>, aux: Option<&[u32]>| {
        let name = format!("{}{}", d.label(), if d.force_fallback_period > 0 { " forced-fallback" } else { "" });
        checks.push(multisplit_check(ctx, &d, keys, values, aux, name));
    };
    // Bucket ids spread by a multiplicative hash.
    let hashed_ids = |n: u64, b: u32| -> Vec<u32> { (0..n as u32).map(|x| x.wrapping_mul(2_654_435_761) % b).collect() };
    for (i, &n) in [0u64, 1, 4097, 100_003, 1_000_003].iter().enumerate() {
        if n > max_n {
            continue;
        }
        for (j, b) in [2u32, 16, 256].into_iter().enumerate() {
            let key = [KeyType::U32, KeyType::F64, KeyType::I32][(i + j) % 3];
            let keys = sort_keys(KeyPattern::Random, key, n as usize, n + b as u64);
            let ids = hashed_ids(n, b);
            let splitters = sorted_splitters(key, b as usize - 1, b as u64);
            let sources = [
                (BucketSource::Bits { lo: 3, hi: 3 + b.trailing_zeros() }, None),
                (BucketSource::Ids { buckets: b }, Some(ids.as_slice())),
                (BucketSource::Splitters { count: b - 1 }, Some(splitters.as_slice())),
            ];
            // Each source twice: stable, then atomic ranking (a per-bucket multiset check).
            for (k, (source, aux)) in sources.into_iter().chain(sources).enumerate() {
                let mut d = MultisplitDesc::new(key, n, source);
                if k >= 3 {
                    d.ranking = Ranking::Atomic;
                }
                let k = k % 3;
                d.subgroup_size = subgroup_size;
                d.value_bytes = [0, 4, 8][k];
                d.force_fallback_period = if n > 50_000 && k == 1 { 3 } else { 0 };
                let values = index_values(n, d.value_bytes);
                check(d, &keys, values.as_deref(), aux);
            }
        }
    }
    // Composed splits (more than 256 buckets), stable and atomic: by bit field (pairs), by
    // ids (32-bit pairs: the split sort carries (key, value); 8-byte pairs: indices and a
    // gather) and by splitters (32-bit pairs; keys alone).
    let n = 100_003u64.min(max_n);
    for (key, source, value_bytes) in [
        (KeyType::U32, BucketSource::Bits { lo: 4, hi: 20 }, 4u32),
        (KeyType::U32, BucketSource::Ids { buckets: 1000 }, 4),
        (KeyType::I64, BucketSource::Ids { buckets: 5000 }, 8),
        (KeyType::F32, BucketSource::Splitters { count: 4098 }, 4),
        (KeyType::I32, BucketSource::Splitters { count: 299 }, 0),
    ] {
        let b = source.buckets() as u32;
        let keys = sort_keys(KeyPattern::Random, key, n as usize, n + b as u64);
        let aux: Option<Vec<u32>> = match source {
            BucketSource::Bits { .. } => None,
            BucketSource::Ids { buckets } => Some(hashed_ids(n, buckets)),
            BucketSource::Splitters { count } => Some(sorted_splitters(key, count as usize, b as u64)),
        };
        let values = index_values(n, value_bytes);
        for ranking in [Ranking::Stable, Ranking::Atomic] {
            let mut d = MultisplitDesc::new(key, n, source);
            d.subgroup_size = subgroup_size;
            d.value_bytes = value_bytes;
            d.ranking = ranking;
            check(d, &keys, values.as_deref(), aux.as_deref());
        }
    }
    Ok(checks)
}

/// The permutation against its CPU model (bit for bit), with a digest of each output so the
/// same seed can be compared across devices (`vkprims selftest` on two machines).
pub fn perm_checks(ctx: &Arc<Context>, subgroup_size: Option<u32>, max_n: u64) -> Result<Vec<Check>> {
    use crate::prims::perm::PermDesc;
    let mut checks = Vec::new();
    // Capacity and target 0: the defaults (the target from n, the capacity from the target
    // and shared memory); target 4096 is the default beyond 2^26 elements. Value bytes 0: the
    // permutation of indices (no input array), whose digest equals the 4-byte array's of the
    // same n and seed.
    for (n, value_bytes, seed, capacity, target) in [
        (1u64, 4u32, 1u64, 0u32, 0u32),
        (1000, 8, 2, 0, 0),
        (100_003, 4, 42, 0, 0),
        (100_003, 4, 42, 64, 0),
        (1_000_003, 4, 42, 0, 0),
        (1_000_003, 8, 42, 0, 4096),
        (1, 0, 1, 0, 0),
        (100_003, 0, 42, 0, 0),
        (100_003, 0, 42, 64, 0),
        (1_000_003, 0, 42, 0, 0),
    ] {
        if n > max_n {
            continue;
        }
        let indices = value_bytes == 0;
        let mut d = if indices { PermDesc::indices(n, seed) } else { PermDesc::new(n, value_bytes, seed) };
        d.reproducible = true;
        d.subgroup_size = subgroup_size;
        d.group_capacity = capacity;
        d.group_target = target;
        let name = format!("{}{}{}", d.label(), if capacity == 64 { " overflow-path" } else { "" }, if target != 0 { format!(" target {target}") } else { String::new() });
        checks.push(perm_check(ctx, &d, name));
    }
    // The default (non-reproducible) mode: a permutation that puts every element in its
    // model group's output range (the order within a group is free). 1,000,003 elements take
    // two passes, whose last must keep the first's order between its buckets (class rounds):
    // plain GPU atomics would not.
    for (n, indices) in [(1_000u64, false), (1_000_003, false), (1_000_003, true)] {
        if n > max_n {
            continue;
        }
        let mut d = if indices { PermDesc::indices(n, 7) } else { PermDesc::new(n, 4, 7) };
        d.subgroup_size = subgroup_size;
        checks.push(perm_check(ctx, &d, d.label()));
    }
    Ok(checks)
}

/// One permutation of the input indices (8-byte elements: the index and its complement;
/// indices: no input) checked: reproducible, against its CPU model bit for bit, with a digest
/// of the output (FNV-1a: equal digests on two devices, equal outputs); else that every
/// element arrives whole and lands in its model group's output range.
pub(crate) fn perm_check(ctx: &Arc<Context>, d: &crate::prims::perm::PermDesc, name: String) -> Check {
    use crate::prims::perm::{self, PermPlan};
    let vw = d.value_bytes as usize / 4;
    let input = index_values(d.n, d.value_bytes).unwrap_or_default();
    let out = match PermPlan::new(ctx, d.clone()).and_then(|p| p.run(ctx, if d.indices { None } else { Some(&input) })) {
        Ok(out) => out,
        Err(e) => return Check { name, ok: false, detail: e.to_string() },
    };
    if !d.reproducible {
        // 8-byte elements: each must arrive whole (its high word the low word's complement),
        // and the low words are the element indices the group check takes.
        if vw == 2 {
            if let Some(p) = (0..out.len() / 2).find(|&p| out[2 * p + 1] != !out[2 * p]) {
                return Check { name, ok: false, detail: format!("position {p}: words {:#x} {:#x} are not one element", out[2 * p], out[2 * p + 1]) };
            }
        }
        let out: Vec<u32> = out.iter().step_by(vw).copied().collect();
        return match perm::check_groups(d, &out) {
            None => Check { name, ok: true, detail: "a permutation of the model's groups".into() },
            Some(e) => Check { name, ok: false, detail: e },
        };
    }
    let want = crate::prims::sort::gather(&input, vw, &perm::reference_order(d));
    let digest = out.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &w| (h ^ w as u64).wrapping_mul(0x100_0000_01b3));
    if out == want {
        Check { name, ok: true, detail: format!("digest {digest:016x}") }
    } else {
        let p = (0..want.len()).find(|&p| out.get(p) != Some(&want[p])).unwrap_or(0);
        Check { name, ok: false, detail: format!("word {p}: got {:?}, want {}", out.get(p), want[p]) }
    }
}
