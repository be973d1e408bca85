//! The radix sort against a stable CPU sort by the order key: six key types, keys and pairs
//! (values = input index, so stability is checked exactly), both directions, bit ranges,
//! awkward sizes, adversarial keys, forced fallback; validation layer on.

mod common;

use vkprims::prims::binning::{BinningPolicy, Ranking};
use vkprims::gpu::{self, Access, Buffer, MemoryLocation, Recorder};
use vkprims::prims::sort::{self, DigitLayout, KeyType, SortDesc, SortPlan, SortScratch};
use vkprims::testdata::{sort_keys, KeyPattern};

fn check(desc: &SortDesc, pattern: KeyPattern, seed: u64) {
    let ctx = common::ctx();
    let keys = sort_keys(pattern, desc.key, desc.n as usize, seed);
    let values: Option<Vec<u32>> = match desc.value_bytes {
        0 => None,
        4 => Some((0..desc.n as u32).collect()),
        _ => Some((0..desc.n as u32).flat_map(|i| [i, !i]).collect()),
    };
    let (k, v) = sort::run(&ctx, desc, &keys, values.as_deref()).unwrap_or_else(|e| panic!("{}: {e}", desc.label()));
    if let Some(e) = sort::check(desc, &keys, values.as_deref(), &k, v.as_deref()) {
        panic!("{} ({pattern:?}, {:?} digits, fallback period {}): {e}", desc.label(), desc.digits, desc.force_fallback_period);
    }
}

fn tile(key: KeyType) -> u64 {
    SortPlan::new(&common::ctx(), SortDesc::new(key, 1)).unwrap().tile_keys()
}

#[test]
fn every_key_type_both_directions_keys_and_pairs() {
    let ctx = common::ctx();
    for key in KeyType::ALL {
        let t = tile(key);
        for n in [0, 1, 2, t - 1, t, t + 1, 5 * t + 3, 40_009] {
            for (descending, value_bytes) in [(false, 0), (true, 4), (false, 8), (true, 0)] {
                let mut d = SortDesc::new(key, n);
                d.descending = descending;
                d.value_bytes = value_bytes;
                check(&d, KeyPattern::Random, n);
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn histogram_loads() {
    // The upfront histogram with 16-byte loads (the default; n % 4 keys left for a tail) and
    // one load per key (`xhscalar`), and in workgroups of 64 (`xhw64`), at sizes short of
    // whole vectors, with a partial last digit; and keys bound at an offset into a larger
    // buffer. A workgroup size that is no multiple of the subgroup size is refused before any GPU work.
    let ctx = common::ctx();
    let mut d = SortDesc::new(KeyType::U32, 100);
    d.policy = vkprims::prims::binning::BinningPolicy::parse("autoxautoxhw90").unwrap();
    let e = SortPlan::new(&ctx, d).err().expect("a histogram workgroup of 90 is refused").to_string();
    assert!(e.contains("no histogram workgroup of 90"), "{e}");
    for policy in ["auto", "autoxautoxhscalar", "autoxautoxhw64"] {
        let policy = vkprims::prims::binning::BinningPolicy::parse(policy).unwrap();
        for key in KeyType::ALL {
            for n in [1, 3, 4097, 33_335] {
                let mut d = SortDesc::new(key, n);
                d.policy = policy;
                check(&d, KeyPattern::Random, n);
                d.bits = (3, key.bits() - 2);
                d.descending = true;
                check(&d, KeyPattern::Random, n + 1);
            }
        }
    }
    for key in [KeyType::U32, KeyType::F64] {
        let d = SortDesc::new(key, 10_007);
        let plan = SortPlan::new(&ctx, d.clone()).unwrap();
        let keys = sort_keys(KeyPattern::Random, key, d.n as usize, 9);
        let offset = ctx.info().min_storage_buffer_offset_alignment.max(16);
        let mut padded = vec![0xFFFF_FFFFu32; offset as usize / 4];
        padded.extend(&keys);
        let input = gpu::upload(&ctx, bytemuck::cast_slice(&padded), "padded keys").unwrap();
        let out = Buffer::new(&ctx, plan.keys_bytes(), MemoryLocation::GpuOnly, "sorted").unwrap();
        let (ka, va, h, st) = plan.scratch_bytes();
        let bufs: Vec<Buffer> = [ka, va, h, st].iter().map(|&b| Buffer::new(&ctx, b, MemoryLocation::GpuOnly, "scratch").unwrap()).collect();
        let scratch = SortScratch { keys_alt: bufs[0].slice(), values_alt: bufs[1].slice(), hist: bufs[2].slice(), state: bufs[3].slice() };
        let mut rec = Recorder::new(&ctx, "offset keys").unwrap();
        plan.record(&mut rec, input.slice().sub(offset, plan.keys_bytes()), out.slice(), None, &scratch).unwrap();
        rec.barrier(&[out.slice()], Access::ComputeWrite, Access::TransferRead, "sorted keys read back");
        rec.submit_and_wait().unwrap();
        drop(rec);
        let got: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, out.slice()).unwrap());
        if let Some(e) = sort::check(&d, &keys, None, &got, None) {
            panic!("keys at offset {offset}: {e}");
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn adversarial_keys() {
    let ctx = common::ctx();
    for key in KeyType::ALL {
        for p in KeyPattern::ALL {
            let mut d = SortDesc::new(key, 30_011);
            d.value_bytes = 4;
            check(&d, p, 5);
            d.descending = true;
            check(&d, p, 6);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn bit_ranges() {
    let ctx = common::ctx();
    // Uneven ranges in both digit layouts: 10 bits as 5 + 5 or 8 + 2, 28 as four 7s or three
    // bytes and 4, 33 as 7, 7, 7, 7, 5 or four bytes and 1.
    let ranges = [(KeyType::U32, 0, 8), (KeyType::U32, 4, 20), (KeyType::U32, 2, 12), (KeyType::I32, 16, 32), (KeyType::F32, 3, 31), (KeyType::U64, 20, 60), (KeyType::U64, 5, 38), (KeyType::F64, 0, 64), (KeyType::I64, 60, 64)];
    for (key, lo, hi) in ranges {
        for digits in [DigitLayout::Even, DigitLayout::Bytes] {
            if digits == DigitLayout::Bytes && (hi - lo) % 8 == 0 {
                continue;  // the same digits
            }
            let mut d = SortDesc::new(key, 20_000);
            d.bits = (lo, hi);
            d.value_bytes = 4;
            d.digits = digits;
            check(&d, KeyPattern::Random, lo as u64);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn wide_workgroups() {
    // Workgroups of 256 or more take a bucket an invocation in the tile offsets; with at most
    // 16 subgroups (here at width 16) each column's offsets stay in registers while the bucket
    // starts are scanned (glsl/sort/binning_rank.glsl, bucket_offsets). Both rankings' passes, the
    // fallback forced, a partial last digit (its mask from the push constants) and whole ones.
    let ctx = common::ctx();
    for (key, value_bytes, period, bits) in [(KeyType::U32, 4, 0, None), (KeyType::F32, 0, 3, None), (KeyType::U64, 4, 2, None), (KeyType::I32, 4, 0, Some((3, 29)))] {
        for pattern in [KeyPattern::Random, KeyPattern::FewDistinct] {
            let mut d = SortDesc::new(key, 50_001);
            d.policy = BinningPolicy::parse("256x8").unwrap();
            d.value_bytes = value_bytes;
            d.force_fallback_period = period;
            if let Some(b) = bits {
                d.bits = b;
            }
            check(&d, pattern, 7);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn totals_from_the_tiles() {
    // No upfront histogram (`xtotN`, BinningPolicy::totals_max_tiles; on by default only where
    // the device reports its compute units): every key type, keys and pairs, both directions,
    // bit ranges, one tile to many, random and adversarial keys, forced fallbacks. Lavapipe
    // runs a few workgroups at a time, so tile 0 takes the tiles' totals where they all ran
    // in time (one tile) and counts every key itself where not: both paths are taken here.
    let ctx = common::ctx();
    // A short spin limit: lavapipe runs tile 0 before the others can add their counts, so it
    // mostly takes the fallback, after 4 x the limit of polling rounds.
    let mut policy = BinningPolicy::parse("autoxautoxtot255").unwrap();
    policy.spin_limit = 4;
    let with = |key: KeyType, n: u64| {
        let mut d = SortDesc::new(key, n);
        d.policy = policy;
        d
    };
    let label = |d: &SortDesc| SortPlan::new(&ctx, d.clone()).unwrap().policy_label();
    let few = label(&with(KeyType::U32, 200 * tile(KeyType::U32)));
    assert!(few.contains("from the tiles' totals"), "{few}");
    // Such latency-bound passes take no class steps (their classes would qualify).
    assert!(!few.contains("class step"), "{few}");
    // More tiles than a total word counts (255), or the knob off: the upfront histogram.
    let more = label(&with(KeyType::U32, 256 * tile(KeyType::U32)));
    assert!(!more.contains("totals") && more.contains("class step"), "{more}");
    let mut off = with(KeyType::U32, 1000);
    off.policy.totals_max_tiles = Some(0);
    assert!(!label(&off).contains("totals"));
    for key in KeyType::ALL {
        let t = tile(key);
        for (i, n) in [0u64, 1, t - 1, t, t + 1, 5 * t + 3, 20 * t + 11, 2 * t].into_iter().enumerate() {
            let mut d = with(key, n);
            d.value_bytes = [0, 4, 8][i % 3];
            d.descending = i % 2 == 1;
            check(&d, KeyPattern::Random, n);
        }
        let mut d = with(key, 7 * t + 5);
        d.bits = (5, key.bits() - 3);
        check(&d, KeyPattern::FewDistinct, 3);
    }
    for key in [KeyType::U32, KeyType::F64] {
        for p in KeyPattern::ALL {
            let mut d = with(key, 3 * tile(key) + 1);
            d.value_bytes = 4;
            d.descending = key == KeyType::F64;
            check(&d, p, 7);
        }
    }
    for period in [2u32, 3] {
        let mut d = with(KeyType::U32, 9 * tile(KeyType::U32) + 7);
        d.force_fallback_period = period;
        d.value_bytes = 4;
        check(&d, KeyPattern::Random, period as u64);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn forced_fallback_and_many_tiles() {
    let ctx = common::ctx();
    for key in [KeyType::U32, KeyType::F64] {
        for period in [2u32, 3, 5] {
            let mut d = SortDesc::new(key, 60 * tile(key) + 7);
            d.force_fallback_period = period;
            d.value_bytes = 4;
            check(&d, KeyPattern::Random, period as u64);
        }
    }
    let mut d = SortDesc::new(KeyType::U32, 3_000_017);
    d.value_bytes = 4;
    check(&d, KeyPattern::Random, 11);
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn pinned_subgroup_size() {
    let ctx = common::ctx();
    if !ctx.capabilities().subgroup_size_control {
        return;
    }
    let sg = ctx.info().subgroup.default_size;
    for key in [KeyType::U32, KeyType::I64] {
        let mut d = SortDesc::new(key, 25_000);
        d.subgroup_size = Some(sg);
        d.value_bytes = 4;
        check(&d, KeyPattern::Random, 3);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn bad_requests() {
    let ctx = common::ctx();
    let err = |d: SortDesc| SortPlan::new(&ctx, d).err().expect("refused").to_string();
    let mut d = SortDesc::new(KeyType::U32, 10);
    d.bits = (8, 8);
    assert!(err(d).contains("bit range"));
    let mut d = SortDesc::new(KeyType::U32, 10);
    d.value_bytes = 3;
    assert!(err(d).contains("values must be 4 or 8 bytes"));
    assert!(err(SortDesc::new(KeyType::U32, 1 << 30)).contains("30-bit"));
    let mut d = SortDesc::new(KeyType::U32, 10);
    d.policy = vkprims::prims::binning::BinningPolicy::parse("autoxautoxhg65536").unwrap();
    assert!(err(d).contains("65,535 histogram workgroups"));
    let e = sort::run(&ctx, &SortDesc::new(KeyType::U32, 10), &[1, 2], None).unwrap_err();
    assert!(e.to_string().contains("2 key words"));
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn unstable_sort() {
    // Ranking::Atomic: the first pass ranks with atomics, the keys are sorted and each run of
    // equal keys holds the input's elements of that key (a multiset check), also with few
    // distinct keys, a bit range and the forced fallback.
    let ctx = common::ctx();
    for (key, n, pattern, bits, period) in [
        (KeyType::U32, 50_001u64, KeyPattern::Random, None, 0u32),
        (KeyType::F32, 30_011, KeyPattern::FewDistinct, None, 3),
        (KeyType::I64, 20_003, KeyPattern::Random, Some((8, 40)), 0),
        (KeyType::U32, 1, KeyPattern::Random, None, 0),
    ] {
        for value_bytes in [0, 4, 8] {
            let mut d = SortDesc::new(key, n);
            d.ranking = Ranking::Atomic;
            d.value_bytes = value_bytes;
            d.force_fallback_period = period;
            if let Some(b) = bits {
                d.bits = b;
            }
            check(&d, pattern, n + value_bytes as u64);
        }
    }
    // The unstable check still fails an unsorted result.
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, 1000, 1);
    let mut d = SortDesc::new(KeyType::U32, 1000);
    d.ranking = Ranking::Atomic;
    d.value_bytes = 4;
    let vals: Vec<u32> = (0..1000).collect();
    let order = sort::reference_order(&d, &keys);
    let (mut k, mut v) = (sort::gather(&keys, 1, &order), sort::gather(&vals, 1, &order));
    assert_eq!(sort::check(&d, &keys, Some(&vals), &k, Some(&v)), None);
    k.swap(0, 999);
    v.swap(0, 999);
    assert!(sort::check(&d, &keys, Some(&vals), &k, Some(&v)).is_some());
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn first_pass_unordered_only_where_no_order_shows() {
    // Keys alone over every key bit: the first digit pass ranks with atomics, and the second
    // with atomics in class rounds (the first pass's buckets one after the other), so only
    // equal order keys, which are equal keys, can trade places. Debug bit 6 makes the atomic
    // ranking leave input order even on lavapipe, whose atomics keep it; 3 tiles and 5 keys
    // put many classes in each tile of the second pass. With a bit range, values or
    // `xstablefirst` every pass stays stable, so the same scramble must change nothing; with
    // `Ranking::Atomic` on pairs it must show (the scramble is not a no-op).
    let ctx = common::ctx();
    let default_plan = SortPlan::new(&ctx, SortDesc::new(KeyType::U32, 1 << 16)).unwrap();
    assert!(!default_plan.policy_label().contains("; second pass"), "{}", default_plan.policy_label());
    let unordered = |d: &SortDesc| {
        let plan = SortPlan::new(&ctx, d.clone()).unwrap();
        let label = plan.policy_label();
        assert_eq!(d.first_pass_unordered(), label.contains("; first pass"), "{label}");
        // (3 tiles: the second pass is atomic only with `xcr0`, and for keys alone only
        // without class steps.)
        let rounds = d.policy.second_pass_tiles == 0 && (d.value_bytes > 0 || !d.policy.class_steps);
        assert_eq!(d.first_pass_unordered() && rounds, label.contains("; second pass"), "{label}");
        d.first_pass_unordered()
    };
    // (`xcr0`: the second pass in class rounds at any size; by default only from 4,096 tiles,
    // and only without class steps, `xnocs`, which the test class_steps covers.)
    let scrambled = |s: &str| BinningPolicy::parse(&format!("{s}xcr0xnocsxskip64")).unwrap();
    for key in KeyType::ALL {
        let n = 3 * tile(key) + 5;
        let mut d = SortDesc::new(key, n);
        assert!(unordered(&d));
        d.policy = scrambled("autoxauto");
        assert!(unordered(&d));
        let floats = [KeyPattern::FloatSpecials].into_iter().filter(|_| matches!(key, KeyType::F32 | KeyType::F64));
        for (i, p) in [KeyPattern::Random, KeyPattern::FewDistinct, KeyPattern::AllEqual].into_iter().chain(floats).enumerate() {
            d.descending = i % 2 == 1;
            d.force_fallback_period = if i == 1 { 3 } else { 0 };
            check(&d, p, i as u64);
        }
        // Where the order of equal sort keys shows, every pass stays stable.
        let mut r = SortDesc::new(key, n);
        r.policy = scrambled("autoxauto");
        r.bits = (0, key.bits() - 1);
        assert!(!unordered(&r));
        check(&r, KeyPattern::FewDistinct, 7);
        r.bits = (0, key.bits());
        r.value_bytes = 4;
        assert!(!unordered(&r));
        check(&r, KeyPattern::FewDistinct, 8);
        r.value_bytes = 0;
        r.policy = scrambled("autoxautoxstablefirst");
        assert!(!unordered(&r));
        check(&r, KeyPattern::FewDistinct, 9);
    }
    let mut a = SortDesc::new(KeyType::U32, 30_011);
    a.value_bytes = 4;
    a.ranking = Ranking::Atomic;
    a.policy = scrambled("autoxauto");
    let keys = sort_keys(KeyPattern::FewDistinct, a.key, a.n as usize, 1);
    let vals: Vec<u32> = (0..a.n as u32).collect();
    let (k, v) = sort::run(&ctx, &a, &keys, Some(&vals)).unwrap();
    assert_eq!(sort::check(&a, &keys, Some(&vals), &k, v.as_deref()), None);
    let stable = SortDesc { ranking: Ranking::Stable, ..a.clone() };
    let e = sort::check(&stable, &keys, Some(&vals), &k, v.as_deref()).expect("the scrambled atomic pass leaves input order");
    assert!(e.contains("stable"), "{e}");
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn class_steps() {
    // Keys alone over every key bit: the passes after the first rank in class steps (a
    // subgroup's run of the tile whose keys share every earlier digit takes atomics, the
    // others match peers). Keys whose low 16 bits take four values make long classes for the
    // third pass (most runs atomic) and short ones for the fourth; random keys long ones for
    // the second pass. Debug bit 6 takes a run's atomics last step first, so a run ranked by
    // atomics across two classes would leave LSD order even on lavapipe (checked by forcing
    // every run atomic). Each way of matching the other runs' peers: shared masks (the
    // default where rows fit), ballots (scalar and, bit 5, uvec4), late counts (by default
    // only in passes of many tiles).
    let ctx = common::ctx();
    let label = |d: &SortDesc| SortPlan::new(&ctx, d.clone()).unwrap().policy_label();
    let labelled = |d: &SortDesc| label(d).contains("in class steps");
    // By default a pass takes class steps where its classes average two runs (at most 16
    // x 16 keys here): the second pass of 2^20 keys (classes of 4,096), not of 2^12 (16).
    assert!(labelled(&SortDesc::new(KeyType::U32, 1 << 20)));
    assert!(!labelled(&SortDesc::new(KeyType::U32, 1 << 12)));
    // The stable passes of a sort of keys alone (class-step and middle passes) count late by
    // default from BinningPolicy::LATE_MIN_TILES tiles; pairs never do.
    let late = |d: &SortDesc| {
        let l = label(d);
        (l.contains("late counts in class steps"), l.split(';').next().unwrap().contains("late counts"))
    };
    let t = SortPlan::new(&ctx, SortDesc::new(KeyType::U32, 1 << 20)).unwrap().tile_keys();
    assert_eq!(late(&SortDesc::new(KeyType::U32, t * BinningPolicy::LATE_MIN_TILES)), (true, true));
    assert_eq!(late(&SortDesc::new(KeyType::U32, t * (BinningPolicy::LATE_MIN_TILES - 1))), (false, false));
    let mut pairs = SortDesc::new(KeyType::U32, 4 * t * BinningPolicy::LATE_MIN_TILES);
    pairs.value_bytes = 4;
    assert!(!label(&pairs).contains("late counts"), "{}", label(&pairs));
    // Nor do keys alone whose last digit is narrower than a byte; they keep the default tile.
    let mut narrow = SortDesc::new(KeyType::U32, t * BinningPolicy::LATE_MIN_TILES);
    narrow.bits = (0, 12);
    assert!(!label(&narrow).contains("late counts"), "{}", label(&narrow));
    let whole = SortDesc { bits: (0, 16), ..narrow.clone() };
    narrow.n = 1;
    let (tn, tw) = (SortPlan::new(&ctx, narrow.clone()).unwrap().tile_keys(), SortPlan::new(&ctx, SortDesc { n: 1, ..whole.clone() }).unwrap().tile_keys());
    let default = SortPlan::new(&ctx, SortDesc { policy: BinningPolicy::parse("autox16").unwrap(), ..narrow.clone() }).unwrap().tile_keys();
    assert!(tn == default && tw == t, "12 bits: {tn}, 16 bits: {tw}; default {default}, keys sort {t}");
    assert_eq!(late(&whole), (false, true), "{}", label(&whole));
    let mut not = SortDesc::new(KeyType::U32, 1 << 20);
    not.value_bytes = 4;
    assert!(!labelled(&not), "pairs keep input order among equal keys");
    not.value_bytes = 0;
    not.bits = (0, 24);
    assert!(!labelled(&not), "a bit range keeps input order among equal sort keys");
    not.bits = (0, 32);
    not.policy = BinningPolicy::parse("autoxautoxnocs").unwrap();
    assert!(!labelled(&not));
    // (`xcs0`: every pass after the first in class steps, whatever its classes' length.)
    let policies = ["autoxautoxcs0xskip64", "autoxautoxballotsxcs0xskip64", "autoxautoxballotsxcs0xskip96", "autoxautoxlatexcs0xskip64", "autoxautoxcr0xcs0xskip64"];
    for (i, key) in [KeyType::U32, KeyType::F32, KeyType::U64, KeyType::I64].into_iter().enumerate() {
        for (j, policy) in policies.into_iter().enumerate() {
            let mut d = SortDesc::new(key, 1);
            d.policy = BinningPolicy::parse(policy).unwrap();
            let t = SortPlan::new(&ctx, d.clone()).unwrap().tile_keys();
            d.n = 9 * t + 13;
            assert!(labelled(&d), "{policy}");
            d.descending = (i + j) % 2 == 1;
            d.force_fallback_period = if j == 1 { 3 } else { 0 };
            check(&d, KeyPattern::LowFour, 100 * i as u64 + j as u64);
            check(&d, KeyPattern::Random, j as u64);
            // Awkward sizes: one key, a tile short or over (partial runs and tiles).
            if j == 0 {
                for n in [1, t - 1, t + 1] {
                    d.n = n;
                    check(&d, KeyPattern::LowFour, n);
                }
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn atomic_passes_at_narrow_workgroups() {
    // Keys-only atomic passes own ceil(256 / WG) buckets an invocation, as stable ones do
    // (2 at 128, 4 at 64): the atomic first pass and the class-round second (`xcr0`: at any
    // size), scrambled (debug bit 6), with and without forced fallbacks.
    let ctx = common::ctx();
    for policy in ["128x8xcr0xnocsxskip64", "64x8xcr0xnocsxskip64"] {
        for (i, key) in [KeyType::U32, KeyType::F32, KeyType::I64].into_iter().enumerate() {
            let mut d = SortDesc::new(key, 1);
            d.policy = BinningPolicy::parse(policy).unwrap();
            d.n = 7 * SortPlan::new(&ctx, d.clone()).unwrap().tile_keys() + 11;
            let label = SortPlan::new(&ctx, d.clone()).unwrap().policy_label();
            assert!(label.contains("; first pass") && label.contains("; second pass"), "{label}");
            for (j, p) in [KeyPattern::Random, KeyPattern::FewDistinct].into_iter().enumerate() {
                d.descending = (i + j) % 2 == 1;
                d.force_fallback_period = if j == 1 { 3 } else { 0 };
                check(&d, p, (10 * i + j) as u64);
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn ranking_variants() {
    // `xballots` matches peers with scalar ballots at 32 lanes or fewer; debug bit 5 forces
    // the uvec4 path that wider subgroups take, `xpart` subgroupPartitionNV where the device
    // has it (else ballots); `xlate` ranks before counting. Each must give the same stable
    // sort (23,456 elements: full tiles, which skip the ballot steps' validity ballot, and a
    // partial one).
    let ctx = common::ctx();
    for policy in ["128x15xballots", "64x15xballotsxskip32", "128x7xpart", "64x9xpartxskip32", "128x15xballotsxlate", "64x9xpartxlatexskip32"] {
        for (key, value_bytes) in [(KeyType::U32, 4), (KeyType::I64, 8)] {
            let mut d = SortDesc::new(key, 23_456);
            d.policy = vkprims::prims::binning::BinningPolicy::parse(policy).unwrap();
            d.value_bytes = value_bytes;
            check(&d, KeyPattern::FewDistinct, 9);
            check(&d, KeyPattern::Random, 10);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn lookback_windows() {
    // One earlier tile per look-back round, an odd window and the widest, with and without
    // forced fallbacks (a forced tile ends a window early).
    let ctx = common::ctx();
    for (policy, period) in [("64x9xlb1", 0), ("64x9xlb1", 3), ("128x7xlb33", 2), ("64x15xlb64", 5)] {
        let mut d = SortDesc::new(KeyType::U32, 40_009);
        d.policy = vkprims::prims::binning::BinningPolicy::parse(policy).unwrap();
        d.value_bytes = 4;
        d.force_fallback_period = period;
        check(&d, KeyPattern::FewDistinct, 41);
        check(&d, KeyPattern::Random, 42);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn kept_keys_at_awkward_sizes() {
    // `xkeep` with 4-byte pairs: the keys stay in registers from their load to their staging
    // (planes in sequence), so full and partial tiles stage from registers; sizes around the
    // tile, both directions, the fallback forced in one; under each stable ranking lavapipe
    // runs: the default's (shared match where it fits, else ballot steps), ballot steps, every
    // step's ballots at once (debug bit 5, uvec4 ballots) and late counts.
    let ctx = common::ctx();
    for name in ["64x15xkeep", "64x15xkeepxballots", "64x15xkeepxskip32", "64x15xkeepxlate"] {
        let policy = vkprims::prims::binning::BinningPolicy::parse(name).unwrap();
        let mut probe = SortDesc::new(KeyType::U32, 1);
        probe.policy = policy;
        probe.value_bytes = 4;
        let t = SortPlan::new(&ctx, probe).unwrap().tile_keys();
        for (key, descending, period) in [(KeyType::U32, false, 0), (KeyType::F32, true, 3)] {
            for n in [0, 1, t - 1, t, t + 1, 5 * t + 3] {
                let mut d = SortDesc::new(key, n);
                d.policy = policy;
                d.value_bytes = 4;
                d.descending = descending;
                d.force_fallback_period = period;
                check(&d, KeyPattern::Random, n + 5);
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn all_planes_staged_at_once() {
    // `xplanes`: every word plane in shared memory before the look-back; 8-byte keys with
    // 8-byte values need four planes, so fewer items fit (lavapipe: 32 KiB).
    let ctx = common::ctx();
    for (key, value_bytes) in [(KeyType::U32, 0), (KeyType::F32, 4), (KeyType::U64, 0), (KeyType::I64, 4), (KeyType::F64, 8)] {
        for descending in [false, true] {
            let mut d = SortDesc::new(key, 33_333);
            d.policy = vkprims::prims::binning::BinningPolicy::parse("autox15xplanesxkeep").unwrap();
            d.value_bytes = value_bytes;
            d.descending = descending;
            d.force_fallback_period = if descending { 3 } else { 0 };
            check(&d, KeyPattern::Random, 21);
            check(&d, KeyPattern::FewDistinct, 22);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn tiles_by_index_or_ticket() {
    // Tiles by workgroup index (`xnoticket`, the default on NVIDIA) and from the atomic ticket
    // (`xticket`, the default elsewhere): full tiles, which load and stage without a test an
    // element, and a partial last tile, which tests each; keys and pairs, forced fallbacks.
    // Lavapipe does not start workgroups in index order, so index tiles here also walk back
    // to predecessors not yet started and count them (the fallback).
    let ctx = common::ctx();
    for policy in ["64x16xnoticket", "64x16xticket"] {
        let policy = BinningPolicy::parse(policy).unwrap();
        for (i, key) in [KeyType::U32, KeyType::I64].into_iter().enumerate() {
            for values in [0, 4] {
                let mut d = SortDesc::new(key, 1);
                d.policy = policy;
                d.value_bytes = values;
                let plan = SortPlan::new(&ctx, d.clone()).unwrap();
                assert_eq!(plan.policy_label().contains("index tiles"), policy.tickets == Some(false), "{}", plan.policy_label());
                let t = plan.tile_keys();
                for (j, n) in [t, 3 * t, 9 * t + 5, 12 * t].into_iter().enumerate() {
                    d.n = n;
                    d.descending = (i + j) % 2 == 1;
                    d.force_fallback_period = if j == 3 { 3 } else { 0 };
                    check(&d, if j == 1 { KeyPattern::FewDistinct } else { KeyPattern::Random }, n + j as u64);
                }
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn held_back_tiles() {
    // Debug bit 8 holds some tiles back once their counts are posted (a timing experiment that
    // must leave results right): tiles S..2S-1 (S = 3 here) or, with bit 12, the odd tiles below
    // 2S; keys alone with late counts and pairs with early ones, full and partial tiles,
    // forced fallbacks.
    let ctx = common::ctx();
    let skip = |bits: u32| 256 + (1 << 16) + (3 << 24) + bits;
    for (i, rule) in [0, 4096].into_iter().enumerate() {
        for (j, (values, counts)) in [(0, "xlate"), (4, ""), (0, "xearly")].into_iter().enumerate() {
            let mut d = SortDesc::new(KeyType::U32, 1);
            d.policy = BinningPolicy::parse(&format!("64x8{counts}xskip{}", skip(rule))).unwrap();
            d.value_bytes = values;
            let t = SortPlan::new(&ctx, d.clone()).unwrap().tile_keys();
            d.n = 9 * t + 5;
            d.descending = (i + j) % 2 == 1;
            d.force_fallback_period = if j == 2 { 3 } else { 0 };
            check(&d, KeyPattern::Random, (10 * i + j) as u64);
        }
    }
    // The tile timelines need a device clock and SM ids, which lavapipe does not offer: a
    // clear refusal there, before any GPU work.
    if !ctx.capabilities().tile_timeline {
        let mut d = SortDesc::new(KeyType::U32, 1000);
        d.policy = BinningPolicy::parse("autoxautoxtimeline").unwrap();
        let e = SortPlan::new(&ctx, d).err().expect("refused").to_string();
        assert!(e.contains("tile timelines"), "{e}");
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn pairs_at_tile_edges() {
    let ctx = common::ctx();
    // One element, and one tile (1,024 at 64x16 on every width) less one, exactly, plus one.
    for n in [1, 1_023, 1_024, 1_025] {
        let mut d = SortDesc::new(KeyType::U32, n);
        d.policy = vkprims::prims::binning::BinningPolicy::parse("64x16").unwrap();
        d.value_bytes = 4;
        check(&d, KeyPattern::Random, 53);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn pairs_planes_in_sequence_or_together() {
    // 4-byte pairs stage the key plane, then the value plane, in the same shared words (the
    // default), or both planes at once (`xnoseq`): odd items per lane (positions two to a
    // register, buckets four), a ticket order with forced fallbacks, tile edges, both
    // directions, both rankings, every 32-bit key type; the values read 8 a lane at a time
    // (the default), 4 (`xvc4`: groups that do not divide 15), 1, or all at once.
    let ctx = common::ctx();
    for name in ["64x15", "64x13xnoseq", "autoxauto", "64x9xballots", "64x15xvc4", "64x16xvc1", "64x15xvc15"] {
        let policy = vkprims::prims::binning::BinningPolicy::parse(name).unwrap();
        let mut d = SortDesc::new(KeyType::U32, 1000);
        d.policy = policy;
        d.value_bytes = 4;
        let plan = SortPlan::new(&ctx, d).unwrap();
        let label = plan.policy_label();
        assert_eq!(label.contains("planes in sequence"), !name.contains("noseq"), "{label}");
        let chunk = if name.contains("vc") { name.rsplit("vc").next().unwrap().parse().unwrap() } else { 8u32 };
        let items: u32 = label.split('x').nth(1).unwrap().split(|c: char| !c.is_ascii_digit()).next().unwrap().parse().unwrap();
        let staged = !name.contains("noseq") && chunk < items;
        assert_eq!(label.contains(&format!("values {chunk} at a time")), staged, "{label}");
        let t = plan.tile_keys();
        for (i, key) in [KeyType::U32, KeyType::I32, KeyType::F32].into_iter().enumerate() {
            for (n, period) in [(t - 1, 0), (t + 1, 2), (7 * t + 5, 3)] {
                for pattern in [KeyPattern::Random, KeyPattern::FewDistinct, KeyPattern::Reversed] {
                    let mut d = SortDesc::new(key, n);
                    d.policy = policy;
                    d.value_bytes = 4;
                    d.force_fallback_period = period;
                    d.descending = (i + period as usize) % 2 == 1;
                    // The first pass with atomics too, at one size per key type.
                    if period == 2 && pattern == KeyPattern::FewDistinct {
                        d.ranking = Ranking::Atomic;
                    }
                    check(&d, pattern, 61 + n);
                }
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn pairs_packed_in_words() {
    // `xpacked`: 4-byte pairs move as one 8-byte word each through the 8-byte key pass, packed
    // by the first pass and unpacked by a last pass of pairs; every 32-bit key type, both
    // directions, 2 to 4 passes (a single pass stays unpacked), sizes 0, 1 and about a tile,
    // trivial passes (all equal), forced fallbacks, ballots, an atomic first pass; the scratch
    // it reports, and a keys_alt too small for the words refused before any GPU work.
    let ctx = common::ctx();
    for name in ["autoxautoxpacked", "64x9xpackedxballots"] {
        let policy = BinningPolicy::parse(name).unwrap();
        let pairs = |key: KeyType, n: u64| {
            let mut d = SortDesc::new(key, n);
            d.policy = policy;
            d.value_bytes = 4;
            d
        };
        let plan = SortPlan::new(&ctx, pairs(KeyType::U32, 1000)).unwrap();
        assert!(plan.packed() && plan.policy_label().contains("pairs packed"), "{name}: {}", plan.policy_label());
        let t = plan.tile_keys();
        for (key, descending) in [(KeyType::U32, false), (KeyType::I32, true), (KeyType::F32, false)] {
            let last = if key == KeyType::F32 { KeyPattern::FloatSpecials } else { KeyPattern::AllEqual };
            let cases = [
                (0, 0, (0, 32), KeyPattern::Random),
                (1, 0, (8, 24), KeyPattern::Random),
                (t, 0, (0, 32), KeyPattern::Sorted),
                (t - 1, 0, (0, 32), KeyPattern::Random),
                (t + 1, 2, (8, 24), KeyPattern::FewDistinct),
                (7 * t + 5, 3, (4, 28), KeyPattern::Reversed),
                (40_009, 0, (0, 32), last),
            ];
            for (n, period, bits, pattern) in cases {
                let mut d = pairs(key, n);
                d.bits = bits;
                d.force_fallback_period = period;
                d.descending = descending;
                if period == 2 {
                    d.ranking = Ranking::Atomic;
                }
                let plan = SortPlan::new(&ctx, d.clone()).unwrap();
                assert!(plan.packed(), "{}", d.label());
                let (ka, va, _, _) = plan.scratch_bytes();
                assert_eq!((ka, va), (8 * n, if d.passes() > 2 { 8 * n } else { 4 }), "{}", d.label());
                check(&d, pattern, 71 + n);
            }
        }
        // A single pass moves planes.
        let mut d = pairs(KeyType::U32, 3 * t);
        d.bits = (0, 8);
        assert!(!SortPlan::new(&ctx, d.clone()).unwrap().packed());
        check(&d, KeyPattern::Random, 5);
    }
    // Scratch sized for planes is refused.
    let mut d = SortDesc::new(KeyType::U32, 5000);
    d.policy = BinningPolicy::parse("autoxautoxpacked").unwrap();
    d.value_bytes = 4;
    let plan = SortPlan::new(&ctx, d).unwrap();
    let bufs: Vec<Buffer> = [20_000, 20_000, plan.hist_bytes(), plan.state_bytes()].iter().map(|&b| Buffer::new(&ctx, b, MemoryLocation::GpuOnly, "scratch").unwrap()).collect();
    let io: Vec<Buffer> = (0..4).map(|_| Buffer::new(&ctx, 20_000, MemoryLocation::GpuOnly, "pairs").unwrap()).collect();
    let scratch = SortScratch { keys_alt: bufs[0].slice(), values_alt: bufs[1].slice(), hist: bufs[2].slice(), state: bufs[3].slice() };
    let mut rec = Recorder::new(&ctx, "packed pairs, small scratch").unwrap();
    let e = plan.record(&mut rec, io[0].slice(), io[1].slice(), Some((io[2].slice(), io[3].slice())), &scratch).expect_err("scratch for planes is too small").to_string();
    assert!(e.contains("keys_alt holds 20000 bytes, needs 40000"), "{e}");
    drop(rec);
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn shared_memory_peer_matching() {
    // The default matching: peers matched by atomicOr into shared mask words (at most 32
    // lanes, and where the mask rows fit: on lavapipe's 32 KiB, 8 subgroups of a
    // 64-invocation workgroup at width 8 or more; at width 4 it falls back to ballots, as the
    // label says), with the fallback forced and few distinct keys.
    let ctx = common::ctx();
    // With keys and values read again while staging (the default) and the keys kept in
    // registers (`xkeep`; 4-byte pairs still move their planes in sequence, or with `xnoseq`
    // keep their values in registers too), and ranked before counting (`xlate`): same results.
    // With the digit offsets from tile 0 (`xfold512`) and from the offsets kernel (`xfold0`, as
    // by default where a sort takes no totals: BinningPolicy::fold_max_tiles).
    for name in ["64x15xfold512", "64x15xkeepxfold512", "64x15xkeepxnoseq", "64x15xlatexfold512", "64x15xfold0", "64x15"] {
        let policy = vkprims::prims::binning::BinningPolicy::parse(name).unwrap();
        let mut d = SortDesc::new(KeyType::U32, 1000);
        d.policy = policy;
        let label = SortPlan::new(&ctx, d).unwrap().policy_label();
        let sg = ctx.info().subgroup.min_size;
        assert_eq!(label.contains("shared match"), (8..=32).contains(&sg), "{label}");
        assert_eq!(label.contains("kept"), name.contains("keep"), "{label}");
        assert_eq!(label.contains("late counts"), name.contains("late"), "{label}");
        assert_eq!(label.contains("offsets by tile 0"), name.contains("fold512"), "{label}");
        for (key, value_bytes, period) in [(KeyType::U32, 0, 0), (KeyType::F32, 4, 3), (KeyType::I64, 8, 0), (KeyType::U64, 4, 2)] {
            for pattern in [KeyPattern::Random, KeyPattern::FewDistinct] {
                let mut d = SortDesc::new(key, 27_001);
                d.policy = policy;
                d.value_bytes = value_bytes;
                d.force_fallback_period = period;
                d.descending = period == 3;
                check(&d, pattern, 31);
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn caller_counted_digits() {
    // `record_passes` for a caller that counted the digits itself (the counts spread over the
    // 16 counter copies), and `record` with the sort's own histogram: a bit range with a short
    // last digit and one pass where every key has the same digit; passes that take their
    // digit offsets from tile 0 (fold) and from the offsets kernel. The offsets land in the
    // buffer either way. Folding passes find a trivial pass from the digit spans, which only
    // the sort's own histogram gives (only then); the others from the offsets kernel's flags.
    use vkprims::prims::binning::{upfront_counter_word, upfront_flag_word, upfront_offset_word, upfront_span_words};
    let ctx = common::ctx();
    // (42 bits: six 7-bit digits, or five bytes and 2 bits.)
    let cases = [
        (KeyType::U32, (0, 32), 30_011, true, DigitLayout::Even),
        (KeyType::F64, (3, 45), 12_345, true, DigitLayout::Even),
        (KeyType::F64, (3, 45), 12_345, false, DigitLayout::Bytes),
        (KeyType::U32, (0, 32), 30_011, false, DigitLayout::Even),
    ];
    for (key, bits, n, fold, digits) in cases {
        let mut d = SortDesc::new(key, n);
        d.bits = bits;
        d.digits = digits;
        d.descending = key == KeyType::F64;
        d.policy.fold_max_tiles = Some(if fold { 1 << 20 } else { 0 });
        let plan = SortPlan::new(&ctx, d.clone()).unwrap();
        let mut keys = sort_keys(KeyPattern::Random, key, n as usize, 5);
        if key == KeyType::U32 {
            keys.iter_mut().for_each(|k| *k = (*k & 0xFF00_FFFF) | 0x0042_0000);  // digit 2 is 0x42 everywhere
        }
        let mut hist = vec![0u32; plan.hist_bytes() as usize / 4];
        let mut totals = vec![[0u32; 256]; d.passes() as usize];
        for i in 0..n as usize {
            let ok = sort::order_key(key, d.descending, &keys, i);
            for p in 0..d.passes() {
                let (shift, width) = d.digit(p);
                let digit = ((ok >> shift) & ((1 << width) - 1)) as u32;
                hist[upfront_counter_word(i as u32 % 16, p, digit)] += 1;
                totals[p as usize][digit as usize] += 1;
            }
        }
        let input = gpu::upload(&ctx, bytemuck::cast_slice(&keys), "keys").unwrap();
        let out = Buffer::new(&ctx, plan.keys_bytes(), MemoryLocation::GpuOnly, "sorted").unwrap();
        let (ka, va, hb, st) = plan.scratch_bytes();
        let bufs: Vec<Buffer> = [ka, va, hb, st].iter().map(|&b| Buffer::new(&ctx, b, MemoryLocation::GpuOnly, "scratch").unwrap()).collect();
        for caller_counted in [true, false] {
            let counts = match caller_counted {
                true => gpu::upload(&ctx, bytemuck::cast_slice(&hist), "caller's digit counts").unwrap(),
                false => Buffer::new(&ctx, hb, MemoryLocation::GpuOnly, "the sort's histogram").unwrap(),
            };
            let scratch = SortScratch { keys_alt: bufs[0].slice(), values_alt: bufs[1].slice(), hist: counts.slice(), state: bufs[3].slice() };
            let mut rec = Recorder::new(&ctx, "caller-counted digits").unwrap();
            if caller_counted {
                rec.fill(scratch.state, 0);
                rec.barrier(&[scratch.state], Access::TransferWrite, Access::ComputeReadWrite, "look-back zeroed");
                plan.record_passes(&mut rec, input.slice(), out.slice(), None, &scratch).unwrap();
            } else {
                plan.record(&mut rec, input.slice(), out.slice(), None, &scratch).unwrap();
            }
            rec.barrier(&[out.slice(), counts.slice()], Access::ComputeReadWrite, Access::TransferRead, "sorted keys and offsets read back");
            rec.submit_and_wait().unwrap();
            drop(rec);
            let label = format!("{} ({digits:?} digits, caller-counted: {caller_counted}, fold: {fold})", d.label());
            let got: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, out.slice()).unwrap());
            if let Some(e) = sort::check(&d, &keys, None, &got, None) {
                panic!("{label}: {e}");
            }
            let after: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, counts.slice()).unwrap());
            for p in 0..d.passes() {
                let t = &totals[p as usize];
                let mut run = 0;
                for (digit, &c) in t.iter().enumerate() {
                    assert_eq!(after[upfront_offset_word(p, digit as u32)], run, "{label}: pass {p}, offset of digit {digit}");
                    run += c;
                }
                let span = upfront_span_words(p).map(|w| after[w]);
                // (The sort's histogram raises the spans only where a pass folds.)
                let want = match caller_counted || !fold {
                    true => [0, 0],
                    false => {
                        let (lo, hi) = (t.iter().position(|&c| c > 0).unwrap(), t.iter().rposition(|&c| c > 0).unwrap());
                        [hi as u32 + 1, 256 - lo as u32]
                    }
                };
                assert_eq!(span, want, "{label}: pass {p}'s digit span");
                // Only the U32 keys' third digit is the same for every key: a trivial pass.
                let trivial = key == KeyType::U32 && p == 2;
                assert_eq!(span[0] + span[1] == 257, !caller_counted && fold && trivial, "{label}: pass {p}'s span");
                assert_eq!(after[upfront_flag_word(p)] != 0, !fold && trivial, "{label}: pass {p}'s flag");
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn value_round_skips_leave_keys_right_and_outputs_poisoned() {
    // The timing experiments' skip bits 9 (the value round's stores) and 10 (the whole round)
    // act on planes in sequence only, so the keys still come out sorted while no value is
    // written: `run` poisons its outputs first, so the values read back are all poison (a
    // reused allocation holding the right values cannot pass for them).
    let ctx = common::ctx();
    let n = 5 * tile(KeyType::U32) + 3;
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, n as usize, 63);
    let values: Vec<u32> = (0..n as u32).collect();
    let (want, _) = sort::run(&ctx, &SortDesc::new(KeyType::U32, n), &keys, None).unwrap();
    for name in ["autoxautoxskip512", "autoxautoxskip1024", "autoxautoxpackedxskip512", "autoxautoxpackedxskip1024"] {
        let mut d = SortDesc::new(KeyType::U32, n);
        d.policy = BinningPolicy::parse(name).unwrap();
        d.value_bytes = 4;
        // A right sort first, so its freed output buffers hold the right values.
        let mut right = d.clone();
        right.policy = BinningPolicy::default();
        let (k, v) = sort::run(&ctx, &right, &keys, Some(&values)).unwrap();
        assert!(sort::check(&right, &keys, Some(&values), &k, v.as_deref()).is_none(), "{name}");
        let (k, v) = sort::run(&ctx, &d, &keys, Some(&values)).unwrap();
        assert_eq!(k, want, "{name}: keys");
        assert!(v.unwrap().iter().all(|&w| w == gpu::POISON), "{name}: values written");
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn in_place_where_safe_and_overlaps_refused() {
    // A sort in place works where its first pass writes the alternate buffers (an even number
    // of digit passes); elsewhere, and wherever a written range overlaps another, the record
    // call refuses before any GPU work. Ranges that only touch are fine.
    let ctx = common::ctx();
    let n = 5000u64;
    let scratch_of = |plan: &SortPlan| -> (Vec<Buffer>, SortScratch) {
        let (ka, va, h, st) = plan.scratch_bytes();
        let bufs: Vec<Buffer> = [ka, va, h, st].iter().map(|&b| Buffer::new(&ctx, b, MemoryLocation::GpuOnly, "scratch").unwrap()).collect();
        let s = SortScratch { keys_alt: bufs[0].slice(), values_alt: bufs[1].slice(), hist: bufs[2].slice(), state: bufs[3].slice() };
        (bufs, s)
    };
    // u32 pairs over four passes, keys and values each sorted in place; a pass where every key
    // has the same digit (all of them for equal keys, the first three for keys that differ
    // only in the top digit) copies.
    let mut d = SortDesc::new(KeyType::U32, n);
    d.value_bytes = 4;
    let plan = SortPlan::new(&ctx, d.clone()).unwrap();
    assert!(plan.sorts_in_place());
    let (_bufs, scratch) = scratch_of(&plan);
    let values: Vec<u32> = (0..n as u32).collect();
    let keys = sort_keys(KeyPattern::FewDistinct, KeyType::U32, n as usize, 3);
    let kbuf = gpu::upload(&ctx, bytemuck::cast_slice(&keys), "keys").unwrap();
    for pattern in [KeyPattern::AllEqual, KeyPattern::TopDigitOnly, KeyPattern::FewDistinct] {
        let keys = sort_keys(pattern, KeyType::U32, n as usize, 3);
        let (k, v) = (gpu::upload(&ctx, bytemuck::cast_slice(&keys), "keys").unwrap(), gpu::upload(&ctx, bytemuck::cast_slice(&values), "values").unwrap());
        let mut rec = Recorder::new(&ctx, "in place").unwrap();
        plan.record(&mut rec, k.slice(), k.slice(), Some((v.slice(), v.slice())), &scratch).unwrap();
        rec.barrier(&[k.slice(), v.slice()], Access::ComputeWrite, Access::TransferRead, "sorted pairs read back");
        rec.submit_and_wait().unwrap();
        drop(rec);
        let got_k: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, k.slice()).unwrap());
        let got_v: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, v.slice()).unwrap());
        if let Some(e) = sort::check(&d, &keys, Some(&values), &got_k, Some(&got_v)) {
            panic!("in place, {pattern:?}: {e}");
        }
    }

    // The output and the alternate keys as neighbouring ranges of one buffer: accepted, right.
    let kb = plan.keys_bytes();
    let at = kb.next_multiple_of(ctx.info().min_storage_buffer_offset_alignment.max(4));
    let shared = Buffer::new(&ctx, at + kb, MemoryLocation::GpuOnly, "keys out and alt").unwrap();
    let kin = gpu::upload(&ctx, bytemuck::cast_slice(&keys), "keys").unwrap();
    let vin = gpu::upload(&ctx, bytemuck::cast_slice(&values), "values").unwrap();
    let vout = Buffer::new(&ctx, plan.values_bytes(), MemoryLocation::GpuOnly, "values out").unwrap();
    let neighbours = SortScratch { keys_alt: shared.slice().sub(at, kb), ..scratch };
    let mut rec = Recorder::new(&ctx, "neighbours").unwrap();
    plan.record(&mut rec, kin.slice(), shared.slice().sub(0, kb), Some((vin.slice(), vout.slice())), &neighbours).unwrap();
    rec.barrier(&[shared.slice(), vout.slice()], Access::ComputeWrite, Access::TransferRead, "sorted pairs read back");
    rec.submit_and_wait().unwrap();
    drop(rec);
    let got_k: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, shared.slice().sub(0, kb)).unwrap());
    let got_v: Vec<u32> = bytemuck::pod_collect_to_vec(&gpu::download(&ctx, vout.slice()).unwrap());
    if let Some(e) = sort::check(&d, &keys, Some(&values), &got_k, Some(&got_v)) {
        panic!("neighbouring ranges: {e}");
    }

    let refused = |plan: &SortPlan, kin, kout, values, scratch: &SortScratch, want: &str| {
        let mut rec = Recorder::new(&ctx, "refused").unwrap();
        let e = plan.record(&mut rec, kin, kout, values, scratch).expect_err(want).to_string();
        assert!(e.contains(want), "{e}");
    };
    // Overlaps of a written range: the alternate keys over the output, by 256 bytes; the
    // values' output over the keys' output; the look-back state over the input.
    let over = SortScratch { keys_alt: shared.slice().sub(at - 256, kb), ..scratch };
    refused(&plan, kin.slice(), shared.slice().sub(0, kb), Some((vin.slice(), vout.slice())), &over, "keys_out and keys_alt overlap");
    refused(&plan, kin.slice(), kbuf.slice(), Some((vin.slice(), kbuf.slice())), &scratch, "keys_out and values_out overlap");
    let big = Buffer::new(&ctx, kb.max(plan.state_bytes()), MemoryLocation::GpuOnly, "keys in and state").unwrap();
    let st = SortScratch { state: big.slice(), ..scratch };
    refused(&plan, big.slice().sub(0, kb), kbuf.slice(), Some((vin.slice(), vout.slice())), &st, "keys_in and state overlap");
    // Three passes (a 24-bit range): the first writes the output, so no sort in place.
    let mut d3 = d.clone();
    d3.bits = (0, 24);
    let plan3 = SortPlan::new(&ctx, d3.clone()).unwrap();
    assert!(d3.passes() == 3 && !plan3.sorts_in_place());
    let (_bufs3, scratch3) = scratch_of(&plan3);
    refused(&plan3, kbuf.slice(), kbuf.slice(), Some((vin.slice(), vout.slice())), &scratch3, "keys_in and keys_out overlap");
    // Only-read ranges may overlap: keys and values from one array.
    let mut rec = Recorder::new(&ctx, "inputs overlap").unwrap();
    plan.record(&mut rec, kin.slice(), kbuf.slice(), Some((kin.slice(), vout.slice())), &scratch).unwrap();
    drop(rec);
    common::assert_no_validation_messages(&ctx);
}
