//! Axes and their cartesian product, run in a stable order, and the results file.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{bench_copy, bench_multisplit, bench_perm, bench_scan, bench_sort, Arena, BenchOptions, Row, SplitCase};
use crate::prims::binning::{BinningPolicy, Ranking};
use crate::error::{invalid, Error, Result};
use crate::gpu::{Context, DeviceInfo};
use crate::prims::scan::{ScanDesc, ScanKind, ScanOp, ScanPolicy};
use crate::prims::sort::{KeyType, SortDesc};
use crate::prims::DType;

/// Which primitives a sweep covers. Copy rows (the references) come with every sweep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum What {
    Copy,
    Scan,
    Sort,
    Multisplit,
    Perm,
    /// Every primitive built so far (scan, reduce, sort, multisplit, perm).
    All,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sweep {
    pub what: What,
    pub sizes: Vec<u64>,
    pub dtypes: Vec<DType>,
    pub ops: Vec<ScanOp>,
    pub kinds: Vec<ScanKind>,
    /// `None`: the tuned policy for each n ([`ScanPolicy::for_n`]).
    pub policies: Vec<Option<ScanPolicy>>,
    /// Sort axes: key types, value sizes (0: keys only) and directions.
    #[serde(default)]
    pub keys: Vec<KeyType>,
    #[serde(default)]
    pub values: Vec<u32>,
    #[serde(default)]
    pub descending: Vec<bool>,
    /// Multisplit bucket counts (key types and value sizes from the sort axes).
    #[serde(default)]
    pub buckets: Vec<u32>,
    /// Binning-pass policies for sort, multisplit and permutation (`None`: the default).
    #[serde(default)]
    pub binning_policies: Vec<Option<BinningPolicy>>,
    /// Rankings for sort and multisplit (the permutation: atomic = its default mode, stable =
    /// reproducible).
    #[serde(default)]
    pub rankings: Vec<Ranking>,
    pub opts: BenchOptions,
}

impl Sweep {
    /// Rows the sweep will produce (for progress).
    pub fn len(&self) -> usize {
        let scans = self.dtypes.len() * self.ops.len() * self.kinds.len() * self.policies.len();
        let binning = self.binning_policies.len().max(1) * self.rankings.len().max(1);
        let sorts = self.keys.len() * self.values.len() * self.descending.len() * binning;
        let splits = self.keys.len() * self.values.len() * self.buckets.len() * binning;
        let perms = self.values.len() * binning;
        let per_n = match self.what {
            What::Copy => 0,
            What::Scan => scans,
            What::Sort => sorts,
            What::Multisplit => splits,
            What::Perm => perms,
            What::All => scans + sorts + splits + perms,
        };
        self.sizes.len() * (2 + per_n)
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The results file (`--json`): versioned, self-describing, comparable across machines.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    /// "vkprims.bench/1"; bench/schema/results-v1.json describes it.
    pub schema: String,
    pub vkprims_version: String,
    /// The git commit the binary was built from ("-dirty" when the tree had changes).
    pub git_commit: String,
    pub command: Vec<String>,
    pub device: DeviceInfo,
    pub sweep: Sweep,
    pub rows: Vec<Row>,
}

pub const SCHEMA: &str = "vkprims.bench/1";

impl Results {
    pub fn all_valid(&self) -> bool {
        self.rows.iter().all(Row::valid)
    }
    pub fn load(path: &std::path::Path) -> Result<Results> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Invalid(format!("{}: {e}", path.display())))?;
        let r: Results = serde_json::from_str(&text)
            .map_err(|e| Error::Invalid(format!("{}: not a vkprims results file ({e})", path.display())))?;
        if r.schema != SCHEMA {
            return invalid(format!("{}: schema '{}', expected '{SCHEMA}'", path.display(), r.schema));
        }
        Ok(r)
    }
}

/// Sizes a sweep uses by default: 2^20, 2^24, 2^28 on GPUs, 2^16, 2^20, 2^22 on CPU devices,
/// within the device's buffer limit.
pub fn default_sizes(ctx: &Context) -> Vec<u64> {
    let d: &[u64] = if ctx.info().device_type == "cpu" { &[1 << 16, 1 << 20, 1 << 22] } else { &[1 << 20, 1 << 24, 1 << 28] };
    d.iter().copied().filter(|&n| n <= ctx.max_storage_buffer_range() / 4).collect()
}

fn parse_one(s: &str) -> Result<(u64, Option<u32>)> {
    let bad = || Error::Invalid(format!("bad size '{s}' (an integer, 2^K, or a range A:B:STEP)"));
    let s = s.trim();
    match s.split_once('^') {
        Some((b, e)) => {
            let (b, e) = (b.parse::<u64>().map_err(|_| bad())?, e.parse::<u32>().map_err(|_| bad())?);
            Ok((b.checked_pow(e).ok_or_else(bad)?, (b == 2).then_some(e)))
        }
        None => Ok((s.parse().map_err(|_| bad())?, None)),
    }
}

/// Sizes from the command line: a comma list of integers, powers (`2^20`) and ranges
/// `A:B:STEP`. A range of powers of two steps the exponent (`2^16:2^28:2` = 2^16, 2^18, ...,
/// 2^28); a range of integers steps linearly (`1000:5000:1000`).
pub fn parse_sizes(items: &[String]) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    for item in items {
        let parts: Vec<&str> = item.split(':').collect();
        match parts[..] {
            [one] => out.push(parse_one(one)?.0),
            [a, b, step] => {
                let bad = || Error::Invalid(format!("bad range '{item}' (A:B:STEP with A <= B and STEP >= 1)"));
                let ((a, ea), (b, eb)) = (parse_one(a)?, parse_one(b)?);
                let step: u64 = step.trim().parse().map_err(|_| bad())?;
                if step == 0 || a > b {
                    return Err(bad());
                }
                match (ea, eb) {
                    (Some(ea), Some(eb)) => out.extend((ea..=eb).step_by(step as usize).map(|e| 1u64 << e)),
                    _ => out.extend((a..=b).step_by(step as usize)),
                }
            }
            _ => return invalid(format!("bad size '{item}' (an integer, 2^K, or a range A:B:STEP)")),
        }
    }
    Ok(out)
}

/// Run a sweep; `progress` sees each row as it completes.
pub fn run_sweep(ctx: &Arc<Context>, sweep: &Sweep, command: &[String], mut progress: impl FnMut(&Row)) -> Result<Results> {
    sweep.opts.check()?;
    for &n in &sweep.sizes {
        crate::prims::check_len(ctx, "bench", n, 4)?;
    }
    let mut rows = Vec::new();
    let mut arena = Arena::new(ctx, sweep.sizes.iter().copied().max().unwrap_or(1), &sweep.opts)?;
    for &n in &sweep.sizes {
        let copies = bench_copy(ctx, &mut arena, n, &sweep.opts)?;
        let best = copies.iter().map(|r| r.gbps).fold(0.0, f64::max);
        // Each row is reported as soon as it is measured (a sweep cut short by a time limit
        // still leaves the rows it finished in the log).
        let mut emit = |mut r: Row| {
            r.copy_gbps = Some(best);
            r.fraction_of_copy = Some(r.gbps / best);
            progress(&r);
            rows.push(r);
        };
        copies.into_iter().for_each(&mut emit);
        if matches!(sweep.what, What::Scan | What::All) {
            for &dt in &sweep.dtypes {
                for &op in &sweep.ops {
                    for &kind in &sweep.kinds {
                        for p in &sweep.policies {
                            let mut desc = ScanDesc::new(dt, op, kind, n);
                            if let Some(p) = p {
                                desc.policy = *p;
                            }
                            emit(bench_scan(ctx, &mut arena, &desc, &sweep.opts)?);
                        }
                    }
                }
            }
        }
        let policies: &[Option<BinningPolicy>] = if sweep.binning_policies.is_empty() { &[None] } else { &sweep.binning_policies };
        let rankings: &[Ranking] = if sweep.rankings.is_empty() { &[Ranking::Stable] } else { &sweep.rankings };
        for (p, &ranking) in policies.iter().flat_map(|p| rankings.iter().map(move |r| (p, r))) {
            let policy = p.unwrap_or_default();
            if matches!(sweep.what, What::Sort | What::All) {
                for &key in &sweep.keys {
                    for &value_bytes in &sweep.values {
                        for &descending in &sweep.descending {
                            let mut desc = SortDesc::new(key, n);
                            desc.value_bytes = value_bytes;
                            desc.descending = descending;
                            desc.policy = policy;
                            desc.ranking = ranking;
                            emit(bench_sort(ctx, &mut arena, &desc, &sweep.opts)?);
                        }
                    }
                }
            }
            if matches!(sweep.what, What::Multisplit | What::All) {
                for &key in &sweep.keys {
                    for &value_bytes in &sweep.values {
                        for &b in &sweep.buckets {
                            let split = SplitCase { key, n, buckets: b, value_bytes, ranking, policy };
                            emit(bench_multisplit(ctx, &mut arena, &split, &sweep.opts)?);
                        }
                    }
                }
            }
            if matches!(sweep.what, What::Perm | What::All) {
                // Element sizes from the value axis; 0: the permutation of indices.
                for &value_bytes in &sweep.values {
                    let reproducible = ranking == Ranking::Stable;
                    emit(bench_perm(ctx, &mut arena, n, value_bytes, reproducible, policy, &sweep.opts)?);
                }
            }
        }
    }
    Ok(Results {
        schema: SCHEMA.into(),
        vkprims_version: env!("CARGO_PKG_VERSION").into(),
        git_commit: env!("VKPRIMS_GIT_COMMIT").into(),
        command: command.to_vec(),
        device: ctx.info().clone(),
        sweep: sweep.clone(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sizes() {
        let s = |v: &[&str]| parse_sizes(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(s(&["2^16:2^20:2"]).unwrap(), vec![1 << 16, 1 << 18, 1 << 20]);
        assert_eq!(s(&["1000:3000:1000", "7", "2^3"]).unwrap(), vec![1000, 2000, 3000, 7, 8]);
        assert!(s(&["2^20:2^16:2"]).is_err());
        assert!(s(&["1:5:0"]).is_err());
        assert!(s(&["abc"]).unwrap_err().to_string().contains("bad size 'abc'"));
    }
}
