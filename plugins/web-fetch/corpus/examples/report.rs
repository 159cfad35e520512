//! The corpus report for BENCHMARKS.md: per page, the judge's measures and the time to read
//! the page (decode and convert), the median of `AIRLOCK_BENCH_ITERS` runs (9).
//!
//! `cargo run --release -p web-fetch-corpus --example report`
#![allow(clippy::print_stdout, clippy::unwrap_used, reason = "a report program prints and stops loudly")]

#[path = "../tests/judge/mod.rs"]
mod judge;

use std::time::Instant;

use web_fetch_corpus::{corpus_dir, read};

fn main() {
    let dir = corpus_dir();
    let iters: usize = std::env::var("AIRLOCK_BENCH_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(9);
    let mut rows = Vec::new();
    for name in judge::pages(&dir) {
        let bytes = std::fs::read(dir.join("pages").join(format!("{name}.html"))).unwrap();
        rows.push((name.clone(), bytes, judge::UTF8.to_string(), name));
    }
    for (file, source, content_type) in judge::LEGACY {
        let bytes = std::fs::read(dir.join("legacy").join(file)).unwrap();
        rows.push((file.to_string(), bytes, content_type.to_string(), source.to_string()));
    }
    println!("| page | KiB | kept | U+FFFD | lone markers | leaked | `&name;` left | tables (no header) | ms | MB/s |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut all_bytes, mut all_secs, mut lone, mut leaked, mut left, mut fffd, mut tables, mut headless) =
        (0, 0.0, 0, 0, 0, 0, 0, 0);
    let mut kept = Vec::new();
    for (name, bytes, content_type, source) in rows {
        let original = std::fs::read_to_string(dir.join("pages").join(format!("{source}.html"))).unwrap();
        let reference = judge::reference(&original);
        let mut times = Vec::new();
        let mut markdown = String::new();
        for _ in 0..iters {
            let started = Instant::now();
            let (_, md) = read(&bytes, &content_type).unwrap();
            times.push(started.elapsed().as_secs_f64());
            markdown = md;
        }
        times.sort_by(f64::total_cmp);
        let secs = times[times.len() / 2];
        let j = judge::judge(&reference, &markdown);
        all_bytes += bytes.len();
        all_secs += secs;
        lone += j.lone_markers;
        leaked += j.leaked.len();
        left += j.references_left;
        fffd += j.replacement;
        tables += j.tables;
        headless += j.tables_without_header;
        kept.push(j.kept);
        println!(
            "| {name} | {} | {:.1} % | {} | {} | {} | {} | {} ({}) | {:.2} | {:.1} |",
            bytes.len() / 1024,
            j.kept * 100.0,
            j.replacement,
            j.lone_markers,
            j.leaked.len(),
            j.references_left,
            j.tables,
            j.tables_without_header,
            secs * 1000.0,
            bytes.len() as f64 / secs / 1e6,
        );
    }
    let mean = kept.iter().sum::<f64>() / kept.len() as f64;
    let min = kept.iter().copied().fold(1.0, f64::min);
    println!(
        "| all ({} pages) | {} | mean {:.1} %, min {:.1} % | {fffd} | {lone} | {leaked} | {left} | {tables} ({headless}) | {:.1} | {:.1} |",
        kept.len(),
        all_bytes / 1024,
        mean * 100.0,
        min * 100.0,
        all_secs * 1000.0,
        all_bytes as f64 / all_secs / 1e6,
    );
}
