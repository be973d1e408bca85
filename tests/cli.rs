//! The command line: results through .npy files, and every error path: one line on stderr,
//! exit status 2, no output file left behind.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use vkprims::prims::scan::{self, ScanKind, ScanOp};
use vkprims::npy::{Elem, NpyType};
use vkprims::prims::sort::{self, KeyType, SortDesc};
use vkprims::prims::DType;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vkprims"));
    if let Ok(d) = std::env::var("VKPRIMS_TEST_DEVICE") {
        c.env("VKPRIMS_TEST_DEVICE", d);
    }
    c.env("VKPRIMS_VALIDATE", "1");
    c
}

fn run(args: &[&str]) -> Output {
    let mut c = bin();
    c.args(args);
    if let Ok(d) = std::env::var("VKPRIMS_TEST_DEVICE") {
        if args.first().is_some_and(|a| *a != "devices") {
            c.args(["--device", &d]);
        }
    }
    c.output().expect("run vkprims")
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vkprims-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    let _ = std::fs::remove_file(&p);
    p
}

/// A .npy file with any header, and any amount of data after it (`descr` a type string, or a
/// record's list).
fn npy_bytes(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    let descr = if descr.starts_with('[') { descr.to_string() } else { format!("'{descr}'") };
    let mut header = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend_from_slice(&(header.len() as u16).to_le_bytes());
    v.extend_from_slice(header.as_bytes());
    v.extend_from_slice(data);
    v
}

fn write_words(path: &Path, descr: &str, words: &[u32]) {
    write_elems(path, descr, if descr.ends_with('8') { 2 } else { 1 }, words);
}

/// `words` as elements of `per` words each under `descr`.
fn write_elems(path: &Path, descr: &str, per: usize, words: &[u32]) {
    std::fs::write(path, npy_bytes(descr, &format!("({},)", words.len() / per), bytemuck::cast_slice(words))).unwrap();
}

fn read_words(path: &Path) -> (Elem, Vec<u32>) {
    vkprims::npy::read_words(path).unwrap()
}

/// Exit status 2, one line naming `needle`, and no output file.
fn assert_error(out: &Output, needle: &str, output_file: Option<&Path>) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one line expected: {stderr}");
    assert!(lines[0].contains(needle), "'{needle}' not in: {stderr}");
    if let Some(p) = output_file {
        assert!(!p.exists(), "{} left behind", p.display());
        assert!(!vkprims::npy::partial_path(p).exists(), "{} left behind", vkprims::npy::partial_path(p).display());
    }
}

#[test]
fn outputs_are_claimed_before_gpu_work() {
    // Every output path is checked before any GPU work, and a failure leaves none of them.
    let (kp, vp) = (tmp("claim-k.npy"), tmp("claim-v.npy"));
    write_words(&kp, "<u4", &[5, 3, 9, 1]);
    write_words(&vp, "<u4", &[0, 1, 2, 3]);
    let (k, v) = (kp.to_str().unwrap(), vp.to_str().unwrap());
    let ko = tmp("claim-k-out.npy");
    let nowhere = std::env::temp_dir().join("vkprims-no-such-dir").join("x.npy");
    let o = run(&["sort", "--in", k, "--out", ko.to_str().unwrap(), "--values", v, "--values-out", nowhere.to_str().unwrap()]);
    assert_error(&o, "--values-out", Some(&ko));
    let o = run(&["sort", "--in", k, "--out", ko.to_str().unwrap(), "--values", v, "--values-out", ko.to_str().unwrap()]);
    assert_error(&o, "the same file as --out's", Some(&ko));
    let dir = std::env::temp_dir();
    assert_error(&run(&["sort", "--in", k, "--out", dir.to_str().unwrap()]), "is a directory", None);
    let o = run(&["multisplit", "--in", k, "--bits", "0:2", "--out", ko.to_str().unwrap(), "--offsets-out", nowhere.to_str().unwrap()]);
    assert_error(&o, "--offsets-out", Some(&ko));
    // --buckets beside a source that implies the count: refused unless it is that count.
    let o = run(&["multisplit", "--in", k, "--bits", "0:2", "--buckets", "3", "--out", ko.to_str().unwrap()]);
    assert_error(&o, "--buckets 3 contradicts --bits 0:2, which make 4 buckets", Some(&ko));
    let o = run(&["multisplit", "--in", k, "--splitters", v, "--buckets", "4", "--out", ko.to_str().unwrap()]);
    assert_error(&o, "--buckets 4 contradicts 4 splitters, which make 5 buckets", Some(&ko));
    let o = run(&["multisplit", "--in", k, "--bits", "0:2", "--buckets", "4", "--out", ko.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!vkprims::npy::partial_path(&ko).exists());
    std::fs::remove_file(&ko).unwrap();
    assert_error(&run(&["perm", "--n", "10", "--out", nowhere.to_str().unwrap()]), "--out", None);
    assert_error(&run(&["scan", "--in", k, "--out", nowhere.to_str().unwrap()]), "--out", None);
    // In place: an output may be its own input (read before anything is written).
    let o = run(&["sort", "--in", k, "--out", k, "--values", v, "--values-out", v]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(read_words(&kp).1, [1, 3, 5, 9]);
    assert_eq!(read_words(&vp).1, [3, 1, 0, 2]);
}

#[test]
fn scan_kinds_ops_and_dtypes_through_npy() {
    for (descr, dtype) in [("<u4", DType::U32), ("<i4", DType::I32), ("<f4", DType::F32)] {
        let input: Vec<u32> = vkprims::testdata::generate(vkprims::testdata::Pattern::Random, dtype, 10_007, 3);
        let inp = tmp(&format!("in-{}.npy", dtype));
        write_words(&inp, descr, &input);
        for (kind, op) in [("exclusive", "add"), ("inclusive", "max"), ("reduce", "min"), ("reduce", "add")] {
            let outp = tmp(&format!("out-{dtype}-{kind}-{op}.npy"));
            let o = run(&["scan", "--in", inp.to_str().unwrap(), "--out", outp.to_str().unwrap(), "--kind", kind, "--op", op]);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let (dt, got) = read_words(&outp);
            assert_eq!(dt, NpyType::from_scan_dtype(dtype).into());
            let mut desc = scan::ScanDesc::new(dtype, ScanOp::parse(op).unwrap(), ScanKind::parse(kind).unwrap(), input.len() as u64);
            desc.subgroup_size = None;
            assert_eq!(scan::check(&desc, &input, &got), None, "{dtype} {kind} {op}");
            if kind == "reduce" {
                assert_eq!(got.len(), 1);
            }
        }
    }
}

#[test]
fn input_errors() {
    let outp = tmp("never.npy");
    let out = outp.to_str().unwrap();

    let p = tmp("f64.npy");
    std::fs::write(&p, npy_bytes("<f8", "(2,)", &[0u8; 16])).unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "unsupported dtype '<f8' for scan", Some(&outp));
    let p = tmp("u16.npy");
    std::fs::write(&p, npy_bytes("<u2", "(2,)", &[0u8; 4])).unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "unsupported dtype '<u2'", Some(&outp));

    let p = tmp("garbage.npy");
    std::fs::write(&p, b"this is not numpy").unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "not a valid .npy file", Some(&outp));

    // A header shorter than its length field says: npyz's parse error, in one line.
    let p = tmp("short-header.npy");
    let mut bytes = npy_bytes("<u4", "(4,)", &[0u8; 16]);
    bytes[8] = 20;
    std::fs::write(&p, bytes).unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "not a valid .npy file", Some(&outp));

    let p = tmp("truncated.npy");
    std::fs::write(&p, npy_bytes("<u4", "(100,)", &[1u8; 40])).unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "truncated", Some(&outp));

    let p = tmp("2d.npy");
    std::fs::write(&p, npy_bytes("<u4", "(2, 2)", &[0u8; 16])).unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "expected a 1-D array", Some(&outp));

    let p = tmp("missing.npy");
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "missing.npy", Some(&outp));

    // n beyond the device's limit: refused from the header, before the data is read.
    let limit = common::ctx().max_storage_buffer_range() / 4;
    let p = tmp("huge.npy");
    std::fs::write(&p, npy_bytes("<u4", &format!("({},)", limit + 1), &[0u8; 64])).unwrap();
    assert_error(&run(&["scan", "--in", p.to_str().unwrap(), "--out", out]), "exceeds this device's limit", Some(&outp));

    let p = tmp("ok.npy");
    write_words(&p, "<u4", &[1, 2, 3]);
    assert_error(
        &run(&["scan", "--in", p.to_str().unwrap(), "--out", out, "--subgroup-size", "3"]),
        "subgroup size 3",
        Some(&outp),
    );
    let o = bin().args(["scan", "--in", p.to_str().unwrap(), "--out", out, "--device", "no-such-gpu"]).output().unwrap();
    assert_error(&o, "no device name contains", Some(&outp));
    let o = run(&["scan", "--in", p.to_str().unwrap(), "--out", out, "--kind", "sideways"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!outp.exists());
}

#[test]
fn devices_and_info() {
    let o = run(&["devices", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(!v.as_array().unwrap().is_empty());
    let o = run(&["info", "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for key in ["name", "driver_version", "api_version", "subgroup", "timestamp_period_ns", "max_storage_buffer_range", "memory_heaps"] {
        assert!(v.get(key).is_some(), "info --json lacks {key}");
    }
    let o = run(&["info"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("subgroup size: default"));
}

#[test]
fn benchmark_validates_and_no_reset_shows_stale_state() {
    let j = tmp("bench.json");
    let o = run(&["bench", "scan", "--n", "5000,2^14", "--kind", "exclusive,inclusive,reduce", "--trials", "25", "--json", j.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout.contains("| exclusive add u32") && stdout.contains("copy (shader)"), "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&j).unwrap()).unwrap();
    // Per size: the two copy references, then the three kinds.
    assert_eq!(v["rows"].as_array().unwrap().len(), 2 * (2 + 3));
    assert!(v["rows"].as_array().unwrap().iter().all(|r| r["validation"] == "ok" && r["stats"]["samples_ns"].as_array().unwrap().len() == 25));
    assert!(v["device"]["name"].is_string());
    // Without resets the stale tile ticket makes every trial after the first exit at once:
    // the last trial writes nothing over the poisoned output, and validation says so.
    let o = run(&["bench", "scan", "--n", "2^14", "--kind", "exclusive", "--trials", "3", "--no-reset"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stdout).contains("FAILED"));
    let o = run(&["bench", "scan", "--n", "2^x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("bad size '2^x'"));
}

#[test]
fn selftest_passes_and_names_the_lavapipe_wide_subgroup_bug() {
    let o = run(&["selftest", "--max-n", "70000"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("probe: ballot(true) bit count") && stdout.contains(" 0 failed"));
    // Mesa 22.3's lavapipe reports 32 lanes at LP_NATIVE_VECTOR_WIDTH=1024 but its subgroup
    // operations act on 16: the probe must say so rather than let the scan fail.
    if common::ctx().info().driver_name == "llvmpipe" {
        let o = bin().env("LP_NATIVE_VECTOR_WIDTH", "1024").args(["selftest", "--max-n", "1000"]).output().unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{stdout}");
        assert!(stdout.contains("act on 16: a driver bug"), "{stdout}");
        assert!(stdout.contains("skipped: the subgroup probe failed"), "{stdout}");
    }
}

#[test]
fn selftest_soak_checks_random_cases_and_replays_one() {
    // A short soak after the fixed checks: its seed printed, each case named by seed and index.
    let o = run(&["selftest", "--max-n", "20000", "--soak", "5", "--soak-seed", "5"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("soak: seed 5, 5 s") && stdout.contains("soak 5/0: ") && stdout.contains(" 0 failed"), "{stdout}");
    // The fixed checks leave over a hundred pipelines cached that no plan holds: the soak
    // releases them after its first case (memory stays bounded however long it runs), and the
    // cases after that still pass (checked above, validation on).
    let released = stdout
        .lines()
        .find_map(|l| l.strip_prefix("soak: ").and_then(|l| l.split(", ").find_map(|p| p.strip_suffix(" cached pipelines released"))))
        .and_then(|n| n.parse::<usize>().ok());
    assert!(released.is_some_and(|n| n > 0), "{stdout}");
    // A replay: that case alone, no fixed check; the same case as in the soak.
    let o = run(&["selftest", "--max-n", "20000", "--soak-seed", "5", "--soak-case", "0"]);
    let replay = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{replay}");
    let line = |s: &str| s.lines().find(|l| l.contains("soak 5/0")).map(str::to_owned);
    assert_eq!(line(&replay), line(&stdout));
    assert!(replay.lines().filter(|l| l.starts_with("ok ") && !l.contains("probe:") && !l.contains("validation layer")).count() <= 1, "{replay}");
    // A case without its seed, or negative seconds: usage errors.
    for args in [&["selftest", "--soak-case", "3"][..], &["selftest", "--soak=-1"]] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn sort_keys_and_pairs_through_npy() {
    // u64 keys with f32 values, descending, a bit range.
    let n = 9_001usize;
    let keys = vkprims::testdata::sort_keys(vkprims::testdata::KeyPattern::FewDistinct, KeyType::U64, n, 4);
    let vals: Vec<u32> = (0..n as u32).map(|i| (i as f32).to_bits()).collect();
    let (kp, vp) = (tmp("k64.npy"), tmp("v32.npy"));
    write_words(&kp, "<u8", &keys);
    write_words(&vp, "<f4", &vals);
    let (ko, vo) = (tmp("k64-sorted.npy"), tmp("v32-sorted.npy"));
    let o = run(&[
        "sort", "--in", kp.to_str().unwrap(), "--out", ko.to_str().unwrap(), "--values", vp.to_str().unwrap(), "--values-out",
        vo.to_str().unwrap(), "--descending", "--bits", "8:56",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ((kt, k), (vt, v)) = (read_words(&ko), read_words(&vo));
    assert_eq!((kt, vt), (NpyType::U64.into(), NpyType::F32.into()));
    let mut desc = SortDesc::new(KeyType::U64, n as u64);
    desc.value_bytes = 4;
    desc.descending = true;
    desc.bits = (8, 56);
    assert_eq!(sort::check(&desc, &keys, Some(&vals), &k, Some(&v)), None);

    // Values of another 8-byte dtype (complex64), moved as raw bytes under their own header;
    // as keys it is refused.
    let (cp, co) = (tmp("c64.npy"), tmp("c64-sorted.npy"));
    let cvals: Vec<u32> = (0..2 * n as u32).map(|i| i ^ 0x5555_0000).collect();
    write_elems(&cp, "<c8", 2, &cvals);
    let o = run(&[
        "sort", "--in", kp.to_str().unwrap(), "--out", ko.to_str().unwrap(), "--values", cp.to_str().unwrap(), "--values-out",
        co.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ((_, k), (ct, c)) = (read_words(&ko), read_words(&co));
    assert_eq!(ct, read_words(&cp).0);
    let mut desc = SortDesc::new(KeyType::U64, n as u64);
    desc.value_bytes = 8;
    assert_eq!(sort::check(&desc, &keys, Some(&cvals), &k, Some(&c)), None);
    let out = tmp("never-sorted.npy");
    let o = run(&["sort", "--in", cp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_error(&o, "unsupported dtype '<c8' for sort keys", Some(&out));
    let o = run(&["sort", "--in", kp.to_str().unwrap(), "--out", out.to_str().unwrap(), "--values", vp.to_str().unwrap()]);
    assert_error(&o, "--values and --values-out go together", Some(&out));
    let short = tmp("short.npy");
    write_words(&short, "<u4", &[1, 2, 3]);
    let o = run(&[
        "sort", "--in", kp.to_str().unwrap(), "--out", out.to_str().unwrap(), "--values", short.to_str().unwrap(), "--values-out",
        tmp("vo2.npy").to_str().unwrap(),
    ]);
    assert_error(&o, "3 values for 9001 keys", Some(&out));
    let o = run(&["sort", "--in", kp.to_str().unwrap(), "--out", out.to_str().unwrap(), "--bits", "60:70"]);
    assert_error(&o, "bit range 60:70", Some(&out));
    let o = run(&["sort", "--in", kp.to_str().unwrap(), "--out", out.to_str().unwrap(), "--bits", "x"]);
    assert_error(&o, "bad bit range 'x'", Some(&out));
}

#[test]
fn multisplit_through_npy() {
    use vkprims::prims::multisplit::{self, BucketSource, MultisplitDesc};
    let n = 7_001usize;
    let keys = vkprims::testdata::sort_keys(vkprims::testdata::KeyPattern::Random, KeyType::F32, n, 2);
    let ids: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % 37).collect();
    let vals: Vec<u32> = (0..n as u32).collect();
    let (kp, ip, vp) = (tmp("ms-k.npy"), tmp("ms-ids.npy"), tmp("ms-v.npy"));
    write_words(&kp, "<f4", &keys);
    write_words(&ip, "<u4", &ids);
    write_words(&vp, "<u4", &vals);
    let (ko, vo, oo) = (tmp("ms-k-out.npy"), tmp("ms-v-out.npy"), tmp("ms-off.npy"));
    let o = run(&[
        "multisplit", "--in", kp.to_str().unwrap(), "--bucket-ids", ip.to_str().unwrap(), "--buckets", "37", "--out",
        ko.to_str().unwrap(), "--values", vp.to_str().unwrap(), "--values-out", vo.to_str().unwrap(), "--offsets-out",
        oo.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut d = MultisplitDesc::new(KeyType::F32, n as u64, BucketSource::Ids { buckets: 37 });
    d.value_bytes = 4;
    let (k, v, off) = (read_words(&ko).1, read_words(&vo).1, read_words(&oo).1);
    assert_eq!(off.len(), 38);
    assert_eq!(multisplit::check(&d, &keys, Some(&vals), Some(&ids), (&k, Some(&v), &off)), None);

    // Splitters from the keys, sorted by totalOrder; and a bit field.
    let mut s: Vec<u32> = keys[..15].to_vec();
    s.sort_by_key(|&w| vkprims::prims::scan::f32_order_key(w));
    let sp = tmp("ms-split.npy");
    write_words(&sp, "<f4", &s);
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--splitters", sp.to_str().unwrap(), "--out", ko.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = MultisplitDesc::new(KeyType::F32, n as u64, BucketSource::Splitters { count: 15 });
    let (order, offsets) = multisplit::reference(&d, &keys, Some(&s));
    assert_eq!(read_words(&ko).1, vkprims::prims::sort::gather(&keys, 1, &order));
    assert_eq!(offsets.len(), 17);
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--bits", "28:32", "--out", ko.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The atomic ranking: order within a bucket unspecified, offsets exact.
    let o = run(&[
        "multisplit", "--in", kp.to_str().unwrap(), "--bucket-ids", ip.to_str().unwrap(), "--buckets", "37", "--out",
        ko.to_str().unwrap(), "--values", vp.to_str().unwrap(), "--values-out", vo.to_str().unwrap(), "--offsets-out",
        oo.to_str().unwrap(), "--ranking", "atomic",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut d = MultisplitDesc::new(KeyType::F32, n as u64, BucketSource::Ids { buckets: 37 });
    d.value_bytes = 4;
    d.ranking = vkprims::prims::binning::Ranking::Atomic;
    let (k, v, off) = (read_words(&ko).1, read_words(&vo).1, read_words(&oo).1);
    assert_eq!(multisplit::check(&d, &keys, Some(&vals), Some(&ids), (&k, Some(&v), &off)), None);
    // Big-endian values are moved as raw bytes, under their own header.
    let bv = tmp("ms-v-be.npy");
    write_words(&bv, ">i4", &vals);
    let o = run(&[
        "multisplit", "--in", kp.to_str().unwrap(), "--bucket-ids", ip.to_str().unwrap(), "--buckets", "37", "--out",
        ko.to_str().unwrap(), "--values", bv.to_str().unwrap(), "--values-out", vo.to_str().unwrap(), "--offsets-out",
        oo.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    d.ranking = vkprims::prims::binning::Ranking::Stable;
    let ((_, k), (vt, v), (_, off)) = (read_words(&ko), read_words(&vo), read_words(&oo));
    assert_eq!(vt, read_words(&bv).0);
    assert_eq!(multisplit::check(&d, &keys, Some(&vals), Some(&ids), (&k, Some(&v), &off)), None);

    // Errors: one line, exit 2, no output.
    let out = tmp("ms-never.npy");
    let bad_ids: Vec<u32> = (0..n as u32).map(|i| if i == 500 { 37 } else { 0 }).collect();
    let bp = tmp("ms-bad-ids.npy");
    write_words(&bp, "<u4", &bad_ids);
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--bucket-ids", bp.to_str().unwrap(), "--buckets", "37", "--out", out.to_str().unwrap()]);
    assert_error(&o, "bucket id 37 at element 500 is not below 37", Some(&out));
    let mut unsorted = s.clone();
    unsorted.swap(0, 14);
    let up = tmp("ms-unsorted.npy");
    write_words(&up, "<f4", &unsorted);
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--splitters", up.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_error(&o, "splitters are not sorted", Some(&out));
    let short = tmp("ms-short.npy");
    write_words(&short, "<u4", &[1, 2]);
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--bucket-ids", short.to_str().unwrap(), "--buckets", "4", "--out", out.to_str().unwrap()]);
    assert_error(&o, "2 bucket ids for 7001 keys", Some(&out));
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_error(&o, "give one bucket source", Some(&out));
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--splitters", short.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_error(&o, "splitters must have the keys' dtype '<f4'", Some(&out));
    let be = tmp("ms-be.npy");
    write_words(&be, ">u4", &vals);
    let o = run(&["multisplit", "--in", be.to_str().unwrap(), "--bits", "0:4", "--out", out.to_str().unwrap()]);
    assert_error(&o, "unsupported dtype '>u4' for multisplit keys", Some(&out));
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--bits", "0:17", "--out", out.to_str().unwrap()]);
    assert_error(&o, "131072 buckets", Some(&out));
    // More than 256 buckets from a bit field compose passes.
    let o = run(&["multisplit", "--in", kp.to_str().unwrap(), "--bits", "20:32", "--out", ko.to_str().unwrap(), "--offsets-out", oo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let d = MultisplitDesc::new(KeyType::F32, n as u64, BucketSource::Bits { lo: 20, hi: 32 });
    assert_eq!(multisplit::check(&d, &keys, None, None, (&read_words(&ko).1, None, &read_words(&oo).1)), None);
}

#[test]
fn perm_through_npy() {
    use vkprims::prims::perm::{self, PermDesc};
    let out = tmp("perm.npy");
    let o = run(&["perm", "--n", "1000", "--seed", "5", "--out", out.to_str().unwrap(), "--reproducible"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (t, p) = read_words(&out);
    assert_eq!(t, NpyType::U32.into());
    assert_eq!(p, perm::reference(1000, 5));
    // Shuffle an f64 array: the same permutation applied to 8-byte elements.
    let x: Vec<u32> = (0..777u32).flat_map(|i| { let f = (i as f64 * 0.5).to_bits(); [f as u32, (f >> 32) as u32] }).collect();
    let xp = tmp("perm-in.npy");
    write_words(&xp, "<f8", &x);
    let o = run(&["perm", "--in", xp.to_str().unwrap(), "--seed", "9", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let order = perm::reference_order(&PermDesc::new(777, 8, 9));
    assert_eq!(read_words(&out), (NpyType::F64.into(), vkprims::prims::sort::gather(&x, 2, &order)));
    // Any other 4- or 8-byte dtype is moved as raw bytes under its own header: a record with
    // a big-endian field, and datetime64.
    for (descr, per) in [("[('a', '<u2'), ('b', '>i2')]", 1usize), ("<M8[ns]", 2)] {
        let n = 1_234usize;
        let x: Vec<u32> = (0..(n * per) as u32).map(|i| i.wrapping_mul(0x9E37_79B9)).collect();
        write_elems(&xp, descr, per, &x);
        let o = run(&["perm", "--in", xp.to_str().unwrap(), "--seed", "3", "--out", out.to_str().unwrap(), "--reproducible"]);
        assert!(o.status.success(), "{descr}: {}", String::from_utf8_lossy(&o.stderr));
        let order = perm::reference_order(&PermDesc::new(n as u64, 4 * per as u32, 3));
        let (t, got) = read_words(&out);
        assert!(matches!(&t, Elem::Raw { bytes, .. } if *bytes == 4 * per), "{descr}: {t:?}");
        assert_eq!(t, read_words(&xp).0, "{descr}: the output's header names the input's dtype");
        assert_eq!(got, vkprims::prims::sort::gather(&x, per, &order), "{descr}");
    }
    let x2 = tmp("perm-u2.npy");
    std::fs::write(&x2, npy_bytes("<u2", "(4,)", &[0u8; 8])).unwrap();
    let no_out = tmp("perm-u2-never.npy");
    let o = run(&["perm", "--in", x2.to_str().unwrap(), "--out", no_out.to_str().unwrap()]);
    assert_error(&o, "unsupported dtype '<u2'", Some(&no_out));
    let never = tmp("perm-never.npy");
    let o = run(&["perm", "--n", "2^x", "--out", never.to_str().unwrap()]);
    assert_error(&o, "bad size '2^x'", Some(&never));
    let o = run(&["perm", "--out", never.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!never.exists());
}

#[test]
fn pipelines_lists_every_digit_pass() {
    // `pipelines` names each digit-pass pipeline of a large sort, the 256-way multisplit's pass
    // (both rankings) and the permutation of indices' passes (with --stats, their compiler
    // statistics, where the device reports them).
    let out = run(&["pipelines"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "sort u32 values 0B first pass",
        "sort u32 values 0B class-step pass",
        "sort u32 values 0B middle pass",
        "sort u64 values 8B middle pass",
        "multisplit_k32_v1 (multisplit u32 values 4B 256 buckets, tile",
        "multisplit_k64_v2 (multisplit u64 values 8B 256 buckets, tile",
        "perm indices first pass",
        "perm indices last pass",
    ] {
        assert!(text.contains(want), "no '{want}' in:\n{text}");
    }
    assert!(!text.contains("sort u32 values 4B first pass"), "pairs keep every pass stable:\n{text}");
    // Each multisplit pass once per ranking (the label names the atomic one).
    let ms = text.lines().filter(|l| l.starts_with("multisplit_k32_v1 (multisplit u32 values 4B 256 buckets")).collect::<Vec<_>>();
    assert_eq!(ms.len(), 2, "{ms:?}");
    assert_eq!(ms.iter().filter(|l| l.contains(", atomic")).count(), 1, "{ms:?}");
}

#[test]
fn pipelines_skip_what_a_policy_cannot_make() {
    // A policy asked for that only some kernels have (the phase clocks: sorts alone) lists
    // the sorts' pipelines under it and a "skipped:" line, with the reason, for the others.
    let out = run(&["pipelines", "--binning-policy", "auto,autoxautoxclocks"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("sort_onesweep_k32_v1_clock (sort u32 values 4B middle pass"), "{text}");
    assert!(text.contains("skipped: multisplit u32 values 4B 256 buckets, autoxautoxclocks: ") && text.contains("no shader variant"), "{text}");
    assert!(text.contains("perm indices last pass"), "the listing goes on after a refusal:\n{text}");
}
