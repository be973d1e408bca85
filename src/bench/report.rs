//! Human- and machine-readable output of result rows: a markdown table and CSV.

use super::Row;

fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.prec$}"))
}

fn result(r: &Row) -> String {
    let s: String = match (r.valid(), r.reset) {
        (true, true) => "ok".into(),
        (true, false) => "ok (no reset)".into(),
        (false, _) => r.validation.clone(),
    };
    match r.profile_warning() {
        Some(w) => format!("{s}; {w}"),
        None => s,
    }
}

/// The per-kernel breakdown of the rows profiled (`--profile`), the binning-pass phases and
/// look-back counts of rows timed with phase clocks (`xclocks`) and the tile timelines'
/// summaries (`xtimeline`), as markdown; empty without any.
pub fn kernels(rows: &[Row]) -> String {
    let mut s = String::new();
    for r in rows.iter().filter(|r| !r.kernels.is_empty()) {
        if s.is_empty() {
            s.push_str("\nKernels of each validation trial (a timestamp after every dispatch):\n\n| row | kernel | ms | share |\n|---|---|---:|---:|\n");
        }
        let total: f64 = r.kernels.iter().map(|k| k.1).sum();
        for (k, ms) in &r.kernels {
            s.push_str(&format!("| {} n={} | {k} | {ms:.4} | {:.0}% |\n", r.primitive, r.n, 100.0 * ms / total.max(1e-12)));
        }
    }
    for (i, r) in rows.iter().filter(|r| !r.phases.is_empty()).enumerate() {
        if i == 0 {
            s.push_str("\nBinning-pass phases (subgroup-clock cycles per tile, mean over the digit passes):\n\n| row | policy | phase | cycles/tile | share |\n|---|---|---|---:|---:|\n");
        }
        let total: f64 = r.phases.iter().map(|p| p.1).sum();
        for (p, c) in &r.phases {
            s.push_str(&format!("| {} n={} | {} | {p} | {c:.0} | {:.0}% |\n", r.primitive, r.n, r.policy.as_deref().unwrap_or("-"), 100.0 * c / total.max(1e-12)));
        }
    }
    let timelines = rows.iter().filter_map(|r| Some((r, super::timeline::summarise(&r.timeline)?)));
    for (i, (r, t)) in timelines.enumerate() {
        if i == 0 {
            s.push_str(
                "\nTile timelines of one middle pass (`xtimeline`; device clock; tiles at once and burstiness over the pass's middle 80%; \
                 in step: time two tiles of an SM were both in the phase, over chance):\n\n\
                 | row | policy | tiles | span us | resident | phase | mean us | tiles at once | burstiness | same-SM in step |\n\
                 |---|---|---:|---:|---:|---|---:|---:|---:|---:|\n",
            );
        }
        for p in &t.phases {
            s.push_str(&format!(
                "| {} n={} | {} | {} | {:.1} | {:.1} | {} | {:.3} | {:.1} | {:.2} | {:.2} |\n",
                r.primitive,
                r.n,
                r.policy.as_deref().unwrap_or("-"),
                t.tiles,
                t.span_us,
                t.resident,
                p.phase,
                p.mean_us,
                p.tiles_at_once,
                p.burstiness,
                p.same_sm_in_step
            ));
        }
    }
    for (i, r) in rows.iter().filter(|r| !r.lookback.is_empty()).enumerate() {
        if i == 0 {
            s.push_str("\nLook-back of invocation 0 (its buckets' walks; per tile, mean over the digit passes; the longest: of any tile):\n\n| row | policy | count | value |\n|---|---|---|---:|\n");
        }
        for (what, v) in &r.lookback {
            s.push_str(&format!("| {} n={} | {} | {what} | {v:.2} |\n", r.primitive, r.n, r.policy.as_deref().unwrap_or("-")));
        }
    }
    s
}

/// The markdown table the CLI prints.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::from(
        "| primitive | policy | n | median ms | min ms | spread | samples | G elem/s | B/elem | GB/s | of copy | look-back/tile | fallbacks | result |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    for r in rows {
        s.push_str(&format!(
            "| {} | {} | {} | {:.4} | {:.4} | {:.1}% | {} ({}) | {:.2} | {} | {:.1} | {} | {} | {} | {} |\n",
            r.primitive,
            r.policy.as_deref().unwrap_or("-"),
            r.n,
            r.stats.median_ns * 1e-6,
            r.stats.min_ns * 1e-6,
            r.stats.rel_spread * 100.0,
            r.stats.samples_ns.len(),
            r.stop_reason,
            r.elems_per_s * 1e-9,
            r.bytes_per_elem,
            r.gbps,
            opt(r.fraction_of_copy, 2),
            opt(r.lookback_rounds_per_tile, 2),
            r.fallbacks.map_or("-".into(), |v| v.to_string()),
            result(r),
        ));
    }
    s
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// One line per row; times in nanoseconds.
pub fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "primitive,policy,n,mode,subgroup_size,median_ns,min_ns,max_ns,q1_ns,q3_ns,rel_spread,samples,stop_reason,\
         elems_per_s,bytes_per_elem,gbps,copy_gbps,fraction_of_copy,validation,reset,lookback_rounds_per_tile,fallbacks,\
         submit_to_start_ns\n",
    );
    for r in rows {
        let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        let fields = [
            csv_field(&r.primitive),
            csv_field(r.policy.as_deref().unwrap_or("")),
            r.n.to_string(),
            format!("{:?}", r.mode),
            r.subgroup_size.map_or(String::new(), |v| v.to_string()),
            r.stats.median_ns.to_string(),
            r.stats.min_ns.to_string(),
            r.stats.max_ns.to_string(),
            r.stats.q1_ns.to_string(),
            r.stats.q3_ns.to_string(),
            r.stats.rel_spread.to_string(),
            r.stats.samples_ns.len().to_string(),
            r.stop_reason.clone(),
            r.elems_per_s.to_string(),
            r.bytes_per_elem.to_string(),
            r.gbps.to_string(),
            f(r.copy_gbps),
            f(r.fraction_of_copy),
            csv_field(&r.validation),
            r.reset.to_string(),
            f(r.lookback_rounds_per_tile),
            r.fallbacks.map_or(String::new(), |v| v.to_string()),
            f(r.submit_to_start_ns),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{stats::Stats, Mode};

    fn row(median_ms: f64, kernels_ms: &[f64]) -> Row {
        Row {
            primitive: "sort u32".into(),
            n: 1 << 20,
            policy: None,
            subgroup_size: None,
            mode: Mode::PerTrial,
            stats: Stats::from_samples(vec![median_ms * 1e6; 3]),
            stop_reason: "trials".into(),
            elems_per_s: 0.0,
            bytes_per_elem: 36.0,
            gbps: 0.0,
            copy_gbps: None,
            fraction_of_copy: None,
            validation: "ok".into(),
            reset: true,
            lookback_rounds_per_tile: None,
            fallbacks: None,
            invocations: None,
            submit_to_start_ns: None,
            pipeline_stats: Vec::new(),
            kernels: kernels_ms.iter().map(|&ms| ("k".to_string(), ms)).collect(),
            phases: Vec::new(),
            lookback: Vec::new(),
            timeline: Vec::new(),
        }
    }

    #[test]
    fn trials_slower_than_their_profile_are_flagged() {
        // Session 15's row: 1.99 ms trials, 0.08 + 0.007 + 0.54 ms profiled.
        let slow = row(1.99, &[0.08, 0.007, 0.54]);
        assert!((slow.profile_mismatch().unwrap() - 3.17).abs() < 0.01);
        assert!(table(&[slow]).contains("ok; trials 3.17x the profiled kernels"));
        // Trials a little faster than the profile (its timestamps), or unprofiled: not flagged.
        for r in [row(0.065, &[0.0077, 0.0046, 0.0146, 0.0141, 0.0141, 0.0141]), row(1.99, &[])] {
            assert_eq!(r.profile_mismatch(), None);
            assert!(table(&[r]).contains("| ok |"));
        }
    }
}
