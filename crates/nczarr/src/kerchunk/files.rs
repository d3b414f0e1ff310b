//! The files whose chunks references point into: one netCDF file, or several joined
//! along a dimension ([`Concat`]) into one virtual dataset whose chunk grid is each
//! file's, laid end to end.

use crate::concat::Concat;
use crate::encoding::{Chunking, Encoding};
use crate::error::Result;
use crate::model::VarPath;
use crate::source::{ChunkPlace, DatasetSource};

/// One file, or several joined.
pub(super) enum Files<'s, 'a> {
    One {
        source: &'s dyn DatasetSource,
        url: String,
    },
    Joined {
        concat: &'s Concat<'a>,
        urls: Vec<String>,
    },
}

impl Files<'_, '_> {
    /// The dataset being referenced (the joined one for several files).
    pub(super) fn source(&self) -> &dyn DatasetSource {
        match self {
            Files::One { source, .. } => *source,
            Files::Joined { concat, .. } => *concat,
        }
    }

    /// The files' URLs, in the order [`Files::place`] numbers them.
    pub(super) fn urls(&self) -> &[String] {
        match self {
            Files::One { url, .. } => std::slice::from_ref(url),
            Files::Joined { urls, .. } => urls,
        }
    }

    /// How the variable at `var` is stored where its chunks can be referenced
    /// ([`DatasetSource::reference_layout`]): `Ok(None)` when they cannot (its values
    /// are then inlined), `Err` with the reason when several files store it in ways
    /// that make no one regular chunk grid.
    pub(super) fn layout(&self, var: &VarPath) -> std::result::Result<Option<Encoding>, String> {
        let concat = match self {
            Files::One { source, .. } => return Ok(source.reference_layout(var)),
            Files::Joined { concat, .. } => *concat,
        };
        let sources: Vec<&dyn DatasetSource> = concat.sources().collect();
        let Some(k) = concat.axis(var) else {
            return Ok(sources[0].reference_layout(var));
        };
        if self.inlined_always(var) {
            return Ok(None);
        }
        let dim = concat.dim();
        let names: Vec<&str> = concat.input_names().collect();
        let mut first: Option<Encoding> = None;
        for (i, source) in sources.iter().enumerate() {
            let Some(layout) = source.reference_layout(var) else {
                return Ok(None);
            };
            match &first {
                None => first = Some(layout),
                Some(f) if same_storage(f, &layout) => {}
                Some(f) => {
                    return Err(format!(
                        "{} stores it {} and {} {}: one regular chunk grid cannot be made of them",
                        names[0],
                        describe(f),
                        names[i],
                        describe(&layout)
                    ))
                }
            }
        }
        let Some(layout) = first else {
            return Ok(None);
        };
        let Some(along) = layout.chunk_shape().and_then(|c| c.get(k)).copied() else {
            return Ok(None);
        };
        // Each file's chunks must start on the joined grid: every file but the last
        // holds a whole number of chunks along the dimension.
        let starts = concat.starts();
        for (i, pair) in starts.windows(2).enumerate() {
            let len = pair[1] - pair[0];
            if len % along.max(1) != 0 {
                return Err(format!(
                    "{} holds {len} along '{}', not a whole number of its chunks of {along}: the chunks of {} would not start on the joined chunk grid (copy the files instead, or rechunk them)",
                    names[i], dim.name, names[i + 1]
                ));
            }
        }
        Ok(Some(layout))
    }

    /// True when the variable at `var` has the dimension several files are joined
    /// along (its chunks come from each file).
    pub(super) fn joins(&self, var: &VarPath) -> bool {
        match self {
            Files::One { .. } => false,
            Files::Joined { concat, .. } => concat.axis(var).is_some(),
        }
    }

    /// True for the variables of several files whose values are inlined whatever their
    /// size: the joined coordinate (read from every file and checked there, rebased
    /// when the files' time units differ) and the times rebased with it (its bounds).
    pub(super) fn inlined_always(&self, var: &VarPath) -> bool {
        match self {
            Files::One { .. } => false,
            Files::Joined { concat, .. } => {
                let dim = concat.dim();
                concat.rebases(var) || (var.name == dim.name && var.group == dim.group)
            }
        }
    }

    /// Which file holds chunk `index` (of the grid of `chunks`) of the variable at
    /// `var`, and where in it.
    ///
    /// # Errors
    /// As [`DatasetSource::chunk_place`].
    pub(super) fn place(
        &self,
        var: &VarPath,
        index: &[u64],
        chunks: &[u64],
    ) -> Result<(usize, ChunkPlace)> {
        let concat = match self {
            Files::One { source, .. } => return Ok((0, source.chunk_place(var, index)?)),
            Files::Joined { concat, .. } => *concat,
        };
        let sources: Vec<&dyn DatasetSource> = concat.sources().collect();
        let Some(k) = concat.axis(var) else {
            return Ok((0, sources[0].chunk_place(var, index)?));
        };
        let along = chunks.get(k).copied().unwrap_or(1).max(1);
        let at = index.get(k).copied().unwrap_or(0) * along;
        let starts = concat.starts();
        let file = starts.partition_point(|&s| s <= at).saturating_sub(1);
        let mut local = index.to_vec();
        if let Some(i) = local.get_mut(k) {
            *i = (at - starts[file]) / along;
        }
        Ok((file, sources[file].chunk_place(var, &local)?))
    }
}

/// The same chunks, codecs and byte order: chunks of one file decode as another's.
fn same_storage(a: &Encoding, b: &Encoding) -> bool {
    a.chunking == b.chunking && a.codecs == b.codecs && a.endian == b.endian
}

/// How a variable is stored, for the refusal.
fn describe(e: &Encoding) -> String {
    let chunks = match &e.chunking {
        Some(Chunking::Chunked(c)) => format!(
            "in chunks of {}",
            c.iter().map(u64::to_string).collect::<Vec<_>>().join("x")
        ),
        _ => "contiguous".to_string(),
    };
    let codecs: Vec<String> = e
        .codecs
        .iter()
        .map(|c| {
            c.get("id")
                .and_then(|v| v.as_str())
                .unwrap_or("?")
                .to_string()
        })
        .collect();
    if codecs.is_empty() {
        chunks
    } else {
        format!("{chunks} with {}", codecs.join(", "))
    }
}
