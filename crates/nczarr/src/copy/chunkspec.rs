//! nccopy's `-c` chunk specifications: which chunk shape each output variable gets.
//!
//! Two forms, and a spec with a `:` is the second:
//! - per dimension, `dim/len,dim2/len2`: a variable using a named dimension gets that
//!   length along it (`dim/` with no length: the dimension's whole length) and keeps the
//!   input's chunk length along the others; `/` or `//` keeps the input's chunking
//!   (nccopy's "no chunking": Zarr has no contiguous storage). Commas in names are
//!   escaped `\,`; names may be full paths (`/g/x`).
//! - per variable, `var:len,len`: exactly that shape; `var:` (or `var:contiguous`,
//!   `var:compact`) one chunk for the whole variable. The first spec for a variable wins.
//!
//! Lengths are integers as C's `strtoll` reads them (`0x10` and `010` too), at least 1.
//! A length past a fixed dimension's end is cut to the dimension's length.
//!
//! As in nccopy, a variable with no unlimited dimension that the per-dimension form
//! would cut into chunks smaller than [`ChunkSpec::min_chunk_bytes`] (nccopy's `-M`,
//! default 8192) is stored as one chunk instead.

use crate::encoding::Chunking;
use crate::model::select::var_matches;
use crate::model::{Dataset, DimRef, Var, VarPath};

/// A `-c` specification that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("chunk spec '{spec}': {reason}")]
pub struct ChunkSpecError {
    /// The spec as given.
    pub spec: String,
    /// What is wrong.
    pub reason: String,
}

// Here rather than in `error.rs`, which would otherwise import the layer it is
// imported by.
impl From<ChunkSpecError> for crate::Error {
    fn from(e: ChunkSpecError) -> crate::Error {
        crate::Error::Layer {
            layer: "copy",
            source: Box::new(e),
        }
    }
}

/// How a per-variable spec chunks its variable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum VarChunks {
    Lengths(Vec<u64>),
    Whole,
}

/// nccopy's default `-M`: smaller chunks of a fixed-size variable are not worth having.
pub const MIN_CHUNK_BYTES: u64 = 8192;

/// Every `-c` given, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkSpec {
    /// Per dimension: the name and the length (`None`: the whole dimension).
    dims: Vec<(String, Option<u64>, String)>,
    /// Per variable, in the order given (the first match wins).
    vars: Vec<(String, VarChunks, String)>,
    /// Per-dimension chunks of a fixed-size variable smaller than this make one chunk.
    pub min_chunk_bytes: u64,
}

impl Default for ChunkSpec {
    fn default() -> ChunkSpec {
        ChunkSpec {
            dims: Vec::new(),
            vars: Vec::new(),
            min_chunk_bytes: MIN_CHUNK_BYTES,
        }
    }
}

/// Split on commas not escaped with a backslash, unescaping them.
fn split_unescaped(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&',') => {
                if let Some(s) = out.last_mut() {
                    s.push(',');
                }
                chars.next();
            }
            ',' => out.push(String::new()),
            c => {
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    out
}

/// An integer as C's `strtoll(s, _, 0)` reads it: decimal, `0x` hex, `0` octal.
fn c_integer(text: &str) -> Option<u64> {
    let t = text.trim();
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if t.len() > 1 && t.starts_with('0') {
        u64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

/// The per-dimension form, `dim/len,dim2/len2` (commas in names escaped `\,`; `dim/`
/// with no length: `None`, the whole dimension): each name and length in order. Also
/// how `--shards` reads its lengths, so that both options take the same syntax; `what`
/// names the lengths in messages (`chunk`, `shard`).
///
/// # Errors
/// [`ChunkSpecError`] naming the part that is not `dim/length`, has no name, or whose
/// length is not an integer of at least 1.
pub fn dim_lengths(spec: &str, what: &str) -> Result<Vec<(String, Option<u64>)>, ChunkSpecError> {
    let fail = |reason: String| ChunkSpecError {
        spec: spec.to_string(),
        reason,
    };
    let mut out = Vec::new();
    for item in split_unescaped(spec) {
        let Some((name, len)) = item.rsplit_once('/') else {
            return Err(fail(format!("'{item}' is not dim/length")));
        };
        if name.is_empty() {
            return Err(fail(format!("'{item}' names no dimension")));
        }
        let len = if len.is_empty() {
            None
        } else {
            match c_integer(len) {
                Some(v) if v >= 1 => Some(v),
                _ => {
                    return Err(fail(format!(
                        "'{len}' is not a {what} length (an integer, at least 1)"
                    )))
                }
            }
        };
        out.push((name.to_string(), len));
    }
    Ok(out)
}

impl ChunkSpec {
    /// Parse every `-c` argument, in order.
    ///
    /// # Errors
    /// [`ChunkSpecError`] naming the spec and what is wrong with it.
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<ChunkSpec, ChunkSpecError> {
        let mut out = ChunkSpec::default();
        for spec in specs {
            let spec = spec.as_ref();
            let fail = |reason: String| ChunkSpecError {
                spec: spec.to_string(),
                reason,
            };
            if spec.is_empty() || spec == "/" || spec == "//" {
                continue;
            }
            if let Some((var, rest)) = spec.split_once(':') {
                let chunks = match rest.trim().to_ascii_lowercase().as_str() {
                    "" | "contiguous" | "compact" => VarChunks::Whole,
                    _ => VarChunks::Lengths(
                        rest.split(',')
                            .map(|n| match c_integer(n) {
                                Some(v) if v >= 1 => Ok(v),
                                _ => Err(fail(format!(
                                    "'{n}' is not a chunk length (an integer, at least 1)"
                                ))),
                            })
                            .collect::<Result<_, _>>()?,
                    ),
                };
                if var.is_empty() {
                    return Err(fail("no variable name before ':'".into()));
                }
                out.vars.push((var.to_string(), chunks, spec.to_string()));
                continue;
            }
            for (name, len) in dim_lengths(spec, "chunk")? {
                out.dims.retain(|(n, _, _)| *n != name);
                out.dims.push((name, len, spec.to_string()));
            }
        }
        Ok(out)
    }

    /// True when no spec was given (or only `//`).
    pub fn is_empty(&self) -> bool {
        self.dims.is_empty() && self.vars.is_empty()
    }

    /// Check the names and lengths against `dataset`.
    ///
    /// # Errors
    /// [`ChunkSpecError`] for a dimension or variable the dataset does not have, and for
    /// per-variable lengths of the wrong rank or longer than their dimension.
    pub fn check(&self, dataset: &Dataset) -> Result<(), ChunkSpecError> {
        let vars = dataset.vars();
        for (name, _, spec) in &self.dims {
            if !has_dim(&dataset.root, &mut Vec::new(), name) {
                return Err(ChunkSpecError {
                    spec: spec.clone(),
                    reason: format!("{name}: No such dimension"),
                });
            }
        }
        for (name, chunks, spec) in &self.vars {
            let matched: Vec<&(VarPath, &Var)> = vars
                .iter()
                .filter(|(p, _)| var_matches(name, &p.group, &p.name))
                .collect();
            if matched.is_empty() {
                return Err(ChunkSpecError {
                    spec: spec.clone(),
                    reason: format!("{name}: No such variable"),
                });
            }
            if let VarChunks::Lengths(lens) = chunks {
                for (path, var) in matched {
                    let shape = dataset.var_shape(var);
                    if lens.len() != shape.len() {
                        return Err(ChunkSpecError {
                            spec: spec.clone(),
                            reason: format!(
                                "{} chunk lengths for variable {path}, which has {} dimensions",
                                lens.len(),
                                shape.len()
                            ),
                        });
                    }
                    let unlimited = var
                        .dims
                        .iter()
                        .map(|d| dataset.dim(d).is_some_and(|d| d.unlimited));
                    for ((len, dim), unlimited) in lens.iter().zip(&shape).zip(unlimited) {
                        if !unlimited && *len > *dim {
                            return Err(ChunkSpecError {
                                spec: spec.clone(),
                                reason: format!(
                                    "chunk length {len} is longer than the dimension ({dim}) of variable {path}"
                                ),
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The chunking the spec gives the variable `var` at `path` of `dataset`, whose
    /// input is chunked as `input`; `None` when no spec names the variable or any of
    /// its dimensions. `item_size` is the bytes of one value, for the minimum chunk.
    pub fn chunking(
        &self,
        dataset: &Dataset,
        path: &VarPath,
        var: &Var,
        input: Option<&Chunking>,
        item_size: u64,
    ) -> Option<Chunking> {
        let shape = dataset.var_shape(var);
        if let Some((_, chunks, _)) = self
            .vars
            .iter()
            .find(|(name, _, _)| var_matches(name, &path.group, &path.name))
        {
            return Some(match chunks {
                VarChunks::Whole => Chunking::Contiguous,
                VarChunks::Lengths(l) => Chunking::Chunked(l.clone()),
            });
        }
        if shape.is_empty() || !var.dims.iter().any(|d| self.dim_len(d).is_some()) {
            return None;
        }
        let input = match input {
            Some(Chunking::Chunked(c)) if c.len() == shape.len() => Some(c.as_slice()),
            _ => None,
        };
        let mut any_unlimited = false;
        let chunks: Vec<u64> = var
            .dims
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let len = shape[i];
                let unlimited = dataset.dim(d).is_some_and(|d| d.unlimited);
                any_unlimited |= unlimited;
                let c = match self.dim_len(d) {
                    Some(Some(n)) if unlimited => n,
                    Some(Some(n)) => n.min(len),
                    Some(None) => len,
                    None => input.map_or(len, |c| c[i]),
                };
                c.max(1)
            })
            .collect();
        let bytes = chunks
            .iter()
            .fold(item_size, |acc, c| acc.saturating_mul(*c));
        if !any_unlimited && bytes < self.min_chunk_bytes {
            return Some(Chunking::Contiguous);
        }
        Some(Chunking::Chunked(chunks))
    }

    /// The spec's length for dimension `d`: `Some(None)` for its whole length, `None`
    /// when it is not named.
    fn dim_len(&self, d: &DimRef) -> Option<Option<u64>> {
        self.dims
            .iter()
            .find(|(name, _, _)| dim_matches(name, d))
            .map(|(_, len, _)| *len)
    }
}

/// A name in a spec and a dimension: a plain name matches a dimension of that name in
/// any group, a path exactly one.
fn dim_matches(name: &str, d: &DimRef) -> bool {
    if name.contains('/') {
        let full = d.fqn();
        full == name || full == format!("/{}", name.trim_start_matches('/'))
    } else {
        d.name == name
    }
}

fn has_dim(g: &crate::model::Group, path: &mut Vec<String>, name: &str) -> bool {
    if g.dims.iter().any(|d| {
        dim_matches(
            name,
            &DimRef {
                group: path.clone(),
                name: d.name.clone(),
            },
        )
    }) {
        return true;
    }
    g.groups.iter().any(|c| {
        path.push(c.name.clone());
        let found = has_dim(c, path, name);
        path.pop();
        found
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Dim, Group, NcType};

    fn dataset() -> Dataset {
        let mut root = Group::new("");
        root.dims = vec![
            Dim {
                name: "t".into(),
                len: 2,
                unlimited: true,
            },
            Dim {
                name: "y".into(),
                len: 6,
                unlimited: false,
            },
            Dim {
                name: "x".into(),
                len: 8,
                unlimited: false,
            },
        ];
        let d = |n: &str| DimRef {
            group: vec![],
            name: n.into(),
        };
        root.vars.push(Var {
            name: "v".into(),
            nc_type: NcType::Float,
            user_type: None,
            dims: vec![d("t"), d("y"), d("x")],
            attrs: vec![],
            notes: vec![],
        });
        root.vars.push(Var {
            name: "w".into(),
            nc_type: NcType::Int,
            user_type: None,
            dims: vec![d("y"), d("x")],
            attrs: vec![],
            notes: vec![],
        });
        Dataset { root }
    }

    fn chunks_min(spec: &[&str], var: &str, input: &[u64], min: u64) -> Option<Chunking> {
        let ds = dataset();
        let mut s = ChunkSpec::parse(spec).unwrap();
        s.min_chunk_bytes = min;
        s.check(&ds).unwrap();
        let path = VarPath::new(&[], var);
        let v = ds.var(&path).unwrap();
        s.chunking(&ds, &path, v, Some(&Chunking::Chunked(input.to_vec())), 4)
    }

    fn chunks(spec: &[&str], var: &str, input: &[u64]) -> Option<Chunking> {
        chunks_min(spec, var, input, 0)
    }

    #[test]
    fn as_nccopy_4_9_0_chunks_netcdf_4_output() {
        // Observed with nccopy 4.9.0 writing netCDF-4 from an input chunked 1, 3, 4.
        let c = |spec| chunks(&[spec], "v", &[1, 3, 4]);
        assert_eq!(c("y/"), Some(Chunking::Chunked(vec![1, 6, 4])));
        assert_eq!(c("y/2"), Some(Chunking::Chunked(vec![1, 2, 4])));
        assert_eq!(c("t/1,x/"), Some(Chunking::Chunked(vec![1, 3, 8])));
        assert_eq!(c("v:1,2,2"), Some(Chunking::Chunked(vec![1, 2, 2])));
        assert_eq!(c("x/3"), Some(Chunking::Chunked(vec![1, 3, 3])));
        assert_eq!(c("//"), None);
        assert_eq!(c("w:"), None);
        assert_eq!(chunks(&["w:"], "w", &[2, 8]), Some(Chunking::Contiguous));
        // Past the end of a fixed dimension: cut; of an unlimited one: kept.
        assert_eq!(c("x/100,t/10"), Some(Chunking::Chunked(vec![10, 3, 8])));
    }

    #[test]
    fn small_chunks_of_fixed_size_variables_make_one_chunk_as_in_nccopy() {
        // w is 6 x 8 ints: 192 bytes, under nccopy's default minimum (8192).
        let m = |spec, var, min| chunks_min(&[spec], var, &[2, 8], min);
        assert_eq!(m("y/2", "w", MIN_CHUNK_BYTES), Some(Chunking::Contiguous));
        assert_eq!(m("y/2", "w", 64), Some(Chunking::Chunked(vec![2, 8])));
        assert_eq!(m("y/1", "w", 64), Some(Chunking::Contiguous));
        // Variables with an unlimited dimension stay chunked; per-variable specs apply.
        let v = chunks_min(&["y/1"], "v", &[1, 3, 4], MIN_CHUNK_BYTES);
        assert_eq!(v, Some(Chunking::Chunked(vec![1, 1, 4])));
        assert_eq!(
            m("w:1,1", "w", MIN_CHUNK_BYTES),
            Some(Chunking::Chunked(vec![1, 1]))
        );
    }

    #[test]
    fn first_variable_spec_wins_and_later_dimension_specs_replace() {
        let c = chunks(&["v:1,1,1", "v:2,2,2", "y/1", "y/5"], "v", &[1, 3, 4]);
        assert_eq!(c, Some(Chunking::Chunked(vec![1, 1, 1])));
        let c = chunks(&["y/1", "y/5"], "w", &[2, 8]);
        assert_eq!(c, Some(Chunking::Chunked(vec![5, 8])));
        let c = chunks(&["y/010,x/0x4"], "w", &[2, 8]);
        assert_eq!(c, Some(Chunking::Chunked(vec![6, 4])));
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        let ds = dataset();
        let e = |s: &str| match ChunkSpec::parse(&[s]) {
            Err(e) => e.to_string(),
            Ok(spec) => spec.check(&ds).unwrap_err().to_string(),
        };
        assert_eq!(e("y"), "chunk spec 'y': 'y' is not dim/length");
        assert_eq!(
            e("y/0"),
            "chunk spec 'y/0': '0' is not a chunk length (an integer, at least 1)"
        );
        assert_eq!(e("z/2"), "chunk spec 'z/2': z: No such dimension");
        assert_eq!(e("u:1,2"), "chunk spec 'u:1,2': u: No such variable");
        assert!(e("v:1,2").contains("2 chunk lengths for variable /v, which has 3 dimensions"));
        assert!(e("w:7,1").contains("longer than the dimension (6)"));
        assert!(e("w:a,1").contains("'a' is not a chunk length"));
        assert_eq!(split_unescaped(r"a\,b/1,c/2"), ["a,b/1", "c/2"]);
    }
}
