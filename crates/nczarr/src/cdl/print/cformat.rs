//! `C_format` attributes: the one `printf` conversion ncdump applies to a variable's
//! values, parsed once and applied to each value.

use super::number::{format_e, format_f, format_g};

/// One conversion of a `C_format` attribute: `prefix %[flags][width][.prec]conv suffix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CFormat {
    prefix: String,
    suffix: String,
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
    conv: char,
}

impl CFormat {
    /// Parse a format with exactly one numeric conversion; `None` if it has none,
    /// several, or one this printer does not support (then ncdump's default is used).
    pub fn parse(fmt: &str) -> Option<CFormat> {
        let b = fmt.as_bytes();
        let mut i = 0;
        let mut prefix = String::new();
        loop {
            let c = *b.get(i)?;
            if c == b'%' {
                if b.get(i + 1) == Some(&b'%') {
                    prefix.push('%');
                    i += 2;
                    continue;
                }
                break;
            }
            prefix.push(c as char);
            i += 1;
        }
        i += 1;
        let mut f = CFormat {
            prefix,
            suffix: String::new(),
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: 0,
            prec: None,
            conv: 'g',
        };
        while let Some(&c) = b.get(i) {
            match c {
                b'-' => f.left = true,
                b'+' => f.plus = true,
                b' ' => f.space = true,
                b'#' => f.alt = true,
                b'0' => f.zero = true,
                _ => break,
            }
            i += 1;
        }
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            f.width = f.width * 10 + usize::from(c - b'0');
            i += 1;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0;
            while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
                p = p * 10 + usize::from(c - b'0');
                i += 1;
            }
            f.prec = Some(p);
        }
        while let Some(b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't') = b.get(i) {
            i += 1;
        }
        let conv = *b.get(i)? as char;
        if !"diouxXeEfFgG".contains(conv) {
            return None;
        }
        f.conv = conv;
        let rest = std::str::from_utf8(&b[i + 1..]).ok()?;
        if rest.replace("%%", "").contains('%') {
            return None;
        }
        f.suffix = rest.replace("%%", "%");
        Some(f)
    }

    /// Format a number (integers exactly, floats as doubles).
    pub fn format(&self, out: &mut String, int: Option<i128>, v: f64) {
        let mut body = String::new();
        let neg;
        match self.conv {
            'd' | 'i' | 'u' | 'o' | 'x' | 'X' => {
                let n = int.unwrap_or(v as i128);
                neg = n < 0 && matches!(self.conv, 'd' | 'i');
                let mag = if matches!(self.conv, 'd' | 'i') {
                    n.unsigned_abs()
                } else {
                    n as u128 & u128::from(u64::MAX)
                };
                let digits = match self.conv {
                    'o' => format!("{mag:o}"),
                    'x' => format!("{mag:x}"),
                    'X' => format!("{mag:X}"),
                    _ => mag.to_string(),
                };
                let min = self.prec.unwrap_or(1);
                if digits.len() < min {
                    body.push_str(&"0".repeat(min - digits.len()));
                }
                if !(min == 0 && mag == 0) {
                    body.push_str(&digits);
                }
            }
            c => {
                neg = v.is_sign_negative() && !v.is_nan();
                let a = v.abs();
                let upper = c.is_ascii_uppercase();
                if !a.is_finite() {
                    body.push_str(match (a.is_nan(), upper) {
                        (true, false) => "nan",
                        (true, true) => "NAN",
                        (false, false) => "inf",
                        (false, true) => "INF",
                    });
                } else {
                    let p = self.prec.unwrap_or(6);
                    match c.to_ascii_lowercase() {
                        'e' => format_e(&mut body, a, p, self.alt, upper),
                        'f' => format_f(&mut body, a, p, self.alt),
                        _ => format_g(&mut body, a, p, self.alt, upper),
                    }
                }
            }
        }
        let sign = if neg {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        };
        out.push_str(&self.prefix);
        let len = sign.len() + body.len();
        let pad = self.width.saturating_sub(len);
        if self.left {
            out.push_str(sign);
            out.push_str(&body);
            out.push_str(&" ".repeat(pad));
        } else if self.zero && (self.prec.is_none() || !"dioxXu".contains(self.conv)) {
            out.push_str(sign);
            out.push_str(&"0".repeat(pad));
            out.push_str(&body);
        } else {
            out.push_str(&" ".repeat(pad));
            out.push_str(sign);
            out.push_str(&body);
        }
        out.push_str(&self.suffix);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_format() {
        let fmt = |f: &str, i: Option<i128>, v: f64| {
            let mut s = String::new();
            CFormat::parse(f).unwrap().format(&mut s, i, v);
            s
        };
        assert_eq!(fmt("%.2f", None, 1.23456), "1.23");
        assert_eq!(fmt("%8.3e", None, 1234.5), "1.234e+03");
        assert_eq!(fmt("%5d", Some(42), 42.0), "   42");
        assert_eq!(fmt("%-5dx", Some(-4), -4.0), "-4   x");
        assert_eq!(fmt("%06.1f", None, -2.25), "-002.2");
        assert_eq!(fmt("%g", None, 0.5), "0.5");
        assert_eq!(fmt("%x", Some(255), 255.0), "ff");
        assert!(CFormat::parse("%s").is_none());
        assert!(CFormat::parse("%d %d").is_none());
        assert!(CFormat::parse("plain").is_none());
    }
}
