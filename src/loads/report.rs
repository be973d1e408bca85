//! The lab's markdown table and CSV (the JSON is `LabResults` serialised).

use super::run::{LabResults, LoadRow};

/// 1234567 -> "1.23 M" (SI prefixes, for rates).
fn si(v: f64) -> String {
    let (d, p) = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(d, _)| v.abs() >= *d)
        .unwrap_or((1.0, ""));
    format!("{:.2} {p}", v / d)
}

fn notes(r: &LoadRow) -> String {
    let mut n: Vec<String> = Vec::new();
    if let Some(reason) = &r.reason {
        n.push(format!("skipped: {reason}"));
    }
    n.extend(r.flags.iter().cloned());
    n.join("; ")
}

/// The table `vkprims loads` prints: case, resource, ms, ratio to the baseline (higher is
/// faster), loads/s, bytes/s, notes (skips, the doubling check, verification, latency).
pub fn table(res: &LabResults) -> String {
    let mut s = format!(
        "device: {} ({}, driver {} {}), subgroup size {}, {} invocations x {} loads, {} trials (median)\n\n",
        res.device.name,
        res.device.device_type,
        res.device.driver_name,
        res.device.driver_version,
        res.subgroup_size,
        res.options.threads,
        res.options.loads,
        res.options.trials
    );
    s.push_str(&format!("| case | Vulkan resource | ms | vs {} | loads/s | bytes/s | notes |\n", res.baseline));
    s.push_str("|---|---|---:|---:|---:|---:|---|\n");
    for r in &res.rows {
        let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("-".to_string(), f);
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            r.case.replace('|', "\\|"),
            r.resource,
            opt(r.median_ms, &|v| format!("{v:.4}")),
            opt(r.ratio, &|v| format!("{v:.3}x")),
            opt(r.loads_per_s, &|v| format!("{}loads/s", si(v))),
            opt(r.bytes_per_s, &|v| format!("{}B/s", si(v))),
            notes(r),
        ));
    }
    s
}

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// One line per case; times in ms, rates per second.
pub fn csv(res: &LabResults) -> String {
    let mut s = String::from(
        "case,resource,group,status,reason,threads,loads_per_thread,bytes_per_load,median_ms,min_ms,max_ms,samples,\
         ratio,loads_per_s,bytes_per_s,doubling_ratio,latency_ns,latency_cycles,verified,flags\n",
    );
    for r in &res.rows {
        let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
        let st = r.stats.as_ref();
        let fields = [
            field(&r.case),
            field(&r.resource),
            r.group.clone(),
            r.status.clone(),
            field(r.reason.as_deref().unwrap_or("")),
            r.threads.to_string(),
            r.loads_per_thread.to_string(),
            r.bytes_per_load.to_string(),
            f(r.median_ms),
            f(st.map(|s| s.min_ns * 1e-6)),
            f(st.map(|s| s.max_ns * 1e-6)),
            st.map_or(String::new(), |s| s.samples_ns.len().to_string()),
            f(r.ratio),
            f(r.loads_per_s),
            f(r.bytes_per_s),
            f(r.doubling_ratio),
            f(r.latency_ns),
            f(r.latency_cycles),
            r.verified.map_or(String::new(), |v| v.to_string()),
            field(&r.flags.join("; ")),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}
