//! Attributes: global and variable attributes, their types (given, or inferred the
//! way ncgen infers them), `_FillValue`, and the special attributes that say how a
//! variable is stored (mapped by [`crate::encoding`]).

use super::{Builder, CdlError};
use crate::cdl::ast::{AttrDecl, Datum, TypeRef, Value};
use crate::encoding::{Special, SpecialKind};
use crate::model::{Attr, NcType, Values};

impl Builder<'_> {
    pub(super) fn attr(&mut self, a: &AttrDecl, path: &[String]) -> Result<(), CdlError> {
        let explicit = match &a.typ {
            None => None,
            Some(TypeRef::Atomic(t)) => Some(*t),
            Some(TypeRef::Named(r)) => {
                let id = self.resolve_type(path, r)?;
                return self.user_typed_attr(a, a.var.as_ref(), path, &id);
            }
        };
        let Some(vref) = &a.var else {
            return self.global_attr(a, path, explicit);
        };
        let key = match self.resolve_var(path, vref) {
            Ok(key) => key,
            // `TYPE :att = ...`: a global attribute of a user-defined type reads as an
            // attribute of a variable named as the type (ncgen decides by the names).
            Err(e) => match self.resolve_type(path, vref) {
                Ok(id) if explicit.is_none() => return self.user_typed_attr(a, None, path, &id),
                _ => return Err(e),
            },
        };
        // A variable's `_FillValue` is of the variable's type.
        if let Some(id) = self
            .user_type_of(&key)
            .filter(|_| a.name == "_FillValue" && explicit.is_none())
        {
            return self.user_typed_attr(a, Some(vref), path, &id);
        }
        let (var_type, var_rank) = self
            .ds
            .var(&key)
            .map_or((NcType::Int, 0), |v| (v.nc_type, v.dims.len()));
        if let Some(kind) = SpecialKind::of(&a.name) {
            self.special(a, kind, &key, var_type, var_rank)?;
            // netcdf-c keeps the quantization as an attribute too (ncdump shows it).
            if kind != SpecialKind::Quantize {
                return Ok(());
            }
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
            Some(existing) => *existing = Attr::new(a.name.clone(), values),
            None => var.attrs.push(Attr::new(a.name.clone(), values)),
        }
        Ok(())
    }

    /// An attribute of the user-defined type `id`, of the variable `var` or global.
    fn user_typed_attr(
        &mut self,
        a: &AttrDecl,
        var: Option<&crate::cdl::ast::Ref>,
        path: &[String],
        id: &crate::model::TypeId,
    ) -> Result<(), CdlError> {
        let attr = self.user_attr(a, id)?;
        let Some(vref) = var else {
            let g = self.group_mut(path, a.pos)?;
            match g.attrs.iter_mut().find(|x| x.name == a.name) {
                Some(existing) => *existing = attr,
                None => g.attrs.push(attr),
            }
            return Ok(());
        };
        let key = self.resolve_var(path, vref)?;
        if a.name == "_FillValue" {
            if self.user_type_of(&key).as_ref() != Some(id) {
                return Err(self.err(
                    a.pos,
                    format!(
                        "_FillValue of {} must be of the variable's type, not {id}",
                        vref.name
                    ),
                ));
            }
            if attr.user.as_ref().is_none_or(|u| u.values.len() != 1) {
                return Err(self.err(a.pos, "_FillValue must be a single value"));
            }
            // An enum's fill is its base integer, as an atomic variable's.
            if !attr.values.is_empty() {
                if let Some(enc) = self.encodings.get_mut(&key) {
                    enc.fill = Some(attr.values.clone());
                }
            }
        }
        let Some(var) = self.ds.var_mut(&key) else {
            return Ok(());
        };
        match var.attrs.iter_mut().find(|x| x.name == a.name) {
            Some(existing) => *existing = attr,
            None => var.attrs.push(attr),
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
            Some(existing) => *existing = Attr::new(a.name.clone(), values),
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
                let nsd = self.int_values(a)?.first().copied().unwrap_or(0);
                let q = u32::try_from(nsd)
                    .ok()
                    .and_then(|n| crate::encoding::quantize::Quantize::from_attribute(&a.name, n))
                    .ok_or_else(|| {
                        self.err(
                            a.name_pos,
                            format!("{} is not a quantization netCDF knows, or {nsd} digits are not a count", a.name),
                        )
                    })?;
                Special::Quantize(q)
            }
        };
        let codecs = kind == SpecialKind::Codecs;
        let loc = self.conv.loc;
        let fixed = self.codecs_fixed.contains(key);
        let enc = self.encodings.entry(key.clone()).or_default();
        // _Codecs is the exact chain as ncdump -s prints it; it describes everything
        // the other filter attributes describe, so once given it is kept.
        let kept = (fixed && !codecs).then(|| enc.codecs.clone());
        enc.apply(special, var_type, var_rank)
            .map_err(|e| CdlError::located(loc, a.name_pos, e.to_string()))?;
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
                        "an attribute of enum constants or opaque values needs its type: TYPE var:att = ...",
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
}
