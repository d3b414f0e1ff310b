//! Attributes: global and variable attributes, their types (given, or inferred the
//! way ncgen infers them), `_FillValue`, and the special attributes that say how a
//! variable is stored (mapped by [`crate::encoding`]).

use super::{Builder, CdlError};
use crate::cdl::ast::{AttrDecl, Datum, TypeRef, Value};
use crate::cftime::{ncgen_time, DateError, TimeUnits};
use crate::encoding::{Special, SpecialKind};
use crate::model::{Attr, NcType, Values};

impl Builder<'_> {
    pub(super) fn attr(&mut self, a: &AttrDecl, path: &[String]) -> Result<(), CdlError> {
        let explicit = match &a.typ {
            None => None,
            Some(TypeRef::Atomic(t)) => Some(*t),
            Some(TypeRef::Named(r)) => {
                return Err(self.err(r.pos, format!("undefined type {}", r.name)))
            }
        };
        let Some(vref) = &a.var else {
            return self.global_attr(a, path, explicit);
        };
        let key = self.resolve_var(path, vref)?;
        let (var_type, var_rank) = self
            .ds
            .var(&key)
            .map_or((NcType::Int, 0), |v| (v.nc_type, v.dims.len()));
        if let Some(kind) = SpecialKind::of(&a.name) {
            return self.special(a, kind, &key, var_type, var_rank);
        }
        let mut values = match (explicit, a.name.as_str()) {
            (Some(t), _) => self.convert_list(&a.values, t, a.pos)?,
            (None, "_FillValue") => self.convert_list(&a.values, var_type, a.pos)?,
            (None, _) => self.infer(a)?,
        };
        // ncgen: `_FillValue = ""` on a char variable is the NUL character.
        if a.name == "_FillValue" && var_type == NcType::Char && values == Values::Char(Vec::new())
        {
            values = Values::Char(vec![0]);
        }
        if a.name == "_FillValue" {
            if values.len() != 1 {
                return Err(self.err(a.pos, "_FillValue must be a single value"));
            }
            let fill = values
                .cast_to(var_type)
                .or_else(|| (values.nc_type() == var_type).then(|| values.clone()));
            if let Some(enc) = self.encodings.get_mut(&key) {
                enc.fill = fill;
            }
        }
        if a.name == "_nczarr_maxstrlen" {
            let n = values
                .get_i128(0)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&n| n > 0);
            let n =
                n.ok_or_else(|| self.err(a.pos, "_nczarr_maxstrlen must be a positive integer"))?;
            if let Some(enc) = self.encodings.get_mut(&key) {
                enc.string_width = Some(n);
            }
        }
        let Some(var) = self.ds.var_mut(&key) else {
            return Ok(());
        };
        match var.attrs.iter_mut().find(|x| x.name == a.name) {
            // A repeated attribute replaces the earlier one (ncgen keeps the last).
            Some(existing) => existing.values = values,
            None => var.attrs.push(Attr::new(a.name.clone(), values)),
        }
        Ok(())
    }

    pub(super) fn global_attr(
        &mut self,
        a: &AttrDecl,
        path: &[String],
        explicit: Option<NcType>,
    ) -> Result<(), CdlError> {
        match a.name.as_str() {
            "_Format" => {
                let text = self.text_value(a)?;
                if !path.is_empty() {
                    return Err(self.err(a.pos, "_Format is allowed only in the root group"));
                }
                self.format = Some(text);
                return Ok(());
            }
            // Written by ncdump -s; describe the file, not its content.
            "_NCProperties" | "_IsNetcdf4" | "_SuperblockVersion" => return Ok(()),
            _ => {}
        }
        let values = match explicit {
            Some(t) => self.convert_list(&a.values, t, a.pos)?,
            None => self.infer(a)?,
        };
        if a.name == "_nczarr_default_maxstrlen" && path.is_empty() {
            let n = values
                .get_i128(0)
                .and_then(|v| usize::try_from(v).ok())
                .filter(|&n| n > 0);
            self.default_maxstrlen = Some(n.ok_or_else(|| {
                self.err(
                    a.pos,
                    "_nczarr_default_maxstrlen must be a positive integer",
                )
            })?);
        }
        let g = self.group_mut(path, a.pos)?;
        match g.attrs.iter_mut().find(|x| x.name == a.name) {
            Some(existing) => existing.values = values,
            None => g.attrs.push(Attr::new(a.name.clone(), values)),
        }
        Ok(())
    }

    /// The single string of a special attribute.
    fn text_value(&self, a: &AttrDecl) -> Result<String, CdlError> {
        match a.values.as_slice() {
            [Datum {
                value: Value::Text(t),
                ..
            }] => Ok(String::from_utf8_lossy(t).into_owned()),
            _ => Err(self.err(a.name_pos, format!("{} must be a string", a.name))),
        }
    }

    /// A boolean special (`"true"`, `"false"`, `"1"`, `"0"`, or an integer).
    fn bool_value(&self, a: &AttrDecl) -> Result<bool, CdlError> {
        match a.values.as_slice() {
            [Datum {
                value: Value::Text(t),
                ..
            }] => match String::from_utf8_lossy(t).to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                other => Err(self.err(
                    a.name_pos,
                    format!("{} must be \"true\" or \"false\", not \"{other}\"", a.name),
                )),
            },
            [Datum {
                value: Value::Int { value, .. },
                ..
            }] => Ok(value.get() != 0),
            _ => Err(self.err(
                a.name_pos,
                format!("{} must be \"true\" or \"false\"", a.name),
            )),
        }
    }

    fn int_values(&self, a: &AttrDecl) -> Result<Vec<i128>, CdlError> {
        a.values
            .iter()
            .map(|d| match d.value {
                Value::Int { value, .. } => Ok(value.get()),
                _ => Err(self.err(d.pos, format!("{} takes integers", a.name))),
            })
            .collect()
    }

    /// A special variable attribute: it changes how the variable is stored and is
    /// not kept as an attribute.
    pub(super) fn special(
        &mut self,
        a: &AttrDecl,
        kind: SpecialKind,
        key: &crate::model::VarPath,
        var_type: NcType,
        var_rank: usize,
    ) -> Result<(), CdlError> {
        let special = match kind {
            SpecialKind::Storage => Special::Storage(self.text_value(a)?),
            SpecialKind::ChunkSizes => {
                let sizes = self.int_values(a)?;
                let mut out = Vec::with_capacity(sizes.len());
                for (s, d) in sizes.iter().zip(&a.values) {
                    match u64::try_from(*s) {
                        Ok(v) if v > 0 => out.push(v),
                        _ => return Err(self.err(d.pos, "chunk sizes must be positive")),
                    }
                }
                Special::ChunkSizes(out)
            }
            SpecialKind::Fletcher32 => Special::Fletcher32(self.bool_value(a)?),
            SpecialKind::Shuffle => Special::Shuffle(self.bool_value(a)?),
            SpecialKind::DeflateLevel => {
                Special::DeflateLevel(self.int_values(a)?.first().copied().unwrap_or(-1))
            }
            SpecialKind::Endianness => Special::Endianness(self.text_value(a)?),
            SpecialKind::NoFill => Special::NoFill(self.bool_value(a)?),
            SpecialKind::Filter => Special::Filter(self.text_value(a)?),
            SpecialKind::Codecs => Special::Codecs(self.text_value(a)?),
            SpecialKind::Quantize => {
                self.warn(
                    a.name_pos,
                    format!("{} is not supported by NCZarr writers; ignored", a.name),
                );
                return Ok(());
            }
        };
        let codecs = kind == SpecialKind::Codecs;
        let text = self.text;
        let fixed = self.codecs_fixed.contains(key);
        let enc = self.encodings.entry(key.clone()).or_default();
        // _Codecs is the exact chain as ncdump -s prints it; it describes everything
        // the other filter attributes describe, so once given it is kept.
        let kept = (fixed && !codecs).then(|| enc.codecs.clone());
        enc.apply(special, var_type, var_rank)
            .map_err(|e| CdlError::at(text, a.name_pos, e.to_string()))?;
        if let Some(k) = kept {
            enc.codecs = k;
        }
        if codecs {
            self.codecs_fixed.insert(key.clone());
        }
        Ok(())
    }
}

/// Integer types in ncgen's inference order (`signedtype`): byte < short < int < int64.
fn signed_rank(t: NcType) -> u8 {
    match t {
        NcType::Byte | NcType::UByte => 1,
        NcType::Short | NcType::UShort => 3,
        NcType::Int | NcType::UInt => 4,
        _ => 10,
    }
}

impl Builder<'_> {
    /// ncgen's `inferattributetype`: all text is char; else any double makes double,
    /// any float float; else the integer type by ncgen's ordering.
    pub(super) fn infer(&self, a: &AttrDecl) -> Result<Values, CdlError> {
        if a.values.is_empty() {
            return Ok(Values::Char(Vec::new()));
        }
        let mut textual = 0;
        let mut t: Option<NcType> = None;
        let (mut any_double, mut any_float) = (false, false);
        for d in &a.values {
            match &d.value {
                Value::Text(_) => textual += 1,
                // A quoted character is a byte constant in CDL ('\0' makes a byte attribute).
                Value::Char(c) => {
                    let typ = NcType::Byte;
                    let _ = c;
                    t = Some(match t {
                        None => typ,
                        Some(prior) if signed_rank(prior) <= signed_rank(typ) => typ,
                        Some(prior) => prior,
                    })
                }
                Value::Double(_) => any_double = true,
                Value::Float(_) => any_float = true,
                Value::Int { typ, .. } => {
                    t = Some(match t {
                        None => *typ,
                        Some(prior) if prior == *typ => *typ,
                        Some(prior) if signed_rank(prior) <= signed_rank(*typ) => *typ,
                        Some(prior) => prior,
                    })
                }
                Value::Fill => {
                    return Err(self.err(d.pos, "'_' (fill) is not allowed in an attribute"))
                }
                Value::Nil => return Err(self.err(
                    d.pos,
                    "NIL is allowed only in string attributes; give the type: string var:att = NIL",
                )),
                Value::List(_) | Value::Run(_) => {
                    return Err(self.err(d.pos, "braces are not allowed in an attribute"))
                }
                // time("...") is a double (ncgen's evaluate).
                Value::Call(..) => any_double = true,
                Value::Opaque(_) | Value::Ident(_) => {
                    return Err(self.err(
                        d.pos,
                        "opaque and enum values are outside the NCZarr data model",
                    ))
                }
            }
        }
        if textual > 0 {
            if textual < a.values.len() {
                return Err(self.err(a.pos, format!("non-simple list of values for untyped attribute: {} mixes text and numbers", a.name)));
            }
            return self.convert_list(&a.values, NcType::Char, a.pos);
        }
        // A uint64 beyond int64 forces uint64 (ncgen's forceuint64).
        if !any_double && !any_float && a.values.iter().any(|d| matches!(d.value, Value::Int { value, typ: NcType::UInt64 } if value.get() > i128::from(i64::MAX))) {
            return self.convert_list(&a.values, NcType::UInt64, a.pos);
        }
        let target = if any_double {
            NcType::Double
        } else if any_float {
            NcType::Float
        } else {
            t.unwrap_or(NcType::Int)
        };
        self.convert_list(&a.values, target, a.pos)
    }

    /// Convert a flat list of constants to type `t` (attributes).
    pub(super) fn convert_list(
        &self,
        list: &[Datum],
        t: NcType,
        pos: usize,
    ) -> Result<Values, CdlError> {
        if t == NcType::Char {
            // Char attributes concatenate all their text.
            let mut bytes = Vec::new();
            for d in list {
                match &d.value {
                    Value::Text(s) => bytes.extend_from_slice(s),
                    Value::Char(c) => bytes.push(*c),
                    Value::Int { value, .. } => bytes.push(value.get() as u8),
                    _ => {
                        return Err(self.err(d.pos, "a char attribute takes strings or characters"))
                    }
                }
            }
            return Ok(Values::Char(bytes));
        }
        if list.is_empty() {
            return Err(self.err(
                pos,
                format!("empty data list: only char attributes may be empty (this one is {t})"),
            ));
        }
        let mut out = Values::with_capacity(t, list.len());
        for d in list {
            self.convert_into(d, t, None, None, &mut out)?;
        }
        Ok(out)
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
    pub(super) fn convert_into(
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
                Value::Text(s) => Some(s.clone()),
                Value::Char(c) => Some(vec![*c]),
                Value::Nil => None,
                Value::Fill => match fill {
                    Some(Values::String(f)) => f.first().cloned().flatten(),
                    _ => Some(Vec::new()),
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
            Value::Ident(_) => {
                return Err(self.err(d.pos, "enum constants are outside the NCZarr data model"))
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
fn fits(v: i128, t: NcType) -> bool {
    let (lo, hi): (i128, i128) = match t {
        NcType::Byte | NcType::UByte => (i128::from(i8::MIN), i128::from(u8::MAX)),
        NcType::Short | NcType::UShort => (i128::from(i16::MIN), i128::from(u16::MAX)),
        NcType::Int | NcType::UInt => (i128::from(i32::MIN), i128::from(u32::MAX)),
        _ => (i128::from(i64::MIN), i128::from(u64::MAX)),
    };
    (lo..=hi).contains(&v)
}
