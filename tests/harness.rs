//! The perf-lab harness: sweeps in both measurement modes, adaptive stopping, the results
//! file against its schema, compare and plot, and the command line's errors.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use vkprims::prims::binning::{BinningPolicy, Ranking};
use vkprims::bench::{self, BenchOptions, Mode, Stop, Sweep, What};
use vkprims::prims::scan::{ScanKind, ScanOp};
use vkprims::prims::DType;

fn vkprims(args: &[&str]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vkprims"));
    c.args(args);
    if let Ok(d) = std::env::var("VKPRIMS_TEST_DEVICE") {
        if matches!(args.first(), Some(&"bench")) {
            c.args(["--device", &d]);
        }
    }
    c.output().expect("run vkprims")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vkprims-harness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn sweep(mode: Mode, stop: Stop) -> Sweep {
    let ctx = common::ctx();
    let mut opts = BenchOptions::for_device(&ctx);
    opts.mode = mode;
    opts.stop = stop;
    opts.batch_size = 4;
    Sweep {
        what: What::All,
        sizes: vec![3000, 1 << 14],
        dtypes: vec![DType::U32, DType::F32],
        ops: vec![ScanOp::Add],
        kinds: vec![ScanKind::Exclusive, ScanKind::Reduce],
        policies: vec![None],
        keys: vec![],
        values: vec![],
        descending: vec![],
        buckets: vec![],
        binning_policies: vec![],
        rankings: vec![],
        opts,
    }
}

#[test]
fn sweeps_in_both_modes() {
    let ctx = common::ctx();
    for mode in [Mode::PerTrial, Mode::Batch] {
        let s = sweep(mode, Stop::Trials(6));
        let res = bench::run_sweep(&ctx, &s, &[], |_| {}).unwrap();
        assert_eq!(res.rows.len(), s.len());
        for r in &res.rows {
            assert!(r.valid(), "{}: {}", r.key(), r.validation);
            assert_eq!(r.stats.samples_ns.len(), 6);
            assert_eq!(r.stop_reason, "trials");
            assert_eq!(r.mode, mode);
            assert!(r.stats.median_ns > 0.0 && r.fraction_of_copy.unwrap() > 0.0);
            if let Some((want, got)) = r.invocations {
                assert_eq!(want, got, "{}: invocations", r.key());
            }
        }
        // Copy rows first at each size, then the primitives, in the order of the axes.
        let names: Vec<&str> = res.rows.iter().take(6).map(|r| r.primitive.as_str()).collect();
        assert_eq!(names, ["copy (vkCmdCopyBuffer)", "copy (shader)", "exclusive add u32", "reduce add u32", "exclusive add f32", "reduce add f32"]);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn adaptive_stopping_reports_its_criterion() {
    let ctx = common::ctx();
    let s = sweep(Mode::PerTrial, Stop::Adaptive { min_samples: 5, max_noise: 0.5, timeout_s: 5.0, max_samples: 40 });
    let res = bench::run_sweep(&ctx, &s, &[], |_| {}).unwrap();
    for r in &res.rows {
        assert!(["noise", "timeout", "max-samples"].contains(&r.stop_reason.as_str()), "{}", r.stop_reason);
        assert!(r.stats.samples_ns.len() >= 5);
        if r.stop_reason == "noise" {
            assert!(r.stats.rel_spread <= 0.5);
        }
    }
    // A noise target nothing meets ends at max-samples.
    let s = sweep(Mode::PerTrial, Stop::Adaptive { min_samples: 5, max_noise: 1e-12, timeout_s: 60.0, max_samples: 12 });
    let res = bench::run_sweep(&ctx, &s, &[], |_| {}).unwrap();
    for r in &res.rows {
        let hit_noise = r.stop_reason == "noise" && r.stats.rel_spread <= 1e-12;
        assert!(hit_noise || (r.stop_reason == "max-samples" && r.stats.samples_ns.len() >= 12), "{}: {}", r.key(), r.stop_reason);
    }
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn results_file_schema_compare_and_plot() {
    let (json, csv) = (tmp("a.json"), tmp("a.csv"));
    let o = vkprims(&[
        "bench", "all", "--n", "2^12:2^14:2", "--kind", "exclusive,reduce", "--key", "u32", "--values", "4", "--buckets", "16",
        "--trials", "8",
        "--json", json.to_str().unwrap(),
        "--csv", csv.to_str().unwrap(), "--validate",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/bench/schema/results-v1.json")).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path)).collect();
    assert!(errors.is_empty(), "results file does not match its schema:\n{}", errors.join("\n"));
    // Per size: two copies, two scans, one sort, one multisplit, one permutation.
    assert_eq!(doc["rows"].as_array().unwrap().len(), 2 * 7);
    assert!(doc["git_commit"].as_str().unwrap().len() >= 7 || doc["git_commit"] == "unknown");
    let csv_text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(csv_text.lines().count(), 1 + 14);
    assert!(csv_text.starts_with("primitive,policy,n,mode"));

    // The same file compared with itself: "Same" everywhere, exit 0.
    let o = vkprims(&["compare", json.to_str().unwrap(), json.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}");
    assert_eq!(out.matches("| Same |").count(), 14, "{out}");
    // A doctored copy where every row takes twice its slowest sample, every time: "Slower"
    // (beyond the threshold, quartile intervals apart), exit 1.
    let mut slow = doc.clone();
    for r in slow["rows"].as_array_mut().unwrap() {
        let st = &mut r["stats"];
        let t = 2.0 * st["max_ns"].as_f64().unwrap();
        for k in ["median_ns", "min_ns", "max_ns", "q1_ns", "q3_ns"] {
            st[k] = serde_json::json!(t);
        }
    }
    let slow_path = tmp("slow.json");
    std::fs::write(&slow_path, serde_json::to_string(&slow).unwrap()).unwrap();
    let o = vkprims(&["compare", json.to_str().unwrap(), slow_path.to_str().unwrap(), "--threshold", "10%"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("| Slower |"));
    // And the other way round it is faster, exit 0.
    let o = vkprims(&["compare", slow_path.to_str().unwrap(), json.to_str().unwrap()]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).contains("| Faster |"));

    // Plot: a well-formed SVG holding every series.
    let svg = tmp("a.svg");
    let o = vkprims(&["plot", json.to_str().unwrap(), slow_path.to_str().unwrap(), "--out", svg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    let xml = roxmltree::Document::parse(&text).expect("well-formed SVG");
    assert_eq!(xml.root_element().tag_name().name(), "svg");
    let labels: Vec<&str> = xml.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(str::trim).collect();
    for want in ["a: copy (shader)", "a: exclusive add u32", "slow: reduce add u32"] {
        assert!(labels.contains(&want), "no series '{want}' in {labels:?}");
    }

    // Tile timelines (`xtimeline`, recorded on NVIDIA only): a copy with a made-up timeline in
    // one row (20 words a tile: SM, nine device-clock and nine SM-clock words, a spare; keys
    // alone, so no value points) plots the tiles in each phase over time, one SVG a row.
    let mut timed = doc.clone();
    let words: Vec<u32> = (0..8u32)
        .flat_map(|t| {
            let at = |k: u32| 1000 + 500 * (t / 2) + 40 * k;
            let mut w = vec![t % 4];
            w.extend((0..9).map(|k| if k == 6 || k == 7 { 0 } else { at(k) }));
            w.extend((0..9).map(|k| if k == 6 || k == 7 { 0 } else { 3 * at(k) }));
            w.push(0);
            w
        })
        .collect();
    timed["rows"][2]["timeline"] = serde_json::json!(words);
    let timed_path = tmp("timed.json");
    std::fs::write(&timed_path, serde_json::to_string(&timed).unwrap()).unwrap();
    let out = tmp("tl.svg");
    let o = vkprims(&["plot", "--timeline", timed_path.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let first = out.with_file_name("tl-1.svg");
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), first.display().to_string());
    let text = std::fs::read_to_string(&first).unwrap();
    let xml = roxmltree::Document::parse(&text).expect("well-formed SVG");
    let labels: Vec<&str> = xml.descendants().filter(|n| n.has_tag_name("text")).filter_map(|n| n.text()).map(str::trim).collect();
    for want in ["start -> loaded", "staged -> looked back", "looked back -> end"] {
        assert!(labels.contains(&want), "no phase '{want}' in {labels:?}");
    }
    let o = vkprims(&["plot", "--timeline", json.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no row of the files has tile timelines"));
}

#[test]
fn bad_axes_and_files_get_clear_errors() {
    let one_line = |o: &Output, needle: &str| {
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains(needle), "'{needle}' not in {e}");
    };
    one_line(&vkprims(&["bench", "scan", "--n", "2^x"]), "bad size '2^x'");
    one_line(&vkprims(&["bench", "scan", "--n", "2^20:2^10:2"]), "bad range");
    one_line(&vkprims(&["bench", "scan", "--dtype", "u64"]), "unsupported dtype 'u64'");
    one_line(&vkprims(&["bench", "scan", "--op", "mul"]), "unknown scan operator 'mul'");
    one_line(&vkprims(&["bench", "scan", "--mode", "batch", "--cold"]), "--cold needs per-trial mode");
    one_line(&vkprims(&["bench", "scan", "--trials", "5", "--max-noise", "2%"]), "exclusive");
    one_line(&vkprims(&["bench", "scan", "--max-noise", "lots"]), "bad fraction 'lots'");
    one_line(&vkprims(&["bench", "scan", "--policy", "256"]), "bad policy '256'");
    one_line(&vkprims(&["compare", "/nonexistent/a.json", "/nonexistent/b.json"]), "/nonexistent/a.json");
    let junk = tmp("junk.json");
    std::fs::write(&junk, "{\"rows\": 3}").unwrap();
    one_line(&vkprims(&["plot", junk.to_str().unwrap(), "--out", tmp("x.svg").to_str().unwrap()]), "not a vkprims results file");
    let o = vkprims(&["bench", "transpose"]);
    assert_eq!(o.status.code(), Some(2));
    one_line(&vkprims(&["bench", "multisplit", "--buckets", "1"]), "--buckets 1");
    one_line(&vkprims(&["bench", "multisplit", "--buckets", "131072"]), "--buckets 131072");
    one_line(&vkprims(&["bench", "sort", "--key", "u16"]), "unsupported key type 'u16'");
    one_line(&vkprims(&["bench", "sort", "--values", "2"]), "--values 2");
}

#[test]
fn sort_rows_validate_and_no_reset_fails() {
    let ctx = common::ctx();
    let mut s = sweep(Mode::PerTrial, Stop::Trials(4));
    s.what = What::Sort;
    s.sizes = vec![5000];
    s.keys = vec![vkprims::prims::sort::KeyType::I32, vkprims::prims::sort::KeyType::F64];
    s.values = vec![0, 4];
    s.descending = vec![false, true];
    let res = bench::run_sweep(&ctx, &s, &[], |_| {}).unwrap();
    assert_eq!(res.rows.len(), s.len());
    assert!(res.rows.iter().all(|r| r.valid()), "{:?}", res.rows.iter().map(|r| &r.validation).collect::<Vec<_>>());
    // 4 passes of i32 keys: 4 (histogram) + 4 x 2 x 4 bytes; pairs add 4 x 2 x 4.
    let i32_keys = res.rows.iter().find(|r| r.primitive == "sort i32").unwrap();
    assert_eq!(i32_keys.bytes_per_elem, 36.0);
    let i32_pairs = res.rows.iter().find(|r| r.primitive == "sort i32 pairs 4B").unwrap();
    assert_eq!(i32_pairs.bytes_per_elem, 68.0);
    // Multisplit rows: bit-field and bucket-id sources, keys and pairs.
    let mut m = s.clone();
    m.what = What::Multisplit;
    m.buckets = vec![2, 5, 256, 4096];
    let res = bench::run_sweep(&ctx, &m, &[], |_| {}).unwrap();
    assert_eq!(res.rows.len(), m.len());
    assert!(res.rows.iter().all(|r| r.valid()), "{:?}", res.rows.iter().map(|r| &r.validation).collect::<Vec<_>>());
    // Permutation rows, 4- and 8-byte elements.
    let mut p = s.clone();
    p.what = What::Perm;
    p.values = vec![0, 4, 8];
    let res = bench::run_sweep(&ctx, &p, &[], |_| {}).unwrap();
    assert_eq!(res.rows.len(), p.len());
    assert!(res.rows.iter().all(|r| r.valid()), "{:?}", res.rows.iter().map(|r| &r.validation).collect::<Vec<_>>());
    // Both rankings and a second binning policy, with the kernel profile: unstable sorts,
    // atomic splits and the default permutation, each validated; every kernel timed.
    let mut r = s.clone();
    r.keys.truncate(1);
    r.descending.truncate(1);
    r.buckets = vec![16, 4096];
    r.rankings = vec![Ranking::Stable, Ranking::Atomic];
    r.binning_policies = vec![None, Some(BinningPolicy::parse("64x4xballotsxskip32").unwrap())];
    r.opts.profile = true;
    r.what = What::All;
    r.kinds = vec![];
    let res = bench::run_sweep(&ctx, &r, &[], |_| {}).unwrap();
    assert_eq!(res.rows.len(), r.len());
    assert!(res.rows.iter().all(|r| r.valid()), "{:?}", res.rows.iter().map(|r| (&r.primitive, &r.validation)).collect::<Vec<_>>());
    assert!(res.rows.iter().any(|r| r.primitive.ends_with("unstable")) && res.rows.iter().any(|r| r.primitive.ends_with("atomic")));
    let sort = res.rows.iter().find(|r| r.primitive.starts_with("sort")).unwrap();
    assert!(sort.kernels.iter().filter(|k| k.0.starts_with("sort_onesweep")).count() == 4, "{:?}", sort.kernels);
    assert!(sort.kernels.iter().all(|k| k.1 > 0.0));
    // Rows that leave their values unwritten (skip bit 9: the value round's stores) fail, though
    // the valid row before each left the right values in the same output buffer: every output
    // is poisoned before the validation trial.
    let mut v = s.clone();
    v.keys = vec![vkprims::prims::sort::KeyType::U32];
    v.values = vec![4];
    v.descending = vec![false];
    v.buckets = vec![256];
    v.binning_policies = vec![None, Some(BinningPolicy::parse("autoxautoxskip512").unwrap())];
    for what in [What::Sort, What::Multisplit] {
        v.what = what;
        let res = bench::run_sweep(&ctx, &v, &[], |_| {}).unwrap();
        let got: Vec<_> = res.rows.iter().filter(|r| r.primitive.contains("pairs")).map(|r| (r.valid(), &r.validation)).collect();
        assert!(got.len() == 2 && got[0].0 && got[1].1.starts_with("FAILED"), "{what:?}: {got:?}");
    }
    // Without resets the stale tickets leave the poisoned output in place.
    s.opts.reset = false;
    s.keys.truncate(1);
    s.values.truncate(1);
    s.descending.truncate(1);
    let res = bench::run_sweep(&ctx, &s, &[], |_| {}).unwrap();
    let sort_row = res.rows.iter().find(|r| r.primitive.starts_with("sort")).unwrap();
    assert!(sort_row.validation.starts_with("FAILED"), "{}", sort_row.validation);
    common::assert_no_validation_messages(&ctx);
}

#[test]
fn phase_clocks() {
    // Where the device has VK_KHR_shader_clock, `xclocks` times the binning pass's phases
    // (lavapipe has it); elsewhere it is refused with a clear error.
    let ctx = common::ctx();
    let mut s = sweep(Mode::PerTrial, Stop::Trials(2));
    s.what = What::Sort;
    s.sizes = vec![20_000];
    s.keys = vec![vkprims::prims::sort::KeyType::U32];
    s.values = vec![4];
    s.descending = vec![false];
    s.binning_policies = vec![Some(BinningPolicy::parse("64x8xclocks").unwrap())];
    let res = bench::run_sweep(&ctx, &s, &[], |_| {});
    if !ctx.capabilities().shader_clock {
        assert!(res.unwrap_err().to_string().contains("VK_KHR_shader_clock"));
        return;
    }
    let res = res.unwrap();
    let sort = res.rows.iter().find(|r| r.primitive.starts_with("sort")).unwrap();
    assert!(sort.valid(), "{}", sort.validation);
    assert_eq!(sort.phases.len(), vkprims::prims::binning::PHASES.len());
    assert!(sort.phases.iter().map(|p| p.1).sum::<f64>() > 0.0, "{:?}", sort.phases);
    // 40 tiles of 512 keys: every tile but the first walks back, each round that advances
    // takes at least one earlier tile's word (only a tile that falls back on tile 0 may finish
    // without such a round, so the bound leaves room for fallbacks).
    let lb: Vec<f64> = sort.lookback.iter().map(|c| c.1).collect();
    assert_eq!(sort.lookback.len(), vkprims::prims::binning::LOOKBACK_COUNTS.len());
    assert!(lb[0] > 0.5 && lb[2] >= lb[0] && lb[3] > 0.0, "{:?}", sort.lookback);
    let report = bench::report::kernels(&res.rows);
    assert!(report.contains("cycles/tile") && report.contains("rounds not ready"), "{report}");
    assert!(BinningPolicy::parse("64x8xclocks").unwrap().phase_clocks);
    assert!(BinningPolicy::parse("64x8xclock").is_err());
    common::assert_no_validation_messages(&ctx);
}
