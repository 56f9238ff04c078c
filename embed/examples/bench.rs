//! Embedding speed on one thread: load time, tokens per second over a real store cut
//! into chunks, query latency, peak RSS. Builds natively and as a wasm32-wasip2 command:
//!
//!     cargo run -p agent-memory-embed --release --example bench -- WEIGHTS [DIR]
//!     cargo build -p agent-memory-embed --release --example bench --target wasm32-wasip2
//!     cargo run -p agent-memory-embed-wasm-run --release -- \
//!         target/wasm32-wasip2/release/examples/bench.wasm WEIGHTS [DIR]
//!
//! A fourth argument `int8` reads the int8 weights in place (`Layout::Int8`, as the component
//! does) instead of unpacking them to f32 panels.
//!
//! DIR is a directory of Markdown (default `bench/eval/store`); each file is cut by
//! `chunk::chunk_note` into chunks of at most 64 word-pieces (the size the issue measured
//! best) prefixed with the file's name and headings, and each chunk is embedded.

use std::time::Instant;

use agent_memory_embed::chunk::{TARGET_PIECES, chunk_note};
use agent_memory_embed::{Embedder, Layout};

const QUERY: &str = "which city do our production servers run in these days";

fn markdown(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            markdown(&p, out);
        } else if p.extension().is_some_and(|e| e == "md") {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            out.extend(std::fs::read_to_string(&p).ok().map(|text| (name, text)));
        }
    }
}

/// CPU time of this thread in seconds (Linux): the machine is shared, so wall time is not
/// what the code costs. `None` inside wasm, where the runner reports its own CPU time.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? / 1e9)
}

/// Wall and CPU seconds of `f`.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, Option<f64>) {
    let (t, c) = (Instant::now(), cpu_secs());
    let out = f();
    let cpu = c.and_then(|c| Some(cpu_secs()? - c));
    (out, t.elapsed().as_secs_f64(), cpu)
}

fn cpu(c: Option<f64>) -> String {
    c.map_or("cpu n/a".into(), |c| format!("cpu {c:.2} s"))
}

/// Peak resident set, where the OS says (Linux); `None` inside wasm.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(weights) = args.first() else {
        eprintln!("usage: bench WEIGHTS [MARKDOWN-DIR] [MAX-CHUNKS] [panels|int8]");
        std::process::exit(2);
    };
    let dir = args.get(1).map_or("bench/eval/store", String::as_str);
    let max_chunks: usize = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let layout = match args.get(3).map(String::as_str) {
        Some("int8") => Layout::Int8,
        _ => Layout::Panels,
    };

    let t = Instant::now();
    let bytes =
        std::fs::read(weights).unwrap_or_else(|e| panic!("failed to read `{weights}`: {e}"));
    let read = t.elapsed();
    let t = Instant::now();
    let embedder = Embedder::from_vec(bytes, layout).expect("weights");
    let load = t.elapsed();
    println!("target      {}, {layout:?}", std::env::consts::ARCH);
    println!(
        "load        read {:.0} ms, unpack {:.0} ms",
        read.as_secs_f64() * 1e3,
        load.as_secs_f64() * 1e3
    );

    let mut docs = Vec::new();
    markdown(std::path::Path::new(dir), &mut docs);
    let count = |s: &str| embedder.tokenizer().pieces(s).len();
    let ((chunks, pieces), secs, cpu_s) = timed(|| {
        let chunks: Vec<Vec<u32>> = docs
            .iter()
            .flat_map(|(name, text)| chunk_note(name, text, TARGET_PIECES, &count))
            .map(|c| embedder.encode(&c.text))
            .collect();
        let pieces: usize = docs.iter().map(|(_, d)| count(d)).sum();
        (chunks, pieces)
    });
    let bytes: usize = docs.iter().map(|(_, d)| d.len()).sum();
    println!(
        "chunk       {} files, {bytes} bytes, {pieces} word-pieces, {} chunks, wall {:.0} ms, {}",
        docs.len(),
        chunks.len(),
        secs * 1e3,
        cpu(cpu_s)
    );

    // Prefixes and [CLS]/[SEP] make the encoder see more tokens than the text has pieces.
    let overhead = chunks.iter().map(Vec::len).sum::<usize>() as f64 / pieces.max(1) as f64;
    let chunks = &chunks[..chunks.len().min(max_chunks)];
    let _ = embedder.embed("warm up");
    // Everything the encoder sees: prefixes, [CLS] and [SEP] included.
    let embedded: usize = chunks.iter().map(Vec::len).sum();
    let ((), secs, cpu_s) = timed(|| {
        for c in chunks {
            std::hint::black_box(embedder.model().embed(c));
        }
    });
    let rate = embedded as f64 / cpu_s.unwrap_or(secs);
    println!(
        "embed       {} chunks: {embedded} tokens, wall {secs:.2} s, {}: {rate:.0} tokens/s ({})",
        chunks.len(),
        cpu(cpu_s),
        if cpu_s.is_some() {
            "cpu"
        } else {
            "monotonic clock; CPU time under wasm-run"
        }
    );
    println!(
        "store       {overhead:.2} tokens per word-piece of text; 250 KB (78000 word-pieces) would take {:.1} s",
        78_000.0 * overhead / rate
    );

    let n = embedder.encode(QUERY).len();
    let mut times: Vec<(f64, f64)> = (0..21)
        .map(|_| {
            let ((), wall, c) = timed(|| {
                std::hint::black_box(embedder.embed(QUERY));
            });
            (c.unwrap_or(wall) * 1e3, wall * 1e3)
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    println!(
        "query       {n} tokens: median {:.2} ms, max {:.2} ms ({}; wall median {:.2} ms)",
        times[10].0,
        times[20].0,
        if cpu_secs().is_some() {
            "cpu"
        } else {
            "monotonic"
        },
        times[10].1
    );
    match peak_rss_mib() {
        Some(m) => println!("peak rss    {m:.1} MiB"),
        None => println!("peak rss    not visible here (measure the host process)"),
    }
}
