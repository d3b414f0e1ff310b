//! NcML 2.2 (`nczdump -x`): the header of a dataset of the classic model as XML, byte
//! for byte as ncdump 4.9.0 writes it (`do_ncdumpx`, `pr_attx`, `pr_attx_string`,
//! `pr_att_valsx` and `pr_shape` in `ncdump/ncdump.c`).
//!
//! ncdump refuses NcML for every dataset whose `nc_inq_format` is `NC_FORMAT_NETCDF4`,
//! whatever it holds: netCDF-4 files not marked classic, and every NCZarr and Zarr
//! store (netcdf-c never opens one in the classic model). [`check_ncml`] says the same,
//! by the format's kind.
//!
//! ncdump's quirks are kept on purpose, since the output is meant to be the same bytes:
//! names and the location are written as they are, not XML-escaped (ncdump's own
//! TODO); a variable without attributes is one element or an empty pair depending on
//! `-h`, `-c` and `-v`, though no data is ever printed; numbers pass through a
//! `double` (`nc_get_att_double`), so 64-bit integers past 2^53 come out rounded and
//! those at 2^63 and 2^64 as x86's conversion leaves them; non-finite floats are C's
//! `nan`/`inf`. It does not print data, groups or netCDF-4's types: ncdump has none of
//! those in NcML.

use std::io::Write;

use super::number;
use super::PrintOptions;
use crate::error::{Error, Result};
use crate::model::select::var_matches;
use crate::model::{Attr, Group, Values, Var};
use crate::source::{DatasetSource, FormatInfo};

/// ncdump's message for a dataset it will not write as NcML.
pub const NCML_REFUSED: &str = "NcML output (-x) currently only permitted for netCDF classic model";

/// The XML declaration and the opening `netcdf` element up to its `location`.
const NCML_HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<netcdf xmlns=\"https://www.unidata.ucar.edu/namespaces/netcdf/ncml-2.2\" location=\"";

/// Check that ncdump would write `format`'s datasets as NcML: every kind but
/// `netCDF-4` (classic, 64-bit offset, CDF-5, netCDF-4 classic model).
///
/// # Errors
/// [`Error::Unsupported`] with ncdump's message, [`NCML_REFUSED`].
pub fn check_ncml(format: &FormatInfo) -> Result<()> {
    if format.kind == "netCDF-4" {
        return Err(Error::Unsupported(NCML_REFUSED.to_string()));
    }
    Ok(())
}

/// Print the header of the dataset `source` holds as NcML to `out`, as `ncdump -x`
/// does; `location` is the dataset's name as given on the command line. Of `opts`,
/// `-h`, `-c` and `-v` decide which attribute-less variables are one element, and
/// `-p` the digits of float and double values.
///
/// Returns the lines ncdump writes on stderr while printing (an attribute holding NUL
/// characters, which no XML can), for the caller to show; they are not failures.
///
/// # Errors
/// [`Error::Unsupported`] for a dataset [`check_ncml`] refuses, or one whose model does
/// not fit the classic one (groups, strings, user-defined types) whatever its kind
/// says; I/O errors writing `out`.
pub fn print_ncml(
    out: &mut dyn Write,
    source: &dyn DatasetSource,
    opts: &PrintOptions,
    location: &str,
) -> Result<Vec<String>> {
    check_ncml(source.format())?;
    let root = &source.dataset().root;
    check_classic(root)?;
    let mut notes = Vec::new();
    let mut buf = Vec::with_capacity(4096);
    buf.extend_from_slice(NCML_HEAD.as_bytes());
    buf.extend_from_slice(location.as_bytes());
    buf.extend_from_slice(b"\">\n");
    for d in &root.dims {
        // `%d` of `(int)size`: a CDF-5 dimension past 2^31 wraps, as in ncdump.
        let len = d.len as i32;
        let unlimited = if d.unlimited {
            " isUnlimited=\"true\""
        } else {
            ""
        };
        let _ = writeln!(
            buf,
            "  <dimension name=\"{}\" length=\"{len}\"{unlimited} />",
            d.name
        );
    }
    for a in &root.attrs {
        attribute(&mut buf, a, "", opts, &mut notes);
    }
    // nc_inq's unlimited dimension: the classic model has one at most.
    let record_dim = root.dims.iter().find(|d| d.unlimited);
    for v in &root.vars {
        buf.extend_from_slice(b"  <variable name=\"");
        buf.extend_from_slice(v.name.as_bytes());
        buf.push(b'"');
        if !v.dims.is_empty() {
            buf.extend_from_slice(b" shape=\"");
            for (i, d) in v.dims.iter().enumerate() {
                if i > 0 {
                    buf.push(b' ');
                }
                buf.extend_from_slice(d.name.as_bytes());
            }
            buf.push(b'"');
        }
        let type_name = v.nc_type.cdl_name();
        if v.attrs.is_empty() && !holds_data(root, v, record_dim, opts) {
            let _ = writeln!(buf, " type=\"{type_name}\" />");
            continue;
        }
        let _ = writeln!(buf, " type=\"{type_name}\">");
        for a in &v.attrs {
            attribute(&mut buf, a, "  ", opts, &mut notes);
        }
        buf.extend_from_slice(b"  </variable>\n");
        if buf.len() >= 1 << 16 {
            out.write_all(&buf)?;
            buf.clear();
        }
    }
    buf.extend_from_slice(b"</netcdf>\n");
    out.write_all(&buf)?;
    Ok(notes)
}

/// What the classic model cannot hold, refused rather than printed some other way: a
/// dataset of a classic kind never has it.
fn check_classic(root: &Group) -> Result<()> {
    let refuse = |what: String| Err(Error::Unsupported(format!("{NCML_REFUSED} ({what})")));
    if let Some(g) = root.groups.first() {
        return refuse(format!("group {}", g.name));
    }
    if !root.types.is_empty() {
        return refuse("user-defined types".into());
    }
    let string_attr = |a: &Attr| a.user.is_some() || matches!(a.values, Values::String(_));
    if let Some(a) = root.attrs.iter().find(|a| string_attr(a)) {
        return refuse(format!("attribute {}", a.name));
    }
    for v in &root.vars {
        if v.user_type.is_some() || v.nc_type == crate::model::NcType::String {
            return refuse(format!("variable {}", v.name));
        }
        if let Some(a) = v.attrs.iter().find(|a| string_attr(a)) {
            return refuse(format!("attribute {}:{}", v.name, a.name));
        }
    }
    Ok(())
}

/// ncdump's test for an attribute-less variable written as an empty pair of tags
/// rather than one element: it is one whose data ncdump would print in CDL (though
/// NcML prints none). Not with `-h`; with `-v`, only those named; with `-c`, only
/// coordinate variables (`iscoordvar`: one dimension, and a dimension bears its name);
/// never a record variable while there are no records.
fn holds_data(
    root: &Group,
    v: &Var,
    record_dim: Option<&crate::model::Dim>,
    opts: &PrintOptions,
) -> bool {
    if opts.header_only {
        return false;
    }
    if !opts.vars.is_empty() && !opts.vars.iter().any(|s| var_matches(s, &[], &v.name)) {
        return false;
    }
    if opts.coords_only && !(v.dims.len() == 1 && root.dims.iter().any(|d| d.name == v.name)) {
        return false;
    }
    let is_record = v
        .dims
        .iter()
        .any(|d| root.dim(&d.name).is_some_and(|d| d.unlimited));
    !(is_record && record_dim.is_some_and(|d| d.len == 0))
}

/// One `<attribute />` line (`pr_attx`), `indent` more for a variable's.
fn attribute(
    buf: &mut Vec<u8>,
    a: &Attr,
    indent: &str,
    opts: &PrintOptions,
    notes: &mut Vec<String>,
) {
    buf.extend_from_slice(indent.as_bytes());
    buf.extend_from_slice(b"  <attribute name=\"");
    buf.extend_from_slice(a.name.as_bytes());
    if let Values::Char(text) = &a.values {
        buf.extend_from_slice(b"\" value=");
        if char_value(buf, text) {
            notes.push(format!(
                "Attribute: '{}'; value contains nul characters; producing illegal xml",
                a.name
            ));
        }
    } else {
        let _ = write!(
            buf,
            "\" type=\"{}\" value=\"",
            a.values.nc_type().cdl_name()
        );
        numbers(buf, &a.values, opts);
        buf.push(b'"');
    }
    buf.extend_from_slice(b" />\n");
}

/// A char attribute's text, quoted, as `pr_attx_string` escapes it: trailing NULs
/// dropped, `" < > &` as entities, newline, return and tab as hexadecimal references,
/// other control characters (NUL and DEL among them) as decimal ones, every other byte
/// as it is (`'` too, and bytes of UTF-8). Returns true when the text held a NUL.
fn char_value(buf: &mut Vec<u8>, text: &[u8]) -> bool {
    let end = text.iter().rposition(|&b| b != 0).map_or(0, |p| p + 1);
    let mut nul = false;
    buf.push(b'"');
    for &b in &text[..end] {
        match b {
            b'"' => buf.extend_from_slice(b"&quot;"),
            b'<' => buf.extend_from_slice(b"&lt;"),
            b'>' => buf.extend_from_slice(b"&gt;"),
            b'&' => buf.extend_from_slice(b"&amp;"),
            b'\n' => buf.extend_from_slice(b"&#xA;"),
            b'\r' => buf.extend_from_slice(b"&#xD;"),
            b'\t' => buf.extend_from_slice(b"&#x9;"),
            0 => {
                nul = true;
                buf.extend_from_slice(b"&#0;");
            }
            // iscntrl in the C locale, which ncdump never leaves.
            b if b < 0x20 || b == 0x7f => {
                let _ = write!(buf, "&#{b};");
            }
            b => buf.push(b),
        }
    }
    buf.push(b'"');
    nul
}

/// Numeric values separated by spaces (`pr_att_valsx`), each read as a `double` first.
fn numbers(buf: &mut Vec<u8>, values: &Values, opts: &PrintOptions) {
    let fd = opts.float_digits.unwrap_or(7);
    let dd = opts.double_digits.unwrap_or(15);
    let mut s = String::new();
    for i in 0..values.len() {
        if i > 0 {
            buf.push(b' ');
        }
        s.clear();
        match values {
            Values::Byte(v) => s.push_str(&v[i].to_string()),
            Values::Short(v) => s.push_str(&v[i].to_string()),
            Values::Int(v) => s.push_str(&v[i].to_string()),
            Values::UByte(v) => s.push_str(&v[i].to_string()),
            Values::UShort(v) => s.push_str(&v[i].to_string()),
            Values::UInt(v) => s.push_str(&v[i].to_string()),
            Values::Int64(v) => s.push_str(&int64_through_double(v[i]).to_string()),
            Values::UInt64(v) => s.push_str(&uint64_through_double(v[i]).to_string()),
            Values::Float(v) => float_value(&mut s, f64::from(v[i]), fd),
            Values::Double(v) => float_value(&mut s, v[i], dd),
            // Refused by `check_classic`, or printed by `char_value`.
            Values::Char(_) | Values::String(_) => {}
        }
        buf.extend_from_slice(s.as_bytes());
    }
}

/// `%#.{digits}g` then `tztrim`; glibc's `nan`, `-nan`, `inf`, `-inf` for the rest
/// (ncdump's `tztrim` leaves those alone).
fn float_value(s: &mut String, v: f64, digits: usize) {
    if v.is_finite() {
        number::g_alt_trimmed(s, v, digits);
        return;
    }
    if v.is_sign_negative() {
        s.push('-');
    }
    s.push_str(if v.is_nan() { "nan" } else { "inf" });
}

/// `(int64_t)(double)v` as x86-64 computes it: rounded to a double, and a value past
/// the range (2^63, from `INT64_MAX`) becomes `INT64_MIN` (cvttsd2si's answer).
fn int64_through_double(v: i64) -> i64 {
    let d = v as f64;
    if d >= 9_223_372_036_854_775_808.0 {
        i64::MIN
    } else {
        d as i64
    }
}

/// `(uint64_t)(double)v` as gcc's x86-64 code computes it: rounded to a double; from
/// 2^63 on, 2^63 is taken off before the signed conversion and its bit put back, so
/// 2^64 (from values near `UINT64_MAX`) overflows to 2^63 and gives 0.
fn uint64_through_double(v: u64) -> u64 {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    let d = v as f64;
    if d < TWO_63 {
        d as u64
    } else {
        let high = d - TWO_63;
        let low = if high >= TWO_63 {
            1u64 << 63
        } else {
            high as u64
        };
        low ^ (1u64 << 63)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int64_rounds_and_wraps_as_ncdump() {
        assert_eq!(int64_through_double(-1), -1);
        assert_eq!(
            int64_through_double(9_007_199_254_740_993),
            9_007_199_254_740_992
        );
        assert_eq!(int64_through_double(i64::MAX), i64::MIN);
        assert_eq!(int64_through_double(i64::MIN), i64::MIN);
    }

    #[test]
    fn uint64_rounds_and_wraps_as_ncdump() {
        assert_eq!(uint64_through_double(1), 1);
        assert_eq!(uint64_through_double(u64::MAX), 0);
        assert_eq!(uint64_through_double(1 << 63), 1 << 63);
        assert_eq!(
            uint64_through_double(12_345_678_901_234_567_890),
            12_345_678_901_234_567_168
        );
    }

    #[test]
    fn char_value_escapes_and_reports_nul() {
        let mut buf = Vec::new();
        assert!(!char_value(&mut buf, b"a<&>\"'\n\r\t\x01\x7f\xc3\xa9\0\0"));
        assert_eq!(
            buf,
            b"\"a&lt;&amp;&gt;&quot;'&#xA;&#xD;&#x9;&#1;&#127;\xc3\xa9\"".to_vec()
        );
        buf.clear();
        assert!(char_value(&mut buf, b"x\0y"));
        assert_eq!(buf, b"\"x&#0;y\"".to_vec());
    }

    #[test]
    fn float_values_as_ncdump() {
        let mut s = String::new();
        for (v, want) in [
            (1.0, "1."),
            (0.1, "0.1"),
            (1e30, "1.e+30"),
            (f64::NAN, "nan"),
            (-f64::NAN, "-nan"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            s.clear();
            float_value(&mut s, v, 15);
            assert_eq!(s, want);
        }
    }
}
