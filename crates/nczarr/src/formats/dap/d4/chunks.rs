//! DAP4's chunked data response: a 4-byte header before each chunk (flags in the first
//! byte, the chunk's length in the next three, big-endian), the DMR as the first chunk,
//! then the data in chunks up to one flagged last; a chunk flagged as an error holds
//! the server's error document instead.
//!
//! The chunks are joined in the buffer received (the headers squeezed out, as
//! netcdf-c does), so the data is read in place from then on.

/// The last chunk of the response.
const LAST: u8 = 1;
/// The chunk holds an error document.
const ERROR: u8 = 2;
/// The data is little-endian ("receiver makes it right": the sender's order).
const LITTLE_ENDIAN: u8 = 4;
/// On the first chunk: no checksums follow the variables (what netcdf-c 4.9.0 took
/// the flag to mean; servers that send it mean it).
const NO_CHECKSUM: u8 = 8;

/// A data response taken apart.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The DMR at its head, its trailing line end dropped.
    pub dmr: String,
    /// The serialized variables, every chunk joined.
    pub data: Vec<u8>,
    /// The data's byte order is little-endian.
    pub little_endian: bool,
    /// The first chunk said that no checksums follow.
    pub no_checksums: bool,
}

/// Why a response is not data.
#[derive(Debug, Clone, PartialEq)]
pub enum ChunkError {
    /// The server sent an error chunk: its document, as text.
    Server(String),
    /// Not a chunked response at all (an HTML or XML page): its text.
    NotChunked(String),
    /// The bytes end inside a chunk or a header.
    Truncated {
        /// Which chunk (1 = the DMR).
        chunk: usize,
        /// Bytes it claims.
        wanted: usize,
        /// Bytes there were.
        had: usize,
    },
}

fn said(text: &str) -> String {
    super::super::fetch::server_message(text.as_bytes())
        .unwrap_or_else(|| "an empty document".into())
}

impl std::fmt::Display for ChunkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChunkError::Server(m) => write!(f, "{}", said(m)),
            ChunkError::NotChunked(m) => write!(f, "not a DAP4 data response: {}", said(m)),
            ChunkError::Truncated { chunk, wanted, had } => write!(
                f,
                "the response ends inside chunk {chunk} ({had} of {wanted} bytes): truncated"
            ),
        }
    }
}

/// True when `raw` starts as an XML or HTML document rather than a chunk header.
pub fn looks_like_document(raw: &[u8]) -> bool {
    let head: Vec<u8> = raw
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take(9)
        .map(u8::to_ascii_lowercase)
        .collect();
    head.starts_with(b"<?xml")
        || head.starts_with(b"<!doctype")
        || head.starts_with(b"<html")
        || head.starts_with(b"<dataset")
}

fn header(raw: &[u8], at: usize, chunk: usize) -> Result<(u8, usize), ChunkError> {
    let Some(h) = raw.get(at..at + 4) else {
        return Err(ChunkError::Truncated {
            chunk,
            wanted: 4,
            had: raw.len().saturating_sub(at),
        });
    };
    let count = (usize::from(h[1]) << 16) | (usize::from(h[2]) << 8) | usize::from(h[3]);
    Ok((h[0], count))
}

/// The DMR and the data of the response `raw`, which is consumed (its buffer
/// becomes the data's).
///
/// # Errors
/// [`ChunkError`]: an error chunk, a page that is not a response, a truncation.
pub fn dechunk(mut raw: Vec<u8>) -> Result<Response, ChunkError> {
    if looks_like_document(&raw) {
        return Err(ChunkError::NotChunked(
            String::from_utf8_lossy(&raw).into_owned(),
        ));
    }
    let (flags, count) = header(&raw, 0, 1)?;
    let body = raw.get(4..4 + count).ok_or(ChunkError::Truncated {
        chunk: 1,
        wanted: count,
        had: raw.len().saturating_sub(4),
    })?;
    if flags & ERROR != 0 {
        return Err(ChunkError::Server(
            String::from_utf8_lossy(body).into_owned(),
        ));
    }
    let dmr: String = String::from_utf8_lossy(body)
        .chars()
        .filter(|&c| c != '\0')
        .collect::<String>()
        .trim_end()
        .to_string();
    let little_endian = flags & LITTLE_ENDIAN != 0;
    let no_checksums = flags & NO_CHECKSUM != 0;
    let mut at = 4 + count;
    let mut kept = 0usize;
    let mut last = flags & LAST != 0;
    let mut chunk = 1;
    while !last {
        chunk += 1;
        let (flags, count) = header(&raw, at, chunk)?;
        let from = at + 4;
        if from + count > raw.len() {
            return Err(ChunkError::Truncated {
                chunk,
                wanted: count,
                had: raw.len() - from,
            });
        }
        if flags & ERROR != 0 {
            return Err(ChunkError::Server(
                String::from_utf8_lossy(&raw[from..from + count]).into_owned(),
            ));
        }
        raw.copy_within(from..from + count, kept);
        kept += count;
        at = from + count;
        last = flags & LAST != 0;
    }
    raw.truncate(kept);
    Ok(Response {
        dmr,
        data: raw,
        little_endian,
        no_checksums,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(flags: u8, body: &[u8]) -> Vec<u8> {
        let n = body.len();
        let mut v = vec![flags, (n >> 16) as u8, (n >> 8) as u8, n as u8];
        v.extend_from_slice(body);
        v
    }

    #[test]
    fn chunks_are_joined_and_flags_read() {
        let mut raw = chunk(LITTLE_ENDIAN, b"<Dataset/>\r\n");
        raw.extend(chunk(LITTLE_ENDIAN, &[1, 2, 3]));
        raw.extend(chunk(LITTLE_ENDIAN | LAST, &[4, 5]));
        let r = dechunk(raw).unwrap();
        assert_eq!(r.dmr, "<Dataset/>");
        assert_eq!(r.data, vec![1, 2, 3, 4, 5]);
        assert!(r.little_endian && !r.no_checksums);
    }

    #[test]
    fn errors_and_truncations() {
        let mut raw = chunk(0, b"<Dataset/>\n");
        raw.extend(chunk(
            ERROR | LAST,
            b"<Error><Message>no such var</Message></Error>",
        ));
        assert!(matches!(dechunk(raw), Err(ChunkError::Server(m)) if m.contains("no such var")));
        let mut raw = chunk(0, b"<Dataset/>\n");
        raw.extend(chunk(LAST, &[1, 2, 3]));
        raw.truncate(raw.len() - 1);
        assert!(matches!(
            dechunk(raw),
            Err(ChunkError::Truncated {
                chunk: 2,
                wanted: 3,
                had: 2
            })
        ));
        let raw = chunk(0, b"<Dataset/>\n");
        assert!(matches!(
            dechunk(raw),
            Err(ChunkError::Truncated { chunk: 2, .. })
        ));
        assert!(matches!(
            dechunk(b"<html><title>404</title></html>".to_vec()),
            Err(ChunkError::NotChunked(_))
        ));
        assert!(dechunk(vec![0, 0]).is_err());
        assert!(dechunk(vec![0, 0xff, 0xff, 0xff]).is_err());
    }
}
