//! What the fuzz targets share: a store packed in one input, a netCDF file held in
//! memory, and a dump of a source that goes through everything a reader serves.
//!
//! A target may return an error for any input; it must never panic, abort, hang or
//! allocate past libFuzzer's memory limit (2 GiB by default, as `ulimit -v` in the
//! hostile-input tests).

use std::sync::Arc;

use nczarr::cdl::print::{print_cdl, print_json, JsonFill, PrintOptions};
use nczarr::chunking::Region;
use nczarr::store::{MemoryStore, ReadAt, StoreError};
use nczarr::DatasetSource;

/// Elements whose values a dump reads at most; past that it prints the header only. A
/// fuzzed shape of 10^12 unstored values is slow to print, as with ncdump, not wrong.
pub const MAX_DUMP_ELEMENTS: u64 = 1 << 16;

/// Print `source` as CDL with data and as JSON, read each variable's first chunk as
/// zmapdump does, and throw the text away: errors are fine, crashes are not.
pub fn dump(source: &dyn DatasetSource) {
    let ds = source.dataset();
    let vars = ds.vars();
    let opts = PrintOptions {
        header_only: total_elements(ds) > MAX_DUMP_ELEMENTS,
        special: true,
        slab_elements: 1 << 12,
        ..PrintOptions::default()
    };
    let _ = print_cdl(&mut std::io::sink(), source, &opts);
    let _ = print_json(&mut std::io::sink(), source, &opts, JsonFill::Null);
    for (path, v) in vars.iter().take(8) {
        let shape = ds.var_shape(v);
        let _ = source.encoding(path);
        if elements(&shape) <= MAX_DUMP_ELEMENTS {
            let _ = source.read(path, &Region::whole(&shape));
        }
        let first = vec![0u64; shape.len()];
        let _ = source.chunk(path, &first);
        if source.has_stored_chunks(path) {
            let _ = source.stored_chunk(path, &first);
        }
    }
}

/// The entries of a store packed in one input: each is a key, `\n`, the value's length
/// (u32, little-endian) and the value (cut short at the end of the input). Keys that
/// break the key rules are skipped: the store would refuse them.
pub fn unpack_store(mut data: &[u8]) -> MemoryStore {
    let store = MemoryStore::new();
    while let Some(nl) = data.iter().position(|&b| b == b'\n') {
        let key = String::from_utf8_lossy(&data[..nl]).into_owned();
        let rest = &data[nl + 1..];
        if rest.len() < 4 {
            break;
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let rest = &rest[4..];
        let value = &rest[..len.min(rest.len())];
        let _ = store.insert_str(&key, value.to_vec());
        data = &rest[value.len()..];
    }
    store
}

/// Pack entries as [`unpack_store`] reads them (seed corpora).
pub fn pack_store(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, v) in entries {
        out.extend_from_slice(k.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(&u32::try_from(v.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(v);
    }
    out
}

/// A file held in memory, read by position (netCDF file readers).
pub struct MemFile(pub Vec<u8>);

impl MemFile {
    /// As the shared reader the sources take.
    pub fn shared(bytes: &[u8]) -> Arc<dyn ReadAt> {
        Arc::new(MemFile(bytes.to_vec()))
    }
}

impl ReadAt for MemFile {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<(), StoreError> {
        let start = usize::try_from(offset).ok().filter(|&s| s <= self.0.len());
        match start.and_then(|s| self.0.get(s..s.checked_add(buf.len())?)) {
            Some(src) => {
                buf.copy_from_slice(src);
                Ok(())
            }
            None => Err(StoreError::Io {
                location: "fuzz input".into(),
                source: std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "past the end"),
            }),
        }
    }

    fn location(&self) -> String {
        "fuzz input".into()
    }
}

/// Values a shape holds (saturating: fuzzed shapes overflow).
fn elements(shape: &[u64]) -> u64 {
    shape.iter().fold(1u64, |a, &d| a.saturating_mul(d))
}

/// Values of every variable of `ds`.
fn total_elements(ds: &nczarr::model::Dataset) -> u64 {
    ds.vars()
        .iter()
        .fold(0u64, |acc, (_, v)| acc.saturating_add(elements(&ds.var_shape(v))))
}

/// Write `source` into a new memory store with nczgen's and nczcopy's path (plan,
/// sink, slabs of 64 KiB); the store, or why it failed.
fn write_to_memory(
    source: &dyn DatasetSource,
    options: nczarr::formats::zarr::WriteOptions,
) -> nczarr::Result<Arc<MemoryStore>> {
    use nczarr::copy::{plan, write_dataset, CopyOptions};
    use nczarr::encoding::PlanOptions;
    use nczarr::formats::zarr::ZarrSink;
    use nczarr::store::Target;
    use nczarr::DatasetSink;

    let ds = source.dataset();
    let store = Arc::new(MemoryStore::new());
    let sink = ZarrSink::new(Target::in_place(Box::new(Arc::clone(&store))), options)?;
    let mut p = plan(source, &PlanOptions::default())?;
    sink.prepare(ds, &mut p)?;
    let copy = CopyOptions {
        slab_bytes: 1 << 16,
        ..CopyOptions::default()
    };
    write_dataset(source, ds, &p, Box::new(sink), &copy)?;
    Ok(store)
}

/// Write `source` as NCZarr into memory, read the result back and dump it: the writer
/// and the reader meet on every dataset the fuzzer makes. Datasets too large to dump
/// are left alone (writing their fill values is slow, not wrong).
pub fn write_and_read(source: &dyn DatasetSource) {
    use nczarr::formats::zarr::{ReadOptions, WriteOptions, ZarrSource};

    if total_elements(source.dataset()) > MAX_DUMP_ELEMENTS {
        return;
    }
    let Ok(store) = write_to_memory(source, WriteOptions::default()) else {
        return;
    };
    if let Ok(back) = ZarrSource::open(Box::new(store), &ReadOptions::default()) {
        dump(&back);
    }
}

/// The small dataset the metadata targets change one document of, written once as
/// NCZarr (v2, with `.zmetadata`) or as Zarr v3.
const SKELETON_CDL: &str = r#"netcdf skeleton {
dimensions:
    x = 6 ;
    t = UNLIMITED ;
variables:
    short v(x) ;
        v:_FillValue = -9s ;
        v:_ChunkSizes = 4 ;
        v:_DeflateLevel = 1 ;
        v:_Shuffle = "true" ;
        v:units = "m" ;
    string s(x) ;
    double t(t) ;
        t:units = "days since 2000-01-01" ;
// global attributes:
    :title = "skeleton" ;
    :n = 1, 2, 3 ;
data:
    v = 1, 2, 3, 4, 5, _ ;
    s = "a", "bb", "", "d", "e", "f" ;
    t = 0.5, 1.5 ;
group: g {
  dimensions:
    y = 3 ;
  variables:
    float w(y) ;
    char c(y) ;
  data:
    w = 0.5, 1.5, 2.5 ;
    c = "abc" ;
  }
}
"#;

/// A new store holding the skeleton dataset (see [`SKELETON_CDL`]).
pub fn skeleton(v3: bool) -> MemoryStore {
    use std::sync::OnceLock;
    static V2: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    static V3: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    let entries = if v3 { &V3 } else { &V2 }.get_or_init(|| write_skeleton(v3));
    let store = MemoryStore::new();
    for (k, v) in entries {
        let _ = store.insert_str(k, v.clone());
    }
    store
}

/// Every entry of the skeleton dataset, written by the library's own writer.
pub fn write_skeleton(v3: bool) -> Vec<(String, Vec<u8>)> {
    use nczarr::formats::zarr::WriteOptions;
    use nczarr::store::{ListableStore, ReadableStore};

    let ast = nczarr::cdl::parse(SKELETON_CDL).expect("skeleton CDL parses");
    let compiled = nczarr::cdl::compile(SKELETON_CDL, &ast).expect("skeleton CDL compiles");
    let options = WriteOptions {
        zarr3: v3,
        ..WriteOptions::default()
    };
    let store = write_to_memory(&compiled, options).expect("skeleton written");
    store
        .list()
        .expect("memory store lists")
        .into_iter()
        .filter_map(|(k, _)| {
            let v = store.get(&k).ok()??;
            Some((k.as_str().to_string(), v))
        })
        .collect()
}
