//! Planning a dataset's storage: every variable's requested encoding completed, so a
//! writer gets nothing undecided. Chunk shapes not given get the balanced default
//! ([`crate::chunking::default_chunks`], ncgen's rule for unlimited dimensions), fills are resolved, string widths fixed, and every codec
//! chain is built once here so a bad codec is reported before anything is written.

use std::collections::HashMap;

use super::{item_size, Chunking, Encoding, EncodingError};
use crate::chunking::{default_chunks_unlimited, DEFAULT_CHUNK_BYTES};
use crate::codec::{hdf5, table, Pipeline};
use crate::json::{Json, Number};
use crate::model::{Dataset, NcType, Values, Var, VarPath};

/// The string width used when neither the variable, the dataset nor its data say.
const DEFAULT_STRING_WIDTH: usize = 128;

/// What planning decides when a variable does not say.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// Target bytes per chunk for variables without a chunk shape.
    pub chunk_bytes: u64,
    /// No fill value for any variable (ncgen's `-x`: `_NoFill` everywhere).
    pub no_fill: bool,
    /// String width for string variables that give none.
    pub default_string_width: Option<usize>,
    /// Variables whose storage is not said are stored as netcdf-c stores them in a
    /// netCDF-4 file: contiguous, or (with an unlimited dimension or a codec) in its
    /// default chunks; `_Storage = "compact"` is kept.
    pub netcdf4: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            no_fill: false,
            default_string_width: None,
            netcdf4: false,
        }
    }
}

/// Every variable's complete encoding.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    encodings: HashMap<VarPath, Encoding>,
}

impl FromIterator<(VarPath, Encoding)> for Plan {
    /// A plan of encodings decided elsewhere (those of a dataset written into in place).
    fn from_iter<I: IntoIterator<Item = (VarPath, Encoding)>>(iter: I) -> Plan {
        Plan {
            encodings: iter.into_iter().collect(),
        }
    }
}

impl Plan {
    /// The encoding of the variable at `var`.
    pub fn get(&self, var: &VarPath) -> Option<&Encoding> {
        self.encodings.get(var)
    }

    /// The encoding of the variable at `var`, for a writer to fit it to its format.
    pub fn get_mut(&mut self, var: &VarPath) -> Option<&mut Encoding> {
        self.encodings.get_mut(var)
    }
}

/// Complete the encoding of every variable of `dataset`; `requested` gives what each
/// variable asks for (its special attributes, or how it is stored in the dataset it is
/// copied from).
///
/// # Errors
/// [`EncodingError::Var`] for chunk shapes of the wrong rank or length 0,
/// [`EncodingError::Codec`] for codec chains that cannot be built.
pub fn complete(
    dataset: &Dataset,
    requested: impl Fn(&VarPath) -> Option<Encoding>,
    options: &PlanOptions,
) -> Result<Plan, EncodingError> {
    let mut encodings = HashMap::new();
    for (path, var) in dataset.vars() {
        let req = requested(&path).unwrap_or_default();
        let shape = dataset.var_shape(var);
        let unlimited: Vec<bool> = var
            .dims
            .iter()
            .map(|d| dataset.dim(d).is_some_and(|d| d.unlimited))
            .collect();
        let user_item = var
            .user_type
            .as_ref()
            .and_then(|id| dataset.user_item_size(id));
        let enc = complete_var(var, &path, &shape, &unlimited, user_item, req, options)?;
        encodings.insert(path, enc);
    }
    Ok(Plan { encodings })
}

fn complete_var(
    var: &Var,
    path: &VarPath,
    shape: &[u64],
    unlimited: &[bool],
    user_item: Option<u64>,
    mut enc: Encoding,
    options: &PlanOptions,
) -> Result<Encoding, EncodingError> {
    let fail = |message: String| EncodingError::Var {
        var: path.clone(),
        message,
    };
    enc.string_width = match var.nc_type {
        NcType::String => Some(
            enc.string_width
                .or(options.default_string_width)
                .unwrap_or(DEFAULT_STRING_WIDTH)
                .max(1),
        ),
        _ => None,
    };
    let item = match user_item {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => item_size(var.nc_type, enc.string_width.unwrap_or(1)),
    };
    enc.chunking = Some(if shape.is_empty() {
        match enc.chunking {
            Some(Chunking::Compact) if options.netcdf4 => Chunking::Compact,
            _ => Chunking::Contiguous,
        }
    } else {
        match enc.chunking.take() {
            Some(Chunking::Chunked(c)) => {
                if c.len() != shape.len() {
                    return Err(fail(format!(
                        "_ChunkSizes has {} values for {} dimensions",
                        c.len(),
                        shape.len()
                    )));
                }
                if c.contains(&0) {
                    return Err(fail(format!("chunk shape {c:?} has a length 0")));
                }
                Chunking::Chunked(c)
            }
            Some(Chunking::Compact) if options.netcdf4 => Chunking::Compact,
            // Other writers have no compact layout: one piece, contiguous.
            Some(Chunking::Contiguous | Chunking::Compact) => Chunking::Contiguous,
            None if options.netcdf4 => {
                if enc.codecs.is_empty() && !unlimited.contains(&true) {
                    Chunking::Contiguous
                } else {
                    // netcdf-c sizes a string's chunk by its pointer.
                    let item = if var.nc_type == NcType::String {
                        8
                    } else {
                        item
                    };
                    Chunking::Chunked(crate::chunking::netcdf4_default_chunks(
                        shape,
                        unlimited,
                        item as u64,
                    ))
                }
            }
            None => Chunking::Chunked(default_chunks_unlimited(
                shape,
                unlimited,
                item as u64,
                options.chunk_bytes,
            )),
        }
    });
    enc.no_fill |= options.no_fill;
    enc.fill = if enc.no_fill {
        None
    } else {
        Some(netcdf_fill(var))
    };
    // Shuffle (HDF5's filter 2) must know the element size: netcdf-c's "0" is not
    // understood by numcodecs.
    for c in &mut enc.codecs {
        if table::hdf5_id(c) == Some(hdf5::SHUFFLE) {
            if let Json::Object(members) = c {
                let size = Json::Number(Number::from_i64(item.max(1) as i64));
                match members.iter_mut().find(|(k, _)| k == "elementsize") {
                    Some(slot) => slot.1 = size,
                    None => members.push(("elementsize".into(), size)),
                }
            }
        }
    }
    Pipeline::new(&enc.codecs, None).map_err(|error| EncodingError::Codec {
        var: path.clone(),
        error: Box::new(error),
    })?;
    Ok(enc)
}

/// The variable's netCDF fill value: its `_FillValue` attribute, else the type's
/// default. A fill a source reports without the attribute is its storage's own (Zarr
/// v3's `fill_value`, what chunks never written read as: zarr-python writes 0), not a
/// missing-value marker: written as one, readers that mask by it (xarray, netcdf-c)
/// would turn every 0 into a missing value.
fn netcdf_fill(var: &Var) -> Values {
    let one = |f: &Values| f.nc_type() == var.nc_type && f.len() == 1;
    if let Some(attr) = var.attr("_FillValue") {
        if let Some(f) = attr.values.cast_to(var.nc_type).filter(one) {
            return f;
        }
    }
    Values::default_fill(var.nc_type)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Special;
    use crate::model::{Dim, DimRef, Group};

    fn dataset() -> Dataset {
        let mut root = Group::new("");
        root.dims = vec![
            Dim {
                name: "t".into(),
                len: 1000,
                unlimited: false,
            },
            Dim {
                name: "x".into(),
                len: 2000,
                unlimited: false,
            },
        ];
        let dims = |names: &[&str]| {
            names
                .iter()
                .map(|n| DimRef {
                    group: vec![],
                    name: (*n).into(),
                })
                .collect()
        };
        for (name, t, d) in [
            ("big", NcType::Double, dims(&["t", "x"])),
            ("s", NcType::String, dims(&["t"])),
            ("scalar", NcType::Int, vec![]),
        ] {
            root.vars.push(Var {
                name: name.into(),
                nc_type: t,
                user_type: None,
                dims: d,
                attrs: vec![],
                notes: vec![],
            });
        }
        Dataset { root }
    }

    fn at(name: &str) -> VarPath {
        VarPath::new(&[], name)
    }

    #[test]
    fn defaults_are_decided() {
        let ds = dataset();
        let p = complete(&ds, |_| None, &PlanOptions::default()).unwrap();
        let big = p.get(&at("big")).unwrap();
        let c = big.chunk_shape().unwrap();
        assert!(
            c.iter().product::<u64>() * 8 <= DEFAULT_CHUNK_BYTES,
            "{c:?}"
        );
        assert_eq!(big.fill, Some(Values::default_fill(NcType::Double)));
        assert_eq!(p.get(&at("s")).unwrap().string_width, Some(128));
        assert_eq!(
            p.get(&at("scalar")).unwrap().chunking,
            Some(Chunking::Contiguous)
        );
    }

    #[test]
    fn requests_are_kept_and_checked() {
        let ds = dataset();
        let mut req = Encoding::default();
        req.apply(Special::Shuffle(true), NcType::Double, 2)
            .unwrap();
        req.apply(Special::DeflateLevel(3), NcType::Double, 2)
            .unwrap();
        req.fill = Some(Values::Double(vec![-1.0]));
        let mut ds = ds;
        ds.root.vars[0].attrs.push(crate::model::Attr::new(
            "_FillValue",
            Values::Float(vec![-1.0]),
        ));
        let p = complete(
            &ds,
            |v| match v.name.as_str() {
                "big" => Some(req.clone()),
                "s" => Some(Encoding {
                    string_width: Some(7),
                    ..Encoding::default()
                }),
                _ => None,
            },
            &PlanOptions::default(),
        )
        .unwrap();
        let big = p.get(&at("big")).unwrap();
        assert_eq!(big.codecs[0].get("elementsize").unwrap().to_text(), "8");
        assert_eq!(big.fill_value(), Some(&Values::Double(vec![-1.0])));
        // A storage fill without the attribute (Zarr v3's fill_value) is not netCDF's.
        let storage_fill = Encoding {
            fill: Some(Values::Int(vec![0])),
            ..Encoding::default()
        };
        let stored =
            complete(&ds, |_| Some(storage_fill.clone()), &PlanOptions::default()).unwrap();
        assert_eq!(
            stored.get(&at("scalar")).unwrap().fill_value(),
            Some(&Values::default_fill(NcType::Int))
        );
        assert_eq!(p.get(&at("s")).unwrap().string_width, Some(7));

        let bad = Encoding {
            chunking: Some(Chunking::Chunked(vec![5])),
            ..Encoding::default()
        };
        let e = complete(&ds, |_| Some(bad.clone()), &PlanOptions::default()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "variable '/big': _ChunkSizes has 1 values for 2 dimensions"
        );
        let no_fill = complete(
            &ds,
            |_| None,
            &PlanOptions {
                no_fill: true,
                ..PlanOptions::default()
            },
        )
        .unwrap();
        assert_eq!(no_fill.get(&at("big")).unwrap().fill_value(), None);
    }
}
