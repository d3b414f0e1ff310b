//! User-defined types (netCDF-4's compound, enum, opaque and vlen): their
//! declarations, found with ncgen's scoping, and constants of them in data lists and
//! attributes, laid out as ncgen lays them out.

use super::data::{Flat, Leaves};
use super::{Builder, CdlError};
use crate::cdl::ast::{
    items, AttrDecl, Datum, GroupDecl, Item, Ref, TypeBody, TypeRef as Named, Value,
};
use crate::model::user::{Field, TypeRef, UserKind};
use crate::model::{Attr, NcType, TypeId, UValue, UserAttr, UserType, Values, VarPath};

/// Every type the file declares, known before any is used: ncgen lets a variable
/// or field use a type declared later, or in another group.
#[derive(Debug, Default)]
pub(super) struct Declared {
    /// Types in the order of the text.
    types: Vec<(TypeId, UserKind)>,
    /// Every group's path, in the order of the text (ncgen's search of the tree).
    groups: Vec<Vec<String>>,
}

impl Declared {
    fn has(&self, group: &[String], name: &str) -> bool {
        self.types
            .iter()
            .any(|(id, _)| id.group == group && id.name == name)
    }

    /// ncgen's `uniquetreelocate`: the type in `group`, else the one found in exactly
    /// one of its subgroups' trees. `Err` lists where it is when that is more than one.
    fn in_tree(&self, group: &[String], name: &str) -> Result<Option<TypeId>, Vec<TypeId>> {
        if self.has(group, name) {
            return Ok(Some(TypeId {
                group: group.to_vec(),
                name: name.to_string(),
            }));
        }
        let mut found: Vec<TypeId> = Vec::new();
        for child in self
            .groups
            .iter()
            .filter(|g| g.len() == group.len() + 1 && g.starts_with(group))
        {
            match self.in_tree(child, name) {
                Ok(Some(id)) => found.push(id),
                Ok(None) => {}
                Err(many) => found.extend(many),
            }
        }
        match found.len() {
            0 => Ok(None),
            1 => Ok(found.pop()),
            _ => Err(found),
        }
    }

    /// Order the types as ncgen defines them (`processtypes`): first, in the order of
    /// the text, those made of atomic types only (enums and opaques, vlens of an
    /// atomic type, compounds of atomic fields); then, over and over, each whose
    /// types are all defined. netcdf-c lists a group's types in that order.
    fn sort(&mut self) {
        let atomic = |t: &TypeRef| matches!(t, TypeRef::Atomic(_));
        let uses = |kind: &UserKind| -> Vec<TypeRef> {
            match kind {
                UserKind::Vlen { base } => vec![base.clone()],
                UserKind::Compound { fields, .. } => fields.iter().map(|f| f.ty.clone()).collect(),
                UserKind::Enum { .. } | UserKind::Opaque { .. } => Vec::new(),
            }
        };
        let mut done = vec![false; self.types.len()];
        let mut order = Vec::with_capacity(self.types.len());
        for (k, (_, kind)) in self.types.iter().enumerate() {
            if uses(kind).iter().all(atomic) {
                done[k] = true;
                order.push(k);
            }
        }
        loop {
            let mut added = false;
            for k in 0..self.types.len() {
                if done[k] {
                    continue;
                }
                let ready = uses(&self.types[k].1).iter().all(|t| match t {
                    TypeRef::Atomic(_) => true,
                    TypeRef::User(id) => self
                        .types
                        .iter()
                        .position(|(x, _)| x == id)
                        .is_some_and(|j| done[j]),
                });
                if ready {
                    done[k] = true;
                    order.push(k);
                    added = true;
                }
            }
            if !added {
                break;
            }
        }
        // Types that hold themselves never become ready: kept last, in order.
        order.extend((0..self.types.len()).filter(|&k| !done[k]));
        let mut old: Vec<Option<(TypeId, UserKind)>> = std::mem::take(&mut self.types)
            .into_iter()
            .map(Some)
            .collect();
        self.types = order.into_iter().filter_map(|k| old[k].take()).collect();
    }

    /// The types of the group at `path`, in order.
    pub(super) fn of_group(&self, path: &[String]) -> Vec<UserType> {
        self.types
            .iter()
            .filter(|(id, _)| id.group == path)
            .map(|(id, kind)| UserType {
                name: id.name.clone(),
                kind: kind.clone(),
            })
            .collect()
    }

    pub(super) fn kind(&self, id: &TypeId) -> Option<&UserKind> {
        self.types.iter().find(|(t, _)| t == id).map(|(_, k)| k)
    }

    /// Size and alignment of a value of `t` in a C program (netcdf-c's in-memory
    /// layout, which a compound's offsets follow): strings and vlens are pointers.
    fn c_layout(&self, t: &TypeRef, depth: u32) -> (u64, u64) {
        match t {
            TypeRef::Atomic(NcType::String) => (8, 8),
            TypeRef::Atomic(nc) => {
                let n = nc.size() as u64;
                (n, n.max(1))
            }
            TypeRef::User(id) => match self.kind(id) {
                _ if depth > 64 => (0, 1),
                Some(UserKind::Enum { base, .. }) => self.c_layout(&TypeRef::Atomic(*base), depth),
                Some(UserKind::Opaque { size }) => (*size, 1),
                Some(UserKind::Vlen { .. }) => (16, 8),
                Some(UserKind::Compound { fields, .. }) => {
                    let (size, align, _) = self.compound_layout(fields, depth + 1);
                    (size, align)
                }
                None => (0, 1),
            },
        }
    }

    /// A compound's size, alignment and field offsets as a C compiler lays out the
    /// struct (netcdf-c lays out the compounds ncgen defines so).
    fn compound_layout(&self, fields: &[Field], depth: u32) -> (u64, u64, Vec<u64>) {
        let (mut at, mut most) = (0u64, 1u64);
        let mut offsets = Vec::with_capacity(fields.len());
        for f in fields {
            let (size, align) = self.c_layout(&f.ty, depth);
            let n: u64 = f.dims.iter().product();
            at = at.next_multiple_of(align);
            offsets.push(at);
            at = at.saturating_add(size.saturating_mul(n));
            most = most.max(align);
        }
        (at.next_multiple_of(most).max(1), most, offsets)
    }
}

impl<'t> Builder<'t> {
    /// Find every type declared in the file, with its fields' and bases' types
    /// resolved and its compounds laid out.
    ///
    /// # Errors
    /// Duplicate types or enum members, undefined or ambiguous types, enum values
    /// outside their base type.
    pub(super) fn declare_types(&mut self, root: &'t GroupDecl) -> Result<(), CdlError> {
        let mut decls = Vec::new();
        let mut stack = vec![(root, Vec::new())];
        while let Some((g, path)) = stack.pop() {
            for item in &g.items {
                if let Item::Type(t) = item {
                    if self.declared.has(&path, &t.name) {
                        return Err(
                            self.err(t.pos, format!("duplicate type declaration for {}", t.name))
                        );
                    }
                    // Placeholder kinds until every name is known.
                    self.declared.types.push((
                        TypeId {
                            group: path.clone(),
                            name: t.name.clone(),
                        },
                        UserKind::Opaque { size: 0 },
                    ));
                    decls.push((path.clone(), t));
                }
            }
            self.declared.groups.push(path.clone());
            for sub in g.groups.iter().rev() {
                let mut p = path.clone();
                p.push(sub.name.clone());
                stack.push((sub, p));
            }
        }
        for (k, (path, t)) in decls.iter().enumerate() {
            let kind = match &t.body {
                TypeBody::Opaque { size } => UserKind::Opaque { size: *size },
                TypeBody::Vlen { base } => UserKind::Vlen {
                    base: self.type_ref(path, base)?,
                },
                TypeBody::Enum { base, members } => {
                    let mut out: Vec<(String, i128)> = Vec::with_capacity(members.len());
                    for (name, value, pos) in members {
                        if out.iter().any(|(n, _)| n == name) {
                            return Err(self.err(
                                *pos,
                                format!("duplicate enum constant {name} in {}", t.name),
                            ));
                        }
                        if !super::datums::fits(*value, *base) {
                            return Err(self.err(*pos, format!("enum constant {name} = {value} does not fit the base type {base}")));
                        }
                        out.push((name.clone(), *value));
                    }
                    UserKind::Enum {
                        base: *base,
                        members: out,
                    }
                }
                TypeBody::Compound { fields } => {
                    let mut out: Vec<Field> = Vec::with_capacity(fields.len());
                    for f in fields {
                        if out.iter().any(|x| x.name == f.name) {
                            return Err(self.err(
                                f.pos,
                                format!("duplicate field {} in compound {}", f.name, t.name),
                            ));
                        }
                        out.push(Field {
                            name: f.name.clone(),
                            offset: 0,
                            ty: self.type_ref(path, &f.typ)?,
                            dims: f.dims.clone(),
                        });
                    }
                    UserKind::Compound {
                        size: 0,
                        fields: out,
                    }
                }
            };
            self.declared.types[k].1 = kind;
        }
        self.declared.sort();
        for k in 0..self.declared.types.len() {
            if let UserKind::Compound { fields, .. } = &self.declared.types[k].1 {
                let (size, _, offsets) = self.declared.compound_layout(fields, 0);
                if let UserKind::Compound { size: s, fields } = &mut self.declared.types[k].1 {
                    *s = size;
                    for (f, o) in fields.iter_mut().zip(offsets) {
                        f.offset = o;
                    }
                }
            }
        }
        Ok(())
    }

    /// A field's or vlen's element type.
    fn type_ref(&self, path: &[String], t: &Named) -> Result<TypeRef, CdlError> {
        match t {
            Named::Atomic(nc) => Ok(TypeRef::Atomic(*nc)),
            Named::Named(r) => self.resolve_type(path, r).map(TypeRef::User),
        }
    }

    /// A type named in the group at `path`: by its path, else in the group or an
    /// ancestor, else the one type of that name in the whole tree (ncgen's scoping).
    pub(super) fn resolve_type(&self, path: &[String], r: &Ref) -> Result<TypeId, CdlError> {
        let id = |group: &[String]| TypeId {
            group: group.to_vec(),
            name: r.name.clone(),
        };
        if let Some(gs) = &r.groups {
            if self.declared.has(gs, &r.name) {
                return Ok(id(gs));
            }
            return Err(self.err(r.pos, format!("undefined type {}", id(gs))));
        }
        for depth in (0..=path.len()).rev() {
            if self.declared.has(&path[..depth], &r.name) {
                return Ok(id(&path[..depth]));
            }
        }
        match self.declared.in_tree(&[], &r.name) {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err(self.err(r.pos, format!("undefined type {}", r.name))),
            Err(many) => Err(self.err(
                r.pos,
                format!(
                    "type {} is defined in several groups ({}): name it by its path",
                    r.name,
                    many.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// The user-defined type of the variable at `var`, if it has one.
    pub(super) fn user_type_of(&self, var: &VarPath) -> Option<TypeId> {
        self.ds.var(var)?.user_type.clone()
    }

    /// How a data list of the variable at `var` (of type `t`) gives its elements.
    pub(super) fn leaves_of(&self, var: &VarPath, t: NcType) -> Leaves {
        let kind = self
            .user_type_of(var)
            .and_then(|id| self.declared.kind(&id).cloned());
        match kind {
            Some(UserKind::Compound { .. } | UserKind::Vlen { .. }) => Leaves::Items,
            Some(_) => Leaves::Values,
            None if t == NcType::Char => Leaves::Chars,
            None => Leaves::Values,
        }
    }

    /// Lay out the data list of a variable of the user-defined type `id`: an enum's
    /// as its base integers, the others' as values of the type; what the list does not
    /// give is the variable's fill value.
    pub(super) fn place_user(
        &mut self,
        var: &VarPath,
        id: &TypeId,
        list: &[Datum],
        shape: &[u64],
        unlimited: &[bool],
        total: usize,
    ) -> Result<(), CdlError> {
        let ty = TypeRef::User(id.clone());
        let leaves = self.leaves_of(var, NcType::UByte);
        if let Some(UserKind::Enum { base, .. }) = self.declared.kind(id) {
            let base = *base;
            let fill = self.fill_of(var, base);
            let mut out = Values::repeat(&fill, total);
            let mut put = |list: &[Datum], at: usize, room: usize| {
                let mut run = Values::with_capacity(base, room);
                self.each_leaf(list, room, leaves, |d| {
                    let v = match &d.value {
                        Value::Fill => fill.clone(),
                        _ => enum_values(base, self.enum_value(d, id)?),
                    };
                    run.append(v);
                    Ok(())
                })?;
                out.write_at(at, &run);
                Ok(())
            };
            self.place(list, shape, unlimited, 0, 0, &mut put)?;
            self.values.insert(var.clone(), out);
            return Ok(());
        }
        let fill = self.user_fill(var, &ty);
        let mut out = vec![fill.clone(); total];
        let mut put = |list: &[Datum], at: usize, room: usize| {
            let mut k = at;
            self.each_leaf(list, room, leaves, |d| {
                out[k] = self.user_value(d, &ty, Some(&fill))?;
                k += 1;
                Ok(())
            })
        };
        self.place(list, shape, unlimited, 0, 0, &mut put)?;
        self.user_values.insert(var.clone(), out);
        Ok(())
    }

    /// What `_` and values not given are for the variable at `var` of type `ty`: its
    /// `_FillValue`, else the type's default.
    fn user_fill(&self, var: &VarPath, ty: &TypeRef) -> UValue {
        match self.ds.var(var) {
            Some(v) => crate::model::user::var_fill(v, ty, &|id| self.declared.kind(id)),
            None => self.ds_default(ty),
        }
    }

    /// netcdf-c's default fill of `ty` (the types are not yet all in the dataset).
    fn ds_default(&self, ty: &TypeRef) -> UValue {
        crate::model::user::default_fill(ty, &|id| self.declared.kind(id))
    }

    /// One constant of type `ty` (`fill` is what `_` means).
    ///
    /// # Errors
    /// A constant that is not of the type: an enum constant it does not have, an
    /// unbraced compound, a field array not in braces, too many fields.
    fn user_value(
        &self,
        d: &Datum,
        ty: &TypeRef,
        fill: Option<&UValue>,
    ) -> Result<UValue, CdlError> {
        if matches!(d.value, Value::Fill) {
            return Ok(fill.cloned().unwrap_or_else(|| self.ds_default(ty)));
        }
        let id = match ty {
            TypeRef::Atomic(t) => {
                let mut out = Values::with_capacity(*t, 1);
                self.convert_into(d, *t, None, None, &mut out)?;
                return Ok(UValue::Atomic(out));
            }
            TypeRef::User(id) => id,
        };
        let kind = self
            .declared
            .kind(id)
            .ok_or_else(|| self.err(d.pos, format!("undefined type {id}")))?;
        Ok(match kind {
            UserKind::Enum { .. } => UValue::Enum(self.enum_value(d, id)?),
            UserKind::Opaque { size } => UValue::Opaque(self.opaque_value(d, *size, id)?),
            UserKind::Vlen { base } => {
                let list = match &d.value {
                    Value::List(inner) => inner.as_slice(),
                    _ => std::slice::from_ref(d),
                };
                UValue::Vlen(self.elements(list, base, usize::MAX)?)
            }
            UserKind::Compound { fields, .. } => {
                let Value::List(inner) = &d.value else {
                    return Err(self.err(
                        d.pos,
                        format!("a value of the compound type {id} must be enclosed in {{...}}"),
                    ));
                };
                let given: Vec<&Datum> = items(inner).collect();
                if given.len() > fields.len() {
                    return Err(self.err(
                        given[fields.len()].pos,
                        format!(
                            "too many values for the compound type {id}: it has {} fields",
                            fields.len()
                        ),
                    ));
                }
                let mut out = Vec::with_capacity(fields.len());
                for (k, f) in fields.iter().enumerate() {
                    out.push(match given.get(k) {
                        Some(v) => self.field_value(v, f)?,
                        None => crate::model::user::default_field(f, &|id| self.declared.kind(id)),
                    });
                }
                UValue::Compound(out)
            }
        })
    }

    /// Up to `room` elements of type `base` from `list`: constants (braces only group
    /// them; a string gives a char element per byte) or, for a user-defined type, the
    /// list's items.
    fn elements(
        &self,
        list: &[Datum],
        base: &TypeRef,
        room: usize,
    ) -> Result<Vec<UValue>, CdlError> {
        let mut out = Vec::new();
        match base {
            TypeRef::Atomic(NcType::Char) => {
                for d in Flat::new(list) {
                    match &d.value {
                        Value::Text(s) => {
                            out.extend(s.iter().map(|&c| UValue::Atomic(Values::Char(vec![c]))))
                        }
                        _ => {
                            let mut v = Values::with_capacity(NcType::Char, 1);
                            self.convert_into(d, NcType::Char, None, None, &mut v)?;
                            out.push(UValue::Atomic(v));
                        }
                    }
                }
                if out.len() > room {
                    out.truncate(room);
                }
            }
            TypeRef::Atomic(_) => {
                self.each_leaf(list, room, Leaves::Values, |d| {
                    out.push(self.user_value(d, base, None)?);
                    Ok(())
                })?;
            }
            TypeRef::User(_) => {
                self.each_leaf(list, room, Leaves::Items, |d| {
                    out.push(self.user_value(d, base, None)?);
                    Ok(())
                })?;
            }
        }
        Ok(out)
    }

    /// A compound's field: one value, or (a field with dimensions) a braced list of
    /// its elements, the rest filled with the default.
    fn field_value(&self, d: &Datum, f: &Field) -> Result<UValue, CdlError> {
        if f.dims.is_empty() {
            if f.ty == TypeRef::Atomic(NcType::Char) {
                // A char field takes a one-character string, as ncgen's `"S"`.
                let c = match &d.value {
                    Value::Text(s) => s.first().copied().unwrap_or(0),
                    Value::Fill => 0,
                    _ => {
                        let mut v = Values::with_capacity(NcType::Char, 1);
                        self.convert_into(d, NcType::Char, None, None, &mut v)?;
                        return Ok(UValue::Atomic(v));
                    }
                };
                return Ok(UValue::Atomic(Values::Char(vec![c])));
            }
            return self.user_value(d, &f.ty, None);
        }
        let n = usize::try_from(f.dims.iter().product::<u64>()).unwrap_or(usize::MAX);
        let list = match &d.value {
            Value::List(inner) => inner.as_slice(),
            Value::Fill => &[],
            _ => {
                return Err(self.err(
                    d.pos,
                    format!(
                        "field {} has dimensions: its values must be enclosed in {{...}}",
                        f.name
                    ),
                ))
            }
        };
        let mut out = self.elements(list, &f.ty, n)?;
        let fill = match f.ty {
            // Characters not given are NULs, as a C string's.
            TypeRef::Atomic(NcType::Char) => UValue::Atomic(Values::Char(vec![0])),
            _ => self.ds_default(&f.ty),
        };
        out.resize(n, fill);
        Ok(UValue::Array(out))
    }

    /// The value of an enum constant of the type `id`: its name (`Clear`), qualified by
    /// the type's (`cloud_t.Clear`, `/g/cloud_t.Clear`), or an integer.
    fn enum_value(&self, d: &Datum, id: &TypeId) -> Result<i128, CdlError> {
        let Some(UserKind::Enum { members, .. }) = self.declared.kind(id) else {
            return Err(self.err(d.pos, format!("{id} is not an enum type")));
        };
        let member = |name: &str| members.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        match &d.value {
            Value::Ident(r) => {
                if r.groups.is_none() {
                    if let Some(v) = member(&r.name) {
                        return Ok(v);
                    }
                }
                for (k, _) in r.name.match_indices('.') {
                    let (tname, mname) = (&r.name[..k], &r.name[k + 1..]);
                    let same_type =
                        tname == id.name && r.groups.as_ref().is_none_or(|g| *g == id.group);
                    if let Some(v) = member(mname).filter(|_| same_type) {
                        return Ok(v);
                    }
                }
                Err(self.err(d.pos, format!("enum type {id} has no constant {}", r.name)))
            }
            Value::Int { value, .. } => Ok(value.get()),
            _ => Err(self.err(
                d.pos,
                format!("a value of the enum type {id} must be one of its constants"),
            )),
        }
    }

    /// An opaque constant's bytes (`0x...`, two hex digits a byte), padded with zeros
    /// or cut to the type's `size`, as ncgen does.
    fn opaque_value(&self, d: &Datum, size: u64, id: &TypeId) -> Result<Vec<u8>, CdlError> {
        let Value::Opaque(text) = &d.value else {
            return Err(self.err(
                d.pos,
                format!("a value of the opaque type {id} is a hex constant (0x...)"),
            ));
        };
        let digits = text.trim_start_matches("0x").trim_start_matches("0X");
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let mut bytes: Vec<u8> = digits
            .as_bytes()
            .chunks(2)
            .map(|pair| {
                let s = std::str::from_utf8(pair).unwrap_or("0");
                // A last odd digit is the high half of its byte.
                let s = if s.len() == 1 {
                    format!("{s}0")
                } else {
                    s.to_string()
                };
                u8::from_str_radix(&s, 16).unwrap_or(0)
            })
            .collect();
        if bytes.len() > size {
            self.warn(
                d.pos,
                format!(
                    "opaque constant of {} bytes cut to the {size} of {id}",
                    bytes.len()
                ),
            );
            bytes.truncate(size);
        }
        bytes.resize(size, 0);
        Ok(bytes)
    }

    /// An attribute of the user-defined type `id`: an enum's values are also its base
    /// integers (what tools without the type see).
    ///
    /// # Errors
    /// As [`Builder::user_value`]; an empty list.
    pub(super) fn user_attr(&self, a: &AttrDecl, id: &TypeId) -> Result<Attr, CdlError> {
        let kind = self
            .declared
            .kind(id)
            .ok_or_else(|| self.err(a.pos, format!("undefined type {id}")))?;
        let leaves = match kind {
            UserKind::Compound { .. } | UserKind::Vlen { .. } => Leaves::Items,
            _ => Leaves::Values,
        };
        let ty = TypeRef::User(id.clone());
        let mut values = Vec::new();
        self.each_leaf(&a.values, usize::MAX, leaves, |d| {
            if matches!(d.value, Value::Fill) {
                return Err(self.err(d.pos, "'_' (fill) is not allowed in an attribute"));
            }
            values.push(self.user_value(d, &ty, None)?);
            Ok(())
        })?;
        if values.is_empty() {
            return Err(self.err(
                a.pos,
                format!("empty data list for attribute {} of type {id}", a.name),
            ));
        }
        let base = match kind {
            UserKind::Enum { base, .. } => {
                let mut out = Values::with_capacity(*base, values.len());
                for v in &values {
                    if let UValue::Enum(x) = v {
                        out.append(enum_values(*base, *x));
                    }
                }
                out
            }
            _ => Values::Char(Vec::new()),
        };
        let mut attr = Attr::new(a.name.clone(), base);
        attr.user = Some(Box::new(UserAttr {
            ty: id.clone(),
            values,
        }));
        Ok(attr)
    }
}

/// An enum's value as one value of its base type.
fn enum_values(base: NcType, v: i128) -> Values {
    let wide = Values::Int64(vec![v as i64]);
    match base {
        NcType::UInt64 => Values::UInt64(vec![v as u64]),
        _ => wide.cast_to(base).unwrap_or(wide),
    }
}
