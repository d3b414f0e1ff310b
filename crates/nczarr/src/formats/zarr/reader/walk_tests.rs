//! The variable pass of the NCZarr walk: each variable's dimension uses checked against
//! the tree, and the same dataset from a store read where its documents are used and
//! from one read in batches.

use std::sync::Arc;

use crate::formats::zarr::{ReadOptions, ZarrSource};
use crate::source::DatasetSource;
use crate::store::{
    GetResult, ListableStore, MemoryStore, ReadStore, ReadableStore, StoreError, StoreKey,
};

/// A 4.9.3-layout dataset: root dimensions `dims` (JSON members), a subgroup `g` with
/// dimension `y` (length 2), and variables `(group, name, dimension references,
/// stored shape)`.
fn dataset(dims: &str, vars: &[(&str, &str, &str, &str)]) -> MemoryStore {
    let store = MemoryStore::new();
    let names = |group: &str| {
        vars.iter()
            .filter(|v| v.0 == group)
            .map(|v| format!("\"{}\"", v.1))
            .collect::<Vec<_>>()
            .join(",")
    };
    let put = |key: &str, text: String| store.insert_str(key, text).unwrap();
    put(".zgroup", r#"{"zarr_format": 2}"#.to_string());
    put(
        ".zattrs",
        format!(
            r#"{{"_nczarr_superblock": {{"version": "3.0.0", "format": 2}}, "_nczarr_group": {{"dimensions": {{{dims}}}, "arrays": [{}], "groups": ["g"]}}}}"#,
            names("")
        ),
    );
    put("g/.zgroup", r#"{"zarr_format": 2}"#.to_string());
    put(
        "g/.zattrs",
        format!(
            r#"{{"_nczarr_group": {{"dimensions": {{"y": {{"size": 2}}}}, "arrays": [{}], "groups": []}}}}"#,
            names("g")
        ),
    );
    for (group, name, refs, shape) in vars {
        let prefix = if group.is_empty() {
            (*name).to_string()
        } else {
            format!("{group}/{name}")
        };
        put(
            &format!("{prefix}/.zarray"),
            format!(
                r#"{{"zarr_format": 2, "shape": [{shape}], "chunks": [{shape}], "dtype": "<i4", "fill_value": null, "order": "C", "compressor": null, "filters": null}}"#
            ),
        );
        put(
            &format!("{prefix}/.zattrs"),
            format!(
                r#"{{"_nczarr_array": {{"dimension_references": [{refs}], "storage": "chunked"}}}}"#
            ),
        );
    }
    store
}

fn open(store: impl ReadStore + 'static) -> crate::Result<ZarrSource> {
    ZarrSource::open(Box::new(store), &ReadOptions::default())
}

#[test]
fn an_undeclared_dimension_is_created_with_the_stored_length_and_reported() {
    let store = dataset(
        r#""x": {"size": 4}"#,
        &[
            ("", "a", r#""/x""#, "4"),
            ("", "b", r#""/x", "/z""#, "4, 3"),
            ("g", "c", r#""/z", "/g/y""#, "3, 2"),
        ],
    );
    let source = open(store).unwrap();
    assert_eq!(
        source.problems(),
        ["variable '/b': dimension '/z' is not declared; created with length 3"],
        "created once, at its first use"
    );
    let root = &source.dataset().root;
    let z = root.dims.iter().find(|d| d.name == "z").unwrap();
    assert_eq!((z.len, z.unlimited), (3, false));
}

#[test]
fn an_unlimited_dimension_takes_its_longest_use_and_a_fixed_one_must_match() {
    let store = dataset(
        r#""t": {"size": 1, "unlimited": 1}, "x": {"size": 4}"#,
        &[
            ("", "a", r#""/t", "/x""#, "3, 4"),
            ("g", "b", r#""/t""#, "5"),
            ("", "c", r#""/t""#, "2"),
        ],
    );
    let source = open(store).unwrap();
    assert!(source.problems().is_empty(), "{:?}", source.problems());
    let t = source.dataset().root.dims.iter().find(|d| d.name == "t");
    assert_eq!(t.map(|d| (d.len, d.unlimited)), Some((5, true)));

    let store = dataset(
        r#""x": {"size": 4}"#,
        &[("g", "v", r#""/x", "/g/y""#, "4, 3")],
    );
    let err = open(store).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        err.contains(
            "variable '/g/v': its array has length 3 along dimension '/g/y', which has length 2"
        ),
        "{err}"
    );
}

/// The same store, its reads presented as requests with latency: the walk then reads
/// every variable's documents in one batch before building them.
#[derive(Debug)]
struct Remote(Arc<MemoryStore>);

impl ReadableStore for Remote {
    fn get(&self, key: &StoreKey) -> GetResult {
        self.0.get(key)
    }

    fn location(&self) -> String {
        "remote".to_string()
    }
}

impl ListableStore for Remote {
    fn list(&self) -> Result<Vec<(StoreKey, u64)>, StoreError> {
        self.0.list()
    }

    fn search(&self, prefix: &StoreKey) -> Result<Vec<String>, StoreError> {
        self.0.search(prefix)
    }
}

/// What a reader made of a dataset: every group's variables and dimensions, the
/// problems, or the error.
fn summary(source: crate::Result<ZarrSource>) -> String {
    fn group(g: &crate::model::Group, out: &mut String) {
        for v in &g.vars {
            out.push_str(&format!("{}/{}{:?} ", g.name, v.name, v.dims));
        }
        out.push_str(&format!("{:?} ", g.dims));
        for c in &g.groups {
            group(c, out);
        }
    }
    match source {
        Ok(s) => {
            let mut out = String::new();
            group(&s.dataset().root, &mut out);
            format!("{out}{:?}", s.problems())
        }
        Err(e) => format!("error: {e}"),
    }
}

/// The same dataset read from `store` as it is (reads where the documents are used)
/// and as [`Remote`] (one batch first).
fn both_ways(store: MemoryStore) -> (String, String) {
    let store = Arc::new(store);
    assert!(store.reads_are_cheap());
    let cheap = summary(open(Arc::clone(&store)));
    let batched = summary(open(Remote(store)));
    (cheap, batched)
}

#[test]
fn documents_read_where_they_are_built_give_what_a_batch_gives() {
    // Enough variables to be built on every core, in the root and a subgroup, one of
    // them damaged (skipped with a problem) and one using an undeclared dimension:
    // results and problems in order.
    let mut vars: Vec<(&str, String, String, &str)> = (0..80)
        .map(|i| {
            let group = if i % 3 == 0 { "g" } else { "" };
            (group, format!("v{i}"), r#""/x""#.to_string(), "4")
        })
        .collect();
    vars[17].2 = r#""/x", "/w""#.to_string();
    vars[17].3 = "4, 6";
    vars[30].2 = r#""/x", "/g/y""#.to_string();
    vars[30].3 = "4, 2";
    let vars: Vec<(&str, &str, &str, &str)> = vars
        .iter()
        .map(|(g, n, r, s)| (*g, n.as_str(), r.as_str(), *s))
        .collect();
    let store = dataset(r#""x": {"size": 4}"#, &vars);
    store
        .insert_str(
            "v40/.zarray",
            r#"{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "<x9", "fill_value": null, "order": "C", "compressor": null, "filters": null}"#,
        )
        .unwrap();
    let (cheap, batched) = both_ways(store);
    assert_eq!(cheap, batched);
    assert!(cheap.contains("dimension '/w' is not declared"), "{cheap}");
    assert!(cheap.contains("variable skipped"), "{cheap}");
    assert!(cheap.contains("g/v30"), "{cheap}");

    // A document that is not JSON leaves out its variable, as an invalid one does: each
    // is named, in the tree's order, whichever thread met which first, and the rest is
    // read (issue 38).
    let vars: Vec<(String, &str)> = (0..80).map(|i| (format!("v{i}"), "4")).collect();
    let vars: Vec<(&str, &str, &str, &str)> = vars
        .iter()
        .map(|(n, s)| ("", n.as_str(), r#""/x""#, *s))
        .collect();
    let store = dataset(r#""x": {"size": 4}"#, &vars);
    store.insert_str("v11/.zattrs", "{broken").unwrap();
    store.insert_str("v70/.zarray", "[also broken").unwrap();
    let (cheap, batched) = both_ways(store);
    assert_eq!(cheap, batched);
    assert!(!cheap.starts_with("error: "), "{cheap}");
    let (v11, v70) = (
        cheap.find("key 'v11/.zattrs'").unwrap(),
        cheap.find("key 'v70/.zarray'").unwrap(),
    );
    assert!(v11 < v70, "{cheap}");
    assert!(cheap.contains("/v12[") && !cheap.contains("/v11[") && !cheap.contains("/v70["));
}
