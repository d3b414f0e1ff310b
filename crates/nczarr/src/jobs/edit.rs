//! [`EditJob`]: ncatted's attribute edits and ncrename's renames made to a dataset,
//! in place or into a copy, whole or not at all. The edits are parsed and applied to
//! the model first (a bad one changes nothing); then the edited model goes back:
//! - a Zarr store (NCZarr of netcdf-c 4.9 and later, Zarr v2 and v3; a directory, S3,
//!   GCS or Azure) gets its changed attribute documents only, through the journal
//!   appends use (`crate::append::journal`); an Icechunk repository's branch gets them
//!   as one snapshot;
//! - a netCDF file (classic or netCDF-4) is rewritten beside itself through our writer
//!   (its storage kept: kind, chunks, codecs; stored chunks moved as they are where the
//!   writer can) and renamed over the old one, so a killed run leaves the old file;
//! - into a copy (a second name), the same write to the new name.

use std::collections::HashMap;

use crate::copy::{MemoryBudget, Selection, StorageChanges};
use crate::edit::{
    apply_att_edits, apply_renames, prepend_history, AttEdit, AttRules, AttTypes, Rename,
};
use crate::error::{Error, Result};
use crate::model::{Dataset, VarPath};
use crate::open::{open_with, CreateOptions, OpenOptions};
use crate::source::{DatasetSource, Without};
use crate::url::DatasetUrl;

use super::copy::{CopyJob, CopyRun};
use super::kind::copy_kind;

/// Attribute edits, as nczatted's options describe them.
#[derive(Debug, Clone)]
pub struct EditJob {
    /// The dataset edited (in place), or read (with `output`).
    pub dataset: String,
    /// Where the edited copy goes; `None`: in place.
    pub output: Option<String>,
    /// The attribute edits, in order (nczatted's).
    pub edits: Vec<AttEdit>,
    /// The renames, in order, after the edits (nczrename's).
    pub renames: Vec<Rename>,
    /// NCO's history line to prepend to the global `history`; `None` (`-h`): none.
    pub history: Option<String>,
    /// Replace a dataset at `output` (`-O`).
    pub overwrite: bool,
    /// The message of the snapshot an edit of an Icechunk repository is (the command
    /// line, by the tools).
    pub message: String,
}

/// What an edit did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditReport {
    /// Attributes created, changed or deleted by the edits (the history not counted).
    pub changed: usize,
}

/// How the format of `source` keeps attributes: the types it holds; a netCDF-4 file
/// (HDF5) moves an attribute whose type or length changes to the end, as netcdf-c
/// does.
fn att_rules(source: &dyn DatasetSource) -> AttRules {
    let kind = source.format().kind.as_str();
    let types = match kind {
        // netcdf-c refuses the netCDF-4 types in a classic model file (NC_ESTRICTNC3).
        "classic" | "64-bit offset" | "netCDF-4 classic model" => AttTypes::Classic,
        "cdf5" => AttTypes::Cdf5,
        _ => AttTypes::All,
    };
    let hdf5 = source.format().zarr_version.is_none() && kind.starts_with("netCDF-4");
    AttRules {
        types,
        resized_go_last: hdf5,
        reserved: hdf5 || source.format().zarr_version.is_some(),
    }
}

impl EditJob {
    /// Make the edits.
    ///
    /// # Errors
    /// Every error names what it is about: an edit that cannot be made
    /// ([`Error::Edit`]), the dataset's open and write errors. Nothing is changed then.
    pub fn run(self) -> Result<EditReport> {
        let name = &self.dataset;
        let output = self.output.clone().unwrap_or_else(|| name.clone());
        DatasetUrl::parse(&output).map_err(|e| Error::from(e).named(&output))?;
        if self.output.is_some() {
            super::inputs::check_not_output(std::slice::from_ref(name), Some(&output))?;
        }
        // A netCDF-4 file's edit in place stopped half way: completed first (not by a
        // copy, which leaves its input as it is).
        if let Some(path) = DatasetUrl::parse(name)
            .ok()
            .and_then(|u| u.path().map(std::path::Path::to_path_buf))
            .filter(|_| self.output.is_none())
        {
            if let Some(real) = std::fs::canonicalize(&path).ok().filter(|p| p.is_file()) {
                crate::formats::nc4::write::complete_stopped_edit(&real)
                    .map_err(|e| e.named(name))?;
            }
        }
        // The documents the open reads are those the edit changes: read once.
        let opened = match open_with(name, &OpenOptions::default(), true) {
            Ok(opened) => opened,
            // A rename stopped between its moves and its documents leaves a store
            // that does not open: its record completes it first.
            Err(e) => match complete_unopened(name) {
                Ok(true) => return self.run(),
                _ => return Err(e.named(name)),
            },
        };
        let source = opened.source.as_ref();
        // An earlier edit or append stopped half way: completed first, and the edit
        // made to what it left (its names, its attributes).
        if let (Some(_), Some(read)) = (source.format().zarr_version, source.store()) {
            if source.format().kind != "icechunk"
                && complete_interrupted(&opened.url, read).map_err(|e| e.named(name))?
            {
                return self.run();
            }
        }
        if self.output.is_some() {
            // The copy is of the input's kind.
            let mut create = CreateOptions {
                overwrite: self.overwrite,
                ..CreateOptions::default()
            };
            copy_kind(None, "x.nc", source.format())?.apply(&mut create);
            crate::open::check_target(&output, &create).map_err(|e| e.named(&output))?;
        }
        let mut dataset = source.dataset().clone();
        let mut changed = apply_att_edits(&mut dataset, &self.edits, att_rules(source))
            .map_err(|e| Error::from(e).named(name))?;
        let (renamed, old_paths) = apply_renames(&mut dataset, &self.renames, att_rules(source))
            .map_err(|e| Error::from(e).named(name))?;
        changed += renamed;
        if let Some(line) = &self.history {
            prepend_history(&mut dataset, line, att_rules(source));
        }
        if self.output.is_none() && changed == 0 && self.history.is_none() {
            return Ok(EditReport { changed });
        }
        let zarr = source.format().zarr_version.is_some();
        let zip = opened.url.storage == crate::url::StorageKind::Zip;
        if zarr {
            if let Some(var) = fill_changed(source.dataset(), &dataset) {
                return Err(Error::Unsupported(format!(
                    "{name}: variable '{var}': a Zarr array's _FillValue is also its fill_value, what missing chunks read as: not edited in place yet (name the attributes to change or delete)"
                )));
            }
            if self.output.is_none() && !zip {
                edit_zarr(&opened, &dataset, &self.message).map_err(|e| e.named(name))?;
                return Ok(EditReport { changed });
            }
            if source.format().kind == "icechunk" {
                return Err(Error::Unsupported(format!(
                    "{name}: an Icechunk repository is edited in place, as a new snapshot; for an edited copy, copy it with nczcopy first"
                )));
            }
            // An edited copy, or a zip archive (rewritten whole beside itself, as a
            // netCDF file is): written as nczcopy writes a copy of the store.
        } else if opened.url.path().is_none() {
            return Err(Error::Unsupported(format!(
                "{name}: a netCDF file is edited on a local disk; a remote one is not edited yet"
            )));
        }
        // A changed _FillValue changes the values that held the old one, as ncatted
        // does (what was missing stays missing): the file is rewritten.
        let refills = refills(source.dataset(), &dataset);
        let header_only = refills.is_empty();
        let classic = !zarr
            && header_only
            && matches!(att_rules(source).types, AttTypes::Classic | AttTypes::Cdf5);
        if let (None, Some(path), true) = (&self.output, opened.url.path(), classic) {
            // The header alone, in place, when it still fits before the values.
            let real = std::fs::canonicalize(path).map_err(|e| Error::from(e).named(name))?;
            if crate::formats::nc3::rewrite_header(&real, &dataset).map_err(|e| e.named(name))? {
                return Ok(EditReport { changed });
            }
        }
        let hdf5 = source
            .as_any()
            .and_then(|s| s.downcast_ref::<crate::formats::nc4::Hdf5Source>())
            .filter(|_| header_only);
        if let (None, Some(path), Some(h5)) = (&self.output, opened.url.path(), hdf5) {
            // The changed object headers alone, in place, as libhdf5 edits them.
            let real = std::fs::canonicalize(path).map_err(|e| Error::from(e).named(name))?;
            if crate::formats::nc4::write::edit_attributes(&real, h5, &dataset)
                .map_err(|e| e.named(name))?
            {
                return Ok(EditReport { changed });
            }
        }
        let edited = Without::renamed(source, dataset, old_paths).refilled(refills);
        match (&self.output, opened.url.path()) {
            (None, Some(path)) => {
                let file = InPlace::check(path).map_err(|e| e.named(name))?;
                let real = file.path.display().to_string();
                rewrite(&edited, name, &real, zarr)?;
                file.restore();
            }
            _ => rewrite(&edited, name, &output, zarr)?,
        }
        Ok(EditReport { changed })
    }
}

/// The variables (by their path in `new`) whose `_FillValue` attribute the edit
/// changes, with the old and the new value's native-endian bytes, for the values to
/// follow: one value of the variable's own type each (a created or deleted one changes
/// no value, as in ncatted).
fn refills(old: &Dataset, new: &Dataset) -> HashMap<VarPath, (Vec<u8>, Vec<u8>)> {
    let mut out = HashMap::new();
    for ((_, o), (path, n)) in old.vars().into_iter().zip(new.vars()) {
        let fill = |v: &crate::model::Var| {
            v.attr("_FillValue")
                .filter(|a| a.values.nc_type() == v.nc_type && a.values.len() == 1)
                .and_then(|a| a.values.as_ne_bytes().map(<[u8]>::to_vec))
        };
        if let (Some(a), Some(b)) = (fill(o), fill(n)) {
            if a != b {
                out.insert(path, (a, b));
            }
        }
    }
    out
}

/// The first variable whose `_FillValue` the edit changes (a Zarr array's is also its
/// fill value: not edited in place yet), compared bit for bit.
fn fill_changed(old: &Dataset, new: &Dataset) -> Option<VarPath> {
    let fill = |d: &Dataset, p: &VarPath| {
        d.var(p).and_then(|v| v.attr("_FillValue")).map(|a| {
            (
                a.values.nc_type(),
                a.values.as_ne_bytes().map(<[u8]>::to_vec),
            )
        })
    };
    // Renames keep each variable's place: the same variable at the same index.
    old.vars()
        .into_iter()
        .zip(new.vars())
        .find(|((o, _), (n, _))| fill(old, o) != fill(new, n))
        .map(|((o, _), _)| o)
}

/// A netCDF file edited in place: the file its name leads to (through symbolic links:
/// the link stays a link), checked writable and with one name, and its permissions and
/// owner, given back to the rewritten file.
struct InPlace {
    path: std::path::PathBuf,
    meta: std::fs::Metadata,
}

impl InPlace {
    /// # Errors
    /// [`Error::Invalid`] for a file this user may not write (read-only: as NCO
    /// refuses it) or one with several names (hard links: a rewrite would leave the
    /// others as they were); open errors.
    fn check(name: &std::path::Path) -> Result<InPlace> {
        let path = std::fs::canonicalize(name)?;
        let meta = std::fs::metadata(&path)?;
        match std::fs::OpenOptions::new().append(true).open(&path) {
            Err(e) => {
                return Err(Error::Invalid(format!(
                    "cannot be edited in place: {e} (edit into a copy: a second name)"
                )))
            }
            // A program reading it through libhdf5 holds its lock: it would go on
            // reading the old file, and a writer's edit would be lost.
            Ok(f) if f.try_lock().is_err() => {
                return Err(Error::Invalid(
                    "is open in another program (it holds HDF5's lock on the file): nothing was changed"
                        .into(),
                ))
            }
            Ok(_) => {}
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            if meta.nlink() > 1 {
                return Err(Error::Invalid(format!(
                    "has {} names (hard links): an edit rewrites the file, which would leave the others as they were; edit into a copy (a second name)",
                    meta.nlink()
                )));
            }
        }
        Ok(InPlace { path, meta })
    }

    /// Give the rewritten file the old one's permissions and (where this user may) its
    /// owner and group.
    fn restore(&self) {
        let _ = std::fs::set_permissions(&self.path, self.meta.permissions());
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            let _ =
                std::os::unix::fs::chown(&self.path, Some(self.meta.uid()), Some(self.meta.gid()));
        }
    }
}

/// Complete the recorded step a stopped edit or append left in the Zarr store `name`
/// (a directory or a bucket's), if there is one: true when it did.
///
/// # Errors
/// Store errors; a step that cannot be completed.
fn complete_unopened(name: &str) -> Result<bool> {
    let url = DatasetUrl::parse(name)?;
    if url.path().is_some_and(|p| !p.is_dir()) {
        return Ok(false);
    }
    let read = crate::place::open_read(&url, None, crate::reach::ReferenceOptions::default())?;
    complete_interrupted(&url, read.store.as_ref())
}

/// Complete the step recorded in the Zarr store `url` (read through `read`), if one
/// is: true when it did.
///
/// # Errors
/// Store errors; a step that cannot be completed.
fn complete_interrupted(url: &DatasetUrl, read: &dyn crate::store::ReadStore) -> Result<bool> {
    use crate::append::journal;
    if !journal::is_interrupted(read)? {
        return Ok(false);
    }
    let write = writer(url)?;
    journal::complete_interrupted(read, write.as_ref())
}

/// A writer of the Zarr store `url` names in place: a directory (each document
/// replaced at once) or a bucket's.
///
/// # Errors
/// [`Error::Unsupported`] for the stores not edited in place (a zip archive).
pub(super) fn writer(url: &DatasetUrl) -> Result<Box<dyn crate::store::WritableStore>> {
    use crate::store::ReplacingDirStore;
    use crate::url::StorageKind;
    let not_here = |what: &str| {
        Error::Unsupported(format!(
            "{what}: not edited in place yet (copy it, then edit the copy)"
        ))
    };
    Ok(match (url.storage, url.path()) {
        (StorageKind::Dir, Some(p)) if p.is_dir() => Box::new(ReplacingDirStore::new(p)),
        (StorageKind::S3 | StorageKind::Gcs | StorageKind::Azure, _) => {
            Box::new(crate::place::open_cloud(url, None, true)?)
        }
        (StorageKind::Zip, _) => return Err(not_here("a zip archive")),
        _ => return Err(not_here("a dataset there")),
    })
}

/// Write the attributes and names of `edited` into the Zarr store `opened` in place:
/// the changed metadata documents (arrays' first, the consolidated metadata and the
/// root's last) and, for renamed variables and groups, their keys. One node's
/// attributes are two writes at most; more are recorded first in the store's journal
/// (with the keys to move), the record removed at the end: a run stopped in between is
/// completed by the next edit or append.
fn edit_zarr(opened: &crate::open::Opened, edited: &Dataset, message: &str) -> Result<()> {
    use crate::append::journal;
    let source = opened.source.as_ref();
    let url = &opened.url;
    if source.format().kind == "icechunk" {
        return edit_repository(url, source.dataset(), edited, message);
    }
    if url.storage == crate::url::StorageKind::Dir {
        // An array or group of another dataset named alone: editing it would leave that
        // dataset's consolidated metadata stale (on a disk, where looking is free).
        crate::open::check_not_part(&url.original)?;
    }
    let write = writer(url)?;
    let read = source.store().ok_or_else(|| {
        Error::Unsupported("a dataset without a store: not edited in place".into())
    })?;
    // The reader's finding (`_SuperblockVersion` 1), not another request.
    if source.format().superblock_version == Some(1) && source.format().zarr_version == Some(2) {
        return Err(Error::Unsupported(
            "netcdf-c 4.8's NCZarr layout (.nczarr objects): not edited in place yet (copy it, then edit the copy)".into(),
        ));
    }
    let zarr3 = source.format().zarr_version == Some(3);
    let docs =
        crate::formats::zarr::attr_docs::attribute_docs(read, zarr3, source.dataset(), edited)?;
    let changes = &docs.changes;
    if !docs.moves.is_empty() {
        return journal::write_moves(read, write.as_ref(), &docs.moves, changes);
    }
    if docs.holders == 1 && root_last(changes) {
        // One node's attributes: its document, then the root's (the consolidated
        // copy), no record. Stopped between the two, each reader still sees the edit
        // whole or not at all: through the consolidated metadata (xarray, ours)
        // none of it, through the node's document all of it.
        for c in changes {
            write.put(&c.key, &c.new)?;
            write.finish()?;
        }
        return Ok(());
    }
    journal::write_docs(write.as_ref(), changes)
}

/// True for at most two documents of which a second is the root's (`.zmetadata`, or a
/// version 3 root's `zarr.json`), written last.
fn root_last(changes: &[crate::formats::zarr::attr_docs::DocChange]) -> bool {
    match changes {
        [_] => true,
        [_, last] => matches!(last.key.as_str(), ".zmetadata" | "zarr.json"),
        _ => false,
    }
}

/// Write the attributes of `edited` into the branch of the Icechunk repository `url`
/// names (its tip read as `old`) as one snapshot: the changed documents in one
/// session, committed with `message` (nothing when nothing changed). A lost race is
/// Icechunk's conflict check's (see `place::icechunk::commit`).
fn edit_repository(url: &DatasetUrl, old: &Dataset, edited: &Dataset, message: &str) -> Result<()> {
    use crate::place::icechunk::IcechunkStore;
    use crate::place::icechunk::{open_repository, write::branch_of, Commit, CommitInfo};
    use crate::store::WritableStore;
    let branch = branch_of(url)?;
    let repo = open_repository(url, None)?;
    let store = IcechunkStore::writer(&repo, &branch)?;
    let docs = crate::formats::zarr::attr_docs::attribute_docs(&store, true, old, edited)?;
    // Renamed variables and groups are moved by Icechunk itself (no chunk read or
    // written): after the documents, in a rearrange session whose commit amends theirs.
    // Their documents are written first at the names they have before the moves.
    let moves: Vec<(String, String)> = docs
        .moves
        .iter()
        .map(|m| (m.from.to_string(), m.to.to_string()))
        .collect();
    let before_moves = |key: &crate::store::StoreKey| {
        docs.moves
            .iter()
            .rev()
            .fold(key.clone(), |k, m| m.back(&k).unwrap_or(k))
    };
    if !moves.is_empty() {
        crate::place::icechunk::check_moves(&repo, &branch)?;
    }
    let changes = docs.changes;
    if changes.is_empty() {
        if !moves.is_empty() {
            crate::place::icechunk::move_nodes(&repo, &branch, &moves, message, false)?;
        }
        return Ok(());
    }
    let commit = Commit::of(
        &repo,
        &store,
        CommitInfo {
            message: message.to_string(),
            tag: None,
            branch: branch.clone(),
        },
    )?;
    for c in &changes {
        store.put(&before_moves(&c.key), &c.new)?;
    }
    commit.commit()?;
    if !moves.is_empty() {
        crate::place::icechunk::move_nodes(&repo, &branch, &moves, message, true)?;
    }
    Ok(())
}

/// Write `source` (a netCDF file or, `zarr`, a Zarr store named `input`, seen edited)
/// to `output` as a dataset of the same kind and storage, staged and renamed into place
/// (over `input` itself for an edit in place).
fn rewrite(source: &dyn DatasetSource, input: &str, output: &str, zarr: bool) -> Result<()> {
    let mut create = CreateOptions {
        overwrite: true,
        ..CreateOptions::default()
    };
    // A file's name decides nothing: an edit keeps the input's kind, and says what
    // made the file. A store's copy is what nczcopy makes of it there (a zip archive
    // stays one).
    let named = if zarr { output } else { "x.nc" };
    copy_kind(None, named, source.format())?.apply(&mut create);
    create
        .nc_properties
        .clone_from(&source.format().nc_properties);
    let job = CopyJob {
        input: input.to_string(),
        output: output.to_string(),
        selection: Selection::default(),
        changes: StorageChanges::default(),
        create,
        budget: MemoryBudget::new(MemoryBudget::total_for_slab(64 << 20)),
        skip_unreadable: false,
        run: CopyRun::Whole,
        refs: crate::reach::ReferenceOptions::default(),
    };
    let prepared = job.prepare(source).map_err(|e| e.named(input))?;
    let started = job
        .create(prepared, &mut |_| {})
        .map_err(|e| e.named(output))?;
    started
        .write(None)
        .map_err(|e| e.named(format!("{input} -> {output}")))
}
