//! Stable multisplit against a CPU stable partition: every bucket source, 2 to 65,536 buckets,
//! keys and pairs (values = input index: stability is exact), awkward sizes up to a few
//! million, one bucket holding everything, empty and skewed buckets, forced fallback;
//! validation layer on.

mod common;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use vkprims::prims::binning::{BinningPolicy, Ranking};
use vkprims::prims::multisplit::{self, BucketSource, MultisplitDesc, MultisplitPlan};
use vkprims::prims::sort::{KeyType, SortDesc, SortPlan};
use vkprims::testdata::{sort_keys, KeyPattern};

/// Bucket ids: uniform, all in one bucket, or skewed (most in bucket 0, some buckets empty).
fn ids(n: usize, buckets: u32, shape: u32, seed: u64) -> Vec<u32> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n)
        .map(|_| match shape {
            0 => rng.random_range(0..buckets),
            1 => buckets - 1,
            _ => {
                if rng.random_bool(0.9) { 0 } else { rng.random_range(buckets / 2..buckets) }
            }
        })
        .collect()
}

/// `count` sorted splitters drawn from the keys themselves (or random ones when there are none).
fn splitters(key: KeyType, keys: &[u32], count: usize, seed: u64) -> Vec<u32> {
    let pool;
    let keys = if keys.is_empty() {
        pool = sort_keys(KeyPattern::Random, key, count, seed);
        &pool[..]
    } else {
        keys
    };
    let kw = (key.bytes() / 4) as usize;
    let n = keys.len() / kw;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut picks: Vec<usize> = (0..count).map(|_| rng.random_range(0..n.max(1))).collect();
    picks.sort_by_key(|&i| vkprims::prims::sort::order_key(key, false, keys, i));
    picks.iter().flat_map(|&i| keys[i * kw..(i + 1) * kw].to_vec()).collect()
}

fn check(desc: &MultisplitDesc, keys: &[u32], aux: Option<&[u32]>) {
    let ctx = common::ctx();
    let values: Option<Vec<u32>> = match desc.value_bytes {
        0 => None,
        4 => Some((0..desc.n as u32).collect()),
        _ => Some((0..desc.n as u32).flat_map(|i| [i, !i]).collect()),
    };
    let plan = MultisplitPlan::new(&ctx, desc.clone()).unwrap_or_else(|e| panic!("{}: {e}", desc.label()));
    let (k, v, o) = plan.run(&ctx, keys, values.as_deref(), aux).unwrap_or_else(|e| panic!("{}: {e}", desc.label()));
    if let Some(e) = multisplit::check(desc, keys, values.as_deref(), aux, (&k, v.as_deref(), &o)) {
        panic!("{} (fallback period {}): {e}", desc.label(), desc.force_fallback_period);
    }
}

#[test]
fn every_source_and_bucket_count() {
    let ctx = common::ctx();
    for key in [KeyType::U32, KeyType::F32, KeyType::U64] {
        let tile = MultisplitPlan::new(&ctx, MultisplitDesc::new(key, 1, BucketSource::Bits { lo: 0, hi: 1 })).unwrap().tile_keys();
        for (i, n) in [0u64, 1, tile - 1, tile + 1, 9 * tile + 5, 50_003].into_iter().enumerate() {
            let keys = sort_keys(KeyPattern::Random, key, n as usize, n);
            for (j, b) in [2u32, 3, 16, 100, 256].into_iter().enumerate() {
                let value_bytes = [0, 4, 8][(i + j) % 3];
                // A bit field of log2(b) bits (b a power of two), ids, splitters.
                if b.is_power_of_two() {
                    let lo = (i as u32 * 5) % (key.bits() - 8);
                    let mut d = MultisplitDesc::new(key, n, BucketSource::Bits { lo, hi: lo + b.trailing_zeros() });
                    d.value_bytes = value_bytes;
                    check(&d, &keys, None);
                }
                let mut d = MultisplitDesc::new(key, n, BucketSource::Ids { buckets: b });
                d.value_bytes = value_bytes;
                check(&d, &keys, Some(&ids(n as usize, b, (i % 3) as u32, n + b as u64)));
                let mut d = MultisplitDesc::new(key, n, BucketSource::Splitters { count: b - 1 });
                d.value_bytes = value_bytes;
                check(&d, &keys, Some(&splitters(key, &keys, b as usize - 1, b as u64)));
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn one_bucket_empty_buckets_fallback_and_size() {
    let ctx = common::ctx();
    let n = 200_003usize;
    let keys = sort_keys(KeyPattern::FewDistinct, KeyType::U32, n, 1);
    for shape in [1u32, 2] {
        let mut d = MultisplitDesc::new(KeyType::U32, n as u64, BucketSource::Ids { buckets: 256 });
        d.value_bytes = 4;
        check(&d, &keys, Some(&ids(n, 256, shape, 7)));
    }
    // The fallback forced, with the bucket offsets scanned by tile 0 (period 2, the default
    // at this size) and by the offsets kernel (`xfold0`).
    for period in [2u32, 5] {
        let mut d = MultisplitDesc::new(KeyType::I64, 40 * 1024 + 9, BucketSource::Splitters { count: 63 });
        d.value_bytes = 8;
        d.force_fallback_period = period;
        if period == 5 {
            d.policy = vkprims::prims::binning::BinningPolicy::parse("autoxautoxfold0").unwrap();
        }
        let k = sort_keys(KeyPattern::Random, KeyType::I64, d.n as usize, 3);
        check(&d, &k, Some(&splitters(KeyType::I64, &k, 63, 9)));
    }
    // Every word plane staged at once (`xplanes`), with buckets from ids, from splitters
    // (bucket of a tile position by search), and both rankings.
    for ranking in [Ranking::Stable, Ranking::Atomic] {
        let mut d = MultisplitDesc::new(KeyType::U32, n as u64, BucketSource::Ids { buckets: 200 });
        d.policy = vkprims::prims::binning::BinningPolicy::parse("autox9xplanes").unwrap();
        d.value_bytes = 8;
        d.ranking = ranking;
        d.force_fallback_period = 3;
        check(&d, &keys, Some(&ids(n, 200, 1, 8)));
        let mut d = MultisplitDesc::new(KeyType::F64, 30_011, BucketSource::Splitters { count: 31 });
        d.policy = vkprims::prims::binning::BinningPolicy::parse("autox15xplanesxkeep").unwrap();
        d.value_bytes = 4;
        d.ranking = ranking;
        let k = sort_keys(KeyPattern::Random, KeyType::F64, d.n as usize, 4);
        check(&d, &k, Some(&splitters(KeyType::F64, &k, 31, 10)));
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn a_few_million_elements() {
    // Hundreds of tiles a pass: the 256-way split of pairs by a bit field, stable and atomic
    // (the fallback forced in one), and a composed 4,096-way split of pairs by ids.
    let ctx = common::ctx();
    let n = 3_000_017u64;
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, n as usize, 5);
    for (ranking, period) in [(Ranking::Stable, 0u32), (Ranking::Atomic, 7)] {
        let mut d = MultisplitDesc::new(KeyType::U32, n, BucketSource::Bits { lo: 24, hi: 32 });
        d.value_bytes = 4;
        d.ranking = ranking;
        d.force_fallback_period = period;
        check(&d, &keys, None);
    }
    let mut d = MultisplitDesc::new(KeyType::U32, n, BucketSource::Ids { buckets: 4096 });
    d.value_bytes = 4;
    check(&d, &keys, Some(&ids(n as usize, 4096, 0, 6)));
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn pairs_planes_in_sequence_or_together() {
    // 4-byte pairs: the key plane, then the value plane, through the same shared words (the
    // default; with buckets from ids or splitters, the value round finds a position's bucket
    // from the key round's, kept per lane), or both planes at once (`xnoseq`); every bucket
    // source, both rankings, forced fallbacks, odd items per lane, the values read 8, 4 or 1
    // a lane at a time (`xvcN`).
    let ctx = common::ctx();
    let n = 45_007;
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, n, 17);
    for name in ["64x15", "64x15xnoseq", "autoxauto", "64x15xvc4", "64x16xvc1"] {
        let policy = vkprims::prims::binning::BinningPolicy::parse(name).unwrap();
        for (ranking, period) in [(Ranking::Stable, 0u32), (Ranking::Stable, 3), (Ranking::Atomic, 2)] {
            let desc = |source| {
                let mut d = MultisplitDesc::new(KeyType::U32, n as u64, source);
                d.policy = policy;
                d.value_bytes = 4;
                d.ranking = ranking;
                d.force_fallback_period = period;
                d
            };
            for (b, shape) in [(256u32, 0u32), (37, 2)] {
                check(&desc(BucketSource::Ids { buckets: b }), &keys, Some(&ids(n, b, shape, 18 + b as u64)));
            }
            check(&desc(BucketSource::Splitters { count: 99 }), &keys, Some(&splitters(KeyType::U32, &keys, 99, 19)));
            check(&desc(BucketSource::Bits { lo: 3, hi: 11 }), &keys, None);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn shared_memory_peer_matching() {
    // The H200's default matching (shared-memory masks) on lavapipe: a 64-invocation
    // workgroup, where the mask rows fit at width 8 or more (at width 4: ballots). Every
    // bucket source, skewed ids, a forced fallback, 2 to 256 buckets.
    let ctx = common::ctx();
    let n = 50_021;
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, n, 12);
    // And with the keys kept in registers from load to staging (`xkeep`; by default they
    // are read again while staging), the 4-byte values read in the value round (planes in
    // sequence) or, with `xnoseq`, kept in registers too: same results.
    for (b, shape, name) in [(2u32, 0u32, "64x15"), (16, 1, "64x15"), (256, 2, "64x15"), (2, 0, "64x15xkeep"), (256, 2, "64x15xkeep"), (16, 1, "64x15xkeepxnoseq")] {
        let policy = vkprims::prims::binning::BinningPolicy::parse(name).unwrap();
        let mut d = MultisplitDesc::new(KeyType::U32, n as u64, BucketSource::Ids { buckets: b });
        d.policy = policy;
        d.value_bytes = 4;
        d.force_fallback_period = 3;
        check(&d, &keys, Some(&ids(n, b, shape, 13)));
        let mut d = MultisplitDesc::new(KeyType::U32, n as u64, BucketSource::Bits { lo: 5, hi: 5 + b.trailing_zeros() });
        d.policy = policy;
        check(&d, &keys, None);
        let mut d = MultisplitDesc::new(KeyType::U32, n as u64, BucketSource::Splitters { count: b - 1 });
        d.policy = policy;
        d.value_bytes = 8;
        check(&d, &keys, Some(&splitters(KeyType::U32, &keys, b as usize - 1, 14)));
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn fold_defaults() {
    // By default tile 0 scans the bucket offsets (BinningPolicy::fold_max_tiles) in passes of
    // up to 512 tiles of keys alone and up to 256 with values. Stable passes of keys alone
    // bucketed by a bit field take the keys sort's tile (512x17 where the device allows)
    // wherever they fold at it (BinningKernel::fold_keys_tile); other passes keep the tile of
    // their element size (512x16).
    let ctx = common::ctx();
    let plan = |value_bytes: u32, ranking: Ranking, n: u64, policy: &str| {
        let mut d = MultisplitDesc::new(KeyType::U32, n, BucketSource::Bits { lo: 0, hi: 8 });
        d.value_bytes = value_bytes;
        d.ranking = ranking;
        d.policy = BinningPolicy::parse(policy).unwrap();
        let plan = MultisplitPlan::new(&ctx, d).unwrap();
        (plan.tile_keys(), plan.policy_label().contains("offsets by tile 0"), plan.policy_label())
    };
    let keys_tile = SortPlan::new(&ctx, SortDesc::new(KeyType::U32, 1)).unwrap().tile_keys();
    let tile = plan(0, Ranking::Atomic, 1, "auto").0;
    assert!(tile < keys_tile, "{tile} against {keys_tile}");
    // Stable, keys alone: the keys sort's tile while it folds there, then the smaller tile,
    // with which it no longer folds; not folding (`xfold0`), the smaller tile.
    for (n, want_tile, want_fold, policy) in [
        (1, keys_tile, true, "auto"),
        (512 * keys_tile, keys_tile, true, "auto"),
        (512 * keys_tile + 1, tile, false, "auto"),
        (keys_tile, tile, false, "autoxautoxfold0"),
        (2 * keys_tile, keys_tile, true, "autoxautoxfold2"),
        (2 * keys_tile + 1, tile, false, "autoxautoxfold2"),
    ] {
        let (got_tile, fold, label) = plan(0, Ranking::Stable, n, policy);
        assert_eq!((got_tile, fold), (want_tile, want_fold), "n {n} {policy}: {label}");
    }
    // Buckets from ids or splitters (not measured at 512x17): the smaller tile.
    for source in [BucketSource::Ids { buckets: 256 }, BucketSource::Splitters { count: 15 }] {
        let plan = MultisplitPlan::new(&ctx, MultisplitDesc::new(KeyType::U32, 1, source)).unwrap();
        assert_eq!(plan.tile_keys(), tile, "{}", plan.policy_label());
    }
    // Atomic, keys alone: the smaller tile, folding up to 512 tiles.
    assert!(plan(0, Ranking::Atomic, 512 * tile, "auto").1);
    assert!(!plan(0, Ranking::Atomic, 512 * tile + 1, "auto").1);
    // With values: their own tile at every size, folding up to 256 tiles.
    for ranking in [Ranking::Stable, Ranking::Atomic] {
        let pair_tile = plan(4, ranking, 1, "auto").0;
        for (tiles, want) in [(256, true), (257, false)] {
            let (got_tile, fold, label) = plan(4, ranking, tiles * pair_tile, "auto");
            assert_eq!((got_tile, fold), (pair_tile, want), "{tiles} tiles: {label}");
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn bad_requests() {
    let ctx = common::ctx();
    let plan_err = |d: MultisplitDesc| MultisplitPlan::new(&ctx, d).err().expect("refused").to_string();
    assert!(plan_err(MultisplitDesc::new(KeyType::U32, 10, BucketSource::Ids { buckets: 1 })).contains("1 buckets"));
    assert!(plan_err(MultisplitDesc::new(KeyType::U32, 10, BucketSource::Ids { buckets: 65_537 })).contains("65537 buckets"));
    assert!(plan_err(MultisplitDesc::new(KeyType::U32, 10, BucketSource::Bits { lo: 30, hi: 34 })).contains("bit field 30:34"));
    assert!(plan_err(MultisplitDesc::new(KeyType::U32, 10, BucketSource::Splitters { count: 65_536 })).contains("65537 buckets"));
    // Past the look-back counts' reach, in the split's own words (a composed split's sort
    // would name itself), for one pass and composed splits alike.
    for source in [BucketSource::Bits { lo: 0, hi: 8 }, BucketSource::Bits { lo: 0, hi: 16 }, BucketSource::Ids { buckets: 1000 }] {
        let e = plan_err(MultisplitDesc::new(KeyType::U32, 1 << 30, source));
        assert!(e.starts_with("multisplit ") && e.contains("30-bit look-back counts"), "{e}");
    }
    let d = MultisplitDesc::new(KeyType::U32, 4, BucketSource::Ids { buckets: 4 });
    let e = multisplit::check_aux(&d, Some(&[0, 1, 4, 2])).unwrap_err().to_string();
    assert!(e.contains("bucket id 4 at element 2 is not below 4"), "{e}");
    let d = MultisplitDesc::new(KeyType::F32, 4, BucketSource::Splitters { count: 3 });
    let e = multisplit::check_aux(&d, Some(&[1.0f32.to_bits(), (-1.0f32).to_bits(), 2.0f32.to_bits()])).unwrap_err().to_string();
    assert!(e.contains("not sorted"), "{e}");
    let plan = MultisplitPlan::new(&ctx, MultisplitDesc::new(KeyType::U32, 4, BucketSource::Ids { buckets: 4 })).unwrap();
    let e = plan.run(&ctx, &[1, 2, 3, 4], None, Some(&[0, 1])).unwrap_err().to_string();
    assert!(e.contains("2 bucket ids for 4 elements"), "{e}");
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn composed_splits_up_to_65536_buckets() {
    let ctx = common::ctx();
    for (key, lo, hi, n, value_bytes) in [
        (KeyType::U32, 0u32, 12u32, 30_011u64, 4u32),
        (KeyType::F32, 4, 20, 50_003, 0),
        (KeyType::U64, 30, 41, 20_011, 8),
        (KeyType::I32, 20, 29, 0, 4),
        (KeyType::U32, 16, 32, 1, 0),
    ] {
        let mut d = MultisplitDesc::new(key, n, BucketSource::Bits { lo, hi });
        d.value_bytes = value_bytes;
        check(&d, &sort_keys(KeyPattern::Random, key, n as usize, n), None);
        d.force_fallback_period = 3;
        check(&d, &sort_keys(KeyPattern::FewDistinct, key, n as usize, n + 1), None);
        // One bucket: the offsets before it from position 0, after it from position n.
        d.force_fallback_period = 0;
        check(&d, &sort_keys(KeyPattern::AllEqual, key, n as usize, n + 2), None);
    }
    // The index scratch holds n words a region (4,000 bytes, rounded to 4,096): the sorted
    // ids, the ids from splitters, and with values the input indices and their sorted copy
    // (none for 4-byte values with 32-bit keys: the split sort reads and writes the pairs).
    for (source, value_bytes, regions) in [
        (BucketSource::Ids { buckets: 300 }, 0u32, 1u64),
        (BucketSource::Splitters { count: 299 }, 0, 2),
        (BucketSource::Ids { buckets: 300 }, 4, 1),
        (BucketSource::Splitters { count: 299 }, 4, 2),
        (BucketSource::Splitters { count: 299 }, 8, 4),
    ] {
        let mut d = MultisplitDesc::new(KeyType::U32, 1000, source);
        d.value_bytes = value_bytes;
        assert_eq!(MultisplitPlan::new(&ctx, d).unwrap().index_scratch_bytes(), Some(regions * 4096), "{source:?}, {value_bytes} B values");
    }
    let e = MultisplitPlan::new(&ctx, MultisplitDesc::new(KeyType::U32, 10, BucketSource::Bits { lo: 0, hi: 17 })).err().unwrap();
    assert!(e.to_string().contains("131072 buckets"), "{e}");
    // By bucket ids and by splitters: a sort of (id, key) pairs for keys alone (4- and 8-byte
    // keys), of (id, (key, value)) pairs for 32-bit keys with 4-byte values, else of (id,
    // index) pairs and a gather; skewed and empty buckets, the forced fallback, both rankings;
    // the split sort's tile - 1, tile and tile + 1 elements.
    let mut pairs = MultisplitDesc::new(KeyType::U32, 1, BucketSource::Ids { buckets: 1000 });
    pairs.value_bytes = 4;
    let t = MultisplitPlan::new(&ctx, pairs).unwrap().tile_keys();
    for (key, b, n, value_bytes, shape) in [
        (KeyType::U32, 1000, t - 1, 4, 0),
        (KeyType::I32, 1000, t, 4, 2),
        (KeyType::F32, 4099, t + 1, 4, 0),
        (KeyType::U32, 257, 30_011, 4, 0),
        (KeyType::F32, 65_536, 40_009, 4, 2),
        (KeyType::I32, 1000, 20_011, 4, 1),
        (KeyType::U32, 300, 1, 4, 0),
        (KeyType::F32, 4099, 0, 4, 1),
        (KeyType::F64, 1000, 50_003, 8, 2),
        (KeyType::I32, 65_536, 70_001, 0, 0),
        (KeyType::U64, 4099, 0, 4, 0),
        (KeyType::F32, 300, 1, 8, 1),
        (KeyType::U32, 65_536, 40_009, 0, 1),
        (KeyType::I64, 5000, 30_011, 0, 2),
    ] {
        let keys = sort_keys(KeyPattern::Random, key, n as usize, n + b as u64);
        for (ranking, period) in [(Ranking::Stable, 0u32), (Ranking::Atomic, 3)] {
            let mut d = MultisplitDesc::new(key, n, BucketSource::Ids { buckets: b });
            d.value_bytes = value_bytes;
            d.ranking = ranking;
            d.force_fallback_period = period;
            check(&d, &keys, Some(&ids(n as usize, b, shape, n + 11)));
            let mut d = MultisplitDesc::new(key, n, BucketSource::Splitters { count: b - 1 });
            d.value_bytes = value_bytes;
            d.ranking = ranking;
            d.force_fallback_period = period;
            check(&d, &keys, Some(&splitters(key, &keys, b as usize - 1, b as u64)));
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn atomic_ranking() {
    // Order within a bucket unspecified: checked bucket by bucket as a multiset of (key,
    // value) pairs, with exact offsets; every source, one pass and composed, forced fallback.
    // Every other case takes the atomic ranking's steps last to first (debug bit 6), so the
    // order within buckets does leave input order on lavapipe too, whose atomics keep it.
    let ctx = common::ctx();
    let scrambled = BinningPolicy::parse("autoxautoxskip64").unwrap();
    for (n, key) in [(0u64, KeyType::U32), (1, KeyType::U64), (30_011, KeyType::U32), (200_003, KeyType::F32)] {
        let keys = sort_keys(KeyPattern::Random, key, n as usize, n + 3);
        for (i, b) in [2u32, 37, 256].into_iter().enumerate() {
            let mut d = MultisplitDesc::new(key, n, BucketSource::Ids { buckets: b });
            d.ranking = Ranking::Atomic;
            d.value_bytes = [4, 8, 0][i];
            d.force_fallback_period = if i == 1 { 3 } else { 0 };
            if i != 1 {
                d.policy = scrambled;
            }
            check(&d, &keys, Some(&ids(n as usize, b, (i % 3) as u32, n + b as u64)));
            let mut d = MultisplitDesc::new(key, n, BucketSource::Splitters { count: b - 1 });
            d.ranking = Ranking::Atomic;
            d.value_bytes = 4;
            if i == 1 {
                d.policy = scrambled;
            }
            check(&d, &keys, Some(&splitters(key, &keys, b as usize - 1, b as u64)));
        }
        for hi in [8u32, 12] {
            let mut d = MultisplitDesc::new(key, n, BucketSource::Bits { lo: 0, hi });
            d.ranking = Ranking::Atomic;
            d.value_bytes = 4;
            if hi == 12 {
                d.policy = scrambled;
            }
            check(&d, &keys, None);
        }
    }
    // Keys alone at narrow workgroups: each invocation owns 2 (128) or 4 (64) buckets.
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, 40_009, 5);
    for (policy, period) in [("128x8xskip64", 0u32), ("64x8", 3)] {
        let mut d = MultisplitDesc::new(KeyType::U32, 40_009, BucketSource::Bits { lo: 3, hi: 11 });
        d.ranking = Ranking::Atomic;
        d.policy = BinningPolicy::parse(policy).unwrap();
        d.force_fallback_period = period;
        check(&d, &keys, None);
    }
    // The scramble shows: a scrambled atomic split of pairs is not the stable one.
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, 30_011, 4);
    let mut d = MultisplitDesc::new(KeyType::U32, 30_011, BucketSource::Bits { lo: 0, hi: 2 });
    d.ranking = Ranking::Atomic;
    d.value_bytes = 4;
    d.policy = scrambled;
    let vals: Vec<u32> = (0..30_011).collect();
    let (k, v, offsets) = MultisplitPlan::new(&ctx, d.clone()).unwrap().run(&ctx, &keys, Some(&vals), None).unwrap();
    assert_eq!(multisplit::check(&d, &keys, Some(&vals), None, (&k, v.as_deref(), &offsets)), None);
    let stable = MultisplitDesc { ranking: Ranking::Stable, ..d };
    assert!(multisplit::check(&stable, &keys, Some(&vals), None, (&k, v.as_deref(), &offsets)).is_some());
    // The multiset check fails a result with two elements of different buckets swapped.
    let keys = sort_keys(KeyPattern::Random, KeyType::U32, 5000, 9);
    let mut d = MultisplitDesc::new(KeyType::U32, 5000, BucketSource::Bits { lo: 0, hi: 4 });
    d.ranking = Ranking::Atomic;
    let (order, offsets) = multisplit::reference(&d, &keys, None);
    let mut got = vkprims::prims::sort::gather(&keys, 1, &order);
    assert_eq!(multisplit::check(&d, &keys, None, None, (&got, None, &offsets)), None);
    got.swap(0, 4999);
    assert!(multisplit::check(&d, &keys, None, None, (&got, None, &offsets)).is_some());
    // With input indices as values (the O(n) check): a within-bucket swap passes, a swap
    // across buckets or a wrong value fails.
    let vals: Vec<u32> = (0..5000).collect();
    d.value_bytes = 4;
    let (mut k, mut v) = (vkprims::prims::sort::gather(&keys, 1, &order), vkprims::prims::sort::gather(&vals, 1, &order));
    let (first, last) = (offsets[3] as usize, offsets[4] as usize - 1);
    k.swap(first, last);
    v.swap(first, last);
    assert_eq!(multisplit::check(&d, &keys, Some(&vals), None, (&k, Some(&v), &offsets)), None);
    k.swap(0, 4999);
    v.swap(0, 4999);
    assert!(multisplit::check(&d, &keys, Some(&vals), None, (&k, Some(&v), &offsets)).is_some());
    k.swap(0, 4999);
    v[7] = v[8];
    assert!(multisplit::check(&d, &keys, Some(&vals), None, (&k, Some(&v), &offsets)).is_some());
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn overlapping_ranges_are_refused() {
    // Out of place, every written range its own: refused before anything is recorded.
    use vkprims::gpu::{Buffer, MemoryLocation, Recorder};
    use vkprims::prims::multisplit::MultisplitScratch;
    let ctx = common::ctx();
    let mut d = MultisplitDesc::new(KeyType::U32, 10_000, BucketSource::Bits { lo: 0, hi: 8 });
    d.value_bytes = 4;
    let plan = MultisplitPlan::new(&ctx, d).unwrap();
    let buf = |bytes: u64| Buffer::new(&ctx, bytes, MemoryLocation::GpuOnly, "range").unwrap();
    let (keys, values, out, vout, offs) = (buf(plan.keys_bytes()), buf(plan.values_bytes()), buf(plan.keys_bytes()), buf(plan.values_bytes()), buf(plan.offsets_bytes()));
    let (hist, state, dummy) = (buf(plan.hist_bytes()), buf(plan.state_bytes()), buf(4));
    let scratch = MultisplitScratch { hist: hist.slice(), state: state.slice(), dummy: dummy.slice(), sort: None, index: None };
    let mut rec = Recorder::new(&ctx, "refused").unwrap();
    for (kout, vo, o, want) in [
        (keys.slice(), vout.slice(), offs.slice(), "keys_in and keys_out overlap"),
        (out.slice(), values.slice(), offs.slice(), "values_in and values_out overlap"),
        (out.slice(), vout.slice(), out.slice(), "keys_out and offsets_out overlap"),
        (out.slice(), vout.slice(), hist.slice(), "offsets_out and hist overlap"),
    ] {
        let e = plan.record(&mut rec, keys.slice(), kout, Some((values.slice(), vo)), None, Some(o), &scratch).expect_err(want).to_string();
        assert!(e.contains(want), "{e}");
    }
    drop(rec);
    common::assert_no_validation_messages(&ctx);
}
