//! Text that may hold bytes that are not UTF-8, kept losslessly in a `String`.
//!
//! netCDF char data and attributes are bytes; CDL files (netcdf-c's corpus has Latin-1
//! in strings) and netcdf-c's own `.zattrs` (it writes char attributes' bytes into the
//! JSON as they are) carry such bytes where UTF-8 text is expected. A byte that is not
//! part of valid UTF-8 becomes a private-use character (U+10FF80 to U+10FFFF), which
//! [`bytes_of`] turns back into the byte.

/// Where the stand-ins for bytes 0x00..0xFF start (only 0x80..0xFF are used).
const RAW_BYTE_BASE: u32 = 0x10_FF00;

/// `bytes` as text, each byte that is not part of valid UTF-8 kept as its stand-in.
pub fn lossless(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => {
            let bytes = e.into_bytes();
            let mut out = String::with_capacity(bytes.len() + 16);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                for &b in chunk.invalid() {
                    out.push(char::from_u32(RAW_BYTE_BASE + u32::from(b)).unwrap_or('\u{fffd}'));
                }
            }
            out
        }
    }
}

/// The byte a character of [`lossless`] text stands for, when it stands for one.
pub fn raw_byte(c: char) -> Option<u8> {
    let v = u32::from(c);
    (RAW_BYTE_BASE + 0x80..=RAW_BYTE_BASE + 0xff)
        .contains(&v)
        .then(|| (v - RAW_BYTE_BASE) as u8)
}

/// The bytes [`lossless`] text came from: UTF-8, with each stand-in its byte.
pub fn bytes_of(s: &str) -> Vec<u8> {
    if !s.chars().any(|c| raw_byte(c).is_some()) {
        return s.as_bytes().to_vec();
    }
    let mut out = Vec::with_capacity(s.len());
    let mut buf = [0u8; 4];
    for c in s.chars() {
        match raw_byte(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    out
}

/// Encode bytes as standard base64 with padding.
pub(crate) fn encode_base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                s.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

/// Decode standard base64 (with or without padding); `None` if the text is not base64.
pub(crate) fn decode_base64(s: &str) -> Option<Vec<u8>> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    }
    let t = s.trim_end_matches('=').as_bytes();
    if t.len() % 4 == 1 || s.len() - t.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(t.len() * 3 / 4);
    for chunk in t.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= val(c)? << (18 - 6 * i);
        }
        let n = chunk.len() * 6 / 8;
        for i in 0..n {
            out.push((acc >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_survive() {
        for bytes in [
            &b"plain"[..],
            b"caf\xc3\xa9",
            b"\x80\x7fAZ",
            b"\xe9t\xe9 \xff",
            b"\xc3",
            b"",
        ] {
            let text = lossless(bytes.to_vec());
            assert_eq!(bytes_of(&text), bytes, "{text:?}");
        }
        let chars: Vec<char> = lossless(b"a\xe9".to_vec()).chars().collect();
        assert_eq!(raw_byte(chars[1]), Some(0xe9));
        assert_eq!(raw_byte('e'), None);
    }
}
