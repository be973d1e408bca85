//! `cargo bench --bench scan`: the scan/reduce sweep through the library API, on the best
//! device present, printed as the CLI prints it. The same harness as `vkprims bench`.

use vkprims::bench::{self, BenchOptions, Sweep, What};
use vkprims::prims::scan::{ScanKind, ScanOp};
use vkprims::prims::DType;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = vkprims::Context::new(&Default::default())?;
    let sweep = Sweep {
        what: What::Scan,
        sizes: bench::default_sizes(&ctx),
        dtypes: vec![DType::U32],
        ops: vec![ScanOp::Add],
        kinds: ScanKind::ALL.to_vec(),
        policies: vec![None],
        keys: vec![],
        values: vec![],
        descending: vec![],
        buckets: vec![],
        binning_policies: vec![],
        rankings: vec![],
        opts: BenchOptions::for_device(&ctx),
    };
    let res = bench::run_sweep(&ctx, &sweep, &["cargo bench --bench scan".into()], |r| eprintln!("  {}", r.key()))?;
    println!("{}", ctx.info().name);
    print!("{}", bench::report::table(&res.rows));
    if !res.all_valid() {
        return Err("a benchmark row failed validation".into());
    }
    Ok(())
}
