//! `delta` (numcodecs `Delta`): `enc[0] = x[0]`, `enc[i] = x[i] - x[i-1]` computed in
//! `astype`; decoding is a cumulative sum in `dtype`.
//! Config: `{"id": "delta", "dtype": "<f4", "astype": "<f4"}`.

use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;
use crate::zarr::{Dtype, Endian};

/// Delta encoding.
#[derive(Debug, Clone)]
pub(crate) struct Delta {
    dtype: Dtype,
    astype: Dtype,
}

#[derive(Clone, Copy)]
enum Num {
    I(i128),
    F(f64),
}

fn check(d: &Dtype) -> Result<(), ConfigFault> {
    match d {
        Dtype::Int { .. } | Dtype::Float { bytes: 4 | 8, .. } => Ok(()),
        other => Err(ConfigFault::Unavailable {
            what: format!("delta over dtype {other}"),
            have: "integers, <f4, <f8".into(),
        }),
    }
}

fn read(d: &Dtype, b: &[u8]) -> Num {
    let mut buf = [0u8; 8];
    let n = b.len();
    buf[..n].copy_from_slice(b);
    if d.endian() == Endian::Big {
        buf[..n].reverse();
    }
    match d {
        Dtype::Float { bytes: 4, .. } => Num::F(f64::from(f32::from_le_bytes([
            buf[0], buf[1], buf[2], buf[3],
        ]))),
        Dtype::Float { .. } => Num::F(f64::from_le_bytes(buf)),
        Dtype::Int {
            signed: true,
            bytes,
            ..
        } => {
            let raw = u64::from_le_bytes(buf);
            let shift = 64 - 8 * bytes;
            Num::I(i128::from(((raw << shift) as i64) >> shift))
        }
        _ => Num::I(i128::from(u64::from_le_bytes(buf))),
    }
}

fn write(d: &Dtype, v: Num, out: &mut Vec<u8>) {
    let n = d.item_size();
    let mut bytes = match (d, v) {
        (Dtype::Float { bytes: 4, .. }, Num::F(f)) => (f as f32).to_le_bytes().to_vec(),
        (Dtype::Float { bytes: 4, .. }, Num::I(i)) => (i as f32).to_le_bytes().to_vec(),
        (Dtype::Float { .. }, Num::F(f)) => f.to_le_bytes().to_vec(),
        (Dtype::Float { .. }, Num::I(i)) => (i as f64).to_le_bytes().to_vec(),
        (_, Num::I(i)) => (i as u64).to_le_bytes()[..n].to_vec(),
        (_, Num::F(f)) => ((f as i128) as u64).to_le_bytes()[..n].to_vec(),
    };
    if d.endian() == Endian::Big {
        bytes.reverse();
    }
    out.extend_from_slice(&bytes);
}

fn wrap(d: &Dtype, v: i128) -> i128 {
    let bits = 8 * d.item_size() as u32;
    let m = v & ((1i128 << bits) - 1);
    match d {
        Dtype::Int { signed: true, .. } if m >= 1i128 << (bits - 1) => m - (1i128 << bits),
        _ => m,
    }
}

impl Delta {
    pub(crate) fn from_config(config: &Json) -> Result<Delta, ConfigFault> {
        let get = |name: &'static str| -> Result<Dtype, ConfigFault> {
            let t = config
                .get(name)
                .and_then(Json::as_str)
                .ok_or(ConfigFault::Missing { name })?;
            Dtype::parse(t).map_err(|e| ConfigFault::BadValue {
                name,
                expected: "a numeric dtype".into(),
                found: e.to_string(),
            })
        };
        let dtype = get("dtype")?;
        let astype = match config.get("astype") {
            None | Some(Json::Null) => dtype.clone(),
            Some(_) => get("astype")?,
        };
        check(&dtype)?;
        check(&astype)?;
        Ok(Delta { dtype, astype })
    }

    fn apply(
        &self,
        input: &[u8],
        from: &Dtype,
        to: &Dtype,
        decode: bool,
    ) -> Result<Vec<u8>, ChunkFault> {
        let size = from.item_size();
        if !input.len().is_multiple_of(size) {
            return Err(ChunkFault::PartialElement {
                len: input.len(),
                dtype: from.to_string(),
            });
        }
        let mut out = Vec::with_capacity(input.len() / size * to.item_size());
        let mut prev = Num::I(0);
        for (i, b) in input.chunks_exact(size).enumerate() {
            let x = read(from, b);
            let y = match (decode, i, prev, x) {
                (_, 0, _, x) => x,
                (true, _, Num::I(p), Num::I(x)) => Num::I(wrap(to, p + x)),
                (true, _, p, x) => Num::F(as_f(p) + as_f(x)),
                (false, _, Num::I(p), Num::I(x)) => Num::I(wrap(to, x - p)),
                (false, _, p, x) => Num::F(as_f(x) - as_f(p)),
            };
            prev = if decode { y } else { x };
            write(to, y, &mut out);
        }
        Ok(out)
    }
}

fn as_f(n: Num) -> f64 {
    match n {
        Num::I(i) => i as f64,
        Num::F(f) => f,
    }
}

impl Codec for Delta {
    fn id(&self) -> &'static str {
        "delta"
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        self.apply(&input, &self.astype, &self.dtype, true)
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        self.apply(&input, &self.dtype, &self.astype, false)
    }

    fn config(&self) -> Json {
        obj(vec![
            ("id", Json::String("delta".into())),
            ("dtype", Json::String(self.dtype.to_string())),
            ("astype", Json::String(self.astype.to_string())),
        ])
    }
}
