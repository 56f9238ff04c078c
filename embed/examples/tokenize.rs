//! Prints the word-pieces of each file named on the command line, one JSON line per file
//! (`{"path": …, "ids": […]}`), for comparing the tokenizer with Hugging Face `tokenizers`:
//!
//!     cargo run -p agent-memory-embed --release --example tokenize -- WEIGHTS FILES… > ids.jsonl

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((weights, files)) = args.split_first() else {
        eprintln!("usage: tokenize WEIGHTS FILES…");
        std::process::exit(2);
    };
    let bytes =
        std::fs::read(weights).unwrap_or_else(|e| panic!("failed to read `{weights}`: {e}"));
    let embedder = agent_memory_embed::Embedder::from_bytes(&bytes).expect("weights");
    for path in files {
        let text = std::fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("failed to read `{path}`: {e}"));
        let ids = embedder.tokenizer().pieces(&text);
        println!("{}", serde_json::json!({ "path": path, "ids": ids }));
    }
}
