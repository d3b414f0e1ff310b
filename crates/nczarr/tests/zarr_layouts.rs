//! Each layout the Zarr sink writes, written from compiled CDL into memory: the documents
//! each generation puts where, and the dataset read back whole by the reader of that
//! generation. (Here, not beside the sink: it needs `cdl` and `copy`, which are above the
//! formats.)

use std::sync::Arc;

use nczarr::cdl::{compile, parse};
use nczarr::chunking::Region;
use nczarr::copy::{copy_all, plan, write_dataset, CopyOptions};
use nczarr::encoding::PlanOptions;
use nczarr::formats::zarr::write::*;
use nczarr::formats::zarr::{Generation, ReadOptions, ZarrSource};
use nczarr::json::{self, Json};
use nczarr::model::VarPath;
use nczarr::model::{NcType, Values};
use nczarr::sink::DatasetSink;
use nczarr::source::{DataSource, DatasetSource};
use nczarr::store::{MemoryStore, ReadableStore};
use nczarr::store::{StoreKey, Target};

const CDL: &str = r#"netcdf t {
dimensions:
	time = UNLIMITED ;
	x = 3 ;
variables:
	double time(time) ;
		time:units = "days since 2000-01-01" ;
	short v(time, x) ;
		v:_FillValue = -9s ;
		v:_ChunkSizes = 1, 3 ;
	char c(x) ;
	int s ;
		s:flag = 1b ;
// global attributes:
		:title = "layouts" ;
data:
 time = 0, 1 ;
 v = 1, 2, 3, 4, 5, _ ;
 c = "abc" ;
 s = 42 ;
group: g {
  variables:
	float w(x) ;
  data:
   w = 0.5, 1.5, 2.5 ;
  } // group g
}
"#;

/// Write `CDL` with `options` into memory; the store and what was warned.
fn write(options: WriteOptions) -> (Arc<MemoryStore>, Vec<String>) {
    let ast = parse(CDL).unwrap();
    let compiled = compile(CDL, &ast).unwrap();
    let store = Arc::new(MemoryStore::new());
    let target = Target::in_place(Box::new(Arc::clone(&store)));
    let sink = ZarrSink::new(target, options).unwrap();
    let warnings = copy_all(&compiled, Box::new(sink)).unwrap();
    (store, warnings)
}

fn doc(store: &MemoryStore, key: &str) -> Json {
    let bytes = store
        .get(&StoreKey::new(key).unwrap())
        .unwrap()
        .unwrap_or_else(|| panic!("no {key}"));
    json::parse(&bytes).unwrap()
}

fn has(store: &MemoryStore, key: &str) -> bool {
    store.get(&StoreKey::new(key).unwrap()).unwrap().is_some()
}

/// Read back and compare with what the CDL says.
fn read_back(store: Arc<MemoryStore>, generation: Generation) -> ZarrSource {
    let source = ZarrSource::open(Box::new(store), &ReadOptions::default()).unwrap();
    assert!(source.problems().is_empty(), "{:?}", source.problems());
    assert_eq!(source.format().detail, generation.describe());
    let read = |g: &[&str], name: &str| {
        let g: Vec<String> = g.iter().map(|s| (*s).to_string()).collect();
        let path = VarPath::new(&g, name);
        let shape = source.dataset().shape_of(&path).unwrap();
        source.read(&path, &Region::whole(&shape)).unwrap()
    };
    assert_eq!(read(&[], "time"), Values::Double(vec![0.0, 1.0]));
    assert_eq!(read(&[], "v"), Values::Short(vec![1, 2, 3, 4, 5, -9]));
    assert_eq!(read(&[], "c"), Values::text("abc"));
    assert_eq!(read(&[], "s"), Values::Int(vec![42]));
    assert_eq!(read(&["g"], "w"), Values::Float(vec![0.5, 1.5, 2.5]));
    let root = &source.dataset().root;
    assert_eq!(root.var("c").unwrap().nc_type, NcType::Char);
    assert!(
        root.var("s").unwrap().dims.is_empty(),
        "a scalar stays a scalar"
    );
    assert_eq!(root.attr("title").unwrap().values, Values::text("layouts"));
    source
}

#[test]
fn current_layout_keeps_nczarr_metadata_in_attributes() {
    let (store, warnings) = write(WriteOptions::default());
    assert!(warnings.is_empty());
    let root = doc(&store, ".zattrs");
    assert!(root.get("_nczarr_superblock").is_some());
    let group = root.get("_nczarr_group").unwrap();
    assert_eq!(
        group
            .get("dimensions")
            .unwrap()
            .get("time")
            .unwrap()
            .to_text(),
        r#"{"size": 2, "unlimited": 1}"#
    );
    assert_eq!(doc(&store, ".zgroup").to_text(), r#"{"zarr_format": 2}"#);
    assert_eq!(
        doc(&store, "c/.zarray").get("dtype").unwrap().as_str(),
        Some("|S1")
    );
    let c_attrs = doc(&store, "c/.zattrs");
    let nctype = c_attrs.get("_nczarr_array").unwrap().get("nctype");
    assert_eq!(nctype.and_then(Json::as_str), Some("char"));
    assert_eq!(
        doc(&store, "s/.zarray").get("shape").unwrap().to_text(),
        "[1]"
    );
    assert_eq!(
        doc(&store, "s/.zattrs")
            .get("_ARRAY_DIMENSIONS")
            .unwrap()
            .to_text(),
        r#"["_scalar_"]"#
    );
    assert_eq!(
        doc(&store, "v/.zarray")
            .get("fill_value")
            .unwrap()
            .to_text(),
        "-9"
    );
    assert!(has(&store, "v/1.0") && has(&store, "g/w/0"));
    let source = read_back(store, Generation::Attributes);
    assert!(source.dataset().root.dims[0].unlimited);
}

#[test]
fn options_change_chars_and_scalars() {
    let (store, _) = write(WriteOptions {
        char_dtype: CharDtype::Netcdf,
        scalar_shape: ScalarShape::ZeroD,
        separator: '/',
        ..WriteOptions::default()
    });
    assert_eq!(
        doc(&store, "c/.zarray").get("dtype").unwrap().as_str(),
        Some(">S1")
    );
    assert_eq!(
        doc(&store, "s/.zarray").get("shape").unwrap().to_text(),
        "[]"
    );
    assert!(has(&store, "v/1/0") && has(&store, "s/0"));
    read_back(store, Generation::Attributes);
}

#[test]
fn pure_zarr_has_no_nczarr_metadata() {
    let (store, _) = write(WriteOptions {
        pure_zarr: true,
        ..WriteOptions::default()
    });
    for key in [".zattrs", "v/.zattrs", "g/.zattrs", "s/.zattrs"] {
        let d = doc(&store, key);
        let members = d.as_object().unwrap();
        assert!(
            members.iter().all(|(k, _)| !k.starts_with("_nczarr")),
            "{key}: {}",
            d.to_text()
        );
    }
    // The fill lives in .zarray only; xarray reads it as _FillValue.
    assert!(doc(&store, "v/.zattrs").get("_FillValue").is_none());
    assert_eq!(
        doc(&store, "s/.zarray").get("shape").unwrap().to_text(),
        "[]"
    );
    let source = read_back(store, Generation::PureZarr);
    let v = source.dataset().root.var("v").unwrap();
    assert_eq!(
        v.attr("_FillValue").unwrap().values,
        Values::Short(vec![-9])
    );
}

#[test]
fn netcdf_490_layout_keeps_nczarr_metadata_in_upper_case_keys() {
    let (store, warnings) = write(WriteOptions {
        layout: Layout::Netcdf490,
        ..WriteOptions::default()
    });
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].starts_with("dimension /time is written as fixed"));
    let zgroup = doc(&store, ".zgroup");
    assert!(zgroup.get("_NCZARR_SUPERBLOCK").is_some());
    let dims = zgroup.get("_NCZARR_GROUP").unwrap().get("dims").unwrap();
    assert_eq!(dims.to_text(), r#"{"time": 2, "x": 3, "_scalar_": 1}"#);
    assert!(doc(&store, ".zattrs").get("_NCZARR_ATTR").is_some());
    let c = doc(&store, "c/.zarray");
    assert_eq!(c.get("dtype").unwrap().as_str(), Some("<U1"));
    let s = doc(&store, "s/.zarray");
    let refs = s.get("_NCZARR_ARRAY").unwrap().get("dimrefs").unwrap();
    assert_eq!(refs.to_text(), r#"["/_scalar_"]"#);
    let source = read_back(store, Generation::UpperKeys);
    // Unlimited dimensions cannot be held; the scalar dimension is not shown.
    let dims: Vec<&str> = source
        .dataset()
        .root
        .dims
        .iter()
        .map(|d| d.name.as_str())
        .collect();
    assert_eq!(dims, ["time", "x"]);
}

#[test]
fn netcdf_490_layout_refuses_strings_and_drops_codecs() {
    let ast = parse("netcdf x { dimensions: n = 1 ; variables: string s(n) ; }").unwrap();
    let compiled = compile("", &ast).unwrap();
    let sink = ZarrSink::new(
        Target::in_place(Box::new(MemoryStore::new())),
        WriteOptions {
            layout: Layout::Netcdf490,
            ..WriteOptions::default()
        },
    )
    .unwrap();
    let mut p = plan(&compiled, &PlanOptions::default()).unwrap();
    let e = sink
        .prepare(&compiled.dataset, &mut p)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("variable /s is a string"), "{e}");

    let text = "netcdf x { dimensions: n = 4 ; variables: int v(n) ; v:_DeflateLevel = 1 ; v:_Endianness = \"big\" ; }";
    let compiled = compile(text, &parse(text).unwrap()).unwrap();
    let mut p = plan(&compiled, &PlanOptions::default()).unwrap();
    let warnings = sink.prepare(&compiled.dataset, &mut p).unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let enc = p.get(&VarPath::new(&[], "v")).unwrap();
    assert!(enc.codecs.is_empty() && enc.endian.is_none());
}

/// The compiled CDL as a source whose variable `v` also gives its chunks as stored,
/// encoded with `codecs`: chunk `[0, 0]` as `given`, the others not at all (read as
/// values).
struct StoredSource<'a> {
    inner: &'a nczarr::cdl::Compiled,
    encoding: nczarr::encoding::Encoding,
    given: Vec<u8>,
}

impl DataSource for StoredSource<'_> {
    fn read(&self, var: &VarPath, region: &nczarr::chunking::Region) -> nczarr::Result<Values> {
        self.inner.read(var, region)
    }
}

impl DatasetSource for StoredSource<'_> {
    fn dataset(&self) -> &nczarr::model::Dataset {
        self.inner.dataset()
    }
    fn format(&self) -> &nczarr::source::FormatInfo {
        self.inner.format()
    }
    fn encoding(&self, var: &VarPath) -> Option<nczarr::encoding::Encoding> {
        if var.name == "v" {
            Some(self.encoding.clone())
        } else {
            self.inner.encoding(var)
        }
    }
    fn has_stored_chunks(&self, var: &VarPath) -> bool {
        var.name == "v"
    }
    fn stored_chunk(&self, _var: &VarPath, index: &[u64]) -> nczarr::Result<Option<Vec<u8>>> {
        Ok((index == [0, 0]).then(|| self.given.clone()))
    }
}

#[test]
fn chunks_given_as_stored_are_kept_or_recoded_and_the_rest_read() {
    let ast = parse(CDL).unwrap();
    let compiled = compile(CDL, &ast).unwrap();
    let v = VarPath::new(&[], "v");
    let zlib = json::parse_str(r#"{"id": "zlib", "level": 1}"#).unwrap();
    let info = nczarr::codec::ChunkInfo {
        item_size: 2,
        max_decoded: 6,
    };
    let first_chunk: Vec<u8> = [1i16, 2, 3].iter().flat_map(|x| x.to_ne_bytes()).collect();
    // Level 9 bytes under a level 1 label: kept as they are, they stay level 9 bytes.
    let level9 =
        nczarr::codec::registry::build(&json::parse_str(r#"{"id": "zlib", "level": 9}"#).unwrap())
            .unwrap()
            .encode(first_chunk.clone(), &info)
            .unwrap();
    for (source_codecs, given) in [
        (vec![zlib.clone()], level9.clone()),
        (Vec::new(), first_chunk.clone()),
    ] {
        let store = Arc::new(MemoryStore::new());
        let target = Target::in_place(Box::new(Arc::clone(&store)));
        let sink = ZarrSink::new(target, WriteOptions::default()).unwrap();
        let mut p = plan(&compiled, &PlanOptions::default()).unwrap();
        let out = p.get_mut(&v).unwrap();
        out.codecs = vec![zlib.clone()];
        let mut encoding = out.clone();
        encoding.codecs = source_codecs.clone();
        let source = StoredSource {
            inner: &compiled,
            encoding,
            given,
        };
        write_dataset(
            &source,
            &compiled.dataset,
            &p,
            Box::new(sink),
            &CopyOptions::default(),
        )
        .unwrap();
        let stored = store
            .get(&StoreKey::new("v/0.0").unwrap())
            .unwrap()
            .unwrap();
        if source_codecs.is_empty() {
            // Re-encoded with the output's codec.
            assert_ne!(stored, level9);
            assert_ne!(stored, first_chunk);
        } else {
            assert_eq!(stored, level9, "a chunk stored alike is kept byte for byte");
        }
        let back = ZarrSource::open(Box::new(store), &ReadOptions::default()).unwrap();
        let whole = nczarr::chunking::Region::whole(&[2, 3]);
        assert_eq!(
            back.read(&v, &whole).unwrap(),
            compiled.read(&v, &whole).unwrap()
        );
    }
}
