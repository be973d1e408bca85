//! Run-to-run comparison: rows matched by their parameters, a speed ratio and a verdict
//! from the quartile intervals.

use serde::Serialize;

use super::{Results, Row};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Faster,
    Slower,
    /// Within the threshold.
    Same,
    /// Beyond the threshold, but the quartile intervals overlap.
    Noisy,
}

#[derive(Clone, Debug, Serialize)]
pub struct Comparison {
    pub key: String,
    pub old_median_ns: f64,
    pub new_median_ns: f64,
    /// old / new time: above 1 is faster.
    pub speedup: f64,
    pub verdict: Verdict,
}

/// Verdict for one pair: a change beyond `threshold` (0.05 = 5%) whose quartile intervals do
/// not overlap is faster or slower; beyond it with overlapping intervals, noisy; else same.
pub fn verdict(old: &Row, new: &Row, threshold: f64) -> Verdict {
    let change = new.stats.median_ns / old.stats.median_ns - 1.0;
    let disjoint_slower = new.stats.q1_ns > old.stats.q3_ns;
    let disjoint_faster = new.stats.q3_ns < old.stats.q1_ns;
    if change.abs() <= threshold {
        Verdict::Same
    } else if change > 0.0 && disjoint_slower {
        Verdict::Slower
    } else if change < 0.0 && disjoint_faster {
        Verdict::Faster
    } else {
        Verdict::Noisy
    }
}

/// Match rows by key; also returns the keys found in only one file.
pub fn compare(old: &Results, new: &Results, threshold: f64) -> (Vec<Comparison>, Vec<String>) {
    let mut out = Vec::new();
    let mut unmatched = Vec::new();
    for n in &new.rows {
        match old.rows.iter().find(|o| o.key() == n.key()) {
            Some(o) => out.push(Comparison {
                key: n.key(),
                old_median_ns: o.stats.median_ns,
                new_median_ns: n.stats.median_ns,
                speedup: o.stats.median_ns / n.stats.median_ns,
                verdict: verdict(o, n, threshold),
            }),
            None => unmatched.push(format!("only in NEW: {}", n.key())),
        }
    }
    for o in &old.rows {
        if !new.rows.iter().any(|n| n.key() == o.key()) {
            unmatched.push(format!("only in OLD: {}", o.key()));
        }
    }
    (out, unmatched)
}

pub fn table(cmp: &[Comparison]) -> String {
    let mut s = String::from("| row | old ms | new ms | speedup | verdict |\n|---|---:|---:|---:|---|\n");
    for c in cmp {
        s.push_str(&format!(
            "| {} | {:.4} | {:.4} | {:.3}x | {:?} |\n",
            c.key,
            c.old_median_ns * 1e-6,
            c.new_median_ns * 1e-6,
            c.speedup,
            c.verdict
        ));
    }
    s
}
