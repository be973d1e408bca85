//! Compiles every kernel in glsl/ to SPIR-V with shaderc, one module per (shader, variant).
//!
//! Variants are declared below as data (the shader file and its macro definitions); everything
//! a kernel can tune at pipeline creation (workgroup size, items per lane, debug switches) is a
//! specialization constant instead, so it needs no variant here. `#include "common/x.glsl"`
//! resolves against glsl/. A GLSL error fails the build with the file and line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

struct Variant {
    /// Name the library looks the module up by (`gpu::shaders::spirv(name)`).
    name: String,
    /// Shader source, relative to glsl/.
    file: &'static str,
    defines: Vec<(&'static str, String)>,
}

/// Binning-pass rankings: ballots (any device), and subgroupPartitionNV for devices with
/// VK_NV_shader_subgroup_partitioned (module name suffix `_part`).
const RANKINGS: [(&str, Option<&str>); 2] = [("", None), ("_part", Some("PARTITIONED"))];

fn variants() -> Vec<Variant> {
    let mut v = Vec::new();
    // Scan and reduce: element type x operator (inclusive/exclusive is a spec constant).
    for (dt_i, dt) in ["u32", "i32", "f32"].iter().enumerate() {
        for (op_i, op) in ["add", "min", "max"].iter().enumerate() {
            for kernel in ["scan", "reduce"] {
                // f32 add also as `_sz`: IEEE signed zeros, infinities and NaNs declared
                // (common/scan_op.glsl), for devices that support it.
                for sz in if (*dt, *op) == ("f32", "add") { &[0, 1][..] } else { &[0][..] } {
                    v.push(Variant {
                        name: format!("{kernel}_{dt}_{op}{}", if *sz == 1 { "_sz" } else { "" }),
                        file: if kernel == "scan" { "scan/scan.comp" } else { "scan/reduce.comp" },
                        defines: vec![("DTYPE", dt_i.to_string()), ("OP", op_i.to_string()), ("SIGNED_ZERO", sz.to_string())],
                    });
                }
            }
        }
    }
    // Radix sort: key width x value words (key kind, direction, digit pass: spec constants
    // and push constants).
    for k64 in [0, 1] {
        let kw = if k64 == 1 { "k64" } else { "k32" };
        v.push(Variant {
            name: format!("sort_histogram_{kw}"),
            file: "sort/histogram.comp",
            defines: vec![("KEY64", k64.to_string()), ("VALUE_WORDS", "0".into())],
        });
        for vw in [0, 1, 2] {
            for (suffix, part) in RANKINGS {
                // Each ranking also with the phase clocks (suffix `_clock`, VK_KHR_shader_clock).
                for clock in [false, true] {
                    let mut defines = vec![("KEY64", k64.to_string()), ("VALUE_WORDS", vw.to_string())];
                    defines.extend(part.map(|d| (d, "1".to_string())));
                    if clock {
                        defines.push(("CLOCKS", "1".to_string()));
                    }
                    let c = if clock { "_clock" } else { "" };
                    // `_split`: 32-bit keys with 8-byte values read from and written to two
                    // arrays of words (the composed multisplit's packed pairs).
                    if k64 == 0 && vw == 2 {
                        let mut split = defines.clone();
                        split.push(("SPLIT_PAYLOAD", "1".to_string()));
                        v.push(Variant { name: format!("sort_onesweep_{kw}_v{vw}_split{suffix}{c}"), file: "sort/onesweep.comp", defines: split });
                    }
                    // `_packed`: 4-byte keys with 4-byte values as one 8-byte word an element
                    // (the key low), packed from two arrays by the first pass; `_unpack`: their
                    // last pass, a pair pass reading the words.
                    for (x, kv, dv, name) in [(1, 0, "PACKED_PAIRS", "packed"), (0, 1, "UNPACK_PAIRS", "unpack")] {
                        if k64 == x && vw == kv {
                            let mut packed = defines.clone();
                            packed.push((dv, "1".to_string()));
                            v.push(Variant { name: format!("sort_onesweep_{kw}_v{vw}_{name}{suffix}{c}"), file: "sort/onesweep.comp", defines: packed });
                        }
                    }
                    v.push(Variant { name: format!("sort_onesweep_{kw}_v{vw}{suffix}{c}"), file: "sort/onesweep.comp", defines });
                }
            }
            // `_timeline` (4-byte keys alone or with 4-byte values, the shared ranking): every
            // tile's timeline (device clock, SM), for timing experiments; `_clock_timeline` with
            // the phase clocks too (their registers cost the pass its second workgroup an SM on
            // the H100: bench/results/h100/binning/session51/1-sync49).
            if k64 == 0 && vw < 2 {
                for (suffix, clocks) in [("_timeline", false), ("_clock_timeline", true)] {
                    let mut defines = vec![("KEY64", "0".into()), ("VALUE_WORDS", vw.to_string()), ("TIMELINE", "1".into())];
                    if clocks {
                        defines.push(("CLOCKS", "1".into()));
                    }
                    v.push(Variant { name: format!("sort_onesweep_{kw}_v{vw}{suffix}"), file: "sort/onesweep.comp", defines });
                }
            }
        }
    }
    v.push(Variant { name: "sort_offsets".into(), file: "sort/offsets.comp", defines: vec![] });
    // Multisplit: key width x value words (the bucket source is a spec constant).
    for k64 in [0, 1] {
        let kw = if k64 == 1 { "k64" } else { "k32" };
        v.push(Variant {
            name: format!("multisplit_histogram_{kw}"),
            file: "multisplit/histogram.comp",
            defines: vec![("KEY64", k64.to_string()), ("VALUE_WORDS", "0".into())],
        });
        for vw in [0, 1, 2] {
            for (suffix, part) in RANKINGS {
                let mut defines = vec![("KEY64", k64.to_string()), ("VALUE_WORDS", vw.to_string())];
                defines.extend(part.map(|d| (d, "1".to_string())));
                v.push(Variant { name: format!("multisplit_{kw}_v{vw}{suffix}"), file: "multisplit/multisplit.comp", defines });
            }
        }
    }
    // Multisplit into more than 256 buckets: the offsets from the sorted buckets; by ids or
    // splitters, the sort payload (ids from splitters, input indices) and the gather by sorted
    // index.
    for k64 in [0, 1] {
        let kw = if k64 == 1 { "k64" } else { "k32" };
        v.push(Variant {
            name: format!("multisplit_bounds_{kw}"),
            file: "multisplit/bounds.comp",
            defines: vec![("KEY64", k64.to_string()), ("VALUE_WORDS", "0".into())],
        });
        v.push(Variant {
            name: format!("multisplit_ids_{kw}"),
            file: "multisplit/ids.comp",
            defines: vec![("KEY64", k64.to_string()), ("VALUE_WORDS", "0".into())],
        });
        for vw in [0, 1, 2] {
            v.push(Variant {
                name: format!("multisplit_gather_{kw}_v{vw}"),
                file: "multisplit/gather.comp",
                defines: vec![("KEY64", k64.to_string()), ("VALUE_WORDS", vw.to_string())],
            });
        }
    }
    // Random permutation: group ids, and the per-group shuffle by value width.
    v.push(Variant { name: "perm_group_ids".into(), file: "perm/group_ids.comp", defines: vec![] });
    v.push(Variant { name: "perm_bounds".into(), file: "perm/bounds.comp", defines: vec![] });
    v.push(Variant { name: "perm_bounds_search".into(), file: "perm/bounds_search.comp", defines: vec![] });
    // The permutation of indices: digit passes over element indices bucketed by group ids
    // drawn again (each ranking, with and without the phase clocks, as the sort's).
    // `_narrow`: two passes handing the last one its digit as a byte (8-bit storage).
    for narrow in [false, true] {
        for (suffix, part) in RANKINGS {
            for clock in [false, true] {
                let mut defines = vec![("KEY64", "0".to_string()), ("VALUE_WORDS", "1".to_string()), ("PERM_IDS", "1".to_string())];
                defines.extend(part.map(|d| (d, "1".to_string())));
                if clock {
                    defines.push(("CLOCKS", "1".to_string()));
                }
                if narrow {
                    defines.push(("NARROW", "1".to_string()));
                }
                let (c, w) = (if clock { "_clock" } else { "" }, if narrow { "_narrow" } else { "" });
                v.push(Variant { name: format!("perm_pass{w}{suffix}{c}"), file: "sort/onesweep.comp", defines });
            }
        }
    }
    for vw in [1, 2] {
        v.push(Variant { name: format!("perm_shuffle_v{vw}"), file: "perm/shuffle.comp", defines: vec![("VALUE_WORDS", vw.to_string())] });
    }
    v.extend(load_lab_variants());
    // Each binning pass also as `_fold` (FOLD: tile 0 scans the bucket offsets; passes of few
    // tiles, BinningPolicy::fold_max_tiles), a variant so that the others keep their code.
    let folds: Vec<Variant> = v
        .iter()
        .filter(|x| x.file == "sort/onesweep.comp" || x.file == "multisplit/multisplit.comp")
        .map(|x| {
            let mut defines = x.defines.clone();
            defines.push(("FOLD", "1".to_string()));
            Variant { name: format!("{}_fold", x.name), file: x.file, defines }
        })
        .collect();
    // A sort's passes also as `_fold_tot` (TILE_TOTALS: no upfront histogram; the tiles add
    // their counts to each pass's totals, for tile 0; sorts of a tile per compute unit).
    let totals: Vec<Variant> = folds
        .iter()
        .filter(|x| x.name.starts_with("sort_onesweep_"))
        .map(|x| {
            let mut defines = x.defines.clone();
            defines.push(("TILE_TOTALS", "1".to_string()));
            Variant { name: format!("{}_tot", x.name), file: x.file, defines }
        })
        .collect();
    v.extend(folds);
    v.extend(totals);
    v.push(Variant { name: "probe".into(), file: "probe/probe.comp", defines: vec![] });
    v.push(Variant { name: "copy".into(), file: "bench/copy.comp", defines: vec![] });
    v
}

/// The load-pattern lab (glsl/loads): one shader per resource kind. Pattern, load count,
/// channels and the subgroup broadcast are specialization constants; what must be a type or
/// a format qualifier (structured element type, storage formats, pointer alignment) is a
/// variant. The storage formats match `loads::formats::Format::glsl` (checked by a test).
fn load_lab_variants() -> Vec<Variant> {
    const STORAGE_FORMATS: [&str; 9] = ["r8", "rg8", "rgba8", "r16f", "rg16f", "rgba16f", "r32f", "rg32f", "rgba32f"];
    let v = |name: String, file: &'static str, defines: &[(&'static str, &str)]| Variant {
        name,
        file,
        defines: defines.iter().map(|(k, d)| (*k, d.to_string())).collect(),
    };
    let mut out = vec![
        v("loads_typed".into(), "loads/typed.comp", &[("STORAGE", "0")]),
        v("loads_raw".into(), "loads/raw.comp", &[]),
        v("loads_cbuffer".into(), "loads/cbuffer.comp", &[]),
        v("loads_push".into(), "loads/push.comp", &[]),
        v("loads_texture_fetch".into(), "loads/texture.comp", &[("MODE", "0")]),
        v("loads_texture_sample".into(), "loads/texture.comp", &[("MODE", "1")]),
        v("loads_sweep".into(), "loads/sweep.comp", &[]),
        v("loads_chase".into(), "loads/chase.comp", &[]),
        // The chase with subgroup-clock cycles (VK_KHR_shader_clock), untimed.
        v("loads_chase_clock".into(), "loads/chase.comp", &[("CLOCK", "1")]),
    ];
    for elem in ["1", "2", "4"] {
        out.push(v(format!("loads_structured_{elem}"), "loads/structured.comp", &[("ELEM", elem)]));
    }
    for align in ["4", "16"] {
        out.push(v(format!("loads_bda_align{align}"), "loads/bda.comp", &[("ALIGN", align)]));
    }
    for f in STORAGE_FORMATS {
        out.push(v(format!("loads_typed_storage_{f}"), "loads/typed.comp", &[("STORAGE", "1"), ("FMT", f)]));
        out.push(v(format!("loads_texture_storage_{f}"), "loads/texture.comp", &[("MODE", "2"), ("FMT", f)]));
    }
    out
}

/// The commit the binary is built from, for results files ("unknown" outside a git checkout).
fn git_commit(dir: &Path) -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    match git(&["rev-parse", "--short=12", "HEAD"]) {
        Some(c) => {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
            if dirty { format!("{c}-dirty") } else { c }
        }
        None => "unknown".into(),
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    println!("cargo:rustc-env=VKPRIMS_GIT_COMMIT={}", git_commit(&manifest));
    for f in [".git/HEAD", ".git/index"] {
        if manifest.join(f).exists() {
            println!("cargo:rerun-if-changed={f}");
        }
    }
    let root = manifest.join("glsl");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=glsl");
    rerun_for_dir(&root);

    let compiler = shaderc::Compiler::new().expect("shaderc compiler");
    let mut table = String::from("/// (variant name, SPIR-V bytes), generated by build.rs.\n");
    table.push_str("pub static MODULES: &[(&str, &[u8])] = &[\n");
    let mut failed = false;
    for var in variants() {
        let path = root.join(var.file);
        let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut opts = shaderc::CompileOptions::new().unwrap();
        opts.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_2 as u32);
        opts.set_target_spirv(shaderc::SpirvVersion::V1_5);
        opts.set_optimization_level(shaderc::OptimizationLevel::Performance);
        opts.set_warnings_as_errors();
        for (k, val) in &var.defines {
            opts.add_macro_definition(k, Some(val));
        }
        let inc_root = root.clone();
        opts.set_include_callback(move |name, _ty, from, _depth| {
            let p = inc_root.join(name);
            std::fs::read_to_string(&p)
                .map(|content| shaderc::ResolvedInclude {
                    resolved_name: p.display().to_string(),
                    content,
                })
                .map_err(|e| format!("{name} (included from {from}): {e}"))
        });
        match compiler.compile_into_spirv(
            &src,
            shaderc::ShaderKind::Compute,
            &path.display().to_string(),
            "main",
            Some(&opts),
        ) {
            Ok(art) => {
                let spv = out.join(format!("{}.spv", var.name));
                std::fs::write(&spv, art.as_binary_u8()).unwrap();
                writeln!(table, "    ({:?}, include_bytes!({:?})),", var.name, spv.display().to_string())
                    .unwrap();
            }
            Err(e) => {
                // shaderc's message already holds "file:line: error: ...".
                let defs: Vec<String> = var.defines.iter().map(|(k, v)| format!("{k}={v}")).collect();
                eprintln!("GLSL error in {} (variant {}, {}):\n{e}", var.file, var.name, defs.join(" "));
                failed = true;
            }
        }
    }
    table.push_str("];\n");
    if failed {
        panic!("GLSL compilation failed (see the messages above)");
    }
    std::fs::write(out.join("shaders.rs"), table).unwrap();
}

fn rerun_for_dir(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rerun_for_dir(&p);
        } else {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
}
