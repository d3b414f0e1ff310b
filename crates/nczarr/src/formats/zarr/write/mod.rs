//! Writing NCZarr and pure Zarr v2: [`ZarrSink`], the [`DatasetSink`] for both.
//!
//! NCZarr metadata is written in netcdf-c 4.10's layout (all NCZarr information in
//! `.zattrs` as `_nczarr_*` attributes; `.zgroup`/`.zarray` pure Zarr), which netcdf-c
//! 4.9.3+ reads natively. Choices that let zarr-python and xarray open the same store
//! (see `docs/layout.md` for the measurements behind them):
//! - one-byte integers are `|i1`/`|u1` (netcdf-c writes `<i1`, which zarr-python refuses);
//! - char is `|S1` by default, with the netCDF type kept in `_nczarr_array` so nczarr
//!   readers still see char ([`CharDtype::Netcdf`] writes netcdf-c's `>S1`);
//! - shuffle records its real element size (netcdf-c writes 0, which numcodecs misreads);
//! - numbers are written with full precision (netcdf-c writes `%g`, 6 digits).
//!
//! [`Layout::Netcdf490`] writes netcdf-c 4.9.0's layout instead (`v490.rs`), for the
//! ncdump and ncgen 4.9.0 that Debian 12 and Ubuntu 22.04 ship, which crash on the
//! current one.
//!
//! Pure Zarr (`mode=zarr`) is the current layout without `_nczarr_*` attributes;
//! `_ARRAY_DIMENSIONS` is written unless `noxarray`. Chunks are written first and the
//! metadata that makes the dataset openable last, the root `.zgroup` at the very end.
//!
//! Jobs, one file each: `array.rs` maps an encoding to a Zarr array; `attrs.rs`
//! writes `.zattrs`; `current.rs` and `v490.rs` lay out each generation's documents;
//! this file drives them as a sink.

mod array;
pub(crate) mod attrs;
mod current;
mod v3;
mod v490;

use std::collections::HashMap;

use super::conventions::array_key;
use crate::chunking::{block_slabs, Region};
use crate::codec::Pipeline;
use crate::encoding::{Encoding, Plan};
use crate::error::{Error, Result};
use crate::formats::zarr::array::{ArrayWriter, StoredArray};
use crate::json::Json;
use crate::model::{Dataset, Group, NcType, Values, VarPath};
use crate::sink::{DatasetSink, WriteStage};
use crate::store::{StoreKey, Target, WritableStore};

/// How NCZarr char variables are typed in `.zarray`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CharDtype {
    /// `|S1`: zarr-python and xarray can open it; netcdf-c reads it as 1-character strings.
    #[default]
    Zarr,
    /// `>S1`: netcdf-c's own marking of char; zarr-python refuses to open the array.
    Netcdf,
}

/// How NCZarr scalars are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ScalarShape {
    /// netcdf-c's way: shape `[1]`, `"scalar": 1`, `_ARRAY_DIMENSIONS: ["_scalar_"]`.
    #[default]
    One,
    /// Zarr's 0-d array: shape `[]` (what zarr-python and xarray call a scalar).
    ZeroD,
}

/// Which generation of NCZarr metadata to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// netcdf-c 4.9.3+/4.10: `_nczarr_*` attributes in `.zattrs`. Read by netcdf-c
    /// 4.9.3 and later, zarr-python and xarray.
    #[default]
    Current,
    /// netcdf-c 4.9.0: upper-case `_NCZARR_*` keys inside `.zgroup`/`.zarray`/`.zattrs`,
    /// char as `<U1` holding one byte per character (as 4.9.0 writes and reads it), no
    /// strings, no unlimited dimensions, little-endian only. For ncdump/ncgen 4.9.0
    /// (Debian 12, Ubuntu 22.04), which crash on the current layout's char, string and
    /// scalar arrays; zarr-python misreads its char arrays.
    Netcdf490,
}

/// Options for writing.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// The NCZarr metadata generation (ignored for pure Zarr).
    pub layout: Layout,
    /// Pure Zarr: no NCZarr metadata (`mode=zarr`).
    pub pure_zarr: bool,
    /// Write xarray's `_ARRAY_DIMENSIONS` (off with `noxarray`).
    pub xarray_dims: bool,
    /// Char dtype in NCZarr mode.
    pub char_dtype: CharDtype,
    /// Scalar layout in NCZarr mode (pure Zarr always writes 0-d arrays).
    pub scalar_shape: ScalarShape,
    /// Chunk key separator, `.` or `/`.
    pub separator: char,
    /// `_NCProperties` of the root group.
    pub nc_properties: String,
    /// Leave out chunks that hold only the fill value (zarr-python's default; nczgen
    /// writes every chunk, as ncgen does).
    pub skip_fill_chunks: bool,
    /// About how many bytes of chunks are encoded and put at once (default 64 MiB).
    pub batch_bytes: Option<u64>,
    /// Write Zarr version 3 (`zarr.json`) instead of version 2.
    pub zarr3: bool,
    /// Zarr v3 shards: the shard length along each named dimension (a whole number of
    /// chunks, rounded up); other dimensions have one chunk per shard.
    pub shards: Vec<(String, u64)>,
    /// Non-finite numbers in `.zattrs` bare (`NaN`), as zarr-python writes them and
    /// reads them back as numbers (kerchunk's references); else as strings.
    pub bare_nonfinite_attrs: bool,
    /// No consolidated metadata in the root `zarr.json` (an Icechunk repository:
    /// other writers of it would leave a copy there stale, and reading its nodes is
    /// as fast).
    pub unconsolidated: bool,
}

impl WriteOptions {
    /// Every option that shapes what is stored, as stable text (a copy in parts keeps
    /// it, hashed, to check that all its runs agree): not `batch_bytes`, which only sets
    /// how much is encoded at once. Each option is named here, so that a new field
    /// changes the text only when it is added here.
    pub fn identity(&self) -> String {
        let layout = match self.layout {
            Layout::Current => "current",
            Layout::Netcdf490 => "4.9.0",
        };
        let chars = match self.char_dtype {
            CharDtype::Zarr => "zarr",
            CharDtype::Netcdf => "netcdf",
        };
        let scalars = match self.scalar_shape {
            ScalarShape::One => "one",
            ScalarShape::ZeroD => "0d",
        };
        let shards: Vec<String> = self
            .shards
            .iter()
            .map(|(d, n)| format!("{d}={n}"))
            .collect();
        format!(
            "layout={layout} pure_zarr={} xarray_dims={} char_dtype={chars} scalar={scalars} \
             separator={} nc_properties={} skip_fill_chunks={} zarr3={} shards={}",
            self.pure_zarr,
            self.xarray_dims,
            self.separator,
            self.nc_properties,
            self.skip_fill_chunks,
            self.zarr3,
            shards.join(",")
        )
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            layout: Layout::default(),
            pure_zarr: false,
            xarray_dims: true,
            char_dtype: CharDtype::default(),
            scalar_shape: ScalarShape::default(),
            separator: '.',
            nc_properties: format!(
                "version=2,nczarr-tools={},nczarr=2.0.0",
                env!("CARGO_PKG_VERSION")
            ),
            skip_fill_chunks: false,
            batch_bytes: None,
            zarr3: false,
            shards: Vec::new(),
            bare_nonfinite_attrs: false,
            unconsolidated: false,
        }
    }
}

impl WriteOptions {
    /// Check that the options can be used together.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a separator other than `.` or `/`, and for the 4.9.0
    /// layout with pure Zarr.
    pub fn check(&self) -> Result<()> {
        if !matches!(self.separator, '.' | '/') {
            return Err(Error::Invalid(format!(
                "the chunk key separator must be '.' or '/', not '{}'",
                self.separator
            )));
        }
        if self.zarr3 && self.layout == Layout::Netcdf490 {
            return Err(Error::Invalid(
                "the netcdf-c 4.9.0 layout is Zarr version 2; it cannot be combined with Zarr version 3 output".into(),
            ));
        }
        if !self.shards.is_empty() && !self.zarr3 {
            return Err(Error::Invalid(
                "shards are a Zarr version 3 feature: write Zarr v3 (-k zarr3) to use them".into(),
            ));
        }
        if self.pure_zarr && self.layout == Layout::Netcdf490 {
            return Err(Error::Invalid(
                "the netcdf-c 4.9.0 layout writes NCZarr metadata; it cannot be combined with pure Zarr output".into(),
            ));
        }
        Ok(())
    }

    /// True when netcdf-c 4.9.0's NCZarr layout is written.
    fn v490(&self) -> bool {
        !self.pure_zarr && !self.zarr3 && self.layout == Layout::Netcdf490
    }
}

/// One variable being written.
struct VarOut {
    stored: StoredArray,
    writer: ArrayWriter,
    /// A netCDF scalar stored as a one-element array.
    scalar_as_1: bool,
    /// The input's fill was a Zarr v2 `fill_value` ([`Encoding::zarr_fill_masks`]).
    fill_masks: bool,
}

/// An NCZarr or pure Zarr v2 dataset being written into a store.
pub struct ZarrSink {
    target: Target,
    options: WriteOptions,
    stage: WriteStage,
    dataset: Dataset,
    vars: HashMap<VarPath, VarOut>,
}

/// Where a copy in parts keeps what its finishing run needs (removed by that run).
pub const PARTS_PREFIX: &str = ".nczcopy";

impl ZarrSink {
    /// A sink writing into `target` (staged: nothing is visible before
    /// [`DatasetSink::finish`]).
    ///
    /// # Errors
    /// As [`WriteOptions::check`].
    pub fn new(target: Target, options: WriteOptions) -> Result<ZarrSink> {
        options.check()?;
        Ok(ZarrSink {
            target,
            options,
            stage: WriteStage::Whole,
            dataset: Dataset::default(),
            vars: HashMap::new(),
        })
    }

    /// Write the Zarr version 3 documents of `dataset` into `store`, whose arrays'
    /// chunks are there already, stored as `stored` says (a version 2 store migrated in
    /// place: its chunk keys and codecs kept). The root's `zarr.json` is written last:
    /// until then the store reads as it was.
    ///
    /// # Errors
    /// A codec chain no writer could build; store errors.
    pub(crate) fn write_v3_documents(
        store: Box<dyn WritableStore>,
        options: WriteOptions,
        dataset: &Dataset,
        stored: Vec<(VarPath, StoredArray)>,
    ) -> Result<()> {
        let mut sink = ZarrSink::new(Target::in_place(store), options)?;
        for (path, array) in stored {
            let writer = ArrayWriter::new(array_key(&path)?, &path, array.clone())?;
            sink.vars.insert(
                path,
                VarOut {
                    stored: array,
                    writer,
                    scalar_as_1: false,
                    fill_masks: false,
                },
            );
        }
        sink.dataset = dataset.clone();
        sink.write_metadata()?;
        Ok(sink.store().finish()?)
    }

    /// Write only what `stage` says (a run of a copy in parts).
    pub fn with_stage(mut self, stage: WriteStage) -> ZarrSink {
        self.stage = stage;
        self
    }

    fn put_notes(&self, notes: &[(String, Vec<u8>)]) -> Result<()> {
        for (k, v) in notes {
            self.store().put(&StoreKey::new(k)?, v)?;
        }
        Ok(())
    }

    fn var(&self, path: &VarPath) -> Result<&VarOut> {
        self.vars
            .get(path)
            .ok_or_else(|| Error::Invalid(format!("variable '{path}' was not defined")))
    }

    fn store(&self) -> &dyn WritableStore {
        self.target.store.as_ref()
    }

    /// Write the metadata of the dataset: every group's, and the consolidated
    /// metadata (`.zmetadata` in v2, inside the root `zarr.json` in v3), which is
    /// put just before the root's opening document.
    fn write_metadata(&self) -> Result<()> {
        let mut consolidated = Vec::new();
        let root = &self.dataset.root;
        if self.options.zarr3 {
            return v3::write_group(self, root, &mut Vec::new(), &mut consolidated);
        }
        self.write_group(root, &mut Vec::new(), &mut consolidated)
    }

    /// Write the metadata of group `g` at `path` and below: variables, subgroups, then
    /// the group itself, so a group is openable only once all it holds is written.
    /// Each document is added to `consolidated` by its key; the root writes them all
    /// as `.zmetadata` (zarr-python's and xarray's consolidated metadata: one read
    /// opens the dataset) before its `.zgroup`.
    fn write_group(
        &self,
        g: &Group,
        path: &mut Vec<String>,
        consolidated: &mut Vec<(String, Json)>,
    ) -> Result<()> {
        let gkey = group_key(path)?;
        for v in &g.vars {
            let vp = VarPath::new(path, &v.name);
            let out = self.var(&vp)?;
            let docs = if self.options.v490() {
                v490::var_docs(v, &out.stored, &self.options)
            } else if self.fill_left_out(v, out) {
                let stored = StoredArray {
                    fill: None,
                    ..out.stored.clone()
                };
                current::var_docs(v, &stored, true, &self.options)
            } else {
                current::var_docs(v, &out.stored, false, &self.options)
            };
            self.put_docs(&array_key(&vp)?, docs, consolidated)?;
        }
        for c in &g.groups {
            path.push(c.name.clone());
            self.write_group(c, path, consolidated)?;
            path.pop();
        }
        let docs = if self.options.v490() {
            v490::group_docs(&self.dataset, g, path.is_empty(), &self.options)
        } else {
            current::group_docs(g, path.is_empty(), &self.options)
        };
        if !path.is_empty() {
            return self.put_docs(&gkey, docs, consolidated);
        }
        let (opener, rest): (Vec<_>, Vec<_>) =
            docs.into_iter().partition(|(name, _)| *name == ".zgroup");
        self.put_docs(&gkey, rest, consolidated)?;
        for (name, doc) in &opener {
            consolidated.push((name.to_string(), doc.clone()));
        }
        consolidated.sort_by(|a, b| a.0.cmp(&b.0));
        let zmetadata = Json::Object(vec![
            (
                "metadata".into(),
                Json::Object(std::mem::take(consolidated)),
            ),
            (
                "zarr_consolidated_format".into(),
                Json::Number(crate::json::Number::from_i64(1)),
            ),
        ]);
        self.put_opener(".zmetadata", &zmetadata)?;
        for (name, doc) in &opener {
            self.put_opener(name, doc)?;
        }
        Ok(())
    }

    /// Whether the variable `v`'s `.zarray` leaves its fill value out (`null`), though
    /// it has netCDF's default one: xarray takes `fill_value` as a missing-value marker
    /// and turns an integer variable into floats for it, and a string's `""` into NaN.
    /// Left out for strings and chars (an unwritten one reads `""` and NUL either way),
    /// and for integers when every chunk is stored and, in NCZarr, no value equals the
    /// fill (so netcdf-c reads the same values and masks none of them); NCZarr floats
    /// keep it (xarray reads a float variable as floats either way, and masks only the
    /// values netcdf-c masks). Pure Zarr, which serves xarray, leaves it out of every
    /// number whose chunks are all stored, unless xarray masked the input by it (a Zarr
    /// v2 input's `fill_value`). A `_FillValue` of the variable's own is always kept, as
    /// is any fill in a copy in parts' metadata run, written before the values. See
    /// `docs/layout.md`.
    fn fill_left_out(&self, v: &crate::model::Var, out: &VarOut) -> bool {
        if !self.leaves_fill_out(v, &out.stored, out.fill_masks) {
            return false;
        }
        if matches!(v.nc_type, NcType::Char | NcType::String) {
            return true;
        }
        if is_float(v.nc_type) && !self.options.pure_zarr {
            return false;
        }
        if self.stage != WriteStage::Whole {
            // The finishing run of a copy in parts decides, from the parts' reports.
            return false;
        }
        out.writer
            .written()
            .is_some_and(|w| w.chunks >= w.of && (!w.fill_seen || self.options.pure_zarr))
    }

    /// What a run of a copy in parts wrote of the variables whose fill the finishing
    /// run may leave out ([`PartReport`]).
    fn part_report(&self) -> Json {
        let mut vars: Vec<(String, Json)> = Vec::new();
        for (path, out) in &self.vars {
            let (Some(w), Ok(key)) = (out.writer.written(), array_key(path)) else {
                continue;
            };
            let n = |v: u64| Json::Number(crate::json::Number::from_u64(v));
            vars.push((
                key.to_string(),
                Json::Object(vec![
                    ("chunks".into(), n(w.chunks)),
                    ("of".into(), n(w.of)),
                    ("fill_seen".into(), Json::Bool(w.fill_seen)),
                ]),
            ));
        }
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        Json::Object(vec![
            ("pure_zarr".into(), Json::Bool(self.options.pure_zarr)),
            ("vars".into(), Json::Object(vars)),
        ])
    }

    /// Whether the variable `v`, stored as `stored`, may have its fill left out of its
    /// `.zarray` (see [`ZarrSink::fill_left_out`]): netCDF's default fill in Zarr v2,
    /// unless a pure Zarr copy keeps what xarray masked its input by (`fill_masks`).
    fn leaves_fill_out(
        &self,
        v: &crate::model::Var,
        stored: &StoredArray,
        fill_masks: bool,
    ) -> bool {
        !self.options.v490()
            && !self.options.zarr3
            && stored.fill.is_some()
            && v.attr("_FillValue").is_none()
            && !(self.options.pure_zarr && fill_masks)
    }

    /// Put the documents `docs` under `prefix`, adding each to `consolidated`.
    fn put_docs(
        &self,
        prefix: &StoreKey,
        docs: Vec<(&str, Json)>,
        consolidated: &mut Vec<(String, Json)>,
    ) -> Result<()> {
        for (name, doc) in docs {
            let key = prefix.join(name)?;
            let text = if name == ".zattrs" && self.options.bare_nonfinite_attrs {
                doc.to_text_bare_nonfinite()
            } else {
                doc.to_text()
            };
            self.store().put(&key, text.as_bytes())?;
            consolidated.push((key.to_string(), doc));
        }
        Ok(())
    }

    /// Put a root document that makes the dataset open (`.zgroup`, `.zmetadata`, the
    /// root `zarr.json`). The metadata run of a copy in parts keeps it aside under
    /// [`PARTS_PREFIX`] until the finishing run, so nothing opens before every part
    /// is written.
    fn put_opener(&self, name: &str, doc: &Json) -> Result<()> {
        let key = match (&self.stage, parts_opener(name)) {
            (WriteStage::MetadataOnly { .. }, Some(aside)) => StoreKey::new(&aside)?,
            _ => StoreKey::new(name)?,
        };
        Ok(self.store().put(&key, doc.to_text().as_bytes())?)
    }
}

fn is_float(t: NcType) -> bool {
    matches!(t, NcType::Float | NcType::Double)
}

/// What one run of a copy in parts stored of the variables whose `.zarray` may leave
/// netCDF's default fill out (see `ZarrSink::fill_left_out`), as JSON in its marker:
/// `{"pure_zarr": false, "vars": {"g/v": {"chunks": 12, "of": 40, "fill_seen": false}}}`.
/// The finishing run adds the parts' counts and leaves the fill out of the variables
/// that the parts stored whole without it ([`fills_to_leave_out`]).
pub struct PartReport;

/// The arrays whose fill the reports of a copy's parts (each a [`PartReport`]) say to
/// leave out: their keys, and whether the dataset is NCZarr (which marks them).
pub fn fills_to_leave_out(reports: &[Json]) -> (Vec<String>, bool) {
    let mut totals: std::collections::BTreeMap<String, (u64, u64, bool)> = Default::default();
    let mut pure = false;
    for r in reports {
        pure |= matches!(r.get("pure_zarr"), Some(Json::Bool(true)));
        for (key, v) in r.get("vars").and_then(Json::as_object).unwrap_or(&[]) {
            let n = |k: &str| {
                v.get(k)
                    .and_then(Json::as_i64_lenient)
                    .and_then(|x| u64::try_from(x).ok())
                    .unwrap_or(0)
            };
            let seen = matches!(v.get("fill_seen"), Some(Json::Bool(true)));
            let t = totals.entry(key.clone()).or_insert((0, n("of"), false));
            t.0 += n("chunks");
            t.2 |= seen;
        }
    }
    let keys = totals
        .into_iter()
        .filter(|(_, (chunks, of, seen))| chunks >= of && (!seen || pure))
        .map(|(k, _)| k)
        .collect();
    (keys, !pure)
}

/// The root documents that make a dataset open, in the order they are put: a copy in
/// parts keeps them aside (see [`parts_opener`]) and its finishing run puts them.
pub const OPENERS: &[&str] = &[".zmetadata", ".zgroup", "zarr.json"];

/// Where a copy in parts keeps the opening document `name` (one of [`OPENERS`]).
pub fn parts_opener(name: &str) -> Option<String> {
    OPENERS
        .contains(&name)
        .then(|| format!("{PARTS_PREFIX}/{}", name.trim_start_matches('.')))
}

fn group_key(path: &[String]) -> Result<StoreKey> {
    let mut k = StoreKey::root();
    for p in path {
        k = k.join(p)?;
    }
    Ok(k)
}

impl DatasetSink for ZarrSink {
    fn prepare(&self, dataset: &Dataset, plan: &mut Plan) -> Result<Vec<String>> {
        if !self.options.v490() {
            return Ok(Vec::new());
        }
        let mut warnings = Vec::new();
        for (path, var) in dataset.vars() {
            if let Some(enc) = plan.get_mut(&path) {
                for change in v490::fit(enc, &dataset.var_shape(var)) {
                    warnings.push(format!("variable {path} is {change}"));
                }
            }
        }
        warnings.extend(v490::limits(dataset)?);
        Ok(warnings)
    }

    fn define(&mut self, dataset: &Dataset, plan: &Plan) -> Result<()> {
        for (path, var) in dataset.vars() {
            let enc = plan.get(&path).ok_or_else(|| {
                Error::Invalid(format!("variable '{path}' has no planned encoding"))
            })?;
            let shape = dataset.var_shape(var);
            let stored = array::stored_array(var, &shape, enc, &self.options);
            // Numbers whose fill may be left out are watched for it (see
            // `fill_left_out`); in pure Zarr every chunk is stored, so that it can be.
            // Numbers whose fill may be left out (see `fill_left_out`): pure Zarr counts
            // their chunks (and stores every one); NCZarr also looks for the fill among
            // an integer variable's values.
            let numbers = self.leaves_fill_out(var, &stored, enc.zarr_fill_masks)
                && !matches!(var.nc_type, NcType::Char | NcType::String);
            let pure = self.options.pure_zarr;
            let look = numbers && !pure && !is_float(var.nc_type);
            let skip = self.options.skip_fill_chunks && !(numbers && pure);
            let mut writer = ArrayWriter::new(array_key(&path)?, &path, stored.clone())?
                .skipping_fill_chunks(skip)
                .watching(numbers && (pure || look), look);
            if let Some(b) = self.options.batch_bytes {
                writer = writer.with_batch_bytes(b);
            }
            let scalar_as_1 = shape.is_empty() && !stored.shape.is_empty();
            self.vars.insert(
                path,
                VarOut {
                    stored,
                    writer,
                    scalar_as_1,
                    fill_masks: enc.zarr_fill_masks,
                },
            );
        }
        self.dataset = dataset.clone();
        Ok(())
    }

    fn slabs(
        &self,
        var: &VarPath,
        budget: u64,
        read_chunks: Option<&[u64]>,
        within: Option<&Region>,
    ) -> Result<Vec<Region>> {
        let out = self.var(var)?;
        if out.scalar_as_1 {
            return Ok(vec![Region::whole(&[])]);
        }
        let block = within
            .cloned()
            .unwrap_or_else(|| Region::whole(&out.stored.shape));
        // Whole pieces of what the writer writes: chunks, or shards (the block starts
        // on a chunk edge, so its slabs stay whole chunks).
        Ok(block_slabs(
            &block,
            &out.writer.grid().chunks,
            read_chunks,
            budget,
        ))
    }

    fn write_unit(&self, var: &VarPath) -> Option<Vec<u64>> {
        let out = self.var(var).ok()?;
        out.stored.sharding.as_ref().map(|s| s.shape.clone())
    }

    fn write(&self, var: &VarPath, region: &Region, values: &Values) -> Result<()> {
        let out = self.var(var)?;
        let region = if out.scalar_as_1 {
            Region::whole(&[1])
        } else {
            region.clone()
        };
        out.writer.write(self.store(), &region, values)
    }

    fn takes_chunks_of(&self, var: &VarPath, encoding: &Encoding) -> bool {
        let (Ok(out), Some(v)) = (self.var(var), self.dataset.var(var)) else {
            return false;
        };
        v.nc_type != NcType::String
            && !out.scalar_as_1
            && out.stored.sharding.is_none()
            && encoding.chunk_shape() == Some(out.stored.chunks.as_slice())
            && array::dtype_for(v.nc_type, encoding.endian, 1, self.options.char_dtype)
                == out.stored.dtype
    }

    fn write_chunks(
        &self,
        var: &VarPath,
        chunks: Vec<(Vec<u64>, Vec<u8>)>,
        codecs: &[Json],
    ) -> Result<()> {
        let out = self.var(var)?;
        if out.stored.codec_chain().eq(codecs.iter()) {
            return out.writer.write_encoded(self.store(), chunks, None);
        }
        let from = Pipeline::new(codecs, None).map_err(|error| Error::Codec {
            var: var.to_string(),
            error,
        })?;
        out.writer.write_encoded(self.store(), chunks, Some(&from))
    }

    fn finish(self: Box<Self>) -> Result<()> {
        match &self.stage {
            WriteStage::Whole => {
                self.write_metadata()?;
                self.target.commit()?;
            }
            WriteStage::MetadataOnly { notes } => {
                self.write_metadata()?;
                self.put_notes(notes)?;
                self.store().finish()?;
            }
            WriteStage::Values { notes } => {
                let report = self.part_report().to_text().into_bytes();
                let notes: Vec<(String, Vec<u8>)> = notes
                    .iter()
                    .map(|(k, _)| (k.clone(), report.clone()))
                    .collect();
                self.put_notes(&notes)?;
                self.store().finish()?;
            }
        }
        Ok(())
    }
}
