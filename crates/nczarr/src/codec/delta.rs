//! `delta` (numcodecs `Delta`): `enc[0] = x[0]`, `enc[i] = x[i] - x[i-1]` computed in
//! `astype`; decoding is a cumulative sum in `dtype`.
//! Config: `{"id": "delta", "dtype": "<f4", "astype": "<f4"}`.

use super::dtype::Dtype;
use super::numeric::{as_f, check, dtype_param, read, wrap, write, Num};
use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

/// Delta encoding.
#[derive(Debug, Clone)]
pub(crate) struct Delta {
    dtype: Dtype,
    astype: Dtype,
}

impl Delta {
    pub(crate) fn from_config(config: &Json) -> Result<Delta, ConfigFault> {
        let dtype = dtype_param(config, "dtype")?;
        let astype = match config.get("astype") {
            None | Some(Json::Null) => dtype.clone(),
            Some(_) => dtype_param(config, "astype")?,
        };
        check(&dtype, "delta")?;
        check(&astype, "delta")?;
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
