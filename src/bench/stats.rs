//! Order statistics of timing samples.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Stats {
    pub median_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub q1_ns: f64,
    pub q3_ns: f64,
    /// (q3 - q1) / median.
    pub rel_spread: f64,
    pub samples_ns: Vec<f64>,
}

/// Linear-interpolated quantile of sorted data.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

impl Stats {
    pub fn from_samples(samples_ns: Vec<f64>) -> Stats {
        assert!(!samples_ns.is_empty(), "at least one sample");
        let mut s = samples_ns.clone();
        s.sort_by(f64::total_cmp);
        let median_ns = quantile(&s, 0.5);
        let (q1_ns, q3_ns) = (quantile(&s, 0.25), quantile(&s, 0.75));
        Stats {
            median_ns,
            min_ns: s[0],
            max_ns: s[s.len() - 1],
            q1_ns,
            q3_ns,
            rel_spread: if median_ns > 0.0 { (q3_ns - q1_ns) / median_ns } else { 0.0 },
            samples_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn quartiles() {
        let s = Stats::from_samples(vec![5.0, 1.0, 3.0, 2.0, 4.0]);
        assert_eq!((s.min_ns, s.q1_ns, s.median_ns, s.q3_ns, s.max_ns), (1.0, 2.0, 3.0, 4.0, 5.0));
        assert!((s.rel_spread - 2.0 / 3.0).abs() < 1e-12);
    }
}
