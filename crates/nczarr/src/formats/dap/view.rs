//! The netCDF dataset netcdf-c 4.9.0's DAP2 client makes of a DDS and a DAS (a
//! classic-model file): which variables, dimensions and attributes `ncdump URL`
//! shows, with the names and types it gives them. Every rule of that mapping is here
//! (`names` holds the ones for names, `attrs` the ones for attributes).
//!
//! - Variables: the top-level base variables in DDS order, then every grid's array
//!   (under the grid's name), then the fields of structures (`S.f`, the structure's
//!   dimensions first). A grid's maps are no variables: a coordinate variable exists
//!   where the DDS also declares it at the top level (THREDDS and Hyrax do).
//! - Types: Byte is `byte`, Int16 and UInt16 `short`, Int32 and UInt32 `int` (the
//!   unsigned ones' bits kept), Float32 `float`, Float64 `double`; a String or Url
//!   variable is `char` with one more dimension, `maxStrlen64` (`[maxstrlen=N]`,
//!   `[stringlength=N]` and their `_<var>` forms change it).
//! - Dimensions: a named one is shared by the arrays that name it with the same
//!   length (another length is `name_1`, `name_2`...); an anonymous one is
//!   `<var>_<i>`, a grid's the map's name; the record dimension (`DODS_EXTRA`'s
//!   `Unlimited_Dimension`) first, the rest sorted by name.

pub(crate) use super::atomics::{atomics, nc_type, sequences, Atomic, Segment, SequenceCount};
use super::attrs;
use super::das::DasItem;
use super::dds::{DapType, Dds};
use super::names::legal_name;
use crate::model::{Dataset, Dim, DimRef, Group, Var, VarPath};

/// Where a netCDF variable's values come from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VarMap {
    /// The variable in the netCDF view.
    pub(crate) path: VarPath,
    /// Its path in a constraint expression (`tas`; `air.air`; `S.f`).
    pub(crate) segments: Vec<Segment>,
    /// Its DAP type.
    pub(crate) ty: DapType,
    /// The string dimension's length, for String and Url variables.
    pub(crate) string_len: Option<u64>,
    /// The DAP dimensions (the netCDF ones without the string dimension).
    pub(crate) dap_rank: usize,
    /// Per DAP dimension, the first index and the step of the URL's constraint (the
    /// view's index `i` is the server's `start + i * step`); `(0, 1)` without one.
    pub(crate) origin: Vec<(u64, u64)>,
}

impl VarMap {
    /// True for a field of a sequence: read whole, cut here.
    pub(crate) fn in_sequence(&self) -> bool {
        self.segments.iter().any(|s| s.sequence)
    }
}

impl VarMap {
    /// The path as the answer's leaves name it (`air.air`).
    pub(crate) fn dotted(&self) -> String {
        self.segments
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join(".")
    }
}

/// The dataset and where each of its variables comes from.
#[derive(Debug, Clone)]
pub(crate) struct View {
    /// The netCDF view.
    pub(crate) dataset: Dataset,
    /// One per variable, in the dataset's order.
    pub(crate) vars: Vec<VarMap>,
}

impl View {
    /// The netCDF shape of `var`.
    pub(crate) fn shape(&self, var: &VarMap) -> Vec<u64> {
        let root = &self.dataset.root;
        root.vars
            .iter()
            .find(|v| v.name == var.path.name)
            .map(|v| {
                v.dims
                    .iter()
                    .map(|d| {
                        root.dims
                            .iter()
                            .find(|x| x.name == d.name)
                            .map_or(0, |x| x.len)
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Build the view of `dds` (the constrained one, when the URL has a constraint) with
/// the attributes of `das`; `all` holds the unconstrained DDS's variables (whose
/// tables are theirs even when not shown). The error is a variable's name and why it
/// cannot be shown.
pub(crate) fn build(
    dds: &Dds,
    counts: &[(String, u64)],
    all: &[Atomic],
    das: &[DasItem],
    params: &[(String, String)],
    user_ce: &[Projection],
) -> Result<View, (String, String)> {
    let param = |k: &str| {
        params
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(k))
            .and_then(|(_, v)| v.trim().parse::<u64>().ok())
            .filter(|&n| n > 0)
    };
    let default_strlen = param("stringlength")
        .or_else(|| param("maxstrlen"))
        .unwrap_or(64);
    let found = atomics(&dds.decls, counts)?;
    let unlimited = attrs::unlimited_dim(das);
    let mut dims: Vec<Dim> = Vec::new();
    let mut vars: Vec<Var> = Vec::new();
    let mut maps = Vec::new();
    for f in found.iter().filter(|f| !f.map) {
        // netCDF counts a variable's values in 64 bits.
        let string_room = if f.ty.is_text() { default_strlen } else { 1 };
        if f.dims
            .iter()
            .try_fold(string_room, |a, d| a.checked_mul(d.size))
            .is_none()
        {
            return Err((
                f.name.clone(),
                "more values than 2^64: no netCDF variable holds them".into(),
            ));
        }
        if vars.iter().any(|v| v.name == f.name) {
            // netcdf-c keeps the first of two variables of one name.
            continue;
        }
        let mut refs = Vec::new();
        for (i, d) in f.dims.iter().enumerate() {
            let own = i + f.segments.last().map_or(0, |s| s.rank) >= f.dims.len();
            let grid_name = f
                .map_names
                .as_ref()
                .filter(|_| own)
                .and_then(|m| m.get(i + m.len() - f.dims.len()).cloned());
            let name = match (&d.name, grid_name) {
                (_, Some(g)) => g,
                (Some(n), None) => legal_name(n),
                (None, None) => format!("{}_{i}", f.name),
            };
            let record = d.name.as_deref() == unlimited.as_deref() && unlimited.is_some();
            // A name already used with another length is netcdf-c's `name_1`...
            let base = name.clone();
            let mut name = name;
            let mut k = 0;
            while dims.iter().any(|x| x.name == name && x.len != d.size) {
                k += 1;
                name = format!("{base}_{k}");
            }
            if !dims.iter().any(|x| x.name == name) {
                dims.push(Dim {
                    // A sequence without records: netcdf-c's classic file makes a
                    // dimension of length 0 the unlimited one.
                    unlimited: (record || d.size == 0) && !dims.iter().any(|x| x.unlimited),
                    name: name.clone(),
                    len: d.size,
                });
            }
            refs.push(DimRef {
                group: Vec::new(),
                name,
            });
        }
        let string_len = f.ty.is_text().then(|| {
            param(&format!("stringlength_{}", f.dap_full))
                .or_else(|| param(&format!("maxstrlen_{}", f.dap_full)))
                .or_else(|| attrs::dods_strlen(das, f))
                .unwrap_or(default_strlen)
        });
        if let Some(len) = string_len {
            let strdim = format!("maxStrlen{len}");
            if !dims.iter().any(|x| x.name == strdim) {
                dims.push(Dim {
                    name: strdim.clone(),
                    len,
                    unlimited: false,
                });
            }
            refs.push(DimRef {
                group: Vec::new(),
                name: strdim,
            });
        }
        vars.push(Var {
            name: f.name.clone(),
            nc_type: nc_type(f.ty),
            user_type: None,
            dims: refs,
            attrs: attrs::of_var(das, f),
            notes: Vec::new(),
        });
        let rank = f.dims.len();
        maps.push(VarMap {
            path: VarPath::new(&[], f.name.clone()),
            segments: f.segments.clone(),
            ty: f.ty,
            string_len,
            dap_rank: rank,
            origin: origin_of(user_ce, f, rank),
        });
    }
    // The record dimension first, the rest by name (byte order).
    dims.sort_by(|a, b| {
        b.unlimited
            .cmp(&a.unlimited)
            .then_with(|| a.name.cmp(&b.name))
    });
    let mut root = Group::new("");
    root.dims = dims;
    root.vars = vars;
    root.attrs = attrs::global(das, all);
    Ok(View {
        dataset: Dataset { root },
        vars: maps,
    })
}

/// One projection of a constraint expression: a dotted name and its hyperslabs
/// (`start`, `stride`, `stop`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Projection {
    /// The name as written (DAP's escapes kept).
    pub(crate) name: String,
    /// One per bracket, all segments' together.
    pub(crate) slabs: Vec<(u64, u64, u64)>,
}

/// The projections of a constraint expression (`tas[0:1:9][2],lat`; the selections
/// after the first `&` are not projections). The error says which one is malformed.
pub(crate) fn projections(ce: &str) -> Result<Vec<Projection>, String> {
    let projections = ce.split('&').next().unwrap_or("");
    let mut out = Vec::new();
    for item in projections
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        let mut name = String::new();
        let mut slabs = Vec::new();
        let mut rest = item;
        while !rest.is_empty() {
            if let Some(inner) = rest.strip_prefix('[') {
                let end = inner
                    .find(']')
                    .ok_or_else(|| format!("'{item}': '[' without ']'"))?;
                let text = &inner[..end];
                let nums: Result<Vec<u64>, _> =
                    text.split(':').map(|n| n.trim().parse::<u64>()).collect();
                let bad = || format!("'{item}': '[{text}]' is not a hyperslab");
                let slab = match nums.map_err(|_| bad())?.as_slice() {
                    [a] => (*a, 1, *a),
                    [a, b] => (*a, 1, *b),
                    [a, s, b] if *s > 0 => (*a, *s, *b),
                    _ => return Err(bad()),
                };
                if slab.2 < slab.0 {
                    return Err(format!("'{item}': a hyperslab's stop is before its start"));
                }
                slabs.push(slab);
                rest = &inner[end + 1..];
            } else {
                let end = rest.find('[').unwrap_or(rest.len());
                name.push_str(&rest[..end]);
                rest = &rest[end..];
            }
        }
        out.push(Projection { name, slabs });
    }
    Ok(out)
}

/// Where the URL's constraint starts each dimension of `f` (a grid's array also by
/// the grid's name alone).
fn origin_of(user_ce: &[Projection], f: &Atomic, rank: usize) -> Vec<(u64, u64)> {
    let dotted: Vec<&str> = f.segments.iter().map(|s| s.name.as_str()).collect();
    let full = dotted.join(".");
    let grid = dotted.first().copied().unwrap_or("");
    let found = user_ce.iter().find(|p| p.name == full).or_else(|| {
        user_ce
            .iter()
            .find(|p| p.name == grid && !p.slabs.is_empty())
    });
    (0..rank)
        .map(|d| {
            found
                .and_then(|p| p.slabs.get(d))
                .map_or((0, 1), |&(start, stride, _)| (start, stride))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{das, dds};
    use super::*;
    use crate::model::{NcType, Values};

    fn view(dds_text: &str, das_text: &str) -> View {
        let d = dds::parse(dds_text).unwrap();
        let a = if das_text.is_empty() {
            Vec::new()
        } else {
            das::parse(das_text).unwrap()
        };
        let all = atomics(&d.decls, &[]).unwrap();
        build(&d, &[], &all, &a, &[], &[]).unwrap()
    }

    #[test]
    fn pydaps_answer_as_ncdump_shows_it() {
        let v = view(
            "Dataset {\n Float32 tas[time = 2][lat = 3];\n UInt16 us[lat = 3];\n String st[lat = 3];\n Float64 time[time = 2];\n} t1%2Enc;",
            "Attributes {\n dimensions { Int32 time 2; Int32 lat 3; }\n Int32 n 5;\n tas { Float32 _FillValue -999; String units \"K\"; }\n}",
        );
        let root = &v.dataset.root;
        let names: Vec<_> = root.dims.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["lat", "maxStrlen64", "time"]);
        assert_eq!(root.vars[1].nc_type, NcType::Short);
        assert_eq!(root.vars[2].dims.len(), 2);
        let g: Vec<_> = root.attrs.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(g, ["n", "dimensions.time", "dimensions.lat"]);
        assert_eq!(root.vars[0].attrs[0].values, Values::Float(vec![-999.0]));
    }

    #[test]
    fn grids_are_their_arrays_named_by_the_grid_and_record_dims_come_first() {
        let v = view(
            "Dataset { Float32 lat[lat = 2]; Grid { ARRAY: Float32 a[time = 1][lat = 2]; MAPS: Float64 time[time = 1]; Float32 lat[lat = 2]; } air; Float64 z[3]; } x;",
            "Attributes { DODS_EXTRA { String Unlimited_Dimension \"time\"; } }",
        );
        let names: Vec<_> = v.vars.iter().map(VarMap::dotted).collect();
        assert_eq!(names, ["lat", "z", "air.a"]);
        let vars: Vec<_> = v
            .dataset
            .root
            .vars
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        assert_eq!(vars, ["lat", "z", "air"]);
        let dims: Vec<_> = v
            .dataset
            .root
            .dims
            .iter()
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(dims, ["time", "lat", "z_0"]);
        assert!(v.dataset.root.dims[0].unlimited);
        let g: Vec<_> = v
            .dataset
            .root
            .attrs
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(g, ["DODS_EXTRA.Unlimited_Dimension"]);
    }

    #[test]
    fn structures_and_sequences_are_flattened() {
        let v = view(
            "Dataset { Structure { Int32 a; Float64 b[3]; } S[4]; } x;",
            "",
        );
        let root = &v.dataset.root;
        let vars: Vec<_> = root.vars.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(vars, ["S.a", "S.b"]);
        let dims: Vec<_> = root.vars[1].dims.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(dims, ["S.b_0", "S.b_1"]);
        let d = dds::parse(
            "Dataset { Sequence { String s; Int32 a; Sequence { Int32 z; } in; } obs; } x;",
        )
        .unwrap();
        let mut seqs = Vec::new();
        sequences(&d.decls, "", &mut seqs);
        assert_eq!(seqs[0].count_by, "obs.a");
        let all = atomics(&d.decls, &[("obs".into(), 4)]).unwrap();
        let v = build(&d, &[("obs".into(), 4)], &all, &[], &[], &[]).unwrap();
        let vars: Vec<_> = v
            .dataset
            .root
            .vars
            .iter()
            .map(|x| x.name.as_str())
            .collect();
        assert_eq!(vars, ["obs.s", "obs.a"]);
        assert!(v.vars[1].in_sequence());
        let dims: Vec<_> = v
            .dataset
            .root
            .dims
            .iter()
            .map(|d| (d.name.as_str(), d.len))
            .collect();
        assert_eq!(dims, [("maxStrlen64", 64), ("obs", 4)]);
    }

    #[test]
    fn constraint_projections() {
        let p = projections("tas[0:1:9][2],air.air[1:3],lat&lat>3").unwrap();
        assert_eq!(p[0].slabs, vec![(0, 1, 9), (2, 1, 2)]);
        assert_eq!(p[1].name, "air.air");
        assert_eq!(p[2].slabs, vec![]);
        assert!(projections("x[3:1]").is_err());
        assert!(projections("x[a]").is_err());
    }
}
