//! What the benchmarks share: timing samples and their summary (median, p10, p90), the
//! machine's load when they ran, and knobs read from the environment. Benchmarks print
//! figures; they never assert on timings (BENCHMARKS.md records the results).

#![allow(dead_code, reason = "each benchmark uses part of this module")]

use std::fmt;
use std::time::{Duration, Instant};

/// Samples of one measurement, summarised by rank.
#[derive(Debug, Clone)]
pub struct Summary {
    pub median: Duration,
    pub p10: Duration,
    pub p90: Duration,
    pub min: Duration,
    pub max: Duration,
    pub runs: usize,
}

impl Summary {
    /// Summarises samples (nearest rank). Panics on an empty set: a benchmark that took no
    /// samples is broken.
    pub fn of(samples: &[Duration]) -> Self {
        assert!(!samples.is_empty(), "no samples");
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        let rank = |p: f64| sorted[((sorted.len() - 1) as f64 * p).round() as usize];
        Self {
            median: rank(0.5),
            p10: rank(0.1),
            p90: rank(0.9),
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            runs: sorted.len(),
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "median {:>9}  p10 {:>9}  p90 {:>9}  min {:>9}  max {:>9}  n={}",
            human(self.median),
            human(self.p10),
            human(self.p90),
            human(self.min),
            human(self.max),
            self.runs
        )
    }
}

/// A duration in the unit that suits it: `812 ns`, `23.4 µs`, `12.3 ms`, `1.52 s`.
pub fn human(duration: Duration) -> String {
    let nanos = duration.as_nanos() as f64;
    if nanos < 1e3 {
        format!("{nanos:.0} ns")
    } else if nanos < 1e6 {
        format!("{:.1} µs", nanos / 1e3)
    } else if nanos < 1e9 {
        format!("{:.1} ms", nanos / 1e6)
    } else {
        format!("{:.2} s", nanos / 1e9)
    }
}

/// Prints one result line.
pub fn report(label: &str, summary: &Summary) {
    println!("{label:<58} {summary}");
}

/// Runs `step` `warmup` times untimed, then `runs` times timed.
pub fn sample(warmup: usize, runs: usize, mut step: impl FnMut()) -> Vec<Duration> {
    for _ in 0..warmup {
        step();
    }
    (0..runs)
        .map(|_| {
            let started = Instant::now();
            step();
            started.elapsed()
        })
        .collect()
}

/// A count from the environment (`AIRLOCK_BENCH_RUNS=10 cargo bench ...`), or `default`.
pub fn count_from_env(variable: &str, default: usize) -> usize {
    std::env::var(variable).ok().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(default)
}

/// The 1, 5 and 15 minute load averages, to judge how noisy a result may be.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// Prints the benchmark's header: what it is, the load, the sample counts.
pub fn header(title: &str, details: &str) {
    println!("== {title} ==");
    println!("load average {} · {details}", load_average());
}
