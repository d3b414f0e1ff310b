//! The netCDF-4 dataset netcdf-c's DAP4 client makes of a DMR: groups as groups,
//! shared dimensions (`_edu.ucar.isunlimited` ones unlimited), anonymous dimensions as
//! `_Anonymous<size>` in the root group, enumerations as enum types, opaques as
//! `opaque<size>_t`, structures as compound types `<name>_t`, sequences as a vlen
//! `<name>_t` of a compound `<name>_base_t`; DAP4 `String` attributes as `string`
//! ones, maps as an `_edu.ucar.maps` attribute, DAP4's own attributes
//! (`_DAP4_Checksum_CRC32`, `_DAP4_Little_Endian`, `_edu.ucar.*`) not shown.

use super::dmr::{self, Atomic, DimUse, VarType};
use crate::model::{
    Attr, Dataset, Dim, DimRef, Field, Group, NcType, Strings, TypeId, TypeRef, UValue, UserAttr,
    UserKind, UserType, Values, Var, VarPath,
};

/// An opaque's size where the DMR declares none (netcdf-c's `opaquesize` default).
pub(super) const DEFAULT_OPAQUE_SIZE: u64 = 16;

/// A top-level variable: where the dataset shows it and what the data walk needs.
#[derive(Debug, Clone)]
pub(super) struct VarInfo {
    /// Its path in the dataset.
    pub path: VarPath,
    /// Its fully qualified DAP4 name (escaped as a constraint writes it).
    pub fqn: String,
    /// The DMR's variable, enums resolved to their base types.
    pub var: dmr::Var,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Read by element (opaque, structure, sequence), not as atomic values.
    pub user: bool,
    /// The byte size of its opaque type (checked on reads).
    pub opaque_size: Option<u64>,
}

/// The dataset and its variables.
#[derive(Debug, Clone)]
pub(super) struct View {
    /// The netCDF-4 dataset.
    pub dataset: Dataset,
    /// Top-level variables in the data's order (a group's, then its subgroups').
    pub vars: Vec<VarInfo>,
}

type Fail = (String, String);

struct Builder<'a> {
    root: &'a dmr::Group,
    opaque_size: Option<u64>,
    anon: Vec<Dim>,
    /// Types to define, by group path, in order of need.
    made: Vec<(Vec<String>, UserType)>,
    vars: Vec<VarInfo>,
}

fn esc(name: &str) -> String {
    let mut s = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '/' | '.' | '\\') {
            s.push('\\');
        }
        s.push(c);
    }
    s
}

/// The group `path` (names from the root) of `root`.
fn group_at<'a>(root: &'a dmr::Group, path: &[String]) -> Option<&'a dmr::Group> {
    let mut g = root;
    for p in path {
        g = g.groups.iter().find(|c| &c.name == p)?;
    }
    Some(g)
}

/// The shared dimension a `<Dim name=>` names: its group, declaration.
pub(super) fn find_dim<'a>(
    root: &'a dmr::Group,
    fqn: &str,
) -> Option<(Vec<String>, &'a dmr::DimDecl)> {
    let mut parts = dmr::split_fqn(fqn);
    let name = parts.pop()?;
    let g = group_at(root, &parts)?;
    g.dims.iter().find(|d| d.name == name).map(|d| (parts, d))
}

/// The enumeration `fqn` names: its group and declaration.
pub(super) fn find_enum<'a>(
    root: &'a dmr::Group,
    fqn: &str,
) -> Option<(Vec<String>, &'a dmr::Enum)> {
    let mut parts = dmr::split_fqn(fqn);
    let name = parts.pop()?;
    let g = group_at(root, &parts)?;
    g.enums.iter().find(|e| e.name == name).map(|e| (parts, e))
}

fn attr_type(ty: &str) -> Option<NcType> {
    Atomic::from_name(ty).map(Atomic::nc_type)
}

/// Text as values of `t` (numbers as C's `strtoll`/`strtod` read them; a bad one is 0).
fn typed(values: &[String], t: NcType) -> Values {
    let int = |s: &String| -> i128 {
        let s = s.trim();
        s.parse::<i128>()
            .ok()
            .or_else(|| s.parse::<f64>().ok().map(|f| f as i128))
            .unwrap_or(0)
    };
    let float = |s: &String| -> f64 { s.trim().parse::<f64>().unwrap_or(0.0) };
    match t {
        // netcdf-c's: the first byte of each value (an empty one is a NUL).
        NcType::Char => Values::Char(
            values
                .iter()
                .map(|v| v.as_bytes().first().copied().unwrap_or(0))
                .collect(),
        ),
        NcType::String => {
            let mut s = Strings::new();
            for v in values {
                s.push(Some(v.as_bytes()));
            }
            Values::String(s)
        }
        NcType::Byte => Values::Byte(values.iter().map(|v| int(v) as i8).collect()),
        NcType::UByte => Values::UByte(values.iter().map(|v| int(v) as u8).collect()),
        NcType::Short => Values::Short(values.iter().map(|v| int(v) as i16).collect()),
        NcType::UShort => Values::UShort(values.iter().map(|v| int(v) as u16).collect()),
        NcType::Int => Values::Int(values.iter().map(|v| int(v) as i32).collect()),
        NcType::UInt => Values::UInt(values.iter().map(|v| int(v) as u32).collect()),
        NcType::Int64 => Values::Int64(values.iter().map(|v| int(v) as i64).collect()),
        NcType::UInt64 => Values::UInt64(values.iter().map(|v| int(v) as u64).collect()),
        NcType::Float => Values::Float(values.iter().map(|v| float(v) as f32).collect()),
        NcType::Double => Values::Double(values.iter().map(float).collect()),
    }
}

/// Attributes DAP4 keeps for itself, not shown (netcdf-c's reserved list and its
/// server's `_edu.ucar.` tags).
fn hidden(name: &str) -> bool {
    name.starts_with("_edu.ucar.")
        || matches!(
            name,
            "_DAP4_Checksum_CRC32" | "_DAP4_Little_Endian" | "_NCProperties"
        )
}

impl Builder<'_> {
    /// The attributes of `attrs` as netCDF ones; `var_type` is the type a `_FillValue`
    /// takes (the variable's, as netcdf-c forces it).
    fn attrs(
        &self,
        attrs: &[dmr::Attr],
        prefix: &str,
        fill: Option<(&NcType, Option<(&TypeId, &dmr::Enum)>)>,
        out: &mut Vec<Attr>,
    ) {
        for a in attrs {
            let name = format!("{prefix}{}", a.name);
            if hidden(&name) {
                continue;
            }
            // Containers are not shown, as netcdf-c does not show them (Hyrax's
            // nested metadata has no place in netCDF's flat attributes).
            if a.ty.eq_ignore_ascii_case("container") || !a.children.is_empty() {
                continue;
            }
            let is_fill = name == "_FillValue";
            if let (true, Some((_, Some((id, e))))) = (is_fill, fill) {
                let ints: Vec<i128> = a
                    .values
                    .iter()
                    .map(|v| {
                        e.consts
                            .iter()
                            .find(|(n, _)| n == v.trim())
                            .map(|(_, k)| *k)
                            .unwrap_or_else(|| v.trim().parse().unwrap_or(0))
                    })
                    .collect();
                let texts: Vec<String> = ints.iter().map(i128::to_string).collect();
                let mut attr = Attr::new(name, typed(&texts, e.base.nc_type()));
                attr.user = Some(Box::new(UserAttr {
                    ty: id.clone(),
                    values: ints.into_iter().map(UValue::Enum).collect(),
                }));
                out.push(attr);
                continue;
            }
            let t = match (is_fill, fill) {
                (true, Some((t, None))) => *t,
                _ => attr_type(&a.ty)
                    .or_else(|| find_enum(self.root, &a.ty).map(|(_, e)| e.base.nc_type()))
                    .unwrap_or(NcType::String),
            };
            out.push(Attr::new(name, typed(&a.values, t)));
        }
    }

    fn dim_ref(&mut self, d: &DimUse, var: &str) -> Result<(DimRef, u64), Fail> {
        match d {
            DimUse::Named(fqn) => {
                let (group, decl) = find_dim(self.root, fqn).ok_or_else(|| {
                    (
                        var.to_string(),
                        format!("its dimension {fqn} is not declared"),
                    )
                })?;
                Ok((
                    DimRef {
                        group,
                        name: decl.name.clone(),
                    },
                    decl.size,
                ))
            }
            DimUse::Anonymous(n) => {
                let name = format!("_Anonymous{n}");
                if !self.anon.iter().any(|d| d.name == name) {
                    self.anon.push(Dim {
                        name: name.clone(),
                        len: *n,
                        unlimited: false,
                    });
                }
                Ok((
                    DimRef {
                        group: Vec::new(),
                        name,
                    },
                    *n,
                ))
            }
        }
    }

    fn define(&mut self, group: &[String], t: UserType) -> TypeId {
        let id = TypeId {
            group: group.to_vec(),
            name: t.name.clone(),
        };
        if !self
            .made
            .iter()
            .any(|(g, u)| g == group && u.name == t.name)
        {
            self.made.push((group.to_vec(), t));
        }
        id
    }

    /// The type of a field or variable `v` (in group `group`, named `stem` for
    /// made types): its type reference, size and alignment in a compound.
    fn type_of(
        &mut self,
        v: &dmr::Var,
        group: &[String],
        stem: &str,
    ) -> Result<(TypeRef, u64, u64), Fail> {
        Ok(match &v.ty {
            VarType::Atomic(a) | VarType::EnumBase(a) => match a.size() {
                Some(s) => (TypeRef::Atomic(a.nc_type()), s as u64, s as u64),
                None => (TypeRef::Atomic(NcType::String), 8, 8),
            },
            VarType::Enum(fqn) => {
                let (g, e) = find_enum(self.root, fqn).ok_or_else(|| {
                    (v.name.clone(), format!("enumeration {fqn} is not declared"))
                })?;
                let s = e.base.size().unwrap_or(1) as u64;
                (
                    TypeRef::User(TypeId {
                        group: g,
                        name: e.name.clone(),
                    }),
                    s,
                    s,
                )
            }
            VarType::Opaque => {
                let size = v
                    .opaque_size
                    .or(self.opaque_size)
                    .unwrap_or(DEFAULT_OPAQUE_SIZE);
                let id = self.define(
                    &[],
                    UserType {
                        name: format!("opaque{size}_t"),
                        kind: UserKind::Opaque { size },
                    },
                );
                (TypeRef::User(id), size, 1)
            }
            VarType::Structure(fields) | VarType::Sequence(fields) => {
                let mut out = Vec::new();
                let mut offset = 0u64;
                let mut align = 1u64;
                for f in fields {
                    let (ty, size, a) = self.type_of(f, group, &format!("{stem}_{}", f.name))?;
                    let mut dims = Vec::new();
                    for d in &f.dims {
                        dims.push(match d {
                            // netcdf-c makes `_AnonymousN` for a field's too.
                            DimUse::Anonymous(_) => self.dim_ref(d, &f.name)?.1,
                            DimUse::Named(fqn) => find_dim(self.root, fqn)
                                .map(|(_, d)| d.size)
                                .ok_or_else(|| {
                                    (
                                        f.name.clone(),
                                        format!("its dimension {fqn} is not declared"),
                                    )
                                })?,
                        });
                    }
                    offset = offset.div_ceil(a) * a;
                    align = align.max(a);
                    out.push(Field {
                        name: f.name.clone(),
                        offset,
                        ty,
                        dims: dims.clone(),
                    });
                    offset += size * dims.iter().product::<u64>();
                }
                let size = offset.div_ceil(align) * align;
                let is_seq = matches!(v.ty, VarType::Sequence(_));
                let cname = if is_seq {
                    format!("{stem}_base_t")
                } else {
                    format!("{stem}_t")
                };
                let cid = self.define(
                    group,
                    UserType {
                        name: cname,
                        kind: UserKind::Compound { size, fields: out },
                    },
                );
                if is_seq {
                    let vid = self.define(
                        group,
                        UserType {
                            name: format!("{stem}_t"),
                            kind: UserKind::Vlen {
                                base: TypeRef::User(cid),
                            },
                        },
                    );
                    (TypeRef::User(vid), 16, 8)
                } else {
                    (TypeRef::User(cid), size, align)
                }
            }
        })
    }

    fn group(&mut self, g: &dmr::Group, path: &[String]) -> Result<Group, Fail> {
        let mut out = Group {
            name: g.name.clone(),
            ..Group::default()
        };
        for d in &g.dims {
            out.dims.push(Dim {
                name: d.name.clone(),
                len: d.size,
                unlimited: d.unlimited,
            });
        }
        for e in &g.enums {
            out.types.push(UserType {
                name: e.name.clone(),
                kind: UserKind::Enum {
                    base: e.base.nc_type(),
                    members: e.consts.clone(),
                },
            });
        }
        let prefix: String = path.iter().map(|p| format!("/{}", esc(p))).collect();
        for v in &g.vars {
            let (ty, _, _) = self.type_of(v, path, &v.name)?;
            let mut dims = Vec::new();
            let mut shape = Vec::new();
            for d in &v.dims {
                let (r, n) = self.dim_ref(d, &v.name)?;
                dims.push(r);
                shape.push(n);
            }
            let (nc_type, user_type, enum_info) = match &ty {
                TypeRef::Atomic(t) => (*t, None, None),
                TypeRef::User(id) => {
                    let e = match &v.ty {
                        VarType::Enum(fqn) => find_enum(self.root, fqn).map(|(_, e)| e),
                        _ => None,
                    };
                    (
                        e.map_or(NcType::UByte, |e| e.base.nc_type()),
                        Some(id.clone()),
                        e,
                    )
                }
            };
            let mut attrs = Vec::new();
            let fill = (nc_type, user_type.clone());
            let enum_fill = match (&fill.1, enum_info) {
                (Some(id), Some(e)) => Some((id, e)),
                _ => None,
            };
            self.attrs(&v.attrs, "", Some((&fill.0, enum_fill)), &mut attrs);
            if !v.maps.is_empty() {
                let mut s = Strings::new();
                for m in &v.maps {
                    s.push(Some(m.as_bytes()));
                }
                attrs.push(Attr::new("_edu.ucar.maps", Values::String(s)));
            }
            let root = self.root;
            let resolved =
                super::serial::resolved(v, &|fqn| find_enum(root, fqn).map(|(_, e)| e.base))
                    .map_err(|m| (v.name.clone(), m))?;
            self.vars.push(VarInfo {
                path: VarPath {
                    group: path.to_vec(),
                    name: v.name.clone(),
                },
                fqn: format!("{prefix}/{}", esc(&v.name)),
                var: resolved,
                shape,
                user: matches!(
                    v.ty,
                    VarType::Opaque | VarType::Structure(_) | VarType::Sequence(_)
                ),
                opaque_size: match &v.ty {
                    VarType::Opaque => Some(
                        v.opaque_size
                            .or(self.opaque_size)
                            .unwrap_or(DEFAULT_OPAQUE_SIZE),
                    ),
                    _ => None,
                },
            });
            out.vars.push(Var {
                name: v.name.clone(),
                nc_type,
                user_type,
                dims,
                attrs,
                notes: Vec::new(),
            });
        }
        out.vars = shown_order(out.vars, &g.vars, path);
        self.attrs(&g.attrs, "", None, &mut out.attrs);
        for sub in &g.groups {
            let mut p = path.to_vec();
            p.push(sub.name.clone());
            out.groups.push(self.group(sub, &p)?);
        }
        Ok(out)
    }
}

/// `vars` (a group's, in document order) in the order netcdf-c defines them: each
/// after the variables of its group its maps name (a coordinate variable declared
/// after the variable it maps comes before it). The data keeps document order.
fn shown_order(vars: Vec<Var>, decl: &[dmr::Var], path: &[String]) -> Vec<Var> {
    let prefix: String = path.iter().map(|p| format!("/{}", esc(p))).collect();
    let index_of = |fqn: &str| {
        decl.iter()
            .position(|v| format!("{prefix}/{}", esc(&v.name)) == fqn)
    };
    fn visit(
        i: usize,
        decl: &[dmr::Var],
        index_of: &dyn Fn(&str) -> Option<usize>,
        done: &mut [bool],
        order: &mut Vec<usize>,
    ) {
        if done[i] {
            return;
        }
        done[i] = true;
        for m in &decl[i].maps {
            if let Some(j) = index_of(m) {
                visit(j, decl, index_of, done, order);
            }
        }
        order.push(i);
    }
    if decl.iter().all(|v| v.maps.is_empty()) || decl.len() != vars.len() {
        return vars;
    }
    let mut done = vec![false; decl.len()];
    let mut order = Vec::with_capacity(decl.len());
    for i in 0..decl.len() {
        visit(i, decl, &index_of, &mut done, &mut order);
    }
    let mut slots: Vec<Option<Var>> = vars.into_iter().map(Some).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// The dataset netcdf-c shows for the DMR `root`; `opaque_size` from the URL's
/// `[opaquesize=N]`.
///
/// # Errors
/// A variable naming a dimension or enumeration the DMR does not declare.
pub(super) fn build(root: &dmr::Group, opaque_size: Option<u64>) -> Result<View, Fail> {
    let mut b = Builder {
        root,
        opaque_size,
        anon: Vec::new(),
        made: Vec::new(),
        vars: Vec::new(),
    };
    let mut top = b.group(root, &[])?;
    top.dims.extend(std::mem::take(&mut b.anon));
    for (path, t) in std::mem::take(&mut b.made) {
        let mut g = &mut top;
        for p in &path {
            let Some(i) = g.groups.iter().position(|c| &c.name == p) else {
                break;
            };
            g = &mut g.groups[i];
        }
        g.types.push(t);
    }
    top.name = String::new();
    Ok(View {
        dataset: Dataset { root: top },
        vars: b.vars,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(dmr_text: &str) -> Dataset {
        build(&dmr::parse(dmr_text).unwrap(), None).unwrap().dataset
    }

    #[test]
    fn maps_come_before_what_maps_them_and_the_data_keeps_document_order() {
        let t = r#"<Dataset name="d"><Dimension name="time" size="2"/>
            <Float32 name="pr"><Dim name="/time"/><Map name="/time"/></Float32>
            <Int32 name="x"/>
            <Float64 name="time"><Dim name="/time"/></Float64></Dataset>"#;
        let root = dmr::parse(t).unwrap();
        let v = build(&root, None).unwrap();
        let names: Vec<&str> = v
            .dataset
            .root
            .vars
            .iter()
            .map(|v| v.name.as_str())
            .collect();
        assert_eq!(names, ["time", "pr", "x"]);
        let data: Vec<&str> = v.vars.iter().map(|v| v.path.name.as_str()).collect();
        assert_eq!(data, ["pr", "x", "time"]);
        assert_eq!(
            v.dataset.root.vars[1]
                .attr("_edu.ucar.maps")
                .map(|a| a.values.clone()),
            Some(Values::String({
                let mut s = Strings::new();
                s.push(Some(b"/time"));
                s
            }))
        );
    }

    #[test]
    fn anonymous_dimensions_of_fields_are_in_the_root_and_types_named_as_netcdf_c_names_them() {
        let d = shown(
            r#"<Dataset name="d"><Structure name="s"><Int32 name="a"><Dim size="2"/></Int32><Opaque name="o"/></Structure>
            <Sequence name="q"><Int16 name="k"/></Sequence>
            <Attribute name="c" type="Char"><Value>xyz</Value><Value></Value></Attribute>
            <Attribute name="h" type="Container"><Attribute name="n" type="Int32" value="1"/></Attribute></Dataset>"#,
        );
        let dims: Vec<&str> = d.root.dims.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(dims, ["_Anonymous2"]);
        let types: Vec<&str> = d.root.types.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(types, ["opaque16_t", "s_t", "q_base_t", "q_t"]);
        assert_eq!(d.root.attrs.len(), 1);
        assert_eq!(d.root.attrs[0].values, Values::Char(vec![b'x', 0]));
    }
}
