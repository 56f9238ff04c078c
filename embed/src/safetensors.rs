//! The safetensors container, read and written by hand: an 8-byte little-endian header
//! length, a JSON header naming each tensor's dtype, shape and byte range, then the data.

use std::collections::BTreeMap;

use crate::Error;

/// Element type of a stored tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    /// 32-bit float.
    F32,
    /// 16-bit IEEE float.
    F16,
    /// Signed byte, dequantised with a `<name>_scale` tensor.
    I8,
    /// Unsigned byte (the vocabulary's text).
    U8,
}

impl Dtype {
    fn parse(s: &str) -> Option<Dtype> {
        Some(match s {
            "F32" => Dtype::F32,
            "F16" => Dtype::F16,
            "I8" => Dtype::I8,
            "U8" => Dtype::U8,
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "F32",
            Dtype::F16 => "F16",
            Dtype::I8 => "I8",
            Dtype::U8 => "U8",
        }
    }

    fn size(self) -> usize {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 => 2,
            Dtype::I8 | Dtype::U8 => 1,
        }
    }
}

/// A tensor borrowed from the file's bytes.
#[derive(Debug, Clone, Copy)]
pub struct View<'a> {
    /// Element type.
    pub dtype: Dtype,
    /// Dimensions, outermost first.
    pub shape: &'a [usize],
    /// Raw little-endian data.
    pub data: &'a [u8],
}

/// A parsed file: tensors by name and the string metadata.
#[derive(Debug)]
pub struct File<'a> {
    tensors: BTreeMap<String, (Dtype, Vec<usize>, &'a [u8])>,
    metadata: BTreeMap<String, String>,
}

impl<'a> File<'a> {
    /// Parses the header and checks every tensor's byte range against its shape.
    ///
    /// # Errors
    /// [`Error::Format`] when the header is not valid or a range is out of bounds; tensors
    /// of other dtypes (such as I64) are skipped.
    pub fn parse(bytes: &'a [u8]) -> Result<File<'a>, Error> {
        let bad = |why: String| Error::Format(why);
        let len = bytes
            .get(..8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
            .ok_or_else(|| bad("shorter than its header length".into()))?;
        let header = bytes
            .get(8..8usize.saturating_add(len))
            .ok_or_else(|| bad(format!("header of {len} bytes runs past the end")))?;
        let data = &bytes[8 + len..];
        let header: serde_json::Value =
            serde_json::from_slice(header).map_err(|e| bad(format!("header is not json: {e}")))?;
        let header = header
            .as_object()
            .ok_or_else(|| bad("header is not an object".into()))?;
        let mut file = File {
            tensors: BTreeMap::new(),
            metadata: BTreeMap::new(),
        };
        for (name, info) in header {
            if name == "__metadata__" {
                for (k, v) in info.as_object().into_iter().flatten() {
                    if let Some(v) = v.as_str() {
                        file.metadata.insert(k.clone(), v.to_owned());
                    }
                }
                continue;
            }
            let Some(dtype) = info["dtype"].as_str().and_then(Dtype::parse) else {
                continue;
            };
            let shape: Vec<usize> = info["shape"]
                .as_array()
                .ok_or_else(|| bad(format!("tensor `{name}` has no shape")))?
                .iter()
                .map(|d| d.as_u64().map(|d| d as usize))
                .collect::<Option<_>>()
                .ok_or_else(|| bad(format!("tensor `{name}` has a bad shape")))?;
            let range = info["data_offsets"]
                .as_array()
                .and_then(|r| Some((r.first()?.as_u64()? as usize, r.get(1)?.as_u64()? as usize)))
                .ok_or_else(|| bad(format!("tensor `{name}` has no data_offsets")))?;
            let want = shape.iter().product::<usize>() * dtype.size();
            let bytes = data
                .get(range.0..range.1)
                .filter(|b| b.len() == want)
                .ok_or_else(|| bad(format!("tensor `{name}` has a bad byte range")))?;
            file.tensors.insert(name.clone(), (dtype, shape, bytes));
        }
        Ok(file)
    }

    /// The tensor called `name`, if present.
    pub fn get(&self, name: &str) -> Option<View<'_>> {
        self.tensors.get(name).map(|(dtype, shape, data)| View {
            dtype: *dtype,
            shape,
            data,
        })
    }

    /// The names of the tensors read, in name order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tensors.keys().map(String::as_str)
    }

    /// A metadata value.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).map(String::as_str)
    }
}

/// One tensor to write: name, dtype, shape and little-endian data.
pub type Entry<'a> = (&'a str, Dtype, Vec<usize>, Vec<u8>);

/// Writes a safetensors file (tensors in name order), as `derive.py` does; the tests build
/// their tiny models with it.
pub fn write(tensors: &[Entry<'_>], metadata: &[(&str, &str)]) -> Vec<u8> {
    let mut sorted: Vec<&Entry<'_>> = tensors.iter().collect();
    sorted.sort_by_key(|t| t.0);
    let mut header = serde_json::Map::new();
    let meta: serde_json::Map<String, serde_json::Value> = metadata
        .iter()
        .map(|(k, v)| ((*k).to_owned(), serde_json::Value::from(*v)))
        .collect();
    header.insert("__metadata__".into(), meta.into());
    let mut offset = 0;
    for (name, dtype, shape, data) in &sorted {
        header.insert(
            (*name).to_owned(),
            serde_json::json!({
                "dtype": dtype.name(),
                "shape": shape,
                "data_offsets": [offset, offset + data.len()],
            }),
        );
        offset += data.len();
    }
    let mut json = serde_json::to_vec(&serde_json::Value::Object(header)).expect("json");
    while !json.len().is_multiple_of(8) {
        json.push(b' ');
    }
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    for t in &sorted {
        out.extend_from_slice(&t.3);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_parse() {
        let data: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let bytes = write(
            &[
                ("b", Dtype::I8, vec![3], vec![1, 2, 255]),
                ("a", Dtype::F32, vec![1, 2], data),
            ],
            &[("model", "tiny")],
        );
        let f = File::parse(&bytes).unwrap();
        assert_eq!(f.meta("model"), Some("tiny"));
        let a = f.get("a").unwrap();
        assert_eq!((a.dtype, a.shape), (Dtype::F32, &[1usize, 2][..]));
        assert_eq!(&a.data[..4], &1.5f32.to_le_bytes());
        assert_eq!(f.get("b").unwrap().data, &[1, 2, 255]);
        assert!(f.get("c").is_none());
    }

    #[test]
    fn truncated_files_are_format_errors() {
        let bytes = write(&[("a", Dtype::U8, vec![4], vec![0; 4])], &[]);
        for cut in [0, 5, bytes.len() - 1] {
            assert!(
                matches!(File::parse(&bytes[..cut]), Err(Error::Format(_))),
                "{cut}"
            );
        }
    }
}
