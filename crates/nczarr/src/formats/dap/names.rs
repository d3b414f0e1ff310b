//! Names as netcdf-c's DAP2 client shows them, and the text it makes of DAS strings.

/// A DDS or DAS name as netcdf-c's scanner decodes it (`dapdecode`): a `%XX` escape is
/// undone only when it stands for a letter, a digit or one of `_!~*'-"` (`%20` and
/// `%2E` stay as written).
pub(crate) fn dap_decode(name: &str) -> String {
    percent_decode_some(name, |v| {
        v.is_ascii_alphanumeric() || b"_!~*'-\"".contains(&v)
    })
}

/// `text` with the `%XX` escapes of the bytes `undo` accepts undone; any other `%`
/// stays as written (the one loop behind [`dap_decode`] and a query's decoding).
pub(crate) fn percent_decode_some(text: &str, undo: impl Fn(u8) -> bool) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if let Some(v) = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .filter(|&v| undo(v))
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The netCDF name of a DAP name: decoded as [`dap_decode`] does, one leading `/`
/// dropped and every other `/` written `%2f` (netcdf-c's `cdflegalname`).
pub(crate) fn legal_name(name: &str) -> String {
    let d = dap_decode(name);
    let d = d.strip_prefix('/').unwrap_or(&d);
    d.replace('/', "%2f")
}

/// A DAS string with its backslash escapes expanded as netcdf-c expands them
/// (`dapexpandescapes`): `\n \t \r \a \b \f \v \\` the characters they name, `\?` a
/// DEL, `\xHH...` all the hex digits that follow (the low byte kept), `\ooo` three
/// octal digits (else the backslash is dropped), any other `\c` the `c`; a trailing
/// backslash is kept. The text ends at the first NUL, as C's strings do.
pub(crate) fn expand_escapes(s: &str) -> Vec<u8> {
    expand_escaped_bytes(s.as_bytes())
}

/// [`expand_escapes`] of raw bytes (a string's value in a data answer, in whatever
/// encoding the server sent it).
pub(crate) fn expand_escaped_bytes(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' || i + 1 == b.len() {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let c = b[i + 1];
        i += 2;
        match c {
            b'a' => out.push(0x07),
            b'b' => out.push(0x08),
            b'f' => out.push(0x0c),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'v' => out.push(0x0b),
            b'\\' => out.push(b'\\'),
            b'?' => out.push(0x7f),
            b'x' => {
                let mut v: u64 = 0;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    v = v
                        .wrapping_mul(16)
                        .wrapping_add(u64::from((b[i] as char).to_digit(16).unwrap_or(0)));
                    i += 1;
                }
                out.push(v as u8);
            }
            b'0'..=b'7' => {
                let digits = &b[i - 1..(i + 2).min(b.len())];
                if digits.len() == 3 && digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                    let v = digits.iter().fold(0u32, |a, d| a * 8 + u32::from(d - b'0'));
                    out.push(v as u8);
                    i += 2;
                } else {
                    out.push(c);
                }
            }
            other => out.push(other),
        }
    }
    if let Some(nul) = out.iter().position(|&c| c == 0) {
        out.truncate(nul);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_decoding_as_netcdf_c() {
        assert_eq!(dap_decode("t1%2Enc"), "t1%2Enc");
        assert_eq!(dap_decode("a%41%20b%5F"), "aA%20b_");
        assert_eq!(legal_name("/g/x"), "g%2fx");
    }

    #[test]
    fn escapes_as_netcdf_c() {
        assert_eq!(expand_escapes(r#"a \"q\" \\ \t\?"#), b"a \"q\" \\ \t\x7f");
        assert_eq!(expand_escapes(r"\x41\101\12x"), b"AA12x");
        assert_eq!(expand_escapes(r"NASA\\000"), b"NASA\\000");
        assert_eq!(expand_escapes(r"cut\000here"), b"cut");
        assert_eq!(expand_escapes("end\\"), b"end\\");
    }
}
