//! The BERT encoder of all-MiniLM-L6-v2 and its sentence pooling: embeddings and LayerNorm,
//! post-norm layers of multi-head self-attention and a GELU feed-forward block, mean pooling
//! over the tokens, L2 normalisation. One sequence at a time, so no padding and no mask.

use crate::Error;
use crate::half;
use crate::kernels;
use crate::safetensors::{Dtype, File, View};

/// Shape of the encoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Width of the hidden states and of the output vector.
    pub hidden: usize,
    /// Number of encoder layers.
    pub layers: usize,
    /// Attention heads per layer; `hidden` is a multiple of it.
    pub heads: usize,
    /// Width of the feed-forward block.
    pub intermediate: usize,
    /// LayerNorm epsilon.
    pub eps: f32,
    /// Most tokens a sequence may have, `[CLS]` and `[SEP]` included.
    pub max_tokens: usize,
}

/// How a loaded model holds its linear layers' weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Dequantised to f32 and packed in panels for [`kernels::gemm`]: the fastest products,
    /// at four times the memory and a few hundred milliseconds of unpacking. For bulk
    /// embedding.
    Panels,
    /// Left int8 in the file's own bytes and dequantised inside each product
    /// ([`kernels::gemm_q8`]): loads in milliseconds and adds no memory. For a process that
    /// embeds a query or two. An f32 file is unpacked to panels all the same.
    Int8,
}

/// A dense layer's weights.
#[derive(Debug)]
enum Weights {
    /// f32, packed by [`kernels::pack`].
    Panels(Vec<f32>),
    /// int8 at byte `at` of the model's kept file, one scale per `group` weights of a row.
    Int8 {
        at: usize,
        scale: Vec<f32>,
        group: usize,
    },
}

/// A dense layer `y = x Wᵀ + b`.
#[derive(Debug)]
struct Linear {
    w: Weights,
    bias: Vec<f32>,
    k: usize,
    m: usize,
}

impl Linear {
    fn new(w: &[f32], bias: Vec<f32>, m: usize, k: usize) -> Linear {
        Linear {
            w: Weights::Panels(kernels::pack(w, m, k)),
            bias,
            k,
            m,
        }
    }

    fn forward(&self, kept: &[u8], x: &[f32], n: usize) -> Vec<f32> {
        let mut y = vec![0.0; n * self.m];
        self.forward_into(kept, x, n, &mut y, self.m);
        y
    }

    /// Writes row `t` of the output at `y[t * ldy..][..m]`.
    fn forward_into(&self, kept: &[u8], x: &[f32], n: usize, y: &mut [f32], ldy: usize) {
        match &self.w {
            Weights::Panels(panels) if ldy == self.m => {
                kernels::gemm(x, n, self.k, panels, &self.bias, y, self.m);
            }
            Weights::Panels(panels) => {
                let mut tmp = vec![0.0; n * self.m];
                kernels::gemm(x, n, self.k, panels, &self.bias, &mut tmp, self.m);
                for (row, out) in tmp.chunks_exact(self.m).zip(y.chunks_mut(ldy)) {
                    out[..self.m].copy_from_slice(row);
                }
            }
            Weights::Int8 { at, scale, group } => {
                let q = &kept[*at..][..self.m * self.k];
                let w = (q, scale.as_slice(), *group);
                kernels::gemm_q8(x, n, self.k, w, &self.bias, y, ldy, self.m);
            }
        }
    }
}

#[derive(Debug)]
struct Norm {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

#[derive(Debug)]
struct Layer {
    /// Query, key and value: one fused product of `3 * hidden` outputs (panels), or three
    /// that write side by side (int8).
    qkv: Vec<Linear>,
    attn_out: Linear,
    norm1: Norm,
    up: Linear,
    down: Linear,
    norm2: Norm,
}

/// Word embeddings stay int8 in memory: only a few rows are read per sequence.
#[derive(Debug)]
enum Table {
    F32(Vec<f32>),
    I8 {
        q: Vec<i8>,
        scale: Vec<f32>,
        group: usize,
    },
    /// int8 at byte `at` of the model's kept file.
    Kept {
        at: usize,
        scale: Vec<f32>,
        group: usize,
    },
}

/// The bytes of a weights file that a model reads its int8 weights from in place: a
/// `Vec<u8>`, or a host's read-only map of the file.
pub type Bytes = Box<dyn AsRef<[u8]> + Send + Sync>;

/// A loaded encoder.
pub struct Model {
    /// The weights file, kept when int8 weights are read in place ([`Layout::Int8`]).
    kept: Bytes,
    config: Config,
    vocab: usize,
    words: Table,
    positions: Vec<f32>,
    token_type: Vec<f32>,
    norm: Norm,
    layers: Vec<Layer>,
}

struct Loader<'a> {
    file: &'a File<'a>,
    /// The whole file's bytes when int8 weights stay in place.
    int8_in: Option<&'a [u8]>,
}

impl Loader<'_> {
    fn view(&self, name: &str) -> Result<View<'_>, Error> {
        self.file
            .get(name)
            .ok_or_else(|| Error::Format(format!("no tensor `{name}`")))
    }

    fn shape(&self, name: &str, want: &[usize]) -> Result<View<'_>, Error> {
        let v = self.view(name)?;
        if v.shape != want {
            return Err(Error::Format(format!(
                "tensor `{name}` has shape {:?}, expected {want:?}",
                v.shape
            )));
        }
        Ok(v)
    }

    fn floats(v: View<'_>) -> Vec<f32> {
        match v.dtype {
            Dtype::F32 => v
                .data
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                .collect(),
            Dtype::F16 => v
                .data
                .chunks_exact(2)
                .map(|b| half::to_f32(u16::from_le_bytes([b[0], b[1]])))
                .collect(),
            Dtype::I8 | Dtype::U8 => v.data.iter().map(|&b| b as i8 as f32).collect(),
        }
    }

    fn vector(&self, name: &str, len: usize) -> Result<Vec<f32>, Error> {
        Ok(Self::floats(self.shape(name, &[len])?))
    }

    /// An int8 matrix's per-group scales: `[rows, groups]`, `cols` a multiple of `groups`.
    fn scales(&self, name: &str, rows: usize, cols: usize) -> Result<(Vec<f32>, usize), Error> {
        let s = self.view(&format!("{name}_scale"))?;
        let groups = match s.shape {
            [r, g] if *r == rows && *g > 0 && cols.is_multiple_of(*g) => *g,
            [r] if *r == rows => 1,
            _ => {
                return Err(Error::Format(format!(
                    "tensor `{name}_scale` has shape {:?} for a {rows}x{cols} matrix",
                    s.shape
                )));
            }
        };
        Ok((Self::floats(s), cols / groups))
    }

    /// Where `v`'s data starts in the kept file, when int8 weights stay in place.
    fn kept_at(&self, v: &View<'_>) -> Option<usize> {
        let base = self.int8_in?;
        (v.dtype == Dtype::I8).then(|| v.data.as_ptr().addr() - base.as_ptr().addr())
    }

    fn table(&self, name: &str, rows: usize, cols: usize) -> Result<Table, Error> {
        let v = self.shape(name, &[rows, cols])?;
        if v.dtype != Dtype::I8 {
            return Ok(Table::F32(Self::floats(v)));
        }
        let (scale, group) = self.scales(name, rows, cols)?;
        if let Some(at) = self.kept_at(&v) {
            return Ok(Table::Kept { at, scale, group });
        }
        Ok(Table::I8 {
            q: v.data.iter().map(|&b| b as i8).collect(),
            scale,
            group,
        })
    }

    fn matrix(&self, name: &str, rows: usize, cols: usize) -> Result<Vec<f32>, Error> {
        let v = self.shape(name, &[rows, cols])?;
        let mut w = Self::floats(v);
        if v.dtype == Dtype::I8 {
            let (scale, group) = self.scales(name, rows, cols)?;
            for (chunk, s) in w.chunks_mut(group).zip(&scale) {
                chunk.iter_mut().for_each(|x| *x *= s);
            }
        }
        Ok(w)
    }

    fn linear(&self, prefix: &str, m: usize, k: usize) -> Result<Linear, Error> {
        let name = format!("{prefix}.weight");
        let b = self.vector(&format!("{prefix}.bias"), m)?;
        let v = self.shape(&name, &[m, k])?;
        if let Some(at) = self.kept_at(&v) {
            let (scale, group) = self.scales(&name, m, k)?;
            let w = Weights::Int8 { at, scale, group };
            return Ok(Linear { w, bias: b, k, m });
        }
        let w = self.matrix(&name, m, k)?;
        Ok(Linear::new(&w, b, m, k))
    }

    /// Query, key and value of layer `p`: fused when packed, three products in place.
    fn qkv(&self, p: &str, d: usize) -> Result<Vec<Linear>, Error> {
        let parts = ["query", "key", "value"].map(|part| format!("{p}.attention.self.{part}"));
        let kept = parts.iter().all(|part| {
            self.view(&format!("{part}.weight"))
                .is_ok_and(|v| self.kept_at(&v).is_some())
        });
        if kept {
            return parts.iter().map(|part| self.linear(part, d, d)).collect();
        }
        let mut qkv = Vec::with_capacity(3 * d * d);
        let mut bias = Vec::with_capacity(3 * d);
        for part in &parts {
            qkv.extend(self.matrix(&format!("{part}.weight"), d, d)?);
            bias.extend(self.vector(&format!("{part}.bias"), d)?);
        }
        Ok(vec![Linear::new(&qkv, bias, 3 * d, d)])
    }

    fn norm(&self, prefix: &str, d: usize) -> Result<Norm, Error> {
        Ok(Norm {
            gamma: self.vector(&format!("{prefix}.weight"), d)?,
            beta: self.vector(&format!("{prefix}.bias"), d)?,
        })
    }
}

fn meta<T: std::str::FromStr>(file: &File<'_>, key: &str) -> Result<T, Error> {
    file.meta(key)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| Error::Format(format!("metadata `{key}` is missing or not a number")))
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("config", &self.config)
            .field("vocab", &self.vocab)
            .field("int8_in_place", &!self.kept().is_empty())
            .finish_non_exhaustive()
    }
}

impl Model {
    /// Loads the encoder from a parsed weights file (names as in Hugging Face's BertModel).
    ///
    /// # Errors
    /// [`Error::Format`] when the metadata or a tensor is missing or has the wrong shape.
    pub fn load(file: &File<'_>) -> Result<Model, Error> {
        Model::load_from(file, None)
    }

    /// Loads the encoder with its int8 weights left in `bytes`, the file `file` was parsed
    /// from ([`Layout::Int8`]); the model keeps them. f32 weights are unpacked as by
    /// [`Model::load`].
    ///
    /// # Errors
    /// As [`Model::load`].
    pub fn load_in_place(bytes: Bytes) -> Result<Model, Error> {
        let mut model = {
            let data = (*bytes).as_ref();
            let file = File::parse(data)?;
            Model::load_from(&file, Some(data))?
        };
        model.kept = bytes;
        Ok(model)
    }

    fn kept(&self) -> &[u8] {
        (*self.kept).as_ref()
    }

    fn load_from(file: &File<'_>, int8_in: Option<&[u8]>) -> Result<Model, Error> {
        let config = Config {
            hidden: meta(file, "hidden_size")?,
            layers: meta(file, "num_hidden_layers")?,
            heads: meta(file, "num_attention_heads")?,
            intermediate: meta(file, "intermediate_size")?,
            eps: meta(file, "layer_norm_eps")?,
            max_tokens: meta(file, "max_tokens")?,
        };
        let (d, f) = (config.hidden, config.intermediate);
        if config.heads == 0 || d % config.heads != 0 {
            return Err(Error::Format(format!(
                "{} heads do not divide hidden size {d}",
                config.heads
            )));
        }
        let l = Loader { file, int8_in };
        let words = l.view("embeddings.word_embeddings.weight")?;
        let vocab = words.shape.first().copied().unwrap_or(0);
        let positions = l.view("embeddings.position_embeddings.weight")?;
        if positions
            .shape
            .first()
            .is_none_or(|&p| p < config.max_tokens)
        {
            return Err(Error::Format(format!(
                "fewer position embeddings than max_tokens {}",
                config.max_tokens
            )));
        }
        let positions = l.matrix(
            "embeddings.position_embeddings.weight",
            positions.shape[0],
            d,
        )?;
        // Every token is of type 0: one sequence, never a pair.
        let token_type = l.view("embeddings.token_type_embeddings.weight")?;
        if token_type.dtype != Dtype::F32
            || token_type.shape.get(1) != Some(&d)
            || token_type.shape[0] == 0
        {
            return Err(Error::Format(
                "token type embeddings are not f32 [_, hidden]".into(),
            ));
        }
        let token_type = Loader::floats(token_type)[..d].to_vec();
        let mut layers = Vec::with_capacity(config.layers);
        for i in 0..config.layers {
            let p = format!("encoder.layer.{i}");
            layers.push(Layer {
                qkv: l.qkv(&p, d)?,
                attn_out: l.linear(&format!("{p}.attention.output.dense"), d, d)?,
                norm1: l.norm(&format!("{p}.attention.output.LayerNorm"), d)?,
                up: l.linear(&format!("{p}.intermediate.dense"), f, d)?,
                down: l.linear(&format!("{p}.output.dense"), d, f)?,
                norm2: l.norm(&format!("{p}.output.LayerNorm"), d)?,
            });
        }
        Ok(Model {
            kept: Box::new(Vec::new()),
            config,
            vocab,
            words: l.table("embeddings.word_embeddings.weight", vocab, d)?,
            positions,
            token_type,
            norm: l.norm("embeddings.LayerNorm", d)?,
            layers,
        })
    }

    /// The encoder's shape.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Number of rows of the word embedding table.
    pub fn vocab_size(&self) -> usize {
        self.vocab
    }

    fn word(&self, id: usize, out: &mut [f32]) {
        let d = self.config.hidden;
        match &self.words {
            Table::F32(w) => out.copy_from_slice(&w[id * d..][..d]),
            Table::I8 { q, scale, group } => {
                let row = &q[id * d..][..d];
                let scales = &scale[id * d / group..];
                for (i, (o, &v)) in out.iter_mut().zip(row).enumerate() {
                    *o = v as f32 * scales[i / group];
                }
            }
            Table::Kept { at, scale, group } => {
                let row = &self.kept()[at + id * d..][..d];
                let scales = &scale[id * d / group..];
                for (i, (o, &v)) in out.iter_mut().zip(row).enumerate() {
                    *o = f32::from(v as i8) * scales[i / group];
                }
            }
        }
    }

    /// The unit-length sentence vector of `ids` (with `[CLS]` and `[SEP]`; at most
    /// `max_tokens`, more are cut). Ids outside the vocabulary panic.
    pub fn embed(&self, ids: &[u32]) -> Vec<f32> {
        let c = &self.config;
        let (d, heads) = (c.hidden, c.heads);
        let ids = &ids[..ids.len().min(c.max_tokens)];
        let n = ids.len();
        if n == 0 {
            return vec![0.0; d];
        }
        let mut x = vec![0.0; n * d];
        for (t, (row, &id)) in x.chunks_exact_mut(d).zip(ids).enumerate() {
            assert!(
                (id as usize) < self.vocab,
                "token id {id} outside the vocabulary"
            );
            self.word(id as usize, row);
            for ((v, p), ty) in row
                .iter_mut()
                .zip(&self.positions[t * d..])
                .zip(&self.token_type)
            {
                *v += p + ty;
            }
        }
        layer_norm(&mut x, &self.norm, d, c.eps);
        let hd = d / heads;
        let scale = 1.0 / (hd as f32).sqrt();
        let mut ctx = vec![0.0; n * d];
        let mut scores = vec![0.0; n];
        for layer in &self.layers {
            let mut qkv = vec![0.0; n * 3 * d];
            let mut col = 0;
            for part in &layer.qkv {
                part.forward_into(self.kept(), &x, n, &mut qkv[col..], 3 * d);
                col += part.m;
            }
            for h in 0..heads {
                for i in 0..n {
                    let q = &qkv[i * 3 * d + h * hd..][..hd];
                    for (j, s) in scores.iter_mut().enumerate() {
                        let k = &qkv[j * 3 * d + d + h * hd..][..hd];
                        *s = kernels::dot(q, k) * scale;
                    }
                    softmax(&mut scores);
                    let out = &mut ctx[i * d + h * hd..][..hd];
                    out.fill(0.0);
                    for (j, &p) in scores.iter().enumerate() {
                        let v = &qkv[j * 3 * d + 2 * d + h * hd..][..hd];
                        for (o, &v) in out.iter_mut().zip(v) {
                            *o += p * v;
                        }
                    }
                }
            }
            let a = layer.attn_out.forward(self.kept(), &ctx, n);
            x.iter_mut().zip(&a).for_each(|(x, a)| *x += a);
            layer_norm(&mut x, &layer.norm1, d, c.eps);
            let mut hidden = layer.up.forward(self.kept(), &x, n);
            hidden.iter_mut().for_each(|v| *v = gelu(*v));
            let o = layer.down.forward(self.kept(), &hidden, n);
            x.iter_mut().zip(&o).for_each(|(x, o)| *x += o);
            layer_norm(&mut x, &layer.norm2, d, c.eps);
        }
        let mut pooled = vec![0.0f32; d];
        for row in x.chunks_exact(d) {
            pooled.iter_mut().zip(row).for_each(|(p, v)| *p += v);
        }
        let norm = pooled.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            pooled.iter_mut().for_each(|v| *v /= norm);
        }
        pooled
    }
}

fn layer_norm(x: &mut [f32], norm: &Norm, d: usize, eps: f32) {
    for row in x.chunks_exact_mut(d) {
        let mean = row.iter().sum::<f32>() / d as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / d as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in row.iter_mut().zip(&norm.gamma).zip(&norm.beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

fn softmax(s: &mut [f32]) {
    let max = s.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for v in s.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    s.iter_mut().for_each(|v| *v /= sum);
}

/// GELU with the exact error function, as BERT's `gelu` is.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function to about 1e-7 (Abramowitz and Stegun 7.1.26), enough for f32.
fn erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_74 + t * (1.421_413_8 + t * (-1.453_152_1 + t * 1.061_405_4))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 { -y } else { y }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f32),
            (0.5, 0.520_499_9),
            (1.0, 0.842_700_8),
            (-2.0, -0.995_322_3),
            (3.5, 0.999_999_3),
        ] {
            assert!(
                (erf(x) - want).abs() < 3e-7,
                "erf({x}) = {} not {want}",
                erf(x)
            );
        }
    }
}
