//! Appending to a Zarr dataset in place (`nczcopy --append`): NCZarr, pure Zarr v2 or
//! Zarr v3, ours or another writer's (xarray, zarr-python, netcdf-c), in a directory
//! or an object store. The dataset is the first input of a [`Concat`] with the new
//! inputs, so every check of a join applies to it and the new times are rebased to
//! its units; its own chunking, codecs and fill are kept.
//!
//! Kill-safe by order: the new chunks first (the partial last chunk along the
//! dimension completed and replaced at once, `crate::store::ReplacingDirStore`),
//! made durable; then the documents that give the new length (`docs.rs`), checked
//! beforehand by opening the dataset as they will make it (`overlay.rs`) and recorded
//! while they are written (`journal.rs`), the one readers open by last. Until then
//! readers see the old length, and chunks past it are never read; a later append
//! writes over them.

mod docs;
pub(crate) mod journal;
mod overlay;
mod sink;
mod virtual_refs;

pub use crate::error::{AppendError, FixedPlace, WidthUnit};
pub use journal::JOURNAL;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::chunking::Region;
use crate::concat::Concat;
use crate::copy::{write_values, CopyOptions};
use crate::encoding::Plan;
use crate::error::{Error, Result};
use crate::formats::zarr::array::{ArrayWriter, StoredArray};
use crate::formats::zarr::{ReadOptions, ZarrSource};
use crate::model::{DimRef, VarPath};
use crate::open::OpenOptions;
use crate::sink::DatasetSink;
use crate::source::DatasetSource;
use crate::store::{ReadStore, ReplacingDirStore, StoreError, WritableStore};
use crate::url::{DatasetUrl, StorageKind};

use docs::{DocChange, Grown};

/// A Zarr dataset opened to be appended to.
pub struct AppendTarget {
    name: String,
    read: Arc<dyn ReadStore>,
    write: Box<dyn WritableStore>,
    read_options: ReadOptions,
    source: ZarrSource,
    /// An earlier append's metadata step was completed on opening (see `journal.rs`).
    pub completed_interrupted: bool,
    /// An Icechunk repository's append: the commit that makes it a snapshot.
    commit: std::sync::Mutex<Option<crate::place::icechunk::Commit>>,
    /// An Icechunk repository's append: the repository and its session's store (a
    /// virtual append sets references in it).
    icechunk: Option<(
        crate::place::icechunk::Repo,
        Arc<crate::place::icechunk::IcechunkStore>,
    )>,
}

/// What an append will write: the dimension's old and new lengths, and the block of
/// each variable that grows, from the chunk (or shard) holding the old end on.
pub struct AppendPlan {
    /// The dimension the dataset grows along.
    pub dim: DimRef,
    /// Its length before.
    pub old_len: u64,
    /// Its length after.
    pub new_len: u64,
    /// The blocks written, by variable, in the dataset's order.
    pub blocks: Vec<(VarPath, Region)>,
    arrays: Vec<(VarPath, ArrayWriterSpec)>,
    docs: Vec<DocChange>,
    /// Variables whose new chunks are references (a virtual append): no values written.
    virtual_vars: HashSet<VarPath>,
}

impl AppendPlan {
    /// The metadata documents that will change, in the order they are written.
    pub fn documents(&self) -> impl Iterator<Item = String> + '_ {
        self.docs.iter().map(|d| d.key.to_string())
    }
}

/// True when `url` names an Icechunk repository (a directory looked at; an object
/// store asked for the repository's root object).
fn is_repository(url: &DatasetUrl) -> Result<bool> {
    if url.modes.has("icechunk") {
        return Ok(true);
    }
    Ok(match url.storage {
        StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure => {
            crate::place::icechunk::write::exists(url)?
        }
        _ => url
            .path()
            .is_some_and(crate::place::icechunk::is_repository_dir),
    })
}

/// How a grown array is written: where, stored how (at the new shape).
struct ArrayWriterSpec {
    key: crate::store::StoreKey,
    stored: StoredArray,
}

impl AppendTarget {
    /// Open the dataset `name` names to append to it. An earlier append stopped while
    /// writing its metadata is completed first when `repair` (else refused: a dry run
    /// writes nothing).
    ///
    /// # Errors
    /// [`Error::Append`] for a place that cannot be written in place (a zip
    /// archive, a netCDF file, a web server), or for an unfinished append without
    /// `repair`; open errors.
    pub fn open(
        name: &str,
        options: &OpenOptions,
        repair: bool,
        commit: &crate::place::icechunk::CommitInfo,
    ) -> Result<AppendTarget> {
        let url = DatasetUrl::parse(name)?;
        let refuse = |place: FixedPlace| -> Error {
            AppendError::NotInPlace {
                dataset: name.to_string(),
                place,
            }
            .into()
        };
        // An array or group of a dataset is not a dataset to grow: growing `tas` alone
        // would leave it longer than the dimension the rest of the dataset shares.
        if let Some(around) = crate::place::inspect_target(&url)?.inside {
            return Err(Error::Target {
                location: name.to_string(),
                message: format!(
                    "inside the dataset {} ({}); --append grows a whole dataset: name {} itself",
                    around.dataset, around.what, around.dataset
                ),
            });
        }
        if is_repository(&url)? {
            return AppendTarget::open_repository(name, &url, options, commit);
        }
        let write: Box<dyn WritableStore> = match (url.storage, url.path()) {
            (StorageKind::Dir, Some(p)) if p.is_dir() => Box::new(ReplacingDirStore::new(p)),
            (StorageKind::Dir, Some(p)) if p.exists() => return Err(refuse(FixedPlace::File)),
            (StorageKind::Dir, Some(p)) => {
                return Err(Error::Store(StoreError::NotFound {
                    location: p.display().to_string(),
                }))
            }
            (StorageKind::Zip, _) => return Err(refuse(FixedPlace::Zip)),
            (StorageKind::Http, _) => return Err(refuse(FixedPlace::Web)),
            (StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure, _) => {
                Box::new(crate::place::open_cloud(&url, None, true)?)
            }
            (StorageKind::Dir, None) => return Err(refuse(FixedPlace::NotLocal)),
        };
        let read: Arc<dyn ReadStore> =
            Arc::from(crate::place::open_read(&url, options.trace.clone(), options.refs)?.store);
        let completed_interrupted = if repair {
            journal::complete_interrupted(read.as_ref(), write.as_ref())?
        } else if journal::is_interrupted(read.as_ref())? {
            return Err(AppendError::Interrupted {
                dataset: name.to_string(),
                record: JOURNAL.to_string(),
            }
            .into());
        } else {
            false
        };
        let read_options = crate::open::zarr_read_options(&url, options);
        let source = ZarrSource::open(Box::new(read.clone()), &read_options)?;
        Ok(AppendTarget {
            name: name.to_string(),
            read,
            write,
            read_options,
            source,
            completed_interrupted,
            commit: std::sync::Mutex::new(None),
            icechunk: None,
        })
    }

    /// A branch of an Icechunk repository to grow: a session on it, read and written,
    /// whose commit makes the append one snapshot (no journal: nothing is seen before
    /// the commit).
    fn open_repository(
        name: &str,
        url: &DatasetUrl,
        options: &OpenOptions,
        info: &crate::place::icechunk::CommitInfo,
    ) -> Result<AppendTarget> {
        use crate::place::icechunk::{open_repository, write::branch_of, Commit, IcechunkStore};
        let repo = open_repository(url, options.trace.as_ref())?;
        let info = crate::place::icechunk::CommitInfo {
            branch: branch_of(url)?,
            ..info.clone()
        };
        let store = Arc::new(IcechunkStore::writer(&repo, &info.branch)?);
        let commit = Commit::of(&repo, &store, info)?;
        let read: Arc<dyn ReadStore> = store.clone();
        let mut read_options = crate::open::zarr_read_options(url, options);
        read_options.force_v3 = true;
        read_options.force_v2 = false;
        let source = ZarrSource::open(Box::new(read.clone()), &read_options)?;
        Ok(AppendTarget {
            name: name.to_string(),
            read,
            write: Box::new(store.clone()),
            read_options,
            source,
            completed_interrupted: false,
            commit: std::sync::Mutex::new(Some(commit)),
            icechunk: Some((repo, store)),
        })
    }

    /// Make `plan` a virtual append: the new chunks of the variables the files `v`
    /// store as the repository does become references to the files (their containers
    /// declared in the repository), and the append writes values only for the rest.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a dataset that is not an Icechunk repository, or a
    /// variable the files store otherwise; store errors.
    pub(crate) fn add_virtual(
        &self,
        plan: &mut AppendPlan,
        v: &crate::kerchunk::Virtual,
    ) -> Result<()> {
        let Some((repo, store)) = &self.icechunk else {
            return Err(Error::Unsupported(format!(
                "{}: --virtual appends to an Icechunk repository; to another dataset --append copies the values",
                self.name
            )));
        };
        let containers = crate::kerchunk::icechunk::containers_of(v)
            .map_err(|e| Error::Unsupported(format!("{}: {e}", self.name)))?;
        crate::place::icechunk::declare_containers(repo, &containers)?;
        plan.virtual_vars =
            virtual_refs::add_references(store, &self.source, &plan.dim, plan.old_len, v)?;
        Ok(())
    }

    /// The dataset as it is now: the first input of the join.
    pub fn source(&self) -> &dyn DatasetSource {
        &self.source
    }

    /// Decide the append of `joined` (this dataset, then the new inputs): the blocks
    /// to write and the documents to change, checked by opening the dataset as those
    /// documents will make it.
    ///
    /// # Errors
    /// [`Error::Append`] when the join does not start with this dataset (an input
    /// whose coordinate comes first), a new string is wider than its variable stores,
    /// or this dataset's metadata cannot be made to say the new length; metadata
    /// errors.
    pub fn plan(&self, joined: &Concat<'_>) -> Result<AppendPlan> {
        if let Some(first) = joined.input_names().next().filter(|f| *f != self.name) {
            return Err(AppendError::ComesBefore {
                input: first.to_string(),
                dataset: self.name.clone(),
            }
            .into());
        }
        let dim = joined.dim().clone();
        let existing = self.source.dataset();
        let old_len =
            existing
                .dim(&dim)
                .map(|d| d.len)
                .ok_or_else(|| AppendError::NoDimension {
                    dataset: self.name.clone(),
                    dim: dim.name.clone(),
                })?;
        let ds = joined.dataset();
        let new_len = ds.dim(&dim).map_or(old_len, |d| d.len);
        let (mut blocks, mut arrays, mut grown) = (Vec::new(), Vec::new(), Vec::new());
        for (path, var) in ds.vars() {
            let Some(axis) = var.dims.iter().position(|d| *d == dim) else {
                continue;
            };
            let (key, stored) =
                self.source
                    .stored_array(&path)
                    .ok_or_else(|| AppendError::NotWritable {
                        dataset: self.name.clone(),
                        var: path.clone(),
                    })?;
            let shape = ds.var_shape(var);
            if new_len > old_len {
                self.check_string_width(joined, &path, &stored.dtype, &shape, axis, old_len)?;
            }
            let unit = stored
                .sharding
                .as_ref()
                .map_or(&stored.chunks, |s| &s.shape)
                .get(axis)
                .copied()
                .unwrap_or(1)
                .max(1);
            let mut start = vec![0u64; shape.len()];
            start[axis] = old_len / unit * unit;
            let count: Vec<u64> = shape.iter().zip(&start).map(|(n, s)| n - s).collect();
            if new_len > old_len {
                blocks.push((path.clone(), Region::block(start, count)));
            }
            grown.push(Grown {
                key: key.clone(),
                axis,
            });
            arrays.push((
                path,
                ArrayWriterSpec {
                    key,
                    stored: StoredArray {
                        shape,
                        ..stored.clone()
                    },
                },
            ));
        }
        let zarr3 = self.source.format().zarr_version == Some(3);
        let docs = if new_len > old_len {
            docs::grown_docs(self.read.as_ref(), zarr3, &dim, new_len, &grown)?
        } else {
            Vec::new()
        };
        let plan = AppendPlan {
            dim,
            old_len,
            new_len,
            blocks,
            arrays,
            docs,
            virtual_vars: HashSet::new(),
        };
        self.check_docs(joined, &plan, zarr3)?;
        Ok(plan)
    }

    /// Refuse strings longer than the stored fixed width among the new records of the
    /// variable `path` (of `shape` once grown, along `axis` from `old_len`): the store
    /// cannot hold them and a string is never cut (xarray refuses too).
    fn check_string_width(
        &self,
        joined: &Concat<'_>,
        path: &VarPath,
        dtype: &crate::formats::zarr::v2::Dtype,
        shape: &[u64],
        axis: usize,
        old_len: u64,
    ) -> Result<()> {
        use crate::formats::zarr::v2::Dtype;
        let (width, unit) = match dtype {
            Dtype::Bytes { len, .. } => (*len, WidthUnit::Bytes),
            Dtype::Unicode { chars, .. } => (*chars, WidthUnit::Characters),
            _ => return Ok(()),
        };
        let mut start = vec![0; shape.len()];
        start[axis] = old_len;
        let mut count = shape.to_vec();
        count[axis] = shape[axis].saturating_sub(old_len);
        let longest = crate::copy::longest_string_in(joined, path, &Region::block(start, count))?;
        let len = match unit {
            WidthUnit::Bytes => longest.bytes,
            _ => longest.chars,
        };
        if len <= width {
            return Ok(());
        }
        Err(AppendError::StringTooLong {
            dataset: self.name.clone(),
            var: path.clone(),
            width,
            unit,
            dtype: dtype.to_string(),
            longest: len,
            text: String::from_utf8_lossy(&longest.text).into_owned(),
        }
        .into())
    }

    /// Open the dataset as `plan`'s documents will make it, by its consolidated
    /// metadata and without it, and check that every variable then has its new shape.
    fn check_docs(&self, joined: &Concat<'_>, plan: &AppendPlan, zarr3: bool) -> Result<()> {
        if plan.docs.is_empty() {
            return Ok(());
        }
        let mut docs: HashMap<_, _> = plan
            .docs
            .iter()
            .map(|d| (d.key.clone(), Some(d.new.clone())))
            .collect();
        let mut views = vec![docs.clone()];
        // The same without consolidated metadata: readers that ignore it (netcdf-c).
        let consolidated =
            crate::store::StoreKey::new(if zarr3 { "zarr.json" } else { ".zmetadata" })?;
        if let Some(Some(doc)) = docs.get_mut(&consolidated) {
            if zarr3 {
                let mut json = crate::json::parse(doc)
                    .map_err(|e| Error::metadata(consolidated.clone(), e.to_string()))?;
                if let crate::json::Json::Object(members) = &mut json {
                    members.retain(|(k, _)| k != "consolidated_metadata");
                }
                *doc = json.to_text().into_bytes();
            } else {
                docs.insert(consolidated, None);
            }
            views.push(docs);
        }
        let want = joined.dataset();
        for view in views {
            let overlay = overlay::Overlay {
                base: self.read.clone(),
                docs: view,
            };
            let after = ZarrSource::open(Box::new(overlay), &self.read_options)?;
            for (path, var) in want.vars() {
                let shape = want.var_shape(var);
                let got = after.dataset().shape_of(&path);
                if got.as_ref() != Some(&shape) {
                    return Err(AppendError::LengthNotRecorded {
                        dataset: self.name.clone(),
                        dim: plan.dim.name.clone(),
                        var: path,
                        got,
                        want: shape,
                    }
                    .into());
                }
            }
        }
        Ok(())
    }

    /// Write the append `plan` decided: the values of `joined` in its blocks, then the
    /// documents. `copy` gives the slab size and progress; its `data` and `within` are
    /// the plan's.
    ///
    /// # Errors
    /// Read, codec and store errors; the dataset then reads as before.
    pub fn write(
        &self,
        joined: &Concat<'_>,
        plan: &AppendPlan,
        copy: &CopyOptions<'_>,
    ) -> Result<()> {
        if plan.new_len <= plan.old_len {
            return Ok(());
        }
        let blocks: HashMap<VarPath, Region> = plan
            .blocks
            .iter()
            .filter(|(p, _)| !plan.virtual_vars.contains(p))
            .cloned()
            .collect();
        let mut arrays = HashMap::new();
        let mut encodings = Vec::new();
        for (path, spec) in &plan.arrays {
            if !blocks.contains_key(path) {
                continue;
            }
            let mut writer = ArrayWriter::new(spec.key.clone(), path, spec.stored.clone())?;
            if let Some(b) = self.read_options.batch_bytes {
                writer = writer.with_batch_bytes(b);
            }
            let unit = spec.stored.sharding.as_ref().map(|s| s.shape.clone());
            arrays.insert(path.clone(), sink::GrownArray { writer, unit });
            if let Some(e) = self.source.encoding(path) {
                encodings.push((path.clone(), e));
            }
        }
        let sink = sink::AppendSink {
            store: self.write.as_ref(),
            arrays,
        };
        let encodings: Plan = encodings.into_iter().collect();
        let options = CopyOptions {
            data: Some(blocks.keys().cloned().collect::<HashSet<_>>()),
            within: Some(blocks),
            ..copy.clone()
        };
        write_values(joined, joined.dataset(), &encodings, &sink, &options)?;
        DatasetSink::finish(Box::new(sink))?;
        journal::write_docs(self.write.as_ref(), &plan.docs)?;
        let commit = self.commit.lock().ok().and_then(|mut c| c.take());
        if let Some(commit) = commit {
            commit.commit()?;
        }
        Ok(())
    }
}
