//! The vkprims command line: parse, call the library, print. Errors are one line on stderr
//! with exit status 2; a failed check (selftest, benchmark validation) exits with 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use vkprims::bench::{self, BenchOptions};
use vkprims::gpu::{self, Context, ContextOptions};
use vkprims::prims::scan::{ScanDesc, ScanKind, ScanOp, ScanPlan, ScanPolicy};
use vkprims::prims::DType;
use vkprims::{npy, selftest, Error};

#[derive(Parser)]
#[command(name = "vkprims", version, about = "Vulkan-native GPU compute primitives and perf lab")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Args, Clone)]
struct DeviceArgs {
    /// Device index (see `vkprims devices`) or name substring; default: the best GPU present.
    #[arg(long)]
    device: Option<String>,
    /// Pin the subgroup size (needs VK_EXT_subgroup_size_control).
    #[arg(long)]
    subgroup_size: Option<u32>,
    /// Enable the validation layer with synchronisation validation (or VKPRIMS_VALIDATE=1).
    #[arg(long)]
    validate: bool,
}

impl DeviceArgs {
    fn open(&self) -> vkprims::Result<Arc<Context>> {
        let mut o = ContextOptions::default();
        o.device = self.device.clone();
        o.validate |= self.validate;
        let ctx = Context::new(&o)?;
        ctx.check_subgroup_size(self.subgroup_size)?;
        Ok(ctx)
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// List the Vulkan devices.
    Devices {
        #[arg(long)]
        json: bool,
    },
    /// Print a device's fingerprint.
    Info {
        #[arg(long)]
        device: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Reduce or scan a 1-D .npy array (u32, i32 or f32).
    Scan {
        #[arg(long = "in")]
        input: PathBuf,
        #[arg(long = "out")]
        output: PathBuf,
        #[arg(long, default_value = "exclusive", value_parser = ["exclusive", "inclusive", "reduce"])]
        kind: String,
        #[arg(long, default_value = "add", value_parser = ["add", "min", "max"])]
        op: String,
        #[command(flatten)]
        dev: DeviceArgs,
    },
    /// Run the correctness suite on a device: subgroup probe, then every primitive.
    Selftest {
        #[command(flatten)]
        dev: DeviceArgs,
        /// Largest n to test.
        #[arg(long, default_value_t = 3_000_017)]
        max_n: u64,
        /// Also write the checks as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Benchmarks.
    Bench {
        #[command(subcommand)]
        what: BenchCmd,
    },
}

#[derive(Subcommand)]
enum BenchCmd {
    /// Scan and reduce, against the copy throughput measured in the same run.
    Scan {
        /// Sizes: a comma list of integers or powers (2^20). Default: 2^20,2^24,2^28 on GPUs,
        /// 2^16,2^20,2^22 on CPU devices (capped by maxStorageBufferRange).
        #[arg(long, value_delimiter = ',')]
        n: Vec<String>,
        #[arg(long, value_delimiter = ',', default_value = "exclusive,reduce")]
        kind: Vec<String>,
        #[arg(long, value_delimiter = ',', default_value = "add")]
        op: Vec<String>,
        #[arg(long, value_delimiter = ',', default_value = "u32")]
        dtype: Vec<String>,
        /// Timed trials per row (default 20 on GPUs, 5 on CPU devices).
        #[arg(long)]
        trials: Option<u32>,
        #[arg(long, default_value_t = 3)]
        warmup: u32,
        /// Minimum GPU time of warm-up work before each row, in ms (default 300 on GPUs, 0 on
        /// CPU devices), so clocks are at their loaded level when timing starts.
        #[arg(long)]
        warmup_ms: Option<f64>,
        /// Tuning policies to compare, WORKGROUPxVEC4_PER_LANE[xSPIN_LIMIT[xREDUCE_GROUPS]]
        /// (default: the built-in policy).
        #[arg(long, value_delimiter = ',')]
        policy: Vec<String>,
        /// Do not reset look-back state between trials (shows what stale state does).
        #[arg(long)]
        no_reset: bool,
        /// Write rows, copy results and the device fingerprint as JSON.
        #[arg(long)]
        json: Option<PathBuf>,
        #[command(flatten)]
        dev: DeviceArgs,
    },
}

fn parse_policy(s: &str) -> vkprims::Result<ScanPolicy> {
    let bad = || Error::Invalid(format!("bad policy '{s}' (use WORKGROUPxVEC[xSPIN_LIMIT[xREDUCE_GROUPS]], e.g. 256x4 or 256x8x256)"));
    let v = s.split('x').map(|p| p.parse::<u32>().map_err(|_| bad())).collect::<vkprims::Result<Vec<_>>>()?;
    let mut p = ScanPolicy::default();
    match v[..] {
        [w, vec] => (p.workgroup_size, p.vec_per_lane) = (w, vec),
        [w, vec, spin] => (p.workgroup_size, p.vec_per_lane, p.spin_limit) = (w, vec, spin),
        [w, vec, spin, g] => (p.workgroup_size, p.vec_per_lane, p.spin_limit, p.reduce_groups) = (w, vec, spin, g),
        _ => return Err(bad()),
    }
    Ok(p)
}

fn parse_n(s: &str) -> vkprims::Result<u64> {
    let bad = || Error::Invalid(format!("bad size '{s}' (use an integer or 2^K)"));
    match s.split_once('^') {
        Some((b, e)) => {
            let (b, e) = (b.trim().parse::<u64>().map_err(|_| bad())?, e.trim().parse::<u32>().map_err(|_| bad())?);
            b.checked_pow(e).ok_or_else(bad)
        }
        None => s.trim().parse().map_err(|_| bad()),
    }
}

/// Validation messages are failures wherever they occur.
fn check_validation(ctx: &Context) -> vkprims::Result<()> {
    ctx.check_validation().inspect_err(|e| {
        if let Error::Validation(msgs) = e {
            msgs.iter().for_each(|m| eprintln!("validation: {m}"));
        }
    })
}

fn run(cli: Cli) -> vkprims::Result<ExitCode> {
    match cli.cmd {
        Cmd::Devices { json } => {
            let list = gpu::list_devices()?;
            if json {
                println!("{}", serde_json::to_string_pretty(&list).unwrap());
            } else {
                for d in list {
                    println!("{}: {} ({}, Vulkan {}, {})", d.index, d.name, d.device_type, d.api_version, d.driver);
                }
            }
        }
        Cmd::Info { device, json } => {
            let ctx = DeviceArgs { device, subgroup_size: None, validate: false }.open()?;
            if json {
                println!("{}", serde_json::to_string_pretty(ctx.info()).unwrap());
            } else {
                print!("{}", ctx.info().to_text());
            }
        }
        Cmd::Scan { input, output, kind, op, dev } => {
            // The header, then the device's limits, then the data: every error before GPU work.
            let input = npy::NpyInput::open(&input)?;
            let ctx = dev.open()?;
            let mut desc = ScanDesc::new(input.dtype, ScanOp::parse(&op)?, ScanKind::parse(&kind)?, input.n);
            desc.pin_subgroup_size(&ctx, dev.subgroup_size);
            let plan = ScanPlan::new(&ctx, desc)?;
            let dtype = input.dtype;
            let words = input.read_words()?;
            let out = plan.run(&ctx, &words)?;
            check_validation(&ctx)?;
            npy::write_words(&output, dtype, &out)?;
        }
        Cmd::Selftest { dev, max_n, json } => {
            let ctx = dev.open()?;
            println!("device: {} ({}), driver {} {}", ctx.info().name, ctx.info().device_type, ctx.info().driver_name, ctx.info().driver_version);
            let mut checks = selftest::probe(&ctx, dev.subgroup_size)?;
            let probe_ok = checks.iter().all(|c| c.ok);
            if probe_ok {
                checks.extend(selftest::scan_checks(&ctx, dev.subgroup_size, max_n)?);
            } else {
                checks.push(selftest::Check {
                    name: "primitives".into(),
                    ok: false,
                    detail: "skipped: the subgroup probe failed, so no subgroup kernel can be trusted on this device/width".into(),
                });
            }
            let msgs = ctx.take_validation_messages();
            checks.push(selftest::Check {
                name: "validation layer".into(),
                ok: msgs.is_empty(),
                detail: if !ctx.validation_enabled() {
                    "not enabled (--validate)".into()
                } else {
                    msgs.first().cloned().unwrap_or_else(|| "no messages".into())
                },
            });
            for c in &checks {
                println!("{} {}{}", if c.ok { "ok  " } else { "FAIL" }, c.name, if c.detail.is_empty() { String::new() } else { format!(": {}", c.detail) });
            }
            let failed = checks.iter().filter(|c| !c.ok).count();
            println!("{} checks, {} failed", checks.len(), failed);
            if let Some(path) = json {
                let doc = serde_json::json!({ "device": ctx.info(), "subgroup_size": dev.subgroup_size, "checks": checks });
                std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap())
                    .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
            }
            return Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) });
        }
        Cmd::Bench { what: BenchCmd::Scan { n, kind, op, dtype, trials, warmup, warmup_ms, policy, no_reset, json, dev } } => {
            let kinds = kind.iter().map(|s| ScanKind::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
            let ops = op.iter().map(|s| ScanOp::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
            let dtypes = dtype.iter().map(|s| DType::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
            let ns = n.iter().map(|s| parse_n(s)).collect::<vkprims::Result<Vec<_>>>()?;
            // No --policy: the tuned policy for each n (ScanPolicy::for_n).
            let variants: Vec<Option<ScanPolicy>> = if policy.is_empty() {
                vec![None]
            } else {
                policy.iter().map(|s| parse_policy(s).map(Some)).collect::<vkprims::Result<_>>()?
            };
            let ctx = dev.open()?;
            let cpu = ctx.info().device_type == "cpu";
            let sweep = bench::ScanSweep {
                sizes: if ns.is_empty() { bench::default_sizes(&ctx) } else { ns },
                dtypes,
                ops,
                kinds,
                policies: variants,
                opts: BenchOptions {
                    trials: trials.unwrap_or(if cpu { 5 } else { 20 }).max(1),
                    warmup,
                    warmup_ms: warmup_ms.unwrap_or(if cpu { 0.0 } else { 300.0 }),
                    reset: !no_reset,
                    subgroup_size: dev.subgroup_size,
                },
            };
            let o = &sweep.opts;
            eprintln!("device: {} | trials {} (+{} warm-up, {} ms) | reset {}", ctx.info().name, o.trials, o.warmup, o.warmup_ms, o.reset);
            let res = bench::run_scan_sweep(&ctx, &sweep, |row| {
                let p = row.desc.policy;
                let stats: Vec<String> = row.pipeline_stats.iter().map(|s| format!("{}={}", s.name, s.value)).collect();
                eprintln!(
                    "  {} {}x{}x{}: {:.3} ms, {} [{}]",
                    row.desc.label(),
                    p.workgroup_size,
                    p.vec_per_lane,
                    p.spin_limit,
                    row.stats.median_ns * 1e-6,
                    row.validation,
                    stats.join(", ")
                );
            })?;
            check_validation(&ctx)?;
            print!("{}", bench::scan_table(&res.copies, &res.rows));
            if let Some(path) = json {
                let args: Vec<String> = std::env::args().collect();
                std::fs::write(&path, serde_json::to_string_pretty(&res.to_json(&ctx, &sweep, &args)).unwrap())
                    .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
            }
            if !res.all_valid() {
                return Ok(ExitCode::from(1));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("vkprims: error: {e}");
            ExitCode::from(2)
        }
    }
}
