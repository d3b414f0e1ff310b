//! numcodecs checksum codecs: `crc32` and `adler32` (a LE u32 prefix by default,
//! `"location": "end"` for a suffix) and `crc32c` (a LE u32 suffix).

use super::{obj, ChunkFault, ChunkInfo, Codec, ConfigFault};
use crate::json::Json;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Crc32,
    Crc32c,
    Adler32,
}

/// A checksum codec.
#[derive(Debug, Clone)]
pub(crate) struct Checksum {
    kind: Kind,
    at_end: bool,
}

impl Checksum {
    pub(crate) fn from_config(kind: Kind, config: &Json) -> Result<Checksum, ConfigFault> {
        let at_end = match config.get("location").and_then(Json::as_str) {
            None => kind == Kind::Crc32c,
            Some("start") => false,
            Some("end") => true,
            Some(other) => {
                return Err(ConfigFault::BadValue {
                    name: "location",
                    expected: "\"start\" or \"end\"".into(),
                    found: format!("\"{other}\""),
                })
            }
        };
        Ok(Checksum { kind, at_end })
    }

    fn compute(&self, data: &[u8]) -> u32 {
        match self.kind {
            Kind::Crc32 => crc32fast::hash(data),
            Kind::Crc32c => crc32c(data),
            Kind::Adler32 => adler32(data),
        }
    }

    fn name(&self) -> &'static str {
        match self.kind {
            Kind::Crc32 => "crc32",
            Kind::Crc32c => "crc32c",
            Kind::Adler32 => "adler32",
        }
    }
}

fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for chunk in data.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= 65521;
        b %= 65521;
    }
    (b << 16) | a
}

pub(crate) fn crc32c(data: &[u8]) -> u32 {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [0u32; 256];
        for (i, slot) in t.iter_mut().enumerate() {
            let mut c = i as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0x82F6_3B78 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
            *slot = c;
        }
        t
    });
    !data.iter().fold(!0u32, |c, &b| {
        table[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

impl Codec for Checksum {
    fn id(&self) -> &'static str {
        self.name()
    }

    fn decode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        if input.len() < 4 {
            return Err(ChunkFault::Truncated {
                what: match self.kind {
                    Kind::Crc32 => "a crc32 checksum",
                    Kind::Crc32c => "a crc32c checksum",
                    Kind::Adler32 => "an adler32 checksum",
                },
            });
        }
        let (data, sum) = if self.at_end {
            let at = input.len() - 4;
            (&input[..at], &input[at..])
        } else {
            (&input[4..], &input[..4])
        };
        let stored = u32::from_le_bytes([sum[0], sum[1], sum[2], sum[3]]);
        let computed = self.compute(data);
        if stored != computed {
            return Err(ChunkFault::ChecksumMismatch {
                kind: self.name(),
                stored,
                computed,
            });
        }
        Ok(data.to_vec())
    }

    fn encode(&self, input: Vec<u8>, _: &ChunkInfo) -> Result<Vec<u8>, ChunkFault> {
        let sum = self.compute(&input).to_le_bytes();
        let mut out = Vec::with_capacity(input.len() + 4);
        if self.at_end {
            out.extend_from_slice(&input);
            out.extend_from_slice(&sum);
        } else {
            out.extend_from_slice(&sum);
            out.extend_from_slice(&input);
        }
        Ok(out)
    }

    fn config(&self) -> Json {
        let mut m = vec![("id", Json::String(self.name().into()))];
        if self.at_end != (self.kind == Kind::Crc32c) {
            m.push((
                "location",
                Json::String(if self.at_end { "end" } else { "start" }.into()),
            ));
        }
        obj(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }
}
