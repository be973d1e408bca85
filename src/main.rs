//! The vkprims command line: parse, call the library, print. Errors are one line on stderr
//! with exit status 2; a failed check (selftest, benchmark validation) exits with 1.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use vkprims::bench::{self, BenchOptions, Mode, Stop, Sweep, What};
use vkprims::gpu::{self, Context, ContextOptions};
use vkprims::prims::scan::{ScanDesc, ScanKind, ScanOp, ScanPlan, ScanPolicy};
use vkprims::prims::multisplit::{self, BucketSource, MultisplitDesc, MultisplitPlan};
use vkprims::prims::perm::{PermDesc, PermPlan};
use vkprims::prims::sort::{KeyType, SortDesc, SortPlan};
use vkprims::prims::binning::{BinningPolicy, Ranking};
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
        let defaults = ContextOptions::default();
        let o = ContextOptions { device: self.device.clone(), validate: defaults.validate | self.validate, ..defaults };
        let ctx = Context::new(&o)?;
        ctx.check_subgroup_size(self.subgroup_size)?;
        Ok(ctx)
    }
}

#[derive(Subcommand)]
enum Cmd {
    /// List the Vulkan devices.
    Devices {
        /// Print JSON in place of the table.
        #[arg(long)]
        json: bool,
    },
    /// Print a device's fingerprint.
    Info {
        /// Device index (see `vkprims devices`) or name substring; default: the best GPU present.
        #[arg(long)]
        device: Option<String>,
        /// Print JSON in place of text.
        #[arg(long)]
        json: bool,
    },
    /// Reduce or scan a 1-D .npy array (u32, i32 or f32).
    Scan(ScanArgs),
    /// Sort a 1-D .npy array of keys (u32, i32, f32, u64, i64, f64), optionally with values
    /// (any 4- or 8-byte dtype). Stable; floats in IEEE 754 totalOrder.
    Sort(SortArgs),
    /// Multisplit of a 1-D .npy array by a bucket-id array, sorted splitters or a bit field of
    /// the key, into 2 to 65,536 buckets; optional values and bucket offsets (B + 1 u32).
    Multisplit(MultisplitArgs),
    /// A uniformly random permutation of 0..N-1 (`--n`), or a shuffle of a .npy array of any
    /// 4- or 8-byte dtype (`--in`), from a seed; the same output on every GPU and width.
    Perm(PermArgs),
    /// Run the correctness suite on a device: subgroup probe, then every primitive.
    Selftest(SelftestArgs),
    /// Benchmarks: trials in one command buffer, validated, against the copy throughput.
    Bench(BenchArgs),
    /// The load-pattern lab: perftest's 138 load cases natively in Vulkan, Vulkan-native
    /// resources, subgroup broadcasts, a working-set sweep and a pointer chase.
    Loads(LoadsArgs),
    /// Compare two results files row by row; exit 1 if any row got slower beyond the threshold.
    Compare(CompareArgs),
    /// Plot results files: throughput against n, one line per primitive and file.
    Plot(PlotArgs),
    /// List the pipelines of every primitive (tuned policies) and, with --stats, the driver
    /// compiler's statistics for each (VK_KHR_pipeline_executable_properties).
    Pipelines(PipelinesArgs),
}

#[derive(Args)]
struct ScanArgs {
    /// Input .npy: a 1-D array of u32, i32 or f32.
    #[arg(long = "in")]
    input: PathBuf,
    /// Output .npy of the input's dtype: n elements, or one for `reduce`.
    #[arg(long = "out")]
    output: PathBuf,
    /// exclusive or inclusive scan, or reduce (the total alone).
    #[arg(long, default_value = "exclusive", value_parser = ["exclusive", "inclusive", "reduce"])]
    kind: String,
    /// The operator (integer add wraps; f32 add is within the README's stated tolerance).
    #[arg(long, default_value = "add", value_parser = ["add", "min", "max"])]
    op: String,
    #[command(flatten)]
    dev: DeviceArgs,
}

#[derive(Args)]
struct SortArgs {
    /// Keys .npy: a 1-D array of u32, i32, f32, u64, i64 or f64.
    #[arg(long = "in")]
    input: PathBuf,
    /// The sorted keys (.npy, the keys' dtype).
    #[arg(long = "out")]
    output: PathBuf,
    /// Values .npy moved with their keys: the keys' length, any 4- or 8-byte dtype (with
    /// --values-out).
    #[arg(long)]
    values: Option<PathBuf>,
    /// The values in their keys' sorted order (.npy, the values' dtype).
    #[arg(long = "values-out")]
    values_out: Option<PathBuf>,
    /// Largest key first; still stable (equal keys keep their input order).
    #[arg(long)]
    descending: bool,
    /// Sort by bits LO..HI of the key only (like CUB's begin_bit/end_bit).
    #[arg(long)]
    bits: Option<String>,
    #[command(flatten)]
    dev: DeviceArgs,
}

#[derive(Args)]
struct MultisplitArgs {
    /// Keys .npy: a 1-D array of u32, i32, f32, u64, i64 or f64 (splitters compare them in
    /// their order, floats in totalOrder; --bits takes the raw key's bits).
    #[arg(long = "in")]
    input: PathBuf,
    /// The keys, bucket 0's first, then bucket 1's, ... (.npy, the keys' dtype).
    #[arg(long = "out")]
    output: PathBuf,
    /// u32 bucket ids, one per key (with --buckets).
    #[arg(long, requires = "buckets", conflicts_with_all = ["bits", "splitters"])]
    bucket_ids: Option<PathBuf>,
    /// The bucket count B for --bucket-ids, 2 to 65,536 (an id >= B is an error).
    #[arg(long)]
    buckets: Option<u32>,
    /// Bits LO:HI of the raw key: 2^(HI-LO) buckets.
    #[arg(long, conflicts_with = "splitters")]
    bits: Option<String>,
    /// Sorted splitters of the keys' dtype: splitters + 1 buckets.
    #[arg(long)]
    splitters: Option<PathBuf>,
    /// Values .npy moved with their keys: the keys' length, any 4- or 8-byte dtype (with
    /// --values-out).
    #[arg(long)]
    values: Option<PathBuf>,
    /// The values in their keys' output order (.npy, the values' dtype).
    #[arg(long = "values-out")]
    values_out: Option<PathBuf>,
    /// The bucket offsets (.npy, B + 1 u32: an exclusive prefix, the last one n).
    #[arg(long = "offsets-out")]
    offsets_out: Option<PathBuf>,
    /// stable: input order kept within each bucket; atomic: workgroup atomics, order
    /// within a bucket unspecified (faster).
    #[arg(long, default_value = "stable", value_parser = ["stable", "atomic"])]
    ranking: String,
    #[command(flatten)]
    dev: DeviceArgs,
}

#[derive(Args)]
struct PermArgs {
    /// Permute 0..N-1, N an integer or a power such as 2^28 (the output is u32: N < 2^30).
    #[arg(long, conflicts_with = "input", required_unless_present = "input")]
    n: Option<String>,
    /// Or shuffle this .npy array (a 1-D array of any 4- or 8-byte dtype).
    #[arg(long = "in")]
    input: Option<PathBuf>,
    /// The Philox key: one seed, one permutation.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// The permutation or the shuffled array (.npy).
    #[arg(long = "out")]
    output: PathBuf,
    /// Bit-for-bit reproducible output: the same on every GPU, subgroup width and run, equal
    /// to the library's `perm::reference` (the default mode may differ run to run).
    #[arg(long)]
    reproducible: bool,
    #[command(flatten)]
    dev: DeviceArgs,
}

#[derive(Args)]
struct SelftestArgs {
    #[command(flatten)]
    dev: DeviceArgs,
    /// Largest n to test.
    #[arg(long, default_value_t = 3_000_017)]
    max_n: u64,
    /// Also write the checks as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Then check random cases for this many seconds: sorts, multisplits, permutations and
    /// scans of random inputs under random policies (src/soak.rs).
    #[arg(long, default_value_t = 0.0)]
    soak: f64,
    /// The random cases' seed (default: from the clock; printed).
    #[arg(long)]
    soak_seed: Option<u64>,
    /// Check only this case of the seed, and no fixed check: a failure's replay.
    #[arg(long, requires = "soak_seed")]
    soak_case: Option<u64>,
}

#[derive(Args)]
struct CompareArgs {
    /// The baseline results file (`bench --json`).
    old: PathBuf,
    /// The results file compared with it.
    new: PathBuf,
    /// How much slower a row may get before it counts as a regression (5% or 0.05).
    #[arg(long, default_value = "5%")]
    threshold: String,
}

#[derive(Args)]
struct PlotArgs {
    /// Results files (`bench --json`), one line style each.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The SVG to write.
    #[arg(long)]
    out: PathBuf,
    /// Only primitives whose name contains one of these (the copy lines always show).
    #[arg(long, value_delimiter = ',')]
    primitive: Vec<String>,
    /// Instead: the tile timelines of the rows that have them (`xtimeline`), tiles in each
    /// phase over time, one SVG a row (OUT-1.svg, OUT-2.svg, ...).
    #[arg(long)]
    timeline: bool,
}

#[derive(Args)]
struct PipelinesArgs {
    /// Compile each pipeline and print the driver's statistics (registers, spills, ...).
    #[arg(long)]
    stats: bool,
    /// Binning-pass policies of the sort pipelines to list (default: the default policy).
    #[arg(long, value_delimiter = ',')]
    binning_policy: Vec<String>,
    #[command(flatten)]
    dev: DeviceArgs,
}

#[derive(Args)]
struct BenchArgs {
    /// What to measure: copy, scan (scan and reduce), sort, multisplit, perm, all (every
    /// primitive built so far).
    #[arg(value_parser = ["copy", "scan", "sort", "multisplit", "perm", "all"])]
    what: String,
    /// Sizes: integers, powers (2^20) and ranges (2^16:2^28:2 steps the exponent,
    /// 1000:5000:1000 steps linearly), comma-separated. Default: 2^20,2^24,2^28 on GPUs,
    /// 2^16,2^20,2^22 on CPU devices.
    #[arg(long, value_delimiter = ',')]
    n: Vec<String>,
    /// Scan kinds: exclusive, inclusive, reduce.
    #[arg(long, value_delimiter = ',', default_value = "exclusive,inclusive,reduce")]
    kind: Vec<String>,
    /// Scan operators: add, min, max.
    #[arg(long, value_delimiter = ',', default_value = "add")]
    op: Vec<String>,
    /// Scan dtypes: u32, i32, f32.
    #[arg(long, value_delimiter = ',', default_value = "u32")]
    dtype: Vec<String>,
    /// Sort key types (u32, i32, f32, u64, i64, f64).
    #[arg(long, value_delimiter = ',', default_value = "u32,u64")]
    key: Vec<String>,
    /// Value sizes in bytes: 0 (keys only), 4, 8. For `perm`: the element size of the
    /// array shuffled, and 0 the permutation of indices 0..n-1 (no input array).
    #[arg(long, value_delimiter = ',', default_value = "0,4")]
    values: Vec<u32>,
    /// Sort directions: false (ascending), true (descending).
    #[arg(long, value_delimiter = ',', default_value = "false")]
    descending: Vec<bool>,
    /// Multisplit bucket counts, 2 to 65536: powers of two split by the low key bits, others by
    /// bucket ids; above 256 the split composes a radix sort.
    #[arg(long, value_delimiter = ',', default_value = "2,16,256")]
    buckets: Vec<u32>,
    /// Tuning policies to compare, WORKGROUPxVEC4_PER_LANE[xSPIN_LIMIT[xREDUCE_GROUPS]]
    /// (default: the tuned policy for each n).
    #[arg(long, value_delimiter = ',')]
    policy: Vec<String>,
    /// Binning-pass policies of sort, multisplit and permutation to compare, `auto` or
    /// WORKGROUPxITEMS[xballots|xpart][xplanes][xkeep][xlate|xearly][xnoseq][xstablefirst][xcrN][xnocs][xcsN][xvcN][xlbN][xhgN][xhwN][xfoldN][xtotN][xticket|xnoticket][xpacked][xhscalar][xclocks][xtimeline][xskipN]
    /// (default: auto, 512x17 for a sort of 4-byte keys alone, 512x16 for the multisplit's 4-byte keys and for 4-byte pairs (their key and
    /// value planes through shared memory in sequence, the values read `xvcN` = 8 a lane at
    /// a time; `xnoseq`: both planes at once; `xpacked`: a sort of 4-byte pairs over two digit
    /// passes or more moves each as one 8-byte word, the key low, packed by its first pass
    /// and unpacked by its last), 448x13 for
    /// other 8-byte elements (u64 keys, or pairs with `xnoseq` or `xpacked`), 384x10 for 12-byte elements, 320x9 for 16-byte ones; items are lowered to fit shared memory; WORKGROUP or ITEMS may
    /// be `auto` alone). Peers are matched through shared-memory masks at <= 32 lanes;
    /// `xballots` matches them with ballots, `xpart` with subgroupPartitionNV where the
    /// device has it; `xplanes` stages every word plane at once; `xkeep` keeps keys (and,
    /// where the planes are not in sequence, values) in registers from load to staging (by
    /// default they are read again, or first, while staging); `xlate` ranks before counting in every stable pass and `xearly` in none (default: in the stable passes of a sort of keys alone that have at least 1,024 tiles); `xstablefirst` keeps the first pass of
    /// a keys-only sort over every key bit stable (by default it ranks with atomics: no order
    /// among equal keys can show there, and from 4,096 tiles, `xcrN` for N, the second pass
    /// ranks with atomics in class rounds, the first pass's buckets in order; for keys alone the later passes whose classes, n >> 8p keys for pass p, average at least `xcsN` = 2 subgroup runs (0: every later pass) rank in class steps instead (not in sorts without an upfront histogram, `xtotN`), a subgroup's run of elements that share every earlier digit with atomics; `xnocs` turns that off); `xlbN` reads N earlier tiles per look-back round (default 8);
    /// `xhgN` runs the upfront histogram on N workgroups (default 2048) and `xhwN` on
    /// workgroups of N invocations (default 128); `xfoldN`: passes of at most N tiles have
    /// their tile 0 scan the digit offsets (default: a sort's own passes only where they take totals, `xtotN`; the multisplit's up to 512 tiles of keys, 256 with values; 0: never); `xtotN`: a sort whose
    /// passes all fold and have at most N tiles (at most 255) has no upfront histogram, its
    /// tiles adding their counts to each pass's totals for tile 0 (default: the device's SM
    /// or CU count where the driver reports it, else never; 0: never); `xticket` hands tiles
    /// out by an atomic ticket in start order and `xnoticket` makes each workgroup's index its
    /// tile (default: the index on NVIDIA GPUs, the ticket elsewhere and in the permutation of
    /// indices' default mode); `xhscalar` makes the
    /// histogram load one key at a time instead of 16 bytes; `xclocks` times the sort's
    /// binning phases with VK_KHR_shader_clock and counts invocation 0's look-back (rounds
    /// that advanced, rounds not ready, earlier tiles taken, the longest); `xtimeline` (4-byte
    /// keys alone or with 4-byte values, NVIDIA) adds each tile's SM and its device- and
    /// SM-clock times at its phase ends in one middle pass to the JSON row and a summary to
    /// the report (`vkprims plot --timeline` draws them; without `xclocks`, whose registers
    /// can cost the pass workgroups an SM); `xskipN` skips phases for timing
    /// experiments, so its results fail validation: bit 0 look-back, 1 stores, 2 ranking,
    /// 3 peer matching only, 4 step counters only (2-4 with `xballots` or `xpart`); bits 5
    /// and 6 keep results right: 5 ranks with uvec4 ballots even at 32 lanes or fewer, 6
    /// makes the atomic ranking take a tile's steps last to first; bit 8 holds first-wave tiles
    /// back after posting their counts, 256 x bits 16..23 spin rounds: tiles S..2S-1 for S in
    /// bits 24..31, or with bit 12 the odd ones below 2S, or with bit 13 and `xtimeline` each
    /// SM's second; with bit 14 too, that one waits until its SM's first has looked back;
    /// bits 9 and 10 act on the value round of planes in sequence only, keys staying right:
    /// 9 skips its stores, 10 the whole round).
    #[arg(long, value_delimiter = ',')]
    binning_policy: Vec<String>,
    /// Rankings: stable, atomic (sort: an atomic first pass, unstable; permutation: stable =
    /// reproducible mode, atomic = default mode).
    #[arg(long, value_delimiter = ',', default_value = "stable")]
    ranking: Vec<String>,
    /// per-trial: a timestamp pair around each trial; batch: one pair around --batch-size
    /// back-to-back trials, minus the resets timed alone.
    #[arg(long, default_value = "per-trial", value_parser = ["per-trial", "batch"])]
    mode: String,
    /// Trials between the timestamps of one sample in batch mode.
    #[arg(long, default_value_t = 10)]
    batch_size: u32,
    /// Samples per row (default 20 on GPUs, 5 on CPU devices); exclusive with --max-noise.
    #[arg(long)]
    trials: Option<u32>,
    /// Adaptive stopping: sample until (q3 - q1) / median is at most this (e.g. 2%)...
    #[arg(long)]
    max_noise: Option<String>,
    /// ...with at least this many samples...
    #[arg(long, default_value_t = 10)]
    min_samples: u32,
    /// ...or until this many seconds per row (or --max-samples samples).
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
    /// The most samples a row takes under --max-noise.
    #[arg(long, default_value_t = 1000)]
    max_samples: u32,
    /// Untimed trials at the start of each row's first command buffer.
    #[arg(long, default_value_t = 3)]
    warmup: u32,
    /// Minimum GPU time of warm-up work before each row, in ms (default 300 on GPUs, 0 on
    /// CPU devices), so clocks are at their loaded level when timing starts.
    #[arg(long)]
    warmup_ms: Option<f64>,
    /// Thrash the caches with a large copy before each trial (per-trial mode).
    #[arg(long)]
    cold: bool,
    /// Do not reset look-back state between trials (shows what stale state does).
    #[arg(long)]
    no_reset: bool,
    /// Time every kernel of each row's validation trial (a timestamp after each dispatch) and
    /// print the breakdown after the table.
    #[arg(long)]
    profile: bool,
    /// Write the results file (schema vkprims.bench/1).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the rows as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    #[command(flatten)]
    dev: DeviceArgs,
}

#[derive(Args)]
struct LoadsArgs {
    /// Run the cases whose names match this regular expression (default: all).
    #[arg(long)]
    filter: Option<String>,
    /// List the cases (name and Vulkan resource) and exit.
    #[arg(long)]
    list: bool,
    /// Describe one case (exact name) and exit.
    #[arg(long)]
    describe: Option<String>,
    /// Take the store once more after timing and check every invocation against the CPU model.
    #[arg(long)]
    verify: bool,
    /// Invocations per dispatch (multiple of 256). Default: 1048576 on GPUs (perftest's), 32768 on CPU devices.
    #[arg(long)]
    threads: Option<u32>,
    /// Loads per invocation (multiple of 128; the doubling check also runs twice as many).
    #[arg(long, default_value_t = 256)]
    loads: u32,
    /// Timed trials per case (default 5); the median is reported.
    #[arg(long)]
    trials: Option<u32>,
    /// Skip the doubling check (2x loads should take about 2x time).
    #[arg(long)]
    no_doubling: bool,
    /// Dependent loads per pointer chase.
    #[arg(long)]
    chase_hops: Option<u32>,
    /// Write the results (schema vkprims.loads/1, with the device fingerprint and git commit).
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write the rows as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Test hook: treat these formats (R16_SFLOAT, ...) or features (bufferDeviceAddress,
    /// shuffle, pushConstants, storageImageExtendedFormats) as missing.
    #[arg(long, value_delimiter = ',', hide = true)]
    hide: Vec<String>,
    #[command(flatten)]
    dev: DeviceArgs,
}

fn run_loads(a: LoadsArgs) -> vkprims::Result<ExitCode> {
    use vkprims::loads;
    if a.list {
        for c in loads::catalogue() {
            println!("{}	{}", c.name, c.resource());
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &a.describe {
        print!("{}", loads::describe(name)?);
        return Ok(ExitCode::SUCCESS);
    }
    let cases = loads::select(a.filter.as_deref())?;
    let ctx = a.dev.open()?;
    let mut opts = loads::LabOptions::for_device(&ctx);
    opts.verify = a.verify;
    opts.threads = a.threads.unwrap_or(opts.threads);
    opts.loads = a.loads;
    opts.trials = a.trials.unwrap_or(opts.trials);
    opts.doubling = !a.no_doubling;
    opts.chase_hops = a.chase_hops.unwrap_or(opts.chase_hops);
    opts.subgroup_size = a.dev.subgroup_size;
    opts.hide = a.hide;
    opts.check(&ctx)?;
    eprintln!("device: {} | {} cases | {} invocations x {} loads | {} trials", ctx.info().name, cases.len(), opts.threads, opts.loads, opts.trials);
    let bar = indicatif::ProgressBar::new(cases.len() as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").unwrap());
    let args: Vec<String> = std::env::args().collect();
    let res = loads::run_lab(&ctx, &cases, &opts, &args, |row| {
        let line = format!("  {}: {} {}", row.case, row.median_ms.map_or("-".into(), |m| format!("{m:.4} ms")), row.flags.join("; "));
        if bar.is_hidden() { eprintln!("{line}") } else { bar.println(line) }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let res = res?;
    check_validation(&ctx)?;
    print!("{}", loads::report::table(&res));
    if let Some(path) = a.json {
        write_file(&path, &serde_json::to_string_pretty(&res).unwrap())?;
    }
    if let Some(path) = a.csv {
        write_file(&path, &loads::report::csv(&res))?;
    }
    Ok(if res.any_failed() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn parse_threshold(s: &str) -> vkprims::Result<f64> {
    let bad = || Error::Invalid(format!("bad fraction '{s}' (use 5% or 0.05)"));
    let v = match s.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map_err(|_| bad())? / 100.0,
        None => s.trim().parse::<f64>().map_err(|_| bad())?,
    };
    if v > 0.0 && v.is_finite() { Ok(v) } else { Err(bad()) }
}

fn write_file(path: &std::path::Path, text: &str) -> vkprims::Result<()> {
    std::fs::write(path, text).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))
}

fn run_bench(a: BenchArgs) -> vkprims::Result<ExitCode> {
    // Everything the command line can get wrong is found before the device opens.
    let what = match a.what.as_str() {
        "copy" => What::Copy,
        "scan" => What::Scan,
        "sort" => What::Sort,
        "multisplit" => What::Multisplit,
        "perm" => What::Perm,
        _ => What::All,
    };
    let keys = a.key.iter().map(|s| KeyType::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
    if let Some(b) = a.buckets.iter().find(|&&b| !(2..=1 << 16).contains(&b)) {
        return Err(Error::Invalid(format!("--buckets {b}: 2 to 65536")));
    }
    if let Some(v) = a.values.iter().find(|v| ![0, 4, 8].contains(*v)) {
        return Err(Error::Invalid(format!("--values {v}: value sizes are 0 (keys only), 4 or 8 bytes")));
    }
    let kinds = a.kind.iter().map(|s| ScanKind::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
    let ops = a.op.iter().map(|s| ScanOp::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
    let dtypes = a.dtype.iter().map(|s| DType::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
    let sizes = bench::parse_sizes(&a.n)?;
    let policies: Vec<Option<ScanPolicy>> =
        if a.policy.is_empty() { vec![None] } else { a.policy.iter().map(|s| parse_policy(s).map(Some)).collect::<vkprims::Result<_>>()? };
    let binning_policies =
        a.binning_policy.iter().map(|s| BinningPolicy::parse(s).map(Some)).collect::<vkprims::Result<Vec<_>>>()?;
    let rankings = a.ranking.iter().map(|s| Ranking::parse(s)).collect::<vkprims::Result<Vec<_>>>()?;
    let max_noise = a.max_noise.as_deref().map(parse_threshold).transpose()?;
    if max_noise.is_some() && a.trials.is_some() {
        return Err(Error::Invalid("--trials and --max-noise are exclusive (fixed or adaptive stopping)".into()));
    }
    let ctx = a.dev.open()?;
    let mut opts = BenchOptions::for_device(&ctx);
    opts.mode = if a.mode == "batch" { Mode::Batch } else { Mode::PerTrial };
    opts.batch_size = a.batch_size;
    if let Some(t) = a.trials {
        opts.stop = Stop::Trials(t);
    }
    if let Some(max_noise) = max_noise {
        opts.stop = Stop::Adaptive { min_samples: a.min_samples, max_noise, timeout_s: a.timeout, max_samples: a.max_samples };
    }
    opts.warmup = a.warmup;
    if let Some(ms) = a.warmup_ms {
        opts.warmup_ms = ms;
    }
    opts.cold = a.cold;
    opts.reset = !a.no_reset;
    opts.profile = a.profile;
    opts.subgroup_size = a.dev.subgroup_size;
    opts.check()?;
    let sweep = Sweep {
        what,
        sizes: if sizes.is_empty() { bench::default_sizes(&ctx) } else { sizes },
        dtypes,
        ops,
        kinds,
        policies,
        keys,
        values: a.values,
        descending: a.descending,
        buckets: a.buckets,
        binning_policies,
        rankings,
        opts,
    };
    let o = &sweep.opts;
    eprintln!("device: {} | {:?} | {:?} (+{} warm-up trials, {} ms) | reset {}", ctx.info().name, o.mode, o.stop, o.warmup, o.warmup_ms, o.reset);
    let bar = indicatif::ProgressBar::new(sweep.len() as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}").unwrap());
    let args: Vec<String> = std::env::args().collect();
    let res = bench::run_sweep(&ctx, &sweep, &args, |row| {
        let line = format!(
            "  {} n={} {}: {:.4} ms ({} samples, {}), {}",
            row.primitive,
            row.n,
            row.policy.as_deref().unwrap_or(""),
            row.stats.median_ns * 1e-6,
            row.stats.samples_ns.len(),
            row.stop_reason,
            row.validation
        );
        // The bar hides itself when stderr is not a terminal; then rows are logged as lines.
        if bar.is_hidden() { eprintln!("{line}") } else { bar.println(line) }
        bar.inc(1);
    });
    bar.finish_and_clear();
    let res = res?;
    check_validation(&ctx)?;
    print!("{}", bench::report::table(&res.rows));
    print!("{}", bench::report::kernels(&res.rows));
    for r in &res.rows {
        if let Some(w) = r.profile_warning() {
            eprintln!("vkprims: warning: {} n={}: {w}", r.primitive, r.n);
        }
    }
    if let Some(path) = a.json {
        write_file(&path, &serde_json::to_string_pretty(&res).unwrap())?;
    }
    if let Some(path) = a.csv {
        write_file(&path, &bench::report::csv(&res.rows))?;
    }
    Ok(if res.all_valid() { ExitCode::SUCCESS } else { ExitCode::from(1) })
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
        Cmd::Devices { json } => run_devices(json)?,
        Cmd::Info { device, json } => {
            let ctx = DeviceArgs { device, subgroup_size: None, validate: false }.open()?;
            if json {
                println!("{}", serde_json::to_string_pretty(ctx.info()).unwrap());
            } else {
                print!("{}", ctx.info().to_text());
            }
        }
        Cmd::Scan(a) => run_scan(a)?,
        Cmd::Sort(a) => run_sort(a)?,
        Cmd::Multisplit(a) => run_multisplit(a)?,
        Cmd::Perm(a) => run_perm(a)?,
        Cmd::Selftest(a) => return run_selftest(a),
        Cmd::Bench(a) => return run_bench(a),
        Cmd::Loads(a) => return run_loads(a),
        Cmd::Compare(a) => return run_compare(a),
        Cmd::Plot(a) => run_plot(a)?,
        Cmd::Pipelines(a) => run_pipelines(a)?,
    }
    Ok(ExitCode::SUCCESS)
}

fn run_devices(json: bool) -> vkprims::Result<()> {
    let list = gpu::list_devices()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&list).unwrap());
    } else {
        for d in list {
            println!("{}: {} ({}, Vulkan {}, {})", d.index, d.name, d.device_type, d.api_version, d.driver);
        }
    }
    Ok(())
}

fn run_scan(a: ScanArgs) -> vkprims::Result<()> {
    // The header, then the device's limits, then the data: every error before GPU work.
    let input = npy::NpyInput::open(&a.input)?;
    let Some(dtype) = input.elem.numeric().and_then(npy::NpyType::scan_dtype) else {
        return Err(Error::Invalid(format!(
            "{}: unsupported dtype '{}' for scan (u32, i32, f32)",
            a.input.display(),
            input.elem.shown()
        )));
    };
    let outputs = npy::Outputs::claim(&[("--out", Some(&a.output))])?;
    let ctx = a.dev.open()?;
    let mut desc = ScanDesc::new(dtype, ScanOp::parse(&a.op)?, ScanKind::parse(&a.kind)?, input.n);
    desc.pin_subgroup_size(&ctx, a.dev.subgroup_size);
    let plan = ScanPlan::new(&ctx, desc)?;
    let words = input.read_words()?;
    let out = plan.run(&ctx, &words)?;
    check_validation(&ctx)?;
    outputs.write("--out", &npy::NpyType::from_scan_dtype(dtype).into(), &out)?;
    outputs.commit()
}

/// `--values` and `--values-out` (sort, multisplit): the values' header, checked against the
/// keys' length.
fn open_values(values: &Option<PathBuf>, values_out: &Option<PathBuf>, keys: &npy::NpyInput, keys_path: &std::path::Path) -> vkprims::Result<Option<npy::NpyInput>> {
    let vals = match (values, values_out) {
        (Some(v), Some(_)) => npy::NpyInput::open(v)?,
        (None, None) => return Ok(None),
        _ => return Err(Error::Invalid("--values and --values-out go together".into())),
    };
    if vals.n != keys.n {
        return Err(Error::Invalid(format!(
            "{}: {} values for {} keys in {}",
            values.as_ref().unwrap().display(),
            vals.n,
            keys.n,
            keys_path.display()
        )));
    }
    Ok(Some(vals))
}

/// The values' dtype and words, read after every check.
fn read_values(vals: Option<npy::NpyInput>) -> vkprims::Result<Option<(npy::Elem, Vec<u32>)>> {
    vals.map(|v| Ok((v.elem.clone(), v.read_words()?))).transpose()
}

/// `LO:HI` (a sort's bit range, a multisplit's bit field).
fn parse_bit_range(s: &str, what: &str, example: &str) -> vkprims::Result<(u32, u32)> {
    let bad = || Error::Invalid(format!("bad {what} '{s}' (LO:HI, e.g. {example})"));
    let (lo, hi) = s.split_once(':').ok_or_else(bad)?;
    Ok((lo.trim().parse().map_err(|_| bad())?, hi.trim().parse().map_err(|_| bad())?))
}

fn run_sort(a: SortArgs) -> vkprims::Result<()> {
    let keys = npy::NpyInput::open(&a.input)?;
    let key_type = keys.numeric("sort keys")?;
    let vals = open_values(&a.values, &a.values_out, &keys, &a.input)?;
    let mut desc = SortDesc::new(key_type.key_type(), keys.n);
    desc.descending = a.descending;
    desc.value_bytes = vals.as_ref().map_or(0, |v| v.elem.bytes() as u32);
    if let Some(b) = &a.bits {
        desc.bits = parse_bit_range(b, "bit range", "0:16")?;
    }
    let outputs = npy::Outputs::claim(&[("--out", Some(&a.output)), ("--values-out", a.values_out.as_deref())])?;
    let ctx = a.dev.open()?;
    desc.subgroup_size = a.dev.subgroup_size;
    let plan = SortPlan::new(&ctx, desc)?;
    let key_words = keys.read_words()?;
    let vals = read_values(vals)?;
    let (k, v) = plan.run(&ctx, &key_words, vals.as_ref().map(|(_, w)| &w[..]))?;
    check_validation(&ctx)?;
    outputs.write("--out", &key_type.into(), &k)?;
    if let (Some((t, _)), Some(v)) = (vals, v) {
        outputs.write("--values-out", &t, &v)?;
    }
    outputs.commit()
}

/// `--buckets` beside `--bits` or `--splitters`, which imply the count: refused unless it is
/// that count (a contradiction is a mistake, not a choice between the two).
fn check_buckets_given(given: Option<u32>, implied: Option<u64>, source: &str) -> vkprims::Result<()> {
    match (given, implied) {
        (Some(g), Some(i)) if g as u64 != i => Err(Error::Invalid(format!("--buckets {g} contradicts {source}, which make {i} buckets"))),
        _ => Ok(()),
    }
}

fn run_multisplit(a: MultisplitArgs) -> vkprims::Result<()> {
    let keys = npy::NpyInput::open(&a.input)?;
    let key_dtype = keys.numeric("multisplit keys")?;
    let key = key_dtype.key_type();
    let (source, aux) = match (&a.bucket_ids, a.buckets, &a.bits, &a.splitters) {
        (Some(p), Some(b), None, None) => {
            let ids = npy::NpyInput::open(p)?;
            if ids.elem != npy::NpyType::U32.into() {
                return Err(Error::Invalid(format!("{}: bucket ids must be uint32 ('<u4'), not '{}'", p.display(), ids.elem.shown())));
            }
            if ids.n != keys.n {
                return Err(Error::Invalid(format!("{} bucket ids for {} keys in {}", ids.n, keys.n, a.input.display())));
            }
            (BucketSource::Ids { buckets: b }, Some(ids))
        }
        (None, given, Some(b), None) => {
            let (lo, hi) = parse_bit_range(b, "bit field", "0:8")?;
            let implied = if lo < hi && hi - lo < 64 { Some(1u64 << (hi - lo)) } else { None };
            check_buckets_given(given, implied, &format!("--bits {b}"))?;
            (BucketSource::Bits { lo, hi }, None)
        }
        (None, given, None, Some(p)) => {
            let s = npy::NpyInput::open(p)?;
            if s.elem != keys.elem {
                return Err(Error::Invalid(format!("{}: splitters must have the keys' dtype '{}'", p.display(), key_dtype.descr())));
            }
            check_buckets_given(given, Some(s.n + 1), &format!("{} splitters", s.n))?;
            (BucketSource::Splitters { count: s.n as u32 }, Some(s))
        }
        _ => return Err(Error::Invalid("give one bucket source: --bucket-ids with --buckets, --bits or --splitters".into())),
    };
    let vals = open_values(&a.values, &a.values_out, &keys, &a.input)?;
    let mut desc = MultisplitDesc::new(key, keys.n, source);
    desc.value_bytes = vals.as_ref().map_or(0, |v| v.elem.bytes() as u32);
    desc.subgroup_size = a.dev.subgroup_size;
    desc.ranking = Ranking::parse(&a.ranking)?;
    // Headers and output paths, then the device's limits, then the data and its checks: all
    // before GPU work.
    let outputs = npy::Outputs::claim(&[
        ("--out", Some(&a.output)),
        ("--values-out", a.values_out.as_deref()),
        ("--offsets-out", a.offsets_out.as_deref()),
    ])?;
    let ctx = a.dev.open()?;
    let plan = MultisplitPlan::new(&ctx, desc.clone())?;
    let key_words = keys.read_words()?;
    let aux_words = aux.map(|a| a.read_words()).transpose()?;
    multisplit::check_aux(&desc, aux_words.as_deref())?;
    let vals = read_values(vals)?;
    let (k, v, o) = plan.run(&ctx, &key_words, vals.as_ref().map(|(_, w)| &w[..]), aux_words.as_deref())?;
    check_validation(&ctx)?;
    outputs.write("--out", &key_dtype.into(), &k)?;
    if let (Some((t, _)), Some(v)) = (vals, v) {
        outputs.write("--values-out", &t, &v)?;
    }
    if a.offsets_out.is_some() {
        outputs.write("--offsets-out", &npy::NpyType::U32.into(), &o)?;
    }
    outputs.commit()
}

fn run_perm(a: PermArgs) -> vkprims::Result<()> {
    let PermArgs { n, input, seed, output, reproducible, dev } = a;
    let (elem, n, words) = match (n, input) {
        (Some(n), None) => {
            let n = *bench::parse_sizes(&[n])?.first().unwrap();
            (npy::Elem::from(npy::NpyType::U32), n, None)
        }
        (None, Some(p)) => {
            let x = npy::NpyInput::open(&p)?;
            (x.elem.clone(), x.n, Some(x))
        }
        _ => return Err(Error::Invalid("give --n N or --in X.npy".into())),
    };
    // --n: the permutation of indices (no input array: the passes draw group ids again).
    let mut desc = if words.is_some() { PermDesc::new(n, elem.bytes() as u32, seed) } else { PermDesc::indices(n, seed) };
    desc.subgroup_size = dev.subgroup_size;
    desc.reproducible = reproducible;
    let outputs = npy::Outputs::claim(&[("--out", Some(&output))])?;
    let ctx = dev.open()?;
    let plan = PermPlan::new(&ctx, desc)?;
    let words = words.map(|x| x.read_words()).transpose()?;
    let out = plan.run(&ctx, words.as_deref())?;
    check_validation(&ctx)?;
    outputs.write("--out", &elem, &out)?;
    outputs.commit()
}

fn run_selftest(a: SelftestArgs) -> vkprims::Result<ExitCode> {
    let SelftestArgs { dev, max_n, json, soak, soak_seed, soak_case } = a;
    if !(soak.is_finite() && soak >= 0.0) {
        return Err(Error::Invalid(format!("--soak {soak}: seconds must be 0 or more")));
    }
    let ctx = dev.open()?;
    println!("device: {} ({}), driver {} {}", ctx.info().name, ctx.info().device_type, ctx.info().driver_name, ctx.info().driver_version);
    // Each group's lines print as it finishes (on a fresh machine a driver may spend
    // minutes compiling the pipelines first, and a run cut short keeps what it found).
    let mut checks = Vec::new();
    let mut report = |group: Vec<selftest::Check>| {
        for c in &group {
            println!("{} {}{}", if c.ok { "ok  " } else { "FAIL" }, c.name, if c.detail.is_empty() { String::new() } else { format!(": {}", c.detail) });
        }
        checks.extend(group);
    };
    let probe = selftest::probe(&ctx, dev.subgroup_size)?;
    let probe_ok = probe.iter().all(|c| c.ok);
    report(probe);
    if probe_ok {
        if soak_case.is_none() {
            report(selftest::scan_checks(&ctx, dev.subgroup_size, max_n)?);
            report(selftest::sort_checks(&ctx, dev.subgroup_size, max_n)?);
            report(selftest::multisplit_checks(&ctx, dev.subgroup_size, max_n)?);
            report(selftest::perm_checks(&ctx, dev.subgroup_size, max_n)?);
        }
        if soak > 0.0 || soak_case.is_some() {
            let seed = soak_seed.unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64));
            println!("soak: seed {seed}, {soak} s, n up to {max_n} (replay a case: --soak-seed {seed} --soak-case K)");
            let (mut cases, mut refused) = (0, 0);
            let mut soak_cases = vkprims::soak::cases(&ctx, dev.subgroup_size, max_n, seed, std::time::Duration::from_secs_f64(soak), soak_case);
            for outcome in &mut soak_cases {
                match outcome {
                    vkprims::soak::Outcome::Checked(c) => {
                        cases += 1;
                        report(vec![c]);
                    }
                    vkprims::soak::Outcome::Refused { name, why } => {
                        refused += 1;
                        println!("skip {name}: refused: {why}");
                    }
                }
            }
            println!("soak: {cases} cases checked, {refused} refused, {} cached pipelines released", soak_cases.released_pipelines());
        }
    } else {
        report(vec![selftest::Check {
            name: "primitives".into(),
            ok: false,
            detail: "skipped: the subgroup probe failed, so no subgroup kernel can be trusted on this device/width".into(),
        }]);
    }
    let msgs = ctx.take_validation_messages();
    report(vec![selftest::Check {
        name: "validation layer".into(),
        ok: msgs.is_empty(),
        detail: if !ctx.validation_enabled() {
            "not enabled (--validate)".into()
        } else {
            msgs.first().cloned().unwrap_or_else(|| "no messages".into())
        },
    }]);
    let failed = checks.iter().filter(|c| !c.ok).count();
    println!("{} checks, {} failed", checks.len(), failed);
    if let Some(path) = json {
        let doc = serde_json::json!({ "device": ctx.info(), "subgroup_size": dev.subgroup_size, "checks": checks });
        std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap())
            .map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn run_compare(a: CompareArgs) -> vkprims::Result<ExitCode> {
    let CompareArgs { old, new, threshold } = a;
    let threshold = parse_threshold(&threshold)?;
    let (old, new) = (bench::Results::load(&old)?, bench::Results::load(&new)?);
    let (cmp, unmatched) = bench::compare::compare(&old, &new, threshold);
    print!("{}", bench::compare::table(&cmp));
    for u in unmatched {
        println!("{u}");
    }
    if cmp.iter().any(|c| c.verdict == bench::compare::Verdict::Slower) {
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn run_plot(a: PlotArgs) -> vkprims::Result<()> {
    let PlotArgs { files, out, primitive, timeline } = a;
    let loaded = files
        .iter()
        .map(|f| {
            let label = f.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            bench::Results::load(f).map(|r| (label, r))
        })
        .collect::<vkprims::Result<Vec<_>>>()?;
    if timeline {
        for path in bench::plot::plot_timelines(&loaded, &out)? {
            println!("{}", path.display());
        }
    } else {
        bench::plot::plot(&loaded, &primitive, &out)?;
    }
    Ok(())
}

fn run_pipelines(a: PipelinesArgs) -> vkprims::Result<()> {
    let PipelinesArgs { stats, binning_policy, dev } = a;
    let policies = if binning_policy.is_empty() {
        vec![BinningPolicy::default()]
    } else {
        binning_policy.iter().map(|p| BinningPolicy::parse(p)).collect::<vkprims::Result<Vec<_>>>()?
    };
    let ctx = dev.open()?;
    if stats && !ctx.capabilities().pipeline_executable_info {
        println!("{} does not report compiler statistics (no VK_KHR_pipeline_executable_properties)", ctx.info().name);
    }
    let show = |pipeline: &vkprims::gpu::Pipeline, what: String| -> vkprims::Result<()> {
        let mut line = format!("{} ({what})", pipeline.key.shader);
        if stats {
            for st in ctx.pipeline_stats(pipeline)? {
                line.push_str(&format!(" | {}: {}", st.name, st.value));
            }
        }
        println!("{line}");
        Ok(())
    };
    // A plan a policy asked for cannot make (a variant only some kernels have, such as
    // the phase clocks or timelines): a line saying so, and the listing goes on.
    let refused = |what: &str, e: vkprims::Error| println!("skipped: {what}: {e}");
    for dt in DType::ALL {
        for op in ScanOp::ALL {
            for kind in ScanKind::ALL {
                for n in [1u64 << 20, 1 << 28] {
                    let mut desc = ScanDesc::new(dt, op, kind, n.min(ctx.max_storage_buffer_range() / 4));
                    desc.pin_subgroup_size(&ctx, dev.subgroup_size);
                    let plan = ScanPlan::new(&ctx, desc)?;
                    let p = plan.desc().policy;
                    show(plan.pipeline(), format!("{} {} {}, wg {} vec {}, tile {}", kind.name(), op.name(), dt, p.workgroup_size, p.vec_per_lane, p.tile_elems()))?;
                }
            }
        }
    }
    // 2^28 elements, or what a binding holds, so that every pass a large sort runs is
    // listed (keys alone: the atomic first and class-round second).
    let large_n = |key: KeyType, value_bytes: u32| (1u64 << 28).min(ctx.max_storage_buffer_range() / (key.bytes() + value_bytes as u64));
    for key in KeyType::ALL {
        for value_bytes in [0, 4, 8] {
            let n = large_n(key, value_bytes);
            let mut desc = SortDesc::new(key, n);
            desc.value_bytes = value_bytes;
            desc.subgroup_size = dev.subgroup_size;
            for policy in &policies {
                let mut desc = desc.clone();
                desc.policy = *policy;
                let plan = match SortPlan::new(&ctx, desc) {
                    Ok(plan) => plan,
                    Err(e) => {
                        refused(&format!("sort {} values {value_bytes}B, {}", key.name(), policy.label()), e);
                        continue;
                    }
                };
                for (pass, p) in plan.pass_pipelines() {
                    show(p, format!("sort {} values {value_bytes}B {pass} pass, {}", key.name(), plan.policy_label()))?;
                }
            }
        }
    }
    // The 256-way split by a key's low byte, keys and pairs; the 1,000-way split of 4-byte
    // pairs by ids, a composed split's sort (its passes named), whose first pass reads the
    // keys and values and whose last writes them. Both rankings.
    let mut splits: Vec<(KeyType, u32, u64, BucketSource)> = Vec::new();
    for key in [KeyType::U32, KeyType::U64] {
        for value_bytes in [0, 4, 8] {
            splits.push((key, value_bytes, large_n(key, value_bytes), BucketSource::Bits { lo: 0, hi: 8 }));
        }
    }
    splits.push((KeyType::U32, 4, large_n(KeyType::U32, 8), BucketSource::Ids { buckets: 1000 }));
    for (key, value_bytes, n, source) in splits {
        let what = format!("multisplit {} values {value_bytes}B {} buckets", key.name(), source.buckets());
        for ranking in [Ranking::Stable, Ranking::Atomic] {
            for policy in &policies {
                let mut desc = MultisplitDesc::new(key, n, source);
                desc.value_bytes = value_bytes;
                desc.subgroup_size = dev.subgroup_size;
                desc.ranking = ranking;
                desc.policy = *policy;
                let plan = match MultisplitPlan::new(&ctx, desc) {
                    Ok(plan) => plan,
                    Err(e) => {
                        refused(&format!("{what}, {}", policy.label()), e);
                        continue;
                    }
                };
                for (pass, p) in plan.pass_pipelines() {
                    // (A split's one pass is named "split"; a composed split's sort passes by role.)
                    let pass = if pass == "split" { String::new() } else { format!(" {pass} pass") };
                    show(p, format!("{what}{pass}, {}", plan.policy_label()))?;
                }
            }
        }
    }
    for value_bytes in [4, 8] {
        let mut desc = PermDesc::new(1 << 28, value_bytes, 0);
        desc.n = desc.n.min(ctx.max_storage_buffer_range() / 8);
        desc.group_target = 4096;
        desc.subgroup_size = dev.subgroup_size;
        let plan = PermPlan::new(&ctx, desc.clone())?;
        show(plan.shuffle_pipeline(), format!("perm {value_bytes}B shuffle, {}", plan.policy_label()))?;
        // The indices' passes (first, middle, last) under each policy asked for.
        for policy in policies.iter().filter(|_| value_bytes == 4) {
            let plan = match PermPlan::new(&ctx, PermDesc { indices: true, policy: *policy, ..desc.clone() }) {
                Ok(plan) => plan,
                Err(e) => {
                    refused(&format!("perm indices, {}", policy.label()), e);
                    continue;
                }
            };
            for (role, p) in plan.pass_pipelines() {
                show(p, format!("perm indices {role} pass, {}", plan.policy_label()))?;
            }
        }
    }
    Ok(())
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
