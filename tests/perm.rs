//! The random permutation: in the reproducible mode the GPU output equals the CPU model
//! `perm::reference_order` bit for bit (so it is the same on every device and width), it is a
//! bijection, the overflow path (groups larger than shared memory) gives the same result, and
//! the model is uniform by chi-square tests over fixed lists of seeds; the default mode's
//! output is a bijection and uniform by the same test on the GPU. The permutation of indices
//! (no input array, group ids drawn again in the passes) equals the same model.

mod common;

use vkprims::prims::perm::{self, PermDesc, PermPlan};

fn gpu_order(desc: &PermDesc) -> Vec<u32> {
    let ctx = common::ctx();
    let vw = desc.value_bytes as usize / 4;
    let input: Vec<u32> = (0..desc.n as u32).flat_map(|i| if vw == 1 { vec![i] } else { vec![i, !i] }).collect();
    let input = if desc.indices { None } else { Some(&input[..]) };
    let out = PermPlan::new(&ctx, desc.clone()).and_then(|p| p.run(&ctx, input)).unwrap_or_else(|e| panic!("{}: {e}", desc.label()));
    if vw == 2 {
        for p in 0..desc.n as usize {
            assert_eq!(out[2 * p + 1], !out[2 * p], "{}: 8-byte element {p} torn", desc.label());
        }
    }
    out.iter().step_by(vw).copied().collect()
}

/// A reproducible permutation's description.
fn repro(n: u64, value_bytes: u32, seed: u64) -> PermDesc {
    let mut d = PermDesc::new(n, value_bytes, seed);
    d.reproducible = true;
    d
}

/// The permutation of 0..n-1 (default mode) with a group target (0: the default).
fn idx(n: u64, seed: u64, target: u32) -> PermDesc {
    PermDesc { group_target: target, ..PermDesc::indices(n, seed) }
}

fn assert_bijection(desc: &PermDesc, got: &[u32]) {
    let mut sorted = got.to_vec();
    sorted.sort_unstable();
    assert!(sorted.iter().enumerate().all(|(i, &v)| v == i as u32), "{}: not a bijection", desc.label());
}

fn assert_matches_reference(desc: &PermDesc) {
    let got = gpu_order(desc);
    let want: Vec<u32> = perm::reference_order(desc).into_iter().map(|i| i as u32).collect();
    if let Some(p) = (0..want.len()).find(|&p| got.get(p) != Some(&want[p])) {
        panic!("{}: position {p}: got {:?}, want {}", desc.label(), got.get(p), want[p]);
    }
    assert_bijection(desc, &got);
}

#[test]
fn gpu_equals_the_cpu_model() {
    let ctx = common::ctx();
    for (i, n) in [0u64, 1, 2, 3, 1000, 5000, 100_003].into_iter().enumerate() {
        for seed in [0u64, 1, 0xDEAD_BEEF_0000_0001] {
            assert_matches_reference(&repro(n, if i % 2 == 0 { 4 } else { 8 }, seed));
        }
    }
    // Many small groups (2 labels), groups that overflow shared memory (the global-memory
    // path), an odd capacity, groups of thousands (several elements per thread, runs of about
    // 1.5 elements; lavapipe's 32 KiB of shared memory hold 2,940), and one group of 20,011
    // in global memory (runs of about 20).
    for (target, capacity) in [(3u32, 2048u32), (64, 16), (64, 61), (1024, 64), (2000, 2900), (3000, 2000), (100_000, 2048)] {
        let mut d = repro(20_011, 4, 7);
        d.group_target = target;
        d.group_capacity = capacity;
        assert_matches_reference(&d);
    }
    let mut d = repro(1_000_003, 4, 42);
    d.group_target = 512;
    assert_matches_reference(&d);
    // The group ids' rejection path (probability below groups / 2^32 a draw): over 100,002
    // groups, seed 7 rejects the first draws of 7 elements, in each of a Philox call's 4 words.
    let mut d = repro(200_003, 4, 7);
    d.group_target = 2;
    assert_matches_reference(&d);
    // The group sort with peers matched in shared memory (the H200's default; on lavapipe
    // only this small workgroup fits its mask rows, at width 8 or more).
    let mut d = repro(300_007, 8, 9);
    d.policy = vkprims::prims::binning::BinningPolicy::parse("64x15").unwrap();
    assert_matches_reference(&d);
    // The target beyond 2^26 elements (4096) with the default capacity: groups in shared
    // memory with 4-byte elements; with 8-byte ones on lavapipe (32 KiB) the capacity falls
    // below the groups, which then take the global path.
    for vb in [4, 8] {
        let mut d = repro(200_003, vb, 5);
        d.group_target = 4096;
        assert_matches_reference(&d);
    }
    // Every comparison within a run through the tie path (both draws recomputed), which a
    // 16-bit tie of the stored key bits takes: in shared memory, and in the overflow path
    // with runs of about 20.
    for (n, target, capacity) in [(100_003u64, 1024u32, 0u32), (20_011, 100_000, 2048)] {
        let mut d = repro(n, 4, 13);
        d.group_target = target;
        d.group_capacity = capacity;
        d.debug_full_compare = true;
        assert_matches_reference(&d);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn indices_equal_the_cpu_model() {
    // The passes over indices (pass 0's values implicit, the last writing indices alone, two
    // passes handing the last its digit as a byte where the device has 8-bit storage), the
    // bounds from a binary search: sizes 0 to a million, one group (a single pass that copies
    // 0..n-1), three passes (the ids' rejection path: seed 7, target 2, as above), the
    // overflow path, a forced look-back fallback, the shared-memory peer match, the target
    // beyond 2^26, and two passes over 4-byte ids (as without 8-bit storage).
    let ctx = common::ctx();
    let idx = |n: u64, seed: u64, target: u32| PermDesc { reproducible: true, ..idx(n, seed, target) };
    for n in [0u64, 1, 2, 3, 1000, 5000, 100_003] {
        for seed in [0u64, 0xDEAD_BEEF_0000_0001] {
            assert_matches_reference(&idx(n, seed, 0));
        }
    }
    assert_matches_reference(&idx(1_000_003, 42, 512));
    assert_matches_reference(&idx(1000, 3, 100_000));
    assert_matches_reference(&idx(200_003, 7, 2));
    assert_matches_reference(&idx(200_003, 5, 4096));
    let mut d = idx(20_011, 7, 1024);
    d.group_capacity = 64;
    assert_matches_reference(&d);
    for period in [2u32, 3] {
        let mut d = idx(300_007, 9, 0);
        d.debug_force_fallback_period = period;
        assert_matches_reference(&d);
    }
    let mut d = idx(300_007, 9, 0);
    d.policy = vkprims::prims::binning::BinningPolicy::parse("64x15").unwrap();
    assert_matches_reference(&d);
    // Tiles by workgroup index (NVIDIA's default for this mode), two passes and three, full
    // tiles and a partial one.
    for (n, target) in [(300_007u64, 0u32), (200_003, 2)] {
        let mut d = idx(n, 9, target);
        d.policy = vkprims::prims::binning::BinningPolicy::parse("64x16xnoticket").unwrap();
        assert_matches_reference(&d);
    }
    let mut d = idx(1_000_003, 42, 512);
    d.debug_wide_ids = true;
    assert_matches_reference(&d);
    // The model equals the array path's: reference() is the permutation of indices.
    assert_eq!(gpu_order(&idx(5000, 1, 0)), perm::reference(5000, 1));
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn default_mode_is_a_bijection() {
    let ctx = common::ctx();
    for (n, vb, target, capacity) in [(0u64, 4u32, 1024u32, 2048u32), (1, 8, 1024, 2048), (5000, 8, 1024, 2048), (100_003, 4, 1024, 2048), (300_007, 4, 1024, 2048), (20_011, 4, 1024, 64)] {
        let mut d = PermDesc::new(n, vb, 11);
        d.group_target = target;
        d.group_capacity = capacity;
        assert_bijection(&d, &gpu_order(&d));
        // And the permutation of indices, its first pass ranked with atomics too.
        if vb == 4 {
            let mut d = PermDesc { indices: true, ..d };
            d.debug_force_fallback_period = if capacity == 64 { 3 } else { 0 };
            assert_bijection(&d, &gpu_order(&d));
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn default_indices_keep_the_model_groups() {
    // The default mode's permutation of indices (atomic ranking: the order within a group
    // depends on scheduling): each group's output range must hold exactly the elements the
    // CPU model puts in that group. One pass (one group, 3 or 101 groups), two passes (narrow
    // and wide ids), a forced look-back fallback, the overflow path, and small tiles (many
    // of them).
    let ctx = common::ctx();
    let check = |d: &PermDesc| {
        if let Some(e) = perm::check_groups(d, &gpu_order(d)) {
            panic!("{}: {e}", d.label());
        }
    };
    for n in [1u64, 2, 5, 4097, 100_003, 1_000_003] {
        check(&idx(n, 0x1234_5678_9ABC, 0));
    }
    check(&idx(5001, 3, 1700));
    check(&idx(20_011, 7, 200));
    for period in [2u32, 3] {
        let mut d = idx(300_007, 9, 0);
        d.debug_force_fallback_period = period;
        check(&d);
    }
    let mut d = idx(20_011, 7, 1024);
    d.group_capacity = 64;
    check(&d);
    let mut d = idx(300_007, 9, 0);
    d.policy = vkprims::prims::binning::BinningPolicy::parse("64x15").unwrap();
    check(&d);
    // Tiles by workgroup index (the reproducible mode's default on NVIDIA; here by policy).
    d.policy = vkprims::prims::binning::BinningPolicy::parse("64x16xnoticket").unwrap();
    check(&d);
    // The atomic passes' steps last to first (debug bit 6): their order leaves input order on
    // lavapipe too, whose atomics keep it; the groups must not change. One pass, two (the last
    // in class rounds) and three (target 2: the last stable, as class rounds by the middle
    // pass's buckets alone would mix groups).
    for (n, target) in [(100_003u64, 1024u32), (300_007, 0), (200_003, 2)] {
        let plain = gpu_order(&idx(n, 5, target));
        let mut d = idx(n, 5, target);
        d.policy = vkprims::prims::binning::BinningPolicy::parse("autoxautoxskip64").unwrap();
        let got = gpu_order(&d);
        if let Some(e) = perm::check_groups(&d, &got) {
            panic!("{}: {e}", d.label());
        }
        assert_ne!(got, plain, "{}: the scramble changed nothing", d.label());
    }
    // The 4-byte array's sort (`Ranking::Atomic`: the first pass atomic, the second in class
    // rounds from 4,096 tiles; `xcr0` here at any size), scrambled the same way.
    for (n, target) in [(300_007u64, 0u32), (100_003, 2)] {
        let mut d = PermDesc { group_target: target, ..PermDesc::new(n, 4, 5) };
        d.policy = vkprims::prims::binning::BinningPolicy::parse("autoxautoxcr0xskip64").unwrap();
        if let Some(e) = perm::check_groups(&d, &gpu_order(&d)) {
            panic!("{}: {e}", d.label());
        }
    }
    // The check passes the model's order and fails two elements of different groups swapped.
    let d = idx(100_003, 3, 0);
    let mut model: Vec<u32> = perm::reference_order(&d).into_iter().map(|i| i as u32).collect();
    assert_eq!(perm::check_groups(&d, &model), None);
    model.swap(0, 100_002);
    assert!(perm::check_groups(&d, &model).is_some_and(|e| e.contains("group")));
    let mut d = idx(1_000_003, 42, 512);
    d.debug_wide_ids = true;
    check(&d);
    common::assert_no_validation_messages(&ctx);
}

/// Pearson's statistic of element positions against uniform, and its 1 - 1e-4 quantile
/// (Wilson-Hilferty) for (n - 1)^2 degrees of freedom.
fn chi_square(counts: &[Vec<u32>], samples: u64) -> (f64, f64) {
    let n = counts.len();
    let expect = samples as f64 / n as f64;
    let stat: f64 = counts.iter().flat_map(|r| r.iter()).map(|&c| (c as f64 - expect).powi(2) / expect).sum();
    let df = ((n - 1) * (n - 1)) as f64;
    let z = 3.719; // the 1 - 1e-4 normal quantile
    (stat, df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3))
}

#[test]
fn one_group_shuffle_is_uniform() {
    // One group of 8: the group shuffle's random keys (labels, then the ranks within a
    // label's run) alone, over 8,000 fixed seeds (the CPU model, which the GPU equals).
    let (n, seeds) = (8usize, 8_000u64);
    let mut counts = vec![vec![0u32; n]; n];
    for seed in 0..seeds {
        for (pos, &e) in perm::reference_order(&repro(n as u64, 4, seed.wrapping_mul(0x2545_F491_4F6C_DD1D))).iter().enumerate() {
            counts[e][pos] += 1;
        }
    }
    let (stat, bound) = chi_square(&counts, seeds);
    assert!(stat < bound, "chi-square {stat:.1} >= {bound:.1}: {counts:?}");
}

#[test]
fn default_mode_is_uniform_on_the_gpu() {
    // The default mode on the device, 6 elements in groups of about 2, 1,200 fixed seeds.
    let ctx = common::ctx();
    let (n, seeds) = (6usize, 1_200u64);
    let mut counts = vec![vec![0u32; n]; n];
    for seed in 0..seeds {
        let mut d = PermDesc::new(n as u64, 4, seed * 0x9E37_79B9_7F4A_7C15);
        d.group_target = 2;
        for (pos, &e) in gpu_order(&d).iter().enumerate() {
            counts[e as usize][pos] += 1;
        }
    }
    let (stat, bound) = chi_square(&counts, seeds);
    assert!(stat < bound, "chi-square {stat:.1} >= {bound:.1}: {counts:?}");
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn reference_is_uniform() {
    // Position of each of 6 elements over 12,000 fixed seeds, 3 groups of about 2: the
    // grouping, the stable gather and the shuffles all take part. Pearson's statistic over
    // the 36 cells has (6 - 1)^2 = 25 degrees of freedom; the bound is its 1 - 1e-4 quantile
    // (Wilson-Hilferty), and the seed list is fixed, so the test is not flaky.
    let (n, seeds) = (6usize, 12_000u64);
    let mut counts = vec![[0u32; 6]; n];
    for seed in 0..seeds {
        let mut d = repro(n as u64, 4, seed * 0x9E37_79B9_7F4A_7C15);
        d.group_target = 2;
        for (pos, &e) in perm::reference_order(&d).iter().enumerate() {
            counts[e][pos] += 1;
        }
    }
    let expect = seeds as f64 / n as f64;
    let stat: f64 = counts.iter().flat_map(|r| r.iter()).map(|&c| (c as f64 - expect).powi(2) / expect).sum();
    let df = 25.0f64;
    let z = 3.719; // the 1 - 1e-4 normal quantile
    let bound = df * (1.0 - 2.0 / (9.0 * df) + z * (2.0 / (9.0 * df)).sqrt()).powi(3);
    assert!(stat < bound, "chi-square {stat:.1} >= {bound:.1}: positions are not uniform: {counts:?}");
    // And it is not trivially uniform: a broken model (identity) fails the same test.
    let identity_stat: f64 = (0..n).map(|e| (0..n).map(|p| if e == p { (seeds as f64 - expect).powi(2) / expect } else { expect }).sum::<f64>()).sum();
    assert!(identity_stat > bound);
}

#[test]
fn bad_requests() {
    let ctx = common::ctx();
    assert!(PermPlan::new(&ctx, PermDesc::new(10, 2, 0)).err().unwrap().to_string().contains("4 or 8 bytes"));
    let mut d = PermDesc::new(10, 4, 0);
    d.group_capacity = 1 << 20;
    assert!(PermPlan::new(&ctx, d).err().unwrap().to_string().contains("shared memory"));
    let mut d = PermDesc::new(10, 4, 0);
    d.group_target = 1;
    assert!(PermPlan::new(&ctx, d).err().unwrap().to_string().contains("at least 2"));
    let plan = PermPlan::new(&ctx, PermDesc::new(10, 4, 0)).unwrap();
    assert!(plan.run(&ctx, Some(&[1, 2, 3])).unwrap_err().to_string().contains("3 value words"));
    assert!(plan.run(&ctx, None).unwrap_err().to_string().contains("no input"));
    let plan = PermPlan::new(&ctx, PermDesc::indices(10, 0)).unwrap();
    assert!(plan.run(&ctx, Some(&[0; 10])).unwrap_err().to_string().contains("takes no input"));
    let d = PermDesc { value_bytes: 8, ..PermDesc::indices(10, 0) };
    assert!(PermPlan::new(&ctx, d).err().unwrap().to_string().contains("indices are u32"));
    // Past the look-back counts' reach, in the permutation's own words (not its sort's), for
    // indices and arrays alike.
    for d in [PermDesc::indices(1 << 30, 0), PermDesc::new(1 << 30, 8, 0), PermDesc::indices(1 << 33, 0)] {
        let e = PermPlan::new(&ctx, d).err().unwrap().to_string();
        assert!(e.starts_with("perm ") && e.contains("30-bit look-back counts"), "{e}");
    }
}

#[test]
fn overlapping_ranges_are_refused() {
    // Out of place, every written range its own: refused before anything is recorded.
    use vkprims::gpu::{Buffer, MemoryLocation, Recorder};
    use vkprims::prims::perm::PermScratch;
    use vkprims::prims::sort::SortScratch;
    let ctx = common::ctx();
    let plan = PermPlan::new(&ctx, PermDesc::new(100_000, 4, 7)).unwrap();
    let buf = |bytes: u64| Buffer::new(&ctx, bytes.max(4), MemoryLocation::GpuOnly, "range").unwrap();
    let (ib, sb, ka, va, h, st) = plan.scratch_bytes();
    let (input, out) = (buf(plan.values_bytes()), buf(plan.values_bytes()));
    let s: Vec<Buffer> = [ib, sb, ka, va, h, st].into_iter().map(buf).collect();
    let scratch = |ids: &Buffer| PermScratch {
        ids: ids.slice(),
        ids_sorted: s[1].slice(),
        sort: SortScratch { keys_alt: s[2].slice(), values_alt: s[3].slice(), hist: s[4].slice(), state: s[5].slice() },
    };
    let mut rec = Recorder::new(&ctx, "refused").unwrap();
    let e = plan.record(&mut rec, Some(input.slice()), input.slice(), &scratch(&s[0])).expect_err("in place").to_string();
    assert!(e.contains("values_out and values_in overlap"), "{e}");
    let e = plan.record(&mut rec, Some(input.slice()), out.slice(), &scratch(&s[1])).expect_err("ids twice").to_string();
    assert!(e.contains("ids and ids_sorted overlap"), "{e}");
    drop(rec);
    common::assert_no_validation_messages(&ctx);
}
