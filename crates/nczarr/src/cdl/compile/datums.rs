//! Constants to values: one datum of an attribute or a data list as a value of the
//! type it is stored as, the way ncgen converts it (C casts; out-of-range integers
//! kept as their stored bits and reported; dates in time variables' data). Apart from
//! the rest of the compiler so that the streaming compiler (`generate`) converts
//! the values it reads with the very same rules, after the dataset is compiled.

use std::cell::{Cell, RefCell};

use super::CdlError;
use crate::cdl::ast::{Datum, Value};
use crate::cdl::parse::Locate;
use crate::cftime::{ncgen_time, DateError, TimeUnits};
use crate::model::{NcType, Values};

/// How many out-of-range values are reported one by one.
const REPORTED: usize = 10;

/// Converts constants and collects the warnings conversion gives.
pub(crate) struct Converter<'t> {
    /// Where positions are in the file.
    pub(crate) loc: &'t dyn Locate,
    /// Interior mutability so value conversion (which only reads) can warn.
    warnings: RefCell<Vec<CdlError>>,
    /// Out-of-range values reported so far (reports stop after a few).
    wrapped: Cell<usize>,
}

impl<'t> Converter<'t> {
    pub(crate) fn new(loc: &'t dyn Locate) -> Converter<'t> {
        Converter {
            loc,
            warnings: RefCell::new(Vec::new()),
            wrapped: Cell::new(0),
        }
    }

    pub(crate) fn err(&self, pos: usize, message: impl Into<String>) -> CdlError {
        CdlError::located(self.loc, pos, message)
    }

    pub(crate) fn warn(&self, pos: usize, message: impl Into<String>) {
        let w = self.err(pos, message);
        self.warnings.borrow_mut().push(w);
    }

    /// The warnings given so far, taken.
    pub(crate) fn take_warnings(&self) -> Vec<CdlError> {
        std::mem::take(&mut *self.warnings.borrow_mut())
    }

    /// Report an integer that does not fit its type (ncgen stores it wrapped, as a C
    /// cast does, without a word; the value is kept the same here but said aloud).
    pub(crate) fn warn_wrapped(&self, pos: usize, value: i128, t: NcType, stored: &Values) {
        let n = self.wrapped.get() + 1;
        self.wrapped.set(n);
        if n <= REPORTED {
            let shown = match stored {
                Values::Byte(v) => v[0].to_string(),
                Values::UByte(v) => v[0].to_string(),
                Values::Short(v) => v[0].to_string(),
                Values::UShort(v) => v[0].to_string(),
                Values::Int(v) => v[0].to_string(),
                Values::UInt(v) => v[0].to_string(),
                Values::Int64(v) => v[0].to_string(),
                Values::UInt64(v) => v[0].to_string(),
                Values::Char(v) => v[0].to_string(),
                _ => String::new(),
            };
            self.warn(
                pos,
                format!("{value} is out of range for {t}; stored as {shown} (as ncgen)"),
            );
        } else if n == REPORTED + 1 {
            self.warn(pos, "more values out of range; not reported");
        }
    }

    /// ncgen's `time("date")` (hours since 1970-01-01, proleptic Gregorian), and a
    /// date string in the data of a variable with CF time units (`time`), as the
    /// number the date is in those units.
    fn evaluated(&self, d: &Datum, time: Option<&TimeUnits>) -> Result<Option<f64>, CdlError> {
        let date =
            |r: Result<f64, DateError>| r.map(Some).map_err(|e| self.err(d.pos, e.to_string()));
        match &d.value {
            Value::Call(call) => {
                let (name, args) = &**call;
                if !name.eq_ignore_ascii_case("time") {
                    return Err(self.err(
                        d.pos,
                        format!("unknown function '{name}' (CDL has time(\"date\"))"),
                    ));
                }
                match args.as_slice() {
                    [Datum {
                        value: Value::Text(text),
                        ..
                    }] => date(ncgen_time(&String::from_utf8_lossy(text))),
                    [Datum {
                        value: Value::Text(kind),
                        ..
                    }, Datum {
                        value: Value::Text(_),
                        ..
                    }] => Err(self.err(
                        d.pos,
                        format!(
                            "time conversion '{}' is not supported (as in ncgen)",
                            String::from_utf8_lossy(kind)
                        ),
                    )),
                    _ => Err(self.err(d.pos, "expected function signature: time([string,]string)")),
                }
            }
            Value::Text(text) => match time {
                Some(units) => date(units.value_of(&String::from_utf8_lossy(text))),
                None => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// One constant as type `t`, appended to `out` (of type `t`); `fill` is what `_`
    /// means (for data); `time` the variable's CF time units, which date strings are
    /// read in. Appending rather than returning keeps large data sections free of a
    /// small allocation per value.
    pub(crate) fn convert_into(
        &self,
        d: &Datum,
        t: NcType,
        fill: Option<&Values>,
        time: Option<&TimeUnits>,
        out: &mut Values,
    ) -> Result<(), CdlError> {
        if t.is_numeric() {
            if let Some(v) = self.evaluated(d, time)? {
                let number = Datum {
                    value: Value::Double(v),
                    pos: d.pos,
                };
                return self.convert_into(&number, t, fill, None, out);
            }
        }
        let bad = |what: &str| self.err(d.pos, format!("cannot convert {what} to {t}"));
        if let Values::String(out) = out {
            out.push(match &d.value {
                Value::Text(s) => Some(s.as_slice()),
                Value::Char(c) => Some(std::slice::from_ref(c)),
                Value::Nil => None,
                Value::Fill => match fill {
                    Some(Values::String(f)) => f.first().flatten(),
                    _ => Some(&[][..]),
                },
                Value::Int { .. } | Value::Float(_) | Value::Double(_) => {
                    return Err(bad("a number"))
                }
                _ => return Err(bad("this value")),
            });
            return Ok(());
        }
        let as_f64 = |v: &Value| -> Option<f64> {
            match v {
                Value::Int { value, .. } => Some(value.get() as f64),
                Value::Float(f) => Some(f64::from(*f)),
                Value::Double(f) => Some(*f),
                Value::Char(c) => Some(f64::from(*c as i8)),
                _ => None,
            }
        };
        let as_int = |v: &Value| -> Option<i128> {
            match v {
                Value::Int { value, .. } => Some(value.get()),
                // A hex (opaque) constant in a numeric context: its value, as ncgen converts it.
                Value::Opaque(hex) => {
                    let digits = hex.trim_start_matches("0x").trim_start_matches("0X");
                    let tail = &digits[digits.len().saturating_sub(16)..];
                    u64::from_str_radix(tail, 16).ok().map(i128::from)
                }
                Value::Char(c) => Some(i128::from(*c as i8)),
                // C's cast truncates toward zero; out-of-range values saturate here.
                Value::Float(f) => Some(*f as i128),
                Value::Double(f) => Some(*f as i128),
                _ => None,
            }
        };
        match &d.value {
            Value::Fill => {
                match fill {
                    Some(f) if f.nc_type() == t => out.append(f.clone()),
                    _ => out.append(Values::default_fill(t)),
                }
                return Ok(());
            }
            Value::Nil => {
                return Err(self.err(
                    d.pos,
                    "NIL data can only be assigned to variables or attributes of type string",
                ))
            }
            Value::Text(_) => return Err(bad("a string")),
            Value::List(_) | Value::Run(_) => return Err(self.err(d.pos, "unexpected braces")),
            Value::Opaque(_) if matches!(t, NcType::Float | NcType::Double) => {
                return Err(bad("a hex constant"))
            }
            Value::Ident(r) => {
                return Err(self.err(
                    d.pos,
                    format!("{} is a name, not a value of type {t} (enum constants are values of enum types)", r.name),
                ))
            }
            Value::Call(..) => return Err(bad("a function value")),
            _ => {}
        }
        if let Values::Float(o) = out {
            o.push(as_f64(&d.value).ok_or_else(|| bad("this value"))? as f32);
            return Ok(());
        }
        if let Values::Double(o) = out {
            o.push(as_f64(&d.value).ok_or_else(|| bad("this value"))?);
            return Ok(());
        }
        let v = as_int(&d.value).ok_or_else(|| bad("this value"))?;
        // As ncgen (C casts): out-of-range values wrap.
        match out {
            Values::Char(o) => o.push(v as u8),
            Values::Byte(o) => o.push(v as i8),
            Values::UByte(o) => o.push(v as u8),
            Values::Short(o) => o.push(v as i16),
            Values::UShort(o) => o.push(v as u16),
            Values::Int(o) => o.push(v as i32),
            Values::UInt(o) => o.push(v as u32),
            Values::Int64(o) => o.push(v as i64),
            Values::UInt64(o) => o.push(v as u64),
            Values::Float(_) | Values::Double(_) | Values::String(_) => {}
        }
        if t != NcType::Char && !fits(v, t) {
            let stored = out.slice(out.len() - 1..out.len());
            self.warn_wrapped(d.pos, v, t, &stored);
        }
        Ok(())
    }
}

/// Whether integer `v` keeps its bits in integer type `t`: either signedness of the
/// type's width counts, because CDL routinely writes bit patterns such as 255 or
/// 0xFFFF into signed variables and means exactly the stored bits.
pub(crate) fn fits(v: i128, t: NcType) -> bool {
    let (lo, hi): (i128, i128) = match t {
        NcType::Byte | NcType::UByte => (i128::from(i8::MIN), i128::from(u8::MAX)),
        NcType::Short | NcType::UShort => (i128::from(i16::MIN), i128::from(u16::MAX)),
        NcType::Int | NcType::UInt => (i128::from(i32::MIN), i128::from(u32::MAX)),
        _ => (i128::from(i64::MIN), i128::from(u64::MAX)),
    };
    (lo..=hi).contains(&v)
}
