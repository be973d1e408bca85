//! The load-pattern lab on the test device (lavapipe at widths 4, 8, 16 under scripts/test):
//! every case runs and verifies against the CPU model with a small dispatch, under the
//! validation layer; the names, descriptions, skips, the verification's teeth, and the CLI's
//! output and error paths.

mod common;

use std::process::{Command, Output};

use vkprims::loads::{self, Case, Kind, LabOptions, LoadRow};

/// One workgroup, one trial, verified: the cheapest run that still checks every invocation.
fn small() -> LabOptions {
    let mut o = LabOptions::for_device(&common::ctx());
    o.threads = 256;
    o.trials = 1;
    o.warmup = 0;
    o.warmup_ms = 0.0;
    o.case_warmup_ms = 0.0;
    o.doubling = false;
    o.verify = true;
    o
}

fn run(cases: &[Case], opts: &LabOptions) -> Vec<LoadRow> {
    let ctx = common::ctx();
    let res = loads::run_lab(&ctx, cases, opts, &[], |_| {}).expect("the lab runs");
    common::assert_no_validation_messages(&ctx);
    res.rows
}

fn on_lavapipe() -> bool {
    common::ctx().info().name.contains("llvmpipe")
}

fn perftest_names() -> Vec<String> {
    // Spelled out from perftest's README, independently of the catalogue's code.
    let buffer = ["R8", "RG8", "RGBA8", "R16f", "RG16f", "RGBA16f", "R32f", "RG32f", "RGBA32f"];
    let texture = ["R8", "RG8", "RGBA8", "R16F", "RG16F", "RGBA16F", "R32F", "RG32F", "RGBA32F"];
    let mut stems: Vec<String> = buffer.iter().map(|f| format!("Buffer<{f}>.Load")).collect();
    stems.extend(["Load", "Load2", "Load3", "Load4", "Load2 unaligned", "Load4 unaligned"].map(|l| format!("ByteAddressBuffer.{l}")));
    stems.extend(["float", "float2", "float4"].map(|t| format!("StructuredBuffer<{t}>.Load")));
    stems.push("cbuffer{float4} load".into());
    for op in ["Load", "Sample(nearest)", "Sample(bilinear)"] {
        stems.extend(texture.iter().map(|f| format!("Texture2D<{f}>.{op}")));
    }
    stems.iter().flat_map(|s| ["uniform", "linear", "random"].map(|p| format!("{s} {p}"))).collect()
}

#[test]
fn catalogue_holds_all_138_perftest_names() {
    let names: Vec<String> = loads::catalogue().iter().map(|c| c.name.clone()).collect();
    let want = perftest_names();
    assert_eq!(want.len(), 138);
    for n in &want {
        assert!(names.contains(n), "missing perftest case '{n}'");
    }
    let originals: Vec<&Case> = loads::catalogue().iter().filter(|c| c.is_original()).cloned().collect::<Vec<_>>().leak().iter().collect();
    assert_eq!(originals.len(), 138);
    assert!(originals.iter().all(|c| want.contains(&c.name)));
    for exact in ["ByteAddressBuffer.Load4 unaligned random", "Texture2D<RGBA8>.Sample(bilinear) linear", "cbuffer{float4} load uniform"] {
        assert!(names.iter().any(|n| n == exact));
    }
}

#[test]
fn every_load_case_runs_and_verifies() {
    let cases: Vec<Case> = loads::catalogue().into_iter().filter(|c| matches!(c.kind, Kind::Load { .. })).collect();
    assert!(cases.len() >= 138 + 60 + 60, "{} load cases", cases.len());
    let rows = run(&cases, &small());
    assert_eq!(rows.len(), cases.len());
    for r in &rows {
        if r.status == "skipped" {
            assert!(!on_lavapipe(), "{} skipped on lavapipe: {:?}", r.case, r.reason);
            assert!(r.reason.as_deref().is_some_and(|s| !s.is_empty()));
            continue;
        }
        assert_eq!((r.status.as_str(), r.verified), ("ok", Some(true)), "{}: {:?}", r.case, r.flags);
        assert!(r.median_ms.unwrap() > 0.0 && r.loads_per_s.unwrap() > 0.0 && r.ratio.is_some(), "{}", r.case);
    }
}

#[test]
fn sweep_and_chase_verify_and_skip_beyond_the_buffer_limit() {
    let cases = loads::select(Some("^(sweep vec4|chase) (16KiB|128KiB|1MiB|1GiB)$")).unwrap();
    assert_eq!(cases.len(), 8);
    let mut o = small();
    o.threads = 1024;
    o.chase_hops = 512;
    let rows = run(&cases, &o);
    for r in &rows {
        let huge = r.case.ends_with("1GiB");
        if huge && common::ctx().max_storage_buffer_range() < 1 << 30 {
            assert_eq!(r.status, "skipped", "{}", r.case);
            assert!(r.reason.as_ref().unwrap().contains("maxStorageBufferRange"), "{:?}", r.reason);
        } else if !huge {
            assert_eq!((r.status.as_str(), r.verified), ("ok", Some(true)), "{}: {:?}", r.case, r.flags);
            assert!(r.case.starts_with("chase") || r.bytes_per_s.is_some());
        }
        if r.case.starts_with("chase") && r.status == "ok" {
            assert!(r.latency_ns.is_some() && r.doubling_ratio.is_some());
            // Cycles per hop wherever the device has the subgroup clock (lavapipe does).
            if common::ctx().capabilities().shader_clock {
                let c = r.latency_cycles.expect("cycles from the shader clock");
                assert!(c > 0.0, "{}: {c} cycles per hop", r.case);
                assert!(r.flags.iter().any(|f| f.contains("cycles/load")), "{:?}", r.flags);
            } else {
                assert!(r.latency_cycles.is_none());
            }
        } else {
            assert!(r.latency_cycles.is_none());
        }
    }
}

#[test]
fn a_wrong_address_mask_fails_verification() {
    // The hook flips the low bit of the GPU's address mask (and drops one hop of the chase):
    // the loads then read other elements than the model, and every kind must notice.
    let cases = loads::select(Some(
        "^(Buffer<RGBA8>.Load random|ByteAddressBuffer.Load4 unaligned linear|StructuredBuffer<float2>.Load uniform|\
         cbuffer\\{float4\\} load random|Texture2D<R16F>.Sample\\(bilinear\\) linear|RWTexture2D<RG32F>.Load random|\
         PushConstants\\{float4\\} load linear|BufferDeviceAddress<float4>.Load align4 random|\
         Texture2D<RGBA8>.Load uniform \\(subgroup broadcast\\)|sweep vec4 64KiB|chase 16KiB)$",
    ))
    .unwrap();
    assert_eq!(cases.len(), 11);
    let mut o = small();
    o.debug_skew = true;
    o.chase_hops = 256;
    for r in run(&cases, &o) {
        assert_eq!(r.status, "FAILED", "{}: {:?}", r.case, r.flags);
        assert_eq!(r.verified, Some(false));
        assert!(r.flags.iter().any(|f| f.contains("FAILED") && f.contains("model")), "{:?}", r.flags);
    }
}

#[test]
fn hidden_formats_and_features_are_skipped_with_reasons() {
    let cases = loads::select(Some("^(Buffer<R16f>|Texture2D<R16F>.Sample\\(bilinear\\)|BufferDeviceAddress|Buffer<RGBA8>|RWTexture2D<RG8>)")).unwrap();
    let mut o = small();
    o.hide = vec!["R16_SFLOAT".into(), "bufferDeviceAddress".into(), "shuffle".into(), "storageImageExtendedFormats".into()];
    for r in run(&cases, &o) {
        let expect_skip = r.case.contains("R16") || r.case.contains("DeviceAddress") || r.case.contains("broadcast") || r.case.contains("RG8>");
        if expect_skip {
            assert_eq!(r.status, "skipped", "{}", r.case);
            let reason = r.reason.unwrap();
            assert!(reason.contains("hidden by --hide"), "{reason}");
            if r.case.contains("R16") && !r.case.contains("broadcast") {
                assert!(reason.contains("R16_SFLOAT"), "{reason}");
            }
        } else {
            assert_eq!((r.status.as_str(), r.verified), ("ok", Some(true)), "{}", r.case);
        }
    }
}

#[test]
fn the_doubling_check_reports_its_ratio_and_flags_it_out_of_bounds() {
    // No timing is asserted (tests run on a shared CPU device; speeds are benchmarks' business):
    // the check must report a positive time ratio, and bounds that ratio cannot meet must raise
    // the matching flag, on either side.
    let cases = loads::select(Some("^Texture2D<RGBA32F>.Sample\\(bilinear\\) random$")).unwrap();
    for (bounds, flag) in [((f64::MAX, f64::MAX), "loads optimised away?"), ((0.0, 0.0), "superlinear")] {
        let mut o = small();
        o.trials = 2;
        o.doubling = true;
        o.doubling_bounds = bounds;
        let r = &run(&cases, &o)[0];
        let ratio = r.doubling_ratio.expect("the doubling check ran");
        assert!(ratio.is_finite() && ratio > 0.0, "2x loads took {ratio}x time");
        assert_eq!(r.flags.iter().filter(|f| f.starts_with("2x loads took") && f.ends_with(flag)).count(), 1, "{:?}", r.flags);
    }
}

#[test]
fn describe_select_and_option_errors() {
    let d = loads::describe("ByteAddressBuffer.Load4 unaligned random").unwrap();
    assert!(d.contains("storage buffer uint[], 4 x 32-bit loads at +4 B") && d.contains("hash(i) & 15"), "{d}");
    assert!(loads::describe("chase 1MiB").unwrap().contains("2H hops"));
    assert!(loads::describe("Buffer<RGBA9>.Load random").unwrap_err().to_string().contains("no case named"));
    assert!(loads::select(Some("(")).unwrap_err().to_string().contains("bad --filter"));
    assert!(loads::select(Some("^nothing$")).unwrap_err().to_string().contains("matches no case"));
    assert_eq!(loads::select(Some("^Buffer<R8>")).unwrap().len(), 4); // three patterns and the broadcast

    let ctx = common::ctx();
    let bad = |f: &dyn Fn(&mut LabOptions)| {
        let mut o = small();
        f(&mut o);
        o.check(&ctx).unwrap_err().to_string()
    };
    assert!(bad(&|o| o.subgroup_size = Some(3)).contains("subgroup size 3"));
    assert!(bad(&|o| o.threads = 100).contains("--threads 100"));
    assert!(bad(&|o| o.loads = 200).contains("--loads 200"));
    assert!(bad(&|o| o.trials = 0).contains("at least 1"));
}

#[test]
fn broadcast_at_every_pinnable_subgroup_size() {
    let ctx = common::ctx();
    let sg = ctx.info().subgroup.clone();
    if !sg.size_control {
        return;
    }
    let cases = loads::select(Some("^(ByteAddressBuffer.Load3|Texture2D<RG16F>.Sample\\(nearest\\)) uniform")).unwrap();
    let mut s = sg.min_size;
    while s <= sg.max_size {
        let mut o = small();
        o.subgroup_size = Some(s);
        if o.check(&ctx).is_ok() {
            for r in run(&cases, &o) {
                assert_eq!((r.status.as_str(), r.verified), ("ok", Some(true)), "{} at {s}: {:?}", r.case, r.flags);
            }
        }
        s *= 2;
    }
}

// The command line.

fn vkprims(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vkprims"));
    c.arg("loads").args(args).env("VKPRIMS_VALIDATE", "1");
    if let Ok(d) = std::env::var("VKPRIMS_TEST_DEVICE") {
        c.args(["--device", &d]);
    }
    c.output().expect("vkprims runs")
}

/// Exit 2 with one line on stderr that mentions `needle`.
fn fails_with(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(needle), "'{needle}' not in: {err}");
}

#[test]
fn cli_list_and_describe() {
    let out = vkprims(&["--list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let names: Vec<&str> = text.lines().map(|l| l.split('\t').next().unwrap()).collect();
    for n in perftest_names() {
        assert!(names.contains(&n.as_str()), "--list lacks '{n}'");
    }
    assert!(text.contains("Texture2D<RGBA32F>.Sample(bilinear) random\timage+sampler R32G32B32A32_SFLOAT 32x32, linear filter"));
    let out = vkprims(&["--describe", "cbuffer{float4} load linear"]);
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("uniform buffer vec4[1024]"));
    fails_with(&vkprims(&["--describe", "cbuffer load"]), "no case named 'cbuffer load'");
}

#[test]
fn cli_errors() {
    fails_with(&vkprims(&["--filter", "Buffer<("]), "bad --filter");
    fails_with(&vkprims(&["--filter", "^Buffer<RGBA64>"]), "matches no case");
    fails_with(&vkprims(&["--filter", "^Buffer<RGBA8>", "--subgroup-size", "3"]), "subgroup size 3");
    fails_with(&vkprims(&["--filter", "^Buffer<RGBA8>", "--threads", "1000"]), "--threads 1000");
}

#[test]
fn cli_run_writes_table_json_and_csv() {
    let dir = std::env::temp_dir().join(format!("vkprims-loads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (json, csv) = (dir.join("loads.json"), dir.join("loads.csv"));
    let out = vkprims(&[
        "--filter", "^(Buffer<RGBA8>|Texture2D<R8>)\\.Load ", "--verify", "--threads", "256", "--trials", "1",
        "--hide", "R8_UNORM", "--json", json.to_str().unwrap(), "--csv", csv.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("| case | Vulkan resource | ms | vs Buffer<RGBA8>.Load random | loads/s | bytes/s | notes |"), "{stdout}");
    assert!(stdout.contains("| Buffer<RGBA8>.Load random | uniform texel buffer R8G8B8A8_UNORM, texelFetch |"), "{stdout}");
    assert!(stdout.contains("| 1.000x |"), "{stdout}");
    assert!(stdout.contains("skipped: R8_UNORM sampled image (hidden by --hide)"), "{stdout}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["schema"], "vkprims.loads/1");
    assert!(doc["git_commit"].as_str().is_some_and(|c| !c.is_empty()));
    assert!(doc["device"]["name"].as_str().is_some());
    let rows = doc["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8); // three patterns and the broadcast of each
    assert_eq!(rows.iter().filter(|r| r["verified"] == true).count(), 4);
    assert_eq!(rows.iter().filter(|r| r["status"] == "skipped").count(), 4);
    let csv = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv.lines().count(), 9);
    assert!(csv.starts_with("case,resource,group,status,"));
    assert!(csv.lines().next().unwrap().contains(",latency_ns,latency_cycles,verified,"));
}
