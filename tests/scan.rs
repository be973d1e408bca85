//! Scan and reduce against the CPU reference: every dtype, operator and kind, at awkward
//! sizes, on random and adversarial inputs, with the decoupled fallback forced, under the
//! validation layer with synchronisation validation. Integers and f32 min/max compare bit
//! for bit; f32 add within `scan::f32_add_tolerance` of the f64-accumulated sum.

mod common;

use vkprims::prims::scan::{self, ScanDesc, ScanKind, ScanOp, ScanPlan, ScanPolicy};
use vkprims::prims::DType;
use vkprims::testdata::{generate, Pattern};
use vkprims::Error;

fn combos() -> Vec<(DType, ScanOp, ScanKind)> {
    let mut v = Vec::new();
    for d in DType::ALL {
        for o in ScanOp::ALL {
            for k in ScanKind::ALL {
                v.push((d, o, k));
            }
        }
    }
    v
}

fn check(desc: &ScanDesc, pattern: Pattern, seed: u64) {
    let ctx = common::ctx();
    let input = generate(pattern, desc.dtype, desc.n as usize, seed);
    let got = scan::run_words(&ctx, desc, &input).unwrap_or_else(|e| panic!("{}: {e}", desc.label()));
    if let Some(err) = scan::check(desc, &input, &got) {
        panic!("{} ({}, fallback period {}): {err}", desc.label(), pattern.name(), desc.force_fallback_period);
    }
}

/// The sizes around the tile of the policy a scan of about `n` elements uses.
fn awkward_sizes(kind: ScanKind) -> Vec<u64> {
    let tile = if kind == ScanKind::Reduce { ScanPolicy::default().tile_elems() } else { ScanPolicy::for_n(1 << 20).tile_elems() };
    vec![0, 1, 3, 4, 5, 1000, tile - 1, tile, tile + 1, 2 * tile + 3, 37 * tile + 5, 100_003]
}

#[test]
fn every_combination_at_awkward_sizes() {
    let ctx = common::ctx();
    for (d, o, k) in combos() {
        for n in awkward_sizes(k) {
            check(&ScanDesc::new(d, o, k, n), Pattern::Random, n ^ 0xA11);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn adversarial_inputs() {
    let ctx = common::ctx();
    for (d, o, k) in combos() {
        for p in Pattern::ALL {
            for n in [4099u64, 70_001] {
                check(&ScanDesc::new(d, o, k, n), p, n);
            }
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn f32_add_keeps_the_sign_of_zero() {
    // A zero sum is -0.0 exactly when every term is -0.0: all -0.0, and all -0.0 but one +0.0
    // (every prefix from it on is +0.0), across tiles and subgroups; reduce of nothing is the
    // identity, -0.0.
    let ctx = common::ctx();
    let nz = (-0.0f32).to_bits();
    for kind in [ScanKind::Reduce, ScanKind::Inclusive, ScanKind::Exclusive] {
        for (n, plus_at) in [(1u64, None), (2, None), (4099, None), (70_001, None), (70_001, Some(40_000usize)), (4099, Some(0))] {
            let mut input = vec![nz; n as usize];
            if let Some(i) = plus_at {
                input[i] = 0;
            }
            let desc = ScanDesc::new(DType::F32, ScanOp::Add, kind, n);
            let got = scan::run_words(&ctx, &desc, &input).unwrap();
            assert_eq!(got, scan::reference(DType::F32, ScanOp::Add, kind, &input), "{} {plus_at:?}", desc.label());
        }
    }
    let empty = scan::run_words(&ctx, &ScanDesc::new(DType::F32, ScanOp::Add, ScanKind::Reduce, 0), &[]).unwrap();
    assert_eq!(empty, vec![nz]);
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn forced_fallback() {
    let ctx = common::ctx();
    for (d, o, k) in combos() {
        if k == ScanKind::Reduce {
            continue; // the reduce kernel never waits on another workgroup
        }
        for period in [2u32, 3, 7] {
            let mut desc = ScanDesc::new(d, o, k, 23 * ScanPolicy::for_n(0).tile_elems() + 11);
            desc.force_fallback_period = period;
            check(&desc, if period == 3 { Pattern::Specials } else { Pattern::Random }, period as u64);
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn a_few_million_elements() {
    let ctx = common::ctx();
    let n = 3_000_017;
    for (d, o, k, p) in [
        (DType::U32, ScanOp::Add, ScanKind::Exclusive, Pattern::Random),
        (DType::I32, ScanOp::Max, ScanKind::Inclusive, Pattern::Random),
        (DType::F32, ScanOp::Add, ScanKind::Inclusive, Pattern::Random),
        (DType::F32, ScanOp::Min, ScanKind::Exclusive, Pattern::Specials),
        (DType::U32, ScanOp::Min, ScanKind::Reduce, Pattern::Descending),
        (DType::F32, ScanOp::Add, ScanKind::Reduce, Pattern::Random),
    ] {
        check(&ScanDesc::new(d, o, k, n), p, 7);
    }
    // Large tiles (the policy for n >= 2^25) at a size lavapipe handles quickly.
    let mut desc = ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, n);
    desc.policy = ScanPolicy::for_n(1 << 25);
    check(&desc, Pattern::Random, 8);
    desc.force_fallback_period = 5;
    check(&desc, Pattern::Random, 9);
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn other_policies_and_pinned_subgroup_size() {
    let ctx = common::ctx();
    let sg = ctx.info().subgroup.default_size;
    for (wg, vec) in [(64u32, 1u32), (128, 2), (512, 3), (1024, 1)] {
        if wg % ctx.info().subgroup.max_size != 0 {
            continue;
        }
        for (d, o, k) in [(DType::U32, ScanOp::Add, ScanKind::Exclusive), (DType::F32, ScanOp::Max, ScanKind::Inclusive), (DType::I32, ScanOp::Add, ScanKind::Reduce)] {
            let mut desc = ScanDesc::new(d, o, k, 50_001);
            desc.policy = ScanPolicy { workgroup_size: wg, vec_per_lane: vec, spin_limit: 1, reduce_groups: 7 };
            desc.force_fallback_period = 4;
            check(&desc, Pattern::Random, wg as u64);
        }
    }
    if ctx.capabilities().subgroup_size_control {
        for k in ScanKind::ALL {
            let mut desc = ScanDesc::new(DType::I32, ScanOp::Min, k, 20_000);
            desc.pin_subgroup_size(&ctx, Some(sg));
            check(&desc, Pattern::Random, 1);
        }
        // An explicit workgroup too large for the pinned size is refused, not shrunk.
        let mut desc = ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, 100);
        desc.subgroup_size = Some(sg);
        desc.policy.workgroup_size = 1024;
        if sg * ctx.info().subgroup.max_workgroup_subgroups < 1024 {
            let e = ScanPlan::new(&ctx, desc).err().expect("refused");
            assert!(e.to_string().contains("maxComputeWorkgroupSubgroups"), "{e}");
        }
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn bad_requests_fail_before_any_gpu_work() {
    let ctx = common::ctx();
    let limit = ctx.max_storage_buffer_range() / 4;
    let err = |desc: ScanDesc| match ScanPlan::new(&ctx, desc) {
        Err(e) => e,
        Ok(_) => panic!("expected an error"),
    };
    let e = err(ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, limit + 1));
    assert!(matches!(e, Error::Invalid(_)) && e.to_string().contains("exceeds this device's limit"), "{e}");
    let mut d = ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, 10);
    d.force_fallback_period = 1;
    assert!(err(d).to_string().contains("force_fallback_period"));
    let mut d = ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, 10);
    d.subgroup_size = Some(256);
    assert!(matches!(err(d), Error::Unsupported { .. }));
    let mut d = ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, 10);
    d.policy.workgroup_size = 0;
    assert!(err(d).to_string().contains("positive"));
    let e = scan::run_words(&ctx, &ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, 10), &[1, 2, 3]).unwrap_err();
    assert!(e.to_string().contains("input holds 3 elements"), "{e}");
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn typed_api_and_reference_semantics() {
    let ctx = common::ctx();
    let v = vec![3u32, 1, 4, 1, 5];
    assert_eq!(scan::run(&ctx, ScanOp::Add, ScanKind::Exclusive, &v).unwrap(), vec![0, 3, 4, 8, 9]);
    assert_eq!(scan::run(&ctx, ScanOp::Max, ScanKind::Inclusive, &v).unwrap(), vec![3, 3, 4, 4, 5]);
    assert_eq!(scan::run(&ctx, ScanOp::Add, ScanKind::Reduce, &[u32::MAX, 2]).unwrap(), vec![1]); // wraps
    let f = [1.0f32, f32::NAN, -0.0, 0.0, -f32::NAN];
    // totalOrder: -NaN < ... < -0.0 < +0.0 < ... < +NaN
    let max = scan::run(&ctx, ScanOp::Max, ScanKind::Reduce, &f).unwrap()[0];
    assert!(max.is_nan() && max.is_sign_positive());
    let min = scan::run(&ctx, ScanOp::Min, ScanKind::Reduce, &f).unwrap()[0];
    assert!(min.is_nan() && min.is_sign_negative());
    let min = scan::run(&ctx, ScanOp::Min, ScanKind::Reduce, &[0.0f32, -0.0]).unwrap()[0];
    assert_eq!(min.to_bits(), (-0.0f32).to_bits());
    let empty: Vec<i32> = Vec::new();
    assert_eq!(scan::run(&ctx, ScanOp::Min, ScanKind::Reduce, &empty).unwrap(), vec![i32::MAX]);
    assert!(scan::run(&ctx, ScanOp::Add, ScanKind::Inclusive, &empty).unwrap().is_empty());
    common::assert_no_validation_messages(&ctx);
}

/// One Context shared by several threads, each recording and submitting its own work. Without
/// the validation layer: Debian 12's layer itself is not safe under this load (scripts/test).
#[test]
fn concurrent_use_from_threads() {
    let opts = vkprims::ContextOptions {
        device: std::env::var("VKPRIMS_TEST_DEVICE").ok(),
        validate: false,
        timeout: std::time::Duration::from_secs(120),
    };
    let ctx = vkprims::Context::new(&opts).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let ctx = &ctx;
            s.spawn(move || {
                for i in 0..12u64 {
                    let (d, o, k) = combos()[((t * 12 + i) * 7 % 27) as usize];
                    let desc = ScanDesc::new(d, o, k, 5_000 + 997 * i);
                    let input = generate(Pattern::Random, d, desc.n as usize, t * 100 + i);
                    let got = scan::run_words(ctx, &desc, &input).unwrap();
                    assert_eq!(scan::check(&desc, &input, &got), None, "thread {t}: {}", desc.label());
                }
            });
        }
    });
}

/// A submission that outlives the context's timeout is an error naming the work, not a hang,
/// and the context stays usable (the recorder waits out a grace period before freeing).
#[test]
fn fence_wait_timeout_is_an_error() {
    let opts = vkprims::ContextOptions {
        device: std::env::var("VKPRIMS_TEST_DEVICE").ok(),
        validate: true,
        timeout: std::time::Duration::from_nanos(1),
    };
    let ctx = vkprims::Context::new(&opts).unwrap();
    let desc = ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Exclusive, 3_000_000);
    let input = generate(Pattern::Random, DType::U32, desc.n as usize, 1);
    match scan::run_words(&ctx, &desc, &input) {
        Err(e @ Error::Timeout { .. }) => {
            let m = e.to_string();
            assert!(m.starts_with("GPU timed out after") && (m.contains("scan") || m.contains("upload")), "{m}");
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn overlapping_ranges_are_refused() {
    // Not in place: a tile's decoupled fallback reads its predecessor's input, which the
    // predecessor may be overwriting. Refused before anything is recorded.
    use vkprims::gpu::{Buffer, MemoryLocation, Recorder};
    let ctx = common::ctx();
    let plan = ScanPlan::new(&ctx, ScanDesc::new(DType::U32, ScanOp::Add, ScanKind::Inclusive, 10_000)).unwrap();
    let data = Buffer::new(&ctx, plan.output_bytes(), MemoryLocation::GpuOnly, "data").unwrap();
    let state = Buffer::new(&ctx, plan.state_bytes() + 64, MemoryLocation::GpuOnly, "state").unwrap();
    let out = Buffer::new(&ctx, plan.output_bytes(), MemoryLocation::GpuOnly, "out").unwrap();
    let mut rec = Recorder::new(&ctx, "refused").unwrap();
    for (input, output, st, want) in [
        (data.slice(), data.slice(), state.slice(), "input and output overlap"),
        (data.slice(), out.slice(), out.slice(), "output and state overlap"),
        (data.slice(), out.slice(), data.slice(), "input and state overlap"),
    ] {
        let e = plan.record(&mut rec, input, output, st).expect_err(want).to_string();
        assert!(e.contains(want), "{e}");
    }
    // A state range too small is an error too, not a panic in the reset.
    let e = plan.record(&mut rec, data.slice(), out.slice(), state.slice().sub(0, 4)).expect_err("small state").to_string();
    assert!(e.contains("state holds 4 bytes"), "{e}");
    drop(rec);
    common::assert_no_validation_messages(&ctx);
}
