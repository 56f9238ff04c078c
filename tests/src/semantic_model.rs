//! The tiny embedding model of the semantic conformance vectors
//! (`conformance/semantic-model.safetensors`): a two-layer BERT in the
//! format `embed/scripts/derive.py` writes, so the same loader reads it in
//! every host.
//!
//! The meaning is in the word embeddings: each word of [`TOPICS`] points
//! along its topic's direction (plus a little noise of its own), so words of
//! one topic are near and words of two topics are not. The two encoder
//! layers are random and small: they run, and move every vector a little,
//! without deciding which file is nearest. Tokens outside the vocabulary
//! become `[UNK]`, whose embedding is zero like `[CLS]`'s and `[SEP]`'s.
//!
//! The file is checked in; `vectors.rs` rebuilds it and fails when the two
//! differ (`AGENT_MEMORY_BLESS=1` rewrites it).

use agent_memory_embed::safetensors::{Dtype, Entry, write};

/// The model's name in the file's metadata; status lines show its last part.
pub const NAME: &str = "agent-memory/conformance-tiny-bert";

/// The words of each topic, in vocabulary order.
pub const TOPICS: &[(&str, &[&str])] = &[
    (
        "place",
        &[
            "city",
            "region",
            "frankfurt",
            "ireland",
            "located",
            "hosted",
        ],
    ),
    ("machines", &["servers", "server", "cluster", "machines"]),
    (
        "tests",
        &["tests", "test", "ci", "flaky", "checks", "suite"],
    ),
    ("food", &["lunch", "pizza", "eat", "cafe", "fridays"]),
    ("login", &["login", "password", "sign", "session"]),
    ("versions", &["version", "ios", "oldest", "supported"]),
    ("style", &["tabs", "spaces", "indent", "format"]),
    ("data", &["database", "postgres", "backup", "nightly"]),
];

const SPECIAL: &[&str] = &["[PAD]", "[UNK]", "[CLS]", "[SEP]"];
const D: usize = 16;
const HEADS: usize = 4;
const FF: usize = 32;
const LAYERS: usize = 2;
const POSITIONS: usize = 32;
/// Weights per int8 scale (derive.py uses 64 for MiniLM's 384-wide rows).
const GROUP: usize = 16;

/// The vocabulary, one token a line, line number = id.
pub fn vocab() -> Vec<&'static str> {
    let mut v: Vec<&str> = SPECIAL.to_vec();
    v.extend(TOPICS.iter().flat_map(|(_, words)| words.iter().copied()));
    v
}

/// A fixed linear congruential generator: the file is the same on every
/// machine.
struct Rng(u64);

impl Rng {
    /// Uniform in [-1, 1).
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn tensor(&mut self, len: usize, scale: f32) -> Vec<f32> {
        (0..len).map(|_| self.next() * scale).collect()
    }
}

/// Topic `t` points along dimension `2t` (+1) and `2t + 1` (-1): mean zero,
/// so layer norm keeps the direction.
fn word_embeddings(rng: &mut Rng) -> Vec<f32> {
    let mut table = vec![0.0; SPECIAL.len() * D];
    for (t, (_, words)) in TOPICS.iter().enumerate() {
        for _ in words.iter() {
            let mut row = rng.tensor(D, 0.15);
            row[2 * t] += 1.0;
            row[2 * t + 1] -= 1.0;
            table.extend(row);
        }
    }
    table
}

/// Int8 with one scale per [`GROUP`] weights of a row, as derive.py
/// quantises: the bytes and the scales.
fn quantise(values: &[f32]) -> (Vec<u8>, Vec<u8>) {
    let (mut q, mut scales) = (Vec::new(), Vec::new());
    for group in values.chunks(GROUP) {
        let max = group.iter().fold(0.0f32, |a, x| a.max(x.abs()));
        let s = if max == 0.0 { 0.0 } else { max / 127.0 };
        scales.extend(s.to_le_bytes());
        for x in group {
            let i = if s == 0.0 {
                0
            } else {
                (x / s).round().clamp(-127.0, 127.0) as i8
            };
            q.push(i as u8);
        }
    }
    (q, scales)
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The weights file's bytes.
pub fn build() -> Vec<u8> {
    let mut rng = Rng(23);
    let vocab = vocab();
    let mut entries: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
    let int8 = |entries: &mut Vec<_>, name: String, rows: usize, cols: usize, v: &[f32]| {
        let (q, s) = quantise(v);
        entries.push((
            format!("{name}_scale"),
            Dtype::F32,
            vec![rows, cols / GROUP],
            s,
        ));
        entries.push((name, Dtype::I8, vec![rows, cols], q));
    };
    let words = word_embeddings(&mut rng);
    int8(
        &mut entries,
        "embeddings.word_embeddings.weight".into(),
        vocab.len(),
        D,
        &words,
    );
    let f32s = [
        (
            "embeddings.position_embeddings.weight",
            vec![POSITIONS, D],
            vec![0.0; POSITIONS * D],
        ),
        (
            "embeddings.token_type_embeddings.weight",
            vec![2, D],
            vec![0.0; 2 * D],
        ),
        ("embeddings.LayerNorm.weight", vec![D], vec![1.0; D]),
        ("embeddings.LayerNorm.bias", vec![D], vec![0.0; D]),
    ];
    for (name, shape, v) in f32s {
        entries.push((name.into(), Dtype::F32, shape, f32_bytes(&v)));
    }
    for l in 0..LAYERS {
        let p = format!("encoder.layer.{l}");
        for (name, m, k) in [
            ("attention.self.query", D, D),
            ("attention.self.key", D, D),
            ("attention.self.value", D, D),
            ("attention.output.dense", D, D),
            ("intermediate.dense", FF, D),
            ("output.dense", D, FF),
        ] {
            let w = rng.tensor(m * k, 0.3 / (k as f32).sqrt());
            int8(&mut entries, format!("{p}.{name}.weight"), m, k, &w);
            let b = rng.tensor(m, 0.02);
            entries.push((
                format!("{p}.{name}.bias"),
                Dtype::F32,
                vec![m],
                f32_bytes(&b),
            ));
        }
        for name in ["attention.output.LayerNorm", "output.LayerNorm"] {
            let g: Vec<f32> = rng.tensor(D, 0.05).iter().map(|v| 1.0 + v).collect();
            let b = rng.tensor(D, 0.02);
            entries.push((
                format!("{p}.{name}.weight"),
                Dtype::F32,
                vec![D],
                f32_bytes(&g),
            ));
            entries.push((
                format!("{p}.{name}.bias"),
                Dtype::F32,
                vec![D],
                f32_bytes(&b),
            ));
        }
    }
    let text = vocab.join("\n").into_bytes();
    entries.push(("vocab".into(), Dtype::U8, vec![text.len()], text));
    let refs: Vec<Entry<'_>> = entries
        .iter()
        .map(|(n, d, s, b)| (n.as_str(), *d, s.clone(), b.clone()))
        .collect();
    let (d, l, h, f, p) = (
        D.to_string(),
        LAYERS.to_string(),
        HEADS.to_string(),
        FF.to_string(),
        POSITIONS.to_string(),
    );
    let meta = [
        ("model", NAME),
        ("hidden_size", d.as_str()),
        ("num_hidden_layers", l.as_str()),
        ("num_attention_heads", h.as_str()),
        ("intermediate_size", f.as_str()),
        ("layer_norm_eps", "1"),
        ("max_tokens", p.as_str()),
    ];
    write(&refs, &meta)
}
