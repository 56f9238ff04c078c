//! Write latency with history on and off, native and warm:
//! `cargo run --release -p agent-memory-core --example history_bench [N]`.
//!
//! For each workload (overwrite a 4 KiB note, overwrite MEMORY.md at 20 KiB,
//! append a 200-byte entry to a daily log growing to ~N×200 bytes) it runs
//! N writes on a fresh root per setting after 20 warm-up writes, and prints
//! the median and 95th percentile per write and the on/off ratio. The store
//! syncs to disk on every write, so the numbers are the disk's as much as
//! the code's: run both settings on the same filesystem.

use std::time::{Duration, Instant};

use agent_memory_core::{Memory, Options, Retention, WriteMode, WriteTarget};

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn run(retention: Retention, workload: &str, n: usize) -> (Duration, Duration) {
    let temp = tempfile::tempdir().expect("temp dir");
    let mut options = Options::new("/bench/app");
    options.retention = retention;
    options.source = "history_bench".into();
    let memory = Memory::open(temp.path(), options).expect("open");
    let write = |i: usize| {
        let result = match workload {
            "note 4 KiB overwrite" => {
                let text = format!("{i:08} {}\n", "n".repeat(4096));
                memory.write(
                    WriteTarget::Note,
                    &text,
                    WriteMode::Overwrite,
                    Some("bench"),
                )
            }
            "MEMORY.md 20 KiB overwrite" => {
                let text = format!("- {i:08} {}\n", "fact ".repeat(4096));
                memory.write(WriteTarget::LongTerm, &text, WriteMode::Overwrite, None)
            }
            _ => memory.append_daily(&format!("entry {i}"), &"log text ".repeat(20)),
        };
        result.expect("write");
    };
    for i in 0..20 {
        write(i);
    }
    let mut times: Vec<Duration> = (20..20 + n)
        .map(|i| {
            let start = Instant::now();
            write(i);
            start.elapsed()
        })
        .collect();
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.95))
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    println!("{n} writes each, warm, native; median / p95 per write");
    for workload in [
        "note 4 KiB overwrite",
        "MEMORY.md 20 KiB overwrite",
        "daily 200 B append",
    ] {
        let (off_med, off_p95) = run(Retention::OFF, workload, n);
        let (on_med, on_p95) = run(Retention::default(), workload, n);
        println!(
            "{workload:<28} history off {:>8.3} / {:>8.3} ms   on {:>8.3} / {:>8.3} ms   ratio {:.2}x",
            off_med.as_secs_f64() * 1e3,
            off_p95.as_secs_f64() * 1e3,
            on_med.as_secs_f64() * 1e3,
            on_p95.as_secs_f64() * 1e3,
            on_med.as_secs_f64() / off_med.as_secs_f64()
        );
    }
}
