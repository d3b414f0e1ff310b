//! Reading a store's metadata: detect the generation, walk the groups, and build the
//! [`ZarrSource`] that serves the values ([`ZarrSource::open`]).

use super::{detect, pure, walk, Generation, MetaSource, ReadOptions, ZarrSource};
use crate::error::{Error, Result};
use crate::model::{Dataset, VarPath};
use crate::source::FormatInfo;
use crate::store::{ReadStore, StoreKey};

impl ZarrSource {
    /// Read the metadata of the dataset at the root of `store`.
    ///
    /// # Errors
    /// [`Error::NotZarr`] when the store holds no Zarr dataset; JSON and metadata
    /// errors naming the key; store errors.
    pub fn open(store: Box<dyn ReadStore>, options: &ReadOptions) -> Result<ZarrSource> {
        read(store, options)
    }
}

/// Read the metadata of the dataset at the root of `store`.
///
/// # Errors
/// [`Error::NotZarr`] when the store holds no Zarr dataset; JSON and metadata errors
/// naming the key; store errors.
pub(crate) fn read(store: Box<dyn ReadStore>, options: &ReadOptions) -> Result<ZarrSource> {
    let trace = |m: &str| {
        if let Some(t) = &options.trace {
            t(m);
        }
    };
    let root = StoreKey::root();
    if options.force_v3 {
        // `mode=zarr3`: the root `zarr.json` alone, none of version 2's documents
        // asked for (five requests less on a remote store).
        let key = StoreKey::new(crate::formats::zarr::v3::ZARR_JSON)?;
        if let Some(bytes) = store.get(&key)? {
            let doc = super::meta::parse_raw(&key, Ok(super::meta::RawDoc::Bytes(bytes)))?
                .unwrap_or(crate::json::Json::Null);
            trace("metadata: Zarr version 3 (zarr.json)");
            return super::v3::read(store, &doc, options);
        }
    }
    let src = MetaSource::open(store.as_ref(), options.trace.clone())?;
    let probe = [
        ".zgroup",
        ".zattrs",
        ".nczarr",
        ".zarray",
        crate::formats::zarr::v3::ZARR_JSON,
    ]
    .map(|n| StoreKey::new(n).expect("static key"));
    let [zgroup, zattrs, nczarr, zarray, zarr_json] = if src.is_consolidated() {
        // The documents come from `.zmetadata`, free; netcdf-c 4.8's `.nczarr` would
        // be a request, asked only when no newer NCZarr layout is there (an edit of a
        // consolidated store on S3 is then a request less).
        let [zgroup, zattrs, zarray, zarr_json] =
            src.docs(&[0, 1, 3, 4].map(|i| probe[i].clone()))?;
        let newer = detect::detect(zgroup.as_ref(), zattrs.as_ref(), false);
        let nczarr = match newer {
            Generation::PureZarr => {
                let [nczarr] = src.docs(&[probe[2].clone()])?;
                nczarr
            }
            _ => None,
        };
        [zgroup, zattrs, nczarr, zarray, zarr_json]
    } else {
        src.docs(&probe)?
    };
    let v2 = zgroup.is_some() || nczarr.is_some() || zarray.is_some() || src.is_consolidated();
    // A root `zarr.json` wins over version 2 documents beside it (a v3 store holding a
    // stale `.zarray`), as in zarr-python; `mode=v2` reads the version 2 ones.
    if let Some(doc) = zarr_json.filter(|_| options.force_v3 || !options.force_v2 || !v2) {
        trace("metadata: Zarr version 3 (zarr.json)");
        drop(src);
        return super::v3::read(store, &doc, options);
    }
    if options.force_v3 {
        return Err(Error::metadata(
            crate::formats::zarr::v3::ZARR_JSON,
            "missing: mode=zarr3 asks for Zarr version 3, and the store has no zarr.json at its root",
        ));
    }
    if zgroup.is_none() && nczarr.is_none() && !src.is_consolidated() {
        let Some(zarray) = zarray else {
            // An Icechunk repository has no Zarr document at its root, and its
            // `repo` object says what it is (one small read, before any listing).
            // Asked here rather than by the opener: before the documents it would cost
            // every Zarr dataset a request, after the listing below it would list
            // every chunk of the repository.
            let repo = StoreKey::new("repo").expect("static key");
            let head = store.get_range(&repo, &crate::store::ByteRange::Bounded(0..12));
            if head.is_ok_and(|h| h.as_deref() == Some(crate::place::icechunk::MAGIC)) {
                return Err(Error::IcechunkRepository {
                    location: store.location(),
                });
            }
            // Zarr version 3 allows a root group with no document (an implicit
            // group, as zarrs and early zarr-python 3 write): nodes below it make it.
            let implicit_v3 = !options.force_v2
                && store.list().is_ok_and(|keys| {
                    keys.iter().any(|(k, _)| {
                        k.as_str()
                            .ends_with(&format!("/{}", crate::formats::zarr::v3::ZARR_JSON))
                    })
                });
            if implicit_v3 {
                trace("metadata: Zarr version 3, implicit root group (no zarr.json at the root)");
                drop(src);
                let doc = crate::json::parse_str(r#"{"zarr_format": 3, "node_type": "group"}"#)
                    .map_err(|e| {
                        Error::metadata(crate::formats::zarr::v3::ZARR_JSON, e.to_string())
                    })?;
                return super::v3::read(store, &doc, options);
            }
            return Err(Error::NotZarr {
                location: store.location(),
            });
        };
        // A store that is one array: one variable, named after the store.
        trace("metadata: one Zarr version 2 array at the root");
        let name = super::v3::array_name(&store.location());
        let mut problems = Vec::new();
        let (root_group, arrays) =
            pure::read_root_array(&zarray, zattrs.as_ref(), &name, options, &mut problems)?;
        let format = v2_format(
            "pure Zarr version 2: one array at the root",
            None,
            Generation::PureZarr,
            Vec::new(),
        );
        drop(src);
        let source = ZarrSource::new(
            store,
            Dataset { root: root_group },
            arrays,
            format,
            problems,
        )
        .with_root_array(VarPath::new(&[], &name));
        return Ok(with_batch(source, options));
    }
    let detected = detect::detect(zgroup.as_ref(), zattrs.as_ref(), nczarr.is_some());
    let generation = if options.force_pure_zarr {
        Generation::PureZarr
    } else {
        detected
    };
    trace(&format!(
        "metadata generation: {}{}",
        detected.describe(),
        if options.force_pure_zarr && detected != Generation::PureZarr {
            " (read as pure Zarr: mode=zarr)"
        } else {
            ""
        }
    ));
    let mut problems = Vec::new();
    let (root_group, arrays, nc_properties) = match generation {
        Generation::PureZarr => pure::read(&src, &root, zattrs, options, &mut problems)?,
        g => walk::read(&src, &root, g, zgroup, zattrs, &mut problems)?,
    };
    let facts = if src.zmetadata_found() {
        vec!["consolidated metadata: .zmetadata".into()]
    } else {
        Vec::new()
    };
    let format = v2_format(generation.describe(), nc_properties, generation, facts);
    drop(src);
    let source = ZarrSource::new(
        store,
        Dataset { root: root_group },
        arrays,
        format,
        problems,
    );
    Ok(with_batch(source, options))
}

/// What a Zarr v2 dataset's format is, as [`FormatInfo`] says it.
fn v2_format(
    detail: &str,
    nc_properties: Option<String>,
    generation: Generation,
    facts: Vec<String>,
) -> FormatInfo {
    FormatInfo {
        kind: "netCDF-4".into(),
        detail: detail.into(),
        nc_properties,
        superblock_version: Some(generation.superblock_version()),
        is_netcdf4: Some(true),
        codecs_attr: true,
        // NCZarr types them in `_nczarr_attr` (or V1's `.nczattr`); pure Zarr does not.
        attr_types: generation != Generation::PureZarr,
        zarr_version: Some(2),
        facts,
    }
}

/// `source` reading as many bytes of chunks at once as `options` say.
fn with_batch(source: ZarrSource, options: &ReadOptions) -> ZarrSource {
    match options.batch_bytes {
        Some(b) => source.with_batch_bytes(b),
        None => source,
    }
}
